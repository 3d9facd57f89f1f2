//! The person's own yes to a booking on their own calendar (§7.7, §7.9: "At a
//! person's calendar the person's own answer is by: "person""), signed as an
//! acceptance of the booking's offer hash. It is shown like any offer; its first line,
//! the statement the acceptance carries, says that the calendar is the person's own
//! and the yes is theirs:
//!
//! > I say yes myself to this booking on my own calendar: Coffee with Ellis Moreau,
//! > Saturday 17 October 2026, 12:00–12:45 p.m. Eastern time.

use crate::error::ConsentError;
use crate::locale::Locale;
use crate::offer::{closing_lines, offer_summary};
use crate::request::VerifiedOffer;

/// The statement the person's own yes carries (the first line of [`render_own_booking`]).
pub fn own_booking_statement(locale: &Locale, offer: &VerifiedOffer) -> Result<String, ConsentError> {
    locale.message("own-booking-accept", &[("summary", offer_summary(locale, offer)?.into())])
}

/// The person's own yes to a booking on their calendar, in full: the statement, then
/// every term of the offer as any offer shows it (§5.3).
pub fn render_own_booking(locale: &Locale, offer: &VerifiedOffer) -> Result<String, ConsentError> {
    let mut lines = vec![own_booking_statement(locale, offer)?];
    lines.extend(closing_lines(locale, &offer.claims)?);
    Ok(lines.join("\n"))
}
