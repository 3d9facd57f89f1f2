//! A SchCP test and example host: Maple Street Auto (spec §2.1) on HTTPS.
//!
//! `TestHost::start` serves the host's discovery document over TLS on a local port,
//! with a certificate for `maplestreetauto.example` from a CA made for this host alone
//! (`ca_pem`). A client reaches it by trusting that CA and pinning the name to the
//! port, exactly as the key app's `[discovery]` config does (`extra_root_certs`,
//! `resolve`, README "Configuration"), so the client under test runs with full certificate
//! checking and no test-only switch.
//!
//! It also signs what a host signs: booking and change offers (§5.2, §5.7) and
//! receipts (§5.3) with its Ed25519 discovery key (kid `msa-2026-10`), can rotate that
//! key (§2.1: a verifier refetches discovery for a kid it does not know), and can be
//! told to misbehave on the discovery route (status codes, redirects, oversize or
//! malformed bodies, `Cache-Control` values) so a client's refusals can be tested.
//!
//! It serves discovery and the bookings it was given at `GET {endpoint}/bookings/{id}`
//! (§5.5), unsigned, so a required participant's agent can read the booking it is
//! invited to (§5.10); a read that presents a mandate has it checked as §5.5 and
//! §3.3 "Constraints bind reads too" say (`endpoint::read_booking`), and it
//! takes `POST {endpoint}/bookings/{id}/respond` (§5.10) with the request signature, the mandate and the answer checked (`respond`). Its
//! endpoint (`endpoint.rs`) also takes availability, holds, confirm, cancel, change
//! offers and reschedule for the oil change, each request signed (§3.2) under a
//! mandate checked as §3.3 says, so an agent can be tested end to end.
#![forbid(unsafe_code)]

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use ed25519_dalek::SigningKey;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE, LOCATION, TRANSFER_ENCODING};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use schcp::claims::{Approved, BookingResponse, BookingStatus, EventStatus, OfferClaims, Participant, ReceiptClaims};
use schcp::jwk::Jwk;
use schcp::jws::{HeaderExtras, Typ};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

mod claims;
mod endpoint;
mod respond;
mod status_claims;
mod tls;

pub use claims::{OFFER_LIFETIME, SPEC_SLOT_END, SPEC_SLOT_START};
pub use status_claims::{send as send_status_request, Signing, StatusRequest, StatusSendError};

/// The path of a host's own discovery document (§2.1).
pub const WELL_KNOWN_PATH: &str = "/.well-known/scheduling.json";

/// Where bookings are served, under the discovery document's endpoint (§2.1, §5.5).
const BOOKINGS_PATH: &str = "/schcp/v0/bookings";

/// How the test host is set up. `Default` is Maple Street Auto of §2.1 on
/// `127.0.0.1` with a port the system picks.
#[derive(Debug, Clone)]
pub struct TestHostConfig {
    /// Where to listen. Port 0 picks a free port (`TestHost::addr` says which).
    pub listen: SocketAddr,
    /// The host name in the certificate and the discovery URL.
    pub domain: String,
    pub host_id: String,
    pub name: String,
    /// IANA time zone (`host.timezone`, offers' `host.tz`).
    pub tz: String,
    /// The kid of the first signing key.
    pub kid: String,
    /// A fixed seed for the first signing key, for reproducible signatures; a
    /// random key when `None`.
    pub signing_seed: Option<[u8; 32]>,
    /// The operator the document names (`"operator": {"domain": …}`, §2.2 rule 2);
    /// `null` when `None`.
    pub operator: Option<String>,
    /// The attesters whose attestations the host honours (§7.5
    /// `trust.attesters`); the document has no `trust` when empty.
    pub attesters: Vec<schcp::claims::Attester>,
}

impl Default for TestHostConfig {
    fn default() -> Self {
        TestHostConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            domain: "maplestreetauto.example".into(),
            host_id: "maple-street-auto".into(),
            name: "Maple Street Auto".into(),
            tz: "America/Toronto".into(),
            kid: "msa-2026-10".into(),
            signing_seed: None,
            operator: None,
            attesters: Vec::new(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TestHostError {
    #[error("cannot listen: {0}")]
    Io(#[from] std::io::Error),
    #[error("certificate: {0}")]
    Certificate(#[from] rcgen::Error),
    #[error("TLS configuration: {0}")]
    Tls(#[from] rustls::Error),
    #[error("signing: {0}")]
    Jws(#[from] schcp::jws::JwsError),
    #[error("claims: {0}")]
    DateTime(#[from] schcp::datetime::DateTimeError),
    #[error("claims: {0}")]
    Claims(String),
    #[error("no key with kid {0:?}")]
    UnknownKid(String),
}

/// What the discovery routes answer. Set with `TestHost::set_response`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum DiscoveryResponse {
    /// `200` with the current document (the normal case).
    #[default]
    Document,
    /// This status with a short text body.
    Status(u16),
    /// A redirect (`status` 301, 302, 307 or 308) to `location`.
    Redirect { status: u16, location: String },
    /// `200` with exactly these bytes as `application/json` (for malformed documents:
    /// duplicate members, another version, duplicate kids).
    Body(Vec<u8>),
    /// `200` with the current document padded to at least this many bytes by an
    /// extra member (still valid JSON: only its size is wrong), with a
    /// `Content-Length` that says so.
    Oversize(usize),
    /// The same padded document sent chunked, without `Content-Length`: a client
    /// has to count as it reads.
    OversizeChunked(usize),
}

struct HostKey {
    kid: String,
    key: SigningKey,
}

struct State {
    /// Every published key, in publication order. `signing` indexes the one used.
    keys: Vec<HostKey>,
    signing: usize,
    response: DiscoveryResponse,
    cache_control: Option<String>,
    /// What `GET {endpoint}/bookings/{id}` serves, by booking id (§5.5).
    bookings: std::collections::BTreeMap<String, BookingResponse>,
    /// An operator document (§2.3) served at the well-known path instead of
    /// the host's own, as an operator's domain serves it.
    operator_document: Option<Value>,
    /// Respond's stored answers (§9.1).
    answers: respond::Answers,
}

struct Shared {
    config: TestHostConfig,
    state: Mutex<State>,
    /// Requests for a discovery document, whatever was answered.
    discovery_requests: AtomicUsize,
    /// TCP connections accepted (before TLS).
    connections: AtomicUsize,
    next_id: AtomicU64,
    /// §3.2's replay memory for signed requests (respond).
    nonces: respond::Nonces,
    /// The SchCP endpoint's holds and bookings (`endpoint`).
    endpoint: endpoint::Endpoint,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves nothing half-updated worth refusing.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn document(&self) -> Value {
        let state = self.state();
        let keys: Vec<Jwk> = state.keys.iter().map(|k| public_jwk(&k.kid, &k.key)).collect();
        claims::discovery_document(&self.config, &keys)
    }
}

fn public_jwk(kid: &str, key: &SigningKey) -> Jwk {
    let mut jwk = Jwk::ed25519(&key.verifying_key());
    jwk.kid = Some(kid.to_owned());
    jwk.use_ = Some("sig".into());
    jwk
}

fn random_key() -> SigningKey {
    SigningKey::generate(&mut rand_core::OsRng)
}

/// A running test host. Stops serving when dropped.
pub struct TestHost {
    shared: Arc<Shared>,
    addr: SocketAddr,
    ca_pem: String,
    server: JoinHandle<()>,
}

impl Drop for TestHost {
    fn drop(&mut self) {
        // Aborting the accept loop drops its JoinSet, which aborts every connection.
        self.server.abort();
    }
}

impl TestHost {
    /// Starts the host; panics if it cannot (a test helper: there is nothing to
    /// recover). Must be called inside a Tokio runtime.
    pub async fn start(config: TestHostConfig) -> TestHost {
        match TestHost::try_start(config).await {
            Ok(host) => host,
            Err(e) => panic!("test host did not start: {e}"),
        }
    }

    /// Starts the host: a fresh CA and server certificate, the listener, and the
    /// accept loop on the current Tokio runtime.
    pub async fn try_start(config: TestHostConfig) -> Result<TestHost, TestHostError> {
        let tls = tls::make(&config.domain)?;
        let listener = TcpListener::bind(config.listen).await?;
        let addr = listener.local_addr()?;
        let key = match config.signing_seed {
            Some(seed) => SigningKey::from_bytes(&seed),
            None => random_key(),
        };
        let state = State {
            keys: vec![HostKey { kid: config.kid.clone(), key }],
            signing: 0,
            response: DiscoveryResponse::Document,
            cache_control: None,
            bookings: std::collections::BTreeMap::new(),
            operator_document: None,
            answers: respond::Answers::default(),
        };
        let shared = Arc::new(Shared {
            config,
            state: Mutex::new(state),
            discovery_requests: AtomicUsize::new(0),
            connections: AtomicUsize::new(0),
            next_id: AtomicU64::new(1),
            nonces: respond::Nonces::default(),
            endpoint: endpoint::Endpoint::default(),
        });
        let acceptor = tokio_rustls::TlsAcceptor::from(tls.server_config);
        let server = tokio::spawn(serve(listener, acceptor, Arc::clone(&shared)));
        Ok(TestHost { shared, addr, ca_pem: tls.ca_pem, server })
    }

    /// The PEM of the CA that signed the host's certificate: the one root a client
    /// needs (`extra_root_certs`).
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// The socket the host listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The host name its certificate is for (`maplestreetauto.example`).
    pub fn domain(&self) -> &str {
        &self.shared.config.domain
    }

    pub fn host_id(&self) -> &str {
        &self.shared.config.host_id
    }

    pub fn config(&self) -> &TestHostConfig {
        &self.shared.config
    }

    /// `https://maplestreetauto.example/.well-known/scheduling.json`: reach it with
    /// `resolve()` (the name is not in DNS).
    pub fn discovery_url(&self) -> String {
        format!("https://{}{WELL_KNOWN_PATH}", self.shared.config.domain)
    }

    /// The same document at a path that is not the well-known one, as an operator
    /// publishes a host without its own domain (§2.1, §2.3).
    pub fn operator_url(&self) -> String {
        format!("https://{}/m/{}/scheduling.json", self.shared.config.domain, self.shared.config.host_id)
    }

    /// Another path on the same origin that also serves the document: a redirect
    /// target for tests.
    pub fn moved_url(&self) -> String {
        format!("https://{}/moved/scheduling.json", self.shared.config.domain)
    }

    /// The `resolve` entry a client needs: the domain and this host's address (like
    /// `curl --resolve`).
    pub fn resolve(&self) -> (String, SocketAddr) {
        (self.shared.config.domain.clone(), self.addr)
    }

    /// The two `[discovery]` settings a key app needs to reach this host: the CA
    /// file (`ca_file`, holding `ca_pem()`) among its roots, and the host's name
    /// pinned to its address (the name is not in DNS).
    pub fn trust_toml(&self, ca_file: &str) -> String {
        let (name, addr) = self.resolve();
        format!(
            "extra_root_certs = [{}]\nresolve = {{ {} = {} }}\n",
            toml_string(ca_file),
            toml_string(&name),
            toml_string(&addr.to_string())
        )
    }

    /// A whole key app configuration for a test beside this host: records in
    /// `dir/data`, English, both listeners on free loopback ports, and this host
    /// trusted (its CA written to `dir/ca.pem`).
    pub fn keyapp_test_config(&self, dir: &std::path::Path) -> std::io::Result<String> {
        let ca = dir.join("ca.pem");
        std::fs::write(&ca, self.ca_pem())?;
        Ok(format!(
            "data_dir = {data}\nlocale = \"en\"\n\
             [agent_api]\nlisten = \"127.0.0.1:0\"\n\
             [status_api]\nlisten = \"127.0.0.1:0\"\npublic_base = \"https://keyapp.example\"\n\
             [discovery]\n{trust}",
            data = toml_string(&dir.join("data").display().to_string()),
            trust = self.trust_toml(&ca.display().to_string()),
        ))
    }

    /// The discovery document as currently served (§2.1).
    pub fn document(&self) -> Value {
        self.shared.document()
    }

    /// Serves `document` (an operator document, §2.3) at the well-known path from
    /// now on, as an operator's domain does; the host's own document stays at
    /// `operator_url()`. `None` serves the host's document there again.
    pub fn serve_operator_document(&self, document: Option<Value>) {
        self.shared.state().operator_document = document;
    }

    /// An operator document (§2.3) for this host's domain that lists this host at
    /// `operator_url()`, with no domain of its own.
    pub fn operator_listing(&self) -> Value {
        serde_json::json!({
            "schcp": schcp::VERSION,
            "operator": { "name": "Example Booking Platform", "domain": self.shared.config.domain },
            "hosts": [ { "id": self.shared.config.host_id, "discovery": self.operator_url(), "host_domain": null } ]
        })
    }

    /// What the discovery routes answer from now on.
    pub fn set_response(&self, response: DiscoveryResponse) {
        self.shared.state().response = response;
    }

    /// The `Cache-Control` value sent with discovery documents; none when `None`.
    pub fn set_cache_control(&self, value: Option<&str>) {
        self.shared.state().cache_control = value.map(str::to_owned);
    }

    /// Back to serving the document with no `Cache-Control`.
    pub fn reset(&self) {
        let mut state = self.shared.state();
        state.response = DiscoveryResponse::Document;
        state.cache_control = None;
    }

    /// How many requests for a discovery document the host has received.
    pub fn discovery_requests(&self) -> usize {
        self.shared.discovery_requests.load(Ordering::SeqCst)
    }

    /// How many TCP connections the host has accepted (TLS or not).
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }

    /// The kid offers and receipts are signed with now.
    pub fn current_kid(&self) -> String {
        let state = self.shared.state();
        state.keys[state.signing].kid.clone()
    }

    /// The published keys' JWKs.
    pub fn keys(&self) -> Vec<Jwk> {
        self.shared.state().keys.iter().map(|k| public_jwk(&k.kid, &k.key)).collect()
    }

    /// Rotates to a new random key with `kid`: it is published and signs from now on.
    /// The old keys stay published (a rotation overlap) until `retire_key`. Returns
    /// the new public JWK.
    pub fn rotate_key(&self, kid: &str) -> Jwk {
        let mut state = self.shared.state();
        let key = random_key();
        let jwk = public_jwk(kid, &key);
        match state.keys.iter().position(|k| k.kid == kid) {
            Some(i) => {
                state.keys[i].key = key;
                state.signing = i;
            }
            None => {
                state.keys.push(HostKey { kid: kid.to_owned(), key });
                state.signing = state.keys.len() - 1;
            }
        }
        jwk
    }

    /// Stops publishing the key with `kid`. The signing key cannot be retired.
    pub fn retire_key(&self, kid: &str) -> Result<(), TestHostError> {
        let mut state = self.shared.state();
        let i =
            state.keys.iter().position(|k| k.kid == kid).ok_or_else(|| TestHostError::UnknownKid(kid.to_owned()))?;
        if i == state.signing {
            return Err(TestHostError::Claims("the signing key cannot be retired".into()));
        }
        state.keys.remove(i);
        if state.signing > i {
            state.signing -= 1;
        }
        Ok(())
    }

    /// Signs any claims as `typ` with the current key and its kid.
    pub fn sign<C: serde::Serialize + ?Sized>(&self, typ: Typ, claims: &C) -> Result<String, TestHostError> {
        let state = self.shared.state();
        let key = &state.keys[state.signing];
        let extras = HeaderExtras { kid: Some(key.kid.clone()), jwk: None };
        Ok(schcp::jws::sign(typ, extras, claims, &key.key)?)
    }

    /// Signs with the current key but names `kid` in the header: a kid the discovery
    /// document may not have (§2.1: such a JWS is refused).
    pub fn sign_with_kid<C: serde::Serialize + ?Sized>(
        &self,
        typ: Typ,
        claims: &C,
        kid: &str,
    ) -> Result<String, TestHostError> {
        let state = self.shared.state();
        let extras = HeaderExtras { kid: Some(kid.to_owned()), jwk: None };
        Ok(schcp::jws::sign(typ, extras, claims, &state.keys[state.signing].key)?)
    }

    fn next_id(&self, prefix: &str) -> String {
        format!("{prefix}{:06}", self.shared.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// The spec's priced offer (§5.2) on a fresh hold, issued at `now` and valid for
    /// `OFFER_LIFETIME` seconds. Change any member before signing for a variant.
    pub fn priced_offer(&self, now: i64) -> OfferClaims {
        claims::priced_offer(&self.shared.config, self.next_id("h_"), now)
    }

    /// An unpriced, open-ended offer (§4.2): no price, total or lines; a start only.
    pub fn open_ended_offer(&self, now: i64) -> OfferClaims {
        claims::open_ended_offer(&self.shared.config, self.next_id("h_"), now)
    }

    /// A change offer (§5.7) for `booking_id`, whose current contract hashes to `prev`.
    pub fn change_offer(&self, booking_id: &str, prev: &str, now: i64) -> OfferClaims {
        claims::change_offer(&self.shared.config, booking_id, prev, now)
    }

    /// Signs an offer (`schcp-offer+jwt`).
    pub fn sign_offer(&self, offer: &OfferClaims) -> Result<String, TestHostError> {
        self.sign(Typ::Offer, offer)
    }

    /// The spec's priced offer, signed: the compact JWS an agent would hand in.
    pub fn offer(&self, now: i64) -> String {
        self.sign_offer(&self.priced_offer(now)).expect("signing a well-formed offer")
    }

    /// Receipt claims (§5.3) for a booking made on `offer` (compact JWS), approved as
    /// `approved` under the root mandate `mandate`: `booking_id` is fresh, or the
    /// offer's own for a change offer.
    pub fn receipt_claims(
        &self,
        offer: &str,
        mandate: &str,
        approved: Approved,
        now: i64,
    ) -> Result<ReceiptClaims, TestHostError> {
        claims::receipt(&self.shared.config, offer, self.next_id("b_"), mandate, approved, now)
    }

    /// Signs a receipt (`schcp-receipt+jwt`).
    pub fn sign_receipt(&self, receipt: &ReceiptClaims) -> Result<String, TestHostError> {
        self.sign(Typ::Receipt, receipt)
    }

    /// A tentative booking made on `offer` (a fresh booking, or the offer's own for a
    /// change offer) under the booker's root mandate `mandate`, naming `participants`
    /// (§5.10): the booking, its host-signed receipt and its contract, as
    /// `GET /bookings/{id}` returns them (§5.5). It is served from now on.
    pub fn tentative_booking(
        &self,
        offer: &str,
        mandate: &str,
        participants: Vec<Participant>,
        now: i64,
    ) -> Result<BookingResponse, TestHostError> {
        let mut claims = self.receipt_claims(offer, mandate, Approved::Offer, now)?;
        // §5.10: "Until every required participant has [accepted], the booking is tentative."
        claims.booking.status = BookingStatus::Tentative;
        claims.booking.event.status = EventStatus::Tentative;
        claims.booking.participants = Some(participants);
        let receipt = self.sign_receipt(&claims)?;
        let response = BookingResponse {
            booking: claims.booking,
            receipt,
            offer: Some(offer.to_owned()),
            contract: None,
            pending_contract: None,
        };
        self.serve_booking(response.clone());
        Ok(response)
    }

    /// Serves `response` at `GET {endpoint}/bookings/{its booking id}` (§5.5),
    /// replacing what was served for that booking.
    pub fn serve_booking(&self, response: BookingResponse) {
        self.shared.state().bookings.insert(response.booking.booking_id.clone(), response);
    }

    /// The booking `booking_id` as it is served now (after any answers), if it is.
    pub fn served_booking(&self, booking_id: &str) -> Option<BookingResponse> {
        self.shared.state().bookings.get(booking_id).cloned()
    }

    /// Where the booking `booking_id` is served: `https://{domain}/schcp/v0/bookings/{id}`.
    pub fn booking_url(&self, booking_id: &str) -> String {
        format!("https://{}{}/{booking_id}", self.shared.config.domain, BOOKINGS_PATH)
    }

    /// The attester whose pool hold `hold_id` counts against (§7.5
    /// `max_active_per_attester`): the first attestation of its mandate the
    /// host honoured. `None` for a hold in the new-guest pool, or no such hold.
    pub fn vouched_by(&self, hold_id: &str) -> Option<String> {
        self.shared.endpoint.vouched_by(hold_id)
    }

    /// Lets every live hold of the endpoint lapse now, so confirming it is
    /// refused as expired (§5.3: "the hold not expired").
    pub fn expire_holds(&self) {
        self.shared.endpoint.expire_holds();
    }

    /// A signed receipt for a booking made on `offer` under `mandate`.
    pub fn receipt(&self, offer: &str, mandate: &str, approved: Approved, now: i64) -> Result<String, TestHostError> {
        self.sign_receipt(&self.receipt_claims(offer, mandate, approved, now)?)
    }
}

/// Accepts connections until aborted. Each connection is TLS, then HTTP/1.1.
async fn serve(listener: TcpListener, acceptor: tokio_rustls::TlsAcceptor, shared: Arc<Shared>) {
    let mut connections = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let tcp = match accepted {
                    Ok((tcp, _)) => tcp,
                    Err(_) => {
                        // Out of descriptors or similar: back off instead of spinning.
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                        continue;
                    }
                };
                shared.connections.fetch_add(1, Ordering::SeqCst);
                let acceptor = acceptor.clone();
                let shared = Arc::clone(&shared);
                connections.spawn(async move {
                    // A failed handshake (a client that does not trust the CA) is
                    // expected in tests: drop the connection.
                    let Ok(tls) = acceptor.accept(tcp).await else { return };
                    let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                        let shared = Arc::clone(&shared);
                        async move {
                            // The SchCP operations (endpoint.rs) read a body; an
                            // invitation's answer (respond) too; discovery does not.
                            let with_mandate = req.headers().contains_key("schcp-mandate");
                            let response = if endpoint::owns(&shared, req.method(), req.uri().path(), with_mandate) {
                                endpoint::handle(&shared, req).await
                            } else {
                                route(&shared, req).await
                            };
                            Ok::<_, Infallible>(response)
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

fn response(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = status;
    r.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

/// The largest respond body read; a larger one is refused unread.
const MAX_BODY: usize = 64 * 1024;

/// `POST …/bookings/{id}/respond` (§5.10) reads its body; every other route is `handle`'s.
async fn route(shared: &Shared, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let respond_id = req
        .uri()
        .path()
        .strip_prefix(BOOKINGS_PATH)
        .and_then(|rest| rest.strip_prefix('/'))
        .and_then(|rest| rest.strip_suffix("/respond"))
        .map(str::to_owned);
    let Some(booking_id) = respond_id.filter(|_| req.method() == Method::POST) else {
        return handle(shared, &req);
    };
    let (parts, body) = req.into_parts();
    let limited = http_body_util::Limited::new(body, MAX_BODY);
    let Ok(collected) = http_body_util::BodyExt::collect(limited).await else {
        return json_response(respond::too_large());
    };
    let body = collected.to_bytes();
    let headers: Vec<(String, Vec<u8>)> =
        parts.headers.iter().map(|(n, v)| (n.as_str().to_owned(), v.as_bytes().to_vec())).collect();
    // §3.2: the URL the agent addressed, from the host's own origin, never the Host header.
    let target_uri = format!("https://{}{}", shared.config.domain, parts.uri.path());
    let r = respond::Respond {
        host_id: &shared.config.host_id,
        req: schcp::httpsig::RequestParts { method: "POST", target_uri: &target_uri, headers, body: &body },
        now: chrono::Utc::now().timestamp(),
    };
    let answer = {
        let mut state = shared.state();
        let state = &mut *state;
        let key = &state.keys[state.signing];
        let sign = |claims: &ReceiptClaims| {
            let extras = HeaderExtras { kid: Some(key.kid.clone()), jwk: None };
            schcp::jws::sign(Typ::Receipt, extras, claims, &key.key).map_err(|e| e.to_string())
        };
        respond::respond(&r, &booking_id, &mut state.bookings, &shared.nonces, &mut state.answers, sign)
    };
    json_response(answer)
}

fn json_response((status, body): respond::Answer) -> Response<Full<Bytes>> {
    let mut r = response(status, "application/json", serde_json::to_vec(&body).unwrap_or_default());
    r.headers_mut().insert("schcp-version", HeaderValue::from_static("0.4"));
    r
}

fn handle(shared: &Shared, req: &Request<Incoming>) -> Response<Full<Bytes>> {
    let cfg = &shared.config;
    let path = req.uri().path();
    let operator_path = format!("/m/{}/scheduling.json", cfg.host_id);
    let is_discovery = path == WELL_KNOWN_PATH || path == operator_path || path == "/moved/scheduling.json";
    if let Some(id) = path.strip_prefix(BOOKINGS_PATH).and_then(|rest| rest.strip_prefix('/')) {
        return booking_response(shared, req, id);
    }
    if !is_discovery {
        return response(StatusCode::NOT_FOUND, "text/plain", "not found\n");
    }
    if req.method() != Method::GET {
        return response(StatusCode::METHOD_NOT_ALLOWED, "text/plain", "GET only\n");
    }
    shared.discovery_requests.fetch_add(1, Ordering::SeqCst);
    let (behaviour, cache_control) = {
        let state = shared.state();
        (state.response.clone(), state.cache_control.clone())
    };
    let operator_document = shared.state().operator_document.clone().filter(|_| path == WELL_KNOWN_PATH);
    let mut r = match behaviour {
        DiscoveryResponse::Document => document_response(operator_document.unwrap_or_else(|| shared.document())),
        DiscoveryResponse::Status(code) => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            response(status, "text/plain", format!("{status}\n"))
        }
        DiscoveryResponse::Redirect { status, location } => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::FOUND);
            let mut r = response(status, "text/plain", "moved\n");
            if let Ok(v) = HeaderValue::from_str(&location) {
                r.headers_mut().insert(LOCATION, v);
            }
            r
        }
        DiscoveryResponse::Body(bytes) => response(StatusCode::OK, "application/json", bytes),
        DiscoveryResponse::Oversize(size) => document_response(padded(shared.document(), size)),
        DiscoveryResponse::OversizeChunked(size) => {
            let mut r = document_response(padded(shared.document(), size));
            // hyper sends a body chunked, and no Content-Length, when told so.
            r.headers_mut().insert(TRANSFER_ENCODING, HeaderValue::from_static("chunked"));
            r
        }
    };
    // §3.1: every response serving a discovery document carries SchCP-Version.
    r.headers_mut().insert("schcp-version", HeaderValue::from_static("0.4"));
    if let Some(cc) = cache_control.and_then(|v| HeaderValue::from_str(&v).ok()) {
        r.headers_mut().insert(CACHE_CONTROL, cc);
    }
    r
}

/// `GET /bookings/{id}` (§5.5): the booking as it was given to `serve_booking`;
/// unsigned, and so unchecked. A read under a mandate is the endpoint's
/// (`endpoint::owns`), which checks the reader and the mandate's `bookings`.
fn booking_response(shared: &Shared, req: &Request<Incoming>, id: &str) -> Response<Full<Bytes>> {
    if req.method() != Method::GET {
        return response(StatusCode::METHOD_NOT_ALLOWED, "text/plain", "GET only\n");
    }
    let found = shared.state().bookings.get(id).cloned();
    let mut r = match found {
        Some(b) => response(StatusCode::OK, "application/json", serde_json::to_vec(&b).unwrap_or_default()),
        None => response(StatusCode::NOT_FOUND, "text/plain", "no such booking\n"),
    };
    r.headers_mut().insert("schcp-version", HeaderValue::from_static("0.4"));
    r
}

fn padded(mut doc: Value, size: usize) -> Value {
    doc["padding"] = Value::String("x".repeat(size));
    doc
}

fn document_response(doc: Value) -> Response<Full<Bytes>> {
    let body = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    response(StatusCode::OK, "application/json", body)
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
