//! A program that hangs up withdraws what it asked the OS to confirm. A
//! control-socket peer that closed its end (a terminal's Ctrl-C, a program
//! that gave up waiting) leaves no prompt on screen that the person's
//! password would still answer for it, and no longer holds the one prompt's
//! turn ([`super::OnePrompt`]).
//!
//! The peer's line travels with the command it runs (a task-local value), so
//! the service's functions, shared by every surface, need not carry it.

use std::future::Future;
use std::sync::Arc;
use tokio::sync::watch;

tokio::task_local! {
    /// The line of the peer whose command is running, where one is.
    static LINE: HangUp;
}

/// One peer's line, hung up once and for good.
#[derive(Clone)]
pub(crate) struct HangUp(Arc<watch::Sender<bool>>);

impl Default for HangUp {
    fn default() -> HangUp {
        HangUp(Arc::new(watch::Sender::new(false)))
    }
}

impl HangUp {
    /// The peer has hung up: a verification it asked for is withdrawn.
    pub(crate) fn hang_up(&self) {
        self.0.send_replace(true);
    }

    /// Runs `f` as this peer's command: an approval it asks the OS for is
    /// withdrawn when the peer hangs up.
    pub(crate) async fn carry<F: Future>(&self, f: F) -> F::Output {
        LINE.scope(self.clone(), f).await
    }

    /// The line of the peer whose command is running now, if any.
    pub(super) fn current() -> Option<HangUp> {
        LINE.try_with(Clone::clone).ok()
    }

    /// Whether the peer has hung up already.
    pub(super) fn is_down(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once the peer has hung up.
    pub(super) async fn hung_up(&self) {
        super::until_set(&self.0).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_command_knows_its_peers_line_and_nothing_else_does() {
        assert!(HangUp::current().is_none());
        let line = HangUp::default();
        let seen = line.carry(async { HangUp::current() }).await.expect("carried");
        line.hang_up();
        // The same line: its hang-up is seen, also by a wait begun after it.
        tokio::time::timeout(std::time::Duration::from_secs(30), seen.hung_up()).await.expect("hung up");
        assert!(HangUp::current().is_none());
    }
}
