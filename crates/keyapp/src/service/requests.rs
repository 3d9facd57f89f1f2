//! Requests (docs/agent-api.md §5): created by an agent, answered by the person,
//! withdrawn by the agent, or left to expire.

use super::pipeline::{corrupt, Issued, Prepared};
use super::{acceptance, closed_mandate, invitation, management_mandate, mandate, meeting_contract, rule};
use super::{Service, ServiceError};
use crate::host_binding::HostBinding;
use crate::kind::RequestKind;
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
    fn parse(s: &str) -> Result<RequestStatus, ServiceError> {
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

/// A request as agents and surfaces see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestView {
    pub request_id: String,
    pub kind: RequestKind,
    pub status: RequestStatus,
    pub consent_text: String,
    pub expires_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(skip)]
    pub agent_jkt: String,
    #[serde(skip)]
    pub created_at: i64,
    /// `expires_at` as a NumericDate, for surfaces that tell it in words.
    #[serde(skip)]
    pub expires_at_unix: i64,
}

/// docs/agent-api.md §9: at most `MAX_PENDING` pending requests per agent, and `COOLDOWN`
/// seconds of cooldown when the agent's last two answered requests were
/// declined or expired (`last` is the latest with its decision time, `before`
/// the one before it).
fn request_limits(pending: i64, last: Option<(&str, i64)>, before: Option<&str>, now: i64) -> Result<(), ServiceError> {
    if pending >= MAX_PENDING {
        return Err(ServiceError::TooMany {
            reason: Reason::TooManyPending,
            message: format!("this agent already has {pending} requests waiting for the person"),
            retry_after: None,
        });
    }
    let refused = |s: &str| s == "declined" || s == "expired";
    if let (Some((latest, decided_at)), Some(previous)) = (last, before) {
        if refused(latest) && refused(previous) {
            let since = now - decided_at;
            if since < COOLDOWN {
                return Err(ServiceError::TooMany {
                    reason: Reason::Cooldown,
                    message: "the person declined or did not answer this agent's last two requests; try again later"
                        .into(),
                    retry_after: Some((COOLDOWN - since) as u64),
                });
            }
        }
    }
    Ok(())
}

type Row = (String, String, String, String, String, Option<String>, i64, i64, String);
const SELECT: &str =
    "SELECT request_id, agent_jkt, kind, status, consent_text, result, created_at, expires_at, body_sha256 FROM requests";

fn view(
    (request_id, agent_jkt, kind, status, consent_text, result, created_at, expires_at, _): Row,
) -> Result<RequestView, ServiceError> {
    Ok(RequestView {
        request_id,
        kind: kind.parse().map_err(corrupt)?,
        status: RequestStatus::parse(&status)?,
        consent_text,
        expires_at: schcp::issue::rfc3339_utc(expires_at).unwrap_or_default(),
        result: result.and_then(|r| serde_json::from_str(&r).ok()),
        agent_jkt,
        created_at,
        expires_at_unix: expires_at,
    })
}

/// Verifies and describes a request of `kind`: the one match over the kinds.
async fn prepare(
    svc: &Service,
    agent: &Requester,
    kind: RequestKind,
    obj: &Map<String, Value>,
) -> Result<Prepared, ServiceError> {
    match kind {
        RequestKind::Mandate => mandate::prepare(svc, agent, obj).await,
        RequestKind::ClosedMandate => closed_mandate::prepare(svc, agent, obj).await,
        RequestKind::ManagementMandate => management_mandate::prepare(svc, agent, obj).await,
        RequestKind::MeetingContract => meeting_contract::prepare(svc, agent, obj).await,
        RequestKind::Acceptance => acceptance::prepare(svc, agent, obj).await,
        RequestKind::Rule => rule::prepare(svc, agent, obj).await,
        RequestKind::Invitation => invitation::prepare(svc, agent, obj).await,
    }
}

/// Builds and signs a request's credential from its stored, verified input.
async fn issue(
    svc: &Service,
    agent_jkt: &str,
    kind: RequestKind,
    input: &Value,
    statement: &str,
    now: i64,
) -> Result<Issued, ServiceError> {
    match kind {
        RequestKind::Mandate => mandate::issue(svc, agent_jkt, input, statement, now).await,
        RequestKind::ClosedMandate => closed_mandate::issue(svc, agent_jkt, input, statement, now).await,
        RequestKind::ManagementMandate => management_mandate::issue(svc, agent_jkt, input, statement, now).await,
        RequestKind::MeetingContract => meeting_contract::issue(svc, agent_jkt, input, statement, now).await,
        RequestKind::Acceptance => acceptance::issue(svc, agent_jkt, input, statement, now).await,
        RequestKind::Rule => rule::issue(svc, agent_jkt, input, statement, now).await,
        RequestKind::Invitation => invitation::issue(svc, agent_jkt, input, statement, now).await,
    }
}

/// The requester, as the agent API's guard verified it.
#[derive(Debug, Clone)]
pub struct Requester {
    pub jkt: String,
}

impl Service {
    /// `POST /v1/requests`: verify, render, store. Returns the view and whether
    /// it was an idempotent replay of an earlier request.
    pub async fn create_request(&self, agent: &Requester, body: &[u8]) -> Result<(RequestView, bool), ServiceError> {
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
        let body_sha256 = sha256_b64(body);
        let now = self.now();
        self.expire_requests(now).await?;
        if let Some(existing) = self.by_idempotency_key(&agent.jkt, &key).await? {
            return if existing.1 == body_sha256 {
                Ok((self.as_agent_sees_it(existing.0).await?, true))
            } else {
                Err(ServiceError::IdempotencyConflict)
            };
        }
        self.check_request_limits(&agent.jkt, now).await?;

        let prepared = prepare(self, agent, kind, &obj).await?;
        let consent_text = self.render(&prepared.consent).await?;
        let attention = self.attention_items(&prepared.consent)?;
        let mut expires_at = now + REQUEST_TTL;
        if let Some(limit) = prepared.not_after {
            // Never after the offer (or receipt-derived credential) it concerns.
            expires_at = expires_at.min(limit);
        }
        let request_id = Service::new_id("rq_");
        let input = serde_json::to_string(&prepared.input).expect("JSON values serialize");
        let hosts = serde_json::to_string(&prepared.hosts).expect("bindings serialize");

        // One statement: the request and, by trigger (migration 0005), its
        // history entry, atomically.
        let inserted = sqlx::query(
            "INSERT INTO requests (request_id, agent_jkt, kind, idempotency_key, body_sha256, status, consent_text, input, created_at, expires_at, hosts)
             VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?) ON CONFLICT (agent_jkt, idempotency_key) DO NOTHING",
        )
        .bind(&request_id)
        .bind(&agent.jkt)
        .bind(kind.as_str())
        .bind(&key)
        .bind(&body_sha256)
        .bind(&consent_text)
        .bind(&input)
        .bind(now)
        .bind(expires_at)
        .bind(&hosts)
        .execute(self.store().pool())
        .await?;
        if inserted.rows_affected() == 0 {
            // A concurrent request with the same key won the race.
            let existing = self.by_idempotency_key(&agent.jkt, &key).await?.ok_or(ServiceError::NotFound("request"))?;
            return if existing.1 == body_sha256 {
                Ok((self.as_agent_sees_it(existing.0).await?, true))
            } else {
                Err(ServiceError::IdempotencyConflict)
            };
        }
        self.record_attention(&request_id, &attention).await?;
        self.notify();
        if prepared.auto_approve {
            // §3.3: a management mandate under a root mandate this key app issued
            // to the same agent with cancel/reschedule in scope needs no prompt.
            self.issue_approved(&request_id, None).await?;
            return Ok((self.request_for_agent(&agent.jkt, &request_id).await?, false));
        }
        let view = RequestView {
            request_id,
            kind,
            status: RequestStatus::Pending,
            consent_text,
            expires_at: schcp::issue::rfc3339_utc(expires_at).unwrap_or_default(),
            result: None,
            agent_jkt: agent.jkt.clone(),
            created_at: now,
            expires_at_unix: expires_at,
        };
        Ok((view, false))
    }

    async fn by_idempotency_key(&self, jkt: &str, key: &str) -> Result<Option<(RequestView, String)>, ServiceError> {
        let row: Option<Row> = sqlx::query_as(&format!("{SELECT} WHERE agent_jkt = ? AND idempotency_key = ?"))
            .bind(jkt)
            .bind(key)
            .fetch_optional(self.store().pool())
            .await?;
        row.map(|r| {
            let hash = r.8.clone();
            Ok((view(r)?, hash))
        })
        .transpose()
    }

    /// docs/agent-api.md §9: at most 5 pending per agent, and 5 minutes of cooldown after the
    /// person declined or left unanswered the agent's last two requests.
    async fn check_request_limits(&self, jkt: &str, now: i64) -> Result<(), ServiceError> {
        // One round trip: the pending count and the agent's last two answered
        // requests (both use requests_by_agent_status, migration 0003). Answers
        // given in the same second are ordered by decision_seq (migration 0009),
        // the order they were given in.
        let (pending, s0, d0, s1): (i64, Option<String>, Option<i64>, Option<String>) = sqlx::query_as(
            "WITH last AS (SELECT status, decided_at FROM requests
                           WHERE agent_jkt = ?1 AND status IN ('approved','declined','expired')
                           ORDER BY decided_at DESC, decision_seq DESC LIMIT 2)
             SELECT (SELECT COUNT(*) FROM requests WHERE agent_jkt = ?1 AND status = 'pending'),
                    (SELECT status FROM last LIMIT 1), (SELECT decided_at FROM last LIMIT 1),
                    (SELECT status FROM last LIMIT 1 OFFSET 1)",
        )
        .bind(jkt)
        .fetch_one(self.store().pool())
        .await?;
        request_limits(pending, s0.as_deref().zip(d0), s1.as_deref(), now)
    }

    /// The refusal for a request an update found no longer pending (another
    /// answer, a withdrawal or its expiry came first): the status it has now.
    pub(super) async fn moved_on(&self, request_id: &str) -> ServiceError {
        match self.request(request_id).await {
            Ok(r) => ServiceError::NotPending(r.status),
            Err(e) => e,
        }
    }

    pub async fn request(&self, request_id: &str) -> Result<RequestView, ServiceError> {
        self.expire_requests(self.now()).await?;
        let row: Option<Row> = sqlx::query_as(&format!("{SELECT} WHERE request_id = ?"))
            .bind(request_id)
            .fetch_optional(self.store().pool())
            .await?;
        view(row.ok_or(ServiceError::NotFound("request"))?)
    }

    /// An agent sees only its own requests; another's is "not found". In
    /// hosted mode an approved request whose credential the status service has
    /// not yet acknowledged is still `pending` to the agent, without a result:
    /// no host may see a 404 for a mandate that exists, so the
    /// credential is delivered once registered, and a long poll keeps waiting
    /// until then (docs/decisions.md). A registration the service refused for
    /// good is never delivered: the agent gets `NotPublished` instead.
    pub async fn request_for_agent(&self, jkt: &str, request_id: &str) -> Result<RequestView, ServiceError> {
        let v = self.request(request_id).await?;
        if v.agent_jkt != jkt {
            return Err(ServiceError::NotFound("request"));
        }
        self.as_agent_sees_it(v).await
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

    pub async fn pending_requests(&self) -> Result<Vec<RequestView>, ServiceError> {
        self.expire_requests(self.now()).await?;
        let rows: Vec<Row> = sqlx::query_as(&format!("{SELECT} WHERE status = 'pending' ORDER BY created_at"))
            .fetch_all(self.store().pool())
            .await?;
        rows.into_iter().map(view).collect()
    }

    /// `DELETE /v1/requests/{id}`.
    pub async fn withdraw_request(&self, jkt: &str, request_id: &str) -> Result<RequestView, ServiceError> {
        let v = self.request_for_agent(jkt, request_id).await?;
        self.settle(request_id, RequestStatus::Withdrawn, None, v.status).await
    }

    pub async fn decline_request(&self, request_id: &str) -> Result<RequestView, ServiceError> {
        let v = self.request(request_id).await?;
        self.settle(request_id, RequestStatus::Declined, None, v.status).await
    }

    /// Issues what an approved request asked for: builds and signs the
    /// credential from the stored, verified input, records it with how the
    /// person's yes was confirmed, and settles the request, in one transaction.
    /// Only after the OS confirmed the person (`approve_request_from`), or for
    /// §3.3's renewal that needs no prompt (`confirmed_by` None).
    pub(super) async fn issue_approved(
        &self,
        request_id: &str,
        confirmed_by: Option<crate::user_verification::Method>,
    ) -> Result<RequestView, ServiceError> {
        let now = self.now();
        self.expire_requests(now).await?;
        let row: Option<(String, String, String, String, String, Option<String>)> = sqlx::query_as(
            "SELECT agent_jkt, kind, input, status, consent_text, hosts FROM requests WHERE request_id = ?",
        )
        .bind(request_id)
        .fetch_optional(self.store().pool())
        .await?;
        let (agent_jkt, kind, input, status, consent_text, hosts) = row.ok_or(ServiceError::NotFound("request"))?;
        let status = RequestStatus::parse(&status)?;
        if status != RequestStatus::Pending {
            return Err(ServiceError::NotPending(status));
        }
        let kind: RequestKind = kind.parse().map_err(corrupt)?;
        let input: Value = serde_json::from_str(&input).map_err(corrupt)?;
        // Requests stored before host bindings (migration 0010) bind nothing.
        let hosts: Vec<HostBinding> = match hosts.as_deref() {
            Some(h) => serde_json::from_str(h).map_err(corrupt)?,
            None => Vec::new(),
        };
        // §2.2: a host id bound elsewhere since the request was shown is not signed for.
        self.still_bindable(&hosts).await?;
        // consent.statement is the summary line the person read (§5.3).
        let statement = consent_text.lines().next().unwrap_or_default();
        let issued = issue(self, &agent_jkt, kind, &input, statement, now).await?;

        let mut tx = self.store().pool().begin().await?;
        let done = sqlx::query("UPDATE requests SET status = 'approved', result = ?, decided_at = ? WHERE request_id = ? AND status = 'pending'")
            .bind(issued.result.to_string())
            .bind(now)
            .bind(request_id)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            drop(tx);
            return Err(self.moved_on(request_id).await);
        }
        super::hosts::bind_all(&mut tx, &hosts, now).await?;
        let mut registered = false;
        for mut c in issued.credentials {
            c.request_id = Some(request_id.to_owned());
            crate::store::credentials::insert(&mut tx, &c).await?;
            // What each aud host was verified with, kept with the credential (§2.2).
            let aud: Vec<HostBinding> = hosts.iter().filter(|h| c.aud.contains(&h.host_id)).cloned().collect();
            crate::store::host_bindings::record_credential_hosts(&mut tx, &c.jti, &aud).await?;
            // Hosted mode (docs/hosted-status.md): the registration is owed in the same
            // transaction as the credential, so neither exists without the other.
            if let (Some(base), Some(url)) = (self.config().hosted_base(), c.status_url.as_deref()) {
                if url.starts_with(&format!("{base}/status/")) {
                    crate::store::outbox::enqueue_register(&mut tx, &c.jti, base, now).await?;
                    registered = true;
                }
            }
            if let Some(method) = confirmed_by {
                crate::store::credentials::record_confirmation(&mut tx, &c.jti, method).await?;
            }
            Service::history_confirmed(&mut tx, now, "credential_issued", &c.jti, c.kind.as_str(), confirmed_by)
                .await?;
        }
        if let Some(r) = &issued.receipt {
            r.insert(&mut tx, now).await?;
        }
        if let Some(m) = &issued.meeting {
            m.insert(&mut tx).await?;
        }
        if let Some((link, replaces)) = &issued.management {
            crate::store::management_links::record(&mut tx, link, replaces.as_deref(), now).await?;
        }
        Service::history_confirmed(&mut tx, now, "request_approved", request_id, kind.as_str(), confirmed_by).await?;
        tx.commit().await?;
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
        self.request(request_id).await
    }

    async fn settle(
        &self,
        request_id: &str,
        to: RequestStatus,
        result: Option<Value>,
        current: RequestStatus,
    ) -> Result<RequestView, ServiceError> {
        if current != RequestStatus::Pending {
            return Err(ServiceError::NotPending(current));
        }
        let now = self.now();
        let mut tx = self.store().pool().begin().await?;
        let done = sqlx::query(
            "UPDATE requests SET status = ?, result = ?, decided_at = ? WHERE request_id = ? AND status = 'pending'",
        )
        .bind(to.as_str())
        .bind(result.map(|r| r.to_string()))
        .bind(now)
        .bind(request_id)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            drop(tx);
            return Err(self.moved_on(request_id).await);
        }
        Service::history(&mut tx, now, &format!("request_{}", to.as_str()), request_id, "").await?;
        tx.commit().await?;
        tracing::info!(request_id, status = to.as_str(), "request settled");
        self.notify();
        self.request(request_id).await
    }

    /// Marks requests past their expiry as expired (lazily, on every read, and
    /// by the service's sweeper).
    pub async fn expire_requests(&self, now: i64) -> Result<(), ServiceError> {
        // A read first: the common case has nothing to expire, and a read takes
        // no write lock.
        let due: Option<(i64,)> =
            sqlx::query_as("SELECT 1 FROM requests WHERE status = 'pending' AND expires_at <= ? LIMIT 1")
                .bind(now)
                .fetch_optional(self.store().pool())
                .await?;
        if due.is_none() {
            return Ok(());
        }
        let done = sqlx::query("UPDATE requests SET status = 'expired', decided_at = expires_at WHERE status = 'pending' AND expires_at <= ?")
            .bind(now)
            .execute(self.store().pool())
            .await?;
        if done.rows_affected() > 0 {
            self.notify();
        }
        Ok(())
    }
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

    #[test]
    fn pending_cap_and_cooldown() {
        const NOW: i64 = 1_792_000_000;
        assert_eq!(reason(request_limits(4, None, None, NOW)), None);
        assert_eq!(reason(request_limits(MAX_PENDING, None, None, NOW)), Some("too_many_pending"));
        // Two refusals in a row, the latest within the cooldown.
        assert_eq!(reason(request_limits(0, Some(("declined", NOW - 10)), Some("expired"), NOW)), Some("cooldown"));
        assert_eq!(reason(request_limits(0, Some(("expired", NOW - COOLDOWN)), Some("declined"), NOW)), None);
        // One approval among the last two, or only one answer so far: no cooldown.
        assert_eq!(reason(request_limits(0, Some(("declined", NOW)), Some("approved"), NOW)), None);
        assert_eq!(reason(request_limits(0, Some(("approved", NOW)), Some("declined"), NOW)), None);
        assert_eq!(reason(request_limits(0, Some(("declined", NOW)), None, NOW)), None);
        match request_limits(0, Some(("declined", NOW - 60)), Some("declined"), NOW) {
            Err(ServiceError::TooMany { retry_after, .. }) => assert_eq!(retry_after, Some((COOLDOWN - 60) as u64)),
            other => panic!("{other:?}"),
        }
    }
}
