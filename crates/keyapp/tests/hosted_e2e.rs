//! The key app in hosted mode end to end: the real `schcp-status`
//! binary on a real PostgreSQL (`DATABASE_URL`; run under scripts/with-postgres,
//! as scripts/test does), the real key app (scripts/with-keyring), a host
//! claiming at the service. `cargo test --workspace` builds `schcp-status`
//! (its crate has integration tests); a narrower run needs
//! `cargo build -p schcp-status` first.

use keyapp::app;
use keyapp::control::Command;
use keyapp::keystore::PassphraseSource;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

use testkit::env::*;
use testkit::status_process::StatusProcess;

fn database_url() -> String {
    match std::env::var("DATABASE_URL") {
        Ok(u) if !u.is_empty() => u,
        _ => panic!(
            "DATABASE_URL is not set: hosted mode is tested against a real PostgreSQL. Run under \
             scripts/with-postgres (scripts/test does)"
        ),
    }
}

/// target/debug/schcp-status, beside this test's own directory.
fn status_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().and_then(|deps| deps.parent()).unwrap().join("schcp-status");
    assert!(bin.exists(), "{} is not built: run `cargo build -p schcp-status` (scripts/test builds it)", bin.display());
    bin
}

/// Migrates the database (idempotent), then serves `schcp-status` on `listen`.
fn start_status(listen: &str) -> StatusProcess {
    StatusProcess::migrate(&status_bin(), &database_url());
    StatusProcess::spawn(&status_bin(), &database_url(), listen, None)
}

async fn start_keyapp(dir: &std::path::Path, host: &testhost::TestHost, hosted: &str) -> app::Running {
    let mut config = config_for(dir, host);
    config.status_api.hosted = Some(hosted.to_owned());
    app::start(config, PassphraseSource::default()).await.expect("the key app starts")
}

/// Issues a shared-limit mandate (2 bookings, one host) and returns (jti, status URL).
async fn issue_shared(env: &Env, seed: u8, key: &str) -> (String, String) {
    let a = paired_agent(env, seed).await;
    let body = json!({
        "kind": "mandate", "idempotency_key": key,
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book"], "constraints": {"max_bookings": 2, "shared_limit": true}
    });
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let rid = r["request_id"].as_str().unwrap().to_owned();
    person(env, Command::Approve { id: rid.clone() }).await.unwrap();
    // Registered before the approval returned: the agent has it at once.
    let done = a.call(Method::GET, &format!("/v1/requests/{rid}"), None).await.unwrap();
    assert_eq!(done["status"], "approved", "{done}");
    (done["result"]["jti"].as_str().unwrap().to_owned(), done["result"]["status"].as_str().unwrap().to_owned())
}

async fn get(url: &str) -> (StatusCode, Value) {
    let r = reqwest::get(url).await.unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn claim(url: &str, claim_id: &str) -> (StatusCode, Value) {
    let r =
        reqwest::Client::new().post(format!("{url}/claims")).json(&json!({"claim_id": claim_id})).send().await.unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// `schcp-keyapp mandates`, the real terminal program, on the running key app.
async fn cli_mandates(env: &Env) -> String {
    let config_path = env._dir.path().join("keyapp.toml");
    std::fs::write(&config_path, format!("data_dir = \"{}\"\n", env.config.data_dir.as_ref().unwrap().display()))
        .unwrap();
    tokio::task::spawn_blocking(move || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_schcp-keyapp"))
            .arg("--config")
            .arg(&config_path)
            .arg("mandates")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn a_mandate_is_claimable_at_the_service_while_the_key_app_is_stopped_and_revoking_flips_it() {
    let server = start_status("127.0.0.1:0");
    let dir = tempfile::tempdir().unwrap();
    let host = testhost::TestHost::start(testhost::TestHostConfig::default()).await;
    let app = start_keyapp(dir.path(), &host, &server.base()).await;
    let config = config_for(dir.path(), &host);
    let env = Env { _dir: dir, host, config, app };
    let (jti, url) = issue_shared(&env, 50, "e2e-1").await;
    assert!(url.starts_with(&format!("{}/status/", server.base())) && url.ends_with(&format!("/{jti}")), "{url}");

    // The key app stops: the laptop's lid is closed.
    let Env { _dir, host, config, app } = env;
    drop(app);
    let (code, status) = get(&url).await;
    assert_eq!((code, &status), (StatusCode::OK, &json!({"jti": jti, "status": "active", "remaining": 2})));
    assert_eq!(
        claim(&url, "maple-street-auto/h_1").await,
        (StatusCode::CREATED, json!({"claim_id": "maple-street-auto/h_1", "remaining": 1}))
    );
    assert_eq!(claim(&url, "maple-street-auto/h_1").await.0, StatusCode::OK, "a repeat spends nothing");
    let (code, body) = claim(&url, "another-host/h_9").await;
    assert_eq!((code, body["error"]["reason"].as_str()), (StatusCode::BAD_REQUEST, Some("host_not_in_audience")));

    // Back up: the person's count is the service's.
    let app = app::start(config.clone(), PassphraseSource::default()).await.unwrap();
    let env = Env { _dir, host, config, app };
    let listed = person(&env, Command::Mandates).await.unwrap();
    let mine = listed.as_array().unwrap().iter().find(|m| m["jti"] == jti).unwrap().clone();
    assert_eq!(mine["remaining"], 1, "{mine}");

    person(&env, Command::Revoke { jti: jti.clone() }).await.unwrap();
    let (_, status) = get(&url).await;
    assert_eq!(status["status"], "revoked", "published before revoke returned");
    let (code, body) = claim(&url, "maple-street-auto/h_2").await;
    assert_eq!((code, body["error"]["reason"].as_str()), (StatusCode::FORBIDDEN, Some("mandate_revoked")));
    assert!(!cli_mandates(&env).await.contains("not yet published"));
}

#[tokio::test]
async fn a_revocation_made_while_the_service_is_down_arrives_once_it_is_up() {
    let mut server = start_status("127.0.0.1:0");
    let addr = server.addr;
    let env = {
        let dir = tempfile::tempdir().unwrap();
        let host = testhost::TestHost::start(testhost::TestHostConfig::default()).await;
        let app = start_keyapp(dir.path(), &host, &server.base()).await;
        let config = config_for(dir.path(), &host);
        Env { _dir: dir, host, config, app }
    };
    let (jti, url) = issue_shared(&env, 51, "e2e-2").await;

    server.kill();
    person(&env, Command::Revoke { jti: jti.clone() }).await.unwrap();
    let said = cli_mandates(&env).await;
    let line = said.lines().find(|l| l.starts_with(&jti)).unwrap_or_default().to_owned();
    assert!(line.contains("\trevoked\t") && line.contains("(revocation not yet published)"), "{said}");

    // The service comes back on the same address, still saying active until told.
    let _server = start_status(&addr.to_string());
    let mut arrived = false;
    for _ in 0..150 {
        if get(&url).await.1["status"] == "revoked" {
            arrived = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(arrived, "the revocation reached the service within 30 s");
    let mut published = false;
    for _ in 0..25 {
        if !cli_mandates(&env).await.contains("not yet published") {
            published = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(published, "the terminal stops saying so once acknowledged");
}
