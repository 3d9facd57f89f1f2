//! SchCP v0.4: the protocol's objects and rules, as data and pure functions.
//!
//! Nothing here does I/O. Randomness (salts, decoys, nonces) is passed in by the
//! caller as a `rand_core::CryptoRngCore`, the clock as a `now` argument, and the
//! host's discovery keys as values, so every rule can be tested with fixed inputs.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod b64;
pub mod claims;
pub mod datetime;
pub mod duration;
mod error;
pub mod hash;
pub mod httpsig;
pub mod issue;
pub mod json;
pub mod jwk;
pub mod jws;
pub mod keyapp_proof;
pub mod money;
pub mod refusal;
pub mod schema;
pub mod sdjwt;
pub mod status_update;
pub mod verify;

pub use refusal::{Code, Reason};

pub use error::{
    AcceptanceCheck, Error, LimitCheck, MandateCheck, MeetingCheck, PricePart, ReceiptCheck, Refusal, RuleCheck,
    SlotCheck,
};

/// The protocol version this crate implements (§ Versions): `v`, `schcp` fields.
pub const VERSION: &str = "0.4";
