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

use axum::http::StatusCode;
use axum::routing::post;
use axum::Router;
use keyapp::status_api::{self, RateLimit, StatusOptions, StatusState};
use keyapp::store::credentials::{self, CredentialRecord};
use keyapp::store::Store;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// Claim ids: `Shared` draws from one increasing sequence (ULID-like hold ids);
/// `Own` numbers each client's claims under its own prefix.
#[derive(Clone)]
enum Ids {
    Shared(Arc<AtomicU64>),
    Own(String),
}

impl Ids {
    fn next(&self, n: u64) -> String {
        match self {
            Ids::Shared(seq) => format!("maple-street-auto/h_{:016}", seq.fetch_add(1, Ordering::Relaxed)),
            Ids::Own(prefix) => format!("maple-street-auto/{prefix}_{n:012}"),
        }
    }
}

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

struct Point {
    arm: &'static str,
    clients: usize,
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

/// One kept-alive connection, one request at a time; returns latencies (µs) and
/// the number of 201s.
async fn client(addr: SocketAddr, path: String, ids: Ids, until: Instant, warmup_until: Instant) -> (Vec<u32>, usize) {
    let stream = TcpStream::connect(addr).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let (r, mut w) = stream.into_split();
    let mut r = BufReader::new(r);
    let mut lat = Vec::with_capacity(1 << 16);
    let mut created = 0;
    let mut line = String::new();
    let mut body = Vec::new();
    for n in 0u64.. {
        let start = Instant::now();
        if start >= until {
            break;
        }
        let json = format!("{{\"claim_id\":\"{}\"}}", ids.next(n));
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
        created += 1;
        if start >= warmup_until {
            lat.push(start.elapsed().as_micros().min(u32::MAX as u128) as u32);
        }
    }
    (lat, created)
}

async fn run(
    arm: &'static str,
    addr: SocketAddr,
    clients: usize,
    secs: f64,
    paths: impl Fn(usize) -> String,
    ids: impl Fn(usize) -> Ids,
) -> (Point, usize) {
    let warmup = Duration::from_millis(500);
    let start = Instant::now();
    let warmup_until = start + warmup;
    let until = warmup_until + Duration::from_secs_f64(secs);
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..clients {
        tasks.spawn(client(addr, paths(i), ids(i), until, warmup_until));
    }
    let mut all = Vec::new();
    let mut created = 0;
    for (lat, c) in tasks.join_all().await {
        all.extend(lat);
        created += c;
    }
    all.sort_unstable();
    let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)] as u64;
    let point = Point { arm, clients, requests: all.len(), secs, p50_us: pct(0.50), p99_us: pct(0.99) };
    (point, created)
}

async fn status_server(store: Store, max_batch: usize) -> SocketAddr {
    let options = StatusOptions {
        // The limiter stays in the path, with a budget no load run reaches.
        rate_limit: Some(RateLimit { per_second: 1e9, burst: 1e9 }),
        max_connections_per_peer: 4096,
        max_batch,
        ..StatusOptions::default()
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(status_api::serve(listener, StatusState::with_options(store, options)));
    addr
}

fn main() {
    let secs: f64 = std::env::var("BENCH_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    rt.block_on(async move {
        // A database on disk, like the key app's (not tmpfs): /var/tmp.
        let dir = tempfile::Builder::new().prefix("schcp-bench").tempdir_in("/var/tmp").unwrap();
        let store = Store::open(&dir.path().join("keyapp.db")).await.unwrap();
        let few: Vec<String> = (0..4).map(|m| format!("few-{m}")).collect();
        let own: Vec<String> = (0..64).map(|m| format!("own-{m}")).collect();
        for jti in few.iter().chain(&own) {
            credentials::record(
                &store,
                CredentialRecord {
                    jti: jti.clone(),
                    kind: keyapp::kind::RequestKind::Mandate,
                    agent_jkt: None,
                    request_id: None,
                    aud: vec!["maple-street-auto".into(), "oak-lane-garage".into()],
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
        let group = status_server(store.clone(), 256).await;
        let single = status_server(store.clone(), 1).await;
        let trivial = {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let app = Router::new().route("/trivial", post(|| async { (StatusCode::CREATED, "{}") }));
            tokio::spawn(async move { axum::serve(listener, app).await });
            addr
        };
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
            let (t, _) = run("trivial", trivial, clients, secs, |_| "/trivial".to_owned(), &shared).await;
            let mut points = vec![t];
            for (arm, addr, path, own_ids) in [
                ("claim", group, &few_path as &dyn Fn(usize) -> String, false),
                ("claim, 64 mandates", group, &own_path, true),
                ("claim, batch 1", single, &few_path, false),
            ] {
                let before = count(&store).await;
                let ids = |i: usize| if own_ids { Ids::Own(format!("r{round}c{i}")) } else { Ids::Shared(seq.clone()) };
                let (p, created) = run(arm, addr, clients, secs, path, ids).await;
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

fn fmt_us(us: u64) -> String {
    if us >= 10_000 {
        format!("{:.1} ms", us as f64 / 1000.0)
    } else {
        format!("{us} µs")
    }
}
