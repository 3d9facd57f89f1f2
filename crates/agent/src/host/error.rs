//! What can go wrong at a host: its §9.2 refusals, typed, and the client's own
//! failures (discovery, transport, an answer that fails its schema).

use reqwest::StatusCode;
use schcp::refusal::{Code, Reason};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

use super::outbound::Refusal as OutboundRefusal;

/// One refusal of a host, in §9.2's shape. Switch on [`HostRefusal::code`]
/// and [`HostRefusal::reason`], never on `message`, which is for people.
#[derive(Debug, Clone, PartialEq)]
pub struct HostRefusal {
    /// The HTTP status.
    pub status: StatusCode,
    /// `code` as the host spelt it (`SLOT_UNAVAILABLE`, …).
    pub code_text: String,
    /// `reason` as the host spelt it (`slot_taken`, …); a host's own reasons
    /// (`host_declined:…`) are kept as they are.
    pub reason_text: String,
    /// The host's sentence for people, if any.
    pub message: Option<String>,
    /// `retry.after`, when the host says when trying again could help.
    pub retry_after: Option<Duration>,
    /// The whole `error` object, for what this type does not name (basis,
    /// remedies, details, alternatives).
    pub body: Value,
}

impl HostRefusal {
    /// Reads a refusal from a non-2xx answer. A body not of §9.2's shape is
    /// kept whole, with no code.
    pub fn from_response(status: StatusCode, body: &Value) -> HostRefusal {
        let err = body.get("error").unwrap_or(body);
        let text = |k: &str| err.get(k).and_then(Value::as_str).map(str::to_owned);
        let retry_after = err
            .get("retry")
            .and_then(|r| r.get("after"))
            .and_then(Value::as_str)
            .and_then(|s| schcp::duration::Duration::parse(s).ok())
            .map(|d| Duration::from_secs(d.as_seconds()));
        HostRefusal {
            status,
            code_text: text("code").unwrap_or_default(),
            reason_text: text("reason").unwrap_or_default(),
            message: text("message"),
            retry_after,
            body: err.clone(),
        }
    }

    /// The registered §9.2 class, `None` for one this client does not know.
    pub fn code(&self) -> Option<Code> {
        self.code_text.parse().ok()
    }

    /// The registered reason, `None` for a host's own.
    pub fn reason(&self) -> Option<Reason> {
        self.reason_text.parse().ok()
    }

    /// The alternatives a `SLOT_UNAVAILABLE` refusal offers (§5.2: up to five
    /// nearest slots), as the host sent them.
    pub fn alternatives(&self) -> Vec<Value> {
        let from = |v: Option<&Value>| v.and_then(Value::as_array).cloned();
        from(self.body.get("alternatives"))
            .or_else(|| from(self.body.get("details").and_then(|d| d.get("alternatives"))))
            .unwrap_or_default()
    }
}

impl std::fmt::Display for HostRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {}", self.status.as_u16(), self.code_text, self.reason_text)?;
        if let Some(m) = &self.message {
            write!(f, ": {m}")?;
        }
        Ok(())
    }
}

/// What can go wrong talking to a host.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// The host refused (§9.2).
    #[error("the host refused: {0}")]
    Refused(Box<HostRefusal>),
    /// The URL is not one the outbound policy lets the agent fetch (§5.8).
    #[error("{url} is not fetched: {refusal}")]
    UrlRefused {
        /// The URL.
        url: String,
        /// The rule it breaks.
        refusal: OutboundRefusal,
    },
    /// Not a URL, or not one a discovery document is at.
    #[error("{url} is not a discovery URL: {why}")]
    BadUrl {
        /// The URL.
        url: String,
        /// Why.
        why: String,
    },
    /// Nothing answered, or the connection failed (TLS included).
    #[error("{url} could not be reached: {detail}")]
    Unreachable {
        /// The URL.
        url: String,
        /// The error chain.
        detail: String,
    },
    /// The discovery document could not be had or is not a SchCP 0.4 one.
    #[error("the discovery document at {url} is unusable: {why}")]
    Discovery {
        /// The URL.
        url: String,
        /// Why.
        why: String,
    },
    /// §2.2: the document's endpoint is not on the host's own origin.
    #[error("{endpoint} is not on the origin of {url}, so it is not the host's endpoint (§2.2)")]
    EndpointNotAuthorized {
        /// The discovery URL.
        url: String,
        /// The endpoint it names.
        endpoint: String,
    },
    /// A host-signed offer or receipt that does not verify against the
    /// discovery keys, or an answer that fails its closed schema.
    #[error("the host's answer does not verify: {0}")]
    Verification(#[from] schcp::Error),
    /// A success status with a body that is not the operation's.
    #[error("the host's answer ({status}) is not what the operation returns: {detail}")]
    UnexpectedAnswer {
        /// The HTTP status.
        status: StatusCode,
        /// What did not fit.
        detail: String,
    },
    /// A mandate this client cannot present: an SD-JWT VC presentation that
    /// already carries a Key Binding JWT, or one that cannot be bound (§3.4).
    #[error("the mandate cannot be presented: {0}")]
    BadMandate(String),
    /// An id that would change the path it is put in.
    #[error("{0:?} is not a hold, booking or proposal id")]
    BadId(String),
    /// The trust file or a certificate it names could not be read.
    #[error("{path}: {why}")]
    Trust {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

impl HostError {
    /// The host's refusal, when the host refused.
    pub fn refusal(&self) -> Option<&HostRefusal> {
        match self {
            HostError::Refused(r) => Some(r),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_refusal_reads_code_reason_retry_and_alternatives() {
        let body = json!({"error": {"code": "SLOT_UNAVAILABLE", "reason": "slot_taken", "message": "taken",
                                    "retry": {"after": "PT1M"},
                                    "alternatives": [{"start": "2026-10-15T14:00:00-04:00"}]}});
        let r = HostRefusal::from_response(StatusCode::CONFLICT, &body);
        assert_eq!(r.code(), Some(Code::SlotUnavailable));
        assert_eq!(r.reason_text, "slot_taken");
        assert_eq!(r.retry_after, Some(Duration::from_secs(60)));
        assert_eq!(r.alternatives().len(), 1);
    }

    #[test]
    fn a_body_not_of_the_shape_has_no_code() {
        let r = HostRefusal::from_response(StatusCode::BAD_GATEWAY, &json!("proxy says no"));
        assert_eq!(r.code(), None);
        assert_eq!(r.reason(), None);
        let own = json!({"error": {"code": "DECLINED", "reason": "host_declined:closed"}});
        let r = HostRefusal::from_response(StatusCode::CONFLICT, &own);
        assert_eq!((r.code(), r.reason()), (Some(Code::Declined), None));
    }
}
