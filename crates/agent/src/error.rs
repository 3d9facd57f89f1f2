//! The key app's refusals (docs/agent-api.md §8, the §9 error shape) as typed
//! errors, and the client's own failures.

use reqwest::StatusCode;
use schcp::refusal::{Code, Reason};
use serde_json::Value;
use std::time::Duration;

/// The class of a refusal: §9's `code`. Switch on it and on `reason`, never on
/// `message`, which is for people and may change.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorCode {
    /// `INVALID_REQUEST`: the request itself is wrong (malformed, a bad field).
    InvalidRequest,
    /// `BAD_SIGNATURE`: the §3.2 request signature did not verify.
    BadSignature,
    /// `NOT_PERMITTED`: not loopback, a browser origin, or not paired.
    NotPermitted,
    /// `NOT_FOUND`: no such pairing or request for this agent.
    NotFound,
    /// `IDEMPOTENCY_CONFLICT`: the idempotency key was used with other bytes.
    IdempotencyConflict,
    /// `INVALID_STATE`: e.g. withdrawing a request that is no longer pending.
    InvalidState,
    /// `VERIFICATION_FAILED`: what the agent handed in failed verification.
    VerificationFailed,
    /// `MANDATE_INVALID`.
    MandateInvalid,
    /// `MANDATE_SCOPE`.
    MandateScope,
    /// `MANDATE_LIMIT`.
    MandateLimit,
    /// `RATE_LIMITED`: too many pending, cooldown, or the replay memory is full.
    RateLimited,
    /// `UNAVAILABLE`: try the same call again later.
    Unavailable,
    /// `INTERNAL`: the key app's own failure.
    Internal,
    /// A code this client does not know (a newer key app).
    Other(String),
}

impl ErrorCode {
    /// The code as the wire spells it.
    pub fn parse(code: &str) -> ErrorCode {
        match code.parse::<Code>() {
            Ok(c) => ErrorCode::from(c),
            Err(_) => ErrorCode::Other(code.to_owned()),
        }
    }

    /// The registered §9.2 code this is; `None` for one no registry lists.
    pub fn code(&self) -> Option<Code> {
        self.as_str().parse().ok()
    }

    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
            ErrorCode::InvalidRequest => Code::InvalidRequest.as_str(),
            ErrorCode::BadSignature => Code::BadSignature.as_str(),
            ErrorCode::NotPermitted => Code::NotPermitted.as_str(),
            ErrorCode::NotFound => Code::NotFound.as_str(),
            ErrorCode::IdempotencyConflict => Code::IdempotencyConflict.as_str(),
            ErrorCode::InvalidState => Code::InvalidState.as_str(),
            ErrorCode::VerificationFailed => Code::VerificationFailed.as_str(),
            ErrorCode::MandateInvalid => Code::MandateInvalid.as_str(),
            ErrorCode::MandateScope => Code::MandateScope.as_str(),
            ErrorCode::MandateLimit => Code::MandateLimit.as_str(),
            ErrorCode::RateLimited => Code::RateLimited.as_str(),
            ErrorCode::Unavailable => Code::Unavailable.as_str(),
            ErrorCode::Internal => Code::Internal.as_str(),
            ErrorCode::Other(s) => s,
        }
    }
}

/// A registered code this client has a variant for, else `Other` with its
/// wire spelling (a code the key app does not send).
impl From<Code> for ErrorCode {
    fn from(c: Code) -> ErrorCode {
        match c {
            Code::InvalidRequest => ErrorCode::InvalidRequest,
            Code::BadSignature => ErrorCode::BadSignature,
            Code::NotPermitted => ErrorCode::NotPermitted,
            Code::NotFound => ErrorCode::NotFound,
            Code::IdempotencyConflict => ErrorCode::IdempotencyConflict,
            Code::InvalidState => ErrorCode::InvalidState,
            Code::VerificationFailed => ErrorCode::VerificationFailed,
            Code::MandateInvalid => ErrorCode::MandateInvalid,
            Code::MandateScope => ErrorCode::MandateScope,
            Code::MandateLimit => ErrorCode::MandateLimit,
            Code::RateLimited => ErrorCode::RateLimited,
            Code::Unavailable => ErrorCode::Unavailable,
            Code::Internal => ErrorCode::Internal,
            other => ErrorCode::Other(other.as_str().to_owned()),
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One refusal of the key app, in §9's shape.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The class.
    pub code: ErrorCode,
    /// The specific cause, e.g. `cooldown`, `bad_signature`, `agent_not_paired`.
    pub reason: String,
    /// The key app's sentence for people.
    pub message: String,
    /// `details`, for the reasons that have them (docs/agent-api.md §8).
    pub details: Option<Value>,
    /// When to try again: `retry.after` (an ISO 8601 duration of seconds), or
    /// else the `Retry-After` header (cooldown, too many requests).
    pub retry_after: Option<Duration>,
}

impl ApiError {
    /// Reads a refusal from its status, its `Retry-After` header and its body.
    /// A body not of §9's shape is kept whole in `message`.
    pub fn from_response(status: StatusCode, retry_after_header: Option<&str>, body: &Value) -> ApiError {
        let err = body.get("error");
        let text = |k: &str| err.and_then(|e| e.get(k)).and_then(Value::as_str).map(str::to_owned);
        let from_body =
            err.and_then(|e| e.get("retry")).and_then(|r| r.get("after")).and_then(Value::as_str).and_then(retry_after);
        let from_header = retry_after_header.and_then(|h| h.trim().parse::<u64>().ok()).map(Duration::from_secs);
        ApiError {
            status,
            code: text("code").map(|c| ErrorCode::parse(&c)).unwrap_or_else(|| ErrorCode::Other(String::new())),
            reason: text("reason").unwrap_or_default(),
            message: text("message").unwrap_or_else(|| body.to_string()),
            details: err.and_then(|e| e.get("details")).cloned(),
            retry_after: from_body.or(from_header),
        }
    }

    /// Whether this is the refusal for reason `reason`.
    pub fn is(&self, reason: &str) -> bool {
        self.reason == reason
    }

    /// The registered reason this refusal carries; `None` for one this client
    /// does not know (a newer key app's), which is still in `reason`.
    pub fn registered_reason(&self) -> Option<Reason> {
        self.reason.parse().ok()
    }

    /// Whether this is the refusal for the registered reason `reason`.
    pub fn is_reason(&self, reason: Reason) -> bool {
        self.registered_reason() == Some(reason)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {}: {}", self.status.as_u16(), self.code, self.reason, self.message)?;
        if let Some(after) = self.retry_after {
            write!(f, " (retry after {} s)", after.as_secs())?;
        }
        Ok(())
    }
}

/// `retry.after` as §2.1 writes a computed length (`PT5M`, `PT3M32S`, `P1D`),
/// read with the protocol crate's duration grammar: any equivalent form is the
/// same length, and anything else is no retry time.
fn retry_after(s: &str) -> Option<Duration> {
    schcp::duration::Duration::parse(s).ok().map(|d| Duration::from_secs(d.as_seconds()))
}

/// What can go wrong talking to the key app.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// Nothing answered at the key app's address (it is not running, or runs elsewhere).
    #[error("the key app at {url} could not be reached: {source}")]
    Unreachable {
        /// The URL called.
        url: String,
        /// Why.
        #[source]
        source: reqwest::Error,
    },
    /// What answers at the key app's address cannot prove it holds the
    /// principal key this agent pinned at pairing (docs/agent-api.md §7): it is
    /// not the person's key app, and nothing is sent to it.
    #[error("the program listening at {address} is not your key app ({reason})")]
    Impostor {
        /// `127.0.0.1:7411`.
        address: String,
        /// What gave it away.
        reason: String,
    },
    /// The pin could not be kept in the agent's profile.
    #[error("the principal key could not be pinned in the agent profile: {0}")]
    Pin(#[from] crate::profile::ProfileError),
    /// Any other transport failure.
    #[error("HTTP: {0}")]
    Http(#[from] reqwest::Error),
    /// The key app refused (§9 shape).
    #[error("the key app refused: {0}")]
    Api(Box<ApiError>),
    /// A request or pairing id that is not one the key app makes.
    #[error("{0:?} is not a request or pairing id (rq_… or pr_…)")]
    BadId(String),
    /// A success status with a body this client cannot read.
    #[error("the key app's answer ({status}) is not what docs/agent-api.md describes: {detail}")]
    UnexpectedAnswer {
        /// The HTTP status.
        status: StatusCode,
        /// What did not fit.
        detail: String,
    },
}

impl AgentError {
    /// The refusal, when the key app refused.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            AgentError::Api(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cooldown_reads_code_reason_and_retry() {
        let body = json!({"error": {"code": "RATE_LIMITED", "reason": "cooldown", "message": "wait",
                                    "retry": {"after": "PT212S"}}});
        let e = ApiError::from_response(StatusCode::TOO_MANY_REQUESTS, Some("212"), &body);
        assert_eq!(e.code, ErrorCode::RateLimited);
        assert!(e.is("cooldown"));
        assert_eq!(e.retry_after, Some(Duration::from_secs(212)));
        assert_eq!(e.to_string(), "429 RATE_LIMITED cooldown: wait (retry after 212 s)");
    }

    #[test]
    fn retry_after_header_is_used_when_the_body_has_none() {
        let body = json!({"error": {"code": "RATE_LIMITED", "reason": "too_many_requests", "message": "m"}});
        let e = ApiError::from_response(StatusCode::TOO_MANY_REQUESTS, Some("7"), &body);
        assert_eq!(e.retry_after, Some(Duration::from_secs(7)));
        let none = ApiError::from_response(StatusCode::TOO_MANY_REQUESTS, Some("soon"), &body);
        assert_eq!(none.retry_after, None);
    }

    #[test]
    fn a_body_not_of_the_error_shape_is_kept_in_the_message() {
        let e = ApiError::from_response(StatusCode::BAD_GATEWAY, None, &json!("proxy says no"));
        assert_eq!(e.code, ErrorCode::Other(String::new()));
        assert_eq!(e.message, "\"proxy says no\"");
    }

    #[test]
    fn retry_after_reads_any_duration_of_the_grammar() {
        assert_eq!(retry_after("PT5M"), Some(Duration::from_secs(300)));
        assert_eq!(retry_after("PT300S"), Some(Duration::from_secs(300)), "an equivalent form is the same length");
        assert_eq!(retry_after("PT1M5S"), Some(Duration::from_secs(65)));
        assert_eq!(retry_after("PT2H"), Some(Duration::from_secs(7200)));
        assert_eq!(retry_after("P1D"), Some(Duration::from_secs(86_400)));
        for bad in ["PT5", "PTXS", "", "5", "-PT5S", "PT5M\n"] {
            assert_eq!(retry_after(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn every_registered_code_reads_as_itself() {
        for &c in Code::ALL {
            assert_eq!(ErrorCode::from(c).as_str(), c.as_str());
            assert_eq!(ErrorCode::parse(c.as_str()).code(), Some(c));
        }
        assert_eq!(ErrorCode::parse("NOT_PENDING").code(), None);
        let body = json!({"error": {"code": "BAD_SIGNATURE", "reason": "stale_signature", "message": "m"}});
        let e = ApiError::from_response(StatusCode::UNAUTHORIZED, None, &body);
        assert!(e.is_reason(Reason::StaleSignature) && !e.is_reason(Reason::BadSignature));
        let newer = json!({"error": {"code": "INVALID_REQUEST", "reason": "a_newer_reason", "message": "m"}});
        assert_eq!(ApiError::from_response(StatusCode::BAD_REQUEST, None, &newer).registered_reason(), None);
    }

    #[test]
    fn unknown_codes_round_trip() {
        assert_eq!(ErrorCode::parse("NEW_THING").as_str(), "NEW_THING");
        assert_eq!(ErrorCode::parse("VERIFICATION_FAILED"), ErrorCode::VerificationFailed);
    }
}
