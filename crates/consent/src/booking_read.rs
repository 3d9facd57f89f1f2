//! A narrow read credential (§3.3 "Constraints bind reads too", §5.5, §5.10): a
//! mandate for one booking at one host that lets the agent read it and nothing
//! else, so an invitee's agent can fetch the booking it is invited to without an
//! open mandate.

use crate::error::ConsentError;
use crate::inert;
use crate::locale::Locale;
use crate::mandate::hosts_words;
use crate::request::BookingReadRequest;
use crate::when::numeric_date_words;

/// The text of a read credential: which booking, at which host, until when, and
/// that it allows nothing but reading.
pub fn render_booking_read(locale: &Locale, req: &BookingReadRequest) -> Result<String, ConsentError> {
    let until = numeric_date_words(locale, "exp", req.exp, req.tz.as_deref())?;
    let lines = [
        locale.message(
            "booking-read",
            &[
                ("agent", inert::quoted(locale, &req.agent_name)?.into()),
                ("booking", inert::name(locale, &req.booking_id)?.into()),
                ("host", hosts_words(locale, std::slice::from_ref(&req.host))?.into()),
                ("until", until.into()),
            ],
        )?,
        locale.message("booking-read-only", &[])?,
    ];
    Ok(lines.join("\n"))
}
