//! Requests (docs/agent-api.md §5): created by an agent, answered by the person,
//! withdrawn by the agent, or left to expire.

use super::acceptance::Acceptance;
use super::booking_acceptance::BookingAcceptance;
use super::booking_read::BookingRead;
use super::closed_mandate::ClosedMandate;
use super::invitation::Invitation;
use super::issued::Issued;
use super::kind::{body, store_input, stored_input, Context, Kind, Prepared, Principal, Read};
use super::management_mandate::ManagementMandate;
use super::mandate::Mandate;
use super::meeting_contract::MeetingContractKind;
use super::rule::Rule;
use super::{corrupt, Missing, Service, ServiceError};
use crate::config::Config;
use crate::host_binding::HostBinding;
use crate::kind::RequestKind;
use crate::store;
use crate::store::requests::{self as stored, NewRequest, RequestRow};
use schcp::hash::sha256_b64;
use schcp::refusal::Reason;
use serde::Serialize;
use serde_json::{Map, Value};

/// Unanswered requests expire after this (docs/agent-api.md §9: 10 minutes).
pub const REQUEST_TTL: i64 = 600;
/// At most this many pending requests per agent (docs/agent-api.md §9: 429 beyond).
pub const MAX_PENDING: i64 = 5;
/// Prompt-fatigue cooldown after two declined or unanswered requests.
pub const COOLDOWN: i64 = 300;
/// Longest idempotency key accepted.
pub const MAX_IDEMPOTENCY_KEY: usize = 128;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RequestStatus {
    Pending,
    Approved,
    Declined,
    Expired,
    Withdrawn,
}

impl std::fmt::Display for RequestStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl RequestStatus {
    pub const ALL: [RequestStatus; 5] = [
        RequestStatus::Pending,
        RequestStatus::Approved,
        RequestStatus::Declined,
        RequestStatus::Expired,
        RequestStatus::Withdrawn,
    ];

    /// A status as stored; anything the key app does not write is a corrupt
    /// record, never taken for `pending` (which would let it be approved).
    pub(super) fn parse(s: &str) -> Result<RequestStatus, ServiceError> {
        RequestStatus::ALL.into_iter().find(|k| k.as_str() == s).ok_or_else(|| corrupt(format!("request status {s:?}")))
    }
    pub fn as_str(self) -> &'static str {
        match self {
            RequestStatus::Pending => "pending",
            RequestStatus::Approved => "approved",
            RequestStatus::Declined => "declined",
            RequestStatus::Expired => "expired",
            RequestStatus::Withdrawn => "withdrawn",
        }
    }
}

pub use crate::views::RequestView;

/// The seconds of cooldown left (docs/agent-api.md §9): `COOLDOWN` seconds
/// after the agent's last two answered requests were declined or expired
/// (`last` is the latest with its decision time, `before` the one before it),
/// unless the person let it ask again (`lifted_at`) since the latest.
pub(crate) fn cooldown_left(
    last: Option<(&str, i64)>,
    before: Option<&str>,
    lifted_at: Option<i64>,
    now: i64,
) -> Option<i64> {
    let refused = |s: &str| s == "declined" || s == "expired";
    let (latest, decided_at) = last?;
    let left = COOLDOWN - (now - decided_at);
    let lifted = lifted_at.is_some_and(|at| at >= decided_at);
    (refused(latest) && before.is_some_and(refused) && left > 0 && !lifted).then_some(left)
}

/// docs/agent-api.md §9: at most `MAX_PENDING` pending requests per agent, and
/// no new one in its cooldown ([`cooldown_left`]).
fn request_limits(
    pending: i64,
    last: Option<(&str, i64)>,
    before: Option<&str>,
    lifted_at: Option<i64>,
    now: i64,
) -> Result<(), ServiceError> {
    if pending >= MAX_PENDING {
        return Err(ServiceError::TooMany {
            reason: Reason::TooManyPending,
            message: format!("this agent already has {pending} requests waiting for the person"),
            retry_after: None,
        });
    }
    if let Some(left) = cooldown_left(last, before, lifted_at, now) {
        return Err(ServiceError::TooMany {
            reason: Reason::Cooldown,
            message: "the person declined or did not answer this agent's last two requests; try again later".into(),
            retry_after: Some(left as u64),
        });
    }
    Ok(())
}

fn view(row: RequestRow) -> Result<RequestView, ServiceError> {
    Ok(RequestView {
        kind: row.kind.parse().map_err(corrupt)?,
        status: RequestStatus::parse(&row.status)?,
        expires_at: schcp::issue::rfc3339_utc(row.expires_at).unwrap_or_default(),
        result: row.result.and_then(|r| serde_json::from_str(&r).ok()),
        request_id: row.request_id,
        consent_text: row.consent_text,
        agent_jkt: row.agent_jkt,
        created_at: row.created_at,
        expires_at_unix: row.expires_at,
        summary: row.summary,
    })
}

/// A kind's two steps with its typed body and input at their edges: the
/// pipeline hands in the request object and the stored JSON.
struct Handlers {
    prepare: for<'a> fn(&'a Context<'a>, Map<String, Value>) -> Read<'a, Prepared<String>>,
    issue: for<'a> fn(&'a Context<'a>, &'a str, &'a str) -> Read<'a, Issued<Value>>,
}

impl Handlers {
    fn of<K: Kind>() -> Handlers {
        Handlers { prepare: prepare_boxed::<K>, issue: issue_boxed::<K> }
    }
}

/// Each kind's handlers: the one registration of the kinds.
fn handlers(kind: RequestKind) -> Handlers {
    match kind {
        RequestKind::Mandate => Handlers::of::<Mandate>(),
        RequestKind::ClosedMandate => Handlers::of::<ClosedMandate>(),
        RequestKind::ManagementMandate => Handlers::of::<ManagementMandate>(),
        RequestKind::MeetingContract => Handlers::of::<MeetingContractKind>(),
        RequestKind::Acceptance => Handlers::of::<Acceptance>(),
        RequestKind::Rule => Handlers::of::<Rule>(),
        RequestKind::Invitation => Handlers::of::<Invitation>(),
        RequestKind::BookingAcceptance => Handlers::of::<BookingAcceptance>(),
        RequestKind::BookingRead => Handlers::of::<BookingRead>(),
    }
}

fn prepare_boxed<'a, K: Kind>(ctx: &'a Context<'a>, obj: Map<String, Value>) -> Read<'a, Prepared<String>> {
    Box::pin(async move {
        // The body is read once, as the kind's own closed shape.
        let p = K::prepare(ctx, body(obj)?).await?;
        let input = store_input(&p.input)?;
        Ok(Prepared { consent: p.consent, input, not_after: p.not_after, auto_approve: p.auto_approve, hosts: p.hosts })
    })
}

fn issue_boxed<'a, K: Kind>(ctx: &'a Context<'a>, input: &'a str, statement: &'a str) -> Read<'a, Issued<Value>> {
    Box::pin(async move {
        let issued = K::issue(ctx, stored_input(input)?, statement).await?;
        let result = serde_json::to_value(&issued.result).map_err(corrupt)?;
        Ok(issued.map(|_| result))
    })
}

/// The envelope every request shares, read from the raw body: a JSON object
/// (duplicate members refused, §2.3), its `kind` and `idempotency_key`; the
/// rest is the kind's.
pub(super) fn envelope(body: &[u8]) -> Result<(RequestKind, String, Map<String, Value>), ServiceError> {
    let value = schcp::json::parse(body).map_err(|e| ServiceError::invalid(Reason::Malformed, e.to_string()))?;
    let Value::Object(obj) = value else {
        return Err(ServiceError::invalid(Reason::Malformed, "the body is not a JSON object"));
    };
    let kind: RequestKind = string_member(&obj, "kind")?
        .parse()
        .map_err(|e: crate::kind::UnknownKind| ServiceError::invalid(Reason::UnknownKind, e.to_string()))?;
    let key = string_member(&obj, "idempotency_key")?;
    if key.is_empty() || key.len() > MAX_IDEMPOTENCY_KEY {
        return Err(ServiceError::invalid(Reason::BadIdempotencyKey, "idempotency_key must be 1 to 128 bytes"));
    }
    Ok((kind, key, obj))
}

/// The requester, as the agent API's guard verified it.
#[derive(Debug, Clone)]
pub struct Requester {
    pub jkt: String,
}

impl Service {
    /// What a kind's steps see of the service: the only place they are made.
    fn kind_context<'a>(&'a self, agent_jkt: &'a str, now: i64, config: &'a Config) -> Context<'a> {
        Context {
            now,
            agent_jkt,
            principal: Principal {
                id: &self.inner.principal,
                key: self.inner.key.as_ref(),
                es256: self.inner.es256.as_deref(),
            },
            discovery: &self.inner.discovery,
            store: self.store(),
            records: self,
            config,
        }
    }

    /// `POST /v1/requests`: verify, render, store. Returns the view and whether
    /// it was an idempotent replay of an earlier request.
    pub async fn create_request(&self, agent: &Requester, body: &[u8]) -> Result<(RequestView, bool), ServiceError> {
        let (kind, key, obj) = envelope(body)?;
        let body_sha256 = sha256_b64(body);
        let now = self.now();
        // One read in the common case: nothing due to expire, a new key.
        let mut seen = stored::admission(self.store(), &agent.jkt, &key, now).await?;
        if seen.expiry_due {
            self.expire_requests(now).await?;
            seen = stored::admission(self.store(), &agent.jkt, &key, now).await?;
        }
        if seen.asked_before {
            if let Some(earlier) = self.replay(&agent.jkt, &key, &body_sha256).await? {
                return Ok((earlier, true));
            }
        }
        let l = seen.limits;
        request_limits(
            l.pending,
            l.last_status.as_deref().zip(l.last_decided_at),
            l.before_status.as_deref(),
            l.lifted_at,
            now,
        )?;

        let config = self.config();
        let ctx = self.kind_context(&agent.jkt, now, &config);
        let prepared = (handlers(kind).prepare)(&ctx, obj).await?;
        let consent_text = self.render(&prepared.consent).await?;
        let attention = self.attention_items(&prepared.consent)?;
        let terms = self.terms_json(&prepared.consent)?;
        let summary = schcp_consent::summary(&prepared.consent, &self.locale()).map_err(ServiceError::Consent)?;
        // Never after the offer (or receipt-derived credential) it concerns.
        let expires_at = prepared.not_after.map_or(now + REQUEST_TTL, |limit| (now + REQUEST_TTL).min(limit));
        let request_id = Service::new_id("rq_");
        let hosts = serde_json::to_string(&prepared.hosts).expect("bindings serialize");
        let mut new = NewRequest {
            request_id: &request_id,
            agent_jkt: &agent.jkt,
            kind: kind.as_str(),
            idempotency_key: &key,
            body_sha256: &body_sha256,
            consent_text: &consent_text,
            input: &prepared.input,
            created_at: now,
            expires_at,
            hosts: &hosts,
            attention: &attention,
            summary: &summary,
            terms: terms.as_deref(),
            seal: "",
        };
        let seal = self.seal_request(&new.sealed_fields());
        new.seal = &seal;
        match stored::insert(self.store(), &new).await? {
            stored::Inserted::Stored => {}
            stored::Inserted::KeyTaken => {
                // A concurrent request with the same key won the race.
                let earlier = self.replay(&agent.jkt, &key, &body_sha256).await?;
                return Ok((earlier.ok_or(ServiceError::NotFound(Missing::Request))?, true));
            }
            stored::Inserted::AgentNotPaired => return Err(ServiceError::NotPaired),
        }
        self.notify();
        if prepared.auto_approve {
            // §3.3: a management mandate under a root mandate this key app issued
            // to the same agent with cancel/reschedule in scope needs no prompt.
            self.issue_approved(&request_id, None).await?;
            return Ok((self.requests().request_for_agent(&agent.jkt, &request_id).await?, false));
        }
        Ok((pending_view(&new, kind), false))
    }

    /// The agent's earlier request under `key`: as its agent sees it when the
    /// body is the same, refused when another body used the key.
    async fn replay(&self, jkt: &str, key: &str, body_sha256: &str) -> Result<Option<RequestView>, ServiceError> {
        let Some(row) = stored::by_idempotency_key(self.store(), jkt, key).await? else { return Ok(None) };
        if row.body_sha256 != body_sha256 {
            return Err(ServiceError::IdempotencyConflict);
        }
        Ok(Some(self.as_agent_sees_it(view(row)?).await?))
    }

    /// The refusal for a request an update found no longer pending (another
    /// answer, a withdrawal or its expiry came first): the status it has now.
    pub(super) async fn moved_on(&self, request_id: &str) -> ServiceError {
        match self.requests().request(request_id).await {
            Ok(r) => ServiceError::NotPending(r.status),
            Err(e) => e,
        }
    }

    /// A request as its agent may see it: approved only once its credential is
    /// registered with the hosted status service, if it has one there.
    async fn as_agent_sees_it(&self, mut v: RequestView) -> Result<RequestView, ServiceError> {
        if v.status == RequestStatus::Approved
            && crate::store::outbox::withheld_from_agent(self.store(), &v.request_id).await?
        {
            // Refused for good: the agent stops waiting and is told why.
            if let Some(refused) = crate::store::outbox::refusal_for_request(self.store(), &v.request_id).await? {
                return Err(ServiceError::not_published(refused));
            }
            v.status = RequestStatus::Pending;
            v.result = None;
        }
        Ok(v)
    }

    pub(super) async fn decline_request(&self, request_id: &str) -> Result<RequestView, ServiceError> {
        let v = self.requests().request(request_id).await?;
        self.settle(request_id, RequestStatus::Declined, v.status).await
    }

    /// Issues what an approved request asked for: builds and signs the
    /// credential from the stored, verified input, records it with how the
    /// person's yes was confirmed, and settles the request, in one transaction.
    /// Only after the OS confirmed the person (`Requests::approve`), or for
    /// §3.3's renewal that needs no prompt (`confirmed_by` None).
    pub(super) async fn issue_approved(
        &self,
        request_id: &str,
        confirmed_by: Option<crate::user_verification::Method>,
    ) -> Result<RequestView, ServiceError> {
        self.issue_yes(request_id, confirmed_by, None).await
    }

    /// `issue_approved` after the OS confirmed the person's yes to the row
    /// sealed `seal`: signed only if the row is still that one, so nothing
    /// written while the OS asked (another version of the request) is what
    /// the yes signs.
    pub(super) async fn issue_confirmed(
        &self,
        request_id: &str,
        confirmed_by: crate::user_verification::Method,
        seal: &str,
    ) -> Result<RequestView, ServiceError> {
        self.issue_yes(request_id, Some(confirmed_by), Some(seal)).await
    }

    /// A yes: built from the stored, verified input and recorded as the
    /// request's answer.
    async fn issue_yes(
        &self,
        request_id: &str,
        confirmed_by: Option<crate::user_verification::Method>,
        confirmed_seal: Option<&str>,
    ) -> Result<RequestView, ServiceError> {
        let now = self.now();
        self.expire_requests(now).await?;
        // What the person was shown and what is signed now are one sealed row
        // (record_seal): a row changed outside the key app signs nothing.
        let row = self.sealed_request(request_id).await?;
        if confirmed_seal.is_some_and(|seal| row.seal.as_deref() != Some(seal)) {
            return Err(super::tampered("it changed while the OS asked the person (another seal)"));
        }
        let status = RequestStatus::parse(&row.status)?;
        if status != RequestStatus::Pending {
            return Err(ServiceError::NotPending(status));
        }
        // Its sealed expiry, not only the sweeper's reading of the column.
        if row.expires_at <= now {
            return Err(ServiceError::NotPending(RequestStatus::Expired));
        }
        let kind: RequestKind = row.kind.parse().map_err(corrupt)?;
        // Requests stored before host bindings (migration 0010) bind nothing.
        let hosts: Vec<HostBinding> = match row.hosts.as_deref() {
            Some(h) => serde_json::from_str(h).map_err(corrupt)?,
            None => Vec::new(),
        };
        // §2.2: a host id bound elsewhere since the request was shown is not signed for.
        self.still_bindable(&hosts).await?;
        let config = self.config();
        let ctx = self.kind_context(&row.agent_jkt, now, &config);
        // consent.statement is the summary line the person read (§5.3).
        let statement = row.consent_text.lines().next().unwrap_or_default();
        let issued = (handlers(kind).issue)(&ctx, &row.input, statement).await?;
        let approval = Approval { request_id, kind, hosts: &hosts, confirmed_by, now };
        let registered = self.record_approval(&approval, issued).await?;
        // Operators grep for it ("request approved").
        tracing::info!(request_id, %kind, "request approved; credential issued");
        self.notify();
        if registered {
            // Pushed now, before the agent can receive the credential (the
            // agent's view waits for it: `request_for_agent`); what fails here
            // the publisher task retries (docs/decisions.md).
            if let Err(e) = self.publish_due().await {
                tracing::warn!(error = %e, "publishing the registration failed; the publisher retries");
            }
            self.wake_publisher();
        }
        self.requests().request(request_id).await
    }

    /// Settles the request approved with what was issued, in one transaction:
    /// its result, its hosts bound, each credential with its hosts, its
    /// registration owed in hosted mode and its confirmation, and what is kept
    /// beside them. Whether a registration is owed to the hosted status service.
    async fn record_approval(&self, a: &Approval<'_>, issued: Issued<Value>) -> Result<bool, ServiceError> {
        let mut tx = self.store().pool().begin().await?;
        let result = issued.result.to_string();
        if !stored::settle(&mut tx, a.request_id, RequestStatus::Approved.as_str(), Some(&result), a.now).await? {
            drop(tx);
            return Err(self.moved_on(a.request_id).await);
        }
        // §2.2: a host id is bound at the person's first yes (a no signs
        // nothing and binds nothing).
        self.bind_all(&mut tx, a.hosts, a.now).await?;
        let mut registered = false;
        for mut c in issued.credentials {
            c.request_id = Some(a.request_id.to_owned());
            registered |= self.record_credential(&mut tx, a, &c).await?;
        }
        if let Some(r) = &issued.receipt {
            let seal = self.inner.seal.receipt(&r.fields(a.now));
            crate::store::receipts::insert(&mut tx, r, a.now, &seal).await?;
        }
        if let Some(m) = &issued.meeting {
            crate::store::meetings::insert(&mut tx, m).await?;
        }
        if let Some((link, replaces)) = &issued.management {
            // Read again after the first write of this transaction (`settle`):
            // nothing another writer commits comes between the check and the record.
            if let Err(why) = crate::store::management_links::record(
                &mut tx,
                self.store().history_seal(),
                link,
                replaces.as_deref(),
                a.now,
            )
            .await?
            {
                drop(tx);
                // Nothing was signed or kept, and no later yes could be: what the
                // request rested on changed (a revocation, a twin on the same
                // receipt). It ends withdrawn, never left waiting in the window.
                let _ = self.settle(a.request_id, RequestStatus::Withdrawn, RequestStatus::Pending).await;
                return Err(superseded(why));
            }
        }
        let (kind, confirmed_by) = (a.kind.as_str(), a.confirmed_by);
        let seal = self.store().history_seal();
        store::history::append(&mut tx, seal, a.now, "request_approved", a.request_id, kind, confirmed_by).await?;
        tx.commit().await?;
        Ok(registered)
    }

    /// One issued credential in the approval's transaction; whether its
    /// registration is owed to the hosted status service.
    async fn record_credential(
        &self,
        tx: &mut sqlx::SqliteConnection,
        a: &Approval<'_>,
        c: &crate::store::credentials::CredentialRecord,
    ) -> Result<bool, ServiceError> {
        self.record_sealed_in(tx, c).await?;
        // What each aud host was verified with, kept with the credential (§2.2).
        let aud: Vec<HostBinding> = a.hosts.iter().filter(|h| c.aud.contains(&h.host_id)).cloned().collect();
        self.record_credential_hosts(tx, &c.jti, &aud).await?;
        // Hosted mode (docs/hosted-status.md): the registration is owed in the same
        // transaction as the credential, so neither exists without the other.
        let mut registered = false;
        let config = self.config();
        if let (Some(base), Some(url)) = (config.hosted_base(), c.status_url.as_deref()) {
            if url.starts_with(&format!("{base}/status/")) {
                crate::store::outbox::enqueue_register(tx, &c.jti, base, a.now).await?;
                registered = true;
            }
        }
        if let Some(method) = a.confirmed_by {
            crate::store::credentials::record_confirmation(tx, &c.jti, method).await?;
        }
        store::history::append(
            tx,
            self.store().history_seal(),
            a.now,
            "credential_issued",
            &c.jti,
            c.kind.as_str(),
            a.confirmed_by,
        )
        .await?;
        Ok(registered)
    }

    async fn settle(
        &self,
        request_id: &str,
        to: RequestStatus,
        current: RequestStatus,
    ) -> Result<RequestView, ServiceError> {
        if current != RequestStatus::Pending {
            return Err(ServiceError::NotPending(current));
        }
        let now = self.now();
        let mut tx = self.store().pool().begin().await?;
        if !stored::settle(&mut tx, request_id, to.as_str(), None, now).await? {
            drop(tx);
            return Err(self.moved_on(request_id).await);
        }
        store::history::append(
            &mut tx,
            self.store().history_seal(),
            now,
            &format!("request_{}", to.as_str()),
            request_id,
            "",
            None,
        )
        .await?;
        tx.commit().await?;
        tracing::info!(request_id, status = to.as_str(), "request settled");
        self.notify();
        self.requests().request(request_id).await
    }

    /// Requests and pairings left unanswered past their time expire (the
    /// app's sweeper calls this every few seconds, so a stale prompt does
    /// not wait for someone to list them). Both are swept even if one fails.
    pub async fn expire(&self) -> Result<(), ServiceError> {
        let now = self.now();
        let requests = self.expire_requests(now).await;
        let pairings = self.expire_pairings(now).await;
        requests.and(pairings)
    }

    /// Marks requests past their expiry as expired (lazily, on every read, and
    /// by the service's sweeper).
    pub(super) async fn expire_requests(&self, now: i64) -> Result<(), ServiceError> {
        if stored::expire_due(self.store(), now, |r| self.request_sealed(r)).await? {
            self.notify();
        }
        Ok(())
    }
}

/// The view of a request just stored, pending.
fn pending_view(new: &NewRequest<'_>, kind: RequestKind) -> RequestView {
    RequestView {
        request_id: new.request_id.to_owned(),
        kind,
        status: RequestStatus::Pending,
        consent_text: new.consent_text.to_owned(),
        expires_at: schcp::issue::rfc3339_utc(new.expires_at).unwrap_or_default(),
        result: None,
        agent_jkt: new.agent_jkt.to_owned(),
        created_at: new.created_at,
        expires_at_unix: new.expires_at,
        summary: new.summary.to_owned(),
    }
}

/// Requests once created, as agents and the window see them: `Service::requests`.
#[derive(Clone, Copy)]
pub struct Requests<'a> {
    pub(super) svc: &'a Service,
}

impl Requests<'_> {
    /// Until when agent `jkt` may not ask (its cooldown), if it is in one.
    pub async fn cooldown_until(self, jkt: &str) -> Result<Option<i64>, ServiceError> {
        let now = self.svc.now();
        let l = stored::limits(self.svc.store(), jkt).await?;
        let left = cooldown_left(
            l.last_status.as_deref().zip(l.last_decided_at),
            l.before_status.as_deref(),
            l.lifted_at,
            now,
        );
        Ok(left.map(|s| now + s))
    }

    /// The person lets agent `jkt` ask again now, ending its cooldown.
    pub async fn lift_cooldown(self, jkt: &str) -> Result<(), ServiceError> {
        if !stored::lift_cooldown(self.svc.store(), jkt, self.svc.now()).await? {
            return Err(ServiceError::NotFound(super::Missing::PairedAgent));
        }
        self.svc.notify();
        Ok(())
    }

    pub async fn request(self, request_id: &str) -> Result<RequestView, ServiceError> {
        self.svc.expire_requests(self.svc.now()).await?;
        view(stored::by_id(self.svc.store(), request_id).await?.ok_or(ServiceError::NotFound(Missing::Request))?)
    }

    /// An agent sees only its own requests; another's is "not found". In
    /// hosted mode an approved request whose credential the status service has
    /// not yet acknowledged is still `pending` to the agent, without a result:
    /// no host may see a 404 for a mandate that exists, so the
    /// credential is delivered once registered, and a long poll keeps waiting
    /// until then (docs/decisions.md). A registration the service refused for
    /// good is never delivered: the agent gets `NotPublished` instead.
    pub async fn request_for_agent(self, jkt: &str, request_id: &str) -> Result<RequestView, ServiceError> {
        let v = self.request(request_id).await?;
        if v.agent_jkt != jkt {
            return Err(ServiceError::NotFound(Missing::Request));
        }
        self.svc.as_agent_sees_it(v).await
    }

    /// `DELETE /v1/requests/{id}`.
    pub async fn withdraw_request(self, jkt: &str, request_id: &str) -> Result<RequestView, ServiceError> {
        let v = self.request_for_agent(jkt, request_id).await?;
        self.svc.settle(request_id, RequestStatus::Withdrawn, v.status).await
    }
}

/// The approval being recorded.
struct Approval<'a> {
    request_id: &'a str,
    kind: RequestKind,
    hosts: &'a [HostBinding],
    confirmed_by: Option<crate::user_verification::Method>,
    now: i64,
}

/// The agent's refusal when a management mandate's link was not recorded.
fn superseded(why: crate::store::management_links::Superseded) -> ServiceError {
    use crate::store::management_links::Superseded as S;
    let reason = match why {
        S::Sequence => Reason::StaleReceipt,
        S::RootGone | S::ReplacedGone => Reason::MandateRevoked,
    };
    ServiceError::unacceptable(reason, format!("{why}; nothing was signed (§3.3 \"Renewal\")"))
}

fn string_member(obj: &Map<String, Value>, name: &'static str) -> Result<String, ServiceError> {
    match obj.get(name) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(ServiceError::invalid(Reason::Malformed, format!("{name} must be a string"))),
        None => Err(ServiceError::invalid(Reason::Malformed, format!("{name} is required"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(r: Result<(), ServiceError>) -> Option<&'static str> {
        match r {
            Ok(()) => None,
            Err(ServiceError::TooMany { reason, .. }) => Some(reason.as_str()),
            Err(other) => panic!("{other}"),
        }
    }

    #[test]
    fn a_stored_status_is_one_the_key_app_writes_or_an_error() {
        for s in RequestStatus::ALL {
            assert_eq!(RequestStatus::parse(s.as_str()).unwrap(), s);
        }
        // Once read as pending, an unknown value could have been approved.
        for bad in ["", "Pending", "pending ", "approved\0", "unknown"] {
            assert!(matches!(
                RequestStatus::parse(bad),
                Err(ServiceError::Store(crate::store::StoreError::Corrupt(_)))
            ));
        }
    }

    /// A new request's one read finds what is due to expire, and the sweep
    /// runs before the limits are read: requests left unanswered past their
    /// expiry no longer count as pending (docs/agent-api.md §9), and being the
    /// agent's last two unanswered puts it in its cooldown.
    #[tokio::test]
    async fn requests_past_their_expiry_are_swept_before_the_limits_are_read() {
        const T0: i64 = 1_792_000_000;
        let (svc, clock, _dir) = super::super::test_support::service_at(T0).await;
        let key = ed25519_dalek::SigningKey::from_bytes(&[7; 32]);
        let jkt = &schcp::jwk::Jwk::ed25519(&key.verifying_key()).thumbprint().unwrap();
        crate::store::testing::paired_agent(svc.store(), jkt, "Assistant", "f").await;
        let agent = Requester { jkt: jkt.to_owned() };
        let rule = |key: &str| {
            serde_json::json!({"kind": "rule", "idempotency_key": key, "agent_jkt": jkt, "label": "Weekends"})
                .to_string()
                .into_bytes()
        };
        let refusal = |r: Result<(RequestView, bool), ServiceError>| match r {
            Ok((v, _)) => panic!("accepted: {}", v.request_id),
            Err(ServiceError::TooMany { reason, .. }) => reason.as_str(),
            Err(other) => panic!("{other}"),
        };
        for n in 0..MAX_PENDING {
            svc.create_request(&agent, &rule(&format!("k{n}"))).await.unwrap();
        }
        assert_eq!(refusal(svc.create_request(&agent, &rule("k-next")).await), "too_many_pending");
        // Past their expiry: swept as this request is read, none pending, and
        // the agent's last two were left unanswered.
        clock.fetch_add(REQUEST_TTL, std::sync::atomic::Ordering::SeqCst);
        assert_eq!(refusal(svc.create_request(&agent, &rule("k-next")).await), "cooldown");
        let first = stored::by_idempotency_key(svc.store(), jkt, "k0").await.unwrap().unwrap();
        assert_eq!(first.status, "expired");
        clock.fetch_add(COOLDOWN, std::sync::atomic::Ordering::SeqCst);
        let (asked, replayed) = svc.create_request(&agent, &rule("k-next")).await.unwrap();
        assert_eq!((asked.status, replayed), (RequestStatus::Pending, false));
    }

    #[test]
    fn pending_cap_and_cooldown() {
        const NOW: i64 = 1_792_000_000;
        assert_eq!(reason(request_limits(4, None, None, None, NOW)), None);
        assert_eq!(reason(request_limits(MAX_PENDING, None, None, None, NOW)), Some("too_many_pending"));
        // Two refusals in a row, the latest within the cooldown.
        assert_eq!(
            reason(request_limits(0, Some(("declined", NOW - 10)), Some("expired"), None, NOW)),
            Some("cooldown")
        );
        assert_eq!(reason(request_limits(0, Some(("expired", NOW - COOLDOWN)), Some("declined"), None, NOW)), None);
        // One approval among the last two, or only one answer so far: no cooldown.
        assert_eq!(reason(request_limits(0, Some(("declined", NOW)), Some("approved"), None, NOW)), None);
        assert_eq!(reason(request_limits(0, Some(("approved", NOW)), Some("declined"), None, NOW)), None);
        assert_eq!(reason(request_limits(0, Some(("declined", NOW)), None, None, NOW)), None);
        match request_limits(0, Some(("declined", NOW - 60)), Some("declined"), None, NOW) {
            Err(ServiceError::TooMany { retry_after, .. }) => assert_eq!(retry_after, Some((COOLDOWN - 60) as u64)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_person_lifting_a_cooldown_ends_it_until_the_next_two_refusals() {
        const NOW: i64 = 1_792_000_000;
        let refused_twice = (Some(("declined", NOW - 60)), Some("expired"));
        assert_eq!(cooldown_left(refused_twice.0, refused_twice.1, None, NOW), Some(COOLDOWN - 60));
        // Lifted after the latest refusal: no cooldown.
        assert_eq!(cooldown_left(refused_twice.0, refused_twice.1, Some(NOW - 30), NOW), None);
        assert_eq!(reason(request_limits(0, refused_twice.0, refused_twice.1, Some(NOW - 30), NOW)), None);
        // Lifted before it (two new refusals since): the cooldown is back.
        assert_eq!(cooldown_left(refused_twice.0, refused_twice.1, Some(NOW - 61), NOW), Some(COOLDOWN - 60));
        // The pending cap is not lifted with it.
        assert_eq!(
            reason(request_limits(MAX_PENDING, refused_twice.0, refused_twice.1, Some(NOW), NOW)),
            Some("too_many_pending")
        );
    }

    #[test]
    fn the_envelope_is_read_first_and_refused_specifically() {
        let (kind, key, obj) = envelope(br#"{"kind":"rule","idempotency_key":"k1","label":"x"}"#).unwrap();
        assert_eq!((kind, key.as_str()), (RequestKind::Rule, "k1"));
        assert_eq!(obj.get("label"), Some(&Value::String("x".into())));
        let long = format!(r#"{{"kind":"rule","idempotency_key":"{}"}}"#, "k".repeat(MAX_IDEMPOTENCY_KEY + 1));
        let cases: [(&[u8], Reason); 9] = [
            (b"{", Reason::Malformed),
            (b"[]", Reason::Malformed),
            (b"\xff", Reason::Malformed),
            (br#"{"idempotency_key":"k"}"#, Reason::Malformed),
            (br#"{"kind":7,"idempotency_key":"k"}"#, Reason::Malformed),
            (br#"{"kind":"rule","kind":"mandate","idempotency_key":"k"}"#, Reason::Malformed),
            (br#"{"kind":"sign","idempotency_key":"k"}"#, Reason::UnknownKind),
            (br#"{"kind":"rule","idempotency_key":""}"#, Reason::BadIdempotencyKey),
            (long.as_bytes(), Reason::BadIdempotencyKey),
        ];
        for (body, reason) in cases {
            match envelope(body) {
                Err(ServiceError::Invalid { reason: r, .. }) => {
                    assert_eq!(r, reason, "{}", String::from_utf8_lossy(body))
                }
                other => panic!("{}: {other:?}", String::from_utf8_lossy(body)),
            }
        }
    }
}
