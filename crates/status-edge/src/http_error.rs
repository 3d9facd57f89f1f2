//! The §9 error shape at the HTTP edge: `{"error": {"code", "reason", "message",
//! "details"?, "retry"?}}`. Every refusal a status service sends is built here,
//! from a typed cause, so no handler invents a code or reason string; the key
//! app's agent API builds its own refusals on the same type
//! (`keyapp::http_error`).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use schcp::refusal::{Code, Reason};
use serde_json::{json, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: Code,
    pub reason: Reason,
    pub message: String,
    pub details: Option<Value>,
    /// Seconds until trying again could help: `retry.after` and `Retry-After`.
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: Code, reason: Reason, message: impl Into<String>) -> Self {
        ApiError { status, code, reason, message: message.into(), details: None, retry_after: None }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    pub fn with_retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    pub fn invalid_request(reason: Reason, message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, Code::InvalidRequest, reason, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, Code::NotFound, Reason::NotFound, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, Code::Internal, Reason::InternalError, message)
    }

    /// `413`: a body over the limit (the agent API's 256 KiB, docs/agent-api.md §2;
    /// a status update's, docs/hosted-status.md).
    pub fn body_too_large(limit: usize) -> Self {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            Code::InvalidRequest,
            Reason::BodyTooLarge,
            format!("the request body is larger than {limit} bytes"),
        )
        .with_details(serde_json::json!({ "limit": limit }))
    }

    /// 429: a client sent more than its share; `retry_after` says when a token is free.
    pub fn rate_limited(retry_after: u64) -> Self {
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            Code::RateLimited,
            Reason::TooManyRequests,
            "too many requests from this client; try again shortly",
        )
        .with_retry_after(retry_after.max(1))
    }

    /// 503: the service could not answer now (a store failure, a timeout); nothing
    /// was acknowledged, and the same request may be retried.
    pub fn unavailable(reason: Reason, message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, Code::Unavailable, reason, message).with_retry_after(1)
    }

    /// `421`: a `Host` that is not the service's own (the agent API's, or a
    /// status service's `public_base` or loopback): the DNS-rebinding defence.
    pub fn bad_host(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::MISDIRECTED_REQUEST, Code::InvalidRequest, Reason::BadHost, message)
    }

    /// A refused request signature (§3.2): `401 BAD_SIGNATURE` with reason
    /// `stale_signature`, `replayed_nonce` or `bad_signature`. A full replay
    /// memory is `429` (refusing is safer than forgetting a live nonce).
    pub fn signature(err: &schcp::httpsig::SigError) -> Self {
        use schcp::httpsig::SigError;
        let unauthorized =
            |reason| ApiError::new(StatusCode::UNAUTHORIZED, Code::BadSignature, reason, err.to_string());
        match err {
            SigError::Stale { .. } | SigError::BeforeMemory { .. } => unauthorized(Reason::StaleSignature),
            SigError::Replayed => unauthorized(Reason::ReplayedNonce),
            SigError::Busy { retry_after } => ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                Code::RateLimited,
                Reason::TooManyRequests,
                err.to_string(),
            )
            .with_retry_after(*retry_after),
            _ => unauthorized(Reason::BadSignature),
        }
    }

    pub fn body(&self) -> Value {
        let mut error = json!({ "code": self.code, "reason": self.reason, "message": self.message });
        if let Some(d) = &self.details {
            error["details"] = d.clone();
        }
        if let Some(s) = self.retry_after {
            // §2.1: a length the key app computed is written canonically
            // (`PT5M`, never `PT300S`); `Retry-After` stays in seconds, as HTTP has it.
            error["retry"] = json!({ "after": schcp::duration::Duration::from_seconds(s).to_canonical() });
        }
        json!({ "error": error })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, axum::Json(self.body())).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        if let Some(s) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        response
    }
}

/// The status API's claim refusals (docs/agent-api.md §10, §3.3 "One consent, several hosts"),
/// decided here once: 404 unknown, 400 for a claim that cannot apply to this
/// mandate, 403 for a mandate no longer valid (§3.3 check 3's codes), 409 for a
/// spent limit (the code a host reports to its agent, `MANDATE_LIMIT`).
impl From<&crate::claims::ClaimRefusal> for ApiError {
    fn from(r: &crate::claims::ClaimRefusal) -> Self {
        use crate::claims::ClaimRefusal as R;
        let message = r.to_string();
        match r {
            R::UnknownMandate => ApiError::new(StatusCode::NOT_FOUND, Code::NotFound, Reason::UnknownMandate, message),
            R::BadClaimId(_) => ApiError::invalid_request(Reason::BadClaimId, message),
            R::HostNotInAudience { host } => {
                ApiError::invalid_request(Reason::HostNotInAudience, message).with_details(json!({ "host": host }))
            }
            R::NoSharedLimit => ApiError::invalid_request(Reason::NoSharedLimit, message),
            R::Revoked => ApiError::new(StatusCode::FORBIDDEN, Code::MandateInvalid, Reason::MandateRevoked, message),
            R::Expired => ApiError::new(StatusCode::FORBIDDEN, Code::MandateInvalid, Reason::MandateExpired, message),
            R::UnknownHostKey { host } => {
                ApiError::new(StatusCode::UNAUTHORIZED, Code::BadSignature, Reason::UnknownHostKey, message)
                    .with_details(json!({ "host": host }))
            }
            R::SignedByOtherHost { host, signer } => {
                ApiError::new(StatusCode::FORBIDDEN, Code::NotPermitted, Reason::SignedByOtherHost, message)
                    .with_details(json!({ "host": host, "signed_by": signer }))
            }
            R::ClaimSignedByHost { host } => {
                ApiError::new(StatusCode::FORBIDDEN, Code::NotPermitted, Reason::ClaimSignedByHost, message)
                    .with_details(json!({ "host": host }))
            }
            R::SignerNotNamed { named, host } => ApiError::invalid_request(Reason::HostMismatch, message)
                .with_details(json!({ "host": host, "named": named })),
            R::NoneLeft { max_bookings } => {
                ApiError::new(StatusCode::CONFLICT, Code::MandateLimit, Reason::SharedLimitReached, message)
                    .with_details(json!({ "max_bookings": max_bookings, "remaining": 0 }))
            }
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}/{}: {}", self.status.as_u16(), self.code, self.reason, self.message)
    }
}

impl std::error::Error for ApiError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_is_section_9() {
        let e = ApiError::new(StatusCode::TOO_MANY_REQUESTS, Code::RateLimited, Reason::Cooldown, "wait")
            .with_retry_after(300)
            .with_details(json!({"pending": 5}));
        assert_eq!(
            e.body(),
            json!({"error": {"code": "RATE_LIMITED", "reason": "cooldown", "message": "wait",
                   "details": {"pending": 5}, "retry": {"after": "PT5M"}}})
        );
        let r = e.into_response();
        assert_eq!(r.headers()[header::RETRY_AFTER], "300");
        assert_eq!(r.headers()[header::CACHE_CONTROL], "no-store");
    }

    #[test]
    fn retry_after_is_the_canonical_duration_and_the_header_seconds() {
        for (secs, canonical) in [
            (1, "PT1S"),
            (59, "PT59S"),
            (60, "PT1M"),
            (212, "PT3M32S"),
            (3_600, "PT1H"),
            (86_400, "P1D"),
            (90_061, "P1DT1H1M1S"),
        ] {
            let e = ApiError::new(StatusCode::TOO_MANY_REQUESTS, Code::RateLimited, Reason::Cooldown, "wait")
                .with_retry_after(secs);
            assert_eq!(e.body()["error"]["retry"]["after"], canonical, "{secs}");
            assert_eq!(e.into_response().headers()[header::RETRY_AFTER], secs.to_string().as_str());
        }
    }

    #[test]
    fn claim_refusals_have_their_own_status_code_and_reason() {
        use crate::claims::ClaimRefusal as R;
        for (r, status, code, reason) in [
            (R::UnknownMandate, StatusCode::NOT_FOUND, "NOT_FOUND", "unknown_mandate"),
            (R::BadClaimId("x"), StatusCode::BAD_REQUEST, "INVALID_REQUEST", "bad_claim_id"),
            (R::NoSharedLimit, StatusCode::BAD_REQUEST, "INVALID_REQUEST", "no_shared_limit"),
            (R::Revoked, StatusCode::FORBIDDEN, "MANDATE_INVALID", "mandate_revoked"),
            (R::Expired, StatusCode::FORBIDDEN, "MANDATE_INVALID", "mandate_expired"),
        ] {
            let a = ApiError::from(&r);
            assert_eq!((a.status, a.code.as_str(), a.reason.as_str()), (status, code, reason), "{r:?}");
        }
        let spent = ApiError::from(&R::NoneLeft { max_bookings: 2 });
        assert_eq!((spent.status, spent.reason.as_str()), (StatusCode::CONFLICT, "shared_limit_reached"));
        assert_eq!(spent.details, Some(json!({ "max_bookings": 2, "remaining": 0 })));
        for (r, status, code, reason) in [
            (R::UnknownHostKey { host: "a".into() }, StatusCode::UNAUTHORIZED, "BAD_SIGNATURE", "unknown_host_key"),
            (
                R::SignedByOtherHost { host: "a".into(), signer: "b".into() },
                StatusCode::FORBIDDEN,
                "NOT_PERMITTED",
                "signed_by_other_host",
            ),
            (R::ClaimSignedByHost { host: "a".into() }, StatusCode::FORBIDDEN, "NOT_PERMITTED", "claim_signed_by_host"),
            (
                R::SignerNotNamed { named: "b".into(), host: "a".into() },
                StatusCode::BAD_REQUEST,
                "INVALID_REQUEST",
                "host_mismatch",
            ),
        ] {
            let a = ApiError::from(&r);
            assert_eq!((a.status, a.code.as_str(), a.reason.as_str()), (status, code, reason), "{r:?}");
        }
        use schcp::httpsig::SigError;
        for (e, reason) in [
            (SigError::Stale { created: 1, now: 400 }, "stale_signature"),
            (SigError::BeforeMemory { created: 1, since: 2 }, "stale_signature"),
            (SigError::Replayed, "replayed_nonce"),
            (SigError::Bad("x".into()), "bad_signature"),
        ] {
            let a = ApiError::signature(&e);
            assert_eq!(
                (a.status, a.code.as_str(), a.reason.as_str()),
                (StatusCode::UNAUTHORIZED, "BAD_SIGNATURE", reason)
            );
        }
        let busy = ApiError::signature(&SigError::Busy { retry_after: 7 });
        assert_eq!((busy.status, busy.retry_after), (StatusCode::TOO_MANY_REQUESTS, Some(7)));
        assert_eq!(ApiError::bad_host("h").status, StatusCode::MISDIRECTED_REQUEST);
        let host = ApiError::from(&R::HostNotInAudience { host: "elsewhere".into() });
        assert_eq!(host.details, Some(json!({ "host": "elsewhere" })));
        assert_eq!(ApiError::body_too_large(10).status, StatusCode::PAYLOAD_TOO_LARGE);
    }
}
