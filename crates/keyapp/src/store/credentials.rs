//! The credentials the key app issued, as the records keep them: one row per
//! credential, its revocation, and the status the status API reports (§3.3
//! "Status"; docs/agent-api.md "Status API"). The shared booking limit's
//! accounting on these rows is `claims`.

use super::{Store, StoreError};
use crate::kind::RequestKind;
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

/// Records an issued credential. One transaction.
pub async fn record(store: &Store, rec: CredentialRecord) -> Result<(), RecordError> {
    let mut tx = store.pool().begin_with("BEGIN IMMEDIATE").await.map_err(StoreError::from)?;
    insert(&mut tx, &rec).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(())
}

/// Records an issued credential inside the caller's transaction, so the request
/// pipeline settles a request and records what it issued in one commit.
pub async fn insert(conn: &mut sqlx::SqliteConnection, rec: &CredentialRecord) -> Result<(), RecordError> {
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
    let aud = serde_json::to_string(&rec.aud).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let host_keys = serde_json::to_string(&rec.host_keys).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let scope = serde_json::to_string(&rec.scope).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let max_bookings = if rec.shared_limit { rec.max_bookings.map(i64::from) } else { None };
    let inserted = sqlx::query(
        "INSERT INTO credentials (jti, kind, agent_jkt, request_id, aud, scope, iat, exp, compact,
                                  status_url, max_bookings, shared_limit, booking_id, created_at, host_keys)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&rec.jti)
    .bind(rec.kind.as_str())
    .bind(&rec.agent_jkt)
    .bind(&rec.request_id)
    .bind(aud)
    .bind(scope)
    .bind(rec.iat)
    .bind(rec.exp)
    .bind(&rec.compact)
    .bind(&rec.status_url)
    .bind(max_bookings)
    .bind(rec.shared_limit)
    .bind(&rec.booking_id)
    .bind(rec.iat)
    .bind(host_keys)
    .execute(&mut *conn)
    .await;
    match inserted {
        Ok(_) => Ok(()),
        Err(e) if unique_violation(&e) => Err(RecordError::DuplicateJti(rec.jti.clone())),
        Err(e) => Err(StoreError::from(e).into()),
    }
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
    let rows: Vec<(String, String)> =
        sqlx::query_as("SELECT jti, confirmed_by FROM credentials WHERE confirmed_by IS NOT NULL")
            .fetch_all(store.pool())
            .await?;
    rows.into_iter()
        .map(|(jti, m)| {
            let method = crate::user_verification::Method::parse(&m)
                .ok_or_else(|| StoreError::Corrupt(format!("credential {jti}: confirmed_by {m:?}")))?;
            Ok((jti, method))
        })
        .collect()
}

/// The status of a credential that has a status URL, or `None` (404). One
/// statement, so one consistent snapshot.
pub async fn status(store: &Store, jti: &str, now: i64) -> Result<Option<StatusView>, StoreError> {
    let row: Option<(i64, bool, bool, Option<i64>, i64)> = sqlx::query_as(
        "SELECT c.exp, c.revoked_at IS NOT NULL, c.shared_limit, c.max_bookings, coalesce(n.held, 0)
         FROM credentials c LEFT JOIN limit_counts n ON n.jti = c.jti
         WHERE c.jti = ? AND c.status_url IS NOT NULL",
    )
    .bind(jti)
    .fetch_optional(store.pool())
    .await?;
    let Some((exp, revoked, shared_limit, max_bookings, held)) = row else {
        return Ok(None);
    };
    let remaining = remaining(shared_limit, max_bookings, held)
        .map_err(|m| StoreError::Corrupt(format!("{jti}: max_bookings {m}")))?;
    Ok(Some(StatusView { status: CredentialStatus::of(revoked, exp, now), remaining }))
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
    revoke_with(store, jti, now, false).await
}

/// [`revoke`], and in the same transaction owes the hosted status service the
/// revocation (`outbox`) when the credential was registered there:
/// recorded here at once, published until acknowledged.
pub async fn revoke_and_publish(store: &Store, jti: &str, now: i64) -> Result<RevokeOutcome, StoreError> {
    revoke_with(store, jti, now, true).await
}

async fn revoke_with(store: &Store, jti: &str, now: i64, publish: bool) -> Result<RevokeOutcome, StoreError> {
    let mut tx = store.pool().begin_with("BEGIN IMMEDIATE").await?;
    let outcome = revoke_in(&mut tx, jti, now, publish).await?;
    if outcome == RevokeOutcome::Revoked {
        // §3.3 "Renewal never widens authority": a management mandate the key
        // app issued without a prompt under this root goes with it, in the
        // same transaction (and is published the same way).
        for child in super::management_links::issued_under(&mut tx, jti).await? {
            revoke_in(&mut tx, &child, now, publish).await?;
        }
    }
    tx.commit().await?;
    Ok(outcome)
}

/// Revokes one credential inside the caller's transaction, with its history
/// entry and, when `publish`, the revocation owed to the hosted status service.
pub async fn revoke_in(
    tx: &mut sqlx::SqliteConnection,
    jti: &str,
    now: i64,
    publish: bool,
) -> Result<RevokeOutcome, StoreError> {
    let row: Option<(Option<i64>, String)> = sqlx::query_as("SELECT revoked_at, kind FROM credentials WHERE jti = ?")
        .bind(jti)
        .fetch_optional(&mut *tx)
        .await?;
    Ok(match row {
        None => RevokeOutcome::UnknownMandate,
        Some((Some(_), _)) => RevokeOutcome::AlreadyRevoked,
        Some((None, kind)) => {
            sqlx::query("UPDATE credentials SET revoked_at = ? WHERE jti = ?")
                .bind(now)
                .bind(jti)
                .execute(&mut *tx)
                .await?;
            sqlx::query("INSERT INTO history (at, event, subject, detail) VALUES (?, 'revoked', ?, ?)")
                .bind(now)
                .bind(jti)
                .bind(kind)
                .execute(&mut *tx)
                .await?;
            if publish {
                super::outbox::enqueue_revoke(&mut *tx, jti, now).await?;
            }
            RevokeOutcome::Revoked
        }
    })
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
