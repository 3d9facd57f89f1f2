//! Building and signing the credentials a principal's key app issues (§3.3,
//! §3.4, §5.3, §5.12, §7.9).
//!
//! Every builder takes verified input or the key app's own values, validates its
//! output against the closed schema before signing (so nothing the key app
//! signs is ever outside the schema), and checks the signed result with the same
//! verification a host applies. Nothing here signs bytes a caller chose.

use crate::claims::{
    Acceptance, AcceptedBy, Action, Audience, Cnf, Consent, Constraints, Contact, MandateClaims, MeetingContract,
    OfferKind, RuleClaims, Window,
};
use crate::error::{Error, MandateCheck, RuleCheck, SlotCheck};
use crate::jwk::Jwk;
use crate::jws::{self, HeaderExtras, Signer, Typ};
use crate::schema::{self, Def};
use crate::sdjwt::{self, Disclosure};
use crate::verify::{
    self, ChainContext, VerifiedAcceptance, VerifiedContract, VerifiedOffer, VerifiedReceipt, VerifiedRule,
};
use chrono::DateTime;
use rand_core::CryptoRngCore;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A signed credential and the claims it carries.
#[derive(Debug, Clone)]
pub struct Issued<C> {
    /// The compact JWS.
    pub compact: String,
    /// The claims it signs.
    pub claims: C,
}

/// Validates, then signs. Validation failure here is a bug in the key app, and
/// is reported rather than signed over.
fn sign_validated<C: serde::Serialize>(
    typ: Typ,
    def: Def,
    claims: &C,
    extras: HeaderExtras,
    signer: &dyn Signer,
) -> Result<String, Error> {
    let value =
        serde_json::to_value(claims).map_err(|e| Error::Json(crate::json::JsonError::Malformed(e.to_string())))?;
    schema::validate(def, &value)?;
    Ok(jws::sign(typ, extras, &value, signer)?)
}

/// The inputs of a root mandate that the key app decides (§3.3): everything
/// but iss and principal_jwk, which come from the signer.
#[derive(Debug, Clone)]
pub struct RootMandate {
    /// The hosts it is for; never `*` (§3.3 check 2).
    pub aud: Audience,
    /// A stable pseudonym of the principal for these hosts (§3.3 `sub`).
    pub sub: String,
    /// The mandate's id (§3.3 `jti`).
    pub jti: String,
    /// When it is issued (NumericDate).
    pub iat: i64,
    /// When it expires (NumericDate).
    pub exp: i64,
    /// Thumbprint of the agent key that asked (docs/agent-api.md: never the agent's choice).
    pub agent_jkt: String,
    /// The actions it allows.
    pub scope: Vec<Action>,
    /// Its constraints (§3.3 check 6); `None` is none.
    pub constraints: Option<Constraints>,
    /// What the person consented to (§3.3 `consent`).
    pub consent: Consent,
    /// How a host may reach the person, when they share it.
    pub contact: Option<Contact>,
    /// The status URL a host checks the mandate at (§3.3 `status`).
    pub status: Option<String>,
    /// Attestations about the principal, compact JWS (§7.5).
    pub attestations: Vec<String>,
}

/// Signs a root mandate and checks it as each host in its aud would (§3.3 1–4).
pub fn root_mandate(m: RootMandate, principal: &dyn Signer) -> Result<Issued<MandateClaims>, Error> {
    let jwk = principal.public_key().to_jwk();
    let claims = MandateClaims {
        iss: jwk.principal_id()?,
        sub: m.sub,
        aud: m.aud,
        iat: m.iat,
        exp: m.exp,
        jti: m.jti,
        cnf: Cnf { jkt: m.agent_jkt },
        principal_jwk: Some(jwk),
        issuer_jwk: None,
        parent: None,
        scope: m.scope,
        constraints: m.constraints,
        consent: Some(m.consent),
        contact: m.contact,
        status: m.status,
        attestations: (!m.attestations.is_empty()).then_some(m.attestations),
    };
    if claims.aud.hosts().iter().any(|h| h == "*") {
        return Err(Error::MandateInvalid(MandateCheck::WildcardAudience));
    }
    let compact = sign_validated(Typ::Mandate, Def::MandateClaims, &claims, HeaderExtras::default(), principal)?;
    for host in claims.aud.hosts() {
        let ctx = ChainContext { host_id: host, request_jkt: &claims.cnf.jkt, now: claims.iat, allow_wildcard: false };
        verify::verify_mandate_chain(&compact, &ctx)?;
    }
    Ok(Issued { compact, claims })
}

/// The scope and constraints of a closed mandate over one verified offer (§5.3
/// "Closed mandates"): the offer's hash, its slot as the window (its start alone
/// when open-ended), its total as max_price when it states one; book, or
/// reschedule of its booking for a change offer.
pub fn closed_mandate_terms(offer: &VerifiedOffer) -> (Vec<Action>, Constraints) {
    let c = &offer.claims;
    let (scope, bookings) = match c.kind {
        OfferKind::Booking => (vec![Action::Book], None),
        OfferKind::Change => (vec![Action::Reschedule], c.booking_id.clone().map(|b| vec![b])),
    };
    let constraints = Constraints {
        services: Some(vec![c.service.id.clone()]),
        window: Some(Window {
            not_before: c.slot.start.clone(),
            not_after: c.slot.end.clone().unwrap_or_else(|| c.slot.start.clone()),
        }),
        max_price: c.total.clone(),
        max_bookings: None,
        shared_limit: None,
        offer_sha256: Some(offer.offer_sha256.clone()),
        bookings,
    };
    (scope, constraints)
}

/// A closed mandate: expires no later than the offer (§5.3). `status` is its
/// status URL (§3.3 check 7), so the person's yes can be taken back until the
/// booking is made.
#[allow(clippy::too_many_arguments)]
pub fn closed_mandate(
    offer: &VerifiedOffer,
    sub: String,
    jti: String,
    iat: i64,
    exp: i64,
    agent_jkt: String,
    consent: Consent,
    status: Option<String>,
    principal: &dyn Signer,
) -> Result<Issued<MandateClaims>, Error> {
    let (scope, constraints) = closed_mandate_terms(offer);
    root_mandate(
        RootMandate {
            aud: Audience::One(offer.claims.iss.clone()),
            sub,
            jti,
            iat,
            exp: exp.min(offer.claims.exp),
            agent_jkt,
            scope,
            constraints: Some(constraints),
            consent,
            contact: None,
            status,
            attestations: Vec::new(),
        },
        principal,
    )
}

/// No management mandate lives longer than this from its issuance, whatever
/// the booking's end says (a receipt's dates are the host's word).
pub const MAX_MANAGEMENT_LIFETIME: i64 = 180 * 86_400;

/// What a management mandate may be, beside its booking: the constraints it
/// keeps and the latest `exp` it may have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagementTerms {
    /// The root's services, window and max_price (none when the person
    /// approved the mandate themselves); `bookings` is always the receipt's.
    pub constraints: Constraints,
    /// The latest `exp` allowed: the root's own exp, or for one the person
    /// approved, [`MAX_MANAGEMENT_LIFETIME`] past `iat`.
    pub not_after: i64,
}

impl ManagementTerms {
    /// The terms under `root` (§3.3): its services, window and max_price, and
    /// a lifetime that ends with the root's. Signed without a prompt, it may
    /// not outlast what the person read ("Valid until …" on the root):
    /// "Renewal never widens authority", and neither does issuance. Managing
    /// a booking past the root's end is the person's own yes.
    pub fn under_root(root: &MandateClaims) -> ManagementTerms {
        let c = root.constraints.clone().unwrap_or_default();
        ManagementTerms {
            constraints: Constraints {
                services: c.services,
                window: c.window,
                max_price: c.max_price,
                ..Constraints::default()
            },
            not_after: root.exp,
        }
    }

    /// The terms of one the person approved, seeing the booking and expiry:
    /// its service, and a total no higher than the booking's (its `total`, or
    /// its `price` when it states no total). What the person reads is that the
    /// assistant may cancel it or "move it to another time, and nothing else";
    /// without these a move could change the service or cost more, which is a
    /// new yes (§5.7 change offers state their own total).
    pub fn approved(iat: i64, booking: &crate::claims::Booking) -> ManagementTerms {
        ManagementTerms {
            constraints: Constraints {
                services: Some(vec![booking.service_id.clone()]),
                max_price: booking.total.clone().or_else(|| booking.price.clone()),
                ..Constraints::default()
            },
            not_after: iat.saturating_add(MAX_MANAGEMENT_LIFETIME),
        }
    }
}

/// §3.3 "Renewal": the reference key app's management mandates last until the
/// booking's end plus one hour, and never past `terms.not_after` nor
/// [`MAX_MANAGEMENT_LIFETIME`] past `iat`. An open-ended booking's end is its
/// start plus the time its calendar event sets aside (§4.2).
pub fn management_expiry(receipt: &VerifiedReceipt, iat: i64, terms: &ManagementTerms) -> Result<i64, Error> {
    let b = &receipt.claims.booking;
    let end = match &b.end {
        Some(end) => crate::datetime::parse_date_time(end)?,
        None => {
            let start = crate::datetime::parse_date_time(&b.start)?;
            let set_aside = crate::duration::Duration::parse(&b.event.duration)?;
            start.checked_add_signed(set_aside.to_time_delta()?).ok_or(Error::BadSlot(SlotCheck::SetAsideOverflows))?
        }
    };
    Ok(end.timestamp().saturating_add(3600).min(terms.not_after).min(iat.saturating_add(MAX_MANAGEMENT_LIFETIME)))
}

/// A management mandate for the booking a verified receipt names: cancel and
/// reschedule of that booking only, never hold or book, even on renewal, and
/// within `terms` (§3.3). `status` is its status URL (§3.3 check 7), so the
/// person can take it back.
#[allow(clippy::too_many_arguments)]
pub fn management_mandate(
    receipt: &VerifiedReceipt,
    terms: &ManagementTerms,
    sub: String,
    jti: String,
    iat: i64,
    agent_jkt: String,
    consent: Consent,
    status: Option<String>,
    principal: &dyn Signer,
) -> Result<Issued<MandateClaims>, Error> {
    let exp = management_expiry(receipt, iat, terms)?;
    if exp <= iat {
        return Err(Error::Expired { what: "booking", exp, now: iat });
    }
    let constraints = Constraints {
        bookings: Some(vec![receipt.claims.booking.booking_id.clone()]),
        offer_sha256: None,
        max_bookings: None,
        shared_limit: None,
        ..terms.constraints.clone()
    };
    root_mandate(
        RootMandate {
            aud: Audience::One(receipt.claims.iss.clone()),
            sub,
            jti,
            iat,
            exp,
            agent_jkt,
            scope: vec![Action::Cancel, Action::Reschedule],
            constraints: Some(constraints),
            consent,
            contact: None,
            status,
            attestations: Vec::new(),
        },
        principal,
    )
}

/// An SD-JWT VC mandate's inputs (§3.4).
#[derive(Debug, Clone)]
pub struct SdJwtMandate {
    /// A stable pseudonym of the principal for these hosts (§3.3 `sub`).
    pub sub: String,
    /// The mandate's id (§3.3 `jti`).
    pub jti: String,
    /// When it is issued (NumericDate).
    pub iat: i64,
    /// When it expires (NumericDate).
    pub exp: i64,
    /// The agent's key, bound as `cnf.jwk` (§3.4).
    pub agent_jwk: Jwk,
    /// The actions it allows.
    pub scope: Vec<Action>,
    /// Shared by every host.
    pub constraints: Constraints,
    /// Each host's own constraints (possibly empty), keyed by host id.
    pub host_constraints: BTreeMap<String, Constraints>,
    /// What the person consented to (§3.3 `consent`).
    pub consent: Consent,
    /// How a host may reach the person, when they share it.
    pub contact: Option<Contact>,
    /// The status URL a host checks the mandate at (§3.3 `schcp_status`).
    pub schcp_status: Option<String>,
    /// How many digests `aud` and `host_constraints` each hold: one per host,
    /// and decoys for the rest (§3.4: "SHOULD pad aud and host_constraints with
    /// decoy digests so their length does not count the hosts"). A fixed size at
    /// least the issuer's host maximum tells a host nothing about the others; a
    /// mandate with more hosts than this gets no decoys.
    pub padded_to: usize,
    /// The attestations each host honours (§7.5), by host id: each is a
    /// disclosable element of `attestations`, disclosed only to the hosts
    /// listed for it. At most four in all (§3.3).
    pub attestations: BTreeMap<String, Vec<String>>,
}

/// An issued SD-JWT VC mandate: the issuer JWT and each host's disclosures.
#[derive(Debug, Clone)]
pub struct IssuedSdJwt {
    /// The issuer-signed JWT (`dc+sd-jwt`), holding only digests of each host's part.
    pub issuer_jwt: String,
    /// Each host's disclosures (its aud element and its constraints), by host id.
    pub disclosures: BTreeMap<String, Vec<String>>,
}

impl IssuedSdJwt {
    /// `<issuer JWT>~<that host's disclosures>~`, ready for the agent's KB-JWT.
    pub fn presentation_for(&self, host: &str) -> Option<String> {
        let d = self.disclosures.get(host)?;
        Some(sdjwt::presentation_prefix(&self.issuer_jwt, d.iter().map(String::as_str)))
    }
}

/// Issues an SD-JWT VC mandate (§3.4): one aud element and one host_constraints member per host,
/// each selectively disclosable, padded with decoys to `padded_to` digests; each host's
/// evaluated constraints are checked first.
// Long by design: §3.4's issuance in order: checks, disclosures and decoys, signature.
pub fn sd_jwt_mandate(
    m: SdJwtMandate,
    rng: &mut dyn CryptoRngCore,
    principal: &dyn Signer,
) -> Result<IssuedSdJwt, Error> {
    let invalid = Error::MandateInvalid;
    if m.host_constraints.is_empty() {
        return Err(invalid(MandateCheck::NoHost));
    }
    if m.host_constraints.contains_key("*") {
        return Err(invalid(MandateCheck::WildcardAudience));
    }
    if m.constraints.offer_sha256.is_some() && m.host_constraints.len() != 1 {
        return Err(invalid(MandateCheck::ClosedForSeveralHosts));
    }
    let shared =
        serde_json::to_value(&m.constraints).map_err(|_| invalid(MandateCheck::MistypedClaim("constraints")))?;
    let mut aud = Vec::new();
    let mut sd = Vec::new();
    let mut disclosures = BTreeMap::new();
    for (host, own) in &m.host_constraints {
        let own_value =
            serde_json::to_value(own).map_err(|_| invalid(MandateCheck::MistypedClaim("host_constraints")))?;
        if let (Some(a), Some(b)) = (shared.as_object(), own_value.as_object()) {
            if let Some(k) = a.keys().find(|k| b.contains_key(*k)) {
                return Err(invalid(MandateCheck::ConstraintSetTwice { constraint: k.clone(), host: host.clone() }));
            }
        }
        // Each host's evaluated constraints must be a valid Constraints (§3.4).
        let mut merged = shared.as_object().cloned().unwrap_or_default();
        merged.extend(own_value.as_object().cloned().unwrap_or_default());
        schema::validate(Def::Constraints, &Value::Object(merged))?;
        let a = Disclosure::element(rng, Value::String(host.clone()));
        let h = Disclosure::member(rng, host, own_value);
        aud.push(sdjwt::array_placeholder(&a.digest));
        sd.push(h.digest.clone());
        disclosures.insert(host.clone(), vec![a.encoded, h.encoded]);
    }
    for _ in m.host_constraints.len()..m.padded_to {
        aud.push(sdjwt::array_placeholder(&sdjwt::decoy_digest(rng)));
        sd.push(sdjwt::decoy_digest(rng));
    }
    let attestations = attestation_elements(&m.attestations, &mut disclosures, rng)?;
    // Sorted digests reveal nothing about which position a host holds.
    aud.sort_by(|x, y| x["..."].as_str().cmp(&y["..."].as_str()));
    sd.sort();
    let jwk = principal.public_key().to_jwk();
    let mut claims = Map::new();
    claims.insert("iss".into(), Value::String(jwk.principal_id()?));
    claims.insert("sub".into(), Value::String(m.sub));
    claims.insert("iat".into(), m.iat.into());
    claims.insert("exp".into(), m.exp.into());
    claims.insert("jti".into(), Value::String(m.jti));
    claims.insert("aud".into(), Value::Array(aud));
    claims.insert(
        "scope".into(),
        serde_json::to_value(&m.scope).map_err(|_| invalid(MandateCheck::MistypedClaim("scope")))?,
    );
    claims.insert("constraints".into(), shared);
    claims.insert("host_constraints".into(), serde_json::json!({ "_sd": sd }));
    claims.insert("cnf".into(), serde_json::json!({ "jwk": m.agent_jwk }));
    if let Some(a) = attestations {
        claims.insert("attestations".into(), Value::Array(a));
    }
    if let Some(s) = m.schcp_status {
        claims.insert("schcp_status".into(), Value::String(s));
    }
    claims.insert(
        "consent".into(),
        serde_json::to_value(&m.consent).map_err(|_| invalid(MandateCheck::MistypedClaim("consent")))?,
    );
    if let Some(c) = m.contact {
        claims.insert(
            "contact".into(),
            serde_json::to_value(&c).map_err(|_| invalid(MandateCheck::MistypedClaim("contact")))?,
        );
    }
    claims.insert("_sd_alg".into(), Value::String(sdjwt::SD_ALG.into()));
    let claims = Value::Object(claims);
    schema::validate(Def::SdJwtMandateClaims, &claims)?;
    let issuer_jwt = sdjwt::sign_issuer_jwt(&claims, principal)?;
    Ok(IssuedSdJwt { issuer_jwt, disclosures })
}

/// §7.5 in an SD-JWT VC mandate: every attestation a disclosable element of
/// `attestations`, padded with decoys to four so the count tells a host
/// nothing, each disclosed only to the hosts that honour it (added to their
/// `disclosures`). `None` when no host honours any.
fn attestation_elements(
    per_host: &BTreeMap<String, Vec<String>>,
    disclosures: &mut BTreeMap<String, Vec<String>>,
    rng: &mut dyn CryptoRngCore,
) -> Result<Option<Vec<Value>>, Error> {
    let mut all: Vec<&String> = per_host.values().flatten().collect();
    all.sort();
    all.dedup();
    if all.is_empty() {
        return Ok(None);
    }
    if all.len() > MandateClaims::MAX_ATTESTATIONS {
        return Err(Error::MandateInvalid(MandateCheck::MistypedClaim("attestations")));
    }
    let mut elements = Vec::new();
    for a in all {
        let d = Disclosure::element(rng, Value::String(a.clone()));
        for (host, theirs) in per_host {
            if theirs.contains(a) {
                let Some(own) = disclosures.get_mut(host) else {
                    // An attestation for a host the mandate does not name.
                    return Err(Error::MandateInvalid(MandateCheck::MistypedClaim("attestations")));
                };
                own.push(d.encoded.clone());
            }
        }
        elements.push(sdjwt::array_placeholder(&d.digest));
    }
    while elements.len() < MandateClaims::MAX_ATTESTATIONS {
        elements.push(sdjwt::array_placeholder(&sdjwt::decoy_digest(rng)));
    }
    elements.sort_by(|x, y| x["..."].as_str().cmp(&y["..."].as_str()));
    Ok(Some(elements))
}

/// Signs a meeting contract as the organizer (§5.12). `claims.statement` is the
/// consent text the organizer approved, rendered from these same claims.
pub fn meeting_contract(
    mut claims: MeetingContract,
    now: i64,
    organizer: &dyn Signer,
) -> Result<VerifiedContract, Error> {
    let jwk = organizer.public_key().to_jwk();
    claims.iss = jwk.principal_id()?;
    claims.principal_jwk = jwk;
    let compact = sign_validated(Typ::Meeting, Def::MeetingContract, &claims, HeaderExtras::default(), organizer)?;
    verify::verify_meeting_contract(&compact, now)
}

/// A member's acceptance by person (§5.12), over the contract they were shown.
pub fn acceptance(
    contract: &VerifiedContract,
    statement: String,
    iat: i64,
    member: &dyn Signer,
) -> Result<VerifiedAcceptance, Error> {
    let jwk = member.public_key().to_jwk();
    let iss = jwk.principal_id()?;
    let claims = Acceptance {
        iss: iss.clone(),
        iat,
        terms_sha256: contract.contract_sha256.clone(),
        meeting_id: Some(contract.claims.meeting_id.clone()),
        by: AcceptedBy::Person,
        statement: Some(statement),
        jwk,
        rule: None,
    };
    let compact = sign_validated(Typ::Acceptance, Def::Acceptance, &claims, HeaderExtras::default(), member)?;
    verify::verify_acceptance(&compact, contract, &iss, iat)
}

/// The person's own yes to an ordinary booking at their calendar (§7.9: "A host
/// may also record a person's own yes to an ordinary booking as an acceptance
/// (§5.12) of the booking's offer hash"): `terms_sha256` the offer's hash, no
/// `meeting_id`, `by: "person"`, signed by the person's own key.
pub fn booking_acceptance(
    offer: &VerifiedOffer,
    statement: String,
    iat: i64,
    person: &dyn Signer,
) -> Result<Issued<Acceptance>, Error> {
    let jwk = person.public_key().to_jwk();
    let claims = Acceptance {
        iss: jwk.principal_id()?,
        iat,
        terms_sha256: offer.offer_sha256.clone(),
        meeting_id: None,
        by: AcceptedBy::Person,
        statement: Some(statement),
        jwk,
        rule: None,
    };
    let compact = sign_validated(Typ::Acceptance, Def::Acceptance, &claims, HeaderExtras::default(), person)?;
    Ok(Issued { compact, claims })
}

/// A rule (§7.9), signed by the person for one calendar agent key.
pub fn rule(mut claims: RuleClaims, person: &dyn Signer) -> Result<VerifiedRule, Error> {
    let jwk = person.public_key().to_jwk();
    claims.iss = jwk.principal_id()?;
    claims.principal_jwk = jwk;
    if claims.exp <= claims.iat {
        return Err(Error::RuleInvalid(RuleCheck::ExpiresBeforeIssued));
    }
    if let (Some(_), None) = (&claims.weekdays, &claims.tz) {
        return Err(Error::RuleInvalid(RuleCheck::WeekdaysWithoutZone));
    }
    let compact = sign_validated(Typ::Rule, Def::Rule, &claims, HeaderExtras::default(), person)?;
    verify::verify_rule(&compact)
}

/// RFC 3339 of a NumericDate, in UTC, for windows built from instants.
pub fn rfc3339_utc(t: i64) -> Option<String> {
    DateTime::from_timestamp(t, 0).map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}
