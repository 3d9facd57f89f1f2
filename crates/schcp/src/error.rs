//! The crate's one error type, and the §9.2 code and reason each failure maps to.
//!
//! Every refusal maps to one SchCP code and reason here, in one place, so an
//! HTTP edge never invents a string (STYLE.md).

use crate::datetime::DateTimeError;
use crate::duration::DurationError;
use crate::json::JsonError;
use crate::jwk::JwkError;
use crate::jws::JwsError;
use crate::money::MoneyError;
use crate::schema::SchemaError;
use crate::sdjwt::SdJwtError;

/// A §9.2 code (the class) and a registered reason under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reason {
    pub code: &'static str,
    pub reason: &'static str,
}

/// The code for a credential or offer the key app refuses to show or sign over
/// (API.md: 422). The spec registers no class for a key app's own refusals.
pub const VERIFICATION_FAILED: &str = "VERIFICATION_FAILED";

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error(transparent)]
    Jwk(#[from] JwkError),
    #[error(transparent)]
    Jws(#[from] JwsError),
    #[error(transparent)]
    SdJwt(#[from] SdJwtError),
    #[error(transparent)]
    Schema(#[from] SchemaError),
    #[error(transparent)]
    Money(#[from] MoneyError),
    #[error(transparent)]
    Duration(#[from] DurationError),
    #[error(transparent)]
    DateTime(#[from] DateTimeError),

    #[error("{what} expired at {exp} (now {now})")]
    Expired { what: &'static str, exp: i64, now: i64 },
    #[error("{what} is issued at {iat}, more than 60 s after now ({now})")]
    IssuedInFuture { what: &'static str, iat: i64, now: i64 },
    #[error("{what}: iss {found:?} is not {expected:?}")]
    WrongIssuer { what: &'static str, expected: String, found: String },
    #[error("unknown time zone {0:?}")]
    UnknownTimeZone(String),

    // §5.2 money rules of an offer.
    #[error("lines sum to {sum} but total is {total} (§5.2)")]
    LinesDoNotSum { sum: String, total: String },
    #[error("{0} is not in the total's currency (§2.1: one currency)")]
    MixedCurrencies(&'static str),
    // §4.2 slot times.
    #[error("slot: {0}")]
    BadSlot(&'static str),

    #[error("receipt: {0} (§5.3)")]
    ReceiptMismatch(&'static str),

    #[error("mandate expired at {exp} (now {now}) (§3.3 check 3)")]
    MandateExpired { exp: i64, now: i64 },
    #[error("mandate invalid: {0}")]
    MandateInvalid(String),
    #[error("action outside the mandate's scope: {0} (§3.3 check 5)")]
    MandateScope(String),
    #[error("action outside the mandate's constraints: {0} (§3.3 check 6)")]
    MandateLimit(String),

    #[error("meeting contract invalid: {0} (§5.12)")]
    MeetingInvalid(String),
    #[error("acceptance invalid: {0} (§5.12)")]
    AcceptanceInvalid(String),
    #[error("this member must answer in person, not by rule (§7.9)")]
    PersonRequired,
    #[error("rule invalid: {0} (§7.9)")]
    RuleInvalid(String),
    #[error("attestation invalid: {0} (§7.5)")]
    AttestationInvalid(String),
}

impl Error {
    /// The §9.2 code and reason for this failure.
    pub fn reason(&self) -> Reason {
        let v = |reason| Reason { code: VERIFICATION_FAILED, reason };
        match self {
            Error::Json(JsonError::DuplicateMember(_)) => v("duplicate_member"),
            Error::Json(_) => v("malformed"),
            Error::Jwk(_) => v("bad_key"),
            Error::Jws(e) => v(match e {
                JwsError::UnknownKid(_) | JwsError::MissingKid | JwsError::AmbiguousKid(_) => "unknown_kid",
                JwsError::WrongTyp { .. } => "wrong_typ",
                JwsError::AlgNone | JwsError::AlgMismatch { .. } => "alg_mismatch",
                JwsError::BadSignature => "bad_signature",
                JwsError::BadJson { source: JsonError::DuplicateMember(_), .. } => "duplicate_member",
                JwsError::BadKey(_) => "bad_key",
                _ => "malformed",
            }),
            Error::SdJwt(_) => Reason { code: "MANDATE_INVALID", reason: "mandate_invalid" },
            Error::Schema(_) => v("schema_invalid"),
            Error::Money(_) => v("money_invalid"),
            Error::Duration(_) => v("duration_invalid"),
            Error::DateTime(_) => v("date_time_invalid"),
            Error::Expired { .. } => v("expired"),
            Error::IssuedInFuture { .. } => v("issued_in_future"),
            Error::WrongIssuer { .. } => v("wrong_issuer"),
            Error::UnknownTimeZone(_) => v("unknown_time_zone"),
            Error::LinesDoNotSum { .. } => v("lines_do_not_sum"),
            Error::MixedCurrencies(_) => v("mixed_currencies"),
            Error::BadSlot(_) => v("bad_slot"),
            Error::ReceiptMismatch(_) => v("receipt_mismatch"),
            Error::MandateExpired { .. } => Reason { code: "MANDATE_INVALID", reason: "mandate_expired" },
            Error::MandateInvalid(_) => Reason { code: "MANDATE_INVALID", reason: "mandate_invalid" },
            Error::MandateScope(_) => Reason { code: "MANDATE_SCOPE", reason: "out_of_scope" },
            Error::MandateLimit(_) => Reason { code: "MANDATE_LIMIT", reason: "constraint_not_met" },
            Error::MeetingInvalid(_) => Reason { code: "INVALID_REQUEST", reason: "meeting_invalid" },
            Error::AcceptanceInvalid(_) => Reason { code: "INVALID_REQUEST", reason: "acceptance_invalid" },
            Error::PersonRequired => Reason { code: "INVALID_REQUEST", reason: "person_required" },
            Error::RuleInvalid(_) => v("rule_invalid"),
            Error::AttestationInvalid(_) => v("attestation_invalid"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mandate_failures_map_to_the_spec_reasons() {
        // §3.3 check 3: a passed exp is mandate_expired, everything else mandate_invalid.
        assert_eq!(Error::MandateExpired { exp: 1, now: 2 }.reason().reason, "mandate_expired");
        assert_eq!(Error::MandateInvalid("x".into()).reason().reason, "mandate_invalid");
        assert_eq!(Error::MandateInvalid("x".into()).reason().code, "MANDATE_INVALID");
    }

    #[test]
    fn meeting_failures_map_to_invalid_request() {
        assert_eq!(
            Error::MeetingInvalid("x".into()).reason(),
            Reason { code: "INVALID_REQUEST", reason: "meeting_invalid" }
        );
        assert_eq!(Error::PersonRequired.reason().reason, "person_required");
        assert_eq!(Error::AcceptanceInvalid("x".into()).reason().reason, "acceptance_invalid");
    }

    #[test]
    fn signature_failures_are_specific() {
        assert_eq!(Error::Jws(JwsError::UnknownKid("k".into())).reason().reason, "unknown_kid");
        assert_eq!(Error::Jws(JwsError::AlgNone).reason().reason, "alg_mismatch");
        assert_eq!(Error::Jws(JwsError::BadSignature).reason().reason, "bad_signature");
    }
}
