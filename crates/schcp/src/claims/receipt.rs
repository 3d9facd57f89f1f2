//! Receipts (§5.3; the plain-text draft lost the table, so the shape is fixed by
//! `ReceiptClaims` in schemas/schcp.schema.json): the host's
//! signed evidence of a booking, of the contract it stands on, and of how the person
//! agreed to it.

use serde::{Deserialize, Serialize};

use super::{de, wire, Booking, ConsentMode};

/// How the person approved the contract (§5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Approved {
    /// The root mandate carried the offer's hash (a closed mandate).
    Offer,
    /// The person signed a meeting contract that names it (§5.12).
    Contract,
    /// An open mandate covered it.
    Limits,
}

wire! {
    /// `consent` of a receipt (§5.3), and of a move awaiting the host (§5.7).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct ReceiptConsent {
        /// What the person approved: the offer itself or limits (§5.3).
        pub approved: Approved,
        /// The jti of the root mandate, the one the person signed.
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub mandate: String,
        /// As that mandate's `consent.mode` says, when it says.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub mode: Option<ConsentMode>,
    }
}

wire! {
    /// Claims of a `schcp-receipt+jwt` (§5.3). Closed at every depth.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct ReceiptClaims {
        /// The protocol version, `0.4`.
        #[serde(deserialize_with = "de::string::<_, de::k::Version>")]
        pub v: String,
        /// The host id.
        #[serde(deserialize_with = "de::string::<_, de::k::HostId>")]
        pub iss: String,
        /// When the host issued it.
        #[serde(deserialize_with = "de::numeric_date")]
        pub iat: i64,
        /// The booking it is evidence of.
        pub booking: Booking,
        /// The booking's contract hash (equal to `booking.offer_sha256`, which
        /// `verify_receipt` checks), or `null` for a booking made outside SchCP.
        #[serde(deserialize_with = "de::nullable_string::<_, de::k::B64Sha256>")]
        pub offer_sha256: Option<String>,
        /// The contract's own retention (§2.1).
        #[serde(deserialize_with = "de::string::<_, de::k::Retention>")]
        pub retention: String,
        /// Absent exactly when `offer_sha256` is `null`: no contract, no consent (§5.3).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub consent: Option<ReceiptConsent>,
    }
    check = ReceiptClaims::check;
}

impl ReceiptClaims {
    fn check(&self) -> Result<(), &'static str> {
        if self.offer_sha256.is_some() != self.consent.is_some() {
            return Err("a receipt states consent exactly when it names a contract (offer_sha256)");
        }
        Ok(())
    }
}
