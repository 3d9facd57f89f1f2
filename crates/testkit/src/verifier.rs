//! A fake user verifier standing in for the OS (crates/keyapp/tests/polkit.rs
//! asks a real polkit): it answers what the test says and keeps what it was
//! asked, so a test can check that every yes went through it.

use keyapp::user_verification::{Approval, UserVerifier, Verdict, VerdictFuture};
use std::sync::{Arc, Mutex};

/// Answers the verdict it was last given.
pub struct Scripted {
    verdict: Mutex<Verdict>,
    asked: Mutex<Vec<Approval>>,
}

impl Scripted {
    /// A verifier answering `verdict` until told otherwise.
    pub fn new(verdict: Verdict) -> Arc<Scripted> {
        Arc::new(Scripted { verdict: Mutex::new(verdict), asked: Mutex::new(Vec::new()) })
    }

    /// Answers `verdict` from now on.
    pub fn answer(&self, verdict: Verdict) {
        *self.verdict.lock().unwrap() = verdict;
    }

    /// Every approval it was asked about, in order.
    pub fn asked(&self) -> Vec<Approval> {
        self.asked.lock().unwrap().clone()
    }
}

impl UserVerifier for Scripted {
    fn verify<'a>(&'a self, approval: &'a Approval) -> VerdictFuture<'a> {
        self.asked.lock().unwrap().push(approval.clone());
        let verdict = self.verdict.lock().unwrap().clone();
        Box::pin(async move { verdict })
    }
}
