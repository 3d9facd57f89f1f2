//! The signed HTTP client: one agent key, one key app.

use crate::answers::{MandateListing, Pairing, Principal, ProofAnswer, ProvenKeyApp};
use crate::error::{AgentError, ApiError, ErrorCode};
use crate::profile::AgentProfile;
use crate::requests::{NewRequest, Request};
use ed25519_dalek::SigningKey;
use reqwest::{Method, StatusCode};
use schcp::httpsig::sign_request;
use schcp::refusal::Reason;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};

/// The longest long poll the key app holds (docs/agent-api.md §5): a longer
/// `wait` counts as this.
pub const MAX_WAIT: u32 = 60;

/// An agent's connection to one key app.
///
/// With [`AgentClient::pinned_in`], a session is checked: before its first
/// request the client asks the key app for a fresh proof that it holds the
/// principal key (docs/agent-api.md §7) and verifies it against the key the
/// profile pinned at pairing; a program that cannot show it is refused as an
/// impostor and sent nothing else.
pub struct AgentClient {
    base: String,
    key: SigningKey,
    http: reqwest::Client,
    pin: Option<AgentProfile>,
    proven: AtomicBool,
}

impl AgentClient {
    /// `base` is the `url` of `agent-api.json`, e.g. `http://127.0.0.1:7411`.
    pub fn new(base: impl Into<String>, key: SigningKey) -> AgentClient {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            // Loopback only: a proxy from the environment must never see the
            // signed requests (docs/agent-api.md §2).
            .no_proxy()
            .build()
            .expect("a plain HTTP client builds");
        AgentClient {
            base: base.into().trim_end_matches('/').to_owned(),
            key,
            http,
            pin: None,
            proven: AtomicBool::new(false),
        }
    }

    /// Checks the key app against the principal key pinned in `profile` (and
    /// pins it there on the first proof of a paired key app), before any
    /// request of this client's session is sent.
    pub fn pinned_in(mut self, profile: AgentProfile) -> AgentClient {
        self.pin = Some(profile);
        self
    }

    /// `GET /v1/principal?nonce=…`: asks the key app to prove it holds the
    /// principal key, with a fresh nonce, and verifies the proof
    /// (`schcp::keyapp_proof`) against the pinned key, or, with none pinned
    /// yet, against the key it shows, which is then pinned if this agent is
    /// paired. Anything that cannot show a valid proof is an
    /// [`AgentError::Impostor`]; a busy or rate-limiting key app's refusal is
    /// passed on as it is.
    pub async fn prove(&self) -> Result<ProvenKeyApp, AgentError> {
        let mut bytes = [0u8; 32];
        rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut bytes);
        let nonce = schcp::b64::encode(bytes);
        let (status, retry_after, body) =
            self.exchange(Method::GET, &format!("/v1/principal?nonce={nonce}"), None).await?;
        if !status.is_success() {
            let api = ApiError::from_response(status, retry_after.as_deref(), &body);
            // A key app asked for its proof gives it, unless it is busy, limits
            // the rate, or the clocks disagree; any other answer is not a key app's.
            if matches!(api.code, ErrorCode::RateLimited | ErrorCode::Unavailable)
                || api.is_reason(Reason::StaleSignature)
            {
                return Err(AgentError::Api(Box::new(api)));
            }
            return Err(self.impostor(format!("it answered {} to a request for the key app's proof", status.as_u16())));
        }
        let answer: ProofAnswer =
            serde_json::from_value(body).map_err(|_| self.impostor("its answer carries no key app proof".into()))?;
        let jwk: schcp::jwk::Jwk = serde_json::from_value(answer.jwk.clone())
            .map_err(|_| self.impostor("the key it shows is not a JWK".into()))?;
        let pinned = self.pin.as_ref().and_then(AgentProfile::pinned_principal);
        let expected = match &pinned {
            Some(p) => p.clone(),
            None => jwk.thumbprint().map_err(|e| self.impostor(e.to_string()))?,
        };
        let now = chrono::Utc::now().timestamp();
        let claims = schcp::keyapp_proof::verify(&answer.proof, &jwk, &expected, &self.jkt(), &nonce, now)
            .map_err(|e| self.impostor(e.to_string()))?;
        if claims.iss != answer.principal {
            return Err(self.impostor("it names another principal than the one its proof is for".into()));
        }
        if let (Some(profile), None, true) = (&self.pin, &pinned, answer.paired) {
            profile.pin_principal(&expected)?;
        }
        self.proven.store(true, Ordering::SeqCst);
        Ok(ProvenKeyApp {
            principal: answer.principal,
            jwk: answer.jwk,
            name: answer.name,
            paired: answer.paired,
            pinned: (pinned.is_some() || (self.pin.is_some() && answer.paired)).then_some(expected),
        })
    }

    fn impostor(&self, reason: String) -> AgentError {
        AgentError::Impostor { address: self.base.trim_start_matches("http://").to_owned(), reason }
    }

    /// A pinned client's session starts with the key app's proof.
    async fn ensure_proven(&self) -> Result<(), AgentError> {
        if self.pin.is_some() && !self.proven.load(Ordering::SeqCst) {
            self.prove().await?;
        }
        Ok(())
    }

    /// The agent's key.
    pub fn key(&self) -> &SigningKey {
        &self.key
    }

    /// The key app's origin this client talks to.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The agent's identity everywhere in the key app: the RFC 7638
    /// thumbprint of its public key (docs/agent-api.md §3).
    pub fn jkt(&self) -> String {
        schcp::jwk::Jwk::ed25519(&self.key.verifying_key()).thumbprint().expect("an Ed25519 JWK has a thumbprint")
    }

    async fn exchange(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(StatusCode, Option<String>, Value), AgentError> {
        let url = format!("{}{path}", self.base);
        let bytes = body.map(|b| serde_json::to_vec(b).expect("JSON serializes")).unwrap_or_default();
        let mut nonce = [0u8; 16];
        rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut nonce);
        let created = chrono::Utc::now().timestamp();
        // §3.2: a fresh nonce and `created` for every request, polls included.
        let headers = sign_request(method.as_str(), &url, &bytes, None, &self.key, created, &schcp::b64::encode(nonce));
        let mut req = self.http.request(method, &url);
        for (name, value) in headers {
            req = req.header(name, value);
        }
        if !bytes.is_empty() {
            req = req.header("content-type", "application/json").body(bytes);
        }
        let resp = req.send().await.map_err(|e| {
            if e.is_connect() {
                AgentError::Unreachable { url: self.base.clone(), source: e }
            } else {
                AgentError::Http(e)
            }
        })?;
        let status = resp.status();
        let retry_after =
            resp.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let text = resp.text().await?;
        let json = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Ok((status, retry_after, json))
    }

    /// Sends one signed request; returns the status and the JSON body.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(StatusCode, Value), AgentError> {
        self.ensure_proven().await?;
        let (status, _, json) = self.exchange(method, path, body).await?;
        Ok((status, json))
    }

    /// Like `send`, but a non-2xx answer is an [`AgentError::Api`].
    pub async fn call(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Value, AgentError> {
        self.ensure_proven().await?;
        let (status, retry_after, body) = self.exchange(method, path, body).await?;
        if status.is_success() {
            Ok(body)
        } else {
            Err(AgentError::Api(Box::new(ApiError::from_response(status, retry_after.as_deref(), &body))))
        }
    }

    async fn typed<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<T, AgentError> {
        let v = self.call(method, path, body).await?;
        serde_json::from_value(v)
            .map_err(|e| AgentError::UnexpectedAnswer { status: StatusCode::OK, detail: e.to_string() })
    }

    /// `POST /v1/pairings`: asks the person to pair this agent under `agent_name`.
    /// Show the person the answer's `fingerprint`: the key app shows the same.
    pub async fn pair(&self, agent_name: &str) -> Result<Pairing, AgentError> {
        self.typed(Method::POST, "/v1/pairings", Some(&json!({ "agent_name": agent_name }))).await
    }

    /// `GET /v1/pairings/{id}`, waiting up to `wait` seconds for an answer.
    pub async fn pairing(&self, pairing_id: &str, wait: u32) -> Result<Pairing, AgentError> {
        self.typed(Method::GET, &format!("/v1/pairings/{}?wait={wait}", path_segment(pairing_id)?), None).await
    }

    /// `GET /v1/principal`: whom the key app signs for (paired agents only).
    pub async fn principal(&self) -> Result<Principal, AgentError> {
        self.typed(Method::GET, "/v1/principal", None).await
    }

    /// `POST /v1/requests`: asks for the person's yes. The same key with the
    /// same request returns the same request (docs/agent-api.md §5).
    pub async fn request(&self, idempotency_key: &str, request: &NewRequest) -> Result<Request, AgentError> {
        self.typed(Method::POST, "/v1/requests", Some(&request.body(idempotency_key))).await
    }

    /// `GET /v1/requests/{id}`, waiting up to `wait` seconds (at most
    /// [`MAX_WAIT`]) for the status to leave `pending`.
    pub async fn request_status(&self, request_id: &str, wait: u32) -> Result<Request, AgentError> {
        self.typed(Method::GET, &format!("/v1/requests/{}?wait={wait}", path_segment(request_id)?), None).await
    }

    /// `DELETE /v1/requests/{id}`: withdraws a pending request.
    pub async fn withdraw(&self, request_id: &str) -> Result<Request, AgentError> {
        self.typed(Method::DELETE, &format!("/v1/requests/{}", path_segment(request_id)?), None).await
    }

    /// `GET /v1/mandates`: the credentials issued to this agent, oldest first.
    pub async fn mandates(&self) -> Result<Vec<MandateListing>, AgentError> {
        self.typed(Method::GET, "/v1/mandates", None).await
    }
}

/// An id the key app made (`rq_…`, `pr_…`) is base64url; anything else would
/// change the path it is put in, so it is refused before it is sent.
fn path_segment(id: &str) -> Result<&str, AgentError> {
    if !id.is_empty() && id.len() <= 128 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        Ok(id)
    } else {
        Err(AgentError::BadId(id.chars().take(64).collect()))
    }
}
