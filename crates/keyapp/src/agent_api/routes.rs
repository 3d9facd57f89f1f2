//! The agent API's routes (docs/agent-api.md §4–§7), behind the guard (`guard.rs`): every
//! handler receives a verified, and except for pairing, paired agent.

use super::guard::{protect, AgentGuard, AgentIdentity, PairingGate};
use crate::http_error::ApiError;
use crate::service::{Requester, Service, ServiceError};
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;
use std::time::Duration;

/// docs/agent-api.md §5: long polls wait at most 60 seconds.
pub const MAX_WAIT: u64 = 60;

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        e.to_api()
    }
}

/// The whole agent API for a listener on `port`.
pub fn router(service: Service, port: u16) -> Router {
    let lookup = {
        let service = service.clone();
        move |jkt: String| {
            let service = service.clone();
            async move { service.is_paired(&jkt).await.map_err(ApiError::from) }
        }
    };
    let routes = Router::new()
        .route("/v1/pairings", post(create_pairing))
        .route("/v1/pairings/{id}", get(get_pairing))
        .route("/v1/principal", get(principal))
        .route("/v1/requests", post(create_request))
        .route("/v1/requests/{id}", get(get_request).delete(withdraw_request))
        .route("/v1/mandates", get(mandates))
        .with_state(service);
    protect(routes, AgentGuard::new(port), PairingGate::new(lookup))
}

#[derive(Deserialize)]
struct Wait {
    wait: Option<u64>,
}

/// Loads until `settled` or the wait (at most 60 s) runs out, waking on every
/// state change rather than polling.
async fn long_poll<T, F, Fut>(
    service: &Service,
    wait: Result<Query<Wait>, QueryRejection>,
    load: F,
    settled: impl Fn(&T) -> bool,
) -> Result<T, ApiError>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, ServiceError>>,
{
    let Query(wait) =
        wait.map_err(|e| ApiError::invalid_request("bad_wait", format!("wait must be a number of seconds: {e}")))?;
    let until = tokio::time::Instant::now() + Duration::from_secs(wait.wait.unwrap_or(0).min(MAX_WAIT));
    loop {
        let value = load().await?;
        let now = tokio::time::Instant::now();
        if settled(&value) || now >= until {
            return Ok(value);
        }
        service.wait_for_change(until - now).await;
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PairingBody {
    agent_name: String,
}

async fn create_pairing(
    State(service): State<Service>,
    agent: AgentIdentity,
    body: Bytes,
) -> Result<Response, ApiError> {
    let value = schcp::json::parse(&body).map_err(|e| ApiError::invalid_request("malformed", e.to_string()))?;
    let b: PairingBody =
        serde_json::from_value(value).map_err(|e| ApiError::invalid_request("malformed", e.to_string()))?;
    let p = service.request_pairing(&agent.jwk, &b.agent_name).await.inspect_err(|e| {
        tracing::info!(reason = e.to_api().reason, "pairing refused");
    })?;
    tracing::info!(pairing_id = %p.pairing_id, status = ?p.status, "pairing requested");
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({ "pairing_id": p.pairing_id, "status": p.status, "fingerprint": p.fingerprint })),
    )
        .into_response())
}

async fn get_pairing(
    State(service): State<Service>,
    agent: AgentIdentity,
    Path(id): Path<String>,
    wait: Result<Query<Wait>, QueryRejection>,
) -> Result<Response, ApiError> {
    let p = long_poll(
        &service,
        wait,
        || service.pairing_for_agent(&agent.jkt, &id),
        |p| p.status != crate::service::PairingStatus::Pending,
    )
    .await?;
    Ok(Json(json!({ "pairing_id": p.pairing_id, "status": p.status })).into_response())
}

async fn principal(State(service): State<Service>) -> Json<serde_json::Value> {
    Json(json!({ "principal": service.principal(), "jwk": service.principal_jwk(), "name": service.config().name }))
}

async fn create_request(
    State(service): State<Service>,
    agent: AgentIdentity,
    body: Bytes,
) -> Result<Response, ApiError> {
    let requester = Requester { jkt: agent.jkt };
    match service.create_request(&requester, &body).await {
        Ok((view, replayed)) => {
            tracing::info!(request_id = %view.request_id, kind = %view.kind, replayed, "request accepted");
            Ok((StatusCode::ACCEPTED, Json(view)).into_response())
        }
        Err(e) => {
            let api = e.to_api();
            // The kind as the agent named it, when it named one; never the body.
            let kind = serde_json::from_slice::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| v.get("kind")?.as_str()?.parse::<crate::kind::RequestKind>().ok());
            tracing::info!(kind = kind.map(|k| k.as_str()), code = api.code, reason = api.reason, "request refused");
            Err(api)
        }
    }
}

async fn get_request(
    State(service): State<Service>,
    agent: AgentIdentity,
    Path(id): Path<String>,
    wait: Result<Query<Wait>, QueryRejection>,
) -> Result<Response, ApiError> {
    let v = long_poll(
        &service,
        wait,
        || service.request_for_agent(&agent.jkt, &id),
        |v| v.status != crate::service::RequestStatus::Pending,
    )
    .await?;
    Ok(Json(v).into_response())
}

async fn withdraw_request(
    State(service): State<Service>,
    agent: AgentIdentity,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(service.withdraw_request(&agent.jkt, &id).await?).into_response())
}

async fn mandates(State(service): State<Service>, agent: AgentIdentity) -> Result<Response, ApiError> {
    // docs/agent-api.md: the agent's view has no `expires` in words; that is
    // for the person's surfaces, in their language and time zone.
    let listed: Vec<serde_json::Value> = service
        .credentials(Some(&agent.jkt))
        .await?
        .into_iter()
        .map(|c| {
            let mut v = serde_json::to_value(&c).expect("a credential view serializes");
            // Nor the hosted service's publication state: a credential not yet
            // registered is not listed at all (`Service::credentials`).
            if let Some(o) = v.as_object_mut() {
                for person_only in ["expires", "publication", "publication_note"] {
                    o.remove(person_only);
                }
            }
            v
        })
        .collect();
    Ok(Json(listed).into_response())
}
