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
use std::time::Duration;

use testkit::env::*;
use testkit::status_process::StatusProcess;

async fn start_keyapp(dir: &std::path::Path, host: &testhost::TestHost, hosted: &str) -> app::Running {
    let mut config = config_for(dir, host);
    config.status_api.hosted = Some(hosted.to_owned());
    // The service is on this machine, over http: hosts here can read it.
    config.status_api.hosts_on_this_machine = true;
    app::start(config, PassphraseSource::default()).await.expect("the key app starts")
}

/// A shared-limit mandate request (2 bookings, one host).
fn shared_request(env: &Env, key: &str) -> Value {
    json!({
        "kind": "mandate", "idempotency_key": key,
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book"], "constraints": {"max_bookings": 2, "shared_limit": true}
    })
}

/// Issues a shared-limit mandate (2 bookings, one host) and returns (jti, status URL).
async fn issue_shared(env: &Env, seed: u8, key: &str) -> (String, String) {
    let a = paired_agent(env, seed).await;
    let r = a.call(Method::POST, "/v1/requests", Some(&shared_request(env, key))).await.unwrap();
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
    let (ok, out, err) = terminal(env!("CARGO_BIN_EXE_schcp-keyapp"), &terminal_config(env), &["mandates"], "").await;
    assert!(ok, "{err}");
    out
}

#[tokio::test]
async fn a_mandate_is_claimable_at_the_service_while_the_key_app_is_stopped_and_revoking_flips_it() {
    let server = StatusProcess::start("127.0.0.1:0", None);
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
    let mut server = StatusProcess::start("127.0.0.1:0", None);
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
    let _server = StatusProcess::start(&addr.to_string(), None);
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

/// The key app in hosted mode on `server`, beside a fresh test host.
async fn hosted_env(server: &StatusProcess) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let host = testhost::TestHost::start(testhost::TestHostConfig::default()).await;
    let app = start_keyapp(dir.path(), &host, &server.base()).await;
    let mut config = config_for(dir.path(), &host);
    config.status_api.hosted = Some(server.base());
    Env { _dir: dir, host, config, app }
}

/// The outbox rows of `jti`: (op, attempts, refusal, acknowledged).
async fn outbox_rows(env: &Env, jti: &str) -> Vec<(String, i64, Option<String>, bool)> {
    sqlx::query_as("SELECT op, attempts, refusal, acked_at IS NOT NULL FROM status_outbox WHERE jti = ? ORDER BY id")
        .bind(jti)
        .fetch_all(env.app.service.records().store().pool())
        .await
        .unwrap()
}

/// A shared-limit mandate request the person approves; the agent then polls
/// it with `wait`. Returns (its id, the person's answer, the agent's status, its body).
async fn approve_and_poll(env: &Env, a: &agent::AgentClient, key: &str) -> (String, Value, StatusCode, Value) {
    let r = a.call(Method::POST, "/v1/requests", Some(&shared_request(env, key))).await.unwrap();
    let rid = r["request_id"].as_str().unwrap().to_owned();
    let answer = person(env, Command::Approve { id: rid.clone() }).await.unwrap();
    let (status, body) = a.send(Method::GET, &format!("/v1/requests/{rid}?wait=30"), None).await.unwrap();
    (rid, answer, status, body)
}

/// A namespace the service refuses for good: the agent is told at once, the
/// registration is not retried, the refusal is kept, and nothing is owed.
#[tokio::test]
async fn a_full_namespace_refuses_for_good_and_the_agent_stops_waiting() {
    let server = StatusProcess::start("127.0.0.1:0", Some("max_credentials_per_namespace = 1\n"));
    let env = hosted_env(&server).await;
    let a = paired_agent(&env, 52).await;
    // The first fits.
    let (_, _, status, first) = approve_and_poll(&env, &a, "full-1").await;
    assert_eq!((status, first["status"].as_str()), (StatusCode::OK, Some("approved")), "{first}");

    // The second: the person's yes stands, the service refuses it for good.
    let started = std::time::Instant::now();
    let (rid, answer, status, body) = approve_and_poll(&env, &a, "full-2").await;
    let jti = answer["result"]["jti"].as_str().unwrap().to_owned();
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(
        (body["error"]["code"].as_str(), body["error"]["reason"].as_str()),
        (Some("NOT_PERMITTED"), Some("namespace_full"))
    );
    assert_eq!(body["error"]["details"]["status_service"], server.base());
    assert!(body["error"]["message"].as_str().unwrap().contains("refused for good"), "{body}");
    assert!(started.elapsed() < Duration::from_secs(20), "the long poll did not wait out its 30 s");
    // Nothing of it reaches the agent: not in its listing, not at the service.
    let listed = a.call(Method::GET, "/v1/mandates", None).await.unwrap();
    assert!(listed.as_array().unwrap().iter().all(|m| m["jti"] != jti.as_str()), "{listed}");
    let (code, _) =
        get(&format!("{}/status/{}/{jti}", server.base(), env.app.service.profile().principal_thumbprint())).await;
    assert_eq!(code, StatusCode::NOT_FOUND);

    // Not retried: one attempt, however long the backoff would have been.
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(outbox_rows(&env, &jti).await, [("register".to_owned(), 1, Some("namespace_full".to_owned()), false)]);
    assert_eq!(keyapp::store::outbox::next_due_at(env.app.service.records().store()).await.unwrap(), None);
    // The person's Credentials say so, and why, never "not yet published".
    let listed = env.app.service.records().credentials(None).await.unwrap();
    let refused = listed.iter().find(|c| c.jti == jti).unwrap();
    assert_eq!(refused.publication, Some(keyapp::service::Publication::RegistrationRefused));
    let note = refused.publication_note.as_deref().unwrap();
    assert!(note.contains("no room for more of your credentials") && note.contains("hosts cannot check it"), "{note}");
    // Revoking it owes the service nothing: it never had it.
    person(&env, Command::Revoke { jti: jti.clone() }).await.unwrap();
    assert_eq!(outbox_rows(&env, &jti).await.len(), 1);
    // Asking again answers the same, at once.
    let (status, again) = a.send(Method::GET, &format!("/v1/requests/{rid}"), None).await.unwrap();
    assert_eq!((status, again["error"]["reason"].as_str()), (StatusCode::FORBIDDEN, Some("namespace_full")));
}

#[tokio::test]
async fn a_namespace_the_service_does_not_serve_is_refused_for_good() {
    let other = testkit::principal_of(&ed25519_dalek::SigningKey::from_bytes(&[9; 32]));
    let server = StatusProcess::start("127.0.0.1:0", Some(&format!("namespaces = [\"{other}\"]\n")));
    let env = hosted_env(&server).await;
    let a = paired_agent(&env, 53).await;
    let (rid, answer, status, body) = approve_and_poll(&env, &a, "foreign-1").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["error"]["reason"], "namespace_not_allowed", "{body}");
    let jti = answer["result"]["jti"].as_str().unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        outbox_rows(&env, jti).await,
        [("register".to_owned(), 1, Some("namespace_not_allowed".to_owned()), false)]
    );
    // The person's yes stands: their records say approved.
    assert_eq!(answer["status"], "approved", "{answer}");
    assert_eq!(
        env.app.service.requests().request(&rid).await.unwrap().status,
        keyapp::service::RequestStatus::Approved
    );
}
