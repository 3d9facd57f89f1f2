//! The statuses on PostgreSQL: registrations, revocations, claims and releases
//! (§3.3 "One consent, several hosts"), exact under any number of processes.
//!
//! Every change is one READ COMMITTED transaction; a claim and a release are one
//! round trip each (the claim as the function `schcp_claim`, migration 0002, so
//! the row lock is held for the commit only). A claim takes its unit with
//! one conditional `UPDATE … SET remaining = remaining - 1 WHERE … AND
//! remaining > 0`: two processes racing for the last unit both reach the row lock, and
//! the second re-reads the row after the first commits (PostgreSQL re-checks
//! the `WHERE` on the new version), so it sees 0 and takes nothing. The claim
//! id is inserted with `ON CONFLICT DO NOTHING` in the same transaction, so a
//! repeat waits for the first to commit and then spends nothing. A release
//! gives a unit back only when its `DELETE` removed a claim. `CHECK
//! (remaining >= 0)` is the database's own guard against an over-grant. Count-then-insert
//! is never used: it over-grants under concurrency.
//!
//! Every refusal rolls its transaction back: nothing is written.
//!
//! Signed claims (docs/hosted-status.md "Signed claims", migration 0003): a
//! claim or release signed by a host key (checked at the edge) is taken only
//! when the key is one the registration recorded for the claim id's host; its
//! nonce is spent in `seen_nonces`, which every process shares. A claim made
//! signed is marked so, and an unsigned release of it is refused.

use schcp::status_update::Registration;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::{PgConnection, Row};
use status_edge::{check_signer, ClaimId, ClaimOutcome, ClaimRefusal, Claimant, CredentialStatus, HostKeys};

/// The migrations in `crates/status/migrations`, embedded in the binary.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// A database failure: the host or key app may retry (503).
#[derive(Debug, thiserror::Error)]
#[error("database: {0}")]
pub struct DbError(#[from] pub sqlx::Error);

impl DbError {
    /// Whether PostgreSQL refused what a statement carried (SQLSTATE classes
    /// 22 data exception, 23 integrity constraint, 54 program limit), rather
    /// than failing to run it (a lost connection, a timeout, a deadlock).
    pub fn from_input(&self) -> bool {
        match &self.0 {
            sqlx::Error::Database(e) => e.code().is_some_and(|c| ["22", "23", "54"].iter().any(|k| c.starts_with(k))),
            _ => false,
        }
    }
}

/// A claim or release that was not taken.
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    /// Refused by the rules (§3.3, signed claims); nothing written.
    #[error(transparent)]
    Refused(ClaimRefusal),
    /// The signature's (keyid, nonce) was spent before (§3.2); nothing written.
    #[error("this nonce was already used with this key (§3.2)")]
    Replayed,
    /// The database failed; nothing acknowledged.
    #[error(transparent)]
    Db(#[from] DbError),
    /// The transaction carrying this claim and the others batched with it
    /// failed; none of them was taken, and a retry of the same claim id is safe.
    #[error("the batch of claims this claim was in failed: {0}")]
    BatchFailed(String),
}

impl From<sqlx::Error> for ClaimError {
    fn from(e: sqlx::Error) -> Self {
        ClaimError::Db(DbError(e))
    }
}

/// What a host's `GET` reads (the edge's, both stores' word).
pub use status_edge::StatusView;

/// The answer to a registration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registered {
    /// A new credential (201).
    Created(StatusView),
    /// The same registration again (200): a retry after a lost answer.
    Unchanged(StatusView),
}

/// Why an update was refused after its signature checked out; nothing written.
#[derive(Debug, thiserror::Error)]
pub enum UpdateRefusal {
    /// This namespace has seen the update's jti.
    #[error("this update (jti {0:?}) was already applied; each update has a fresh jti")]
    Replayed(String),
    /// The credential is registered with other limits.
    #[error("credential {0:?} is already registered with other limits")]
    Conflict(String),
    /// A revoke for a credential never registered.
    #[error("no credential {0:?} is registered in this namespace")]
    UnknownCredential(String),
    /// The namespace already holds as many credentials as the operator allows.
    #[error("this namespace already holds {0} credentials, the most this status service keeps for one principal; expired ones are dropped 30 days after they expire")]
    NamespaceFull(u32),
    /// The database failed.
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<sqlx::Error> for UpdateRefusal {
    fn from(e: sqlx::Error) -> Self {
        UpdateRefusal::Db(DbError(e))
    }
}

/// Database settings (docs/hosted-status.md "Configuration").
#[derive(Debug, Clone)]
pub struct DbOptions {
    /// Connections this process holds at most.
    pub pool_size: u32,
    /// `statement_timeout`, in milliseconds (0: none).
    pub statement_timeout_ms: u64,
    /// How long to wait for a free connection, in milliseconds.
    pub acquire_timeout_ms: u64,
}

impl Default for DbOptions {
    fn default() -> Self {
        DbOptions { pool_size: 16, statement_timeout_ms: 5_000, acquire_timeout_ms: 5_000 }
    }
}

/// A claim batch slot's connection idle at least this long is checked with a
/// round trip before a batch is sent on it (crates/status/src/batch.rs).
pub const PING_IDLE_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether a slot's connection idle for `idle_for` is checked before use: one
/// whose batch committed moments ago is not (docs/benchmarks.md "Hosted
/// status service": the check was a round trip, and a wakeup of its
/// PostgreSQL backend, before every batch).
pub fn ping_before_use(idle_for: std::time::Duration) -> bool {
    idle_for >= PING_IDLE_AFTER
}

/// Opens a pool on `url` with `options`.
pub async fn connect(url: &str, options: &DbOptions) -> Result<PgPool, sqlx::Error> {
    let connect: sqlx::postgres::PgConnectOptions = url.parse()?;
    let connect = connect.options([("statement_timeout", options.statement_timeout_ms.to_string())]);
    PgPoolOptions::new()
        .max_connections(options.pool_size.max(1))
        .acquire_timeout(std::time::Duration::from_millis(options.acquire_timeout_ms))
        .connect_with(connect)
        .await
}

fn view(revoked: bool, exp: i64, remaining: Option<i64>, now: i64) -> StatusView {
    StatusView {
        status: CredentialStatus::of(revoked, exp, now),
        // The CHECKs keep it in 0..=u32::MAX.
        remaining: remaining.map(|r| r.clamp(0, u32::MAX as i64) as u32),
    }
}

/// A host's `GET {base}/status/{thumb}/{jti}`.
pub async fn status(pool: &PgPool, thumb: &str, jti: &str, now: i64) -> Result<Option<StatusView>, DbError> {
    let row =
        sqlx::query("SELECT revoked_at IS NOT NULL, exp, remaining FROM credentials WHERE thumb = $1 AND jti = $2")
            .bind(thumb)
            .bind(jti)
            .fetch_optional(pool)
            .await?;
    Ok(row.map(|r| view(r.get(0), r.get(1), r.get(2), now)))
}

/// A host's claim (§3.3): 201 `Claimed`, 200 `AlreadyHeld`, or a refusal.
/// Unsigned: one call of `schcp_claim` (migration 0002), one READ COMMITTED
/// transaction, one round trip. Signed by `claimant`: its key checked against
/// the recorded host keys first (they never change once registered), then one
/// call of `schcp_claim_signed` (migration 0003), which spends the nonce.
pub async fn claim(
    pool: &PgPool,
    thumb: &str,
    jti: &str,
    claim_id: &ClaimId,
    now: i64,
    claimant: Option<&Claimant>,
) -> Result<ClaimOutcome, ClaimError> {
    let row = match claimant {
        None => {
            sqlx::query("SELECT outcome, left_units, max_units FROM schcp_claim($1, $2, $3, $4, $5)")
                .bind(thumb)
                .bind(jti)
                .bind(claim_id.as_str())
                .bind(claim_id.host())
                .bind(now)
                .fetch_one(pool)
                .await?
        }
        Some(c) => {
            check_claimant(pool, thumb, jti, claim_id, c).await?;
            sqlx::query("SELECT outcome, left_units, max_units FROM schcp_claim_signed($1, $2, $3, $4, $5, $6, $7, $8)")
                .bind(thumb)
                .bind(jti)
                .bind(claim_id.as_str())
                .bind(claim_id.host())
                .bind(now)
                .bind(&c.thumbprint)
                .bind(&c.nonce)
                .bind(c.remember_until)
                .fetch_one(pool)
                .await?
        }
    };
    outcome_of(row.get(0), row.get(1), row.get(2), claim_id)
}

/// One claim's answer from the function's `(outcome, left_units, max_units)`.
fn outcome_of(
    outcome: String,
    left: Option<i64>,
    max: Option<i64>,
    claim_id: &ClaimId,
) -> Result<ClaimOutcome, ClaimError> {
    // The CHECKs keep both in 0..=u32::MAX.
    let units = |n: Option<i64>| n.unwrap_or(0).clamp(0, u32::MAX as i64) as u32;
    let refused = match outcome.as_str() {
        "claimed" => return Ok(ClaimOutcome::Claimed { remaining: units(left) }),
        "already_held" => return Ok(ClaimOutcome::AlreadyHeld { remaining: units(left) }),
        "unknown" => ClaimRefusal::UnknownMandate,
        "no_shared_limit" => ClaimRefusal::NoSharedLimit,
        "host_not_in_audience" => ClaimRefusal::HostNotInAudience { host: claim_id.host().to_owned() },
        "revoked" => ClaimRefusal::Revoked,
        "expired" => ClaimRefusal::Expired,
        "none_left" => ClaimRefusal::NoneLeft { max_bookings: units(max) },
        "replayed" => return Err(ClaimError::Replayed),
        other => return Err(ClaimError::Db(DbError(sqlx::Error::Protocol(format!("schcp_claim answered {other:?}"))))),
    };
    Err(ClaimError::Refused(refused))
}

/// One claim of a batch: what [`claim`] takes, its signer's key already
/// checked against the recorded host keys ([`check_claimant`]).
#[derive(Debug, Clone)]
pub struct QueuedClaim {
    /// The namespace.
    pub thumb: String,
    /// The credential.
    pub jti: String,
    /// The claim id.
    pub claim_id: ClaimId,
    /// The claim's time (unix seconds).
    pub now: i64,
    /// The host that signed it, if it was signed.
    pub signer: Option<Claimant>,
}

/// Applies `claims` in one call of `schcp_claim_batch` (migration 0004): one
/// transaction, one WAL flush. Each claim is answered as [`claim`] would have
/// answered it alone, the claims taken in the slice's order; if the
/// transaction fails, `Err`, and none of them was taken.
pub async fn claim_batch<'c>(
    db: impl sqlx::PgExecutor<'c>,
    claims: &[QueuedClaim],
) -> Result<Vec<Result<ClaimOutcome, ClaimError>>, DbError> {
    if claims.is_empty() {
        return Ok(Vec::new());
    }
    let column = |f: fn(&QueuedClaim) -> &str| claims.iter().map(f).collect::<Vec<&str>>();
    let signers: Vec<Option<&Claimant>> = claims.iter().map(|c| c.signer.as_ref()).collect();
    let rows =
        sqlx::query("SELECT outcome, left_units, max_units FROM schcp_claim_batch($1, $2, $3, $4, $5, $6, $7, $8)")
            .bind(column(|c| &c.thumb))
            .bind(column(|c| &c.jti))
            .bind(column(|c| c.claim_id.as_str()))
            .bind(column(|c| c.claim_id.host()))
            .bind(claims.iter().map(|c| c.now).collect::<Vec<i64>>())
            .bind(signers.iter().map(|s| s.map(|s| s.thumbprint.as_str())).collect::<Vec<Option<&str>>>())
            .bind(signers.iter().map(|s| s.map(|s| s.nonce.as_str())).collect::<Vec<Option<&str>>>())
            .bind(signers.iter().map(|s| s.map(|s| s.remember_until)).collect::<Vec<Option<i64>>>())
            .fetch_all(db)
            .await?;
    if rows.len() != claims.len() {
        return Err(DbError(sqlx::Error::Protocol(format!(
            "schcp_claim_batch answered {} rows for {} claims",
            rows.len(),
            claims.len()
        ))));
    }
    Ok(rows
        .into_iter()
        .zip(claims)
        .map(|(row, c)| outcome_of(row.get(0), row.get(1), row.get(2), &c.claim_id))
        .collect())
}

/// The credential's recorded host keys and what a claim is refused for before
/// them (the embedded API's order: unknown, no shared limit, host not in
/// `aud`), then whether `c`'s key is the claim host's. Nothing is written.
pub async fn check_claimant(
    pool: &PgPool,
    thumb: &str,
    jti: &str,
    claim_id: &ClaimId,
    c: &Claimant,
) -> Result<(), ClaimError> {
    let row = sqlx::query(
        "SELECT remaining IS NULL, $3 = ANY (aud), host_keys::text FROM credentials WHERE thumb = $1 AND jti = $2",
    )
    .bind(thumb)
    .bind(jti)
    .bind(claim_id.host())
    .fetch_optional(pool)
    .await?;
    let Some(row) = row else { return Err(ClaimError::Refused(ClaimRefusal::UnknownMandate)) };
    let (no_shared_limit, in_aud, keys): (bool, bool, String) = (row.get(0), row.get(1), row.get(2));
    if no_shared_limit {
        return Err(ClaimError::Refused(ClaimRefusal::NoSharedLimit));
    }
    if !in_aud {
        return Err(ClaimError::Refused(ClaimRefusal::HostNotInAudience { host: claim_id.host().to_owned() }));
    }
    check_signer(&host_keys(&keys)?, claim_id.host(), &c.thumbprint).map_err(ClaimError::Refused)
}

/// A stored `host_keys` (JSONB as text).
fn host_keys(text: &str) -> Result<HostKeys, DbError> {
    serde_json::from_str(text)
        .map_err(|e| DbError(sqlx::Error::Protocol(format!("host_keys is not an object of thumbprint lists: {e}"))))
}

/// A host's release: gives a unit back only when it deleted a claim; releasing
/// an unknown or released claim changes nothing (§3.3).
///
/// Unsigned, one transaction: the claim row locked and read as committed (a
/// signed one is refused, `ClaimSignedByHost`), then deleted and its unit
/// given back. A second release of the same claim waits for the first's row
/// lock, then finds nothing. Signed by `claimant`: its key must be the claim host's
/// (a credential not held here has none to check: nothing to release), and
/// the nonce is spent in the release's transaction.
pub async fn release(
    pool: &PgPool,
    thumb: &str,
    jti: &str,
    claim_id: &ClaimId,
    claimant: Option<&Claimant>,
    now: i64,
) -> Result<(), ClaimError> {
    let Some(c) = claimant else {
        // The claim row first, locked, read as it is once a claim holding it
        // committed (a signed claim that found it held marks it its host's:
        // migration 0008); then its credential, the order every writer keeps.
        let mut tx = pool.begin().await?;
        let held: Option<bool> =
            sqlx::query_scalar("SELECT signed FROM claims WHERE thumb = $1 AND jti = $2 AND claim_id = $3 FOR UPDATE")
                .bind(thumb)
                .bind(jti)
                .bind(claim_id.as_str())
                .fetch_optional(&mut *tx)
                .await?;
        match held {
            // Nothing held: nothing to give back (§3.3, idempotent).
            None => return Ok(()),
            Some(true) => {
                return Err(ClaimError::Refused(ClaimRefusal::ClaimSignedByHost { host: claim_id.host().to_owned() }))
            }
            Some(false) => {}
        }
        give_back(&mut tx, thumb, jti, claim_id).await?;
        tx.commit().await?;
        return Ok(());
    };
    let keys: Option<String> =
        sqlx::query_scalar("SELECT host_keys::text FROM credentials WHERE thumb = $1 AND jti = $2")
            .bind(thumb)
            .bind(jti)
            .fetch_optional(pool)
            .await?;
    let Some(keys) = keys else { return Ok(()) };
    check_signer(&host_keys(&keys)?, claim_id.host(), &c.thumbprint).map_err(ClaimError::Refused)?;
    let mut tx = pool.begin().await?;
    spend_nonce(&mut tx, c, now).await?;
    give_back(&mut tx, thumb, jti, claim_id).await?;
    tx.commit().await?;
    Ok(())
}

/// Deletes the claim and gives its unit back, if it held one (a shared
/// limit's `remaining` grows only when a row went).
async fn give_back(c: &mut PgConnection, thumb: &str, jti: &str, claim_id: &ClaimId) -> Result<(), DbError> {
    sqlx::query(
        "WITH gone AS (DELETE FROM claims WHERE thumb = $1 AND jti = $2 AND claim_id = $3 RETURNING 1)
         UPDATE credentials SET remaining = remaining + 1
          WHERE thumb = $1 AND jti = $2 AND remaining IS NOT NULL AND EXISTS (SELECT 1 FROM gone)",
    )
    .bind(thumb)
    .bind(jti)
    .bind(claim_id.as_str())
    .execute(c)
    .await?;
    Ok(())
}

/// Spends a verified signature's (keyid, nonce), or refuses a replay (§3.2).
async fn spend_nonce(c: &mut PgConnection, claimant: &Claimant, now: i64) -> Result<(), ClaimError> {
    sqlx::query("DELETE FROM seen_nonces WHERE keyid = $1 AND nonce = $2 AND keep_until < $3")
        .bind(&claimant.thumbprint)
        .bind(&claimant.nonce)
        .bind(now)
        .execute(&mut *c)
        .await?;
    let fresh =
        sqlx::query("INSERT INTO seen_nonces (keyid, nonce, keep_until) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING")
            .bind(&claimant.thumbprint)
            .bind(&claimant.nonce)
            .bind(claimant.remember_until)
            .execute(&mut *c)
            .await?
            .rows_affected();
    if fresh == 0 {
        return Err(ClaimError::Replayed);
    }
    Ok(())
}

/// Records the update jti, or refuses a replay. Expired entries of the
/// namespace are dropped first (their `iat` window has closed).
async fn first_use(
    c: &mut PgConnection,
    thumb: &str,
    update_jti: &str,
    keep_until: i64,
    now: i64,
) -> Result<(), UpdateRefusal> {
    sqlx::query("DELETE FROM seen_updates WHERE thumb = $1 AND keep_until < $2")
        .bind(thumb)
        .bind(now)
        .execute(&mut *c)
        .await?;
    let fresh =
        sqlx::query("INSERT INTO seen_updates (thumb, jti, keep_until) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING")
            .bind(thumb)
            .bind(update_jti)
            .bind(keep_until)
            .execute(&mut *c)
            .await?
            .rows_affected();
    if fresh == 0 {
        return Err(UpdateRefusal::Replayed(update_jti.to_owned()));
    }
    Ok(())
}

/// Registers a credential: new → `Created`; the same limits again →
/// `Unchanged` (a revoked one stays revoked); other limits → `Conflict`; a
/// new one in a namespace already holding `max_credentials` → `NamespaceFull`.
pub async fn register(
    pool: &PgPool,
    thumb: &str,
    update_jti: &str,
    keep_until: i64,
    reg: &Registration,
    now: i64,
    max_credentials: u32,
) -> Result<Registered, UpdateRefusal> {
    let mut tx = pool.begin().await?;
    first_use(&mut tx, thumb, update_jti, keep_until, now).await?;
    // One registration at a time per namespace, so the count after an insert
    // is exact under concurrency (READ COMMITTED would let two inserts each
    // count the other out); the lock ends with the transaction.
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))").bind(thumb).execute(&mut *tx).await?;
    let remaining = reg.shared_max().map(i64::from);
    let keys = serde_json::to_string(&reg.host_keys).expect("thumbprint lists serialize");
    let inserted = sqlx::query(
        "INSERT INTO credentials (thumb, jti, exp, aud, max_bookings, shared_limit, remaining, registered_at, host_keys)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb) ON CONFLICT DO NOTHING",
    )
    .bind(thumb)
    .bind(&reg.jti)
    .bind(reg.exp)
    .bind(&reg.aud)
    .bind(reg.max_bookings.map(i64::from))
    .bind(reg.shared_limit)
    .bind(remaining)
    .bind(now)
    .bind(keys)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if inserted == 1 {
        let (held,): (i64,) =
            sqlx::query_as("SELECT count(*) FROM credentials WHERE thumb = $1").bind(thumb).fetch_one(&mut *tx).await?;
        if held > i64::from(max_credentials) {
            tx.rollback().await?;
            return Err(UpdateRefusal::NamespaceFull(max_credentials));
        }
        tx.commit().await?;
        return Ok(Registered::Created(view(false, reg.exp, remaining, now)));
    }
    match registered_again(&mut tx, thumb, reg, now).await? {
        Some(v) => {
            tx.commit().await?;
            Ok(Registered::Unchanged(v))
        }
        None => {
            tx.rollback().await?;
            Err(UpdateRefusal::Conflict(reg.jti.clone()))
        }
    }
}

/// A credential the namespace holds already, registered again: its view when
/// the registration states the same limits and host keys, `None` when they differ.
async fn registered_again(
    c: &mut PgConnection,
    thumb: &str,
    reg: &Registration,
    now: i64,
) -> Result<Option<StatusView>, UpdateRefusal> {
    let row = sqlx::query(
        "SELECT exp, aud, max_bookings, shared_limit, revoked_at IS NOT NULL, remaining, host_keys::text
           FROM credentials WHERE thumb = $1 AND jti = $2",
    )
    .bind(thumb)
    .bind(&reg.jti)
    .fetch_one(&mut *c)
    .await?;
    let (exp, aud, max, shared): (i64, Vec<String>, Option<i64>, bool) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    let same_keys = host_keys(row.get(6))? == reg.host_keys;
    let same = exp == reg.exp
        && aud == reg.aud
        && max == reg.max_bookings.map(i64::from)
        && shared == reg.shared_limit
        && same_keys;
    Ok(same.then(|| view(row.get(4), exp, row.get(5), now)))
}

/// Revokes a credential; revoked is final, so revoking again changes nothing.
pub async fn revoke(
    pool: &PgPool,
    thumb: &str,
    update_jti: &str,
    keep_until: i64,
    jti: &str,
    now: i64,
) -> Result<StatusView, UpdateRefusal> {
    let mut tx = pool.begin().await?;
    first_use(&mut tx, thumb, update_jti, keep_until, now).await?;
    let row = sqlx::query(
        "UPDATE credentials SET revoked_at = COALESCE(revoked_at, $3) WHERE thumb = $1 AND jti = $2
         RETURNING exp, remaining",
    )
    .bind(thumb)
    .bind(jti)
    .bind(now)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(row) = row else {
        tx.rollback().await?;
        return Err(UpdateRefusal::UnknownCredential(jti.to_owned()));
    };
    tx.commit().await?;
    Ok(view(true, row.get(0), row.get(1), now))
}

/// What a revoke_all did: the credentials it revoked now, in `jti` order
/// (those revoked before stay as they were and are not listed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevokedAll {
    /// The registration instant it reached back from: the smaller of the
    /// update's `before` and the service's clock.
    pub before: i64,
    /// The credentials it revoked.
    pub revoked: Vec<String>,
}

/// Revokes every credential of namespace `thumb` registered at or before
/// `before` (and not after `now`), in one transaction with the update's replay
/// record and its `namespace_revocations` row. A registration committed after
/// it is never reached; one running at once waits for the namespace's
/// advisory lock, which registrations take too, so it lands wholly before or
/// wholly after.
pub async fn revoke_all(
    pool: &PgPool,
    thumb: &str,
    update_jti: &str,
    keep_until: i64,
    before: i64,
    now: i64,
) -> Result<RevokedAll, UpdateRefusal> {
    let before = before.min(now);
    let mut tx = pool.begin().await?;
    first_use(&mut tx, thumb, update_jti, keep_until, now).await?;
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))").bind(thumb).execute(&mut *tx).await?;
    let mut revoked: Vec<String> = sqlx::query_scalar(
        "UPDATE credentials SET revoked_at = $3
          WHERE thumb = $1 AND revoked_at IS NULL AND registered_at <= $2
         RETURNING jti",
    )
    .bind(thumb)
    .bind(before)
    .bind(now)
    .fetch_all(&mut *tx)
    .await?;
    revoked.sort();
    sqlx::query(
        "INSERT INTO namespace_revocations (thumb, update_jti, before, applied_at, revoked) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(thumb)
    .bind(update_jti)
    .bind(before)
    .bind(now)
    .bind(revoked.len() as i64)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(RevokedAll { before, revoked })
}

/// How long a credential is kept after its `exp`: a host that checks late
/// still reads `expired`, not 404. Past that no host can use it (§3.3 step 2
/// refuses it on its own `exp`), and a re-registration of the jti could only
/// ever answer `expired`.
pub const EXPIRED_KEPT: i64 = 30 * 86_400;

/// How often a serving process purges (every process does; the deletes are
/// idempotent, so several at once only repeat each other's work).
pub const PURGE_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);

/// What one purge dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Purged {
    /// Credentials expired for longer than [`EXPIRED_KEPT`].
    pub credentials: u64,
    /// Their claims.
    pub claims: u64,
    /// Update ids whose `iat` window has closed, in every namespace.
    pub updates: u64,
}

/// Drops what no answer needs any more, across every namespace. Anyone can
/// open a namespace with a fresh key, so without this the rows of expired
/// credentials and of a namespace that never posts again would only grow.
pub async fn purge(pool: &PgPool, now: i64) -> Result<Purged, DbError> {
    let cutoff = now - EXPIRED_KEPT;
    let mut tx = pool.begin().await?;
    let claims = sqlx::query(
        "DELETE FROM claims h USING credentials c WHERE h.thumb = c.thumb AND h.jti = c.jti AND c.exp < $1",
    )
    .bind(cutoff)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    let credentials =
        sqlx::query("DELETE FROM credentials WHERE exp < $1").bind(cutoff).execute(&mut *tx).await?.rows_affected();
    let updates = sqlx::query("DELETE FROM seen_updates WHERE keep_until < $1")
        .bind(now)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    sqlx::query("DELETE FROM seen_nonces WHERE keep_until < $1").bind(now).execute(&mut *tx).await?;
    // A revoke_all's record outlives every credential it could have named.
    sqlx::query("DELETE FROM namespace_revocations WHERE applied_at < $1")
        .bind(cutoff - schcp::status_update::MAX_REGISTERED_LIFETIME)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Purged { credentials, claims, updates })
}

/// The claim ids held for a credential (tests and operators).
pub async fn held_claims(pool: &PgPool, thumb: &str, jti: &str) -> Result<Vec<String>, DbError> {
    Ok(sqlx::query_scalar("SELECT claim_id FROM claims WHERE thumb = $1 AND jti = $2 ORDER BY claim_id")
        .bind(thumb)
        .bind(jti)
        .fetch_all(pool)
        .await?)
}
