//! Invitations (§5.10): a booking someone else made names this person as a required
//! participant, and asks for their own yes; and the booker's own reconfirmation
//! (§5.10 "Reconfirmation reuses the mechanism"), shown with the management mandate
//! that answers it.
//!
//! The first line is what the person accepts, the statement their mandate carries:
//!
//! > I accept an invitation from Sam to a booking they made: Synthetic oil change with
//! > Maple Street Auto (maplestreetauto.example), Thursday 15 October 2026,
//! > 1:00–1:45 p.m. Eastern time, CAD 89.27, paid to Maple Street Auto directly.
//!
//! Then the role the booking gives them, by when they must answer and what the booking
//! does if they decline or stay silent (its `default` at `confirm_by`), what changed
//! since an earlier yes ("from … to …", §5.10 "Changes re-ask"), and the host's terms
//! that bind everyone the booking names (approval deadline, retention). The booker's own
//! reconfirmation deadline is the booker's term, not the invitee's, so it is not said.
//!
//! The booker is the booking's word, like a meeting's members (§5.12 "What a member can
//! trust"): shown by the reader's own contact name for their principal, otherwise as
//! "someone you don't know, named "…"".

use crate::claims::{Participant, ParticipantRole, ReconfirmDefault};
use crate::error::ConsentError;
use crate::inert;
use crate::locale::Locale;
use crate::mandate::render_management_mandate;
use crate::offer::{approval_sentence, clock, differences, offer_summary, retention_sentence};
use crate::request::{Contacts, InvitationRequest, ManagementMandateRequest};
use crate::when::{instant_words, parse_instant, Clock};

/// Who made the booking, as the reader knows them: their own contact name for the
/// booker's principal, else the booking's label in quotes, else the principal itself;
/// a booking that names no booker says so.
pub fn booker_words(
    locale: &Locale,
    booker: Option<&Participant>,
    contacts: &Contacts,
) -> Result<String, ConsentError> {
    let Some(booker) = booker else {
        return locale.message("invitation-booker-unnamed", &[]);
    };
    if let Some(known) = booker.who.as_deref().and_then(|who| contacts.name_of(who)) {
        return inert::name(locale, known);
    }
    match (&booker.name, &booker.who) {
        (Some(name), _) => locale.message("member-unknown", &[("name", inert::quoted(locale, name)?.into())]),
        (None, Some(who)) => locale.message("organizer-unknown", &[("principal", inert::name(locale, who)?.into())]),
        (None, None) => locale.message("invitation-booker-unnamed", &[]),
    }
}

/// By when the invitee must answer, and what the booking does if they don't (§5.10:
/// "At the deadline default applies").
pub fn answer_by_sentence(locale: &Locale, req: &InvitationRequest) -> Result<String, ConsentError> {
    let (confirm_by, default) = deadline(&req.me)?;
    let at = parse_instant("confirm_by", confirm_by)?;
    let deadline = instant_words(locale, at, clock(&req.contract.claims)?)?;
    match default {
        ReconfirmDefault::Release => locale.message("invitation-deadline-release", &[("deadline", deadline.into())]),
    }
}

/// An invited participant's own terms: a deadline and the default ("release" unless
/// given, §5.10). Every participant named with `who` is required and answers,
/// whether invited or coming along (§5.10); the booker's own reconfirmation is the
/// management mandate's (`render_reconfirmation`).
fn deadline(me: &Participant) -> Result<(&str, ReconfirmDefault), ConsentError> {
    match (me.role, me.confirm_by.as_deref()) {
        (ParticipantRole::Invitee | ParticipantRole::Attendee, Some(confirm_by)) => {
            Ok((confirm_by, me.default.unwrap_or_default()))
        }
        _ => Err(ConsentError::NotInvited),
    }
}

/// The role the booking gives this person, in the words of that role (§5.10:
/// `invitee`, or `attendee`, someone who comes along).
fn role_sentence(locale: &Locale, me: &Participant) -> Result<String, ConsentError> {
    let (plain, related) = match me.role {
        ParticipantRole::Attendee => ("invitation-role-attendee", "invitation-role-attendee-relationship"),
        _ => ("invitation-role", "invitation-role-relationship"),
    };
    match &me.relationship {
        Some(rel) => locale.message(related, &[("relationship", inert::name(locale, rel)?.into())]),
        None => locale.message(plain, &[]),
    }
}

/// The statement the invitee accepts (the first line of [`render_invitation`]).
pub fn invitation_statement(
    locale: &Locale,
    req: &InvitationRequest,
    contacts: &Contacts,
) -> Result<String, ConsentError> {
    locale.message(
        "invitation-accept",
        &[
            ("booker", booker_words(locale, req.booker.as_ref(), contacts)?.into()),
            ("summary", offer_summary(locale, &req.contract)?.into()),
        ],
    )
}

/// An invitation, in full (§5.10).
pub fn render_invitation(
    locale: &Locale,
    req: &InvitationRequest,
    contacts: &Contacts,
) -> Result<String, ConsentError> {
    let mut lines = vec![invitation_statement(locale, req, contacts)?];
    lines.push(role_sentence(locale, &req.me)?);
    lines.push(answer_by_sentence(locale, req)?);
    match &req.replaces {
        Some(old) => {
            lines.push(locale.message("invitation-changed", &[])?);
            lines.extend(differences(locale, &old.claims, &req.contract.claims)?);
        }
        // A change offer as the contract: the booking moved since it was made (§5.7),
        // and the key app holds no terms this person accepted to compare with.
        None if req.contract.claims.prev.is_some() => lines.push(locale.message("invitation-changed-unknown", &[])?),
        None => {}
    }
    lines.extend(approval_sentence(locale, &req.contract.claims)?);
    lines.push(retention_sentence(locale, &req.contract.claims)?);
    Ok(lines.join("\n"))
}

/// The booker's reconfirmation deadline in words, in the booking's zone.
pub fn reconfirm_by_words(
    locale: &Locale,
    req: &ManagementMandateRequest,
    confirm_by: &str,
) -> Result<String, ConsentError> {
    let at = parse_instant("confirm_by", confirm_by)?;
    instant_words(locale, at, Clock::zone_or_own("tz", req.booking.tz.as_deref())?)
}

/// A management mandate that also answers the booker's reconfirmation (§5.10: "The
/// booker answers with respond and accept: true (a management mandate will do)"): the
/// mandate's text, with the reconfirmation and its deadline said after its first line.
pub fn render_reconfirmation(
    locale: &Locale,
    req: &ManagementMandateRequest,
    confirm_by: &str,
) -> Result<String, ConsentError> {
    let text = render_management_mandate(locale, req)?;
    let line =
        locale.message("reconfirmation", &[("deadline", reconfirm_by_words(locale, req, confirm_by)?.into())])?;
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(1.min(lines.len()), &line);
    Ok(lines.join("\n"))
}
