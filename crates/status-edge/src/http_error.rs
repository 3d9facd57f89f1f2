//! The §9 error shape at the HTTP edge: `{"error": {"code", "reason", "message",
//! "details"?, "retry"?}}`. Every refusal a status service sends is built here,
//! from a typed cause, so no handler invents a code or reason string; the key
//! app's agent API builds its own refusals on the same type
//! (`keyapp::http_error`).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub reason: &'static str,
    pub message: String,
    pub details: Option<Value>,
    /// Seconds until trying again could help: `retry.after` and `Retry-After`.
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, reason: &'static str, message: impl Into<String>) -> Self {
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

    pub fn invalid_request(reason: &'static str, message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, "INVALID_REQUEST", reason, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, "NOT_FOUND", "not_found", message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL", "internal_error", message)
    }

    /// `413`: a body over the limit (the agent API's 256 KiB, docs/agent-api.md §2;
    /// a status update's, docs/hosted-status.md).
    pub fn body_too_large(limit: usize) -> Self {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "INVALID_REQUEST",
            "body_too_large",
            format!("the request body is larger than {limit} bytes"),
        )
        .with_details(serde_json::json!({ "limit": limit }))
    }

    /// 429: a client sent more than its share; `retry_after` says when a token is free.
    pub fn rate_limited(retry_after: u64) -> Self {
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "RATE_LIMITED",
            "too_many_requests",
            "too many requests from this client; try again shortly",
        )
        .with_retry_after(retry_after.max(1))
    }

    /// 503: the service could not answer now (a store failure, a timeout); nothing
    /// was acknowledged, and the same request may be retried.
    pub fn unavailable(reason: &'static str, message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "UNAVAILABLE", reason, message).with_retry_after(1)
    }

    pub fn body(&self) -> Value {
        let mut error = json!({ "code": self.code, "reason": self.reason, "message": self.message });
        if let Some(d) = &self.details {
            error["details"] = d.clone();
        }
        if let Some(s) = self.retry_after {
            error["retry"] = json!({ "after": format!("PT{s}S") });
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
            R::UnknownMandate => ApiError::new(StatusCode::NOT_FOUND, "NOT_FOUND", "unknown_mandate", message),
            R::BadClaimId(_) => ApiError::invalid_request("bad_claim_id", message),
            R::HostNotInAudience { host } => {
                ApiError::invalid_request("host_not_in_audience", message).with_details(json!({ "host": host }))
            }
            R::NoSharedLimit => ApiError::invalid_request("no_shared_limit", message),
            R::Revoked => ApiError::new(StatusCode::FORBIDDEN, "MANDATE_INVALID", "mandate_revoked", message),
            R::Expired => ApiError::new(StatusCode::FORBIDDEN, "MANDATE_INVALID", "mandate_expired", message),
            R::NoneLeft { max_bookings } => {
                ApiError::new(StatusCode::CONFLICT, "MANDATE_LIMIT", "shared_limit_reached", message)
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
        let e = ApiError::new(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED", "cooldown", "wait")
            .with_retry_after(300)
            .with_details(json!({"pending": 5}));
        assert_eq!(
            e.body(),
            json!({"error": {"code": "RATE_LIMITED", "reason": "cooldown", "message": "wait",
                   "details": {"pending": 5}, "retry": {"after": "PT300S"}}})
        );
        let r = e.into_response();
        assert_eq!(r.headers()[header::RETRY_AFTER], "300");
        assert_eq!(r.headers()[header::CACHE_CONTROL], "no-store");
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
            assert_eq!((a.status, a.code, a.reason), (status, code, reason), "{r:?}");
        }
        let spent = ApiError::from(&R::NoneLeft { max_bookings: 2 });
        assert_eq!((spent.status, spent.reason), (StatusCode::CONFLICT, "shared_limit_reached"));
        assert_eq!(spent.details, Some(json!({ "max_bookings": 2, "remaining": 0 })));
        let host = ApiError::from(&R::HostNotInAudience { host: "elsewhere".into() });
        assert_eq!(host.details, Some(json!({ "host": "elsewhere" })));
        assert_eq!(ApiError::body_too_large(10).status, StatusCode::PAYLOAD_TOO_LARGE);
    }
}
