//! The service's logs, in a test binary of their own: tracing
//! caches which events a call site's subscribers want, so a subscriber set
//! for one test is only reliable in a process no other test logs from.

use keyapp::control::Command;
use reqwest::Method;
use serde_json::json;

use testkit::env::*;

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

    // A jti with a newline and an escape sequence, sent to the status API,
    // names nothing: refused before any store, it never reaches the log. One
    // with a right-to-left override does reach the ledger, and is logged
    // escaped (Debug), so it cannot reorder what the operator reads.
    let claim_on = |jti: &'static str| {
        reqwest::Client::new()
            .post(format!("http://{}/status/{jti}/claims", env.app.status_addr))
            .json(&json!({"claim_id": "maple-street-auto/h_1"}))
            .send()
    };
    let forged = claim_on("m-1%0A2026-12-01T00:00:00Z  INFO forged line%1B%5B2J").await.unwrap();
    assert_eq!(forged.status(), reqwest::StatusCode::NOT_FOUND);
    let reordered = claim_on("m-2%E2%80%AEdetaerc").await.unwrap();
    assert_eq!(reordered.status(), reqwest::StatusCode::NOT_FOUND);

    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("claim refused"), "the refused claim is logged:\n{logs}");
    assert!(logs.contains(r#"jti="m-2\u{202e}detaerc""#), "escaped:\n{logs}");
    assert!(!logs.contains('\u{202E}') && !logs.contains("forged line"), "{logs}");
    assert!(!logs.lines().any(|l| l.starts_with("2026-12-01T00:00:00Z  INFO forged")), "a forged line:\n{logs}");
    assert!(!logs.contains('\u{1b}'), "an escape sequence reached the log:\n{logs}");
    for event in ["starting", "principal key loaded", "listening", "pairing requested", "pairing answered"] {
        assert!(logs.contains(event), "no {event:?} in:\n{logs}");
    }
    assert!(logs.contains(&format!("request_id={rid}")) && logs.contains("kind=closed_mandate"), "{logs}");
    assert!(logs.contains("request accepted") && logs.contains("request approved"), "{logs}");
    assert!(logs.contains("request refused") && logs.contains("reason="), "{logs}");
    let consent = r["consent_text"].as_str().unwrap();
    for secret in
        [consent.lines().next().unwrap(), "Calendar Assistant", env.app.service.profile().principal(), &offer, &mandate]
    {
        assert!(!logs.contains(secret), "the logs hold {secret:?}:\n{logs}");
    }
}
