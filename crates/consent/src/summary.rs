//! Each request named in one short line, for the lists a person scans (the
//! window's Requests and History, notifications, the terminal): what is asked,
//! where and when, never the kind of credential. "Synthetic oil change with
//! Maple Street Auto (maplestreetauto.example), Thursday 15 October 2026,
//! 1:00–1:45 p.m. Eastern time".
//!
//! The line only names; the consent text is what the person approves (§5.3),
//! so the line carries no term (price, limits) that could be read as the
//! agreement.

use crate::inert;
use crate::locale::Locale;
use crate::mandate::{booking_words, hosts_words};
use crate::offer::{what_words, when_words};
use crate::request::{ConsentRequest, VerifiedOffer};
use crate::ConsentError;

/// The one-line name of `req`.
pub fn summary(req: &ConsentRequest, locale: &Locale) -> Result<String, ConsentError> {
    let offer = |id: &str, o: &VerifiedOffer| -> Result<String, ConsentError> {
        locale.message(id, &[("what", what_words(locale, o)?.into()), ("when", when_words(locale, &o.claims)?.into())])
    };
    match req {
        ConsentRequest::BookingOffer(o) | ConsentRequest::OwnBooking(o) => offer("summary-booking", o),
        ConsentRequest::ChangeOffer { proposed, .. } => offer("summary-change", proposed),
        ConsentRequest::Invitation(r) => offer("summary-invitation", &r.contract),
        ConsentRequest::OpenMandate(r) => {
            locale.message("summary-mandate", &[("hosts", hosts_words(locale, &r.hosts)?.into())])
        }
        ConsentRequest::ManagementMandate(r) => {
            locale.message("summary-management", &[("booking", booking_words(locale, &r.booking)?.into())])
        }
        ConsentRequest::Reconfirmation { mandate, .. } => {
            locale.message("summary-reconfirmation", &[("booking", booking_words(locale, &mandate.booking)?.into())])
        }
        ConsentRequest::MeetingContract(r) => {
            locale.message("summary-meeting", &[("title", inert::quoted(locale, &r.contract.title)?.into())])
        }
        ConsentRequest::Acceptance(r) => {
            locale.message("summary-acceptance", &[("title", inert::quoted(locale, &r.contract.title)?.into())])
        }
        ConsentRequest::Rule(r) => {
            locale.message("summary-rule", &[("label", inert::quoted(locale, &r.rule.label)?.into())])
        }
        ConsentRequest::BookingRead(r) => locale.message(
            "summary-booking-read",
            &[
                ("booking", inert::quoted(locale, &r.booking_id)?.into()),
                ("hosts", hosts_words(locale, std::slice::from_ref(&r.host))?.into()),
            ],
        ),
        ConsentRequest::Pairing { agent_name, .. } => {
            locale.message("summary-pairing", &[("agent", inert::quoted(locale, agent_name)?.into())])
        }
    }
}
