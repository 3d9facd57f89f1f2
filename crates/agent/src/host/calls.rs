//! The bodies of the host operations (§5.1–§5.10) and the availability answer.
//! Every request type is closed, and none carries an `idempotency_key`: the
//! client adds one to each call.

use schcp::claims::{Money, Place};
use serde::{Deserialize, Serialize};

/// A time range (RFC 3339 date-times with offsets).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeRange {
    /// The first moment.
    pub start: String,
    /// The last moment.
    pub end: String,
}

/// `POST /availability` (§5.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AvailabilityQuery {
    /// The service, by its discovery id.
    pub service_id: String,
    /// Where to look.
    pub window: TimeRange,
    /// At most this many slots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// The party, when more than one person comes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub party_size: Option<u32>,
}

/// One free slot (§5.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AvailableSlot {
    /// Its start.
    pub start: String,
    /// Its end; none for an open-ended service (§4.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    /// True for an open-ended service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_end: Option<bool>,
    /// The service's price, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<Money>,
    /// The stated all-in total at that time (the offer binds it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<Money>,
}

/// The answer to `POST /availability`: a snapshot, not a promise (§5.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Availability {
    /// The service.
    pub service_id: String,
    /// The host's IANA time zone.
    pub timezone: String,
    /// The free slots.
    pub slots: Vec<AvailableSlot>,
    /// When the snapshot was taken.
    pub as_of: String,
}

/// `POST /holds` (§5.2), without its idempotency key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HoldRequest {
    /// The service.
    pub service_id: String,
    /// The slot's start.
    pub start: String,
    /// How long to hold it (ISO 8601 duration); the host grants at most its policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<String>,
    /// The party.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub party_size: Option<u32>,
    /// Where it happens, for a service not at the host's (§5.2 "Place").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<Place>,
}

/// `POST /holds/{id}/confirm` (§5.3), without its idempotency key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfirmRequest {
    /// The base64url SHA-256 of the hold's offer, exactly as served.
    pub offer_sha256: String,
    /// Free text for the host; agents should not send it (§5.3 "Free text").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// `POST /bookings/{id}/change-offer` (§5.7 step 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangeRequest {
    /// The booking's current sequence.
    pub sequence: u32,
    /// The new start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// The new place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<Place>,
}

/// `POST /bookings/{id}/respond` (§5.10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RespondRequest {
    /// Whether the participant accepts.
    pub accept: bool,
    /// The booking's current contract hash (required to accept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offer_sha256: Option<String>,
}
