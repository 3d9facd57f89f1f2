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
    AgentClient, BookingReadRequest, ClosedMandateRequest, InvitationRequest, ManagementMandateRequest, NewRequest,
    Request, RequestStatus,
};
use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ProgressNotificationParam, RequestMetaObject};
use rmcp::{tool, tool_router, ErrorData, Peer, RoleServer};
use schcp::claims::{Action, OfferClaims};
use schcp::refusal::Reason;
use schcp::verify::{check_action, ActionCheck};
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
    /// Approved: the request, and the credential to send the host.
    Yes(Request, String),
    /// Not answered yet: the tool returns this.
    Waiting(CallToolResult),
}

/// What every tool that may wait for the person takes from its call: the
/// progress token, the peer to report to, the client's cancellation, how long
/// to wait, and the tool to call again while the person has not answered.
struct Waiter<'a> {
    meta: &'a RequestMetaObject,
    peer: &'a Peer<RoleServer>,
    ct: &'a CancellationToken,
    wait: Option<u32>,
    again: &'static str,
}

/// A tool's body: `Err` is the tool's refusal, returned as its result.
type Outcome = Result<CallToolResult, CallToolResult>;

/// A tool's answer, refusal or not (refusals are results the model reads,
/// never protocol errors).
fn done(outcome: Outcome) -> Result<CallToolResult, ErrorData> {
    Ok(outcome.unwrap_or_else(|r| r))
}

/// A failure at the host during `step`, as the tool's refusal.
fn at(step: HostStep) -> impl Fn(HostError) -> CallToolResult {
    move |e| refused(Refusal::from_host(&e, step))
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
    /// at `host_id`, checked here as the host will (§3.3 checks 1–6, or §3.4
    /// for an SD-JWT VC mandate): what to send there, and the credential.
    fn covering(
        &self,
        s: &Session,
        host_id: &str,
        action: &ActionCheck<'_>,
        exclude_closed: bool,
    ) -> Option<(String, Held)> {
        let mut all: Vec<&Held> = s.credentials.values().collect();
        all.sort_by_key(|h| std::cmp::Reverse(h.claims.iat));
        all.into_iter()
            .filter(|h| !(exclude_closed && h.claims.constraints.as_ref().is_some_and(|c| c.offer_sha256.is_some())))
            .find(|h| {
                h.verified_at(host_id, &self.inner.key).is_some_and(|chain| {
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
            .and_then(|h| Some((h.for_host(host_id)?.to_owned(), h.clone())))
    }

    /// Asks the key app for `request` and waits for the person as `w` says,
    /// reporting progress.
    async fn ask_and_wait(
        &self,
        request: NewRequest,
        what_ends: &str,
        w: &Waiter<'_>,
    ) -> Result<Asked, CallToolResult> {
        let client = self.client().map_err(refused)?;
        let mut req =
            client.request(&idempotency_key(&request), &request).await.map_err(|e| refused(Refusal::from_agent(&e)))?;
        let total = w.wait.unwrap_or(MAX_WAIT_SECONDS).clamp(1, MAX_WAIT_SECONDS);
        let token = w.meta.get_progress_token();
        let mut waited = 0;
        while req.status == RequestStatus::Pending && waited < total {
            let step = PROGRESS_EVERY_SECONDS.min(total - waited);
            req = tokio::select! {
                _ = w.ct.cancelled() => return Err(refused(Refusal::own(
                    "The wait was cancelled; the request still waits for the person in the key app.", Reason::Timeout))),
                r = client.request_status(&req.request_id, step) => r.map_err(|e| refused(Refusal::from_agent(&e)))?,
            };
            waited += step;
            if let Some(token) = &token {
                let note = ProgressNotificationParam::new(token.clone(), f64::from(waited))
                    .with_total(f64::from(total))
                    .with_message(format!("waiting for the person's answer in the key app ({waited} of {total} s)"));
                let _ = w.peer.notify_progress(note).await;
            }
        }
        settled(req, w.again, what_ends)
    }

    /// Asks and waits as `ask_and_wait`, for a credential only a yes gives:
    /// the credential, or the tool's answer (waiting, or how it ended).
    async fn yes(&self, request: NewRequest, what_ends: &str, w: &Waiter<'_>) -> Result<String, CallToolResult> {
        match self.ask_and_wait(request, what_ends, w).await? {
            Asked::Yes(req, c) => {
                self.keep(&req).await;
                Ok(c)
            }
            Asked::Waiting(r) => Err(r),
        }
    }

    /// Keeps the credential of an approved request.
    async fn keep(&self, req: &Request) -> Option<Held> {
        let mut s = self.session().await;
        let held = s.remember(req.result.as_ref()?, &self.inner.key).cloned();
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
                self.keep(&req).await;
                json!({"status": "issued", "request_id": req.request_id})
            }
            Ok(req) => json!({"status": req.status, "request_id": req.request_id, "consent_text": req.consent_text}),
            Err(e) => json!({"status": "not_asked", "message": Refusal::from_agent(&e).sentence}),
        }
    }

    /// The credential to act on booking `id` with (`scope`), from the session
    /// or asked of the person: `Err` is the tool's answer meanwhile.
    async fn manage(
        &self,
        memo: &BookingMemo,
        host: &Host,
        scope: Action,
        w: &Waiter<'_>,
    ) -> Result<String, CallToolResult> {
        let id = memo.response.booking.booking_id.clone();
        let contract = memo.response.offer.as_deref().and_then(offer_claims);
        if let Some(offer) = &contract {
            let check = check_of(scope, offer, Some(&id), None);
            if let Some((shown, _)) = self.covering(&*self.session().await, &host.host_id, &check, true) {
                return Ok(shown);
            }
        }
        let request = NewRequest::ManagementMandate(ManagementMandateRequest {
            receipt: memo.response.receipt.clone(),
            discovery: memo.discovery.clone(),
        });
        self.yes(request, "nothing was changed", w).await
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

/// Where a request the person was asked stands, as a tool reads it.
fn settled(req: Request, again: &str, what_ends: &str) -> Result<Asked, CallToolResult> {
    match req.status {
        RequestStatus::Approved => match req.result.as_ref().and_then(|r| r.get("mandate")).and_then(Value::as_str) {
            Some(c) => {
                let c = c.to_owned();
                Ok(Asked::Yes(req, c))
            }
            None => Err(refused(Refusal::own(
                "The key app's answer carries no credential this assistant can use; report it.",
                Reason::Malformed,
            ))),
        },
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
        RequestStatus::Declined => Err(declined(&req, what_ends)),
        RequestStatus::Expired => Err(ended(
            &req,
            format!("The person did not answer in time, so {what_ends}; ask the person whether to try again."),
        )),
        _ => Err(ended(&req, format!("The request was withdrawn; {what_ends}."))),
    }
}

fn declined(req: &Request, what_ends: &str) -> CallToolResult {
    ended(
        req,
        format!(
            "The person declined in the key app, so {what_ends}; do not ask again for the same thing unless the \
             person tells you to."
        ),
    )
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

#[tool_router(router = booking_router, vis = "pub(crate)")]
impl KeyAppServer {
    /// Finds the business the person named and says what it offers, with its prices and time zone.
    #[tool(annotations(
        title = "Find a business",
        read_only_hint = true,
        destructive_hint = false,
        open_world_hint = true
    ))]
    async fn find_host(&self, Parameters(args): Parameters<FindArgs>) -> Result<CallToolResult, ErrorData> {
        done(self.find_host_(args).await)
    }

    /// Lists the times the business has free for what the person wants between two days.
    #[tool(annotations(title = "Free times", read_only_hint = true, destructive_hint = false, open_world_hint = true))]
    async fn availability(&self, Parameters(args): Parameters<AvailabilityArgs>) -> Result<CallToolResult, ErrorData> {
        done(self.availability_(args).await)
    }

    /// Holds the time the person chose for a few minutes, under the permission they gave to hold times there.
    #[tool(annotations(
        title = "Hold a time",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = true
    ))]
    async fn hold(&self, Parameters(args): Parameters<HoldArgs>) -> Result<CallToolResult, ErrorData> {
        done(self.hold_(args).await)
    }

    /// Books the held time for the person, asking them in the key app to approve these exact terms when needed.
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
        let w = Waiter { meta: &meta, peer: &peer, ct: &ct, wait: args.wait_seconds, again: "book" };
        done(self.book_(args, &w).await)
    }

    /// Tells the person where their booking stands now, as the business has it.
    #[tool(annotations(
        title = "Booking status",
        read_only_hint = true,
        destructive_hint = false,
        open_world_hint = true
    ))]
    async fn booking(&self, Parameters(args): Parameters<BookingArgs>) -> Result<CallToolResult, ErrorData> {
        done(self.booking_(args).await)
    }

    /// Cancels the person's booking free of charge, asking them in the key app for permission when needed.
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
        let w = Waiter { meta: &meta, peer: &peer, ct: &ct, wait: args.wait_seconds, again: "cancel" };
        done(self.cancel_(args, &w).await)
    }

    /// Moves the person's booking to the new time they chose, once they approve the move in the key app.
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
        let w = Waiter { meta: &meta, peer: &peer, ct: &ct, wait: args.wait_seconds, again: "reschedule" };
        done(self.reschedule_(args, &w).await)
    }

    /// Asks the person in the key app whether to accept a booking someone else made for them, and tells the business.
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
        let w = Waiter { meta: &meta, peer: &peer, ct: &ct, wait: args.wait_seconds, again: "answer_invitation" };
        done(self.answer_invitation_(args, &w).await)
    }
}

/// The tools' bodies: each returns its answer, or its refusal as `Err`.
impl KeyAppServer {
    async fn find_host_(&self, args: FindArgs) -> Outcome {
        let host = self.host(&args.address).await.map_err(refused)?;
        let services: Vec<Value> = host
            .document
            .services
            .iter()
            .map(|s| json!({"id": s.id, "name": s.name, "duration": s.duration, "price": s.price}))
            .collect();
        let names: Vec<String> =
            host.document.services.iter().map(|s| format!("{} ({})", words::said(&s.name), s.id)).collect();
        let domain = host.domain.clone().unwrap_or_else(|| "an address it does not own (unverified)".into());
        let text = format!(
            "Found {} at {domain}, in the {} time zone. It offers: {}. Use its id {} with availability; nothing was \
             sent about the person.",
            words::said(&host.name),
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

    async fn availability_(&self, args: AvailabilityArgs) -> Outcome {
        let host = self.host(&args.business).await.map_err(refused)?;
        let service = service_of(&host, args.service.as_deref())?;
        let (Some(from), Some(to)) = (moment(&args.from, &host.tz, false), moment(&args.to, &host.tz, true)) else {
            return Err(refused(Refusal::own(
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
        let a = self
            .hosts()
            .map_err(refused)?
            .availability(&host, &query, None)
            .await
            .map_err(at(HostStep::Availability))?;
        let slots: Vec<Value> = a
            .slots
            .iter()
            .map(|s| {
                json!({"start": s.start, "end": s.end, "when": words::slot(&s.start, s.end.as_deref(), &a.timezone),
                       "total": s.total})
            })
            .collect();
        let text = if slots.is_empty() {
            format!("{} has no free time for that between those days; try other days.", words::said(&host.name))
        } else {
            let list: Vec<String> = slots.iter().filter_map(|s| s["when"].as_str().map(str::to_owned)).collect();
            format!(
                "{} has {} free time(s): {}. A time is only the person's once it is held and booked; to take one, \
                 call hold with its start.",
                words::said(&host.name),
                slots.len(),
                list.join("; ")
            )
        };
        Ok(ok(text, json!({"business": host.host_id, "service": service, "timezone": a.timezone, "slots": slots})))
    }

    // Long by design: one tool call, from the agent's words to the host's hold.
    async fn hold_(&self, args: HoldArgs) -> Outcome {
        let host = self.host(&args.business).await.map_err(refused)?;
        let service = service_of(&host, args.service.as_deref())?;
        let Some(start) = schcp::datetime::parse_date_time(&args.start).ok() else {
            return Err(refused(Refusal::own(
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
        let Some((shown, held)) = self.covering(&*self.session().await, &host.host_id, &check, true) else {
            return Err(refused(Refusal::own(
                format!(
                    "The person has not given this assistant permission to hold times at {}; ask for it with \
                     request_mandate (scope hold and book, this business), and relay the consent text.",
                    words::said(&host.name)
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
        let hold =
            self.hosts().map_err(refused)?.hold(&host, &shown, &key, &request).await.map_err(at(HostStep::Hold))?;
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
            words::said(&host.name), hold.expires_at, hold.hold_id
        );
        Ok(ok(
            text,
            json!({"hold_id": hold.hold_id, "business": host.host_id, "when": when, "start": hold.start,
                   "end": hold.end, "total": hold.total, "expires_at": hold.expires_at,
                   "credential_used": held.claims.jti}),
        ))
    }

    // Long by design: one tool call, from the hold through the person's yes to the host's confirm.
    async fn book_(&self, args: BookArgs, w: &Waiter<'_>) -> Outcome {
        let Some(memo) = self.session().await.holds.get(&args.hold_id).cloned() else {
            return Err(refused(Refusal::own(
                "This assistant holds no time with that id; hold one with hold first.",
                Reason::NotFound,
            )));
        };
        let host = self.host(&memo.discovery).await.map_err(refused)?;
        let offer = memo.hold.offer.clone();
        let hash = schcp::hash::jws_sha256(&offer);
        let Some(claims) = offer_claims(&offer) else {
            return Err(refused(Refusal::from_host(&HostError::BadId(args.hold_id), HostStep::Book)));
        };
        let check = check_of(Action::Book, &claims, None, Some(&hash));
        let standing = self.covering(&*self.session().await, &host.host_id, &check, false);
        let (shown, used, standing) = match standing {
            Some((shown, h)) => {
                let open = h.claims.constraints.as_ref().is_none_or(|c| c.offer_sha256.is_none());
                (shown, h.claims.jti, open)
            }
            None => {
                let request = NewRequest::ClosedMandate(ClosedMandateRequest {
                    offer: offer.clone(),
                    discovery: memo.discovery.clone(),
                });
                let c = self.yes(request, "nothing was booked", w).await?;
                let jti = Held::read(&c).map(|h| h.claims.jti).unwrap_or_default();
                (c, jti, false)
            }
        };
        let how = if standing {
            format!("under the standing permission the person already gave (credential {used}), so no new approval was needed")
        } else {
            format!("with the person's approval of these exact terms in the key app (credential {used})")
        };
        let key = format!("mcp-book-{hash}");
        let confirm = ConfirmRequest { offer_sha256: hash.clone(), notes: None };
        let response = self
            .hosts()
            .map_err(refused)?
            .confirm(&host, &shown, &key, &memo.hold.hold_id, &confirm)
            .await
            .map_err(at(HostStep::Book))?;
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
        let client = self.client().map_err(refused)?;
        let management = self.ask_management(&client, &booked).await;
        let b = &booked.response.booking;
        let when = words::slot(&b.start, b.end.as_deref(), &host.tz);
        let mut text =
            format!("Booked {when} at {}, {how}. The booking id is {}.", words::said(&host.name), b.booking_id);
        if let Some(consent) = management.get("consent_text").and_then(Value::as_str) {
            text.push_str(&format!(
                " So that you can cancel or move it later, the key app now asks the person to allow that. {RELAY_TEXT}\n\nConsent text:\n{consent}"
            ));
        }
        let mut v = booking_value(&booked, &host.tz);
        v["credential_used"] = json!({"jti": used, "standing_permission": standing});
        v["management"] = management;
        Ok(ok(text, v))
    }

    async fn booking_(&self, args: BookingArgs) -> Outcome {
        let mut memo = self.booking_memo(&args.booking_id).await?;
        let host = self.host(&memo.discovery).await.map_err(refused)?;
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
                .and_then(|h| h.for_host(&host.host_id).map(str::to_owned))
        };
        let Some(shown) = credential else {
            let v = booking_value(&memo, &host.tz);
            let text = format!(
                "As this assistant last heard, the booking is {} for {}; it holds no current permission to ask the \
                 business again.",
                v["status"].as_str().unwrap_or("unknown"),
                v["when"].as_str().unwrap_or("")
            );
            return Ok(ok(text, v));
        };
        memo.response = self
            .hosts()
            .map_err(refused)?
            .booking(&host, &shown, &args.booking_id)
            .await
            .map_err(at(HostStep::Read))?;
        self.store_booking(memo.clone()).await;
        let v = booking_value(&memo, &host.tz);
        let text = format!(
            "The booking at {} is {} for {}.",
            words::said(&host.name),
            v["status"].as_str().unwrap_or("unknown"),
            v["when"].as_str().unwrap_or("")
        );
        Ok(ok(text, v))
    }

    async fn cancel_(&self, args: CancelArgs, w: &Waiter<'_>) -> Outcome {
        let mut memo = self.booking_memo(&args.booking_id).await?;
        let host = self.host(&memo.discovery).await.map_err(refused)?;
        let shown = self.manage(&memo, &host, Action::Cancel, w).await?;
        let key = format!("mcp-cancel-{}-{}", args.booking_id, memo.response.booking.sequence);
        memo.response = self
            .hosts()
            .map_err(refused)?
            .cancel(&host, &shown, &key, &args.booking_id, args.reason.as_deref())
            .await
            .map_err(at(HostStep::Cancel))?;
        memo.change = None;
        self.store_booking(memo.clone()).await;
        let v = booking_value(&memo, &host.tz);
        let text = format!(
            "Cancelled the booking at {} for {}; nothing is owed for cancelling.",
            words::said(&host.name),
            v["when"].as_str().unwrap_or("")
        );
        Ok(ok(text, v))
    }

    // Long by design: one tool call, from the booking through the person's yes to the host's answer.
    async fn reschedule_(&self, args: RescheduleArgs, w: &Waiter<'_>) -> Outcome {
        let mut memo = self.booking_memo(&args.booking_id).await?;
        let host = self.host(&memo.discovery).await.map_err(refused)?;
        let found = self.hosts().map_err(refused)?;
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
                let shown = self.manage(&memo, &host, Action::Reschedule, w).await?;
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
                let p = found
                    .change_offer(&host, &shown, &key, &args.booking_id, &change)
                    .await
                    .map_err(at(HostStep::Reschedule))?;
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
        let closed = match self.yes(request, "the booking was not moved", w).await {
            Ok(c) => c,
            Err(mut r) => {
                if let Some(v) = r.structured_content.as_mut().filter(|v| v.get("consent_text").is_some()) {
                    v["from"] = json!(from);
                    v["to"] = json!(to);
                }
                return Err(r);
            }
        };
        let hash = schcp::hash::jws_sha256(&proposal.offer);
        let key = format!("mcp-move-{hash}");
        memo.response = found
            .reschedule(&host, &closed, &key, &args.booking_id, memo.response.booking.sequence, &hash)
            .await
            .map_err(at(HostStep::Reschedule))?;
        memo.change = None;
        memo.mandate = Held::read(&closed).map(|h| h.claims.jti).unwrap_or_default();
        self.store_booking(memo.clone()).await;
        let client = self.client().map_err(refused)?;
        let management = self.ask_management(&client, &memo).await;
        let mut v = booking_value(&memo, &host.tz);
        v["from"] = json!(from);
        v["to"] = json!(to);
        v["management"] = management;
        let text = format!(
            "Moved the booking at {} from {from} to {to}, with the person's approval.",
            words::said(&host.name)
        );
        Ok(ok(text, v))
    }

    /// §5.10: the invitee's agent reads the booking under a credential that
    /// reads that booking alone (`booking_read`), asks the person, and tells
    /// the host their yes at once; a no signs nothing, and the booking follows
    /// its default at its deadline.
    // Long by design: one tool call, from the booking read through the person's answer to the host.
    async fn answer_invitation_(&self, args: InvitationArgs, w: &Waiter<'_>) -> Outcome {
        let host = self.host(&args.business).await.map_err(refused)?;
        let found = self.hosts().map_err(refused)?;
        let reader = {
            let s = self.session().await;
            s.credentials
                .values()
                .filter(|h| h.claims.exp > now() + 30)
                .find(|h| {
                    h.claims
                        .constraints
                        .as_ref()
                        .and_then(|c| c.bookings.as_ref())
                        .is_some_and(|b| b == std::slice::from_ref(&args.booking_id))
                        && h.claims.aud.hosts().contains(&host.host_id)
                })
                .and_then(|h| h.for_host(&host.host_id).map(str::to_owned))
        };
        let reader = match reader {
            Some(r) => r,
            None => {
                let request = NewRequest::BookingRead(BookingReadRequest {
                    host: host.host_id.clone(),
                    discovery: host.url.clone(),
                    booking_id: args.booking_id.clone(),
                    lifetime: None,
                });
                self.yes(request, "nothing was read or sent to the business", w).await?
            }
        };
        let served =
            found.booking_as_served(&host, Some(&reader), &args.booking_id).await.map_err(at(HostStep::Read))?;
        let request = NewRequest::Invitation(InvitationRequest { booking: served, discovery: host.url.clone() });
        let what_ends = "nothing was sent to the business, and the booking follows its default at its deadline";
        // A no signs nothing (§5.10: respond takes a mandate of any scope, so
        // a credential for the no could also say yes): declined, the tool
        // says so, and the booking follows its default at its deadline.
        let (req, compact) = match self.ask_and_wait(request, what_ends, w).await? {
            Asked::Yes(req, c) => (req, c),
            Asked::Waiting(r) => return Ok(r),
        };
        let hash = req.result.as_ref().and_then(|r| r.get("offer_sha256")).and_then(Value::as_str).map(str::to_owned);
        let key = format!("mcp-respond-{}-true", args.booking_id);
        let response = found
            .respond(&host, &compact, &key, &args.booking_id, &RespondRequest { accept: true, offer_sha256: hash })
            .await
            .map_err(at(HostStep::Respond))?;
        let b = &response.booking;
        let when = words::slot(&b.start, b.end.as_deref(), &host.tz);
        let text = format!(
            "The person accepted the invitation for {when} at {}; the business has their yes.",
            words::said(&host.name)
        );
        Ok(ok(text, json!({"booking_id": b.booking_id, "status": b.status, "when": when, "accepted": true})))
    }
}

/// The service the person means: the one named, or the business's only one.
fn service_of(host: &Host, named: Option<&str>) -> Result<String, CallToolResult> {
    let services = &host.document.services;
    match named {
        Some(id) if services.iter().any(|s| s.id == id) => Ok(id.to_owned()),
        Some(_) | None if services.len() == 1 => Ok(services[0].id.clone()),
        _ => {
            let names: Vec<String> = services.iter().map(|s| format!("{} ({})", words::said(&s.name), s.id)).collect();
            Err(refused(Refusal::own(
                format!("Say which service the person wants: {}.", names.join(", ")),
                Reason::MissingMember,
            )))
        }
    }
}
