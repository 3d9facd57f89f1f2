//! The load client of the status benches: clients that each keep one HTTP/1.1
//! connection alive and send `POST …/claims` with a fresh claim id, one request
//! at a time, every answer a 201; latencies after a warm-up, and the figures
//! docs/benchmarks.md prints. Also the ceiling they are compared with, an axum
//! handler answering 201 to the same request.

use axum::http::StatusCode;
use axum::routing::post;
use axum::Router;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// Claim ids: `Shared` draws from one increasing sequence (ULID-like hold ids,
/// as a host's are); `Own` numbers each client's claims under its own prefix.
#[derive(Clone)]
pub enum Ids {
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

/// One arm at one number of clients.
pub struct Point {
    pub arm: String,
    pub clients: usize,
    pub requests: usize,
    pub secs: f64,
    pub p50_us: u64,
    pub p99_us: u64,
}

impl Point {
    /// Requests per second.
    pub fn rate(&self) -> f64 {
        self.requests as f64 / self.secs
    }
}

/// Reads one response; its status and body.
async fn response(r: &mut BufReader<tokio::net::tcp::OwnedReadHalf>, line: &mut String, body: &mut Vec<u8>) -> u16 {
    line.clear();
    r.read_line(line).await.unwrap();
    let status: u16 = line.split(' ').nth(1).unwrap().parse().unwrap();
    let mut length = 0usize;
    loop {
        line.clear();
        r.read_line(line).await.unwrap();
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
    r.read_exact(body).await.unwrap();
    status
}

/// One kept-alive connection, one request at a time until `until`; the
/// latencies (µs) of those begun after `warmup_until`, and the number of 201s.
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
        let status = response(&mut r, &mut line, &mut body).await;
        assert_eq!(status, 201, "{}", String::from_utf8_lossy(&body));
        created += 1;
        if start >= warmup_until {
            lat.push(start.elapsed().as_micros().min(u32::MAX as u128) as u32);
        }
    }
    (lat, created)
}

/// `clients` clients for `secs` after 0.5 s of warm-up, client `i` on
/// `addrs[i % len]`, path `paths(i)` and claim ids `ids(i)`; the point and the
/// number of 201s.
pub async fn run(
    arm: &str,
    addrs: &[SocketAddr],
    clients: usize,
    secs: f64,
    paths: impl Fn(usize) -> String,
    ids: impl Fn(usize) -> Ids,
) -> (Point, usize) {
    let start = Instant::now();
    let warmup_until = start + Duration::from_millis(500);
    let until = warmup_until + Duration::from_secs_f64(secs);
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..clients {
        tasks.spawn(client(addrs[i % addrs.len()], paths(i), ids(i), until, warmup_until));
    }
    let mut all = Vec::new();
    let mut created = 0;
    for (lat, c) in tasks.join_all().await {
        all.extend(lat);
        created += c;
    }
    all.sort_unstable();
    let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)] as u64;
    let point = Point { arm: arm.to_owned(), clients, requests: all.len(), secs, p50_us: pct(0.50), p99_us: pct(0.99) };
    (point, created)
}

/// The ceiling: an axum handler answering 201 at `POST /trivial`.
pub async fn trivial() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().route("/trivial", post(|| async { (StatusCode::CREATED, "{}") }));
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

/// Microseconds as the tables print them.
pub fn fmt_us(us: u64) -> String {
    if us >= 10_000 {
        format!("{:.1} ms", us as f64 / 1000.0)
    } else {
        format!("{us} µs")
    }
}
