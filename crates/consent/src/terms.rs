//! The offer's money and premises as typed values, for a screen to lay out
//! beside the consent text: every line of the all-in total and the host's
//! one-line address (§5.2 "Prices", "Where"). Each value is already in the
//! person's words (amounts as [`money_words`] writes them, names inert), and
//! comes from the same verified claims the text does, so a window never parses
//! them back out of the text.
//!
//! [`money_words`]: crate::money_words

use schcp::claims::{LineKind, OfferClaims};

use crate::inert;
use crate::locale::Locale;
use crate::money::money_words;
use crate::offer::host_name;
use crate::request::ConsentRequest;
use crate::ConsentError;

/// One line of the total: what the host calls it (inert), its kind, and its
/// amount in words ("CAD 10.27", "10,27 CAD").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PriceLineWords {
    /// The line's kind as the host signed it (§5.2).
    pub kind: LineKind,
    /// The host's label for the line, inert.
    pub label: String,
    /// The line's amount in words.
    pub amount: String,
}

/// The money and premises of the offer a request is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OfferTerms {
    /// The host's name (inert), else its id.
    pub host: String,
    /// The host's one-line postal address as it signed it (inert), if any.
    pub address: Option<String>,
    /// Every line of the total, in the signed order; empty when no price is stated.
    pub lines: Vec<PriceLineWords>,
    /// The all-in total in words, when a price is stated.
    pub total: Option<String>,
}

/// The terms of the offer `req` is about (a booking, a change, an invitation,
/// a booking made outside SchCP); `None` for requests with no single offer
/// (mandates, meetings, rules, pairings).
pub fn offer_terms(req: &ConsentRequest, locale: &Locale) -> Result<Option<OfferTerms>, ConsentError> {
    let claims = match req {
        ConsentRequest::BookingOffer(o) | ConsentRequest::OwnBooking(o) => &o.claims,
        ConsentRequest::ChangeOffer { proposed, .. } => &proposed.claims,
        ConsentRequest::Invitation(r) => &r.contract.claims,
        _ => return Ok(None),
    };
    terms_of(claims, locale).map(Some)
}

fn terms_of(claims: &OfferClaims, locale: &Locale) -> Result<OfferTerms, ConsentError> {
    let address = claims.host.as_ref().and_then(|h| h.address.as_deref()).map(alone).transpose()?;
    let lines = claims
        .lines
        .iter()
        .flatten()
        .map(|l| {
            Ok(PriceLineWords {
                kind: l.kind,
                label: alone(&l.label)?,
                amount: money_words(locale, "lines.amount", &l.amount)?,
            })
        })
        .collect::<Result<Vec<_>, ConsentError>>()?;
    // The all-in total, as the text states it (`price` alone only without one).
    let total = claims.total.as_ref().or(claims.price.as_ref()).map(|t| money_words(locale, "total", t)).transpose()?;
    Ok(OfferTerms { host: host_name(locale, claims)?, address, lines, total })
}

/// A host string laid out in a field of its own, not inside a sentence: bounded
/// and inert (no control or bidirectional override can reorder what is around
/// it), and unquoted, since no words of ours surround it.
fn alone(s: &str) -> Result<String, ConsentError> {
    inert::bounded(s)?;
    Ok(inert::inert(s))
}
