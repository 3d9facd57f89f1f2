//! What the model reads when a tool cannot do what it was asked: one clear
//! sentence it can act on, as a tool error (`isError: true`), with the key
//! app's `code` and `reason` beside it for clients that read structured content.

use agent::{AgentError, ApiError, LocateError};
use schcp::refusal::{Code, Reason};
use serde_json::{json, Value};

/// One refusal, in words and in structure.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The sentence the model reads.
    pub sentence: String,
    /// `{"error": {"code", "reason", "message", "retry_after_seconds"?}}`.
    pub detail: Value,
}

impl Refusal {
    fn new(sentence: impl Into<String>, code: Code, reason: Reason) -> Refusal {
        let sentence = sentence.into();
        Refusal { detail: json!({"error": {"code": code, "reason": reason, "message": sentence}}), sentence }
    }

    /// The key app is not there.
    pub fn not_running(detail: &str) -> Refusal {
        Refusal::new(
            format!(
                "The key app is not running ({detail}); ask the person to start the SchCP Key App, then try again."
            ),
            Code::Unavailable,
            Reason::KeyappNotRunning,
        )
    }

    /// What answers at the key app's address is not the person's key app: it
    /// could not prove it holds the principal key pinned at pairing.
    pub fn impostor(address: &str, reason: &str) -> Refusal {
        let mut r = Refusal::new(
            format!(
                "The program listening at {address} is not your key app ({reason}); nothing was sent to it and                  nothing it says is to be trusted. Ask the person to start their SchCP Key App and check what                  else listens there."
            ),
            Code::NotPermitted,
            Reason::KeyappImpostor,
        );
        r.detail["impostor"] = json!(true);
        r.detail["address"] = json!(address);
        r
    }

    /// A refusal from where the key app's address is looked up.
    pub fn from_locate(e: &LocateError) -> Refusal {
        match e {
            LocateError::NotRunning(p) => Refusal::not_running(&format!("no {}", p.display())),
            other => Refusal::new(
                format!("The key app's address could not be found: {other}."),
                Code::Unavailable,
                Reason::KeyappNotFound,
            ),
        }
    }

    /// A failure of a call to the key app.
    pub fn from_agent(e: &AgentError) -> Refusal {
        match e {
            AgentError::Unreachable { url, .. } => Refusal::not_running(&format!("nothing answers at {url}")),
            AgentError::Api(api) => Refusal::from_api(api),
            AgentError::Impostor { address, reason } => Refusal::impostor(address, reason),
            AgentError::BadId(id) => Refusal::new(
                format!("{id:?} is not a request id; use the request_id a request tool returned (rq_…)."),
                Code::InvalidRequest,
                Reason::BadId,
            ),
            other => {
                Refusal::new(format!("The key app could not be asked: {other}."), Code::Unavailable, Reason::Transport)
            }
        }
    }

    /// A §9 refusal of the key app, in words.
    pub fn from_api(e: &ApiError) -> Refusal {
        let retry = e.retry_after.map(|d| d.as_secs());
        // Branch on the code and the registered reason, never on the message.
        let sentence = match (e.code.code(), e.registered_reason()) {
            (_, Some(Reason::AgentNotPaired)) => "This assistant is not paired with the key app: call pair, then ask \
                                                  the person to approve the pairing in the key app after comparing \
                                                  the code."
                .to_owned(),
            (_, Some(Reason::Cooldown)) => format!(
                "The key app accepts no new request from this assistant for {} seconds, because the person declined \
                 or did not answer its last two requests; do not ask again before then, and ask the person first.",
                retry.unwrap_or(300)
            ),
            (_, Some(Reason::TooManyPending)) => "Five requests from this assistant already wait for the person; wait \
                                                  for their answers (wait_for_answer) or withdraw one \
                                                  (withdraw_request) first."
                .to_owned(),
            (_, Some(Reason::NotPending)) => "That request is no longer pending, so it cannot be withdrawn; \
                                              wait_for_answer tells how it ended."
                .to_owned(),
            (Some(Code::NotFound), _) => {
                "The key app has no such request from this assistant; use a request_id a request tool returned."
                    .to_owned()
            }
            (Some(Code::IdempotencyConflict), _) => {
                "The key app already has a different request under the same key; this should not happen, report it."
                    .to_owned()
            }
            (Some(Code::RateLimited), _) => format!(
                "The key app is busy ({}); try again in {} seconds.",
                e.reason,
                retry.map(|s| s.to_string()).unwrap_or_else(|| "a few".into())
            ),
            (Some(Code::BadSignature), _) => format!(
                "The key app refused this assistant's request signature ({}: {}); check that this machine's \
                 clock is right, then try again.",
                e.reason, e.message
            ),
            _ => format!(
                "The key app refused the request, and nothing was shown to the person: {} ({}): {}.",
                e.reason,
                e.code,
                e.message.trim_end_matches('.')
            ),
        };
        let mut err = json!({"code": e.code.as_str(), "reason": e.reason, "message": e.message});
        if let Some(s) = retry {
            err["retry_after_seconds"] = json!(s);
        }
        if let Some(d) = &e.details {
            err["details"] = d.clone();
        }
        Refusal { sentence, detail: json!({ "error": err }) }
    }
}
