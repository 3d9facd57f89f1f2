//! The agent API guard (docs/agent-api.md §2–§3; §3.2) served for real on a loopback port
//! and driven by a real HTTP client signing with `httpsig::sign_request`.
//! Every refusal is checked for its status and its §9 code and reason, and no
//! response ever carries a CORS header.

use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use axum::http::{Method, Request, StatusCode};
use axum::routing::{get, post};
use axum::{Json, Router};
use ed25519_dalek::SigningKey;
use keyapp::agent_api::guard::{protect, AgentGuard, AgentIdentity, PairingGate, MAX_BODY_BYTES};
use keyapp::http_error::ApiError;
use schcp::httpsig::sign_request;
use schcp::jwk::Jwk;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tower::ServiceExt;

/// Echoes who the guard says is calling and what body reached the handler.
async fn echo(agent: AgentIdentity, method: Method, body: Bytes) -> Json<Value> {
    Json(
        json!({ "jkt": agent.jkt, "method": method.as_str(), "body_len": body.len(), "body": String::from_utf8_lossy(&body) }),
    )
}

/// A handler that tries to send CORS headers: the guard must strip them.
async fn cors_handler(agent: AgentIdentity) -> impl axum::response::IntoResponse {
    ([("access-control-allow-origin", "*"), ("access-control-allow-credentials", "true")], agent.jkt)
}

type Paired = Arc<Mutex<HashSet<String>>>;

fn app(port: u16, paired: Paired) -> Router {
    app_with(AgentGuard::new(port), paired)
}

fn app_with(guard: AgentGuard, paired: Paired) -> Router {
    app_counting(guard, paired, Default::default())
}

/// The app, its pairing lookups counted in `lookups`.
fn app_counting(guard: AgentGuard, paired: Paired, lookups: Arc<AtomicUsize>) -> Router {
    let gate = PairingGate::new(move |jkt: String| {
        let paired = paired.clone();
        lookups.fetch_add(1, Ordering::SeqCst);
        async move { Ok::<_, ApiError>(paired.lock().unwrap().contains(&jkt)) }
    });
    let routes = Router::new()
        .route("/v1/pairings", post(echo))
        .route("/v1/pairings/{id}", get(echo))
        .route("/v1/principal", get(echo))
        .route("/v1/requests", post(echo))
        .route("/v1/requests/{id}", get(echo).delete(echo))
        .route("/v1/cors", get(cors_handler));
    protect(routes, guard, gate)
}

struct Server {
    port: u16,
    paired: Paired,
    http: reqwest::Client,
    /// When the guard began remembering nonces.
    started: i64,
    /// How many times the pairing gate asked the records.
    lookups: Arc<AtomicUsize>,
}

async fn start() -> Server {
    start_with(AgentGuard::new).await
}

async fn start_with(guard: impl FnOnce(u16) -> AgentGuard) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let paired: Paired = Default::default();
    let started = now();
    let lookups: Arc<AtomicUsize> = Default::default();
    let app = app_counting(guard(port), paired.clone(), lookups.clone());
    tokio::spawn(async move {
        axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>()).await.unwrap();
    });
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    Server { port, paired, http, started, lookups }
}

struct Agent {
    key: SigningKey,
    jkt: String,
}

impl Agent {
    fn new() -> Agent {
        let key = SigningKey::from_bytes(&rand::random::<[u8; 32]>());
        let jkt = Jwk::ed25519(&key.verifying_key()).thumbprint().unwrap();
        Agent { key, jkt }
    }
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

fn fresh_nonce() -> String {
    schcp::b64::encode(rand::random::<[u8; 16]>())
}

impl Server {
    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn pair(&self, agent: &Agent) {
        self.paired.lock().unwrap().insert(agent.jkt.clone());
    }

    /// A request to `path` signed for `signed_url` (normally the URL
    /// addressed) at `created`, JSON-typed when it has a body.
    fn signed_at(
        &self,
        agent: &Agent,
        method: Method,
        path: &str,
        signed_url: &str,
        body: &[u8],
        created: i64,
    ) -> reqwest::RequestBuilder {
        let headers = sign_request(method.as_str(), signed_url, body, None, &agent.key, created, &fresh_nonce());
        let mut rb = self.http.request(method, self.url(path));
        for (k, v) in headers {
            rb = rb.header(k, v);
        }
        if !body.is_empty() {
            rb = rb.header("content-type", "application/json").body(body.to_vec());
        }
        rb
    }

    fn signed(&self, agent: &Agent, method: Method, path: &str, body: &[u8]) -> reqwest::RequestBuilder {
        let url = self.url(path);
        self.signed_at(agent, method, path, &url, body, now())
    }
}

fn assert_no_cors(headers: &reqwest::header::HeaderMap) {
    for name in headers.keys() {
        assert!(!name.as_str().starts_with("access-control-"), "CORS header {name} sent");
    }
}

/// Asserts a §9 refusal: status, code and reason, and no CORS header.
async fn refused(resp: reqwest::RequestBuilder, status: u16, code: &str, reason: &str) -> Value {
    let resp = resp.send().await.unwrap();
    assert_no_cors(resp.headers());
    let got = resp.status().as_u16();
    let body: Value = resp.json().await.unwrap();
    assert_eq!(got, status, "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert_eq!(body["error"]["reason"], reason, "{body}");
    assert!(body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
    body
}

async fn ok(resp: reqwest::RequestBuilder) -> Value {
    let resp = resp.send().await.unwrap();
    assert_no_cors(resp.headers());
    let status = resp.status();
    let body: Value = resp.json().await.unwrap();
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

/// A raw HTTP/1.1 exchange, for what a client library will not send.
async fn raw(port: u16, request: &[u8]) -> (u16, String, Value) {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    s.write_all(request).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8_lossy(&buf).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    assert!(!head.to_ascii_lowercase().contains("\r\naccess-control-"), "CORS header sent: {head}");
    (status, head.to_owned(), serde_json::from_str(body).unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_signed_request_from_a_paired_agent_reaches_the_handler() {
    let s = start().await;
    let a = Agent::new();
    s.pair(&a);
    let body = br#"{"kind":"mandate","idempotency_key":"k1"}"#;
    let v = ok(s.signed(&a, Method::POST, "/v1/requests", body)).await;
    assert_eq!(v["jkt"], a.jkt.as_str());
    assert_eq!(v["body"], std::str::from_utf8(body).unwrap(), "the handler gets the exact buffered body");
    // Bodiless, with a query string (covered by @target-uri).
    let v = ok(s.signed(&a, Method::GET, "/v1/requests/rq_1?wait=5", b"")).await;
    assert_eq!((v["method"].as_str(), v["body_len"].as_u64()), (Some("GET"), Some(0)));
    ok(s.signed(&a, Method::DELETE, "/v1/requests/rq_1", b"")).await;
    // Host localhost:PORT is the other accepted spelling; the signed URL follows it.
    let url = format!("http://localhost:{}/v1/principal", s.port);
    ok(s.signed_at(&a, Method::GET, "/v1/principal", &url, b"", now()).header("host", format!("localhost:{}", s.port)))
        .await;
}

#[tokio::test]
async fn origin_is_refused_and_no_cors_header_is_ever_sent() {
    let s = start().await;
    let a = Agent::new();
    s.pair(&a);
    for origin in ["http://evil.example", "null", &format!("http://127.0.0.1:{}", s.port)] {
        refused(
            s.signed(&a, Method::GET, "/v1/principal", b"").header("origin", origin),
            403,
            "NOT_PERMITTED",
            "browser_origin",
        )
        .await;
    }
    // A CORS preflight.
    refused(
        s.http
            .request(Method::OPTIONS, s.url("/v1/requests"))
            .header("origin", "http://evil.example")
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "content-type, signature, signature-input"),
        403,
        "NOT_PERMITTED",
        "browser_origin",
    )
    .await;
    refused(s.http.request(Method::OPTIONS, s.url("/v1/requests")), 401, "BAD_SIGNATURE", "bad_signature").await;
    // A signed OPTIONS gets past the guard to the router's 405, still with no CORS header.
    let r = s.signed(&a, Method::OPTIONS, "/v1/requests", b"").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_no_cors(r.headers());
    // A handler that tries to send CORS headers has them stripped.
    let r = s.signed(&a, Method::GET, "/v1/cors", b"").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_no_cors(r.headers());
}

#[tokio::test]
async fn host_must_be_the_agent_apis_own() {
    let s = start().await;
    let a = Agent::new();
    s.pair(&a);
    let other_port = if s.port == 65535 { 1 } else { s.port + 1 };
    for host in [
        format!("evil.example:{}", s.port),
        format!("127.0.0.1:{other_port}"),
        "127.0.0.1".to_owned(),
        format!("[::1]:{}", s.port),
    ] {
        // Signed for the URL the Host names, so only the Host is wrong.
        let url = format!("http://{host}/v1/principal");
        refused(
            s.signed_at(&a, Method::GET, "/v1/principal", &url, b"", now()).header("host", &host),
            421,
            "INVALID_REQUEST",
            "bad_host",
        )
        .await;
    }
    // X-Forwarded-Host does not help a wrong Host...
    refused(
        s.signed(&a, Method::GET, "/v1/principal", b"")
            .header("host", format!("evil.example:{}", s.port))
            .header("x-forwarded-host", format!("127.0.0.1:{}", s.port)),
        421,
        "INVALID_REQUEST",
        "bad_host",
    )
    .await;
    // ...nor changes the URL a right Host names.
    ok(s.signed(&a, Method::GET, "/v1/principal", b"").header("x-forwarded-host", "evil.example")).await;

    // No Host at all (reqwest always sends one).
    let (status, _, body) = raw(s.port, b"GET /v1/principal HTTP/1.1\r\nConnection: close\r\n\r\n").await;
    assert_eq!(status, 421, "{body}");
    assert_eq!(
        (body["error"]["code"].as_str(), body["error"]["reason"].as_str()),
        (Some("INVALID_REQUEST"), Some("bad_host"))
    );
    // Two Host fields.
    let req = format!(
        "GET /v1/principal HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\nHost: 127.0.0.1:{p}\r\nConnection: close\r\n\r\n",
        p = s.port
    );
    let (status, _, body) = raw(s.port, req.as_bytes()).await;
    assert_eq!(status, 421, "{body}");
    // An absolute-form request line naming another origin.
    let req = format!(
        "GET http://evil.example/v1/principal HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
        s.port
    );
    let (status, _, body) = raw(s.port, req.as_bytes()).await;
    assert_eq!(status, 421, "{body}");
}

#[tokio::test]
async fn signature_refusals() {
    let s = start().await;
    let a = Agent::new();
    s.pair(&a);
    let body = br#"{"kind":"mandate"}"#;

    // Unsigned.
    refused(s.http.get(s.url("/v1/principal")), 401, "BAD_SIGNATURE", "bad_signature").await;
    refused(
        s.http.post(s.url("/v1/requests")).header("content-type", "application/json").body(body.to_vec()),
        401,
        "BAD_SIGNATURE",
        "bad_signature",
    )
    .await;

    // Wrong digest: the body sent is not the body signed.
    let url = s.url("/v1/requests");
    let headers = sign_request("POST", &url, body, None, &a.key, now(), &fresh_nonce());
    let mut rb = s.http.post(&url).header("content-type", "application/json").body(br#"{"kind":"rule"}"#.to_vec());
    for (k, v) in headers {
        rb = rb.header(k, v);
    }
    refused(rb, 401, "BAD_SIGNATURE", "bad_signature").await;

    // Stale, both directions (310 s, clear of the second boundary).
    for offset in [-310, 310] {
        refused(
            s.signed_at(&a, Method::POST, "/v1/requests", &url, body, now() + offset),
            401,
            "BAD_SIGNATURE",
            "stale_signature",
        )
        .await;
    }

    // Signed before this key app started, inside the 300 s window: it may be a
    // replay of a request the previous run accepted, whose nonce is forgotten.
    refused(
        s.signed_at(&a, Method::POST, "/v1/requests", &url, body, s.started - 5),
        401,
        "BAD_SIGNATURE",
        "stale_signature",
    )
    .await;

    // Replayed nonce: the same signed request twice.
    let replay = s.signed(&a, Method::POST, "/v1/requests", body);
    ok(replay.try_clone().unwrap()).await;
    refused(replay, 401, "BAD_SIGNATURE", "replayed_nonce").await;

    // Signed for another URL than the one addressed.
    let elsewhere = s.url("/v1/pairings");
    refused(
        s.signed_at(&a, Method::POST, "/v1/requests", &elsewhere, body, now()),
        401,
        "BAD_SIGNATURE",
        "bad_signature",
    )
    .await;
    let other_host = format!("http://localhost:{}/v1/requests", s.port);
    refused(
        s.signed_at(&a, Method::POST, "/v1/requests", &other_host, body, now()),
        401,
        "BAD_SIGNATURE",
        "bad_signature",
    )
    .await;

    // A mandate header is not part of the agent API's profile.
    let headers = sign_request("POST", &url, body, Some("a.b.c"), &a.key, now(), &fresh_nonce());
    let mut rb = s.http.post(&url).header("content-type", "application/json").body(body.to_vec());
    for (k, v) in headers {
        rb = rb.header(k, v);
    }
    refused(rb, 401, "BAD_SIGNATURE", "bad_signature").await;
}

#[tokio::test]
async fn body_limits_and_content_type() {
    let s = start().await;
    let a = Agent::new();
    s.pair(&a);
    let json_of_len = |n: usize| {
        let mut b = vec![b'"'];
        b.resize(n - 1, b'a');
        b.push(b'"');
        b
    };

    // Exactly 256 KiB passes the size check (and the whole body reaches the handler).
    let v = ok(s.signed(&a, Method::POST, "/v1/requests", &json_of_len(MAX_BODY_BYTES))).await;
    assert_eq!(v["body_len"], MAX_BODY_BYTES);
    // One byte more is 413.
    let body = refused(
        s.signed(&a, Method::POST, "/v1/requests", &json_of_len(MAX_BODY_BYTES + 1)),
        413,
        "INVALID_REQUEST",
        "body_too_large",
    )
    .await;
    assert_eq!(body["error"]["details"]["limit"], MAX_BODY_BYTES);
    // Also when the size is not declared up front (chunked).
    let mut req = format!(
        "POST /v1/requests HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        s.port
    )
    .into_bytes();
    for _ in 0..5 {
        req.extend_from_slice(format!("{:x}\r\n", 64 * 1024).as_bytes());
        req.extend(std::iter::repeat_n(b'a', 64 * 1024));
        req.extend_from_slice(b"\r\n");
    }
    req.extend_from_slice(b"0\r\n\r\n");
    let (status, _, body) = raw(s.port, &req).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"]["reason"], "body_too_large");

    // A body needs Content-Type: application/json.
    let url = s.url("/v1/requests");
    let payload = br#"{"kind":"mandate"}"#;
    for ct in [None, Some("text/plain"), Some("application/x-www-form-urlencoded")] {
        let headers = sign_request("POST", &url, payload, None, &a.key, now(), &fresh_nonce());
        let mut rb = s.http.post(&url).body(payload.to_vec());
        for (k, v) in headers {
            rb = rb.header(k, v);
        }
        if let Some(ct) = ct {
            rb = rb.header("content-type", ct);
        }
        refused(rb, 415, "INVALID_REQUEST", "unsupported_media_type").await;
    }
    let headers = sign_request("POST", &url, payload, None, &a.key, now(), &fresh_nonce());
    let mut rb = s.http.post(&url).body(payload.to_vec()).header("content-type", "application/json; charset=utf-8");
    for (k, v) in headers {
        rb = rb.header(k, v);
    }
    ok(rb).await;
    // Two Content-Type fields are not one answer.
    refused(
        s.signed(&a, Method::POST, "/v1/requests", payload).header("content-type", "application/json"),
        415,
        "INVALID_REQUEST",
        "unsupported_media_type",
    )
    .await;
    // A bodiless request needs none.
    ok(s.signed(&a, Method::GET, "/v1/principal", b"")).await;
}

/// The pairing the guard looked up for the key a request claims is the one
/// the gate behind it reads, once the signature shows the claim was true: one
/// lookup a request, not two (the store has the last word on what is stored,
/// `store::requests::insert`).
#[tokio::test]
async fn a_paired_agents_request_asks_the_records_once_and_an_unpaired_ones_too() {
    let s = start().await;
    let a = Agent::new();
    s.pair(&a);
    let before = s.lookups.load(Ordering::SeqCst);
    ok(s.signed(&a, Method::POST, "/v1/requests", br#"{"kind":"mandate"}"#)).await;
    assert_eq!(s.lookups.load(Ordering::SeqCst) - before, 1);
    let stranger = Agent::new();
    let before = s.lookups.load(Ordering::SeqCst);
    refused(s.signed(&stranger, Method::GET, "/v1/requests/rq_1", b""), 403, "NOT_PERMITTED", "agent_not_paired").await;
    assert_eq!(s.lookups.load(Ordering::SeqCst) - before, 1);
}

/// The guard's answer is given before the body. An agent that holds its body
/// back while the person unpairs it is asked about again once the answer is
/// over a second old: refused as unpaired, on every gated route.
#[tokio::test]
async fn an_agent_unpaired_while_it_holds_its_body_back_is_refused() {
    let s = start().await;
    let a = Agent::new();
    s.pair(&a);
    let body = b"{}";
    let url = s.url("/v1/requests/rq_1");
    let mut head = format!("GET /v1/requests/rq_1 HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n", s.port);
    for (k, v) in sign_request("GET", &url, body, None, &a.key, now(), &fresh_nonce()) {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n\r\n", body.len()));
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", s.port)).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    s.paired.lock().unwrap().remove(&a.jkt);
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    stream.write_all(body).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 403"), "{text}");
    assert!(text.contains("agent_not_paired"), "{text}");
}

#[tokio::test]
async fn an_unpaired_agent_may_only_pair() {
    let s = start().await;
    let a = Agent::new();
    for (method, path, body) in [
        (Method::GET, "/v1/principal", &b""[..]),
        (Method::POST, "/v1/requests", br#"{"kind":"mandate"}"#),
        (Method::GET, "/v1/requests/rq_1", b""),
        (Method::DELETE, "/v1/requests/rq_1", b""),
        (Method::GET, "/v1/pairings", b""),
        (Method::GET, "/v1/nowhere", b""),
    ] {
        refused(s.signed(&a, method, path, body), 403, "NOT_PERMITTED", "agent_not_paired").await;
    }
    let v = ok(s.signed(&a, Method::POST, "/v1/pairings", br#"{"agent_name":"Calendar Assistant"}"#)).await;
    assert_eq!(v["jkt"], a.jkt.as_str());
    ok(s.signed(&a, Method::GET, "/v1/pairings/pr_1?wait=30", b"")).await;
    // Paired now: the other routes open.
    s.pair(&a);
    ok(s.signed(&a, Method::GET, "/v1/principal", b"")).await;
    // Still only for that key.
    refused(s.signed(&Agent::new(), Method::GET, "/v1/principal", b""), 403, "NOT_PERMITTED", "agent_not_paired").await;
}

#[tokio::test]
async fn the_peer_must_be_loopback() {
    // Driven in-process, since a test cannot connect from another machine.
    let paired: Paired = Default::default();
    let a = Agent::new();
    paired.lock().unwrap().insert(a.jkt.clone());
    let port = 7411;
    let request = |peer: Option<SocketAddr>| {
        let url = format!("http://127.0.0.1:{port}/v1/principal");
        let mut b = Request::get("/v1/principal").header("host", format!("127.0.0.1:{port}"));
        for (k, v) in sign_request("GET", &url, b"", None, &a.key, now(), &fresh_nonce()) {
            b = b.header(k, v);
        }
        let mut req = b.body(Body::empty()).unwrap();
        if let Some(p) = peer {
            req.extensions_mut().insert(ConnectInfo(p));
        }
        req
    };
    let reason = |resp: axum::response::Response| async move {
        let status = resp.status().as_u16();
        let bytes = axum::body::to_bytes(resp.into_body(), 1 << 16).await.unwrap();
        let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        (status, v["error"]["code"].as_str().map(str::to_owned), v["error"]["reason"].as_str().map(str::to_owned))
    };
    let forbidden = (403, Some("NOT_PERMITTED".to_owned()), Some("not_loopback".to_owned()));
    for peer in ["192.168.1.5:50000", "[2001:db8::1]:50000", "[::ffff:10.0.0.1]:50000"] {
        let resp = app(port, paired.clone()).oneshot(request(Some(peer.parse().unwrap()))).await.unwrap();
        assert_eq!(reason(resp).await, forbidden, "{peer}");
    }
    // Served without connect info, the guard fails closed.
    let resp = app(port, paired.clone()).oneshot(request(None)).await.unwrap();
    assert_eq!(reason(resp).await, forbidden);
    // Loopback peers, v4, v6 and v4-mapped, pass.
    for peer in ["127.0.0.1:50000", "[::1]:50000", "[::ffff:127.0.0.1]:50000"] {
        let resp = app(port, paired.clone()).oneshot(request(Some(peer.parse().unwrap()))).await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK, "{peer}");
    }
}

/// Unpaired keys spend a budget before their signatures are checked, and their
/// nonces go into a memory of their own: a flood of strangers fills neither
/// the paired agents' memory nor their budget, and a replay across the two is
/// still a replay.
#[tokio::test]
async fn unpaired_keys_spend_a_budget_before_their_nonces_are_stored() {
    use keyapp::agent_api::nonce::UnpairedBudget;
    let kept: Arc<Mutex<Option<AgentGuard>>> = Default::default();
    let keep = kept.clone();
    let s = start_with(move |port| {
        let guard = AgentGuard::new(port).with_unpaired_budget(UnpairedBudget::new(5.0, 0.001));
        *keep.lock().unwrap() = Some(guard.clone());
        guard
    })
    .await;
    let guard = kept.lock().unwrap().clone().unwrap();
    let friend = Agent::new();
    s.pair(&friend);
    let mut statuses = Vec::new();
    for _ in 0..8 {
        let r = s.signed(&Agent::new(), Method::GET, "/v1/pairings/pr_1", b"").send().await.unwrap();
        statuses.push(r.status().as_u16());
    }
    assert_eq!(statuses, [200, 200, 200, 200, 200, 429, 429, 429]);
    assert_eq!(guard.unpaired_nonces().len(), 5, "refused requests stored no nonce");
    assert!(guard.paired_nonces().is_empty(), "strangers' nonces stay out of the paired memory");
    let body = refused(
        s.signed(&Agent::new(), Method::GET, "/v1/pairings/pr_1", b""),
        429,
        "RATE_LIMITED",
        "too_many_requests",
    )
    .await;
    assert!(body["error"]["retry"]["after"].is_string(), "{body}");
    // The paired agent is not held back, and its nonces go to its own memory.
    for _ in 0..8 {
        ok(s.signed(&friend, Method::GET, "/v1/principal", b"")).await;
    }
    assert_eq!(guard.paired_nonces().len(), 8);
    assert_eq!(guard.unpaired_nonces().len(), 5);
}
