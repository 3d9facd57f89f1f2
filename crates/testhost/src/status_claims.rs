//! The shared-limit claims and releases this host sends a principal's status
//! API (§3.3 "One consent, several hosts"): unsigned, as the spec has them, or
//! signed with the host's current discovery key in the §3.2 profile, as a host
//! signs a webhook (§5.8; docs/agent-api.md "Signed claims"). Built as plain
//! requests for a test's own HTTP client to send.

use crate::TestHost;
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

fn fresh_nonce() -> String {
    let mut n = [0u8; 16];
    rand_core::OsRng.fill_bytes(&mut n);
    schcp::b64::encode(n)
}

impl TestHost {
    /// `POST {status_url}/claims` for the claim id `{host id}/{hold_id}`.
    pub fn claim_request(&self, status_url: &str, hold_id: &str, signing: Signing, now: i64) -> StatusRequest {
        let claim_id = format!("{}/{hold_id}", self.host_id());
        let body = serde_json::to_vec(&serde_json::json!({ "claim_id": claim_id })).expect("a claim serializes");
        let url = format!("{}/claims", status_url.trim_end_matches('/'));
        let mut headers = vec![("Content-Type".to_owned(), "application/json".to_owned())];
        if signing == Signing::Signed {
            headers.extend(self.sign_status_request("POST", &url, &body, now));
        }
        StatusRequest { method: "POST", url, headers, body }
    }

    /// `DELETE {status_url}/claims/{host id}/{hold_id}`.
    pub fn release_request(&self, status_url: &str, hold_id: &str, signing: Signing, now: i64) -> StatusRequest {
        let url = format!("{}/claims/{}/{hold_id}", status_url.trim_end_matches('/'), self.host_id());
        let headers =
            if signing == Signing::Signed { self.sign_status_request("DELETE", &url, b"", now) } else { Vec::new() };
        StatusRequest { method: "DELETE", url, headers, body: Vec::new() }
    }

    /// The signature headers of a request to `url`, made now with the current
    /// key (a fresh nonce each time).
    pub fn sign_status_request(&self, method: &str, url: &str, body: &[u8], now: i64) -> Vec<(String, String)> {
        let state = self.shared.state();
        let key = &state.keys[state.signing].key;
        schcp::httpsig::sign_host_request(method, url, body, self.host_id(), key, now, &fresh_nonce())
    }

    /// The RFC 7638 thumbprints of the published keys, as a key app records
    /// them for a credential naming this host.
    pub fn key_thumbprints(&self) -> Vec<String> {
        self.keys().iter().map(|k| k.thumbprint().expect("an Ed25519 key has a thumbprint")).collect()
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
