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
    /// `pending_host`: waiting for the host to approve or decline (§2.1 `host_approval`).
    PendingHost,
    /// `tentative`: occupying its time until every required participant accepts (§5.10).
    Tentative,
    /// `confirmed`.
    Confirmed,
    /// `declined` by the host.
    Declined,
    /// `expired`: an approval or answer did not come in time.
    Expired,
    /// `cancelled`.
    Cancelled,
    /// `completed`: it took place.
    Completed,
    /// `no_show`: the guest did not come.
    NoShow,
}

/// JSCalendar `@type` of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum EventType {
    /// `Event`, the only value.
    #[default]
    Event,
}

/// JSCalendar `@type` of a location.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum LocationType {
    /// `Location`, the only value.
    #[default]
    Location,
}

/// RFC 8984 event status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventStatus {
    /// `confirmed`.
    Confirmed,
    /// `tentative`.
    Tentative,
    /// `cancelled`.
    Cancelled,
}

wire! {
    /// RFC 8984 Location: the place's name and address on one line (§5.2).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct EventLocation {
        /// The JSCalendar `@type`.
        #[serde(rename = "@type")]
        pub type_: LocationType,
        /// The place's name and address on one line.
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
        /// The JSCalendar `@type`.
        #[serde(rename = "@type")]
        pub type_: EventType,
        /// The event's stable id, the same across changes (RFC 8984 `uid`).
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub uid: String,
        /// LocalDateTime, read in `time_zone`.
        #[serde(deserialize_with = "de::string::<_, de::k::LocalDateTime>")]
        pub start: String,
        #[serde(
            rename = "timeZone",
            deserialize_with = "de::string::<_, de::k::TimeZone>"
        )]
        /// The IANA zone the local `start` is in (RFC 8984 `timeZone`).
        pub time_zone: String,
        /// The booked length; for an open-ended booking, the time set aside (§4.2).
        #[serde(deserialize_with = "de::string::<_, de::k::Duration>")]
        pub duration: String,
        /// The event's title (host-supplied).
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub title: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// A description (host-supplied).
        pub description: Option<String>,
        /// Increases each time the event changes (RFC 8984 `sequence`).
        #[serde(deserialize_with = "de::count")]
        pub sequence: u32,
        /// UTCDateTime.
        #[serde(deserialize_with = "de::string::<_, de::k::UtcDateTime>")]
        pub updated: String,
        /// The event's status (RFC 8984).
        pub status: EventStatus,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Where, by location id (RFC 8984 `locations`).
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
        /// `person` or `rule` (§7.9).
        pub by: AnsweredBy,
        /// The rule's label, when `by` is `rule`.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        pub rule: Option<String>,
        /// When they answered (RFC 3339).
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
    /// Not answered yet.
    Pending,
    /// Said yes.
    Accepted,
    /// Said no.
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
        /// Their name, as the booker gave it.
        pub name: Option<String>,
        /// Whether they must answer or are only named (§5.10).
        pub role: ParticipantRole,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// How they relate to the person (e.g. `child`), as the person wrote it.
        pub relationship: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Duration>"
        )]
        /// How long they have to answer (ISO 8601 duration).
        pub confirm_within: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::DateTime>"
        )]
        /// Their answer deadline (RFC 3339).
        pub confirm_by: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// What silence does at the deadline (§5.10).
        pub default: Option<ReconfirmDefault>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Where their answer stands.
        pub status: Option<ParticipantStatus>,
    }
    check = Participant::check;
}

impl Participant {
    /// The booker as their booking names them (§5.10): nothing to answer.
    pub fn booker(who: String, name: Option<String>) -> Participant {
        Participant {
            who: Some(who),
            name,
            role: ParticipantRole::Booker,
            relationship: None,
            confirm_within: None,
            confirm_by: None,
            default: None,
            status: Some(ParticipantStatus::NotRequired),
        }
    }

    /// An invitee who has yet to answer (§5.10), within `confirm_within` and by
    /// `confirm_by`; `default` is what their silence does at the deadline.
    pub fn invitee(
        who: String,
        confirm_within: String,
        confirm_by: Option<String>,
        default: ReconfirmDefault,
    ) -> Participant {
        Participant {
            who: Some(who),
            name: None,
            role: ParticipantRole::Invitee,
            relationship: None,
            confirm_within: Some(confirm_within),
            confirm_by,
            default: Some(default),
            status: Some(ParticipantStatus::Pending),
        }
    }

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
        /// The revision awaiting this member's answer.
        #[serde(deserialize_with = "de::positive")]
        pub revision: u32,
        /// Its §5.12 hash.
        #[serde(deserialize_with = "de::string::<_, de::k::B64Sha256>")]
        pub contract_sha256: String,
        /// When it lapses unanswered (RFC 3339).
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub expires_at: String,
        /// Whether this member has answered it.
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
        /// The meeting's id, the same across revisions (§5.12).
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub meeting_id: String,
        /// The revision this booking is under.
        #[serde(deserialize_with = "de::positive")]
        pub revision: u32,
        /// The §5.12 hash of the meeting contract (base64url SHA-256 of the compact JWS).
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
        /// A newer revision this member has not yet answered.
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
        /// The declined proposal, when it was one (§5.8).
        pub proposal_id: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_positive"
        )]
        /// The declined meeting revision, when it was one (§5.12).
        pub revision: Option<u32>,
        /// The start that was declined.
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub start: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The place that was declined.
        pub place: Option<Place>,
        /// Why it was declined (§9.2).
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
    /// The guest's agent.
    Guest,
    /// The host.
    Host,
}

wire! {
    /// An open change offer, or a guest's accepted move awaiting the host (§5.7, §5.8).
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct Proposal {
        /// The proposal's id (§5.8).
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub proposal_id: String,
        /// The proposed start (RFC 3339).
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub start: String,
        /// Absent for an open-ended booking.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::DateTime>"
        )]
        pub end: Option<String>,
        /// When it lapses (RFC 3339).
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub expires_at: String,
        /// Who proposed it (§5.7, §5.8).
        pub by: ProposedBy,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The proposed place.
        pub place: Option<Place>,
        /// The change offer (compact `schcp-offer+jwt`).
        #[serde(deserialize_with = "de::string::<_, de::k::CompactJws>")]
        pub offer: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// `true` while the host has not answered the guest's proposal.
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
        /// The host's booking id.
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub booking_id: String,
        /// Its state (§6).
        pub status: BookingStatus,
        /// Increases each time the booking changes.
        #[serde(deserialize_with = "de::count")]
        pub sequence: u32,
        /// The service id from the host's discovery document.
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub service_id: String,
        /// The start (RFC 3339 date-time with offset).
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
        /// `true` when it has no end (§4.2).
        pub open_end: Option<bool>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The stated price (§5.2).
        pub price: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The all-in total (§5.2).
        pub total: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_non_empty"
        )]
        /// The lines the total is the exact sum of (§5.2).
        pub lines: Option<Vec<PriceLine>>,
        /// The contract's hash; `null` for a booking made outside SchCP (§5.3).
        #[serde(deserialize_with = "de::nullable_string::<_, de::k::B64Sha256>")]
        pub offer_sha256: Option<String>,
        /// The calendar event (JSCalendar subset).
        pub event: Event,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Where, when not at the host's (§5.2 "Place").
        pub place: Option<Place>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_positive"
        )]
        /// How many people (§4.1).
        pub party_size: Option<u32>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The reconfirmation it needs (§5.10).
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
        /// A change proposed and not yet answered (§5.7, §5.8).
        pub proposal: Option<Proposal>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The last change that was declined.
        pub declined_change: Option<DeclinedChange>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Who answered for the calendar owner, and how (§7.9).
        pub answer: Option<Answer>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The meeting it is part of (§5.12).
        pub meeting: Option<BookingMeeting>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The participants named or asked to answer (§5.10).
        pub participants: Option<Vec<Participant>>,
    }
    check = Booking::check;
}

impl Booking {
    /// The booking `offer` becomes (§5.3): its service, slot, price and place
    /// as the offer states them, nothing answered, proposed or refused yet.
    pub fn of_offer(
        booking_id: String,
        status: BookingStatus,
        sequence: u32,
        offer: &super::OfferClaims,
        offer_sha256: Option<String>,
        event: Event,
    ) -> Booking {
        Booking {
            booking_id,
            status,
            sequence,
            service_id: offer.service.id.clone(),
            start: offer.slot.start.clone(),
            end: offer.slot.end.clone(),
            open_end: offer.open_end,
            price: offer.price.clone(),
            total: offer.total.clone(),
            lines: offer.lines.clone(),
            offer_sha256,
            event,
            place: offer.place.clone(),
            party_size: offer.party_size,
            reconfirm: offer.reconfirm.clone(),
            refusal: None,
            proposal: None,
            declined_change: None,
            answer: None,
            meeting: None,
            participants: None,
        }
    }

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
        /// The booking.
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
    /// Held until it expires or is confirmed.
    Held,
    /// Released by the agent.
    Released,
    /// Expired unconfirmed.
    Expired,
    /// Consumed by a confirm.
    Confirmed,
}

wire! {
    /// A hold (§5.2), as POST, GET and DELETE /holds return it. Requires the offer.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct Hold {
        /// The host's hold id.
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub hold_id: String,
        /// Its state (§6).
        pub status: HoldStatus,
        /// The service id from the host's discovery document.
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub service_id: String,
        /// The start (RFC 3339 date-time with offset).
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub start: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::DateTime>"
        )]
        /// The end (RFC 3339); absent when open-ended (§4.2).
        pub end: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_true"
        )]
        /// `true` when it has no end (§4.2).
        pub open_end: Option<bool>,
        /// When the hold lapses unconfirmed (RFC 3339).
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub expires_at: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The stated price (§5.2).
        pub price: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The all-in total (§5.2).
        pub total: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_positive"
        )]
        /// How many people (§4.1).
        pub party_size: Option<u32>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Where, when not at the host's (§5.2 "Place").
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
