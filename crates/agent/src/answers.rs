//! The key app's answers that are not requests: pairings (docs/agent-api.md §4),
//! the principal and the mandate list (§7).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a pairing stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PairingStatus {
    /// The person has not answered yet.
    Pending,
    /// Paired: the agent may ask for requests.
    Approved,
    /// The person said no.
    Declined,
    /// Nobody answered in time.
    Expired,
}

/// A pairing (`POST /v1/pairings`, `GET /v1/pairings/{id}`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Pairing {
    /// `pr_…`.
    pub pairing_id: String,
    /// Where it stands.
    pub status: PairingStatus,
    /// The short code the key app shows the person beside the agent's name; the
    /// agent shows the same so the person can compare. Only in the answer to
    /// `POST /v1/pairings`.
    #[serde(default)]
    pub fingerprint: Option<String>,
}

/// Whom the key app signs for (`GET /v1/principal`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Principal {
    /// `urn:schcp:principal:jwk-thumbprint:…`.
    pub principal: String,
    /// The principal's public Ed25519 JWK.
    pub jwk: Value,
    /// The configured name, if any.
    #[serde(default)]
    pub name: Option<String>,
}

/// A key app that proved, just now, that it holds the principal key
/// (`AgentClient::prove`, docs/agent-api.md §7).
#[derive(Debug, Clone, PartialEq)]
pub struct ProvenKeyApp {
    /// `urn:schcp:principal:jwk-thumbprint:…`.
    pub principal: String,
    /// The principal's public JWK, the key the proof verified with.
    pub jwk: Value,
    /// The configured name, if any (paired agents only).
    pub name: Option<String>,
    /// Whether this agent key is paired with it.
    pub paired: bool,
    /// The thumbprint of the principal key the proof was checked against: the
    /// pinned one, or the one pinned now.
    pub pinned: Option<String>,
}

/// `GET /v1/principal?nonce=…` as the key app answers it.
#[derive(Debug, Deserialize)]
pub(crate) struct ProofAnswer {
    pub(crate) principal: String,
    pub(crate) jwk: Value,
    #[serde(default)]
    pub(crate) name: Option<String>,
    pub(crate) paired: bool,
    pub(crate) proof: String,
}

/// Where an issued credential stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MandateStatus {
    /// Valid.
    Active,
    /// The person revoked it.
    Revoked,
    /// Past its expiry.
    Expired,
}

/// One credential issued to this agent (`GET /v1/mandates`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MandateListing {
    /// Its id.
    pub jti: String,
    /// The kind of request that issued it.
    pub kind: String,
    /// The hosts it is for.
    pub aud: Vec<String>,
    /// Its expiry (Unix time).
    pub exp: i64,
    /// Where it stands.
    pub status: MandateStatus,
    /// Units left of a shared booking limit, for a mandate with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining: Option<u32>,
}
