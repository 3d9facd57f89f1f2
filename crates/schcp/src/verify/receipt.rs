//! `verify_receipt` (§5.3 "A receipt is evidence of the agreement").

use super::{typed_claims, HostKeys};
use crate::claims::ReceiptClaims;
use crate::error::{Error, ReceiptCheck};
use crate::jws::{self, Typ};
use crate::schema::Def;

/// What the agent (or key app) that made or changed the booking knows and the
/// receipt must agree with (§5.3: it MUST refuse a receipt that names another
/// mandate than the one it used, or a retention other than its contract's).
#[derive(Debug, Clone, Copy, Default)]
pub struct ReceiptExpectations<'a> {
    /// The hash of the offer accepted, when one was.
    pub offer_sha256: Option<&'a str>,
    /// The jti of the mandate used, when one was.
    pub mandate: Option<&'a str>,
    /// The retention of the contract agreed.
    pub retention: Option<&'a str>,
    /// The booking the receipt must be for.
    pub booking_id: Option<&'a str>,
}

/// A receipt that passed the §5.3 checks.
#[derive(Debug, Clone)]
pub struct VerifiedReceipt {
    /// The compact JWS.
    pub compact: String,
    /// Its claims.
    pub claims: ReceiptClaims,
}

/// Verifies a receipt with the host's discovery keys and against what the agent knows (§5.3).
pub fn verify_receipt(
    compact: &str,
    host: HostKeys<'_>,
    expect: ReceiptExpectations<'_>,
) -> Result<VerifiedReceipt, Error> {
    let parsed = jws::parse(compact)?;
    parsed.verify_with_discovery_keys(Typ::Receipt, host.keys)?;
    let claims: ReceiptClaims = typed_claims(&parsed, Def::ReceiptClaims)?;
    if claims.iss != host.host_id {
        return Err(Error::WrongIssuer { what: "receipt", expected: host.host_id.into(), found: claims.iss.clone() });
    }
    if claims.offer_sha256 != claims.booking.offer_sha256 {
        return Err(Error::ReceiptMismatch(ReceiptCheck::OfferHashDiffersFromBooking));
    }
    // That consent is present exactly when offer_sha256 is, is the typed
    // claims' own check (`ReceiptClaims::check`).
    if let Some(h) = expect.offer_sha256 {
        if claims.offer_sha256.as_deref() != Some(h) {
            return Err(Error::ReceiptMismatch(ReceiptCheck::AnotherOffer));
        }
    }
    if let Some(m) = expect.mandate {
        if claims.consent.as_ref().map(|c| c.mandate.as_str()) != Some(m) {
            return Err(Error::ReceiptMismatch(ReceiptCheck::AnotherMandate));
        }
    }
    if let Some(r) = expect.retention {
        if claims.retention != r {
            return Err(Error::ReceiptMismatch(ReceiptCheck::AnotherRetention));
        }
    }
    if let Some(b) = expect.booking_id {
        if claims.booking.booking_id != b {
            return Err(Error::ReceiptMismatch(ReceiptCheck::AnotherBooking));
        }
    }
    crate::duration::Retention::parse(&claims.retention)?;
    Ok(VerifiedReceipt { compact: compact.to_owned(), claims })
}
