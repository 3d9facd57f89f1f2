//! Mandates (§3.3): root, child (§3.3 "Attenuation"), closed (`offer_sha256`, §5.3) and
//! management (`bookings`, §3.3) mandates share one claims shape, `MandateClaims`; the
//! SD-JWT VC profile (§3.4) has its own issuer-signed shape, `SdJwtMandateClaims`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{de, wire, Money};
use crate::jwk::Jwk;
use crate::schema::{self, Def};

/// What a mandate's scope allows (§3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Hold a slot.
    Hold,
    /// Book (confirm a hold or accept an offer).
    Book,
    /// Cancel a booking.
    Cancel,
    /// Reschedule a booking (accept a change offer, §5.7).
    Reschedule,
    /// Lets the agent issue a child mandate (§3.3 "Attenuation").
    Delegate,
}

impl Action {
    /// The action as the wire writes it (`hold`, `book`, …, §3.3 `scope`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Action::Hold => "hold",
            Action::Book => "book",
            Action::Cancel => "cancel",
            Action::Reschedule => "reschedule",
            Action::Delegate => "delegate",
        }
    }
}

/// Whether the person was there when the mandate was used (§3.3, §5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsentMode {
    /// The person approved this very action (§5.3).
    HumanPresent,
    /// The agent acts within limits the person set earlier.
    HumanNotPresent,
}

/// `aud` (§3.3 step 2): one host id, or a list of them; `*` matches any host.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged, expecting = "a host id, \"*\", or a non-empty list of them")]
pub enum Audience {
    /// One host id, or `*`.
    One(#[serde(deserialize_with = "de::string::<_, de::k::Audience>")] String),
    /// A non-empty list of them.
    Many(#[serde(deserialize_with = "de::strings1::<_, de::k::Audience>")] Vec<String>),
}

impl Audience {
    /// The host ids (or `*`) it names, in order.
    pub fn hosts(&self) -> &[String] {
        match self {
            Audience::One(host) => std::slice::from_ref(host),
            Audience::Many(hosts) => hosts,
        }
    }
}

wire! {
    /// The agent key a mandate is bound to (§3.3 step 4).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct Cnf {
        /// RFC 7638 thumbprint of the agent's public key.
        #[serde(deserialize_with = "de::string::<_, de::k::B64Sha256>")]
        pub jkt: String,
    }
}

wire! {
    /// `constraints.window` (§3.3 step 6): start ≥ not_before and end ≤ not_after, inclusive.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct Window {
        /// The earliest start (RFC 3339), inclusive.
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub not_before: String,
        /// The latest end (RFC 3339), inclusive.
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub not_after: String,
    }
}

wire! {
    /// A mandate's constraints (§3.3). Closed: an unknown constraint name makes the mandate
    /// invalid, never weaker.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    #[serde(deny_unknown_fields)]
    pub struct Constraints {
        /// Service ids the mandate covers.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_strings1::<_, de::k::Id>"
        )]
        pub services: Option<Vec<String>>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// When bookings may be (§3.3 check 6).
        pub window: Option<Window>,
        /// A ceiling on the all-in total a host may state; not authority to pay (§8).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub max_price: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_positive"
        )]
        /// How many active bookings the mandate may make.
        pub max_bookings: Option<u32>,
        /// One `max_bookings` shared across every host of `aud` (§3.3).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub shared_limit: Option<bool>,
        /// A closed mandate: only the offer with this hash (§5.3).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::B64Sha256>"
        )]
        pub offer_sha256: Option<String>,
        /// A management mandate: only these bookings (§3.3).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_strings1::<_, de::k::Id>"
        )]
        pub bookings: Option<Vec<String>>,
    }
}

wire! {
    /// How the principal consented, and the words they approved (§3.3).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct Consent {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Whether the person was present (§3.3, §5.3).
        pub mode: Option<ConsentMode>,
        /// The consent statement the person approved, in their words (§5.3).
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub statement: String,
    }
}

wire! {
    /// How the host can reach the guest (§3.3). At least one member.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    #[serde(deny_unknown_fields)]
    pub struct Contact {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// The person's name as they share it.
        pub name: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// Their phone number.
        pub phone: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// Their email address.
        pub email: Option<String>,
    }
    check = Contact::check;
}

impl Contact {
    fn check(&self) -> Result<(), &'static str> {
        if self.name.is_none() && self.phone.is_none() && self.email.is_none() {
            return Err("a contact has at least one member");
        }
        Ok(())
    }
}

wire! {
    /// Claims of a `schcp-mandate+jwt` (§3.3). A root carries `principal_jwk`; a child
    /// (§3.3 "Attenuation") carries `issuer_jwk` and `parent` instead; the mandate a host
    /// evaluates from an SD-JWT VC (§3.4) carries neither.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct MandateClaims {
        /// The principal: `urn:schcp:principal:jwk-thumbprint:…` (self-certifying, check 1).
        #[serde(deserialize_with = "de::string::<_, de::k::PrincipalId>")]
        pub iss: String,
        /// A stable pseudonym of the principal for the hosts it names (§3.3).
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub sub: String,
        /// The hosts it is for (§3.3 check 2).
        pub aud: Audience,
        /// When it was issued (NumericDate).
        #[serde(deserialize_with = "de::numeric_date")]
        pub iat: i64,
        /// When it expires (NumericDate); no skew (§3.3 check 3).
        #[serde(deserialize_with = "de::numeric_date")]
        pub exp: i64,
        /// Its id; each link of a chain has its own (§3.3).
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub jti: String,
        /// The agent key it is bound to (§3.3 check 4).
        pub cnf: Cnf,
        /// Root only: the principal's Ed25519 key.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_ed25519_jwk"
        )]
        pub principal_jwk: Option<Jwk>,
        /// Child only: the delegating agent's Ed25519 key (its thumbprint is the parent's
        /// `cnf.jkt`).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_ed25519_jwk"
        )]
        pub issuer_jwk: Option<Jwk>,
        /// Child only: the parent's compact JWS, exactly.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::CompactJws>"
        )]
        pub parent: Option<String>,
        /// The actions it allows (§3.3 check 5).
        #[serde(deserialize_with = "de::non_empty")]
        pub scope: Vec<Action>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Its limits (§3.3 check 6).
        pub constraints: Option<Constraints>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// What the person consented to.
        pub consent: Option<Consent>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// How the host may reach the person.
        pub contact: Option<Contact>,
        /// Status URL, served by the key app (§3.3 "Status URLs", shared limit).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Uri>"
        )]
        pub status: Option<String>,
        /// Compact `schcp-attestation+jwt`s about the principal key (§7.5), at most four.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_strings::<_, de::k::CompactJws>"
        )]
        pub attestations: Option<Vec<String>>,
    }
    check = MandateClaims::check;
}

impl MandateClaims {
    /// The most attestations a mandate carries (§3.3).
    pub const MAX_ATTESTATIONS: usize = 4;

    /// A root mandate, signed by the principal (§3.3 check 1).
    pub fn is_root(&self) -> bool {
        self.principal_jwk.is_some()
    }

    fn check(&self) -> Result<(), &'static str> {
        // A root names the principal's key, a child the agent's and its parent; the
        // mandate a host evaluates from an SD-JWT VC (§3.4) names neither, its key being
        // in the JWS header. §3.3 check 1 (a compact root carries principal_jwk) is
        // verification's.
        if self.principal_jwk.is_some() && (self.issuer_jwk.is_some() || self.parent.is_some()) {
            return Err("a mandate is a root (principal_jwk) or a child (issuer_jwk, parent), not both");
        }
        if self.issuer_jwk.is_some() != self.parent.is_some() {
            return Err("a child mandate carries issuer_jwk and parent");
        }
        if self.attestations.as_ref().is_some_and(|a| a.len() > Self::MAX_ATTESTATIONS) {
            return Err("a mandate carries at most four attestations");
        }
        Ok(())
    }
}

/// `_sd_alg` (RFC 9901 §4.1.1): SchCP uses SHA-256 only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum SdAlg {
    /// `sha-256`.
    #[default]
    #[serde(rename = "sha-256")]
    Sha256,
}

wire! {
    /// An array element hidden behind its disclosure's digest (RFC 9901 §4.2.4.2).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct SdDigest {
        /// The disclosure's digest (`...`).
        #[serde(rename = "...", deserialize_with = "de::string::<_, de::k::B64Sha256>")]
        pub digest: String,
    }
}

/// An `aud` element of an issuer-signed SD-JWT mandate: a host id in the clear, or a
/// digest (§3.4: every element selectively disclosable, padded with decoys).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged, expecting = "a host id (no wildcard) or {\"...\": digest}")]
pub enum SdElement {
    /// A host id in the clear.
    Value(#[serde(deserialize_with = "de::string::<_, de::k::HostId>")] String),
    /// A digest of a disclosure.
    Digest(SdDigest),
}

wire! {
    /// `host_constraints` (§3.4): each host's own constraints keyed by host id, every
    /// member selectively disclosable (`_sd`), `{}` for a host with none of its own.
    #[derive(Debug, Clone, PartialEq, Eq, Default)]
    pub struct HostConstraints {
        /// Digests of the members' disclosures, decoys included.
        #[serde(
            rename = "_sd",
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_strings::<_, de::k::B64Sha256>"
        )]
        pub sd: Option<Vec<String>>,
        /// Members in the clear (after disclosure, the verifier's own).
        #[serde(flatten)]
        pub hosts: BTreeMap<String, Constraints>,
    }
    check = HostConstraints::check;
}

impl HostConstraints {
    fn check(&self) -> Result<(), &'static str> {
        let bad_key = self.hosts.keys().any(|k| !schema::is_valid(Def::HostId, &serde_json::Value::String(k.clone())));
        if bad_key {
            return Err("host_constraints is keyed by host id");
        }
        Ok(())
    }
}

wire! {
    /// `cnf` of an SD-JWT mandate (§3.4): the agent's Ed25519 key itself, which signs the
    /// KB-JWT and, as §3.2 requires, the HTTP request.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct SdJwtCnf {
        /// The agent's key (§3.4: `cnf.jwk`, Ed25519).
        #[serde(deserialize_with = "de::ed25519_jwk")]
        pub jwk: Jwk,
    }
}

wire! {
    /// Issuer-signed claims of a `dc+sd-jwt` mandate (§3.4; the draft lists no table, so
    /// the shape is fixed by `SdJwtMandateClaims` in schemas/schcp.schema.json), before
    /// disclosures are resolved.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct SdJwtMandateClaims {
        /// The principal who signed it (`urn:schcp:principal:jwk-thumbprint:…`).
        #[serde(deserialize_with = "de::string::<_, de::k::PrincipalId>")]
        pub iss: String,
        /// A stable pseudonym of the principal for the hosts it names (§3.3).
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub sub: String,
        /// When it was issued (NumericDate).
        #[serde(deserialize_with = "de::numeric_date")]
        pub iat: i64,
        /// When it expires (NumericDate); no skew (§3.3 check 3).
        #[serde(deserialize_with = "de::numeric_date")]
        pub exp: i64,
        /// Its id, unique per principal.
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub jti: String,
        /// Host ids, no wildcard (§3.4), each usually behind a digest.
        #[serde(deserialize_with = "de::non_empty")]
        pub aud: Vec<SdElement>,
        /// The actions it allows (§3.3 check 5).
        #[serde(deserialize_with = "de::non_empty")]
        pub scope: Vec<Action>,
        /// Constraints shared by every host.
        pub constraints: Constraints,
        /// Each host's own constraints, selectively disclosed (§3.4).
        pub host_constraints: HostConstraints,
        /// The agent key it is bound to.
        pub cnf: SdJwtCnf,
        /// The key app's status URL (not `status`, which this profile refuses, §3.4).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Uri>"
        )]
        pub schcp_status: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// What the person consented to.
        pub consent: Option<Consent>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// How a host may reach the person.
        pub contact: Option<Contact>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Attestations about the principal key (§7.5), each behind a digest
        /// and disclosed only to the hosts that trust its attester; at most four.
        pub attestations: Option<Vec<SdDigest>>,
        /// `_sd_alg`: `sha-256`.
        #[serde(rename = "_sd_alg")]
        pub sd_alg: SdAlg,
    }
}
