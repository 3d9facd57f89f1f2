//! The outbound policy (§5.8): a URL an agent hands the key app cannot
//! take the key app's HTTPS client anywhere but a public address or a name the
//! person pinned in `[discovery] resolve`. Each refused URL points at a loopback
//! listener of our own, which must see no connection at all; the test host
//! (pinned) counts its own connections.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;

use agent::AgentClient;
use ed25519_dalek::SigningKey;
use keyapp::app::{self, Running};
use keyapp::config::{self, Config};
use keyapp::control::{self, Command};
use keyapp::discovery::{DiscoveryClient, DiscoveryError};
use keyapp::keystore::PassphraseSource;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use testhost::{TestHost, TestHostConfig};

/// A loopback listener that is never accepted from: a connection attempt would
/// sit in its backlog, where `untouched` finds it.
struct Trap {
    listener: TcpListener,
}

impl Trap {
    fn bind(addr: &str) -> Option<Trap> {
        let listener = TcpListener::bind(addr).ok()?;
        listener.set_nonblocking(true).unwrap();
        Some(Trap { listener })
    }
    fn port(&self) -> u16 {
        self.listener.local_addr().unwrap().port()
    }
    #[track_caller]
    fn assert_untouched(&self, what: &str) {
        match self.listener.accept() {
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            Ok((_, peer)) => panic!("{what}: the key app connected to the trap (from {peer})"),
            Err(e) => panic!("{what}: {e}"),
        }
    }
}

/// The refused URLs, each aimed at a trap, with the rule that refuses it.
struct Traps {
    v4: Trap,
    v4_other: Trap,
    v6: Option<Trap>,
}

impl Traps {
    fn new() -> Traps {
        // 127.0.0.3: any loopback address, not only 127.0.0.1.
        let v4 = Trap::bind("127.0.0.3:0").expect("bind 127.0.0.3");
        let v4_other = Trap::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        // A machine without IPv6 loopback still refuses [::1] (the URL check needs no socket).
        let v6 = Trap::bind("[::1]:0");
        Traps { v4, v4_other, v6 }
    }

    fn cases(&self, pinned_name: &str) -> Vec<(String, &'static str)> {
        let p = self.v4.port();
        let q = self.v4_other.port();
        let v6 = self.v6.as_ref().map_or(9, Trap::port);
        vec![
            (format!("https://127.0.0.3:{p}/.well-known/scheduling.json"), "non_public_address"),
            (format!("https://[::1]:{v6}/.well-known/scheduling.json"), "non_public_address"),
            (format!("https://[::ffff:127.0.0.1]:{q}/.well-known/scheduling.json"), "non_public_address"),
            // A name the system resolves to loopback, checked inside the resolver.
            (format!("https://localhost:{q}/.well-known/scheduling.json"), "non_public_address"),
            (format!("https://LocalHost:{q}/.well-known/scheduling.json"), "non_public_address"),
            (format!("https://user:pass@{pinned_name}/.well-known/scheduling.json"), "credentials"),
            (format!("https://user:pass@127.0.0.3:{p}/.well-known/scheduling.json"), "credentials"),
            (format!("http://{pinned_name}/.well-known/scheduling.json"), "not_https"),
            // The pinned name, on another port: pinned means that address and port only.
            (format!("https://{pinned_name}:{q}/.well-known/scheduling.json"), "pinned_port"),
        ]
    }

    #[track_caller]
    fn assert_untouched(&self, what: &str) {
        self.v4.assert_untouched(what);
        self.v4_other.assert_untouched(what);
        if let Some(v6) = &self.v6 {
            v6.assert_untouched(what);
        }
    }
}

fn discovery_config(host: &TestHost, dir: &Path) -> config::Discovery {
    let ca = dir.join("ca.pem");
    std::fs::write(&ca, host.ca_pem()).unwrap();
    let (name, addr) = host.resolve();
    config::Discovery { extra_root_certs: vec![ca], resolve: BTreeMap::from([(name, addr)]) }
}

#[tokio::test]
async fn the_discovery_client_connects_to_no_refused_address() {
    let host = TestHost::start(TestHostConfig::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let client = DiscoveryClient::new(&discovery_config(&host, dir.path())).unwrap();
    let traps = Traps::new();
    let (pinned_name, _) = host.resolve();
    for (url, rule) in traps.cases(&pinned_name) {
        let err = client.fetch(&url).await.unwrap_err();
        let DiscoveryError::Refused { refusal, .. } = &err else { panic!("{url}: {err:?}") };
        assert_eq!(refusal.rule(), rule, "{url}: {err}");
        let api = err.api_error();
        assert_eq!((api.status.as_u16(), api.reason.as_str()), (422, "discovery_url_refused"), "{url}");
        traps.assert_untouched(&url);
    }
    assert_eq!(host.connections(), 0, "nothing reached the pinned host either");

    // The pinned name itself, on its own port or none, is still reached.
    let addr: SocketAddr = host.resolve().1;
    client.fetch(&host.discovery_url()).await.unwrap();
    client.fetch(&format!("https://{pinned_name}:{}/.well-known/scheduling.json", addr.port())).await.unwrap();
    assert_eq!(host.discovery_requests(), 2);
}

struct Env {
    _dir: tempfile::TempDir,
    host: TestHost,
    app: Running,
}

/// A key app on the file keystore (no keychain needed), trusting the test host.
async fn start() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let host = TestHost::start(TestHostConfig::default()).await;
    let mut config = Config { data_dir: Some(dir.path().join("data")), locale: Some("en".into()), ..Config::default() };
    config.agent_api.listen = "127.0.0.1:0".parse().unwrap();
    config.status_api.listen = "127.0.0.1:0".parse().unwrap();
    config.keystore.backend = config::KeystoreBackend::File;
    config.discovery = discovery_config(&host, dir.path());
    let app = app::start(config, PassphraseSource::Fixed("correct horse battery staple".to_owned().into()))
        .await
        .expect("the key app starts");
    Env { _dir: dir, host, app }
}

async fn person(env: &Env, cmd: Command) -> Value {
    control::call(&env.app.runtime_dir, &cmd).await.unwrap().expect("the command succeeds")
}

#[tokio::test]
async fn an_agent_naming_a_refused_url_gets_422_and_the_person_is_not_asked() {
    let env = start().await;
    let a = AgentClient::new(format!("http://{}", env.app.agent_addr), SigningKey::from_bytes(&[7; 32]));
    let p = a.call(Method::POST, "/v1/pairings", Some(&json!({"agent_name": "Probe"}))).await.unwrap();
    person(&env, Command::Approve { id: p["pairing_id"].as_str().unwrap().to_owned() }).await;

    let offer = env.host.offer(chrono::Utc::now().timestamp());
    let traps = Traps::new();
    let (pinned_name, _) = env.host.resolve();
    for (i, (url, rule)) in traps.cases(&pinned_name).into_iter().enumerate() {
        let body =
            json!({"kind": "closed_mandate", "idempotency_key": format!("o{i}"), "offer": offer, "discovery": url});
        let (status, answer) = a.send(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{url}: {answer}");
        assert_eq!(answer["error"]["reason"], "discovery_url_refused", "{url}: {answer}");
        assert_eq!(answer["error"]["details"]["rule"], rule, "{url}: {answer}");
        traps.assert_untouched(&url);
    }
    assert_eq!(env.host.connections(), 0);
    assert_eq!(person(&env, Command::Pending).await, json!([]), "nothing reached the person");
}
