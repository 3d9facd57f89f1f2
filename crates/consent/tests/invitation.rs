//! Invitations (§5.10): the text a required participant reads, English and French,
//! compared byte for byte; the booker by the reader's own name or flagged; the
//! deadline and the default; the re-ask after a change, from … to …; and the booker's
//! reconfirmation said with the management mandate that answers it.

mod common;

use common::*;
use schcp_consent::claims::*;
use schcp_consent::*;

const SAM: &str = "urn:schcp:principal:jwk-thumbprint:Sam";
const ME: &str = "urn:schcp:principal:jwk-thumbprint:Me";

fn check(case: &str, req: &ConsentRequest, contacts: &Contacts) -> String {
    let mut english = String::new();
    for (tag, locale) in [("en", en()), ("fr", fr())] {
        let text = render(req, &locale, contacts).unwrap_or_else(|e| panic!("{case}@{tag}: {e}"));
        insta::assert_snapshot!(format!("{case}@{tag}"), text);
        if tag == "en" {
            english = text;
        }
    }
    english
}

fn booker(name: Option<&str>) -> Participant {
    Participant::booker(SAM.into(), name.map(Into::into))
}

fn me() -> Participant {
    let by = Some("2026-10-14T13:00:00-04:00".into());
    let me = Participant::invitee(ME.into(), "PT24H".into(), by, ReconfirmDefault::Release);
    Participant { name: Some("Alex".into()), relationship: Some("brother".into()), ..me }
}

fn invitation() -> InvitationRequest {
    InvitationRequest { contract: oil_change(), booker: Some(booker(Some("Sam R."))), me: me(), replaces: None }
}

#[test]
fn the_booker_by_my_own_name_the_role_the_deadline_and_the_default() {
    let sam: Contacts = [(SAM, "Sam")].into_iter().collect();
    let text = check("invitation_known_booker", &ConsentRequest::Invitation(invitation()), &sam);
    assert!(text.starts_with("I accept an invitation from Sam to a booking they made: Synthetic oil change with Maple Street Auto (maplestreetauto.example), Thursday 15 October 2026, 1:00–1:45 p.m. Eastern time, CAD 89.27, paid to Maple Street Auto directly."), "{text}");
    assert!(text.contains("The booking names me as an invitee (brother)."), "{text}");
    assert!(
        text.contains("I must answer by Wednesday 14 October 2026, 1:00 p.m. Eastern time. If I decline, nothing is signed and the host is not told; at that time, as when I do not answer, the booking follows its default: it is released."),
        "{text}"
    );
    assert!(text.ends_with("Maple Street Auto keeps my booking details for 1 year after the booking."), "{text}");
}

#[test]
fn a_booker_not_in_my_contacts_is_flagged_by_the_bookings_label() {
    let text = check("invitation_stranger_booker", &ConsentRequest::Invitation(invitation()), &Contacts::new());
    assert!(
        text.starts_with("I accept an invitation from someone you don't know, named \"Sam R.\" to a booking"),
        "{text}"
    );
    // A label that tries to pass for a contact stays in quotes.
    let mut req = invitation();
    req.booker = Some(booker(Some("Sam\n(your brother)")));
    let text = render(&ConsentRequest::Invitation(req), &en(), &Contacts::new()).unwrap();
    assert_eq!(text.lines().count(), 4, "the label cannot add a line: {text}");
}

#[test]
fn a_booking_that_names_no_booker_says_so_and_no_relationship_is_left_out() {
    let mut req = invitation();
    req.booker = None;
    req.me.relationship = None;
    let text = check("invitation_unnamed_booker", &ConsentRequest::Invitation(req.clone()), &Contacts::new());
    assert!(text.starts_with("I accept an invitation from someone the booking does not name to a booking"), "{text}");
    assert!(text.contains("The booking names me as an invitee.\n"), "{text}");
    // A booker named only by principal is shown by it.
    req.booker = Some(booker(None));
    let text = render(&ConsentRequest::Invitation(req), &en(), &Contacts::new()).unwrap();
    assert!(text.contains("from someone not in my contacts (") && text.contains(SAM), "{text}");
}

#[test]
fn a_re_ask_after_a_change_says_what_it_replaces_from_and_to() {
    let mut req = invitation();
    let old = req.contract.clone();
    let c = &mut req.contract.claims;
    c.kind = OfferKind::Change;
    c.hold_id = None;
    c.booking_id = Some("b_7Qx2".into());
    c.prev = Some("Xy3-previous-contract-hash-000000000000000".into());
    c.slot = Slot { start: "2026-10-16T09:00:00-04:00".into(), end: Some("2026-10-16T09:45:00-04:00".into()) };
    req.replaces = Some(old);
    let text = check("invitation_reask", &ConsentRequest::Invitation(req.clone()), &Contacts::new());
    assert!(text.contains("\nThe booking changed since I accepted it; this replaces my earlier yes:\nTime: from Thursday 15 October 2026, 1:00–1:45 p.m. Eastern time to Friday 16 October 2026, 9:00–9:45 a.m. Eastern time.\n"), "{text}");
    assert!(!text.contains("Price: from"), "{text}");
    // Without the terms accepted before, it says it cannot show what changes.
    req.replaces = None;
    let text = check("invitation_changed_unknown", &ConsentRequest::Invitation(req), &Contacts::new());
    assert!(text.contains("has no record of terms I accepted before"), "{text}");
    assert!(!text.contains("Time: from"), "{text}");
}

#[test]
fn only_a_participant_with_who_and_a_deadline_is_asked_and_never_the_booker() {
    for bad in [Participant { role: ParticipantRole::Booker, ..me() }, Participant { confirm_by: None, ..me() }] {
        let req = InvitationRequest { me: bad, ..invitation() };
        assert_eq!(
            render(&ConsentRequest::Invitation(req.clone()), &en(), &Contacts::new()),
            Err(ConsentError::NotInvited)
        );
    }
}

/// §5.10: "A required participant (one with who, a principal id) must accept the
/// booking": someone coming along who is named with `who` is asked too, in the
/// words of their role.
#[test]
fn an_attendee_named_with_who_is_asked_in_the_words_of_their_role() {
    let mut req = invitation();
    req.me.role = ParticipantRole::Attendee;
    let sam: Contacts = [(SAM, "Sam")].into_iter().collect();
    let text = check("invitation_attendee", &ConsentRequest::Invitation(req.clone()), &sam);
    assert_eq!(text.lines().nth(1), Some("The booking names me as someone coming along (brother), who must answer."));
    assert!(!text.contains("as an invitee"), "{text}");
    req.me.relationship = None;
    let text = render(&ConsentRequest::Invitation(req), &fr(), &sam).unwrap();
    assert_eq!(
        text.lines().nth(1),
        Some("La réservation m’inscrit parmi les personnes présentes, et je dois répondre.")
    );
}

#[test]
fn attention_points_at_the_deadline_and_not_at_the_bookers_reconfirmation() {
    let mut req = invitation();
    req.contract.claims.reconfirm = Some(Reconfirm { before: "PT24H".into(), default: ReconfirmDefault::Release });
    let req = ConsentRequest::Invitation(req);
    let items = attention(&req, &en(), NOW).unwrap();
    let kinds: Vec<AttentionKind> = items.iter().map(|a| a.kind).collect();
    assert_eq!(kinds, [AttentionKind::Price, AttentionKind::AnswerBy, AttentionKind::Retention]);
    assert_eq!(AttentionKind::AnswerBy.as_str(), "answer_by");
    let text = render(&req, &en(), &Contacts::new()).unwrap();
    assert!(!text.contains("I must reconfirm"), "the booker's term is not the invitee's: {text}");
    for a in items {
        assert!(text.contains(a.detail.as_deref().unwrap()), "{a:?} not in {text}");
    }
}

fn management() -> ManagementMandateRequest {
    oil_change_management(vec![Action::Reschedule, Action::Cancel])
}

#[test]
fn the_bookers_reconfirmation_is_said_with_its_deadline() {
    let req = ConsentRequest::Reconfirmation { mandate: management(), confirm_by: "2026-10-14T13:00:00-04:00".into() };
    let text = check("reconfirmation", &req, &Contacts::new());
    let plain = render(&ConsentRequest::ManagementMandate(management()), &en(), &Contacts::new()).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.remove(1),
        "This reconfirms the booking, which I must do by Wednesday 14 October 2026, 1:00 p.m. Eastern time; if I don't, the booking lapses and its time is released."
    );
    assert_eq!(lines.join("\n"), plain, "otherwise the management mandate's own text");
    let kinds: Vec<AttentionKind> = attention(&req, &en(), NOW).unwrap().into_iter().map(|a| a.kind).collect();
    assert_eq!(kinds, [AttentionKind::Reconfirmation]);
}
