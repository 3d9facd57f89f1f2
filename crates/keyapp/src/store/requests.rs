//! Agents' requests (docs/agent-api.md §5): each stored with the consent text
//! shown and the verified input its credential is built from, and answered
//! once. A request and its history entry are one statement (by trigger,
//! migration 0005); a request and its look-twice callouts one transaction.

use super::{Store, StoreError};
use sqlx::SqliteConnection;

/// A request as surfaces read it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct RequestRow {
    pub request_id: String,
    pub agent_jkt: String,
    pub kind: String,
    pub status: String,
    pub consent_text: String,
    /// The approved result (JSON), as the agent receives it.
    pub result: Option<String>,
    pub created_at: i64,
    pub expires_at: i64,
    /// The SHA-256 of the body it was made from: an idempotent replay's must match.
    pub body_sha256: String,
    /// What is asked, in one line ('' for requests stored before migration 0015).
    pub summary: String,
}

const SELECT: &str =
    "SELECT request_id, agent_jkt, kind, status, consent_text, result, created_at, expires_at, body_sha256, summary FROM requests";

/// Everything a request's seal covers (record_seal), with its status and
/// seal: what the consent window shows and what its yes is signed from, read
/// in one statement so both come from the same row.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct SealedRow {
    pub request_id: String,
    pub agent_jkt: String,
    pub kind: String,
    pub status: String,
    pub consent_text: String,
    /// The kind's verified input (JSON).
    pub input: String,
    /// The hosts' bindings (JSON); `None` for requests stored before migration 0010.
    pub hosts: Option<String>,
    pub summary: String,
    /// The offer's price lines and host's address (JSON), if any.
    pub terms: Option<String>,
    /// The look-twice callouts (JSON), if any.
    pub attention: Option<String>,
    pub created_at: i64,
    pub expires_at: i64,
    /// `None` for rows written before migration 0023, or by hand.
    pub seal: Option<String>,
    /// Whether every sealed value has the type the key app writes it with.
    /// SQLite keeps a value as written, and the reads below make a text,
    /// integer or blob of each: a blob id or a time written as text (which
    /// reads as its numeric prefix and never expires) is told apart here.
    pub well_typed: bool,
}

/// A new request, stored pending.
#[derive(Debug, Clone)]
pub struct NewRequest<'a> {
    pub request_id: &'a str,
    pub agent_jkt: &'a str,
    pub kind: &'a str,
    pub idempotency_key: &'a str,
    pub body_sha256: &'a str,
    pub consent_text: &'a str,
    /// The kind's verified input (JSON).
    pub input: &'a str,
    pub created_at: i64,
    pub expires_at: i64,
    /// The hosts' bindings (JSON).
    pub hosts: &'a str,
    /// The look-twice callouts (JSON array of `{kind, grade, detail}`).
    pub attention: &'a str,
    /// What is asked, in one line (`schcp_consent::summary`).
    pub summary: &'a str,
    /// The offer's price lines and host's address (JSON, `OfferTermsView`).
    pub terms: Option<&'a str>,
    /// The seal over the fields above (record_seal).
    pub seal: &'a str,
}

impl<'a> NewRequest<'a> {
    /// The fields its seal covers (`record_seal`), as they are stored.
    pub fn sealed_fields(&self) -> crate::record_seal::RequestFields<'a> {
        crate::record_seal::RequestFields {
            request_id: self.request_id,
            agent_jkt: self.agent_jkt,
            kind: self.kind,
            consent_text: self.consent_text,
            input: self.input,
            hosts: Some(self.hosts),
            summary: self.summary,
            terms: self.terms,
            attention: Some(self.attention),
            created_at: self.created_at,
            expires_at: self.expires_at,
        }
    }
}

impl SealedRow {
    /// The fields of its row its seal covers.
    pub fn fields(&self) -> crate::record_seal::RequestFields<'_> {
        crate::record_seal::RequestFields {
            request_id: &self.request_id,
            agent_jkt: &self.agent_jkt,
            kind: &self.kind,
            consent_text: &self.consent_text,
            input: &self.input,
            hosts: self.hosts.as_deref(),
            summary: &self.summary,
            terms: self.terms.as_deref(),
            attention: self.attention.as_deref(),
            created_at: self.created_at,
            expires_at: self.expires_at,
        }
    }
}

/// What [`insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inserted {
    Stored,
    /// The agent already has a request under the same idempotency key (a
    /// concurrent one won the race): nothing is stored.
    KeyTaken,
    /// The agent's pairing is not approved in the records as the request is
    /// stored (the person unpaired it since its request was admitted):
    /// nothing is stored.
    AgentNotPaired,
}

/// Stores a pending request with its callouts, in one transaction, only while
/// its agent's pairing stands approved: whoever checked the pairing earlier
/// (the agent API's guard, before it read the body) may have checked it
/// before the person unpaired the agent.
pub async fn insert(store: &Store, r: &NewRequest<'_>) -> Result<Inserted, StoreError> {
    let mut tx = store.pool().begin().await?;
    let inserted = sqlx::query(
        "INSERT INTO requests (request_id, agent_jkt, kind, idempotency_key, body_sha256, status, consent_text, input, created_at, expires_at, hosts, summary, summary_fold, terms, seal)
         SELECT ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?
         WHERE EXISTS (SELECT 1 FROM agents WHERE jkt = ? AND status = 'approved')
         ON CONFLICT (agent_jkt, idempotency_key) DO NOTHING",
    )
    .bind(r.request_id)
    .bind(r.agent_jkt)
    .bind(r.kind)
    .bind(r.idempotency_key)
    .bind(r.body_sha256)
    .bind(r.consent_text)
    .bind(r.input)
    .bind(r.created_at)
    .bind(r.expires_at)
    .bind(r.hosts)
    .bind(r.summary)
    .bind(crate::search_fold::fold(r.summary))
    .bind(r.terms)
    .bind(r.seal)
    .bind(r.agent_jkt)
    .execute(&mut *tx)
    .await?;
    if inserted.rows_affected() == 0 {
        let approved: Option<(i64,)> = sqlx::query_as("SELECT 1 FROM agents WHERE jkt = ? AND status = 'approved'")
            .bind(r.agent_jkt)
            .fetch_optional(&mut *tx)
            .await?;
        return Ok(if approved.is_some() { Inserted::KeyTaken } else { Inserted::AgentNotPaired });
    }
    // Its history entry, sealed (migration 0030): the detail is the kind.
    let seal = store.history_seal();
    super::history::append(&mut tx, seal, r.created_at, "request_created", r.request_id, r.kind, None).await?;
    super::attention::insert(&mut tx, r.request_id, r.attention).await?;
    tx.commit().await?;
    Ok(Inserted::Stored)
}

pub async fn by_id(store: &Store, request_id: &str) -> Result<Option<RequestRow>, StoreError> {
    Ok(sqlx::query_as(&format!("{SELECT} WHERE request_id = ?")).bind(request_id).fetch_optional(store.pool()).await?)
}

pub async fn by_idempotency_key(store: &Store, agent_jkt: &str, key: &str) -> Result<Option<RequestRow>, StoreError> {
    Ok(sqlx::query_as(&format!("{SELECT} WHERE agent_jkt = ? AND idempotency_key = ?"))
        .bind(agent_jkt)
        .bind(key)
        .fetch_optional(store.pool())
        .await?)
}

/// Every pending request, oldest first.
pub async fn pending(store: &Store) -> Result<Vec<RequestRow>, StoreError> {
    Ok(sqlx::query_as(&format!("{SELECT} WHERE status = 'pending' ORDER BY created_at"))
        .fetch_all(store.pool())
        .await?)
}

/// A request's sealed columns, its status and its seal, from `requests r`
/// and `request_attention a`, read so that no value the person's programs
/// wrote there can fail the read itself (SQLite keeps whatever type a value
/// was written with): a wrong one fails the seal instead, and that row alone
/// is refused.
const SEALED_COLUMNS: &str = "coalesce(CAST(r.request_id AS TEXT), '') AS request_id,
     coalesce(CAST(r.agent_jkt AS TEXT), '') AS agent_jkt, coalesce(CAST(r.kind AS TEXT), '') AS kind,
     coalesce(CAST(r.status AS TEXT), '') AS status, coalesce(CAST(r.consent_text AS TEXT), '') AS consent_text,
     coalesce(CAST(r.input AS TEXT), '') AS input, CAST(r.hosts AS TEXT) AS hosts,
     coalesce(CAST(r.summary AS TEXT), '') AS summary, CAST(r.terms AS TEXT) AS terms,
     CAST(a.items AS TEXT) AS attention, coalesce(CAST(r.created_at AS INTEGER), 0) AS created_at,
     coalesce(CAST(r.expires_at AS INTEGER), 0) AS expires_at, CAST(r.seal AS TEXT) AS seal,
     (typeof(r.request_id) = 'text' AND typeof(r.agent_jkt) = 'text' AND typeof(r.kind) = 'text'
      AND typeof(r.status) = 'text' AND typeof(r.consent_text) = 'text' AND typeof(r.input) = 'text'
      AND typeof(r.hosts) IN ('text', 'null') AND typeof(r.summary) = 'text' AND typeof(r.terms) IN ('text', 'null')
      AND typeof(a.items) IN ('text', 'null') AND typeof(r.created_at) = 'integer'
      AND typeof(r.expires_at) = 'integer' AND typeof(r.seal) = 'text') AS well_typed";

const SEALED_FROM: &str = "FROM requests r LEFT JOIN request_attention a ON a.request_id = r.request_id";

/// A request with everything its seal covers, in one read.
pub async fn sealed(store: &Store, request_id: &str) -> Result<Option<SealedRow>, StoreError> {
    Ok(sqlx::query_as(&format!("SELECT {SEALED_COLUMNS} {SEALED_FROM} WHERE r.request_id = ?"))
        .bind(request_id)
        .fetch_optional(store.pool())
        .await?)
}

/// Requests `ids` with everything their seals cover, in no set order; an id
/// with no row is left out. One statement for a page of records.
pub async fn sealed_many(store: &Store, ids: &[&str]) -> Result<Vec<SealedRow>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids = serde_json::to_string(ids).expect("ids serialize");
    Ok(sqlx::query_as(&format!(
        "SELECT {SEALED_COLUMNS} {SEALED_FROM} WHERE r.request_id IN (SELECT value FROM json_each(?))"
    ))
    .bind(ids)
    .fetch_all(store.pool())
    .await?)
}

/// The rowids of the pending requests, oldest first: each is then read on
/// its own (`sealed_at`), so a row whose values cannot be read fails alone.
pub async fn pending_rowids(store: &Store) -> Result<Vec<i64>, StoreError> {
    Ok(sqlx::query_scalar("SELECT rowid FROM requests WHERE status = 'pending' ORDER BY created_at")
        .fetch_all(store.pool())
        .await?)
}

/// The request at `rowid` with everything its seal covers, if it is still pending.
pub async fn pending_sealed_at(store: &Store, rowid: i64) -> Result<Option<SealedRow>, StoreError> {
    Ok(sqlx::query_as(&format!("SELECT {SEALED_COLUMNS} {SEALED_FROM} WHERE r.rowid = ? AND r.status = 'pending'"))
        .bind(rowid)
        .fetch_optional(store.pool())
        .await?)
}

/// Withdraws the pending request at `rowid`, one whose seal does not hold or
/// whose values cannot be read (the service checked it), so it neither
/// counts against its agent's pending requests nor waits for an answer no
/// one can give. `false`: it was no longer pending.
pub async fn withdraw_unsealed(store: &Store, rowid: i64, now: i64) -> Result<bool, StoreError> {
    let done =
        sqlx::query("UPDATE requests SET status = 'withdrawn', decided_at = ? WHERE rowid = ? AND status = 'pending'")
            .bind(now)
            .bind(rowid)
            .execute(store.pool())
            .await?;
    Ok(done.rows_affected() == 1)
}

/// What the per-agent limits are decided from (docs/agent-api.md §9).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct LimitsRow {
    /// The agent's pending requests.
    pub pending: i64,
    /// The status and decision time of its latest answered request…
    pub last_status: Option<String>,
    pub last_decided_at: Option<i64>,
    /// …and the status of the one before it.
    pub before_status: Option<String>,
    /// When the person last let the agent ask again despite its refusals.
    pub lifted_at: Option<i64>,
}

/// One round trip: the pending count and the agent's last two answered
/// requests (both use requests_by_agent_status, migration 0003). Answers
/// given in the same second are ordered by decision_seq (migration 0009), the
/// order they were given in.
pub async fn limits(store: &Store, agent_jkt: &str) -> Result<LimitsRow, StoreError> {
    Ok(sqlx::query_as(&format!("{LIMITS} SELECT {LIMITS_COLUMNS}")).bind(agent_jkt).fetch_one(store.pool()).await?)
}

/// The agent's limits (`?1`), as a CTE and the columns read from it.
const LIMITS: &str = "WITH last AS (SELECT status, decided_at FROM requests
                       WHERE agent_jkt = ?1 AND status IN ('approved','declined','expired')
                       ORDER BY decided_at DESC, decision_seq DESC LIMIT 2)";
const LIMITS_COLUMNS: &str = "(SELECT COUNT(*) FROM requests WHERE agent_jkt = ?1 AND status = 'pending') AS pending,
                (SELECT status FROM last LIMIT 1) AS last_status,
                (SELECT decided_at FROM last LIMIT 1) AS last_decided_at,
                (SELECT status FROM last LIMIT 1 OFFSET 1) AS before_status,
                (SELECT cooldown_lifted_at FROM agents WHERE jkt = ?1) AS lifted_at";

/// What a new request is admitted by, read in one query: the agent's limits,
/// whether it already asked under the idempotency key, and whether any
/// request is due to expire (the sweep must come first: an expiry changes
/// both what a replay answers and the limits).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct AdmissionRow {
    #[sqlx(flatten)]
    pub limits: LimitsRow,
    pub asked_before: bool,
    pub expiry_due: bool,
}

pub async fn admission(store: &Store, agent_jkt: &str, key: &str, now: i64) -> Result<AdmissionRow, StoreError> {
    Ok(sqlx::query_as(&format!(
        "{LIMITS} SELECT {LIMITS_COLUMNS},
                EXISTS (SELECT 1 FROM requests WHERE agent_jkt = ?1 AND idempotency_key = ?2) AS asked_before,
                EXISTS (SELECT 1 FROM requests WHERE status = 'pending' AND expires_at <= ?3) AS expiry_due"
    ))
    .bind(agent_jkt)
    .bind(key)
    .bind(now)
    .fetch_one(store.pool())
    .await?)
}

/// The person lets a paired agent ask again now, whatever its last refusals;
/// `false` when no paired agent has key `jkt`. Written to the history with it.
pub async fn lift_cooldown(store: &Store, jkt: &str, now: i64) -> Result<bool, StoreError> {
    let mut tx = store.begin().await?;
    let done = sqlx::query("UPDATE agents SET cooldown_lifted_at = ? WHERE jkt = ? AND status = 'approved'")
        .bind(now)
        .bind(jkt)
        .execute(&mut *tx)
        .await?;
    if done.rows_affected() == 0 {
        return Ok(false);
    }
    super::history::append(&mut tx, store.history_seal(), now, "cooldown_lifted", jkt, "", None).await?;
    tx.commit().await?;
    Ok(true)
}

/// Answers a pending request (`status`: approved, declined or withdrawn) in
/// the caller's transaction. `false` when it was no longer pending.
pub async fn settle(
    conn: &mut SqliteConnection,
    request_id: &str,
    status: &str,
    result: Option<&str>,
    now: i64,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE requests SET status = ?, result = ?, decided_at = ? WHERE request_id = ? AND status = 'pending'",
    )
    .bind(status)
    .bind(result)
    .bind(now)
    .bind(request_id)
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected() > 0)
}

/// Marks requests past their expiry as expired; whether any were. Each
/// expiry's history entry is sealed only for a row `sealed` says the key app
/// stored (the service's seal check, record_seal).
pub async fn expire_due(store: &Store, now: i64, sealed: impl Fn(&SealedRow) -> bool) -> Result<bool, StoreError> {
    // A read first: the common case has nothing to expire, and a read takes
    // no write lock.
    let due: Option<(i64,)> =
        sqlx::query_as("SELECT 1 FROM requests WHERE status = 'pending' AND expires_at <= ? LIMIT 1")
            .bind(now)
            .fetch_optional(store.pool())
            .await?;
    if due.is_none() {
        return Ok(false);
    }
    // Each expiry is in the person's history, at the moment it expired, in
    // the same transaction as the change it tells of.
    let mut tx = store.begin_immediate().await?;
    let expired: Vec<SealedRow> = sqlx::query_as(&format!(
        "SELECT {SEALED_COLUMNS} {SEALED_FROM} WHERE r.status = 'pending' AND r.expires_at <= ?
         ORDER BY r.expires_at, r.request_id"
    ))
    .bind(now)
    .fetch_all(&mut *tx)
    .await?;
    for r in &expired {
        // Sealed only for a request the key app stored (record_seal): a row
        // written by another program is marked expired too, but its entry,
        // in its words, vouches for nothing. The detail is the kind.
        let seal = store.history_seal().filter(|_| sealed(r));
        super::history::append(&mut tx, seal, r.expires_at, "request_expired", &r.request_id, &r.kind, None).await?;
    }
    let done = sqlx::query(
        "UPDATE requests SET status = 'expired', decided_at = expires_at WHERE status = 'pending' AND expires_at <= ?",
    )
    .bind(now)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(done.rows_affected() > 0)
}

/// An approved request of one kind, as the kind reads its own history.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ApprovedRow {
    /// The request, with everything its seal covers.
    #[sqlx(flatten)]
    pub request: SealedRow,
    /// Its result (JSON).
    pub result: String,
}

/// The approved requests of `kind` whose result names the contract
/// `offer_sha256` (its `offer_sha256` member, indexed by migration 0004),
/// newest first. The kind reads each result back as its own typed output and
/// checks the hash again; the service checks each one's seal.
pub async fn approved_over_offer(
    store: &Store,
    kind: &str,
    offer_sha256: &str,
) -> Result<Vec<ApprovedRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "SELECT {SEALED_COLUMNS}, coalesce(CAST(r.result AS TEXT), '') AS result {SEALED_FROM}
          WHERE r.kind = ? AND r.status = 'approved' AND json_extract(r.result, '$.offer_sha256') = ?
          ORDER BY r.created_at DESC"
    ))
    .bind(kind)
    .bind(offer_sha256)
    .fetch_all(store.pool())
    .await?)
}

/// The latest `limit` requests of `kind`, whatever their status, newest
/// first, with everything their seals cover.
pub async fn latest_sealed(store: &Store, kind: &str, limit: i64) -> Result<Vec<SealedRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "SELECT {SEALED_COLUMNS} {SEALED_FROM} WHERE r.kind = ? ORDER BY r.created_at DESC, r.rowid DESC LIMIT ?"
    ))
    .bind(kind)
    .bind(limit)
    .fetch_all(store.pool())
    .await?)
}

/// The requests of `kind` whose input holds `text`, whatever their status,
/// with everything their seals cover: a first sift the service finishes by
/// reading each sealed input.
pub async fn sealed_naming(store: &Store, kind: &str, text: &str) -> Result<Vec<SealedRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "SELECT {SEALED_COLUMNS} {SEALED_FROM} WHERE r.kind = ? AND instr(CAST(r.input AS TEXT), ?) > 0"
    ))
    .bind(kind)
    .bind(text)
    .fetch_all(store.pool())
    .await?)
}

/// Replaces a pending rule's input, its consent text and their seal
/// together, if its seal is still `was` (the row read and checked before).
/// `false`: it is no longer pending, no rule, or changed since, and nothing
/// was written.
pub async fn reword_pending_rule(
    store: &Store,
    request_id: &str,
    input: &str,
    consent_text: &str,
    was: &str,
    seal: &str,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE requests SET input = ?, consent_text = ?, seal = ?
          WHERE request_id = ? AND status = 'pending' AND kind = 'rule' AND seal = ?",
    )
    .bind(input)
    .bind(consent_text)
    .bind(seal)
    .bind(request_id)
    .bind(was)
    .execute(store.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("keyapp.db")).await.unwrap();
        sqlx::query(
            "INSERT INTO agents (jkt, jwk, name, pairing_id, fingerprint, status, created_at)
             VALUES ('j', '{}', 'A', 'pr_1', 'f', 'approved', 0)",
        )
        .execute(store.pool())
        .await
        .unwrap();
        (dir, store)
    }

    fn new<'a>(id: &'a str, key: &'a str) -> NewRequest<'a> {
        NewRequest {
            request_id: id,
            agent_jkt: "j",
            kind: "rule",
            idempotency_key: key,
            body_sha256: "h",
            consent_text: "I approve.",
            input: "{}",
            created_at: 10,
            expires_at: 20,
            hosts: "[]",
            attention: "[{\"kind\":\"new_host\",\"detail\":\"x\"}]",
            summary: "Oil change with Maple Street Auto",
            terms: Some("{\"host\":\"Maple Street Auto\",\"lines\":[]}"),
            seal: "s",
        }
    }

    #[tokio::test]
    async fn a_lifted_cooldown_is_kept_for_a_paired_agent_only_and_told_in_the_history() {
        use super::super::history;
        let (_dir, store) = store().await;
        assert!(!lift_cooldown(&store, "nobody", 50).await.unwrap());
        assert_eq!(limits(&store, "j").await.unwrap().lifted_at, None);
        assert!(lift_cooldown(&store, "j", 50).await.unwrap());
        assert_eq!(limits(&store, "j").await.unwrap().lifted_at, Some(50));
        let h = history::latest(&store, 5).await.unwrap();
        assert_eq!((h[0].event.as_str(), h[0].agent_name.as_deref()), ("cooldown_lifted", Some("A")));
        assert_eq!(h.iter().filter(|e| e.event == "cooldown_lifted").count(), 1, "nothing written for the unknown key");
    }

    #[tokio::test]
    async fn an_expired_request_is_in_the_history_once_at_the_moment_it_expired() {
        use super::super::history;
        let (_dir, store) = store().await;
        assert_eq!(insert(&store, &new("rq_1", "k")).await.unwrap(), Inserted::Stored);
        assert!(!expire_due(&store, 19, |_| true).await.unwrap(), "not yet due");
        assert!(expire_due(&store, 25, |_| true).await.unwrap());
        assert!(!expire_due(&store, 30, |_| true).await.unwrap(), "expired once");
        let expired: Vec<_> =
            history::latest(&store, 10).await.unwrap().into_iter().filter(|h| h.event == "request_expired").collect();
        assert_eq!(expired.len(), 1);
        assert_eq!((expired[0].at, expired[0].subject.as_str()), (20, "rq_1"));
        assert_eq!(expired[0].summary.as_deref(), Some("Oil change with Maple Street Auto"));
        assert_eq!(by_id(&store, "rq_1").await.unwrap().unwrap().status, "expired");
    }

    #[tokio::test]
    async fn history_about_a_request_names_what_was_asked_and_by_whom() {
        use super::super::history;
        let (_dir, store) = store().await;
        assert_eq!(insert(&store, &new("rq_1", "k")).await.unwrap(), Inserted::Stored);
        assert_eq!(by_id(&store, "rq_1").await.unwrap().unwrap().summary, "Oil change with Maple Street Auto");
        let mut tx = store.begin().await.unwrap();
        history::append(&mut tx, store.history_seal(), 11, "request_declined", "rq_1", "", None).await.unwrap();
        history::append(&mut tx, store.history_seal(), 12, "pairing_approved", "pr_1", "", None).await.unwrap();
        history::append(&mut tx, store.history_seal(), 13, "agent_unpaired", "j", "", None).await.unwrap();
        history::append(&mut tx, store.history_seal(), 14, "contact_added", "urn:x", "Ellis", None).await.unwrap();
        tx.commit().await.unwrap();
        let got = history::latest(&store, 10).await.unwrap();
        let about = |event: &str| got.iter().find(|h| h.event == event).unwrap();
        let declined = about("request_declined");
        assert_eq!(declined.summary.as_deref(), Some("Oil change with Maple Street Auto"));
        assert_eq!(declined.agent_name.as_deref(), Some("A"));
        assert_eq!(about("pairing_approved").agent_name.as_deref(), Some("A"));
        assert_eq!(about("agent_unpaired").agent_name.as_deref(), Some("A"));
        let contact = about("contact_added");
        assert_eq!((contact.summary.as_deref(), contact.agent_name.as_deref()), (None, None));
    }

    async fn attention(store: &Store, id: &str) -> Option<String> {
        sealed(store, id).await.unwrap().and_then(|r| r.attention)
    }

    async fn terms(store: &Store, id: &str) -> Option<String> {
        sealed(store, id).await.unwrap().and_then(|r| r.terms)
    }

    #[tokio::test]
    async fn a_request_and_its_callouts_are_stored_together_or_not_at_all() {
        let (_dir, store) = store().await;
        assert_eq!(insert(&store, &new("rq_1", "k")).await.unwrap(), Inserted::Stored);
        let row = by_id(&store, "rq_1").await.unwrap().unwrap();
        assert_eq!((row.status.as_str(), row.kind.as_str(), row.result), ("pending", "rule", None));
        assert_eq!(attention(&store, "rq_1").await.as_deref(), Some(new("rq_1", "k").attention));
        assert_eq!(terms(&store, "rq_1").await.as_deref(), new("rq_1", "k").terms);
        assert_eq!(sealed(&store, "rq_1").await.unwrap().unwrap().seal.as_deref(), Some(new("rq_1", "k").seal));
        // The same key again: nothing stored, not even the callouts.
        assert_eq!(insert(&store, &new("rq_2", "k")).await.unwrap(), Inserted::KeyTaken);
        assert!(by_id(&store, "rq_2").await.unwrap().is_none());
        assert_eq!(attention(&store, "rq_2").await, None);
        assert_eq!(terms(&store, "rq_2").await, None);
        assert_eq!(by_idempotency_key(&store, "j", "k").await.unwrap().unwrap().request_id, "rq_1");
        // A request for an agent that does not exist stores nothing.
        let mut stray = new("rq_3", "k3");
        stray.agent_jkt = "nobody";
        assert_eq!(insert(&store, &stray).await.unwrap(), Inserted::AgentNotPaired);
        assert_eq!(attention(&store, "rq_3").await, None);
    }

    /// A new request's one read: whether this agent used the key, whether
    /// anything is due to expire, and its limits as `limits` reads them.
    #[tokio::test]
    async fn admission_reads_the_key_the_expiry_due_and_the_limits_at_once() {
        let (_dir, store) = store().await;
        let fresh = admission(&store, "j", "k", 10).await.unwrap();
        assert_eq!((fresh.asked_before, fresh.expiry_due, fresh.limits.pending), (false, false, 0));
        assert_eq!(insert(&store, &new("rq_1", "k")).await.unwrap(), Inserted::Stored);
        let again = admission(&store, "j", "k", 19).await.unwrap();
        assert_eq!((again.asked_before, again.expiry_due), (true, false));
        assert_eq!(again.limits, limits(&store, "j").await.unwrap());
        assert_eq!(again.limits.pending, 1);
        // Another key, another agent's same key: not asked before.
        assert!(!admission(&store, "j", "k2", 19).await.unwrap().asked_before);
        assert!(!admission(&store, "nobody", "k", 19).await.unwrap().asked_before);
        // Due at its expiry, whoever asks.
        assert!(admission(&store, "j", "k2", 20).await.unwrap().expiry_due);
        assert!(admission(&store, "nobody", "k", 20).await.unwrap().expiry_due);
        assert!(expire_due(&store, 20, |_| true).await.unwrap());
        let swept = admission(&store, "j", "k", 20).await.unwrap();
        assert_eq!((swept.asked_before, swept.expiry_due, swept.limits.pending), (true, false, 0));
        assert_eq!(swept.limits.last_status.as_deref(), Some("expired"));
    }

    /// The agent API's guard looks the pairing up before it reads the body;
    /// the person may unpair the agent in between. The store is the last word.
    #[tokio::test]
    async fn a_request_from_an_agent_unpaired_since_it_was_admitted_is_not_stored() {
        use super::super::history;
        let (_dir, store) = store().await;
        for status in ["unpaired", "pending", "declined"] {
            sqlx::query("UPDATE agents SET status = ? WHERE jkt = 'j'")
                .bind(status)
                .execute(store.pool())
                .await
                .unwrap();
            assert_eq!(insert(&store, &new("rq_1", "k")).await.unwrap(), Inserted::AgentNotPaired, "{status}");
            assert!(by_id(&store, "rq_1").await.unwrap().is_none(), "{status}");
            assert_eq!(attention(&store, "rq_1").await, None);
            assert!(history::latest(&store, 10).await.unwrap().is_empty(), "no entry for what was not stored");
        }
        sqlx::query("UPDATE agents SET status = 'approved' WHERE jkt = 'j'").execute(store.pool()).await.unwrap();
        assert_eq!(insert(&store, &new("rq_1", "k")).await.unwrap(), Inserted::Stored);
    }

    #[tokio::test]
    async fn a_request_is_answered_once_and_expires_when_due() {
        let (_dir, store) = store().await;
        for (id, key) in [("rq_1", "k1"), ("rq_2", "k2")] {
            insert(&store, &new(id, key)).await.unwrap();
        }
        let mut tx = store.pool().begin().await.unwrap();
        assert!(settle(&mut tx, "rq_1", "approved", Some("{\"offer_sha256\":\"o\"}"), 15).await.unwrap());
        assert!(!settle(&mut tx, "rq_1", "declined", None, 16).await.unwrap());
        tx.commit().await.unwrap();
        assert_eq!(pending(&store).await.unwrap().len(), 1);
        assert!(!expire_due(&store, 19, |_| true).await.unwrap());
        assert!(expire_due(&store, 20, |_| true).await.unwrap());
        assert!(pending(&store).await.unwrap().is_empty());
        let l = limits(&store, "j").await.unwrap();
        assert_eq!(
            (l.pending, l.last_status.as_deref(), l.before_status.as_deref()),
            (0, Some("expired"), Some("approved"))
        );
        let over = approved_over_offer(&store, "rule", "o").await.unwrap();
        assert_eq!(over.len(), 1);
        assert!(approved_over_offer(&store, "closed_mandate", "o").await.unwrap().is_empty());
    }

    async fn request(store: &Store, id: &str, kind: &str, status: &str) {
        sqlx::query(
            "INSERT INTO requests (request_id, agent_jkt, kind, idempotency_key, body_sha256, status,
                                   consent_text, input, created_at, expires_at, seal)
             VALUES (?, 'j', ?, ?, 'h', ?, 'old text', '{\"rule\":{}}', 1, 100, 's0')",
        )
        .bind(id)
        .bind(kind)
        .bind(id)
        .bind(status)
        .execute(store.pool())
        .await
        .unwrap();
    }

    fn input_of(row: Option<SealedRow>) -> Option<String> {
        row.map(|r| r.input)
    }

    #[tokio::test]
    async fn only_a_pending_rule_whose_seal_is_unchanged_is_reworded() {
        let (_dir, store) = store().await;
        request(&store, "rq_rule", "rule", "pending").await;
        request(&store, "rq_done", "rule", "approved").await;
        request(&store, "rq_mandate", "mandate", "pending").await;
        assert_eq!(input_of(sealed(&store, "rq_rule").await.unwrap()).as_deref(), Some("{\"rule\":{}}"));
        assert_eq!(sealed(&store, "rq_none").await.unwrap(), None);

        // Another seal than the one read: changed since, nothing written.
        assert!(!reword_pending_rule(&store, "rq_rule", "{}", "new text", "s9", "s1").await.unwrap());
        assert!(reword_pending_rule(&store, "rq_rule", "{\"rule\":{\"label\":\"x\"}}", "new text", "s0", "s1")
            .await
            .unwrap());
        let row = sealed(&store, "rq_rule").await.unwrap().unwrap();
        assert_eq!((row.input.as_str(), row.seal.as_deref()), ("{\"rule\":{\"label\":\"x\"}}", Some("s1")));
        for id in ["rq_done", "rq_mandate", "rq_none"] {
            assert!(!reword_pending_rule(&store, id, "{}", "new text", "s0", "s1").await.unwrap(), "{id}");
        }
        let texts: Vec<(String,)> = sqlx::query_as("SELECT consent_text FROM requests ORDER BY request_id")
            .fetch_all(store.pool())
            .await
            .unwrap();
        let texts: Vec<_> = texts.into_iter().map(|(t,)| t).collect();
        assert_eq!(texts, ["old text", "old text", "new text"], "done, mandate, rule");
    }
}
