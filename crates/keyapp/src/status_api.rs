//! The status API hosts call (docs/agent-api.md §10; §3.3 "One consent, several hosts").
//!
//! - `GET /status/{jti}` → 200 `{"jti", "status", "remaining"?}` or 404;
//! - `POST /status/{jti}/claims` `{"claim_id": "{host id}/{hold id}"}` → 201 / 200
//!   `{"claim_id", "remaining"}`, or 400 / 403 / 404 / 409;
//! - `DELETE /status/{jti}/claims/{claim_id}` → 204, idempotent; the claim id
//!   contains a `/` and the route takes it whole.
//!
//! No cookies, no CORS (docs/agent-api.md §10); `Cache-Control: no-store` on
//! every response, so no cache between a host and the key app ever answers for
//! a revoked mandate or a spent limit. `Host` must be `public_base`'s or a
//! loopback address (421 otherwise: DNS rebinding); in a running key app the
//! base in force now, as the person last set it (`StatusState::with_live_base`). Claims and releases may be
//! signed by the claiming host (docs/agent-api.md "Signed claims", an
//! extension): a claim made signed is released only by its host's signature.
//!
//! It faces the network, so every request is bounded: its head (16 KiB, read
//! within `header_timeout`), its body (`max_body`, read within `body_timeout`) and
//! its handling (`request_timeout`). Claims and lookups are rate limited per peer
//! address (or, behind a trusted proxy, per forwarded client address) with a
//! token bucket. A flood from one peer spends only that peer's
//! tokens, never a mandate's, so nobody can lock a person out of their own limit
//! by hammering it. Releases have a bucket of their own, ten times as large
//! (`status_edge::edge`): a release only gives a unit back, so a host giving back
//! what it took never meets it, but each is a lookup, so a flood is stopped.
//!
//! The accounting itself is `store::booking_claims`; claims and releases go
//! through its group commit, so many hosts' claims share one durable
//! transaction.
//!
//! The routes and their edge (bounded accept loop, rate limit, `no-store`, §9
//! refusals, the claim body, signatures) are the `schcp-status-edge` crate's:
//! the hosted status service (`schcp-status`, docs/hosted-status.md) answers
//! hosts with the same code without linking the key app. This module is the
//! key app's store behind them: the SQLite ledger, and the replay memory of
//! signed claims, which is this process's.

use crate::agent_api::nonce::NonceCache;
use crate::http_error::ApiError;
use crate::store::booking_claims::{ClaimError, ClaimOutcome, ClaimRefusal, GroupCommit, ReleaseError};
use crate::store::credentials;
use crate::store::{Store, StoreError};
use axum::Router;
use schcp::httpsig::NonceMemory;
use schcp::refusal::Reason;
use status_edge::{StatusStore, StatusView, Unit};
use std::sync::Arc;
use tokio::net::TcpListener;

pub use status_edge::edge::{now, read_bounded, read_claim, serve_router, Edge, RateLimit, StatusOptions};
pub use status_edge::LiveBase;

/// What the status routes share: the store, the group-commit writer and the
/// edge (options and rate limiter). Cheap to clone.
#[derive(Clone)]
pub struct StatusState {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    ledger: GroupCommit,
    edge: Arc<Edge>,
    /// The §3.2 replay memory of signed claims and releases: this process's,
    /// so a signature made before it began is refused.
    nonces: NonceCache,
}

impl StatusState {
    /// Must be called within a Tokio runtime: it starts the group-commit writer.
    pub fn new(store: Store) -> StatusState {
        StatusState::with_options(store, StatusOptions::default())
    }

    pub fn with_options(store: Store, options: StatusOptions) -> StatusState {
        let edge = Edge::new(options);
        StatusState::with_edge(store, edge)
    }

    /// The status API of a running key app: `Host` (and a signed claim's
    /// `@target-uri`) is checked against the base `base` reads in force, which
    /// the service publishes, parsed, when the person changes it in Settings
    /// (`Status::live_base`): it is answered from the next request on, and the
    /// old one refused, without a restart.
    pub fn with_live_base(store: Store, options: StatusOptions, base: LiveBase) -> StatusState {
        let edge = Edge::live(options, base);
        StatusState::with_edge(store, edge)
    }

    fn with_edge(store: Store, edge: Arc<Edge>) -> StatusState {
        let ledger = GroupCommit::spawn(store.clone(), edge.options().max_batch);
        let nonces = NonceCache::new().remembering_since(now());
        StatusState { inner: Arc::new(Inner { store, ledger, edge, nonces }) }
    }

    pub fn options(&self) -> &StatusOptions {
        self.inner.edge.options()
    }
}

/// The status routes, with their bounds, rate limit and headers. Peer addresses
/// come from `ConnectInfo<SocketAddr>` (see [`serve`]); without it every request
/// shares one bucket.
pub fn router(state: StatusState) -> Router {
    let edge = state.inner.edge.clone();
    edge.wrap(status_edge::status_routes("/status", state))
}

/// Serves the status API on `listener` until the future is dropped. Accept
/// errors are retried, never fatal: a full file table frees up again.
///
/// Each connection is HTTP/1.1 with a header-read timeout, a bounded request
/// head (16 KiB, 64 headers) and a per-peer connection cap, which `axum::serve`
/// cannot set, hence this loop.
pub async fn serve(listener: TcpListener, state: StatusState) -> std::io::Result<()> {
    let options = state.options().clone();
    serve_router(listener, router(state), options).await
}

fn store_unavailable(message: String) -> ApiError {
    ApiError::unavailable(Reason::StoreUnavailable, message)
}

/// A store failure at the edge: an unreadable record is the key app's own fault
/// and lasting (500); anything else may pass, so the host is told to retry (503).
fn store_failed(e: StoreError) -> ApiError {
    match e {
        StoreError::Corrupt(m) => ApiError::internal(m.to_string()),
        other => store_unavailable(other.to_string()),
    }
}

/// A claim or release the ledger refused, logged (`what`: "claim" or "release").
fn ledger_refused(what: &str, unit: &Unit<'_, ()>, r: &ClaimRefusal) -> ApiError {
    let api = ApiError::from(r);
    let (jti, host) = (unit.jti, unit.claim.host());
    tracing::info!(?jti, ?host, reason = %api.reason, "{what} refused");
    api
}

/// The key app's statuses: every credential it issued, under `/status`, no
/// namespace. Request values are logged as Debug (`?`): escaped, so a jti
/// with a newline or an escape sequence cannot forge a line of the log.
impl StatusStore for StatusState {
    type Scope = ();

    fn edge(&self) -> &Edge {
        &self.inner.edge
    }

    fn scope(&self, prefix: &[(String, String)]) -> Option<()> {
        prefix.is_empty().then_some(())
    }

    async fn status(&self, _: &(), jti: &str, now: i64) -> Result<Option<StatusView>, ApiError> {
        let view = credentials::status(&self.inner.store, jti, now).await.map_err(store_failed)?;
        Ok(view.map(|v| StatusView { status: v.status, remaining: v.remaining }))
    }

    async fn claim(&self, unit: Unit<'_, ()>) -> Result<ClaimOutcome, ApiError> {
        let signer = unit.signer.map(|c| c.thumbprint.as_str());
        match self.inner.ledger.claim(unit.jti, unit.claim, unit.now, signer).await {
            Ok(outcome) => {
                let (jti, host) = (unit.jti, unit.claim.host());
                tracing::info!(?jti, ?host, signed = signer.is_some(), ?outcome, "claim granted");
                Ok(outcome)
            }
            Err(ClaimError::Refused(r)) => Err(ledger_refused("claim", &unit, &r)),
            Err(ClaimError::Store(e)) => Err(store_failed(e)),
            Err(ClaimError::Unavailable(m)) => Err(store_unavailable(m)),
        }
    }

    async fn release(&self, unit: Unit<'_, ()>) -> Result<(), ApiError> {
        let signer = unit.signer.map(|c| c.thumbprint.as_str());
        self.inner.ledger.release(unit.jti, unit.claim.as_str(), signer).await.map_err(|e| match e {
            ReleaseError::Refused(r) => ledger_refused("release", &unit, &r),
            ReleaseError::Store(e) => store_failed(e),
            ReleaseError::Unavailable(m) => store_unavailable(m),
        })
    }

    /// Spent at the edge, before the ledger: the memory is this process's.
    fn nonces(&self) -> Option<&(dyn NonceMemory + Sync)> {
        Some(&self.inner.nonces)
    }
}
