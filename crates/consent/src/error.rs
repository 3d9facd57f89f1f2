//! Why a consent text could not be produced.
//!
//! Rendering refuses rather than guesses: a term that cannot be shown exactly is
//! never shown approximately (§5.3: the text must show every term that commits the
//! person). Inputs are meant to be verified claims, so in practice these mark a
//! verification gap upstream; the service maps every variant to one refusal.

use schcp::claims::Action;

/// A consent text could not be rendered. Each variant names the term at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConsentError {
    /// A time is not an RFC 3339 date-time with an offset (§2.1 "Formats").
    #[error("{field} is not an RFC 3339 date-time with an offset: {value:?}")]
    BadDateTime {
        /// The claim field it was read from.
        field: &'static str,
        /// The value as found.
        value: String,
    },

    /// A NumericDate is outside what a calendar can show.
    #[error("{field} is not a NumericDate that can be shown: {value}")]
    BadNumericDate {
        /// The claim field it was read from.
        field: &'static str,
        /// The value as found.
        value: i64,
    },

    /// `host.tz`, a contract's or a rule's `tz` is not an IANA time zone the key app knows.
    #[error("{field} is not a known IANA time zone: {value:?}")]
    UnknownTimeZone {
        /// The claim field it was read from.
        field: &'static str,
        /// The value as found.
        value: String,
    },

    /// A slot ends before it starts, or the end is the start.
    #[error("the slot ends ({end}) before it starts ({start})")]
    EndBeforeStart {
        /// The start as written.
        start: String,
        /// The end as written.
        end: String,
    },

    /// A duration does not follow the §2.1 grammar, or a retention is not weeks or days.
    #[error("{field} is not a SchCP duration (§2.1): {value:?}")]
    BadDuration {
        /// The claim field it was read from.
        field: &'static str,
        /// The value as found.
        value: String,
    },

    /// An amount does not follow §2.1 (digits, at most the currency's minor unit).
    #[error("{field} is not a SchCP amount (§2.1): {amount:?} {currency:?}")]
    BadMoney {
        /// The claim field it was read from.
        field: &'static str,
        /// The amount as written.
        amount: String,
        /// The currency code as written.
        currency: String,
    },

    /// A domain the key app discovered is not a valid host name.
    #[error("not a valid domain name: {0:?}")]
    BadDomain(String),

    /// A change offer (§5.7) does not belong to the booking it is shown against.
    #[error("the change offer does not belong to the booking it is shown against: {0}")]
    ChangeOfferMismatch(ChangeOfferMismatch),

    /// A management mandate (§3.3) may only cancel or reschedule; this is another action.
    #[error("a management mandate may only cancel or reschedule, not {}", .0.as_str())]
    ManagementScope(Action),

    /// A rule names weekdays but no `tz` to read them in (§7.9).
    #[error("a rule that names weekdays must name its time zone (tz)")]
    RuleWeekdaysWithoutZone,

    /// The contract's organizer (`iss`) is not one of its members (§5.12 "Members").
    #[error("the meeting contract's organizer is not one of its members")]
    OrganizerNotMember,

    /// The person accepting is not a member of the contract, or is its organizer.
    #[error("the person accepting is not a member of this meeting other than its organizer")]
    NotAMember,

    /// The person is not named as an invitee with a deadline to answer by (§5.10).
    #[error("the booking does not name this person as an invitee with a confirm_by")]
    NotInvited,

    /// An offer or contract states both an end and `open_end: true` (§4.2, §5.12 "Terms").
    #[error("the {0} states both an end and open_end")]
    EndConflict(Terms),

    /// A supplied string, or the whole text, is longer than can be shown without
    /// burying the terms after it (`inert` rule 5). Refused, never truncated.
    #[error("{what} has {chars} characters; at most {max} are shown, and nothing is truncated")]
    TextTooLong {
        /// What is too long: a supplied string, or the consent text.
        what: &'static str,
        /// Its length, in characters.
        chars: usize,
        /// The bound it exceeds.
        max: usize,
    },

    /// The locale data is missing a message: a bug in `locales/`, caught by tests.
    #[error("locale {locale} has no message {id:?}")]
    MissingMessage {
        /// The locale whose resources lack it.
        locale: &'static str,
        /// The Fluent message or term id.
        id: String,
    },

    /// The Fluent file failed to parse or format: a bug in `locales/`.
    #[error("locale {locale} message {id:?} failed to format: {detail}")]
    Fluent {
        /// The locale whose message failed.
        locale: &'static str,
        /// The Fluent message or term id.
        id: String,
        /// What the library reported.
        detail: String,
    },

    /// ICU4X could not load or apply its compiled CLDR data.
    #[error("ICU4X could not format {what}: {detail}")]
    Icu {
        /// What was being formatted.
        what: &'static str,
        /// What the library reported.
        detail: String,
    },
}

/// How a change offer fails to belong to the booking it is shown against (§5.7).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChangeOfferMismatch {
    /// It names no `booking_id`, so it changes no booking.
    #[error("it names no booking_id")]
    NoBookingId,
    /// It is signed by another host than the booking's current terms.
    #[error("it is from {proposed}, not {current}")]
    OtherHost {
        /// The host (`iss`) of the current terms.
        current: String,
        /// The host (`iss`) of the change offer.
        proposed: String,
    },
}

/// Which signed terms a rendering failure is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Terms {
    /// A booking or change offer (§5.2, §5.7).
    #[error("offer")]
    Offer,
    /// A meeting contract (§5.12).
    #[error("meeting contract")]
    MeetingContract,
}
