#![forbid(unsafe_code)]
//! A small client for the agent API, signing every request as docs/agent-api.md §1 and
//! §3.2 require. The example agent and the end-to-end tests use it; an agent
//! written in Rust can too.

use ed25519_dalek::SigningKey;
use reqwest::{Method, StatusCode};
use schcp::httpsig::sign_request;
use serde_json::Value;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentClientError {
    #[error("HTTP: {0}")]
    Http(#[from] reqwest::Error),
    #[error("the key app answered {status}: {body}")]
    Refused { status: StatusCode, body: Value },
}

/// An agent's connection to one key app.
pub struct AgentClient {
    base: String,
    key: SigningKey,
    http: reqwest::Client,
}

impl AgentClient {
    /// `base` is the `url` of `agent-api.json`, e.g. `http://127.0.0.1:7411`.
    pub fn new(base: impl Into<String>, key: SigningKey) -> AgentClient {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a plain HTTP client builds");
        AgentClient { base: base.into().trim_end_matches('/').to_owned(), key, http }
    }

    pub fn key(&self) -> &SigningKey {
        &self.key
    }

    /// Sends one signed request; returns the status and the JSON body.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(StatusCode, Value), AgentClientError> {
        let url = format!("{}{path}", self.base);
        let bytes = body.map(|b| serde_json::to_vec(b).expect("JSON serializes")).unwrap_or_default();
        let mut nonce = [0u8; 16];
        rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut nonce);
        let created = chrono::Utc::now().timestamp();
        let headers = sign_request(method.as_str(), &url, &bytes, None, &self.key, created, &schcp::b64::encode(nonce));
        let mut req = self.http.request(method, &url);
        for (name, value) in headers {
            req = req.header(name, value);
        }
        if !bytes.is_empty() {
            req = req.header("content-type", "application/json").body(bytes);
        }
        let resp = req.send().await?;
        let status = resp.status();
        let text = resp.text().await?;
        let json = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Ok((status, json))
    }

    /// Like `send`, but a non-2xx answer is an error.
    pub async fn call(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Value, AgentClientError> {
        let (status, body) = self.send(method, path, body).await?;
        if status.is_success() {
            Ok(body)
        } else {
            Err(AgentClientError::Refused { status, body })
        }
    }
}
