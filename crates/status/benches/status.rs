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

use keyapp::status_api::StatusOptions;
use schcp::status_update::{self, Operation, Registration};
use std::net::SocketAddr;
use std::path::Path;
use testkit::load::{run, trivial, Ids, Point};
use testkit::now;
use testkit::status::{store_on_disk, unlimited_mandates, Embedded};
use testkit::status_process::StatusProcess;

/// `clients` clients of `arm`, each on claim ids of its own.
async fn arm(arm: &str, addrs: &[SocketAddr], clients: usize, secs: f64, paths: impl Fn(usize) -> String) -> Point {
    let prefix = arm.replace(' ', "");
    run(arm, addrs, clients, secs, paths, |i| Ids::Own(format!("{prefix}-{i}"))).await.0
}

/// A `schcp-status serve` process, rate limit off, killed on drop.
fn server(url: &str) -> StatusProcess {
    let bin = Path::new(env!("CARGO_BIN_EXE_schcp-status"));
    StatusProcess::spawn(bin, url, "127.0.0.1:0", Some("rate_per_second = 0\npool_size = 16\n"))
}

fn main() {
    let secs: f64 = std::env::var("BENCH_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(5.0);
    let clients: usize = std::env::var("BENCH_CLIENTS").ok().and_then(|s| s.parse().ok()).unwrap_or(64);
    let url = std::env::var("DATABASE_URL").expect("DATABASE_URL: run under scripts/with-postgres");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    rt.block_on(async move {
        let pool = schcp_status::store::connect(&url, &Default::default()).await.unwrap();
        schcp_status::store::MIGRATOR.run(&pool).await.unwrap();
        let trivial = trivial().await;
        // The embedded status API, on disk like the key app's.
        let (_dir, store) = store_on_disk("schcp-status-bench").await;
        let count: usize = std::env::var("BENCH_MANDATES").ok().and_then(|s| s.parse().ok()).unwrap_or(4);
        let mandates: Vec<String> = (0..count).map(|m| format!("m-{m}")).collect();
        unlimited_mandates(&store, &mandates, &["maple-street-auto"]).await;
        let options = StatusOptions { rate_limit: None, max_connections_per_peer: 4096, ..StatusOptions::default() };
        let embedded = Embedded::serve(store, options).await;
        // The hosted service: a fresh principal, its 4 mandates registered.
        let servers: Vec<StatusProcess> = (0..3).map(|_| server(&url)).collect();
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
                .post(format!("{}/status/{thumb}", servers[0].base()))
                .header("content-type", "application/jose")
                .body(update)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 201);
        }
        let embedded_path = |i: usize| format!("/status/{}/claims", mandates[i % count]);
        let hosted_path = |i: usize| format!("/status/{thumb}/{}/claims", mandates[i % count]);
        let one = [servers[0].addr];
        let three: Vec<SocketAddr> = servers.iter().map(|s| s.addr).collect();
        let points = vec![
            arm("trivial", &[trivial], clients, secs, |_| "/trivial".to_owned()).await,
            arm("embedded", &[embedded.addr], clients, secs, embedded_path).await,
            arm("hosted x1", &one, clients, secs, hosted_path).await,
            arm("hosted x3", &three, clients, secs, hosted_path).await,
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
