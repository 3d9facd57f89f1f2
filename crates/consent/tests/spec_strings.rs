//! The spec's own renderings (§5.2, §5.12), byte for byte.

mod common;

use common::*;
use schcp_consent::claims::Answers;
use schcp_consent::*;

#[test]
fn dental_offer_summary_is_the_spec_rendering() {
    let text = offer_summary(&en(), &dental()).unwrap();
    assert_eq!(
        text,
        "Cleaning and check-up with Harbourview Dental (harbourviewdental.example), Thursday 15 October 2026, 8:00–9:00 a.m. Pacific time, CAD 180.00, paid to Harbourview Dental directly"
    );
    let full = render(&ConsentRequest::BookingOffer(dental()), &en(), &Contacts::new()).unwrap();
    assert_eq!(full.lines().next(), Some(text.as_str()));
}

#[test]
fn organizer_statement_is_the_spec_rendering() {
    let text = meeting_statement(&en(), &organizer_request(playdate_contract()), &noors_contacts()).unwrap();
    assert_eq!(
        text,
        "I approve: Playdate with Ellis Moreau (ellis-moreau) and Priya Shah (priya-shah), Saturday 17 October 2026 from 12:00 p.m. Eastern time, open-ended, at Trinity Bellwoods Park playground, Toronto, with Mira (child) coming along; Ellis Moreau and Priya Shah may each answer by a rule they signed."
    );
}

#[test]
fn acceptance_statement_is_the_spec_rendering() {
    let text = acceptance_statement(&en(), &acceptance_request(playdate_contract(), ELLIS), &ellis_contacts()).unwrap();
    assert_eq!(
        text,
        "I accept: Playdate arranged by Noor Haddad (noor-haddad), with Priya Shah (priya-shah), Saturday 17 October 2026 from 12:00 p.m. Eastern time, open-ended, at Trinity Bellwoods Park playground, Toronto, with Mira (child) coming along."
    );
}

#[test]
fn answers_grouping_is_the_spec_rendering() {
    let mut contract = playdate_contract();
    contract.members[2].answers = Some(Answers::Person);
    let text = answers_words(&en(), &contract, &noors_contacts()).unwrap();
    assert_eq!(text.as_deref(), Some("Priya Shah answers in person; Ellis Moreau may answer by a rule they signed"));
}

#[test]
fn retention_is_said_as_the_spec_says_it() {
    let locale = en();
    let mut offer = oil_change().claims;
    assert_eq!(
        retention_sentence(&locale, &offer).unwrap(),
        "Maple Street Auto keeps my booking details for 1 year after the booking."
    );
    for (retention, words) in [
        ("P30D", "30 days"),
        ("P2W", "2 weeks"),
        ("P1W", "1 week"),
        ("P1D", "1 day"),
        ("P730D", "2 years"),
        ("P52W", "52 weeks"),
        ("P1W3D", "10 days"),
    ] {
        offer.retention = retention.into();
        assert_eq!(
            retention_sentence(&locale, &offer).unwrap(),
            format!("Maple Street Auto keeps my booking details for {words} after the booking."),
            "{retention}"
        );
    }
    for zero in ["P0D", "P0W", "P0W0D"] {
        offer.retention = zero.into();
        assert_eq!(
            retention_sentence(&locale, &offer).unwrap(),
            "Maple Street Auto does not keep my booking details past the booking."
        );
    }
}

#[test]
fn resource_reads_as_the_spec_says_it() {
    let text = what_words(&en(), &haircut()).unwrap();
    assert_eq!(text, "Haircut with Marcus at Fades on Queen (fadesonqueen.example)");
}

#[test]
fn open_ended_reads_from_a_start() {
    let text = slot_words(&en(), "2026-10-15T08:00:00-04:00", None, Some("America/Toronto")).unwrap();
    assert_eq!(text, "Thursday 15 October 2026 from 8:00 a.m. Eastern time, open-ended");
}

#[test]
fn unpriced_offers_say_nothing_about_money() {
    let text = render(&ConsentRequest::BookingOffer(playdate_offer()), &en(), &Contacts::new()).unwrap();
    for money_word in ["CAD", "paid", "price", "$", "free", "cost"] {
        assert!(!text.contains(money_word), "{money_word:?} in {text}");
    }
}

#[test]
fn open_mandate_says_every_limit_and_every_absence() {
    let locale = en();
    let text = render_open_mandate(&locale, &oil_change_mandate()).unwrap();
    assert!(
        text.contains("each booking up to CAD 100.00 all-in, at most 1 booking, paid to the host directly"),
        "{text}"
    );
    let mut open = oil_change_mandate();
    open.constraints = MandateConstraints::default();
    let text = render_open_mandate(&locale, &open).unwrap();
    for phrase in ["any service", "any time", "no price limit"] {
        assert!(text.contains(phrase), "{phrase:?} missing from {text}");
    }
}
