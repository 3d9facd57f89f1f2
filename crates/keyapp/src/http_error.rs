//! The §9 error shape at the HTTP edge (`{"error": {"code", "reason", "message",
//! "details"?, "retry"?}}`): the type and the status API's refusals are the
//! shared edge's (`status_edge::http_error`); the agent API's own refusals are
//! built here, from a typed cause, so no handler invents a code or reason string.

use axum::http::StatusCode;
use schcp::refusal::{Code, Reason};
pub use status_edge::http_error::ApiError;

/// The agent API's refusals (docs/agent-api.md §2), which no status service
/// sends. In scope, they read as `ApiError::signature(…)` like the shared ones.
pub trait AgentApiError {
    /// A protocol verification failure (422 on the agent API), its code and
    /// reason decided by `schcp::Error::reason`, in one place for every edge.
    fn verification(err: &schcp::Error) -> ApiError;

    /// `403 NOT_PERMITTED` (docs/agent-api.md §2: `browser_origin`, `agent_not_paired`,
    /// and `not_loopback` for a peer that is not on this machine).
    fn not_permitted(reason: Reason, message: impl Into<String>) -> ApiError;

    /// `415`: a body that is not `application/json` (§3.1, docs/agent-api.md §2).
    fn unsupported_media_type(message: impl Into<String>) -> ApiError;
}

impl AgentApiError for ApiError {
    fn verification(err: &schcp::Error) -> ApiError {
        let r = err.reason();
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, r.code, r.reason, err.to_string())
    }

    fn not_permitted(reason: Reason, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, Code::NotPermitted, reason, message)
    }

    fn unsupported_media_type(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, Code::InvalidRequest, Reason::UnsupportedMediaType, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agent_apis_own_refusals() {
        assert_eq!(ApiError::unsupported_media_type("t").status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert_eq!(ApiError::not_permitted(Reason::BrowserOrigin, "o").code, "NOT_PERMITTED");
    }

    #[test]
    fn verification_errors_carry_the_protocol_reason() {
        let e = ApiError::verification(&schcp::Error::MandateExpired { exp: 1, now: 2 });
        assert_eq!((e.code, e.reason), (Code::MandateInvalid, Reason::MandateExpired));
        assert_eq!(e.status, StatusCode::UNPROCESSABLE_ENTITY);
    }
}
