//! Moves (§5.7): the hash chain a change offer extends, what a receipt may show
//! of a move waiting on the host, and whether a change offer is the host's own
//! proposal or counter (§5.8, §5.11). Pure rules over verified claims.

use crate::claims::{Booking, BookingStatus, OfferClaims, OfferKind, ProposedBy, ReceiptClaims};
use crate::error::{Error, ReceiptCheck};

/// §5.7: "prev: the SHA-256 of the booking's current contract, so each change
/// extends a hash chain either side can verify". `receipt` is a verified receipt
/// of the booking `change` moves; the change offer extends the contract the
/// receipt says the booking stands on, or the chain is broken. A booking made
/// outside SchCP has no contract (§5.3), so no change offer extends it.
pub fn check_prev_chain(change: &OfferClaims, receipt: &ReceiptClaims) -> Result<(), Error> {
    let broken = Error::ReceiptMismatch(ReceiptCheck::PrevNotCurrentContract);
    if change.kind != OfferKind::Change {
        return Err(broken);
    }
    if change.booking_id.as_deref() != Some(receipt.booking.booking_id.as_str()) {
        return Err(Error::ReceiptMismatch(ReceiptCheck::AnotherBooking));
    }
    match (change.prev.as_deref(), receipt.offer_sha256.as_deref()) {
        (Some(prev), Some(current)) if prev == current => Ok(()),
        _ => Err(broken),
    }
}

/// §5.7: "An agent MUST refuse a receipt that shows a move waiting when its
/// proposal.expires_at is after the booking's start, or its proposal.offer is
/// not the change offer the agent accepted." `accepted` is the hash of the
/// change offer accepted for this booking, when the verifier knows one.
pub fn check_awaiting_move(booking: &Booking, accepted: Option<&str>) -> Result<(), Error> {
    let Some(p) = booking.proposal.as_ref().filter(|p| p.awaiting_host == Some(true)) else {
        return Ok(());
    };
    let expires_at = crate::datetime::parse_date_time(&p.expires_at)?;
    let start = crate::datetime::parse_date_time(&booking.start)?;
    if expires_at > start {
        return Err(Error::ReceiptMismatch(ReceiptCheck::MoveWaitsPastStart));
    }
    if let Some(accepted) = accepted {
        if crate::hash::jws_sha256(&p.offer) != accepted {
            return Err(Error::ReceiptMismatch(ReceiptCheck::MoveNotAccepted));
        }
    }
    Ok(())
}

/// Who proposes a change offer, as a receipt of the booking shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProposedChange {
    /// The host's counter to a booking it has not yet approved (§5.11).
    HostCounter,
    /// The host's proposal on a booking it already approved (§5.8).
    HostProposal,
    /// Nothing in the receipt says the host proposed it: the guest asked.
    Guest,
}

/// Whether the change offer with hash `change_sha256` is the host's: the
/// receipt's booking carries it as an open proposal `by: "host"` (§5.8, "A
/// booking.change_proposed event does not change the booking (its receipt is of
/// the unchanged booking, with the proposal attached)"). On a booking still
/// `pending_host` that proposal is the host's counter (§5.11).
pub fn proposed_by(booking: &Booking, change_sha256: &str) -> ProposedChange {
    let by_host = booking.proposal.as_ref().is_some_and(|p| {
        p.by == ProposedBy::Host && p.awaiting_host != Some(true) && crate::hash::jws_sha256(&p.offer) == change_sha256
    });
    match (by_host, booking.status) {
        (false, _) => ProposedChange::Guest,
        (true, BookingStatus::PendingHost) => ProposedChange::HostCounter,
        (true, _) => ProposedChange::HostProposal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    const CONTRACT: &str = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

    fn booking(status: &str, proposal: Option<Value>) -> Booking {
        let mut b = json!({
            "booking_id": "b_1", "status": status, "sequence": 0, "service_id": "oil-change",
            "start": "2026-10-15T13:00:00-04:00", "end": "2026-10-15T13:45:00-04:00",
            "offer_sha256": CONTRACT,
            "event": {"@type": "Event", "uid": "b_1@h.example", "start": "2026-10-15T13:00:00",
                      "timeZone": "America/Toronto", "duration": "PT45M", "title": "Oil change",
                      "sequence": 0, "updated": "2026-10-13T13:00:00Z", "status": "confirmed"}
        });
        if let Some(p) = proposal {
            b["proposal"] = p;
        }
        serde_json::from_value(b).unwrap()
    }

    fn proposal(by: &str, expires_at: &str, awaiting: bool, offer: &str) -> Value {
        let mut p = json!({"proposal_id": "p_1", "start": "2026-10-15T14:00:00-04:00",
                           "end": "2026-10-15T14:45:00-04:00", "expires_at": expires_at, "by": by, "offer": offer});
        if awaiting {
            p["awaiting_host"] = json!(true);
            p["consent"] = json!({"approved": "limits", "mandate": "m-1"});
        }
        p
    }

    fn receipt(offer_sha256: Option<&str>) -> ReceiptClaims {
        let mut b = serde_json::to_value(booking("confirmed", None)).unwrap();
        b["offer_sha256"] = json!(offer_sha256);
        let mut r = json!({"v": "0.4", "iss": "maple-street-auto", "iat": 1, "booking": b,
                           "offer_sha256": offer_sha256, "retention": "P365D"});
        if offer_sha256.is_some() {
            r["consent"] = json!({"approved": "limits", "mandate": "m-1"});
        } else {
            for k in ["price", "total", "lines"] {
                r["booking"].as_object_mut().unwrap().remove(k);
            }
        }
        serde_json::from_value(r).unwrap()
    }

    fn change(prev: &str, booking_id: &str) -> OfferClaims {
        serde_json::from_value(json!({
            "v": "0.4", "kind": "change", "iss": "maple-street-auto", "booking_id": booking_id, "prev": prev,
            "iat": 1, "exp": 2, "service": {"id": "oil-change", "name": "Oil change"},
            "slot": {"start": "2026-10-16T09:00:00-04:00", "end": "2026-10-16T09:45:00-04:00"},
            "retention": "P365D"
        }))
        .unwrap()
    }

    #[test]
    fn a_change_extends_the_contract_the_receipt_states() {
        assert_eq!(check_prev_chain(&change(CONTRACT, "b_1"), &receipt(Some(CONTRACT))), Ok(()));
        // Violations: another contract, another booking, a booking with no contract.
        let other = "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBA";
        let broken = Err(Error::ReceiptMismatch(ReceiptCheck::PrevNotCurrentContract));
        assert_eq!(check_prev_chain(&change(other, "b_1"), &receipt(Some(CONTRACT))), broken);
        assert_eq!(check_prev_chain(&change(CONTRACT, "b_1"), &receipt(None)), broken);
        assert_eq!(
            check_prev_chain(&change(CONTRACT, "b_2"), &receipt(Some(CONTRACT))),
            Err(Error::ReceiptMismatch(ReceiptCheck::AnotherBooking))
        );
    }

    #[test]
    fn a_move_waits_on_the_host_no_later_than_the_start() {
        let accepted = crate::hash::jws_sha256("a.b.c");
        let waits = |expires_at| booking("confirmed", Some(proposal("guest", expires_at, true, "a.b.c")));
        assert_eq!(check_awaiting_move(&waits("2026-10-15T13:00:00-04:00"), Some(&accepted)), Ok(()));
        assert_eq!(check_awaiting_move(&waits("2026-10-15T12:00:00-04:00"), None), Ok(()));
        // One second past the start is refused.
        assert_eq!(
            check_awaiting_move(&waits("2026-10-15T17:00:01Z"), None),
            Err(Error::ReceiptMismatch(ReceiptCheck::MoveWaitsPastStart))
        );
    }

    #[test]
    fn a_move_waiting_on_the_host_is_the_offer_accepted() {
        let waiting = booking("confirmed", Some(proposal("guest", "2026-10-15T12:00:00-04:00", true, "a.b.c")));
        let other = crate::hash::jws_sha256("x.y.z");
        assert_eq!(
            check_awaiting_move(&waiting, Some(&other)),
            Err(Error::ReceiptMismatch(ReceiptCheck::MoveNotAccepted))
        );
        // An open proposal that does not wait on the host is not a move the guest accepted.
        let open = booking("confirmed", Some(proposal("host", "2026-10-15T17:00:01Z", false, "a.b.c")));
        assert_eq!(check_awaiting_move(&open, Some(&other)), Ok(()));
    }

    #[test]
    fn the_host_proposes_what_its_receipt_carries_as_its_proposal() {
        let h = crate::hash::jws_sha256("a.b.c");
        let host = || Some(proposal("host", "2026-10-15T12:00:00-04:00", false, "a.b.c"));
        assert_eq!(proposed_by(&booking("pending_host", host()), &h), ProposedChange::HostCounter);
        assert_eq!(proposed_by(&booking("confirmed", host()), &h), ProposedChange::HostProposal);
        // Another offer, a guest's proposal, or none: the guest asked for it.
        assert_eq!(proposed_by(&booking("pending_host", host()), &crate::hash::jws_sha256("x")), ProposedChange::Guest);
        let guest = Some(proposal("guest", "2026-10-15T12:00:00-04:00", false, "a.b.c"));
        assert_eq!(proposed_by(&booking("pending_host", guest), &h), ProposedChange::Guest);
        assert_eq!(proposed_by(&booking("confirmed", None), &h), ProposedChange::Guest);
    }
}
