//! Prompts a local process cannot flood, over the real agent API: any
//! local process can make fresh keys, so pairing requests from unpaired agents
//! are bounded all together, the rest refused with 429 and the §9 shape; a key
//! the person declined is refused at once. (The expiry and cooldown clocks are
//! tested against the service's own clock in `service::pairing`.)

use agent::AgentClient;
use ed25519_dalek::SigningKey;
use keyapp::app::{self, Running};
use keyapp::config::{self, Config};
use keyapp::control::{self, Command};
use keyapp::keystore::PassphraseSource;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

/// The bound on pairings waiting for the person, as the service enforces it.
const MAX_PENDING_PAIRINGS: usize = keyapp::service::MAX_PENDING_PAIRINGS as usize;

async fn start(dir: &tempfile::TempDir) -> Running {
    let mut config = Config { data_dir: Some(dir.path().join("data")), locale: Some("en".into()), ..Config::default() };
    config.agent_api.listen = "127.0.0.1:0".parse().unwrap();
    config.status_api.listen = "127.0.0.1:0".parse().unwrap();
    config.keystore.backend = config::KeystoreBackend::File;
    app::start(config, PassphraseSource::Fixed("correct horse battery staple".to_owned().into()))
        .await
        .expect("the key app starts")
}

fn agent(app: &Running, seed: u8) -> AgentClient {
    AgentClient::new(format!("http://{}", app.agent_addr), SigningKey::from_bytes(&[seed; 32]))
}

async fn ask(app: &Running, seed: u8) -> (StatusCode, Value) {
    agent(app, seed).send(Method::POST, "/v1/pairings", Some(&json!({"agent_name": "Flood"}))).await.unwrap()
}

async fn pending(app: &Running) -> Vec<String> {
    let v = control::call(&app.runtime_dir, &Command::Pending).await.unwrap().unwrap();
    v.as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_owned()).collect()
}

async fn answer(app: &Running, id: &str, yes: bool) {
    let cmd = if yes { Command::Approve { id: id.to_owned() } } else { Command::Decline { id: id.to_owned() } };
    control::call(&app.runtime_dir, &cmd).await.unwrap().unwrap();
}

#[tokio::test]
async fn forty_fresh_keys_leave_at_most_the_bound_waiting_for_the_person() {
    let dir = tempfile::tempdir().unwrap();
    let app = start(&dir).await;
    let mut accepted = Vec::new();
    for seed in 100..140u8 {
        let (status, body) = ask(&app, seed).await;
        match status {
            StatusCode::ACCEPTED => accepted.push(body["pairing_id"].as_str().unwrap().to_owned()),
            StatusCode::TOO_MANY_REQUESTS => {
                assert_eq!(body["error"]["code"], "RATE_LIMITED", "{body}");
                assert_eq!(body["error"]["reason"], "too_many_pairings", "{body}");
                assert!(body["error"]["retry"]["after"].as_str().unwrap().starts_with("PT"), "{body}");
            }
            other => panic!("{other}: {body}"),
        }
    }
    assert_eq!(accepted.len(), MAX_PENDING_PAIRINGS);
    let mut waiting = pending(&app).await;
    waiting.sort();
    let mut expected = accepted.clone();
    expected.sort();
    assert_eq!(waiting, expected, "only the bound reached the person");

    // Once the person has answered them, new keys are heard again.
    answer(&app, &accepted[0], true).await;
    answer(&app, &accepted[1], false).await;
    answer(&app, &accepted[2], false).await;
    assert!(pending(&app).await.is_empty());
    let (status, body) = ask(&app, 200).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");

    // A declined key is refused at once, and raises no prompt.
    let (status, body) = ask(&app, 101).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert_eq!(body["error"]["reason"], "pairing_declined", "{body}");
    assert_eq!(pending(&app).await.len(), 1);
    // The approved one is paired, whatever the bound.
    let (status, body) = ask(&app, 100).await;
    assert_eq!((status, &body["status"]), (StatusCode::ACCEPTED, &json!("approved")), "{body}");
}
