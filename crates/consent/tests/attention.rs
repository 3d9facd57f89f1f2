//! The look-twice callouts (attention): graded by risk from the typed request,
//! gravest first, each pointing at a value the text says without repeating any
//! of the text's lines, and absent when its cause is.

mod common;

use common::*;
use schcp_consent::attention::{wide_heading, Grade, LONG_LIVED_SECS};
use schcp_consent::claims::{Action, Place};
use schcp_consent::*;

fn items(req: &ConsentRequest, locale: &Locale) -> Vec<Attention> {
    attention(req, locale, NOW).unwrap()
}

fn kinds(req: &ConsentRequest) -> Vec<AttentionKind> {
    items(req, &en()).into_iter().map(|a| a.kind).collect()
}

/// The two rules every callout keeps, in both languages: its detail is a value
/// the text says (the wide-mandate heading alone is its own sentence), and no
/// detail is a whole line of the text.
fn assert_points_without_repeating(req: &ConsentRequest) {
    for locale in [en(), fr()] {
        let text = render(req, &locale, &Contacts::new()).unwrap();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for a in items(req, &locale) {
            let Some(detail) = a.detail.as_deref() else { continue };
            assert!(!lines.contains(&detail.trim()), "{a:?} repeats a line of {text}");
            if a.kind != AttentionKind::WideMandate {
                assert!(text.contains(detail), "{a:?} not in {text}");
            }
        }
    }
}

fn assert_gravest_first(items: &[Attention]) {
    let grades: Vec<Grade> = items.iter().map(Attention::grade).collect();
    let mut sorted = grades.clone();
    sorted.sort();
    assert_eq!(grades, sorted, "{items:?}");
}

/// An open mandate with no limit at all, for one verified host.
fn unlimited_mandate() -> OpenMandateRequest {
    let mut m = oil_change_mandate();
    m.constraints = MandateConstraints::default();
    m.scope = vec![Action::Book];
    m
}

#[test]
fn a_verified_priced_offer_calls_out_the_price_and_retention_as_values() {
    let req = ConsentRequest::BookingOffer(oil_change());
    assert_eq!(kinds(&req), [AttentionKind::Price, AttentionKind::Retention]);
    let it = items(&req, &en());
    assert_eq!(it[0].grade(), Grade::Caution);
    assert_eq!(it[1].grade(), Grade::Notice);
    assert_points_without_repeating(&req);
}

#[test]
fn an_unverified_host_a_place_away_and_a_reconfirmation_are_called_out() {
    let req = ConsentRequest::BookingOffer(playdate_offer());
    let k = kinds(&req);
    assert!(k.starts_with(&[AttentionKind::UnverifiedIdentity, AttentionKind::PlaceAway]), "{k:?}");
    assert_points_without_repeating(&req);
    let mut haircut = haircut();
    haircut.discovered = None;
    let req = ConsentRequest::BookingOffer(haircut);
    let k = kinds(&req);
    assert_eq!(&k[..3], [AttentionKind::UnverifiedIdentity, AttentionKind::Price, AttentionKind::Reconfirmation]);
    assert_eq!(items(&req, &en())[0].grade(), Grade::Grave);
    assert_points_without_repeating(&req);
}

#[test]
fn a_host_new_to_the_key_app_is_called_out_and_a_known_one_is_not() {
    let mut o = oil_change();
    assert!(!kinds(&ConsentRequest::BookingOffer(o.clone())).contains(&AttentionKind::NewHost));
    o.new_host = true;
    let req = ConsentRequest::BookingOffer(o);
    let new = items(&req, &en()).into_iter().find(|a| a.kind == AttentionKind::NewHost).expect("called out");
    assert_eq!(new.detail.as_deref(), Some("maplestreetauto.example"));
    assert_points_without_repeating(&req);
}

#[test]
fn a_place_at_the_hosts_own_address_is_not_away() {
    let mut o = oil_change();
    o.claims.host.as_mut().unwrap().address = Some("412 Maple St".into());
    o.claims.place = Some(Place { street: Some("412 Maple St".into()), ..Place::default() });
    assert!(!kinds(&ConsentRequest::BookingOffer(o.clone())).contains(&AttentionKind::PlaceAway));
    o.claims.place = Some(Place { street: Some("1 Elsewhere Rd".into()), ..Place::default() });
    assert!(kinds(&ConsentRequest::BookingOffer(o)).contains(&AttentionKind::PlaceAway));
}

#[test]
fn a_pairing_and_a_rule_have_nothing_to_call_out() {
    let pairing = ConsentRequest::Pairing { agent_name: "Cal".into(), fingerprint: "0000-0000-0000".into() };
    assert!(kinds(&pairing).is_empty());
    assert!(kinds(&ConsentRequest::Rule(weekend_rule())).is_empty());
}

#[test]
fn a_narrow_short_mandate_for_one_verified_host_raises_nothing_grave() {
    let req = ConsentRequest::OpenMandate(oil_change_mandate());
    assert_eq!(kinds(&req), [AttentionKind::PriceLimit]);
    assert_eq!(wide_heading(&en(), &oil_change_mandate()).unwrap(), None);
    assert_points_without_repeating(&req);
}

#[test]
fn an_unlimited_mandate_is_the_gravest_request_with_a_heading_saying_what_it_allows() {
    let req = ConsentRequest::OpenMandate(unlimited_mandate());
    let it = items(&req, &en());
    assert_eq!(it[0].kind, AttentionKind::WideMandate);
    assert_eq!(it[0].grade(), Grade::Grave);
    assert_eq!(
        it[0].detail.as_deref(),
        Some(
            "\"Calendar Assistant\" could book appointments at Maple Street Auto (maplestreetauto.example): any \
             service, at any time, at any price and as many bookings as it likes, until Thursday 15 October 2026, \
             5:00 p.m. Eastern time."
        )
    );
    let fr_heading = wide_heading(&fr(), &unlimited_mandate()).unwrap().unwrap();
    insta::assert_snapshot!("wide_heading_unlimited@fr", fr_heading);
    assert_points_without_repeating(&req);
    // The calmest and the riskiest request do not look alike.
    assert_ne!(kinds(&req), kinds(&ConsentRequest::OpenMandate(oil_change_mandate())));
}

#[test]
fn each_missing_limit_alone_makes_a_mandate_wide_and_names_what_is_left_open() {
    type Open = fn(&mut MandateConstraints);
    let cases: [(Open, &str); 4] = [
        (|c| c.services = None, "any service"),
        (|c| c.window = None, "at any time"),
        (|c| c.max_price = None, "at any price"),
        (|c| c.max_bookings = None, "as many bookings as it likes"),
    ];
    for (open, words) in cases {
        let mut m = oil_change_mandate();
        open(&mut m.constraints);
        let heading = wide_heading(&en(), &m).unwrap().expect("wide");
        assert!(heading.contains(words), "{heading}");
        // The limits it does set are said as limits.
        assert!(heading.contains("only") || heading.contains("up to") || heading.contains("one booking"), "{heading}");
        assert_points_without_repeating(&ConsentRequest::OpenMandate(m));
    }
    let mut any_host = oil_change_mandate();
    any_host.hosts[0].id = "*".into();
    let heading = wide_heading(&en(), &any_host).unwrap().expect("any host is wide");
    assert!(heading.contains("any host at all"), "{heading}");
}

#[test]
fn a_limit_set_for_every_host_on_its_own_is_not_missing_but_one_host_without_it_is() {
    use std::collections::BTreeMap;
    let mut m = oil_change_mandate();
    let own = m.constraints.max_price.take();
    m.host_constraints = BTreeMap::from([(
        "maple-street-auto".to_owned(),
        MandateConstraints { max_price: own, ..MandateConstraints::default() },
    )]);
    assert_eq!(wide_heading(&en(), &m).unwrap(), None, "its one host sets the limit");
    // Wide for another reason, the host's own price limit is said as such.
    let mut open_services = m.clone();
    open_services.constraints.services = None;
    let heading = wide_heading(&en(), &open_services).unwrap().expect("any service");
    assert!(heading.contains("any service") && heading.contains("within each host’s own limit"), "{heading}");
    assert!(!heading.contains("at any price"), "{heading}");
    m.hosts.push(MandateHost {
        id: "speedy-lube".into(),
        name: Some("Speedy Lube".into()),
        domain: Some(domain("speedylube.example")),
        new_host: false,
    });
    let heading = wide_heading(&en(), &m).unwrap().expect("the second host has no price limit");
    assert!(heading.contains("at any price"), "{heading}");
}

#[test]
fn delegation_several_hosts_a_long_life_and_a_shared_limit_are_each_called_out() {
    let mut m = oil_change_mandate();
    m.scope.push(Action::Delegate);
    m.hosts.push(MandateHost {
        id: "speedy-lube".into(),
        name: Some("Speedy Lube".into()),
        domain: Some(domain("speedylube.example")),
        new_host: false,
    });
    m.constraints.shared_limit = true;
    m.exp = NOW + LONG_LIVED_SECS + 1;
    let req = ConsentRequest::OpenMandate(m.clone());
    let k = kinds(&req);
    for want in
        [AttentionKind::Delegate, AttentionKind::SeveralHosts, AttentionKind::LongLived, AttentionKind::SharedLimit]
    {
        assert!(k.contains(&want), "{want:?} missing from {k:?}");
    }
    assert_eq!(AttentionKind::Delegate.grade(), Grade::Grave);
    assert_gravest_first(&items(&req, &en()));
    assert_points_without_repeating(&req);
    // Exactly a day is not long-lived; a single host is not several.
    m.exp = NOW + LONG_LIVED_SECS;
    m.hosts.truncate(1);
    m.scope.retain(|a| *a != Action::Delegate);
    m.constraints.shared_limit = false;
    let k = kinds(&ConsentRequest::OpenMandate(m));
    for gone in
        [AttentionKind::Delegate, AttentionKind::SeveralHosts, AttentionKind::LongLived, AttentionKind::SharedLimit]
    {
        assert!(!k.contains(&gone), "{gone:?} in {k:?}");
    }
}

#[test]
fn an_open_mandate_names_its_unverified_hosts_and_its_price_cap() {
    let mut m = oil_change_mandate();
    m.hosts[0].domain = None;
    m.constraints.max_price = Some(cad("100.00"));
    let req = ConsentRequest::OpenMandate(m);
    let k = kinds(&req);
    assert!(k.contains(&AttentionKind::UnverifiedIdentity) && k.contains(&AttentionKind::PriceLimit), "{k:?}");
    assert_eq!(k[0], AttentionKind::UnverifiedIdentity, "grave first: {k:?}");
}

#[test]
fn a_ceiling_is_never_called_a_price_but_a_limit_on_each_booking() {
    let mut m = oil_change_mandate();
    m.constraints.max_price = Some(cad("120.00"));
    m.constraints.max_bookings = Some(3);
    let req = ConsentRequest::OpenMandate(m.clone());
    for (locale, words) in
        [(en(), "each booking up to CAD 120.00 all-in"), (fr(), "chaque réservation jusqu’à 120,00 CAD tout compris")]
    {
        let items = items(&req, &locale);
        assert!(items.iter().all(|a| a.kind != AttentionKind::Price), "{items:?}");
        let cap = items.iter().find(|a| a.kind == AttentionKind::PriceLimit).expect("the cap is called out");
        assert_eq!(cap.detail.as_deref(), Some(words));
        let text = render(&req, &locale, &Contacts::new()).unwrap();
        assert!(text.contains(words), "{text}");
    }
    // No cap, no callout.
    m.constraints.max_price = None;
    assert!(!kinds(&ConsentRequest::OpenMandate(m)).contains(&AttentionKind::PriceLimit));
}

#[test]
fn every_fixture_is_graded_gravest_first_and_repeats_no_line() {
    let reqs = [
        ConsentRequest::BookingOffer(dental()),
        ConsentRequest::BookingOffer(oil_change()),
        ConsentRequest::BookingOffer(playdate_offer()),
        ConsentRequest::BookingOffer(haircut()),
        ConsentRequest::OpenMandate(oil_change_mandate()),
        ConsentRequest::OpenMandate(unlimited_mandate()),
        ConsentRequest::ManagementMandate(oil_change_management(vec![Action::Cancel])),
    ];
    for req in &reqs {
        assert_gravest_first(&items(req, &en()));
        assert_points_without_repeating(req);
    }
}
