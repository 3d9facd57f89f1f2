//! The service's logs (issue 8), in a test binary of their own: tracing
//! caches which events a call site's subscribers want, so a subscriber set
//! for one test is only reliable in a process no other test logs from.

use agent::AgentClient;
use ed25519_dalek::SigningKey;
use keyapp::app::{self, Running};
use keyapp::config::{Config, KeystoreBackend};
use keyapp::control::{self, Command};
use keyapp::keystore::PassphraseSource;
use reqwest::Method;
use schcp::claims::OfferClaims;
use serde_json::{json, Value};
use std::path::Path;
use testhost::{TestHost, TestHostConfig};

struct Env {
    _dir: tempfile::TempDir,
    host: TestHost,
    app: Running,
}

fn config_for(dir: &Path, host: &TestHost) -> Config {
    let ca = dir.join("ca.pem");
    std::fs::write(&ca, host.ca_pem()).unwrap();
    let (domain, addr) = host.resolve();
    let text = format!(
        r#"
data_dir = "{data}"
locale = "en"
[agent_api]
listen = "127.0.0.1:0"
[status_api]
listen = "127.0.0.1:0"
public_base = "https://keyapp.example"
[discovery]
extra_root_certs = ["{ca}"]
resolve = {{ "{domain}" = "{addr}" }}
"#,
        data = dir.join("data").display(),
        ca = ca.display()
    );
    Config::parse(&text, Path::new("test.toml")).unwrap()
}

async fn start() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let host = TestHost::start(TestHostConfig::default()).await;
    let config = config_for(dir.path(), &host);
    assert_eq!(config.keystore.backend, KeystoreBackend::Os);
    let app = app::start(config.clone(), PassphraseSource::default()).await.expect("the key app starts");
    Env { _dir: dir, host, app }
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn agent(env: &Env, seed: u8) -> AgentClient {
    AgentClient::new(format!("http://{}", env.app.agent_addr), SigningKey::from_bytes(&[seed; 32]))
}

/// The person's side, over the real control socket.
async fn person(env: &Env, cmd: Command) -> Result<Value, Value> {
    control::call(&env.app.runtime_dir, &cmd).await.expect("the control socket answers")
}

async fn paired_agent(env: &Env, seed: u8) -> AgentClient {
    let a = agent(env, seed);
    let p = a.call(Method::POST, "/v1/pairings", Some(&json!({"agent_name": "Calendar Assistant"}))).await.unwrap();
    let id = p["pairing_id"].as_str().unwrap().to_owned();
    person(env, Command::Approve { id: id.clone() }).await.unwrap();
    let p = a.call(Method::GET, &format!("/v1/pairings/{id}"), None).await.unwrap();
    assert_eq!(p["status"], "approved");
    a
}

/// An offer for a slot in the future (the spec's slot is in the past by now).
fn future_offer(host: &TestHost, days_ahead: i64) -> (OfferClaims, String) {
    let mut c = host.priced_offer(now());
    let start = chrono::Utc::now() + chrono::Duration::days(days_ahead);
    c.slot.start = start.format("%Y-%m-%dT13:00:00-04:00").to_string();
    c.slot.end = Some(start.format("%Y-%m-%dT13:45:00-04:00").to_string());
    let compact = host.sign_offer(&c).unwrap();
    (c, compact)
}

fn closed_request(env: &Env, offer: &str, key: &str) -> Value {
    json!({"kind": "closed_mandate", "idempotency_key": key, "offer": offer, "discovery": env.host.discovery_url()})
}

/// A writer the test subscriber appends every log line to.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// At the default level the logs tell a request's life (pairing, accepted,
/// refused with its reason, approved) and nothing personal: no consent text,
/// no agent name, no principal, no offer, no credential. One thread, so every
/// task of the service logs to this test's subscriber.
#[tokio::test(flavor = "current_thread")]
async fn logs_tell_a_requests_life_without_personal_data() {
    let captured = Captured::default();
    let sink = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("info"))
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let env = start().await;
    let a = paired_agent(&env, 31).await;
    let (_, offer) = future_offer(&env.host, 3);
    let r = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "logged"))).await.unwrap();
    let rid = r["request_id"].as_str().unwrap().to_owned();
    let refused = json!({"kind": "closed_mandate", "idempotency_key": "bad", "offer": "x.y.z",
                         "discovery": env.host.discovery_url()});
    assert!(a.call(Method::POST, "/v1/requests", Some(&refused)).await.is_err());
    let done = person(&env, Command::Approve { id: rid.clone() }).await.unwrap();
    let mandate = done["result"]["mandate"].as_str().unwrap().to_owned();

    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    for event in ["starting", "principal key loaded", "listening", "pairing requested", "pairing answered"] {
        assert!(logs.contains(event), "no {event:?} in:\n{logs}");
    }
    assert!(logs.contains(&format!("request_id={rid}")) && logs.contains("kind=closed_mandate"), "{logs}");
    assert!(logs.contains("request accepted") && logs.contains("request approved"), "{logs}");
    assert!(logs.contains("request refused") && logs.contains("reason="), "{logs}");
    let consent = r["consent_text"].as_str().unwrap();
    for secret in [consent.lines().next().unwrap(), "Calendar Assistant", env.app.service.principal(), &offer, &mandate]
    {
        assert!(!logs.contains(secret), "the logs hold {secret:?}:\n{logs}");
    }
}
