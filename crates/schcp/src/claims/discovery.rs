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
        pub name: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub street: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub locality: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub region: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub postal_code: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Country>"
        )]
        pub country: Option<String>,
    }
}

wire! {
    /// `host` of a discovery document.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct DiscoveryHost {
        #[serde(deserialize_with = "de::string::<_, de::k::HostId>")]
        pub id: String,
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub name: String,
        /// `business` (the default) or `person` (§7.7).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub kind: Option<HostKind>,
        #[serde(deserialize_with = "de::string::<_, de::k::TimeZone>")]
        pub timezone: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Uri>"
        )]
        pub url: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        pub phone: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub address: Option<PostalAddress>,
    }
}

wire! {
    /// `operator` of a discovery document (§2.2 rule 2).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct OperatorRef {
        #[serde(deserialize_with = "de::string::<_, de::k::Hostname>")]
        pub domain: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        pub name: Option<String>,
    }
}

wire! {
    /// One resource a service requires (§4.1).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Requirement {
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
        pub min_notice: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Duration>"
        )]
        pub max_advance: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub opens: Option<ReleaseSchedule>,
    }
}

/// Where a service happens (§5.2 "Place").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Location {
    #[default]
    Host,
    Guest,
    Elsewhere,
}

wire! {
    /// `party_size` of a service (§4.1).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct PartySizeRange {
        #[serde(deserialize_with = "de::positive")]
        pub min: u32,
        #[serde(deserialize_with = "de::positive")]
        pub max: u32,
    }
}

/// Who a service admits (§5.2 "Eligibility").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GuestKind {
    Returning,
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
        pub guest: Option<GuestKind>,
    }
}

wire! {
    /// A mandatory fee of a service (§5.2), an amount or a percentage. Percentages are the
    /// exact decimals written (§2.1): read them from the number's text, never as a float.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Fee {
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub label: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub amount: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_percent"
        )]
        pub percent: Option<serde_json::Number>,
    }
}

/// When a surcharge applies (§5.2 "Surcharges").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SurchargeWhen {
    SameDay,
    Weekend,
    AfterHours,
}

wire! {
    /// A surcharge of a service (§5.2): a price for the time booked.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Surcharge {
        pub when: SurchargeWhen,
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub label: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub amount: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_percent"
        )]
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
    Person,
}

wire! {
    /// A service in discovery (§2.1, §4, §5.2).
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Service {
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub id: String,
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
        pub price: Option<Money>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub price_per: Option<PricePer>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub requires: Option<Vec<Requirement>>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub selectable: Option<bool>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub booking_window: Option<BookingWindow>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub location: Option<Location>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub party_size: Option<PartySizeRange>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub eligibility: Option<Eligibility>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub tax_exempt: Option<bool>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub fees: Option<Vec<Fee>>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
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
        pub max_ttl: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_count"
        )]
        pub max_active_per_agent: Option<u32>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub requires_mandate: Option<bool>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_count"
        )]
        pub max_active_unproven: Option<u32>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_count"
        )]
        pub max_active_per_attester: Option<u32>,
    }
}

/// `policies.confirmation` (§2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Confirmation {
    Instant,
    HostApproval,
}

/// `policies.closed_mandate` (§2.1, §5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClosedMandatePolicy {
    #[default]
    Never,
    Always,
}

/// `policies.access` (§7.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    #[default]
    Public,
    Contacts,
}

wire! {
    /// `policies.reconfirm` (§5.10), repeated in every offer as `reconfirm`.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct ReconfirmPolicy {
        #[serde(deserialize_with = "de::string::<_, de::k::Duration>")]
        pub before: String,
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
        pub offer_ttl: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_count"
        )]
        pub max_entries_per_agent: Option<u32>,
    }
}

/// `policies.data.free_text_notes` (§5.3 "Free text").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FreeTextNotes {
    Accept,
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
        pub free_text_notes: Option<FreeTextNotes>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Uri>"
        )]
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
        pub country: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub postal_prefixes: Option<Vec<String>>,
    }
}

wire! {
    /// `policies.walk_in_reserve` (§7.2).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct WalkInReserve {
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub resource_type: String,
        #[serde(deserialize_with = "de::count")]
        pub keep: u32,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
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
        pub holds: Option<HoldPolicy>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub confirmation: Option<Confirmation>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub closed_mandate: Option<ClosedMandatePolicy>,
        #[serde(deserialize_with = "de::string::<_, de::k::Retention>")]
        pub retention: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub access: Option<Access>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
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
        pub tentative: Option<TentativePolicy>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub waitlist: Option<WaitlistPolicy>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub data: Option<DataPolicy>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub service_area: Option<ServiceArea>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
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
        #[serde(deserialize_with = "de::string::<_, de::k::HostId>")]
        pub id: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        pub name: Option<String>,
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
        pub attesters: Option<Vec<Attester>>,
    }
}

wire! {
    /// A sibling location of a brand (§2.4).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct BrandLocation {
        #[serde(deserialize_with = "de::string::<_, de::k::HostId>")]
        pub host_id: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        pub name: Option<String>,
        #[serde(deserialize_with = "de::string::<_, de::k::Uri>")]
        pub discovery: String,
    }
}

wire! {
    /// `brand` (§2.4): a claim that proves nothing until the siblings confirm it.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Brand {
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub id: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        pub name: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub locations: Option<Vec<BrandLocation>>,
    }
}

wire! {
    /// A discovery document, `/.well-known/scheduling.json` (§2.1). Open.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Discovery {
        #[serde(deserialize_with = "de::string::<_, de::k::Version>")]
        pub schcp: String,
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
        pub services: Vec<Service>,
        pub policies: Policies,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_strings::<_, de::k::Id>"
        )]
        pub capabilities: Option<Vec<String>>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub auth: Option<Auth>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub trust: Option<Trust>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
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
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub name: String,
        #[serde(deserialize_with = "de::string::<_, de::k::Hostname>")]
        pub domain: String,
    }
}

wire! {
    /// A host an operator serves (§2.3).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct OperatorHost {
        #[serde(deserialize_with = "de::string::<_, de::k::HostId>")]
        pub id: String,
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
        #[serde(deserialize_with = "de::string::<_, de::k::Version>")]
        pub schcp: String,
        pub operator: OperatorInfo,
        pub hosts: Vec<OperatorHost>,
    }
}
