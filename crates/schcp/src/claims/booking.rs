//! Bookings (§5.3, §5.5) with their JSCalendar event, the responses that carry them,
//! holds (§5.2) and proposals (§5.7, §5.8). All closed at every depth (§5.3).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::offer::check_money;
use super::{de, wire, Money, Place, PriceLine, ReceiptConsent, Reconfirm, ReconfirmDefault, Refusal};
use crate::schema::{self, Def};

/// A booking's state (§6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BookingStatus {
    PendingHost,
    Tentative,
    Confirmed,
    Declined,
    Expired,
    Cancelled,
    Completed,
    NoShow,
}

/// JSCalendar `@type` of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum EventType {
    #[default]
    Event,
}

/// JSCalendar `@type` of a location.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum LocationType {
    #[default]
    Location,
}

/// RFC 8984 event status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventStatus {
    Confirmed,
    Tentative,
    Cancelled,
}

wire! {
    /// RFC 8984 Location: the place's name and address on one line (§5.2).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct EventLocation {
        #[serde(rename = "@type")]
        pub type_: LocationType,
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub name: String,
    }
}

wire! {
    /// The RFC 8984 (JSCalendar) Event subset a booking carries (§5.3), so an agent can
    /// write it straight into the principal's calendar. Only these properties.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct Event {
        #[serde(rename = "@type")]
        pub type_: EventType,
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub uid: String,
        /// LocalDateTime, read in `time_zone`.
        #[serde(deserialize_with = "de::string::<_, de::k::LocalDateTime>")]
        pub start: String,
        #[serde(
            rename = "timeZone",
            deserialize_with = "de::string::<_, de::k::TimeZone>"
        )]
        pub time_zone: String,
        /// The booked length; for an open-ended booking, the time set aside (§4.2).
        #[serde(deserialize_with = "de::string::<_, de::k::Duration>")]
        pub duration: String,
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub title: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub description: Option<String>,
        #[serde(deserialize_with = "de::count")]
        pub sequence: u32,
        /// UTCDateTime.
        #[serde(deserialize_with = "de::string::<_, de::k::UtcDateTime>")]
        pub updated: String,
        pub status: EventStatus,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub locations: Option<BTreeMap<String, EventLocation>>,
    }
    check = Event::check;
}

impl Event {
    fn check(&self) -> Result<(), &'static str> {
        if let Some(locations) = &self.locations {
            if locations.is_empty() {
                return Err("locations has at least one member");
            }
            if locations.keys().any(|k| !schema::is_valid(Def::Id, &k.as_str().into())) {
                return Err("a location id is 1 to 255 characters");
            }
        }
        Ok(())
    }
}

/// Who said yes (or no) to a booking (§7.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnsweredBy {
    /// The business itself.
    Host,
    /// The person whose calendar it is.
    Person,
    /// A rule that person signed.
    Rule,
}

wire! {
    /// `answer` (§7.9): who answered, when, and by which rule (its label).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct Answer {
        pub by: AnsweredBy,
        /// The rule's label, when `by` is `rule`.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        pub rule: Option<String>,
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub at: String,
    }
    check = Answer::check;
}

impl Answer {
    fn check(&self) -> Result<(), &'static str> {
        if (self.by == AnsweredBy::Rule) != self.rule.is_some() {
            return Err("an answer names a rule exactly when it is by rule");
        }
        Ok(())
    }
}

/// A participant's role (§5.10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParticipantRole {
    /// Someone who comes along.
    Attendee,
    /// Someone invited, typically with `who`.
    Invitee,
    /// The booker's own reconfirmation (§5.10).
    Booker,
}

/// Where a participant's answer stands (§5.10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParticipantStatus {
    Pending,
    Accepted,
    Declined,
    /// A named-only participant, who has nothing to answer.
    NotRequired,
}

wire! {
    /// Someone a booking names besides the signer (§5.10).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct Participant {
        /// A required participant's principal.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::PrincipalId>"
        )]
        pub who: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        pub name: Option<String>,
        pub role: ParticipantRole,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        pub relationship: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Duration>"
        )]
        pub confirm_within: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::DateTime>"
        )]
        pub confirm_by: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub default: Option<ReconfirmDefault>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub status: Option<ParticipantStatus>,
    }
    check = Participant::check;
}

impl Participant {
    fn check(&self) -> Result<(), &'static str> {
        if self.who.is_none() && self.name.is_none() {
            return Err("a participant has a who or a name");
        }
        Ok(())
    }
}

wire! {
    /// A meeting revision every member has yet to answer (§5.12).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct PendingRevision {
        #[serde(deserialize_with = "de::positive")]
        pub revision: u32,
        #[serde(deserialize_with = "de::string::<_, de::k::B64Sha256>")]
        pub contract_sha256: String,
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub expires_at: String,
        pub answered: bool,
        /// The member's acceptance once given.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::CompactJws>"
        )]
        pub acceptance: Option<String>,
    }
}

wire! {
    /// `meeting` on a booking (§5.12): the contract it stands on.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct BookingMeeting {
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub meeting_id: String,
        #[serde(deserialize_with = "de::positive")]
        pub revision: u32,
        #[serde(deserialize_with = "de::string::<_, de::k::B64Sha256>")]
        pub contract_sha256: String,
        /// The member's acceptance (§5.12, §7.9).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::CompactJws>"
        )]
        pub acceptance: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub pending_revision: Option<PendingRevision>,
    }
}

wire! {
    /// The last move or meeting revision declined or let lapse (§5.7, §5.12).
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct DeclinedChange {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Id>"
        )]
        pub proposal_id: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_positive"
        )]
        pub revision: Option<u32>,
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub start: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub place: Option<Place>,
        pub refusal: Refusal,
    }
    check = DeclinedChange::check;
}

impl DeclinedChange {
    fn check(&self) -> Result<(), &'static str> {
        if self.proposal_id.is_none() && self.revision.is_none() {
            return Err("a declined change names its proposal_id or revision");
        }
        Ok(())
    }
}

/// Who proposed a change (§5.7, §5.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProposedBy {
    Guest,
    Host,
}

wire! {
    /// An open change offer, or a guest's accepted move awaiting the host (§5.7, §5.8).
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct Proposal {
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub proposal_id: String,
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub start: String,
        /// Absent for an open-ended booking.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::DateTime>"
        )]
        pub end: Option<String>,
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub expires_at: String,
        pub by: ProposedBy,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub place: Option<Place>,
        /// The change offer (compact `schcp-offer+jwt`).
        #[serde(deserialize_with = "de::string::<_, de::k::CompactJws>")]
        pub offer: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub awaiting_host: Option<bool>,
        /// How the guest agreed to the move (§5.7 step 3).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub consent: Option<ReceiptConsent>,
    }
}

wire! {
    /// A booking (§5.3, §5.5): the same shape GET /bookings/{id}, webhooks and receipts
    /// carry. Closed at every depth; no payment state, no record of cancellations (§5.5).
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct Booking {
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub booking_id: String,
        pub status: BookingStatus,
        #[serde(deserialize_with = "de::count")]
        pub sequence: u32,
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub service_id: String,
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub start: String,
        /// Absent only for an open-ended booking not yet ended (§4.2).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::DateTime>"
        )]
        pub end: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_true"
        )]
        pub open_end: Option<bool>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub price: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub total: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_non_empty"
        )]
        pub lines: Option<Vec<PriceLine>>,
        /// The contract's hash; `null` for a booking made outside SchCP (§5.3).
        #[serde(deserialize_with = "de::nullable_string::<_, de::k::B64Sha256>")]
        pub offer_sha256: Option<String>,
        pub event: Event,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub place: Option<Place>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_positive"
        )]
        pub party_size: Option<u32>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub reconfirm: Option<Reconfirm>,
        /// Why the host declined, cancelled or let it lapse (§9.2).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub refusal: Option<Refusal>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub proposal: Option<Proposal>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub declined_change: Option<DeclinedChange>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub answer: Option<Answer>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub meeting: Option<BookingMeeting>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub participants: Option<Vec<Participant>>,
    }
    check = Booking::check;
}

impl Booking {
    /// §4.2: `open_end: true`.
    pub fn is_open_ended(&self) -> bool {
        self.open_end == Some(true)
    }

    fn check(&self) -> Result<(), &'static str> {
        check_money(self.price.is_some(), self.total.is_some(), self.lines.is_some())?;
        if !self.is_open_ended() && self.end.is_none() {
            return Err("a booking that is not open-ended has an end");
        }
        Ok(())
    }
}

wire! {
    /// What every operation that returns a booking returns (§5.3).
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct BookingResponse {
        pub booking: Booking,
        /// Compact `schcp-receipt+jwt`.
        #[serde(deserialize_with = "de::string::<_, de::k::CompactJws>")]
        pub receipt: String,
        /// The booking's current contract (compact `schcp-offer+jwt`).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::CompactJws>"
        )]
        pub offer: Option<String>,
        /// A meeting's contract (compact `schcp-meeting+jwt`).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::CompactJws>"
        )]
        pub contract: Option<String>,
        /// A revision awaiting every member's yes (§5.12).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::CompactJws>"
        )]
        pub pending_contract: Option<String>,
    }
}

/// A hold's state (§6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HoldStatus {
    Held,
    Released,
    Expired,
    /// Consumed by a confirm.
    Confirmed,
}

wire! {
    /// A hold (§5.2), as POST, GET and DELETE /holds return it. Requires the offer.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct Hold {
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub hold_id: String,
        pub status: HoldStatus,
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub service_id: String,
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub start: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::DateTime>"
        )]
        pub end: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_true"
        )]
        pub open_end: Option<bool>,
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub expires_at: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub price: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub total: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_positive"
        )]
        pub party_size: Option<u32>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub place: Option<Place>,
        /// The host's signed terms (compact `schcp-offer+jwt`).
        #[serde(deserialize_with = "de::string::<_, de::k::CompactJws>")]
        pub offer: String,
    }
    check = Hold::check;
}

impl Hold {
    /// §4.2: `open_end: true`.
    pub fn is_open_ended(&self) -> bool {
        self.open_end == Some(true)
    }

    fn check(&self) -> Result<(), &'static str> {
        if self.price.is_some() && self.total.is_none() {
            return Err("a hold with a price states the total");
        }
        if self.is_open_ended() == self.end.is_some() {
            return Err("end is present exactly when open_end is not");
        }
        Ok(())
    }
}
