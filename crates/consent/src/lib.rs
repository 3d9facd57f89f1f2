//! The consent text of the SchCP key app: what a person reads before saying yes.
//!
//! §5.3, "The consent trust boundary": a signature binds bytes, not what a screen
//! showed, so the key app derives the complete text it shows from the same verified
//! claims it signs. This crate is that derivation, and nothing else: pure functions
//! from a typed [`ConsentRequest`] (verified claims plus what the key app itself knows:
//! the domain it discovered a host at, the person's contacts) and a [`Locale`] to text.
//!
//! * **Deterministic.** The same request, locale and contacts give the same bytes: no
//!   clock, no environment, no hash-map order (the one environment read,
//!   [`os_locale_candidates`], only feeds [`choose_language`]).
//! * **Complete.** Every term that commits the person is said (§5.2, §5.3): who (name
//!   and verified domain, or "unverified"), what, when in words in the host's zone, where,
//!   how many, any stated price paid to the host directly, any reconfirmation (when and
//!   what silence does), any approval deadline, and the retention.
//! * **Inert.** Host-, organizer- and agent-supplied strings cannot reorder, hide or
//!   forge the text around them ([`inert`]).
//! * **Localized.** English and French (Canadian conventions), sentences in Fluent
//!   (`locales/*/consent.ftl`), dates, times, zone names, lists and numbers from CLDR
//!   via ICU4X.
//!
//! ```
//! use schcp_consent::{choose_language, render, ConsentRequest, Contacts, Locale};
//!
//! let language = choose_language(Some("fr-CA"), &[None, None, Some("en_CA.UTF-8")]);
//! let locale = Locale::new(language).unwrap();
//! let request = ConsentRequest::Pairing {
//!     agent_name: "Calendar Assistant".into(),
//!     fingerprint: "7F3A-91C2-K8QD".into(),
//! };
//! let text = render(&request, &locale, &Contacts::new()).unwrap();
//! assert!(text.starts_with("Jumeler l’assistant « Calendar Assistant »"));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// The claims types the requests carry: `schcp`'s own, re-exported for callers.
pub use schcp::claims;

pub mod attention;
mod booking_read;
mod domain;
mod duration;
mod error;
mod first_dealing;
pub mod inert;
mod invitation;
mod locale;
mod mandate;
mod meeting;
mod money;
mod offer;
mod own_booking;
mod request;
mod rule;
mod summary;
mod terms;
mod when;
mod withdrawal;

pub use attention::{attention, Attention, AttentionKind};
pub use booking_read::render_booking_read;
pub use domain::VerifiedDomain;
pub use duration::{duration_words, retention_words};
pub use error::{ChangeOfferMismatch, ConsentError, Terms};
pub use first_dealing::new_hosts;
pub use invitation::{
    answer_by_sentence, booker_words, invitation_statement, reconfirm_by_words, render_invitation,
    render_reconfirmation,
};
pub use locale::{choose_language, os_locale_candidates, Language, Locale};
pub use mandate::{actions_words, booking_words, hosts_words, render_management_mandate, render_open_mandate};
pub use meeting::{
    acceptance_statement, answers_words, meeting_statement, member_name, member_words, render_acceptance,
    render_meeting_contract,
};
pub use money::{money_words, price_words};
pub use offer::{
    approval_sentence, host_identity, host_name, identity, offer_summary, place_words, reconfirm_sentence,
    render_booking_offer, render_change_offer, retention_sentence, what_words, when_words,
};
pub use own_booking::{own_booking_statement, render_own_booking};
pub use request::{
    AcceptanceRequest, AgentKey, BookingReadRequest, BookingSummary, ConsentRequest, Contacts, CurrentTerms,
    InvitationRequest, ManagementMandateRequest, MandateConstraints, MandateHost, MeetingContractRequest,
    OpenMandateRequest, ProposedChange, ReplacedRevision, RuleRequest, ServiceLabel, VerifiedOffer,
};
pub use rule::{render_pairing, render_rule};
pub use summary::summary;
pub use terms::{offer_terms, OfferTerms, PriceLineWords};
pub use when::{date_words, numeric_date_words, slot_words};
pub use withdrawal::{carries_status, signs, Signs, Withdrawal};

/// The consent text for `req`, in `locale`, naming people as `contacts` knows them.
///
/// This is the one renderer every surface shows (desktop window, terminal, the agent
/// API's `consent_text`). Lines are separated by `\n`.
///
/// A text longer than [`inert::MAX_TEXT_CHARS`] is refused, never truncated, and so is
/// one with a supplied string longer than [`inert::MAX_FIELD_CHARS`]: what the person
/// reads is never so long that the terms after a name scroll out of sight.
///
/// The text says nothing of withdrawal: it is [`render_with`] for hosts that read
/// the credential's status ([`Withdrawal::ReachesHosts`]).
pub fn render(req: &ConsentRequest, locale: &Locale, contacts: &Contacts) -> Result<String, ConsentError> {
    render_with(req, locale, contacts, Withdrawal::ReachesHosts)
}

/// The consent text for `req`, as [`render`], and with `withdrawal` said: where
/// hosts cannot read the status of what `req` signs, its last line says it
/// cannot be withdrawn before it expires (§3.3 "Status URLs").
pub fn render_with(
    req: &ConsentRequest,
    locale: &Locale,
    contacts: &Contacts,
    withdrawal: Withdrawal,
) -> Result<String, ConsentError> {
    let text = render_unbounded(req, locale, contacts)?;
    let text = withdrawal::with_withdrawal(locale, req, withdrawal, text)?;
    let chars = text.chars().count();
    if chars > inert::MAX_TEXT_CHARS {
        return Err(ConsentError::TextTooLong { what: "the consent text", chars, max: inert::MAX_TEXT_CHARS });
    }
    Ok(text)
}

fn render_unbounded(req: &ConsentRequest, locale: &Locale, contacts: &Contacts) -> Result<String, ConsentError> {
    let text = match req {
        ConsentRequest::BookingOffer(offer) => render_booking_offer(locale, offer),
        ConsentRequest::ChangeOffer { current, proposed, by } => {
            render_change_offer(locale, current.as_ref(), proposed, *by)
        }
        ConsentRequest::OpenMandate(r) => render_open_mandate(locale, r),
        ConsentRequest::ManagementMandate(r) => render_management_mandate(locale, r),
        ConsentRequest::MeetingContract(r) => render_meeting_contract(locale, r, contacts),
        ConsentRequest::Acceptance(r) => render_acceptance(locale, r, contacts),
        ConsentRequest::Rule(r) => render_rule(locale, r, contacts),
        ConsentRequest::Invitation(r) => render_invitation(locale, r, contacts),
        ConsentRequest::OwnBooking(o) => render_own_booking(locale, o),
        ConsentRequest::BookingRead(r) => render_booking_read(locale, r),
        ConsentRequest::Reconfirmation { mandate, confirm_by } => render_reconfirmation(locale, mandate, confirm_by),
        ConsentRequest::Pairing { agent_name, fingerprint } => render_pairing(locale, agent_name, fingerprint),
    }?;
    first_dealing::with_new_hosts(locale, req, text)
}
