//! The person's records in their words, end to end: what waits is named by
//! what it asks, history entries are sentences, credentials say what they
//! allow, My bookings lists the booking a verified receipt tells of, and the
//! riskiest request is the one graded gravest. Run under scripts/with-keyring.

use keyapp::control::Command;
use reqwest::Method;
use schcp::claims::Approved;
use serde_json::json;
use testkit::env::*;
use testkit::now;

#[tokio::test]
async fn a_booking_from_request_to_my_bookings_is_told_in_words_at_every_step() {
    let env = start().await;
    let svc = &env.app.service;
    let a = paired_agent(&env, 41).await;
    let body = json!({
        "kind": "mandate", "idempotency_key": "root-words",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book", "cancel", "reschedule"],
        "constraints": {"services": ["oil-change"], "max_price": {"amount": "100.00", "currency": "CAD"}, "max_bookings": 1,
                        "window": {"not_before": "2026-01-01T00:00:00Z", "not_after": "2099-01-01T00:00:00Z"}},
        "lifetime": "PT6H"
    });
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let rid = r["request_id"].as_str().unwrap().to_owned();

    // Waiting: named by what it asks, never by its kind alone.
    let pending = svc.requests().pending_items().await.unwrap();
    let item = pending.iter().find(|p| p.id == rid).unwrap();
    assert_eq!(item.summary, "Permission to act at Maple Street Auto (maplestreetauto.example)");
    // A narrow mandate: nothing grave is called out.
    let prompt = svc.requests().prompt(&rid).await.unwrap();
    assert!(
        prompt.attention.iter().all(|a| a.kind != "wide_mandate" && a.kind != "delegate"),
        "{:?}",
        prompt.attention
    );
    // A mandate is about no single offer: no price lines, no address.
    assert_eq!(prompt.terms, None);

    let done = approved(&env, &a, &r).await;
    let root_jti = done["result"]["jti"].as_str().unwrap().to_owned();

    // The credential says what it allows.
    let creds = svc.records().credentials(None).await.unwrap();
    let root = creds.iter().find(|c| c.jti == root_jti).unwrap();
    assert_eq!(root.summary.as_deref(), Some(item.summary.as_str()));

    // A receipt under it: the management mandate, and the booking in My bookings.
    let (_, offer) = future_offer(&env.host, 7);
    let receipt = env.host.receipt(&offer, &root_jti, Approved::Limits, now()).unwrap();
    let body = json!({"kind": "management_mandate", "idempotency_key": "mgmt-words", "receipt": receipt,
                      "discovery": env.host.discovery_url()});
    let m = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    assert_eq!(m["status"], "approved", "{m}");
    let manager_jti = m["result"]["jti"].as_str().unwrap().to_owned();
    let bookings = svc.records().bookings().await.unwrap();
    assert_eq!(bookings.len(), 1, "{bookings:?}");
    let b = &bookings[0];
    assert!(b.upcoming, "{b:?}");
    assert_eq!(b.host, "maplestreetauto.example");
    assert_eq!(b.rests_on.as_deref(), Some(item.summary.as_str()));
    assert!(!b.when.is_empty() && !b.what.is_empty());
    assert_eq!(b.managers.len(), 1);
    assert_eq!(b.managers[0].jti, manager_jti);
    assert!(b.managers[0].revocable);
    assert!(
        b.managers[0].sentence.starts_with("Calendar Assistant may cancel or move it"),
        "{}",
        b.managers[0].sentence
    );

    // The one action: the assistant can no longer change it.
    person(&env, Command::Revoke { jti: manager_jti.clone() }).await.unwrap();
    let b = &svc.records().bookings().await.unwrap()[0];
    assert!(!b.managers[0].revocable);
    assert_eq!(b.managers[0].sentence, "Calendar Assistant can no longer change it.");

    // History: sentences, with no id or event code in them.
    let history = svc.records().history_entries(50).await.unwrap();
    let sentences: Vec<&str> = history.iter().map(|h| h.sentence.as_str()).collect();
    assert!(
        sentences.contains(&"You approved: Permission to act at Maple Street Auto (maplestreetauto.example)"),
        "{sentences:#?}"
    );
    assert!(sentences
        .contains(&"Calendar Assistant asked: Permission to act at Maple Street Auto (maplestreetauto.example)"));
    assert!(sentences.iter().any(|s| s.starts_with("You withdrew: Cancel or move: ")), "{sentences:#?}");
    for s in &sentences {
        assert!(!s.contains("rq_") && !s.contains("m-") && !s.contains('_'), "{s}");
    }
}

#[tokio::test]
async fn an_unlimited_mandate_is_graded_gravest_with_its_heading_first() {
    let env = start().await;
    let a = paired_agent(&env, 42).await;
    let body = json!({
        "kind": "mandate", "idempotency_key": "root-wide",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["book"]
    });
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let prompt = env.app.service.requests().prompt(r["request_id"].as_str().unwrap()).await.unwrap();
    let first = &prompt.attention[0];
    assert_eq!(first.kind, "wide_mandate");
    assert_eq!(serde_json::to_value(first.grade).unwrap(), "grave");
    let heading = first.detail.as_deref().unwrap();
    assert!(heading.contains("any service, at any time, at any price and as many bookings as it likes"), "{heading}");
    // The heading is its own words: no line of the consent text repeats it.
    assert!(prompt.consent_text.lines().all(|l| l.trim() != heading.trim()));
}
