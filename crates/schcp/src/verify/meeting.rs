//! Meeting contracts and acceptances (§5.12).

use super::rule::{verify_rule, VerifiedRule};
use super::{parse_tz, typed_claims, IAT_SKEW};
use crate::claims::{Acceptance, AcceptedBy, Answers, MeetingContract, Member};
use crate::datetime::parse_date_time;
use crate::error::{AcceptanceCheck, Error, MeetingCheck};
use crate::jwk::PublicKey;
use crate::jws::{self, Typ};
use crate::schema::Def;
use chrono::{DateTime, FixedOffset};
use std::collections::HashSet;

/// The principal a business member is named by (§5.12 "Businesses").
pub const HOST_PRINCIPAL_PREFIX: &str = "urn:schcp:host:";

/// A meeting contract that passed the §5.12 checks.
#[derive(Debug, Clone)]
pub struct VerifiedContract {
    /// The compact JWS.
    pub compact: String,
    /// Its claims.
    pub claims: MeetingContract,
    /// §5.12 "Hash": what every member accepts.
    pub contract_sha256: String,
    /// The meeting's start.
    pub start: DateTime<FixedOffset>,
}

impl VerifiedContract {
    /// The member named by `principal`, if any.
    pub fn member(&self, principal: &str) -> Option<&Member> {
        self.claims.members.iter().find(|m| m.principal == principal)
    }

    /// §5.12 "answers": a member's own answers overrides the contract's.
    pub fn answers_for(&self, member: &Member) -> Answers {
        member.answers.or(self.claims.answers).unwrap_or(Answers::PersonOrRule)
    }
}

fn meeting_invalid(check: MeetingCheck) -> Error {
    Error::MeetingInvalid(check)
}

/// Any failure of a contract is meeting_invalid (§5.12), whichever check found it.
fn as_meeting_error(e: Error) -> Error {
    match e {
        Error::MeetingInvalid(_) => e,
        other => Error::MeetingInvalid(MeetingCheck::Underlying(Box::new(other))),
    }
}

/// Signature with principal_jwk, iss its principal, closed schema, the member
/// and terms rules of §5.12, and an exp that has not passed.
pub fn verify_meeting_contract(compact: &str, now: i64) -> Result<VerifiedContract, Error> {
    let inner = || -> Result<VerifiedContract, Error> {
        let parsed = jws::parse(compact)?;
        parsed.expect_typ(Typ::Meeting)?;
        let claims: MeetingContract = typed_claims(&parsed, Def::MeetingContract)?;
        let key = PublicKey::Ed25519(claims.principal_jwk.ed25519_key()?);
        parsed.verify_signature(&key)?;
        if claims.iss != claims.principal_jwk.principal_id()? {
            return Err(meeting_invalid(MeetingCheck::IssuerNotPrincipal));
        }
        let start = check_contract_terms(&claims, now)?;
        Ok(VerifiedContract {
            compact: compact.to_owned(),
            contract_sha256: crate::hash::jws_sha256(compact),
            claims,
            start,
        })
    };
    inner().map_err(as_meeting_error)
}

/// The rules of §5.12 a contract's claims keep whoever signs them: an exp that
/// has not passed, a known zone, an end after the start, and the member rules.
/// The organizer's key app checks them before the person is asked; a verifier
/// checks them after the signature. Returns the start.
pub fn check_contract_terms(claims: &MeetingContract, now: i64) -> Result<DateTime<FixedOffset>, Error> {
    terms(claims, now).map_err(as_meeting_error)
}

fn terms(claims: &MeetingContract, now: i64) -> Result<DateTime<FixedOffset>, Error> {
    if now >= claims.exp {
        return Err(meeting_invalid(MeetingCheck::Expired { exp: claims.exp, now }));
    }
    parse_tz(&claims.tz)?;
    let start = parse_date_time(&claims.start)?;
    // Exactly one of end and open_end is the typed claims' own check.
    if let Some(end) = &claims.end {
        if parse_date_time(end)? <= start {
            return Err(meeting_invalid(MeetingCheck::EndNotAfterStart));
        }
    }
    check_members(claims)?;
    Ok(start)
}

/// §5.12 "Members" and "Businesses" (at least two is the typed claims' check): distinct principals, each on
/// its own calendar; the organizer is one of them and a person; at least one
/// other member is a person; a business is named by its host principal.
fn check_members(c: &MeetingContract) -> Result<(), Error> {
    let mut principals = HashSet::new();
    let mut hosts = HashSet::new();
    for m in &c.members {
        if !principals.insert(m.principal.as_str()) {
            return Err(meeting_invalid(MeetingCheck::RepeatedPrincipal { principal: m.principal.clone() }));
        }
        if !hosts.insert(m.host.as_str()) {
            return Err(meeting_invalid(MeetingCheck::SharedCalendar { host: m.host.clone() }));
        }
        let business = m.business.unwrap_or(false);
        let host_principal = format!("{HOST_PRINCIPAL_PREFIX}{}", m.host);
        if business != (m.principal == host_principal) {
            return Err(meeting_invalid(MeetingCheck::BusinessNaming { principal: m.principal.clone() }));
        }
    }
    let organizer = c
        .members
        .iter()
        .find(|m| m.principal == c.iss)
        .ok_or_else(|| meeting_invalid(MeetingCheck::OrganizerNotMember))?;
    if organizer.business.unwrap_or(false) {
        return Err(meeting_invalid(MeetingCheck::OrganizerIsBusiness));
    }
    if !c.members.iter().any(|m| m.principal != c.iss && !m.business.unwrap_or(false)) {
        return Err(meeting_invalid(MeetingCheck::NoOtherPerson));
    }
    Ok(())
}

/// An acceptance that passed the §5.12 checks for its member.
#[derive(Debug, Clone)]
pub struct VerifiedAcceptance {
    /// The compact JWS.
    pub compact: String,
    /// Its claims.
    pub claims: Acceptance,
    /// The rule it was given under, when by: "rule".
    pub rule: Option<VerifiedRule>,
}

fn acceptance_invalid(check: AcceptanceCheck) -> Error {
    Error::AcceptanceInvalid(check)
}

/// §5.12 "It is valid for a member when…": checks an acceptance against the
/// contract it names and the member who gives it. `terms_iat` is the contract's
/// iat (or, for an ordinary booking, when it was made).
// Long by design: §5.12's conditions in the spec's order, each with its own reason.
pub fn verify_acceptance(
    compact: &str,
    contract: &VerifiedContract,
    member_principal: &str,
    now: i64,
) -> Result<VerifiedAcceptance, Error> {
    let inner = || -> Result<VerifiedAcceptance, Error> {
        let parsed = jws::parse(compact)?;
        parsed.expect_typ(Typ::Acceptance)?;
        let claims: Acceptance = typed_claims(&parsed, Def::Acceptance)?;
        let key = PublicKey::Ed25519(claims.jwk.ed25519_key()?);
        parsed.verify_signature(&key)?;
        let member = contract.member(member_principal).ok_or_else(|| acceptance_invalid(AcceptanceCheck::NotMember))?;
        if member.business.unwrap_or(false) {
            return Err(acceptance_invalid(AcceptanceCheck::BusinessMember));
        }
        if member.principal == contract.claims.iss {
            return Err(acceptance_invalid(AcceptanceCheck::OrganizerMember));
        }
        if claims.iss != member.principal {
            return Err(acceptance_invalid(AcceptanceCheck::IssuerNotMember));
        }
        if claims.terms_sha256 != contract.contract_sha256 {
            return Err(acceptance_invalid(AcceptanceCheck::OtherTerms));
        }
        let terms = contract.claims.iat;
        if claims.iat < terms - IAT_SKEW || claims.iat > now + IAT_SKEW {
            return Err(acceptance_invalid(AcceptanceCheck::IatOutOfRange { iat: claims.iat, terms, now }));
        }
        let rule = match claims.by {
            AcceptedBy::Person => {
                if claims.rule.is_some() {
                    return Err(acceptance_invalid(AcceptanceCheck::PersonWithRule));
                }
                if claims.jwk.principal_id()? != claims.iss {
                    return Err(acceptance_invalid(AcceptanceCheck::PersonKeyNotOwn));
                }
                None
            }
            AcceptedBy::Rule => {
                if contract.answers_for(member) == Answers::Person {
                    return Err(Error::PersonRequired);
                }
                let compact_rule =
                    claims.rule.as_deref().ok_or_else(|| acceptance_invalid(AcceptanceCheck::RuleMissing))?;
                let rule = verify_rule(compact_rule)?;
                if rule.claims.iss != claims.iss {
                    return Err(acceptance_invalid(AcceptanceCheck::RuleByOtherPerson));
                }
                if rule.claims.cnf.jkt != claims.jwk.thumbprint()? {
                    return Err(acceptance_invalid(AcceptanceCheck::RuleForOtherKey));
                }
                if !rule.in_force_at(claims.iat) {
                    return Err(acceptance_invalid(AcceptanceCheck::RuleNotInForce));
                }
                if !rule.covers(&member.service_id, &contract.start, &contract.claims.iss) {
                    return Err(acceptance_invalid(AcceptanceCheck::RuleDoesNotCover));
                }
                Some(rule)
            }
        };
        Ok(VerifiedAcceptance { compact: compact.to_owned(), claims, rule })
    };
    inner().map_err(|e| match e {
        Error::AcceptanceInvalid(_) | Error::PersonRequired => e,
        other => Error::AcceptanceInvalid(AcceptanceCheck::Underlying(Box::new(other))),
    })
}
