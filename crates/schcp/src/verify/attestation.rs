//! Attestations (§7.5) as a host honours them, and which of them a mandate
//! carries to which host.
//!
//! A host honours an attestation only if its `iss` is in the host's own
//! `trust.attesters`, the signature verifies with a key the host lists for that
//! attester, `sub` is the mandate's principal and `iat ≤ now < exp` (§7.5). An
//! attestation a host would ignore tells it nothing, so the key app sends none:
//! each host gets only what it honours, and a mandate carries at most four
//! (§3.3 `attestations`). Pure: the trust lists come from verified discovery
//! documents, the attestations from the person's records.

use crate::claims::{AttestationClaims, Attester, MandateClaims};
use crate::jwk::PublicKey;
use crate::jws::{self, Typ};
use crate::schema::{self, Def};
use std::collections::{BTreeMap, BTreeSet};

/// The most attestations a mandate carries (§3.3).
pub const MAX_ATTESTATIONS: usize = MandateClaims::MAX_ATTESTATIONS;

/// Why a host would not honour an attestation (§7.5). A host ignores such an
/// attestation rather than refusing the mandate; the key app leaves it out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AttestationCheck {
    /// Not a closed-schema `schcp-attestation+jwt`.
    #[error("not a valid schcp-attestation+jwt: {0}")]
    Malformed(String),
    /// The host's `trust.attesters` does not list its `iss`.
    #[error("the host does not trust attester {0:?}")]
    UntrustedAttester(String),
    /// No key the host lists for the attester verifies the signature.
    #[error("no key the host lists for attester {0:?} verifies the signature")]
    BadSignature(String),
    /// `sub` is another principal.
    #[error("the attestation is about {found:?}, not this principal")]
    WrongSubject {
        /// The `sub` it names.
        found: String,
    },
    /// `iat` is after now (§7.5: iat ≤ now).
    #[error("the attestation is issued in the future (iat {iat}, now {now})")]
    IssuedInFuture {
        /// Its `iat`.
        iat: i64,
        /// The verifier's now.
        now: i64,
    },
    /// `exp` has passed (§7.5: now < exp).
    #[error("the attestation has expired (exp {exp}, now {now})")]
    Expired {
        /// Its `exp`.
        exp: i64,
        /// The verifier's now.
        now: i64,
    },
}

/// An attestation a host would honour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedAttestation {
    /// The compact JWS.
    pub compact: String,
    /// Its claims.
    pub claims: AttestationClaims,
}

/// §7.5, as the host whose `trust.attesters` is `trusted` checks it for
/// `principal` at `now`.
pub fn verify_attestation(
    compact: &str,
    trusted: &[Attester],
    principal: &str,
    now: i64,
) -> Result<VerifiedAttestation, AttestationCheck> {
    let malformed = |e: &dyn std::fmt::Display| AttestationCheck::Malformed(e.to_string());
    let parsed = jws::parse(compact).map_err(|e| malformed(&e))?;
    parsed.expect_typ(Typ::Attestation).map_err(|e| malformed(&e))?;
    schema::validate(Def::Attestation, &parsed.payload).map_err(|e| malformed(&e))?;
    let claims: AttestationClaims = parsed.claims().map_err(|e| malformed(&e))?;
    let attester = trusted
        .iter()
        .find(|a| a.id == claims.iss)
        .ok_or_else(|| AttestationCheck::UntrustedAttester(claims.iss.clone()))?;
    // The attester's keys, and only those (a key in the header is never used).
    let verifies = attester
        .keys
        .iter()
        .filter_map(|k| k.ed25519_key().ok())
        .any(|k| parsed.verify_signature(&PublicKey::Ed25519(k)).is_ok());
    if !verifies {
        return Err(AttestationCheck::BadSignature(claims.iss.clone()));
    }
    if claims.sub != principal {
        return Err(AttestationCheck::WrongSubject { found: claims.sub.clone() });
    }
    if claims.iat > now {
        return Err(AttestationCheck::IssuedInFuture { iat: claims.iat, now });
    }
    if now >= claims.exp {
        return Err(AttestationCheck::Expired { exp: claims.exp, now });
    }
    Ok(VerifiedAttestation { compact: compact.to_owned(), claims })
}

/// One host of a mandate and the attesters it trusts (its discovery
/// document's `trust.attesters`, empty when it lists none).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HostTrust {
    /// The host id.
    pub host: String,
    /// Its `trust.attesters`.
    pub attesters: Vec<Attester>,
}

/// The attestations a mandate carries: at most [`MAX_ATTESTATIONS`], each
/// honoured by at least one of its hosts, and which each host honours.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Every attestation the mandate carries, in the order chosen.
    pub attestations: Vec<String>,
    /// Per host id, the carried attestations that host honours (a host that
    /// honours none is absent).
    pub per_host: BTreeMap<String, Vec<String>>,
}

impl Selection {
    /// The carried attestations that every one of `hosts` honours, in the
    /// order chosen: all a credential may carry when each of its hosts reads
    /// the whole of it. A compact JWS root mandate is one signature for all
    /// its hosts (§3.3), so an attestation in it reaches every host; §7.5 has
    /// each host honour only its own attesters, and a host that does not trust
    /// an attester is not shown that the person holds its statement.
    /// [`select_attestations`] ranks those honoured by more hosts first, so no
    /// attestation every host honours is crowded out of the four by others.
    pub fn honoured_by_every(&self, hosts: &[String]) -> Vec<String> {
        if hosts.is_empty() {
            return Vec::new();
        }
        self.attestations
            .iter()
            .filter(|a| hosts.iter().all(|h| self.per_host.get(h).is_some_and(|carried| carried.contains(a))))
            .cloned()
            .collect()
    }
}

/// Chooses, from the person's `held` attestations, those the mandate's `hosts`
/// honour for `principal` at `now` (§7.5). An honoured attestation changes
/// one thing at a host, the pool its holds count against, so a second one
/// from the same attester adds nothing there: an attestation is carried only
/// when it gives some host an attester that host has none from yet. Those
/// honoured by more hosts come first, then the latest to expire, then the
/// order held; at most [`MAX_ATTESTATIONS`] (§3.3).
pub fn select_attestations(held: &[String], hosts: &[HostTrust], principal: &str, now: i64) -> Selection {
    struct Candidate<'a> {
        compact: &'a str,
        iss: String,
        exp: i64,
        hosts: Vec<&'a str>,
    }
    let mut candidates: Vec<Candidate<'_>> = held
        .iter()
        .filter_map(|compact| {
            let mut found: Option<AttestationClaims> = None;
            let honouring: Vec<&str> = hosts
                .iter()
                .filter_map(|h| {
                    let v = verify_attestation(compact, &h.attesters, principal, now).ok()?;
                    found = Some(v.claims);
                    Some(h.host.as_str())
                })
                .collect();
            let claims = found?;
            Some(Candidate { compact, iss: claims.iss, exp: claims.exp, hosts: honouring })
        })
        .collect();
    // Stable: equal candidates keep the order they were held in.
    candidates.sort_by(|a, b| b.hosts.len().cmp(&a.hosts.len()).then(b.exp.cmp(&a.exp)));
    let mut covered: BTreeSet<(&str, String)> = BTreeSet::new();
    let mut out = Selection::default();
    for c in candidates {
        if out.attestations.len() == MAX_ATTESTATIONS {
            break;
        }
        if c.hosts.iter().all(|h| covered.contains(&(*h, c.iss.clone())))
            || out.attestations.iter().any(|a| a == c.compact)
        {
            continue;
        }
        for h in &c.hosts {
            covered.insert((*h, c.iss.clone()));
            out.per_host.entry((*h).to_owned()).or_default().push(c.compact.to_owned());
        }
        out.attestations.push(c.compact.to_owned());
    }
    out
}
