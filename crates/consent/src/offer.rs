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

use crate::claims::{Money, OfferClaims, Place, ReconfirmDefault};
use crate::domain::VerifiedDomain;
use crate::duration::{duration_delta, duration_words, retention_words};
use crate::inert;
use crate::locale::Locale;
use crate::money::{money_words, price_words};
use crate::request::VerifiedOffer;
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

/// The service, with the chosen resource: "Haircut with Marcus".
fn service_only(locale: &Locale, claims: &OfferClaims) -> Result<String, ConsentError> {
    let service = inert::name(locale, &claims.service.name)?;
    match claims.resource_name.as_ref().or(claims.resource.as_ref()) {
        Some(resource) => locale.message(
            "service-resource",
            &[("service", service.into()), ("resource", inert::name(locale, resource)?.into())],
        ),
        None => Ok(service),
    }
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

/// What changes from `old` to `new` terms of one host, a line each ("Time: from …
/// to …"), or one line saying nothing does (§5.7, and §5.10 "Changes re-ask").
pub(crate) fn differences(locale: &Locale, old: &OfferClaims, new: &OfferClaims) -> Result<Vec<String>, ConsentError> {
    if old.iss != new.iss {
        return Err(ConsentError::ChangeOfferMismatch(ChangeOfferMismatch::OtherHost {
            current: old.iss.clone(),
            proposed: new.iss.clone(),
        }));
    }
    let mut lines = Vec::new();
    let mut compare = |id: &str, from: String, to: String| -> Result<(), ConsentError> {
        if from != to {
            lines.push(locale.message(id, &[("from", from.into()), ("to", to.into())])?);
        }
        Ok(())
    };
    compare("change-what", service_only(locale, old)?, service_only(locale, new)?)?;
    compare("change-time", when_words(locale, old)?, when_words(locale, new)?)?;
    compare("change-place", place_or_host(locale, old)?, place_or_host(locale, new)?)?;
    compare("change-party", old.party_size.unwrap_or(1).to_string(), new.party_size.unwrap_or(1).to_string())?;
    compare("change-price", price_or_none(locale, old)?, price_or_none(locale, new)?)?;
    if lines.is_empty() {
        lines.push(locale.message("change-nothing", &[])?);
    }
    Ok(lines)
}

/// A change offer (§5.7): what changes, from what to what, then the new terms in full.
///
/// `current` is the booking's current contract, when the key app has it; without it
/// the text says plainly that it cannot show what changes.
pub fn render_change_offer(
    locale: &Locale,
    current: Option<&VerifiedOffer>,
    proposed: &VerifiedOffer,
) -> Result<String, ConsentError> {
    let new = &proposed.claims;
    let booking_id =
        new.booking_id.as_deref().ok_or(ConsentError::ChangeOfferMismatch(ChangeOfferMismatch::NoBookingId))?;
    let mut lines = vec![locale.message(
        "change-heading",
        &[("booking", inert::name(locale, booking_id)?.into()), ("host", host_identity(locale, proposed)?.into())],
    )?];
    match current {
        None => lines.push(locale.message("change-no-current", &[])?),
        Some(current) => {
            lines.extend(differences(locale, &current.claims, new)?);
        }
    }
    lines.push(locale.message("change-new-terms", &[("summary", offer_summary(locale, proposed)?.into())])?);
    lines.extend(closing_lines(locale, new)?);
    Ok(lines.join("\n"))
}
