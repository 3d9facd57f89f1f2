//! The edge of a status service (docs/agent-api.md §10): what every request
//! passes before and after a store answers it.
//!
//! No request signing, no cookies, no CORS (docs/agent-api.md §10); `Cache-Control: no-store`
//! on every response, so no cache between a host and a status service ever
//! answers for a spent limit. The one exception is a route's own short
//! `max-age` on a successful `GET` (the hosted service's status reads, which an
//! operator may let a CDN serve for a few seconds: docs/hosted-status.md).
//!
//! It faces the network, so every request is bounded: its head (16 KiB, read
//! within `header_timeout`), its body (`max_body`, read within `body_timeout`) and
//! its handling (`request_timeout`). Claims and lookups are rate limited per peer
//! address (or, behind a trusted proxy, per forwarded client address) with a
//! token bucket. A flood from one peer spends only that peer's
//! tokens, never a mandate's, so nobody can lock a person out of their own limit
//! by hammering it. Releases have a bucket of their own, [`RELEASE_HEADROOM`]
//! times as large: a release only gives a unit back, and one refused would leave
//! the person a booking short until the host's retry (§3.3: "one booking fewer
//! left, never one more"), so claims never spend its tokens and a host giving
//! back what it took never meets it; but each release still costs a lookup, so
//! a flood of them is stopped like any other.
//!
//! The status routes are [`crate::routes`]', over each service's store
//! (`keyapp::status_api`, `schcp_status::service`); each service wraps them,
//! with any routes of its own, in [`Edge::wrap`] and serves them with
//! [`serve_router`].

use crate::accept::{serve_connections, Admitted, ConnectionLimits};
use crate::claims::ClaimId;
use crate::forwarded::{self, TrustedProxy};
use crate::http_error::ApiError;
use crate::public_base::{LiveBase, PublicBase};
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use schcp::refusal::{Code, Reason};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::net::TcpListener;

/// Tunables of the status listener. The defaults suit one person's key app: a
/// host makes a handful of calls per booking.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusOptions {
    /// Per-peer token bucket for `GET` and `POST` (`None`: no limit).
    pub rate_limit: Option<RateLimit>,
    /// Largest accepted request body, in bytes (a claim body is under 600).
    pub max_body: usize,
    /// Time to receive a request body.
    pub body_timeout: Duration,
    /// Time to answer a request once its head has arrived.
    pub request_timeout: Duration,
    /// Time to receive a request head, and the longest a kept-alive connection
    /// may sit idle.
    pub header_timeout: Duration,
    /// Open connections one peer may hold at once.
    pub max_connections_per_peer: usize,
    /// Peers the rate limiter tracks before it prunes (see `RateLimiter`).
    pub max_tracked_peers: usize,
    /// Claims and releases per group-committed transaction.
    pub max_batch: usize,
    /// Proxies whose `X-Forwarded-For` names the client a rate limit counts
    /// against (`forwarded::client_ip`); their connections are not capped per
    /// peer (the proxy bounds them).
    pub trusted_proxies: Vec<TrustedProxy>,
    /// The public base URL hosts are given (`https://keyapp.example`): its host
    /// and port are the only non-loopback `Host` a request may name (else 421,
    /// the DNS-rebinding defence), and a signed claim's `@target-uri` is
    /// rebuilt from it (§3.2: "from its configured public origin, never from
    /// the Host header"). `None`: loopback `Host` values only. An edge made
    /// with [`Edge::live`] reads the base its service publishes instead.
    pub public_base: Option<String>,
}

/// A token bucket: `burst` requests at once, refilled at `per_second`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    pub per_second: f64,
    pub burst: f64,
}

/// How many times a peer's rate limit its bucket for releases holds.
pub const RELEASE_HEADROOM: f64 = 10.0;

impl RateLimit {
    /// The bucket for releases: [`RELEASE_HEADROOM`] times this one.
    pub fn for_releases(self) -> RateLimit {
        RateLimit { per_second: self.per_second * RELEASE_HEADROOM, burst: self.burst * RELEASE_HEADROOM }
    }
}

impl Default for StatusOptions {
    fn default() -> Self {
        StatusOptions {
            rate_limit: Some(RateLimit { per_second: 20.0, burst: 60.0 }),
            max_body: 4 * 1024,
            body_timeout: Duration::from_secs(5),
            // Longer than the key app store's 10 s busy timeout, so a claim waiting for
            // the write lock is answered by the store rather than cut short.
            request_timeout: Duration::from_secs(15),
            header_timeout: Duration::from_secs(10),
            max_connections_per_peer: 128,
            max_tracked_peers: 100_000,
            max_batch: 256,
            trusted_proxies: Vec::new(),
            public_base: None,
        }
    }
}

/// The part of a status service that faces the network, whatever stores the
/// statuses: its options and its per-client rate limiter. Shared by the key
/// app's embedded status API and the hosted `schcp-status`.
pub struct Edge {
    limiter: Option<RateLimiter>,
    /// Releases' own bucket per peer.
    release_limiter: Option<RateLimiter>,
    options: StatusOptions,
    /// The public base in force, parsed when it was set and only read here.
    public: LiveBase,
}

impl Edge {
    /// An edge whose public base is `options.public_base` for its life (the
    /// hosted service's config); one that is not an http(s) URL with a host
    /// leaves loopback `Host` values only.
    pub fn new(options: StatusOptions) -> Arc<Edge> {
        let public = LiveBase::fixed(options.public_base.as_deref().and_then(|b| PublicBase::parse(b).ok()));
        Edge::live(options, public)
    }

    /// An edge whose public base is the one `public` reads in force at each
    /// request (the key app's, which its person may change while it runs),
    /// not `options.public_base`.
    pub fn live(options: StatusOptions, public: LiveBase) -> Arc<Edge> {
        let limiter = options.rate_limit.map(|l| RateLimiter::new(l, options.max_tracked_peers));
        let release_limiter = options.rate_limit.map(|l| RateLimiter::new(l.for_releases(), options.max_tracked_peers));
        Arc::new(Edge { limiter, release_limiter, options, public })
    }

    /// The URLs a host may have addressed for this request, for its signature's
    /// `@target-uri` (§3.2): `public_base` and the path; and, for a request
    /// that named a loopback `Host` (a host on this machine, or a proxy that
    /// rewrote `Host` to the listener's address), `http://{Host}` and the path.
    pub fn target_uris(&self, headers: &HeaderMap, uri: &axum::http::Uri) -> Vec<String> {
        let path = uri.path_and_query().map_or("/", |pq| pq.as_str());
        let mut uris = Vec::new();
        if let Some(base) = self.public.with(|base| base.map(|b| format!("{}{path}", b.as_str()))) {
            uris.push(base);
        }
        if let Some(host) = named_host(headers, uri).filter(|h| is_loopback_host(h)) {
            uris.push(format!("http://{host}{path}"));
        }
        uris
    }

    /// `Host` is `public_base`'s host and port, or a loopback address (any
    /// port: the listener's own, or a proxy's on this machine).
    fn host_allowed(&self, headers: &HeaderMap, uri: &axum::http::Uri) -> bool {
        let Some(named) = named_host(headers, uri) else { return false };
        is_loopback_host(&named) || self.public.with(|base| base.is_some_and(|b| b.is_named_by(&named)))
    }

    pub fn options(&self) -> &StatusOptions {
        &self.options
    }

    /// Completes a status router: the §9 404 and 405 for anything else, then
    /// [`guard`] (rate limit, time bound, `no-store`) around it all.
    pub fn wrap(self: &Arc<Self>, routes: Router) -> Router {
        routes
            .fallback(|| async { ApiError::not_found("no such route") })
            .method_not_allowed_fallback(|| async {
                ApiError::new(
                    StatusCode::METHOD_NOT_ALLOWED,
                    Code::InvalidRequest,
                    Reason::MethodNotAllowed,
                    "method not allowed here",
                )
            })
            .layer(middleware::from_fn_with_state(self.clone(), guard))
    }
}

/// Serves `router` on `listener` until the future is dropped, through the
/// shared bounded accept loop ([`crate::accept`]): a header-read timeout, a
/// bounded request head and a per-peer connection cap. Peer addresses reach
/// the routes as `ConnectInfo<SocketAddr>`.
pub async fn serve_router(listener: TcpListener, router: Router, options: StatusOptions) -> std::io::Result<()> {
    let limits = ConnectionLimits {
        header_timeout: options.header_timeout,
        max_connections_per_peer: options.max_connections_per_peer,
        max_connections: None,
    };
    serve_connections(listener, router, limits, move |peer, _local| {
        // A trusted proxy carries every host's calls on its own connections,
        // and bounds them itself; counting them as one peer's would let one
        // busy host starve the others at the proxy. Everyone else is capped.
        let capped = !forwarded::is_trusted(peer.ip(), &options.trusted_proxies);
        Admitted { peer: capped.then(|| PeerKey::of(Some(peer.ip()))), info: () }
    })
    .await
}

/// Whether `base` can be a `public_base`: an http(s) URL with a host.
pub fn is_public_base(base: &str) -> bool {
    PublicBase::parse(base).is_ok()
}

/// The authority a request names: its one `Host` header, or for a request in
/// absolute form (no `Host`) the URI's. Two `Host` headers, userinfo or
/// anything not visible ASCII name nothing.
fn named_host(headers: &HeaderMap, uri: &axum::http::Uri) -> Option<String> {
    let mut values = headers.get_all(header::HOST).iter();
    let named = match (values.next(), values.next()) {
        (Some(v), None) => v.to_str().ok()?.trim().to_owned(),
        (None, _) => uri.authority()?.as_str().to_owned(),
        (Some(_), Some(_)) => return None,
    };
    let valid = !named.is_empty() && !named.contains('@') && named.bytes().all(|b| b.is_ascii_graphic());
    valid.then_some(named)
}

/// `localhost`, or an address in 127.0.0.0/8 or `::1`, with any port.
fn is_loopback_host(named: &str) -> bool {
    let Ok(authority) = named.parse::<axum::http::uri::Authority>() else { return false };
    let host = authority.host();
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The clock as unix seconds, as the status rules read it.
pub fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

// ---------------------------------------------------------------------------
// The claim body: `{"claim_id": "…"}` and nothing else.

/// Why a claim body was refused, each with its own reason (SchCP §9.2: a host
/// switches on `reason`; `message` is for a person).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum BodyRefusal {
    #[error("the body must be sent as Content-Type: application/json")]
    ContentType,
    #[error("the body is larger than {0} bytes")]
    TooLarge(usize),
    #[error("the body did not arrive in time")]
    Timeout,
    #[error("the body could not be read")]
    Unreadable,
    #[error("{0}")]
    Json(schcp::json::JsonError),
    #[error("the body must be a JSON object")]
    NotObject,
    #[error("unknown member {0:?}; a claim is {{\"claim_id\": \"{{host id}}/{{hold id}}\"}}")]
    UnknownMember(String),
    #[error("the claim_id member is missing")]
    MissingClaimId,
    #[error("claim_id must be a string")]
    ClaimIdNotString,
}

impl BodyRefusal {
    fn to_api_error(&self) -> ApiError {
        let message = self.to_string();
        match self {
            BodyRefusal::ContentType => ApiError::invalid_request(Reason::BadContentType, message),
            BodyRefusal::TooLarge(limit) => {
                ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, Code::InvalidRequest, Reason::BodyTooLarge, message)
                    .with_details(json!({ "limit": limit }))
            }
            BodyRefusal::Timeout => {
                ApiError::new(StatusCode::REQUEST_TIMEOUT, Code::InvalidRequest, Reason::BodyTimeout, message)
            }
            BodyRefusal::Unreadable => ApiError::invalid_request(Reason::UnreadableBody, message),
            BodyRefusal::Json(schcp::json::JsonError::DuplicateMember(name)) => {
                ApiError::invalid_request(Reason::DuplicateMember, message).with_details(json!({ "member": name }))
            }
            BodyRefusal::Json(_) | BodyRefusal::NotObject => ApiError::invalid_request(Reason::MalformedJson, message),
            BodyRefusal::UnknownMember(name) => {
                ApiError::invalid_request(Reason::UnknownMember, message).with_details(json!({ "member": name }))
            }
            BodyRefusal::MissingClaimId => {
                ApiError::invalid_request(Reason::MissingMember, message).with_details(json!({ "member": "claim_id" }))
            }
            BodyRefusal::ClaimIdNotString => ApiError::invalid_request(Reason::BadClaimId, message),
        }
    }
}

/// `application/json`, with at most a `charset=utf-8` parameter (RFC 8259: JSON
/// between systems is UTF-8); exactly one such header.
fn is_json(headers: &HeaderMap) -> bool {
    let mut values = headers.get_all(header::CONTENT_TYPE).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return false;
    };
    let Ok(value) = value.to_str() else {
        return false;
    };
    let mut parts = value.split(';');
    if !parts.next().unwrap_or("").trim().eq_ignore_ascii_case("application/json") {
        return false;
    }
    parts.all(|p| match p.trim().split_once('=') {
        Some((k, v)) => {
            k.trim().eq_ignore_ascii_case("charset") && v.trim().trim_matches('"').eq_ignore_ascii_case("utf-8")
        }
        None => p.trim().is_empty(),
    })
}

/// Reads a claim body and checks it: `application/json`, at most `max_body`
/// bytes within `body_timeout`, `{"claim_id": …}` exactly, a well-formed claim
/// id (§3.3). Every refusal is the §9 error a host gets.
pub async fn read_claim(options: &StatusOptions, headers: &HeaderMap, body: Body) -> Result<ClaimId, ApiError> {
    Ok(read_claim_with_body(options, headers, body).await?.0)
}

/// [`read_claim`], with the body's exact bytes, which a signed claim's
/// `Content-Digest` covers (§3.2).
pub async fn read_claim_with_body(
    options: &StatusOptions,
    headers: &HeaderMap,
    body: Body,
) -> Result<(ClaimId, Bytes), ApiError> {
    let (claim_id, bytes) = read_claim_body(options, headers, body).await.map_err(|r| r.to_api_error())?;
    Ok((ClaimId::parse(&claim_id).map_err(|r| ApiError::from(&r))?, bytes))
}

/// Reads a body of at most `limit` bytes within `options.body_timeout`: 413 past
/// the limit (declared or sent), 408 when it does not arrive in time.
pub async fn read_bounded(
    options: &StatusOptions,
    limit: usize,
    headers: &HeaderMap,
    body: Body,
) -> Result<Bytes, ApiError> {
    read_body(options, limit, headers, body).await.map_err(|r| r.to_api_error())
}

async fn read_body(
    options: &StatusOptions,
    limit: usize,
    headers: &HeaderMap,
    body: Body,
) -> Result<Bytes, BodyRefusal> {
    // A declared length over the limit is refused before reading a byte.
    if let Some(n) =
        headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok())
    {
        if n > limit as u64 {
            return Err(BodyRefusal::TooLarge(limit));
        }
    }
    let collect = Limited::new(body, limit).collect();
    match tokio::time::timeout(options.body_timeout, collect).await {
        Err(_) => Err(BodyRefusal::Timeout),
        Ok(Err(e)) if e.is::<LengthLimitError>() => Err(BodyRefusal::TooLarge(limit)),
        Ok(Err(_)) => Err(BodyRefusal::Unreadable),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
    }
}

/// Reads and checks a claim body, returning the claim id as sent and the bytes.
async fn read_claim_body(
    options: &StatusOptions,
    headers: &HeaderMap,
    body: Body,
) -> Result<(String, Bytes), BodyRefusal> {
    if !is_json(headers) {
        return Err(BodyRefusal::ContentType);
    }
    let bytes = read_body(options, options.max_body, headers, body).await?;
    // Strict parse: a duplicate member name is refused (§3.1), so no two parsers
    // can read different claim ids from the same bytes.
    let value = schcp::json::parse(&bytes).map_err(BodyRefusal::Json)?;
    let Value::Object(members) = value else {
        return Err(BodyRefusal::NotObject);
    };
    if let Some(name) = members.keys().find(|k| k.as_str() != "claim_id") {
        return Err(BodyRefusal::UnknownMember(name.clone()));
    }
    match members.get("claim_id") {
        None => Err(BodyRefusal::MissingClaimId),
        Some(Value::String(s)) => Ok((s.clone(), bytes)),
        Some(_) => Err(BodyRefusal::ClaimIdNotString),
    }
}

// ---------------------------------------------------------------------------
// Middleware.

/// Around every route, fallback included: the per-peer rate limit, the time
/// bound, and `Cache-Control: no-store` on whatever comes out (the 429 and 503
/// made here too), unless a route stated its own on a successful `GET`. One layer rather than three: one boxed future per request.
async fn guard(State(edge): State<Arc<Edge>>, request: Request, next: Next) -> Response {
    // Only a `GET` may carry a cacheable answer: claims and releases change
    // state, and a cached one would answer for a limit already spent.
    let cacheable = request.method() == Method::GET;
    let admitted = if edge.host_allowed(request.headers(), request.uri()) {
        admit(&edge, &request)
    } else {
        Err(ApiError::bad_host(
            "Host must be this status service's public host or a loopback address (a defence against DNS rebinding)",
        ))
    };
    let mut response = match admitted {
        Err(refused) => refused.into_response(),
        Ok(()) => match tokio::time::timeout(edge.options.request_timeout, next.run(request)).await {
            Ok(response) => response,
            // A claim cut short here may still commit; the host's retry with the
            // same claim id is then answered 200, spending nothing (§3.3).
            Err(_) => ApiError::unavailable(Reason::Timeout, "the request took too long; retry it").into_response(),
        },
    };
    // A route that states its own cacheability (the hosted service's status
    // reads, when its operator allows a short max-age) keeps it on a success;
    // nothing else may be cached.
    if !(cacheable && response.status().is_success() && response.headers().contains_key(header::CACHE_CONTROL)) {
        response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// The rate limit: a token from the peer's bucket, a release's from the
/// peer's bucket for releases (module doc).
fn admit(edge: &Edge, request: &Request) -> Result<(), ApiError> {
    let limiter = if request.method() == Method::DELETE { &edge.release_limiter } else { &edge.limiter };
    let Some(limiter) = limiter else {
        return Ok(());
    };
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
    let client = peer.map(|p| forwarded::client_ip(p, request.headers(), &edge.options.trusted_proxies));
    limiter.take(PeerKey::of(client), Instant::now()).map_err(ApiError::rate_limited)
}

/// Whom a rate limit or a connection cap counts against: an IPv4 address, or an
/// IPv6 /64 (one subscriber's usual allocation, so rotating addresses inside it
/// buys no extra tokens). IPv4-mapped IPv6 counts as the IPv4 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum PeerKey {
    V4([u8; 4]),
    V6([u8; 8]),
    /// No peer address known (the router used without `ConnectInfo`), or the
    /// limiter's table is full.
    Shared,
}

impl PeerKey {
    fn of(ip: Option<IpAddr>) -> PeerKey {
        match ip {
            Some(IpAddr::V4(a)) => PeerKey::V4(a.octets()),
            Some(IpAddr::V6(a)) => match a.to_ipv4_mapped() {
                Some(v4) => PeerKey::V4(v4.octets()),
                None => {
                    let mut prefix = [0; 8];
                    prefix.copy_from_slice(&a.octets()[..8]);
                    PeerKey::V6(prefix)
                }
            },
            None => PeerKey::Shared,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Per-peer token buckets, in memory. Memory is bounded: past `max_peers`
/// tracked peers, buckets that have refilled completely (peers gone quiet, whose
/// state is the same as a fresh bucket's) are dropped; if every tracked peer is
/// still busy, newcomers share one bucket until some quiet down.
struct RateLimiter {
    limit: RateLimit,
    max_peers: usize,
    buckets: Mutex<HashMap<PeerKey, Bucket>>,
}

impl RateLimiter {
    fn new(limit: RateLimit, max_peers: usize) -> RateLimiter {
        RateLimiter { limit, max_peers: max_peers.max(1), buckets: Mutex::new(HashMap::new()) }
    }

    fn refill(&self, b: &mut Bucket, now: Instant) {
        let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
        b.tokens = (b.tokens + elapsed * self.limit.per_second).min(self.limit.burst);
        b.at = now;
    }

    /// Takes one token from `key`'s bucket, or says in how many whole seconds
    /// one will be there.
    fn take(&self, mut key: PeerKey, now: Instant) -> Result<(), u64> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if !buckets.contains_key(&key) && buckets.len() >= self.max_peers {
            let burst = self.limit.burst;
            let rate = self.limit.per_second;
            buckets.retain(|_, b| b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * rate < burst);
            if buckets.len() >= self.max_peers {
                key = PeerKey::Shared;
            }
        }
        let bucket = buckets.entry(key).or_insert(Bucket { tokens: self.limit.burst, at: now });
        self.refill(bucket, now);
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            let wait = (1.0 - bucket.tokens) / self.limit.per_second.max(f64::MIN_POSITIVE);
            Err(wait.ceil().clamp(1.0, 3600.0) as u64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::public_base::BaseInForce;

    #[test]
    fn content_types() {
        let mut h = HeaderMap::new();
        assert!(!is_json(&h));
        for (v, ok) in [
            ("application/json", true),
            ("Application/JSON; charset=UTF-8", true),
            ("application/json;charset=\"utf-8\"", true),
            ("application/json; charset=latin1", false),
            ("application/json; boundary=x", false),
            ("text/plain", false),
            ("application/jsonx", false),
        ] {
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static(v));
            assert_eq!(is_json(&h), ok, "{v}");
        }
        h.append(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        assert!(!is_json(&h), "two Content-Type headers");
    }

    fn edge(public_base: Option<&str>) -> Arc<Edge> {
        Edge::new(StatusOptions { public_base: public_base.map(str::to_owned), ..StatusOptions::default() })
    }

    fn host(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_str(value).unwrap());
        h
    }

    /// `Host` is the public base's host (its port, or the scheme's default) or
    /// loopback; anything else, two of them or none is refused.
    #[test]
    fn host_must_be_the_public_base_or_loopback() {
        let e = edge(Some("https://KeyApp.example/base/"));
        let uri = axum::http::Uri::from_static("/status/m");
        for ok in ["keyapp.example", "KEYAPP.example:443", "127.0.0.1:7412", "localhost", "[::1]:9", "127.3.4.5"] {
            assert!(e.host_allowed(&host(ok), &uri), "{ok}");
        }
        for bad in ["evil.example", "keyapp.example:8443", "keyapp.example.evil", "10.0.0.1:7412", "u@127.0.0.1", ""] {
            assert!(!e.host_allowed(&host(bad), &uri), "{bad}");
        }
        let mut two = host("127.0.0.1");
        two.append(header::HOST, HeaderValue::from_static("127.0.0.1"));
        assert!(!e.host_allowed(&two, &uri));
        assert!(!e.host_allowed(&HeaderMap::new(), &uri));
        assert!(e.host_allowed(&HeaderMap::new(), &axum::http::Uri::from_static("http://keyapp.example/status/m")));
        // Without a public base only loopback passes.
        assert!(!edge(None).host_allowed(&host("keyapp.example"), &uri));
        assert!(edge(None).host_allowed(&host("127.0.0.1:7412"), &uri));
        assert!(edge(Some("http://keyapp.example:8080")).host_allowed(&host("keyapp.example:8080"), &uri));
        assert!(!edge(Some("http://keyapp.example:8080")).host_allowed(&host("keyapp.example"), &uri));
    }

    #[test]
    fn a_live_base_is_checked_as_it_is_at_each_request() {
        let in_force = BaseInForce::new(Some(PublicBase::parse("https://old.example").unwrap()));
        let e = Edge::live(StatusOptions::default(), in_force.reader());
        let uri = axum::http::Uri::from_static("/status/m");
        assert!(e.host_allowed(&host("old.example"), &uri) && !e.host_allowed(&host("new.example"), &uri));
        in_force.publish(Some(PublicBase::parse("https://new.example/").unwrap()));
        assert!(e.host_allowed(&host("new.example"), &uri), "the new base is answered by the very next request");
        assert!(!e.host_allowed(&host("old.example"), &uri), "the old one no longer");
        assert!(e.host_allowed(&host("127.0.0.1:7412"), &uri), "loopback as ever");
        assert_eq!(e.target_uris(&host("new.example"), &uri), ["https://new.example/status/m"]);
        in_force.publish(None);
        assert!(!e.host_allowed(&host("new.example"), &uri));
        assert_eq!(e.target_uris(&host("new.example"), &uri), Vec::<String>::new());
    }

    #[test]
    fn target_uris_come_from_the_public_base_and_a_loopback_host() {
        let e = edge(Some("https://keyapp.example/base/"));
        let uri = axum::http::Uri::from_static("/status/m/claims/maple/h_1?x=1");
        assert_eq!(
            e.target_uris(&host("127.0.0.1:7412"), &uri),
            [
                "https://keyapp.example/base/status/m/claims/maple/h_1?x=1",
                "http://127.0.0.1:7412/status/m/claims/maple/h_1?x=1"
            ]
        );
        assert_eq!(
            e.target_uris(&host("keyapp.example"), &uri),
            ["https://keyapp.example/base/status/m/claims/maple/h_1?x=1"]
        );
    }

    #[test]
    fn buckets_are_per_peer_and_refill() {
        let l = RateLimiter::new(RateLimit { per_second: 2.0, burst: 3.0 }, 1000);
        let t0 = Instant::now();
        let a = PeerKey::of(Some("192.0.2.1".parse().unwrap()));
        let b = PeerKey::of(Some("192.0.2.2".parse().unwrap()));
        for _ in 0..3 {
            l.take(a, t0).unwrap();
        }
        assert_eq!(l.take(a, t0), Err(1));
        l.take(b, t0).unwrap(); // another peer is untouched by a's flood
        l.take(a, t0 + Duration::from_millis(500)).unwrap();
        assert!(l.take(a, t0 + Duration::from_millis(500)).is_err());
    }

    #[test]
    fn ipv6_counts_per_64_and_mapped_v4_as_v4() {
        let a = PeerKey::of(Some("2001:db8:1:2::1".parse().unwrap()));
        let b = PeerKey::of(Some("2001:db8:1:2:ffff::9".parse().unwrap()));
        let c = PeerKey::of(Some("2001:db8:1:3::1".parse().unwrap()));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(
            PeerKey::of(Some("::ffff:192.0.2.1".parse().unwrap())),
            PeerKey::of(Some("192.0.2.1".parse().unwrap()))
        );
    }

    #[test]
    fn a_full_table_drops_quiet_peers_first() {
        let l = RateLimiter::new(RateLimit { per_second: 1.0, burst: 2.0 }, 2);
        let t0 = Instant::now();
        let p = |i: u8| PeerKey::V4([192, 0, 2, i]);
        l.take(p(1), t0).unwrap();
        l.take(p(2), t0).unwrap();
        // Both busy: a third peer shares the overflow bucket.
        l.take(p(3), t0).unwrap();
        assert!(l.buckets.lock().unwrap().contains_key(&PeerKey::Shared));
        // Later, the quiet peers have refilled and are dropped to make room.
        l.take(p(4), t0 + Duration::from_secs(5)).unwrap();
        assert!(l.buckets.lock().unwrap().contains_key(&p(4)));
    }
}
