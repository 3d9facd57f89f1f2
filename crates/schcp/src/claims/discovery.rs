//! Discovery (§2.1) and operator (§2.3) documents. Not signed and OPEN: members SchCP
//! does not define are ignored, at every depth; the members it defines are typed. The
//! value types inside them (`Money`, the keys' JWK) stay closed.

use serde::{Deserialize, Serialize};

use crate::jwk::Jwk;

use super::{de, wire, HostKind, Money, ReconfirmDefault, Weekday};

wire! {
    /// A host's address in discovery (§2.1).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct PostalAddress {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The place's name.
        pub name: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Street address.
        pub street: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// City or town.
        pub locality: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Province, state or region.
        pub region: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Postal code.
        pub postal_code: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Country>"
        )]
        /// ISO 3166-1 alpha-2 country code.
        pub country: Option<String>,
    }
}

wire! {
    /// `host` of a discovery document.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct DiscoveryHost {
        /// The host id, which its JWS `iss` and mandates' `aud` name (§2.1).
        #[serde(deserialize_with = "de::string::<_, de::k::HostId>")]
        pub id: String,
        /// The host's name (host-supplied, shown inert).
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub name: String,
        /// `business` (the default) or `person` (§7.7).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub kind: Option<HostKind>,
        /// The host's IANA zone.
        #[serde(deserialize_with = "de::string::<_, de::k::TimeZone>")]
        pub timezone: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Uri>"
        )]
        /// The host's web page.
        pub url: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// The host's phone number.
        pub phone: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The host's postal address.
        pub address: Option<PostalAddress>,
    }
}

wire! {
    /// `operator` of a discovery document (§2.2 rule 2).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct OperatorRef {
        /// The operator's domain, whose document must list this host (§2.2 rule 2).
        #[serde(deserialize_with = "de::string::<_, de::k::Hostname>")]
        pub domain: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// The operator's name.
        pub name: Option<String>,
    }
}

wire! {
    /// One resource a service requires (§4.1).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Requirement {
        /// A resource type (`bay`, `technician`, `chair`).
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub resource_type: String,
        /// May be met by several resources whose capacities add up (§4.1).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub combine: Option<bool>,
    }
}

wire! {
    /// `booking_window.opens` (§5.2 "Release schedules").
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct ReleaseSchedule {
        /// How many days ahead slots open.
        #[serde(deserialize_with = "de::count")]
        pub days_ahead: u32,
        /// Local `HH:MM`.
        #[serde(deserialize_with = "de::string::<_, de::k::LocalTime>")]
        pub at: String,
    }
}

wire! {
    /// `booking_window` of a service.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct BookingWindow {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Duration>"
        )]
        /// The least notice a booking needs (ISO 8601 duration).
        pub min_notice: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Duration>"
        )]
        /// How far ahead it can be booked (ISO 8601 duration).
        pub max_advance: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// When new slots open.
        pub opens: Option<ReleaseSchedule>,
    }
}

/// Where a service happens (§5.2 "Place").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Location {
    /// At the host's own place.
    #[default]
    Host,
    /// At the guest's place.
    Guest,
    /// Somewhere else, named in the offer's `place`.
    Elsewhere,
}

wire! {
    /// `party_size` of a service (§4.1).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct PartySizeRange {
        /// The smallest party.
        #[serde(deserialize_with = "de::positive")]
        pub min: u32,
        /// The largest party.
        #[serde(deserialize_with = "de::positive")]
        pub max: u32,
    }
}

/// Who a service admits (§5.2 "Eligibility").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GuestKind {
    /// Guests who have booked before.
    Returning,
    /// New guests.
    New,
}

wire! {
    /// `eligibility` of a service.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct Eligibility {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Only returning or only new guests.
        pub guest: Option<GuestKind>,
    }
}

wire! {
    /// A mandatory fee of a service (§5.2), an amount or a percentage. Percentages are the
    /// exact decimals written (§2.1): read them from the number's text, never as a float.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Fee {
        /// What the host calls it (shown inert).
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub label: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// A fixed amount.
        pub amount: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_percent"
        )]
        /// A percentage of the price, as its JSON number literal (§2.1).
        pub percent: Option<serde_json::Number>,
    }
}

/// When a surcharge applies (§5.2 "Surcharges").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SurchargeWhen {
    /// Booked for the same day.
    SameDay,
    /// On a weekend.
    Weekend,
    /// Outside business hours.
    AfterHours,
}

wire! {
    /// A surcharge of a service (§5.2): a price for the time booked.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Surcharge {
        /// When it applies.
        pub when: SurchargeWhen,
        /// What the host calls it (shown inert).
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub label: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// A fixed amount.
        pub amount: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_percent"
        )]
        /// A percentage of the price, as its JSON number literal (§2.1).
        pub percent: Option<serde_json::Number>,
        /// For `after_hours`: from this local time (default 17:00).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::LocalTime>"
        )]
        pub after: Option<String>,
    }
}

/// `price_per` of a service (§4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PricePer {
    /// Per person in the party.
    Person,
}

wire! {
    /// A service in discovery (§2.1, §4, §5.2).
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Service {
        /// The service id, which constraints and offers name.
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub id: String,
        /// The service's name (host-supplied).
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub name: String,
        /// A duration, or `open` (§4.2).
        #[serde(deserialize_with = "de::string::<_, de::k::ServiceDuration>")]
        pub duration: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Duration>"
        )]
        /// Time kept free after it (ISO 8601 duration).
        pub buffer_after: Option<String>,
        /// An open-ended service's set-aside: a duration or `until_close` (§4.2).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::SetAside>"
        )]
        pub set_aside: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Its base price (§4.1).
        pub price: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// What the price is per, when not per booking.
        pub price_per: Option<PricePer>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Resources it needs (§4.1).
        pub requires: Option<Vec<Requirement>>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Whether the guest may pick the resource.
        pub selectable: Option<bool>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// How soon and how far ahead it can be booked.
        pub booking_window: Option<BookingWindow>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Where it happens.
        pub location: Option<Location>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The party sizes it takes.
        pub party_size: Option<PartySizeRange>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Who it admits.
        pub eligibility: Option<Eligibility>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// `true` when no tax applies.
        pub tax_exempt: Option<bool>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Mandatory fees (§5.2).
        pub fees: Option<Vec<Fee>>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Surcharges (§5.2).
        pub surcharges: Option<Vec<Surcharge>>,
    }
}

wire! {
    /// `policies.holds` (§7.1, §7.2).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct HoldPolicy {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Duration>"
        )]
        /// The longest a hold lasts (ISO 8601 duration).
        pub max_ttl: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_count"
        )]
        /// Active holds one agent key may have.
        pub max_active_per_agent: Option<u32>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Whether a hold needs a mandate.
        pub requires_mandate: Option<bool>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_count"
        )]
        /// Active holds across agents without an attestation (§7.5).
        pub max_active_unproven: Option<u32>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_count"
        )]
        /// Active holds per attester (§7.5).
        pub max_active_per_attester: Option<u32>,
    }
}

/// `policies.confirmation` (§2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Confirmation {
    /// A booking is confirmed at once.
    Instant,
    /// The host approves each booking (`pending_host`, §6).
    HostApproval,
}

/// `policies.closed_mandate` (§2.1, §5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClosedMandatePolicy {
    /// The host accepts open mandates.
    #[default]
    Never,
    /// The host asks for a closed mandate on every booking (§5.3).
    Always,
}

/// `policies.access` (§7.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Anyone's agent may book.
    #[default]
    Public,
    /// Only the calendar owner's contacts may book (§7.8).
    Contacts,
}

wire! {
    /// `policies.reconfirm` (§5.10), repeated in every offer as `reconfirm`.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct ReconfirmPolicy {
        /// How long before the start the guest must reconfirm (ISO 8601 duration).
        #[serde(deserialize_with = "de::string::<_, de::k::Duration>")]
        pub before: String,
        /// What silence does at the deadline: `release` (§5.10).
        pub default: ReconfirmDefault,
    }
}

wire! {
    /// `policies.tentative` (§5.10).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct TentativePolicy {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Duration>"
        )]
        /// The longest a participant may be given to answer (§5.10).
        pub max_confirm_within: Option<String>,
    }
}

wire! {
    /// `policies.waitlist` (§5.9).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct WaitlistPolicy {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Duration>"
        )]
        /// How long a waitlist offer stays open (§5.9).
        pub offer_ttl: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_count"
        )]
        /// Waitlist entries one agent key may have.
        pub max_entries_per_agent: Option<u32>,
    }
}

/// `policies.data.free_text_notes` (§5.3 "Free text").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FreeTextNotes {
    /// Free-text notes are accepted.
    Accept,
    /// Free-text notes are refused.
    Refuse,
}

wire! {
    /// `policies.data` (§5.3 "Free text").
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct DataPolicy {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Whether free-text notes are accepted (§5.3 "Free text").
        pub free_text_notes: Option<FreeTextNotes>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Uri>"
        )]
        /// Where the host collects anything else it needs.
        pub intake_url: Option<String>,
    }
}

wire! {
    /// `policies.service_area` (§5.2 "Place").
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct ServiceArea {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Country>"
        )]
        /// ISO 3166-1 alpha-2 country code.
        pub country: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Postal code prefixes served.
        pub postal_prefixes: Option<Vec<String>>,
    }
}

wire! {
    /// `policies.walk_in_reserve` (§7.2).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct WalkInReserve {
        /// A resource type (`bay`, `technician`, `chair`).
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub resource_type: String,
        /// How many it keeps for walk-ins.
        #[serde(deserialize_with = "de::count")]
        pub keep: u32,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The days it does, when not every day.
        pub days: Option<Vec<Weekday>>,
    }
}

wire! {
    /// A host's policies (§2.1). `retention` is required.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Policies {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Hold limits.
        pub holds: Option<HoldPolicy>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Instant confirmation or host approval.
        pub confirmation: Option<Confirmation>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Whether every booking needs a closed mandate (§5.3).
        pub closed_mandate: Option<ClosedMandatePolicy>,
        /// How long the host keeps a booking's data (ISO 8601 duration, whole days).
        #[serde(deserialize_with = "de::string::<_, de::k::Retention>")]
        pub retention: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Who may book (§7.8).
        pub access: Option<Access>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Reconfirmation the host asks for (§5.10).
        pub reconfirm: Option<ReconfirmPolicy>,
        /// How long a host_approval host takes to answer a move (§5.7; default two hours).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Duration>"
        )]
        pub approval_timeout: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Tentative bookings (§5.10).
        pub tentative: Option<TentativePolicy>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The waitlist (§5.9).
        pub waitlist: Option<WaitlistPolicy>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// What data the host accepts.
        pub data: Option<DataPolicy>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Where a service at the guest's is offered.
        pub service_area: Option<ServiceArea>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Resources kept back for walk-ins.
        pub walk_in_reserve: Option<WalkInReserve>,
    }
}

wire! {
    /// `auth` (§3.2, §3.4).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct Auth {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// The request-signing scheme (`rfc9421-ed25519`, §3.2).
        pub request_signing: Option<String>,
        /// Mandate formats accepted: `schcp-mandate+jwt`, `dc+sd-jwt`.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_strings::<_, de::k::Text>"
        )]
        pub mandates: Option<Vec<String>>,
    }
}

wire! {
    /// An attester a host honours (§7.5).
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Attester {
        /// The attester's id, an attestation's `iss` (§7.5).
        #[serde(deserialize_with = "de::string::<_, de::k::HostId>")]
        pub id: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// The attester's name.
        pub name: Option<String>,
        /// The keys its attestations verify with.
        #[serde(deserialize_with = "de::ed25519_jwks")]
        pub keys: Vec<Jwk>,
    }
}

wire! {
    /// `trust` (§7.5).
    #[derive(Debug, Clone, PartialEq, Eq, Default)]
    pub struct Trust {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Attesters whose attestations the host accepts (§7.5).
        pub attesters: Option<Vec<Attester>>,
    }
}

wire! {
    /// A sibling location of a brand (§2.4).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct BrandLocation {
        /// The location's host id.
        #[serde(deserialize_with = "de::string::<_, de::k::HostId>")]
        pub host_id: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// The location's name.
        pub name: Option<String>,
        /// The URL of its discovery document (§2.1).
        #[serde(deserialize_with = "de::string::<_, de::k::Uri>")]
        pub discovery: String,
    }
}

wire! {
    /// `brand` (§2.4): a claim that proves nothing until the siblings confirm it.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Brand {
        /// The brand's id.
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub id: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// The brand's name.
        pub name: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Its locations.
        pub locations: Option<Vec<BrandLocation>>,
    }
}

wire! {
    /// A discovery document, `/.well-known/scheduling.json` (§2.1). Open.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Discovery {
        /// The protocol version, `0.4`.
        #[serde(deserialize_with = "de::string::<_, de::k::Version>")]
        pub schcp: String,
        /// Who the host is.
        pub host: DiscoveryHost,
        /// The endpoint, authorized only as §2.2 says.
        #[serde(deserialize_with = "de::string::<_, de::k::Uri>")]
        pub endpoint: String,
        /// `null` or absent for a host without an operator.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub operator: Option<OperatorRef>,
        /// The host's signing keys, each with a kid unique in the document (§2.1).
        #[serde(deserialize_with = "de::discovery_keys")]
        pub keys: Vec<Jwk>,
        /// What it offers.
        pub services: Vec<Service>,
        /// Its policies.
        pub policies: Policies,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_strings::<_, de::k::Id>"
        )]
        /// The protocol features it supports (§2.1).
        pub capabilities: Option<Vec<String>>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// How requests are signed and which mandate formats it takes.
        pub auth: Option<Auth>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// Attesters it trusts.
        pub trust: Option<Trust>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The brand it belongs to.
        pub brand: Option<Brand>,
    }
}

impl Discovery {
    /// The key with this kid; a JWS whose kid names no key is refused (§2.1).
    pub fn key(&self, kid: &str) -> Option<&Jwk> {
        self.keys.iter().find(|k| k.kid.as_deref() == Some(kid))
    }
}

wire! {
    /// `operator` of an operator document (§2.3).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct OperatorInfo {
        /// The operator's name.
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub name: String,
        /// The operator's domain.
        #[serde(deserialize_with = "de::string::<_, de::k::Hostname>")]
        pub domain: String,
    }
}

wire! {
    /// A host an operator serves (§2.3).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct OperatorHost {
        /// The host id.
        #[serde(deserialize_with = "de::string::<_, de::k::HostId>")]
        pub id: String,
        /// The URL of its discovery document (§2.1).
        #[serde(deserialize_with = "de::string::<_, de::k::Uri>")]
        pub discovery: String,
        /// The host's own domain; `null` for a host without one (a person, §7.7).
        #[serde(deserialize_with = "de::nullable_string::<_, de::k::Hostname>")]
        pub host_domain: Option<String>,
    }
}

wire! {
    /// An operator document (§2.3). Open.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct OperatorDocument {
        /// The protocol version, `0.4`.
        #[serde(deserialize_with = "de::string::<_, de::k::Version>")]
        pub schcp: String,
        /// Who the operator is.
        pub operator: OperatorInfo,
        /// The hosts it serves (§2.3).
        pub hosts: Vec<OperatorHost>,
    }
}
