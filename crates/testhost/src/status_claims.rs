//! The shared-limit claims and releases this host sends a principal's status
//! API (§3.3 "One consent, several hosts"): unsigned, as the spec has them, or
//! signed with the host's current discovery key in the §3.2 profile, as a host
//! signs a webhook (§5.8; docs/agent-api.md "Signed claims"). Built as plain
//! requests for a test's own HTTP client to send, and sent by the endpoint
//! itself (`send`) when it confirms or cancels a booking under a shared limit.
//!
//! Reach: §3.3 "Status URLs" has a host apply §5.8's outbound policy, which a
//! key app beside this test host (its status API on loopback, with
//! `hosts_on_this_machine`) would fail. This host is for tests and demos on one
//! machine, so it reaches plain-http loopback status URLs and nothing else:
//! any other URL is a key app that does not answer, and the confirm is refused.

use crate::{Shared, TestHost};
use rand_core::RngCore;

/// Whether a claim or release carries the host's signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signing {
    /// The spec's default: no signature; the claim can be released by anyone
    /// who knows its id.
    Unsigned,
    /// Signed with the host's current key: a claim made so is released only by
    /// this host.
    Signed,
}

/// A request this host sends a status API, ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusRequest {
    /// `POST` or `DELETE`.
    pub method: &'static str,
    /// The URL addressed, exactly as signed (`@target-uri`).
    pub url: String,
    /// Every header to send (`Content-Type` for a claim; the signature's).
    pub headers: Vec<(String, String)>,
    /// The body's exact bytes (empty for a release).
    pub body: Vec<u8>,
}

/// Why a status request got no answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StatusSendError {
    /// Not `http://` to a loopback address literal: not reached (module doc).
    #[error("{0} is not a status URL this test host reaches (http to a loopback address only)")]
    NotReached(String),
    /// The connection or the exchange failed.
    #[error("the status API did not answer: {0}")]
    NoAnswer(String),
}

/// How long a status API has to answer: a key app that does not answer in
/// time is one that does not answer (§3.3).
const STATUS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Sends `req` to its status API and returns the HTTP status it answered.
pub async fn send(req: &StatusRequest) -> Result<u16, StatusSendError> {
    let not_reached = || StatusSendError::NotReached(req.url.clone());
    let rest = req.url.strip_prefix("http://").ok_or_else(not_reached)?;
    let (authority, path) = rest.find('/').map_or((rest, "/"), |i| (&rest[..i], &rest[i..]));
    let addr: std::net::SocketAddr = authority.parse().map_err(|_| not_reached())?;
    if !addr.ip().is_loopback() {
        return Err(not_reached());
    }
    let no_answer = |e: &dyn std::fmt::Display| StatusSendError::NoAnswer(e.to_string());
    let exchange = async {
        let tcp = tokio::net::TcpStream::connect(addr).await.map_err(|e| no_answer(&e))?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake::<_, http_body_util::Full<bytes::Bytes>>(
            hyper_util::rt::TokioIo::new(tcp),
        )
        .await
        .map_err(|e| no_answer(&e))?;
        tokio::spawn(conn);
        let mut builder = hyper::Request::builder().method(req.method).uri(path).header("host", authority);
        for (name, value) in &req.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let request =
            builder.body(http_body_util::Full::new(bytes::Bytes::from(req.body.clone()))).map_err(|e| no_answer(&e))?;
        let response = sender.send_request(request).await.map_err(|e| no_answer(&e))?;
        Ok(response.status().as_u16())
    };
    tokio::time::timeout(STATUS_TIMEOUT, exchange).await.map_err(|e| no_answer(&e))?
}

fn fresh_nonce() -> String {
    let mut n = [0u8; 16];
    rand_core::OsRng.fill_bytes(&mut n);
    schcp::b64::encode(n)
}

impl TestHost {
    /// `POST {status_url}/claims` for the claim id `{host id}/{hold_id}`.
    pub fn claim_request(&self, status_url: &str, hold_id: &str, signing: Signing, now: i64) -> StatusRequest {
        self.shared.claim_request(status_url, hold_id, signing, now)
    }

    /// `DELETE {status_url}/claims/{host id}/{hold_id}`.
    pub fn release_request(&self, status_url: &str, hold_id: &str, signing: Signing, now: i64) -> StatusRequest {
        self.shared.release_request(status_url, hold_id, signing, now)
    }

    /// The signature headers of a request to `url`, made now with the current
    /// key (a fresh nonce each time).
    pub fn sign_status_request(&self, method: &str, url: &str, body: &[u8], now: i64) -> Vec<(String, String)> {
        self.shared.sign_status_request(method, url, body, now)
    }

    /// The RFC 7638 thumbprints of the published keys, as a key app records
    /// them for a credential naming this host.
    pub fn key_thumbprints(&self) -> Vec<String> {
        self.keys().iter().map(|k| k.thumbprint().expect("an Ed25519 key has a thumbprint")).collect()
    }
}

impl Shared {
    pub(crate) fn claim_request(&self, status_url: &str, hold_id: &str, signing: Signing, now: i64) -> StatusRequest {
        let claim_id = format!("{}/{hold_id}", self.config.host_id);
        let body = serde_json::to_vec(&serde_json::json!({ "claim_id": claim_id })).expect("a claim serializes");
        let url = format!("{}/claims", status_url.trim_end_matches('/'));
        let mut headers = vec![("Content-Type".to_owned(), "application/json".to_owned())];
        if signing == Signing::Signed {
            headers.extend(self.sign_status_request("POST", &url, &body, now));
        }
        StatusRequest { method: "POST", url, headers, body }
    }

    pub(crate) fn release_request(&self, status_url: &str, hold_id: &str, signing: Signing, now: i64) -> StatusRequest {
        let url = format!("{}/claims/{}/{hold_id}", status_url.trim_end_matches('/'), self.config.host_id);
        let headers =
            if signing == Signing::Signed { self.sign_status_request("DELETE", &url, b"", now) } else { Vec::new() };
        StatusRequest { method: "DELETE", url, headers, body: Vec::new() }
    }

    pub(crate) fn sign_status_request(&self, method: &str, url: &str, body: &[u8], now: i64) -> Vec<(String, String)> {
        let state = self.state();
        let key = &state.keys[state.signing].key;
        schcp::httpsig::sign_host_request(method, url, body, &self.config.host_id, key, now, &fresh_nonce())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TestHostConfig;
    use schcp::httpsig::{verify_unspent, RequestParts, HOST_KEY};

    #[tokio::test]
    async fn a_signed_claim_verifies_with_a_published_key_and_an_unsigned_one_carries_none() {
        let host = TestHost::start(TestHostConfig::default()).await;
        let now = 1_792_000_000;
        let req = host.claim_request("https://keyapp.example/status/m-1/", "h_1", Signing::Signed, now);
        assert_eq!(req.url, "https://keyapp.example/status/m-1/claims");
        assert_eq!(req.body, br#"{"claim_id":"maple-street-auto/h_1"}"#);
        let headers = req.headers.iter().map(|(n, v)| (n.clone(), v.clone().into_bytes())).collect();
        let parts = RequestParts { method: "POST", target_uri: &req.url, headers, body: &req.body };
        let v = verify_unspent(&parts, HOST_KEY, now, None).unwrap();
        assert_eq!(host.key_thumbprints(), [v.jkt]);
        let plain = host.release_request("https://keyapp.example/status/m-1", "h_1", Signing::Unsigned, now);
        assert_eq!(plain.url, "https://keyapp.example/status/m-1/claims/maple-street-auto/h_1");
        assert!(plain.headers.is_empty());
        let signed = host.release_request("https://keyapp.example/status/m-1", "h_1", Signing::Signed, now);
        assert!(signed.headers.iter().any(|(n, v)| n == "SchCP-Host" && v == "maple-street-auto"));
    }
}
