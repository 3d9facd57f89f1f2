//! The offer's price lines and the host's address as typed values (§5.2):
//! every line of the total in the signed order, amounts in the person's
//! words, host strings inert, and nothing for a request with no single offer.

mod common;

use common::*;
use schcp_consent::claims::LineKind;
use schcp_consent::*;

fn with_address(mut o: VerifiedOffer, address: &str) -> VerifiedOffer {
    o.claims.host.as_mut().unwrap().address = Some(address.into());
    o
}

#[test]
fn every_line_of_the_total_and_the_hosts_address_in_both_languages() {
    let req = ConsentRequest::BookingOffer(with_address(oil_change(), "120 Maple Street, Toronto ON"));
    let en_terms = offer_terms(&req, &en()).unwrap().unwrap();
    assert_eq!(en_terms.host, "Maple Street Auto");
    assert_eq!(en_terms.address.as_deref(), Some("120 Maple Street, Toronto ON"));
    assert_eq!(en_terms.total.as_deref(), Some("CAD 89.27"));
    let lines: Vec<(LineKind, &str, &str)> =
        en_terms.lines.iter().map(|l| (l.kind, l.label.as_str(), l.amount.as_str())).collect();
    assert_eq!(
        lines,
        [(LineKind::Service, "Synthetic oil change", "CAD 79.00"), (LineKind::Tax, "HST 13%", "CAD 10.27")]
    );

    let fr_terms = offer_terms(&req, &fr()).unwrap().unwrap();
    let amounts: Vec<&str> = fr_terms.lines.iter().map(|l| l.amount.as_str()).collect();
    assert_eq!(amounts, ["79,00 CAD", "10,27 CAD"]);
    assert_eq!(fr_terms.total.as_deref(), Some("89,27 CAD"));
}

#[test]
fn the_total_the_text_states_is_the_one_given() {
    // The values are the text's, never a second reading of the claims.
    for locale in [en(), fr()] {
        let req = ConsentRequest::BookingOffer(oil_change());
        let text = render(&req, &locale, &Contacts::new()).unwrap();
        let terms = offer_terms(&req, &locale).unwrap().unwrap();
        assert!(text.contains(terms.total.as_deref().unwrap()), "{text}");
    }
}

#[test]
fn no_price_and_no_address_give_none_and_no_lines() {
    let terms = offer_terms(&ConsentRequest::BookingOffer(playdate_offer()), &en()).unwrap().unwrap();
    assert!(terms.lines.is_empty());
    assert_eq!(terms.total, None);
    assert_eq!(terms.address, None);
}

#[test]
fn a_change_offer_gives_the_proposed_terms() {
    let req = ConsentRequest::ChangeOffer { current: None, proposed: oil_change(), by: ProposedChange::Guest };
    assert_eq!(offer_terms(&req, &en()).unwrap().unwrap().total.as_deref(), Some("CAD 89.27"));
}

#[test]
fn requests_without_one_offer_have_no_terms() {
    let pairing = ConsentRequest::Pairing { agent_name: "A".into(), fingerprint: "7F3A-91C2-K8QD".into() };
    assert_eq!(offer_terms(&pairing, &en()).unwrap(), None);
    assert_eq!(offer_terms(&ConsentRequest::OpenMandate(oil_change_mandate()), &en()).unwrap(), None);
}

#[test]
fn hostile_labels_and_addresses_stay_inert() {
    let mut o = with_address(oil_change(), "1 Main St\u{202E}evil");
    o.claims.lines.as_mut().unwrap()[1].label = "HST\u{202E}31".into();
    let terms = offer_terms(&ConsentRequest::BookingOffer(o), &en()).unwrap().unwrap();
    assert!(!terms.address.unwrap().contains('\u{202E}'));
    assert!(!terms.lines[1].label.contains('\u{202E}'));
}

#[test]
fn an_oversized_label_is_refused_not_cut() {
    let mut o = oil_change();
    o.claims.lines.as_mut().unwrap()[0].label = "x".repeat(inert::MAX_FIELD_CHARS + 1);
    assert!(matches!(offer_terms(&ConsentRequest::BookingOffer(o), &en()), Err(ConsentError::TextTooLong { .. })));
}

#[test]
fn a_malformed_line_amount_is_refused_not_shown() {
    let mut o = oil_change();
    o.claims.lines.as_mut().unwrap()[1].amount = cad("10.271");
    assert!(matches!(
        offer_terms(&ConsentRequest::BookingOffer(o), &en()),
        Err(ConsentError::BadMoney { field: "lines.amount", .. })
    ));
}
