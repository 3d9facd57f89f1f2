//! Offers (§5.2) and change offers (§5.7): the host's signed terms, the contract a
//! booking stands on.

use serde::{Deserialize, Serialize};

use super::{de, wire, Money, Place};

/// A booking offer or a change offer (§5.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OfferKind {
    /// A new booking of a held slot (§5.2).
    Booking,
    /// A change to an existing booking (§5.7).
    Change,
}

/// A business, or a person's own calendar (§7.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostKind {
    /// A business.
    #[default]
    Business,
    /// A person's own calendar.
    Person,
}

wire! {
    /// Who the host is, as the offer states it (§5.2). The domain shown to a person is the
    /// one the key app discovered, never this one (§5.2).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct HostInfo {
        /// The host's name (host-supplied, shown inert).
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub name: String,
        /// IANA time zone the slot is rendered in.
        #[serde(deserialize_with = "de::string::<_, de::k::TimeZone>")]
        pub tz: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Hostname>"
        )]
        /// The domain the host claims; never shown in place of the discovered one (§5.2).
        pub domain: Option<String>,
        /// A one-line postal address.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        pub address: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// A business or a person's calendar (§7.7).
        pub kind: Option<HostKind>,
        /// A person's calendar names its owner's principal (§5.2, §5.12).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::PrincipalId>"
        )]
        pub owner: Option<String>,
    }
    check = HostInfo::check;
}

impl HostInfo {
    fn check(&self) -> Result<(), &'static str> {
        if self.kind == Some(HostKind::Person) && self.owner.is_none() {
            return Err("a person's calendar names its owner");
        }
        Ok(())
    }
}

wire! {
    /// The service the offer is for.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct ServiceRef {
        /// The service id.
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub id: String,
        /// The service's name.
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub name: String,
    }
}

wire! {
    /// The offered time (§5.2); `{ start }` only for an open-ended booking (§4.2).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct Slot {
        /// The slot's start.
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub start: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::DateTime>"
        )]
        /// The end (RFC 3339); absent when open-ended (§4.2).
        pub end: Option<String>,
    }
}

/// What a price line is (§5.2): never a cancellation, change or no-show fee.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// The service itself.
    Service,
    /// A mandatory fee (`service.fees`), or the extra work of an extension (§5.8).
    Fee,
    /// A price for the time booked (§5.2 "Surcharges").
    Surcharge,
    /// A tax.
    Tax,
}

wire! {
    /// One line of the all-in total (§5.2).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct PriceLine {
        /// What kind of line.
        pub kind: LineKind,
        /// What the host calls it (shown inert).
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub label: String,
        /// Its amount, in the total's currency (§2.1).
        pub amount: Money,
    }
}

/// What silence does at the reconfirmation deadline (§5.10): only `release`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReconfirmDefault {
    /// The slot is released.
    #[default]
    Release,
}

wire! {
    /// The guest must reconfirm `before` the start, or the booking lapses (§5.10).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct Reconfirm {
        /// How long before the start the guest must reconfirm (ISO 8601 duration).
        #[serde(deserialize_with = "de::string::<_, de::k::Duration>")]
        pub before: String,
        /// What silence does at the deadline: `release` (§5.10).
        pub default: ReconfirmDefault,
    }
}

wire! {
    /// Claims of a `schcp-offer+jwt` (§5.2, §5.7). Closed at every depth: a term SchCP
    /// does not define is never put before the human.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct OfferClaims {
        /// The protocol version, `0.4`.
        #[serde(deserialize_with = "de::string::<_, de::k::Version>")]
        pub v: String,
        /// A booking offer or a change offer (§5.7).
        pub kind: OfferKind,
        /// The host id.
        #[serde(deserialize_with = "de::string::<_, de::k::HostId>")]
        pub iss: String,
        /// The hold this offer is for (booking offers).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Id>"
        )]
        pub hold_id: Option<String>,
        /// The booking a change offer changes (§5.7).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Id>"
        )]
        pub booking_id: Option<String>,
        /// A change offer's link to the booking's current contract (§5.7 hash chain).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::B64Sha256>"
        )]
        pub prev: Option<String>,
        /// When it was issued (NumericDate).
        #[serde(deserialize_with = "de::numeric_date")]
        pub iat: i64,
        /// When the offer lapses (NumericDate).
        #[serde(deserialize_with = "de::numeric_date")]
        pub exp: i64,
        /// SHOULD be present (§5.2); key apps fall back to `iss` without it.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub host: Option<HostInfo>,
        /// The service offered.
        pub service: ServiceRef,
        /// When.
        pub slot: Slot,
        /// §4.2: an open-ended booking; its slot has no end.
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
        /// The stated price (§5.2).
        pub price: Option<Money>,
        /// The all-in total, which `max_price` binds (§5.2).
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
        /// The lines the total is the exact sum of (§5.2).
        pub lines: Option<Vec<PriceLine>>,
        /// How long the host keeps the records (§2.1), part of the contract.
        #[serde(deserialize_with = "de::string::<_, de::k::Retention>")]
        pub retention: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The reconfirmation it asks for (§5.10).
        pub reconfirm: Option<Reconfirm>,
        /// The resource the guest chose, and what people call it.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Id>"
        )]
        pub resource: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// The resource's name (host-supplied).
        pub resource_name: Option<String>,
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
        /// The latest time a host_approval host will answer.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::DateTime>"
        )]
        pub approval_by: Option<String>,
    }
    check = OfferClaims::check;
}

impl OfferClaims {
    /// §4.2: `open_end: true`.
    pub fn is_open_ended(&self) -> bool {
        self.open_end == Some(true)
    }

    fn check(&self) -> Result<(), &'static str> {
        // §5.2: price, total and lines come together; lines alone is invalid.
        check_money(self.price.is_some(), self.total.is_some(), self.lines.is_some())?;
        // §4.2: an open-ended offer's slot is { start } only; any other has an end.
        if self.is_open_ended() == self.slot.end.is_some() {
            return Err("slot.end is present exactly when open_end is not");
        }
        // §5.7: a change offer names its booking and the hash it extends.
        match self.kind {
            OfferKind::Change if self.booking_id.is_none() || self.prev.is_none() => {
                Err("a change offer carries booking_id and prev")
            }
            OfferKind::Booking if self.hold_id.is_none() => Err("a booking offer carries hold_id"),
            OfferKind::Booking if self.booking_id.is_some() || self.prev.is_some() => {
                Err("booking_id and prev belong to change offers")
            }
            _ => Ok(()),
        }
    }
}

/// §5.2: price needs total and lines; total and lines need each other.
pub(crate) fn check_money(price: bool, total: bool, lines: bool) -> Result<(), &'static str> {
    if (price && !total) || total != lines {
        return Err(
            "price, total and lines come together: price needs total and lines, total and lines need each other",
        );
    }
    Ok(())
}
