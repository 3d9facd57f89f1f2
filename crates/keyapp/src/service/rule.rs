//! The `rule` kind (docs/agent-api.md §6; §7.9): a person's standing yes, signed once, that one
//! calendar agent key may give for them.
//!
//! A rule is never published (§7.9 "Rules are kept by the person's calendar"), so
//! nothing can take it back once the agent holds it: its lifetime is its only
//! bound, and it is kept short (README "Limits").

use super::issued::{credential, Issued};
use super::kind::{capped_lifetime, Context, Kind, Prepared};
use super::{corrupt, Service, ServiceError};
use crate::kind::RequestKind;
use schcp::claims::{Cnf, RuleClaims, Weekday};
use schcp::refusal::Reason;
use schcp::schema::{self, Def};
use schcp_consent::{AgentKey, ConsentRequest, RuleRequest};
use serde::{Deserialize, Serialize};

/// A rule lives at most this long…
pub const MAX_RULE_LIFETIME: i64 = 180 * 86_400;
/// …and this long when the agent does not say.
pub const DEFAULT_RULE_LIFETIME: i64 = 30 * 86_400;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RuleBody {
    agent_jkt: String,
    label: String,
    services: Option<Vec<String>>,
    weekdays: Option<Vec<Weekday>>,
    tz: Option<String>,
    organizers: Option<Vec<String>>,
    lifetime: Option<String>,
}

/// The rule's lifetime in seconds: what the agent asked for, capped.
fn rule_lifetime(asked: Option<&str>) -> Result<i64, ServiceError> {
    capped_lifetime(asked, DEFAULT_RULE_LIFETIME, MAX_RULE_LIFETIME)
}

/// The rule as it will be signed, checked (§7.9); the person may still edit
/// its label (`relabel_rule`), which edits `rule.label` in the stored input.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RuleInput {
    rule: RuleClaims,
}

#[derive(Serialize)]
pub(super) struct RuleResult {
    rule: String,
    jti: String,
    exp: i64,
}

/// The rule as it will be signed must be a valid rule (§7.9): the schema and
/// the typed claims (a thumbprint for cnf.jkt, ids, a known zone, tz with
/// weekdays), checked before the person is asked.
fn checked_rule(draft: &RuleClaims) -> Result<RuleClaims, ServiceError> {
    let bad = |e: String| ServiceError::invalid(Reason::BadRule, e);
    let value = serde_json::to_value(draft).map_err(corrupt)?;
    schema::validate(Def::Rule, &value).map_err(|e| bad(e.to_string()))?;
    let rule: RuleClaims = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
    if let Some(tz) = &rule.tz {
        schcp::verify::parse_tz(tz).map_err(|e| bad(e.to_string()))?;
    }
    Ok(rule)
}

pub(super) struct Rule;

impl Kind for Rule {
    const KIND: RequestKind = RequestKind::Rule;
    type Body = RuleBody;
    type Input = RuleInput;
    type Output = RuleResult;

    async fn prepare(ctx: &Context<'_>, b: RuleBody) -> Result<Prepared<RuleInput>, ServiceError> {
        let now = ctx.now;
        let exp = now + rule_lifetime(b.lifetime.as_deref())?;
        let rule = checked_rule(&RuleClaims {
            iss: ctx.principal.id.to_owned(),
            principal_jwk: ctx.principal.jwk(),
            iat: now,
            exp,
            jti: Service::new_id("r-"),
            cnf: Cnf { jkt: b.agent_jkt },
            label: b.label,
            services: b.services,
            weekdays: b.weekdays,
            tz: b.tz,
            organizers: b.organizers,
        })?;
        let name = ctx.records.paired_agent_name(&rule.cnf.jkt).await?;
        let agent = AgentKey { name, fingerprint: super::fingerprint(&rule.cnf.jkt) };
        let consent = ConsentRequest::Rule(RuleRequest { rule: rule.clone(), agent });
        Ok(Prepared::asked(consent, RuleInput { rule }, Some(exp)))
    }

    async fn issue(ctx: &Context<'_>, input: RuleInput, _statement: &str) -> Result<Issued<RuleResult>, ServiceError> {
        let mut claims = input.rule;
        // Signed when the person said yes; the expiry is the one they read.
        claims.iat = ctx.now;
        let issued = schcp::issue::rule(claims, ctx.principal.key)?;
        let c = &issued.claims;
        let record = credential(Self::KIND, c.jti.clone(), ctx.agent_jkt, ctx.now, c.exp, issued.compact.clone());
        let result = RuleResult { rule: issued.compact.clone(), jti: c.jti.clone(), exp: c.exp };
        Ok(Issued::one(result, record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifetimes_are_capped_and_defaulted() {
        assert_eq!(rule_lifetime(None).unwrap(), DEFAULT_RULE_LIFETIME);
        assert_eq!(rule_lifetime(Some("P7D")).unwrap(), 7 * 86_400);
        assert_eq!(rule_lifetime(Some("P1000D")).unwrap(), MAX_RULE_LIFETIME);
        assert!(matches!(rule_lifetime(Some("P3Y")), Err(ServiceError::Invalid { reason: Reason::BadLifetime, .. })));
        assert!(matches!(
            rule_lifetime(Some("forever")),
            Err(ServiceError::Invalid { reason: Reason::BadLifetime, .. })
        ));
    }

    use crate::service::kind::testing::{all_malformed, parse, refusal, round_trips};

    const BODY: &str = r#"{"kind":"rule","idempotency_key":"k","agent_jkt":"abc","label":"Playdates"#;

    #[test]
    fn the_body_has_a_closed_shape() {
        let ok = parse::<Rule>(&format!(r#"{BODY}","weekdays":["sat"],"lifetime":"P7D"}}"#)).unwrap();
        assert_eq!(
            (ok.agent_jkt.as_str(), ok.label.as_str(), ok.lifetime.as_deref()),
            ("abc", "Playdates", Some("P7D"))
        );
        all_malformed::<Rule>(&[
            r#"{"kind":"rule","idempotency_key":"k","label":"x"}"#.to_owned(),
            format!(r#"{BODY}","weekdays":"sat"}}"#),
            format!(r#"{BODY}","scope":["book"]}}"#),
            format!(r#"{BODY}","label":"again"}}"#),
        ]);
    }

    fn draft() -> RuleClaims {
        let key = ed25519_dalek::SigningKey::from_bytes(&[4; 32]);
        let jwk = schcp::jwk::Jwk::ed25519(&key.verifying_key());
        let agent = schcp::jwk::Jwk::ed25519(&ed25519_dalek::SigningKey::from_bytes(&[5; 32]).verifying_key());
        RuleClaims {
            iss: jwk.principal_id().unwrap(),
            principal_jwk: jwk,
            iat: 1_796_000_000,
            exp: 1_796_000_000 + 86_400,
            jti: "r-1".into(),
            cnf: Cnf { jkt: agent.thumbprint().unwrap() },
            label: "Playdates".into(),
            services: None,
            weekdays: Some(vec![Weekday::Sat]),
            tz: Some("America/Toronto".into()),
            organizers: None,
        }
    }

    #[test]
    fn a_rule_is_checked_as_it_will_be_signed() {
        assert_eq!(checked_rule(&draft()).unwrap(), draft());
        let unknown_zone = RuleClaims { tz: Some("Mars/Olympus".into()), ..draft() };
        let not_a_thumbprint = RuleClaims { cnf: Cnf { jkt: "abc".into() }, ..draft() };
        for bad in [unknown_zone, not_a_thumbprint] {
            assert_eq!(refusal(checked_rule(&bad)), Reason::BadRule);
        }
    }

    #[test]
    fn the_input_round_trips_in_the_shape_relabelling_edits() {
        let input = RuleInput { rule: draft() };
        round_trips(&input);
        let stored = serde_json::to_value(&input).unwrap();
        assert_eq!(stored["rule"]["label"], "Playdates");
    }
}
