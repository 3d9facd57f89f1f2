//! Load client for the status API's claim path, beside the same client
//! against a trivial axum handler in the same run (the framework's ceiling).
//!
//! `cargo bench -p schcp-keyapp --bench status_api` — prints a Markdown table for
//! docs/benchmarks.md. Each client is one kept-alive HTTP/1.1 connection sending
//! `POST /status/{jti}/claims` with a fresh claim id, one request at a time; every
//! claim is a 201 committed with `synchronous = FULL` before it is answered, and
//! after each run the table is checked to hold exactly the acknowledged claims.
//!
//! Arms, each at 1, 8 and 64 clients:
//! - `trivial`: an axum handler answering 201 to the same request (the ceiling);
//! - `claim`: the status API as shipped (group commit), the clients spread over
//!   4 mandates (one person's live mandates with a shared limit), hold ids
//!   increasing like ULIDs, as a host's are;
//! - `claim, 64 mandates`: each client on a mandate of its own, the worst case
//!   for page locality (every claim in a batch dirties another index page);
//! - `claim, batch 1`: the `claim` scenario with one transaction, one fsync, per
//!   claim (what the group commit saves).
//!
//! Env: `BENCH_SECS` (default 3) per point; `BENCH_CLIENTS` (default `1,8,64`).

use keyapp::status_api::{RateLimit, StatusOptions};
use keyapp::store::Store;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use testkit::load::{fmt_us, run, trivial, Ids};
use testkit::status::{store_on_disk, unlimited_mandates, Embedded};

async fn status_server(store: Store, max_batch: usize) -> Embedded {
    let options = StatusOptions {
        // The limiter stays in the path, with a budget no load run reaches.
        rate_limit: Some(RateLimit { per_second: 1e9, burst: 1e9 }),
        max_connections_per_peer: 4096,
        max_batch,
        ..StatusOptions::default()
    };
    Embedded::serve(store, options).await
}

fn main() {
    let secs: f64 = std::env::var("BENCH_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    rt.block_on(async move {
        let (_dir, store) = store_on_disk("schcp-bench").await;
        let few: Vec<String> = (0..4).map(|m| format!("few-{m}")).collect();
        let own: Vec<String> = (0..64).map(|m| format!("own-{m}")).collect();
        unlimited_mandates(&store, &few, &["maple-street-auto", "oak-lane-garage"]).await;
        unlimited_mandates(&store, &own, &["maple-street-auto", "oak-lane-garage"]).await;
        let group = status_server(store.clone(), 256).await;
        let single = status_server(store.clone(), 1).await;
        let trivial = trivial().await;
        let few_path = |i: usize| format!("/status/{}/claims", few[i % few.len()]);
        let own_path = |i: usize| format!("/status/{}/claims", own[i % own.len()]);
        let seq = Arc::new(AtomicU64::new(0));
        let shared = |_: usize| Ids::Shared(seq.clone());

        let counts: Vec<usize> = std::env::var("BENCH_CLIENTS")
            .ok()
            .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
            .unwrap_or_else(|| vec![1, 8, 64]);
        let mut rows = Vec::new();
        for (round, clients) in counts.into_iter().enumerate() {
            let (t, _) = run("trivial", &[trivial], clients, secs, |_| "/trivial".to_owned(), &shared).await;
            let mut points = vec![t];
            for (arm, addr, path, own_ids) in [
                ("claim", group.addr, &few_path as &dyn Fn(usize) -> String, false),
                ("claim, 64 mandates", group.addr, &own_path, true),
                ("claim, batch 1", single.addr, &few_path, false),
            ] {
                let before = count(&store).await;
                let ids = |i: usize| if own_ids { Ids::Own(format!("r{round}c{i}")) } else { Ids::Shared(seq.clone()) };
                let (p, created) = run(arm, &[addr], clients, secs, path, ids).await;
                // Every acknowledged claim is in the table.
                assert_eq!(count(&store).await - before, created as i64, "{arm}");
                points.push(p);
            }
            eprintln!(
                "{clients:>3} clients: {}",
                points.iter().map(|p| format!("{} {:.0}/s", p.arm, p.rate())).collect::<Vec<_>>().join(", ")
            );
            rows.push(points);
        }

        println!("| clients | arm | requests/s | p50 | p99 | trivial ÷ arm (throughput) |");
        println!("|---:|---|---:|---:|---:|---:|");
        for points in &rows {
            let t = &points[0];
            for p in points {
                println!(
                    "| {} | {} | {:.0} | {} | {} | {:.2}× |",
                    p.clients,
                    p.arm,
                    p.rate(),
                    fmt_us(p.p50_us),
                    fmt_us(p.p99_us),
                    t.rate() / p.rate()
                );
            }
        }
    });
}

async fn count(store: &Store) -> i64 {
    let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM limit_claims").fetch_one(store.pool()).await.unwrap();
    n
}
