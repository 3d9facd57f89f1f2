//! The key app proves itself to agents (docs/agent-api.md §1, §7): its
//! `agent-api.json` goes on a clean stop, and a stranger listening on the port
//! a stale one names, even one replaying a real proof, is refused by the agent
//! crate as an impostor; a key app finding a stale file checks what answers
//! before it writes its own.

use agent::{AgentClient, AgentError, AgentProfile};
use ed25519_dalek::SigningKey;
use keyapp::agent_api::announce::{self, Previous};
use keyapp::control::{self, Command};
use reqwest::Method;
use serde_json::{json, Value};
use std::time::Duration;
use testkit::file_keyed::*;
use testkit::stranger::Stranger;

async fn approve(runtime_dir: &std::path::Path, id: &str) {
    control::call(runtime_dir, &Command::Approve { id: id.to_owned() }).await.unwrap().unwrap();
}

fn url_in(path: &std::path::Path) -> Option<String> {
    let v: Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    v["url"].as_str().map(str::to_owned)
}

fn assert_impostor(e: AgentError, port: u16) -> String {
    let sentence = e.to_string();
    match e {
        AgentError::Impostor { address, reason } => {
            assert_eq!(address, format!("127.0.0.1:{port}"));
            assert!(
                sentence.starts_with(&format!("the program listening at 127.0.0.1:{port} is not your key app")),
                "{sentence}"
            );
            reason
        }
        other => panic!("not named an impostor: {other:?}"),
    }
}

#[tokio::test]
async fn a_stranger_on_the_recorded_port_is_refused_as_an_impostor() {
    let dir = tempfile::tempdir().unwrap();
    let app = start_with(config(dir.path())).await;
    let port = app.agent_addr.port();
    let url = format!("http://{}", app.agent_addr);
    let info = app.runtime_dir.join(announce::FILE_NAME);
    assert_eq!(url_in(&info).as_deref(), Some(url.as_str()));
    let profile = AgentProfile::at(dir.path().join("agent"));
    let key = SigningKey::from_bytes(&[42; 32]);
    let client = AgentClient::new(&url, key.clone()).pinned_in(profile.clone());

    // Unpaired, the key app proves itself, and nothing is pinned yet.
    let proven = client.prove().await.unwrap();
    assert!(!proven.paired);
    assert_eq!(profile.pinned_principal(), None);
    let pairing = client.pair("Calendar Assistant").await.unwrap();
    approve(&app.runtime_dir, &pairing.pairing_id).await;
    // Paired: the first proof pins the principal key.
    let proven = client.prove().await.unwrap();
    let principal_jwk: schcp::jwk::Jwk = serde_json::from_value(proven.jwk.clone()).unwrap();
    assert!(proven.paired);
    assert_eq!(profile.pinned_principal(), Some(principal_jwk.thumbprint().unwrap()));
    assert_eq!(proven.principal, app.service.profile().principal());
    client.mandates().await.expect("the key app it pinned answers");

    // A real answer, with a real proof, for the stranger to replay later.
    let nonce = schcp::b64::encode([7u8; 32]);
    let (status, real) = AgentClient::new(&url, key.clone())
        .send(Method::GET, &format!("/v1/principal?nonce={nonce}"), None)
        .await
        .unwrap();
    assert_eq!(status, 200, "{real}");

    // A clean stop removes agent-api.json.
    app.withdraw();
    drop(app);
    assert!(!info.exists(), "agent-api.json outlived the key app");
    // Dropping the app aborts its listeners' tasks; they close their sockets
    // once this runtime gets to run them.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;

    // A crash would have left it naming the port, where a stranger now listens
    // (another user's process when the test runs as root).
    std::fs::write(&info, json!({ "url": url, "schcp": "0.4" }).to_string()).unwrap();
    let stranger = Stranger::listen(port, &real.to_string());
    assert_eq!(agent::agent_api_url(&info).unwrap(), url, "the stale file names the stranger");
    let fresh = AgentClient::new(&url, key.clone()).pinned_in(profile.clone());
    let reason = assert_impostor(fresh.mandates().await.unwrap_err(), port);
    assert!(reason.contains("nonce"), "a replayed proof answers another nonce: {reason}");
    assert_impostor(fresh.prove().await.unwrap_err(), port);
    // The pin is unchanged, and the stranger was asked for nothing but proofs.
    assert_eq!(profile.pinned_principal(), Some(principal_jwk.thumbprint().unwrap()));
    let asked = stranger.requests();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(asked.iter().all(|l| l.starts_with("GET /v1/principal?nonce=")), "{asked:?}");

    // A stranger showing its own key and a proof it made for this agent and
    // this nonce is still not the key app this profile pinned.
    let other = SigningKey::from_bytes(&[43; 32]);
    let other_jwk = schcp::jwk::Jwk::ed25519(&other.verifying_key());
    let agent_jkt = schcp::jwk::Jwk::ed25519(&key.verifying_key()).thumbprint().unwrap();
    let forged = schcp::keyapp_proof::sign(&other, &agent_jkt, &nonce, chrono::Utc::now().timestamp()).unwrap();
    let body =
        json!({"principal": other_jwk.principal_id().unwrap(), "jwk": other_jwk, "paired": true, "proof": forged});
    let stranger = Stranger::listen(port, &body.to_string());
    let reason = assert_impostor(fresh.prove().await.unwrap_err(), port);
    assert!(reason.contains("another key"), "{reason}");
    // Nor is anything answering without a proof (the stranger's own JSON).
    drop(stranger);
    let stranger = Stranger::listen(port, r#"{"principal": "urn:schcp:principal:jwk-thumbprint:x", "paired": true}"#);
    assert_impostor(AgentClient::new(&url, key).pinned_in(profile).principal().await.unwrap_err(), port);
    drop(stranger);
}

#[tokio::test]
async fn a_stale_file_is_replaced_only_once_its_url_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let app = start_with(config.clone()).await;
    let info = app.runtime_dir.join(announce::FILE_NAME);
    let url = format!("http://{}", app.agent_addr);
    // Where this key app answers, it proves itself with its own key; checked
    // with another principal key, it is a stranger.
    assert_eq!(announce::check(&info, &app.service.profile().principal_jwk()).await, Previous::Ours(url.clone()));
    let other = schcp::jwk::Jwk::ed25519(&SigningKey::from_bytes(&[5; 32]).verifying_key());
    assert_eq!(announce::check(&info, &other).await, Previous::Stranger(url.clone()));
    let runtime_dir = app.runtime_dir.clone();
    drop(app);
    assert!(!info.exists(), "dropping the running service withdraws the file too");

    // Left naming a port where nothing answers: replaced.
    std::fs::write(&info, json!({ "url": url }).to_string()).unwrap();
    let app = start_with(config.clone()).await;
    let now_named = url_in(&info).unwrap();
    assert_eq!(now_named, format!("http://{}", app.agent_addr));
    drop(app);

    // Left naming a port where a stranger answers: the key app writes its own
    // address, never the stranger's, and the stranger keeps its port.
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port();
    drop(held);
    let stranger = Stranger::listen(port, "{}");
    let stale = format!("http://127.0.0.1:{port}");
    std::fs::write(&info, json!({ "url": stale }).to_string()).unwrap();
    let app = start_with(config).await;
    let named = url_in(&info).unwrap();
    assert_eq!(named, format!("http://{}", app.agent_addr));
    assert_ne!(named, stale);
    assert_eq!(app.runtime_dir, runtime_dir);
    drop(app);
    let asked = stranger.requests();
    assert_eq!(asked.len(), 1, "the key app asked the stranger once, for its proof: {asked:?}");
}

/// `schcp-keyapp serve` stopped by SIGTERM or SIGINT removes agent-api.json.
#[tokio::test]
async fn serve_removes_agent_api_json_on_sigterm_and_sigint() {
    for signal in [rustix::process::Signal::TERM, rustix::process::Signal::INT] {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let config = dir.path().join("keyapp.toml");
        std::fs::write(
            &config,
            format!(
                "data_dir = {:?}\nlocale = \"en\"\n[agent_api]\nlisten = \"127.0.0.1:0\"\n[status_api]\nlisten = \"127.0.0.1:0\"\n[keystore]\nbackend = \"file\"\n",
                data.display().to_string()
            ),
        )
        .unwrap();
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_schcp-keyapp"))
            .arg("--config")
            .arg(&config)
            .arg("serve")
            .env("SCHCP_KEYAPP_PASSPHRASE", "correct horse battery staple")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let info = data.join("run").join(announce::FILE_NAME);
        let written = tokio::time::timeout(Duration::from_secs(60), async {
            while url_in(&info).is_none() {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await;
        assert!(written.is_ok(), "serve wrote no agent-api.json");
        let pid = rustix::process::Pid::from_raw(child.id().unwrap() as i32).unwrap();
        rustix::process::kill_process(pid, signal).unwrap();
        let status = tokio::time::timeout(Duration::from_secs(30), child.wait()).await.unwrap().unwrap();
        assert!(status.success(), "{signal:?}: {status}");
        assert!(!info.exists(), "{signal:?}: agent-api.json outlived the key app");
    }
}
