//! The edge of a status service (docs/agent-api.md §10): what every request
//! passes before and after a store answers it.
//!
//! No request signing, no cookies, no CORS (docs/agent-api.md §10); `Cache-Control: no-store`
//! on every response, so no cache between a host and a status service ever
//! answers for a revoked mandate or a spent limit.
//!
//! It faces the network, so every request is bounded: its head (16 KiB, read
//! within `header_timeout`), its body (`max_body`, read within `body_timeout`) and
//! its handling (`request_timeout`). Claims and lookups are rate limited per peer
//! address (or, behind a trusted proxy, per forwarded client address) with a
//! token bucket. A flood from one peer spends only that peer's
//! tokens, never a mandate's, so nobody can lock a person out of their own limit
//! by hammering it; and releases are never limited, because a release only gives
//! a unit back and a host whose release failed would leave the person a booking
//! short (§3.3: "one booking fewer left, never one more").
//!
//! The routes are each service's own (`keyapp::status_api`, `schcp_status::service`):
//! they wrap them with [`Edge::wrap`], serve them with [`serve_router`] and read
//! a claim with [`read_claim`].

use crate::accept::{serve_connections, Admitted, ConnectionLimits};
use crate::claims::ClaimId;
use crate::forwarded::{self, TrustedProxy};
use crate::http_error::ApiError;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use http_body_util::{BodyExt, LengthLimitError, Limited};
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
}

/// A token bucket: `burst` requests at once, refilled at `per_second`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    pub per_second: f64,
    pub burst: f64,
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
        }
    }
}

/// The part of a status service that faces the network, whatever stores the
/// statuses: its options and its per-client rate limiter. Shared by the key
/// app's embedded status API and the hosted `schcp-status`.
pub struct Edge {
    limiter: Option<RateLimiter>,
    options: StatusOptions,
}

impl Edge {
    pub fn new(options: StatusOptions) -> Arc<Edge> {
        let limiter = options.rate_limit.map(|l| RateLimiter::new(l, options.max_tracked_peers));
        Arc::new(Edge { limiter, options })
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
                    "INVALID_REQUEST",
                    "method_not_allowed",
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

/// The clock as unix seconds, as the status rules read it.
pub fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

// ---------------------------------------------------------------------------
// The claim body: `{"claim_id": "…"}` and nothing else.

/// Why a claim body was refused, each with its own reason (STYLE.md: a host
/// switches on `reason`, never on `message`).
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
            BodyRefusal::ContentType => ApiError::invalid_request("bad_content_type", message),
            BodyRefusal::TooLarge(limit) => {
                ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "INVALID_REQUEST", "body_too_large", message)
                    .with_details(json!({ "limit": limit }))
            }
            BodyRefusal::Timeout => {
                ApiError::new(StatusCode::REQUEST_TIMEOUT, "INVALID_REQUEST", "body_timeout", message)
            }
            BodyRefusal::Unreadable => ApiError::invalid_request("unreadable_body", message),
            BodyRefusal::Json(schcp::json::JsonError::DuplicateMember(name)) => {
                ApiError::invalid_request("duplicate_member", message).with_details(json!({ "member": name }))
            }
            BodyRefusal::Json(_) | BodyRefusal::NotObject => ApiError::invalid_request("malformed_json", message),
            BodyRefusal::UnknownMember(name) => {
                ApiError::invalid_request("unknown_member", message).with_details(json!({ "member": name }))
            }
            BodyRefusal::MissingClaimId => {
                ApiError::invalid_request("missing_member", message).with_details(json!({ "member": "claim_id" }))
            }
            BodyRefusal::ClaimIdNotString => ApiError::invalid_request("bad_claim_id", message),
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
    let claim_id = read_claim_body(options, headers, body).await.map_err(|r| r.to_api_error())?;
    ClaimId::parse(&claim_id).map_err(|r| ApiError::from(&r))
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

/// Reads and checks a claim body, returning the claim id as sent.
async fn read_claim_body(options: &StatusOptions, headers: &HeaderMap, body: Body) -> Result<String, BodyRefusal> {
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
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(BodyRefusal::ClaimIdNotString),
    }
}

// ---------------------------------------------------------------------------
// Middleware.

/// Around every route, fallback included: the per-peer rate limit, the time
/// bound, and `Cache-Control: no-store` on whatever comes out (the 429 and 503
/// made here too). One layer rather than three: one boxed future per request.
async fn guard(State(edge): State<Arc<Edge>>, request: Request, next: Next) -> Response {
    let mut response = match admit(&edge, &request) {
        Err(refused) => refused.into_response(),
        Ok(()) => match tokio::time::timeout(edge.options.request_timeout, next.run(request)).await {
            Ok(response) => response,
            // A claim cut short here may still commit; the host's retry with the
            // same claim id is then answered 200, spending nothing (§3.3).
            Err(_) => ApiError::unavailable("timeout", "the request took too long; retry it").into_response(),
        },
    };
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The rate limit: a token from the peer's bucket, except for releases, which
/// are never limited because they only give units back (module doc).
fn admit(edge: &Edge, request: &Request) -> Result<(), ApiError> {
    let Some(limiter) = &edge.limiter else {
        return Ok(());
    };
    if request.method() == Method::DELETE {
        return Ok(());
    }
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
