//! Load client for the status API's claim path (issue 5), beside the same client
//! against a trivial axum handler in the same run (the framework's ceiling).
//!
//! `cargo bench -p schcp-keyapp --bench status_api` — prints a Markdown table for
//! docs/benchmarks.md. Each client is one kept-alive HTTP/1.1 connection sending
//! `POST /status/{jti}/claims` with a fresh claim id, one request at a time; every
//! claim is a 201 committed with `synchronous = FULL` before it is answered, and
//! after each run the table is checked to hold exactly the acknowledged claims.
//!
//! Arms: `trivial` (an axum handler answering 201 to the same request), `claim`
//! (the status API as shipped: group commit), `claim, batch 1` (the same with one
//! transaction, one fsync, per claim). Env: `BENCH_SECS` (default 3) per point.

use axum::http::StatusCode;
use axum::routing::post;
use axum::Router;
use keyapp::status_api::{self, RateLimit, StatusOptions, StatusState};
use keyapp::store::limits::{self, MandateRecord};
use keyapp::store::Store;
use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

const MANDATES: usize = 64;

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
async fn client(addr: SocketAddr, path: String, prefix: String, until: Instant, warmup_until: Instant) -> (Vec<u32>, usize) {
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
        let json = format!("{{\"claim_id\":\"maple-street-auto/{prefix}-{n}\"}}");
        let req = format!(
            "POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{json}",
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

async fn run(arm: &'static str, addr: SocketAddr, clients: usize, secs: f64, paths: impl Fn(usize) -> String) -> (Point, usize) {
    let warmup = Duration::from_millis(500);
    let start = Instant::now();
    let warmup_until = start + warmup;
    let until = warmup_until + Duration::from_secs_f64(secs);
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..clients {
        let prefix = format!("{arm}-{clients}-{i}").replace([' ', ','], "_");
        tasks.spawn(client(addr, paths(i), prefix, until, warmup_until));
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
        for m in 0..MANDATES {
            let jti = format!("bench-{m}");
            limits::record_mandate(
                &store,
                MandateRecord {
                    jti: jti.clone(),
                    kind: "mandate".into(),
                    agent_jkt: None,
                    request_id: None,
                    aud: vec!["maple-street-auto".into(), "oak-lane-garage".into()],
                    scope: vec!["hold".into(), "book".into()],
                    iat: now(),
                    exp: now() + 86_400,
                    compact: "h.p.s".into(),
                    status_url: Some(format!("https://keyapp.example/status/{jti}")),
                    max_bookings: Some(2_000_000_000),
                    shared_limit: true,
                    booking_id: None,
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
        let claim_path = |i: usize| format!("/status/bench-{}/claims", i % MANDATES);

        let mut rows = Vec::new();
        for clients in [1, 8, 64] {
            let (t, _) = run("trivial", trivial, clients, secs, |_| "/trivial".to_owned()).await;
            let before = count(&store).await;
            let (g, created) = run("claim", group, clients, secs, claim_path).await;
            // Every acknowledged claim is in the table.
            assert_eq!(count(&store).await - before, created as i64);
            let before = count(&store).await;
            let (s, created) = run("claim, batch 1", single, clients, secs.min(2.0), claim_path).await;
            assert_eq!(count(&store).await - before, created as i64);
            eprintln!(
                "{clients:>3} clients: trivial {:.0}/s, claim {:.0}/s, claim batch 1 {:.0}/s",
                t.rate(),
                g.rate(),
                s.rate()
            );
            rows.push((t, g, s));
        }

        println!("| clients | arm | requests/s | p50 | p99 | trivial ÷ arm (throughput) |");
        println!("|---:|---|---:|---:|---:|---:|");
        for (t, g, s) in &rows {
            for p in [t, g, s] {
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
