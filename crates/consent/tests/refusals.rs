//! Terms the renderer refuses to show rather than show approximately (§5.3), each with
//! its typed reason, and the same request made valid renders.

mod common;

use common::*;
use schcp_consent::claims::*;
use schcp_consent::*;

fn management(scope: Vec<Action>) -> ConsentRequest {
    ConsentRequest::ManagementMandate(oil_change_management(scope))
}

#[test]
fn a_management_mandate_says_only_cancel_and_reschedule() {
    // §3.3 Management mandates: never hold or book.
    render(&management(vec![Action::Cancel, Action::Reschedule]), &en(), &Contacts::new()).expect("cancel, reschedule");
    let err = render(&management(vec![Action::Cancel, Action::Book]), &en(), &Contacts::new()).unwrap_err();
    assert_eq!(err, ConsentError::ManagementScope(Action::Book));
    assert_eq!(err.to_string(), "a management mandate may only cancel or reschedule, not book");
}

fn change_of(current: &VerifiedOffer) -> VerifiedOffer {
    let mut new = current.clone();
    new.claims.kind = OfferKind::Change;
    new.claims.booking_id = Some("b_7Qx2".into());
    new.claims.prev = Some("prev-hash".into());
    new
}

#[test]
fn a_change_offer_is_shown_only_against_its_own_hosts_booking() {
    let current = haircut();
    let change = |proposed| ConsentRequest::ChangeOffer {
        current: Some(CurrentTerms::Offer(current.clone())),
        proposed,
        by: ProposedChange::Guest,
    };
    render(&change(change_of(&current)), &en(), &Contacts::new()).expect("same host");
    let mut other = change_of(&current);
    other.claims.iss = "fades-on-king".into();
    assert_eq!(
        render(&change(other), &en(), &Contacts::new()).unwrap_err(),
        ConsentError::ChangeOfferMismatch(ChangeOfferMismatch::OtherHost {
            current: current.claims.iss.clone(),
            proposed: "fades-on-king".into(),
        })
    );
    let mut unbound = change_of(&current);
    unbound.claims.booking_id = None;
    assert_eq!(
        render(&change(unbound), &en(), &Contacts::new()).unwrap_err(),
        ConsentError::ChangeOfferMismatch(ChangeOfferMismatch::NoBookingId)
    );
}

#[test]
fn an_end_and_open_end_together_are_refused() {
    // §4.2: open-ended means no end.
    let mut o = playdate_offer();
    assert!(o.claims.is_open_ended());
    render(&ConsentRequest::BookingOffer(o.clone()), &en(), &Contacts::new()).expect("open-ended");
    o.claims.slot.end = Some("2026-10-17T15:00:00-04:00".into());
    assert_eq!(
        render(&ConsentRequest::BookingOffer(o), &en(), &Contacts::new()).unwrap_err(),
        ConsentError::EndConflict(Terms::Offer)
    );
    let mut c = playdate_contract();
    assert!(c.is_open_ended());
    c.end = Some("2026-10-17T15:00:00-04:00".into());
    assert_eq!(
        render(&ConsentRequest::MeetingContract(organizer_request(c)), &en(), &noors_contacts()).unwrap_err(),
        ConsentError::EndConflict(Terms::MeetingContract)
    );
}
