//! The signed HTTPS client for host endpoints.

use super::calls::{Availability, AvailabilityQuery, ChangeRequest, ConfirmRequest, HoldRequest, RespondRequest};
use super::discovery::{parse_document, Host};
use super::error::{HostError, HostRefusal};
use super::outbound::{self, Pinned, PublicOnlyResolver};
use super::trust::HostTrust;
use ed25519_dalek::SigningKey;
use reqwest::{Method, StatusCode, Url};
use schcp::claims::{BookingResponse, Hold, Proposal};
use schcp::schema::Def;
use schcp::verify::ReceiptExpectations;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// Connect timeout, as the key app's discovery client.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The whole request, body included.
const TOTAL_TIMEOUT: Duration = Duration::from_secs(15);
/// Largest answer read: a discovery document or a booking is a few KiB.
const MAX_BODY_BYTES: usize = 256 * 1024;

/// An agent's client for SchCP hosts: one agent key, the outbound policy.
pub struct HostClient {
    key: SigningKey,
    http: reqwest::Client,
    pinned: Pinned,
}

impl std::fmt::Debug for HostClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostClient").finish_non_exhaustive()
    }
}

impl HostClient {
    /// A client signing with `key`, trusting the system's roots and `trust`.
    pub fn new(key: SigningKey, trust: &HostTrust) -> Result<HostClient, HostError> {
        let pinned: Pinned = trust.resolve.iter().map(|(n, a)| (n.to_ascii_lowercase(), *a)).collect();
        let mut builder = reqwest::Client::builder()
            .https_only(true)
            .tls_built_in_native_certs(true)
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(TOTAL_TIMEOUT)
            .no_proxy()
            .dns_resolver(Arc::new(PublicOnlyResolver::new(pinned.clone())))
            .user_agent(concat!("schcp-agent/", env!("CARGO_PKG_VERSION")));
        for path in &trust.extra_root_certs {
            let bad = |why: String| HostError::Trust { path: path.clone(), why };
            let pem = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
            let mut n = 0;
            for der in rustls_pemfile::certs(&mut pem.as_slice()) {
                let der = der.map_err(|e| bad(e.to_string()))?;
                builder =
                    builder.add_root_certificate(reqwest::Certificate::from_der(&der).map_err(|e| bad(e.to_string()))?);
                n += 1;
            }
            if n == 0 {
                return Err(bad("no CERTIFICATE in the file".into()));
            }
        }
        let http = builder.build().map_err(|e| HostError::Trust { path: Default::default(), why: e.to_string() })?;
        Ok(HostClient { key, http, pinned })
    }

    fn check_url(&self, raw: &str) -> Result<Url, HostError> {
        let url = Url::parse(raw).map_err(|e| HostError::BadUrl { url: raw.to_owned(), why: e.to_string() })?;
        outbound::check_url(&url, &self.pinned)
            .map_err(|refusal| HostError::UrlRefused { url: raw.to_owned(), refusal })?;
        if url.fragment().is_some() || url.host_str().is_none_or(str::is_empty) {
            return Err(HostError::BadUrl { url: raw.to_owned(), why: "it has no host, or a fragment".into() });
        }
        Ok(url)
    }

    /// Sends one request; returns the status and the body's bytes (at most
    /// [`MAX_BODY_BYTES`]).
    async fn exchange(&self, req: reqwest::RequestBuilder, url: &str) -> Result<(StatusCode, Vec<u8>), HostError> {
        let unreachable = |e: reqwest::Error| match outbound::find_refusal(&e) {
            Some(refusal) => HostError::UrlRefused { url: url.to_owned(), refusal },
            None => HostError::Unreachable { url: url.to_owned(), detail: outbound::error_chain(&e) },
        };
        let mut resp = req.send().await.map_err(unreachable)?;
        let status = resp.status();
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(unreachable)? {
            if body.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(HostError::UnexpectedAnswer { status, detail: "the answer is too large".into() });
            }
            body.extend_from_slice(&chunk);
        }
        Ok((status, body))
    }

    /// §2.1: fetches and checks the host's discovery document with a plain,
    /// unsigned GET (§3.2), under the outbound policy.
    pub async fn discover(&self, url: &str) -> Result<Host, HostError> {
        let parsed = self.check_url(url)?;
        let req = self.http.get(parsed.clone()).header(reqwest::header::ACCEPT, "application/json");
        let (status, body) = self.exchange(req, url).await?;
        if !status.is_success() {
            let why = if status.is_redirection() {
                format!("it answered {} (a redirect, which is not followed)", status.as_u16())
            } else {
                format!("it answered {}", status.as_u16())
            };
            return Err(HostError::Discovery { url: url.to_owned(), why });
        }
        parse_document(&parsed, &body)
    }

    /// One signed call to the host's endpoint (§3.2): a fresh nonce and
    /// `created`, the mandate in `SchCP-Mandate` and covered by the signature.
    async fn call(
        &self,
        host: &Host,
        method: Method,
        path: &str,
        body: Option<Value>,
        mandate: Option<&str>,
    ) -> Result<(StatusCode, Value), HostError> {
        let url = host.url_of(path);
        self.check_url(&url)?;
        let bytes = body.map(|b| serde_json::to_vec(&b).expect("JSON serializes")).unwrap_or_default();
        let created = chrono::Utc::now().timestamp();
        let presented = match mandate {
            Some(m) => Some(self.present(m, &host.host_id, created)?),
            None => None,
        };
        let headers = schcp::httpsig::sign_request(
            method.as_str(),
            &url,
            &bytes,
            presented.as_deref(),
            &self.key,
            created,
            &fresh_nonce(),
        );
        let mut req = self.http.request(method, &url).header(reqwest::header::ACCEPT, "application/json");
        for (name, value) in headers {
            req = req.header(name, value);
        }
        if !bytes.is_empty() {
            req = req.header(reqwest::header::CONTENT_TYPE, "application/json").body(bytes);
        }
        let (status, body) = self.exchange(req, &url).await?;
        let value = schcp::json::parse(&body).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into()));
        if !status.is_success() {
            return Err(HostError::Refused(Box::new(HostRefusal::from_response(status, &value))));
        }
        Ok((status, value))
    }

    /// The `SchCP-Mandate` value for one request to `host_id`: a compact
    /// mandate as it is; an SD-JWT VC presentation (§3.4: the issuer JWT and
    /// this host's disclosures, ending in `~`, as the key app hands it out per
    /// host) with a fresh Key Binding JWT by this agent's key for this host,
    /// since "Agents therefore present a fresh KB-JWT with every request".
    fn present(&self, mandate: &str, host_id: &str, now: i64) -> Result<String, HostError> {
        if !mandate.contains('~') {
            return Ok(mandate.to_owned());
        }
        if !mandate.ends_with('~') {
            // A presentation already bound: binding it again would be a second
            // KB-JWT the host refuses; this client makes its own for each call.
            return Err(HostError::BadMandate("an SD-JWT presentation is passed without its Key Binding JWT".into()));
        }
        schcp::sdjwt::key_binding_jwt(mandate, host_id, &fresh_nonce(), now, &self.key)
            .map(|kb| format!("{mandate}{kb}"))
            .map_err(|e| HostError::BadMandate(e.to_string()))
    }

    /// A success answer checked against its closed schema, then typed.
    async fn typed<T: DeserializeOwned>(
        &self,
        host: &Host,
        method: Method,
        path: &str,
        body: Option<Value>,
        mandate: Option<&str>,
        def: Option<Def>,
    ) -> Result<T, HostError> {
        let (status, value) = self.call(host, method, path, body, mandate).await?;
        if let Some(def) = def {
            schcp::schema::validate(def, &value)
                .map_err(|e| HostError::UnexpectedAnswer { status, detail: e.to_string() })?;
        }
        serde_json::from_value(value).map_err(|e| HostError::UnexpectedAnswer { status, detail: e.to_string() })
    }

    /// `POST /availability` (§5.1), signed so it can be rate-limited per
    /// agent; a mandate only where the host is contacts-only.
    pub async fn availability(
        &self,
        host: &Host,
        query: &AvailabilityQuery,
        mandate: Option<&str>,
    ) -> Result<Availability, HostError> {
        self.typed(host, Method::POST, "/availability", Some(to_value(query)), mandate, None).await
    }

    /// `POST /holds` (§5.2) under a mandate with `hold` in scope. The offer is
    /// verified against the discovery keys before the hold is returned.
    pub async fn hold(
        &self,
        host: &Host,
        mandate: &str,
        idempotency_key: &str,
        request: &HoldRequest,
    ) -> Result<Hold, HostError> {
        let body = with_key(request, idempotency_key);
        let hold: Hold = self.typed(host, Method::POST, "/holds", Some(body), Some(mandate), Some(Def::Hold)).await?;
        schcp::verify::verify_offer(&hold.offer, host.host_keys(), chrono::Utc::now().timestamp())?;
        Ok(hold)
    }

    /// `GET /holds/{id}`.
    pub async fn get_hold(&self, host: &Host, mandate: &str, hold_id: &str) -> Result<Hold, HostError> {
        let path = format!("/holds/{}", segment(hold_id)?);
        self.typed(host, Method::GET, &path, None, Some(mandate), Some(Def::Hold)).await
    }

    /// `DELETE /holds/{id}` (§5.4): idempotent.
    pub async fn release(&self, host: &Host, mandate: &str, hold_id: &str) -> Result<Hold, HostError> {
        let path = format!("/holds/{}", segment(hold_id)?);
        self.typed(host, Method::DELETE, &path, None, Some(mandate), Some(Def::Hold)).await
    }

    /// `POST /holds/{id}/confirm` (§5.3): books the hold's offer. The receipt
    /// is verified, and must name that offer and the mandate's root.
    pub async fn confirm(
        &self,
        host: &Host,
        mandate: &str,
        idempotency_key: &str,
        hold_id: &str,
        request: &ConfirmRequest,
    ) -> Result<BookingResponse, HostError> {
        let path = format!("/holds/{}/confirm", segment(hold_id)?);
        let body = with_key(request, idempotency_key);
        let expect = ReceiptExpectations { offer_sha256: Some(&request.offer_sha256), ..Default::default() };
        self.booking_call(host, Method::POST, &path, Some(body), mandate, expect).await
    }

    /// `GET /bookings/{id}` (§5.5).
    pub async fn booking(&self, host: &Host, mandate: &str, booking_id: &str) -> Result<BookingResponse, HostError> {
        let path = format!("/bookings/{}", segment(booking_id)?);
        let expect = ReceiptExpectations { booking_id: Some(booking_id), ..Default::default() };
        self.booking_call(host, Method::GET, &path, None, mandate, expect).await
    }

    /// `GET /bookings/{id}` (§5.5) as a required participant reads it
    /// (§5.10): the response exactly as served, checked (the closed
    /// BookingResponse, its receipt verified) but not rebuilt, so the key app
    /// can check every part of it itself.
    pub async fn booking_as_served(
        &self,
        host: &Host,
        mandate: Option<&str>,
        booking_id: &str,
    ) -> Result<serde_json::Map<String, Value>, HostError> {
        let path = format!("/bookings/{}", segment(booking_id)?);
        let (status, value) = self.call(host, Method::GET, &path, None, mandate).await?;
        schcp::schema::validate(Def::BookingResponse, &value)
            .map_err(|e| HostError::UnexpectedAnswer { status, detail: e.to_string() })?;
        let typed: BookingResponse = serde_json::from_value(value.clone())
            .map_err(|e| HostError::UnexpectedAnswer { status, detail: e.to_string() })?;
        let expect = ReceiptExpectations { booking_id: Some(booking_id), ..Default::default() };
        schcp::verify::verify_receipt(&typed.receipt, host.host_keys(), expect)?;
        match value {
            Value::Object(m) => Ok(m),
            _ => Err(HostError::UnexpectedAnswer { status, detail: "not an object".into() }),
        }
    }

    /// `POST /bookings/{id}/cancel` (§5.6).
    pub async fn cancel(
        &self,
        host: &Host,
        mandate: &str,
        idempotency_key: &str,
        booking_id: &str,
        reason: Option<&str>,
    ) -> Result<BookingResponse, HostError> {
        let path = format!("/bookings/{}/cancel", segment(booking_id)?);
        let mut body = serde_json::json!({ "idempotency_key": idempotency_key });
        if let Some(r) = reason {
            body["reason"] = Value::String(r.to_owned());
        }
        let expect = ReceiptExpectations { booking_id: Some(booking_id), ..Default::default() };
        self.booking_call(host, Method::POST, &path, Some(body), mandate, expect).await
    }

    /// `POST /bookings/{id}/change-offer` (§5.7 step 1): the host holds the
    /// new time and signs a change offer, verified here.
    pub async fn change_offer(
        &self,
        host: &Host,
        mandate: &str,
        idempotency_key: &str,
        booking_id: &str,
        request: &ChangeRequest,
    ) -> Result<Proposal, HostError> {
        let path = format!("/bookings/{}/change-offer", segment(booking_id)?);
        let body = with_key(request, idempotency_key);
        let p: Proposal = self.typed(host, Method::POST, &path, Some(body), Some(mandate), Some(Def::Proposal)).await?;
        schcp::verify::verify_offer(&p.offer, host.host_keys(), chrono::Utc::now().timestamp())?;
        Ok(p)
    }

    /// `POST /bookings/{id}/reschedule` (§5.7 step 2): accepts the open change
    /// offer with hash `offer_sha256` at the booking's `sequence`.
    pub async fn reschedule(
        &self,
        host: &Host,
        mandate: &str,
        idempotency_key: &str,
        booking_id: &str,
        sequence: u32,
        offer_sha256: &str,
    ) -> Result<BookingResponse, HostError> {
        let path = format!("/bookings/{}/reschedule", segment(booking_id)?);
        let body = serde_json::json!({ "idempotency_key": idempotency_key, "sequence": sequence,
                                       "offer_sha256": offer_sha256 });
        let expect = ReceiptExpectations { booking_id: Some(booking_id), ..Default::default() };
        self.booking_call(host, Method::POST, &path, Some(body), mandate, expect).await
    }

    /// `POST /bookings/{id}/respond` (§5.10): a participant's answer.
    pub async fn respond(
        &self,
        host: &Host,
        mandate: &str,
        idempotency_key: &str,
        booking_id: &str,
        request: &RespondRequest,
    ) -> Result<BookingResponse, HostError> {
        let path = format!("/bookings/{}/respond", segment(booking_id)?);
        let body = with_key(request, idempotency_key);
        let expect = ReceiptExpectations { booking_id: Some(booking_id), ..Default::default() };
        self.booking_call(host, Method::POST, &path, Some(body), mandate, expect).await
    }

    /// An operation that returns a booking (§5.3): the closed BookingResponse,
    /// its receipt verified, the receipt's and booking's hashes equal.
    async fn booking_call(
        &self,
        host: &Host,
        method: Method,
        path: &str,
        body: Option<Value>,
        mandate: &str,
        expect: ReceiptExpectations<'_>,
    ) -> Result<BookingResponse, HostError> {
        let r: BookingResponse =
            self.typed(host, method, path, body, Some(mandate), Some(Def::BookingResponse)).await?;
        let receipt = schcp::verify::verify_receipt(&r.receipt, host.host_keys(), expect)?;
        if receipt.claims.booking.booking_id != r.booking.booking_id
            || receipt.claims.booking.offer_sha256 != r.booking.offer_sha256
        {
            return Err(HostError::UnexpectedAnswer {
                status: StatusCode::OK,
                detail: "the receipt is not of the booking returned with it".into(),
            });
        }
        Ok(r)
    }
}

/// 128 random bits, base64url: a §3.2 nonce, or a KB-JWT's (§3.4).
fn fresh_nonce() -> String {
    let mut nonce = [0u8; 16];
    rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut nonce);
    schcp::b64::encode(nonce)
}

fn to_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("a typed body serializes")
}

fn with_key<T: Serialize>(v: &T, idempotency_key: &str) -> Value {
    let mut body = to_value(v);
    if let Value::Object(m) = &mut body {
        m.insert("idempotency_key".into(), Value::String(idempotency_key.to_owned()));
    }
    body
}

/// A host's ids (`h_…`, `b_…`) go into paths: anything that could change the
/// path is refused before it is sent.
fn segment(id: &str) -> Result<&str, HostError> {
    if !id.is_empty() && id.len() <= 128 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        Ok(id)
    } else {
        Err(HostError::BadId(id.chars().take(64).collect()))
    }
}
