//! Load client for the hosted status service's claim path (docs/hosted-status.md), beside
//! the key app's embedded status API and a trivial axum handler, in one run.
//!
//! `PG_SHARED_BUFFERS=1GB scripts/with-postgres cargo bench -p schcp-status --bench status`
//! — prints Markdown tables for docs/benchmarks.md. The cluster's buffers are
//! sized as docs/hosted-status.md "Deploying it" asks an operator to size them:
//! a run's claims and their index outgrow PostgreSQL's default 128 MB, and the
//! arms measured last would then pay for the evictions the earlier ones caused. Each client is one kept-alive
//! HTTP/1.1 connection sending `POST …/claims` with a fresh claim id, one at a
//! time; every answer must be 201 (committed before it is sent).
//!
//! Two cases, one after the other in the same run: the clients spread over 4
//! credentials (hot credentials: many claims wait on each row lock) and over
//! 64 (a hosted service's usual load). Each credential has a shared limit no
//! run exhausts. Arms, at 64 clients (`BENCH_CLIENTS` to change):
//! - `trivial`: an axum handler answering 201 (the HTTP ceiling);
//! - `embedded`: the key app's status API on SQLite (group commit, `synchronous = FULL`);
//! - `hosted, one tx per claim ×1/×3`: `schcp-status serve` with `claim_batches = 0`;
//! - `hosted, batched ×1/×3`: the default, claims batched per process;
//! - `hosted, batched + commit_delay ×1/×3`: the same with PostgreSQL's
//!   `commit_delay` (`BENCH_COMMIT_DELAY_US`, default 100) and `commit_siblings = 1`.
//!
//! - `hosted, batched, 3 processes, routed by credential` (`routed`): each
//!   credential's clients on one process, as a load balancer hashing the
//!   request path sends them (docs/hosted-status.md "Several processes").
//!
//! ×3 is three processes on the one PostgreSQL, the clients spread
//! round-robin over them unless routed. Every hosted arm registers a fresh
//! namespace with the case's credentials, so no arm works on rows an earlier
//! arm updated; after each arm the run checks that the claims table holds
//! exactly the claims that arm was answered 201.
//!
//! Env: `BENCH_SECS` (default 5) per arm; `BENCH_CLAIM_BATCHES` (default:
//! the service's) for the batched arms; `DATABASE_URL` (required). For
//! shorter trials: `BENCH_CASES` (default `4,64`), `BENCH_ARMS` (default
//! `unbatched,batched,routed,delay`; trivial and embedded always run),
//! `BENCH_SERVER_CONFIG` (TOML lines for the batched processes, `;`-separated).

use keyapp::status_api::StatusOptions;
use schcp::status_update::{self, Operation, Registration};
use sqlx::PgPool;
use std::net::SocketAddr;
use std::path::Path;
use testkit::load::{run, trivial, Ids, Point};
use testkit::now;
use testkit::status::{store_on_disk, unlimited_mandates, Embedded};
use testkit::status_process::StatusProcess;

/// A `schcp-status serve` process, rate limit off, killed on drop.
fn server(url: &str, claim_batches: Option<usize>, extra: &str) -> StatusProcess {
    let bin = Path::new(env!("CARGO_BIN_EXE_schcp-status"));
    let mut config = format!("rate_per_second = 0\n{extra}\n");
    if let Some(n) = claim_batches {
        config.push_str(&format!("claim_batches = {n}\n"));
    }
    StatusProcess::spawn(bin, url, "127.0.0.1:0", Some(&config))
}

/// What a run shares: settings, the servers and the database.
struct Bench {
    secs: f64,
    clients: usize,
    commit_delay_us: u32,
    trivial: SocketAddr,
    embedded: Embedded,
    unbatched: Vec<StatusProcess>,
    batched: Vec<StatusProcess>,
    pool: PgPool,
    /// Which hosted arms run (`BENCH_ARMS`): `unbatched`, `batched`, `routed`, `delay`.
    arms: Vec<String>,
}

/// One arm's figures and the 201s it was given (warm-up included).
struct Arm {
    point: Point,
    created: usize,
    hosted: bool,
    /// Its namespace's claims were counted against `created`.
    checked: bool,
}

impl Bench {
    /// `clients` clients on `addrs`, each on claim ids of its own.
    async fn arm(&self, name: &str, addrs: &[SocketAddr], hosted: bool, paths: impl Fn(usize) -> String) -> Arm {
        let prefix: String = name.chars().filter(char::is_ascii_alphanumeric).collect();
        let (point, created) =
            run(name, addrs, self.clients, self.secs, paths, |i| Ids::Own(format!("{prefix}-{i}"))).await;
        Arm { point, created, hosted, checked: false }
    }

    /// PostgreSQL's group-commit wait, for every session (0: off).
    async fn commit_delay(&self, us: u32) {
        for q in [
            format!("ALTER SYSTEM SET commit_delay = {us}"),
            format!("ALTER SYSTEM SET commit_siblings = {}", if us == 0 { 5 } else { 1 }),
            "SELECT pg_reload_conf()".to_owned(),
        ] {
            sqlx::query(&q).execute(&self.pool).await.unwrap();
        }
        // Backends read the new settings between statements.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }

    /// One hosted arm on credentials of its own: a fresh namespace with
    /// `mandates` registered, so no arm works on rows another arm updated
    /// (dead tuples of earlier arms would slow the later ones). `route` gives
    /// each credential's process (`None`: the clients round-robin over `addrs`).
    async fn hosted(&self, name: &str, addrs: &[SocketAddr], mandates: &[String], route: bool) -> Arm {
        let thumb = self.register(mandates).await;
        let count = mandates.len();
        let path = |i: usize| format!("/status/{thumb}/{}/claims", mandates[i % count]);
        let mut arm = if route {
            // As a load balancer hashing the request path would: every claim
            // on one credential goes to one process. Client i's credential is
            // i % count, so `routed[i % count]` is its process.
            let picks: Vec<usize> = (0..count).map(|m| by_path(&path(m), addrs.len())).collect();
            let per: Vec<usize> = (0..addrs.len()).map(|p| picks.iter().filter(|&&q| q == p).count()).collect();
            println!("{name}: credentials per process {per:?}");
            let routed: Vec<SocketAddr> = picks.iter().map(|&p| addrs[p]).collect();
            self.arm(name, &routed, true, path).await
        } else {
            self.arm(name, addrs, true, path).await
        };
        // Every 201 is a committed claim, and nothing else is held.
        let held: i64 = sqlx::query_scalar("SELECT count(*) FROM claims WHERE thumb = $1")
            .bind(&thumb)
            .fetch_one(&self.pool)
            .await
            .unwrap();
        assert_eq!(held as usize, arm.created, "{name}: the claims table holds exactly the acknowledged claims");
        arm.checked = true;
        arm
    }

    /// One case: `count` credentials, every arm; prints its table.
    async fn case(&self, count: usize) -> Vec<Arm> {
        let mandates: Vec<String> = (0..count).map(|m| format!("c{count}-m-{m}")).collect();
        unlimited_mandates(&self.embedded.store, &mandates, &["maple-street-auto"]).await;
        let embedded_path = |i: usize| format!("/status/{}/claims", mandates[i % count]);
        let addrs = |s: &[StatusProcess], n: usize| s.iter().take(n).map(|s| s.addr).collect::<Vec<_>>();
        let (u1, u3) = (addrs(&self.unbatched, 1), addrs(&self.unbatched, 3));
        let (b1, b3) = (addrs(&self.batched, 1), addrs(&self.batched, 3));
        let mut arms = vec![
            self.arm("trivial handler", &[self.trivial], false, |_| "/trivial".to_owned()).await,
            self.arm("embedded (SQLite)", &[self.embedded.addr], false, embedded_path).await,
        ];
        let runs = |arm: &str| self.arms.iter().any(|a| a == arm);
        if runs("unbatched") {
            arms.push(self.hosted("hosted, one tx per claim, 1 process", &u1, &mandates, false).await);
            arms.push(self.hosted("hosted, one tx per claim, 3 processes", &u3, &mandates, false).await);
        }
        if runs("batched") {
            arms.push(self.hosted(BATCHED_1, &b1, &mandates, false).await);
            arms.push(self.hosted(BATCHED_3, &b3, &mandates, false).await);
        }
        if runs("routed") {
            arms.push(self.hosted(ROUTED_3, &b3, &mandates, true).await);
        }
        if runs("delay") {
            self.commit_delay(self.commit_delay_us).await;
            let delay = self.commit_delay_us;
            let one = format!("hosted, batched + commit_delay {delay} µs, 1 process");
            arms.push(self.hosted(&one, &b1, &mandates, false).await);
            let three = format!("hosted, batched + commit_delay {delay} µs, 3 processes");
            arms.push(self.hosted(&three, &b3, &mandates, false).await);
            self.commit_delay(0).await;
        }
        let acknowledged: usize = arms.iter().filter(|a| a.hosted).map(|a| a.created).sum();
        assert!(arms.iter().filter(|a| a.hosted).all(|a| a.checked));
        print_table(self.clients, count, &arms);
        println!("\nChecked, arm by arm: the claims table holds exactly the {acknowledged} claims the hosted arms acknowledged.\n");
        arms
    }

    /// A fresh principal with `mandates` registered; its namespace.
    async fn register(&self, mandates: &[String]) -> String {
        let key = ed25519_dalek::SigningKey::generate(&mut rand_core::OsRng);
        let thumb = schcp::jws::Signer::public_key(&key).to_jwk().thumbprint().unwrap();
        let http = reqwest::Client::builder().no_proxy().build().unwrap();
        for (n, jti) in mandates.iter().enumerate() {
            let op = Operation::Register(Registration {
                jti: jti.clone(),
                exp: now() + 86_400,
                aud: vec!["maple-street-auto".into()],
                max_bookings: Some(u32::MAX),
                shared_limit: true,
                host_keys: Default::default(),
            });
            let update = status_update::sign(&key, now(), &format!("bench-{n}"), &op).unwrap();
            let r = http
                .post(format!("{}/status/{thumb}", self.batched[0].base()))
                .header("content-type", "application/jose")
                .body(update)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 201);
        }
        thumb
    }
}

const BATCHED_1: &str = "hosted, batched, 1 process";
const BATCHED_3: &str = "hosted, batched, 3 processes";
const ROUTED_3: &str = "hosted, batched, 3 processes, routed by credential";

/// The process a load balancer hashing the request path picks among `n`
/// (FNV-1a; any stable hash spreads credentials alike).
fn by_path(path: &str, n: usize) -> usize {
    let h = path.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    (h % n as u64) as usize
}

/// The aims (docs/benchmarks.md): batched, against the embedded API of the same case.
fn print_aims(count: usize, arms: &[Arm], aim: f64) {
    let rate = |name: &str| arms.iter().find(|a| a.point.arm == name).map(|a| a.point.rate());
    if let (Some(one), Some(three)) = (rate(BATCHED_1), rate(BATCHED_3)) {
        println!(
            "{count} credentials: hosted ×1 ÷ embedded {:.2}× (aim ≥ {aim}×); ×3 ÷ ×1 {:.2}× (aim ≥ 1)",
            one / arms[1].point.rate(),
            three / one
        );
    }
    if let (Some(one), Some(routed)) = (rate(BATCHED_1), rate(ROUTED_3)) {
        println!("{count} credentials: ×3 routed by credential ÷ ×1 {:.2}× (aim ≥ 1)", routed / one);
    }
}

fn print_table(clients: usize, count: usize, arms: &[Arm]) {
    let base = &arms[0].point;
    let embedded = &arms[1].point;
    println!("| arm ({clients} clients, {count} credentials) | claims/s | p50 | p99 | ÷ embedded (throughput) | trivial ÷ arm (throughput / p99) |");
    println!("|---|---:|---:|---:|---:|---:|");
    for a in arms {
        let p = &a.point;
        println!(
            "| {} | {:.0} | {:.2} ms | {:.2} ms | {:.2}× | {:.1}× / {:.1}× |",
            p.arm,
            p.rate(),
            p.p50_us as f64 / 1000.0,
            p.p99_us as f64 / 1000.0,
            p.rate() / embedded.rate(),
            base.rate() / p.rate(),
            p.p99_us as f64 / base.p99_us.max(1) as f64
        );
    }
}

fn main() {
    let env = |k: &str| std::env::var(k).ok().and_then(|s| s.parse::<f64>().ok());
    let secs = env("BENCH_SECS").unwrap_or(5.0);
    let clients = env("BENCH_CLIENTS").map_or(64, |c| c as usize);
    let commit_delay_us = env("BENCH_COMMIT_DELAY_US").map_or(100, |c| c as u32);
    let claim_batches = env("BENCH_CLAIM_BATCHES").map(|c| c as usize);
    // Extra configuration for the batched processes, one TOML line each (trials).
    let extra = std::env::var("BENCH_SERVER_CONFIG").unwrap_or_default().replace(';', "\n");
    let arms = std::env::var("BENCH_ARMS").unwrap_or_else(|_| "unbatched,batched,routed,delay".to_owned());
    let url = std::env::var("DATABASE_URL").expect("DATABASE_URL: run under scripts/with-postgres");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    rt.block_on(async move {
        let pool = schcp_status::store::connect(&url, &Default::default()).await.unwrap();
        schcp_status::store::MIGRATOR.run(&pool).await.unwrap();
        for setting in ["server_version", "fsync", "synchronous_commit", "wal_sync_method", "shared_buffers"] {
            let v: String = sqlx::query_scalar(&format!("SHOW {setting}")).fetch_one(&pool).await.unwrap();
            println!("PostgreSQL {setting} = {v}");
        }
        let trivial = trivial().await;
        // The embedded status API, on disk like the key app's.
        let (_dir, store) = store_on_disk("schcp-status-bench").await;
        let options = StatusOptions { rate_limit: None, max_connections_per_peer: 4096, ..StatusOptions::default() };
        let embedded = Embedded::serve(store, options).await;
        let bench = Bench {
            secs,
            clients,
            commit_delay_us,
            trivial,
            embedded,
            unbatched: (0..3).map(|_| server(&url, Some(0), "")).collect(),
            batched: (0..3).map(|_| server(&url, claim_batches, &extra)).collect(),
            pool,
            arms: arms.split(',').map(|a| a.trim().to_owned()).collect(),
        };
        println!();
        let cases = std::env::var("BENCH_CASES").unwrap_or_else(|_| "4,64".to_owned());
        let mut results = Vec::new();
        for count in cases.split(',').filter_map(|c| c.trim().parse::<usize>().ok()) {
            results.push((count, bench.case(count).await));
        }
        for (count, arms) in &results {
            print_aims(*count, arms, if *count <= 4 { 0.5 } else { 0.8 });
        }
    });
}
