//! The host side (SchCP §2, §5): discovery, availability, holds, bookings,
//! changes and invitations, every call to a host endpoint signed with the
//! agent's key as §3.2 requires, every refusal a typed §9.2 one.
//!
//! Outbound requests follow the key app's own policy (§5.8, as the key app
//! applies it to every URL an agent hands it): public https only, no
//! credentials, every connected address checked inside the resolver, no
//! redirects, no proxy, short timeouts. The policy's source is the key app's
//! `outbound.rs`, compiled here as well, so both apply one rule and this crate
//! still never links the key app.

mod calls;
mod client;
mod discovery;
mod error;
#[allow(dead_code, unreachable_pub, missing_docs)]
#[path = "../../../keyapp/src/outbound.rs"]
mod outbound;
mod trust;

pub use calls::{
    Availability, AvailabilityQuery, AvailableSlot, ChangeRequest, ConfirmRequest, HoldRequest, RespondRequest,
    TimeRange,
};
pub use client::HostClient;
pub use discovery::{Host, WELL_KNOWN_PATH};
pub use error::{HostError, HostRefusal};
pub use outbound::Refusal as OutboundRefusal;
pub use schcp::claims::{Booking, BookingResponse, Hold, Proposal};
pub use trust::HostTrust;
