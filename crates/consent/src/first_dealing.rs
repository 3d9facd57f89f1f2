//! "You have not dealt with maple-street-auto.example before": one plain line
//! when a request names a host the key app has never dealt with (§2.2: the key
//! app binds a host id to where the person first said yes to it).
//!
//! A look-alike domain serving a copy of a known host's document is refused by
//! the key app; one met first, before the real host, is new, and this line is
//! what tells the person to look twice at the domain. It goes right after the
//! first line, which stays the request's one-sentence summary (the statement
//! a credential signs, §5.3).

use crate::locale::Locale;
use crate::offer::identity;
use crate::request::{BookingSummary, ConsentRequest, MandateHost, VerifiedOffer};
use crate::ConsentError;

/// How a new host is named: its verified domain, else its claimed identity
/// labelled unverified (§5.3), host text made inert by `identity`.
fn offer_label(locale: &Locale, o: &VerifiedOffer) -> Result<String, ConsentError> {
    match &o.discovered {
        Some(d) => Ok(d.as_ascii().to_owned()),
        None => identity(locale, o.claims.host.as_ref().map(|h| h.name.as_str()), &o.claims.iss, None),
    }
}

fn mandate_host_label(locale: &Locale, h: &MandateHost) -> Result<String, ConsentError> {
    match &h.domain {
        Some(d) => Ok(d.as_ascii().to_owned()),
        None => identity(locale, h.name.as_deref(), &h.id, None),
    }
}

fn booking_label(locale: &Locale, b: &BookingSummary) -> Result<String, ConsentError> {
    match &b.domain {
        Some(d) => Ok(d.as_ascii().to_owned()),
        None => identity(locale, b.host_name.as_deref(), &b.iss, None),
    }
}

/// The hosts of `req` the key app has not dealt with, as the text names them.
pub fn new_hosts(locale: &Locale, req: &ConsentRequest) -> Result<Vec<String>, ConsentError> {
    let offer = |o: &VerifiedOffer| -> Result<Vec<String>, ConsentError> {
        Ok(if o.new_host { vec![offer_label(locale, o)?] } else { Vec::new() })
    };
    let booking = |b: &BookingSummary| -> Result<Vec<String>, ConsentError> {
        Ok(if b.new_host { vec![booking_label(locale, b)?] } else { Vec::new() })
    };
    match req {
        ConsentRequest::BookingOffer(o) | ConsentRequest::OwnBooking(o) => offer(o),
        ConsentRequest::ChangeOffer { proposed, .. } => offer(proposed),
        ConsentRequest::Invitation(r) => offer(&r.contract),
        ConsentRequest::OpenMandate(r) => {
            r.hosts.iter().filter(|h| h.new_host && h.id != "*").map(|h| mandate_host_label(locale, h)).collect()
        }
        ConsentRequest::ManagementMandate(r) => booking(&r.booking),
        ConsentRequest::BookingRead(r) if r.host.new_host => Ok(vec![mandate_host_label(locale, &r.host)?]),
        ConsentRequest::Reconfirmation { mandate, .. } => booking(&mandate.booking),
        _ => Ok(Vec::new()),
    }
}

/// `text` with the new-host line after its first line, when `req` names a
/// host the key app has not dealt with; `text` unchanged otherwise.
pub(crate) fn with_new_hosts(locale: &Locale, req: &ConsentRequest, text: String) -> Result<String, ConsentError> {
    let hosts = new_hosts(locale, req)?;
    if hosts.is_empty() {
        return Ok(text);
    }
    let line = locale.message("new-host", &[("hosts", locale.and_list(&hosts)?.into())])?;
    Ok(match text.split_once('\n') {
        Some((first, rest)) => format!("{first}\n{line}\n{rest}"),
        None => format!("{text}\n{line}"),
    })
}
