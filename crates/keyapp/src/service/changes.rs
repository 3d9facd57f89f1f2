//! The change counter the surfaces wait on: every state change bumps it, so
//! a long poll (the agent API's, the window's) wakes when something it shows
//! may have changed, and learns of a change made between two waits too.

use super::Service;

/// What the surfaces wait on: `Service::changes`.
#[derive(Clone, Copy)]
pub struct Changes<'a> {
    pub(super) svc: &'a Service,
}

impl Changes<'_> {
    /// Waits until something changes or `timeout` passes.
    pub async fn wait_for_change(self, timeout: std::time::Duration) {
        let mut rx = self.svc.inner.changes.subscribe();
        let _ = tokio::time::timeout(timeout, rx.changed()).await;
    }

    /// The change counter once it differs from `seen`, or as it is when
    /// `timeout` passes: a surface that last saw `seen` learns of a change that
    /// happened between two waits too, since the counter, not a wake-up, is
    /// compared.
    pub async fn wait_past(self, seen: u64, timeout: std::time::Duration) -> u64 {
        let mut rx = self.svc.inner.changes.subscribe();
        let _ = tokio::time::timeout(timeout, rx.wait_for(|n| *n != seen)).await;
        let now = *rx.borrow();
        now
    }
}
