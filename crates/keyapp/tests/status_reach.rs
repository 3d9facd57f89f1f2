//! Nothing is issued with a status address hosts cannot read unless the person
//! is told (SchCP §3.3 "Status URLs", §5.8), end to end: the key app started
//! for real (OS keychain: run under scripts/with-keyring and
//! scripts/with-polkit), a test host on HTTPS, and an agent sending requests
//! as any agent would. Under a status base hosts cannot read, a shared-limit
//! mandate is refused before anything is shown or stored, and every other
//! credential's consent text says it cannot be withdrawn before it expires.

use agent::AgentClient;
use keyapp::config::{Config, StatusApi};
use keyapp::control::Command;
use keyapp::status_reach::{StatusReach, Unreachable};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use testkit::env::*;

const EN_LINE: &str = "Hosts cannot check with this key app, so I cannot withdraw this before it expires.";

/// The key app's out-of-the-box status base: its own listener on loopback.
fn default_base(config: &mut Config) {
    config.status_api.public_base = StatusApi::default().public_base;
    config.status_api.hosts_on_this_machine = false;
}

fn mandate(env: &Env, key: &str, constraints: Value) -> Value {
    json!({
        "kind": "mandate", "idempotency_key": key,
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book"], "constraints": constraints
    })
}

fn shared(env: &Env, key: &str) -> Value {
    mandate(env, key, json!({"max_bookings": 2, "shared_limit": true}))
}

/// Rows in the key app's requests, credentials and history.
async fn stored(env: &Env) -> (i64, i64, i64) {
    let pool = env.app.service.records().store().pool();
    let mut counts = [0i64; 3];
    for (i, table) in ["requests", "credentials", "history"].iter().enumerate() {
        let (n,): (i64,) = sqlx::query_as(&format!("SELECT COUNT(*) FROM {table}")).fetch_one(pool).await.unwrap();
        counts[i] = n;
    }
    (counts[0], counts[1], counts[2])
}

/// Sends a shared-limit mandate request and asserts the `status_unreachable`
/// refusal, with nothing shown to the person and nothing stored. Returns its message.
async fn refused_shared(env: &Env, a: &AgentClient, key: &str) -> String {
    let before = stored(env).await;
    let (status, body) = a.send(Method::POST, "/v1/requests", Some(&shared(env, key))).await.unwrap();
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["error"]["code"], "VERIFICATION_FAILED", "{body}");
    assert_eq!(body["error"]["reason"], "status_unreachable", "{body}");
    assert!(pending_ids(env).await.is_empty(), "nothing is shown to the person");
    assert_eq!(stored(env).await, before, "nothing is stored");
    body["error"]["message"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_default_loopback_base_refuses_a_shared_limit_with_how_to_fix_it_and_stores_nothing() {
    let env = start_with(default_base).await;
    assert_eq!(env.app.service.profile().settings().hosts_can_check, keyapp::views::HostsCanCheck::Unreachable);
    assert!(matches!(
        env.app.service.profile().config().status_reach(),
        StatusReach::Unreachable(Unreachable::NonPublicAddress { range: "loopback", .. })
    ));
    let a = paired_agent(&env, 60).await;
    let message = refused_shared(&env, &a, "shared-1").await;
    assert!(message.contains("http://127.0.0.1:7412") && message.contains("loopback"), "{message}");
    assert!(message.contains("[status_api] hosted") && message.contains("public_base"), "{message}");
    // The key was not taken: the same key with a limit per host is a new request.
    let plain = mandate(&env, "shared-1", json!({"max_bookings": 2}));
    let (status, body) = a.send(Method::POST, "/v1/requests", Some(&plain)).await.unwrap();
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
}

#[tokio::test]
async fn a_loopback_base_is_reachable_when_the_hosts_are_on_this_machine() {
    let env = start_with(|c| {
        default_base(c);
        c.status_api.hosts_on_this_machine = true;
    })
    .await;
    assert_eq!(env.app.service.profile().config().status_reach(), StatusReach::ThisMachine);
    let a = paired_agent(&env, 61).await;
    let r = a.call(Method::POST, "/v1/requests", Some(&shared(&env, "shared-2"))).await.unwrap();
    assert!(!r["consent_text"].as_str().unwrap().contains(EN_LINE), "{r}");
    let done = approved(&env, &a, &r).await;
    assert_eq!(done["status"], "approved", "{done}");
    let jti = done["result"]["jti"].as_str().unwrap();
    assert_eq!(done["result"]["status"], format!("http://127.0.0.1:7412/status/{jti}"));
    // The listener a host on this machine reads counts the limit.
    let url = format!("http://{}/status/{jti}", env.app.status_addr);
    let status: Value = reqwest::get(&url).await.unwrap().json().await.unwrap();
    assert_eq!(status, json!({"jti": jti, "status": "active", "remaining": 2}));
}

#[tokio::test]
async fn a_private_base_is_refused_even_with_hosts_on_this_machine() {
    for base in ["https://10.0.0.5", "https://192.168.1.20:8443", "https://100.64.0.9", "https://[fd00::5]"] {
        let env = start_with(|c| {
            c.status_api.public_base = base.into();
            c.status_api.hosts_on_this_machine = true;
        })
        .await;
        assert!(!env.app.service.profile().config().status_reach().reachable(), "{base}");
        let a = paired_agent(&env, 62).await;
        let message = refused_shared(&env, &a, "shared-3").await;
        assert!(message.contains(base), "{base}: {message}");
    }
}

#[tokio::test]
async fn an_https_public_base_is_reachable_and_says_nothing_of_withdrawal() {
    // config_for's own base: https://keyapp.example, a DNS name over https.
    let env = start_with(|c| assert_eq!(c.status_api.public_base, "https://keyapp.example")).await;
    assert_eq!(env.app.service.profile().config().status_reach(), StatusReach::Public);
    let a = paired_agent(&env, 63).await;
    let r = a.call(Method::POST, "/v1/requests", Some(&shared(&env, "shared-4"))).await.unwrap();
    assert_eq!(r["status"], "pending", "{r}");
    let plain = a.call(Method::POST, "/v1/requests", Some(&mandate(&env, "plain-4", json!({})))).await.unwrap();
    for text in [&r["consent_text"], &plain["consent_text"]] {
        assert!(!text.as_str().unwrap().contains(EN_LINE), "{text}");
    }
    let done = approved(&env, &a, &r).await;
    let jti = done["result"]["jti"].as_str().unwrap();
    assert_eq!(done["result"]["status"], format!("https://keyapp.example/status/{jti}"));
}

#[tokio::test]
async fn in_hosted_mode_the_hosted_services_base_is_the_one_judged() {
    // An http hosted service on loopback: unreachable without the key,
    // whatever public_base says. Setup would refuse it, so the config's asking
    // for it does not put it in force (the OS is not even asked), and shared
    // limits are refused under the built-in address that stays.
    let env = start_with(|c| c.status_api.hosted = Some("http://127.0.0.1:9".into())).await;
    let config = env.app.service.profile().config();
    assert_eq!((config.status_api.hosted.as_deref(), config.status_base()), (None, "http://127.0.0.1:7412"));
    let a = paired_agent(&env, 64).await;
    let message = refused_shared(&env, &a, "shared-5").await;
    assert!(message.contains("http://127.0.0.1:7412"), "{message}");
    // An https one is reachable: the request is shown.
    let env = start_with(|c| c.status_api.hosted = Some("https://status.example".into())).await;
    assert_eq!(env.app.service.profile().config().status_reach(), StatusReach::Public);
    let a = paired_agent(&env, 65).await;
    let (status, body) = a.send(Method::POST, "/v1/requests", Some(&shared(&env, "shared-6"))).await.unwrap();
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
}

#[tokio::test]
async fn under_an_unreachable_base_a_plain_mandate_is_shown_and_signed_with_the_line() {
    let env = start_with(default_base).await;
    let a = paired_agent(&env, 66).await;
    let r = a
        .call(Method::POST, "/v1/requests", Some(&mandate(&env, "plain-7", json!({"max_bookings": 1}))))
        .await
        .unwrap();
    let text = r["consent_text"].as_str().unwrap().to_owned();
    assert_eq!(text.lines().last(), Some(EN_LINE), "the last line: {text}");
    assert_eq!(text.matches(EN_LINE).count(), 1, "{text}");
    // The person is shown the same words.
    let rid = r["request_id"].as_str().unwrap().to_owned();
    let shown = person(&env, Command::Show { id: rid }).await.unwrap();
    assert_eq!(shown["consent_text"], text);
    let done = approved(&env, &a, &r).await;
    let mandate = done["result"]["mandate"].as_str().unwrap();
    // consent.statement is the first line, unchanged by the line at the end (§5.3).
    let claims: Value =
        serde_json::from_slice(&schcp::b64::decode(mandate.split('.').nth(1).unwrap()).unwrap()).unwrap();
    assert_eq!(claims["consent"]["statement"], text.lines().next().unwrap());
    assert!(!claims["consent"]["statement"].as_str().unwrap().contains("withdraw"));

    // A closed mandate (a booking offer) says it too.
    let (_, offer) = future_offer(&env.host, 4);
    let r = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "closed-7"))).await.unwrap();
    assert_eq!(r["consent_text"].as_str().unwrap().lines().last(), Some(EN_LINE), "{r}");
}

#[tokio::test]
async fn the_line_is_in_the_persons_language() {
    let env = start_with(|c| {
        default_base(c);
        c.locale = Some("fr".into());
    })
    .await;
    let a = paired_agent(&env, 67).await;
    let r = a.call(Method::POST, "/v1/requests", Some(&mandate(&env, "plain-8", json!({})))).await.unwrap();
    assert_eq!(
        r["consent_text"].as_str().unwrap().lines().last(),
        Some(
            "Les hôtes ne peuvent pas vérifier auprès de cette application de clés; je ne pourrai donc pas retirer cet accord avant son expiration."
        ),
        "{r}"
    );
}
