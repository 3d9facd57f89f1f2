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
//! order (§3.3), and only after the commit; if the transaction fails,
//! every claim in it is answered with an error and none was taken. Across
//! processes the limit stays exact: their batches take turns at the
//! credential's row lock (migration 0004).

use crate::store::{self, ClaimError, QueuedClaim};
use sqlx::PgPool;
use status_edge::ClaimOutcome;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

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
}

impl ClaimBatches {
    /// Starts the batcher on the current Tokio runtime, with at most
    /// `in_flight` transactions at once (at least 1), each on a connection
    /// of `pool`.
    pub fn spawn(pool: PgPool, in_flight: usize) -> ClaimBatches {
        let (tx, rx) = mpsc::channel(QUEUE);
        let waiting = Arc::new(AtomicUsize::new(0));
        tokio::spawn(run(pool, rx, in_flight.max(1), waiting.clone()));
        ClaimBatches { tx, waiting }
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
}

/// The batcher: gathers claims, and sends every waiting claim (up to
/// [`MAX_BATCH`], in arrival order) as one batch whenever fewer than
/// `in_flight` batches are running. A batch that names a credential an
/// earlier batch holds waits at its row lock in the database and takes it the
/// moment that batch commits, so the credential's flushes follow each other
/// without a round trip between them.
async fn run(pool: PgPool, mut rx: mpsc::Receiver<Job>, in_flight: usize, waiting: Arc<AtomicUsize>) {
    let mut pending: Vec<Job> = Vec::new();
    let mut running = 0usize;
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<()>();
    let mut open = true;
    let mut arrived = Vec::new();
    loop {
        while running < in_flight && !pending.is_empty() {
            let batch: Vec<Job> = pending.drain(..pending.len().min(MAX_BATCH)).collect();
            waiting.fetch_sub(batch.len(), Ordering::Relaxed);
            running += 1;
            tokio::spawn(execute(pool.clone(), batch, done_tx.clone()));
        }
        if !open && pending.is_empty() && running == 0 {
            return;
        }
        tokio::select! {
            n = rx.recv_many(&mut arrived, MAX_BATCH), if open => {
                if n == 0 {
                    open = false;
                }
                pending.append(&mut arrived);
            }
            Some(()) = done_rx.recv() => running -= 1,
        }
    }
}

/// Runs one batch, makes room for the next, and answers its claims.
async fn execute(pool: PgPool, batch: Vec<Job>, done: mpsc::UnboundedSender<()>) {
    let (claims, replies): (Vec<QueuedClaim>, Vec<_>) = batch.into_iter().map(|j| (j.claim, j.reply)).unzip();
    let result = store::claim_batch(&pool, &claims).await;
    let _ = done.send(());
    match result {
        Ok(outcomes) => {
            for (reply, outcome) in replies.into_iter().zip(outcomes) {
                let _ = reply.send(outcome);
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, claims = claims.len(), "a batch of claims failed; none was taken");
            let message = e.to_string();
            for reply in replies {
                let _ = reply.send(Err(ClaimError::BatchFailed(message.clone())));
            }
        }
    }
}
