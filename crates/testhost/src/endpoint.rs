//! The example host's SchCP endpoint (§5.1–§5.7) for agents to be tested
//! against: availability, holds, confirm, `GET /bookings/{id}` of what it
//! booked, cancel, change offers and reschedule. Every request's §3.2
//! signature is verified (nonces remembered), every mandate chain checked
//! with `schcp::verify` (§3.3 checks 1–6; a compact or an SD-JWT VC mandate,
//! §3.4) before anything changes. A hold is vouched for by the first
//! attestation the host honours (§7.5), which it records and counts nothing by.
//!
//! Simplifications, all on the host's side of the protocol: the oil change is
//! free on weekdays at every whole hour from 9:00 to 16:00 host time; one
//! principal's bookings are only theirs to read; no webhooks or reputation.
//! Mandates come compact (§3.3) or as SD-JWT VC presentations (§3.4). A
//! shared booking limit (§3.3 "One consent, several hosts") is claimed at the
//! principal's status API before a confirm and released at a cancel, on status
//! URLs this host can reach (`status_claims`: loopback only); a release that
//! fails is not retried, so the principal has one booking fewer left, never
//! one more.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use bytes::Bytes;
use chrono::{DateTime, Datelike, Duration as Span, FixedOffset, TimeZone, Timelike, Utc, Weekday};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::{Method, Request, Response, StatusCode};
use schcp::claims::{
    Action, Approved, BookingResponse, BookingStatus, EventStatus, Hold, HoldStatus, Money, Proposal, ProposedBy, Slot,
};
use schcp::httpsig::{NonceMemory, RequestParts, SigError};
use schcp::refusal::{Code, Reason};
use schcp::verify::{
    check_action, verify_mandate_chain, verify_sd_jwt_mandate, ActionCheck, ChainContext, VerifiedChain,
};
use serde_json::{json, Value};

use crate::Shared;

/// Where the endpoint is, under the host's origin (§2.1 `endpoint`).
pub(crate) const ENDPOINT_PATH: &str = "/schcp/v0";
/// The oil change's length and the first and last starts of a day.
const SLOT_MINUTES: i64 = 45;
const FIRST_HOUR: u32 = 9;
const LAST_HOUR: u32 = 16;
/// §2.1 policies.holds.max_ttl, and the default a hold gets.
const MAX_TTL: u64 = 600;
const DEFAULT_TTL: u64 = 300;
/// §2.1 booking_window of the oil change.
const MIN_NOTICE_SECS: i64 = 2 * 3600;
const MAX_ADVANCE_DAYS: i64 = 60;
/// Largest request body read.
const MAX_BODY: usize = 64 * 1024;

struct HeldSlot {
    hold: Hold,
    principal: String,
    expires: i64,
    /// The attester whose pool the hold counts against (§7.5).
    vouched_by: Option<String>,
}

struct Made {
    response: BookingResponse,
    principal: String,
    /// The root mandate's jti the receipt names (§5.3).
    mandate: String,
    /// The open change offer (§5.7), with its slot.
    change: Option<Proposal>,
    /// The shared-limit claims this booking holds (§3.3): each status URL,
    /// with the hold id that names the claim.
    claims: Vec<(String, String)>,
}

/// The endpoint's own state, beside the discovery state in `Shared`.
#[derive(Default)]
pub(crate) struct Endpoint {
    holds: Mutex<BTreeMap<String, HeldSlot>>,
    made: Mutex<BTreeMap<String, Made>>,
    nonces: Nonces,
    /// Answers already given, by (agent key, idempotency key) (§9.1).
    answered: Mutex<HashMap<(String, String), (StatusCode, Value)>>,
}

#[derive(Default)]
struct Nonces(Mutex<HashMap<(String, String), i64>>);

impl NonceMemory for Nonces {
    fn began(&self, _now: i64) -> Option<i64> {
        None
    }
    fn remember(&self, keyid: &str, nonce: &str, until: i64, now: i64) -> Result<(), SigError> {
        let mut seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
        seen.retain(|_, until| *until >= now);
        match seen.get(&(keyid.to_owned(), nonce.to_owned())) {
            Some(_) => Err(SigError::Replayed),
            None => {
                seen.insert((keyid.to_owned(), nonce.to_owned()), until);
                Ok(())
            }
        }
    }
}

type Answer = Response<Full<Bytes>>;

/// One §9.2 refusal.
fn refuse(code: Code, reason: &str, message: &str) -> (StatusCode, Value) {
    let status = code.status().and_then(|s| StatusCode::from_u16(s).ok()).unwrap_or(StatusCode::CONFLICT);
    (status, json!({"error": {"code": code, "reason": reason, "message": message}}))
}

fn from_schcp(e: &schcp::Error) -> (StatusCode, Value) {
    let r = e.reason();
    refuse(r.code, r.reason.as_str(), &e.to_string())
}

fn answer((status, body): (StatusCode, Value)) -> Answer {
    let mut r = Response::new(Full::new(Bytes::from(serde_json::to_vec(&body).unwrap_or_default())));
    *r.status_mut() = status;
    r.headers_mut().insert(hyper::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    // §3.1: every response from a host endpoint carries SchCP-Version.
    r.headers_mut().insert("schcp-version", HeaderValue::from_static("0.4"));
    r
}

/// Whether the endpoint answers `method path`: everything under it but an
/// unsigned GET of a booking it did not make (served as given,
/// `TestHost::serve_booking`). A GET with a mandate is checked here, whoever
/// made the booking (§5.5, §5.10: a participant reads it under their own).
pub(crate) fn owns(shared: &Shared, method: &Method, path: &str, with_mandate: bool) -> bool {
    let Some(rest) = path.strip_prefix(ENDPOINT_PATH) else { return false };
    match rest.strip_prefix("/bookings/") {
        Some(id) if method == Method::GET && !id.contains('/') => {
            with_mandate || shared.endpoint.made.lock().unwrap_or_else(|e| e.into_inner()).contains_key(id)
        }
        Some(id) => id.ends_with("/cancel") || id.ends_with("/change-offer") || id.ends_with("/reschedule"),
        None => true,
    }
}

/// A verified request: who signed it, under which chain, with which body.
struct Caller {
    jkt: String,
    chain: Option<VerifiedChain>,
    body: Value,
}

/// Answers one request the endpoint owns.
pub(crate) async fn handle(shared: &Shared, req: Request<Incoming>) -> Answer {
    let (parts, body) = req.into_parts();
    let bytes = match Limited::new(body, MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => return answer(refuse(Code::InvalidRequest, "too_large", "the body is too large")),
    };
    let path = parts.uri.path().to_owned();
    let now = Utc::now().timestamp();
    let caller = match verify(shared, &parts, &bytes, now) {
        Ok(c) => c,
        Err(e) => return answer(e),
    };
    let rest = path.strip_prefix(ENDPOINT_PATH).unwrap_or_default();
    let segments: Vec<&str> = rest.trim_start_matches('/').split('/').collect();
    let key = caller.body.get("idempotency_key").and_then(Value::as_str).map(|k| (caller.jkt.clone(), k.to_owned()));
    if let Some(k) = &key {
        if let Some(done) = shared.endpoint.answered.lock().unwrap_or_else(|e| e.into_inner()).get(k) {
            return answer(done.clone());
        }
    }
    let result = match (&parts.method, segments.as_slice()) {
        (&Method::POST, ["availability"]) => availability(shared, &caller.body, now),
        (&Method::POST, ["holds"]) => place_hold(shared, &caller, now),
        (&Method::GET, ["holds", id]) => read_hold(shared, &caller, id, false),
        (&Method::DELETE, ["holds", id]) => read_hold(shared, &caller, id, true),
        (&Method::POST, ["holds", id, "confirm"]) => confirm(shared, &caller, id, now).await,
        (&Method::GET, ["bookings", id]) => read_booking(shared, &caller, id),
        (&Method::POST, ["bookings", id, "cancel"]) => cancel(shared, &caller, id, now).await,
        (&Method::POST, ["bookings", id, "change-offer"]) => change_offer(shared, &caller, id, now),
        (&Method::POST, ["bookings", id, "reschedule"]) => reschedule(shared, &caller, id, now),
        _ => Err(refuse(Code::NotFound, "not_found", "no such operation")),
    };
    let result = result.unwrap_or_else(|e| e);
    if let Some(k) = key {
        if result.0.is_success() {
            shared.endpoint.answered.lock().unwrap_or_else(|e| e.into_inner()).insert(k, result.clone());
        }
    }
    answer(result)
}

/// §3.2 and §3.3 checks 1–4.
fn verify(
    shared: &Shared,
    parts: &hyper::http::request::Parts,
    body: &[u8],
    now: i64,
) -> Result<Caller, (StatusCode, Value)> {
    // §3.2: the public URL the agent addressed, from the configured origin.
    let target = format!("https://{}{}", shared.config.domain, parts.uri.path_and_query().map_or("", |p| p.as_str()));
    let headers = parts.headers.iter().map(|(n, v)| (n.as_str().to_owned(), v.as_bytes().to_vec())).collect();
    let request = RequestParts { method: parts.method.as_str(), target_uri: &target, headers, body };
    let agent = schcp::httpsig::verify_request(&request, now, &shared.endpoint.nonces).map_err(|e| {
        let reason = match e {
            SigError::Stale { .. } | SigError::BeforeMemory { .. } => Reason::StaleSignature,
            SigError::Replayed => Reason::ReplayedNonce,
            _ => Reason::BadSignature,
        };
        refuse(Code::BadSignature, reason.as_str(), &e.to_string())
    })?;
    let chain = match parts.headers.get("schcp-mandate").and_then(|v| v.to_str().ok()) {
        Some(m) => {
            let ctx =
                ChainContext { host_id: &shared.config.host_id, request_jkt: &agent.jkt, now, allow_wildcard: false };
            // §3.4: an SD-JWT VC mandate (issuer JWT, disclosures, key binding) or a compact one.
            Some(verify_mandate(m, &ctx).map_err(|e| from_schcp(&e))?)
        }
        None => None,
    };
    let body = if body.is_empty() {
        Value::Null
    } else {
        schcp::json::parse(body).map_err(|e| refuse(Code::InvalidRequest, "malformed_json", &e.to_string()))?
    };
    Ok(Caller { jkt: agent.jkt, chain, body })
}

/// §3.4: "A verifier tells the formats apart by ~, which a compact JWS never
/// contains"; an SD-JWT VC presentation is evaluated as the one-link chain of
/// the mandate it discloses to this host.
pub(crate) fn verify_mandate(m: &str, ctx: &ChainContext<'_>) -> Result<VerifiedChain, schcp::Error> {
    if m.contains('~') {
        verify_sd_jwt_mandate(m, ctx)
    } else {
        verify_mandate_chain(m, ctx)
    }
}

fn need_chain(caller: &Caller) -> Result<&VerifiedChain, (StatusCode, Value)> {
    caller
        .chain
        .as_ref()
        .ok_or_else(|| refuse(Code::MandateInvalid, "mandate_invalid", "this operation needs a mandate"))
}

fn tz(shared: &Shared) -> chrono_tz::Tz {
    shared.config.tz.parse().unwrap_or(chrono_tz::America::Toronto)
}

fn cad(amount: &str) -> Money {
    Money::new(amount, "CAD")
}

/// Whether `start` is one of the oil change's starts and free: not held by a
/// live hold, not booked, not an open change offer's.
fn free(shared: &Shared, start: DateTime<FixedOffset>, now: i64) -> bool {
    let local = start.with_timezone(&tz(shared));
    let on_grid = !matches!(local.weekday(), Weekday::Sat | Weekday::Sun)
        && (FIRST_HOUR..=LAST_HOUR).contains(&local.hour())
        && local.minute() == 0
        && local.second() == 0;
    let ts = start.timestamp();
    if !on_grid || ts < now + MIN_NOTICE_SECS || ts > now + MAX_ADVANCE_DAYS * 86_400 {
        return false;
    }
    let same = |s: &str| schcp::datetime::parse_date_time(s).is_ok_and(|t| t.timestamp() == ts);
    let held = shared
        .endpoint
        .holds
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .values()
        .any(|h| h.expires > now && matches!(h.hold.status, HoldStatus::Held) && same(&h.hold.start));
    let booked = shared.endpoint.made.lock().unwrap_or_else(|e| e.into_inner()).values().any(|m| {
        (!matches!(m.response.booking.status, BookingStatus::Cancelled) && same(&m.response.booking.start))
            || m.change.as_ref().is_some_and(|p| same(&p.start))
    });
    !held && !booked
}

/// The free starts between `from` and `to`, at most `limit`.
fn free_starts(shared: &Shared, from: i64, to: i64, limit: usize, now: i64) -> Vec<DateTime<FixedOffset>> {
    let tz = tz(shared);
    let mut out = Vec::new();
    let mut t = (from.max(now) / 3600 + 1) * 3600;
    while t + SLOT_MINUTES * 60 <= to && out.len() < limit {
        if let Some(local) = tz.timestamp_opt(t, 0).single() {
            let fixed = local.fixed_offset();
            if free(shared, fixed, now) {
                out.push(fixed);
            }
        }
        t += 3600;
    }
    out
}

fn slot_json(start: DateTime<FixedOffset>) -> Value {
    let end = start + Span::minutes(SLOT_MINUTES);
    json!({"start": start.to_rfc3339(), "end": end.to_rfc3339(),
           "price": cad("79.00"), "total": cad("89.27")})
}

fn text<'a>(body: &'a Value, key: &str) -> Result<&'a str, (StatusCode, Value)> {
    body.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| refuse(Code::InvalidRequest, Reason::MissingMember.as_str(), &format!("{key} is required")))
}

fn date(s: &str) -> Result<DateTime<FixedOffset>, (StatusCode, Value)> {
    schcp::datetime::parse_date_time(s)
        .map_err(|e| refuse(Code::InvalidRequest, Reason::DateTimeInvalid.as_str(), &e.to_string()))
}

fn known_service(body: &Value) -> Result<(), (StatusCode, Value)> {
    match text(body, "service_id")? {
        "oil-change" => Ok(()),
        other => Err(refuse(Code::NotFound, "not_found", &format!("no service {other}"))),
    }
}

/// `POST /availability` (§5.1).
fn availability(shared: &Shared, body: &Value, now: i64) -> Result<(StatusCode, Value), (StatusCode, Value)> {
    known_service(body)?;
    let window = body.get("window").unwrap_or(&Value::Null);
    let (from, to) = (date(text(window, "start")?)?, date(text(window, "end")?)?);
    let limit = body.get("limit").and_then(Value::as_u64).unwrap_or(20).clamp(1, 100) as usize;
    let slots: Vec<Value> =
        free_starts(shared, from.timestamp(), to.timestamp(), limit, now).into_iter().map(slot_json).collect();
    Ok((
        StatusCode::OK,
        json!({"service_id": "oil-change", "timezone": shared.config.tz, "slots": slots,
               "as_of": Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)}),
    ))
}

fn check(chain: &VerifiedChain, action: &ActionCheck<'_>) -> Result<(), (StatusCode, Value)> {
    check_action(chain, action).map_err(|e| from_schcp(&e))
}

fn action<'a>(scope: Action, start: DateTime<FixedOffset>) -> ActionCheck<'a> {
    ActionCheck {
        scope,
        service_id: Some("oil-change"),
        start: Some(start),
        end: Some(start + Span::minutes(SLOT_MINUTES)),
        total: schcp::money::Amount::parse("89.27", "CAD").ok(),
        booking_id: None,
        offer_sha256: None,
        active_bookings: [0, 0],
    }
}

fn utc(ts: i64) -> String {
    Utc.timestamp_opt(ts, 0).single().unwrap_or_default().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// `POST /holds` (§5.2): a slot held, its offer signed once.
fn place_hold(shared: &Shared, caller: &Caller, now: i64) -> Result<(StatusCode, Value), (StatusCode, Value)> {
    let chain = need_chain(caller)?;
    known_service(&caller.body)?;
    let start = date(text(&caller.body, "start")?)?;
    check(chain, &action(Action::Hold, start))?;
    if !free(shared, start, now) {
        let alternatives: Vec<Value> =
            free_starts(shared, start.timestamp() - 86_400, start.timestamp() + 7 * 86_400, 5, now)
                .into_iter()
                .map(slot_json)
                .collect();
        let (status, mut body) = refuse(Code::SlotUnavailable, "slot_taken", "that time cannot be held");
        body["error"]["alternatives"] = Value::Array(alternatives);
        return Err((status, body));
    }
    let ttl = caller
        .body
        .get("ttl")
        .and_then(Value::as_str)
        .and_then(|t| schcp::duration::Duration::parse(t).ok())
        .map_or(DEFAULT_TTL, |d| d.as_seconds())
        .clamp(1, MAX_TTL) as i64;
    let hold_id = format!("h_{}", shared.next_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let end = start + Span::minutes(SLOT_MINUTES);
    let mut offer = crate::claims::priced_offer(&shared.config, hold_id.clone(), now);
    offer.exp = now + ttl;
    offer.slot = Slot { start: start.to_rfc3339(), end: Some(end.to_rfc3339()) };
    let compact =
        shared.sign(schcp::jws::Typ::Offer, &offer).map_err(|e| refuse(Code::Internal, "internal_error", &e))?;
    let hold = Hold {
        hold_id: hold_id.clone(),
        status: HoldStatus::Held,
        service_id: "oil-change".into(),
        start: offer.slot.start.clone(),
        end: offer.slot.end.clone(),
        open_end: None,
        expires_at: utc(now + ttl),
        price: Some(cad("79.00")),
        total: Some(cad("89.27")),
        party_size: None,
        place: None,
        offer: compact,
    };
    let value = serde_json::to_value(&hold).unwrap_or_default();
    let principal = chain.principal().to_owned();
    shared
        .endpoint
        .holds
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(hold_id, HeldSlot { hold, principal, expires: now + ttl, vouched_by: vouched_by(shared, chain, now) });
    Ok((StatusCode::CREATED, value))
}

/// §7.5: the attester of the first attestation in the root (§3.3: a host
/// reads them from the root only) that this host honours: its `iss` in
/// `trust.attesters`, its signature by that attester's keys, about the
/// mandate's principal, `iat ≤ now < exp`. Any other is ignored, never refused.
fn vouched_by(shared: &Shared, chain: &VerifiedChain, now: i64) -> Option<String> {
    let held = chain.root.claims.attestations.as_deref().unwrap_or_default();
    held.iter().find_map(|a| {
        schcp::verify::verify_attestation(a, &shared.config.attesters, chain.principal(), now)
            .ok()
            .map(|v| v.claims.iss)
    })
}

/// `GET /holds/{id}` and `DELETE /holds/{id}` (§5.4).
fn read_hold(
    shared: &Shared,
    caller: &Caller,
    id: &str,
    release: bool,
) -> Result<(StatusCode, Value), (StatusCode, Value)> {
    let chain = need_chain(caller)?;
    let mut holds = shared.endpoint.holds.lock().unwrap_or_else(|e| e.into_inner());
    let held = holds
        .get_mut(id)
        .filter(|h| h.principal == chain.principal())
        .ok_or_else(|| refuse(Code::NotFound, "not_found", "no such hold"))?;
    if release && matches!(held.hold.status, HoldStatus::Held) {
        held.hold.status = HoldStatus::Released;
    }
    Ok((StatusCode::OK, serde_json::to_value(&held.hold).unwrap_or_default()))
}

/// The shared-limit links of a chain (§3.3): the status URL of each link
/// with `shared_limit`, `None` for such a link without one.
fn shared_limits(chain: &VerifiedChain) -> Vec<Option<String>> {
    chain
        .links()
        .filter(|l| l.claims.constraints.as_ref().is_some_and(|c| c.shared_limit == Some(true)))
        .map(|l| l.claims.status.clone())
        .collect()
}

/// §3.3: "A refusal, a link without a status URL, or a key app that does not
/// answer refuses the confirm with 403 MANDATE_LIMIT, reason shared_limit_reached."
fn limit_reached(message: &str) -> (StatusCode, Value) {
    refuse(Code::MandateLimit, Reason::SharedLimitReached.as_str(), message)
}

/// `POST /holds/{id}/confirm` (§5.3): the checks, then a unit claimed for each
/// shared-limit link (§3.3), then the hold, the hash, the mandate and the
/// booking written under one lock. A confirm that then fails gives back only
/// the claims it made (201), never one another call made (200).
async fn confirm(
    shared: &Shared,
    caller: &Caller,
    id: &str,
    now: i64,
) -> Result<(StatusCode, Value), (StatusCode, Value)> {
    let chain = need_chain(caller)?;
    confirmable(shared, caller, id, now)?;
    let mut made = Vec::new();
    let mut holding = Vec::new();
    for status in shared_limits(chain) {
        let Some(status) = status else {
            give_back(shared, &made).await;
            return Err(limit_reached("a shared booking limit without a status URL"));
        };
        let claim = shared.claim_request(&status, id, crate::Signing::Unsigned, now);
        match crate::status_claims::send(&claim).await {
            Ok(201) => made.push((status.clone(), id.to_owned())),
            Ok(200) => {}
            Ok(409) => {
                give_back(shared, &made).await;
                return Err(limit_reached("no bookings are left under the shared limit"));
            }
            Ok(other) => {
                give_back(shared, &made).await;
                return Err(limit_reached(&format!("the status API refused the claim ({other})")));
            }
            Err(e) => {
                give_back(shared, &made).await;
                return Err(limit_reached(&e.to_string()));
            }
        }
        holding.push((status, id.to_owned()));
    }
    match commit_confirm(shared, caller, id, now, holding) {
        Ok(v) => Ok(v),
        Err(e) => {
            give_back(shared, &made).await;
            Err(e)
        }
    }
}

/// Gives back each claim (status URL, hold id), once; a status API that
/// does not answer keeps its unit (module doc).
async fn give_back(shared: &Shared, claims: &[(String, String)]) {
    for (status, hold_id) in claims {
        let release = shared.release_request(status, hold_id, crate::Signing::Unsigned, Utc::now().timestamp());
        let _ = crate::status_claims::send(&release).await;
    }
}

/// The confirm's checks before any unit is claimed: the hold, its hash and
/// the action under the mandate.
fn confirmable(shared: &Shared, caller: &Caller, id: &str, now: i64) -> Result<(), (StatusCode, Value)> {
    let chain = need_chain(caller)?;
    let hash = text(&caller.body, "offer_sha256")?;
    let holds = shared.endpoint.holds.lock().unwrap_or_else(|e| e.into_inner());
    let held = holds
        .get(id)
        .filter(|h| h.principal == chain.principal())
        .ok_or_else(|| refuse(Code::NotFound, "not_found", "no such hold"))?;
    if !matches!(held.hold.status, HoldStatus::Held) || held.expires <= now {
        return Err(refuse(Code::InvalidState, Reason::Expired.as_str(), "the hold has expired or was released"));
    }
    let offer_hash = schcp::hash::jws_sha256(&held.hold.offer);
    if hash != offer_hash {
        let (status, mut body) = refuse(Code::ContractMismatch, "contract_mismatch", "that is not this hold's offer");
        body["error"]["details"] = json!({"offer_sha256": offer_hash});
        return Err((status, body));
    }
    let start = date(&held.hold.start)?;
    check(chain, &ActionCheck { offer_sha256: Some(&offer_hash), ..action(Action::Book, start) })
}

/// The booking written, the checks made again under the lock (the hold may
/// have lapsed while the units were claimed).
fn commit_confirm(
    shared: &Shared,
    caller: &Caller,
    id: &str,
    now: i64,
    claims: Vec<(String, String)>,
) -> Result<(StatusCode, Value), (StatusCode, Value)> {
    confirmable(shared, caller, id, now)?;
    let chain = need_chain(caller)?;
    let mut holds = shared.endpoint.holds.lock().unwrap_or_else(|e| e.into_inner());
    let held = holds
        .get_mut(id)
        .filter(|h| h.principal == chain.principal())
        .ok_or_else(|| refuse(Code::NotFound, "not_found", "no such hold"))?;
    let root = &chain.root.claims;
    let approved = match root.constraints.as_ref().and_then(|c| c.offer_sha256.as_ref()) {
        Some(_) => Approved::Offer,
        None => Approved::Limits,
    };
    let booking_id = format!("b_{}", shared.next_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let claims_made = claims;
    let receipt_claims =
        crate::claims::receipt(&shared.config, &held.hold.offer, booking_id.clone(), &root.jti, approved, now)
            .map_err(|e| refuse(Code::Internal, "internal_error", &e.to_string()))?;
    let receipt = shared
        .sign(schcp::jws::Typ::Receipt, &receipt_claims)
        .map_err(|e| refuse(Code::Internal, "internal_error", &e))?;
    let response = BookingResponse {
        booking: receipt_claims.booking,
        receipt,
        offer: Some(held.hold.offer.clone()),
        contract: None,
        pending_contract: None,
    };
    held.hold.status = HoldStatus::Confirmed;
    let value = serde_json::to_value(&response).unwrap_or_default();
    shared.endpoint.made.lock().unwrap_or_else(|e| e.into_inner()).insert(
        booking_id,
        Made {
            response,
            principal: chain.principal().to_owned(),
            mandate: root.jti.clone(),
            change: None,
            claims: claims_made,
        },
    );
    Ok((StatusCode::CREATED, value))
}

/// The booking `id` of the chain's principal, with the check of `scope` on it.
fn with_booking<T>(
    shared: &Shared,
    caller: &Caller,
    id: &str,
    scope: Option<Action>,
    f: impl FnOnce(&mut Made, &VerifiedChain) -> Result<T, (StatusCode, Value)>,
) -> Result<T, (StatusCode, Value)> {
    let chain = need_chain(caller)?;
    let mut made = shared.endpoint.made.lock().unwrap_or_else(|e| e.into_inner());
    let m = made
        .get_mut(id)
        .filter(|m| m.principal == chain.principal())
        .ok_or_else(|| refuse(Code::NotFound, "not_found", "no such booking"))?;
    if let Some(scope) = scope {
        let start = date(&m.response.booking.start)?;
        let service_id = Some(m.response.booking.service_id.as_str());
        check(chain, &ActionCheck { booking_id: Some(id), service_id, ..action(scope, start) })?;
    }
    f(m, chain)
}

/// §3.3 "Constraints bind reads too": a booking is read only under a chain
/// whose every link admits it. A `bookings` list must name it, and a
/// `services` list must include its service, so a management mandate for
/// one service reads nothing booked for another. Otherwise 403
/// MANDATE_LIMIT (§3.3 check 6), reason constraint_not_met.
fn admits_read(chain: &VerifiedChain, id: &str, service_id: &str) -> Result<(), (StatusCode, Value)> {
    let refused = |message| refuse(Code::MandateLimit, Reason::ConstraintNotMet.as_str(), message);
    for constraints in chain.links().filter_map(|l| l.claims.constraints.as_ref()) {
        if constraints.bookings.as_ref().is_some_and(|b| !b.iter().any(|x| x == id)) {
            return Err(refused("the mandate does not name this booking"));
        }
        if constraints.services.as_ref().is_some_and(|s| !s.iter().any(|x| x == service_id)) {
            return Err(refused("the mandate does not cover this booking's service"));
        }
    }
    Ok(())
}

/// `GET /bookings/{id}` (§5.5): a booking this endpoint made, for its
/// principal; or one it was given to serve, for a participant it names with
/// `who` (§5.10); either under a mandate whose every link admits the booking
/// ([`admits_read`]).
fn read_booking(shared: &Shared, caller: &Caller, id: &str) -> Result<(StatusCode, Value), (StatusCode, Value)> {
    let is_made = shared.endpoint.made.lock().unwrap_or_else(|e| e.into_inner()).contains_key(id);
    if !is_made {
        let chain = need_chain(caller)?;
        let served = shared.state().bookings.get(id).cloned();
        let Some(served) = served else { return Err(refuse(Code::NotFound, "not_found", "no such booking")) };
        let named = served.booking.participants.as_deref().unwrap_or_default().iter().any(|p| {
            p.who.as_deref() == Some(chain.principal())
                && !matches!(p.status, Some(schcp::claims::ParticipantStatus::Declined))
        });
        if !named {
            // §5.5: nothing is said about a booking to someone it does not name.
            return Err(refuse(Code::NotFound, "not_found", "no such booking"));
        }
        admits_read(chain, id, &served.booking.service_id)?;
        return Ok((StatusCode::OK, serde_json::to_value(&served).unwrap_or_default()));
    }
    with_booking(shared, caller, id, None, |m, chain| {
        admits_read(chain, id, &m.response.booking.service_id)?;
        let mut v = serde_json::to_value(&m.response).unwrap_or_default();
        if let Some(p) = &m.change {
            v["booking"]["proposal"] = serde_json::to_value(p).unwrap_or_default();
        }
        Ok((StatusCode::OK, v))
    })
}

/// Signs a fresh receipt of `m`'s booking as it now stands.
fn resign(shared: &Shared, m: &mut Made, now: i64) -> Result<(), (StatusCode, Value)> {
    let contract = m.response.offer.clone().unwrap_or_default();
    let mut claims = crate::claims::receipt(
        &shared.config,
        &contract,
        m.response.booking.booking_id.clone(),
        &m.mandate,
        Approved::Offer,
        now,
    )
    .map_err(|e| refuse(Code::Internal, "internal_error", &e.to_string()))?;
    let consent = schcp::jws::parse(&m.response.receipt)
        .ok()
        .and_then(|p| p.claims::<schcp::claims::ReceiptClaims>().ok())
        .and_then(|c| c.consent);
    claims.consent = consent.or(claims.consent);
    claims.booking.booking_id = m.response.booking.booking_id.clone();
    claims.booking.status = m.response.booking.status;
    claims.booking.sequence = m.response.booking.sequence;
    claims.booking.event.sequence = m.response.booking.sequence;
    claims.booking.event.uid = m.response.booking.event.uid.clone();
    if matches!(claims.booking.status, BookingStatus::Cancelled) {
        claims.booking.event.status = EventStatus::Cancelled;
    }
    m.response.receipt =
        shared.sign(schcp::jws::Typ::Receipt, &claims).map_err(|e| refuse(Code::Internal, "internal_error", &e))?;
    m.response.booking = claims.booking;
    Ok(())
}

/// `POST /bookings/{id}/cancel` (§5.6): free and unrecorded before the start.
/// §3.3: "A guest's cancel gives the unit back before the endpoint answers, so
/// the agent can book again at once."
async fn cancel(
    shared: &Shared,
    caller: &Caller,
    id: &str,
    now: i64,
) -> Result<(StatusCode, Value), (StatusCode, Value)> {
    let (answer, claims) = with_booking(shared, caller, id, Some(Action::Cancel), |m, _| {
        if matches!(m.response.booking.status, BookingStatus::Cancelled) {
            return Err(refuse(Code::InvalidState, "invalid_state", "the booking is already cancelled"));
        }
        if date(&m.response.booking.start)?.timestamp() <= now {
            return Err(refuse(Code::InvalidState, Reason::AlreadyStarted.as_str(), "the booking has started"));
        }
        m.response.booking.status = BookingStatus::Cancelled;
        m.response.booking.sequence += 1;
        m.change = None;
        resign(shared, m, now)?;
        // Each claim is given back once: it leaves the booking here.
        let claims = std::mem::take(&mut m.claims);
        Ok(((StatusCode::OK, serde_json::to_value(&m.response).unwrap_or_default()), claims))
    })?;
    give_back(shared, &claims).await;
    Ok(answer)
}

/// `POST /bookings/{id}/change-offer` (§5.7 step 1): the new time held, a
/// change offer chained to the current contract by `prev`.
fn change_offer(
    shared: &Shared,
    caller: &Caller,
    id: &str,
    now: i64,
) -> Result<(StatusCode, Value), (StatusCode, Value)> {
    let start = date(text(&caller.body, "start")?)?;
    // The free check takes the bookings lock: done before `with_booking` holds it.
    let is_free = free(shared, start, now);
    with_booking(shared, caller, id, Some(Action::Reschedule), |m, chain| {
        let sequence = caller.body.get("sequence").and_then(Value::as_u64);
        if sequence != Some(u64::from(m.response.booking.sequence)) {
            return Err(refuse(Code::StaleSequence, "stale_sequence", "the booking has changed since"));
        }
        let service_id = Some(m.response.booking.service_id.as_str());
        check(chain, &ActionCheck { booking_id: Some(id), service_id, ..action(Action::Reschedule, start) })?;
        if !is_free {
            return Err(refuse(Code::SlotUnavailable, "slot_taken", "that time cannot be held"));
        }
        let prev = m.response.booking.offer_sha256.clone().unwrap_or_default();
        let mut offer = crate::claims::change_offer(&shared.config, id, &prev, now);
        let end = start + Span::minutes(SLOT_MINUTES);
        offer.exp = now + DEFAULT_TTL as i64;
        offer.slot = Slot { start: start.to_rfc3339(), end: Some(end.to_rfc3339()) };
        let compact =
            shared.sign(schcp::jws::Typ::Offer, &offer).map_err(|e| refuse(Code::Internal, "internal_error", &e))?;
        let proposal = Proposal {
            proposal_id: format!("p_{}", shared.next_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed)),
            start: offer.slot.start.clone(),
            end: offer.slot.end.clone(),
            expires_at: utc(offer.exp),
            by: ProposedBy::Guest,
            place: None,
            offer: compact,
            awaiting_host: None,
            consent: None,
        };
        let value = serde_json::to_value(&proposal).unwrap_or_default();
        m.change = Some(proposal);
        Ok((StatusCode::CREATED, value))
    })
}

/// `POST /bookings/{id}/reschedule` (§5.7 step 2): the open change offer
/// becomes the booking's contract, sequence + 1.
fn reschedule(
    shared: &Shared,
    caller: &Caller,
    id: &str,
    now: i64,
) -> Result<(StatusCode, Value), (StatusCode, Value)> {
    let hash = text(&caller.body, "offer_sha256")?.to_owned();
    with_booking(shared, caller, id, None, |m, chain| {
        if caller.body.get("sequence").and_then(Value::as_u64) != Some(u64::from(m.response.booking.sequence)) {
            return Err(refuse(Code::StaleSequence, "stale_sequence", "the booking has changed since"));
        }
        let proposal =
            m.change.clone().filter(|p| schcp::hash::jws_sha256(&p.offer) == hash).ok_or_else(|| {
                refuse(Code::ContractMismatch, "contract_mismatch", "that is not the open change offer")
            })?;
        let start = date(&proposal.start)?;
        let service_id = Some(m.response.booking.service_id.as_str());
        check(
            chain,
            &ActionCheck {
                booking_id: Some(id),
                service_id,
                offer_sha256: Some(&hash),
                ..action(Action::Reschedule, start)
            },
        )?;
        if date(&proposal.expires_at)?.timestamp() <= now {
            return Err(refuse(Code::InvalidState, Reason::Expired.as_str(), "the change offer has expired"));
        }
        let sequence = m.response.booking.sequence + 1;
        let uid = m.response.booking.event.uid.clone();
        let mut claims = crate::claims::receipt(
            &shared.config,
            &proposal.offer,
            id.to_owned(),
            &chain.root.claims.jti,
            if chain.root.claims.constraints.as_ref().is_some_and(|c| c.offer_sha256.is_some()) {
                Approved::Offer
            } else {
                Approved::Limits
            },
            now,
        )
        .map_err(|e| refuse(Code::Internal, "internal_error", &e.to_string()))?;
        claims.booking.sequence = sequence;
        claims.booking.event.sequence = sequence;
        claims.booking.event.uid = uid;
        let receipt =
            shared.sign(schcp::jws::Typ::Receipt, &claims).map_err(|e| refuse(Code::Internal, "internal_error", &e))?;
        m.mandate = chain.root.claims.jti.clone();
        m.response = BookingResponse {
            booking: claims.booking,
            receipt,
            offer: Some(proposal.offer),
            contract: None,
            pending_contract: None,
        };
        m.change = None;
        Ok((StatusCode::OK, serde_json::to_value(&m.response).unwrap_or_default()))
    })
}

impl Endpoint {
    /// Lets every live hold lapse now (the example host's `expire` command).
    pub(crate) fn vouched_by(&self, hold_id: &str) -> Option<String> {
        self.holds.lock().unwrap_or_else(|e| e.into_inner()).get(hold_id).and_then(|h| h.vouched_by.clone())
    }

    pub(crate) fn expire_holds(&self) {
        for h in self.holds.lock().unwrap_or_else(|e| e.into_inner()).values_mut() {
            if matches!(h.hold.status, HoldStatus::Held) {
                h.expires = 0;
                h.hold.status = HoldStatus::Expired;
            }
        }
    }
}

impl Shared {
    /// Signs `claims` as `typ` with the current key and its kid.
    fn sign<C: serde::Serialize + ?Sized>(&self, typ: schcp::jws::Typ, claims: &C) -> Result<String, String> {
        let state = self.state();
        let key = &state.keys[state.signing];
        let extras = schcp::jws::HeaderExtras { kid: Some(key.kid.clone()), jwk: None };
        schcp::jws::sign(typ, extras, claims, &key.key).map_err(|e| e.to_string())
    }
}
