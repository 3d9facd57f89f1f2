//! Load client for the hosted status service's claim path (docs/hosted-status.md), beside
//! the key app's embedded status API and a trivial axum handler, in one run.
//!
//! `scripts/with-postgres cargo bench -p schcp-status --bench status` — prints
//! a Markdown table for docs/benchmarks.md. Each client is one kept-alive
//! HTTP/1.1 connection sending `POST …/claims` with a fresh claim id, one at a
//! time; every answer must be 201 (committed before it is sent). The clients
//! are spread over 4 mandates with a shared limit no run exhausts.
//!
//! Arms, at 64 clients (`BENCH_CLIENTS` to change):
//! - `trivial`: an axum handler answering 201 (the HTTP ceiling);
//! - `embedded`: the key app's status API on SQLite (group commit, `synchronous = FULL`);
//! - `hosted ×1`, `hosted ×3`: one or three `schcp-status serve` processes on
//!   one PostgreSQL, the clients spread round-robin over the processes.
//!
//! Env: `BENCH_SECS` (default 5) per arm; `BENCH_MANDATES` (default 4): how
//! many credentials the clients share; `DATABASE_URL` (required).

use axum::http::StatusCode;
use axum::routing::post;
use axum::Router;
use keyapp::status_api::{self, StatusOptions, StatusState};
use keyapp::store::credentials::{self, CredentialRecord};
use keyapp::store::Store;
use schcp::status_update::{self, Operation, Registration};
use std::io::{BufRead, BufReader as StdBufReader, Write};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

struct Point {
    arm: String,
    requests: usize,
    secs: f64,
    p50_us: u64,
    p99_us: u64,
}

impl Point {
    fn rate(&self) -> f64 {
        self.requests as f64 / self.secs
    }
}

/// One kept-alive connection, one request at a time; latencies in µs.
async fn client(addr: SocketAddr, path: String, prefix: String, until: Instant, warmup_until: Instant) -> Vec<u32> {
    let stream = TcpStream::connect(addr).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let (r, mut w) = stream.into_split();
    let mut r = BufReader::new(r);
    let mut lat = Vec::with_capacity(1 << 16);
    let mut line = String::new();
    let mut body = Vec::new();
    for n in 0u64.. {
        let start = Instant::now();
        if start >= until {
            break;
        }
        let json = format!("{{\"claim_id\":\"maple-street-auto/{prefix}_{n:012}\"}}");
        let req = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{json}",
            json.len()
        );
        w.write_all(req.as_bytes()).await.unwrap();
        line.clear();
        r.read_line(&mut line).await.unwrap();
        let status: u16 = line.split(' ').nth(1).unwrap().parse().unwrap();
        let mut length = 0usize;
        loop {
            line.clear();
            r.read_line(&mut line).await.unwrap();
            if line == "\r\n" {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap();
                }
            }
        }
        body.resize(length, 0);
        r.read_exact(&mut body).await.unwrap();
        assert_eq!(status, 201, "{}", String::from_utf8_lossy(&body));
        if start >= warmup_until {
            lat.push(start.elapsed().as_micros().min(u32::MAX as u128) as u32);
        }
    }
    lat
}

/// `clients` clients for `secs` (after 0.5 s of warm-up), client `i` on
/// `addrs[i % len]` and path `paths(i)`.
async fn run(arm: &str, addrs: &[SocketAddr], clients: usize, secs: f64, paths: impl Fn(usize) -> String) -> Point {
    let start = Instant::now();
    let warmup_until = start + Duration::from_millis(500);
    let until = warmup_until + Duration::from_secs_f64(secs);
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..clients {
        let prefix = format!("{}-{i}", arm.replace(' ', ""));
        tasks.spawn(client(addrs[i % addrs.len()], paths(i), prefix, until, warmup_until));
    }
    let mut all: Vec<u32> = tasks.join_all().await.into_iter().flatten().collect();
    all.sort_unstable();
    let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)] as u64;
    Point { arm: arm.to_owned(), requests: all.len(), secs, p50_us: pct(0.50), p99_us: pct(0.99) }
}

/// A `schcp-status serve` process, rate limit off, killed on drop.
/// The config file lives as long as the process.
struct Server(Child, SocketAddr, #[allow(dead_code)] tempfile::NamedTempFile);

impl Server {
    fn spawn(url: &str) -> Server {
        let mut config = tempfile::NamedTempFile::new().unwrap();
        writeln!(config, "rate_per_second = 0\npool_size = 16").unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_schcp-status"))
            .args(["--config", config.path().to_str().unwrap(), "serve", "--listen", "127.0.0.1:0"])
            .env("DATABASE_URL", url)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        StdBufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = line.trim().strip_prefix("listening on ").expect("schcp-status started").parse().unwrap();
        Server(child, addr, config)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn main() {
    let secs: f64 = std::env::var("BENCH_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(5.0);
    let clients: usize = std::env::var("BENCH_CLIENTS").ok().and_then(|s| s.parse().ok()).unwrap_or(64);
    let url = std::env::var("DATABASE_URL").expect("DATABASE_URL: run under scripts/with-postgres");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    rt.block_on(async move {
        let pool = schcp_status::store::connect(&url, &Default::default()).await.unwrap();
        schcp_status::store::MIGRATOR.run(&pool).await.unwrap();
        // The trivial handler.
        let trivial = {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let app = Router::new().route("/trivial", post(|| async { (StatusCode::CREATED, "{}") }));
            tokio::spawn(async move { axum::serve(listener, app).await });
            addr
        };
        // The embedded status API, on disk like the key app's.
        let dir = tempfile::Builder::new().prefix("schcp-status-bench").tempdir_in("/var/tmp").unwrap();
        let store = Store::open(&dir.path().join("keyapp.db")).await.unwrap();
        let count: usize = std::env::var("BENCH_MANDATES").ok().and_then(|s| s.parse().ok()).unwrap_or(4);
        let mandates: Vec<String> = (0..count).map(|m| format!("m-{m}")).collect();
        for jti in &mandates {
            credentials::record(
                &store,
                CredentialRecord {
                    jti: jti.clone(),
                    kind: keyapp::kind::RequestKind::Mandate,
                    agent_jkt: None,
                    request_id: None,
                    aud: vec!["maple-street-auto".into()],
                    scope: vec![schcp::claims::Action::Hold, schcp::claims::Action::Book],
                    iat: now(),
                    exp: now() + 86_400,
                    compact: "h.p.s".into(),
                    status_url: Some(format!("https://keyapp.example/status/{jti}")),
                    max_bookings: Some(u32::MAX),
                    shared_limit: true,
                    booking_id: None,
                    host_keys: Default::default(),
                },
            )
            .await
            .unwrap();
        }
        let embedded = {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let options =
                StatusOptions { rate_limit: None, max_connections_per_peer: 4096, ..StatusOptions::default() };
            tokio::spawn(status_api::serve(listener, StatusState::with_options(store.clone(), options)));
            addr
        };
        // The hosted service: a fresh principal, its 4 mandates registered.
        let servers: Vec<Server> = (0..3).map(|_| Server::spawn(&url)).collect();
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
                .post(format!("http://{}/status/{thumb}", servers[0].1))
                .header("content-type", "application/jose")
                .body(update)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 201);
        }
        let embedded_path = |i: usize| format!("/status/{}/claims", mandates[i % count]);
        let hosted_path = |i: usize| format!("/status/{thumb}/{}/claims", mandates[i % count]);
        let one = [servers[0].1];
        let three: Vec<SocketAddr> = servers.iter().map(|s| s.1).collect();
        let points = vec![
            run("trivial", &[trivial], clients, secs, |_| "/trivial".to_owned()).await,
            run("embedded", &[embedded], clients, secs, embedded_path).await,
            run("hosted x1", &one, clients, secs, hosted_path).await,
            run("hosted x3", &three, clients, secs, hosted_path).await,
        ];
        // Every acknowledged claim is held: the 201s were commits.
        let held: i64 = sqlx::query_scalar("SELECT count(*) FROM claims WHERE thumb = $1")
            .bind(&thumb)
            .fetch_one(&pool)
            .await
            .unwrap();
        assert!(held as usize >= points[2].requests + points[3].requests);
        let base = &points[0];
        println!(
            "| arm ({clients} clients, {count} mandates) | claims/s | p50 | p99 | vs trivial (throughput / p99) |"
        );
        println!("|---|---|---|---|---|");
        for p in &points {
            println!(
                "| {} | {:.0} | {:.2} ms | {:.2} ms | {:.2}× / {:.1}× |",
                p.arm,
                p.rate(),
                p.p50_us as f64 / 1000.0,
                p.p99_us as f64 / 1000.0,
                base.rate() / p.rate(),
                p.p99_us as f64 / base.p99_us.max(1) as f64
            );
        }
        let (emb, h1, h3) = (&points[1], &points[2], &points[3]);
        println!(
            "\nhosted x1 vs embedded: {:.2}× throughput, {:.2}× p99; hosted x3 vs x1: {:.2}× throughput, {:.2}× p99",
            h1.rate() / emb.rate(),
            h1.p99_us as f64 / emb.p99_us.max(1) as f64,
            h3.rate() / h1.rate(),
            h3.p99_us as f64 / h1.p99_us.max(1) as f64
        );
    });
}
