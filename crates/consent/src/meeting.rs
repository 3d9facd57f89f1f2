//! Meeting contracts (as their organizer approves them) and acceptances (as a member
//! gives them), §5.12.
//!
//! The text is the contract's `statement` / the acceptance's `statement`: "Like any
//! consent text (§5.3), it is generated from the claims". The spec's own renderings:
//!
//! > I approve: Playdate with Ellis Moreau (ellis-moreau) and Priya Shah (priya-shah),
//! > Saturday 17 October 2026 from 12:00 p.m. Eastern time, open-ended, at Trinity
//! > Bellwoods Park playground, Toronto, with Mira (child) coming along; Ellis Moreau
//! > and Priya Shah may each answer by a rule they signed.
//!
//! > I accept: Playdate arranged by Noor Haddad (noor-haddad), with Priya Shah
//! > (priya-shah), Saturday 17 October 2026 from 12:00 p.m. Eastern time, open-ended,
//! > at Trinity Bellwoods Park playground, Toronto, with Mira (child) coming along.
//!
//! "What a member can trust": the other members' names are the organizer's word, so a
//! person is shown by the name in the reader's own contacts, and otherwise as
//! "someone you don't know, named "…"", the organizer's label only in quotes. A
//! business is shown as the contract names it (its signed offer is its yes, and it
//! answers nothing). In parentheses: the domain the reader's key app discovered that
//! calendar at, else the calendar's host id.

use std::collections::BTreeMap;

use fluent_bundle::FluentValue;

use crate::claims::{Answers, Attendee, MeetingContract, Member};
use crate::domain::VerifiedDomain;
use crate::inert;
use crate::locale::Locale;
use crate::money::price_words;
use crate::offer::{closing_lines, host_name, place_words};
use crate::request::{AcceptanceRequest, Contacts, MeetingContractRequest, ReplacedRevision};
use crate::when::{parse_instant, range_words, Clock};
use crate::{ConsentError, Terms};

/// How the reader knows a member: their own contact name, or the organizer's label
/// in quotes.
pub fn member_name(locale: &Locale, member: &Member, contacts: &Contacts) -> Result<String, ConsentError> {
    if member.is_business() {
        return inert::name(locale, &member.name);
    }
    match contacts.name_of(&member.principal) {
        Some(name) => inert::name(locale, name),
        None => locale.message("member-unknown", &[("name", inert::quoted(locale, &member.name)?.into())]),
    }
}

/// A member with their calendar: "Priya Shah (priya-shah)".
pub fn member_words(
    locale: &Locale,
    member: &Member,
    contacts: &Contacts,
    domains: &BTreeMap<String, VerifiedDomain>,
) -> Result<String, ConsentError> {
    let name = member_name(locale, member, contacts)?;
    let calendar = match domains.get(&member.host) {
        Some(domain) => domain.as_ascii().to_owned(),
        // §5.3: a business is named by its own signed offer; without a domain the
        // key app verified, that identity is labelled unverified, as any host's is.
        None if member.is_business() => {
            return locale.message(
                "identity-unverified",
                &[("name", name.into()), ("id", inert::name(locale, &member.host)?.into())],
            )
        }
        None => inert::name(locale, &member.host)?,
    };
    locale.message("member", &[("name", name.into()), ("calendar", calendar.into())])
}

fn attendee_words(locale: &Locale, attendee: &Attendee) -> Result<String, ConsentError> {
    let name = inert::name(locale, &attendee.name)?;
    match &attendee.relationship {
        Some(rel) => locale.message(
            "attendee-relationship",
            &[("name", name.into()), ("relationship", inert::name(locale, rel)?.into())],
        ),
        None => Ok(name),
    }
}

/// Who must answer, and how (§5.12 "answers", §7.9): "Priya Shah answers in person;
/// Ellis Moreau may answer by a rule they signed". The organizer's signature is their
/// yes and a business's offer is its yes, so only the other people are named. None
/// when nobody else answers.
pub fn answers_words(
    locale: &Locale,
    contract: &MeetingContract,
    contacts: &Contacts,
) -> Result<Option<String>, ConsentError> {
    answers_of_others(locale, contract, contacts, None)
}

/// [`answers_words`] for the people other than the organizer and `me`.
fn answers_of_others(
    locale: &Locale,
    contract: &MeetingContract,
    contacts: &Contacts,
    me: Option<&str>,
) -> Result<Option<String>, ConsentError> {
    let mut in_person = Vec::new();
    let mut by_rule = Vec::new();
    for member in &contract.members {
        if member.principal == contract.iss || member.is_business() || Some(member.principal.as_str()) == me {
            continue;
        }
        let name = member_name(locale, member, contacts)?;
        match contract.answers_for(member) {
            Answers::Person => in_person.push(name),
            Answers::PersonOrRule => by_rule.push(name),
        }
    }
    let group = |id: &str, names: &[String]| {
        locale.message(id, &[("names", locale.and_list(names)?.into()), ("count", FluentValue::from(names.len()))])
    };
    Ok(match (in_person.is_empty(), by_rule.is_empty()) {
        (true, true) => None,
        (false, true) => Some(group("answers-person", &in_person)?),
        (true, false) => Some(group("answers-rule", &by_rule)?),
        (false, false) => Some(locale.message(
            "answers-both",
            &[
                ("person", group("answers-person", &in_person)?.into()),
                ("rule", group("answers-rule", &by_rule)?.into()),
            ],
        )?),
    })
}

/// The meeting's time, place and attendees, as clauses: "Saturday 17 October 2026 from
/// 12:00 p.m. Eastern time, open-ended", "at …", "with Mira (child) coming along".
fn terms_clauses(locale: &Locale, contract: &MeetingContract) -> Result<Vec<String>, ConsentError> {
    if contract.is_open_ended() && contract.end.is_some() {
        return Err(ConsentError::EndConflict(Terms::MeetingContract));
    }
    let clock = Clock::zone("tz", &contract.tz)?;
    let start = parse_instant("start", &contract.start)?;
    let end = contract.end.as_deref().map(|e| parse_instant("end", e)).transpose()?;
    let mut clauses = vec![range_words(locale, start, end, clock)?];
    if let Some(place) = place_words(locale, &contract.place)? {
        clauses.push(locale.message("offer-place", &[("place", place.into())])?);
    }
    let attendees = contract.attendees.as_deref().unwrap_or_default();
    if !attendees.is_empty() {
        let attendees: Vec<String> = attendees.iter().map(|a| attendee_words(locale, a)).collect::<Result<_, _>>()?;
        clauses.push(locale.message(
            "meeting-attendees",
            &[("attendees", locale.and_list(&attendees)?.into()), ("count", FluentValue::from(attendees.len()))],
        )?);
    }
    Ok(clauses)
}

/// The statement the organizer approves and signs (§5.12 `statement`).
pub fn meeting_statement(
    locale: &Locale,
    req: &MeetingContractRequest,
    contacts: &Contacts,
) -> Result<String, ConsentError> {
    let contract = &req.contract;
    if !contract.members.iter().any(|m| m.principal == contract.iss) {
        return Err(ConsentError::OrganizerNotMember);
    }
    let others: Vec<String> = contract
        .members
        .iter()
        .filter(|m| m.principal != contract.iss)
        .map(|m| member_words(locale, m, contacts, &req.domains))
        .collect::<Result<_, _>>()?;
    let mut clauses = vec![locale.message(
        "meeting-with",
        &[("title", inert::name(locale, &contract.title)?.into()), ("members", locale.and_list(&others)?.into())],
    )?];
    clauses.extend(terms_clauses(locale, contract)?);
    let terms = clauses.join(", ");
    match answers_words(locale, contract, contacts)? {
        Some(answers) => {
            locale.message("meeting-approve-answers", &[("terms", terms.into()), ("answers", answers.into())])
        }
        None => locale.message("meeting-approve", &[("terms", terms.into())]),
    }
}

/// What the organizer reads: the statement, then the terms of each member's offer
/// that the statement does not say (§5.3): a stated price ("Café Lumière: CAD 12.00,
/// paid to Café Lumière directly."), and each calendar's reconfirmation, approval
/// deadline and retention.
pub fn render_meeting_contract(
    locale: &Locale,
    req: &MeetingContractRequest,
    contacts: &Contacts,
) -> Result<String, ConsentError> {
    let mut lines = vec![meeting_statement(locale, req, contacts)?];
    if let Some(previous) = &req.replaces {
        lines.push(locale.message(
            "meeting-replaces",
            &[("revision", req.contract.revision.into()), ("previous", inert::inert(previous).into())],
        )?);
    }
    // The name the organizer's key signs for them, which members who do not
    // have them as a contact read ("arranged by …", §5.12): the agent chose
    // it, so the person sees it before they sign it.
    let organizer = req
        .contract
        .members
        .iter()
        .find(|m| m.principal == req.contract.iss)
        .ok_or(ConsentError::OrganizerNotMember)?;
    lines.push(locale.message("meeting-organizer-name", &[("name", inert::quoted(locale, &organizer.name)?.into())])?);
    for offer in &req.offers {
        let claims = &offer.claims;
        if let Some(total) = claims.total.as_ref().or(claims.price.as_ref()) {
            let host = host_name(locale, claims)?;
            let price = price_words(locale, total, &host)?;
            lines.push(locale.message("meeting-member-price", &[("host", host.into()), ("price", price.into())])?);
        }
        lines.extend(closing_lines(locale, claims)?);
    }
    Ok(lines.join("\n"))
}

/// The statement a member accepts and signs (§5.12 "Acceptances").
pub fn acceptance_statement(
    locale: &Locale,
    req: &AcceptanceRequest,
    contacts: &Contacts,
) -> Result<String, ConsentError> {
    let contract = &req.contract;
    let organizer =
        contract.members.iter().find(|m| m.principal == contract.iss).ok_or(ConsentError::OrganizerNotMember)?;
    if req.me == contract.iss || !contract.members.iter().any(|m| m.principal == req.me) {
        return Err(ConsentError::NotAMember);
    }
    let mut clauses = vec![locale.message(
        "meeting-arranged",
        &[
            ("title", inert::name(locale, &contract.title)?.into()),
            ("organizer", member_words(locale, organizer, contacts, &req.domains)?.into()),
        ],
    )?];
    let others: Vec<String> = contract
        .members
        .iter()
        .filter(|m| m.principal != contract.iss && m.principal != req.me)
        .map(|m| member_words(locale, m, contacts, &req.domains))
        .collect::<Result<_, _>>()?;
    if !others.is_empty() {
        clauses.push(locale.message("meeting-others", &[("members", locale.and_list(&others)?.into())])?);
    }
    clauses.extend(terms_clauses(locale, contract)?);
    locale.message("meeting-accept", &[("terms", clauses.join(", ").into())])
}

/// A meeting's time in words, in its own zone.
fn meeting_time(locale: &Locale, contract: &MeetingContract) -> Result<String, ConsentError> {
    if contract.is_open_ended() && contract.end.is_some() {
        return Err(ConsentError::EndConflict(Terms::MeetingContract));
    }
    let clock = Clock::zone("tz", &contract.tz)?;
    let start = parse_instant("start", &contract.start)?;
    let end = contract.end.as_deref().map(|e| parse_instant("end", e)).transpose()?;
    range_words(locale, start, end, clock)
}

fn attendees_term(locale: &Locale, contract: &MeetingContract) -> Result<String, ConsentError> {
    let attendees = contract.attendees.as_deref().unwrap_or_default();
    if attendees.is_empty() {
        return locale.message("attendees-none", &[]);
    }
    let names: Vec<String> = attendees.iter().map(|a| attendee_words(locale, a)).collect::<Result<_, _>>()?;
    locale.and_list(&names)
}

/// What a revision changes since `old`, in the words a move is shown in (§5.7,
/// §5.12 "Revisions"): a line per term that differs, or one saying nothing does.
fn revision_differences(
    locale: &Locale,
    old: &MeetingContract,
    new: &MeetingContract,
) -> Result<Vec<String>, ConsentError> {
    let place = |c: &MeetingContract| -> Result<String, ConsentError> {
        match place_words(locale, &c.place)? {
            Some(p) => Ok(p),
            None => locale.message("place-host", &[]),
        }
    };
    let pairs = [
        ("change-meeting-title", inert::name(locale, &old.title)?, inert::name(locale, &new.title)?),
        ("change-time", meeting_time(locale, old)?, meeting_time(locale, new)?),
        ("change-place", place(old)?, place(new)?),
        ("change-attendees", attendees_term(locale, old)?, attendees_term(locale, new)?),
    ];
    let mut lines = Vec::new();
    for (id, from, to) in pairs {
        if from != to {
            lines.push(locale.message(id, &[("from", from.into()), ("to", to.into())])?);
        }
    }
    if lines.is_empty() {
        lines.push(locale.message("change-nothing", &[])?);
    }
    Ok(lines)
}

/// What a member reads (§5.12 "Acceptances"): the statement they sign, then, for
/// a revision, what it replaces and what changed since the revision they accepted
/// (§5.12 "Revisions"), then who else may answer by a rule (§5.12 "answers").
pub fn render_acceptance(
    locale: &Locale,
    req: &AcceptanceRequest,
    contacts: &Contacts,
) -> Result<String, ConsentError> {
    let contract = &req.contract;
    let mut lines = vec![acceptance_statement(locale, req, contacts)?];
    match &req.replaces {
        Some(ReplacedRevision::Accepted(old)) => {
            lines.push(locale.message(
                "acceptance-changed",
                &[("revision", contract.revision.into()), ("accepted", old.revision.into())],
            )?);
            lines.extend(revision_differences(locale, old, contract)?);
        }
        Some(ReplacedRevision::NotAccepted { revision }) => lines.push(locale.message(
            "acceptance-replaces",
            &[("revision", contract.revision.into()), ("previous", (*revision).into())],
        )?),
        None => {}
    }
    if let Some(answers) = answers_of_others(locale, contract, contacts, Some(&req.me))? {
        lines.push(locale.message("acceptance-answers", &[("answers", answers.into())])?);
    }
    Ok(lines.join("\n"))
}
