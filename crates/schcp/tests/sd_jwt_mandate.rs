//! SD-JWT VC mandates (§3.4, the AP2 profile): issued for three garages with decoys,
//! presented to each with only its own disclosures and a fresh Key Binding JWT, and
//! evaluated by `verify_sd_jwt_mandate` as the mandate that host would check.

mod common;

use std::collections::BTreeMap;

use common::*;
use schcp::claims::{Action, Audience, Consent, ConsentMode, Constraints, Money, Window};
use schcp::issue::{self, IssuedSdJwt, SdJwtMandate};
use schcp::jws::JwsError;
use schcp::jws::Signer;
use schcp::sdjwt::key_binding_jwt;
use schcp::sdjwt::SdJwtError;
use schcp::verify::{verify_sd_jwt_mandate, ChainContext, VerifiedChain};
use schcp::{Error, MandateCheck};
use serde_json::Value;

const GARAGES: [&str; 3] = ["fix-it-fast", "harbour-garage", "maple-street-auto"];
/// The size aud and host_constraints are padded to (the key app's host maximum).
const PADDED: usize = 10;

fn shared() -> Constraints {
    Constraints { services: Some(vec!["oil-change".into()]), max_bookings: Some(1), ..Constraints::default() }
}

fn per_host() -> BTreeMap<String, Constraints> {
    let mut m = BTreeMap::new();
    m.insert(
        "fix-it-fast".into(),
        Constraints { max_price: Some(Money::new("90.00", "CAD")), ..Constraints::default() },
    );
    m.insert(
        "harbour-garage".into(),
        Constraints {
            window: Some(Window {
                not_before: "2026-10-15T12:00:00-04:00".into(),
                not_after: "2026-10-15T17:00:00-04:00".into(),
            }),
            ..Constraints::default()
        },
    );
    // A host with no constraints of its own still gets a member: {} (§3.4).
    m.insert("maple-street-auto".into(), Constraints::default());
    m
}

fn input() -> SdJwtMandate {
    SdJwtMandate {
        sub: "principal-pseudonym-7f3a".into(),
        jti: "m-sd-01".into(),
        iat: NOW,
        exp: NOW + 86_400,
        agent_jwk: jwk_of(&agent_key()),
        scope: vec![Action::Hold, Action::Book],
        constraints: shared(),
        host_constraints: per_host(),
        consent: Consent {
            mode: Some(ConsentMode::HumanPresent),
            statement: "Book one oil change at any of these three garages.".into(),
        },
        contact: None,
        schcp_status: Some("https://keyapp.example/status/m-sd-01".into()),
        padded_to: PADDED,
        attestations: Default::default(),
    }
}

fn issue_with(m: SdJwtMandate, principal: &dyn Signer) -> Result<IssuedSdJwt, Error> {
    issue::sd_jwt_mandate(m, &mut FixedRng::new(7), principal)
}

fn issued() -> IssuedSdJwt {
    issue_with(input(), &principal_key()).expect("issue the SD-JWT mandate")
}

/// `<prefix><KB-JWT>` with the KB-JWT by `holder` for `aud` at `iat`.
fn present(prefix: &str, aud: &str, iat: i64, holder: &dyn Signer) -> String {
    let kb = key_binding_jwt(prefix, aud, "n-0S6_WzA2Mj", iat, holder).expect("sign the KB-JWT");
    format!("{prefix}{kb}")
}

/// The presentation an agent sends to `host`: its disclosures and a fresh KB-JWT.
fn presentation(issued: &IssuedSdJwt, host: &str) -> String {
    present(&issued.presentation_for(host).expect("a host of the mandate"), host, NOW, &agent_key())
}

fn verify_at(presentation: &str, host: &str, request: &dyn Signer, now: i64) -> Result<VerifiedChain, Error> {
    let request_jkt = jkt(request);
    verify_sd_jwt_mandate(
        presentation,
        &ChainContext { host_id: host, request_jkt: &request_jkt, now, allow_wildcard: false },
    )
}

fn verify(presentation: &str, host: &str) -> Result<VerifiedChain, Error> {
    verify_at(presentation, host, &agent_key(), NOW)
}

/// A mandate_invalid failure for this check (so it failed for this reason).
#[track_caller]
fn assert_invalid(result: Result<VerifiedChain, Error>, check: MandateCheck) {
    let err = result.expect_err("mandate_invalid");
    assert_eq!(err, Error::MandateInvalid(check));
    assert_eq!(err.reason().reason, "mandate_invalid");
}

/// A mandate_invalid failure because the SD-JWT envelope fails this check (§3.4).
#[track_caller]
fn assert_envelope(result: Result<VerifiedChain, Error>, check: SdJwtError) {
    assert_invalid(result, MandateCheck::Underlying(Box::new(Error::SdJwt(check))));
}

fn issuer_payload(issued: &IssuedSdJwt) -> Value {
    schcp::jws::parse(&issued.issuer_jwt).unwrap().payload
}

#[test]
fn issuance_pads_aud_and_host_constraints_with_decoys() {
    let issued = issued();
    let payload = issuer_payload(&issued);
    assert_eq!(payload["aud"].as_array().unwrap().len(), PADDED);
    assert_eq!(payload["host_constraints"]["_sd"].as_array().unwrap().len(), PADDED);
    // No host id appears in the clear.
    for g in GARAGES {
        assert!(!payload.to_string().contains(g), "{g} is visible in the issuer JWT");
    }
    assert_eq!(payload["_sd_alg"], "sha-256");
    let keys: Vec<&String> = issued.disclosures.keys().collect();
    assert_eq!(keys, GARAGES.iter().collect::<Vec<_>>());
    for d in issued.disclosures.values() {
        assert_eq!(d.len(), 2, "its aud element and its host_constraints member");
    }
}

/// A mandate for `n` hosts with no constraints of their own.
fn for_hosts(n: usize) -> IssuedSdJwt {
    let mut m = input();
    m.host_constraints = (0..n).map(|i| (format!("garage-{i}"), Constraints::default())).collect();
    issue_with(m, &principal_key()).expect("issue")
}

#[test]
fn one_host_and_five_hosts_give_the_same_number_of_digests() {
    let one = issuer_payload(&for_hosts(1));
    let five = issuer_payload(&for_hosts(5));
    for p in [&one, &five] {
        assert_eq!(p["aud"].as_array().unwrap().len(), PADDED);
        assert_eq!(p["host_constraints"]["_sd"].as_array().unwrap().len(), PADDED);
    }
    // The disclosures still verify, for every host of each.
    for (n, issued) in [(1, for_hosts(1)), (5, for_hosts(5))] {
        assert_eq!(issued.disclosures.len(), n);
        for host in issued.disclosures.keys() {
            let chain = verify(&presentation(&issued, host), host).unwrap_or_else(|e| panic!("{host}: {e}"));
            assert_eq!(chain.root.claims.aud, Audience::One(host.clone()));
        }
    }
    // Past the padded size there is no room for decoys: one digest per host, no fewer.
    let eleven = issuer_payload(&for_hosts(PADDED + 1));
    assert_eq!(eleven["aud"].as_array().unwrap().len(), PADDED + 1);
}

#[test]
fn each_host_sees_itself_as_aud_and_the_shared_plus_its_own_constraints() {
    let issued = issued();
    for host in GARAGES {
        let p = presentation(&issued, host);
        let chain = verify(&p, host).unwrap_or_else(|e| panic!("{host}: {e}"));
        assert!(chain.child.is_none());
        let m = &chain.root.claims;
        assert_eq!(m.aud, Audience::One(host.into()));
        assert_eq!(m.cnf.jkt, jkt(&agent_key()));
        assert_eq!(m.iss, principal_id(&principal_key()));
        assert_eq!(m.jti, "m-sd-01");
        assert_eq!(m.status.as_deref(), Some("https://keyapp.example/status/m-sd-01"));
        let mut expected = shared();
        let own = &per_host()[host];
        expected.max_price = own.max_price.clone();
        expected.window = own.window.clone();
        assert_eq!(m.constraints.as_ref(), Some(&expected), "{host}");
        // Its own two disclosures are all it gets: nothing names the other garages.
        let parts: Vec<&str> = p.split('~').collect();
        assert_eq!(
            parts[1..parts.len() - 1],
            issued.disclosures[host].iter().map(String::as_str).collect::<Vec<_>>()[..]
        );
        for d in &parts[1..parts.len() - 1] {
            let text = String::from_utf8(schcp::b64::decode(d).unwrap()).unwrap();
            for other in GARAGES.iter().filter(|g| **g != host) {
                assert!(!text.contains(other), "{other} disclosed to {host}");
            }
        }
    }
}

#[test]
fn withholding_the_hosts_own_constraints_fails_closed() {
    let issued = issued();
    let host = "fix-it-fast";
    let aud_only = &issued.disclosures[host][..1];
    let prefix = schcp::sdjwt::presentation_prefix(&issued.issuer_jwt, aud_only.iter().map(String::as_str));
    assert_invalid(verify(&present(&prefix, host, NOW, &agent_key()), host), MandateCheck::HostConstraintsNotDisclosed);
}

#[test]
fn another_hosts_disclosures_do_not_make_a_mandate_for_this_host() {
    let issued = issued();
    let prefix = issued.presentation_for("harbour-garage").unwrap();
    let p = present(&prefix, "fix-it-fast", NOW, &agent_key());
    assert_invalid(verify(&p, "fix-it-fast"), MandateCheck::AudienceNotDisclosed);
}

#[test]
fn the_key_binding_jwt_names_this_host() {
    let issued = issued();
    let prefix = issued.presentation_for("fix-it-fast").unwrap();
    let p = present(&prefix, "harbour-garage", NOW, &agent_key());
    assert_envelope(
        verify(&p, "fix-it-fast"),
        SdJwtError::KeyBindingAudience { expected: "fix-it-fast".into(), found: "harbour-garage".into() },
    );
}

#[test]
fn the_key_binding_jwt_is_at_most_300_seconds_old() {
    let issued = issued();
    let host = "maple-street-auto";
    let prefix = issued.presentation_for(host).unwrap();
    verify(&present(&prefix, host, NOW - 300, &agent_key()), host).expect("300 s old");
    assert_envelope(verify(&present(&prefix, host, NOW - 301, &agent_key()), host), SdJwtError::KeyBindingStale);
}

#[test]
fn the_key_binding_jwt_is_at_most_60_seconds_ahead() {
    let issued = issued();
    let host = "maple-street-auto";
    let prefix = issued.presentation_for(host).unwrap();
    verify(&present(&prefix, host, NOW + 60, &agent_key()), host).expect("60 s ahead");
    assert_envelope(verify(&present(&prefix, host, NOW + 61, &agent_key()), host), SdJwtError::KeyBindingStale);
}

#[test]
fn a_presentation_without_key_binding_is_refused() {
    let issued = issued();
    let prefix = issued.presentation_for("maple-street-auto").unwrap();
    assert_envelope(verify(&prefix, "maple-street-auto"), SdJwtError::MissingKeyBinding);
}

#[test]
fn a_key_binding_jwt_by_another_key_than_cnf_jwk_is_refused() {
    let issued = issued();
    let host = "maple-street-auto";
    let prefix = issued.presentation_for(host).unwrap();
    let p = present(&prefix, host, NOW, &sub_agent_key());
    assert_envelope(verify_at(&p, host, &sub_agent_key(), NOW), SdJwtError::KeyBinding(JwsError::BadSignature));
}

#[test]
fn the_request_must_be_signed_by_cnf_jwk() {
    let issued = issued();
    let host = "maple-street-auto";
    let p = presentation(&issued, host);
    assert_invalid(verify_at(&p, host, &sub_agent_key(), NOW), MandateCheck::NotBoundToRequestKey);
}

#[test]
fn an_sd_jwt_mandate_expires_at_exp() {
    let issued = issued();
    let host = "maple-street-auto";
    let exp = NOW + 86_400;
    let prefix = issued.presentation_for(host).unwrap();
    verify_at(&present(&prefix, host, exp - 1, &agent_key()), host, &agent_key(), exp - 1).expect("before exp");
    let err = verify_at(&present(&prefix, host, exp, &agent_key()), host, &agent_key(), exp).unwrap_err();
    assert_eq!(err, Error::MandateExpired { exp, now: exp });
    assert_eq!(err.reason().reason, "mandate_expired");
}

#[test]
fn a_constraint_both_shared_and_per_host_is_refused_at_issuance() {
    let mut m = input();
    m.host_constraints.get_mut("fix-it-fast").unwrap().services = Some(vec!["tire-swap".into()]);
    assert_eq!(
        issue_with(m, &principal_key()).unwrap_err(),
        Error::MandateInvalid(MandateCheck::ConstraintSetTwice {
            constraint: "services".into(),
            host: "fix-it-fast".into()
        })
    );
}

#[test]
fn a_wildcard_host_is_refused_at_issuance() {
    let mut m = input();
    m.host_constraints.insert("*".into(), Constraints::default());
    assert_eq!(issue_with(m, &principal_key()).unwrap_err(), Error::MandateInvalid(MandateCheck::WildcardAudience));
}

#[test]
fn a_p256_principal_may_sign_an_sd_jwt_mandate() {
    // §3.4: in this profile only, principals may use P-256 (ES256, raw r||s).
    let ec = p256_principal_key();
    let issued = issue_with(input(), &ec).expect("issue with a P-256 principal");
    let header = schcp::jws::parse(&issued.issuer_jwt).unwrap().header;
    assert_eq!(header.alg, "ES256");
    assert_eq!(header.typ, "dc+sd-jwt");
    let chain = verify(&presentation(&issued, "harbour-garage"), "harbour-garage").expect("P-256 principal");
    assert_eq!(chain.principal(), principal_id(&ec));
}

#[test]
fn a_tampered_disclosure_is_refused() {
    let issued = issued();
    let host = "fix-it-fast";
    let mut ds = issued.disclosures[host].clone();
    // Replace this host's own limits by a disclosure the issuer never signed.
    ds[1] = schcp::b64::encode(r#"["c2FsdA","fix-it-fast",{"max_price":{"amount":"9999.00","currency":"CAD"}}]"#);
    let prefix = schcp::sdjwt::presentation_prefix(&issued.issuer_jwt, ds.iter().map(String::as_str));
    assert_envelope(verify(&present(&prefix, host, NOW, &agent_key()), host), SdJwtError::UnreferencedDisclosure);
}

/// §7.5 in an SD-JWT VC mandate: each attestation is a disclosable element,
/// padded to four, and each host is shown only those it honours.
#[test]
fn each_host_is_disclosed_only_the_attestations_it_honours() {
    let (a, b) = ("eyJhbGciOiJFZERTQSJ9.eyJhIjoxfQ.c2ln".to_owned(), "eyJhbGciOiJFZERTQSJ9.eyJiIjoxfQ.c2ln".to_owned());
    let mut m = input();
    m.attestations.insert("fix-it-fast".into(), vec![a.clone()]);
    m.attestations.insert("harbour-garage".into(), vec![a.clone(), b.clone()]);
    let issued = issue_with(m, &principal_key()).unwrap();
    let payload = schcp::jws::parse(&issued.issuer_jwt).unwrap().payload;
    assert_eq!(payload["attestations"].as_array().unwrap().len(), 4, "padded with decoys: {payload}");
    assert!(!payload.to_string().contains(&a) && !payload.to_string().contains(&b), "only digests: {payload}");
    let seen = |host: &str| {
        let mut v = verify(&presentation(&issued, host), host).unwrap().root.claims.attestations;
        if let Some(v) = v.as_mut() {
            v.sort();
        }
        v
    };
    assert_eq!(seen("fix-it-fast"), Some(vec![a.clone()]));
    assert_eq!(seen("harbour-garage"), Some(vec![a.clone(), b.clone()]));
    assert_eq!(seen("maple-street-auto"), None, "a host that honours none is shown none");

    // More than four, or one for a host the mandate does not name, is refused.
    let mut five = input();
    five.attestations.insert("fix-it-fast".into(), (0..5).map(|i| format!("{a}{i}")).collect());
    assert!(issue_with(five, &principal_key()).is_err());
    let mut stranger = input();
    stranger.attestations.insert("elsewhere".into(), vec![a]);
    assert!(issue_with(stranger, &principal_key()).is_err());
}
