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

use super::credentials::shared_max;
use super::{Store, StoreError};
use sqlx::pool::PoolConnection;
use sqlx::{Sqlite, SqliteConnection};
pub use status_edge::claims::{ClaimId, ClaimOutcome, ClaimRefusal};
use status_edge::CredentialStatus;
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
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("claim ledger unavailable: {0}")]
    Unavailable(String),
}

/// Claims one unit of `jti`'s shared limit for `claim_id`. One transaction.
pub async fn claim(store: &Store, jti: &str, claim_id: &str, now: i64) -> Result<ClaimOutcome, ClaimError> {
    let claim_id = ClaimId::parse(claim_id)?;
    let op = Op::Claim { jti: jti.to_owned(), claim_id, now };
    let mut conn = store.pool().acquire().await.map_err(StoreError::from)?;
    let applied = apply_batch(&mut conn, std::slice::from_ref(&op)).await;
    if applied.is_err() {
        conn.close_on_drop(); // never hand a connection in an unknown state back
    }
    match applied?.pop() {
        Some(OpResult::Claim(r)) => Ok(r?),
        Some(OpResult::ClaimFailed(why)) => Err(ClaimError::Store(StoreError::Corrupt(why))),
        _ => Err(ClaimError::Store(StoreError::Corrupt("claim batch answered out of shape".into()))),
    }
}

/// Gives back the unit `claim_id` holds, if it holds one; otherwise changes
/// nothing. Taken whatever the mandate's status. One transaction.
pub async fn release(store: &Store, jti: &str, claim_id: &str) -> Result<(), StoreError> {
    let op = Op::Release { jti: jti.to_owned(), claim_id: claim_id.to_owned() };
    let mut conn = store.pool().acquire().await?;
    let applied = apply_batch(&mut conn, std::slice::from_ref(&op)).await;
    if applied.is_err() {
        conn.close_on_drop(); // never hand a connection in an unknown state back
    }
    applied?;
    Ok(())
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

#[derive(Debug, Clone)]
enum Op {
    Claim { jti: String, claim_id: ClaimId, now: i64 },
    Release { jti: String, claim_id: String },
}

#[derive(Debug)]
enum OpResult {
    Claim(Result<ClaimOutcome, ClaimRefusal>),
    /// The claim's mandate record is unreadable; only this claim fails (500),
    /// never the others committed with it.
    ClaimFailed(String),
    Release,
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
}

/// A jti or claim id that could be stored: 1 to 511 characters (a `ClaimId` is
/// at most 255 + 1 + 255), no control characters. Anything else names nothing here, so it is refused (claims) or
/// changes nothing (releases) without reaching SQL. It also keeps NUL out of
/// the JSON the batch statements take (SQLite's `->>` stops at a NUL).
fn storable(s: &str) -> bool {
    !s.is_empty() && s.chars().count() <= 511 && !s.chars().any(char::is_control)
}

fn json_param<T: serde::Serialize>(v: &T) -> Result<String, StoreError> {
    serde_json::to_string(v).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// A batch's first round trip: take the write lock, then read the mandates
/// named by `?1` that have a status URL, with their held count (rows tagged 0),
/// and which (jti, claim id) pairs of `?2` hold a unit now (rows tagged 1).
/// `BEGIN IMMEDIATE` comes first so nothing is read before the lock is held:
/// two writers can never both see the last unit free.
const LOAD: &str = "BEGIN IMMEDIATE;
    SELECT 0, c.jti, c.aud, c.exp, c.revoked_at IS NOT NULL, c.shared_limit, c.max_bookings,
           coalesce(n.held, 0), NULL
    FROM credentials c LEFT JOIN limit_counts n ON n.jti = c.jti
    WHERE c.jti IN (SELECT value FROM json_each(?1)) AND c.status_url IS NOT NULL
    UNION ALL
    SELECT 1, jti, NULL, NULL, NULL, NULL, NULL, NULL, claim_id FROM limit_claims
    WHERE (jti, claim_id) IN (SELECT value->>0, value->>1 FROM json_each(?2));";

/// A batch's second round trip: the pairs given back (`?1`), the pairs taken
/// (`?2`, with their time), and the commit, which `synchronous = FULL` makes
/// durable before it returns. A plain INSERT: a row already there would be a
/// bug, and fails the whole transaction rather than being papered over; the
/// database also refuses a row beyond max_bookings (migration 0002).
const WRITE: &str = "
    DELETE FROM limit_claims WHERE (jti, claim_id) IN (SELECT value->>0, value->>1 FROM json_each(?1));
    INSERT INTO limit_claims (jti, claim_id, created_at) SELECT value->>0, value->>1, value->>2 FROM json_each(?2);
    COMMIT;";

type LoadRow =
    (i64, String, Option<String>, Option<i64>, Option<bool>, Option<bool>, Option<i64>, Option<i64>, Option<String>);

/// A mandate's record as a batch can use it, or why it cannot (`Err`): one
/// unreadable record fails the claims on that mandate only.
type LimitEntry = Result<Limit, String>;

/// (jti, claim id) pairs that hold a unit.
type HeldSet = HashSet<(String, String)>;

fn parse_load(rows: Vec<LoadRow>) -> Result<(HashMap<String, LimitEntry>, HeldSet), StoreError> {
    let mut limits = HashMap::new();
    let mut held = HashSet::new();
    for row in rows {
        match row {
            (0, jti, Some(aud), Some(exp), Some(revoked), Some(shared_limit), max_bookings, Some(count), None) => {
                let entry = limit_entry(&jti, &aud, exp, revoked, shared_limit, max_bookings, count);
                limits.insert(jti, entry);
            }
            (1, jti, .., Some(claim_id)) => {
                held.insert((jti, claim_id));
            }
            other => return Err(StoreError::Corrupt(format!("unexpected limit row {other:?}"))),
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
    Ok(Limit { aud, exp, revoked, max, held })
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
    held: &mut HashSet<(String, String)>,
    jti: &str,
    claim_id: &ClaimId,
    now: i64,
) -> Result<ClaimOutcome, ClaimRefusal> {
    let max = limit.max.ok_or(ClaimRefusal::NoSharedLimit)?;
    if !in_audience(&limit.aud, claim_id.host()) {
        return Err(ClaimRefusal::HostNotInAudience { host: claim_id.host().to_owned() });
    }
    match CredentialStatus::of(limit.revoked, limit.exp, now) {
        CredentialStatus::Active => {}
        CredentialStatus::Revoked => return Err(ClaimRefusal::Revoked),
        CredentialStatus::Expired => return Err(ClaimRefusal::Expired),
    }
    let key = (jti.to_owned(), claim_id.as_str().to_owned());
    if held.contains(&key) {
        // A confirm retried under another idempotency key: nothing spent (§3.3).
        return Ok(ClaimOutcome::AlreadyHeld { remaining: max.saturating_sub(limit.held) });
    }
    if limit.held >= max {
        return Err(ClaimRefusal::NoneLeft { max_bookings: max });
    }
    held.insert(key);
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
                Op::Release { jti, claim_id } => (jti.as_str(), claim_id.as_str(), false),
            };
            if !storable(jti) || !storable(claim_id) {
                continue; // names nothing stored; decided below without SQL
            }
            if is_claim && seen_jti.insert(jti) {
                claim_jtis.push(jti);
            }
            if seen_pair.insert((jti, claim_id)) {
                pairs.push((jti, claim_id));
            }
        }
    }
    if pairs.is_empty() {
        return Ok(decide(ops, &mut HashMap::new(), &mut HashSet::new(), &mut HashMap::new()));
    }
    let result = async {
        let rows: Vec<LoadRow> =
            sqlx::query_as(LOAD).bind(json_param(&claim_jtis)?).bind(json_param(&pairs)?).fetch_all(&mut *conn).await?;
        let (mut limits, before) = parse_load(rows)?;
        let mut held = before.clone();
        let mut claimed_at = HashMap::new();
        let results = decide(ops, &mut limits, &mut held, &mut claimed_at);
        let gone: Vec<(&str, &str)> = before.difference(&held).map(|(j, c)| (j.as_str(), c.as_str())).collect();
        let new: Vec<(&str, &str, i64)> = held
            .difference(&before)
            .map(|k| (k.0.as_str(), k.1.as_str(), claimed_at.get(k).copied().unwrap_or_default()))
            .collect();
        sqlx::query(WRITE).bind(json_param(&gone)?).bind(json_param(&new)?).execute(&mut *conn).await?;
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

/// Decides `ops` in order against the batch's view (`held` pairs and
/// per-mandate counts), updating it; `claimed_at` gets the time of each unit
/// taken.
fn decide(
    ops: &[Op],
    limits: &mut HashMap<String, LimitEntry>,
    held: &mut HashSet<(String, String)>,
    claimed_at: &mut HashMap<(String, String), i64>,
) -> Vec<OpResult> {
    let mut results = Vec::with_capacity(ops.len());
    for op in ops {
        results.push(match op {
            Op::Claim { jti, claim_id, now } => {
                // A jti that is not storable was never loaded: unknown too.
                let outcome = match limits.get_mut(jti.as_str()) {
                    None => Err(ClaimRefusal::UnknownMandate),
                    Some(Err(why)) => {
                        results.push(OpResult::ClaimFailed(why.clone()));
                        continue;
                    }
                    Some(Ok(limit)) => decide_claim(limit, held, jti, claim_id, *now),
                };
                if let Ok(ClaimOutcome::Claimed { .. }) = outcome {
                    claimed_at.insert((jti.clone(), claim_id.as_str().to_owned()), *now);
                }
                OpResult::Claim(outcome)
            }
            Op::Release { jti, claim_id } => {
                // Taken whatever the mandate's status: a release only gives back.
                if held.remove(&(jti.clone(), claim_id.clone())) {
                    if let Some(Ok(limit)) = limits.get_mut(jti.as_str()) {
                        limit.held -= 1;
                    }
                }
                OpResult::Release
            }
        });
    }
    results
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

    pub async fn claim(&self, jti: &str, claim_id: &ClaimId, now: i64) -> Result<ClaimOutcome, ClaimError> {
        let op = Op::Claim { jti: jti.to_owned(), claim_id: claim_id.clone(), now };
        match self.submit(op).await.map_err(ClaimError::Unavailable)? {
            OpResult::Claim(r) => Ok(r?),
            OpResult::ClaimFailed(why) => Err(ClaimError::Store(StoreError::Corrupt(why))),
            OpResult::Release => Err(ClaimError::Unavailable("claim answered as a release".into())),
        }
    }

    pub async fn release(&self, jti: &str, claim_id: &str) -> Result<(), ReleaseError> {
        let op = Op::Release { jti: jti.to_owned(), claim_id: claim_id.to_owned() };
        self.submit(op).await.map_err(ReleaseError::Unavailable)?;
        Ok(())
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
        }
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
        let op = |id: &str| Op::Claim { jti: "m1".into(), claim_id: ClaimId::parse(id).unwrap(), now: 2_000 };
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
        assert!(matches!(gc.claim("m1", &boom, 2_000).await, Err(ClaimError::Unavailable(_))));
        let fine = ClaimId::parse("oak-lane-garage/fine").unwrap();
        assert_eq!(gc.claim("m1", &fine, 2_000).await.unwrap(), ClaimOutcome::Claimed { remaining: 3 });
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
        let op = |jti: &str, id: &str| Op::Claim { jti: jti.into(), claim_id: ClaimId::parse(id).unwrap(), now: 2_000 };
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
                let answer = gc.claim("m1", &id, 2_000).await;
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
                                    (OpResult::Release, None) => {}
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
                                batch.push(Op::Claim { jti: jti.into(), claim_id: ClaimId::parse(IDS[i]).unwrap(), now: 2_000 });
                                expected.push(Some(e));
                            }
                            M::Release(m, i) => {
                                model.entry(LIMITS[m].0).or_default().remove(IDS[i]);
                                batch.push(Op::Release { jti: LIMITS[m].0.into(), claim_id: IDS[i].into() });
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
