//! The person's records in their words, end to end: what waits is named by
//! what it asks, history entries are sentences, credentials say what they
//! allow, My bookings lists the booking a verified receipt tells of, and the
//! riskiest request is the one graded gravest. Run under scripts/with-keyring.

use agent::{ClosedMandateRequest, Credential, ManagementMandateRequest, NewRequest, RequestStatus};
use keyapp::control::Command;
use reqwest::Method;
use reqwest::StatusCode;
use schcp::claims::Approved;
use serde_json::json;
use testhost::{TestHost, TestHostConfig};
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
    assert_eq!(b.host, "Maple Street Auto (maplestreetauto.example)");
    assert_eq!(b.rests_on.as_deref(), Some(item.summary.as_str()));
    assert!(!b.when.is_empty() && !b.what.is_empty());
    assert_eq!(b.managers.len(), 1);
    assert_eq!(b.managers[0].jti, manager_jti);
    assert!(b.managers[0].revocable);
    assert!(
        b.managers[0].sentence.starts_with("“Calendar Assistant” may cancel or move it"),
        "{}",
        b.managers[0].sentence
    );

    // A name another program writes into the host's binding is not the
    // host's: the binding no longer holds its seal, and the booking reads as
    // at a host id the key app has not verified (§2.2, record_seal).
    sqlx::query("UPDATE host_bindings SET name = 'Your Bank' WHERE host_id = 'maple-street-auto'")
        .execute(svc.records().store().pool())
        .await
        .unwrap();
    let host = svc.records().bookings().await.unwrap()[0].host.clone();
    assert!(!host.contains("Your Bank") && !host.contains("maplestreetauto.example"), "{host}");
    assert!(host.contains("maple-street-auto"), "{host}");

    // The one action: the assistant can no longer change it.
    person(&env, Command::Revoke { jti: manager_jti.clone() }).await.unwrap();
    let b = &svc.records().bookings().await.unwrap()[0];
    assert!(!b.managers[0].revocable);
    assert_eq!(b.managers[0].sentence, "“Calendar Assistant” can no longer change it.");

    // History: sentences, with no id or event code in them.
    let history = svc.records().history_entries(50).await.unwrap();
    let sentences: Vec<&str> = history.iter().map(|h| h.sentence.as_str()).collect();
    assert!(
        sentences.contains(&"You approved: Permission to act at Maple Street Auto (maplestreetauto.example)"),
        "{sentences:#?}"
    );
    assert!(sentences
        .contains(&"“Calendar Assistant” asked: Permission to act at Maple Street Auto (maplestreetauto.example)"));
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

/// `compact` with its payload swapped for `other`'s: the host's signature over
/// claims it did not sign.
fn spliced(compact: &str, other: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (compact.split('.').collect(), other.split('.').collect());
    format!("{}.{}.{}", a[0], b[1], a[2])
}

/// What the records hold that a refused receipt must leave alone.
async fn kept(env: &Env) -> (usize, usize, usize, Vec<String>) {
    let svc = &env.app.service;
    let bookings = svc.records().bookings().await.unwrap().len();
    let credentials = svc.records().credentials(None).await.unwrap().len();
    let history = svc.records().history_entries(500).await.unwrap().len();
    (bookings, credentials, history, pending_ids(env).await)
}

/// A booking made under a closed mandate reaches My bookings the way the agent
/// API has for it: the assistant hands the host's signed receipt (§5.3) in as
/// a `management_mandate` through the typed agent client, over HTTP; the
/// person is asked (the receipt cites no root mandate, §3.3), says yes, and
/// the booking is listed with the host's name, its time and its price. A
/// receipt altered after the host signed it, or signed by a key the host's
/// document does not publish, is refused as such and nothing is kept.
#[tokio::test]
async fn a_receipt_handed_in_by_the_assistant_puts_its_booking_in_my_bookings() {
    // The person far from the host, so their own zone would give other words.
    let env = start_with(|c| c.timezone = Some("Asia/Tokyo".into())).await;
    let svc = &env.app.service;
    let a = paired_agent(&env, 43).await;
    let discovery = env.host.discovery_url();
    let (_, offer) = future_offer(&env.host, 6);
    let ask = NewRequest::ClosedMandate(ClosedMandateRequest { offer: offer.clone(), discovery: discovery.clone() });
    let r = a.request("closed-receipt", &ask).await.unwrap();
    let agreed = r.consent_text.clone();
    person(&env, Command::Approve { id: r.request_id.clone() }).await.unwrap();
    let done = a.request_status(&r.request_id, 0).await.unwrap();
    let Some(Ok(Credential::ClosedMandate(closed))) = done.credential() else { panic!("{done:?}") };

    // The host books the offer under that mandate and signs its receipt.
    let claims = env.host.receipt_claims(&offer, &closed.jti, Approved::Offer, now()).unwrap();
    let receipt = env.host.sign_receipt(&claims).unwrap();
    let before = kept(&env).await;
    assert_eq!(before.0, 0, "no booking before its receipt is handed in");

    // Altered: a lower price under the host's signature.
    let mut cheaper = claims.clone();
    cheaper.booking.total.as_mut().unwrap().amount = "1.00".into();
    let altered = spliced(&receipt, &env.host.sign_receipt(&cheaper).unwrap());
    // Forged: the same claims signed by a key the host's document does not publish.
    let stranger = TestHost::start(TestHostConfig::default()).await;
    let forged = stranger.sign_receipt(&claims).unwrap();
    for (key, hostile) in [("altered", &altered), ("forged", &forged)] {
        let ask = NewRequest::ManagementMandate(ManagementMandateRequest {
            receipt: hostile.clone(),
            discovery: discovery.clone(),
        });
        let err = a.request(key, &ask).await.unwrap_err();
        let api = err.api().unwrap_or_else(|| panic!("{key}: {err:?}"));
        assert_eq!(api.status, StatusCode::UNPROCESSABLE_ENTITY, "{key}: {api:?}");
        assert!(api.is("bad_signature") || api.is("unknown_kid"), "{key}: {api:?}");
        assert_eq!(kept(&env).await, before, "{key}: nothing kept, nothing asked");
    }

    // The host's own receipt: the person is asked, says yes, and it is kept.
    let ask = NewRequest::ManagementMandate(ManagementMandateRequest { receipt, discovery });
    let m = a.request("receipt", &ask).await.unwrap();
    assert_eq!(m.status, RequestStatus::Pending, "a closed mandate is no root: the person is asked");
    assert!(m.consent_text.contains("Maple Street Auto"), "{}", m.consent_text);
    assert!(svc.records().bookings().await.unwrap().is_empty(), "nothing kept before the yes");
    person(&env, Command::Approve { id: m.request_id.clone() }).await.unwrap();
    let m = a.request_status(&m.request_id, 0).await.unwrap();
    let Some(Ok(Credential::ManagementMandate(manager))) = m.credential() else { panic!("{m:?}") };
    assert_eq!(manager.booking_id, claims.booking.booking_id);

    let bookings = svc.records().bookings().await.unwrap();
    assert_eq!(bookings.len(), 1, "{bookings:?}");
    let b = &bookings[0];
    assert_eq!(b.booking_id, claims.booking.booking_id);
    assert!(b.host.contains("Maple Street Auto") && b.host.contains("maplestreetauto.example"), "{}", b.host);
    assert!(b.upcoming, "{b:?}");
    let total = claims.booking.total.as_ref().unwrap();
    assert!(b.price.as_deref().is_some_and(|p| p.contains(&total.amount)), "{:?} {total:?}", b.price);
    // The time as the person read it when they agreed: the booking's zone,
    // the words the consent text used, whatever the person's own zone.
    assert!(agreed.contains(&b.when), "{:?} not in {agreed:?}", b.when);
    assert_eq!(b.managers.len(), 1);
    assert_eq!(b.managers[0].jti, manager.jti);
    assert!(b.rests_on.as_deref().is_some_and(|r| r.contains("Maple Street Auto")), "{:?}", b.rests_on);
}

/// The records' host filter offers each host by the name the consent text
/// showed, its value still the host id, so a search by it finds that host's
/// entries; a host id met nowhere finds nothing.
#[tokio::test]
async fn the_host_filter_names_hosts_as_the_person_read_them() {
    let env = start().await;
    let svc = &env.app.service;
    let choices = svc.records().filter_choices().await.unwrap();
    assert!(choices.hosts.is_empty(), "no host before the person's first yes: {:?}", choices.hosts);
    let a = paired_agent(&env, 44).await;
    let (_, offer) = future_offer(&env.host, 6);
    let r = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "named"))).await.unwrap();
    approved(&env, &a, &r).await;
    let choices = svc.records().filter_choices().await.unwrap();
    assert_eq!(choices.hosts.len(), 1, "{:?}", choices.hosts);
    assert_eq!(choices.hosts[0].label, "Maple Street Auto");
    assert_eq!(choices.hosts[0].value, "maple-street-auto");
    let q = keyapp::record_query::HistoryQuery::from(keyapp::record_query::RecordSearch {
        host: Some(choices.hosts[0].value.clone()),
        ..Default::default()
    });
    let found = svc.records().history_page(&q).await.unwrap().items;
    assert!(!found.is_empty() && found.iter().all(|h| h.sentence.contains("Maple Street Auto")), "{found:#?}");
}
