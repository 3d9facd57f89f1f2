//! The routes (docs/hosted-status.md): the key app's status API under a
//! principal namespace, and the publishing route.
//!
//! - `GET {base}/status/{thumb}/{jti}`, `POST …/{jti}/claims`, `DELETE
//!   …/{jti}/claims/{claim_id…}`: the status routes of the embedded status API
//!   (docs/agent-api.md §10), the same code (`status_edge::routes`) over the
//!   PostgreSQL store, behind the same edge (`status_edge::Edge`: rate limit
//!   per client with trusted proxies, time bounds, `no-store`, no CORS, §9
//!   refusals).
//! - `POST {base}/status/{thumb}`: a `schcp-status-update+jwt` signed by the
//!   namespace's key ([`schcp::status_update`]), registering, revoking one
//!   credential, or revoking every one registered up to an instant.
//!
//! `Host` must be the configured `public_base`'s or a loopback address (421);
//! claims and releases may be signed by the claiming host (docs/hosted-status.md
//! "Signed claims"), their nonces spent in the database, which every process
//! shares. Values from a request are logged as Debug (`?`), escaped, so none
//! can forge a line of the log.

use crate::batch::ClaimBatches;
use crate::metrics::{self, Metrics, Route};
use crate::store::{self, ClaimError, DbError, QueuedClaim, Registered, UpdateRefusal};
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use schcp::refusal::{Code, Reason};
use schcp::status_update::{self, Operation, UpdateCheck, MAX_UPDATE_BYTES};
use serde_json::json;
use sqlx::PgPool;
use status_edge::{ApiError, ClaimOutcome, Edge, StatusOptions, StatusStore, StatusView, Unit};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// Which principals may publish here, and how many credentials each may keep
/// (docs/hosted-status.md "Namespaces"). Anyone can make a key, so an open
/// service bounds each namespace; an operator serving known people lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespacePolicy {
    /// The thumbprints allowed to publish; `None`: any principal.
    pub allowed: Option<BTreeSet<String>>,
    /// The most credentials one namespace holds at once (purged ones do not count).
    pub max_credentials: u32,
}

/// `max_credentials` unless configured: far above what one person's key app
/// issues while its credentials live, far below what fills a disk.
pub const DEFAULT_MAX_CREDENTIALS: u32 = 10_000;

impl Default for NamespacePolicy {
    fn default() -> Self {
        NamespacePolicy { allowed: None, max_credentials: DEFAULT_MAX_CREDENTIALS }
    }
}

impl NamespacePolicy {
    fn allows(&self, thumb: &str) -> bool {
        self.allowed.as_ref().is_none_or(|a| a.contains(thumb))
    }
}

/// What the routes share. Cheap to clone.
#[derive(Clone)]
pub struct ServiceState {
    pool: PgPool,
    edge: Arc<Edge>,
    namespaces: Arc<NamespacePolicy>,
    /// `Cache-Control` of a successful status read (`None`: `no-store`).
    status_cache: Option<HeaderValue>,
    metrics: Arc<Metrics>,
    /// This process's claim batcher; `None`: one transaction per claim.
    batches: Option<ClaimBatches>,
}

/// Claim transactions in flight at once per process unless configured
/// (`claim_batches`, docs/hosted-status.md "Batched claims"): the measured
/// best on the benchmark machine (docs/benchmarks.md).
pub const DEFAULT_CLAIM_BATCHES: usize = 2;

impl ServiceState {
    /// The routes over `pool`, bounded by `options`, open to every namespace
    /// with the default bound, claims batched ([`DEFAULT_CLAIM_BATCHES`],
    /// gathered for [`crate::config::DEFAULT_CLAIM_GATHER_US`]).
    /// Spawns the claim batcher: call it inside a Tokio runtime.
    pub fn new(pool: PgPool, options: StatusOptions) -> ServiceState {
        ServiceState {
            batches: Some(ClaimBatches::spawn_gathering(
                pool.clone(),
                DEFAULT_CLAIM_BATCHES,
                Duration::from_micros(crate::config::DEFAULT_CLAIM_GATHER_US),
            )),
            pool,
            edge: Edge::new(options),
            namespaces: Arc::new(NamespacePolicy::default()),
            status_cache: None,
            metrics: Arc::new(Metrics::new()),
        }
    }

    /// The same with at most `in_flight` claim transactions at once, each
    /// carrying every waiting claim, a claim waiting up to `gather` for
    /// company while another is in flight; `in_flight` 0: no batching, one
    /// transaction per claim.
    pub fn with_claim_batches(self, in_flight: usize, gather: Duration) -> ServiceState {
        let batches = (in_flight > 0).then(|| ClaimBatches::spawn_gathering(self.pool.clone(), in_flight, gather));
        ServiceState { batches, ..self }
    }

    /// The same, letting a cache in front keep a successful status read for
    /// `max_age` (zero: `no-store`, as every other answer). A revocation then
    /// reaches hosts within `max_age` (docs/hosted-status.md "Caching").
    pub fn with_status_max_age(self, max_age: Duration) -> ServiceState {
        let status_cache = (!max_age.is_zero()).then(|| {
            HeaderValue::from_str(&format!("public, max-age={}", max_age.as_secs())).expect("an ASCII header value")
        });
        ServiceState { status_cache, ..self }
    }

    /// Database connections the claim batches hold open, beside the pool's.
    pub fn batch_connections(&self) -> usize {
        self.batches.as_ref().map_or(0, ClaimBatches::connections)
    }

    /// This process's metrics (`admin::router` renders them).
    pub fn metrics(&self) -> Arc<Metrics> {
        self.metrics.clone()
    }

    /// The database pool (`admin::router` reports its use and readiness).
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// The same with `policy` deciding who may publish and how much.
    pub fn with_namespaces(self, policy: NamespacePolicy) -> ServiceState {
        ServiceState { namespaces: Arc::new(policy), ..self }
    }
}

/// The service's routes with their edge: the shared status routes under each
/// namespace, and its publishing route.
pub fn router(state: ServiceState) -> Router {
    let edge = state.edge.clone();
    let publishing = Router::new().route("/status/{thumb}", post(publish)).with_state(state.clone());
    edge.wrap(status_edge::status_routes("/status/{thumb}", state).merge(publishing))
}

/// Serves the routes on `listener` through the shared edge's bounded accept loop.
pub async fn serve(listener: TcpListener, state: ServiceState) -> std::io::Result<()> {
    let options = state.edge.options().clone();
    status_edge::serve_router(listener, router(state), options).await
}

/// A thumbprint is SHA-256 in base64url: 43 characters of its alphabet. Any
/// other namespace names nothing here.
pub(crate) fn is_thumb(s: &str) -> bool {
    s.len() == 43 && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn path_refused(r: PathRejection) -> ApiError {
    ApiError::invalid_request(Reason::BadPath, format!("the path does not decode: {r}"))
}

fn db_failed(e: DbError) -> ApiError {
    tracing::warn!(error = %e, "database failure");
    ApiError::unavailable(Reason::StoreUnavailable, e.to_string())
}

/// A claim or release the store did not take, logged (`what`: "claim" or
/// "release").
fn store_refused(what: &str, unit: &Unit<'_, String>, e: ClaimError) -> ApiError {
    let api = match e {
        ClaimError::Refused(r) => ApiError::from(&r),
        ClaimError::Replayed => ApiError::signature(&schcp::httpsig::SigError::Replayed),
        ClaimError::Db(e) => db_failed(e),
        ClaimError::BatchFailed(why) => ApiError::unavailable(Reason::StoreUnavailable, why),
    };
    let (thumb, jti, host) = (unit.scope, unit.jti, unit.claim.host());
    tracing::info!(?thumb, ?jti, ?host, reason = %api.reason, "{what} refused");
    api
}

/// The statuses of every namespace, under `/status/{thumb}`. A signature's
/// nonce is spent by the store, in the transaction that takes it, since every
/// process must see it; the memory is the database's, kept across restarts,
/// so no signature is refused for predating it. Every claim and refusal is
/// counted in the metrics.
impl StatusStore for ServiceState {
    /// The namespace: the principal key's thumbprint.
    type Scope = String;

    fn edge(&self) -> &Edge {
        &self.edge
    }

    fn scope(&self, prefix: &[(String, String)]) -> Option<String> {
        match prefix {
            [(_, thumb)] if is_thumb(thumb) => Some(thumb.clone()),
            _ => None,
        }
    }

    async fn status(&self, thumb: &String, jti: &str, now: i64) -> Result<Option<StatusView>, ApiError> {
        store::status(&self.pool, thumb, jti, now).await.map_err(db_failed)
    }

    async fn claim(&self, unit: Unit<'_, String>) -> Result<ClaimOutcome, ApiError> {
        let Unit { scope: thumb, jti, claim, signer, now } = unit;
        let Some(batches) = &self.batches else {
            return store::claim(&self.pool, thumb, jti, claim, now, signer)
                .await
                .map_err(|e| store_refused("claim", &unit, e));
        };
        let batched = async {
            if let Some(c) = signer {
                store::check_claimant(&self.pool, thumb, jti, claim, c).await?;
            }
            let queued = QueuedClaim {
                thumb: thumb.clone(),
                jti: jti.to_owned(),
                claim_id: claim.clone(),
                now,
                signer: signer.cloned(),
            };
            batches.claim(queued).await
        };
        batched.await.map_err(|e| store_refused("claim", &unit, e))
    }

    async fn release(&self, unit: Unit<'_, String>) -> Result<(), ApiError> {
        let Unit { scope: thumb, jti, claim, signer, now } = unit;
        store::release(&self.pool, thumb, jti, claim, signer, now).await.map_err(|e| store_refused("release", &unit, e))
    }

    fn status_cache(&self) -> Option<&HeaderValue> {
        self.status_cache.as_ref()
    }

    fn claimed(&self, outcome: ClaimOutcome) {
        self.metrics.claim(match outcome {
            ClaimOutcome::Claimed { .. } => metrics::ClaimOutcome::Claimed,
            ClaimOutcome::AlreadyHeld { .. } => metrics::ClaimOutcome::AlreadyHeld,
        });
    }

    fn refused(&self, route: status_edge::Route, refusal: &ApiError) {
        let route = match route {
            status_edge::Route::Status => Route::Status,
            status_edge::Route::Claim => {
                self.metrics.claim(metrics::ClaimOutcome::Refused);
                Route::Claim
            }
            status_edge::Route::Release => Route::Release,
        };
        self.metrics.refused(route, refusal.reason);
    }
}

/// `application/jose` exactly (RFC 7515 §9.2.1: the compact serialization).
fn is_jose(headers: &HeaderMap) -> bool {
    let mut values = headers.get_all(header::CONTENT_TYPE).iter();
    matches!((values.next(), values.next()), (Some(v), None)
        if v.to_str().is_ok_and(|v| v.trim().eq_ignore_ascii_case("application/jose")))
}

fn update_refused(e: &UpdateCheck) -> ApiError {
    let message = e.to_string();
    match e {
        UpdateCheck::TooLarge => ApiError::body_too_large(MAX_UPDATE_BYTES),
        UpdateCheck::NamespaceMismatch { .. } | UpdateCheck::SignatureInvalid(_) => {
            ApiError::new(StatusCode::UNAUTHORIZED, Code::BadSignature, e.reason(), message)
        }
        _ => ApiError::invalid_request(e.reason(), message),
    }
}

fn refusal_of(e: UpdateRefusal) -> ApiError {
    let message = e.to_string();
    match e {
        UpdateRefusal::Replayed(_) => {
            ApiError::new(StatusCode::CONFLICT, Code::Conflict, Reason::UpdateReplayed, message)
        }
        UpdateRefusal::Conflict(_) => {
            ApiError::new(StatusCode::CONFLICT, Code::Conflict, Reason::RegistrationConflict, message)
        }
        UpdateRefusal::UnknownCredential(_) => {
            ApiError::new(StatusCode::NOT_FOUND, Code::NotFound, Reason::UnknownMandate, message)
        }
        UpdateRefusal::NamespaceFull(_) => {
            ApiError::new(StatusCode::FORBIDDEN, Code::NotPermitted, Reason::NamespaceFull, message)
        }
        UpdateRefusal::Db(e) => db_failed(e),
    }
}

/// `POST {base}/status/{thumb}`: one signed update. Every check that needs no
/// state runs before the database is touched; every refusal writes nothing.
async fn publish(
    State(st): State<ServiceState>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let answer = apply_update(&st, path, headers, body).await;
    if let Err(e) = &answer {
        st.metrics.refused(Route::Publish, e.reason);
    }
    answer
}

async fn apply_update(
    st: &ServiceState,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let Path(thumb) = path.map_err(path_refused)?;
    // Before the body is read: a namespace this service does not serve costs nothing.
    if !st.namespaces.allows(&thumb) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            Code::NotPermitted,
            Reason::NamespaceNotAllowed,
            "this status service publishes only for the principals its operator lists",
        ));
    }
    if !is_jose(&headers) {
        return Err(ApiError::invalid_request(
            Reason::BadContentType,
            "an update is sent as Content-Type: application/jose",
        ));
    }
    let bytes = status_edge::read_bounded(st.edge.options(), MAX_UPDATE_BYTES, &headers, body).await?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| ApiError::invalid_request(Reason::MalformedUpdate, "the update is not UTF-8"))?;
    let now = status_edge::now();
    let update = status_update::verify(text.trim_end(), &thumb, now).map_err(|e| {
        tracing::info!(?thumb, reason = e.reason().as_str(), "update refused");
        update_refused(&e)
    })?;
    let (status, body) = store_update(st, &thumb, &update, now).await?;
    st.metrics.update_applied(update.iat, now);
    tracing::info!(?thumb, jti = ?update.op.credential_jti(), status = status.as_u16(), "update applied");
    Ok((status, Json(body)).into_response())
}

/// Records a verified update, each operation in the store's one transaction:
/// the answer the contract gives for it.
async fn store_update(
    st: &ServiceState,
    thumb: &str,
    update: &status_update::VerifiedUpdate,
    now: i64,
) -> Result<(StatusCode, serde_json::Value), ApiError> {
    let keep_until = update.replay_keep_until(now);
    let answer = match &update.op {
        Operation::Register(reg) => {
            match store::register(
                &st.pool,
                thumb,
                &update.update_jti,
                keep_until,
                reg,
                now,
                st.namespaces.max_credentials,
            )
            .await
            {
                Ok(Registered::Created(v)) => (StatusCode::CREATED, v.body(&reg.jti)),
                Ok(Registered::Unchanged(v)) => (StatusCode::OK, v.body(&reg.jti)),
                Err(e) => return Err(refusal_of(e)),
            }
        }
        Operation::Revoke { jti } => {
            match store::revoke(&st.pool, thumb, &update.update_jti, keep_until, jti, now).await {
                // The contract's answer is `{"jti", "status": "revoked"}`, nothing more.
                Ok(v) => (StatusCode::OK, json!({ "jti": jti, "status": v.status.as_str() })),
                Err(e) => return Err(refusal_of(e)),
            }
        }
        Operation::RevokeAll { before } => {
            match store::revoke_all(&st.pool, thumb, &update.update_jti, keep_until, *before, now).await {
                Ok(done) => (StatusCode::OK, json!({ "before": done.before, "revoked": done.revoked })),
                Err(e) => return Err(refusal_of(e)),
            }
        }
    };
    Ok(answer)
}
