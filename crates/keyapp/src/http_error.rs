//! The §9 error shape at the HTTP edge (`{"error": {"code", "reason", "message",
//! "details"?, "retry"?}}`): the type and the status API's refusals are the
//! shared edge's (`status_edge::http_error`); the agent API's own refusals are
//! built here, from a typed cause, so no handler invents a code or reason string.

use axum::http::StatusCode;
pub use status_edge::http_error::ApiError;

/// The agent API's refusals (docs/agent-api.md §2), which no status service
/// sends. In scope, they read as `ApiError::signature(…)` like the shared ones.
pub trait AgentApiError {
    /// A protocol verification failure (422 on the agent API), its code and
    /// reason decided by `schcp::Error::reason` (STYLE.md: one place).
    fn verification(err: &schcp::Error) -> ApiError;

    /// `403 NOT_PERMITTED` (docs/agent-api.md §2: `browser_origin`, `agent_not_paired`,
    /// and `not_loopback` for a peer that is not on this machine).
    fn not_permitted(reason: &'static str, message: impl Into<String>) -> ApiError;

    /// `421`: a `Host` that is not the agent API's own (docs/agent-api.md §2, the
    /// DNS-rebinding defence).
    fn bad_host(message: impl Into<String>) -> ApiError;

    /// `415`: a body that is not `application/json` (§3.1, docs/agent-api.md §2).
    fn unsupported_media_type(message: impl Into<String>) -> ApiError;

    /// A refused request signature (§3.2): `401 BAD_SIGNATURE` with reason
    /// `stale_signature`, `replayed_nonce` or `bad_signature`. A full replay
    /// memory is `429` (refusing is safer than forgetting a live nonce).
    fn signature(err: &schcp::httpsig::SigError) -> ApiError;
}

impl AgentApiError for ApiError {
    fn verification(err: &schcp::Error) -> ApiError {
        let r = err.reason();
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, r.code, r.reason, err.to_string())
    }

    fn not_permitted(reason: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "NOT_PERMITTED", reason, message)
    }

    fn bad_host(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::MISDIRECTED_REQUEST, "INVALID_REQUEST", "bad_host", message)
    }

    fn unsupported_media_type(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, "INVALID_REQUEST", "unsupported_media_type", message)
    }

    fn signature(err: &schcp::httpsig::SigError) -> ApiError {
        use schcp::httpsig::SigError;
        let unauthorized = |reason| ApiError::new(StatusCode::UNAUTHORIZED, "BAD_SIGNATURE", reason, err.to_string());
        match err {
            SigError::Stale { .. } | SigError::BeforeMemory { .. } => unauthorized("stale_signature"),
            SigError::Replayed => unauthorized("replayed_nonce"),
            SigError::Busy { retry_after } => {
                ApiError::new(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED", "too_many_requests", err.to_string())
                    .with_retry_after(*retry_after)
            }
            _ => unauthorized("bad_signature"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_errors_are_401_bad_signature_with_the_section_3_2_reason() {
        use schcp::httpsig::SigError;
        for (e, reason) in [
            (SigError::Stale { created: 1, now: 400 }, "stale_signature"),
            (SigError::BeforeMemory { created: 1, since: 2 }, "stale_signature"),
            (SigError::Replayed, "replayed_nonce"),
            (SigError::Bad("x".into()), "bad_signature"),
        ] {
            let a = ApiError::signature(&e);
            assert_eq!((a.status, a.code, a.reason), (StatusCode::UNAUTHORIZED, "BAD_SIGNATURE", reason));
        }
        let busy = ApiError::signature(&SigError::Busy { retry_after: 7 });
        assert_eq!((busy.status, busy.retry_after), (StatusCode::TOO_MANY_REQUESTS, Some(7)));
        assert_eq!(ApiError::bad_host("h").status, StatusCode::MISDIRECTED_REQUEST);
        assert_eq!(ApiError::body_too_large(10).status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(ApiError::unsupported_media_type("t").status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert_eq!(ApiError::not_permitted("browser_origin", "o").code, "NOT_PERMITTED");
    }

    #[test]
    fn verification_errors_carry_the_protocol_reason() {
        let e = ApiError::verification(&schcp::Error::MandateExpired { exp: 1, now: 2 });
        assert_eq!((e.code, e.reason), ("MANDATE_INVALID", "mandate_expired"));
        assert_eq!(e.status, StatusCode::UNPROCESSABLE_ENTITY);
    }
}
