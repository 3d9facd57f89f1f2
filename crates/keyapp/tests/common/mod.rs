//! What the end-to-end test binaries share: the key app started for real on
//! loopback ports with the OS keychain (under scripts/with-keyring), an HTTPS
//! test host with its own CA, and agents signing real requests.
#![allow(dead_code)] // each test binary uses its own subset

use agent::AgentClient;
use ed25519_dalek::SigningKey;
use keyapp::app::{self, Running};
use keyapp::config::{Config, KeystoreBackend};
use keyapp::control::{self, Command};
use keyapp::keystore::PassphraseSource;
use reqwest::Method;
use schcp::claims::OfferClaims;
use schcp::jwk::Jwk;
use serde_json::{json, Value};
use std::path::Path;
use testhost::{TestHost, TestHostConfig};

pub(crate) struct Env {
    pub(crate) _dir: tempfile::TempDir,
    pub(crate) host: TestHost,
    pub(crate) config: Config,
    pub(crate) app: Running,
}

pub(crate) fn config_for(dir: &Path, host: &TestHost) -> Config {
    Config::parse(&host.keyapp_test_config(dir).unwrap(), Path::new("test.toml")).unwrap()
}

pub(crate) async fn start() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let host = TestHost::start(TestHostConfig::default()).await;
    let config = config_for(dir.path(), &host);
    assert_eq!(config.keystore.backend, KeystoreBackend::Os);
    let app = app::start(config.clone(), PassphraseSource::default()).await.expect("the key app starts");
    Env { _dir: dir, host, config, app }
}

pub(crate) fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

pub(crate) fn agent(env: &Env, seed: u8) -> AgentClient {
    AgentClient::new(format!("http://{}", env.app.agent_addr), SigningKey::from_bytes(&[seed; 32]))
}

pub(crate) fn jkt(client: &AgentClient) -> String {
    Jwk::ed25519(&client.key().verifying_key()).thumbprint().unwrap()
}

/// The person's side, over the real control socket.
pub(crate) async fn person(env: &Env, cmd: Command) -> Result<Value, Value> {
    control::call(&env.app.runtime_dir, &cmd).await.expect("the control socket answers")
}

pub(crate) async fn paired_agent(env: &Env, seed: u8) -> AgentClient {
    let a = agent(env, seed);
    let p = a.call(Method::POST, "/v1/pairings", Some(&json!({"agent_name": "Calendar Assistant"}))).await.unwrap();
    let id = p["pairing_id"].as_str().unwrap().to_owned();
    person(env, Command::Approve { id: id.clone() }).await.unwrap();
    let p = a.call(Method::GET, &format!("/v1/pairings/{id}"), None).await.unwrap();
    assert_eq!(p["status"], "approved");
    a
}

/// An offer for a slot in the future (the spec's slot is in the past by now).
pub(crate) fn future_offer(host: &TestHost, days_ahead: i64) -> (OfferClaims, String) {
    let mut c = host.priced_offer(now());
    let start = chrono::Utc::now() + chrono::Duration::days(days_ahead);
    c.slot.start = start.format("%Y-%m-%dT13:00:00-04:00").to_string();
    c.slot.end = Some(start.format("%Y-%m-%dT13:45:00-04:00").to_string());
    let compact = host.sign_offer(&c).unwrap();
    (c, compact)
}

pub(crate) fn closed_request(env: &Env, offer: &str, key: &str) -> Value {
    json!({"kind": "closed_mandate", "idempotency_key": key, "offer": offer, "discovery": env.host.discovery_url()})
}
