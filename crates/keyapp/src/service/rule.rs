//! The `rule` kind (docs/agent-api.md §6; §7.9): a person's standing yes, signed once, that one
//! calendar agent key may give for them.
//!
//! A rule is never published (§7.9 "Rules are kept by the person's calendar"), so
//! nothing can take it back once the agent holds it: its lifetime is its only
//! bound, and it is kept short (README "Limits").

use super::pipeline::{body, capped_lifetime, corrupt, Issued, Prepared};
use super::{Requester, Service, ServiceError};
use crate::kind::RequestKind;
use crate::store::credentials::CredentialRecord;
use schcp::claims::{Cnf, RuleClaims, Weekday};
use schcp::refusal::Reason;
use schcp::schema::{self, Def};
use schcp_consent::{AgentKey, ConsentRequest, RuleRequest};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// A rule lives at most this long…
pub const MAX_RULE_LIFETIME: i64 = 180 * 86_400;
/// …and this long when the agent does not say.
pub const DEFAULT_RULE_LIFETIME: i64 = 30 * 86_400;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleBody {
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

pub(super) async fn prepare(
    svc: &Service,
    _agent: &Requester,
    obj: &Map<String, Value>,
) -> Result<Prepared, ServiceError> {
    let b: RuleBody = body(obj)?;
    let now = svc.now();
    let exp = now + rule_lifetime(b.lifetime.as_deref())?;
    let jwk = svc.principal_jwk();
    let draft = RuleClaims {
        iss: svc.principal().to_owned(),
        principal_jwk: jwk,
        iat: now,
        exp,
        jti: Service::new_id("r-"),
        cnf: Cnf { jkt: b.agent_jkt.clone() },
        label: b.label,
        services: b.services,
        weekdays: b.weekdays,
        tz: b.tz,
        organizers: b.organizers,
    };
    // The rule as it will be signed must be a valid rule (§7.9): the schema and
    // the typed claims (a thumbprint for cnf.jkt, ids, a known zone, tz with
    // weekdays), checked before the person is asked.
    let value = serde_json::to_value(&draft).map_err(corrupt)?;
    schema::validate(Def::Rule, &value).map_err(|e| ServiceError::invalid(Reason::BadRule, e.to_string()))?;
    let rule: RuleClaims =
        serde_json::from_value(value.clone()).map_err(|e| ServiceError::invalid(Reason::BadRule, e.to_string()))?;
    if let Some(tz) = &rule.tz {
        schcp::verify::parse_tz(tz).map_err(|e| ServiceError::invalid(Reason::BadRule, e.to_string()))?;
    }
    let agent =
        AgentKey { name: svc.paired_agent_name(&rule.cnf.jkt).await?, fingerprint: super::fingerprint(&rule.cnf.jkt) };
    let consent = ConsentRequest::Rule(RuleRequest { rule, agent });
    Ok(Prepared {
        consent,
        input: json!({ "rule": value }),
        not_after: Some(exp),
        auto_approve: false,
        hosts: Vec::new(),
    })
}

pub(super) async fn issue(
    svc: &Service,
    agent_jkt: &str,
    input: &Value,
    _statement: &str,
    now: i64,
) -> Result<Issued, ServiceError> {
    let mut claims: RuleClaims = serde_json::from_value(input["rule"].clone()).map_err(corrupt)?;
    // Signed when the person said yes; the expiry is the one they read.
    claims.iat = now;
    let issued = schcp::issue::rule(claims, svc.inner.key.as_ref())?;
    let c = &issued.claims;
    let result = json!({ "rule": issued.compact, "jti": c.jti, "exp": c.exp });
    Ok(Issued {
        result,
        credentials: vec![CredentialRecord {
            jti: c.jti.clone(),
            kind: RequestKind::Rule,
            agent_jkt: Some(agent_jkt.to_owned()),
            request_id: None,
            aud: Vec::new(),
            scope: Vec::new(),
            iat: now,
            exp: c.exp,
            compact: issued.compact.clone(),
            status_url: None,
            max_bookings: None,
            shared_limit: false,
            booking_id: None,
            host_keys: Default::default(),
        }],
        receipt: None,
        meeting: None,
        management: None,
    })
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
}
