//! The desktop screens' service functions (service::prompts, service::directory): prompts, agents
//! with their last request, contact rename and removal, attestations, settings,
//! and a rule's label edited by the person before signing (§7.9). The service
//! is built directly, with a clock the tests move and no keychain.

use ed25519_dalek::SigningKey;
use keyapp::config::Config;
use keyapp::discovery::DiscoveryClient;
use keyapp::service::{RequestStatus, Requester, Service, ServiceError};
use keyapp::store::Store;
use schcp::jwk::Jwk;
use schcp::refusal::Reason;
use serde_json::json;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use testkit::service::{self, movable_clock, T0};

struct Env {
    _dir: tempfile::TempDir,
    svc: Service,
    clock: Arc<AtomicI64>,
}

async fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let (clock, read) = movable_clock(T0);
    let svc = service::open(dir.path(), read).await;
    Env { _dir: dir, svc, clock }
}

/// An agent the person paired, by its thumbprint.
async fn paired(svc: &Service, seed: u8, name: &str) -> String {
    let jwk = Jwk::ed25519(&SigningKey::from_bytes(&[seed; 32]).verifying_key());
    let p = svc.pairings().request_pairing(&jwk, name).await.unwrap();
    svc.approve(&p.pairing_id, keyapp::service::Origin::ThisProcess).await.unwrap();
    jwk.thumbprint().unwrap()
}

async fn rule_request(svc: &Service, jkt: &str, key: &str, label: &str) -> String {
    let body = json!({"kind": "rule", "idempotency_key": key, "agent_jkt": jkt, "label": label});
    let (v, _) = svc.create_request(&Requester { jkt: jkt.to_owned() }, body.to_string().as_bytes()).await.unwrap();
    v.request_id
}

#[tokio::test]
async fn a_prompt_carries_the_stored_text_the_agent_and_its_status() {
    let e = env().await;
    let jwk = Jwk::ed25519(&SigningKey::from_bytes(&[3; 32]).verifying_key());
    let p = e.svc.pairings().request_pairing(&jwk, "Calendar Assistant").await.unwrap();
    let items = e.svc.requests().pending_items().await.unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!((items[0].kind.as_str(), items[0].agent_name.as_str()), ("pairing", "Calendar Assistant"));
    assert_eq!(items[0].expires_at, T0 + 600);
    let shown = e.svc.requests().prompt(&p.pairing_id).await.unwrap();
    assert_eq!(shown.consent_text, e.svc.requests().consent_text(&p.pairing_id).await.unwrap());
    assert_eq!(shown.fingerprint, p.fingerprint);
    assert_eq!(shown.status, "pending");
    e.svc.approve(&p.pairing_id, keyapp::service::Origin::ThisProcess).await.unwrap();

    let jkt = jwk.thumbprint().unwrap();
    let id = rule_request(&e.svc, &jkt, "k1", "Weekend playdates").await;
    let shown = e.svc.requests().prompt(&id).await.unwrap();
    assert_eq!(shown.consent_text, e.svc.requests().request(&id).await.unwrap().consent_text);
    assert_eq!(shown.agent_name, "“Calendar Assistant”", "in quotes beside the window's own words");
    assert_eq!(shown.label.as_deref(), Some("Weekend playdates"));
    assert_eq!(shown.expires_at, T0 + 600);

    // Expired while shown: the prompt says so and approving is refused.
    e.clock.store(T0 + 601, Ordering::SeqCst);
    assert_eq!(e.svc.requests().prompt(&id).await.unwrap().status, "expired");
    assert!(matches!(
        e.svc.approve(&id, keyapp::service::Origin::ThisProcess).await,
        Err(ServiceError::NotPending(RequestStatus::Expired))
    ));
    assert!(matches!(e.svc.requests().prompt("rq_nope").await, Err(ServiceError::NotFound(_))));
}

#[tokio::test]
async fn an_edited_rule_label_is_what_is_shown_signed_and_kept() {
    let e = env().await;
    let jkt = paired(&e.svc, 4, "Calendar Assistant").await;
    let id = rule_request(&e.svc, &jkt, "k1", "Agent's words").await;
    let before = e.svc.requests().prompt(&id).await.unwrap().consent_text;
    let p = e.svc.requests().relabel_rule(&id, "  My weekend rule ").await.unwrap();
    assert_eq!(p.label.as_deref(), Some("My weekend rule"));
    assert!(p.consent_text.contains("\"My weekend rule\""), "{}", p.consent_text);
    assert!(!p.consent_text.contains("Agent's words"));
    assert_ne!(p.consent_text, before);
    // What the agent reads back is the new text too.
    assert_eq!(e.svc.requests().request(&id).await.unwrap().consent_text, p.consent_text);

    let done = e.svc.approve(&id, keyapp::service::Origin::ThisProcess).await.unwrap();
    let rule = schcp::verify::verify_rule(done["result"]["rule"].as_str().unwrap()).unwrap();
    assert_eq!(rule.claims.label, "My weekend rule");

    // Once answered, or for another kind, or with a bad label: refused, nothing changed.
    assert!(matches!(e.svc.requests().relabel_rule(&id, "Later").await, Err(ServiceError::NotPending(_))));
    let id2 = rule_request(&e.svc, &jkt, "k2", "Agent's words").await;
    // Hidden characters too: a right-to-left override or a zero-width space
    // would show the box's words in another order than they are signed.
    for bad in ["", "   ", "a\u{7}b", "a\u{202E}b", "a\u{200B}b", &"x".repeat(201)] {
        let err = e.svc.requests().relabel_rule(&id2, bad).await.unwrap_err();
        assert!(matches!(err, ServiceError::Invalid { reason: Reason::BadLabel, .. }), "{bad:?}: {err}");
    }
    assert_eq!(e.svc.requests().prompt(&id2).await.unwrap().label.as_deref(), Some("Agent's words"));
    // An agent's label with one reaches the edit box inert, as the consent
    // text's quoted copy does.
    let id3 = rule_request(&e.svc, &jkt, "k3", "Play\u{202E}dates").await;
    assert_eq!(e.svc.requests().prompt(&id3).await.unwrap().label.as_deref(), Some("Play\u{FFFD}dates"));
    let pr = e.svc.requests().pending_items().await.unwrap();
    assert_eq!(pr.len(), 2);
    assert!(matches!(e.svc.requests().relabel_rule("rq_unknown", "x").await, Err(ServiceError::NotFound(_))));
}

/// The person's relabelled rule is the one shown and signed: the row from
/// before the edit still holds a seal the key app made, and put back in the
/// records (the person's programs can write them) it is refused, never shown
/// or signed from, and withdrawn (docs/threat-model.md).
#[tokio::test]
async fn a_relabelled_rules_earlier_row_put_back_is_neither_shown_nor_signed() {
    let e = env().await;
    let jkt = paired(&e.svc, 7, "Calendar Assistant").await;
    let id = rule_request(&e.svc, &jkt, "k1", "Agent's words").await;
    let pool = e.svc.records().store().pool();
    let earlier: (String, String, String) =
        sqlx::query_as("SELECT input, consent_text, seal FROM requests WHERE request_id = ?")
            .bind(&id)
            .fetch_one(pool)
            .await
            .unwrap();
    e.svc.requests().relabel_rule(&id, "My weekend rule").await.unwrap();
    sqlx::query("UPDATE requests SET input = ?, consent_text = ?, seal = ? WHERE request_id = ?")
        .bind(&earlier.0)
        .bind(&earlier.1)
        .bind(&earlier.2)
        .bind(&id)
        .execute(pool)
        .await
        .unwrap();
    let tampered =
        |r: Result<_, ServiceError>| matches!(r, Err(ServiceError::Store(keyapp::store::StoreError::Tampered(_))));
    assert!(tampered(e.svc.requests().prompt(&id).await.map(|_| ())));
    assert!(tampered(e.svc.approve(&id, keyapp::service::Origin::ThisProcess).await.map(|_| ())));
    assert!(e.svc.requests().pending_items().await.unwrap().is_empty(), "not listed");
    assert_eq!(e.svc.requests().request(&id).await.unwrap().status, RequestStatus::Withdrawn);
}

#[tokio::test]
async fn agents_show_their_last_request_and_unpairing_removes_them() {
    let e = env().await;
    let a = paired(&e.svc, 5, "Assistant A").await;
    let b = paired(&e.svc, 6, "Assistant B").await;
    e.clock.store(T0 + 50, Ordering::SeqCst);
    rule_request(&e.svc, &a, "k1", "One").await;
    let agents = e.svc.directory().agents().await.unwrap();
    assert_eq!(agents.len(), 2);
    let va = agents.iter().find(|v| v.jkt == a).unwrap();
    assert_eq!((va.last_request_at, va.last_request_kind.as_deref()), (Some(T0 + 50), Some("rule")));
    assert_eq!(va.fingerprint, keyapp::service::fingerprint(&a));
    let vb = agents.iter().find(|v| v.jkt == b).unwrap();
    assert_eq!(vb.last_request_at, None);

    e.svc.pairings().unpair(&a).await.unwrap();
    let agents = e.svc.directory().agents().await.unwrap();
    assert_eq!(agents.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(), ["Assistant B"]);
    // Its pending request was withdrawn with it.
    assert!(e.svc.requests().pending_items().await.unwrap().is_empty());
    assert!(matches!(e.svc.pairings().unpair(&a).await, Err(ServiceError::NotFound(_))));
}

#[tokio::test]
async fn contacts_are_renamed_and_removed_and_unknown_ones_refused() {
    let e = env().await;
    let noor = Jwk::ed25519(&SigningKey::from_bytes(&[9; 32]).verifying_key()).principal_id().unwrap();
    e.svc.directory().add_contact(&noor, "Noor", None, keyapp::service::Origin::ThisProcess).await.unwrap();
    e.svc.directory().rename_contact(&noor, "Noor Haddad", keyapp::service::Origin::ThisProcess).await.unwrap();
    assert_eq!(e.svc.directory().contacts().await.unwrap()[0].name, "Noor Haddad");
    assert!(matches!(
        e.svc.directory().rename_contact(&noor, " ", keyapp::service::Origin::ThisProcess).await,
        Err(ServiceError::Invalid { reason: Reason::BadName, .. })
    ));
    assert!(matches!(
        e.svc.directory().rename_contact(&noor, "a\nb", keyapp::service::Origin::ThisProcess).await,
        Err(ServiceError::Invalid { .. })
    ));
    // A name is a name, not a paragraph to put before the person (the OS's
    // prompt line, a refusal naming it): at most MAX_LABEL characters.
    let longest = "N".repeat(keyapp::service::MAX_LABEL);
    e.svc.directory().rename_contact(&noor, &longest, keyapp::service::Origin::ThisProcess).await.unwrap();
    let refused =
        e.svc.directory().rename_contact(&noor, &format!("{longest}o"), keyapp::service::Origin::ThisProcess).await;
    assert!(matches!(refused, Err(ServiceError::Invalid { reason: Reason::BadName, .. })), "{refused:?}");
    assert_eq!(e.svc.directory().contacts().await.unwrap()[0].name, longest);
    e.svc.directory().rename_contact(&noor, "Noor Haddad", keyapp::service::Origin::ThisProcess).await.unwrap();
    assert_eq!(e.svc.directory().contacts().await.unwrap()[0].name, "Noor Haddad");
    assert!(matches!(
        e.svc.directory().rename_contact("urn:other", "X", keyapp::service::Origin::ThisProcess).await,
        Err(ServiceError::NotFound(_))
    ));
    e.svc.directory().remove_contact(&noor).await.unwrap();
    assert!(e.svc.directory().contacts().await.unwrap().is_empty());
    assert!(matches!(e.svc.directory().remove_contact(&noor).await, Err(ServiceError::NotFound(_))));
    let events: Vec<String> = e.svc.records().history_entries(10).await.unwrap().into_iter().map(|h| h.event).collect();
    assert!(events.contains(&"contact_renamed".to_owned()) && events.contains(&"contact_removed".to_owned()));
}

#[tokio::test]
async fn settings_and_attestations_are_listed() {
    let e = env().await;
    let s = e.svc.profile().settings();
    assert_eq!(s.principal, e.svc.profile().principal());
    assert_eq!(s.keystore, "os");
    assert_eq!(s.consent_language, "en");
    assert_eq!(s.status_public_base, "http://127.0.0.1:7412");
    assert!(e.svc.directory().attestations().await.unwrap().is_empty());
}

/// The callouts stored with a request come from its verified offer: a priced
/// offer at a discovered host shows the price and the retention, no identity warning.
#[tokio::test]
async fn a_closed_mandate_prompt_carries_its_look_twice_callouts() {
    let host = testhost::TestHost::start(testhost::TestHostConfig::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, host.ca_pem()).unwrap();
    let (domain, addr) = host.resolve();
    let text = format!(
        "locale = \"en\"\n[discovery]\nextra_root_certs = [\"{}\"]\nresolve = {{ \"{domain}\" = \"{addr}\" }}\n",
        ca.display()
    );
    let config = Config::parse(&text, std::path::Path::new("t.toml")).unwrap();
    let store = Store::open(&dir.path().join("keyapp.db")).await.unwrap();
    let svc = Service::new(
        store,
        Arc::new(SigningKey::from_bytes(&[7; 32])),
        None,
        config.clone(),
        DiscoveryClient::new(&config.discovery).unwrap(),
        schcp_consent::Language::English,
        keyapp::service::system_clock(),
    )
    .unwrap();
    let jkt = paired(&svc, 8, "Calendar Assistant").await;
    let mut offer = host.priced_offer(chrono::Utc::now().timestamp());
    let start = chrono::Utc::now() + chrono::Duration::days(3);
    offer.slot.start = start.format("%Y-%m-%dT13:00:00-04:00").to_string();
    offer.slot.end = Some(start.format("%Y-%m-%dT13:45:00-04:00").to_string());
    let body = json!({"kind": "closed_mandate", "idempotency_key": "c1", "offer": host.sign_offer(&offer).unwrap(),
                      "discovery": host.discovery_url()});
    let (v, _) = svc.create_request(&Requester { jkt }, body.to_string().as_bytes()).await.unwrap();
    let p = svc.requests().prompt(&v.request_id).await.unwrap();
    let kinds: Vec<&str> = p.attention.iter().map(|a| a.kind.as_str()).collect();
    // A host met for the first time is called out too (§2.2), with the other
    // terms; each callout names a value the text says, never a whole line.
    assert_eq!(kinds, ["new_host", "price", "retention"], "{p:?}");
    for a in &p.attention {
        let detail = a.detail.as_deref().unwrap();
        assert!(p.consent_text.contains(detail), "{a:?} not in {}", p.consent_text);
        assert!(p.consent_text.lines().all(|l| l.trim() != detail.trim()), "{a:?} repeats a line");
    }
    // Every line of the total, typed from the verified offer (§5.2), beside
    // the total the text states; the host's address, as it signed it, when it gave one.
    let terms = p.terms.as_ref().expect("a closed mandate is about one offer");
    let lines: Vec<(&str, &str, &str)> =
        terms.lines.iter().map(|l| (l.kind.as_str(), l.label.as_str(), l.amount.as_str())).collect();
    assert_eq!(lines, [("service", "Synthetic oil change", "CAD 79.00"), ("tax", "HST 13%", "CAD 10.27")]);
    assert_eq!(terms.total.as_deref(), Some("CAD 89.27"));
    assert!(p.consent_text.contains("CAD 89.27"), "{}", p.consent_text);
    assert_eq!(terms.host, "Maple Street Auto");
    assert_eq!(terms.address, offer.host.as_ref().and_then(|h| h.address.clone()));
}

/// Whether `jkt` may ask again now: `None`, or the refusal's reason.
async fn refusal_of_next(svc: &Service, jkt: &str, key: &str) -> Option<&'static str> {
    let body = json!({"kind": "rule", "idempotency_key": key, "agent_jkt": jkt, "label": "next"});
    match svc.create_request(&Requester { jkt: jkt.to_owned() }, body.to_string().as_bytes()).await {
        Ok(_) => None,
        Err(ServiceError::TooMany { reason, .. }) => Some(reason.as_str()),
        Err(other) => panic!("{other}"),
    }
}

#[tokio::test]
async fn answers_given_in_one_second_are_ordered_as_they_were_given() {
    // docs/agent-api.md §9: the cooldown follows the agent's last two answers.
    // Three answers in one second must be read in the order the person gave
    // them, whatever order the requests were made in (decision_seq, migration
    // 0009). Each agent's requests are made so that creation order is the
    // opposite of the answer order that matters.
    let e = env().await;

    // An approval, then two declines, in one second: the cooldown applies.
    let a = paired(&e.svc, 41, "Fatigue").await;
    let d1 = rule_request(&e.svc, &a, "d1", "first").await;
    let d2 = rule_request(&e.svc, &a, "d2", "second").await;
    e.clock.store(T0 + 1, Ordering::SeqCst);
    let yes = rule_request(&e.svc, &a, "yes", "third").await;
    e.clock.store(T0 + 2, Ordering::SeqCst);
    e.svc.requests().approve(&yes, keyapp::service::Origin::ThisProcess).await.unwrap();
    e.svc.requests().decline(&d1).await.unwrap();
    e.svc.requests().decline(&d2).await.unwrap();
    assert_eq!(refusal_of_next(&e.svc, &a, "next").await, Some("cooldown"));

    // Two declines, then an approval, in one second: the last answer was a
    // yes, so no cooldown.
    let b = paired(&e.svc, 42, "Fine").await;
    let yes = rule_request(&e.svc, &b, "yes", "first").await;
    e.clock.store(T0 + 3, Ordering::SeqCst);
    let d1 = rule_request(&e.svc, &b, "d1", "second").await;
    let d2 = rule_request(&e.svc, &b, "d2", "third").await;
    e.clock.store(T0 + 4, Ordering::SeqCst);
    e.svc.requests().decline(&d1).await.unwrap();
    e.svc.requests().decline(&d2).await.unwrap();
    e.svc.requests().approve(&yes, keyapp::service::Origin::ThisProcess).await.unwrap();
    assert_eq!(refusal_of_next(&e.svc, &b, "next").await, None);
}

#[tokio::test]
async fn answers_that_race_are_refused_with_the_status_the_request_has_now() {
    let e = env().await;
    let jkt = paired(&e.svc, 5, "Calendar Assistant").await;
    let id = rule_request(&e.svc, &jkt, "k1", "Weekend playdates").await;
    // Every decline reads `pending`; only one moves the request on. Each other
    // one is refused with the status the request has now, whether it lost the
    // race before or after its update: never "the request is no longer
    // pending, not pending", and in the person's words from the typed status.
    let mut declines = tokio::task::JoinSet::new();
    for _ in 0..6 {
        let (svc, id) = (e.svc.clone(), id.clone());
        declines.spawn(async move { svc.requests().decline(&id).await });
    }
    let answers = declines.join_all().await;
    assert_eq!(answers.iter().filter(|a| a.is_ok()).count(), 1, "{answers:?}");
    for refused in answers.into_iter().filter_map(Result::err) {
        assert!(matches!(refused, ServiceError::NotPending(RequestStatus::Declined)), "{refused:?}");
        let api = refused.to_api();
        assert_eq!((api.code, api.reason), (schcp::Code::InvalidState, Reason::NotPending));
        assert_eq!(api.message, "the request is declined, not pending");
        let fr = keyapp::ui_words::refusal(schcp_consent::Language::French, &refused);
        assert_eq!(fr, "Cette demande n’attend plus de réponse : elle est refusée. Rien n’a été signé.");
    }
    assert_eq!(e.svc.requests().request(&id).await.unwrap().status, RequestStatus::Declined);
}
