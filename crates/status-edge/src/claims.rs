//! What a status service says about a mandate and its shared booking limit
//! (§3.3 "One consent, several hosts"; docs/agent-api.md §10), in both stores'
//! words: the claim id a host sends, what a claim came to, why it was refused,
//! and a credential's status. No HTTP here: the §9 shape of a refusal is
//! `http_error`'s, decided once.

/// A well-formed claim id: `{host id}/{hold id}` (§3.3).
///
/// The host id is a `HostId` (printable ASCII without space, `/` or `*`, at most
/// 255 characters, schemas/schcp.schema.json), so the first `/` ends it; the hold
/// id is the host's opaque `Id` (1 to 255 characters) and may itself contain `/`.
/// The whole string, `/` included, is the key a unit is held under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClaimId {
    whole: String,
    host_len: usize,
}

impl ClaimId {
    pub fn parse(s: &str) -> Result<ClaimId, ClaimRefusal> {
        let (host, hold) = s.split_once('/').ok_or(ClaimRefusal::BadClaimId("no '/' between host id and hold id"))?;
        if host.is_empty() || host.len() > 255 {
            return Err(ClaimRefusal::BadClaimId("the host id must be 1 to 255 characters"));
        }
        if !host.bytes().all(|b| matches!(b, b'!'..=b')' | b'+'..=b'.' | b'0'..=b'~')) {
            return Err(ClaimRefusal::BadClaimId("the host id is printable ASCII without space, '/' or '*'"));
        }
        let hold_chars = hold.chars().count();
        if hold_chars == 0 || hold_chars > 255 {
            return Err(ClaimRefusal::BadClaimId("the hold id must be 1 to 255 characters"));
        }
        if hold.chars().any(char::is_control) {
            // The schema's Id has no pattern, but no host names a hold with a
            // control character, and NUL would not survive SQLite's JSON.
            return Err(ClaimRefusal::BadClaimId("the hold id has a control character"));
        }
        Ok(ClaimId { whole: s.to_owned(), host_len: host.len() })
    }

    pub fn host(&self) -> &str {
        &self.whole[..self.host_len]
    }

    pub fn hold(&self) -> &str {
        &self.whole[self.host_len + 1..]
    }

    pub fn as_str(&self) -> &str {
        &self.whole
    }
}

impl std::fmt::Display for ClaimId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.whole)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimOutcome {
    /// A unit was taken for this claim id (HTTP 201).
    Claimed { remaining: u32 },
    /// This claim id already holds a unit; nothing was spent (HTTP 200).
    AlreadyHeld { remaining: u32 },
}

impl ClaimOutcome {
    pub fn remaining(self) -> u32 {
        match self {
            ClaimOutcome::Claimed { remaining } | ClaimOutcome::AlreadyHeld { remaining } => remaining,
        }
    }
}

/// Why a claim was refused. Every refusal changes nothing.
/// Its §9 code and reason are decided in one place: `http_error`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClaimRefusal {
    #[error("no mandate with this jti has a status here")]
    UnknownMandate,
    #[error("malformed claim id: {0}; a claim id is \"{{host id}}/{{hold id}}\" (§3.3)")]
    BadClaimId(&'static str),
    #[error("host {host:?} is not in the mandate's aud")]
    HostNotInAudience { host: String },
    /// docs/agent-api.md §2: "Mandates without shared_limit report status only". Each host
    /// counts such a mandate's max_bookings against its own bookings (§3.3), so
    /// there is nothing here to claim from.
    #[error("the mandate has no shared booking limit; each host counts its own bookings (§3.3)")]
    NoSharedLimit,
    #[error("the mandate was revoked")]
    Revoked,
    #[error("the mandate has expired")]
    Expired,
    #[error("all {max_bookings} bookings of the shared limit are held")]
    NoneLeft { max_bookings: u32 },
    /// A signed claim or release whose key is none of the discovery keys the
    /// key app recorded for any host of the credential (docs/agent-api.md
    /// "Signed claims").
    #[error("the request is signed by a key the key app did not verify as {host:?}'s")]
    UnknownHostKey { host: String },
    /// A signed claim or release whose key is another host's of the credential:
    /// a host claims and releases only under its own id.
    #[error("the claim id is {host:?}'s, but the request is signed by {signer:?}'s key")]
    SignedByOtherHost { host: String, signer: String },
    /// An unsigned release of a claim its host made signed: only that host's
    /// signature gives it back.
    #[error("this claim was made signed by {host:?}; only a release signed by {host:?} gives it back")]
    ClaimSignedByHost { host: String },
    /// `SchCP-Host` names another host than the claim id's.
    #[error("SchCP-Host names {named:?}, but the claim id is {host:?}'s")]
    SignerNotNamed { named: String, host: String },
}

/// Per host of a credential's `aud`, the RFC 7638 thumbprints of the
/// discovery keys the key app verified at issuance.
pub type HostKeys = std::collections::BTreeMap<String, Vec<String>>;

/// Whether a signature by the key with thumbprint `signer` may claim or
/// release under `host`'s id: it must be one of `host`'s recorded keys. The
/// refusal says whether it is another host's key or nobody's.
pub fn check_signer(keys: &HostKeys, host: &str, signer: &str) -> Result<(), ClaimRefusal> {
    if keys.get(host).is_some_and(|k| k.iter().any(|t| t == signer)) {
        return Ok(());
    }
    match keys.iter().find(|(_, k)| k.iter().any(|t| t == signer)) {
        Some((other, _)) => Err(ClaimRefusal::SignedByOtherHost { host: host.to_owned(), signer: other.clone() }),
        None => Err(ClaimRefusal::UnknownHostKey { host: host.to_owned() }),
    }
}

/// What `GET /status/{jti}` says about a credential, and what the person's
/// surfaces show beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CredentialStatus {
    Active,
    Revoked,
    Expired,
}

impl CredentialStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CredentialStatus::Active => "active",
            CredentialStatus::Revoked => "revoked",
            CredentialStatus::Expired => "expired",
        }
    }

    /// Revocation wins over expiry: it is the person's own act and permanent.
    /// Expired means `now >= exp` (§3.3 check 3: `now < exp` is valid, no skew).
    pub fn of(revoked: bool, exp: i64, now: i64) -> CredentialStatus {
        if revoked {
            CredentialStatus::Revoked
        } else if now >= exp {
            CredentialStatus::Expired
        } else {
            CredentialStatus::Active
        }
    }
}

/// What `GET /status/{jti}` answers about a credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusView {
    /// active, revoked or expired (revocation wins, `now >= exp` is expired).
    pub status: CredentialStatus,
    /// `max_bookings` minus the claims held; `None` for a mandate without
    /// `shared_limit` ("status only", docs/agent-api.md §2). Reported whatever
    /// the status, so `remaining = max_bookings − held` always holds.
    pub remaining: Option<u32>,
}

impl StatusView {
    /// The answer's body: `{"jti", "status", "remaining"?}`.
    pub fn body(&self, jti: &str) -> serde_json::Value {
        let mut body = serde_json::json!({ "jti": jti, "status": self.status.as_str() });
        if let Some(remaining) = self.remaining {
            body["remaining"] = serde_json::json!(remaining);
        }
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_ids_split_at_the_first_slash() {
        let c = ClaimId::parse("maple-street-auto/h_1/part").unwrap();
        assert_eq!((c.host(), c.hold()), ("maple-street-auto", "h_1/part"));
        for bad in ["", "/h_1", "maple", "maple/", "ma ple/h", "ma*ple/h", "mäple/h", "maple/h\u{0}1", "maple/h\n"] {
            assert!(matches!(ClaimId::parse(bad), Err(ClaimRefusal::BadClaimId(_))), "{bad:?}");
        }
        assert!(ClaimId::parse(&format!("{}/h", "a".repeat(256))).is_err());
        assert!(ClaimId::parse(&format!("a/{}", "é".repeat(255))).is_ok());
        assert!(ClaimId::parse(&format!("a/{}", "é".repeat(256))).is_err());
    }

    #[test]
    fn only_the_claim_hosts_own_keys_sign_for_it() {
        let keys: HostKeys =
            [("maple".to_owned(), vec!["k1".to_owned(), "k2".to_owned()]), ("oak".into(), vec!["k3".into()])]
                .into_iter()
                .collect();
        assert_eq!(check_signer(&keys, "maple", "k2"), Ok(()));
        assert_eq!(
            check_signer(&keys, "maple", "k3"),
            Err(ClaimRefusal::SignedByOtherHost { host: "maple".into(), signer: "oak".into() })
        );
        assert_eq!(check_signer(&keys, "oak", "k9"), Err(ClaimRefusal::UnknownHostKey { host: "oak".into() }));
        assert_eq!(
            check_signer(&HostKeys::new(), "oak", "k3"),
            Err(ClaimRefusal::UnknownHostKey { host: "oak".into() })
        );
    }

    #[test]
    fn revocation_wins_over_expiry_and_exp_itself_is_expired() {
        assert_eq!(CredentialStatus::of(true, 10, 20), CredentialStatus::Revoked);
        assert_eq!(CredentialStatus::of(false, 10, 10), CredentialStatus::Expired);
        assert_eq!(CredentialStatus::of(false, 10, 9), CredentialStatus::Active);
        assert_eq!(CredentialStatus::Expired.as_str(), "expired");
    }

    #[test]
    fn remaining_is_in_the_body_only_with_a_shared_limit() {
        let shared = StatusView { status: CredentialStatus::Revoked, remaining: Some(0) };
        assert_eq!(shared.body("m"), serde_json::json!({"jti": "m", "status": "revoked", "remaining": 0}));
        let plain = StatusView { status: CredentialStatus::Active, remaining: None };
        assert_eq!(plain.body("m"), serde_json::json!({"jti": "m", "status": "active"}));
    }
}
