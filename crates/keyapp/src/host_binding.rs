//! Where a host id was verified (SchCP §2.2), as the key app binds it.
//!
//! A host id is only a name the host's own document gives itself: a look-alike
//! domain can serve a copy of a real host's document (same id, name and kid,
//! its own key), and a mandate for that id would be good at the real host. So
//! the key app binds each host id to the place it was first verified at, by
//! the rules of §2.2:
//!
//! 1. `own_domain`: the exact host name of a `https://{host}/.well-known/scheduling.json`
//!    URL (TLS proved the server holds a certificate for it);
//! 2. `operator`: an operator's domain, when the host's document names the
//!    operator and the operator's document lists the host (§2.3);
//! 3. `operator_trust`: a host with no domain, published at a URL of an
//!    operator the key app takes as authoritative for its own listings; bound
//!    to that URL's host name and marked as the weaker mode.
//!
//! The same id met anywhere else is refused (`host_id_conflict`) until the
//! person accepts the change on their own surfaces; no request can accept it.
//!
//! [`binding_of`] is the one place that says, from a verified discovery
//! document, "host id → (domain, basis, key thumbprints)": the credential
//! records and the status store both take it from here.

use crate::discovery::{verified_domain, DiscoveredHost};
use serde::{Deserialize, Serialize};

/// Which rule of §2.2 authorized the host's document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// §2.2 rule 1: the host's own domain.
    OwnDomain,
    /// §2.2 rule 2: an operator both sides name.
    Operator,
    /// §2.2 rule 3: a host with no domain, on its operator's word alone.
    OperatorTrust,
}

impl Basis {
    pub const ALL: [Basis; 3] = [Basis::OwnDomain, Basis::Operator, Basis::OperatorTrust];

    pub fn as_str(self) -> &'static str {
        match self {
            Basis::OwnDomain => "own_domain",
            Basis::Operator => "operator",
            Basis::OperatorTrust => "operator_trust",
        }
    }

    /// A stored basis; `None` for anything the key app does not write.
    pub fn parse(s: &str) -> Option<Basis> {
        Basis::ALL.into_iter().find(|b| b.as_str() == s)
    }
}

/// Where a host id was verified, and with which keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostBinding {
    pub host_id: String,
    /// The domain (rules 1, 2) or the operator's host name (rule 3), lower case.
    pub domain: String,
    pub basis: Basis,
    /// RFC 7638 thumbprints of the document's signing keys, sorted.
    pub key_thumbprints: Vec<String>,
    /// The document's `host.name` (§2.1), made inert as the consent text
    /// shows it; `None` where the records did not keep it. Not part of the
    /// place: a host may rename itself where it stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl HostBinding {
    /// Whether `other` is the same place: the same domain by the same rule.
    /// The keys may differ (§2.1 rotation); the place may not.
    pub fn same_place(&self, other: &HostBinding) -> bool {
        self.host_id == other.host_id && self.domain == other.domain && self.basis == other.basis
    }
}

/// Why a document gives no binding.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum BindingError {
    #[error("the discovery URL {0} names no host")]
    NoHost(String),
    #[error("a discovery key has no RFC 7638 thumbprint: {0}")]
    BadKey(String),
}

/// The binding a verified discovery document gives its host (§2.2). A
/// document at the host's own well-known URL is bound to that domain; any
/// other URL is its operator's (§2.1: "A host without its own domain is
/// published by its operator") and is bound to that URL's host name as
/// operator-trust, unless `operator_listed` says the operator the document
/// names lists it back at this URL (rule 2).
pub fn binding_of(host: &DiscoveredHost, operator_listed: bool) -> Result<HostBinding, BindingError> {
    let mut key_thumbprints = host
        .keys
        .iter()
        .map(|k| k.thumbprint().map_err(|e| BindingError::BadKey(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    key_thumbprints.sort();
    key_thumbprints.dedup();
    let (domain, basis) = match verified_domain(&host.url) {
        Some(own) => (own, Basis::OwnDomain),
        None => match host.document.operator.as_ref().filter(|_| operator_listed) {
            Some(op) => (op.domain.to_ascii_lowercase(), Basis::Operator),
            None => {
                let origin = host.url.host_str().ok_or_else(|| BindingError::NoHost(host.url.to_string()))?;
                (origin.to_ascii_lowercase(), Basis::OperatorTrust)
            }
        },
    };
    let name = Some(schcp_consent::inert::inert(&host.name)).filter(|n| !n.trim().is_empty());
    Ok(HostBinding { host_id: host.host_id.clone(), domain, basis, key_thumbprints, name })
}

/// What the key app knows of a host id at a request: not met before, met at
/// this same place, or bound to another place (`host_id_conflict`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// No binding yet: the person has not dealt with this host id before.
    New,
    /// Bound here.
    Known,
    /// Bound to `pinned`; the request's document is somewhere else.
    Conflict { pinned: HostBinding },
}

/// Compares the binding a request's document gives with the one stored.
pub fn standing(found: &HostBinding, pinned: Option<&HostBinding>) -> Standing {
    match pinned {
        None => Standing::New,
        Some(p) if p.same_place(found) => Standing::Known,
        Some(p) => Standing::Conflict { pinned: p.clone() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::Url;

    fn host(url: &str, operator: Option<&str>) -> DiscoveredHost {
        let key = ed25519_dalek::SigningKey::from_bytes(&[7; 32]);
        let mut jwk = schcp::jwk::Jwk::ed25519(&key.verifying_key());
        jwk.kid = Some("k1".into());
        let mut doc = serde_json::json!({
            "schcp": "0.4",
            "host": {"id": "maple-street-auto", "name": "Maple Street Auto", "timezone": "America/Toronto"},
            "endpoint": "https://maplestreetauto.example/schcp/v0",
            "keys": [jwk],
            "services": [],
            "policies": {"retention": "P365D"},
            "capabilities": [],
        });
        if let Some(op) = operator {
            doc["operator"] = serde_json::json!({"domain": op});
        }
        let document: schcp::claims::Discovery = serde_json::from_value(doc).unwrap();
        let url = Url::parse(url).unwrap();
        DiscoveredHost {
            domain: verified_domain(&url),
            url,
            host_id: "maple-street-auto".into(),
            name: "Maple Street Auto".into(),
            tz: "America/Toronto".into(),
            keys: document.keys.clone(),
            document,
        }
    }

    #[test]
    fn a_well_known_url_binds_its_own_domain() {
        let b = binding_of(&host("https://MapleStreetAuto.example/.well-known/scheduling.json", None), false).unwrap();
        assert_eq!((b.domain.as_str(), b.basis), ("maplestreetauto.example", Basis::OwnDomain));
        assert_eq!(b.key_thumbprints.len(), 1);
        // A look-alike domain is another place, whatever the document says.
        let l =
            binding_of(&host("https://maple-street-auto.example/.well-known/scheduling.json", None), false).unwrap();
        assert!(!b.same_place(&l));
        assert_eq!(standing(&l, Some(&b)), Standing::Conflict { pinned: b.clone() });
        assert_eq!(standing(&b, Some(&b)), Standing::Known);
        assert_eq!(standing(&b, None), Standing::New);
    }

    #[test]
    fn an_operator_url_is_operator_trust_unless_the_operator_lists_it() {
        let url = "https://platform.example/m/maple-street-auto/scheduling.json";
        let b = binding_of(&host(url, None), false).unwrap();
        assert_eq!((b.domain.as_str(), b.basis), ("platform.example", Basis::OperatorTrust));
        // The host names its operator, but the operator has not listed it back.
        let b = binding_of(&host(url, Some("booksy.example")), false).unwrap();
        assert_eq!((b.domain.as_str(), b.basis), ("platform.example", Basis::OperatorTrust));
        // Both sides claim the relationship (§2.2 rule 2).
        let b = binding_of(&host(url, Some("booksy.example")), true).unwrap();
        assert_eq!((b.domain.as_str(), b.basis), ("booksy.example", Basis::Operator));
    }

    #[test]
    fn the_same_domain_by_another_rule_is_another_place() {
        let a = HostBinding {
            host_id: "h".into(),
            domain: "x.example".into(),
            basis: Basis::OwnDomain,
            key_thumbprints: vec!["a".into()],
            name: None,
        };
        let rotated = HostBinding { key_thumbprints: vec!["b".into()], ..a.clone() };
        assert!(a.same_place(&rotated), "a key rotation keeps the place (§2.1)");
        let renamed = HostBinding { name: Some("Maple Street Auto".into()), ..a.clone() };
        assert!(a.same_place(&renamed), "a new name keeps the place");
        let trust = HostBinding { basis: Basis::OperatorTrust, ..a.clone() };
        assert!(!a.same_place(&trust));
        for b in Basis::ALL {
            assert_eq!(Basis::parse(b.as_str()), Some(b));
        }
        assert_eq!(Basis::parse("own"), None);
    }
}
