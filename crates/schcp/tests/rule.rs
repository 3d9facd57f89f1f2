//! Rules (§7.9): signed by the person for one agent key; `verify_rule` checks the
//! signature and shape, `in_force_at` and `covers` what a rule answers for.

mod common;

use common::*;
use ed25519_dalek::SigningKey;
use schcp::claims::{Cnf, RuleClaims, Weekday};
use schcp::datetime::parse_date_time;
use schcp::issue;
use schcp::jws::JwsError;
use schcp::jws::{Signer, Typ};
use schcp::schema::Def;
use schcp::verify::{verify_rule, VerifiedRule};
use schcp::{Error, RuleCheck};
use serde_json::{json, Value};

const R_IAT: i64 = NOW;
const R_EXP: i64 = NOW + 30 * 86_400;

fn priya() -> SigningKey {
    SigningKey::from_bytes(&[0x82; 32])
}
fn calendar_agent() -> SigningKey {
    SigningKey::from_bytes(&[0x84; 32])
}
fn noor() -> SigningKey {
    SigningKey::from_bytes(&[0x81; 32])
}

/// The §7.9 example: Priya's weekend playdates, answered by her calendar's agent.
fn claims() -> RuleClaims {
    RuleClaims {
        iss: principal_id(&priya()),
        principal_jwk: jwk_of(&priya()),
        iat: R_IAT,
        exp: R_EXP,
        jti: "r-weekend-01".into(),
        cnf: Cnf { jkt: jkt(&calendar_agent()) },
        label: "Weekend playdates with my contacts".into(),
        services: Some(vec!["playdate".into()]),
        weekdays: Some(vec![Weekday::Sat, Weekday::Sun]),
        tz: Some("America/Toronto".into()),
        organizers: None,
    }
}

fn value() -> Value {
    serde_json::to_value(claims()).unwrap()
}

fn signed(v: &Value, signer: &dyn Signer) -> Result<VerifiedRule, Error> {
    verify_rule(&sign_plain(Typ::Rule, v, signer))
}

/// A rule_invalid failure for this check (so it failed for this reason).
#[track_caller]
fn assert_rule_invalid(result: Result<VerifiedRule, Error>, check: RuleCheck) {
    let err = result.expect_err("rule_invalid");
    assert_eq!(err, Error::RuleInvalid(check));
    assert_eq!(err.reason().reason, "rule_invalid");
}

/// The shared check (signature, schema, zone…) a rule_invalid failure wraps.
#[track_caller]
fn rule_invalid_because(result: Result<VerifiedRule, Error>) -> Error {
    match result {
        Err(ref e @ Error::RuleInvalid(RuleCheck::Underlying(ref inner))) => {
            assert_eq!(e.reason().reason, "rule_invalid", "{e}");
            (**inner).clone()
        }
        other => panic!("expected rule_invalid wrapping a shared check, got {other:?}"),
    }
}

fn at(s: &str) -> chrono::DateTime<chrono::FixedOffset> {
    parse_date_time(s).unwrap()
}

#[test]
fn the_spec_rule_issued_by_the_person_verifies() {
    let r = issue::rule(claims(), &priya()).expect("issue the §7.9 rule");
    let again = verify_rule(&r.compact).expect("verify it");
    assert_eq!(again.claims, r.claims);
    assert_eq!(again.claims.iss, principal_id(&priya()));
    assert_eq!(again.claims.cnf.jkt, jkt(&calendar_agent()));
}

#[test]
fn a_rule_signed_by_another_key_is_refused() {
    assert_eq!(rule_invalid_because(signed(&value(), &calendar_agent())), Error::Jws(JwsError::BadSignature));
}

#[test]
fn iss_is_the_principal_of_principal_jwk() {
    let v = with(&value(), "/iss", json!(principal_id(&noor())));
    assert_rule_invalid(signed(&v, &priya()), RuleCheck::IssuerNotPrincipal);
}

#[test]
fn weekdays_need_the_zone_they_are_read_in() {
    let v = without(&value(), "/tz");
    assert_schema(&rule_invalid_because(signed(&v, &priya())), Def::Rule, "");
    let err = issue::rule(RuleClaims { tz: None, ..claims() }, &priya()).unwrap_err();
    assert_eq!(err, Error::RuleInvalid(RuleCheck::WeekdaysWithoutZone));
    // Without weekdays, no zone is needed.
    issue::rule(RuleClaims { tz: None, weekdays: None, ..claims() }, &priya()).expect("no weekdays, no tz");
}

#[test]
fn a_zone_that_does_not_exist_is_refused() {
    let v = with(&value(), "/tz", json!("America/Springfield"));
    assert_eq!(rule_invalid_because(signed(&v, &priya())), Error::UnknownTimeZone("America/Springfield".into()));
}

#[test]
fn a_rule_is_closed() {
    let v = with(&value(), "/max_per_week", json!(2));
    assert_schema(&rule_invalid_because(signed(&v, &priya())), Def::Rule, "/max_per_week");
    let v = with(&value(), "/cnf/kid", json!("agent-1"));
    assert_schema(&rule_invalid_because(signed(&v, &priya())), Def::Rule, "/cnf/kid");
}

#[test]
fn a_rule_with_another_typ_is_refused() {
    assert!(matches!(
        rule_invalid_because(verify_rule(&sign_plain(Typ::Mandate, &value(), &priya()))),
        Error::Jws(JwsError::WrongTyp { expected: "schcp-rule+jwt", .. })
    ));
}

#[test]
fn a_rule_that_expires_before_it_is_issued_is_not_issued() {
    let err = issue::rule(RuleClaims { exp: R_IAT, ..claims() }, &priya()).unwrap_err();
    assert_eq!(err, Error::RuleInvalid(RuleCheck::ExpiresBeforeIssued));
}

#[test]
fn a_rule_is_in_force_from_iat_less_60_seconds_until_exp() {
    let r = issue::rule(claims(), &priya()).unwrap();
    assert!(!r.in_force_at(R_IAT - 61));
    assert!(r.in_force_at(R_IAT - 60), "the rule's iat gets 60 s, as a mandate's");
    assert!(r.in_force_at(R_IAT));
    assert!(r.in_force_at(R_EXP - 1));
    assert!(!r.in_force_at(R_EXP), "exp gets no skew");
}

#[test]
fn a_rule_covers_what_every_field_it_states_matches() {
    let r = issue::rule(claims(), &priya()).unwrap();
    let noor = principal_id(&noor());
    assert!(r.covers("playdate", &at("2026-10-17T12:00:00-04:00"), &noor), "Saturday");
    assert!(r.covers("playdate", &at("2026-10-18T12:00:00-04:00"), &noor), "Sunday");
    assert!(!r.covers("playdate", &at("2026-10-16T12:00:00-04:00"), &noor), "Friday");
    assert!(!r.covers("dinner", &at("2026-10-17T12:00:00-04:00"), &noor), "another service");
    // No organizers stated: any organizer.
    assert!(r.covers("playdate", &at("2026-10-17T12:00:00-04:00"), &principal_id(&stranger_key())));
}

#[test]
fn weekdays_are_read_in_the_rules_zone_not_the_offsets() {
    let r = issue::rule(RuleClaims { weekdays: Some(vec![Weekday::Sat]), ..claims() }, &priya()).unwrap();
    let noor = principal_id(&noor());
    // Saturday 21:00 in Toronto, written in UTC where it is already Sunday.
    assert!(r.covers("playdate", &at("2026-10-18T01:00:00Z"), &noor));
    // Sunday 00:30 in Toronto, written with a Saturday offset elsewhere.
    assert!(!r.covers("playdate", &at("2026-10-17T21:30:00-07:00"), &noor));
}

#[test]
fn organizers_narrow_a_rule() {
    let noor = principal_id(&noor());
    let r = issue::rule(RuleClaims { organizers: Some(vec![noor.clone()]), ..claims() }, &priya()).unwrap();
    assert!(r.covers("playdate", &at("2026-10-17T12:00:00-04:00"), &noor));
    assert!(!r.covers("playdate", &at("2026-10-17T12:00:00-04:00"), &principal_id(&stranger_key())));
}
