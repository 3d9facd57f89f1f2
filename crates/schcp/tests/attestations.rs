//! Attestations (§7.5): honoured only when the host trusts the attester, the
//! signature verifies with a key the host lists for it, `sub` is this
//! principal and `iat ≤ now < exp`; a mandate carries at most four, each to
//! the hosts that honour it (§3.3).

mod common;

use common::*;
use ed25519_dalek::SigningKey;
use schcp::claims::{AttestationClaims, Attester};
use schcp::jwk::Jwk;
use schcp::jws::{self, HeaderExtras, Typ};
use schcp::verify::{select_attestations, verify_attestation, AttestationCheck, HostTrust, MAX_ATTESTATIONS};

fn principal() -> String {
    jwk_of(&principal_key()).principal_id().unwrap()
}

fn attester_key(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed; 32])
}

/// The attester `id` with the key of `seed`, as a host lists it.
fn attester(id: &str, seed: u8) -> Attester {
    let v: serde_json::Value = serde_json::json!({
        "id": id, "keys": [Jwk::ed25519(&attester_key(seed).verifying_key())]
    });
    serde_json::from_value(v).unwrap()
}

fn claims(iss: &str) -> AttestationClaims {
    AttestationClaims {
        iss: iss.into(),
        sub: principal(),
        iat: NOW - 86_400,
        exp: NOW + 30 * 86_400,
        assurance: "unique_phone".into(),
    }
}

fn signed(c: &AttestationClaims, seed: u8) -> String {
    jws::sign(Typ::Attestation, HeaderExtras::default(), c, &attester_key(seed)).unwrap()
}

fn check(compact: &str, trusted: &[Attester]) -> Result<(), AttestationCheck> {
    verify_attestation(compact, trusted, &principal(), NOW).map(|_| ())
}

#[test]
fn an_attestation_the_host_trusts_about_this_principal_now_is_honoured() {
    let a = signed(&claims("phonecheck.example"), 1);
    let v = verify_attestation(&a, &[attester("phonecheck.example", 1)], &principal(), NOW).unwrap();
    assert_eq!((v.compact.as_str(), v.claims.assurance.as_str()), (a.as_str(), "unique_phone"));
    // Issued at now exactly is fine (iat ≤ now).
    let mut c = claims("phonecheck.example");
    c.iat = NOW;
    assert_eq!(check(&signed(&c, 1), &[attester("phonecheck.example", 1)]), Ok(()));
}

#[test]
fn a_forged_signature_is_not_honoured() {
    // Signed by another key than the one the host lists for the attester.
    let forged = signed(&claims("phonecheck.example"), 2);
    assert_eq!(
        check(&forged, &[attester("phonecheck.example", 1)]),
        Err(AttestationCheck::BadSignature("phonecheck.example".into()))
    );
    // A key listed for another attester does not count for this one.
    let trusted = [attester("phonecheck.example", 1), attester("cardcheck.example", 2)];
    assert_eq!(check(&forged, &trusted), Err(AttestationCheck::BadSignature("phonecheck.example".into())));
    // A payload changed after signing.
    let good = signed(&claims("phonecheck.example"), 1);
    let parts: Vec<&str> = good.split('.').collect();
    let mut c = claims("phonecheck.example");
    c.assurance = "government_id".into();
    let other = signed(&c, 1);
    let spliced = format!("{}.{}.{}", parts[0], other.split('.').nth(1).unwrap(), parts[2]);
    assert_eq!(
        check(&spliced, &[attester("phonecheck.example", 1)]),
        Err(AttestationCheck::BadSignature("phonecheck.example".into()))
    );
}

#[test]
fn an_attestation_about_another_principal_is_not_honoured() {
    let mut c = claims("phonecheck.example");
    c.sub = jwk_of(&agent_key()).principal_id().unwrap();
    let found = c.sub.clone();
    assert_eq!(
        check(&signed(&c, 1), &[attester("phonecheck.example", 1)]),
        Err(AttestationCheck::WrongSubject { found })
    );
}

#[test]
fn an_expired_or_future_attestation_is_not_honoured() {
    let mut c = claims("phonecheck.example");
    c.exp = NOW;
    assert_eq!(
        check(&signed(&c, 1), &[attester("phonecheck.example", 1)]),
        Err(AttestationCheck::Expired { exp: NOW, now: NOW }),
        "now < exp, with no skew"
    );
    let mut c = claims("phonecheck.example");
    c.iat = NOW + 1;
    assert_eq!(
        check(&signed(&c, 1), &[attester("phonecheck.example", 1)]),
        Err(AttestationCheck::IssuedInFuture { iat: NOW + 1, now: NOW })
    );
}

#[test]
fn an_untrusted_attester_or_a_malformed_attestation_is_not_honoured() {
    let a = signed(&claims("phonecheck.example"), 1);
    assert_eq!(
        check(&a, &[attester("cardcheck.example", 1)]),
        Err(AttestationCheck::UntrustedAttester("phonecheck.example".into()))
    );
    assert_eq!(check(&a, &[]), Err(AttestationCheck::UntrustedAttester("phonecheck.example".into())));
    // Another typ, a claim the schema does not know, garbage.
    let wrong_typ = jws::sign(Typ::Rule, HeaderExtras::default(), &claims("phonecheck.example"), &attester_key(1));
    let mut extra = serde_json::to_value(claims("phonecheck.example")).unwrap();
    extra["level"] = serde_json::json!("gold");
    let unknown = jws::sign(Typ::Attestation, HeaderExtras::default(), &extra, &attester_key(1)).unwrap();
    for bad in [wrong_typ.unwrap(), unknown, "not.a.jws".to_owned()] {
        assert!(
            matches!(check(&bad, &[attester("phonecheck.example", 1)]), Err(AttestationCheck::Malformed(_))),
            "{bad}"
        );
    }
}

fn host(id: &str, attesters: Vec<Attester>) -> HostTrust {
    HostTrust { host: id.into(), attesters }
}

#[test]
fn each_host_gets_only_what_it_honours_and_a_mandate_carries_at_most_four() {
    // Six attesters, each with its own key; garage-a trusts the first five,
    // garage-b the first and the sixth; nobody trusts "stranger.example".
    let ids = ["a1.example", "a2.example", "a3.example", "a4.example", "a5.example", "a6.example"];
    let held: Vec<String> = ids.iter().enumerate().map(|(i, id)| signed(&claims(id), 10 + i as u8)).collect();
    let stranger = signed(&claims("stranger.example"), 30);
    let mut expired = claims("a1.example");
    expired.exp = NOW - 1;
    let expired = signed(&expired, 10);
    let forged = signed(&claims("a2.example"), 31);
    let mut all = vec![stranger, expired.clone(), forged.clone()];
    all.extend(held.iter().cloned());
    let a = host("garage-a", ids[..5].iter().enumerate().map(|(i, id)| attester(id, 10 + i as u8)).collect());
    let b = host("garage-b", vec![attester(ids[0], 10), attester(ids[5], 15)]);
    let none = host("garage-c", Vec::new());
    let s = select_attestations(&all, &[a, b, none], &principal(), NOW);

    assert_eq!(s.attestations.len(), MAX_ATTESTATIONS, "more than four are honoured; four are carried");
    assert!(!s.attestations.contains(&expired) && !s.attestations.contains(&forged));
    // The one both garages honour comes first; each garage sees only its own.
    assert_eq!(s.attestations[0], held[0]);
    let b_sees = &s.per_host["garage-b"];
    assert_eq!(b_sees[0], held[0]);
    assert!(b_sees.iter().all(|x| *x == held[0] || *x == held[5]), "{b_sees:?}");
    for (h, carried) in &s.per_host {
        for c in carried {
            assert!(s.attestations.contains(c), "{h}");
        }
    }
    assert!(s.per_host["garage-a"].iter().all(|x| held[..5].contains(x)));
    assert!(!s.per_host.contains_key("garage-c"), "a host that trusts nobody is shown nothing");

    // A second attestation from the same attester adds nothing at any host.
    let mut later = claims(ids[0]);
    later.exp = NOW + 60 * 86_400;
    let twice = [held[0].clone(), signed(&later, 10)];
    let s = select_attestations(&twice, &[host("garage-a", vec![attester(ids[0], 10)])], &principal(), NOW);
    assert_eq!(s.attestations, [twice[1].clone()], "the one lasting longest, once");
}

#[test]
fn one_credential_for_several_hosts_carries_only_what_every_host_honours() {
    // §3.3, §7.5: a compact JWS is read whole by each host in its aud.
    let phone = signed(&claims("a1.example"), 10);
    let card = signed(&claims("a2.example"), 11);
    let garage = host("garage-a", vec![attester("a1.example", 10), attester("a2.example", 11)]);
    let salon = host("salon-b", vec![attester("a1.example", 10)]);
    let barber = host("barber-c", Vec::new());
    let held = [card.clone(), phone.clone()];
    let ids = |hs: &[&HostTrust]| hs.iter().map(|h| h.host.clone()).collect::<Vec<_>>();

    // Both hosts trust the phone check: it is carried; the card check only
    // the garage trusts is not.
    let s = select_attestations(&held, &[garage.clone(), salon.clone()], &principal(), NOW);
    assert_eq!(s.attestations.len(), 2, "per host, each is still chosen for its own host");
    assert_eq!(s.honoured_by_every(&ids(&[&garage, &salon])), std::slice::from_ref(&phone));

    // A host that trusts no attester: nothing is carried to any of them.
    let s = select_attestations(&held, &[garage.clone(), barber.clone()], &principal(), NOW);
    assert!(!s.attestations.is_empty());
    assert_eq!(s.honoured_by_every(&ids(&[&garage, &barber])), Vec::<String>::new());

    // A host in the audience with no trust list read at all is one that honours none.
    let s = select_attestations(&held, std::slice::from_ref(&garage), &principal(), NOW);
    assert_eq!(s.honoured_by_every(&["garage-a".into(), "elsewhere".into()]), Vec::<String>::new());

    // One host: all it honours, as before.
    let mut only = s.honoured_by_every(&["garage-a".into()]);
    only.sort();
    let mut both = vec![phone, card];
    both.sort();
    assert_eq!(only, both);
    assert_eq!(s.honoured_by_every(&[]), Vec::<String>::new());
}
