//! The tools that finish the job at a host: find it, see its free times, hold
//! one, book it, read, move or cancel the booking, answer an invitation. The
//! host calls are the agent crate's (signed, §3.2); each credential a step
//! needs is asked of the key app here, and waited for with progress.

use crate::refusal::{HostStep, Refusal};
use crate::server::{idempotency_key, ok, refused, KeyAppServer, RELAY_TEXT};
use crate::session::{BookingMemo, Held, HoldMemo, Session};
use crate::words;
use agent::host::{
    AvailabilityQuery, ChangeRequest, ConfirmRequest, HoldRequest, Host, HostError, RespondRequest, TimeRange,
};
use agent::{
    AgentClient, ClosedMandateRequest, InvitationRequest, ManagementMandateRequest, NewRequest, Request, RequestStatus,
};
use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ProgressNotificationParam, RequestMetaObject};
use rmcp::{tool, tool_router, ErrorData, Peer, RoleServer};
use schcp::claims::{Action, OfferClaims};
use schcp::refusal::Reason;
use schcp::verify::{check_action, verify_mandate_chain, ActionCheck, ChainContext};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::server::{MAX_WAIT_SECONDS, PROGRESS_EVERY_SECONDS};

/// `find_host`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FindArgs {
    /// The business's web address as the person gave it, e.g. "maplestreetauto.example".
    address: String,
}

/// `availability`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AvailabilityArgs {
    /// The business: its web address, or the id find_host returned.
    business: String,
    /// What the person wants done, by the service id find_host listed; leave it out when the business offers one.
    #[serde(default)]
    service: Option<String>,
    /// The first day to look at, e.g. "2026-12-07" (or a date-time with its offset).
    from: String,
    /// The last day to look at, included, e.g. "2026-12-11".
    to: String,
}

/// `hold`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HoldArgs {
    /// The business: its web address, or the id find_host returned.
    business: String,
    /// The service id, as for availability.
    #[serde(default)]
    service: Option<String>,
    /// The time the person chose, exactly as availability listed it (its "start").
    start: String,
}

/// Arguments of the tools that wait for the person.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct BookArgs {
    /// The hold to book, as hold returned it (h_…).
    hold_id: String,
    /// How long to wait for the person's answer, in seconds: 1 to 45 (the default and the most).
    #[serde(default)]
    wait_seconds: Option<u32>,
}

/// `booking`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct BookingArgs {
    /// The booking, as book returned it (b_…).
    booking_id: String,
}

/// `cancel`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CancelArgs {
    /// The booking to cancel (b_…).
    booking_id: String,
    /// Why, in the person's words, for the business (optional).
    #[serde(default)]
    reason: Option<String>,
    /// How long to wait for the person's answer, in seconds: 1 to 45.
    #[serde(default)]
    wait_seconds: Option<u32>,
}

/// `reschedule`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RescheduleArgs {
    /// The booking to move (b_…).
    booking_id: String,
    /// The new time the person chose, exactly as availability listed it (its "start").
    new_start: String,
    /// How long to wait for the person's answer, in seconds: 1 to 45.
    #[serde(default)]
    wait_seconds: Option<u32>,
}

/// `answer_invitation`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct InvitationArgs {
    /// The business the invitation is from: its web address.
    business: String,
    /// The booking the person is invited to, as the invitation names it (b_…).
    booking_id: String,
    /// How long to wait for the person's answer, in seconds: 1 to 45.
    #[serde(default)]
    wait_seconds: Option<u32>,
}

/// Where a tool stands after asking the person.
enum Asked {
    /// Approved: the compact credential.
    Yes(Request, String),
    /// Not answered yet: the tool returns this.
    Waiting(CallToolResult),
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// "https://maplestreetauto.example/.well-known/scheduling.json" from what the person said.
fn discovery_url(address: &str) -> String {
    let a = address.trim().trim_end_matches('/');
    if a.contains("://") {
        a.to_owned()
    } else {
        format!("https://{a}{}", agent::host::WELL_KNOWN_PATH)
    }
}

fn offer_claims(offer: &str) -> Option<OfferClaims> {
    schcp::jws::parse(offer).ok()?.claims::<OfferClaims>().ok()
}

/// The action check of accepting (or acting on the booking of) `offer`.
fn check_of<'a>(
    scope: Action,
    offer: &'a OfferClaims,
    booking_id: Option<&'a str>,
    hash: Option<&'a str>,
) -> ActionCheck<'a> {
    let date = |s: &str| schcp::datetime::parse_date_time(s).ok();
    ActionCheck {
        scope,
        service_id: Some(&offer.service.id),
        start: date(&offer.slot.start),
        end: offer.slot.end.as_deref().and_then(date),
        total: offer.total.as_ref().and_then(|m| schcp::money::Amount::parse(&m.amount, &m.currency).ok()),
        booking_id,
        offer_sha256: hash,
        active_bookings: [0, 0],
    }
}

/// "a day" → the start of that day in the host's zone; a date-time as given.
fn moment(s: &str, tz: &str, end_of_day: bool) -> Option<DateTime<FixedOffset>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s.trim()) {
        return Some(t);
    }
    let day = NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d").ok()?;
    let day = if end_of_day { day.succ_opt()? } else { day };
    let zone: chrono_tz::Tz = tz.parse().ok()?;
    zone.from_local_datetime(&day.and_hms_opt(0, 0, 0)?).earliest().map(|t| t.fixed_offset())
}

impl KeyAppServer {
    fn hosts(&self) -> Result<&agent::host::HostClient, Refusal> {
        self.inner.hosts.as_ref().map_err(|why| {
            Refusal::own(
                format!(
                    "This server cannot reach businesses as configured ({why}); ask the person to check its settings."
                ),
                Reason::InternalError,
            )
        })
    }

    pub(crate) async fn session(&self) -> tokio::sync::MutexGuard<'_, Session> {
        self.inner.session.lock().await
    }

    pub(crate) fn save(&self, s: &Session) {
        // A session that cannot be saved still works until the server stops.
        let _ = s.save(&self.inner.session_file);
    }

    /// The host `business` names: a host id found before, or an address.
    async fn host(&self, business: &str) -> Result<Host, Refusal> {
        let url = self.session().await.hosts.get(business).cloned().unwrap_or_else(|| discovery_url(business));
        let host = self.hosts()?.discover(&url).await.map_err(|e| Refusal::from_host(&e, HostStep::Find))?;
        let mut s = self.session().await;
        s.hosts.insert(host.host_id.clone(), host.url.clone());
        self.save(&s);
        Ok(host)
    }

    /// The newest credential of the person that lets this agent take `action`
    /// at `host_id`, checked here as the host will (§3.3 checks 1–6).
    fn covering(&self, s: &Session, host_id: &str, action: &ActionCheck<'_>, exclude_closed: bool) -> Option<Held> {
        let jkt = schcp::jwk::Jwk::ed25519(&self.inner.key.verifying_key()).thumbprint().ok()?;
        let ctx = ChainContext { host_id, request_jkt: &jkt, now: now(), allow_wildcard: false };
        let mut all: Vec<&Held> = s.credentials.values().collect();
        all.sort_by_key(|h| std::cmp::Reverse(h.claims.iat));
        all.into_iter()
            .filter(|h| !(exclude_closed && h.claims.constraints.as_ref().is_some_and(|c| c.offer_sha256.is_some())))
            .find(|h| {
                verify_mandate_chain(&h.compact, &ctx).is_ok_and(|chain| {
                    let used = s
                        .bookings
                        .values()
                        .filter(|b| {
                            b.mandate == h.claims.jti
                                && b.response.booking.status != schcp::claims::BookingStatus::Cancelled
                        })
                        .count() as u32;
                    check_action(&chain, &ActionCheck { active_bookings: [used, 0], ..action.clone() }).is_ok()
                })
            })
            .cloned()
    }

    /// Asks the key app for `request` and waits up to `wait` seconds for the
    /// person, reporting progress; `again` says which call keeps waiting.
    #[allow(clippy::too_many_arguments)]
    async fn ask_and_wait(
        &self,
        request: NewRequest,
        wait: Option<u32>,
        again: &str,
        what_ends: &str,
        meta: &RequestMetaObject,
        peer: &Peer<RoleServer>,
        ct: &CancellationToken,
    ) -> Result<Asked, CallToolResult> {
        let client = self.client().map_err(refused)?;
        let mut req =
            client.request(&idempotency_key(&request), &request).await.map_err(|e| refused(Refusal::from_agent(&e)))?;
        let total = wait.unwrap_or(MAX_WAIT_SECONDS).clamp(1, MAX_WAIT_SECONDS);
        let token = meta.get_progress_token();
        let mut waited = 0;
        while req.status == RequestStatus::Pending && waited < total {
            let step = PROGRESS_EVERY_SECONDS.min(total - waited);
            req = tokio::select! {
                _ = ct.cancelled() => return Err(refused(Refusal::own(
                    "The wait was cancelled; the request still waits for the person in the key app.", Reason::Timeout))),
                r = client.request_status(&req.request_id, step) => r.map_err(|e| refused(Refusal::from_agent(&e)))?,
            };
            waited += step;
            if let Some(token) = &token {
                let note = ProgressNotificationParam::new(token.clone(), f64::from(waited))
                    .with_total(f64::from(total))
                    .with_message(format!("waiting for the person's answer in the key app ({waited} of {total} s)"));
                let _ = peer.notify_progress(note).await;
            }
        }
        self.settled(req, again, what_ends)
    }

    fn settled(&self, req: Request, again: &str, what_ends: &str) -> Result<Asked, CallToolResult> {
        match req.status {
            RequestStatus::Approved => {
                let compact = req.result.as_ref().and_then(|r| r.get("mandate")).and_then(Value::as_str);
                match compact {
                    Some(c) => {
                        let c = c.to_owned();
                        Ok(Asked::Yes(req, c))
                    }
                    None => Err(refused(Refusal::own(
                        "The key app's answer carries no credential this assistant can use; report it.",
                        Reason::Malformed,
                    ))),
                }
            }
            RequestStatus::Pending => {
                let text = format!(
                    "{RELAY_TEXT} The person has not answered yet; when they have, call {again} again with the same \
                     arguments (it picks up this same request).\n\nrequest_id: {}\n\nConsent text:\n{}",
                    req.request_id, req.consent_text
                );
                let v = json!({"status": "waiting_for_the_person", "request_id": req.request_id,
                               "consent_text": req.consent_text, "expires_at": req.expires_at,
                               "instruction": RELAY_TEXT});
                Ok(Asked::Waiting(ok(text, v)))
            }
            RequestStatus::Declined => Err(ended(
                &req,
                format!(
                    "The person declined in the key app; {what_ends}. Do not ask again for the same thing unless the \
                 person tells you to."
                ),
            )),
            RequestStatus::Expired => Err(ended(
                &req,
                format!("The person did not answer in time; {what_ends}. Ask the person whether to try again."),
            )),
            _ => Err(ended(&req, format!("The request was withdrawn; {what_ends}."))),
        }
    }

    /// Keeps an issued credential.
    async fn keep(&self, compact: &str) -> Option<Held> {
        let mut s = self.session().await;
        let held = s.remember(compact).cloned();
        self.save(&s);
        held
    }

    /// After a booking is made or moved: asks the key app for the management
    /// mandate over its receipt (§3.3 "Management mandates"), without waiting.
    /// Issued at once under a root mandate that allows it; otherwise the
    /// person is asked, and the request is returned for the model to relay.
    async fn ask_management(&self, client: &AgentClient, memo: &BookingMemo) -> Value {
        let request = NewRequest::ManagementMandate(ManagementMandateRequest {
            receipt: memo.response.receipt.clone(),
            discovery: memo.discovery.clone(),
        });
        match client.request(&idempotency_key(&request), &request).await {
            Ok(req) if req.status == RequestStatus::Approved => {
                if let Some(c) = req.result.as_ref().and_then(|r| r.get("mandate")).and_then(Value::as_str) {
                    self.keep(c).await;
                }
                json!({"status": "issued", "request_id": req.request_id})
            }
            Ok(req) => json!({"status": req.status, "request_id": req.request_id, "consent_text": req.consent_text}),
            Err(e) => json!({"status": "not_asked", "message": Refusal::from_agent(&e).sentence}),
        }
    }

    /// The credential to act on booking `id` with (`scope`), from the session
    /// or asked of the person.
    #[allow(clippy::too_many_arguments)]
    async fn manage(
        &self,
        memo: &BookingMemo,
        host: &Host,
        scope: Action,
        wait: Option<u32>,
        again: &str,
        meta: &RequestMetaObject,
        peer: &Peer<RoleServer>,
        ct: &CancellationToken,
    ) -> Result<Result<String, CallToolResult>, CallToolResult> {
        let id = memo.response.booking.booking_id.clone();
        let contract = memo.response.offer.as_deref().and_then(offer_claims);
        if let Some(offer) = &contract {
            let check = check_of(scope, offer, Some(&id), None);
            if let Some(h) = self.covering(&*self.session().await, &host.host_id, &check, true) {
                return Ok(Ok(h.compact));
            }
        }
        let request = NewRequest::ManagementMandate(ManagementMandateRequest {
            receipt: memo.response.receipt.clone(),
            discovery: memo.discovery.clone(),
        });
        match self.ask_and_wait(request, wait, again, "nothing was changed", meta, peer, ct).await? {
            Asked::Yes(_, compact) => {
                self.keep(&compact).await;
                Ok(Ok(compact))
            }
            Asked::Waiting(r) => Ok(Err(r)),
        }
    }

    async fn booking_memo(&self, id: &str) -> Result<BookingMemo, CallToolResult> {
        self.session().await.bookings.get(id).cloned().ok_or_else(|| {
            refused(Refusal::own(
                "This assistant made no booking with that id; use the booking_id book returned.",
                Reason::NotFound,
            ))
        })
    }

    async fn store_booking(&self, memo: BookingMemo) {
        let mut s = self.session().await;
        s.bookings.insert(memo.response.booking.booking_id.clone(), memo);
        self.save(&s);
    }
}

fn ended(req: &Request, sentence: String) -> CallToolResult {
    let mut out = CallToolResult::error(vec![rmcp::model::ContentBlock::text(sentence.clone())]);
    out.structured_content = Some(json!({"request_id": req.request_id, "status": req.status, "message": sentence}));
    out
}

fn booking_value(memo: &BookingMemo, tz: &str) -> Value {
    let b = &memo.response.booking;
    json!({"booking_id": b.booking_id, "business": memo.host_name, "status": b.status, "sequence": b.sequence,
           "start": b.start, "end": b.end, "when": words::slot(&b.start, b.end.as_deref(), tz),
           "total": b.total, "receipt": memo.response.receipt})
}

macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(r) => return Ok(r),
        }
    };
}

#[tool_router(router = booking_router, vis = "pub(crate)")]
impl KeyAppServer {
    /// Finds the business the person named and says what it offers (services, prices, time zone), so you can look
    /// for a time there. It reads the business's public booking document; nothing is sent about the person.
    #[tool(annotations(
        title = "Find a business",
        read_only_hint = true,
        destructive_hint = false,
        open_world_hint = true
    ))]
    async fn find_host(&self, Parameters(args): Parameters<FindArgs>) -> Result<CallToolResult, ErrorData> {
        let host = tri!(self.host(&args.address).await.map_err(refused));
        let services: Vec<Value> = host
            .document
            .services
            .iter()
            .map(|s| json!({"id": s.id, "name": s.name, "duration": s.duration, "price": s.price}))
            .collect();
        let names: Vec<String> = host.document.services.iter().map(|s| format!("{} ({})", s.name, s.id)).collect();
        let domain = host.domain.clone().unwrap_or_else(|| "an address it does not own (unverified)".into());
        let text = format!(
            "Found {} at {domain}, in the {} time zone. It offers: {}. Use its id {} with availability.",
            host.name,
            host.tz,
            names.join(", "),
            host.host_id
        );
        Ok(ok(
            text,
            json!({"business": host.host_id, "name": host.name, "verified_domain": host.domain,
                           "timezone": host.tz, "services": services, "discovery": host.url}),
        ))
    }

    /// Lists the times the business has free for what the person wants, between two days, in the business's time
    /// zone. A snapshot: a time is only the person's once it is held and booked.
    #[tool(annotations(title = "Free times", read_only_hint = true, destructive_hint = false, open_world_hint = true))]
    async fn availability(&self, Parameters(args): Parameters<AvailabilityArgs>) -> Result<CallToolResult, ErrorData> {
        let host = tri!(self.host(&args.business).await.map_err(refused));
        let service = tri!(service_of(&host, args.service.as_deref()));
        let (Some(from), Some(to)) = (moment(&args.from, &host.tz, false), moment(&args.to, &host.tz, true)) else {
            return Ok(refused(Refusal::own(
                "Give from and to as days (2026-12-07) or date-times with their offset; then call availability again.",
                Reason::DateTimeInvalid,
            )));
        };
        let query = AvailabilityQuery {
            service_id: service.clone(),
            window: TimeRange { start: from.to_rfc3339(), end: to.to_rfc3339() },
            limit: Some(20),
            party_size: None,
        };
        let found = tri!(self.hosts().map_err(refused));
        let a = tri!(found
            .availability(&host, &query, None)
            .await
            .map_err(|e| refused(Refusal::from_host(&e, HostStep::Availability))));
        let slots: Vec<Value> = a
            .slots
            .iter()
            .map(|s| {
                json!({"start": s.start, "end": s.end, "when": words::slot(&s.start, s.end.as_deref(), &a.timezone),
                            "total": s.total})
            })
            .collect();
        let text = if slots.is_empty() {
            format!("{} has no free time for that between those days; try other days.", host.name)
        } else {
            let list: Vec<String> = slots.iter().filter_map(|s| s["when"].as_str().map(str::to_owned)).collect();
            format!(
                "{} has {} free time(s): {}. To take one, call hold with its start.",
                host.name,
                slots.len(),
                list.join("; ")
            )
        };
        Ok(ok(text, json!({"business": host.host_id, "service": service, "timezone": a.timezone, "slots": slots})))
    }

    /// Holds the time the person chose for a few minutes, so nobody else takes it while they decide, and returns the
    /// business's signed terms for it. Uses the standing permission the person gave to hold times here.
    #[tool(annotations(
        title = "Hold a time",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn hold(&self, Parameters(args): Parameters<HoldArgs>) -> Result<CallToolResult, ErrorData> {
        let host = tri!(self.host(&args.business).await.map_err(refused));
        let service = tri!(service_of(&host, args.service.as_deref()));
        let Some(start) = schcp::datetime::parse_date_time(&args.start).ok() else {
            return Ok(refused(Refusal::own(
                "Give start exactly as availability listed it (a date-time with its offset).",
                Reason::DateTimeInvalid,
            )));
        };
        let check = ActionCheck {
            scope: Action::Hold,
            service_id: Some(&service),
            start: Some(start),
            end: None,
            total: None,
            booking_id: None,
            offer_sha256: None,
            active_bookings: [0, 0],
        };
        let Some(held) = self.covering(&*self.session().await, &host.host_id, &check, true) else {
            return Ok(refused(Refusal::own(
                format!(
                    "The person has not given this assistant permission to hold times at {}; ask for it with \
                     request_mandate (scope hold and book, this business), and relay the consent text.",
                    host.name
                ),
                Reason::OutOfScope,
            )));
        };
        let request =
            HoldRequest { service_id: service, start: args.start.clone(), ttl: None, party_size: None, place: None };
        let key = format!(
            "mcp-hold-{}",
            schcp::hash::sha256_b64(format!("{}|{}|{}", host.host_id, args.start, held.claims.jti))
        );
        let found = tri!(self.hosts().map_err(refused));
        let hold = tri!(found
            .hold(&host, &held.compact, &key, &request)
            .await
            .map_err(|e| refused(Refusal::from_host(&e, HostStep::Hold))));
        let when = words::slot(&hold.start, hold.end.as_deref(), &host.tz);
        let memo = HoldMemo {
            discovery: host.url.clone(),
            host_name: host.name.clone(),
            hold: hold.clone(),
            mandate: held.claims.jti.clone(),
        };
        {
            let mut s = self.session().await;
            s.holds.insert(hold.hold_id.clone(), memo);
            self.save(&s);
        }
        let total = hold
            .total
            .as_ref()
            .map(|m| format!(", {} {} in all, paid to the business directly", m.currency, m.amount))
            .unwrap_or_default();
        let text = format!(
            "{} holds {when}{total} until {}. Call book with hold_id {} to book it; the person may be asked to approve \
             these exact terms in the key app.",
            host.name, hold.expires_at, hold.hold_id
        );
        Ok(ok(
            text,
            json!({"hold_id": hold.hold_id, "business": host.host_id, "when": when, "start": hold.start,
                           "end": hold.end, "total": hold.total, "expires_at": hold.expires_at,
                           "credential_used": held.claims.jti}),
        ))
    }

    /// Books the held time for the person. If their standing permission covers it, no new approval is needed;
    /// otherwise the key app asks them to approve these exact terms, and this waits for their answer.
    #[tool(annotations(
        title = "Book",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn book(
        &self,
        Parameters(args): Parameters<BookArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        ct: CancellationToken,
    ) -> Result<CallToolResult, ErrorData> {
        let Some(memo) = self.session().await.holds.get(&args.hold_id).cloned() else {
            return Ok(refused(Refusal::own(
                "This assistant holds no time with that id; hold one with hold first.",
                Reason::NotFound,
            )));
        };
        let host = tri!(self.host(&memo.discovery).await.map_err(refused));
        let offer = memo.hold.offer.clone();
        let hash = schcp::hash::jws_sha256(&offer);
        let Some(claims) = offer_claims(&offer) else {
            return Ok(refused(Refusal::from_host(&HostError::BadId(args.hold_id), HostStep::Book)));
        };
        let check = check_of(Action::Book, &claims, None, Some(&hash));
        let standing = self.covering(&*self.session().await, &host.host_id, &check, false);
        let (compact, how) = match standing {
            Some(h) if h.claims.constraints.as_ref().is_none_or(|c| c.offer_sha256.is_none()) => (
                h.compact.clone(),
                format!("under the standing permission the person already gave (credential {}), so no new approval was needed", h.claims.jti),
            ),
            Some(h) => (h.compact.clone(), format!("with the person's approval of these exact terms (credential {})", h.claims.jti)),
            None => {
                let request = NewRequest::ClosedMandate(ClosedMandateRequest { offer: offer.clone(), discovery: memo.discovery.clone() });
                match tri!(self.ask_and_wait(request, args.wait_seconds, "book", "nothing was booked", &meta, &peer, &ct).await) {
                    Asked::Yes(_, c) => {
                        let jti = self.keep(&c).await.map(|h| h.claims.jti).unwrap_or_default();
                        (c, format!("with the person's approval of these exact terms in the key app (credential {jti})"))
                    }
                    Asked::Waiting(r) => return Ok(r),
                }
            }
        };
        let found = tri!(self.hosts().map_err(refused));
        let key = format!("mcp-book-{hash}");
        let response = tri!(found
            .confirm(
                &host,
                &compact,
                &key,
                &memo.hold.hold_id,
                &ConfirmRequest { offer_sha256: hash.clone(), notes: None }
            )
            .await
            .map_err(|e| refused(Refusal::from_host(&e, HostStep::Book))));
        let used = Held::read(&compact).map(|h| h.claims.jti).unwrap_or_default();
        let booked = BookingMemo {
            discovery: memo.discovery.clone(),
            host_name: host.name.clone(),
            response,
            mandate: used.clone(),
            change: None,
        };
        self.store_booking(booked.clone()).await;
        {
            let mut s = self.session().await;
            s.holds.remove(&args.hold_id);
            self.save(&s);
        }
        let client = tri!(self.client().map_err(refused));
        let management = self.ask_management(&client, &booked).await;
        let b = &booked.response.booking;
        let when = words::slot(&b.start, b.end.as_deref(), &host.tz);
        let mut text = format!("Booked {when} at {}, {how}. The booking id is {}.", host.name, b.booking_id);
        if let Some(consent) = management.get("consent_text").and_then(Value::as_str) {
            text.push_str(&format!(
                " So that you can cancel or move it later, the key app now asks the person to allow that. {RELAY_TEXT}\n\nConsent text:\n{consent}"
            ));
        }
        let mut v = booking_value(&booked, &host.tz);
        v["credential_used"] = json!({"jti": used, "standing_permission": how.starts_with("under")});
        v["management"] = management;
        Ok(ok(text, v))
    }

    /// Tells the person where their booking stands now (confirmed, moved or cancelled), as the business has it.
    #[tool(annotations(
        title = "Booking status",
        read_only_hint = true,
        destructive_hint = false,
        open_world_hint = true
    ))]
    async fn booking(&self, Parameters(args): Parameters<BookingArgs>) -> Result<CallToolResult, ErrorData> {
        let mut memo = tri!(self.booking_memo(&args.booking_id).await);
        let host = tri!(self.host(&memo.discovery).await.map_err(refused));
        let credential = {
            let s = self.session().await;
            let mut mine: Vec<&Held> = s.credentials.values().filter(|h| h.claims.exp > now()).collect();
            mine.sort_by_key(|h| std::cmp::Reverse(h.claims.iat));
            mine.iter()
                .find(|h| {
                    h.claims
                        .constraints
                        .as_ref()
                        .and_then(|c| c.bookings.as_ref())
                        .is_some_and(|b| b.contains(&args.booking_id))
                })
                .or_else(|| mine.iter().find(|h| h.claims.jti == memo.mandate))
                .map(|h| h.compact.clone())
        };
        let Some(compact) = credential else {
            let v = booking_value(&memo, &host.tz);
            let text = format!(
                "As this assistant last heard, the booking is {} for {}; it holds no current permission to ask the \
                 business again.",
                v["status"].as_str().unwrap_or("unknown"),
                v["when"].as_str().unwrap_or("")
            );
            return Ok(ok(text, v));
        };
        let found = tri!(self.hosts().map_err(refused));
        memo.response = tri!(found
            .booking(&host, &compact, &args.booking_id)
            .await
            .map_err(|e| refused(Refusal::from_host(&e, HostStep::Read))));
        self.store_booking(memo.clone()).await;
        let v = booking_value(&memo, &host.tz);
        let text = format!(
            "The booking at {} is {} for {}.",
            host.name,
            v["status"].as_str().unwrap_or("unknown"),
            v["when"].as_str().unwrap_or("")
        );
        Ok(ok(text, v))
    }

    /// Cancels the person's booking (free of charge through SchCP), with their permission to manage it; asks them
    /// for that permission in the key app first if this assistant does not have it, and waits for their answer.
    #[tool(annotations(
        title = "Cancel a booking",
        read_only_hint = false,
        destructive_hint = true,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn cancel(
        &self,
        Parameters(args): Parameters<CancelArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        ct: CancellationToken,
    ) -> Result<CallToolResult, ErrorData> {
        let mut memo = tri!(self.booking_memo(&args.booking_id).await);
        let host = tri!(self.host(&memo.discovery).await.map_err(refused));
        let compact =
            match tri!(self.manage(&memo, &host, Action::Cancel, args.wait_seconds, "cancel", &meta, &peer, &ct).await)
            {
                Ok(c) => c,
                Err(waiting) => return Ok(waiting),
            };
        let found = tri!(self.hosts().map_err(refused));
        let key = format!("mcp-cancel-{}-{}", args.booking_id, memo.response.booking.sequence);
        memo.response = tri!(found
            .cancel(&host, &compact, &key, &args.booking_id, args.reason.as_deref())
            .await
            .map_err(|e| refused(Refusal::from_host(&e, HostStep::Cancel))));
        memo.change = None;
        self.store_booking(memo.clone()).await;
        let v = booking_value(&memo, &host.tz);
        let text = format!(
            "Cancelled the booking at {} for {}; nothing is owed for cancelling.",
            host.name,
            v["when"].as_str().unwrap_or("")
        );
        Ok(ok(text, v))
    }

    /// Moves the person's booking to the new time they chose: the business holds it, the key app shows the person
    /// the move from the old time to the new one, and once they approve the booking is moved; this waits for them.
    #[tool(annotations(
        title = "Move a booking",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn reschedule(
        &self,
        Parameters(args): Parameters<RescheduleArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        ct: CancellationToken,
    ) -> Result<CallToolResult, ErrorData> {
        let mut memo = tri!(self.booking_memo(&args.booking_id).await);
        let host = tri!(self.host(&memo.discovery).await.map_err(refused));
        let found = tri!(self.hosts().map_err(refused));
        let from = words::slot(&memo.response.booking.start, memo.response.booking.end.as_deref(), &host.tz);
        let same = |s: &str| {
            let d = |x: &str| schcp::datetime::parse_date_time(x).ok().map(|t| t.timestamp());
            d(s).is_some() && d(s) == d(&args.new_start)
        };
        let open = memo.change.clone().filter(|p| {
            same(&p.start) && schcp::datetime::parse_date_time(&p.expires_at).is_ok_and(|t| t.timestamp() > now())
        });
        let proposal = match open {
            Some(p) => p,
            None => {
                let compact = match tri!(
                    self.manage(&memo, &host, Action::Reschedule, args.wait_seconds, "reschedule", &meta, &peer, &ct)
                        .await
                ) {
                    Ok(c) => c,
                    Err(waiting) => return Ok(waiting),
                };
                let change = ChangeRequest {
                    sequence: memo.response.booking.sequence,
                    start: Some(args.new_start.clone()),
                    place: None,
                };
                let key = format!(
                    "mcp-change-{}",
                    schcp::hash::sha256_b64(format!(
                        "{}|{}|{}",
                        args.booking_id, memo.response.booking.sequence, args.new_start
                    ))
                );
                let p = tri!(found
                    .change_offer(&host, &compact, &key, &args.booking_id, &change)
                    .await
                    .map_err(|e| refused(Refusal::from_host(&e, HostStep::Reschedule))));
                memo.change = Some(p.clone());
                self.store_booking(memo.clone()).await;
                p
            }
        };
        let to = words::slot(&proposal.start, proposal.end.as_deref(), &host.tz);
        let request = NewRequest::ClosedMandate(ClosedMandateRequest {
            offer: proposal.offer.clone(),
            discovery: memo.discovery.clone(),
        });
        let closed = match tri!(
            self.ask_and_wait(request, args.wait_seconds, "reschedule", "the booking was not moved", &meta, &peer, &ct)
                .await
        ) {
            Asked::Yes(_, c) => {
                self.keep(&c).await;
                c
            }
            Asked::Waiting(mut r) => {
                if let Some(v) = r.structured_content.as_mut() {
                    v["from"] = json!(from);
                    v["to"] = json!(to);
                }
                return Ok(r);
            }
        };
        let hash = schcp::hash::jws_sha256(&proposal.offer);
        let key = format!("mcp-move-{hash}");
        memo.response = tri!(found
            .reschedule(&host, &closed, &key, &args.booking_id, memo.response.booking.sequence, &hash)
            .await
            .map_err(|e| refused(Refusal::from_host(&e, HostStep::Reschedule))));
        memo.change = None;
        memo.mandate = Held::read(&closed).map(|h| h.claims.jti).unwrap_or_default();
        self.store_booking(memo.clone()).await;
        let client = tri!(self.client().map_err(refused));
        let management = self.ask_management(&client, &memo).await;
        let mut v = booking_value(&memo, &host.tz);
        v["from"] = json!(from);
        v["to"] = json!(to);
        v["management"] = management;
        let text = format!("Moved the booking at {} from {from} to {to}, with the person's approval.", host.name);
        Ok(ok(text, v))
    }

    /// Asks the person, in the key app, whether to accept a booking someone else made that names them, and sends
    /// their acceptance to the business if they say yes; this waits for their answer.
    #[tool(annotations(
        title = "Answer an invitation",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn answer_invitation(
        &self,
        Parameters(args): Parameters<InvitationArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        ct: CancellationToken,
    ) -> Result<CallToolResult, ErrorData> {
        let host = tri!(self.host(&args.business).await.map_err(refused));
        let found = tri!(self.hosts().map_err(refused));
        let served = tri!(found
            .booking_as_served(&host, None, &args.booking_id)
            .await
            .map_err(|e| refused(Refusal::from_host(&e, HostStep::Read))));
        let request = NewRequest::Invitation(InvitationRequest { booking: served, discovery: host.url.clone() });
        let (req, compact) = match tri!(
            self.ask_and_wait(
                request,
                args.wait_seconds,
                "answer_invitation",
                "nothing was sent to the business, and the booking follows its default at its deadline",
                &meta,
                &peer,
                &ct
            )
            .await
        ) {
            Asked::Yes(req, c) => (req, c),
            Asked::Waiting(r) => return Ok(r),
        };
        let hash = req.result.as_ref().and_then(|r| r.get("offer_sha256")).and_then(Value::as_str).map(str::to_owned);
        let key = format!("mcp-respond-{}", args.booking_id);
        let response = tri!(found
            .respond(&host, &compact, &key, &args.booking_id, &RespondRequest { accept: true, offer_sha256: hash })
            .await
            .map_err(|e| refused(Refusal::from_host(&e, HostStep::Respond))));
        let b = &response.booking;
        let when = words::slot(&b.start, b.end.as_deref(), &host.tz);
        let text =
            format!("The person accepted the invitation for {when} at {}; the business has their yes.", host.name);
        Ok(ok(text, json!({"booking_id": b.booking_id, "status": b.status, "when": when})))
    }
}

/// The service the person means: the one named, or the business's only one.
fn service_of(host: &Host, named: Option<&str>) -> Result<String, CallToolResult> {
    let services = &host.document.services;
    match named {
        Some(id) if services.iter().any(|s| s.id == id) => Ok(id.to_owned()),
        Some(_) | None if services.len() == 1 => Ok(services[0].id.clone()),
        _ => {
            let names: Vec<String> = services.iter().map(|s| format!("{} ({})", s.name, s.id)).collect();
            Err(refused(Refusal::own(
                format!("Say which service the person wants: {}.", names.join(", ")),
                Reason::MissingMember,
            )))
        }
    }
}
