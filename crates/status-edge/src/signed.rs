//! Signed claims and releases (an extension of §3.3; docs/agent-api.md
//! "Signed claims"): a host may sign `POST …/claims` and `DELETE
//! …/claims/{claim_id}` with a key of its discovery document, in the §3.2
//! profile as a host signs a webhook (§5.8), its public key in
//! `SchCP-Host-Key`. A claim made signed is then given back only by a release
//! its host signed, so an agent that knows a jti and its own hold ids cannot
//! release a host's claim and book once more.
//!
//! This module checks the signature itself and nothing stored: whether its
//! key is the claiming host's is [`crate::claims::check_signer`] against the
//! thumbprints the key app recorded; spending the nonce is each service's
//! (in memory for the key app, in the database for the hosted service, whose
//! processes share it).

use crate::claims::{ClaimId, ClaimRefusal};
use crate::edge::Edge;
use crate::http_error::ApiError;
use axum::http::{HeaderMap, Method, Uri};
use schcp::httpsig::{self, RequestParts, SigError};

/// A host's signature that verified: whose key, and the nonce to spend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimant {
    /// The RFC 7638 thumbprint of the key that signed (= `keyid`).
    pub thumbprint: String,
    /// The nonce, spent by the service once the key is known to be the host's.
    pub nonce: String,
    /// Until when (unix seconds) the (thumbprint, nonce) pair is remembered.
    pub remember_until: i64,
}

/// The parts of a claim or release its signature covers.
#[derive(Debug, Clone, Copy)]
pub struct ClaimRequest<'a> {
    pub method: &'a Method,
    pub uri: &'a Uri,
    pub headers: &'a HeaderMap,
    /// The body's exact bytes (empty for a release).
    pub body: &'a [u8],
}

/// Whether the request carries any part of a signature. One that carries a
/// part is checked as signed, so a half-signed request is refused, never
/// taken as unsigned.
fn is_signed(headers: &HeaderMap) -> bool {
    [httpsig::SIGNATURE_INPUT, httpsig::SIGNATURE, httpsig::HOST_KEY].iter().any(|h| headers.contains_key(*h))
}

/// The claimant of a claim or release: `None` for an unsigned request (the
/// spec's default), the verified signer for a signed one.
///
/// The signature is checked against each URL the host may have addressed
/// ([`Edge::target_uris`]), at `now`, refusing one created before the
/// service's replay memory `began`. `SchCP-Host`, when sent, must name the
/// claim id's host. Nothing is spent or written here.
pub fn claimant(
    edge: &Edge,
    request: ClaimRequest<'_>,
    claim: &ClaimId,
    now: i64,
    began: Option<i64>,
) -> Result<Option<Claimant>, ApiError> {
    let ClaimRequest { method, uri, headers, body } = request;
    if !is_signed(headers) {
        return Ok(None);
    }
    let raw: Vec<(String, Vec<u8>)> =
        headers.iter().map(|(n, v)| (n.as_str().to_owned(), v.as_bytes().to_vec())).collect();
    let mut first_error: Option<SigError> = None;
    for target in edge.target_uris(headers, uri) {
        let req = RequestParts { method: method.as_str(), target_uri: &target, headers: raw.clone(), body };
        match httpsig::verify_unspent(&req, httpsig::HOST_KEY, now, began) {
            Ok(v) => {
                check_named_host(headers, claim)?;
                let remember_until = v.remember_until();
                return Ok(Some(Claimant { thumbprint: v.jkt, nonce: v.nonce, remember_until }));
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    let e = first_error.unwrap_or_else(|| SigError::Bad("no public URL to check @target-uri against (§3.2)".into()));
    Err(ApiError::signature(&e))
}

/// `SchCP-Host` (§5.8), when sent, names the host whose claim id it is.
fn check_named_host(headers: &HeaderMap, claim: &ClaimId) -> Result<(), ApiError> {
    let mut named = headers.get_all(httpsig::HOST).iter();
    match (named.next(), named.next()) {
        (None, _) => Ok(()),
        (Some(v), None) if v.as_bytes() == claim.host().as_bytes() => Ok(()),
        (Some(v), _) => Err(ApiError::from(&ClaimRefusal::SignerNotNamed {
            named: String::from_utf8_lossy(v.as_bytes()).into_owned(),
            host: claim.host().to_owned(),
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::StatusOptions;
    use axum::http::{HeaderName, HeaderValue, StatusCode};
    use ed25519_dalek::SigningKey;

    const NOW: i64 = 1_792_000_000;

    fn edge() -> std::sync::Arc<Edge> {
        Edge::new(StatusOptions { public_base: Some("https://keyapp.example".into()), ..StatusOptions::default() })
    }

    fn headers(pairs: Vec<(String, String)>, host: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(axum::http::header::HOST, HeaderValue::from_str(host).unwrap());
        for (n, v) in pairs {
            h.append(
                HeaderName::from_bytes(n.to_ascii_lowercase().as_bytes()).unwrap(),
                HeaderValue::from_str(&v).unwrap(),
            );
        }
        h
    }

    fn req(headers: &HeaderMap) -> ClaimRequest<'_> {
        static URI: std::sync::OnceLock<Uri> = std::sync::OnceLock::new();
        let uri = URI.get_or_init(|| Uri::from_static("/status/m/claims/maple-street-auto/h_1"));
        ClaimRequest { method: &Method::DELETE, uri, headers, body: b"" }
    }

    fn nonce(i: u8) -> String {
        schcp::b64::encode([i; 16])
    }

    #[test]
    fn unsigned_is_none_signed_is_checked_against_either_url() {
        let e = edge();
        let claim = ClaimId::parse("maple-street-auto/h_1").unwrap();
        let key = SigningKey::from_bytes(&[3; 32]);
        let c = claimant(&e, req(&headers(vec![], "keyapp.example")), &claim, NOW, None);
        assert_eq!(c.unwrap(), None);
        for (url, host) in [
            ("https://keyapp.example/status/m/claims/maple-street-auto/h_1", "keyapp.example"),
            ("http://127.0.0.1:7412/status/m/claims/maple-street-auto/h_1", "127.0.0.1:7412"),
        ] {
            let signed = httpsig::sign_host_request("DELETE", url, b"", "maple-street-auto", &key, NOW, &nonce(1));
            let got = claimant(&e, req(&headers(signed, host)), &claim, NOW, None).unwrap().unwrap();
            assert_eq!(got.thumbprint, schcp::jwk::Jwk::ed25519(&key.verifying_key()).thumbprint().unwrap());
            assert_eq!(got.remember_until, NOW + httpsig::NONCE_MEMORY_SECS);
        }
        // A loopback URL does not verify when the request named the public host.
        let url = "http://127.0.0.1:7412/status/m/claims/maple-street-auto/h_1";
        let signed = httpsig::sign_host_request("DELETE", url, b"", "maple-street-auto", &key, NOW, &nonce(1));
        let err = claimant(&e, req(&headers(signed, "keyapp.example")), &claim, NOW, None);
        assert_eq!(err.unwrap_err().reason, "bad_signature");
    }

    #[test]
    fn a_half_signed_or_misnamed_request_is_refused() {
        let e = edge();
        let claim = ClaimId::parse("maple-street-auto/h_1").unwrap();
        let key = SigningKey::from_bytes(&[3; 32]);
        let url = "https://keyapp.example/status/m/claims/maple-street-auto/h_1";
        let mut signed = httpsig::sign_host_request("DELETE", url, b"", "oak-lane-garage", &key, NOW, &nonce(1));
        let err = claimant(&e, req(&headers(signed.clone(), "keyapp.example")), &claim, NOW, None).unwrap_err();
        assert_eq!((err.status, err.reason.as_str()), (StatusCode::BAD_REQUEST, "host_mismatch"));
        signed.retain(|(n, _)| n != "Signature");
        let err = claimant(&e, req(&headers(signed, "keyapp.example")), &claim, NOW, None).unwrap_err();
        assert_eq!((err.status, err.reason.as_str()), (StatusCode::UNAUTHORIZED, "bad_signature"));
        let stale = httpsig::sign_host_request("DELETE", url, b"", "maple-street-auto", &key, NOW - 301, &nonce(2));
        let err = claimant(&e, req(&headers(stale, "keyapp.example")), &claim, NOW, None).unwrap_err();
        assert_eq!((err.status, err.reason.as_str()), (StatusCode::UNAUTHORIZED, "stale_signature"));
    }
}
