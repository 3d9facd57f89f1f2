//! The key app started for real on loopback ports with the OS keychain (run
//! under scripts/with-keyring), beside an HTTPS test host with its own CA, and
//! agents signing real requests to it. The person answers over the real
//! control socket.

use crate::now;
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
use std::path::{Path, PathBuf};
use testhost::{TestHost, TestHostConfig};

/// A running key app, the host it trusts, and the folder holding its records.
pub struct Env {
    pub _dir: tempfile::TempDir,
    pub host: TestHost,
    pub config: Config,
    pub app: Running,
}

/// The test host's key app configuration for records under `dir`.
pub fn config_for(dir: &Path, host: &TestHost) -> Config {
    Config::parse(&host.keyapp_test_config(dir).unwrap(), Path::new("test.toml")).unwrap()
}

/// The key app beside a default test host, on the OS keychain.
pub async fn start() -> Env {
    start_with(|_| {}).await
}

/// The same, its configuration first changed by `edit` (a locale, hosted mode).
pub async fn start_with(edit: impl FnOnce(&mut Config)) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let host = TestHost::start(TestHostConfig::default()).await;
    let mut config = config_for(dir.path(), &host);
    edit(&mut config);
    assert_eq!(config.keystore.backend, KeystoreBackend::Os);
    let app = app::start(config.clone(), PassphraseSource::default()).await.expect("the key app starts");
    Env { _dir: dir, host, config, app }
}

/// An agent with the key `[seed; 32]`, not yet paired.
pub fn agent(env: &Env, seed: u8) -> AgentClient {
    AgentClient::new(format!("http://{}", env.app.agent_addr), SigningKey::from_bytes(&[seed; 32]))
}

/// The agent's key thumbprint, as the key app names it.
pub fn jkt(client: &AgentClient) -> String {
    Jwk::ed25519(&client.key().verifying_key()).thumbprint().unwrap()
}

/// The person's side, over the real control socket.
pub async fn person(env: &Env, cmd: Command) -> Result<Value, Value> {
    control::call(&env.app.runtime_dir, &cmd).await.expect("the control socket answers")
}

/// The ids of what waits for the person's answer.
pub async fn pending_ids(env: &Env) -> Vec<String> {
    let v = person(env, Command::Pending).await.unwrap();
    v.as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_owned()).collect()
}

/// The person approves the request the agent was answered `created` for (its
/// `POST /v1/requests`), then the agent reads the request back: its result.
pub async fn approved(env: &Env, a: &AgentClient, created: &Value) -> Value {
    let rid = created["request_id"].as_str().expect("a request id").to_owned();
    person(env, Command::Approve { id: rid.clone() }).await.unwrap();
    a.call(Method::GET, &format!("/v1/requests/{rid}"), None).await.unwrap()
}

/// An agent the person paired.
pub async fn paired_agent(env: &Env, seed: u8) -> AgentClient {
    let a = agent(env, seed);
    let p = a.call(Method::POST, "/v1/pairings", Some(&json!({"agent_name": "Calendar Assistant"}))).await.unwrap();
    let id = p["pairing_id"].as_str().unwrap().to_owned();
    person(env, Command::Approve { id: id.clone() }).await.unwrap();
    let p = a.call(Method::GET, &format!("/v1/pairings/{id}"), None).await.unwrap();
    assert_eq!(p["status"], "approved");
    a
}

/// An offer for 13:00 Toronto time `days_ahead` days from now (the spec's slot
/// is in the past by now), and its compact JWS.
pub fn future_offer(host: &TestHost, days_ahead: i64) -> (OfferClaims, String) {
    let mut c = host.priced_offer(now());
    let start = chrono::Utc::now() + chrono::Duration::days(days_ahead);
    c.slot.start = start.format("%Y-%m-%dT13:00:00-04:00").to_string();
    c.slot.end = Some(start.format("%Y-%m-%dT13:45:00-04:00").to_string());
    let compact = host.sign_offer(&c).unwrap();
    (c, compact)
}

/// A `closed_mandate` request over `offer`.
pub fn closed_request(env: &Env, offer: &str, key: &str) -> Value {
    json!({"kind": "closed_mandate", "idempotency_key": key, "offer": offer, "discovery": env.host.discovery_url()})
}

/// A config file for the terminal program beside `env`'s records, naming
/// their folder only (the program finds the running key app from it).
pub fn terminal_config(env: &Env) -> PathBuf {
    let path = env._dir.path().join("keyapp.toml");
    let data_dir = env.config.data_dir.as_ref().expect("the test config names its data_dir");
    std::fs::write(&path, format!("data_dir = \"{}\"\n", data_dir.display())).unwrap();
    path
}

/// `bin --config CONFIG ARGS…`, the key app's terminal program (the suite
/// names it: `env!("CARGO_BIN_EXE_schcp-keyapp")`), with `input` on its
/// stdin, then closed: whether it succeeded, its stdout and its stderr.
pub async fn terminal(bin: &str, config: &Path, args: &[&str], input: &str) -> (bool, String, String) {
    let mut command = std::process::Command::new(bin);
    command.arg("--config").arg(config).args(args);
    let input = input.to_owned();
    tokio::task::spawn_blocking(move || crate::terminal::with_input(&mut command, &input)).await.unwrap()
}
