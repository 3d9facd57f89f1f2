//! The agent API's routes (docs/agent-api.md §4–§7), behind the guard (`guard.rs`): every
//! handler receives a verified, and except for pairing, paired agent.

use super::guard::{protect, AgentGuard, AgentIdentity, PairingGate};
use super::peer::LocalPeer;
use crate::http_error::{AgentApiError, ApiError};
use crate::service::{Requester, Service, ServiceError};
use crate::views::MandateView;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use schcp::keyapp_proof::ProofError;
use schcp::refusal::Reason;
use serde::Deserialize;
use serde_json::json;
use status_edge::{serve_connections, Admitted, ConnectionLimits};
use std::time::Duration;
use tokio::net::TcpListener;

/// docs/agent-api.md §5: long polls wait at most 60 seconds.
pub const MAX_WAIT: u64 = 60;

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        e.to_api()
    }
}

/// The whole agent API for a listener on `port`.
pub fn router(service: Service, port: u16) -> Router {
    let routes_config = service.profile().config().agent_api.clone();
    let lookup = {
        let service = service.clone();
        move |jkt: String| {
            let service = service.clone();
            async move { service.pairings().is_paired(&jkt).await.map_err(ApiError::from) }
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
    let guard = AgentGuard::new(port).with_body_timeout(Duration::from_secs(service_body_timeout(&routes_config)));
    protect(routes, guard, PairingGate::new(lookup))
}

fn service_body_timeout(config: &crate::config::AgentApi) -> u64 {
    config.body_timeout_secs.max(1)
}

/// Serves the agent API on `listener` through the shared bounded accept loop
/// (`status_edge::accept`): the header timeout (which also closes idle
/// connections), and connection caps per local user (`agent_api::peer`) and
/// in all. Each request carries its connection's [`LocalPeer`].
pub async fn serve(listener: TcpListener, app: Router, config: &crate::config::AgentApi) -> std::io::Result<()> {
    let limits = ConnectionLimits {
        header_timeout: Duration::from_secs(config.header_timeout_secs.max(1)),
        max_connections_per_peer: config.max_connections_per_user.max(1),
        max_connections: Some(config.max_connections.max(1)),
    };
    serve_connections(listener, app, limits, |peer, local| {
        let who = LocalPeer::of(peer, local);
        Admitted { peer: Some(who.uid), info: who }
    })
    .await
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
        wait.map_err(|e| ApiError::invalid_request(Reason::BadWait, format!("wait must be a number of seconds: {e}")))?;
    let until = tokio::time::Instant::now() + Duration::from_secs(wait.wait.unwrap_or(0).min(MAX_WAIT));
    loop {
        let value = load().await?;
        let now = tokio::time::Instant::now();
        if settled(&value) || now >= until {
            return Ok(value);
        }
        service.changes().wait_for_change(until - now).await;
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
    let value = schcp::json::parse(&body).map_err(|e| ApiError::invalid_request(Reason::Malformed, e.to_string()))?;
    let b: PairingBody =
        serde_json::from_value(value).map_err(|e| ApiError::invalid_request(Reason::Malformed, e.to_string()))?;
    let p =
        service.pairings().request_pairing_from(&agent.jwk, &b.agent_name, agent.peer_uid).await.inspect_err(|e| {
            tracing::info!(reason = e.to_api().reason.as_str(), "pairing refused");
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
        || service.pairings().pairing_for_agent(&agent.jkt, &id),
        |p| p.status != crate::service::PairingStatus::Pending,
    )
    .await?;
    Ok(Json(json!({ "pairing_id": p.pairing_id, "status": p.status })).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProofQuery {
    nonce: Option<String>,
}

/// `GET /v1/principal`: whom the key app signs for, to a paired agent. With a
/// `nonce`, also the key app's `proof` that it holds the principal key
/// (`schcp::keyapp_proof`), to any agent whose request signature verified:
/// an agent that pinned the key at pairing tells an impostor from its key app
/// before it is paired again (docs/agent-api.md §7).
async fn principal(
    State(service): State<Service>,
    agent: AgentIdentity,
    query: Result<Query<ProofQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|e| {
        ApiError::invalid_request(Reason::BadQuery, format!("the only query parameter here is one nonce: {e}"))
    })?;
    let paired = service.pairings().is_paired(&agent.jkt).await?;
    if !paired && query.nonce.is_none() {
        return Err(ApiError::not_permitted(
            Reason::AgentNotPaired,
            "this agent key is not paired; ask to pair with POST /v1/pairings",
        ));
    }
    let mut body = json!({ "principal": service.profile().principal(), "jwk": service.profile().principal_jwk(), "paired": paired });
    if paired {
        body["name"] = json!(service.profile().config().name);
    }
    if let Some(nonce) = query.nonce {
        let proof = service.profile().keyapp_proof(&agent.jkt, &nonce).map_err(|e| match e {
            ProofError::NonceNotBase64 => ApiError::invalid_request(Reason::NonceNotBase64url, e.to_string()),
            ProofError::NonceLength(_) => ApiError::invalid_request(Reason::NonceLength, e.to_string()),
            other => ApiError::internal(format!("the proof could not be signed: {other}")),
        })?;
        body["proof"] = json!(proof);
    }
    Ok(Json(body).into_response())
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
            tracing::info!(kind = kind.map(|k| k.as_str()), code = %api.code, reason = %api.reason, "request refused");
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
        || service.requests().request_for_agent(&agent.jkt, &id),
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
    Ok(Json(service.requests().withdraw_request(&agent.jkt, &id).await?).into_response())
}

async fn mandates(State(service): State<Service>, agent: AgentIdentity) -> Result<Response, ApiError> {
    // docs/agent-api.md §7: the agent's own view, without the person's
    // words or the hosted service's publication state; a credential not yet
    // registered is not listed at all (`Service::credentials`).
    let listed: Vec<MandateView> =
        service.records().credentials(Some(&agent.jkt)).await?.into_iter().map(MandateView::from).collect();
    Ok(Json(listed).into_response())
}
