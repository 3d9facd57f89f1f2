//! The credentials the key app issued, as the records keep them: one row per
//! credential, its revocation, and the status the status API reports (§3.3
//! "Status"; docs/agent-api.md "Status API"). The shared booking limit's
//! accounting on these rows is `claims`.

use super::{Store, StoreError, Stored};
use crate::kind::RequestKind;
use crate::record_query::{CredentialCursor, CredentialState, Filter};
use schcp::claims::Action;

/// A credential the key app issued, as the request pipeline records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialRecord {
    pub jti: String,
    /// The kind of the request that issued it.
    pub kind: RequestKind,
    pub agent_jkt: Option<String>,
    pub request_id: Option<String>,
    /// The host ids of the mandate's `aud` (one element for a single host).
    pub aud: Vec<String>,
    pub scope: Vec<Action>,
    /// NumericDate; also kept as the record's `created_at`.
    pub iat: i64,
    /// NumericDate; the mandate is valid while `now < exp` (§3.3 check 3, no skew).
    pub exp: i64,
    /// The signed credential as issued.
    pub compact: String,
    /// The mandate's `status` claim. Only a credential with a status URL is
    /// served by the status API; the others answer 404 there.
    pub status_url: Option<String>,
    /// `constraints.max_bookings`. Kept only together with `shared_limit`: without
    /// it each host counts its own bookings (§3.3) and the key app counts nothing.
    pub max_bookings: Option<u32>,
    /// `constraints.shared_limit`.
    pub shared_limit: bool,
    /// The booking a management mandate is for.
    pub booking_id: Option<String>,
    /// Per `aud` host, the RFC 7638 thumbprints of the keys of the discovery
    /// document verified when the person approved: a signed claim or release
    /// is taken only with one of the claiming host's (docs/agent-api.md
    /// "Signed claims"). Empty where none were verified (a rule, a contract).
    pub host_keys: status_edge::HostKeys,
}

/// A credential's row as stored, with its seal: JSON columns as their text.
/// A later signature made without the person (a registration with the hosted
/// status service) is built from these values only once their seal holds.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct StoredCredential {
    pub jti: String,
    pub kind: String,
    pub agent_jkt: Option<String>,
    pub request_id: Option<String>,
    pub aud: String,
    pub scope: String,
    pub iat: i64,
    pub exp: i64,
    pub compact: String,
    pub status_url: Option<String>,
    pub max_bookings: Option<i64>,
    pub shared_limit: bool,
    pub booking_id: Option<String>,
    pub host_keys: String,
    pub seal: Option<String>,
}

/// The columns of [`StoredCredential`], of the credentials table `c`.
pub const STORED_COLUMNS: &str = "c.jti, c.kind, c.agent_jkt, c.request_id, c.aud, c.scope, c.iat, c.exp, \
     c.compact, c.status_url, c.max_bookings, c.shared_limit, c.booking_id, c.host_keys, c.seal";

impl StoredCredential {
    /// The fields its seal covers.
    pub fn fields(&self) -> crate::record_seal::CredentialFields<'_> {
        crate::record_seal::CredentialFields {
            jti: &self.jti,
            kind: &self.kind,
            agent_jkt: self.agent_jkt.as_deref(),
            request_id: self.request_id.as_deref(),
            aud: &self.aud,
            scope: &self.scope,
            iat: self.iat,
            exp: self.exp,
            compact: &self.compact,
            status_url: self.status_url.as_deref(),
            max_bookings: self.max_bookings,
            shared_limit: self.shared_limit,
            booking_id: self.booking_id.as_deref(),
            host_keys: &self.host_keys,
        }
    }
}

impl CredentialRecord {
    /// The row this record is written as, not yet sealed.
    fn stored(&self) -> Result<StoredCredential, StoreError> {
        let json = |v: Result<String, serde_json::Error>| {
            v.map_err(|e| StoreError::corrupt(Stored::Credential, format!("{}: {e}", self.jti)))
        };
        Ok(StoredCredential {
            jti: self.jti.clone(),
            kind: self.kind.as_str().to_owned(),
            agent_jkt: self.agent_jkt.clone(),
            request_id: self.request_id.clone(),
            aud: json(serde_json::to_string(&self.aud))?,
            scope: json(serde_json::to_string(&self.scope))?,
            iat: self.iat,
            exp: self.exp,
            compact: self.compact.clone(),
            status_url: self.status_url.clone(),
            max_bookings: if self.shared_limit { self.max_bookings.map(i64::from) } else { None },
            shared_limit: self.shared_limit,
            booking_id: self.booking_id.clone(),
            host_keys: json(serde_json::to_string(&self.host_keys))?,
            seal: None,
        })
    }
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    #[error("a credential with jti {0:?} is already recorded")]
    DuplicateJti(String),
    #[error("invalid mandate record: {0}")]
    Invalid(&'static str),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What `GET /status/{jti}` says about a credential (the edge's, both stores' word).
pub use status_edge::CredentialStatus;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusView {
    pub status: CredentialStatus,
    /// `max_bookings` minus the claims held; `None` for a mandate without
    /// `shared_limit` ("status only", docs/agent-api.md §2). Reported whatever the status,
    /// so the identity `remaining = max_bookings − held` always holds.
    pub remaining: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevokeOutcome {
    Revoked,
    AlreadyRevoked,
    UnknownMandate,
}

fn unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}

/// Records a credential in one transaction, unsealed: the status API serves
/// it, but no registration is ever signed from it (record_seal). The request
/// pipeline records and seals what it issues in its own transaction
/// (`insert`, then `seal`); this is for tools and tests that stand in for it.
pub async fn record(store: &Store, rec: CredentialRecord) -> Result<(), RecordError> {
    let mut tx = store.pool().begin_with("BEGIN IMMEDIATE").await.map_err(StoreError::from)?;
    insert(&mut tx, &rec).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(())
}

/// Records an issued credential inside the caller's transaction, so the request
/// pipeline settles a request and records what it issued in one commit.
/// Returns the row as written, for the service to seal (`seal`).
pub async fn insert(
    conn: &mut sqlx::SqliteConnection,
    rec: &CredentialRecord,
) -> Result<StoredCredential, RecordError> {
    if rec.shared_limit {
        if rec.max_bookings.is_none() {
            return Err(RecordError::Invalid("shared_limit needs max_bookings"));
        }
        if rec.status_url.is_none() {
            // §3.3: a host refuses a confirm on a link with a shared limit and no
            // status URL, so such a mandate could never be used.
            return Err(RecordError::Invalid("shared_limit needs a status URL"));
        }
    }
    // Every mandate names its hosts; a rule (§7.9) names an agent key instead.
    if rec.aud.is_empty() && rec.kind.has_audience() {
        return Err(RecordError::Invalid("aud names no host"));
    }
    if rec.host_keys.keys().any(|h| !rec.aud.contains(h)) {
        return Err(RecordError::Invalid("host_keys names a host not in aud"));
    }
    let row = rec.stored()?;
    let inserted = sqlx::query(
        "INSERT INTO credentials (jti, kind, agent_jkt, request_id, aud, scope, iat, exp, compact,
                                  status_url, max_bookings, shared_limit, booking_id, created_at, host_keys)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&row.jti)
    .bind(&row.kind)
    .bind(&row.agent_jkt)
    .bind(&row.request_id)
    .bind(&row.aud)
    .bind(&row.scope)
    .bind(row.iat)
    .bind(row.exp)
    .bind(&row.compact)
    .bind(&row.status_url)
    .bind(row.max_bookings)
    .bind(row.shared_limit)
    .bind(&row.booking_id)
    .bind(row.iat)
    .bind(&row.host_keys)
    .execute(&mut *conn)
    .await;
    match inserted {
        Ok(_) => Ok(row),
        Err(e) if unique_violation(&e) => Err(RecordError::DuplicateJti(rec.jti.clone())),
        Err(e) => Err(StoreError::from(e).into()),
    }
}

/// Seals credential `jti`'s row (record_seal), inside the transaction that
/// wrote it. A row already sealed keeps its seal.
pub async fn seal(conn: &mut sqlx::SqliteConnection, jti: &str, seal: &str) -> Result<(), StoreError> {
    sqlx::query("UPDATE credentials SET seal = ? WHERE jti = ? AND seal IS NULL")
        .bind(seal)
        .bind(jti)
        .execute(conn)
        .await?;
    Ok(())
}

/// Says how the person's yes to credential `jti` was confirmed (migration
/// 0012), inside the transaction that records it.
pub async fn record_confirmation(
    conn: &mut sqlx::SqliteConnection,
    jti: &str,
    method: crate::user_verification::Method,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE credentials SET confirmed_by = ? WHERE jti = ?")
        .bind(method.as_str())
        .bind(jti)
        .execute(conn)
        .await?;
    Ok(())
}

/// How each credential the person confirmed was confirmed, by jti (the
/// credentials a person was never asked about are not in it).
pub async fn confirmations(
    store: &Store,
) -> Result<std::collections::HashMap<String, crate::user_verification::Method>, StoreError> {
    #[derive(sqlx::FromRow)]
    struct Row {
        jti: String,
        confirmed_by: String,
    }
    let rows: Vec<Row> = sqlx::query_as("SELECT jti, confirmed_by FROM credentials WHERE confirmed_by IS NOT NULL")
        .fetch_all(store.pool())
        .await?;
    rows.into_iter()
        .map(|Row { jti, confirmed_by: m }| {
            let method = crate::user_verification::Method::parse(&m).ok_or_else(|| {
                StoreError::corrupt(Stored::Credential, format!("credential {jti}: confirmed_by {m:?}"))
            })?;
            Ok((jti, method))
        })
        .collect()
}

/// The status of a credential that has a status URL, or `None` (404). One
/// statement, so one consistent snapshot.
pub async fn status(store: &Store, jti: &str, now: i64) -> Result<Option<StatusView>, StoreError> {
    #[derive(sqlx::FromRow)]
    struct Row {
        exp: i64,
        revoked: bool,
        shared_limit: bool,
        max_bookings: Option<i64>,
        held: i64,
    }
    let row: Option<Row> = sqlx::query_as(
        "SELECT c.exp, c.revoked_at IS NOT NULL AS revoked, c.shared_limit, c.max_bookings,
                coalesce(n.held, 0) AS held
         FROM credentials c LEFT JOIN limit_counts n ON n.jti = c.jti
         WHERE c.jti = ? AND c.status_url IS NOT NULL",
    )
    .bind(jti)
    .fetch_optional(store.pool())
    .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let remaining = remaining(row.shared_limit, row.max_bookings, row.held)
        .map_err(|m| StoreError::corrupt(Stored::Credential, format!("{jti}: max_bookings {m}")))?;
    Ok(Some(StatusView { status: CredentialStatus::of(row.revoked, row.exp, now), remaining }))
}

/// What is left of a shared limit (§3.3 `remaining`) given the units `held`
/// (`limit_counts`); `None` without a shared limit. Every surface that reports
/// `remaining` computes it here, so they agree. `Err` carries a stored
/// `max_bookings` out of range.
pub fn remaining(shared_limit: bool, max_bookings: Option<i64>, held: i64) -> Result<Option<u32>, i64> {
    let max = shared_max(shared_limit, max_bookings)?;
    // Never negative: the database refuses a unit beyond max_bookings (0002).
    Ok(max.map(|m| u32::try_from((i64::from(m) - held).max(0)).unwrap_or(0)))
}

/// Revokes a credential at once and records it in the history. Held claims stay
/// held (a booking already made keeps its unit, §3.3); new claims are refused.
pub async fn revoke(store: &Store, jti: &str, now: i64) -> Result<RevokeOutcome, StoreError> {
    revoke_with(store, jti, now, false, &[]).await
}

/// [`revoke`], and in the same transaction owes the hosted status service the
/// revocation (`outbox`) when the credential was registered there:
/// recorded here at once, published until acknowledged.
pub async fn revoke_and_publish(store: &Store, jti: &str, now: i64) -> Result<RevokeOutcome, StoreError> {
    revoke_with(store, jti, now, true, &[]).await
}

/// [`revoke_and_publish`], and with it `children`, management mandates the
/// service found were issued under `jti` from their sealed records, beside
/// those the links name.
pub async fn revoke_tree_and_publish(
    store: &Store,
    jti: &str,
    children: &[String],
    now: i64,
) -> Result<RevokeOutcome, StoreError> {
    revoke_with(store, jti, now, true, children).await
}

async fn revoke_with(
    store: &Store,
    jti: &str,
    now: i64,
    publish: bool,
    children: &[String],
) -> Result<RevokeOutcome, StoreError> {
    let mut tx = store.pool().begin_with("BEGIN IMMEDIATE").await?;
    let outcome = revoke_in(&mut tx, store.history_seal(), jti, now, publish).await?;
    if outcome != RevokeOutcome::UnknownMandate {
        // §3.3 "Renewal never widens authority": a management mandate the key
        // app issued without a prompt under this root goes with it, in the
        // same transaction (and is published the same way); also when the
        // root's row already read as revoked, which another program could
        // have written to keep them in force.
        let mut under = super::management_links::issued_under(&mut tx, jti).await?;
        under.extend(children.iter().cloned());
        under.sort_unstable();
        under.dedup();
        for child in under {
            revoke_in(&mut tx, store.history_seal(), &child, now, publish).await?;
        }
    }
    tx.commit().await?;
    Ok(outcome)
}

/// The credentials the records say were issued for request `request_id`, as
/// stored: the service believes one only while its seal holds.
pub async fn stored_for_request(store: &Store, request_id: &str) -> Result<Vec<StoredCredential>, StoreError> {
    Ok(sqlx::query_as(&format!("SELECT {STORED_COLUMNS} FROM credentials c WHERE c.request_id = ?"))
        .bind(request_id)
        .fetch_all(store.pool())
        .await?)
}

/// Every credential not revoked that the records say was issued for one of
/// `requests`, by its `request_id` or by the jti in the request's result:
/// (jti, request id). Read as text, so a row of another program's making
/// cannot fail the read.
pub async fn issued_for(store: &Store, requests: &[&str]) -> Result<Vec<(String, String)>, StoreError> {
    if requests.is_empty() {
        return Ok(Vec::new());
    }
    let ids = serde_json::to_string(requests).map_err(|e| StoreError::corrupt(Stored::Credential, e.to_string()))?;
    Ok(sqlx::query_as(
        "SELECT CAST(c.jti AS TEXT), CAST(r.request_id AS TEXT)
         FROM requests r JOIN credentials c
           ON c.request_id = r.request_id
           OR (json_valid(r.result) AND c.jti = r.result ->> '$.jti')
         WHERE r.request_id IN (SELECT value FROM json_each(?)) AND c.revoked_at IS NULL",
    )
    .bind(ids)
    .fetch_all(store.pool())
    .await?)
}

/// Revokes one credential inside the caller's transaction, with its history
/// entry and, when `publish`, the revocation owed to the hosted status service.
pub async fn revoke_in(
    tx: &mut sqlx::SqliteConnection,
    history_seal: Option<&crate::record_seal::RecordSeal>,
    jti: &str,
    now: i64,
    publish: bool,
) -> Result<RevokeOutcome, StoreError> {
    #[derive(sqlx::FromRow)]
    struct Row {
        revoked_at: Option<i64>,
        kind: String,
    }
    let row: Option<Row> = sqlx::query_as("SELECT revoked_at, kind FROM credentials WHERE jti = ?")
        .bind(jti)
        .fetch_optional(&mut *tx)
        .await?;
    Ok(match row {
        None => RevokeOutcome::UnknownMandate,
        Some(Row { revoked_at: Some(_), .. }) => RevokeOutcome::AlreadyRevoked,
        Some(Row { revoked_at: None, kind }) => {
            sqlx::query("UPDATE credentials SET revoked_at = ? WHERE jti = ?")
                .bind(now)
                .bind(jti)
                .execute(&mut *tx)
                .await?;
            // The detail is the kind, as a kind the key app writes: the
            // entry is sealed, and the row's column is not.
            let kind = kind.parse::<RequestKind>().map_or("", RequestKind::as_str);
            super::history::append(tx, history_seal, now, "revoked", jti, kind, None).await?;
            if publish {
                super::outbox::enqueue_revoke(&mut *tx, jti, now).await?;
            }
            RevokeOutcome::Revoked
        }
    })
}

/// A credential as a listing shows it, with what the key app counts of it
/// and, for a contract or an acceptance, its meeting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedCredential {
    pub jti: String,
    pub kind: RequestKind,
    pub aud: Vec<String>,
    pub exp: i64,
    pub revoked: bool,
    /// What is left of its shared limit by the key app's own count (`remaining`).
    pub remaining: Option<u32>,
    pub agent_jkt: Option<String>,
    pub meeting: Option<MeetingRecord>,
    /// Its status URL, when it was registered with a hosted status service:
    /// hosts claim units there, so only that service's count is true.
    pub hosted_status_url: Option<String>,
    /// The outbox ops the hosted status service has not yet acknowledged
    /// and may still take.
    pub unpublished: Vec<super::outbox::Op>,
    /// The first update the hosted status service refused for good, and why.
    pub refused: Option<(super::outbox::Op, schcp::refusal::Reason)>,
    /// What the person approved, in one line: the summary of the request it
    /// was issued for (none for one issued without a request, or before
    /// summaries were kept).
    pub summary: Option<String>,
    /// The request it was issued for: `summary` is its, shown only while its
    /// row holds its seal (record_seal).
    pub request_id: Option<String>,
    /// Its row as stored, with its seal: `request_id` names the request whose
    /// summary it shows only while this seal holds (record_seal).
    pub stored: StoredCredential,
}

/// The meeting a contract or acceptance record is about (§5.12).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeetingRecord {
    pub meeting_id: String,
    pub revision: u32,
    pub contract_sha256: String,
    /// The members by the names the contract gives them.
    pub members: Vec<String>,
    /// Whether this is the meeting's latest revision kept here.
    pub current: bool,
}

#[derive(sqlx::FromRow)]
struct ListingRow {
    jti: String,
    kind: String,
    aud: String,
    exp: i64,
    revoked: bool,
    max_bookings: Option<i64>,
    shared_limit: bool,
    agent_jkt: Option<String>,
    request_id: Option<String>,
    held: i64,
    #[sqlx(flatten)]
    meeting: MeetingColumns,
    hosted_status_url: Option<String>,
    unpublished: Option<String>,
    refused_op: Option<String>,
    refused_reason: Option<String>,
    summary: Option<String>,
    #[sqlx(flatten)]
    sealed: SealOnlyColumns,
}

/// The columns a credential's seal covers that a listing does not show.
#[derive(Debug, sqlx::FromRow)]
struct SealOnlyColumns {
    c_scope: String,
    c_iat: i64,
    c_compact: String,
    c_status_url: Option<String>,
    c_booking_id: Option<String>,
    c_host_keys: String,
    c_seal: Option<String>,
}

/// A `meeting_records` row joined to a credential: all NULL for a credential
/// that is not a contract or an acceptance.
#[derive(Debug, sqlx::FromRow)]
struct MeetingColumns {
    meeting_id: Option<String>,
    revision: Option<i64>,
    contract_sha256: Option<String>,
    members: Option<String>,
    latest_revision: Option<i64>,
}

impl MeetingColumns {
    fn record(self, jti: &str) -> Result<Option<MeetingRecord>, StoreError> {
        let corrupt = |what: String| StoreError::corrupt(Stored::Meeting, format!("{jti}: meeting record {what}"));
        let MeetingColumns { meeting_id, revision, contract_sha256, members, latest_revision } = self;
        match (meeting_id, revision, contract_sha256, members, latest_revision) {
            (None, None, None, None, None) => Ok(None),
            (Some(meeting_id), Some(revision), Some(contract_sha256), Some(members), Some(latest)) => {
                Ok(Some(MeetingRecord {
                    revision: u32::try_from(revision).map_err(|_| corrupt(format!("revision {revision}")))?,
                    members: serde_json::from_str(&members).map_err(|e| corrupt(e.to_string()))?,
                    current: revision == latest,
                    meeting_id,
                    contract_sha256,
                }))
            }
            partial => Err(corrupt(format!("{partial:?}"))),
        }
    }
}

impl TryFrom<ListingRow> for ListedCredential {
    type Error = StoreError;

    fn try_from(r: ListingRow) -> Result<ListedCredential, StoreError> {
        let corrupt = |what: String| StoreError::corrupt(Stored::Credential, format!("{}: {what}", r.jti));
        let stored = StoredCredential {
            jti: r.jti.clone(),
            kind: r.kind.clone(),
            agent_jkt: r.agent_jkt.clone(),
            request_id: r.request_id.clone(),
            aud: r.aud.clone(),
            scope: r.sealed.c_scope,
            iat: r.sealed.c_iat,
            exp: r.exp,
            compact: r.sealed.c_compact,
            status_url: r.sealed.c_status_url,
            max_bookings: r.max_bookings,
            shared_limit: r.shared_limit,
            booking_id: r.sealed.c_booking_id,
            host_keys: r.sealed.c_host_keys,
            seal: r.sealed.c_seal,
        };
        Ok(ListedCredential {
            stored,
            kind: r.kind.parse().map_err(|e| corrupt(format!("kind: {e}")))?,
            aud: serde_json::from_str(&r.aud).map_err(|e| corrupt(format!("aud: {e}")))?,
            remaining: remaining(r.shared_limit, r.max_bookings, r.held)
                .map_err(|m| corrupt(format!("max_bookings {m}")))?,
            unpublished: r
                .unpublished
                .as_deref()
                .map_or(Ok(Vec::new()), |ops| ops.split(',').map(super::outbox::Op::parse).collect())?,
            refused: match (r.refused_op.as_deref(), r.refused_reason.as_deref()) {
                (Some(op), Some(reason)) => Some((
                    super::outbox::Op::parse(op)?,
                    reason.parse().map_err(|_| corrupt(format!("outbox refusal {reason:?}")))?,
                )),
                (None, None) => None,
                partial => return Err(corrupt(format!("outbox refusal {partial:?}"))),
            },
            meeting: r.meeting.record(&r.jti)?,
            exp: r.exp,
            revoked: r.revoked,
            agent_jkt: r.agent_jkt,
            request_id: r.request_id,
            hosted_status_url: r.hosted_status_url,
            summary: r.summary.filter(|s| !s.is_empty()),
            jti: r.jti,
        })
    }
}

/// A listing's columns (`ListingRow`) and joins, shared by [`listing`] and [`search`].
const LISTING_COLUMNS: &str =
    "c.jti, c.kind, c.aud, c.exp, c.revoked_at IS NOT NULL AS revoked, c.max_bookings, c.shared_limit,
                c.agent_jkt, c.request_id, coalesce(n.held, 0) AS held, m.meeting_id, m.revision, m.contract_sha256, m.members,
                (SELECT MAX(x.revision) FROM meeting_records x WHERE x.meeting_id = m.meeting_id) AS latest_revision,
                CASE WHEN EXISTS (SELECT 1 FROM status_outbox o WHERE o.jti = c.jti AND o.op = 'register')
                     THEN c.status_url END AS hosted_status_url,
                (SELECT group_concat(o.op) FROM status_outbox o
                  WHERE o.jti = c.jti AND o.acked_at IS NULL AND o.refused_at IS NULL) AS unpublished,
                (SELECT o.op FROM status_outbox o WHERE o.jti = c.jti AND o.refused_at IS NOT NULL
                  ORDER BY o.id LIMIT 1) AS refused_op,
                (SELECT o.refusal FROM status_outbox o WHERE o.jti = c.jti AND o.refused_at IS NOT NULL
                  ORDER BY o.id LIMIT 1) AS refused_reason,
                r.summary, c.scope AS c_scope, c.iat AS c_iat, c.compact AS c_compact,
                c.status_url AS c_status_url, c.booking_id AS c_booking_id, c.host_keys AS c_host_keys,
                c.seal AS c_seal";
const LISTING_FROM: &str = "FROM credentials c LEFT JOIN limit_counts n ON n.jti = c.jti
         LEFT JOIN meeting_records m ON m.jti = c.jti
         LEFT JOIN requests r ON r.request_id = c.request_id";

/// The credentials issued, oldest first, as one snapshot: all of them, or
/// with `agent_jkt` the mandates issued to that agent (the kinds an agent
/// presents; contracts, acceptances and rules are the person's).
pub async fn listing(store: &Store, agent_jkt: Option<&str>) -> Result<Vec<ListedCredential>, StoreError> {
    let rows: Vec<ListingRow> = sqlx::query_as(&format!(
        "SELECT {LISTING_COLUMNS} {LISTING_FROM}
         WHERE (?1 IS NULL OR (c.agent_jkt = ?1
                               AND c.kind IN ('mandate', 'closed_mandate', 'management_mandate', 'invitation')))
         ORDER BY c.created_at"
    ))
    .bind(agent_jkt)
    .fetch_all(store.pool())
    .await?;
    rows.into_iter().map(ListedCredential::try_from).collect()
}

/// Every credential, oldest first, as [`listing`] reads them, less the rows
/// that do not read as one the key app writes (an unknown kind, hosts that are
/// not a JSON list), each named in the log: My bookings reads them for what a
/// booking rests on and who may change it, and one such row must not keep the
/// person from their bookings.
pub async fn listing_readable(store: &Store) -> Result<Vec<ListedCredential>, StoreError> {
    let rows: Vec<ListingRow> =
        sqlx::query_as(&format!("SELECT {LISTING_COLUMNS} {LISTING_FROM} ORDER BY c.created_at"))
            .fetch_all(store.pool())
            .await?;
    Ok(rows
        .into_iter()
        .filter_map(|r| {
            ListedCredential::try_from(r)
                .map_err(|e| tracing::warn!(error = %e, "a credential's row does not read as one; left out"))
                .ok()
        })
        .collect())
}

/// The credentials `filter` finds, newest first (issue time, then row), after
/// `cursor`, at most `filter.limit + 1` (the one past the page says there is
/// a next), each with its cursor; `state` keeps those in that state at `now`
/// (`CredentialStatus::of`: revocation wins over expiry). Keyset paging, so a
/// credential issued while the person pages never shifts the pages after.
pub async fn search(
    store: &Store,
    filter: &Filter,
    state: Option<CredentialState>,
    cursor: Option<CredentialCursor>,
    now: i64,
) -> Result<Vec<(CredentialCursor, ListedCredential)>, StoreError> {
    #[derive(sqlx::FromRow)]
    struct Found {
        created_at: i64,
        row_id: i64,
        #[sqlx(flatten)]
        row: ListingRow,
    }
    // Every value is a bound parameter; the text is a LIKE pattern whose
    // wildcards `record_query` escaped, folded (`search_fold`) as the
    // `*_fold` copies it is matched against (search_folds; a row not folded
    // yet is matched as stored).
    let rows: Vec<Found> = sqlx::query_as(&format!(
        "SELECT c.created_at, c.rowid AS row_id, {LISTING_COLUMNS} {LISTING_FROM}
         LEFT JOIN agents a ON a.jkt = c.agent_jkt
         WHERE (?1 IS NULL OR (c.created_at, c.rowid) < (?1, ?2))
           AND (?3 IS NULL OR c.created_at >= ?3)
           AND (?4 IS NULL OR c.created_at < ?4)
           AND (?5 IS NULL
                OR (?5 = 'revoked' AND c.revoked_at IS NOT NULL)
                OR (?5 = 'expired' AND c.revoked_at IS NULL AND c.exp <= ?9)
                OR (?5 = 'active' AND c.revoked_at IS NULL AND c.exp > ?9))
           AND (?6 IS NULL OR c.agent_jkt = ?6 OR a.fingerprint = ?6 OR a.name = ?6 COLLATE NOCASE)
           AND (?7 IS NULL
                OR EXISTS (SELECT 1 FROM json_each(c.aud) j WHERE j.value = ?7)
                OR EXISTS (SELECT 1 FROM credential_hosts ch
                           WHERE ch.jti = c.jti AND (ch.host_id = ?7 OR ch.domain = ?7 COLLATE NOCASE)))
           AND (?8 IS NULL
                OR COALESCE(r.summary_fold, r.summary, '') LIKE ?8 ESCAPE '\\'
                OR COALESCE(a.name_fold, a.name, '') LIKE ?8 ESCAPE '\\'
                OR EXISTS (SELECT 1 FROM json_each(c.aud) j WHERE j.value LIKE ?8 ESCAPE '\\')
                OR EXISTS (SELECT 1 FROM credential_hosts ch WHERE ch.jti = c.jti AND ch.domain LIKE ?8 ESCAPE '\\'))
         ORDER BY c.created_at DESC, c.rowid DESC LIMIT ?10"
    ))
    .bind(cursor.map(|c| c.created_at))
    .bind(cursor.map(|c| c.row))
    .bind(filter.since)
    .bind(filter.until)
    .bind(state.map(CredentialState::as_str))
    .bind(&filter.agent)
    .bind(&filter.host)
    .bind(&filter.pattern)
    .bind(now)
    .bind(filter.limit + 1)
    .fetch_all(store.pool())
    .await?;
    rows.into_iter()
        .map(|f| {
            let cursor = CredentialCursor { created_at: f.created_at, row: f.row_id };
            Ok((cursor, ListedCredential::try_from(f.row)?))
        })
        .collect()
}

/// What deciding whether a credential can be revoked needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revocability {
    pub kind: RequestKind,
    pub status_url: Option<String>,
    pub exp: i64,
}

/// Credential `jti`'s row as stored, with its seal (record_seal).
pub async fn stored(store: &Store, jti: &str) -> Result<Option<StoredCredential>, StoreError> {
    Ok(sqlx::query_as(&format!("SELECT {STORED_COLUMNS} FROM credentials c WHERE c.jti = ?"))
        .bind(jti)
        .fetch_optional(store.pool())
        .await?)
}

/// The rows of credentials `jtis` the records hold, as stored.
pub async fn stored_many(store: &Store, jtis: &[&str]) -> Result<Vec<StoredCredential>, StoreError> {
    if jtis.is_empty() {
        return Ok(Vec::new());
    }
    let jtis = serde_json::to_string(jtis).expect("ids serialize");
    Ok(sqlx::query_as(&format!(
        "SELECT {STORED_COLUMNS} FROM credentials c WHERE c.jti IN (SELECT value FROM json_each(?))"
    ))
    .bind(jtis)
    .fetch_all(store.pool())
    .await?)
}

/// Credential `jti`'s kind, status URL and expiry, if the records hold it.
pub async fn revocability(store: &Store, jti: &str) -> Result<Option<Revocability>, StoreError> {
    #[derive(sqlx::FromRow)]
    struct Row {
        kind: String,
        status_url: Option<String>,
        exp: i64,
    }
    let row: Option<Row> = sqlx::query_as("SELECT kind, status_url, exp FROM credentials WHERE jti = ?")
        .bind(jti)
        .fetch_optional(store.pool())
        .await?;
    row.map(|r| {
        let kind = r.kind.parse().map_err(|e| StoreError::corrupt(Stored::Credential, format!("{jti}: kind: {e}")))?;
        Ok(Revocability { kind, status_url: r.status_url, exp: r.exp })
    })
    .transpose()
}

/// The shared limit a record carries: `max_bookings` when `shared_limit` is set.
/// A `shared_limit` without `max_bookings` (the schema allows it; the key app
/// does not issue it) has no count to share, so it is a mandate without a
/// shared limit: status only, and claims are refused, which makes a host
/// refuse the confirm (§3.3: a booking the key app cannot vouch for is not made).
pub(super) fn shared_max(shared_limit: bool, max_bookings: Option<i64>) -> Result<Option<u32>, i64> {
    match (shared_limit, max_bookings) {
        (true, Some(m)) => u32::try_from(m).map(Some).map_err(|_| m),
        _ => Ok(None),
    }
}

/// The closed mandates issued for booking `booking_id` (their compact JWS),
/// newest first: the changes the person approved here for it (§5.7).
pub async fn closed_for_booking(store: &Store, booking_id: &str) -> Result<Vec<String>, StoreError> {
    let rows: Vec<(String,)> = sqlx::query_as(
        "SELECT compact FROM credentials WHERE kind = 'closed_mandate' AND booking_id = ?
         ORDER BY created_at DESC, rowid DESC",
    )
    .bind(booking_id)
    .fetch_all(store.pool())
    .await?;
    Ok(rows.into_iter().map(|(compact,)| compact).collect())
}

/// One credential a lost computer's switch revoked in the records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchedOff {
    pub jti: String,
    pub kind: RequestKind,
    pub exp: i64,
    /// The host ids it named (`aud`).
    pub aud: Vec<String>,
    /// The hosted status service it was registered with (its outbox
    /// registration's base, not refused for good); `None`: only this key app's
    /// own status API answered for it.
    pub hosted_base: Option<String>,
}

/// A lost computer's switch in the records: every credential not yet revoked
/// whose kind can be revoked and that names a status URL is revoked now, in
/// one transaction, each with its history entry and, when it was registered
/// with a hosted status service, its revocation owed there (the outbox, in
/// case the one signed update does not reach it). Returns those revoked, and
/// the live ones that cannot be (never published: a rule, §7.9, or no status
/// URL) as (jti, kind, exp).
pub async fn revoke_everything(
    store: &Store,
    now: i64,
) -> Result<(Vec<SwitchedOff>, Vec<(String, RequestKind, i64)>), StoreError> {
    #[derive(sqlx::FromRow)]
    struct Row {
        jti: String,
        kind: String,
        exp: i64,
        aud: String,
        status_url: Option<String>,
        hosted_base: Option<String>,
    }
    let mut tx = store.pool().begin_with("BEGIN IMMEDIATE").await?;
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT c.jti, c.kind, c.exp, c.aud, c.status_url,
                (SELECT o.base FROM status_outbox o
                  WHERE o.jti = c.jti AND o.op = 'register' AND o.refused_at IS NULL) AS hosted_base
           FROM credentials c WHERE c.revoked_at IS NULL ORDER BY c.created_at, c.jti",
    )
    .fetch_all(&mut *tx)
    .await?;
    let (mut revoked, mut kept) = (Vec::new(), Vec::new());
    for r in rows {
        let kind: RequestKind =
            r.kind.parse().map_err(|e| StoreError::corrupt(Stored::Credential, format!("{}: kind: {e}", r.jti)))?;
        if !kind.revocable() || r.status_url.is_none() {
            if r.exp > now {
                kept.push((r.jti, kind, r.exp));
            }
            continue;
        }
        let aud: Vec<String> = serde_json::from_str(&r.aud)
            .map_err(|e| StoreError::corrupt(Stored::Credential, format!("{}: aud: {e}", r.jti)))?;
        if revoke_in(&mut tx, store.history_seal(), &r.jti, now, true).await? == RevokeOutcome::Revoked {
            revoked.push(SwitchedOff { jti: r.jti, kind, exp: r.exp, aud, hosted_base: r.hosted_base });
        }
    }
    tx.commit().await?;
    Ok((revoked, kept))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::testing;

    const NOW: i64 = 1_792_000_000;

    /// A credential from `testing`; a mandate's with a shared limit of 3.
    fn issued(n: i64, jti: &str, kind: RequestKind, agent: &str) -> CredentialRecord {
        let mut c = testing::credential(n, jti, kind, agent);
        if kind.has_audience() {
            (c.max_bookings, c.shared_limit) = (Some(3), true);
        }
        c
    }

    async fn meeting(store: &Store, jti: &str, revision: i64, members: &str) {
        sqlx::query(
            "INSERT INTO meeting_records (jti, meeting_id, revision, contract_sha256, members)
             VALUES (?, 'mt_1', ?, 'sha', ?)",
        )
        .bind(jti)
        .bind(revision)
        .bind(members)
        .execute(store.pool())
        .await
        .unwrap();
    }

    #[tokio::test]
    async fn the_listing_carries_counts_meetings_and_what_is_owed_to_the_hosted_service() {
        let (_dir, store) = testing::store().await;
        let mut tx = store.begin().await.unwrap();
        for (n, jti, kind, agent) in [
            (0, "m1", RequestKind::Mandate, "a"),
            (1, "c1", RequestKind::MeetingContract, "a"),
            (2, "c2", RequestKind::MeetingContract, "a"),
            (3, "m2", RequestKind::Mandate, "b"),
        ] {
            insert(&mut tx, &issued(n, jti, kind, agent)).await.unwrap();
        }
        super::super::outbox::enqueue_register(&mut tx, "m1", "https://status.example", NOW).await.unwrap();
        tx.commit().await.unwrap();
        revoke_and_publish(&store, "m1", NOW + 1).await.unwrap();
        meeting(&store, "c1", 1, r#"["Noor","Sam"]"#).await;
        meeting(&store, "c2", 2, r#"["Noor"]"#).await;

        let all = listing(&store, None).await.unwrap();
        assert_eq!(all.iter().map(|c| c.jti.as_str()).collect::<Vec<_>>(), ["m1", "c1", "c2", "m2"]);
        let m1 = &all[0];
        assert_eq!((m1.kind, m1.revoked, m1.remaining, m1.exp), (RequestKind::Mandate, true, Some(3), NOW + 3600));
        assert_eq!(m1.hosted_status_url.as_deref(), Some("https://status.example/status/T/m1"));
        assert_eq!(m1.unpublished, [super::super::outbox::Op::Register, super::super::outbox::Op::Revoke]);
        assert_eq!((all[3].hosted_status_url.as_deref(), all[3].unpublished.len()), (None, 0), "never registered");
        let c1 = all[1].meeting.clone().expect("a contract's meeting");
        assert_eq!(
            c1,
            MeetingRecord {
                meeting_id: "mt_1".into(),
                revision: 1,
                contract_sha256: "sha".into(),
                members: vec!["Noor".into(), "Sam".into()],
                current: false,
            }
        );
        assert!(all[2].meeting.as_ref().unwrap().current, "the latest revision kept");
        assert_eq!((all[0].meeting.clone(), all[1].remaining), (None, None));

        // An agent's listing: its own mandates, never the person's contracts.
        let theirs = listing(&store, Some("a")).await.unwrap();
        assert_eq!(theirs.iter().map(|c| c.jti.as_str()).collect::<Vec<_>>(), ["m1"]);
        assert!(listing(&store, Some("nobody")).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn revocability_reads_kind_status_url_and_expiry() {
        let (_dir, store) = testing::store().await;
        assert_eq!(revocability(&store, "m1").await.unwrap(), None);
        let mut rule = issued(0, "r1", RequestKind::Rule, "a");
        rule.status_url = None;
        record(&store, rule).await.unwrap();
        assert_eq!(
            revocability(&store, "r1").await.unwrap(),
            Some(Revocability { kind: RequestKind::Rule, status_url: None, exp: NOW + 3600 })
        );
    }

    #[tokio::test]
    async fn an_unknown_kind_or_unreadable_meeting_is_a_corrupt_record() {
        let (_dir, store) = testing::store().await;
        record(&store, issued(0, "c1", RequestKind::MeetingContract, "a")).await.unwrap();
        meeting(&store, "c1", 1, "not json").await;
        let e = listing(&store, None).await.unwrap_err();
        assert!(matches!(&e, StoreError::Corrupt(c) if c.detail.contains("c1: meeting record")), "{e:?}");

        let (_dir, store) = testing::store().await;
        record(&store, issued(0, "m1", RequestKind::Mandate, "a")).await.unwrap();
        sqlx::query("UPDATE credentials SET kind = 'voucher' WHERE jti = 'm1'").execute(store.pool()).await.unwrap();
        for e in [
            listing(&store, None).await.map(drop).unwrap_err(),
            revocability(&store, "m1").await.map(drop).unwrap_err(),
        ] {
            assert!(matches!(&e, StoreError::Corrupt(c) if c.detail.contains("voucher")), "{e:?}");
        }
    }
}
