//! Booking offers (§5.2) and change offers (§5.7) in words.
//!
//! The first line is the offer in one sentence, the spec's own reference rendering
//! when the offer has only what that rendering shows:
//!
//! > Cleaning and check-up with Harbourview Dental (harbourviewdental.example),
//! > Thursday 15 October 2026, 8:00–9:00 a.m. Pacific time, CAD 180.00, paid to
//! > Harbourview Dental directly
//!
//! It says who (name and the domain the key app discovered, §5.2), what (service and
//! chosen resource), when (§4.2, in `host.tz`), where (`place`, else the host's signed
//! `host.address`), how many
//! (`party_size`) and any stated price (total, paid to the host directly, §8). Each
//! line after it is one more committing term (§5.3 "The consent trust boundary"):
//! the reconfirmation (when it is due and what silence does, §5.10), the approval
//! deadline of a host that approves each booking, and the retention (§2.1), which every
//! offer has. Lines are separated by "\n"; every line after the first is a sentence.

use chrono::{DateTime, FixedOffset};
use fluent_bundle::FluentValue;

use crate::claims::{Booking, Money, OfferClaims, Place, ReceiptClaims, Reconfirm, ReconfirmDefault};
use crate::domain::VerifiedDomain;
use crate::duration::{duration_delta, duration_words, retention_words};
use crate::inert;
use crate::locale::Locale;
use crate::money::{money_words, price_words};
use crate::request::{CurrentTerms, ProposedChange, VerifiedOffer};
use crate::when::{instant_words, parse_instant, range_words, Clock};
use crate::{ChangeOfferMismatch, ConsentError, Terms};

/// Who a host is, as the person can check it: "Harbourview Dental
/// (harbourviewdental.example)" with the discovered domain; without one, the claimed
/// identity labelled unverified, "Ellis Moreau (ellis-moreau, unverified)" (§5.3);
/// with no name at all, the host id (§5.2: "When domain is absent key apps show iss").
pub fn identity(
    locale: &Locale,
    name: Option<&str>,
    id: &str,
    domain: Option<&VerifiedDomain>,
) -> Result<String, ConsentError> {
    let id_shown = inert::name(locale, id)?;
    match (name, domain) {
        (Some(name), Some(domain)) => locale.message(
            "identity-verified",
            &[("name", inert::name(locale, name)?.into()), ("domain", domain.as_ascii().into())],
        ),
        (None, Some(domain)) => {
            locale.message("identity-verified", &[("name", id_shown.into()), ("domain", domain.as_ascii().into())])
        }
        (Some(name), None) => locale
            .message("identity-unverified", &[("name", inert::name(locale, name)?.into()), ("id", id_shown.into())]),
        (None, None) => locale.message("identity-unverified-id", &[("id", id_shown.into())]),
    }
}

/// The offer's host, identified (see [`identity`]).
pub fn host_identity(locale: &Locale, offer: &VerifiedOffer) -> Result<String, ConsentError> {
    let name = offer.claims.host.as_ref().map(|h| h.name.as_str());
    identity(locale, name, &offer.claims.iss, offer.discovered.as_ref())
}

/// The host as the subject of a sentence ("paid to Harbourview Dental directly",
/// "Maple Street Auto keeps …"): its name, else its id.
pub fn host_name(locale: &Locale, claims: &OfferClaims) -> Result<String, ConsentError> {
    let name = claims.host.as_ref().map_or(claims.iss.as_str(), |h| h.name.as_str());
    inert::name(locale, name)
}

/// What and with whom: "Cleaning and check-up with Harbourview Dental
/// (harbourviewdental.example)", "Haircut with Marcus at Fades on Queen (…)".
pub fn what_words(locale: &Locale, offer: &VerifiedOffer) -> Result<String, ConsentError> {
    let claims = &offer.claims;
    let service = inert::name(locale, &claims.service.name)?;
    let host = host_identity(locale, offer)?;
    match claims.resource_name.as_ref().or(claims.resource.as_ref()) {
        Some(resource) => locale.message(
            "offer-what-resource",
            &[("service", service.into()), ("resource", inert::name(locale, resource)?.into()), ("host", host.into())],
        ),
        None => locale.message("offer-what", &[("service", service.into()), ("host", host.into())]),
    }
}

/// The clock an offer's times are shown on: `host.tz`, else the slot's own offset (§5.2).
pub(crate) fn clock(claims: &OfferClaims) -> Result<Clock<'_>, ConsentError> {
    Clock::zone_or_own("host.tz", claims.host.as_ref().map(|h| h.tz.as_str()))
}

/// When, in words, in `host.tz` (§5.2, §4.2).
pub fn when_words(locale: &Locale, claims: &OfferClaims) -> Result<String, ConsentError> {
    let start = parse_instant("slot.start", &claims.slot.start)?;
    if claims.is_open_ended() && claims.slot.end.is_some() {
        return Err(ConsentError::EndConflict(Terms::Offer));
    }
    let end = claims.slot.end.as_deref().map(|end| parse_instant("slot.end", end)).transpose()?;
    range_words(locale, start, end, clock(claims)?)
}

/// A place on one line: its name and address, in the order §5.2 lists them.
pub fn place_words(locale: &Locale, place: &Place) -> Result<Option<String>, ConsentError> {
    let fields = [&place.name, &place.street, &place.locality, &place.region, &place.postal_code, &place.country];
    let shown: Vec<String> = fields.into_iter().flatten().map(|f| inert::name(locale, f)).collect::<Result<_, _>>()?;
    // The place as a whole is bounded like one name (`inert` rule 5).
    let joined = shown.join(", ");
    let chars = joined.chars().count();
    if chars > inert::MAX_FIELD_CHARS {
        return Err(ConsentError::TextTooLong { what: "a place", chars, max: inert::MAX_FIELD_CHARS });
    }
    Ok((!shown.is_empty()).then_some(joined))
}

/// The all-in total when the offer states a price (§5.2); `price` alone is not the
/// all-in figure, so it is shown only when an offer somehow has no total.
fn stated_total(claims: &OfferClaims) -> Option<&Money> {
    claims.total.as_ref().or(claims.price.as_ref())
}

/// The offer in one line (see the module documentation).
pub fn offer_summary(locale: &Locale, offer: &VerifiedOffer) -> Result<String, ConsentError> {
    let claims = &offer.claims;
    let mut clauses = vec![what_words(locale, offer)?, when_words(locale, claims)?];
    // Where: the place the offer names (§5.2 "Place"); otherwise the host's own premises,
    // by the one-line address the host signed, when it gave one.
    let place = match claims.place.as_ref().map(|p| place_words(locale, p)).transpose()?.flatten() {
        Some(place) => Some(place),
        None => claims.host.as_ref().and_then(|h| h.address.as_deref()).map(|a| inert::name(locale, a)).transpose()?,
    };
    if let Some(place) = place {
        clauses.push(locale.message("offer-place", &[("place", place.into())])?);
    }
    if let Some(n) = claims.party_size {
        clauses.push(locale.message("offer-party", &[("count", FluentValue::from(n))])?);
    }
    if let Some(total) = stated_total(claims) {
        clauses.push(price_words(locale, total, &host_name(locale, claims)?)?);
    }
    Ok(clauses.join(", "))
}

/// When the booker must reconfirm (§5.10: "confirm_by at start minus before"),
/// if the offer asks.
pub(crate) fn reconfirm_due(claims: &OfferClaims) -> Result<Option<DateTime<FixedOffset>>, ConsentError> {
    let Some(reconfirm) = &claims.reconfirm else {
        return Ok(None);
    };
    let before = duration_delta("reconfirm.before", &reconfirm.before)?;
    let start = parse_instant("slot.start", &claims.slot.start)?;
    start
        .checked_sub_signed(before)
        .map(Some)
        .ok_or_else(|| ConsentError::BadDuration { field: "reconfirm.before", value: reconfirm.before.clone() })
}

/// When the booker must reconfirm and what silence does (§5.10), if the offer asks.
pub fn reconfirm_sentence(locale: &Locale, claims: &OfferClaims) -> Result<Option<String>, ConsentError> {
    let (Some(reconfirm), Some(due)) = (&claims.reconfirm, reconfirm_due(claims)?) else {
        return Ok(None);
    };
    let deadline = instant_words(locale, due, clock(claims)?)?;
    let id = match (reconfirm.default, duration_words(locale, "reconfirm.before", &reconfirm.before)?) {
        (ReconfirmDefault::Release, Some(before)) => {
            return locale
                .message("reconfirm-release", &[("deadline", deadline.into()), ("before", before.into())])
                .map(Some)
        }
        (ReconfirmDefault::Release, None) => "reconfirm-release-at-start",
    };
    locale.message(id, &[("deadline", deadline.into())]).map(Some)
}

/// The latest time a host that approves each booking will answer (§5.2 `approval_by`).
pub fn approval_sentence(locale: &Locale, claims: &OfferClaims) -> Result<Option<String>, ConsentError> {
    let Some(approval_by) = &claims.approval_by else {
        return Ok(None);
    };
    let at = parse_instant("approval_by", approval_by)?;
    let deadline = instant_words(locale, at, clock(claims)?)?;
    locale
        .message("approval-deadline", &[("host", host_name(locale, claims)?.into()), ("deadline", deadline.into())])
        .map(Some)
}

/// How long the host keeps the booking's records (§2.1, §5.2): "Maple Street Auto
/// keeps my booking details for 1 year after the booking".
pub fn retention_sentence(locale: &Locale, claims: &OfferClaims) -> Result<String, ConsentError> {
    let host = host_name(locale, claims)?;
    match retention_words(locale, &claims.retention)? {
        Some(period) => locale.message("retention-kept", &[("host", host.into()), ("period", period.into())]),
        None => locale.message("retention-none", &[("host", host.into())]),
    }
}

/// The terms every offer ends with: reconfirmation, approval deadline, retention.
pub(crate) fn closing_lines(locale: &Locale, claims: &OfferClaims) -> Result<Vec<String>, ConsentError> {
    let mut lines = Vec::new();
    lines.extend(reconfirm_sentence(locale, claims)?);
    lines.extend(approval_sentence(locale, claims)?);
    lines.push(retention_sentence(locale, claims)?);
    Ok(lines)
}

/// A booking offer, in full (§5.2, §5.3).
pub fn render_booking_offer(locale: &Locale, offer: &VerifiedOffer) -> Result<String, ConsentError> {
    let mut lines = vec![offer_summary(locale, offer)?];
    lines.extend(closing_lines(locale, &offer.claims)?);
    Ok(lines.join("\n"))
}

fn place_or_host(locale: &Locale, claims: &OfferClaims) -> Result<String, ConsentError> {
    match claims.place.as_ref().map(|p| place_words(locale, p)).transpose()?.flatten() {
        Some(place) => Ok(place),
        None => locale.message("place-host", &[]),
    }
}

fn price_or_none(locale: &Locale, claims: &OfferClaims) -> Result<String, ConsentError> {
    match stated_total(claims) {
        Some(total) => money_words(locale, "total", total),
        None => locale.message("price-none", &[]),
    }
}

/// One side of a move, term by term, in words (§5.7 "from … to …"). `None` is a
/// term the source does not state: a receipt names no resource, and a service
/// only by its id.
struct TermWords {
    service: Option<String>,
    resource: Option<String>,
    /// The offer names a resource (`resource` is then its name, not "whoever is free").
    resource_named: bool,
    time: String,
    place: String,
    party: String,
    price: String,
    reconfirm: String,
    retention: String,
}

/// A reconfirmation as a term: "24 hours before the start, else the booking is
/// released", or that none is asked (§5.10).
fn reconfirm_term(locale: &Locale, reconfirm: Option<&Reconfirm>) -> Result<String, ConsentError> {
    let Some(r) = reconfirm else { return locale.message("reconfirm-term-none", &[]) };
    match (r.default, duration_words(locale, "reconfirm.before", &r.before)?) {
        (ReconfirmDefault::Release, Some(before)) => locale.message("reconfirm-term", &[("before", before.into())]),
        (ReconfirmDefault::Release, None) => locale.message("reconfirm-term-at-start", &[]),
    }
}

/// A retention as a term: "1 year", or not past the booking (§2.1).
fn retention_term(locale: &Locale, retention: &str) -> Result<String, ConsentError> {
    match retention_words(locale, retention)? {
        Some(period) => Ok(period),
        None => locale.message("retention-term-none", &[]),
    }
}

fn resource_of(claims: &OfferClaims) -> Option<&String> {
    claims.resource_name.as_ref().or(claims.resource.as_ref())
}

/// An offer's terms, each in words.
fn offer_terms(locale: &Locale, claims: &OfferClaims) -> Result<TermWords, ConsentError> {
    let resource = match resource_of(claims) {
        Some(r) => inert::name(locale, r)?,
        None => locale.message("resource-any", &[])?,
    };
    Ok(TermWords {
        service: Some(inert::name(locale, &claims.service.name)?),
        resource: Some(resource),
        resource_named: resource_of(claims).is_some(),
        time: when_words(locale, claims)?,
        place: place_or_host(locale, claims)?,
        party: claims.party_size.unwrap_or(1).to_string(),
        price: price_or_none(locale, claims)?,
        reconfirm: reconfirm_term(locale, claims.reconfirm.as_ref())?,
        retention: retention_term(locale, &claims.retention)?,
    })
}

/// A receipt's booking, each term in words, on the clock of the change offer
/// `new` of the same host. The booking names its service by id only: it is the
/// new offer's service when the ids agree, and unstated otherwise.
fn receipt_terms(locale: &Locale, receipt: &ReceiptClaims, new: &OfferClaims) -> Result<TermWords, ConsentError> {
    let b: &Booking = &receipt.booking;
    if b.is_open_ended() && b.end.is_some() {
        return Err(ConsentError::EndConflict(Terms::Offer));
    }
    let start = parse_instant("booking.start", &b.start)?;
    let end = b.end.as_deref().map(|e| parse_instant("booking.end", e)).transpose()?;
    let place = match b.place.as_ref().map(|p| place_words(locale, p)).transpose()?.flatten() {
        Some(place) => place,
        None => locale.message("place-host", &[])?,
    };
    let price = match b.total.as_ref().or(b.price.as_ref()) {
        Some(total) => money_words(locale, "total", total)?,
        None => locale.message("price-none", &[])?,
    };
    let service = (b.service_id == new.service.id).then(|| inert::name(locale, &new.service.name)).transpose()?;
    Ok(TermWords {
        service,
        resource: None,
        resource_named: false,
        time: range_words(locale, start, end, clock(new)?)?,
        place,
        party: b.party_size.unwrap_or(1).to_string(),
        price,
        reconfirm: reconfirm_term(locale, b.reconfirm.as_ref())?,
        retention: retention_term(locale, &receipt.retention)?,
    })
}

/// A line per term that differs ("Time: from … to …"), or one line saying
/// nothing does. A term the old side does not state is shown with the new
/// value and says the old one is not known.
fn compare(locale: &Locale, old: &TermWords, new: &TermWords) -> Result<Vec<String>, ConsentError> {
    let changed = |id: &str, from: &str, to: &str| -> Result<Option<String>, ConsentError> {
        (from != to).then(|| locale.message(id, &[("from", from.into()), ("to", to.into())])).transpose()
    };
    let mut lines = Vec::new();
    match (&old.service, &new.service) {
        (Some(from), Some(to)) => lines.extend(changed("change-what", from, to)?),
        (None, Some(to)) => lines.push(locale.message("change-what-unstated", &[("to", to.as_str().into())])?),
        _ => {}
    }
    match (&old.resource, &new.resource) {
        (Some(from), Some(to)) => lines.extend(changed("change-resource", from, to)?),
        (None, Some(to)) if new.resource_named => {
            lines.push(locale.message("change-resource-unstated", &[("to", to.as_str().into())])?)
        }
        _ => {}
    }
    for (id, from, to) in [
        ("change-time", &old.time, &new.time),
        ("change-place", &old.place, &new.place),
        ("change-party", &old.party, &new.party),
        ("change-price", &old.price, &new.price),
        ("change-reconfirm", &old.reconfirm, &new.reconfirm),
        ("change-retention", &old.retention, &new.retention),
    ] {
        lines.extend(changed(id, from, to)?);
    }
    if lines.is_empty() {
        lines.push(locale.message("change-nothing", &[])?);
    }
    Ok(lines)
}

fn same_host(old: &str, new: &str) -> Result<(), ConsentError> {
    if old != new {
        return Err(ConsentError::ChangeOfferMismatch(ChangeOfferMismatch::OtherHost {
            current: old.to_owned(),
            proposed: new.to_owned(),
        }));
    }
    Ok(())
}

/// What changes from `old` to `new` terms of one host, a line each ("Time: from …
/// to …"), or one line saying nothing does (§5.7, and §5.10 "Changes re-ask").
pub(crate) fn differences(locale: &Locale, old: &OfferClaims, new: &OfferClaims) -> Result<Vec<String>, ConsentError> {
    same_host(&old.iss, &new.iss)?;
    compare(locale, &offer_terms(locale, old)?, &offer_terms(locale, new)?)
}

/// What changes from the booking's current terms to the change offer `new` (§5.7).
fn differences_from(locale: &Locale, current: &CurrentTerms, new: &OfferClaims) -> Result<Vec<String>, ConsentError> {
    match current {
        CurrentTerms::Offer(old) => differences(locale, &old.claims, new),
        CurrentTerms::Receipt(receipt) => {
            same_host(&receipt.iss, &new.iss)?;
            compare(locale, &receipt_terms(locale, receipt, new)?, &offer_terms(locale, new)?)
        }
    }
}

/// A change offer (§5.7): who proposes it, what changes, from what to what, then
/// the new terms in full.
///
/// `current` is the booking's current terms, when the key app has them; without
/// them the text says plainly, in one line, that it has no receipt for the booking,
/// and that the assistant can send one. `by` says whose change it is: a host's
/// proposal (§5.8), or its counter to a booking it has not approved (§5.11), is
/// said to be the host's.
pub fn render_change_offer(
    locale: &Locale,
    current: Option<&CurrentTerms>,
    proposed: &VerifiedOffer,
    by: ProposedChange,
) -> Result<String, ConsentError> {
    let new = &proposed.claims;
    let booking_id =
        new.booking_id.as_deref().ok_or(ConsentError::ChangeOfferMismatch(ChangeOfferMismatch::NoBookingId))?;
    let heading = match by {
        ProposedChange::Guest => "change-heading",
        ProposedChange::HostProposal => "change-heading-host",
        ProposedChange::HostCounter => "change-heading-counter",
    };
    let mut lines = vec![locale.message(
        heading,
        &[("booking", inert::name(locale, booking_id)?.into()), ("host", host_identity(locale, proposed)?.into())],
    )?];
    match current {
        None => lines.push(locale.message("change-no-receipt", &[])?),
        Some(current) => lines.extend(differences_from(locale, current, new)?),
    }
    lines.push(locale.message("change-new-terms", &[("summary", offer_summary(locale, proposed)?.into())])?);
    lines.extend(closing_lines(locale, new)?);
    Ok(lines.join("\n"))
}
