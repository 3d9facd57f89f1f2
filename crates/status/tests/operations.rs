//! What an operator runs the hosted service with (docs/hosted-status.md
//! "Operating it"): status reads a CDN may keep for a stated few seconds, and
//! nothing else; `/healthz`, `/readyz` and `/metrics` on their own address.

mod common;

use common::*;
use reqwest::header::CACHE_CONTROL;
use reqwest::StatusCode;
use schcp_status::service::{self, ServiceState};
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;
use tokio::net::TcpListener;

const MAPLE: &str = "maple-street-auto";

/// The routes in this process, with `max_age` for status reads.
async fn serve_with(max_age: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = ServiceState::new(pool().await, status_edge::StatusOptions::default()).with_status_max_age(max_age);
    tokio::spawn(service::serve(listener, state));
    format!("http://{addr}")
}

fn cache_control(r: &reqwest::Response) -> Option<String> {
    r.headers().get(CACHE_CONTROL).map(|v| v.to_str().unwrap().to_owned())
}

#[tokio::test]
async fn a_status_read_may_be_cached_for_the_stated_seconds_and_nothing_else() {
    let base = serve_with(Duration::from_secs(5)).await;
    let (c, p) = (client(), Principal::ed25519());
    let reg = registration("m", &[MAPLE], Some(2), true, now() + 3600);
    let published = publish(&c, &base, &p.thumb, p.update(&reg)).await;
    assert_eq!(published.status(), StatusCode::CREATED);
    assert_eq!(cache_control(&published).as_deref(), Some("no-store"), "a publication is never cached");
    let url = format!("{base}/status/{}/m", p.thumb);
    let read = c.get(&url).send().await.unwrap();
    assert_eq!(read.status(), StatusCode::OK);
    assert_eq!(cache_control(&read).as_deref(), Some("public, max-age=5"));
    // A claim, a release and a refusal stay no-store: a cached one would answer
    // for a unit already spent.
    let claim =
        c.post(format!("{url}/claims")).json(&json!({"claim_id": "maple-street-auto/h1"})).send().await.unwrap();
    assert_eq!((claim.status(), cache_control(&claim).as_deref()), (StatusCode::CREATED, Some("no-store")));
    let release = c.delete(format!("{url}/claims/maple-street-auto/h1")).send().await.unwrap();
    assert_eq!((release.status(), cache_control(&release).as_deref()), (StatusCode::NO_CONTENT, Some("no-store")));
    let unknown = c.get(format!("{base}/status/{}/nothing", p.thumb)).send().await.unwrap();
    assert_eq!((unknown.status(), cache_control(&unknown).as_deref()), (StatusCode::NOT_FOUND, Some("no-store")));
    let bad = c.get(format!("{base}/status/short/m")).send().await.unwrap();
    assert_eq!(cache_control(&bad).as_deref(), Some("no-store"));
}

#[tokio::test]
async fn with_no_max_age_every_answer_is_no_store() {
    let base = serve_with(Duration::ZERO).await;
    let (c, p) = (client(), Principal::ed25519());
    let reg = registration("m", &[MAPLE], Some(1), true, now() + 3600);
    assert_eq!(publish(&c, &base, &p.thumb, p.update(&reg)).await.status(), StatusCode::CREATED);
    let (status, body) = answer(c.get(format!("{base}/status/{}/m", p.thumb)).send().await.unwrap()).await;
    assert_eq!((status, body["status"].as_str()), (StatusCode::OK, Some("active")));
}

/// `schcp-status serve` with an admin address; its two addresses.
struct Served {
    child: std::process::Child,
    hosts: String,
    admin: String,
    _config: tempfile::NamedTempFile,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve_binary(config: &str) -> Served {
    use std::io::Write;
    let mut file = tempfile::NamedTempFile::new().unwrap();
    writeln!(file, "{config}").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_schcp-status"))
        .args(["--config", file.path().to_str().unwrap(), "serve", "--listen", "127.0.0.1:0"])
        .args(["--admin-listen", "127.0.0.1:0"])
        .env("DATABASE_URL", database_url())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = |prefix: &str| {
        let line = lines.next().expect("a line").unwrap();
        let addr = line.strip_prefix(prefix).unwrap_or_else(|| panic!("expected {prefix:?}: {line:?}")).to_owned();
        format!("http://{addr}")
    };
    let hosts = next("listening on ");
    let admin = next("admin on ");
    Served { child, hosts, admin, _config: file }
}

async fn body_of(r: reqwest::Response) -> (StatusCode, String) {
    (r.status(), r.text().await.unwrap())
}

/// The value of the metric line starting with `name` (labels included).
fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test]
async fn serve_answers_health_readiness_and_metrics_on_its_admin_address_only() {
    let s = serve_binary("rate_per_second = 0");
    let c = client();
    assert_eq!(
        body_of(c.get(format!("{}/healthz", s.admin)).send().await.unwrap()).await,
        (StatusCode::OK, "alive\n".into())
    );
    assert_eq!(
        body_of(c.get(format!("{}/readyz", s.admin)).send().await.unwrap()).await,
        (StatusCode::OK, "ready\n".into())
    );
    let (status, _) = body_of(c.get(format!("{}/nothing", s.admin)).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // The hosts' port has none of them: the metrics are the operator's.
    for route in ["/metrics", "/healthz", "/readyz"] {
        assert_eq!(
            c.get(format!("{}{route}", s.hosts)).send().await.unwrap().status(),
            StatusCode::NOT_FOUND,
            "{route}"
        );
    }

    let p = Principal::ed25519();
    let reg = registration("m", &[MAPLE], Some(1), true, now() + 3600);
    assert_eq!(publish(&c, &s.hosts, &p.thumb, p.update(&reg)).await.status(), StatusCode::CREATED);
    let url = format!("{}/status/{}/m", s.hosts, p.thumb);
    // The binary's default: a status read a CDN may keep for 5 seconds.
    assert_eq!(cache_control(&c.get(&url).send().await.unwrap()).as_deref(), Some("public, max-age=5"));
    let claim = |id: &'static str| c.post(format!("{url}/claims")).json(&json!({ "claim_id": id })).send();
    assert_eq!(claim("maple-street-auto/h1").await.unwrap().status(), StatusCode::CREATED);
    assert_eq!(claim("maple-street-auto/h1").await.unwrap().status(), StatusCode::OK);
    assert_eq!(claim("maple-street-auto/h2").await.unwrap().status(), StatusCode::CONFLICT);
    let hostile = c.post(format!("{url}/claims")).body("{not json").send().await.unwrap();
    assert_eq!(hostile.status(), StatusCode::BAD_REQUEST);

    let (status, text) = body_of(c.get(format!("{}/metrics", s.admin)).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(metric(&text, "schcp_status_claims_total{outcome=\"claimed\"}"), Some(1.0), "{text}");
    assert_eq!(metric(&text, "schcp_status_claims_total{outcome=\"already_held\"}"), Some(1.0), "{text}");
    assert_eq!(metric(&text, "schcp_status_claims_total{outcome=\"refused\"}"), Some(2.0), "{text}");
    assert_eq!(
        metric(&text, "schcp_status_refusals_total{route=\"claim\",reason=\"shared_limit_reached\"}"),
        Some(1.0),
        "{text}"
    );
    assert_eq!(metric(&text, "schcp_status_updates_total"), Some(1.0), "{text}");
    assert_eq!(metric(&text, "schcp_status_publication_lag_seconds_count"), Some(1.0), "{text}");
    assert!(metric(&text, "schcp_status_db_pool_connections").is_some_and(|n| n >= 1.0), "{text}");
    // No label comes from a request: the hostile body's words are nowhere.
    assert!(!text.contains("not json"), "{text}");
}

#[tokio::test]
async fn readiness_says_when_the_database_does_not_answer() {
    // A pool on a port nothing listens on: the process is alive, not ready.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let pool = sqlx::postgres::PgPoolOptions::new()
        .acquire_timeout(Duration::from_millis(500))
        .connect_lazy(&format!("postgres://nobody:none@127.0.0.1:{port}/nothing"))
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let admin = format!("http://{}", listener.local_addr().unwrap());
    let state = ServiceState::new(pool, status_edge::StatusOptions::default());
    tokio::spawn(schcp_status::admin::serve(listener, state));
    let c = client();
    assert_eq!(c.get(format!("{admin}/healthz")).send().await.unwrap().status(), StatusCode::OK);
    let (status, text) = body_of(c.get(format!("{admin}/readyz")).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(text, "the database refused a query\n");
}
