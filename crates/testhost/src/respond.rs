//! `POST {endpoint}/bookings/{id}/respond` (§5.10): a required participant's
//! answer, checked as a host checks it, so a test can show what a host does
//! with the credential the key app issued for that answer.
//!
//! The request signature (§3.2, replayed nonces refused), the mandate chain
//! (§3.3 checks 1–4, `aud` this host, `cnf.jkt` the signing key), the closed
//! body, idempotency (§9.1), the participant (the mandate's principal, named
//! with `who` and still pending), the contract (§5.10: "The hash MUST be the
//! booking's current offer_sha256"), then the action under every link (§3.3
//! checks 5 and 6). A yes is `book`, the action of accepting an offer; a no is
//! `cancel`, or `book` (whoever may accept may decline). The booking is then
//! answered: confirmed once every required participant accepted, declined with
//! `participant_declined` at the first no, with a fresh receipt.

use std::collections::BTreeMap;

use hyper::StatusCode;
use schcp::claims::{Action, BookingResponse, BookingStatus, EventStatus, ParticipantStatus, ReceiptClaims, Refusal};
use schcp::httpsig::{NonceMemory, RequestParts, SigError};
use schcp::money::Amount;
use schcp::verify::{check_action, ActionCheck, ChainContext, VerifiedChain};
use serde::Deserialize;
use serde_json::{json, Value};

/// What a respond request carries (§5.10), closed.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RespondBody {
    idempotency_key: String,
    accept: bool,
    offer_sha256: String,
}

/// A refusal or a booking response: status and JSON body.
pub(crate) type Answer = (StatusCode, Value);

/// A body past the bound, refused unread.
pub(crate) fn too_large() -> Answer {
    refused(StatusCode::PAYLOAD_TOO_LARGE, "INVALID_REQUEST", "invalid_request", "the body is too large")
}

fn refused(status: StatusCode, code: &str, reason: &str, message: impl Into<String>) -> Answer {
    (status, json!({ "error": { "code": code, "reason": reason, "message": message.into() } }))
}

/// §3.2's replay memory: every (keyid, nonce) whose signature verified, until
/// `created + 301 s`.
#[derive(Default)]
pub(crate) struct Nonces(std::sync::Mutex<BTreeMap<(String, String), i64>>);

impl NonceMemory for Nonces {
    fn began(&self, _now: i64) -> Option<i64> {
        None
    }

    fn remember(&self, keyid: &str, nonce: &str, until: i64, now: i64) -> Result<(), SigError> {
        let mut seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
        seen.retain(|_, until| *until >= now);
        if seen.contains_key(&(keyid.to_owned(), nonce.to_owned())) {
            return Err(SigError::Replayed);
        }
        seen.insert((keyid.to_owned(), nonce.to_owned()), until);
        Ok(())
    }
}

/// What respond keeps between requests: stored answers by (agent key,
/// idempotency key), with the hash of the body that made them (§9.1).
#[derive(Default)]
pub(crate) struct Answers(pub(crate) BTreeMap<(String, String), (String, Answer)>);

/// The host's side of one respond request, as received.
pub(crate) struct Respond<'a> {
    pub(crate) host_id: &'a str,
    pub(crate) req: RequestParts<'a>,
    pub(crate) now: i64,
}

/// Checks everything before the booking is looked at: the signature, the
/// mandate chain and the body. Returns the verified chain, the agent key and the body.
fn verified(r: &Respond<'_>, nonces: &Nonces) -> Result<(VerifiedChain, String, RespondBody), Answer> {
    let (chain, jkt) = signed_under_mandate(r, nonces)?;
    let body = schcp::json::parse(r.req.body)
        .map_err(|e| e.to_string())
        .and_then(|v| serde_json::from_value::<RespondBody>(v).map_err(|e| e.to_string()))
        .map_err(|e| refused(StatusCode::BAD_REQUEST, "INVALID_REQUEST", "invalid_request", e))?;
    Ok((chain, jkt, body))
}

/// §3.2 and §3.3 checks 1–4: the request's signature and its mandate chain.
/// Returns the verified chain and the agent key.
fn signed_under_mandate(r: &Respond<'_>, nonces: &Nonces) -> Result<(VerifiedChain, String), Answer> {
    let agent = schcp::httpsig::verify_request(&r.req, r.now, nonces).map_err(|e| {
        let reason = match e {
            SigError::Stale { .. } => "stale_signature",
            SigError::Replayed => "replayed_nonce",
            _ => "bad_signature",
        };
        refused(StatusCode::UNAUTHORIZED, "BAD_SIGNATURE", reason, e.to_string())
    })?;
    let mandate = r
        .req
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("schcp-mandate"))
        .and_then(|(_, v)| std::str::from_utf8(v).ok())
        .ok_or_else(|| refused(StatusCode::UNAUTHORIZED, "MANDATE_INVALID", "mandate_invalid", "no SchCP-Mandate"))?;
    let ctx = ChainContext { host_id: r.host_id, request_jkt: &agent.jkt, now: r.now, allow_wildcard: false };
    let chain = crate::endpoint::verify_mandate(mandate, &ctx).map_err(|e| {
        let w = e.reason();
        refused(StatusCode::UNAUTHORIZED, w.code.as_str(), w.reason.as_str(), e.to_string())
    })?;
    Ok((chain, agent.jkt))
}

/// The respond operation over `bookings`, with `sign` signing a fresh receipt.
pub(crate) fn respond(
    r: &Respond<'_>,
    booking_id: &str,
    bookings: &mut BTreeMap<String, BookingResponse>,
    nonces: &Nonces,
    answers: &mut Answers,
    sign: impl Fn(&ReceiptClaims) -> Result<String, String>,
) -> Answer {
    let (chain, jkt, body) = match verified(r, nonces) {
        Ok(v) => v,
        Err(a) => return a,
    };
    let body_hash = schcp::hash::sha256_b64(r.req.body);
    let key = (jkt, body.idempotency_key.clone());
    if let Some((hash, answer)) = answers.0.get(&key) {
        if *hash != body_hash {
            return refused(StatusCode::CONFLICT, "IDEMPOTENCY_CONFLICT", "idempotency_conflict", "another body");
        }
        return answer.clone();
    }
    let answer = match bookings.get(booking_id) {
        None => refused(StatusCode::NOT_FOUND, "NOT_FOUND", "not_found", "no such booking"),
        Some(current) => match answered(current, &chain, &body, r.now, &sign) {
            Ok(next) => {
                let value = serde_json::to_value(&next).unwrap_or_default();
                bookings.insert(booking_id.to_owned(), next);
                (StatusCode::OK, value)
            }
            Err(a) => a,
        },
    };
    // §9.1: refusals of the credential (401, 403) are not stored.
    if !matches!(answer.0, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
        answers.0.insert(key, (body_hash, answer.clone()));
    }
    answer
}

/// The booking as it stands after this answer, or the refusal; `current` is unchanged.
fn answered(
    current: &BookingResponse,
    chain: &VerifiedChain,
    body: &RespondBody,
    now: i64,
    sign: &impl Fn(&ReceiptClaims) -> Result<String, String>,
) -> Result<BookingResponse, Answer> {
    let b = &current.booking;
    let participants = b.participants.as_deref().unwrap_or_default();
    let Some(me) = participants.iter().position(|p| p.who.as_deref() == Some(chain.principal())) else {
        return Err(refused(StatusCode::FORBIDDEN, "NOT_PERMITTED", "not_a_participant", "not named by the booking"));
    };
    if !matches!(b.status, BookingStatus::Tentative | BookingStatus::PendingHost)
        || participants[me].status != Some(ParticipantStatus::Pending)
    {
        return Err(refused(StatusCode::CONFLICT, "INVALID_STATE", "not_pending", "nothing to answer"));
    }
    if b.offer_sha256.as_deref() != Some(body.offer_sha256.as_str()) {
        return Err(refused(StatusCode::CONFLICT, "CONTRACT_MISMATCH", "contract_mismatch", "not the contract"));
    }
    allowed(b, chain, body)?;
    let mut next = current.clone();
    let booking = &mut next.booking;
    let ps = booking.participants.get_or_insert_with(Vec::new);
    ps[me].status = Some(if body.accept { ParticipantStatus::Accepted } else { ParticipantStatus::Declined });
    if !body.accept {
        // §5.10: "Declining makes it declined with refusal reason participant_declined".
        booking.status = BookingStatus::Declined;
        booking.event.status = EventStatus::Cancelled;
        booking.refusal = Some(Refusal {
            code: "DECLINED".into(),
            reason: "participant_declined".into(),
            message: None,
            basis: None,
            retry: None,
            remedies: None,
            details: None,
        });
        booking.sequence += 1;
    } else if !ps.iter().any(|p| p.status == Some(ParticipantStatus::Pending))
        && booking.status == BookingStatus::Tentative
    {
        // §5.10: "Accepting from the last required participant makes the booking confirmed (sequence + 1)".
        booking.status = BookingStatus::Confirmed;
        booking.event.status = EventStatus::Confirmed;
        booking.sequence += 1;
    }
    booking.event.sequence = booking.sequence;
    let mut claims: ReceiptClaims = schcp::jws::parse(&current.receipt)
        .ok()
        .and_then(|p| serde_json::from_value(p.payload).ok())
        .ok_or_else(|| refused(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL", "internal", "stored receipt"))?;
    claims.booking = next.booking.clone();
    claims.iat = now;
    next.receipt = sign(&claims).map_err(|e| refused(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL", "internal", e))?;
    Ok(next)
}

/// §3.3 checks 5 and 6 on every link: a yes is `book`; a no is `cancel`, or
/// `book` (a yes's mandate may also say no).
fn allowed(b: &schcp::claims::Booking, chain: &VerifiedChain, body: &RespondBody) -> Result<(), Answer> {
    let parse = |s: &str| schcp::datetime::parse_date_time(s).ok();
    let total = b.total.as_ref().and_then(|t| Amount::parse(&t.amount, &t.currency).ok());
    let check = |scope| ActionCheck {
        scope,
        service_id: Some(&b.service_id),
        start: parse(&b.start),
        end: b.end.as_deref().and_then(parse),
        total,
        booking_id: Some(&b.booking_id),
        offer_sha256: Some(&body.offer_sha256),
        active_bookings: [0, 0],
    };
    let first = if body.accept { Action::Book } else { Action::Cancel };
    let result = match check_action(chain, &check(first)) {
        Err(schcp::Error::MandateScope { .. }) if !body.accept => check_action(chain, &check(Action::Book)),
        other => other,
    };
    result.map_err(|e| {
        let w = e.reason();
        refused(StatusCode::FORBIDDEN, w.code.as_str(), w.reason.as_str(), e.to_string())
    })
}
