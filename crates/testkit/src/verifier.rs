//! A fake user verifier standing in for the OS (crates/keyapp/tests/polkit.rs
//! asks a real polkit): it answers what the test says and keeps what it was
//! asked, so a test can check that every yes went through it. Held, it keeps
//! each prompt "on screen" until the test lets it go.

use keyapp::user_verification::{Approval, UserVerifier, Verdict, VerdictFuture};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{Notify, Semaphore};

/// Answers the verdict it was last given.
pub struct Scripted {
    verdict: Mutex<Verdict>,
    asked: Mutex<Vec<Approval>>,
    /// Asked once more.
    asked_again: Notify,
    held: AtomicBool,
    let_go: Semaphore,
}

impl Scripted {
    /// A verifier answering `verdict` until told otherwise.
    pub fn new(verdict: Verdict) -> Arc<Scripted> {
        Arc::new(Scripted {
            verdict: Mutex::new(verdict),
            asked: Mutex::new(Vec::new()),
            asked_again: Notify::new(),
            held: AtomicBool::new(false),
            let_go: Semaphore::new(0),
        })
    }

    /// Answers `verdict` from now on.
    pub fn answer(&self, verdict: Verdict) {
        *self.verdict.lock().unwrap() = verdict;
    }

    /// Every approval it was asked about, in order.
    pub fn asked(&self) -> Vec<Approval> {
        self.asked.lock().unwrap().clone()
    }

    /// From now on each prompt stays on screen until [`Scripted::let_go`],
    /// then answers the verdict given by then.
    pub fn hold(&self) {
        self.held.store(true, Ordering::SeqCst);
    }

    /// Answers one prompt held on screen (or the next one asked).
    pub fn let_go(&self) {
        self.let_go.add_permits(1);
    }

    /// Waits until it has been asked `n` times in all.
    pub async fn asked_times(&self, n: usize) {
        loop {
            let again = self.asked_again.notified();
            if self.asked.lock().unwrap().len() >= n {
                return;
            }
            again.await;
        }
    }
}

impl UserVerifier for Scripted {
    fn verify<'a>(&'a self, approval: &'a Approval) -> VerdictFuture<'a> {
        self.asked.lock().unwrap().push(approval.clone());
        self.asked_again.notify_waiters();
        let held = self.held.load(Ordering::SeqCst);
        Box::pin(async move {
            if held {
                self.let_go.acquire().await.expect("never closed").forget();
            }
            self.verdict.lock().unwrap().clone()
        })
    }
}
