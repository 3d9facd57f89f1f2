//! The organizer's side of §5.12 "Confirming with a contract": how each member
//! is named from its own verified offer, and the checks every member's
//! calendar will make of the contract against that offer, made before the
//! organizer is asked to sign it. Pure functions over verified claims.

use super::meeting::HOST_PRINCIPAL_PREFIX;
use crate::claims::{HostKind, MeetingContract, OfferClaims, OfferKind};
use crate::datetime::parse_date_time;

/// Why a member cannot be named from its offer, or the contract's members
/// and deadline are not the organizer's to sign (§5.12).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MemberRefusal {
    /// A new meeting (revision 1) stands on booking offers; a change offer
    /// moves a booking already made.
    #[error("{host}'s offer is a change offer; a new meeting is made over booking offers")]
    ChangeOfferForNewMeeting {
        /// The member's calendar.
        host: String,
    },
    /// Marked a business, but its signed offer is a person's calendar.
    #[error("{host}'s offer is a person's calendar, not a business's")]
    PersonAsBusiness {
        /// The member's calendar.
        host: String,
    },
    /// Not marked a business, but its offer names no owner: it is no person's calendar.
    #[error("{host}'s offer is not a person's calendar (it names no owner); mark a business with business: true")]
    NoOwner {
        /// The member's calendar.
        host: String,
    },
    /// The organizer names no calendar of their own among the members.
    #[error("the organizer is one of the members: name this person's own calendar and its offer (§5.12)")]
    OrganizerNotMember,
    /// Everyone's answer would be due after the meeting began.
    #[error("the deadline for answers (exp) is after the meeting starts")]
    DeadlineAfterStart,
}

/// How a member's offer disagrees with the contract's terms (§5.12); the
/// message says which term.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TermsMismatch {
    /// The offer's slot starts at another instant.
    #[error("{host}'s offer starts at {offer}, the meeting at {meeting}")]
    Start {
        /// The member's calendar.
        host: String,
        /// The offer's start.
        offer: String,
        /// The meeting's start.
        meeting: String,
    },
    /// The offer ends at another instant, or one of the two is open-ended.
    #[error("{0}'s offer does not end when the meeting does")]
    End(String),
    /// The offer is for another place.
    #[error("{0}'s offer is for another place than the meeting's")]
    Place(String),
    /// A person's calendar offer names no place.
    #[error("{0}'s offer names no place; a person's calendar holds the time at the meeting's place")]
    NoPlace(String),
    /// A business on its own premises is the place, by the name it signed.
    #[error("{host}'s offer is on its own premises, so the meeting's place is {name:?}")]
    Premises {
        /// The business's calendar.
        host: String,
        /// The name its offer signed.
        name: String,
    },
    /// Two businesses on their own premises cannot both be the place.
    #[error("two businesses on their own premises cannot both be the meeting's place")]
    TwoPremises,
}

/// A member as the contract names it (§5.12 "Members", "Businesses").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberName {
    /// A person's principal, as their calendar's offer names its owner, or a
    /// business's host principal.
    pub principal: String,
    /// The name shown: a business's own signed name, or the one the
    /// organizer gave a person.
    pub name: String,
}

/// §5.12: a business is named by its host principal and shown as its own
/// signed offer names it, never by a name the organizer's agent chose; a
/// person's calendar names its owner's principal in its offers. `host` is
/// the member's calendar, `given_name` the name the agent gave it.
pub fn member_named(
    offer: &OfferClaims,
    host: &str,
    business: bool,
    given_name: &str,
) -> Result<MemberName, MemberRefusal> {
    let signed = offer.host.as_ref();
    let signed_kind = signed.and_then(|h| h.kind).unwrap_or_default();
    if business {
        if signed_kind == HostKind::Person {
            return Err(MemberRefusal::PersonAsBusiness { host: host.to_owned() });
        }
        let name = signed.map_or_else(|| offer.iss.clone(), |h| h.name.clone());
        return Ok(MemberName { principal: format!("{HOST_PRINCIPAL_PREFIX}{host}"), name });
    }
    let owner = signed.and_then(|h| h.owner.clone()).filter(|_| signed_kind == HostKind::Person);
    let principal = owner.ok_or_else(|| MemberRefusal::NoOwner { host: host.to_owned() })?;
    Ok(MemberName { principal, name: given_name.to_owned() })
}

/// A new meeting (revision 1) is made over booking offers only.
pub fn offer_fits_revision(offer: &OfferClaims, host: &str, revision: u32) -> Result<(), MemberRefusal> {
    if offer.kind == OfferKind::Change && revision == 1 {
        return Err(MemberRefusal::ChangeOfferForNewMeeting { host: host.to_owned() });
    }
    Ok(())
}

/// The organizer (`iss`) is one of the members: a contract is the organizer's
/// own yes, over their own calendar's offer.
pub fn organizer_is_member(contract: &MeetingContract) -> Result<(), MemberRefusal> {
    if contract.members.iter().all(|m| m.principal != contract.iss) {
        return Err(MemberRefusal::OrganizerNotMember);
    }
    Ok(())
}

/// Everyone's answer is due (`exp`) no later than the meeting's start
/// (NumericDate, as `check_contract_terms` read it).
pub fn answers_due_before_start(contract: &MeetingContract, start: i64) -> Result<(), MemberRefusal> {
    if contract.exp > start {
        return Err(MemberRefusal::DeadlineAfterStart);
    }
    Ok(())
}

/// §5.12 "Confirming with a contract": every calendar refuses a contract whose
/// start, end or open_end, and place are not its own offer's; so does the
/// organizer's key app, before the person is asked. A business whose service
/// happens on its premises names no place, and its calendar does not compare it.
pub fn offer_matches_terms(offer: &OfferClaims, terms: &MeetingContract, business: bool) -> Result<(), TermsMismatch> {
    let host = &offer.iss;
    let same_instant = |a: &str, b: &str| matches!((parse_date_time(a), parse_date_time(b)), (Ok(x), Ok(y)) if x == y);
    if !same_instant(&offer.slot.start, &terms.start) {
        return Err(TermsMismatch::Start {
            host: host.clone(),
            offer: offer.slot.start.clone(),
            meeting: terms.start.clone(),
        });
    }
    match (&offer.slot.end, &terms.end) {
        (Some(a), Some(b)) if same_instant(a, b) => {}
        (None, None) if offer.open_end == Some(true) && terms.is_open_ended() => {}
        _ => return Err(TermsMismatch::End(host.clone())),
    }
    match &offer.place {
        Some(place) if place == &terms.place => Ok(()),
        None if business => Ok(()),
        Some(_) => Err(TermsMismatch::Place(host.clone())),
        None => Err(TermsMismatch::NoPlace(host.clone())),
    }
}

/// §5.12: "Where the business's service happens on its own premises, its offer
/// names no place: the contract's place is the business." So the place the text
/// shows must be that business, by the name it signed; and two businesses
/// without a place cannot both be where the meeting is. `offers` are the
/// members' offers, in the contract's order of members.
pub fn premises_are_the_place(contract: &MeetingContract, offers: &[OfferClaims]) -> Result<(), TermsMismatch> {
    let on_premises: Vec<&OfferClaims> = contract
        .members
        .iter()
        .zip(offers)
        .filter(|(m, o)| m.is_business() && o.place.is_none())
        .map(|(_, o)| o)
        .collect();
    match on_premises.as_slice() {
        [] => Ok(()),
        [offer] => {
            let name = offer.host.as_ref().map_or(offer.iss.as_str(), |h| h.name.as_str());
            if contract.place.name.as_deref() == Some(name) {
                Ok(())
            } else {
                Err(TermsMismatch::Premises { host: offer.iss.clone(), name: name.to_owned() })
            }
        }
        _ => Err(TermsMismatch::TwoPremises),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jwk::Jwk;
    use serde_json::{json, Value};

    fn principal(seed: u8) -> String {
        Jwk::ed25519(&ed25519_dalek::SigningKey::from_bytes(&[seed; 32]).verifying_key()).principal_id().unwrap()
    }

    /// An open-ended offer at the park from `iss`, signed as `host`.
    fn offer(iss: &str, host: Value) -> OfferClaims {
        serde_json::from_value(json!({
            "v": "0.4", "kind": "booking", "iss": iss, "hold_id": "h_1", "iat": 1_796_000_000, "exp": 1_796_000_900,
            "host": host, "service": { "id": "playdate", "name": "Playdate" },
            "slot": { "start": "2026-12-05T12:00:00-05:00" }, "open_end": true,
            "place": { "name": "The park" }, "retention": "P30D"
        }))
        .unwrap_or_else(|e| panic!("an offer: {e}"))
    }

    fn person_offer(iss: &str, owner: &str) -> OfferClaims {
        offer(iss, json!({ "name": "Ellis", "tz": "America/Toronto", "kind": "person", "owner": owner }))
    }

    fn business_offer(iss: &str) -> OfferClaims {
        let mut o = offer(iss, json!({ "name": "Café Lumen", "tz": "America/Toronto" }));
        o.place = None;
        o
    }

    fn contract(organizer: &str, members: Value) -> MeetingContract {
        let organizer_jwk = Jwk::ed25519(&ed25519_dalek::SigningKey::from_bytes(&[1; 32]).verifying_key());
        serde_json::from_value(json!({
            "v": "0.4", "iss": organizer, "principal_jwk": organizer_jwk,
            "iat": 1_796_000_000, "exp": 1_796_003_600, "meeting_id": "mtg_1", "revision": 1, "title": "Playdate",
            "tz": "America/Toronto", "start": "2026-12-05T12:00:00-05:00", "open_end": true,
            "place": { "name": "The park" }, "members": members, "attendees": [], "answers": "person_or_rule",
            "statement": "-"
        }))
        .unwrap_or_else(|e| panic!("a contract: {e}"))
    }

    fn member(principal: &str, host: &str, business: bool) -> Value {
        let mut m = json!({ "principal": principal, "name": host, "host": host, "domain": null,
                            "service_id": "playdate", "offer_sha256": crate::hash::sha256_b64(host) });
        if business {
            m["business"] = json!(true);
        }
        m
    }

    #[test]
    fn a_person_is_named_by_the_owner_their_calendar_signed() {
        let owner = principal(2);
        let named = member_named(&person_offer("ellis-cal", &owner), "ellis-cal", false, "Ellis").unwrap();
        assert_eq!(named, MemberName { principal: owner.clone(), name: "Ellis".into() });
        // A business's calendar names no owner: it is not a person.
        let refused = member_named(&business_offer("cafe"), "cafe", false, "Ellis").unwrap_err();
        assert_eq!(refused, MemberRefusal::NoOwner { host: "cafe".into() });
        // Marking a person's calendar a business is refused, whatever the agent calls it.
        let refused = member_named(&person_offer("ellis-cal", &owner), "ellis-cal", true, "Ellis").unwrap_err();
        assert_eq!(refused, MemberRefusal::PersonAsBusiness { host: "ellis-cal".into() });
    }

    #[test]
    fn a_business_is_named_as_it_signed_never_as_the_agent_says() {
        let named = member_named(&business_offer("cafe"), "cafe", true, "Free lunch").unwrap();
        assert_eq!(named, MemberName { principal: format!("{HOST_PRINCIPAL_PREFIX}cafe"), name: "Café Lumen".into() });
    }

    #[test]
    fn a_new_meeting_stands_on_booking_offers() {
        let mut change = person_offer("ellis-cal", &principal(2));
        assert!(offer_fits_revision(&change, "ellis-cal", 1).is_ok());
        change.kind = OfferKind::Change;
        assert_eq!(
            offer_fits_revision(&change, "ellis-cal", 1),
            Err(MemberRefusal::ChangeOfferForNewMeeting { host: "ellis-cal".into() })
        );
        assert!(offer_fits_revision(&change, "ellis-cal", 2).is_ok());
    }

    #[test]
    fn the_organizer_is_a_member_and_answers_are_due_before_the_start() {
        let (noor, ellis) = (principal(1), principal(2));
        let c = contract(&noor, json!([member(&noor, "noor-cal", false), member(&ellis, "ellis-cal", false)]));
        assert!(organizer_is_member(&c).is_ok());
        assert!(answers_due_before_start(&c, c.exp).is_ok());
        assert_eq!(answers_due_before_start(&c, c.exp - 1), Err(MemberRefusal::DeadlineAfterStart));
        let without =
            contract(&noor, json!([member(&principal(3), "sam-cal", false), member(&ellis, "ellis-cal", false)]));
        assert_eq!(organizer_is_member(&without), Err(MemberRefusal::OrganizerNotMember));
    }

    #[test]
    fn each_offer_is_held_to_the_contracts_terms() {
        let (noor, ellis) = (principal(1), principal(2));
        let c = contract(&noor, json!([member(&noor, "noor-cal", false), member(&ellis, "ellis-cal", false)]));
        let ok = person_offer("ellis-cal", &ellis);
        assert!(offer_matches_terms(&ok, &c, false).is_ok());
        let mut later = ok.clone();
        later.slot.start = "2026-12-05T13:00:00-05:00".into();
        assert!(matches!(offer_matches_terms(&later, &c, false), Err(TermsMismatch::Start { .. })));
        // The same instant written in another offset is the same start.
        let mut utc = ok.clone();
        utc.slot.start = "2026-12-05T17:00:00Z".into();
        assert!(offer_matches_terms(&utc, &c, false).is_ok());
        let mut ends = ok.clone();
        ends.open_end = None;
        ends.slot.end = Some("2026-12-05T14:00:00-05:00".into());
        assert_eq!(offer_matches_terms(&ends, &c, false), Err(TermsMismatch::End("ellis-cal".into())));
        let mut elsewhere = ok.clone();
        elsewhere.place.as_mut().unwrap().name = Some("The pool".into());
        assert_eq!(offer_matches_terms(&elsewhere, &c, false), Err(TermsMismatch::Place("ellis-cal".into())));
        let mut nowhere = ok;
        nowhere.place = None;
        assert_eq!(offer_matches_terms(&nowhere, &c, false), Err(TermsMismatch::NoPlace("ellis-cal".into())));
        // A business on its own premises names no place, and is not compared.
        assert!(offer_matches_terms(&nowhere, &c, true).is_ok());
    }

    #[test]
    fn a_business_on_its_premises_is_the_place_by_its_signed_name() {
        let (noor, cafe) = (principal(1), format!("{HOST_PRINCIPAL_PREFIX}cafe"));
        let c = contract(&noor, json!([member(&noor, "noor-cal", false), member(&cafe, "cafe", true)]));
        let offers = [person_offer("noor-cal", &noor), business_offer("cafe")];
        assert_eq!(
            premises_are_the_place(&c, &offers),
            Err(TermsMismatch::Premises { host: "cafe".into(), name: "Café Lumen".into() })
        );
        let mut at_cafe = c.clone();
        at_cafe.place.name = Some("Café Lumen".into());
        assert!(premises_are_the_place(&at_cafe, &offers).is_ok());
        let bakery = format!("{HOST_PRINCIPAL_PREFIX}bakery");
        let two = contract(
            &noor,
            json!([member(&noor, "noor-cal", false), member(&cafe, "cafe", true), member(&bakery, "bakery", true)]),
        );
        let offers = [person_offer("noor-cal", &noor), business_offer("cafe"), business_offer("bakery")];
        assert_eq!(premises_are_the_place(&two, &offers), Err(TermsMismatch::TwoPremises));
    }
}
