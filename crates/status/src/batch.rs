//! Claims batched per process (docs/hosted-status.md "Batched claims").
//!
//! A credential's claims are serialised by its row lock, which PostgreSQL
//! holds until the commit is flushed: one transaction per claim caps a
//! credential at one claim per WAL flush, and every transaction costs a commit
//! of its own. [`ClaimBatches`] sends every claim the process has waiting, over
//! any number of credentials, as one call of `schcp_claim_batch` (one
//! transaction, one flush), at most one batch per credential at a time:
//! claims that arrive while their credential's batch is committing join the
//! next one. Each claim is answered exactly as it would have been alone, in
//! arrival order (§3.3), and only after the commit; if the transaction fails,
//! every claim in it is answered with an error and none was taken. Across
//! processes the limit stays exact: their batches take turns at the
//! credential's row lock (migration 0004).

use crate::store::{self, ClaimError, QueuedClaim};
use sqlx::PgPool;
use status_edge::ClaimOutcome;
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// The most claims one transaction carries: a bound on one statement's size
/// and on how long its row locks are held.
pub const MAX_BATCH: usize = 512;

/// Experiment: whether a credential waits for its batch before the next.
const ONE_PER_CREDENTIAL: bool = false;

/// Claims queued but not yet sent, at most: beyond it a claim waits to be
/// queued (the edge bounds connections, so this is only a backstop).
const QUEUE: usize = 8192;

struct Job {
    claim: QueuedClaim,
    reply: oneshot::Sender<Result<ClaimOutcome, ClaimError>>,
}

/// A credential: (namespace, jti).
type Credential = (String, String);

fn credential(c: &QueuedClaim) -> Credential {
    (c.thumb.clone(), c.jti.clone())
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

/// The batcher: gathers claims, sends a batch whenever fewer than `in_flight`
/// are running and a credential with claims waiting has none running.
async fn run(pool: PgPool, mut rx: mpsc::Receiver<Job>, in_flight: usize, waiting: Arc<AtomicUsize>) {
    let mut pending: Vec<Job> = Vec::new();
    let mut busy: HashSet<Credential> = HashSet::new();
    let none = HashSet::new();
    let mut running = 0usize;
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<HashSet<Credential>>();
    let mut open = true;
    let mut arrived = Vec::new();
    loop {
        while running < in_flight {
            let (batch, credentials) = take_batch(&mut pending, if ONE_PER_CREDENTIAL { &busy } else { &none });
            if batch.is_empty() {
                break;
            }
            waiting.fetch_sub(batch.len(), Ordering::Relaxed);
            busy.extend(credentials.iter().cloned());
            running += 1;
            tokio::spawn(execute(pool.clone(), batch, credentials, done_tx.clone()));
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
            Some(done) = done_rx.recv() => {
                running -= 1;
                busy.retain(|c| !done.contains(c));
            }
        }
    }
}

/// Takes from `pending`, in arrival order, every claim whose credential has
/// no batch running, up to [`MAX_BATCH`]; the rest stay, in order.
fn take_batch(pending: &mut Vec<Job>, busy: &HashSet<Credential>) -> (Vec<Job>, HashSet<Credential>) {
    let mut batch = Vec::new();
    let mut credentials = HashSet::new();
    let mut kept = Vec::with_capacity(pending.len());
    // A credential whose earlier claim stays behind keeps its later ones
    // behind too: each credential's claims are decided in arrival order.
    let mut held_back = HashSet::new();
    for job in pending.drain(..) {
        let c = credential(&job.claim);
        if !busy.contains(&c) && !held_back.contains(&c) && batch.len() < MAX_BATCH {
            credentials.insert(c);
            batch.push(job);
        } else {
            held_back.insert(c);
            kept.push(job);
        }
    }
    *pending = kept;
    (batch, credentials)
}

/// Runs one batch, frees its credentials for the next, and answers its claims.
async fn execute(
    pool: PgPool,
    batch: Vec<Job>,
    credentials: HashSet<Credential>,
    done: mpsc::UnboundedSender<HashSet<Credential>>,
) {
    let (claims, replies): (Vec<QueuedClaim>, Vec<_>) = batch.into_iter().map(|j| (j.claim, j.reply)).unzip();
    let result = store::claim_batch(&pool, &claims).await;
    let _ = done.send(credentials);
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
