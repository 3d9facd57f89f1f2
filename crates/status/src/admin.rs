//! The operator's endpoints (docs/hosted-status.md "Operating it"), served on
//! their own address (`admin_listen`), never on the hosts' port: a load
//! balancer's or orchestrator's probe names whatever `Host` it likes, which the
//! hosts' edge refuses (421), and the metrics are the operator's to read.
//!
//! - `GET /healthz`: the process answers (200), whatever the database does.
//! - `GET /readyz`: the database answers within [`READY_TIMEOUT`] (200), else
//!   503 with one sentence, so a balancer stops sending hosts here.
//! - `GET /metrics`: the Prometheus text format (`metrics::Metrics`).

use crate::service::ServiceState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::time::Duration;

/// How long `/readyz` waits for the database: shorter than a probe's usual
/// timeout, so the probe reads our answer rather than its own.
pub const READY_TIMEOUT: Duration = Duration::from_secs(2);

/// The operator's routes over the serving process's state.
pub fn router(state: ServiceState) -> Router {
    Router::new()
        .route("/healthz", get(|| async { text(StatusCode::OK, "alive\n") }))
        .route("/readyz", get(ready))
        .route("/metrics", get(metrics))
        .fallback(|| async { text(StatusCode::NOT_FOUND, "no such route: /healthz, /readyz or /metrics\n") })
        .with_state(state)
}

fn text(status: StatusCode, body: &'static str) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8"), (header::CACHE_CONTROL, "no-store")], body)
        .into_response()
}

async fn ready(State(st): State<ServiceState>) -> Response {
    let probe = sqlx::query_scalar::<_, i32>("SELECT 1").fetch_one(st.pool());
    match tokio::time::timeout(READY_TIMEOUT, probe).await {
        Ok(Ok(1)) => text(StatusCode::OK, "ready\n"),
        Ok(Ok(_)) | Ok(Err(_)) => text(StatusCode::SERVICE_UNAVAILABLE, "the database refused a query\n"),
        Err(_) => text(StatusCode::SERVICE_UNAVAILABLE, "the database did not answer within 2 seconds\n"),
    }
}

async fn metrics(State(st): State<ServiceState>) -> Response {
    let pool = st.pool();
    // Open: the pool's and the claim batches' own (crates/status/src/batch.rs).
    let open = pool.size().saturating_add(u32::try_from(st.batch_connections()).unwrap_or(u32::MAX));
    let body = st.metrics().render(open, pool.num_idle());
    (
        StatusCode::OK,
        [
            // OpenMetrics text, which Prometheus reads (prometheus-client's format).
            (header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

/// Serves the operator's routes on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, state: ServiceState) -> std::io::Result<()> {
    axum::serve(listener, router(state)).await
}
