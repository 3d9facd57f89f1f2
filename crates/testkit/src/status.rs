//! The key app's status API as hosts call it (docs/agent-api.md §10): served
//! for real on a loopback port over a store of the test's, the credentials it
//! answers for recorded as the key app records them, and the checks every
//! answer and refusal must pass.

use keyapp::kind::RequestKind;
use keyapp::status_api::{self, StatusOptions, StatusState};
use keyapp::store::credentials::{self, CredentialRecord};
use keyapp::store::Store;
use reqwest::header::{HeaderMap, CACHE_CONTROL};
use reqwest::{Client, StatusCode};
use schcp::claims::Action;
use serde_json::Value;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;
use tokio::net::TcpListener;

/// The embedded status API on a loopback port; stopped when dropped.
pub struct Embedded {
    pub addr: SocketAddr,
    pub store: Store,
    _dir: Option<tempfile::TempDir>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Drop for Embedded {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Embedded {
    /// Over a fresh store in a temporary folder.
    pub async fn start(options: StatusOptions) -> Embedded {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("keyapp.db")).await.unwrap();
        let mut server = Embedded::serve(store, options).await;
        server._dir = Some(dir);
        server
    }

    /// Over `store`, which the caller keeps.
    pub async fn serve(store: Store, options: StatusOptions) -> Embedded {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(status_api::serve(listener, StatusState::with_options(store.clone(), options)));
        Embedded { addr, store, _dir: None, task }
    }

    /// `http://{addr}{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Records a root mandate for `aud` (see [`mandate`]).
    pub async fn mandate(&self, jti: &str, aud: &[&str], max: Option<u32>, shared: bool, exp: i64) {
        credentials::record(&self.store, mandate(jti, aud, max, shared, exp)).await.unwrap();
    }

    /// The claim ids held against `jti`, sorted.
    pub async fn held(&self, jti: &str) -> Vec<String> {
        let mut held = keyapp::store::booking_claims::held_claims(&self.store, jti).await.unwrap();
        held.sort();
        held
    }
}

/// A root mandate as the key app records one it issued: hold and book at
/// `aud`, at most `max` bookings (shared by every host when `shared`), issued a
/// minute ago, until `exp`, with its status URL under `https://keyapp.example`.
pub fn mandate(jti: &str, aud: &[&str], max: Option<u32>, shared: bool, exp: i64) -> CredentialRecord {
    CredentialRecord {
        jti: jti.into(),
        kind: RequestKind::Mandate,
        agent_jkt: None,
        request_id: None,
        aud: aud.iter().map(|s| s.to_string()).collect(),
        scope: vec![Action::Hold, Action::Book],
        iat: crate::now() - 60,
        exp,
        compact: "h.p.s".into(),
        status_url: Some(format!("https://keyapp.example/status/{jti}")),
        max_bookings: max,
        shared_limit: shared,
        booking_id: None,
        host_keys: Default::default(),
    }
}

/// Records every one of `jtis` as a mandate for `aud` no run exhausts, for load.
pub async fn unlimited_mandates(store: &Store, jtis: &[String], aud: &[&str]) {
    for jti in jtis {
        credentials::record(store, mandate(jti, aud, Some(u32::MAX), true, crate::now() + 86_400)).await.unwrap();
    }
}

/// A store for load runs, on disk like the key app's (not tmpfs): under /var/tmp.
pub async fn store_on_disk(prefix: &str) -> (tempfile::TempDir, Store) {
    let dir = tempfile::Builder::new().prefix(prefix).tempdir_in(Path::new("/var/tmp")).unwrap();
    let store = Store::open(&dir.path().join("keyapp.db")).await.unwrap();
    (dir, store)
}

/// A client as a host's: no proxy, a generous timeout.
pub fn client() -> Client {
    Client::builder().no_proxy().timeout(Duration::from_secs(30)).build().unwrap()
}

/// Headers every answer carries, and those none may carry (docs/agent-api.md §10).
pub fn check_headers(h: &HeaderMap) {
    assert_eq!(h.get(CACHE_CONTROL).map(|v| v.to_str().unwrap()), Some("no-store"), "{h:?}");
    assert!(h.get("set-cookie").is_none(), "{h:?}");
    assert!(!h.keys().any(|k| k.as_str().starts_with("access-control-")), "{h:?}");
}

/// Status code and JSON body of an answer, after checking its headers.
pub async fn answer(r: reqwest::Response) -> (StatusCode, Value) {
    let status = r.status();
    check_headers(r.headers());
    let bytes = r.bytes().await.unwrap();
    let body = if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).unwrap() };
    (status, body)
}

/// A refusal: its status, code, reason and whole body, after checking the §9
/// shape (an `error` with a message, and nothing beside it).
pub async fn refusal(r: reqwest::Response) -> (StatusCode, String, String, Value) {
    let (status, body) = answer(r).await;
    let e = &body["error"];
    assert!(e["message"].is_string(), "{body}");
    assert_eq!(body.as_object().map(|o| o.len()), Some(1), "{body}");
    let code = e["code"].as_str().unwrap().to_owned();
    let reason = e["reason"].as_str().unwrap().to_owned();
    (status, code, reason, body)
}

/// A web page's CORS preflight for a claim at `url` (the status API answers
/// it as any other OPTIONS, with no CORS headers).
pub async fn preflight_from_a_page(c: &Client, url: impl reqwest::IntoUrl) -> reqwest::Response {
    c.request(reqwest::Method::OPTIONS, url)
        .header("origin", "https://evil.example")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap()
}

/// A claim of `maple-street-auto/h_1` at `url`, sent with a web page's Origin
/// (served like any other claim, still without CORS headers).
pub async fn claim_from_a_page(c: &Client, url: impl reqwest::IntoUrl) -> reqwest::Response {
    c.post(url)
        .header("origin", "https://evil.example")
        .json(&serde_json::json!({"claim_id": "maple-street-auto/h_1"}))
        .send()
        .await
        .unwrap()
}
