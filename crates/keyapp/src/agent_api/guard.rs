//! The layer in front of every agent API route (docs/agent-api.md §2), in this order:
//!
//! 1. the peer address is loopback (`403 NOT_PERMITTED/not_loopback`);
//! 2. the raw `Host` is exactly `127.0.0.1:<port>` or `localhost:<port>` for the
//!    listening port (`421 INVALID_REQUEST/bad_host`, the DNS-rebinding defence);
//! 3. no `Origin` header (`403 NOT_PERMITTED/browser_origin`: browsers always
//!    send one, agents do not);
//! 4. a key the person has not paired spends its local user's unpaired budget
//!    (`429 RATE_LIMITED/too_many_requests`), before its signature is checked
//!    or its nonce stored, so strangers cannot fill the replay memory; paired
//!    agents' nonces have a memory of their own;
//! 5. the body at most 256 KiB (`413`), read fully into memory within the body
//!    timeout (`408 INVALID_REQUEST/body_timeout`);
//! 6. `Content-Type: application/json` when there is a body (`415`);
//! 7. the §3.2 signature over `@target-uri` = `http://{Host}{path?query}`, the
//!    URL the agent addressed (`401 BAD_SIGNATURE` with `stale_signature`,
//!    `replayed_nonce` or `bad_signature`);
//!
//! then the request goes on with the buffered body and an [`AgentIdentity`]
//! extension. [`require_paired`] sits behind it: an agent key the person has
//! not paired may only call the pairing routes.
//!
//! No response of the agent API carries a CORS header (docs/agent-api.md §2); the guard
//! strips any a handler might add, so that holds whatever the routes do.
//!
//! Wiring (the guard must be outermost, on the un-nested agent router, served
//! with `into_make_service_with_connect_info::<SocketAddr>()`):
//!
//! ```ignore
//! let app = guard::protect(routes, AgentGuard::new(port), PairingGate::new(store_lookup));
//! axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>()).await?;
//! ```

use crate::agent_api::nonce::{NonceCache, SplitMemory, UnpairedBudget};
use crate::agent_api::peer::LocalPeer;
use crate::http_error::{AgentApiError, ApiError};
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::{header, request::Parts, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use ed25519_dalek::VerifyingKey;
use http_body_util::BodyExt;
use schcp::httpsig::{self, RequestParts};
use schcp::jwk::Jwk;
use schcp::refusal::{Code, Reason};
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// docs/agent-api.md §2: "A body of at most 256 KiB".
pub const MAX_BODY_BYTES: usize = 256 * 1024;
/// An over-size body declared or sent up to this size is read and discarded
/// before the `413` goes out, so the client reads the answer instead of a
/// connection reset; anything larger is answered at once.
const DRAIN_LIMIT_BYTES: usize = 1024 * 1024;
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a request body may take to arrive: 256 KiB on loopback takes
/// milliseconds, so a body still arriving after this is stalled on purpose.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// The replay memory of requests from unpaired keys: what the unpaired budget
/// lets in over ten minutes from a few local users.
const UNPAIRED_NONCE_CAPACITY: usize = 1 << 14;

/// The verified agent behind a request: its key and the key's RFC 7638
/// thumbprint, the agent's identity everywhere in the key app (`cnf.jkt`,
/// pairings, "an agent sees only its own requests").
///
/// Handlers take it as an extractor: `async fn h(agent: AgentIdentity, …)`
/// (or `Extension<AgentIdentity>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentIdentity {
    pub jkt: String,
    pub jwk: Jwk,
    pub key: VerifyingKey,
    /// The local user whose process sent it (`agent_api::peer`), when known.
    pub peer_uid: Option<u32>,
}

impl<S: Send + Sync> FromRequestParts<S> for AgentIdentity {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        // Missing only when a route was mounted outside the guard: a wiring
        // bug, answered as one rather than as an unauthenticated success.
        parts
            .extensions
            .get::<AgentIdentity>()
            .cloned()
            .ok_or_else(|| ApiError::internal("this route is not behind the agent guard"))
    }
}

/// The guard's state: the listening port (for the `Host` check) and the replay
/// memory shared by every request of this listener.
#[derive(Clone)]
pub struct AgentGuard {
    port: u16,
    nonces: Arc<NonceCache>,
    /// The replay memory of keys not paired, which the unpaired budget bounds.
    unpaired_nonces: Arc<NonceCache>,
    budget: Arc<UnpairedBudget>,
    /// Whether a key is paired; without one, every key counts as paired.
    gate: Option<PairingGate>,
    body_timeout: Duration,
    clock: fn() -> i64,
}

impl std::fmt::Debug for AgentGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentGuard").field("port", &self.port).field("nonces", &self.nonces.len()).finish()
    }
}

impl AgentGuard {
    /// A guard for the agent API listening on `port` (the real bound port, so
    /// after binding `:0` pass `local_addr().port()`).
    pub fn new(port: u16) -> Self {
        let now = unix_now();
        AgentGuard {
            port,
            nonces: Arc::new(NonceCache::new().remembering_since(now)),
            unpaired_nonces: Arc::new(NonceCache::with_capacity(UNPAIRED_NONCE_CAPACITY).remembering_since(now)),
            budget: Arc::new(UnpairedBudget::default()),
            gate: None,
            body_timeout: BODY_TIMEOUT,
            clock: unix_now,
        }
    }

    /// Replaces the unpaired budget (e.g. a small one, for tests).
    pub fn with_unpaired_budget(mut self, budget: UnpairedBudget) -> Self {
        self.budget = Arc::new(budget);
        self
    }

    /// Replaces the body timeout.
    pub fn with_body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// The replay memory of paired agents.
    pub fn paired_nonces(&self) -> &NonceCache {
        &self.nonces
    }

    /// The replay memory of unpaired keys.
    pub fn unpaired_nonces(&self) -> &NonceCache {
        &self.unpaired_nonces
    }

    /// Replaces the replay memory (e.g. a smaller bound).
    pub fn with_nonce_cache(mut self, nonces: Arc<NonceCache>) -> Self {
        self.nonces = nonces;
        self
    }

    /// Replaces the clock (Unix seconds), for tests. The replay memory then
    /// begins at that clock's now.
    pub fn with_clock(mut self, clock: fn() -> i64) -> Self {
        self.clock = clock;
        self.nonces = Arc::new(NonceCache::new().remembering_since(clock()));
        self.unpaired_nonces = Arc::new(NonceCache::with_capacity(UNPAIRED_NONCE_CAPACITY).remembering_since(clock()));
        self
    }

    pub fn port(&self) -> u16 {
        self.port
    }
}

fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// The guard middleware, for `axum::middleware::from_fn_with_state(guard, agent_guard)`.
pub async fn agent_guard(State(guard): State<AgentGuard>, req: Request, next: Next) -> Response {
    let mut response = match admit(&guard, req).await {
        Ok(req) => next.run(req).await,
        Err(e) => e.into_response(),
    };
    strip_cors(response.headers_mut());
    response
}

/// docs/agent-api.md §2: "No response of the agent API ever carries a CORS header".
fn strip_cors(headers: &mut HeaderMap) {
    let cors: Vec<_> = headers.keys().filter(|n| n.as_str().starts_with("access-control-")).cloned().collect();
    for name in cors {
        headers.remove(name);
    }
}

// Long by design: the checks in the order docs/agent-api.md §2 fixes, kept in view.
async fn admit(guard: &AgentGuard, req: Request) -> Result<Request, ApiError> {
    // 1. A loopback peer. The listener binds 127.0.0.1 already (config.rs); this
    //    is the second lock, and it fails closed when the server was started
    //    without connect info.
    let peer = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0);
    match peer {
        Some(addr) if addr.ip().to_canonical().is_loopback() => {}
        Some(_) => return Err(ApiError::not_permitted(Reason::NotLoopback, "the agent API answers this machine only")),
        None => return Err(ApiError::not_permitted(Reason::NotLoopback, "the peer address is unknown")),
    }

    // 2. The raw Host, never X-Forwarded-Host or a Host extractor (docs/agent-api.md §2).
    let host = own_host(req.headers(), guard.port)?;
    // An absolute-form request line names its own authority, which would
    // override Host for an HTTP/1.1 server (RFC 9112 §3.2.2); it must agree.
    if let Some(authority) = req.uri().authority() {
        if authority.as_str() != host || req.uri().scheme_str() != Some("http") {
            return Err(ApiError::bad_host("the request line names another origin than Host"));
        }
    }
    let target_uri = format!("http://{host}{}", req.uri().path_and_query().map_or("/", |pq| pq.as_str()));

    // 3. Browsers always send Origin; agents never do (docs/agent-api.md §2).
    if req.headers().contains_key(header::ORIGIN) {
        return Err(ApiError::not_permitted(
            Reason::BrowserOrigin,
            "the agent API does not answer web pages (a request with an Origin header)",
        ));
    }

    // 4. An unpaired key spends its user's budget before anything is stored.
    let peer_uid = req.extensions().get::<LocalPeer>().and_then(|p| p.uid);
    let claimed = claimed_key_pairing(guard, req.headers()).await?;
    let paired = claimed.as_ref().is_none_or(|c| c.paired);
    if !paired {
        guard.budget.take(peer_uid, std::time::Instant::now()).map_err(|retry_after| {
            ApiError::new(
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                Code::RateLimited,
                Reason::TooManyRequests,
                "too many requests from agent keys that are not paired, from this local user; try again later",
            )
            .with_retry_after(retry_after)
        })?;
    }

    // 5. At most 256 KiB, read fully: the signature covers the exact bytes.
    let (parts, body) = req.into_parts();
    let body = match tokio::time::timeout(guard.body_timeout, read_body(&parts.headers, body)).await {
        Ok(read) => read?,
        Err(_) => {
            return Err(ApiError::new(
                axum::http::StatusCode::REQUEST_TIMEOUT,
                Code::InvalidRequest,
                Reason::BodyTimeout,
                format!("the request body did not arrive within {} s", guard.body_timeout.as_secs()),
            ))
        }
    };

    // 6. A body is JSON (§3.1). Zero bytes is no body (§3.2).
    if !body.is_empty() {
        check_content_type(&parts.headers)?;
    }

    // 7. The §3.2 signature. docs/agent-api.md §3 fixes the components to "@method"
    //    "@target-uri" "content-digest": an agent sends the key app no mandate.
    if parts.headers.contains_key(httpsig::MANDATE) {
        return Err(ApiError::signature(&httpsig::SigError::Bad(
            "the agent API takes no SchCP-Mandate (docs/agent-api.md §1)".into(),
        )));
    }
    let headers = parts.headers.iter().map(|(n, v)| (n.as_str().to_owned(), v.as_bytes().to_vec())).collect();
    let signed = RequestParts { method: parts.method.as_str(), target_uri: &target_uri, headers, body: &body };
    let memory = if paired {
        SplitMemory { own: &guard.nonces, other: &guard.unpaired_nonces }
    } else {
        SplitMemory { own: &guard.unpaired_nonces, other: &guard.nonces }
    };
    let agent = httpsig::verify_request(&signed, (guard.clock)(), &memory).map_err(|e| ApiError::signature(&e))?;

    let mut req = Request::from_parts(parts, Body::from(body));
    // The pairing looked up in step 4 is the signing key's own when the key
    // the signature verified is the one the request claimed: the gate behind
    // reads it, while it stands, rather than asking the records a second time.
    // What is stored is checked again as it is stored (store::requests::insert).
    if let Some(checked) = claimed.filter(|c| c.jkt == agent.jkt) {
        req.extensions_mut().insert(checked);
    }
    req.extensions_mut().insert(AgentIdentity { jkt: agent.jkt, jwk: agent.jwk, key: agent.key, peer_uid });
    Ok(req)
}

/// Whether a key was found paired when its request was admitted: set by the
/// guard only for the key the request's signature verified, and read by
/// [`require_paired`]. Private, so nothing but the guard can set it.
#[derive(Debug, Clone)]
struct PairingChecked {
    jkt: String,
    paired: bool,
    at: std::time::Instant,
}

/// How long the guard's pairing answer stands for the gate behind it. The
/// answer is given before the body, which an agent may hold back for up to
/// the body timeout while the person unpairs it: older than this, the gate
/// asks again.
const PAIRING_ANSWER_STANDS: Duration = Duration::from_secs(1);

impl PairingChecked {
    /// The answer for `jkt`, if this one is about it and still stands.
    fn for_key(&self, jkt: &str) -> Option<bool> {
        (self.jkt == jkt && self.at.elapsed() < PAIRING_ANSWER_STANDS).then_some(self.paired)
    }
}

/// Whether the key the request names in `SchCP-Agent-Key` is paired, as the
/// request claims it before its signature is checked. A false claim gains
/// nothing: the signature then fails, and its nonce is never stored. `None`
/// when no pairing gate is mounted (every key counts as paired).
async fn claimed_key_pairing(guard: &AgentGuard, headers: &HeaderMap) -> Result<Option<PairingChecked>, ApiError> {
    let Some(gate) = &guard.gate else { return Ok(None) };
    let jkt = headers
        .get(httpsig::AGENT_KEY)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| schcp::jwk::parse_agent_key(v).ok())
        .and_then(|(jwk, _)| jwk.thumbprint().ok());
    let at = std::time::Instant::now();
    Ok(Some(match jkt {
        Some(jkt) => {
            let paired = gate.0.is_paired(&jkt).await?;
            PairingChecked { jkt, paired, at }
        }
        None => PairingChecked { jkt: String::new(), paired: false, at },
    }))
}

/// The one `Host` field, exactly `127.0.0.1:<port>` or `localhost:<port>`.
/// Compared byte for byte: agents use the URL from `agent-api.json`, and the
/// same string becomes the signed `@target-uri`.
fn own_host(headers: &HeaderMap, port: u16) -> Result<String, ApiError> {
    let mut values = headers.get_all(header::HOST).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return Err(ApiError::bad_host(format!(
            "a request to the agent API carries one Host header, 127.0.0.1:{port} or localhost:{port}"
        )));
    };
    let host = value.to_str().unwrap_or_default();
    if host == format!("127.0.0.1:{port}") || host == format!("localhost:{port}") {
        Ok(host.to_owned())
    } else {
        Err(ApiError::bad_host(format!(
            "Host must be 127.0.0.1:{port} or localhost:{port} (docs/agent-api.md §1, DNS-rebinding defence)"
        )))
    }
}

async fn read_body(headers: &HeaderMap, mut body: Body) -> Result<Bytes, ApiError> {
    let declared =
        headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if let Some(n) = declared {
        if n > MAX_BODY_BYTES as u64 {
            if n <= DRAIN_LIMIT_BYTES as u64 {
                drain(body).await;
            }
            return Err(ApiError::body_too_large(MAX_BODY_BYTES));
        }
    }
    let mut buf = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame =
            frame.map_err(|e| ApiError::invalid_request(Reason::Malformed, format!("reading the body: {e}")))?;
        if let Ok(data) = frame.into_data() {
            if buf.len() + data.len() > MAX_BODY_BYTES {
                drain(body).await;
                return Err(ApiError::body_too_large(MAX_BODY_BYTES));
            }
            buf.extend_from_slice(&data);
        }
    }
    Ok(Bytes::from(buf))
}

/// Reads and discards what is left of an over-size body, bounded in bytes and time.
async fn drain(mut body: Body) {
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, async {
        let mut n = 0usize;
        while let Some(Ok(frame)) = body.frame().await {
            n += frame.data_ref().map_or(0, |d| d.len());
            if n > DRAIN_LIMIT_BYTES {
                break;
            }
        }
    })
    .await;
}

/// `application/json`, optionally with `charset=utf-8` (§3.1: bodies are UTF-8).
fn check_content_type(headers: &HeaderMap) -> Result<(), ApiError> {
    let refuse = || ApiError::unsupported_media_type("a request body must be Content-Type: application/json (§3.1)");
    let mut values = headers.get_all(header::CONTENT_TYPE).iter();
    let (Some(value), None) = (values.next(), values.next()) else { return Err(refuse()) };
    let value = value.to_str().map_err(|_| refuse())?;
    let mut parts = value.split(';');
    if !parts.next().is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json")) {
        return Err(refuse());
    }
    for param in parts {
        match param.trim().split_once('=') {
            Some((k, v))
                if k.trim().eq_ignore_ascii_case("charset")
                    && v.trim().trim_matches('"').eq_ignore_ascii_case("utf-8") => {}
            _ => return Err(refuse()),
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The pairing gate.

/// A boxed future, so the lookup can be a trait object.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Whether the person has paired (and not unpaired) the agent key with this
/// thumbprint. The route author implements it over the store; an error
/// becomes the response (fail closed).
///
/// Any `Fn(String) -> impl Future<Output = Result<bool, ApiError>>` closure
/// is one, e.g. `move |jkt| { let s = store.clone(); async move { s.is_paired(&jkt).await } }`.
pub trait PairingLookup: Send + Sync + 'static {
    fn is_paired<'a>(&'a self, jkt: &'a str) -> BoxFuture<'a, Result<bool, ApiError>>;
}

impl<F, Fut> PairingLookup for F
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<bool, ApiError>> + Send + 'static,
{
    fn is_paired<'a>(&'a self, jkt: &'a str) -> BoxFuture<'a, Result<bool, ApiError>> {
        Box::pin(self(jkt.to_owned()))
    }
}

/// The state of [`require_paired`].
#[derive(Clone)]
pub struct PairingGate(Arc<dyn PairingLookup>);

impl PairingGate {
    pub fn new(lookup: impl PairingLookup) -> Self {
        PairingGate(Arc::new(lookup))
    }
}

/// The routes an unpaired agent may call (docs/agent-api.md §4):
/// `POST /v1/pairings` and `GET /v1/pairings/{id}`. Everything else is gated,
/// so a route added later is closed to unpaired agents by default.
pub fn is_pairing_route(method: &Method, path: &str) -> bool {
    match *method {
        Method::POST => path == "/v1/pairings",
        Method::GET => path.strip_prefix("/v1/pairings/").is_some_and(|id| !id.is_empty() && !id.contains('/')),
        _ => false,
    }
}

/// `GET /v1/principal` with a `nonce`: the key app's proof that it holds the
/// principal key (docs/agent-api.md §7), which an agent pinned at pairing asks
/// for before anything else, paired or not (an agent the person unpaired
/// still tells its key app from an impostor). The handler answers an unpaired
/// agent the proof and the public key only.
pub fn is_proof_request(method: &Method, uri: &axum::http::Uri) -> bool {
    *method == Method::GET
        && uri.path() == "/v1/principal"
        && uri.query().is_some_and(|q| q.split('&').any(|p| p.split('=').next() == Some("nonce")))
}

/// The pairing gate middleware, for
/// `axum::middleware::from_fn_with_state(gate, require_paired)`, behind
/// [`agent_guard`]: `403 NOT_PERMITTED/agent_not_paired` for an unpaired
/// agent on any route but the pairing routes.
pub async fn require_paired(State(gate): State<PairingGate>, req: Request, next: Next) -> Response {
    if is_pairing_route(req.method(), req.uri().path()) || is_proof_request(req.method(), req.uri()) {
        return next.run(req).await;
    }
    let Some(agent) = req.extensions().get::<AgentIdentity>() else {
        return ApiError::internal("the pairing gate runs behind the agent guard").into_response();
    };
    let checked = req.extensions().get::<PairingChecked>().and_then(|c| c.for_key(&agent.jkt));
    let paired = match checked {
        Some(paired) => Ok(paired),
        None => gate.0.is_paired(&agent.jkt).await,
    };
    match paired {
        Ok(true) => next.run(req).await,
        Ok(false) => ApiError::not_permitted(
            Reason::AgentNotPaired,
            "this agent key is not paired; ask to pair with POST /v1/pairings",
        )
        .into_response(),
        Err(e) => e.into_response(),
    }
}

/// Puts `router` behind the guard and the pairing gate, in that order (the
/// guard outermost). Apply it to the whole agent API router, after every
/// route is added and not nested under a prefix (the guard signs over the
/// path as received).
pub fn protect<S>(router: Router<S>, guard: AgentGuard, gate: PairingGate) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    let guard = AgentGuard { gate: Some(gate.clone()), ..guard };
    router
        .layer(axum::middleware::from_fn_with_state(gate, require_paired))
        .layer(axum::middleware::from_fn_with_state(guard, agent_guard))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn pairing_routes() {
        assert!(is_pairing_route(&Method::POST, "/v1/pairings"));
        assert!(is_pairing_route(&Method::GET, "/v1/pairings/pr_1"));
        assert!(!is_pairing_route(&Method::GET, "/v1/pairings"));
        assert!(!is_pairing_route(&Method::GET, "/v1/pairings/"));
        assert!(!is_pairing_route(&Method::GET, "/v1/pairings/pr_1/x"));
        assert!(!is_pairing_route(&Method::GET, "/v1/pairings/../principal"));
        assert!(!is_pairing_route(&Method::DELETE, "/v1/pairings/pr_1"));
        assert!(!is_pairing_route(&Method::POST, "/v1/pairings/"));
        assert!(!is_pairing_route(&Method::POST, "/v1/requests"));
        assert!(!is_pairing_route(&Method::GET, "/v1/principal"));
        let uri = |u: &'static str| axum::http::Uri::from_static(u);
        assert!(is_proof_request(&Method::GET, &uri("/v1/principal?nonce=AAAA")));
        assert!(is_proof_request(&Method::GET, &uri("/v1/principal?x=1&nonce=")));
        assert!(!is_proof_request(&Method::GET, &uri("/v1/principal")));
        assert!(!is_proof_request(&Method::GET, &uri("/v1/principal?nonces=1")));
        assert!(!is_proof_request(&Method::POST, &uri("/v1/principal?nonce=AAAA")));
        assert!(!is_proof_request(&Method::GET, &uri("/v1/mandates?nonce=AAAA")));
    }

    #[test]
    fn host_is_compared_exactly() {
        let h = |v: &str| {
            let mut m = HeaderMap::new();
            m.insert(header::HOST, HeaderValue::from_str(v).unwrap());
            m
        };
        assert_eq!(own_host(&h("127.0.0.1:7411"), 7411).unwrap(), "127.0.0.1:7411");
        assert_eq!(own_host(&h("localhost:7411"), 7411).unwrap(), "localhost:7411");
        for bad in
            ["127.0.0.1", "127.0.0.1:7412", "evil.example:7411", "[::1]:7411", "127.0.0.1:7411 ", "LOCALHOST:7411"]
        {
            assert_eq!(own_host(&h(bad), 7411).unwrap_err().reason, "bad_host", "{bad:?}");
        }
        assert!(own_host(&HeaderMap::new(), 7411).is_err());
        let mut two = h("127.0.0.1:7411");
        two.append(header::HOST, HeaderValue::from_static("127.0.0.1:7411"));
        assert!(own_host(&two, 7411).is_err());
    }

    #[test]
    fn content_type() {
        let h = |v: &str| {
            let mut m = HeaderMap::new();
            m.insert(header::CONTENT_TYPE, HeaderValue::from_str(v).unwrap());
            m
        };
        for ok in [
            "application/json",
            "Application/JSON",
            "application/json; charset=utf-8",
            "application/json;charset=\"UTF-8\"",
        ] {
            check_content_type(&h(ok)).unwrap();
        }
        for bad in [
            "text/plain",
            "application/json; charset=latin1",
            "application/jsonx",
            "application/x-www-form-urlencoded",
            "application/json; x=1",
        ] {
            assert_eq!(check_content_type(&h(bad)).unwrap_err().status.as_u16(), 415, "{bad:?}");
        }
        assert!(check_content_type(&HeaderMap::new()).is_err());
    }
}
