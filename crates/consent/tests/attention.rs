//! The look-twice callouts (attention): computed from the typed request, each
//! one also said in the rendered text, and absent when its cause is.

mod common;

use common::*;
use schcp_consent::claims::Place;
use schcp_consent::*;

fn kinds(req: &ConsentRequest) -> Vec<AttentionKind> {
    attention(req, &en()).unwrap().into_iter().map(|a| a.kind).collect()
}

#[test]
fn a_verified_priced_offer_calls_out_the_price_and_retention_only() {
    let req = ConsentRequest::BookingOffer(oil_change());
    assert_eq!(kinds(&req), [AttentionKind::Price, AttentionKind::Retention]);
    // Each detail is said in the text itself, word for word.
    let text = render(&req, &en(), &Contacts::new()).unwrap();
    for a in attention(&req, &en()).unwrap() {
        assert!(text.contains(a.detail.as_deref().unwrap()), "{:?} not in {text}", a);
    }
}

#[test]
fn an_unverified_host_a_place_away_and_a_reconfirmation_are_called_out() {
    let req = ConsentRequest::BookingOffer(playdate_offer());
    assert_eq!(kinds(&req), [AttentionKind::UnverifiedIdentity, AttentionKind::PlaceAway, AttentionKind::Retention]);
    let mut haircut = haircut();
    haircut.discovered = None;
    let req = ConsentRequest::BookingOffer(haircut);
    assert_eq!(
        kinds(&req),
        [
            AttentionKind::UnverifiedIdentity,
            AttentionKind::Price,
            AttentionKind::Reconfirmation,
            AttentionKind::Retention
        ]
    );
    let text = render(&req, &fr(), &Contacts::new()).unwrap();
    for a in attention(&req, &fr()).unwrap() {
        assert!(text.contains(a.detail.as_deref().unwrap()), "{:?} not in {text}", a);
    }
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
fn an_open_mandate_names_its_unverified_hosts_and_its_price_cap() {
    let mut m = oil_change_mandate();
    let verified = kinds(&ConsentRequest::OpenMandate(m.clone()));
    assert!(!verified.contains(&AttentionKind::UnverifiedIdentity), "{verified:?}");
    m.hosts[0].domain = None;
    m.constraints.max_price = Some(cad("100.00"));
    let k = kinds(&ConsentRequest::OpenMandate(m.clone()));
    assert!(k.contains(&AttentionKind::UnverifiedIdentity) && k.contains(&AttentionKind::PriceLimit), "{k:?}");
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
        let items = attention(&req, &locale).unwrap();
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
