//! Meetings of several people (§5.12): the organizer's contract, each member's
//! acceptance in person, and acceptances by a rule the member signed (§7.9), with
//! their 60-second windows.

mod common;

use common::*;
use ed25519_dalek::SigningKey;
use schcp::claims::{Cnf, MeetingContract, RuleClaims, Weekday};
use schcp::issue;
use schcp::jws::JwsError;
use schcp::jws::{Signer, Typ};
use schcp::schema::Def;
use schcp::verify::{verify_acceptance, verify_meeting_contract, VerifiedAcceptance, VerifiedContract};
use schcp::{AcceptanceCheck, Error, MeetingCheck, RuleCheck};
use serde_json::{json, Value};

/// The §5.12 example's contract iat and exp.
const C_IAT: i64 = 1_792_154_400;
const C_EXP: i64 = 1_792_197_600;
/// When members answer and calendars check.
const NOW_M: i64 = C_IAT + 6_000;
const DAY: i64 = 86_400;

fn noor() -> SigningKey {
    SigningKey::from_bytes(&[0x81; 32])
}
fn ellis() -> SigningKey {
    ellis_key()
}
fn priya() -> SigningKey {
    SigningKey::from_bytes(&[0x82; 32])
}
/// The agent that keeps Ellis's calendar; a rule of Ellis's lets it answer.
fn ellis_agent() -> SigningKey {
    SigningKey::from_bytes(&[0x83; 32])
}

fn member(key: &dyn Signer, name: &str, host: &str) -> Value {
    json!({
        "principal": principal_id(key), "name": name, "host": host, "domain": null,
        "service_id": "playdate", "offer_sha256": schcp::hash::sha256_b64(format!("offer at {host}"))
    })
}

/// The playdate contract of §5.12: Noor organizes, Ellis and Priya are members, Mira
/// comes along, open-ended, in the park.
fn contract_claims() -> Value {
    json!({
        "v": "0.4", "iss": principal_id(&noor()), "principal_jwk": jwk_of(&noor()),
        "iat": C_IAT, "exp": C_EXP,
        "meeting_id": "mtg_7Hq2", "revision": 1, "title": "Playdate", "tz": "America/Toronto",
        "start": "2026-10-17T12:00:00-04:00", "open_end": true,
        "place": { "name": "Trinity Bellwoods Park playground", "locality": "Toronto" },
        "members": [
            member(&noor(), "Noor Haddad", "noor-haddad"),
            member(&ellis(), "Ellis Moreau", "ellis-moreau"),
            member(&priya(), "Priya Shah", "priya-shah")
        ],
        "attendees": [ { "name": "Mira", "relationship": "child" } ],
        "answers": "person_or_rule",
        "statement": "I approve: Playdate with Ellis Moreau (ellis-moreau) and Priya Shah (priya-shah), Saturday 17 October 2026 from 12:00 p.m. Eastern time, open-ended, at Trinity Bellwoods Park playground, Toronto, with Mira (child) coming along; Ellis Moreau and Priya Shah may each answer by a rule they signed."
    })
}

/// Signed by the key app as the organizer.
fn issue_contract(claims: &Value) -> VerifiedContract {
    let typed: MeetingContract = serde_json::from_value(claims.clone()).expect("typed contract");
    issue::meeting_contract(typed, C_IAT, &noor()).expect("issue the contract")
}

fn contract() -> VerifiedContract {
    issue_contract(&contract_claims())
}

/// A meeting_invalid failure for this check (so it failed for this reason).
#[track_caller]
fn assert_meeting_invalid(result: Result<VerifiedContract, Error>, check: MeetingCheck) {
    let err = result.expect_err("meeting_invalid");
    assert_eq!(err, Error::MeetingInvalid(check));
    assert_eq!(err.reason().reason, "meeting_invalid");
    assert_eq!(err.reason().code, "INVALID_REQUEST");
}

/// The shared check (signature, schema…) a meeting_invalid failure wraps.
#[track_caller]
fn meeting_invalid_because(result: Result<VerifiedContract, Error>) -> Error {
    match result {
        Err(ref e @ Error::MeetingInvalid(MeetingCheck::Underlying(ref inner))) => {
            assert_eq!(e.reason().reason, "meeting_invalid", "{e}");
            (**inner).clone()
        }
        other => panic!("expected meeting_invalid wrapping a shared check, got {other:?}"),
    }
}

/// Hand-signs contract claims (what the key app would refuse to issue).
fn verify_signed(claims: &Value, signer: &dyn Signer, now: i64) -> Result<VerifiedContract, Error> {
    verify_meeting_contract(&sign_plain(Typ::Meeting, claims, signer), now)
}

// ================================================================ the contract

#[test]
fn the_playdate_contract_verifies_and_is_named_by_its_hash() {
    let c = contract();
    assert_eq!(c.contract_sha256, schcp::hash::jws_sha256(&c.compact));
    assert_eq!(c.claims.iss, principal_id(&noor()));
    assert_eq!(c.start.to_rfc3339(), "2026-10-17T12:00:00-04:00");
    // A calendar verifies the same bytes to the same result.
    let again = verify_meeting_contract(&c.compact, NOW_M).expect("a member's calendar verifies it");
    assert_eq!(again.contract_sha256, c.contract_sha256);
    assert_eq!(again.claims, c.claims);
}

#[test]
fn a_contract_with_an_end_instead_of_open_end_verifies() {
    let mut claims = without(&contract_claims(), "/open_end");
    set(&mut claims, "/end", Some(json!("2026-10-17T14:00:00-04:00")));
    verify_signed(&claims, &noor(), NOW_M).expect("a fixed end");
}

#[test]
fn a_meeting_has_at_least_two_members() {
    let claims = with(&contract_claims(), "/members", json!([member(&noor(), "Noor Haddad", "noor-haddad")]));
    assert_schema(&meeting_invalid_because(verify_signed(&claims, &noor(), NOW_M)), Def::MeetingContract, "/members");
}

#[test]
fn members_are_distinct_principals() {
    let mut twice = member(&ellis(), "Ellis Moreau", "ellis-moreau-2");
    twice["service_id"] = json!("playdate");
    let claims = with(&contract_claims(), "/members/2", twice);
    assert_meeting_invalid(
        verify_signed(&claims, &noor(), NOW_M),
        MeetingCheck::RepeatedPrincipal { principal: principal_id(&ellis()) },
    );
}

#[test]
fn the_organizer_is_a_member() {
    let claims = with(
        &contract_claims(),
        "/members",
        json!([member(&ellis(), "Ellis Moreau", "ellis-moreau"), member(&priya(), "Priya Shah", "priya-shah")]),
    );
    assert_meeting_invalid(verify_signed(&claims, &noor(), NOW_M), MeetingCheck::OrganizerNotMember);
}

fn cafe(principal: &str) -> Value {
    json!({
        "principal": principal, "name": "Café Bellwoods", "host": "cafe-bellwoods",
        "domain": "cafebellwoods.example", "service_id": "table-for-two",
        "offer_sha256": schcp::hash::sha256_b64("offer at the café"), "business": true
    })
}

#[test]
fn an_organizer_and_a_business_alone_are_an_ordinary_booking() {
    let claims = with(
        &contract_claims(),
        "/members",
        json!([member(&noor(), "Noor Haddad", "noor-haddad"), cafe("urn:schcp:host:cafe-bellwoods")]),
    );
    assert_meeting_invalid(verify_signed(&claims, &noor(), NOW_M), MeetingCheck::NoOtherPerson);
    // With a person besides the organizer, the business is a member like any other.
    let mut claims = contract_claims();
    claims["members"].as_array_mut().unwrap().push(cafe("urn:schcp:host:cafe-bellwoods"));
    verify_signed(&claims, &noor(), NOW_M).expect("three people and a café");
}

#[test]
fn a_business_member_is_named_by_its_host_principal() {
    let mut claims = contract_claims();
    // A person's principal marked as a business: the closed schema refuses it.
    claims["members"].as_array_mut().unwrap().push(cafe(&principal_id(&stranger_key())));
    assert_schema(
        &meeting_invalid_because(verify_signed(&claims, &noor(), NOW_M)),
        Def::MeetingContract,
        "/members/3/principal",
    );
    // The host principal of another host than its own entry's.
    let mut claims = contract_claims();
    claims["members"].as_array_mut().unwrap().push(cafe("urn:schcp:host:some-other-cafe"));
    assert_meeting_invalid(
        verify_signed(&claims, &noor(), NOW_M),
        MeetingCheck::BusinessNaming { principal: "urn:schcp:host:some-other-cafe".into() },
    );
}

#[test]
fn a_contract_has_exactly_one_of_end_and_open_end() {
    let both = with(&contract_claims(), "/end", json!("2026-10-17T14:00:00-04:00"));
    assert_schema(&meeting_invalid_because(verify_signed(&both, &noor(), NOW_M)), Def::MeetingContract, "");
    let neither = without(&contract_claims(), "/open_end");
    assert_schema(&meeting_invalid_because(verify_signed(&neither, &noor(), NOW_M)), Def::MeetingContract, "");
}

#[test]
fn an_end_before_the_start_is_refused() {
    let mut claims = without(&contract_claims(), "/open_end");
    set(&mut claims, "/end", Some(json!("2026-10-17T11:00:00-04:00")));
    assert_meeting_invalid(verify_signed(&claims, &noor(), NOW_M), MeetingCheck::EndNotAfterStart);
}

#[test]
fn a_contract_past_its_deadline_is_refused() {
    let c = contract();
    verify_meeting_contract(&c.compact, C_EXP - 1).expect("a second before exp");
    assert_meeting_invalid(
        verify_meeting_contract(&c.compact, C_EXP),
        MeetingCheck::Expired { exp: C_EXP, now: C_EXP },
    );
}

#[test]
fn iss_is_the_principal_of_principal_jwk() {
    // Noor signs a contract claiming to be Ellis (who is a member).
    let claims = with(&contract_claims(), "/iss", json!(principal_id(&ellis())));
    assert_meeting_invalid(verify_signed(&claims, &noor(), NOW_M), MeetingCheck::IssuerNotPrincipal);
}

#[test]
fn a_contract_signed_by_another_key_than_principal_jwk_is_refused() {
    assert_eq!(
        meeting_invalid_because(verify_signed(&contract_claims(), &priya(), NOW_M)),
        Error::Jws(JwsError::BadSignature)
    );
}

#[test]
fn a_contract_with_another_typ_is_refused() {
    let compact = sign_plain(Typ::Acceptance, &contract_claims(), &noor());
    assert!(matches!(
        meeting_invalid_because(verify_meeting_contract(&compact, NOW_M)),
        Error::Jws(JwsError::WrongTyp { expected: "schcp-meeting+jwt", .. })
    ));
}

// ================================================================ acceptance in person

#[track_caller]
fn assert_acceptance_invalid(result: Result<VerifiedAcceptance, Error>, check: AcceptanceCheck) {
    let err = result.expect_err("acceptance_invalid");
    assert_eq!(err, Error::AcceptanceInvalid(check));
    assert_eq!(err.reason().reason, "acceptance_invalid");
    assert_eq!(err.reason().code, "INVALID_REQUEST");
}

/// The shared check (signature, the rule's own validity…) an acceptance_invalid failure wraps.
#[track_caller]
fn acceptance_invalid_because(result: Result<VerifiedAcceptance, Error>) -> Error {
    match result {
        Err(ref e @ Error::AcceptanceInvalid(AcceptanceCheck::Underlying(ref inner))) => {
            assert_eq!(e.reason().reason, "acceptance_invalid", "{e}");
            (**inner).clone()
        }
        other => panic!("expected acceptance_invalid wrapping a shared check, got {other:?}"),
    }
}

fn acceptance_claims(c: &VerifiedContract, iss: &dyn Signer, iat: i64, jwk: &dyn Signer) -> Value {
    json!({
        "iss": principal_id(iss), "iat": iat, "terms_sha256": c.contract_sha256,
        "meeting_id": "mtg_7Hq2", "by": "person",
        "statement": "I accept: Playdate arranged by Noor Haddad (noor-haddad), with Priya Shah (priya-shah), Saturday 17 October 2026 from 12:00 p.m. Eastern time, open-ended, at Trinity Bellwoods Park playground, Toronto, with Mira (child) coming along.",
        "jwk": jwk_of(jwk)
    })
}

fn sign_acceptance(claims: &Value, signer: &dyn Signer) -> String {
    sign_plain(Typ::Acceptance, claims, signer)
}

/// Ellis's own acceptance at `iat`, checked at `now`.
fn ellis_accepts(c: &VerifiedContract, iat: i64, now: i64) -> Result<VerifiedAcceptance, Error> {
    let compact = sign_acceptance(&acceptance_claims(c, &ellis(), iat, &ellis()), &ellis());
    verify_acceptance(&compact, c, &principal_id(&ellis()), now)
}

#[test]
fn a_members_own_acceptance_verifies() {
    let c = contract();
    let a = issue::acceptance(&c, "I accept: Playdate arranged by Noor Haddad.".into(), NOW_M, &ellis())
        .expect("Ellis accepts");
    assert!(a.rule.is_none());
    assert_eq!(a.claims.terms_sha256, c.contract_sha256);
    verify_acceptance(&a.compact, &c, &principal_id(&ellis()), NOW_M).expect("Noor's calendar checks it");
    ellis_accepts(&c, NOW_M, NOW_M).expect("hand-signed, the same");
}

#[test]
fn an_acceptance_counts_only_for_the_member_who_signed_it() {
    let c = contract();
    let compact = sign_acceptance(&acceptance_claims(&c, &ellis(), NOW_M, &ellis()), &ellis());
    assert_acceptance_invalid(
        verify_acceptance(&compact, &c, &principal_id(&priya()), NOW_M),
        AcceptanceCheck::IssuerNotMember,
    );
    assert_acceptance_invalid(
        verify_acceptance(&compact, &c, &principal_id(&stranger_key()), NOW_M),
        AcceptanceCheck::NotMember,
    );
    // The organizer's signature on the contract is their yes.
    let noors = sign_acceptance(&acceptance_claims(&c, &noor(), NOW_M, &noor()), &noor());
    assert_acceptance_invalid(
        verify_acceptance(&noors, &c, &principal_id(&noor()), NOW_M),
        AcceptanceCheck::OrganizerMember,
    );
}

#[test]
fn an_acceptance_of_another_revision_does_not_answer_this_one() {
    let rev1 = contract();
    let accepted = sign_acceptance(&acceptance_claims(&rev1, &ellis(), NOW_M, &ellis()), &ellis());
    let rev2 = issue_contract(&with(
        &with(&contract_claims(), "/revision", json!(2)),
        "/start",
        json!("2026-10-18T12:00:00-04:00"),
    ));
    assert_ne!(rev1.contract_sha256, rev2.contract_sha256);
    verify_acceptance(&accepted, &rev1, &principal_id(&ellis()), NOW_M).expect("answers revision 1");
    assert_acceptance_invalid(
        verify_acceptance(&accepted, &rev2, &principal_id(&ellis()), NOW_M),
        AcceptanceCheck::OtherTerms,
    );
}

#[test]
fn an_acceptance_is_no_earlier_than_the_terms_less_60_seconds() {
    let c = contract();
    ellis_accepts(&c, C_IAT - 60, NOW_M).expect("terms − 60");
    assert_acceptance_invalid(
        ellis_accepts(&c, C_IAT - 61, NOW_M),
        AcceptanceCheck::IatOutOfRange { iat: C_IAT - 61, terms: C_IAT, now: NOW_M },
    );
}

#[test]
fn an_acceptance_is_no_later_than_now_plus_60_seconds() {
    let c = contract();
    ellis_accepts(&c, NOW_M + 60, NOW_M).expect("now + 60");
    assert_acceptance_invalid(
        ellis_accepts(&c, NOW_M + 61, NOW_M),
        AcceptanceCheck::IatOutOfRange { iat: NOW_M + 61, terms: C_IAT, now: NOW_M },
    );
}

#[test]
fn a_person_acceptance_is_signed_with_the_members_own_key() {
    let c = contract();
    // Ellis's calendar agent signs "by person" in Ellis's name.
    let compact = sign_acceptance(&acceptance_claims(&c, &ellis(), NOW_M, &ellis_agent()), &ellis_agent());
    assert_acceptance_invalid(
        verify_acceptance(&compact, &c, &principal_id(&ellis()), NOW_M),
        AcceptanceCheck::PersonKeyNotOwn,
    );
    // And a signature by another key than jwk is no acceptance at all.
    let compact = sign_acceptance(&acceptance_claims(&c, &ellis(), NOW_M, &ellis()), &priya());
    assert_eq!(
        acceptance_invalid_because(verify_acceptance(&compact, &c, &principal_id(&ellis()), NOW_M)),
        Error::Jws(JwsError::BadSignature)
    );
}

// ================================================================ acceptance by rule (§7.9)

/// Ellis's rule for weekend playdates organized by Noor, answered by Ellis's agent.
fn rule_claims() -> RuleClaims {
    RuleClaims {
        iss: principal_id(&ellis()),
        principal_jwk: jwk_of(&ellis()),
        iat: C_IAT - DAY,
        exp: C_IAT + 30 * DAY,
        jti: "r-weekend-01".into(),
        cnf: Cnf { jkt: jkt(&ellis_agent()) },
        label: "Weekend playdates with my contacts".into(),
        services: Some(vec!["playdate".into()]),
        weekdays: Some(vec![Weekday::Sat, Weekday::Sun]),
        tz: Some("America/Toronto".into()),
        organizers: Some(vec![principal_id(&noor())]),
    }
}

fn sign_rule(claims: RuleClaims, person: &dyn Signer) -> String {
    issue::rule(claims, person).expect("issue the rule").compact
}

fn by_rule_claims(c: &VerifiedContract, rule: &str, iat: i64) -> Value {
    json!({
        "iss": principal_id(&ellis()), "iat": iat, "terms_sha256": c.contract_sha256,
        "meeting_id": "mtg_7Hq2", "by": "rule", "jwk": jwk_of(&ellis_agent()), "rule": rule
    })
}

/// Ellis's agent accepts for Ellis under `rule` at `iat`; Noor's calendar checks at NOW_M.
fn agent_accepts(c: &VerifiedContract, rule: &str, iat: i64) -> Result<VerifiedAcceptance, Error> {
    let compact = sign_acceptance(&by_rule_claims(c, rule, iat), &ellis_agent());
    verify_acceptance(&compact, c, &principal_id(&ellis()), NOW_M)
}

#[test]
fn an_acceptance_by_a_covering_rule_verifies() {
    let c = contract();
    let rule = sign_rule(rule_claims(), &ellis());
    let a = agent_accepts(&c, &rule, NOW_M).expect("the rule covers it");
    let r = a.rule.expect("the rule it was given under");
    assert_eq!(r.compact, rule);
    assert_eq!(r.claims.label, "Weekend playdates with my contacts");
}

#[test]
fn a_contract_that_asks_for_the_person_refuses_rules() {
    let c = issue_contract(&with(&contract_claims(), "/answers", json!("person")));
    let rule = sign_rule(rule_claims(), &ellis());
    let err = agent_accepts(&c, &rule, NOW_M).unwrap_err();
    assert_eq!(err, Error::PersonRequired);
    assert_eq!(err.reason().reason, "person_required");
    assert_eq!(err.reason().code, "INVALID_REQUEST");
}

#[test]
fn a_members_own_answers_overrides_the_contracts() {
    let rule = sign_rule(rule_claims(), &ellis());
    // The contract asks everyone in person, except Ellis, whom a rule may answer for.
    let claims =
        with(&with(&contract_claims(), "/answers", json!("person")), "/members/1/answers", json!("person_or_rule"));
    agent_accepts(&issue_contract(&claims), &rule, NOW_M).expect("Ellis may answer by rule");
    // The contract lets rules answer, except for Ellis.
    let claims = with(&contract_claims(), "/members/1/answers", json!("person"));
    assert_eq!(agent_accepts(&issue_contract(&claims), &rule, NOW_M).unwrap_err(), Error::PersonRequired);
    // Without answers at all, the default is person_or_rule.
    agent_accepts(&issue_contract(&without(&contract_claims(), "/answers")), &rule, NOW_M).expect("default");
}

#[test]
fn a_rule_is_in_force_from_its_iat_less_60_seconds() {
    let c = contract();
    let rule = sign_rule(RuleClaims { iat: C_IAT + 1_000, exp: C_IAT + 5_000, ..rule_claims() }, &ellis());
    agent_accepts(&c, &rule, C_IAT + 1_000 - 60).expect("rule.iat − 60");
    assert_acceptance_invalid(agent_accepts(&c, &rule, C_IAT + 1_000 - 61), AcceptanceCheck::RuleNotInForce);
}

#[test]
fn a_rule_is_not_in_force_at_or_after_its_exp() {
    let c = contract();
    let rule = sign_rule(RuleClaims { iat: C_IAT + 1_000, exp: C_IAT + 5_000, ..rule_claims() }, &ellis());
    agent_accepts(&c, &rule, C_IAT + 4_999).expect("a second before rule.exp");
    assert_acceptance_invalid(agent_accepts(&c, &rule, C_IAT + 5_000), AcceptanceCheck::RuleNotInForce);
}

#[test]
fn a_rule_of_another_person_does_not_answer_for_this_one() {
    let c = contract();
    let priyas =
        sign_rule(RuleClaims { iss: String::new(), principal_jwk: jwk_of(&priya()), ..rule_claims() }, &priya());
    assert_acceptance_invalid(agent_accepts(&c, &priyas, NOW_M), AcceptanceCheck::RuleByOtherPerson);
}

#[test]
fn a_rule_for_another_agent_key_does_not_let_this_one_answer() {
    let c = contract();
    let rule = sign_rule(RuleClaims { cnf: Cnf { jkt: jkt(&stranger_key()) }, ..rule_claims() }, &ellis());
    assert_acceptance_invalid(agent_accepts(&c, &rule, NOW_M), AcceptanceCheck::RuleForOtherKey);
}

#[test]
fn a_rule_that_does_not_cover_the_service_weekday_or_organizer_does_not_answer() {
    let c = contract();
    let cases = [
        ("service", RuleClaims { services: Some(vec!["dinner".into()]), ..rule_claims() }),
        (
            "weekday",
            RuleClaims {
                weekdays: Some(vec![Weekday::Mon, Weekday::Tue, Weekday::Wed, Weekday::Thu, Weekday::Fri]),
                ..rule_claims()
            },
        ),
        ("organizer", RuleClaims { organizers: Some(vec![principal_id(&priya())]), ..rule_claims() }),
    ];
    for (what, claims) in cases {
        let rule = sign_rule(claims, &ellis());
        let err = agent_accepts(&c, &rule, NOW_M).expect_err(what);
        assert_eq!(err, Error::AcceptanceInvalid(AcceptanceCheck::RuleDoesNotCover), "{what}");
    }
    // A rule stating none of them covers everything.
    let open = RuleClaims { services: None, weekdays: None, tz: None, organizers: None, ..rule_claims() };
    agent_accepts(&c, &sign_rule(open, &ellis()), NOW_M).expect("an absent field does not narrow");
}

#[test]
fn weekdays_are_read_in_the_rules_zone() {
    // 21:00 Saturday in Toronto is 01:00 Sunday in UTC.
    let c = issue_contract(&with(&contract_claims(), "/start", json!("2026-10-17T21:00:00-04:00")));
    let rule = |day: Weekday, tz: &str| {
        sign_rule(RuleClaims { weekdays: Some(vec![day]), tz: Some(tz.into()), ..rule_claims() }, &ellis())
    };
    agent_accepts(&c, &rule(Weekday::Sat, "America/Toronto"), NOW_M).expect("Saturday in Toronto");
    agent_accepts(&c, &rule(Weekday::Sun, "UTC"), NOW_M).expect("Sunday in UTC");
    assert_acceptance_invalid(
        agent_accepts(&c, &rule(Weekday::Sun, "America/Toronto"), NOW_M),
        AcceptanceCheck::RuleDoesNotCover,
    );
    assert_acceptance_invalid(agent_accepts(&c, &rule(Weekday::Sat, "UTC"), NOW_M), AcceptanceCheck::RuleDoesNotCover);
}

#[test]
fn a_by_rule_acceptance_with_a_broken_rule_is_refused() {
    let c = contract();
    // The rule's signature is not Ellis's.
    let forged = sign_plain(Typ::Rule, &serde_json::to_value(rule_claims()).unwrap(), &ellis_agent());
    assert_eq!(
        acceptance_invalid_because(agent_accepts(&c, &forged, NOW_M)),
        Error::RuleInvalid(RuleCheck::Underlying(Box::new(Error::Jws(JwsError::BadSignature))))
    );
}
