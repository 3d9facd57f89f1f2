//! The status routes hosts call (§3.3 "One consent, several hosts";
//! docs/agent-api.md §10), written once for both status services:
//!
//! - `GET {prefix}/{jti}` → 200 `{"jti", "status", "remaining"?}` or 404;
//! - `POST {prefix}/{jti}/claims` `{"claim_id": "{host id}/{hold id}"}` → 201 / 200
//!   `{"claim_id", "remaining"}`, or 400 / 401 / 403 / 404 / 409;
//! - `DELETE {prefix}/{jti}/claims/{claim_id}` → 204, idempotent; the claim id
//!   contains a `/` and the route takes it whole.
//!
//! The key app serves them under `/status` over its SQLite ledger; the hosted
//! `schcp-status` under `/status/{thumb}`, one namespace per principal, over
//! PostgreSQL. What differs between the two is a [`StatusStore`]: where the
//! statuses are, what a prefix names, where a signed request's nonce is spent,
//! whether a status read may be cached, and what the service counts. Every
//! check a host can see (the order of the checks, the path and body refusals,
//! signatures, which jti names nothing) is this module's, so the two services
//! cannot answer a host differently.
//!
//! Claims and releases may be signed by the claiming host (docs/agent-api.md
//! "Signed claims", [`crate::signed`]): a claim made signed is released only
//! by its host's signature, which the store checks against the host keys it
//! recorded.

use crate::claims::{ClaimId, ClaimOutcome, ClaimRefusal, StatusView};
use crate::edge::{now, read_claim_with_body, Edge};
use crate::http_error::ApiError;
use crate::signed::{claimant, ClaimRequest, Claimant};
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use schcp::httpsig::NonceMemory;
use schcp::refusal::Reason;
use serde_json::json;
use std::future::Future;

/// The route a request took, for a store that counts answers by route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Route {
    /// `GET {prefix}/{jti}`.
    Status,
    /// `POST {prefix}/{jti}/claims`.
    Claim,
    /// `DELETE {prefix}/{jti}/claims/{claim_id}`.
    Release,
}

/// What a claim or release is about, as the routes checked it: the unit of
/// `jti`'s shared limit that `claim` holds or would hold.
#[derive(Debug)]
pub struct Unit<'a, Scope> {
    pub scope: &'a Scope,
    pub jti: &'a str,
    pub claim: &'a ClaimId,
    /// The host key that signed the request, verified; `None`: unsigned.
    pub signer: Option<&'a Claimant>,
    pub now: i64,
}

// By hand: derived, they would ask `Scope: Copy`, and only references are copied.
impl<Scope> Clone for Unit<'_, Scope> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Scope> Copy for Unit<'_, Scope> {}

/// Where a status service keeps its statuses and booking claims, and what it
/// does beside the shared routes. Its errors are already the §9 refusals a
/// host gets (a store decides whether a failure is worth a retry).
pub trait StatusStore: Clone + Send + Sync + 'static {
    /// What a path's prefix names before the jti: nothing for the key app,
    /// whose statuses are all its own; the principal's namespace for the
    /// hosted service.
    type Scope: std::fmt::Debug + Send + Sync;

    /// The edge the routes are served behind (its options, the URLs a signed
    /// request may have addressed).
    fn edge(&self) -> &Edge;

    /// The scope named by the prefix's path parameters (name, value, in path
    /// order), or `None` when they name nothing here: a read or claim is then
    /// 404, a release 204, and the store is never asked.
    fn scope(&self, prefix: &[(String, String)]) -> Option<Self::Scope>;

    /// A credential's status at `now`; `None` when it has none here.
    fn status(
        &self,
        scope: &Self::Scope,
        jti: &str,
        now: i64,
    ) -> impl Future<Output = Result<Option<StatusView>, ApiError>> + Send;

    /// Takes a unit of the shared limit for `unit.claim` (§3.3). Signed, the
    /// store checks the key is the claim host's, and spends the nonce when
    /// [`StatusStore::nonces`] is `None`.
    fn claim(&self, unit: Unit<'_, Self::Scope>) -> impl Future<Output = Result<ClaimOutcome, ApiError>> + Send;

    /// Gives back the unit `unit.claim` holds under `unit.jti`, if it holds
    /// one; otherwise changes nothing. Refused only for a signed claim
    /// released unsigned or by another key, or a failed commit.
    fn release(&self, unit: Unit<'_, Self::Scope>) -> impl Future<Output = Result<(), ApiError>> + Send;

    /// The §3.2 replay memory the routes spend a signed request's nonce in,
    /// once its signature verified; `None` when the store spends it itself,
    /// in the transaction that takes the claim (a memory several processes
    /// share).
    fn nonces(&self) -> Option<&(dyn NonceMemory + Sync)> {
        None
    }

    /// `Cache-Control` of a successful status read; `None`: `no-store`, as
    /// every other answer.
    fn status_cache(&self) -> Option<&HeaderValue> {
        None
    }

    /// Told of each claim taken or found held.
    fn claimed(&self, _outcome: ClaimOutcome) {}

    /// Told of each refusal a route answered (edge refusals made before a
    /// route, a rate limit or a foreign `Host`, are not a route's).
    fn refused(&self, _route: Route, _refusal: &ApiError) {}
}

/// The three routes under `prefix` (`/status`, `/status/{thumb}`) over
/// `store`, to be completed with [`Edge::wrap`].
pub fn status_routes<S: StatusStore>(prefix: &str, store: S) -> Router {
    Router::new()
        .route(&format!("{prefix}/{{jti}}"), get(get_status::<S>))
        .route(&format!("{prefix}/{{jti}}/claims"), post(post_claim::<S>))
        .route(&format!("{prefix}/{{jti}}/claims/{{*claim_id}}"), delete(delete_claim::<S>))
        .with_state(store)
}

type PathParams = Result<Path<Vec<(String, String)>>, PathRejection>;

/// A status route's path, decoded: the prefix's parameters, the jti and, on
/// a release, the claim id as sent.
struct StatusPath {
    prefix: Vec<(String, String)>,
    jti: String,
    claim_id: String,
}

impl StatusPath {
    fn decode(path: PathParams) -> Result<StatusPath, ApiError> {
        let Path(params) =
            path.map_err(|r| ApiError::invalid_request(Reason::BadPath, format!("the path does not decode: {r}")))?;
        let mut decoded = StatusPath { prefix: Vec::new(), jti: String::new(), claim_id: String::new() };
        for (name, value) in params {
            match name.as_str() {
                "jti" => decoded.jti = value,
                "claim_id" => decoded.claim_id = value,
                _ => decoded.prefix.push((name, value)),
            }
        }
        Ok(decoded)
    }

    /// The store's scope, when the path names something it could hold: a
    /// jti is 1 to 255 characters with no control character, as a
    /// registration's is (`schcp::status_update`), and any other names
    /// nothing. Decided here, before any store is asked: a NUL, which
    /// PostgreSQL cannot hold in text, would fail the statement, and a
    /// batch of claims fails whole.
    fn scope<S: StatusStore>(&self, store: &S) -> Option<S::Scope> {
        let jti_chars = self.jti.chars().count();
        if jti_chars == 0 || jti_chars > 255 || self.jti.chars().any(char::is_control) {
            return None;
        }
        store.scope(&self.prefix)
    }
}

fn unknown_mandate() -> ApiError {
    ApiError::from(&ClaimRefusal::UnknownMandate)
}

async fn get_status<S: StatusStore>(State(store): State<S>, path: PathParams) -> Result<Response, ApiError> {
    let answer = read_status(&store, path).await;
    if let Err(refusal) = &answer {
        store.refused(Route::Status, refusal);
    }
    answer
}

async fn read_status<S: StatusStore>(store: &S, path: PathParams) -> Result<Response, ApiError> {
    let path = StatusPath::decode(path)?;
    let scope = path.scope(store).ok_or_else(unknown_mandate)?;
    let view = store.status(&scope, &path.jti, now()).await?.ok_or_else(unknown_mandate)?;
    let mut response = (StatusCode::OK, Json(view.body(&path.jti))).into_response();
    if let Some(cache) = store.status_cache() {
        response.headers_mut().insert(header::CACHE_CONTROL, cache.clone());
    }
    Ok(response)
}

/// The host that signed a claim or release, its nonce spent when the store
/// keeps no memory of its own; `None` for an unsigned one. Whether the key is
/// that host's is the store's check.
fn signed_by<S: StatusStore>(
    store: &S,
    request: ClaimRequest<'_>,
    claim: &ClaimId,
) -> Result<Option<Claimant>, ApiError> {
    let now = now();
    let nonces = store.nonces();
    let Some(signer) = claimant(store.edge(), request, claim, now, nonces.and_then(|n| n.began(now)))? else {
        return Ok(None);
    };
    if let Some(nonces) = nonces {
        nonces
            .remember(&signer.thumbprint, &signer.nonce, signer.remember_until, now)
            .map_err(|e| ApiError::signature(&e))?;
    }
    Ok(Some(signer))
}

async fn post_claim<S: StatusStore>(
    State(store): State<S>,
    path: PathParams,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    match take_claim(&store, path, &method, &uri, &headers, body).await {
        Ok((claim, outcome)) => {
            store.claimed(outcome);
            let status = match outcome {
                ClaimOutcome::Claimed { .. } => StatusCode::CREATED,
                ClaimOutcome::AlreadyHeld { .. } => StatusCode::OK,
            };
            let body = json!({ "claim_id": claim.as_str(), "remaining": outcome.remaining() });
            Ok((status, Json(body)).into_response())
        }
        Err(refusal) => {
            store.refused(Route::Claim, &refusal);
            Err(refusal)
        }
    }
}

async fn take_claim<S: StatusStore>(
    store: &S,
    path: PathParams,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: Body,
) -> Result<(ClaimId, ClaimOutcome), ApiError> {
    let path = StatusPath::decode(path)?;
    // The body is checked first: a malformed request is refused the same way
    // whether or not the jti exists, and changes nothing.
    let (claim, bytes) = read_claim_with_body(store.edge().options(), headers, body).await?;
    let request = ClaimRequest { method, uri, headers, body: &bytes };
    let signer = signed_by(store, request, &claim)?;
    let scope = path.scope(store).ok_or_else(unknown_mandate)?;
    let unit = Unit { scope: &scope, jti: &path.jti, claim: &claim, signer: signer.as_ref(), now: now() };
    let outcome = store.claim(unit).await?;
    Ok((claim, outcome))
}

/// 204 whether or not the claim id held a unit, and whatever the mandate's
/// status (docs/agent-api.md §10). Only a failed commit is reported (503), so a
/// host whose release did not take effect knows to retry (§3.3); and a release
/// that may not give the unit back: an unsigned one of a claim its host
/// signed, or one signed by a key that is not the claim host's (403, 401).
async fn delete_claim<S: StatusStore>(
    State(store): State<S>,
    path: PathParams,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Result<StatusCode, ApiError> {
    let answer = give_back(&store, path, &method, &uri, &headers).await;
    if let Err(refusal) = &answer {
        store.refused(Route::Release, refusal);
    }
    answer.map(|()| StatusCode::NO_CONTENT)
}

async fn give_back<S: StatusStore>(
    store: &S,
    path: PathParams,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
) -> Result<(), ApiError> {
    let path = StatusPath::decode(path)?;
    // A claim id that does not parse names nothing held: nothing to give back.
    let Ok(claim) = ClaimId::parse(&path.claim_id) else {
        return Ok(());
    };
    let request = ClaimRequest { method, uri, headers, body: b"" };
    let signer = signed_by(store, request, &claim)?;
    // Nor does a jti or prefix that names nothing here: the store is not asked.
    let Some(scope) = path.scope(store) else {
        return Ok(());
    };
    store.release(Unit { scope: &scope, jti: &path.jti, claim: &claim, signer: signer.as_ref(), now: now() }).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claims::CredentialStatus;
    use crate::edge::StatusOptions;
    use axum::http::Request;
    use http_body_util::BodyExt;
    use std::sync::{Arc, Mutex};
    use tower_service::Service;

    /// What the store was asked and told.
    #[derive(Debug, Default)]
    struct Seen {
        scopes: Vec<Vec<(String, String)>>,
        releases: Vec<(String, String)>,
        claims: Vec<(String, String)>,
        claimed: Vec<ClaimOutcome>,
        refused: Vec<(Route, Reason)>,
    }

    /// One mandate, `m`, with one unit left, in a scope named `ns` or none.
    #[derive(Clone)]
    struct Fake {
        edge: Arc<Edge>,
        cache: Option<HeaderValue>,
        seen: Arc<Mutex<Seen>>,
    }

    impl Fake {
        fn new(cache: Option<&'static str>) -> Fake {
            let edge = Edge::new(StatusOptions { rate_limit: None, ..StatusOptions::default() });
            Fake { edge, cache: cache.map(HeaderValue::from_static), seen: Arc::default() }
        }

        fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
            self.seen.lock().unwrap()
        }
    }

    impl StatusStore for Fake {
        type Scope = ();

        fn edge(&self) -> &Edge {
            &self.edge
        }

        fn scope(&self, prefix: &[(String, String)]) -> Option<()> {
            self.seen().scopes.push(prefix.to_vec());
            prefix.iter().all(|(_, v)| v == "ns").then_some(())
        }

        async fn status(&self, _: &(), jti: &str, _: i64) -> Result<Option<StatusView>, ApiError> {
            Ok((jti == "m").then_some(StatusView { status: CredentialStatus::Active, remaining: Some(1) }))
        }

        async fn claim(&self, unit: Unit<'_, ()>) -> Result<ClaimOutcome, ApiError> {
            self.seen().claims.push((unit.jti.to_owned(), unit.claim.as_str().to_owned()));
            match unit.jti {
                "m" => Ok(ClaimOutcome::Claimed { remaining: 0 }),
                _ => Err(unknown_mandate()),
            }
        }

        async fn release(&self, unit: Unit<'_, ()>) -> Result<(), ApiError> {
            self.seen().releases.push((unit.jti.to_owned(), unit.claim.as_str().to_owned()));
            Ok(())
        }

        fn status_cache(&self) -> Option<&HeaderValue> {
            self.cache.as_ref()
        }

        fn claimed(&self, outcome: ClaimOutcome) {
            self.seen().claimed.push(outcome);
        }

        fn refused(&self, route: Route, refusal: &ApiError) {
            self.seen().refused.push((route, refusal.reason));
        }
    }

    /// The answer's status, `Cache-Control` and body (JSON, `Null` if empty).
    async fn call(
        store: &Fake,
        prefix: &str,
        method: Method,
        path: &str,
        body: &str,
    ) -> (StatusCode, String, serde_json::Value) {
        let mut router = store.edge.clone().wrap(status_routes(prefix, store.clone()));
        let request = Request::builder()
            .method(method)
            .uri(path)
            .header(header::HOST, "127.0.0.1:7412")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_owned()))
            .unwrap();
        let response = router.call(request).await.unwrap();
        let status = response.status();
        let cache = response.headers()[header::CACHE_CONTROL].to_str().unwrap().to_owned();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let json = if bytes.is_empty() { serde_json::Value::Null } else { serde_json::from_slice(&bytes).unwrap() };
        (status, cache, json)
    }

    /// The drift this module ends: a release under a jti that names nothing
    /// here (too long, or in a namespace the store does not serve) is 204
    /// and never reaches the store, on every service alike.
    #[tokio::test]
    async fn a_release_under_a_jti_that_names_nothing_never_reaches_the_store() {
        let store = Fake::new(None);
        let long = "x".repeat(256);
        for path in [
            format!("/status/ns/{long}/claims/maple/h1"),
            "/status/other/m/claims/maple/h1".to_owned(),
            "/status/ns/m/claims/no-slash".to_owned(),
        ] {
            let (status, cache, body) = call(&store, "/status/{thumb}", Method::DELETE, &path, "").await;
            assert_eq!((status, cache.as_str(), body), (StatusCode::NO_CONTENT, "no-store", json!(null)), "{path}");
        }
        assert!(store.seen().releases.is_empty());
        let at_most = "x".repeat(255);
        let path = format!("/status/ns/{at_most}/claims/maple/h1/2");
        assert_eq!(call(&store, "/status/{thumb}", Method::DELETE, &path, "").await.0, StatusCode::NO_CONTENT);
        assert_eq!(store.seen().releases, [(at_most, "maple/h1/2".to_owned())], "the claim id is taken whole");
        assert_eq!(store.seen().scopes.last().unwrap(), &[("thumb".to_owned(), "ns".to_owned())]);
    }

    #[tokio::test]
    async fn a_status_read_keeps_the_stores_cache_control_only_on_success() {
        let cached = Fake::new(Some("public, max-age=5"));
        let (status, cache, body) = call(&cached, "/status", Method::GET, "/status/m", "").await;
        assert_eq!((status, cache.as_str()), (StatusCode::OK, "public, max-age=5"));
        assert_eq!(body, json!({"jti": "m", "status": "active", "remaining": 1}));
        let (status, cache, body) = call(&cached, "/status", Method::GET, "/status/gone", "").await;
        assert_eq!((status, cache.as_str()), (StatusCode::NOT_FOUND, "no-store"));
        assert_eq!(body["error"]["reason"], "unknown_mandate");
        assert_eq!(cached.seen().refused, [(Route::Status, Reason::UnknownMandate)]);
        let uncached = Fake::new(None);
        assert_eq!(call(&uncached, "/status", Method::GET, "/status/m", "").await.1, "no-store");
    }

    /// The body is judged before the jti, so a malformed claim is refused
    /// alike whether or not the mandate exists; each refusal and outcome is
    /// told to the store, and a claim is never cacheable.
    #[tokio::test]
    async fn claims_check_the_body_first_and_tell_the_store_every_answer() {
        let store = Fake::new(Some("public, max-age=5"));
        let long = "x".repeat(256);
        let (status, _, body) =
            call(&store, "/status", Method::POST, &format!("/status/{long}/claims"), "{not json").await;
        assert_eq!((status, body["error"]["reason"].as_str()), (StatusCode::BAD_REQUEST, Some("malformed_json")));
        let claim = r#"{"claim_id": "maple/h1"}"#;
        let (status, _, body) = call(&store, "/status", Method::POST, &format!("/status/{long}/claims"), claim).await;
        assert_eq!((status, body["error"]["reason"].as_str()), (StatusCode::NOT_FOUND, Some("unknown_mandate")));
        assert!(store.seen().claims.is_empty(), "an overlong jti never reaches the store");
        let (status, cache, body) = call(&store, "/status", Method::POST, "/status/m/claims", claim).await;
        assert_eq!((status, cache.as_str()), (StatusCode::CREATED, "no-store"));
        assert_eq!(body, json!({"claim_id": "maple/h1", "remaining": 0}));
        let seen = store.seen();
        assert_eq!(seen.claimed, [ClaimOutcome::Claimed { remaining: 0 }]);
        assert_eq!(seen.refused, [(Route::Claim, Reason::MalformedJson), (Route::Claim, Reason::UnknownMandate)]);
    }

    #[tokio::test]
    async fn a_path_that_does_not_decode_is_refused_on_every_route() {
        let store = Fake::new(None);
        for (method, path) in [
            (Method::GET, "/status/%FF"),
            (Method::POST, "/status/%FF/claims"),
            (Method::DELETE, "/status/m/claims/maple/%FF"),
        ] {
            let (status, _, body) = call(&store, "/status", method.clone(), path, r#"{"claim_id": "maple/h"}"#).await;
            assert_eq!(
                (status, body["error"]["reason"].as_str()),
                (StatusCode::BAD_REQUEST, Some("bad_path")),
                "{path}"
            );
        }
        let routes: Vec<Route> = store.seen().refused.iter().map(|(r, _)| *r).collect();
        assert_eq!(routes, [Route::Status, Route::Claim, Route::Release]);
    }
}
