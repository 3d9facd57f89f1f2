//! `verify_rule` (§7.9): a rule a person signed so their calendar agent may say
//! yes for them.

use super::{parse_tz, typed_claims};
use crate::claims::{RuleClaims, Weekday};
use crate::error::{Error, RuleCheck};
use crate::jwk::PublicKey;
use crate::jws::{self, Typ};
use crate::schema::Def;
use chrono::{DateTime, Datelike, FixedOffset};

/// A rule that passed the §7.9 checks; whether it is in force is judged where it is used.
#[derive(Debug, Clone)]
pub struct VerifiedRule {
    /// The compact JWS.
    pub compact: String,
    /// Its claims.
    pub claims: RuleClaims,
}

/// Signature by principal_jwk, iss its principal, closed schema, and a zone that
/// exists when weekdays are read in it. Validity in time is judged where the
/// rule is used (§5.12: at the acceptance's iat), not here.
pub fn verify_rule(compact: &str) -> Result<VerifiedRule, Error> {
    let inner = || -> Result<VerifiedRule, Error> {
        let parsed = jws::parse(compact)?;
        parsed.expect_typ(Typ::Rule)?;
        let claims: RuleClaims = typed_claims(&parsed, Def::Rule)?;
        let key = PublicKey::Ed25519(claims.principal_jwk.ed25519_key()?);
        parsed.verify_signature(&key)?;
        if claims.iss != claims.principal_jwk.principal_id()? {
            return Err(Error::RuleInvalid(RuleCheck::IssuerNotPrincipal));
        }
        match (&claims.weekdays, &claims.tz) {
            (Some(_), None) => return Err(Error::RuleInvalid(RuleCheck::WeekdaysWithoutZone)),
            (_, Some(tz)) => {
                parse_tz(tz)?;
            }
            _ => {}
        }
        Ok(VerifiedRule { compact: compact.to_owned(), claims })
    };
    inner().map_err(|e| match e {
        Error::RuleInvalid(_) => e,
        other => Error::RuleInvalid(RuleCheck::Underlying(Box::new(other))),
    })
}

impl VerifiedRule {
    /// §7.9: in force at `at` (rule.iat − 60 ≤ at < rule.exp; exp gets no skew).
    pub fn in_force_at(&self, at: i64) -> bool {
        self.claims.iat - super::IAT_SKEW <= at && at < self.claims.exp
    }

    /// §7.9: every field the rule states matches; an absent one does not narrow it.
    pub fn covers(&self, service_id: &str, start: &DateTime<FixedOffset>, organizer: &str) -> bool {
        let c = &self.claims;
        if let Some(services) = &c.services {
            if !services.iter().any(|s| s == service_id) {
                return false;
            }
        }
        if let Some(days) = &c.weekdays {
            let Some(tz) = c.tz.as_deref().and_then(|t| t.parse::<chrono_tz::Tz>().ok()) else {
                return false;
            };
            let local = start.with_timezone(&tz).weekday();
            if !days.iter().any(|d| weekday_matches(*d, local)) {
                return false;
            }
        }
        if let Some(orgs) = &c.organizers {
            if !orgs.iter().any(|o| o == organizer) {
                return false;
            }
        }
        true
    }
}

fn weekday_matches(d: Weekday, w: chrono::Weekday) -> bool {
    matches!(
        (d, w),
        (Weekday::Mon, chrono::Weekday::Mon)
            | (Weekday::Tue, chrono::Weekday::Tue)
            | (Weekday::Wed, chrono::Weekday::Wed)
            | (Weekday::Thu, chrono::Weekday::Thu)
            | (Weekday::Fri, chrono::Weekday::Fri)
            | (Weekday::Sat, chrono::Weekday::Sat)
            | (Weekday::Sun, chrono::Weekday::Sun)
    )
}
