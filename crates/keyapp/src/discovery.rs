//! The key app's own discovery client (§2.1–§2.3): verification before display.
//!
//! Every host-signed object an agent hands in is checked against keys the key app
//! fetched itself, from the discovery URL, over HTTPS: never against keys or a
//! domain the agent or the object supplies (§2.1: a verifier "MUST NOT accept a key
//! from anywhere else"; §5.2: the domain shown is the one discovered).
//!
//! Fetching (README "Configuration" `[discovery]`):
//! - The outbound policy of §5.8 (`outbound`): public https URLs only, no
//!   credentials, and every address the client connects to checked at connect time,
//!   inside its resolver; loopback, private, link-local, CGNAT, multicast, reserved
//!   and unspecified addresses are refused before any connection, as 422
//!   `discovery_url_refused`. The client itself is `https_only` as a second guard.
//! - Trust: the system's roots (Debian's ca-certificates via `rustls-native-certs`)
//!   plus, for reserved names only (`outbound::config_may_vouch_for`: `….example`,
//!   `….test`, …), the PEM files in `extra_root_certs`; `resolve` pins such names to
//!   addresses like `curl --resolve`, so a test or private host is reached without
//!   weakening TLS. A pinned name is the policy's one exception, and stays exact:
//!   that name, that address and port, nothing else. A public name is proved by
//!   the system's roots alone: the config is a file an assistant can write, and
//!   its roots must not make the assistant's server pass for a business (§5.2).
//! - Short timeouts (connect 5 s, whole request 10 s), a 256 KiB body limit enforced
//!   while reading, no compression (nothing to inflate past the limit), no proxy
//!   (`resolve` must mean what it says, and the fetch must go where the person's
//!   key app decides).
//! - No redirects at all. The brief allows same-origin ones; none is simpler and
//!   loses nothing: §2.1 fixes the document's URL, and an operator's document
//!   (§2.3) names each host's exact discovery URL. A 3xx is `Redirect`.
//! - The document is parsed with `schcp::json::parse` (duplicate members refused,
//!   §3.1), must say `"schcp": "0.4"` (§3.1; the `SchCP-Version` header is not
//!   required), must validate against the schema's `Discovery`, and its kids must be
//!   unique (§2.1).
//!
//! Caching honours `Cache-Control`: `max-age` (capped at 10 minutes), 60 s when the
//! header is absent, nothing cached for `no-store`, `no-cache` or `max-age=0`. A JWS
//! whose kid the cached document lacks triggers one refetch that bypasses the cache
//! (§2.1 key rotation); a kid still unknown after that is refused (`unknown_kid`).
//!
//! The verified domain (§5.2, §2.2 rule 1): when the URL is exactly
//! `https://{host}/.well-known/scheduling.json` (no port, query or fragment), the
//! domain is that `{host}`: TLS proved the server holds a certificate for it. For
//! any other URL (an operator publishing a host without its own domain, §2.1/§2.3,
//! or a host on a non-standard port) there is no verified domain: `domain` is `None`
//! and the consent text labels the host unverified (§5.3 "The consent trust
//! boundary"). The offer's own `host.domain` is never used.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use reqwest::header::CACHE_CONTROL;
use reqwest::Url;
use schcp::claims::Discovery;
use schcp::jwk::Jwk;
use schcp::jws::JwsError;
use schcp::refusal::{Code, Reason};
use schcp::schema::Def;
use schcp::verify::{HostKeys, ReceiptExpectations, VerifiedOffer, VerifiedReceipt};
use serde_json::json;

use crate::config;
use crate::http_error::{AgentApiError, ApiError};
use crate::outbound::{self, Pinned, PublicOnlyResolver, Refusal};

/// The path of a host's own discovery document (§2.1).
pub const WELL_KNOWN_PATH: &str = "/.well-known/scheduling.json";
/// Largest discovery document read. Real ones are a few KiB.
pub const MAX_DOCUMENT_BYTES: usize = 256 * 1024;
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The whole request, body included.
pub const TOTAL_TIMEOUT: Duration = Duration::from_secs(10);
/// Cache lifetime when the response has no `Cache-Control`.
pub const DEFAULT_TTL: Duration = Duration::from_secs(60);
/// No document is cached longer than this, whatever `max-age` says: a host that
/// rotates a key out for cause should not wait on a day-long cache.
pub const MAX_TTL: Duration = Duration::from_secs(600);
/// Cached documents kept at most; past it the oldest entries go.
const MAX_CACHE_ENTRIES: usize = 256;

/// Why a discovery document could not be had, or an object did not verify.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DiscoveryError {
    #[error("discovery URL {url:?} is not a usable URL: {why}")]
    InvalidUrl { url: String, why: String },
    #[error("discovery URL {url:?} is refused: {refusal}")]
    Refused { url: String, refusal: Refusal },
    #[error("cannot read the trusted root certificates in {path}: {why}")]
    RootCerts { path: PathBuf, why: String },
    #[error("cannot build the HTTPS client: {0}")]
    Client(#[source] reqwest::Error),
    #[error("fetching {url}: {}", crate::outbound::error_chain(.source))]
    Fetch {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("{url} answered HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("{url} answered with a redirect (HTTP {status}{}); discovery follows none", .location.as_deref().map(|l| format!(" to {l}")).unwrap_or_default())]
    Redirect { url: String, status: u16, location: Option<String> },
    #[error("{url}: the discovery document is larger than {limit} bytes")]
    TooLarge { url: String, limit: usize },
    #[error("{url}: the discovery document is not valid JSON: {source}")]
    Malformed {
        url: String,
        #[source]
        source: schcp::json::JsonError,
    },
    #[error("{url}: the discovery document says \"schcp\": {found}, not \"0.4\" (§3.1)")]
    WrongVersion { url: String, found: String },
    #[error("{url}: not a SchCP discovery document: {why}")]
    Schema { url: String, why: String },
    #[error("{url}: kid {kid:?} names more than one key (§2.1: kids are unique)")]
    DuplicateKid { url: String, kid: String },
    #[error(transparent)]
    Verification(#[from] schcp::Error),
}

impl DiscoveryError {
    /// The §9 error the agent API answers with. A malformed URL is the agent's
    /// malformed request (400); one the outbound policy refuses is 422
    /// `discovery_url_refused` (§5.8). An object that fails verification is refused
    /// with the protocol's own code and reason (422, `schcp::Error::reason`). A document that
    /// cannot be fetched is `discovery_failed`, one that is not a valid v0.4 document
    /// `discovery_invalid` (422 `VERIFICATION_FAILED`: nothing can be verified, so
    /// nothing is shown). A local setup problem is 500.
    pub fn api_error(&self) -> ApiError {
        let unprocessable = |reason| {
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, Code::VerificationFailed, reason, self.to_string())
        };
        match self {
            DiscoveryError::InvalidUrl { url, .. } => {
                ApiError::invalid_request(Reason::BadDiscoveryUrl, self.to_string())
                    .with_details(json!({ "discovery": url }))
            }
            DiscoveryError::Refused { url, refusal } => unprocessable(Reason::DiscoveryUrlRefused)
                .with_details(json!({ "discovery": url, "rule": refusal.rule() })),
            DiscoveryError::RootCerts { .. } | DiscoveryError::Client(_) => ApiError::internal(self.to_string()),
            DiscoveryError::Fetch { url, .. }
            | DiscoveryError::TooLarge { url, .. }
            | DiscoveryError::Redirect { url, .. } => {
                unprocessable(Reason::DiscoveryFailed).with_details(json!({ "discovery": url }))
            }
            DiscoveryError::Status { url, status } => {
                unprocessable(Reason::DiscoveryFailed).with_details(json!({ "discovery": url, "status": status }))
            }
            DiscoveryError::Malformed { url, .. }
            | DiscoveryError::WrongVersion { url, .. }
            | DiscoveryError::Schema { url, .. }
            | DiscoveryError::DuplicateKid { url, .. } => {
                unprocessable(Reason::DiscoveryInvalid).with_details(json!({ "discovery": url }))
            }
            DiscoveryError::Verification(e) => ApiError::verification(e),
        }
    }

    /// The protocol error, when this is a verification failure.
    pub fn verification(&self) -> Option<&schcp::Error> {
        match self {
            DiscoveryError::Verification(e) => Some(e),
            _ => None,
        }
    }
}

impl From<DiscoveryError> for ApiError {
    fn from(e: DiscoveryError) -> ApiError {
        e.api_error()
    }
}

/// A host as the key app discovered it.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscoveredHost {
    /// The URL the document was fetched from.
    pub url: Url,
    /// `host.id`: the `iss` of everything it signs.
    pub host_id: String,
    /// `host.name`.
    pub name: String,
    /// `host.timezone`.
    pub tz: String,
    /// The verified domain (§5.2): the exact host name of a
    /// `https://{host}/.well-known/scheduling.json` URL; `None` for any other URL,
    /// which the consent text shows as unverified.
    pub domain: Option<String>,
    /// The signing keys, kids unique (§2.1).
    pub keys: Vec<Jwk>,
    pub document: Discovery,
}

impl DiscoveredHost {
    /// The keys `schcp::verify` checks host JWSs with.
    pub fn host_keys(&self) -> HostKeys<'_> {
        HostKeys { host_id: &self.host_id, keys: &self.keys }
    }
}

struct CacheEntry {
    host: Arc<DiscoveredHost>,
    expires: Instant,
}

struct Inner {
    /// The system's roots alone: every public name.
    http: reqwest::Client,
    /// The system's roots and `extra_root_certs`: reserved names only.
    reserved: reqwest::Client,
    pinned: Pinned,
    cache: Mutex<HashMap<String, CacheEntry>>,
}

/// Fetches, checks and caches discovery documents; verifies host-signed objects
/// against them. Cheap to clone (one shared client and cache).
#[derive(Clone)]
pub struct DiscoveryClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for DiscoveryClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiscoveryClient").finish_non_exhaustive()
    }
}

/// Where a document came from: the cache, or the network just now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Cache,
    Network,
}

impl DiscoveryClient {
    /// A client trusting the system's roots, and `config.extra_root_certs` for
    /// reserved names only, with `config.resolve` applied (`Config::check` lets
    /// it name reserved names only) and every other name held to the outbound
    /// policy.
    pub fn new(config: &config::Discovery) -> Result<Self, DiscoveryError> {
        let pinned: Pinned = config.resolve.iter().map(|(name, addr)| (name.to_ascii_lowercase(), *addr)).collect();
        let builder = || {
            reqwest::Client::builder()
                .https_only(true)
                // rustls-native-certs: the system's roots (SSL_CERT_FILE/SSL_CERT_DIR too).
                .tls_built_in_native_certs(true)
                .redirect(reqwest::redirect::Policy::none())
                .connect_timeout(CONNECT_TIMEOUT)
                .timeout(TOTAL_TIMEOUT)
                .no_proxy()
                // Every name, pinned or not, is resolved here, so one place decides each
                // address. reqwest lets a URL's explicit port override a resolved one, so
                // `outbound::check_url` refuses any other port on a pinned name.
                .dns_resolver(Arc::new(PublicOnlyResolver::new(pinned.clone())))
                .user_agent(concat!("schcp-keyapp/", env!("CARGO_PKG_VERSION")))
        };
        let http = builder().build().map_err(DiscoveryError::Client)?;
        let mut builder = builder();
        for path in &config.extra_root_certs {
            for cert in read_pem_certs(path)? {
                builder = builder.add_root_certificate(cert);
            }
        }
        let reserved = builder.build().map_err(DiscoveryError::Client)?;
        Ok(DiscoveryClient { inner: Arc::new(Inner { http, reserved, pinned, cache: Mutex::new(HashMap::new()) }) })
    }

    /// The host's checked discovery document, from the cache while it is fresh.
    pub async fn fetch(&self, url: &str) -> Result<Arc<DiscoveredHost>, DiscoveryError> {
        Ok(self.fetch_with_source(url).await?.0)
    }

    /// The document fetched now, bypassing (and then refreshing) the cache.
    pub async fn refetch(&self, url: &str) -> Result<Arc<DiscoveredHost>, DiscoveryError> {
        let url = check_url(url, &self.inner.pinned)?;
        self.fetch_from_network(&url).await
    }

    /// Drops every cached document.
    pub fn clear_cache(&self) {
        self.cache().clear();
    }

    /// Verifies a booking or change offer (`schcp::verify::verify_offer`) against the
    /// keys of the host discovered at `url`. Returns the host too: its `domain` is
    /// what the consent text shows, never the offer's `host.domain` (§5.2).
    pub async fn verify_offer(
        &self,
        url: &str,
        compact: &str,
        now: i64,
    ) -> Result<(VerifiedOffer, Arc<DiscoveredHost>), DiscoveryError> {
        self.verify_with(url, |host| schcp::verify::verify_offer(compact, host.host_keys(), now)).await
    }

    /// Verifies a host-signed receipt (`schcp::verify::verify_receipt`) against the
    /// keys of the host discovered at `url`.
    pub async fn verify_receipt(
        &self,
        url: &str,
        compact: &str,
        expectations: ReceiptExpectations<'_>,
    ) -> Result<(VerifiedReceipt, Arc<DiscoveredHost>), DiscoveryError> {
        self.verify_with(url, |host| schcp::verify::verify_receipt(compact, host.host_keys(), expectations)).await
    }

    /// Runs `verify` against the host's keys. When the JWS names a kid the cached
    /// document lacks, the document is fetched again once, bypassing the cache, and
    /// `verify` runs again (§2.1: a host that rotated its key has published the new
    /// one). A document that was fetched for this very call is not fetched twice.
    /// At most one extra fetch per call, so an agent sending unknown kids costs the
    /// host no more than its requests to the key app (which are rate-limited).
    pub async fn verify_with<T>(
        &self,
        url: &str,
        verify: impl Fn(&DiscoveredHost) -> Result<T, schcp::Error>,
    ) -> Result<(T, Arc<DiscoveredHost>), DiscoveryError> {
        let (host, source) = self.fetch_with_source(url).await?;
        match verify(&host) {
            Ok(v) => Ok((v, host)),
            Err(schcp::Error::Jws(JwsError::UnknownKid(_))) if source == Source::Cache => {
                let host = self.refetch(url).await?;
                let v = verify(&host)?;
                Ok((v, host))
            }
            Err(e) => Err(e.into()),
        }
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, HashMap<String, CacheEntry>> {
        // The cache holds only complete entries; a panic elsewhere cannot leave one half-made.
        self.inner.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn fetch_with_source(&self, url: &str) -> Result<(Arc<DiscoveredHost>, Source), DiscoveryError> {
        let url = check_url(url, &self.inner.pinned)?;
        if let Some(entry) = self.cache().get(url.as_str()) {
            if entry.expires > Instant::now() {
                return Ok((Arc::clone(&entry.host), Source::Cache));
            }
        }
        Ok((self.fetch_from_network(&url).await?, Source::Network))
    }

    async fn fetch_from_network(&self, url: &Url) -> Result<Arc<DiscoveredHost>, DiscoveryError> {
        let (body, ttl) = self.get(url).await?;
        let host = Arc::new(parse_document(url, &body)?);
        self.remember(url, &host, ttl);
        Ok(host)
    }

    /// §2.2 rule 2: whether the operator `host`'s document names lists it back,
    /// at the very URL it was fetched from (§2.3). `false` for a host on its
    /// own well-known URL (rule 1 applies) or naming no operator. The
    /// operator's document is fetched under the same policy, uncached; one that
    /// cannot be had refuses the request rather than weakening the host's place.
    pub async fn operator_lists(&self, host: &DiscoveredHost) -> Result<bool, DiscoveryError> {
        let Some(op) = host.document.operator.as_ref() else { return Ok(false) };
        if verified_domain(&host.url).is_some() {
            return Ok(false);
        }
        let url = check_url(&format!("https://{}{WELL_KNOWN_PATH}", op.domain), &self.inner.pinned)?;
        let (body, _) = self.get(&url).await?;
        let u = || url.to_string();
        let value = schcp::json::parse(&body).map_err(|source| DiscoveryError::Malformed { url: u(), source })?;
        schcp::schema::validate(Def::Operator, &value)
            .map_err(|e| DiscoveryError::Schema { url: u(), why: e.to_string() })?;
        let doc: schcp::claims::OperatorDocument =
            serde_json::from_value(value).map_err(|e| DiscoveryError::Schema { url: u(), why: e.to_string() })?;
        Ok(doc.operator.domain.eq_ignore_ascii_case(&op.domain)
            && doc.hosts.iter().any(|h| h.id == host.host_id && h.discovery == host.url.as_str()))
    }

    /// One GET under the outbound policy: the body (at most
    /// `MAX_DOCUMENT_BYTES`) and how long `Cache-Control` lets it be kept.
    async fn get(&self, url: &Url) -> Result<(Vec<u8>, Option<Duration>), DiscoveryError> {
        let u = || url.to_string();
        let fetch_err = |source| DiscoveryError::Fetch { url: u(), source };
        let client = match url.host_str().is_some_and(outbound::config_may_vouch_for) {
            true => &self.inner.reserved,
            false => &self.inner.http,
        };
        let mut response =
            client.get(url.clone()).header(reqwest::header::ACCEPT, "application/json").send().await.map_err(|e| {
                match outbound::find_refusal(&e) {
                    // The resolver refused the name's addresses: nothing was connected to.
                    Some(refusal) => DiscoveryError::Refused { url: u(), refusal },
                    None => fetch_err(e),
                }
            })?;
        let status = response.status();
        if status.is_redirection() {
            let location =
                response.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
            return Err(DiscoveryError::Redirect { url: u(), status: status.as_u16(), location });
        }
        if status != reqwest::StatusCode::OK {
            return Err(DiscoveryError::Status { url: u(), status: status.as_u16() });
        }
        let ttl = cache_ttl(response.headers().get_all(CACHE_CONTROL).iter().filter_map(|v| v.to_str().ok()));
        if response.content_length().is_some_and(|n| n > MAX_DOCUMENT_BYTES as u64) {
            return Err(DiscoveryError::TooLarge { url: u(), limit: MAX_DOCUMENT_BYTES });
        }
        // Read in chunks and stop past the limit: Content-Length may be absent or lie.
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(fetch_err)? {
            if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(DiscoveryError::TooLarge { url: u(), limit: MAX_DOCUMENT_BYTES });
            }
            body.extend_from_slice(&chunk);
        }
        Ok((body, ttl))
    }

    fn remember(&self, url: &Url, host: &Arc<DiscoveredHost>, ttl: Option<Duration>) {
        let mut cache = self.cache();
        match ttl {
            Some(ttl) => {
                let now = Instant::now();
                if cache.len() >= MAX_CACHE_ENTRIES && !cache.contains_key(url.as_str()) {
                    cache.retain(|_, e| e.expires > now);
                    if cache.len() >= MAX_CACHE_ENTRIES {
                        if let Some(oldest) = cache.iter().min_by_key(|(_, e)| e.expires).map(|(k, _)| k.clone()) {
                            cache.remove(&oldest);
                        }
                    }
                }
                cache.insert(url.to_string(), CacheEntry { host: Arc::clone(host), expires: now + ttl });
            }
            // no-store: and whatever was cached before is stale by the host's own word.
            None => {
                cache.remove(url.as_str());
            }
        }
    }
}

/// Reads every certificate in a PEM file; a file with none is an error (a wrong
/// path in the config should not silently trust nothing extra).
fn read_pem_certs(path: &std::path::Path) -> Result<Vec<reqwest::Certificate>, DiscoveryError> {
    let err = |why: String| DiscoveryError::RootCerts { path: path.to_owned(), why };
    let pem = std::fs::read(path).map_err(|e| err(e.to_string()))?;
    let mut certs = Vec::new();
    for der in rustls_pemfile::certs(&mut pem.as_slice()) {
        let der = der.map_err(|e| err(e.to_string()))?;
        certs.push(reqwest::Certificate::from_der(&der).map_err(|e| err(e.to_string()))?);
    }
    if certs.is_empty() {
        return Err(err("no CERTIFICATE in the file".into()));
    }
    Ok(certs)
}

/// Parses and checks the URL: the outbound policy's checks of the text (§5.8), a
/// host name, no fragment.
fn check_url(raw: &str, pinned: &Pinned) -> Result<Url, DiscoveryError> {
    let invalid = |why: &str| DiscoveryError::InvalidUrl { url: raw.to_owned(), why: why.to_owned() };
    let url = Url::parse(raw).map_err(|e| invalid(&e.to_string()))?;
    outbound::check_url(&url, pinned).map_err(|refusal| DiscoveryError::Refused { url: raw.to_owned(), refusal })?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("it has no host"));
    }
    if url.fragment().is_some() {
        return Err(invalid("it has a fragment"));
    }
    if url.host_str().is_some_and(|h| h.ends_with('.')) {
        return Err(invalid("write the host name without a trailing dot"));
    }
    Ok(url)
}

/// §5.2, §2.2 rule 1: the domain a host was discovered at, when the URL is the
/// host's own well-known one; otherwise none (shown as unverified).
pub fn verified_domain(url: &Url) -> Option<String> {
    let well_known = url.scheme() == "https"
        && url.port().is_none()
        && url.path() == WELL_KNOWN_PATH
        && url.query().is_none()
        && url.fragment().is_none();
    // `domain()` is None for an IP address: an address is no name a person can check.
    url.domain().filter(|_| well_known).map(str::to_owned)
}

/// The cache lifetime `Cache-Control` allows (RFC 9111 §5.2.2): `None` for
/// `no-store`, `no-cache` and `max-age=0` (not cached), `max-age` capped at
/// `MAX_TTL`, `DEFAULT_TTL` when no directive says. An unreadable `max-age` counts
/// as 0 (RFC 9111 §4.2.1: treat as stale).
fn cache_ttl<'a>(values: impl Iterator<Item = &'a str>) -> Option<Duration> {
    let mut max_age: Option<u64> = None;
    for directive in values.flat_map(|v| v.split(',')) {
        let directive = directive.trim();
        let (name, value) = match directive.split_once('=') {
            Some((n, v)) => (n.trim(), Some(v.trim().trim_matches('"'))),
            None => (directive, None),
        };
        if name.eq_ignore_ascii_case("no-store") || name.eq_ignore_ascii_case("no-cache") {
            return None;
        }
        if name.eq_ignore_ascii_case("max-age") {
            let secs = value.and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
            // Several max-age directives: the most conservative wins.
            max_age = Some(max_age.map_or(secs, |m| m.min(secs)));
        }
    }
    match max_age {
        Some(0) => None,
        Some(secs) => Some(Duration::from_secs(secs).min(MAX_TTL)),
        None => Some(DEFAULT_TTL),
    }
}

/// Checks the bytes as a v0.4 discovery document (§2.1, §3.1).
fn parse_document(url: &Url, body: &[u8]) -> Result<DiscoveredHost, DiscoveryError> {
    let u = || url.to_string();
    // §3.1: duplicate member names are refused, so no two parsers read different keys.
    let value = schcp::json::parse(body).map_err(|source| DiscoveryError::Malformed { url: u(), source })?;
    // The version first, for a specific error (the schema would also refuse it).
    match value.get("schcp") {
        Some(serde_json::Value::String(v)) if v == schcp::VERSION => {}
        Some(other) => return Err(DiscoveryError::WrongVersion { url: u(), found: other.to_string() }),
        None => return Err(DiscoveryError::Schema { url: u(), why: "it has no \"schcp\" member".into() }),
    }
    schcp::schema::validate(Def::Discovery, &value)
        .map_err(|e| DiscoveryError::Schema { url: u(), why: e.to_string() })?;
    let document: Discovery =
        serde_json::from_value(value).map_err(|e| DiscoveryError::Schema { url: u(), why: e.to_string() })?;
    // §2.1: each kid unique in the document. (schcp's verifier also refuses an
    // ambiguous kid; refusing the document says which host is at fault, at once.)
    let mut seen = std::collections::HashSet::new();
    for key in &document.keys {
        if let Some(kid) = &key.kid {
            if !seen.insert(kid.as_str()) {
                return Err(DiscoveryError::DuplicateKid { url: u(), kid: kid.clone() });
            }
        }
    }
    Ok(DiscoveredHost {
        url: url.clone(),
        host_id: document.host.id.clone(),
        name: document.host.name.clone(),
        tz: document.host.timezone.clone(),
        domain: verified_domain(url),
        keys: document.keys.clone(),
        document,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ttl(v: &[&str]) -> Option<Duration> {
        cache_ttl(v.iter().copied())
    }

    #[test]
    fn cache_control_is_honoured_and_capped() {
        assert_eq!(ttl(&[]), Some(DEFAULT_TTL));
        assert_eq!(ttl(&["public"]), Some(DEFAULT_TTL));
        assert_eq!(ttl(&["max-age=30"]), Some(Duration::from_secs(30)));
        assert_eq!(ttl(&["public, Max-Age=\"45\""]), Some(Duration::from_secs(45)));
        assert_eq!(ttl(&["max-age=86400"]), Some(MAX_TTL));
        assert_eq!(ttl(&["max-age=0"]), None);
        assert_eq!(ttl(&["max-age=abc"]), None);
        assert_eq!(ttl(&["max-age=30", "no-store"]), None);
        assert_eq!(ttl(&["no-cache"]), None);
        assert_eq!(ttl(&["max-age=300, max-age=20"]), Some(Duration::from_secs(20)));
    }

    #[test]
    fn only_the_well_known_url_has_a_verified_domain() {
        let d = |s: &str| verified_domain(&Url::parse(s).unwrap());
        assert_eq!(
            d("https://maplestreetauto.example/.well-known/scheduling.json").as_deref(),
            Some("maplestreetauto.example")
        );
        assert_eq!(
            d("https://MapleStreetAuto.example/.well-known/scheduling.json").as_deref(),
            Some("maplestreetauto.example")
        );
        assert_eq!(
            d("https://maplestreetauto.example:443/.well-known/scheduling.json").as_deref(),
            Some("maplestreetauto.example")
        );
        assert_eq!(d("https://maplestreetauto.example:8443/.well-known/scheduling.json"), None);
        assert_eq!(d("https://platform.example/m/fades/scheduling.json"), None);
        assert_eq!(d("https://maplestreetauto.example/.well-known/scheduling.json?x=1"), None);
        assert_eq!(d("https://127.0.0.1/.well-known/scheduling.json"), None);
    }

    #[test]
    fn urls_are_checked_before_any_connection() {
        let check = |raw| check_url(raw, &Pinned::new());
        let refused = |raw| match check(raw) {
            Err(DiscoveryError::Refused { refusal, .. }) => refusal.rule(),
            other => panic!("{raw}: {other:?}"),
        };
        assert_eq!(refused("http://maplestreetauto.example/.well-known/scheduling.json"), "not_https");
        assert_eq!(refused("ftp://x.example/"), "not_https");
        assert_eq!(refused("https://u:p@x.example/"), "credentials");
        assert_eq!(refused("https://127.0.0.3:8443/"), "non_public_address");
        assert!(matches!(check("not a url"), Err(DiscoveryError::InvalidUrl { .. })));
        assert!(matches!(check("https://x.example/#f"), Err(DiscoveryError::InvalidUrl { .. })));
        assert!(matches!(check("https://x.example./"), Err(DiscoveryError::InvalidUrl { .. })));
        assert!(check("https://x.example/.well-known/scheduling.json").is_ok());
    }

    #[test]
    fn errors_map_to_the_agent_api() {
        let e = DiscoveryError::InvalidUrl { url: "x".into(), why: "no".into() }.api_error();
        assert_eq!(
            (e.status, e.code.as_str(), e.reason.as_str()),
            (StatusCode::BAD_REQUEST, "INVALID_REQUEST", "bad_discovery_url")
        );
        let e = DiscoveryError::Refused { url: "http://x".into(), refusal: Refusal::NotHttps }.api_error();
        assert_eq!(
            (e.status, e.code.as_str(), e.reason.as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, "VERIFICATION_FAILED", "discovery_url_refused")
        );
        let e = DiscoveryError::Status { url: "https://x".into(), status: 500 }.api_error();
        assert_eq!(
            (e.status, e.code.as_str(), e.reason.as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, "VERIFICATION_FAILED", "discovery_failed")
        );
        let e = DiscoveryError::WrongVersion { url: "https://x".into(), found: "\"0.3\"".into() }.api_error();
        assert_eq!(e.reason, "discovery_invalid");
        let e = DiscoveryError::Verification(schcp::Error::Jws(JwsError::UnknownKid("k".into()))).api_error();
        assert_eq!(
            (e.status, e.code.as_str(), e.reason.as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, "VERIFICATION_FAILED", "unknown_kid")
        );
    }
}
