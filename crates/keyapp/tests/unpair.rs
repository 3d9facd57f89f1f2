//! Unpairing takes authority back (SchCP §3.3 check 7): the terminal asks
//! whether to revoke the credentials the assistant holds, a yes revokes every
//! one a status URL names, in one go, and those nothing can revoke (a rule,
//! §7.9) are named as such. Run under scripts/with-keyring and with-polkit.

use agent::AgentClient;
use keyapp::control::Command;
use reqwest::Method;
use serde_json::{json, Value};
use std::path::PathBuf;

use testkit::env::*;

/// The assistant gets a closed mandate (revocable: it names a status URL) and
/// a rule (never published, so not revocable), both approved by the person.
/// Returns the mandate's and the rule's jti.
async fn holds_a_mandate_and_a_rule(env: &Env, a: &AgentClient, tag: &str) -> (String, String) {
    let (_, offer) = future_offer(&env.host, 10);
    let r =
        a.call(Method::POST, "/v1/requests", Some(&closed_request(env, &offer, &format!("m-{tag}")))).await.unwrap();
    let mandate = approved(env, a, &r).await["result"]["jti"].as_str().unwrap().to_owned();
    let body = json!({"kind": "rule", "idempotency_key": format!("r-{tag}"), "agent_jkt": jkt(a), "label": "Weekends"});
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let rule = approved(env, a, &r).await["result"]["jti"].as_str().unwrap().to_owned();
    (mandate, rule)
}

async fn status_of(env: &Env, jti: &str) -> String {
    let all = person(env, Command::Mandates).await.unwrap();
    let found = all.as_array().unwrap().iter().find(|m| m["jti"] == jti).cloned().expect("listed");
    found["status"].as_str().unwrap().to_owned()
}

/// `schcp-keyapp ARGS` against the running service, `input` on standard input.
async fn cli(config: PathBuf, args: Vec<String>, input: &'static str) -> (bool, String, String) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    terminal(env!("CARGO_BIN_EXE_schcp-keyapp"), &config, &args, input).await
}

#[tokio::test]
async fn the_terminal_asks_and_a_yes_revokes_everything_a_status_url_names() {
    let env = start().await;
    let config = terminal_config(&env);
    let a = paired_agent(&env, 31).await;
    let (mandate, rule) = holds_a_mandate_and_a_rule(&env, &a, "a").await;
    let fingerprint = keyapp::service::fingerprint(&jkt(&a));

    // The question both surfaces ask, and the rule named as not revocable.
    let holds = person(&env, Command::AgentHolds { agent: fingerprint.clone() }).await.unwrap();
    assert_eq!(holds["revocable"], 1, "{holds}");
    assert_eq!(holds["question"], "Also revoke the credential it holds?");
    let kept = holds["not_revocable"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{holds}");
    assert!(kept[0].as_str().unwrap().starts_with("Rule: cannot be revoked"), "{holds}");

    let (ok, out, err) = cli(config, vec!["unpair".into(), fingerprint.to_lowercase()], "y\n").await;
    assert!(ok, "{out}{err}");
    assert!(out.starts_with("Also revoke the credential it holds? [y/N] Unpaired. 1 credential was revoked."), "{out}");
    assert!(out.contains("Rule: cannot be revoked"), "the rule is named: {out}");
    assert_eq!(status_of(&env, &mandate).await, "revoked");
    assert_eq!(status_of(&env, &rule).await, "active", "a rule lapses on its own");
    // Unpaired: its next request is refused, and unpairing again finds nothing.
    match a.call(Method::GET, "/v1/mandates", None).await {
        Err(agent::AgentError::Api(e)) => assert_eq!(e.reason, "agent_not_paired"),
        other => panic!("{other:?}"),
    }
    let again = person(&env, Command::Unpair { agent: fingerprint, revoke_credentials: true }).await.unwrap_err();
    assert_eq!(again["code"], "NOT_FOUND", "{again}");
}

#[tokio::test]
async fn no_answer_unpairs_only_and_the_flag_revokes_without_asking() {
    let env = start().await;
    let config = terminal_config(&env);
    let kept = paired_agent(&env, 32).await;
    let (kept_mandate, _) = holds_a_mandate_and_a_rule(&env, &kept, "k").await;
    let (ok, out, err) = cli(config.clone(), vec!["unpair".into(), jkt(&kept)], "\n").await;
    assert!(ok, "{out}{err}");
    assert!(out.contains("[y/N] Unpaired. Nothing was revoked."), "{out}");
    assert!(out.contains("Booking mandate: not revoked, in force until"), "{out}");
    assert_eq!(status_of(&env, &kept_mandate).await, "active");

    let flagged = paired_agent(&env, 33).await;
    let (flagged_mandate, _) = holds_a_mandate_and_a_rule(&env, &flagged, "f").await;
    let args = vec!["unpair".into(), jkt(&flagged), "--revoke-credentials".into()];
    let (ok, out, err) = cli(config.clone(), args, "").await;
    assert!(ok, "{out}{err}");
    assert!(out.starts_with("Unpaired. 1 credential was revoked."), "no question asked: {out}");
    assert_eq!(status_of(&env, &flagged_mandate).await, "revoked");

    // An agent that is not paired is refused, and nothing changes.
    let (ok, _, err) = cli(config, vec!["unpair".into(), "0000-0000-0000".into()], "y\n").await;
    assert!(!ok, "{err}");
    let listed: Value = person(&env, Command::Mandates).await.unwrap();
    assert_eq!(listed.as_array().unwrap().iter().filter(|m| m["status"] == "revoked").count(), 1);
}
