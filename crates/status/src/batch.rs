//! Claims batched per process (docs/hosted-status.md "Batched claims").
//!
//! A credential's claims are serialised by its row lock, which PostgreSQL
//! holds until the commit is flushed: one transaction per claim caps a
//! credential at one claim per WAL flush, and every transaction costs a commit
//! of its own. [`ClaimBatches`] sends every claim the process has waiting, over
//! any number of credentials, as one call of `schcp_claim_batch` (one
//! transaction, one flush), with at most `claim_batches` batches in flight:
//! claims that arrive while the batches are committing join the next one.
//! Each claim is answered exactly as it would have been alone, in arrival
//! order (§3.3), and only after the commit; if the transaction fails, none
//! was taken, and when an input failed it, each claim goes again alone, so a
//! claim that fails a batch fails only itself. Across
//! processes the limit stays exact: their batches take turns at the
//! credential's row lock (migration 0004).
//!
//! Each batch slot keeps a connection of its own, opened with the pool's
//! settings but outside it: a pooled connection costs a round trip to
//! PostgreSQL each time it goes back (sqlx checks it), once per batch
//! (docs/benchmarks.md "Hosted status service"). A kept connection idle for
//! [`store::PING_IDLE_AFTER`] is checked first (the pool checks each of its own);
//! a slot whose batch failed drops its connection and opens a fresh one for
//! the next batch. [`ClaimBatches::connections`] counts them for the metrics.

use crate::store::{self, ClaimError, QueuedClaim};
use sqlx::{PgConnection, PgPool};
use status_edge::ClaimOutcome;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

/// The most claims one transaction carries: a bound on one statement's size
/// and on how long its row locks are held.
pub const MAX_BATCH: usize = 512;

/// Claims queued but not yet sent, at most: beyond it a claim waits to be
/// queued (the edge bounds connections, so this is only a backstop).
const QUEUE: usize = 8192;

struct Job {
    claim: QueuedClaim,
    reply: oneshot::Sender<Result<ClaimOutcome, ClaimError>>,
}

/// A handle to this process's claim batcher. Cheap to clone; the batcher
/// stops when every handle is dropped, after answering what it holds.
#[derive(Debug, Clone)]
pub struct ClaimBatches {
    tx: mpsc::Sender<Job>,
    waiting: Arc<AtomicUsize>,
    connections: Arc<AtomicUsize>,
}

impl ClaimBatches {
    /// Starts the batcher on the current Tokio runtime, with at most
    /// `in_flight` transactions at once (at least 1), each on a connection
    /// of `pool`, sending each batch as soon as a slot is free.
    pub fn spawn(pool: PgPool, in_flight: usize) -> ClaimBatches {
        ClaimBatches::spawn_gathering(pool, in_flight, Duration::ZERO)
    }

    /// The same, but while another batch is in flight a claim may wait up to
    /// `gather` for others to join its batch (see [`run`]).
    pub fn spawn_gathering(pool: PgPool, in_flight: usize, gather: Duration) -> ClaimBatches {
        let (tx, rx) = mpsc::channel(QUEUE);
        let waiting = Arc::new(AtomicUsize::new(0));
        let connections = Arc::new(AtomicUsize::new(0));
        let slots = Slots { in_flight: in_flight.max(1), gather, connections: connections.clone() };
        tokio::spawn(run(pool, rx, slots, waiting.clone()));
        ClaimBatches { tx, waiting, connections }
    }

    /// Claims one unit, answered after the batch that carried it committed.
    /// A caller that stops waiting does not withdraw its claim.
    pub async fn claim(&self, claim: QueuedClaim) -> Result<ClaimOutcome, ClaimError> {
        let stopped = || ClaimError::BatchFailed("the claim batcher has stopped".into());
        let (reply, answer) = oneshot::channel();
        self.waiting.fetch_add(1, Ordering::Relaxed);
        if self.tx.send(Job { claim, reply }).await.is_err() {
            self.waiting.fetch_sub(1, Ordering::Relaxed);
            return Err(stopped());
        }
        answer.await.map_err(|_| stopped())?
    }

    /// Claims queued and not yet sent to the database.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    /// Database connections the batch slots hold open, beside the pool's.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::Relaxed)
    }
}

/// How the batcher sends: at most `in_flight` batches at once, and how long a
/// claim may wait for company while another batch is in flight.
#[derive(Debug, Clone)]
struct Slots {
    in_flight: usize,
    gather: Duration,
    /// The slots' open connections.
    connections: Arc<AtomicUsize>,
}

/// The batcher: gathers claims, and sends the waiting claims (up to
/// [`MAX_BATCH`], in arrival order) as one batch when fewer than `in_flight`
/// batches are running. With none running the batch leaves at once: an idle
/// service adds no wait. With one running, the batch leaves when it is full,
/// when its oldest claim has waited `gather`, or when the running batches
/// are done, whichever comes first. A batch that leaves at the first claim
/// carries one claim and still costs a whole commit, during which it holds its
/// credentials' row locks; with hot credentials those commits follow each other
/// one at a time, so claims that share one go further (docs/benchmarks.md).
/// A batch that names a credential an earlier batch holds waits at its row
/// lock in the database and takes it the moment that batch commits, so the
/// credential's flushes follow each other without a round trip between them.
async fn run(pool: PgPool, mut rx: mpsc::Receiver<Job>, slots: Slots, waiting: Arc<AtomicUsize>) {
    let mut pending: Vec<Job> = Vec::new();
    // When the oldest pending claim arrived.
    let mut oldest: Option<Instant> = None;
    let mut running = 0usize;
    // The connections of the slots not running, kept for the next batches.
    let mut kept: Vec<Kept> = Vec::new();
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<Option<Kept>>();
    let mut open = true;
    let mut arrived = Vec::new();
    loop {
        let mut gather_until = None;
        while running < slots.in_flight && !pending.is_empty() {
            let due = oldest.map(|t| t + slots.gather);
            if running > 0 && pending.len() < MAX_BATCH && open && due.is_some_and(|d| Instant::now() < d) {
                gather_until = due;
                break;
            }
            let batch: Vec<Job> = pending.drain(..pending.len().min(MAX_BATCH)).collect();
            oldest = (!pending.is_empty()).then(Instant::now);
            waiting.fetch_sub(batch.len(), Ordering::Relaxed);
            running += 1;
            tokio::spawn(execute(pool.clone(), slots.connections.clone(), kept.pop(), batch, done_tx.clone()));
        }
        if !open && pending.is_empty() && running == 0 {
            for k in kept {
                k.conn.close().await;
            }
            return;
        }
        let gathered = async {
            match gather_until {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            n = rx.recv_many(&mut arrived, MAX_BATCH), if open => {
                if n == 0 {
                    open = false;
                }
                if pending.is_empty() && !arrived.is_empty() {
                    oldest = Some(Instant::now());
                }
                pending.append(&mut arrived);
            }
            Some(conn) = done_rx.recv() => {
                running -= 1;
                kept.extend(conn);
            }
            () = gathered => {}
        }
    }
}

/// A slot's connection, counted while it is open.
struct SlotConnection {
    conn: Option<PgConnection>,
    open: Arc<AtomicUsize>,
}

impl SlotConnection {
    /// Opens one with the pool's settings.
    async fn open(pool: &PgPool, open: Arc<AtomicUsize>) -> Result<SlotConnection, store::DbError> {
        let conn = sqlx::ConnectOptions::connect(&*pool.connect_options()).await?;
        open.fetch_add(1, Ordering::Relaxed);
        Ok(SlotConnection { conn: Some(conn), open })
    }

    fn get(&mut self) -> &mut PgConnection {
        self.conn.as_mut().expect("present until dropped or closed")
    }

    /// Ends it with a goodbye to the server, rather than a dropped socket.
    async fn close(mut self) {
        if let Some(conn) = self.conn.take() {
            let _ = sqlx::Connection::close(conn).await;
        }
    }
}

impl Drop for SlotConnection {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A slot's connection between its batches.
struct Kept {
    conn: SlotConnection,
    since: Instant,
}

/// The slot's connection for its next batch: the kept one, checked first if
/// it sat idle long enough to have been dropped by the server; else a new one.
async fn connection(
    pool: &PgPool,
    open: Arc<AtomicUsize>,
    kept: Option<Kept>,
) -> Result<SlotConnection, store::DbError> {
    if let Some(mut k) = kept {
        if !store::ping_before_use(k.since.elapsed()) || sqlx::Connection::ping(k.conn.get()).await.is_ok() {
            return Ok(k.conn);
        }
    }
    SlotConnection::open(pool, open).await
}

/// Runs one batch on the slot's connection, makes room for the next, giving
/// the connection back if the batch went through, and answers its claims.
async fn execute(
    pool: PgPool,
    open: Arc<AtomicUsize>,
    kept: Option<Kept>,
    batch: Vec<Job>,
    done: mpsc::UnboundedSender<Option<Kept>>,
) {
    let (claims, replies): (Vec<QueuedClaim>, Vec<_>) = batch.into_iter().map(|j| (j.claim, j.reply)).unzip();
    let (result, kept) = match connection(&pool, open, kept).await {
        Ok(mut conn) => {
            let result = store::claim_batch(conn.get(), &claims).await;
            let kept = result.is_ok().then(|| Kept { conn, since: Instant::now() });
            (result, kept)
        }
        Err(e) => (Err(e), None),
    };
    match result {
        Ok(outcomes) => {
            let _ = done.send(kept);
            for (reply, outcome) in replies.into_iter().zip(outcomes) {
                let _ = reply.send(outcome);
            }
        }
        // One claim can fail the statement of a whole batch with an input
        // PostgreSQL refuses, and claims of every namespace share a batch. Its
        // transaction rolled back, so nothing was taken: each claim goes again
        // alone, in arrival order, and only one that fails alone is answered
        // with an error. The slot stays taken meanwhile, so the retries count
        // against `claim_batches`. A failure of the connection, a timeout or a
        // deadlock is no claim's doing (and a commit cut short may have
        // landed): those claims are answered with the error, for the hosts to
        // retry.
        Err(e) if claims.len() > 1 && e.from_input() => {
            tracing::warn!(error = %e, claims = claims.len(), "a batch of claims failed; each goes again alone");
            for (claim, reply) in claims.iter().zip(replies) {
                let _ = reply.send(alone(&pool, claim).await);
            }
            let _ = done.send(None);
        }
        Err(e) => {
            let _ = done.send(kept);
            tracing::warn!(error = %e, claims = claims.len(), "a batch of claims failed; none was taken");
            for reply in replies {
                let _ = reply.send(Err(ClaimError::BatchFailed(e.to_string())));
            }
        }
    }
}

/// One claim in a batch of its own, on a connection of the pool.
async fn alone(pool: &PgPool, claim: &QueuedClaim) -> Result<ClaimOutcome, ClaimError> {
    match store::claim_batch(pool, std::slice::from_ref(claim)).await {
        Ok(mut outcomes) => outcomes.pop().unwrap_or_else(|| Err(ClaimError::BatchFailed("no answer".into()))),
        Err(e) => Err(ClaimError::BatchFailed(e.to_string())),
    }
}
