//! The hosted status service's outbox (docs/hosted-status.md): what the
//! key app still has to publish there. A registration row is written in the
//! transaction that records its credential, a revocation row in the one that
//! sets `revoked_at`, so the records and what is owed to the service never
//! disagree after a crash. The publisher (`service::publication`) takes the due
//! rows, builds and signs each update from the credential row itself, and marks
//! a row acknowledged only on the service's success answer; a failure is
//! retried with exponential backoff, unless the service refused it for good
//! ([`terminal`]): then it is kept as refused and never retried. Rows of one
//! credential go out in id order: a revocation is never due while its
//! registration is unacknowledged.

use super::credentials::{StoredCredential, STORED_COLUMNS};
use super::{Store, StoreError, Stored};

/// What an outbox row publishes (the update's `op`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Register,
    Revoke,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Register => "register",
            Op::Revoke => "revoke",
        }
    }

    pub(super) fn parse(s: &str) -> Result<Op, StoreError> {
        match s {
            "register" => Ok(Op::Register),
            "revoke" => Ok(Op::Revoke),
            other => Err(StoreError::corrupt(Stored::Outbox, format!("outbox op {other:?}"))),
        }
    }
}

/// A due outbox row with what its update says about the credential: read from
/// the credential's own row, never from anything a caller passes in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Due {
    pub id: i64,
    pub jti: String,
    pub op: Op,
    /// The service's base URL the row was written for.
    pub base: String,
    /// Failed attempts so far.
    pub attempts: u32,
    pub exp: i64,
    pub aud: Vec<String>,
    /// Set only with `shared_limit` (as the credential row keeps it).
    pub max_bookings: Option<u32>,
    pub shared_limit: bool,
    /// The discovery key thumbprints recorded per host (signed claims).
    pub host_keys: status_edge::HostKeys,
    /// The credential's row these were read from, with its seal: the
    /// publisher signs a registration only when that seal holds.
    pub credential: StoredCredential,
}

/// The first retry waits this long; each failure doubles it…
pub const FIRST_BACKOFF: i64 = 1;
/// …up to this (seconds).
pub const MAX_BACKOFF: i64 = 60;

/// Seconds to wait after the `attempts`-th consecutive failure (1, 2, 4, … 60).
pub fn backoff(attempts: u32) -> i64 {
    let doubled = FIRST_BACKOFF.checked_shl(attempts.saturating_sub(1)).unwrap_or(MAX_BACKOFF);
    doubled.clamp(FIRST_BACKOFF, MAX_BACKOFF)
}

/// Whether the service's refusal `reason` is for good: no retry of the same
/// update could be answered otherwise. The namespace is full
/// (`max_credentials_per_namespace`) or not one the service publishes for;
/// only its operator, or the person choosing another service, changes that
/// (docs/hosted-status.md "Refusals").
pub fn terminal(reason: schcp::refusal::Reason) -> bool {
    use schcp::refusal::Reason;
    matches!(reason, Reason::NamespaceFull | Reason::NamespaceNotAllowed)
}

/// An update the service refused for good, as the agent is told it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub jti: String,
    /// What was refused: the registration, or a revocation made before the
    /// credential was handed over (`withheld_from_agent`).
    pub op: Op,
    /// The service's base URL.
    pub base: String,
    /// The service's §9 reason ([`terminal`]).
    pub reason: schcp::refusal::Reason,
    /// The refusal as the publisher recorded it, the service's message in it.
    pub message: String,
}

/// Owes the service a registration of credential `jti` at `base`, inside the
/// transaction that records the credential. Idempotent.
pub async fn enqueue_register(
    conn: &mut sqlx::SqliteConnection,
    jti: &str,
    base: &str,
    now: i64,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO status_outbox (jti, op, base, created_at, next_attempt_at) VALUES (?1, 'register', ?2, ?3, ?3)
         ON CONFLICT (jti, op) DO NOTHING",
    )
    .bind(jti)
    .bind(base)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

/// Owes the service the revocation of `jti`, inside the transaction that
/// revokes it, when `jti` was registered with a hosted service (at the same
/// base), and the service did not refuse that registration for good (then it
/// has nothing to revoke). Returns whether a row is now owed; a second
/// revocation adds nothing.
pub async fn enqueue_revoke(conn: &mut sqlx::SqliteConnection, jti: &str, now: i64) -> Result<bool, StoreError> {
    sqlx::query(
        "INSERT INTO status_outbox (jti, op, base, created_at, next_attempt_at)
         SELECT jti, 'revoke', base, ?2, ?2 FROM status_outbox
          WHERE jti = ?1 AND op = 'register' AND refused_at IS NULL
         ON CONFLICT (jti, op) DO NOTHING",
    )
    .bind(jti)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM status_outbox WHERE jti = ? AND op = 'revoke' AND refused_at IS NULL)",
    )
    .bind(jti)
    .fetch_one(conn)
    .await?)
}

#[derive(sqlx::FromRow)]
struct DueRow {
    id: i64,
    op: String,
    base: String,
    attempts: i64,
    #[sqlx(flatten)]
    credential: StoredCredential,
}

impl TryFrom<DueRow> for Due {
    type Error = StoreError;

    fn try_from(r: DueRow) -> Result<Due, StoreError> {
        let c = &r.credential;
        let corrupt = |what: String| StoreError::corrupt(Stored::Outbox, format!("{}: {what}", c.jti));
        Ok(Due {
            op: Op::parse(&r.op)?,
            attempts: u32::try_from(r.attempts).map_err(|_| corrupt(format!("attempts {}", r.attempts)))?,
            aud: serde_json::from_str(&c.aud).map_err(|e| corrupt(e.to_string()))?,
            host_keys: serde_json::from_str(&c.host_keys).map_err(|e| corrupt(e.to_string()))?,
            max_bookings: c
                .max_bookings
                .map(|m| u32::try_from(m).map_err(|_| corrupt(format!("max_bookings {m}"))))
                .transpose()?,
            id: r.id,
            base: r.base,
            exp: c.exp,
            shared_limit: c.shared_limit,
            jti: c.jti.clone(),
            credential: r.credential,
        })
    }
}

/// Owes credential `jti`'s revocation to the service at `base` again, now:
/// its row (acknowledged, refused or removed) is due once more.
pub async fn owe_revoke_again(store: &Store, jti: &str, base: &str, now: i64) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO status_outbox (jti, op, base, created_at, next_attempt_at) VALUES (?1, 'revoke', ?2, ?3, ?3)
         ON CONFLICT (jti, op) DO UPDATE
            SET acked_at = NULL, refused_at = NULL, refusal = NULL, attempts = 0, next_attempt_at = ?3",
    )
    .bind(jti)
    .bind(base)
    .bind(now)
    .execute(store.pool())
    .await?;
    Ok(())
}

/// The rows due at `now`, oldest first, at most `limit`: unacknowledged, not
/// refused for good, past their backoff, and with no earlier unacknowledged
/// row for the same credential (a revocation waits for its registration).
pub async fn due(store: &Store, now: i64, limit: i64) -> Result<Vec<Due>, StoreError> {
    let rows: Vec<DueRow> = sqlx::query_as(&format!(
        "SELECT o.id, o.op, o.base, o.attempts, {STORED_COLUMNS}
         FROM status_outbox o JOIN credentials c ON c.jti = o.jti
         WHERE o.acked_at IS NULL AND o.refused_at IS NULL AND o.next_attempt_at <= ?1
           AND NOT EXISTS (SELECT 1 FROM status_outbox e WHERE e.jti = o.jti AND e.id < o.id AND e.acked_at IS NULL)
         ORDER BY o.id LIMIT ?2"
    ))
    .bind(now)
    .bind(limit)
    .fetch_all(store.pool())
    .await?;
    rows.into_iter().map(Due::try_from).collect()
}

/// The service acknowledged row `id`. Returns false when it already was (a
/// second publisher's answer for the same row changes nothing).
pub async fn acknowledge(store: &Store, id: i64, now: i64) -> Result<bool, StoreError> {
    let done =
        sqlx::query("UPDATE status_outbox SET acked_at = ?, last_error = NULL WHERE id = ? AND acked_at IS NULL")
            .bind(now)
            .bind(id)
            .execute(store.pool())
            .await?;
    Ok(done.rows_affected() == 1)
}

/// An attempt at row `id` failed with `error`: count it and push the next
/// attempt back by [`backoff`]. A row already answered, acknowledged or
/// refused for good, stays as it is.
pub async fn failed(store: &Store, id: i64, now: i64, error: &str) -> Result<(), StoreError> {
    // One transaction: the count and the backoff it sets are never apart.
    let mut tx = store.begin_immediate().await?;
    let attempts: Option<(i64,)> = sqlx::query_as(
        "UPDATE status_outbox SET attempts = attempts + 1, last_error = ?
         WHERE id = ? AND acked_at IS NULL AND refused_at IS NULL RETURNING attempts",
    )
    .bind(error)
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some((attempts,)) = attempts {
        let wait = backoff(u32::try_from(attempts).unwrap_or(u32::MAX));
        sqlx::query("UPDATE status_outbox SET next_attempt_at = ? WHERE id = ?")
            .bind(now + wait)
            .bind(id)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// The service refused row `id` for good with `reason` ([`terminal`]):
/// `error` is kept with it, and it is never retried. A refused registration
/// takes its credential's later rows with it (a revocation of what the service
/// never had). Returns false when the row was already answered.
pub async fn refused(
    store: &Store,
    id: i64,
    now: i64,
    reason: schcp::refusal::Reason,
    error: &str,
) -> Result<bool, StoreError> {
    let mut tx = store.begin().await?;
    let row: Option<(String, String)> = sqlx::query_as(
        "UPDATE status_outbox SET refused_at = ?1, refusal = ?2, last_error = ?3, attempts = attempts + 1
         WHERE id = ?4 AND acked_at IS NULL AND refused_at IS NULL RETURNING jti, op",
    )
    .bind(now)
    .bind(reason.as_str())
    .bind(error)
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((jti, op)) = row else { return Ok(false) };
    if Op::parse(&op)? == Op::Register {
        sqlx::query(
            "UPDATE status_outbox SET refused_at = ?1, refusal = ?2, last_error = 'its registration was refused'
             WHERE jti = ?3 AND id > ?4 AND acked_at IS NULL AND refused_at IS NULL",
        )
        .bind(now)
        .bind(reason.as_str())
        .bind(&jti)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(true)
}

/// When the next unacknowledged row still to be tried falls due, if any.
pub async fn next_due_at(store: &Store) -> Result<Option<i64>, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT MIN(next_attempt_at) FROM status_outbox WHERE acked_at IS NULL AND refused_at IS NULL",
    )
    .fetch_one(store.pool())
    .await?)
}

/// The first update about a credential request `request_id` issued that the
/// service refused for good, if any: while the credential is withheld
/// (`withheld_from_agent`), the agent is told so instead of waiting for what
/// can never be published.
pub async fn refusal_for_request(store: &Store, request_id: &str) -> Result<Option<Refused>, StoreError> {
    #[derive(sqlx::FromRow)]
    struct RefusedRow {
        jti: String,
        op: String,
        base: String,
        refusal: String,
        last_error: Option<String>,
    }
    let row: Option<RefusedRow> = sqlx::query_as(
        "SELECT c.jti, o.op, o.base, o.refusal, o.last_error FROM credentials c
           JOIN status_outbox o ON o.jti = c.jti
          WHERE c.request_id = ? AND o.refused_at IS NOT NULL
          ORDER BY o.id LIMIT 1",
    )
    .bind(request_id)
    .fetch_optional(store.pool())
    .await?;
    row.map(|r| {
        let reason = r
            .refusal
            .parse()
            .map_err(|_| StoreError::corrupt(Stored::Outbox, format!("{}: outbox refusal {:?}", r.jti, r.refusal)))?;
        Ok(Refused {
            op: Op::parse(&r.op)?,
            jti: r.jti,
            base: r.base,
            reason,
            message: r.last_error.unwrap_or_default(),
        })
    })
    .transpose()
}

/// Whether the credential request `request_id` issued is still withheld from
/// its agent. It is until the hosted service has its registration: it must not
/// reach the agent before a host could find it at its status URL.
/// And a credential the person revoked before it was ever handed over stays
/// withheld until the service has the revocation too; otherwise the agent
/// would get it while hosts still read "active". A revocation recorded in the
/// second the registration was acknowledged counts as before: the agent may
/// see its request go back to waiting for that moment, never an unpublished
/// revocation.
pub async fn withheld_from_agent(store: &Store, request_id: &str) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (
             SELECT 1 FROM credentials c
               JOIN status_outbox reg ON reg.jti = c.jti AND reg.op = 'register'
               LEFT JOIN status_outbox rev ON rev.jti = c.jti AND rev.op = 'revoke'
              WHERE c.request_id = ?
                AND (reg.acked_at IS NULL
                     OR (rev.id IS NOT NULL AND rev.acked_at IS NULL AND rev.created_at <= reg.acked_at)))",
    )
    .bind(request_id)
    .fetch_one(store.pool())
    .await?)
}

/// Every hosted status service this key app's records registered a
/// credential with (not refused for good), in order: where a lost computer's
/// switch must go, beside the one in force.
pub async fn registered_bases(store: &Store) -> Result<Vec<String>, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT DISTINCT base FROM status_outbox WHERE op = 'register' AND refused_at IS NULL ORDER BY base",
    )
    .fetch_all(store.pool())
    .await?)
}

/// The revocations owed to `base` that one signed revoke-all update there
/// carried (`jtis`, as the service listed them): acknowledged at `now`, so
/// they are not sent again one by one. Returns how many.
pub async fn covered_by_revoke_all(store: &Store, base: &str, jtis: &[String], now: i64) -> Result<u64, StoreError> {
    let mut tx = store.pool().begin().await?;
    let mut done = 0;
    for jti in jtis {
        done += sqlx::query(
            "UPDATE status_outbox SET acked_at = ?1, last_error = NULL
              WHERE jti = ?2 AND base = ?3 AND op = 'revoke' AND acked_at IS NULL AND refused_at IS NULL",
        )
        .bind(now)
        .bind(jti)
        .bind(base)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    }
    tx.commit().await?;
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::super::credentials::{self, CredentialRecord, RevokeOutcome};
    use super::*;
    use crate::kind::RequestKind;

    const NOW: i64 = 1_792_000_000;
    const BASE: &str = "https://status.example";

    fn record(jti: &str) -> CredentialRecord {
        CredentialRecord {
            jti: jti.into(),
            kind: RequestKind::Mandate,
            agent_jkt: Some("agent".into()),
            request_id: Some(format!("rq_{jti}")),
            aud: vec!["h1".into(), "h2".into()],
            scope: vec![],
            iat: NOW,
            exp: NOW + 3600,
            compact: "x.y.z".into(),
            status_url: Some(format!("{BASE}/status/T/{jti}")),
            max_bookings: Some(3),
            shared_limit: true,
            booking_id: None,
            host_keys: Default::default(),
        }
    }

    async fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("k.db")).await.unwrap();
        (dir, s)
    }

    /// Records `jti` and its registration in one transaction, as the pipeline does.
    async fn issue(s: &Store, jti: &str) {
        let mut tx = s.pool().begin().await.unwrap();
        credentials::insert(&mut tx, &record(jti)).await.unwrap();
        enqueue_register(&mut tx, jti, BASE, NOW).await.unwrap();
        tx.commit().await.unwrap();
    }

    async fn rows(s: &Store) -> i64 {
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM status_outbox").fetch_one(s.pool()).await.unwrap();
        n
    }

    #[test]
    fn backoff_doubles_up_to_its_cap() {
        let waits: Vec<i64> = (1..=9).map(backoff).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(backoff(0), FIRST_BACKOFF);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }

    #[tokio::test]
    async fn the_registration_commits_or_rolls_back_with_its_credential() {
        let (_d, s) = store().await;
        let mut tx = s.pool().begin().await.unwrap();
        credentials::insert(&mut tx, &record("m1")).await.unwrap();
        enqueue_register(&mut tx, "m1", BASE, NOW).await.unwrap();
        tx.rollback().await.unwrap();
        assert_eq!(rows(&s).await, 0, "no registration owed for a credential never recorded");
        assert!(credentials::status(&s, "m1", NOW).await.unwrap().is_none());

        issue(&s, "m1").await;
        let due = due(&s, NOW, 10).await.unwrap();
        assert_eq!(due.len(), 1);
        let d = &due[0];
        // What the update will say comes from the credential's own row.
        assert_eq!((d.jti.as_str(), d.op, d.base.as_str(), d.attempts), ("m1", Op::Register, BASE, 0));
        assert_eq!(
            (d.exp, d.aud.clone(), d.max_bookings, d.shared_limit),
            (NOW + 3600, vec!["h1".into(), "h2".into()], Some(3), true)
        );
        assert!(withheld_from_agent(&s, "rq_m1").await.unwrap());
        assert!(!withheld_from_agent(&s, "rq_other").await.unwrap());

        // An outbox row for a credential that does not exist is refused.
        let mut conn = s.pool().acquire().await.unwrap();
        assert!(enqueue_register(&mut conn, "ghost", BASE, NOW).await.is_err());
        assert_eq!(rows(&s).await, 1);
    }

    #[tokio::test]
    async fn the_revocation_is_owed_in_the_revoking_transaction_and_waits_for_the_registration() {
        let (_d, s) = store().await;
        issue(&s, "m1").await;
        assert_eq!(credentials::revoke_and_publish(&s, "m1", NOW + 1).await.unwrap(), RevokeOutcome::Revoked);
        let first = due(&s, NOW + 10, 10).await.unwrap();
        assert_eq!(first.iter().map(|d| d.op).collect::<Vec<_>>(), [Op::Register], "the revocation waits");
        // A second revocation owes nothing more.
        assert_eq!(credentials::revoke_and_publish(&s, "m1", NOW + 2).await.unwrap(), RevokeOutcome::AlreadyRevoked);
        assert_eq!(rows(&s).await, 2);

        assert!(withheld_from_agent(&s, "rq_m1").await.unwrap());
        assert!(acknowledge(&s, first[0].id, NOW + 10).await.unwrap());
        // Revoked before it was ever handed over: hosts still read "active"
        // until the revocation is published, so the agent still waits.
        assert!(withheld_from_agent(&s, "rq_m1").await.unwrap());
        let next = due(&s, NOW + 10, 10).await.unwrap();
        assert_eq!(next.iter().map(|d| (d.jti.as_str(), d.op)).collect::<Vec<_>>(), [("m1", Op::Revoke)]);
        assert_eq!(next[0].base, BASE);
        assert!(acknowledge(&s, next[0].id, NOW + 11).await.unwrap());
        assert!(!withheld_from_agent(&s, "rq_m1").await.unwrap(), "published as revoked: handed over");
        assert!(due(&s, NOW + 100, 10).await.unwrap().is_empty());
        assert_eq!(next_due_at(&s).await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_credential_revoked_after_it_was_handed_over_is_not_withheld_again() {
        let (_d, s) = store().await;
        issue(&s, "m1").await;
        let reg = due(&s, NOW, 10).await.unwrap().remove(0);
        assert!(acknowledge(&s, reg.id, NOW).await.unwrap());
        assert!(!withheld_from_agent(&s, "rq_m1").await.unwrap());
        assert_eq!(credentials::revoke_and_publish(&s, "m1", NOW + 5).await.unwrap(), RevokeOutcome::Revoked);
        assert!(!withheld_from_agent(&s, "rq_m1").await.unwrap(), "the agent may already hold it");
    }

    #[tokio::test]
    async fn a_credential_never_registered_owes_no_revocation() {
        let (_d, s) = store().await;
        credentials::record(&s, record("local")).await.unwrap();
        assert_eq!(credentials::revoke_and_publish(&s, "local", NOW).await.unwrap(), RevokeOutcome::Revoked);
        assert_eq!(rows(&s).await, 0);
        assert_eq!(credentials::revoke_and_publish(&s, "ghost", NOW).await.unwrap(), RevokeOutcome::UnknownMandate);
        assert_eq!(rows(&s).await, 0);
    }

    #[tokio::test]
    async fn rows_go_out_oldest_first_and_a_failure_backs_off_only_its_own_row() {
        let (_d, s) = store().await;
        for j in ["a", "b", "c"] {
            issue(&s, j).await;
        }
        let all = due(&s, NOW, 10).await.unwrap();
        assert_eq!(all.iter().map(|d| d.jti.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(due(&s, NOW, 2).await.unwrap().len(), 2, "the limit is kept");

        failed(&s, all[0].id, NOW, "connection refused").await.unwrap();
        assert_eq!(due(&s, NOW, 10).await.unwrap().iter().map(|d| d.jti.as_str()).collect::<Vec<_>>(), ["b", "c"]);
        assert_eq!(next_due_at(&s).await.unwrap(), Some(NOW));
        // Failures back off 1, 2, 4 seconds.
        failed(&s, all[0].id, NOW, "503").await.unwrap();
        failed(&s, all[0].id, NOW, "503").await.unwrap();
        let (attempts, next, err): (i64, i64, String) =
            sqlx::query_as("SELECT attempts, next_attempt_at, last_error FROM status_outbox WHERE id = ?")
                .bind(all[0].id)
                .fetch_one(s.pool())
                .await
                .unwrap();
        assert_eq!((attempts, next, err.as_str()), (3, NOW + 4, "503"));
        assert!(due(&s, NOW + 3, 10).await.unwrap().iter().all(|d| d.jti != "a"));
        let again = due(&s, NOW + 4, 10).await.unwrap();
        assert_eq!(again[0].jti, "a");
        assert_eq!(again[0].attempts, 3);
    }

    #[tokio::test]
    async fn acknowledging_is_idempotent_and_final() {
        let (_d, s) = store().await;
        issue(&s, "m1").await;
        let d = due(&s, NOW, 10).await.unwrap().remove(0);
        assert!(acknowledge(&s, d.id, NOW).await.unwrap());
        // A retry's late answer, or a second publisher: nothing changes.
        assert!(!acknowledge(&s, d.id, NOW + 5).await.unwrap());
        failed(&s, d.id, NOW + 6, "late failure").await.unwrap();
        let (acked, attempts, err): (Option<i64>, i64, Option<String>) =
            sqlx::query_as("SELECT acked_at, attempts, last_error FROM status_outbox WHERE id = ?")
                .bind(d.id)
                .fetch_one(s.pool())
                .await
                .unwrap();
        assert_eq!((acked, attempts, err), (Some(NOW), 0, None));
        // Enqueuing the same registration again owes nothing new.
        let mut conn = s.pool().acquire().await.unwrap();
        enqueue_register(&mut conn, "m1", BASE, NOW + 7).await.unwrap();
        assert_eq!(rows(&s).await, 1);
        assert!(due(&s, NOW + 100, 10).await.unwrap().is_empty());
        assert!(!withheld_from_agent(&s, "rq_m1").await.unwrap());
    }

    #[test]
    fn only_a_full_or_foreign_namespace_is_for_good() {
        use schcp::refusal::Reason;
        let good: Vec<Reason> = Reason::ALL.iter().copied().filter(|r| terminal(*r)).collect();
        assert_eq!(good, [Reason::NamespaceFull, Reason::NamespaceNotAllowed]);
        for transient in [Reason::UpdateReplayed, Reason::UpdateIatOutOfWindow, Reason::StoreUnavailable, Reason::Busy]
        {
            assert!(!terminal(transient), "{transient}");
        }
    }

    #[tokio::test]
    async fn a_registration_refused_for_good_is_not_retried_and_says_why() {
        use schcp::refusal::Reason;
        let (_d, s) = store().await;
        issue(&s, "m1").await;
        issue(&s, "m2").await;
        let rows = due(&s, NOW, 10).await.unwrap();
        assert!(refused(&s, rows[0].id, NOW, Reason::NamespaceFull, "full (namespace_full)").await.unwrap());
        // Never due again, and not what the publisher waits for.
        assert_eq!(due(&s, NOW + 3600, 10).await.unwrap().iter().map(|d| d.jti.as_str()).collect::<Vec<_>>(), ["m2"]);
        acknowledge(&s, rows[1].id, NOW).await.unwrap();
        assert_eq!(next_due_at(&s).await.unwrap(), None);
        // The agent is told, not kept waiting; the other request is untouched.
        assert!(withheld_from_agent(&s, "rq_m1").await.unwrap(), "never delivered");
        let r = refusal_for_request(&s, "rq_m1").await.unwrap().expect("refused");
        assert_eq!(
            (r.jti.as_str(), r.op, r.base.as_str(), r.reason, r.message.as_str()),
            ("m1", Op::Register, BASE, Reason::NamespaceFull, "full (namespace_full)")
        );
        assert_eq!(refusal_for_request(&s, "rq_m2").await.unwrap(), None);
        assert_eq!(refusal_for_request(&s, "rq_none").await.unwrap(), None);
        // Answered once: a second answer, or an acknowledgement, changes nothing.
        assert!(!refused(&s, rows[0].id, NOW + 1, Reason::NamespaceNotAllowed, "other").await.unwrap());
        assert!(!refused(&s, rows[1].id, NOW + 1, Reason::NamespaceFull, "late").await.unwrap());
        failed(&s, rows[0].id, NOW + 2, "late failure").await.unwrap();
        let (attempts, refusal, err): (i64, String, String) =
            sqlx::query_as("SELECT attempts, refusal, last_error FROM status_outbox WHERE id = ?")
                .bind(rows[0].id)
                .fetch_one(s.pool())
                .await
                .unwrap();
        assert_eq!((attempts, refusal.as_str(), err.as_str()), (1, "namespace_full", "full (namespace_full)"));
        // Nothing at the service to revoke: revoking owes nothing.
        assert_eq!(credentials::revoke_and_publish(&s, "m1", NOW + 5).await.unwrap(), RevokeOutcome::Revoked);
        assert!(due(&s, NOW + 3600, 10).await.unwrap().is_empty());
        assert_eq!(next_due_at(&s).await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_refused_registration_takes_a_waiting_revocation_with_it_and_a_refused_revocation_stands_alone() {
        use schcp::refusal::Reason;
        let (_d, s) = store().await;
        issue(&s, "m1").await;
        // Revoked while its registration was still owed: the revocation waits behind it.
        assert_eq!(credentials::revoke_and_publish(&s, "m1", NOW + 1).await.unwrap(), RevokeOutcome::Revoked);
        let reg = due(&s, NOW + 1, 10).await.unwrap().remove(0);
        assert!(refused(&s, reg.id, NOW + 2, Reason::NamespaceNotAllowed, "not served").await.unwrap());
        assert!(due(&s, NOW + 3600, 10).await.unwrap().is_empty());
        assert_eq!(next_due_at(&s).await.unwrap(), None, "the revocation is not waited for either");

        // A revocation refused for good once the registration was acknowledged
        // is that row only.
        issue(&s, "m2").await;
        let reg = due(&s, NOW, 10).await.unwrap().remove(0);
        assert_eq!(reg.jti, "m2");
        acknowledge(&s, reg.id, NOW).await.unwrap();
        assert_eq!(credentials::revoke_and_publish(&s, "m2", NOW + 1).await.unwrap(), RevokeOutcome::Revoked);
        let rev = due(&s, NOW + 1, 10).await.unwrap().remove(0);
        assert_eq!(rev.op, Op::Revoke);
        assert!(refused(&s, rev.id, NOW + 2, Reason::NamespaceNotAllowed, "not served").await.unwrap());
        // Handed over before it was revoked: the agent holds it already.
        assert!(!withheld_from_agent(&s, "rq_m2").await.unwrap());
        assert_eq!(refusal_for_request(&s, "rq_m2").await.unwrap().map(|r| r.op), Some(Op::Revoke));
        assert!(due(&s, NOW + 3600, 10).await.unwrap().is_empty());
    }
}
