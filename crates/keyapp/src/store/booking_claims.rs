//! Revocation status and the shared booking limit of the mandates the key app
//! issued (§3.3 "One consent, several hosts"; docs/agent-api.md §2).
//!
//! A person who lets an assistant "book one oil change at either of these shops"
//! signs one mandate whose `aud` lists both, with `constraints.shared_limit: true`.
//! Each host claims a unit here before it confirms, and gives it back when the
//! booking will not happen. The accounting rules, all enforced in this module:
//!
//! - held claims never exceed `max_bookings`, and `remaining` is always
//!   `max_bookings` minus the claims held;
//! - a claim id already held answers "already held" and spends nothing (a confirm
//!   retried under another idempotency key, §3.3);
//! - releasing an unknown or released claim changes nothing;
//! - a revoked or expired mandate refuses claims but still takes releases, since a
//!   release only gives a unit back;
//! - every state change is one SQLite transaction begun with `BEGIN IMMEDIATE`, so
//!   the write lock is taken before anything is read and two writers can never both
//!   see the last unit free. A change is acknowledged only after its commit, which
//!   `synchronous = FULL` makes durable: a crash loses or duplicates no unit.
//!
//! The rows are keyed by `jti` alone. §3.3 "Ids are per link" asks for
//! (root iss, jti); every row here was issued by this key app, under its one
//! principal key, with a `jti` it chose itself, so `jti` already names one link.
//!
//! [`GroupCommit`] applies many claims and releases in one transaction (one fsync)
//! while keeping each operation's outcome exactly what it would have been alone:
//! under the write lock the batch reads what its operations name, decides them one
//! after another in arrival order, writes the difference, and answers nobody until
//! the commit has returned. The functions below are the same code run as a batch
//! of one. Beneath it all, migration 0002 keeps the held count by trigger and makes
//! the database itself refuse a unit beyond `max_bookings`.
//!
//! Signed claims (docs/agent-api.md "Signed claims", migration 0011): a claim or
//! release may name the thumbprint of the host key that signed it (its signature
//! checked at the edge). It is taken only if that key is one the key app
//! recorded for the claim id's host; a claim made signed is marked so, and an
//! unsigned release of it is refused, so only its host gives it back.

use super::credentials::shared_max;
use super::{Store, StoreError, Stored};
use sqlx::pool::PoolConnection;
use sqlx::{Sqlite, SqliteConnection};
pub use status_edge::claims::{ClaimId, ClaimOutcome, ClaimRefusal};
use status_edge::{check_signer, CredentialStatus, HostKeys};
use std::collections::{HashMap, HashSet};
use tokio::sync::{mpsc, oneshot};

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClaimError {
    #[error(transparent)]
    Refused(#[from] ClaimRefusal),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The group commit that carried this claim failed or is gone; the claim was
    /// not acknowledged, and retrying the same claim id is safe.
    #[error("claim ledger unavailable: {0}")]
    Unavailable(String),
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReleaseError {
    /// A signed claim released unsigned, or a release signed by a key that is
    /// not the claim host's; nothing changed.
    #[error(transparent)]
    Refused(#[from] ClaimRefusal),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("claim ledger unavailable: {0}")]
    Unavailable(String),
}

/// Claims one unit of `jti`'s shared limit for `claim_id`, unsigned. One transaction.
pub async fn claim(store: &Store, jti: &str, claim_id: &str, now: i64) -> Result<ClaimOutcome, ClaimError> {
    claim_as(store, jti, claim_id, now, None).await
}

/// [`claim`], signed by the host key with thumbprint `signer` when given.
pub async fn claim_as(
    store: &Store,
    jti: &str,
    claim_id: &str,
    now: i64,
    signer: Option<&str>,
) -> Result<ClaimOutcome, ClaimError> {
    let claim_id = ClaimId::parse(claim_id)?;
    let op = Op::Claim { jti: jti.to_owned(), claim_id, now, signer: signer.map(str::to_owned) };
    let mut conn = store.pool().acquire().await.map_err(StoreError::from)?;
    let applied = apply_batch(&mut conn, std::slice::from_ref(&op)).await;
    if applied.is_err() {
        conn.close_on_drop(); // never hand a connection in an unknown state back
    }
    match applied?.pop() {
        Some(OpResult::Claim(r)) => Ok(r?),
        Some(OpResult::ClaimFailed(why)) => Err(ClaimError::Store(StoreError::corrupt(Stored::BookingClaim, why))),
        _ => Err(ClaimError::Store(StoreError::corrupt(Stored::BookingClaim, "claim batch answered out of shape"))),
    }
}

/// Gives back the unit `claim_id` holds, if it holds one; otherwise changes
/// nothing. Taken whatever the mandate's status. Unsigned: a claim its host
/// made signed is refused. One transaction.
pub async fn release(store: &Store, jti: &str, claim_id: &str) -> Result<(), ReleaseError> {
    release_as(store, jti, claim_id, None).await
}

/// [`release`], signed by the host key with thumbprint `signer` when given.
pub async fn release_as(store: &Store, jti: &str, claim_id: &str, signer: Option<&str>) -> Result<(), ReleaseError> {
    let op = Op::Release { jti: jti.to_owned(), claim_id: claim_id.to_owned(), signer: signer.map(str::to_owned) };
    let mut conn = store.pool().acquire().await.map_err(StoreError::from)?;
    let applied = apply_batch(&mut conn, std::slice::from_ref(&op)).await;
    if applied.is_err() {
        conn.close_on_drop(); // never hand a connection in an unknown state back
    }
    match applied?.pop() {
        Some(OpResult::Release(r)) => Ok(r?),
        Some(OpResult::ClaimFailed(why)) => Err(ReleaseError::Store(StoreError::corrupt(Stored::BookingClaim, why))),
        _ => Err(ReleaseError::Store(StoreError::corrupt(Stored::BookingClaim, "release batch answered out of shape"))),
    }
}

/// The claim ids holding units of `jti`, in claim order.
pub async fn held_claims(store: &Store, jti: &str) -> Result<Vec<String>, StoreError> {
    let rows: Vec<(String,)> =
        sqlx::query_as("SELECT claim_id FROM limit_claims WHERE jti = ? ORDER BY created_at, rowid")
            .bind(jti)
            .fetch_all(store.pool())
            .await?;
    Ok(rows.into_iter().map(|(c,)| c).collect())
}

// ---------------------------------------------------------------------------
// The accounting itself: operations decided one after another, in memory, from
// what the transaction read under the write lock, then written as one diff.

/// One claim or release; `signer` is the thumbprint of the host key whose
/// signature the edge verified, `None` for an unsigned request.
#[derive(Debug, Clone)]
enum Op {
    Claim { jti: String, claim_id: ClaimId, now: i64, signer: Option<String> },
    Release { jti: String, claim_id: String, signer: Option<String> },
}

impl Op {
    fn signed(&self) -> bool {
        matches!(self, Op::Claim { signer: Some(_), .. } | Op::Release { signer: Some(_), .. })
    }
}

#[derive(Debug)]
enum OpResult {
    Claim(Result<ClaimOutcome, ClaimRefusal>),
    /// The mandate record an operation needs is unreadable; only this
    /// operation fails (500), never the others committed with it.
    ClaimFailed(String),
    Release(Result<(), ClaimRefusal>),
}

/// What a batch needs to know of a mandate, read once per batch inside its
/// transaction and kept current as the batch's own operations change `held`.
#[derive(Debug)]
struct Limit {
    aud: Vec<String>,
    exp: i64,
    revoked: bool,
    /// `Some(max_bookings)` for a mandate with `shared_limit`.
    max: Option<u32>,
    held: u32,
    /// The discovery key thumbprints recorded per host (migration 0011).
    host_keys: HostKeys,
}

/// A jti or claim id that could be stored: 1 to 511 characters (a `ClaimId` is
/// at most 255 + 1 + 255), no control characters. Anything else names nothing here, so it is refused (claims) or
/// changes nothing (releases) without reaching SQL. It also keeps NUL out of
/// the JSON the batch statements take (SQLite's `->>` stops at a NUL).
fn storable(s: &str) -> bool {
    !s.is_empty() && s.chars().count() <= 511 && !s.chars().any(char::is_control)
}

fn json_param<T: serde::Serialize>(v: &T) -> Result<String, StoreError> {
    serde_json::to_string(v).map_err(|e| StoreError::corrupt(Stored::BookingClaim, e.to_string()))
}

/// A batch's first round trip: take the write lock, then read the mandates
/// named by `?1` that have a status URL, with their held count and recorded
/// host keys (rows tagged 0), and which (jti, claim id) pairs of `?2` hold a
/// unit now, and whether signed (rows tagged 1). `BEGIN IMMEDIATE` comes first
/// so nothing is read before the lock is held: two writers can never both see
/// the last unit free.
const LOAD: &str = "BEGIN IMMEDIATE;
    SELECT 0, c.jti, c.aud, c.exp, c.revoked_at IS NOT NULL, c.shared_limit, c.max_bookings,
           coalesce(n.held, 0), NULL, c.host_keys
    FROM credentials c LEFT JOIN limit_counts n ON n.jti = c.jti
    WHERE c.jti IN (SELECT value FROM json_each(?1)) AND c.status_url IS NOT NULL
    UNION ALL
    SELECT 1, jti, NULL, NULL, signed, NULL, NULL, NULL, claim_id, NULL FROM limit_claims
    WHERE (jti, claim_id) IN (SELECT value->>0, value->>1 FROM json_each(?2));";

/// A batch's second round trip: the pairs given back (`?1`), the pairs taken
/// (`?2`, with their time and signed mark), the pairs its host has now signed
/// (`?3`), and the commit, which `synchronous = FULL` makes durable before it
/// returns. A plain INSERT: a row already there would be a bug, and fails the
/// whole transaction rather than being papered over; the database also refuses
/// a row beyond max_bookings (migration 0002).
const WRITE: &str = "
    DELETE FROM limit_claims WHERE (jti, claim_id) IN (SELECT value->>0, value->>1 FROM json_each(?1));
    INSERT INTO limit_claims (jti, claim_id, created_at, signed)
        SELECT value->>0, value->>1, value->>2, value->>3 FROM json_each(?2);
    UPDATE limit_claims SET signed = 1 WHERE (jti, claim_id) IN (SELECT value->>0, value->>1 FROM json_each(?3));
    COMMIT;";

type LoadRow = (
    i64,
    String,
    Option<String>,
    Option<i64>,
    Option<bool>,
    Option<bool>,
    Option<i64>,
    Option<i64>,
    Option<String>,
    Option<String>,
);

/// A mandate's record as a batch can use it, or why it cannot (`Err`): one
/// unreadable record fails the claims on that mandate only.
type LimitEntry = Result<Limit, String>;

/// (jti, claim id) pairs that hold a unit, each with whether its host signed it.
type HeldSet = HashMap<(String, String), bool>;

fn parse_load(rows: Vec<LoadRow>) -> Result<(HashMap<String, LimitEntry>, HeldSet), StoreError> {
    let mut limits = HashMap::new();
    let mut held = HashMap::new();
    for row in rows {
        match row {
            (
                0,
                jti,
                Some(aud),
                Some(exp),
                Some(revoked),
                Some(shared_limit),
                max_bookings,
                Some(count),
                None,
                Some(host_keys),
            ) => {
                let entry = limit_entry(&jti, &aud, exp, revoked, shared_limit, max_bookings, count)
                    .and_then(|l| with_host_keys(l, &jti, &host_keys));
                limits.insert(jti, entry);
            }
            (1, jti, _, _, Some(signed), _, _, _, Some(claim_id), None) => {
                held.insert((jti, claim_id), signed);
            }
            other => return Err(StoreError::corrupt(Stored::BookingClaim, format!("unexpected limit row {other:?}"))),
        }
    }
    Ok((limits, held))
}

fn limit_entry(
    jti: &str,
    aud: &str,
    exp: i64,
    revoked: bool,
    shared_limit: bool,
    max_bookings: Option<i64>,
    held: i64,
) -> LimitEntry {
    let aud: Vec<String> =
        serde_json::from_str(aud).map_err(|e| format!("{jti}: aud is not a JSON array of strings: {e}"))?;
    let max = shared_max(shared_limit, max_bookings).map_err(|m| format!("{jti}: max_bookings {m}"))?;
    let held = u32::try_from(held).map_err(|_| format!("{jti}: {held} claims held"))?;
    Ok(Limit { aud, exp, revoked, max, held, host_keys: HostKeys::new() })
}

fn with_host_keys(mut limit: Limit, jti: &str, host_keys: &str) -> LimitEntry {
    limit.host_keys = serde_json::from_str(host_keys)
        .map_err(|e| format!("{jti}: host_keys is not a JSON object of thumbprint lists: {e}"))?;
    Ok(limit)
}

/// §3.3 check 2: `aud` equals the host id or a list that contains it; `"*"`
/// matches any host.
fn in_audience(aud: &[String], host: &str) -> bool {
    aud.iter().any(|a| a == host || a == "*")
}

/// One claim on a known mandate, decided against the batch's view so far
/// (`held` pairs and the mandate's count), which it updates.
fn decide_claim(
    limit: &mut Limit,
    held: &mut HeldSet,
    jti: &str,
    claim_id: &ClaimId,
    now: i64,
    signer: Option<&str>,
) -> Result<ClaimOutcome, ClaimRefusal> {
    let max = limit.max.ok_or(ClaimRefusal::NoSharedLimit)?;
    if !in_audience(&limit.aud, claim_id.host()) {
        return Err(ClaimRefusal::HostNotInAudience { host: claim_id.host().to_owned() });
    }
    if let Some(signer) = signer {
        check_signer(&limit.host_keys, claim_id.host(), signer)?;
    }
    match CredentialStatus::of(limit.revoked, limit.exp, now) {
        CredentialStatus::Active => {}
        CredentialStatus::Revoked => return Err(ClaimRefusal::Revoked),
        CredentialStatus::Expired => return Err(ClaimRefusal::Expired),
    }
    let key = (jti.to_owned(), claim_id.as_str().to_owned());
    if let Some(signed) = held.get_mut(&key) {
        // A confirm retried under another idempotency key: nothing spent
        // (§3.3). Its host's signature marks it signed, so a claim id someone
        // took unsigned first is the host's own from now on.
        *signed |= signer.is_some();
        return Ok(ClaimOutcome::AlreadyHeld { remaining: max.saturating_sub(limit.held) });
    }
    if limit.held >= max {
        return Err(ClaimRefusal::NoneLeft { max_bookings: max });
    }
    held.insert(key, signer.is_some());
    limit.held += 1;
    Ok(ClaimOutcome::Claimed { remaining: max - limit.held })
}

/// Applies `ops` in order in one `BEGIN IMMEDIATE` transaction and commits.
///
/// Whatever the batch's size it costs two round trips to SQLite: take the lock
/// and read the mandates and claim ids it names ([`LOAD`]); decide every
/// operation in order, in memory, exactly as if each ran alone in that order;
/// write the difference and commit ([`WRITE`]). Either every effect is
/// committed or none is, and nobody is told an outcome before the commit. On
/// an error the transaction is rolled back here.
async fn apply_batch(conn: &mut SqliteConnection, ops: &[Op]) -> Result<Vec<OpResult>, StoreError> {
    let mut claim_jtis: Vec<&str> = Vec::new();
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    {
        let (mut seen_jti, mut seen_pair) = (HashSet::new(), HashSet::new());
        for op in ops {
            let (jti, claim_id, is_claim) = match op {
                Op::Claim { jti, claim_id, .. } => (jti.as_str(), claim_id.as_str(), true),
                Op::Release { jti, claim_id, .. } => (jti.as_str(), claim_id.as_str(), false),
            };
            if !storable(jti) || !storable(claim_id) {
                continue; // names nothing stored; decided below without SQL
            }
            // A signed release needs its mandate's host keys; an unsigned one
            // only whether the pair is held.
            if (is_claim || op.signed()) && seen_jti.insert(jti) {
                claim_jtis.push(jti);
            }
            if seen_pair.insert((jti, claim_id)) {
                pairs.push((jti, claim_id));
            }
        }
    }
    if pairs.is_empty() {
        return Ok(decide(ops, &mut HashMap::new(), &mut HashMap::new(), &mut HashMap::new()));
    }
    let result = async {
        let rows: Vec<LoadRow> =
            sqlx::query_as(LOAD).bind(json_param(&claim_jtis)?).bind(json_param(&pairs)?).fetch_all(&mut *conn).await?;
        let (mut limits, before) = parse_load(rows)?;
        let mut held = before.clone();
        let mut claimed_at = HashMap::new();
        let results = decide(ops, &mut limits, &mut held, &mut claimed_at);
        let diff = Diff::of(&before, &held, &claimed_at);
        sqlx::query(WRITE)
            .bind(json_param(&diff.gone)?)
            .bind(json_param(&diff.new)?)
            .bind(json_param(&diff.signed)?)
            .execute(&mut *conn)
            .await?;
        Ok::<_, StoreError>(results)
    }
    .await;
    if result.is_err() {
        // Nothing of the batch stays: undo whatever ran before the failure (an
        // error if no transaction is open any more, which is fine).
        let _ = sqlx::query("ROLLBACK").execute(&mut *conn).await;
    }
    result
}

/// What a batch writes: the pairs given back, the pairs taken (time, signed),
/// and the held pairs its host has now signed.
struct Diff<'a> {
    gone: Vec<(&'a str, &'a str)>,
    new: Vec<(&'a str, &'a str, i64, bool)>,
    signed: Vec<(&'a str, &'a str)>,
}

impl<'a> Diff<'a> {
    fn of(before: &'a HeldSet, after: &'a HeldSet, claimed_at: &HashMap<(String, String), i64>) -> Diff<'a> {
        let mut diff = Diff { gone: Vec::new(), new: Vec::new(), signed: Vec::new() };
        for (k, &was) in before {
            match after.get(k) {
                None => diff.gone.push((k.0.as_str(), k.1.as_str())),
                Some(&now) if now && !was => diff.signed.push((k.0.as_str(), k.1.as_str())),
                // Released signed and claimed again unsigned in one batch: a
                // new claim, never a signed mark cleared (migration 0011).
                Some(&now) if was && !now => diff.gone.push((k.0.as_str(), k.1.as_str())),
                Some(_) => {}
            }
        }
        for (k, &signed) in after {
            if before.get(k).is_none_or(|&was| was && !signed) {
                let at = claimed_at.get(k).copied().unwrap_or_default();
                diff.new.push((k.0.as_str(), k.1.as_str(), at, signed));
            }
        }
        diff
    }
}

/// Decides `ops` in order against the batch's view (`held` pairs and
/// per-mandate counts), updating it; `claimed_at` gets the time of each unit
/// taken.
fn decide(
    ops: &[Op],
    limits: &mut HashMap<String, LimitEntry>,
    held: &mut HeldSet,
    claimed_at: &mut HashMap<(String, String), i64>,
) -> Vec<OpResult> {
    let mut results = Vec::with_capacity(ops.len());
    for op in ops {
        results.push(match op {
            Op::Claim { jti, claim_id, now, signer } => {
                // A jti that is not storable was never loaded: unknown too.
                let outcome = match limits.get_mut(jti.as_str()) {
                    None => Err(ClaimRefusal::UnknownMandate),
                    Some(Err(why)) => {
                        results.push(OpResult::ClaimFailed(why.clone()));
                        continue;
                    }
                    Some(Ok(limit)) => decide_claim(limit, held, jti, claim_id, *now, signer.as_deref()),
                };
                if let Ok(ClaimOutcome::Claimed { .. }) = outcome {
                    claimed_at.insert((jti.clone(), claim_id.as_str().to_owned()), *now);
                }
                OpResult::Claim(outcome)
            }
            Op::Release { jti, claim_id, signer } => match decide_release(limits, held, jti, claim_id, signer) {
                Ok(r) => OpResult::Release(r),
                Err(why) => OpResult::ClaimFailed(why),
            },
        });
    }
    results
}

/// One release, taken whatever the mandate's status (a release only gives
/// back). Signed: only with a key of the claim id's host. Unsigned: not of a
/// claim its host made signed. `Err` carries an unreadable mandate record.
fn decide_release(
    limits: &mut HashMap<String, LimitEntry>,
    held: &mut HeldSet,
    jti: &str,
    claim_id: &str,
    signer: &Option<String>,
) -> Result<Result<(), ClaimRefusal>, String> {
    let host = claim_id.split_once('/').map_or(claim_id, |(h, _)| h);
    let key = (jti.to_owned(), claim_id.to_owned());
    match (signer, limits.get(jti)) {
        (Some(_), Some(Err(why))) => return Err(why.clone()),
        (Some(signer), Some(Ok(limit))) => {
            if let Err(refused) = check_signer(&limit.host_keys, host, signer) {
                return Ok(Err(refused));
            }
        }
        // A signed release of a mandate with no status here names nothing held.
        (Some(_), None) => {}
        (None, _) => {
            if held.get(&key) == Some(&true) {
                return Ok(Err(ClaimRefusal::ClaimSignedByHost { host: host.to_owned() }));
            }
        }
    }
    if held.remove(&key).is_some() {
        if let Some(Ok(limit)) = limits.get_mut(jti) {
            limit.held -= 1;
        }
    }
    Ok(Ok(()))
}

// ---------------------------------------------------------------------------
// Group commit.

struct Job {
    op: Op,
    reply: oneshot::Sender<Result<OpResult, String>>,
}

/// A handle to the task that applies claims and releases in group-committed
/// transactions: whatever arrived while the previous transaction was being made
/// durable is applied next, in arrival order, in one transaction with one fsync.
///
/// Each operation's outcome is the one it would have had alone at its place in
/// that order, and nobody is answered before the commit. If a transaction fails,
/// every operation in it is answered `Unavailable` and none took effect.
/// A caller that stops waiting does not stop its operation.
#[derive(Debug, Clone)]
pub struct GroupCommit {
    tx: mpsc::Sender<Job>,
}

impl GroupCommit {
    /// Starts the writer task on the current Tokio runtime. `max_batch` bounds the
    /// operations per transaction (1 = a transaction per operation).
    pub fn spawn(store: Store, max_batch: usize) -> GroupCommit {
        let max_batch = max_batch.max(1);
        let (tx, rx) = mpsc::channel(4 * max_batch.max(256));
        tokio::spawn(run_group_commit(store, rx, max_batch));
        GroupCommit { tx }
    }

    /// A claim, signed by the host key with thumbprint `signer` when given.
    pub async fn claim(
        &self,
        jti: &str,
        claim_id: &ClaimId,
        now: i64,
        signer: Option<&str>,
    ) -> Result<ClaimOutcome, ClaimError> {
        let op = Op::Claim { jti: jti.to_owned(), claim_id: claim_id.clone(), now, signer: signer.map(str::to_owned) };
        match self.submit(op).await.map_err(ClaimError::Unavailable)? {
            OpResult::Claim(r) => Ok(r?),
            OpResult::ClaimFailed(why) => Err(ClaimError::Store(StoreError::corrupt(Stored::BookingClaim, why))),
            OpResult::Release(_) => Err(ClaimError::Unavailable("claim answered as a release".into())),
        }
    }

    /// A release, signed by the host key with thumbprint `signer` when given.
    pub async fn release(&self, jti: &str, claim_id: &str, signer: Option<&str>) -> Result<(), ReleaseError> {
        let op = Op::Release { jti: jti.to_owned(), claim_id: claim_id.to_owned(), signer: signer.map(str::to_owned) };
        match self.submit(op).await.map_err(ReleaseError::Unavailable)? {
            OpResult::Release(r) => Ok(r?),
            OpResult::ClaimFailed(why) => Err(ReleaseError::Store(StoreError::corrupt(Stored::BookingClaim, why))),
            OpResult::Claim(_) => Err(ReleaseError::Unavailable("release answered as a claim".into())),
        }
    }

    async fn submit(&self, op: Op) -> Result<OpResult, String> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(Job { op, reply }).await.map_err(|_| "the claim ledger has stopped".to_owned())?;
        answer.await.map_err(|_| "the claim ledger has stopped".to_owned())?
    }
}

async fn run_group_commit(store: Store, mut rx: mpsc::Receiver<Job>, max_batch: usize) {
    let mut jobs: Vec<Job> = Vec::with_capacity(max_batch);
    // The writer keeps one connection: no pool checkout (and its liveness ping)
    // per batch. After a failure it takes a fresh one.
    let mut conn: Option<PoolConnection<Sqlite>> = None;
    loop {
        if rx.recv_many(&mut jobs, max_batch).await == 0 {
            return; // every handle dropped
        }
        let ops: Vec<Op> = jobs.iter().map(|j| j.op.clone()).collect();
        let applied = async {
            let c = match &mut conn {
                Some(c) => c,
                None => conn.insert(store.pool().acquire().await?),
            };
            apply_batch(c, &ops).await
        }
        .await;
        match applied {
            Ok(results) => {
                for (job, result) in jobs.drain(..).zip(results) {
                    let _ = job.reply.send(Ok(result));
                }
            }
            Err(e) => {
                if let Some(mut c) = conn.take() {
                    c.close_on_drop(); // a fresh connection for the next batch
                }
                let message = e.to_string();
                for job in jobs.drain(..) {
                    let _ = job.reply.send(Err(message.clone()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::credentials::{self, remaining, revoke, status, CredentialRecord, RecordError, RevokeOutcome};
    use super::*;
    use crate::kind::RequestKind;
    use schcp::claims::Action;

    #[test]
    fn remaining_is_only_for_a_shared_limit_and_never_negative() {
        assert_eq!(remaining(true, Some(3), 1), Ok(Some(2)));
        assert_eq!(remaining(true, Some(3), 3), Ok(Some(0)));
        assert_eq!(remaining(true, Some(3), 7), Ok(Some(0)));
        assert_eq!(remaining(false, Some(3), 1), Ok(None));
        assert_eq!(remaining(true, None, 0), Ok(None));
        assert_eq!(remaining(true, Some(-1), 0), Err(-1));
    }

    fn record(jti: &str, max: Option<u32>, shared: bool, exp: i64) -> CredentialRecord {
        CredentialRecord {
            jti: jti.into(),
            kind: RequestKind::Mandate,
            agent_jkt: None,
            request_id: None,
            aud: vec!["maple-street-auto".into(), "oak-lane-garage".into()],
            scope: vec![Action::Hold, Action::Book],
            iat: 1_000,
            exp,
            compact: "x.y.z".into(),
            status_url: Some(format!("https://keyapp.example/status/{jti}")),
            max_bookings: max,
            shared_limit: shared,
            booking_id: None,
            host_keys: HostKeys::from([
                ("maple-street-auto".to_owned(), vec![MAPLE_KEY.to_owned()]),
                ("oak-lane-garage".to_owned(), vec![OAK_KEY.to_owned()]),
            ]),
        }
    }

    const MAPLE_KEY: &str = "maple-key-thumbprint";
    const OAK_KEY: &str = "oak-key-thumbprint";

    /// A host's signed claim is released only by that host's signature: an
    /// unsigned release or another host's key is refused and changes nothing;
    /// a claim first taken unsigned becomes the host's once it claims it signed.
    #[tokio::test]
    async fn a_signed_claim_is_released_only_by_its_hosts_signature() {
        let (_d, s) = store().await;
        credentials::record(&s, record("m1", Some(1), true, 10_000)).await.unwrap();
        let id = "maple-street-auto/h_1";
        assert_eq!(
            claim_as(&s, "m1", id, 2_000, Some(MAPLE_KEY)).await.unwrap(),
            ClaimOutcome::Claimed { remaining: 0 }
        );
        let refused = |r: Result<(), ReleaseError>| match r {
            Err(ReleaseError::Refused(x)) => x,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            refused(release(&s, "m1", id).await),
            ClaimRefusal::ClaimSignedByHost { host: "maple-street-auto".into() }
        );
        assert_eq!(
            refused(release_as(&s, "m1", id, Some(OAK_KEY)).await),
            ClaimRefusal::SignedByOtherHost { host: "maple-street-auto".into(), signer: "oak-lane-garage".into() }
        );
        assert_eq!(
            refused(release_as(&s, "m1", id, Some("nobody")).await),
            ClaimRefusal::UnknownHostKey { host: "maple-street-auto".into() }
        );
        assert_eq!(held_claims(&s, "m1").await.unwrap(), [id]);
        // The double booking the unsigned release allowed: now refused.
        assert!(matches!(
            claim(&s, "m1", "oak-lane-garage/h_2", 2_000).await,
            Err(ClaimError::Refused(ClaimRefusal::NoneLeft { max_bookings: 1 }))
        ));
        // A claim signed by another host's key, or by nobody's, takes nothing.
        for key in [OAK_KEY, "nobody"] {
            assert!(matches!(
                claim_as(&s, "m1", "maple-street-auto/h_9", 2_000, Some(key)).await,
                Err(ClaimError::Refused(ClaimRefusal::SignedByOtherHost { .. } | ClaimRefusal::UnknownHostKey { .. }))
            ));
        }
        release_as(&s, "m1", id, Some(MAPLE_KEY)).await.unwrap();
        release_as(&s, "m1", id, Some(MAPLE_KEY)).await.unwrap(); // idempotent
        assert!(held_claims(&s, "m1").await.unwrap().is_empty());
        // Taken unsigned, then claimed again signed: now only its host releases it.
        claim(&s, "m1", id, 2_000).await.unwrap();
        assert_eq!(
            claim_as(&s, "m1", id, 2_000, Some(MAPLE_KEY)).await.unwrap(),
            ClaimOutcome::AlreadyHeld { remaining: 0 }
        );
        assert!(matches!(
            release(&s, "m1", id).await,
            Err(ReleaseError::Refused(ClaimRefusal::ClaimSignedByHost { .. }))
        ));
        // An unsigned claim stays the spec's: released unsigned.
        release_as(&s, "m1", id, Some(MAPLE_KEY)).await.unwrap();
        claim(&s, "m1", "oak-lane-garage/h_3", 2_000).await.unwrap();
        release(&s, "m1", "oak-lane-garage/h_3").await.unwrap();
        assert!(held_claims(&s, "m1").await.unwrap().is_empty());
        let cleared = sqlx::query("UPDATE limit_claims SET signed = 0").execute(s.pool()).await;
        assert!(cleared.is_ok(), "no rows: nothing to refuse");
    }

    /// In one batch, a signed claim released by its host and taken again
    /// unsigned is a new, unsigned claim; the database never clears a mark.
    #[tokio::test]
    async fn a_batch_can_release_a_signed_claim_and_take_it_again_unsigned() {
        let (_d, s) = store().await;
        credentials::record(&s, record("m1", Some(1), true, 10_000)).await.unwrap();
        let id = ClaimId::parse("maple-street-auto/h_1").unwrap();
        claim_as(&s, "m1", id.as_str(), 2_000, Some(MAPLE_KEY)).await.unwrap();
        let mut conn = s.pool().acquire().await.unwrap();
        let ops = [
            Op::Release { jti: "m1".into(), claim_id: id.as_str().into(), signer: Some(MAPLE_KEY.into()) },
            Op::Claim { jti: "m1".into(), claim_id: id.clone(), now: 2_001, signer: None },
        ];
        let got = apply_batch(&mut conn, &ops).await.unwrap();
        assert!(matches!(got[1], OpResult::Claim(Ok(ClaimOutcome::Claimed { remaining: 0 }))), "{got:?}");
        drop(conn);
        release(&s, "m1", id.as_str()).await.unwrap();
        assert!(held_claims(&s, "m1").await.unwrap().is_empty());
        claim_as(&s, "m1", id.as_str(), 2_000, Some(MAPLE_KEY)).await.unwrap();
        let cleared = sqlx::query("UPDATE limit_claims SET signed = 0").execute(s.pool()).await;
        assert!(cleared.is_err(), "a signed mark is never cleared");
    }

    async fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("k.db")).await.unwrap();
        (dir, store)
    }

    #[tokio::test]
    async fn accounting_is_exact() {
        let (_d, s) = store().await;
        credentials::record(&s, record("m1", Some(2), true, 10_000)).await.unwrap();
        assert_eq!(status(&s, "m1", 2_000).await.unwrap().unwrap().remaining, Some(2));
        assert_eq!(
            claim(&s, "m1", "maple-street-auto/h1", 2_000).await.unwrap(),
            ClaimOutcome::Claimed { remaining: 1 }
        );
        assert_eq!(
            claim(&s, "m1", "maple-street-auto/h1", 2_000).await.unwrap(),
            ClaimOutcome::AlreadyHeld { remaining: 1 }
        );
        assert_eq!(claim(&s, "m1", "oak-lane-garage/h1", 2_000).await.unwrap(), ClaimOutcome::Claimed { remaining: 0 });
        assert_eq!(
            claim(&s, "m1", "oak-lane-garage/h1", 2_000).await.unwrap(),
            ClaimOutcome::AlreadyHeld { remaining: 0 }
        );
        assert!(matches!(
            claim(&s, "m1", "oak-lane-garage/h2", 2_000).await,
            Err(ClaimError::Refused(ClaimRefusal::NoneLeft { max_bookings: 2 }))
        ));
        release(&s, "m1", "oak-lane-garage/h9").await.unwrap();
        assert_eq!(status(&s, "m1", 2_000).await.unwrap().unwrap().remaining, Some(0));
        release(&s, "m1", "oak-lane-garage/h1").await.unwrap();
        release(&s, "m1", "oak-lane-garage/h1").await.unwrap();
        assert_eq!(status(&s, "m1", 2_000).await.unwrap().unwrap().remaining, Some(1));
        assert_eq!(held_claims(&s, "m1").await.unwrap(), vec!["maple-street-auto/h1".to_owned()]);
    }

    #[tokio::test]
    async fn refusals_change_nothing() {
        let (_d, s) = store().await;
        credentials::record(&s, record("m1", Some(1), true, 10_000)).await.unwrap();
        credentials::record(&s, record("plain", Some(3), false, 10_000)).await.unwrap();
        let refused = |r: Result<ClaimOutcome, ClaimError>| match r {
            Err(ClaimError::Refused(x)) => x,
            other => panic!("{other:?}"),
        };
        assert_eq!(refused(claim(&s, "nope", "maple-street-auto/h", 2_000).await), ClaimRefusal::UnknownMandate);
        assert_eq!(refused(claim(&s, "plain", "maple-street-auto/h", 2_000).await), ClaimRefusal::NoSharedLimit);
        assert_eq!(
            refused(claim(&s, "m1", "elsewhere/h", 2_000).await),
            ClaimRefusal::HostNotInAudience { host: "elsewhere".into() }
        );
        assert_eq!(refused(claim(&s, "m1", "maple-street-auto/h", 10_000).await), ClaimRefusal::Expired);
        assert!(held_claims(&s, "m1").await.unwrap().is_empty());
        assert_eq!(status(&s, "plain", 2_000).await.unwrap().unwrap().remaining, None);
        assert_eq!(status(&s, "m1", 10_000).await.unwrap().unwrap().status, CredentialStatus::Expired);
        assert_eq!(status(&s, "m1", 9_999).await.unwrap().unwrap().status, CredentialStatus::Active);
    }

    #[tokio::test]
    async fn revocation_refuses_claims_keeps_releases_and_is_recorded() {
        let (_d, s) = store().await;
        credentials::record(&s, record("m1", Some(2), true, 10_000)).await.unwrap();
        claim(&s, "m1", "maple-street-auto/h1", 2_000).await.unwrap();
        assert_eq!(revoke(&s, "m1", 2_100).await.unwrap(), RevokeOutcome::Revoked);
        assert_eq!(revoke(&s, "m1", 2_200).await.unwrap(), RevokeOutcome::AlreadyRevoked);
        assert_eq!(revoke(&s, "zz", 2_200).await.unwrap(), RevokeOutcome::UnknownMandate);
        assert_eq!(status(&s, "m1", 2_100).await.unwrap().unwrap().status, CredentialStatus::Revoked);
        assert!(matches!(
            claim(&s, "m1", "maple-street-auto/h1", 2_100).await,
            Err(ClaimError::Refused(ClaimRefusal::Revoked))
        ));
        release(&s, "m1", "maple-street-auto/h1").await.unwrap();
        assert_eq!(status(&s, "m1", 2_100).await.unwrap().unwrap().remaining, Some(2));
        let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM history WHERE event = 'revoked' AND subject = 'm1'")
            .fetch_one(s.pool())
            .await
            .unwrap();
        assert_eq!(n, 1);
    }

    #[tokio::test]
    async fn the_database_itself_refuses_a_unit_beyond_max_bookings() {
        let (_d, s) = store().await;
        credentials::record(&s, record("m1", Some(1), true, 10_000)).await.unwrap();
        credentials::record(&s, record("plain", Some(1), false, 10_000)).await.unwrap();
        claim(&s, "m1", "maple-street-auto/h1", 2_000).await.unwrap();
        for (jti, id) in [("m1", "maple-street-auto/h2"), ("plain", "maple-street-auto/h1")] {
            let raw = sqlx::query("INSERT INTO limit_claims (jti, claim_id, created_at) VALUES (?, ?, 0)")
                .bind(jti)
                .bind(id)
                .execute(s.pool())
                .await;
            assert!(raw.is_err(), "{jti} {id}");
        }
        // NUL cannot smuggle a prefix match through SQLite's JSON.
        release(&s, "m1", "maple-street-auto/h1\u{0}x").await.unwrap();
        release(&s, "m1\u{0}x", "maple-street-auto/h1").await.unwrap();
        assert!(matches!(
            claim(&s, "m1\u{0}x", "maple-street-auto/h3", 2_000).await,
            Err(ClaimError::Refused(ClaimRefusal::UnknownMandate))
        ));
        assert_eq!(held_claims(&s, "m1").await.unwrap(), ["maple-street-auto/h1"]);
        let (held,): (i64,) =
            sqlx::query_as("SELECT held FROM limit_counts WHERE jti = 'm1'").fetch_one(s.pool()).await.unwrap();
        assert_eq!(held, 1);
        let updated = sqlx::query("UPDATE limit_claims SET claim_id = 'maple-street-auto/x'").execute(s.pool()).await;
        assert!(updated.is_err());
    }

    #[tokio::test]
    async fn a_failed_batch_leaves_nothing_and_the_connection_usable() {
        let (_d, s) = store().await;
        credentials::record(&s, record("m1", Some(5), true, 10_000)).await.unwrap();
        sqlx::query(
            "CREATE TRIGGER boom BEFORE INSERT ON limit_claims WHEN NEW.claim_id = 'oak-lane-garage/boom'
             BEGIN SELECT RAISE(ABORT, 'boom'); END",
        )
        .execute(s.pool())
        .await
        .unwrap();
        let op =
            |id: &str| Op::Claim { jti: "m1".into(), claim_id: ClaimId::parse(id).unwrap(), now: 2_000, signer: None };
        let mut conn = s.pool().acquire().await.unwrap();
        let failed = apply_batch(&mut conn, &[op("maple-street-auto/h1"), op("oak-lane-garage/boom")]).await;
        assert!(failed.is_err());
        assert!(held_claims(&s, "m1").await.unwrap().is_empty());
        // Same connection: no transaction left open.
        let ok = apply_batch(&mut conn, &[op("maple-street-auto/h1")]).await.unwrap();
        assert!(matches!(ok[..], [OpResult::Claim(Ok(ClaimOutcome::Claimed { remaining: 4 }))]));
        drop(conn);
        // The group commit answers every operation of a failed batch, then goes on.
        let gc = GroupCommit::spawn(s.clone(), 64);
        let boom = ClaimId::parse("oak-lane-garage/boom").unwrap();
        assert!(matches!(gc.claim("m1", &boom, 2_000, None).await, Err(ClaimError::Unavailable(_))));
        let fine = ClaimId::parse("oak-lane-garage/fine").unwrap();
        assert_eq!(gc.claim("m1", &fine, 2_000, None).await.unwrap(), ClaimOutcome::Claimed { remaining: 3 });
        assert_eq!(status(&s, "m1", 2_000).await.unwrap().unwrap().remaining, Some(3));
    }

    #[tokio::test]
    async fn an_unreadable_record_fails_its_own_claims_only() {
        let (_d, s) = store().await;
        credentials::record(&s, record("good", Some(2), true, 10_000)).await.unwrap();
        credentials::record(&s, record("bad", Some(2), true, 10_000)).await.unwrap();
        credentials::record(&s, record("nomax", Some(2), true, 10_000)).await.unwrap();
        sqlx::query("UPDATE credentials SET aud = 'not json' WHERE jti = 'bad'").execute(s.pool()).await.unwrap();
        // Written by other code: shared_limit without max_bookings has no count to share.
        sqlx::query("UPDATE credentials SET max_bookings = NULL WHERE jti = 'nomax'").execute(s.pool()).await.unwrap();
        let op = |jti: &str, id: &str| Op::Claim {
            jti: jti.into(),
            claim_id: ClaimId::parse(id).unwrap(),
            now: 2_000,
            signer: None,
        };
        let mut conn = s.pool().acquire().await.unwrap();
        let got = apply_batch(
            &mut conn,
            &[
                op("bad", "maple-street-auto/h1"),
                op("good", "maple-street-auto/h1"),
                op("nomax", "maple-street-auto/h1"),
            ],
        )
        .await
        .unwrap();
        assert!(matches!(got[0], OpResult::ClaimFailed(_)), "{got:?}");
        assert!(matches!(got[1], OpResult::Claim(Ok(ClaimOutcome::Claimed { remaining: 1 }))), "{got:?}");
        assert!(matches!(got[2], OpResult::Claim(Err(ClaimRefusal::NoSharedLimit))), "{got:?}");
        assert_eq!(status(&s, "nomax", 2_000).await.unwrap().unwrap().remaining, None);
        assert!(matches!(
            claim(&s, "bad", "maple-street-auto/h2", 2_000).await,
            Err(ClaimError::Store(StoreError::Corrupt(_)))
        ));
    }

    #[tokio::test]
    async fn records_are_checked() {
        let (_d, s) = store().await;
        assert!(matches!(credentials::record(&s, record("a", None, true, 10)).await, Err(RecordError::Invalid(_))));
        credentials::record(&s, record("a", Some(1), true, 10)).await.unwrap();
        assert!(matches!(
            credentials::record(&s, record("a", Some(1), true, 10)).await,
            Err(RecordError::DuplicateJti(_))
        ));
        let mut no_url = record("b", Some(1), false, 10);
        no_url.status_url = None;
        credentials::record(&s, no_url).await.unwrap();
        assert_eq!(status(&s, "b", 1).await.unwrap(), None);
    }

    #[tokio::test]
    async fn group_commit_keeps_arrival_order_semantics() {
        let (_d, s) = store().await;
        credentials::record(&s, record("m1", Some(1), true, 10_000)).await.unwrap();
        let gc = GroupCommit::spawn(s.clone(), 64);
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..32 {
            let gc = gc.clone();
            tasks.spawn(async move {
                let id = ClaimId::parse(&format!("maple-street-auto/h{}", i % 4)).unwrap();
                let answer = gc.claim("m1", &id, 2_000, None).await;
                (id, answer)
            });
        }
        let answers = tasks.join_all().await;
        let claimed = answers.iter().filter(|(_, a)| matches!(a, Ok(ClaimOutcome::Claimed { .. }))).count();
        assert_eq!(claimed, 1);
        let held = held_claims(&s, "m1").await.unwrap();
        assert_eq!(held.len(), 1);
        for (id, a) in &answers {
            match a {
                Ok(o) => {
                    assert_eq!(id.as_str(), held[0]);
                    assert_eq!(o.remaining(), 0);
                }
                Err(ClaimError::Refused(ClaimRefusal::NoneLeft { .. })) => assert_ne!(id.as_str(), held[0]),
                other => panic!("{other:?}"),
            }
        }
    }

    /// Group commit changes durability, never outcomes: any sequence of claims and
    /// releases, cut into batches anywhere, answers exactly as a model applying
    /// them one at a time.
    mod model {
        use super::*;
        use proptest::prelude::*;
        use std::collections::{BTreeSet, HashMap};

        #[derive(Debug, Clone)]
        enum M {
            Claim(usize, usize),
            Release(usize, usize),
            Cut,
        }

        const LIMITS: [(&str, u32); 2] = [("one", 1), ("two", 2)];
        const IDS: [&str; 4] = ["maple-street-auto/a", "maple-street-auto/b", "oak-lane-garage/a", "oak-lane-garage/b"];

        fn step() -> impl Strategy<Value = M> {
            prop_oneof![
                4 => (0..2usize, 0..4usize).prop_map(|(m, i)| M::Claim(m, i)),
                2 => (0..2usize, 0..4usize).prop_map(|(m, i)| M::Release(m, i)),
                1 => Just(M::Cut),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
            #[test]
            fn batches_answer_like_one_at_a_time(steps in proptest::collection::vec(step(), 1..40)) {
                let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                rt.block_on(async {
                    let (_d, s) = store().await;
                    for (jti, max) in LIMITS {
                        credentials::record(&s, record(jti, Some(max), true, 10_000)).await.unwrap();
                    }
                    let mut model: HashMap<&str, BTreeSet<&str>> = HashMap::new();
                    let mut batch: Vec<Op> = Vec::new();
                    let mut expected: Vec<Option<Result<ClaimOutcome, ClaimRefusal>>> = Vec::new();
                    let flush = |batch: Vec<Op>, expected: Vec<Option<Result<ClaimOutcome, ClaimRefusal>>>| {
                        let s = s.clone();
                        async move {
                            let mut conn = s.pool().acquire().await.unwrap();
                            let got = apply_batch(&mut conn, &batch).await.unwrap();
                            for (g, e) in got.into_iter().zip(expected) {
                                match (g, e) {
                                    (OpResult::Claim(g), Some(e)) => assert_eq!(g, e),
                                    (OpResult::Release(Ok(())), None) => {}
                                    (g, e) => panic!("{g:?} vs {e:?}"),
                                }
                            }
                        }
                    };
                    for st in steps {
                        match st {
                            M::Claim(m, i) => {
                                let (jti, max) = LIMITS[m];
                                let held = model.entry(jti).or_default();
                                let e = if held.contains(IDS[i]) {
                                    Ok(ClaimOutcome::AlreadyHeld { remaining: max - held.len() as u32 })
                                } else if (held.len() as u32) < max {
                                    held.insert(IDS[i]);
                                    Ok(ClaimOutcome::Claimed { remaining: max - held.len() as u32 })
                                } else {
                                    Err(ClaimRefusal::NoneLeft { max_bookings: max })
                                };
                                batch.push(Op::Claim { jti: jti.into(), claim_id: ClaimId::parse(IDS[i]).unwrap(), now: 2_000, signer: None });
                                expected.push(Some(e));
                            }
                            M::Release(m, i) => {
                                model.entry(LIMITS[m].0).or_default().remove(IDS[i]);
                                batch.push(Op::Release { jti: LIMITS[m].0.into(), claim_id: IDS[i].into(), signer: None });
                                expected.push(None);
                            }
                            M::Cut => {
                                flush(std::mem::take(&mut batch), std::mem::take(&mut expected)).await;
                            }
                        }
                    }
                    flush(batch, expected).await;
                    for (jti, max) in LIMITS {
                        let want: Vec<String> = model.get(jti).map(|h| h.iter().map(|s| s.to_string()).collect()).unwrap_or_default();
                        let mut got = held_claims(&s, jti).await.unwrap();
                        got.sort();
                        assert_eq!(got, want);
                        let remaining = status(&s, jti, 2_000).await.unwrap().unwrap().remaining;
                        assert_eq!(remaining, Some(max - want.len() as u32));
                    }
                });
            }
        }
    }
}
