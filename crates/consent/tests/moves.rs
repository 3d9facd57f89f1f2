//! Moves shown from and to (§5.7), the host's proposals and counters (§5.8,
//! §5.11), revisions a member accepts (§5.12), and who answers by rule: reviewed
//! renderings in English and French, `snapshots/moves__<case>@<language>.snap`.

mod common;

use std::collections::BTreeMap;

use common::*;
use schcp_consent::claims::*;
use schcp_consent::*;

fn check(case: &str, req: &ConsentRequest, contacts: &Contacts) {
    for (tag, locale) in [("en", en()), ("fr", fr())] {
        let text = render(req, &locale, contacts).unwrap_or_else(|e| panic!("{case}@{tag}: {e}"));
        insta::assert_snapshot!(format!("{case}@{tag}"), text);
    }
}

/// A change offer of `current`'s booking b_7Qx2.
fn change_of(current: &VerifiedOffer) -> VerifiedOffer {
    let mut new = current.clone();
    new.claims.kind = OfferKind::Change;
    new.claims.hold_id = None;
    new.claims.booking_id = Some("b_7Qx2".into());
    new.claims.prev = Some("prev-hash".into());
    new
}

/// The host's receipt of a booking made on `offer` (§5.3), as a booking made
/// under an open mandate has it: the key app never saw the offer.
fn receipt_of(offer: &OfferClaims, status: BookingStatus) -> ReceiptClaims {
    let event = Event {
        type_: EventType::Event,
        uid: "b_7Qx2@h.example".into(),
        start: "2026-10-15T13:00:00".into(),
        time_zone: "America/Toronto".into(),
        duration: "PT45M".into(),
        title: "Booked".into(),
        description: None,
        sequence: 0,
        updated: "2026-10-13T13:00:00Z".into(),
        status: EventStatus::Confirmed,
        locations: None,
    };
    let booking = Booking::of_offer("b_7Qx2".into(), status, 0, offer, Some("prev-hash".into()), event);
    ReceiptClaims {
        v: "0.4".into(),
        iss: offer.iss.clone(),
        iat: 1_792_000_000,
        booking,
        offer_sha256: Some("prev-hash".into()),
        retention: offer.retention.clone(),
        consent: Some(ReceiptConsent { approved: Approved::Limits, mandate: "m-1".into(), mode: None }),
    }
}

/// Every term moves: time, place, party, price, resource, reconfirmation, retention.
fn moved_everything(current: &VerifiedOffer) -> VerifiedOffer {
    let mut new = change_of(current);
    let c = &mut new.claims;
    c.slot = Slot { start: "2026-10-16T09:00:00-04:00".into(), end: Some("2026-10-16T09:30:00-04:00".into()) };
    c.place =
        Some(Place { name: Some("Back entrance".into()), street: Some("12 Queen St W".into()), ..Place::default() });
    c.party_size = Some(2);
    c.price = Some(cad("50.00"));
    c.total = Some(cad("56.50"));
    c.lines = Some(vec![
        PriceLine { kind: LineKind::Service, label: "Haircut".into(), amount: cad("50.00") },
        PriceLine { kind: LineKind::Tax, label: "HST 13%".into(), amount: cad("6.50") },
    ]);
    c.resource = Some("aisha".into());
    c.resource_name = Some("Aisha".into());
    c.reconfirm = Some(Reconfirm { before: "PT48H".into(), default: ReconfirmDefault::Release });
    c.retention = "P365D".into();
    new
}

fn guest(current: Option<CurrentTerms>, proposed: VerifiedOffer) -> ConsentRequest {
    ConsentRequest::ChangeOffer { current, proposed, by: ProposedChange::Guest }
}

#[test]
fn a_booking_made_under_an_open_mandate_is_shown_from_its_receipt() {
    let booked = haircut();
    let receipt = receipt_of(&booked.claims, BookingStatus::Confirmed);
    let req = guest(Some(CurrentTerms::Receipt(receipt)), moved_everything(&booked));
    check("change_from_receipt", &req, &Contacts::new());
    let text = render(&req, &en(), &Contacts::new()).unwrap();
    for term in ["Time: from", "Place: from", "Party size: from", "Price: from", "Reconfirmation: from"] {
        assert!(text.contains(term), "{term} in {text}");
    }
    assert!(text.contains("Records kept after the booking: from 2 weeks to 1 year."), "{text}");
    // A receipt names no resource: the new one is said, and that the old is not known.
    assert!(text.contains("Booked with: Aisha; the receipt does not say"), "{text}");
}

#[test]
fn a_change_from_an_approved_offer_shows_every_term_the_resource_included() {
    let booked = haircut();
    check(
        "change_every_term",
        &guest(Some(CurrentTerms::Offer(booked.clone())), moved_everything(&booked)),
        &Contacts::new(),
    );
    // Reconfirmation dropped and records no longer kept are said too.
    let mut new = change_of(&booked);
    new.claims.reconfirm = None;
    new.claims.retention = "P0D".into();
    let text = render(&guest(Some(CurrentTerms::Offer(booked)), new), &en(), &Contacts::new()).unwrap();
    assert!(
        text.contains("Reconfirmation: from due 24 hours before the start, else the booking is released to none."),
        "{text}"
    );
    assert!(text.contains("Records kept after the booking: from 2 weeks to none."), "{text}");
}

#[test]
fn without_a_receipt_one_line_asks_for_it() {
    let booked = oil_change();
    let mut new = change_of(&booked);
    new.claims.slot = Slot { start: "2026-10-16T09:00:00-04:00".into(), end: Some("2026-10-16T09:45:00-04:00".into()) };
    check("change_no_receipt", &guest(None, new), &Contacts::new());
}

#[test]
fn a_hosts_counter_and_proposal_are_said_to_be_the_hosts() {
    let booked = oil_change();
    let mut new = change_of(&booked);
    new.claims.slot = Slot { start: "2026-10-16T09:00:00-04:00".into(), end: Some("2026-10-16T09:45:00-04:00".into()) };
    let counter = ConsentRequest::ChangeOffer {
        current: Some(CurrentTerms::Receipt(receipt_of(&booked.claims, BookingStatus::PendingHost))),
        proposed: new.clone(),
        by: ProposedChange::HostCounter,
    };
    check("change_host_counter", &counter, &Contacts::new());
    let proposal = ConsentRequest::ChangeOffer {
        current: Some(CurrentTerms::Receipt(receipt_of(&booked.claims, BookingStatus::Confirmed))),
        proposed: new,
        by: ProposedChange::HostProposal,
    };
    check("change_host_proposal", &proposal, &Contacts::new());
}

#[test]
fn a_receipt_of_another_host_is_refused() {
    let booked = oil_change();
    let mut receipt = receipt_of(&booked.claims, BookingStatus::Confirmed);
    receipt.iss = "fades-on-queen".into();
    let err = render(&guest(Some(CurrentTerms::Receipt(receipt)), change_of(&booked)), &en(), &Contacts::new());
    assert!(matches!(err, Err(ConsentError::ChangeOfferMismatch(_))), "{err:?}");
}

/// Revision 2 of the §5.12 playdate: an hour later, at another park, Leo too.
fn revision_two() -> MeetingContract {
    let mut c = playdate_contract();
    c.revision = 2;
    c.start = "2026-10-17T13:00:00-04:00".into();
    c.place = Place { name: Some("Dufferin Grove Park".into()), locality: Some("Toronto".into()), ..Place::default() };
    c.attendees.as_mut().unwrap().push(Attendee { name: "Leo".into(), relationship: None });
    c
}

#[test]
fn a_revision_names_what_changed_since_the_one_accepted() {
    let mut req = acceptance_request(revision_two(), ELLIS);
    req.replaces = Some(ReplacedRevision::Accepted(playdate_contract()));
    check("acceptance_revision_accepted", &ConsentRequest::Acceptance(req.clone()), &ellis_contacts());
    // The statement signed stays the first line, the spec's own form.
    let text = render(&ConsentRequest::Acceptance(req.clone()), &en(), &ellis_contacts()).unwrap();
    assert_eq!(text.lines().next().unwrap(), acceptance_statement(&en(), &req, &ellis_contacts()).unwrap());
    // Unchanged terms: one line says so.
    let mut same = acceptance_request(revision_two(), ELLIS);
    same.replaces = Some(ReplacedRevision::Accepted(revision_two()));
    let text = render(&ConsentRequest::Acceptance(same), &en(), &ellis_contacts()).unwrap();
    assert!(text.contains("The new terms are the same as the current ones."), "{text}");
}

#[test]
fn a_revision_of_a_meeting_not_accepted_says_which_it_replaces() {
    let mut req = acceptance_request(revision_two(), ELLIS);
    req.replaces = Some(ReplacedRevision::NotAccepted { revision: 1 });
    check("acceptance_revision_not_accepted", &ConsentRequest::Acceptance(req), &ellis_contacts());
}

#[test]
fn a_member_reads_who_else_answers_in_person_and_who_by_rule() {
    let mut c = playdate_contract();
    c.members[2].answers = Some(Answers::Person);
    c.members.push(member("urn:schcp:principal:jwk-thumbprint:Sam", "Sam Roy", "sam-roy"));
    check("acceptance_answers", &ConsentRequest::Acceptance(acceptance_request(c, ELLIS)), &ellis_contacts());
}

#[test]
fn a_business_member_without_a_verified_domain_is_unverified() {
    let mut c = playdate_contract();
    c.members
        .push(Member {
            business: Some(true), ..member("urn:schcp:host:cafe-lumiere", "Café Lumière", "cafe-lumiere")
        });
    check(
        "meeting_business_unverified",
        &ConsentRequest::MeetingContract(organizer_request(c.clone())),
        &noors_contacts(),
    );
    check(
        "acceptance_business_unverified",
        &ConsentRequest::Acceptance(acceptance_request(c.clone(), ELLIS)),
        &ellis_contacts(),
    );
    // With the domain the key app discovered, it is named by that domain.
    let mut req = organizer_request(c);
    req.domains = BTreeMap::from([("cafe-lumiere".to_owned(), domain("cafelumiere.example"))]);
    let text = render(&ConsentRequest::MeetingContract(req), &en(), &noors_contacts()).unwrap();
    assert!(text.contains("Café Lumière (cafelumiere.example)") && !text.contains("unverified"), "{text}");
}
