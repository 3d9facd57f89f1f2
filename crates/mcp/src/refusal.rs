//! What the model reads when a tool cannot do what it was asked: one sentence,
//! what happened and what to do next, as a tool error (`isError: true`). No
//! section numbers, codes, Unix times or addresses-as-errors in the sentence:
//! the key app's or the host's `code` and `reason` stay beside it in the
//! structured content, for clients that switch on them.

use agent::host::{HostError, HostRefusal};
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

/// What a host was asked to do, so its refusal says what to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostStep {
    /// Reading the discovery document.
    Find,
    /// Asking for free times.
    Availability,
    /// Placing a hold.
    Hold,
    /// Booking a hold.
    Book,
    /// Reading a booking.
    Read,
    /// Cancelling.
    Cancel,
    /// Asking for a new time, or accepting it.
    Reschedule,
    /// Answering an invitation.
    Respond,
}

/// A host's message without the protocol's section references, for the rare
/// sentence that quotes it.
fn plain(message: &str) -> String {
    let mut out = String::new();
    for word in message.split_whitespace() {
        let w = word.trim_matches(|c| c == '(' || c == ')' || c == ';' || c == ',');
        if w.starts_with('§') || (w.len() > 3 && w.chars().all(|c| c.is_ascii_uppercase() || c == '_')) {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.replace("()", "").trim_end_matches(['.', ' ', ':']).to_owned()
}

/// "about 5 minutes", "about 40 seconds".
fn about(secs: u64) -> String {
    match secs {
        0..=89 => format!("about {secs} seconds"),
        _ => format!("about {} minutes", secs.div_ceil(60)),
    }
}

impl Refusal {
    fn new(sentence: impl Into<String>, code: Code, reason: Reason) -> Refusal {
        let sentence = sentence.into();
        Refusal { detail: json!({"error": {"code": code, "reason": reason, "message": sentence}}), sentence }
    }

    /// A refusal of this server's own, before anything was sent.
    pub fn own(sentence: impl Into<String>, reason: Reason) -> Refusal {
        Refusal::new(sentence, Code::InvalidRequest, reason)
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
                "The program listening at {address} is not your key app ({reason}); nothing was sent to it and \
                 nothing it says is to be trusted. Ask the person to start their SchCP Key App and check what \
                 else listens there."
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
            _ => Refusal::new(
                "The key app's address could not be found; ask the person to start the SchCP Key App, or to check \
                 this server's --agent-api setting.",
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
            AgentError::BadId(_) => Refusal::new(
                "That is not a request id; use the request_id a request tool returned (it starts with rq_).",
                Code::InvalidRequest,
                Reason::BadId,
            ),
            _ => Refusal::new(
                "The key app could not be asked just now; try again, and if it keeps failing ask the person to \
                 restart the SchCP Key App.",
                Code::Unavailable,
                Reason::Transport,
            ),
        }
    }

    /// A refusal of the key app, in words.
    pub fn from_api(e: &ApiError) -> Refusal {
        let retry = e.retry_after.map(|d| d.as_secs());
        let sentence = api_sentence(e, retry);
        let mut err = json!({"code": e.code.as_str(), "reason": e.reason, "message": e.message});
        if let Some(s) = retry {
            err["retry_after_seconds"] = json!(s);
        }
        if let Some(d) = &e.details {
            err["details"] = d.clone();
        }
        Refusal { sentence, detail: json!({ "error": err }) }
    }

    /// A failure at a host, for `step`.
    // Long by design: one arm per way a host call fails, each with the assistant's sentence.
    pub fn from_host(e: &HostError, step: HostStep) -> Refusal {
        let (sentence, reason, code) = match e {
            HostError::Refused(r) => return Refusal::from_host_refusal(r, step),
            HostError::UrlRefused { .. } => (
                "That address is not one this assistant may fetch (only public https addresses are); give the \
                 business's own web address, for example maplestreetauto.example."
                    .to_owned(),
                "discovery_url_refused",
                Code::InvalidRequest,
            ),
            HostError::BadUrl { .. } => (
                "That is not a business's web address; give its domain, for example maplestreetauto.example."
                    .to_owned(),
                "bad_discovery_url",
                Code::InvalidRequest,
            ),
            HostError::Unreachable { url, .. } => (
                format!(
                    "The business at {} could not be reached; check the address, or try again later.",
                    host_of(url)
                ),
                "discovery_failed",
                Code::Unavailable,
            ),
            HostError::Discovery { url, .. } => (
                format!(
                    "{} publishes no usable SchCP booking document, so it cannot be booked through this assistant; \
                     tell the person to book with the business directly.",
                    host_of(url)
                ),
                "discovery_invalid",
                Code::Unavailable,
            ),
            HostError::EndpointNotAuthorized { url, .. } => (
                format!(
                    "The booking document at {} sends bookings to another site than its own, so this assistant \
                     will not use it; tell the person to book with the business directly.",
                    host_of(url)
                ),
                "discovery_invalid",
                Code::NotPermitted,
            ),
            HostError::Verification(v) if matches!(v.reason().reason, Reason::Expired) => (
                "The offer has expired; ask the host for a new time with `availability`, then `hold` it again."
                    .to_owned(),
                "expired",
                Code::VerificationFailed,
            ),
            HostError::Verification(_) | HostError::UnexpectedAnswer { .. } => (
                "The business's answer did not check out (its signature or its terms are not valid), so nothing \
                 was done with it; try again later, or tell the person to contact the business."
                    .to_owned(),
                "verification_failed",
                Code::VerificationFailed,
            ),
            HostError::BadId(_) => (
                "That is not an id this assistant gave out; use the hold_id from `hold` or the booking_id from \
                 `book`."
                    .to_owned(),
                "bad_id",
                Code::InvalidRequest,
            ),
            _ => (
                "This server cannot reach businesses as configured (its host trust file is unreadable); ask the \
                 person to check the schcp-mcp settings."
                    .to_owned(),
                "internal_error",
                Code::Internal,
            ),
        };
        Refusal {
            detail: json!({"error": {"from": "host", "code": code.as_str(), "reason": reason,
                                     "message": e.to_string()}}),
            sentence,
        }
    }

    /// A host's §9.2 refusal, in words.
    fn from_host_refusal(r: &HostRefusal, step: HostStep) -> Refusal {
        let retry = r.retry_after.map(|d| d.as_secs());
        let sentence = host_sentence(r, step, retry);
        let mut err = json!({"from": "host", "code": r.code_text, "reason": r.reason_text,
                             "message": r.message.clone().unwrap_or_default()});
        if let Some(s) = retry {
            err["retry_after_seconds"] = json!(s);
        }
        let alternatives = r.alternatives();
        if !alternatives.is_empty() {
            err["alternatives"] = Value::Array(alternatives);
        }
        Refusal { sentence, detail: json!({ "error": err }) }
    }
}

fn host_of(url: &str) -> String {
    reqwest_host(url).unwrap_or_else(|| "that address".into())
}

fn reqwest_host(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    Some(rest.split(['/', ':', '?', '#']).next()?.to_owned()).filter(|h| !h.is_empty())
}

// Long by design: one arm per key app refusal, each the assistant's sentence.
fn api_sentence(e: &ApiError, retry: Option<u64>) -> String {
    let reason = e.registered_reason();
    match (e.code.code(), reason) {
        (_, Some(Reason::AgentNotPaired)) => "This assistant is not paired with the key app: call pair, then ask \
                                              the person to approve the pairing in the key app after comparing the \
                                              code."
            .to_owned(),
        (_, Some(Reason::PairingDeclined)) => "The person said no to pairing this assistant with their key app; do \
                                               not ask again unless the person asks you to."
            .to_owned(),
        (_, Some(Reason::Cooldown)) => format!(
            "The person declined or did not answer this assistant's last two requests, so the key app takes no \
             new one for {}; do not ask again before then, and only if the person asks you to.",
            about(retry.unwrap_or(300))
        ),
        (_, Some(Reason::TooManyPending)) => "Five requests from this assistant already wait for the person; wait \
                                              for their answers (wait_for_answer) or withdraw one (withdraw_request) \
                                              first."
            .to_owned(),
        (_, Some(Reason::NotPending)) => "That request is no longer pending, so it cannot be withdrawn; \
                                          wait_for_answer tells how it ended."
            .to_owned(),
        (_, Some(Reason::Expired)) => {
            "The offer has expired; ask the host for a new time with `availability`, then `hold` it again.".to_owned()
        }
        (_, Some(Reason::BadSignature | Reason::UnknownKid | Reason::WrongIssuer | Reason::AlgMismatch))
            if e.code.code() == Some(Code::VerificationFailed) =>
        {
            "The business's signature on what was handed in does not check out, so nothing was shown to the person; \
             get it again from the host (with `hold` or `booking`) and pass it unchanged."
                .to_owned()
        }
        (_, Some(Reason::DiscoveryUrlRefused | Reason::BadDiscoveryUrl)) => "The key app does not fetch that address \
                                                                             (only a business's public https address); \
                                                                             give the address `find_host` returned."
            .to_owned(),
        (_, Some(Reason::DiscoveryFailed | Reason::DiscoveryInvalid)) => "The key app could not read the business's \
                                                                         booking document; check the address with \
                                                                         `find_host`, or try again later."
            .to_owned(),
        (Some(Code::NotFound), _) => {
            "The key app has no such request from this assistant; use a request_id a request tool returned.".to_owned()
        }
        (Some(Code::IdempotencyConflict), _) => {
            "The key app already has a different request under the same key; this should not happen, report it."
                .to_owned()
        }
        (Some(Code::RateLimited | Code::Unavailable), _) => {
            format!("The key app is busy; try again in {}.", retry.map(about).unwrap_or_else(|| "a few seconds".into()))
        }
        (Some(Code::BadSignature), _) => "The key app did not accept this assistant's signature; check that this \
                                          computer's clock is right, then try again."
            .to_owned(),
        (Some(Code::VerificationFailed), _) => format!(
            "What was handed in did not pass the key app's checks, so nothing was shown to the person ({}); pass \
             the host's answer unchanged, or get a fresh one.",
            plain(&e.message)
        ),
        _ => format!("The key app refused the request, and nothing was shown to the person: {}.", plain(&e.message)),
    }
}

// Long by design: one arm per §9 code or reason a host gives, each the assistant's sentence.
fn host_sentence(r: &HostRefusal, step: HostStep, retry: Option<u64>) -> String {
    let reason = r.reason();
    match (r.code(), reason) {
        (Some(Code::SlotUnavailable), _) => "That time is no longer free; offer the person one of the alternatives \
                                             listed, or look again with `availability`."
            .to_owned(),
        (_, Some(Reason::Expired)) if step == HostStep::Reschedule => "The new time's offer has expired; ask for it \
                                                                       again with `reschedule`."
            .to_owned(),
        (_, Some(Reason::Expired)) => {
            "The offer has expired; ask the host for a new time with `availability`, then `hold` it again.".to_owned()
        }
        (_, Some(Reason::AlreadyStarted)) => "The appointment has already started, so it can no longer be changed \
                                              here; tell the person to contact the business."
            .to_owned(),
        (Some(Code::InvalidState), _) => "The booking can no longer be changed that way (it was already cancelled or \
                                          changed); check it with `booking`."
            .to_owned(),
        (Some(Code::ContractMismatch), _) => "The business's terms changed since the person approved them; get a new \
                                              offer (with `hold`, or `reschedule` for a move) and ask again."
            .to_owned(),
        (Some(Code::StaleSequence), _) => "The booking changed at the business since this assistant last read it; \
                                           read it with `booking`, then try again."
            .to_owned(),
        (_, Some(Reason::MandateExpired)) => "The person's permission for this has expired; ask them for a new one \
                                              (request_mandate), then try again."
            .to_owned(),
        (Some(Code::MandateScope), _) if step == HostStep::Hold => "The person's permission does not include holding \
                                                                    times here; ask for one with request_mandate \
                                                                    (scope hold and book)."
            .to_owned(),
        (Some(Code::MandateScope), _) => {
            "The person's permission does not cover this action; ask the person before doing anything else.".to_owned()
        }
        (Some(Code::MandateLimit), _) => "The business refused because this is outside the limits the person set \
                                          (time, price or number of bookings); tell the person, and ask whether to \
                                          choose another time."
            .to_owned(),
        (Some(Code::MandateInvalid), _) => "The business did not accept the person's permission; ask the person for a \
                                            new one (request_mandate)."
            .to_owned(),
        (Some(Code::BadSignature), _) => "The business did not accept this assistant's signature; check that this \
                                          computer's clock is right, then try again."
            .to_owned(),
        (Some(Code::NotFound), _) => "The business knows no such time, hold or booking; check it with \
                                      `availability` or `booking`."
            .to_owned(),
        (Some(Code::HoldLimit), _) => "This assistant already holds as many times as the business allows; book or \
                                       let one go first."
            .to_owned(),
        (Some(Code::NotPermitted | Code::NotEligible), _) => "The business does not take this booking from this \
                                                              person; tell the person, who can contact the business."
            .to_owned(),
        (Some(Code::RateLimited), _) => {
            format!("The business is busy; try again in {}.", retry.map(about).unwrap_or_else(|| "a minute".into()))
        }
        (Some(Code::OutsideBookingWindow), _) => "That time is not open for booking yet, or is too soon or too far \
                                                  ahead; look for another with `availability`."
            .to_owned(),
        // A reason this server does not know: the host's own words stay in the
        // structured content, where a number or code in them misleads no one.
        _ => {
            "The business refused this; tell the person, and offer another time or to contact the business.".to_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No section number, no Unix time, no upper-case code.
    fn no_machinery(s: &str) {
        assert!(!s.contains('§'), "{s}");
        for w in s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            assert!(!(w.len() >= 9 && w.chars().all(|c| c.is_ascii_digit())), "a Unix time in {s}");
            assert!(!(w.len() > 3 && w.contains('_') && w.chars().all(|c| c.is_ascii_uppercase() || c == '_')), "{s}");
        }
    }

    #[test]
    fn a_declined_pairing_says_no_and_not_to_ask_again() {
        let body = json!({"error": {"code": "RATE_LIMITED", "reason": "pairing_declined", "message": "declined",
                                    "retry": {"after": "PT599S"}}});
        let e = ApiError::from_response(reqwest_status(429), None, &body);
        let r = Refusal::from_api(&e);
        assert!(r.sentence.contains("said no") && r.sentence.contains("do not ask again"), "{}", r.sentence);
        assert!(!r.sentence.contains("599") && !r.sentence.contains("pairing_declined"), "{}", r.sentence);
        assert_eq!(r.detail["error"]["reason"], "pairing_declined");
        no_machinery(&r.sentence);
    }

    #[test]
    fn an_expired_offer_says_what_to_do_next() {
        let body = json!({"error": {"code": "VERIFICATION_FAILED", "reason": "expired",
                                    "message": "offer expired at 1796156088 (§5.2)"}});
        let r = Refusal::from_api(&ApiError::from_response(reqwest_status(422), None, &body));
        assert_eq!(
            r.sentence,
            "The offer has expired; ask the host for a new time with `availability`, then `hold` it again."
        );
        let host = HostRefusal::from_response(
            reqwest_status(409),
            &json!({"error": {"code": "INVALID_STATE", "reason": "expired", "message": "the hold has expired"}}),
        );
        let r = Refusal::from_host(&HostError::Refused(Box::new(host)), HostStep::Book);
        assert!(r.sentence.starts_with("The offer has expired"), "{}", r.sentence);
        assert_eq!(r.detail["error"]["from"], "host");
    }

    #[test]
    fn host_refusals_read_as_one_sentence_without_codes() {
        for (code, reason) in [
            ("SLOT_UNAVAILABLE", "slot_taken"),
            ("MANDATE_LIMIT", "constraint_not_met"),
            ("MANDATE_SCOPE", "out_of_scope"),
            ("CONTRACT_MISMATCH", "contract_mismatch"),
            ("STALE_SEQUENCE", "stale_sequence"),
            ("NEW_CODE", "host_declined:closed"),
        ] {
            let body = json!({"error": {"code": code, "reason": reason, "message": "refused (§5.2) at 1796156088"}});
            let host = HostRefusal::from_response(reqwest_status(409), &body);
            let r = Refusal::from_host(&HostError::Refused(Box::new(host)), HostStep::Hold);
            no_machinery(&r.sentence);
            assert!(!r.sentence.contains(code) && !r.sentence.contains(reason), "{}", r.sentence);
            assert_eq!(r.detail["error"]["reason"], reason);
        }
    }

    #[test]
    fn an_address_refused_is_not_an_address_echoed() {
        let e = HostError::BadId("x".into());
        no_machinery(&Refusal::from_host(&e, HostStep::Read).sentence);
        let e = HostError::Unreachable { url: "https://maplestreetauto.example/x".into(), detail: "refused".into() };
        let r = Refusal::from_host(&e, HostStep::Find);
        assert!(r.sentence.contains("maplestreetauto.example could not be reached"), "{}", r.sentence);
        assert!(!r.sentence.contains("https://"), "{}", r.sentence);
    }

    fn reqwest_status(s: u16) -> reqwest::StatusCode {
        reqwest::StatusCode::from_u16(s).unwrap()
    }
}
