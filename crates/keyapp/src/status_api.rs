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
//! loopback address (421 otherwise: DNS rebinding). Claims and releases may be
//! signed by the claiming host (docs/agent-api.md "Signed claims", an
//! extension): a claim made signed is released only by its host's signature.
//!
//! It faces the network, so every request is bounded: its head (16 KiB, read
//! within `header_timeout`), its body (`max_body`, read within `body_timeout`) and
//! its handling (`request_timeout`). Claims and lookups are rate limited per peer
//! address (or, behind a trusted proxy, per forwarded client address) with a
//! token bucket. A flood from one peer spends only that peer's
//! tokens, never a mandate's, so nobody can lock a person out of their own limit
//! by hammering it; and releases are never limited, because a release only gives
//! a unit back and a host whose release failed would leave the person a booking
//! short (§3.3: "one booking fewer left, never one more").
//!
//! The accounting itself is `store::claims`; claims and releases go through its
//! group commit, so many hosts' claims share one durable transaction.
//!
//! The edge itself (bounded accept loop, rate limit, `no-store`, §9 refusals,
//! the claim body) is the `schcp-status-edge` crate, re-exported here: the
//! hosted status service (`schcp-status`, docs/hosted-status.md) answers hosts with the same
//! code without linking the key app.

use crate::agent_api::nonce::NonceCache;
use crate::http_error::ApiError;
use crate::store::claims::{ClaimError, ClaimId, ClaimOutcome, ClaimRefusal, GroupCommit, ReleaseError};
use crate::store::credentials;
use crate::store::{Store, StoreError};
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use schcp::httpsig::NonceMemory;
use schcp::refusal::Reason;
use serde_json::json;
use status_edge::{ClaimRequest, Claimant};
use std::sync::Arc;
use tokio::net::TcpListener;

pub use status_edge::edge::{now, read_bounded, read_claim, serve_router, Edge, RateLimit, StatusOptions};

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
        let ledger = GroupCommit::spawn(store.clone(), options.max_batch);
        let nonces = NonceCache::new().remembering_since(now());
        StatusState { inner: Arc::new(Inner { store, ledger, edge: Edge::new(options), nonces }) }
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
    edge.wrap(
        Router::new()
            .route("/status/{jti}", get(get_status))
            .route("/status/{jti}/claims", axum::routing::post(post_claim))
            .route("/status/{jti}/claims/{*claim_id}", axum::routing::delete(delete_claim))
            .with_state(state),
    )
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

// ---------------------------------------------------------------------------
// Routes.

/// A jti is an `Id`: at most 255 characters. A longer one names nothing.
fn known_length(jti: &str) -> bool {
    !jti.is_empty() && jti.chars().count() <= 255
}

fn unknown_mandate() -> ApiError {
    ApiError::from(&ClaimRefusal::UnknownMandate)
}

fn path_refused(r: PathRejection) -> ApiError {
    ApiError::invalid_request(Reason::BadPath, format!("the path does not decode: {r}"))
}

fn store_unavailable(message: String) -> ApiError {
    ApiError::unavailable(Reason::StoreUnavailable, message)
}

/// A store failure at the edge: an unreadable record is the key app's own fault
/// and lasting (500); anything else may pass, so the host is told to retry (503).
fn store_failed(e: StoreError) -> ApiError {
    match e {
        StoreError::Corrupt(m) => ApiError::internal(m),
        other => store_unavailable(other.to_string()),
    }
}

async fn get_status(
    State(st): State<StatusState>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let Path(jti) = path.map_err(path_refused)?;
    if !known_length(&jti) {
        return Err(unknown_mandate());
    }
    let view = credentials::status(&st.inner.store, &jti, now()).await.map_err(store_failed)?;
    let view = view.ok_or_else(unknown_mandate)?;
    let mut body = json!({ "jti": jti, "status": view.status.as_str() });
    if let Some(remaining) = view.remaining {
        body["remaining"] = json!(remaining);
    }
    Ok((StatusCode::OK, Json(body)).into_response())
}

/// The host that signed a claim or release, once its nonce is spent; `None`
/// for an unsigned one. Whether the key is that host's is the ledger's check.
fn signed_by(st: &StatusState, request: ClaimRequest<'_>, claim: &ClaimId) -> Result<Option<Claimant>, ApiError> {
    let now = now();
    let nonces = &st.inner.nonces;
    let Some(claimant) = status_edge::claimant(&st.inner.edge, request, claim, now, nonces.began(now))? else {
        return Ok(None);
    };
    nonces
        .remember(&claimant.thumbprint, &claimant.nonce, claimant.remember_until, now)
        .map_err(|e| ApiError::signature(&e))?;
    Ok(Some(claimant))
}

async fn post_claim(
    State(st): State<StatusState>,
    path: Result<Path<String>, PathRejection>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let Path(jti) = path.map_err(path_refused)?;
    // The body is checked first: a malformed request is refused the same way
    // whether or not the jti exists, and changes nothing.
    let (claim_id, bytes) = status_edge::read_claim_with_body(st.options(), &headers, body).await?;
    let request = ClaimRequest { method: &method, uri: &uri, headers: &headers, body: &bytes };
    let signer = signed_by(&st, request, &claim_id)?;
    if !known_length(&jti) {
        return Err(unknown_mandate());
    }
    let signer = signer.as_ref().map(|c| c.thumbprint.as_str());
    // Request values are logged as Debug (`?`): escaped, so a jti with a
    // newline or an escape sequence cannot forge a line of the log.
    match st.inner.ledger.claim(&jti, &claim_id, now(), signer).await {
        Ok(outcome) => {
            let status = match outcome {
                ClaimOutcome::Claimed { .. } => StatusCode::CREATED,
                ClaimOutcome::AlreadyHeld { .. } => StatusCode::OK,
            };
            tracing::info!(?jti, host = ?claim_id.host(), signed = signer.is_some(), ?outcome, "claim granted");
            let body = json!({ "claim_id": claim_id.as_str(), "remaining": outcome.remaining() });
            Ok((status, Json(body)).into_response())
        }
        Err(ClaimError::Refused(r)) => {
            let api = ApiError::from(&r);
            tracing::info!(?jti, host = ?claim_id.host(), reason = %api.reason, "claim refused");
            Err(api)
        }
        Err(ClaimError::Store(e)) => Err(store_failed(e)),
        Err(ClaimError::Unavailable(m)) => Err(store_unavailable(m)),
    }
}

/// 204 whether or not the claim id held a unit, and whatever the mandate's
/// status (docs/agent-api.md §10). Only a failed commit is reported (503), so a host whose
/// release did not take effect knows to retry (§3.3); and a release that may
/// not give the unit back: an unsigned one of a claim its host signed, or one
/// signed by a key that is not the claim host's (403, 401).
async fn delete_claim(
    State(st): State<StatusState>,
    path: Result<Path<(String, String)>, PathRejection>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Result<StatusCode, ApiError> {
    let Path((jti, claim_id)) = path.map_err(path_refused)?;
    // A claim id that does not parse names nothing held: nothing to give back.
    let Ok(claim) = ClaimId::parse(&claim_id) else {
        return Ok(StatusCode::NO_CONTENT);
    };
    let request = ClaimRequest { method: &method, uri: &uri, headers: &headers, body: b"" };
    let signer = signed_by(&st, request, &claim)?;
    let signer = signer.as_ref().map(|c| c.thumbprint.as_str());
    match st.inner.ledger.release(&jti, &claim_id, signer).await {
        Ok(()) => Ok(StatusCode::NO_CONTENT),
        Err(ReleaseError::Refused(r)) => {
            let api = ApiError::from(&r);
            tracing::info!(?jti, host = ?claim.host(), reason = %api.reason, "release refused");
            Err(api)
        }
        Err(ReleaseError::Store(e)) => Err(store_failed(e)),
        Err(ReleaseError::Unavailable(m)) => Err(store_unavailable(m)),
    }
}
