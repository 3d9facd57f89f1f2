//! Every window command through Tauri's mock runtime (no display): what the
//! window gets is what the service says, and what the service refuses the
//! window is refused too (an unknown or expired request, a rule's revocation,
//! a second answer). The service is built directly, with a clock the tests move.

use desktop::ui_strings::UiLanguage;
use desktop::unlock::{self, Gate, GateView};
use ed25519_dalek::SigningKey;
use keyapp::service::{Requester, Service};
use schcp::jwk::Jwk;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{mock_builder, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::WebviewWindow;
use testkit::service::{movable_clock, T0};

struct Env {
    _dir: tempfile::TempDir,
    app: tauri::App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
    gate: Arc<Gate>,
    svc: Service,
    clock: Arc<AtomicI64>,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let (clock, read) = movable_clock(T0);
    let svc = tauri::async_runtime::block_on(testkit::service::open(dir.path(), read));
    let gate = Arc::new(Gate::default());
    let app = desktop::commands::register(mock_builder())
        .manage(svc.clone())
        .manage(gate.clone())
        .manage(UiLanguage::new(schcp_consent::Language::English))
        // The app's own context: its capabilities decide what the window may call.
        .build(tauri::generate_context!(test = true))
        .expect("the mock app builds");
    let window = tauri::WebviewWindowBuilder::new(&app, "consent", Default::default()).build().unwrap();
    Env { _dir: dir, app, window, gate, svc, clock }
}

/// One command as the window sends it: `Ok(answer)` or `Err(refusal)`.
fn call(e: &Env, cmd: &str, args: Value) -> Result<Value, Value> {
    call_from(e, "tauri://localhost", cmd, args)
}

fn call_from(e: &Env, origin: &str, cmd: &str, args: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        // The app's own origin on Linux; capabilities allow only local content.
        url: origin.parse().unwrap(),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    tauri::test::get_ipc_response(&e.window, request).map(|b| b.deserialize::<Value>().unwrap())
}

fn block<T>(f: impl std::future::Future<Output = T>) -> T {
    tauri::async_runtime::block_on(f)
}

fn agent_jwk(seed: u8) -> Jwk {
    Jwk::ed25519(&SigningKey::from_bytes(&[seed; 32]).verifying_key())
}

/// A pairing the person approved through the window; returns the agent's thumbprint.
fn paired(e: &Env, seed: u8) -> String {
    let jwk = agent_jwk(seed);
    let p = block(e.svc.pairings().request_pairing(&jwk, "Calendar Assistant")).unwrap();
    call(e, "answer", json!({"id": p.pairing_id, "approve": true})).unwrap();
    jwk.thumbprint().unwrap()
}

fn rule(e: &Env, jkt: &str, key: &str) -> String {
    let body = json!({"kind": "rule", "idempotency_key": key, "agent_jkt": jkt, "label": "Weekend playdates"});
    let (v, _) = block(e.svc.create_request(&Requester { jkt: jkt.to_owned() }, body.to_string().as_bytes())).unwrap();
    v.request_id
}

#[test]
fn a_pairing_is_listed_shown_verbatim_and_answered_once() {
    let e = env();
    let jwk = agent_jwk(3);
    let p = block(e.svc.pairings().request_pairing(&jwk, "Calendar <img src=x onerror=alert(1)>")).unwrap();
    let pending = call(&e, "pending", json!({})).unwrap();
    assert_eq!(pending.as_array().unwrap().len(), 1);
    assert_eq!(pending[0]["id"], p.pairing_id.as_str());
    assert_eq!(pending[0]["kind"], "pairing");
    assert_eq!(pending[0]["fingerprint"], p.fingerprint.as_str());

    let shown = call(&e, "prompt", json!({"id": p.pairing_id})).unwrap();
    assert_eq!(shown["consent_text"], block(e.svc.requests().consent_text(&p.pairing_id)).unwrap().as_str());
    assert_eq!(shown["agent_name"], "“Calendar <img src=x onerror=alert(1)>”");
    assert_eq!(shown["status"], "pending");

    let done = call(&e, "answer", json!({"id": p.pairing_id, "approve": true})).unwrap();
    assert_eq!(done["status"], "approved");
    let again = call(&e, "answer", json!({"id": p.pairing_id, "approve": true})).unwrap_err();
    assert_eq!((again["code"].as_str(), again["reason"].as_str()), (Some("INVALID_STATE"), Some("not_pending")));
    assert!(call(&e, "pending", json!({})).unwrap().as_array().unwrap().is_empty());
    let agents = call(&e, "agents", json!({})).unwrap();
    assert_eq!(agents[0]["jkt"], jwk.thumbprint().unwrap().as_str());
}

#[test]
fn approving_an_unknown_or_expired_request_is_refused_and_signs_nothing() {
    let e = env();
    let err = call(&e, "answer", json!({"id": "rq_unknown", "approve": true})).unwrap_err();
    assert_eq!(err["code"], "NOT_FOUND", "{err}");
    let err = call(&e, "answer", json!({"id": "pr_unknown", "approve": true})).unwrap_err();
    assert_eq!(err["code"], "NOT_FOUND", "{err}");
    assert!(call(&e, "prompt", json!({"id": "rq_unknown"})).is_err());

    let jkt = paired(&e, 4);
    let id = rule(&e, &jkt, "k1");
    assert_eq!(call(&e, "prompt", json!({"id": id})).unwrap()["status"], "pending");
    // Expired while the window showed it: a notice, never a signature.
    e.clock.store(T0 + 601, Ordering::SeqCst);
    assert_eq!(call(&e, "prompt", json!({"id": id})).unwrap()["status"], "expired");
    let err = call(&e, "answer", json!({"id": id, "approve": true})).unwrap_err();
    assert_eq!((err["code"].as_str(), err["reason"].as_str()), (Some("INVALID_STATE"), Some("not_pending")));
    assert_eq!(err["message"], "This request is no longer waiting for an answer: it is expired. Nothing was signed.");
    // The person reads the refusal in their language, not the service's English.
    call(&e, "set_language", json!({"tag": "fr"})).unwrap();
    let err = call(&e, "answer", json!({"id": id, "approve": true})).unwrap_err();
    assert_eq!(err["reason"], "not_pending");
    assert_eq!(err["message"], "Cette demande n’attend plus de réponse : elle est expirée. Rien n’a été signé.");
    assert!(call(&e, "credentials", json!({})).unwrap().as_array().unwrap().is_empty());
    // Missing or mistyped arguments are refused before the service is reached.
    assert!(call(&e, "answer", json!({"id": id})).is_err());
    assert!(call(&e, "answer", json!({"id": 5, "approve": true})).is_err());
}

#[test]
fn a_rule_is_relabelled_signed_and_cannot_be_revoked() {
    let e = env();
    let jkt = paired(&e, 5);
    let id = rule(&e, &jkt, "k1");
    let p = call(&e, "relabel_rule", json!({"id": id, "label": "My own words"})).unwrap();
    assert_eq!(p["label"], "My own words");
    assert!(p["consent_text"].as_str().unwrap().contains("\"My own words\""));
    let err = call(&e, "relabel_rule", json!({"id": id, "label": ""})).unwrap_err();
    assert_eq!(err["reason"], "bad_label");
    let done = call(&e, "answer", json!({"id": id, "approve": true})).unwrap();
    assert_eq!(done["status"], "approved");
    let jti = done["result"]["jti"].as_str().unwrap().to_owned();
    let creds = call(&e, "credentials", json!({})).unwrap();
    assert_eq!((creds[0]["jti"].as_str(), creds[0]["kind"].as_str()), (Some(jti.as_str()), Some("rule")));

    let err = call(&e, "revoke", json!({"jti": jti})).unwrap_err();
    assert_eq!((err["code"].as_str(), err["reason"].as_str()), (Some("INVALID_REQUEST"), Some("not_revocable")));
    assert_eq!(call(&e, "credentials", json!({})).unwrap()[0]["status"], "active");
    let err = call(&e, "revoke", json!({"jti": "m-unknown"})).unwrap_err();
    assert_eq!(err["code"], "NOT_FOUND");
}

#[test]
fn a_mandate_is_revoked_from_the_window() {
    let e = env();
    let rec = keyapp::store::credentials::CredentialRecord {
        jti: "m-1".into(),
        kind: keyapp::kind::RequestKind::ClosedMandate,
        agent_jkt: None,
        request_id: None,
        aud: vec!["maplestreetauto.example".into()],
        scope: vec![schcp::claims::Action::Book],
        iat: T0,
        exp: T0 + 3600,
        compact: "x.y.z".into(),
        status_url: Some("http://127.0.0.1:7412/status/m-1".into()),
        max_bookings: None,
        shared_limit: false,
        booking_id: None,
        host_keys: Default::default(),
    };
    block(async {
        let mut conn = e.svc.records().store().pool().acquire().await.unwrap();
        keyapp::store::credentials::insert(&mut conn, &rec).await.unwrap();
    });
    assert_eq!(call(&e, "credentials", json!({})).unwrap()[0]["status"], "active");
    call(&e, "revoke", json!({"jti": "m-1"})).unwrap();
    assert_eq!(call(&e, "credentials", json!({})).unwrap()[0]["status"], "revoked");
    let events = call(&e, "search_history", json!({})).unwrap();
    assert!(events["items"].as_array().unwrap().iter().any(|h| h["subject"] == "m-1"), "{events}");
    let revoked = call(&e, "search_credentials", json!({"query": {"state": "revoked"}})).unwrap();
    assert_eq!(revoked["items"][0]["jti"], "m-1", "{revoked}");
}

#[test]
fn a_declined_request_and_an_unpaired_agent() {
    let e = env();
    let jkt = paired(&e, 6);
    let id = rule(&e, &jkt, "k1");
    assert_eq!(call(&e, "answer", json!({"id": id, "approve": false})).unwrap()["status"], "declined");
    assert!(call(&e, "credentials", json!({})).unwrap().as_array().unwrap().is_empty());
    let id2 = rule(&e, &jkt, "k2");
    call(&e, "unpair", json!({"jkt": jkt})).unwrap();
    assert!(call(&e, "agents", json!({})).unwrap().as_array().unwrap().is_empty());
    assert_eq!(call(&e, "prompt", json!({"id": id2})).unwrap()["status"], "withdrawn");
    assert_eq!(call(&e, "unpair", json!({"jkt": jkt})).unwrap_err()["code"], "NOT_FOUND");
}

#[test]
fn contacts_attestations_and_settings() {
    let e = env();
    let noor = agent_jwk(9).principal_id().unwrap();
    call(&e, "add_contact", json!({"principal": noor, "name": "Noor", "relationship": null})).unwrap();
    call(&e, "rename_contact", json!({"principal": noor, "name": "Noor Haddad"})).unwrap();
    assert_eq!(call(&e, "contacts", json!({})).unwrap()[0]["name"], "Noor Haddad");
    let err = call(&e, "add_contact", json!({"principal": "not-a-principal", "name": "X"})).unwrap_err();
    assert_eq!(err["reason"], "bad_principal");
    call(&e, "remove_contact", json!({"principal": noor})).unwrap();
    assert!(call(&e, "contacts", json!({})).unwrap().as_array().unwrap().is_empty());
    assert_eq!(call(&e, "remove_contact", json!({"principal": noor})).unwrap_err()["code"], "NOT_FOUND");

    assert!(call(&e, "attestations", json!({})).unwrap().as_array().unwrap().is_empty());
    assert!(call(&e, "add_attestation", json!({"jws": "not.a.jws"})).is_err());
    assert!(call(&e, "attestations", json!({})).unwrap().as_array().unwrap().is_empty());

    let s = call(&e, "settings", json!({})).unwrap();
    assert_eq!(s["principal"], e.svc.profile().principal());
    assert_eq!(s["jwk"], serde_json::to_value(e.svc.profile().principal_jwk()).unwrap());
    assert_eq!(s["keystore"], "os");
}

#[test]
fn the_window_language_switches_at_run_time() {
    let e = env();
    let en = call(&e, "ui_strings", json!({})).unwrap();
    assert_eq!((en["lang"].as_str(), en["strings"]["consent-approve"].as_str()), (Some("en"), Some("Approve")));
    let fr = call(&e, "set_language", json!({"tag": "fr"})).unwrap();
    assert_eq!(fr["strings"]["consent-approve"], "Approuver");
    assert_eq!(call(&e, "ui_strings", json!({})).unwrap()["lang"], "fr");
    let err = call(&e, "set_language", json!({"tag": "de"})).unwrap_err();
    assert_eq!(err["reason"], "unknown_language");
    assert_eq!(err["message"], "L’appli de clés ne parle que l’anglais et le français.");
    assert_eq!(call(&e, "ui_strings", json!({})).unwrap()["lang"], "fr");
}

#[test]
fn the_capabilities_grant_exactly_the_commands_the_handler_has() {
    let caps: Value = serde_json::from_str(include_str!("../capabilities/default.json")).unwrap();
    let granted: Vec<String> =
        caps["permissions"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_owned()).collect();
    let allow = |c: &&str| format!("allow-{}", c.replace('_', "-"));
    let main_only = desktop::command_names::MAIN_ONLY;
    let expected: Vec<String> =
        desktop::command_names::ALL.iter().filter(|c| !main_only.contains(c)).map(allow).collect();
    assert_eq!(granted, expected);
    assert_eq!(caps["windows"], json!(["main", "consent"]));
    // The recovery kit, backup and restore: the main window alone.
    let main: Value = serde_json::from_str(include_str!("../capabilities/main.json")).unwrap();
    assert_eq!(main["windows"], json!(["main"]));
    assert_eq!(main["permissions"], json!(main_only.iter().map(allow).collect::<Vec<_>>()));
    // Every listed command exists: calling each one reaches the handler (a
    // missing command would answer "command not found").
    let e = env();
    // (close_window would close the test's own window: it is left out.)
    for name in desktop::command_names::ALL.iter().filter(|n| **n != "close_window" && !main_only.contains(n)) {
        if let Err(err) = call(&e, name, json!({})) {
            assert!(!err.to_string().contains("not found"), "{name}: {err}");
        }
    }
}

/// The system's file windows ("Choose…") are the main window's alone: the
/// consent window, which shows what an agent sent, can open none, and neither
/// window may open a message box or anything else of the dialog plugin.
#[test]
fn only_the_main_window_may_open_the_file_windows() {
    let dialog: Value = serde_json::from_str(include_str!("../capabilities/dialog.json")).unwrap();
    assert_eq!(dialog["windows"], json!(["main"]));
    assert_eq!(dialog["permissions"], json!(["dialog:allow-open", "dialog:allow-save"]));
    for other in [include_str!("../capabilities/default.json"), include_str!("../capabilities/main.json")] {
        assert!(!other.contains("dialog"), "{other}");
    }

    let app = desktop::commands::register(mock_builder())
        .plugin(tauri_plugin_dialog::init())
        .build(tauri::generate_context!(test = true))
        .expect("the mock app builds");
    let consent = tauri::WebviewWindowBuilder::new(&app, "consent", Default::default()).build().unwrap();
    let main = tauri::WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
    let invoke = |window: &WebviewWindow<MockRuntime>, cmd: &str| {
        let request = InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: InvokeBody::Json(json!({"options": {}})),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        };
        tauri::test::get_ipc_response(window, request).map(|b| b.deserialize::<Value>().unwrap())
    };
    for cmd in ["plugin:dialog|open", "plugin:dialog|save", "plugin:dialog|message"] {
        let err = invoke(&consent, cmd).unwrap_err();
        assert!(err.to_string().contains("not allowed"), "{cmd}: {err}");
    }
    // The main window: what it is granted is not refused (not opened here,
    // with no display), and a message box is.
    let err = invoke(&main, "plugin:dialog|message").unwrap_err();
    assert!(err.to_string().contains("not allowed"), "{err}");
}

#[test]
fn unknown_commands_are_refused() {
    let e = env();
    assert!(call(&e, "sign", json!({"payload": "anything"})).is_err());
    // Remote content, were it ever loaded, could call nothing.
    let err = call_from(&e, "https://evil.example", "pending", json!({})).unwrap_err();
    assert!(err.to_string().contains("not allowed"), "{err}");
    assert!(call(&e, "pending", json!({})).is_ok());
}

/// The file keystore's passphrase through the window's two commands, with the
/// real keystore on its own thread as `keyapp::app::start` runs it: a new key's
/// passphrase typed twice (a mismatch is asked again), then a later run's
/// unlock (a wrong passphrase is said so and asked again).
#[test]
fn the_passphrase_is_set_twice_then_unlocks_and_a_wrong_one_is_asked_again() {
    use keyapp::config::KeystoreBackend;
    use keyapp::keystore::{self, PassphraseSource};
    let e = env();
    let data = tempfile::tempdir().unwrap();

    // Nothing is asked yet: an answer is refused and opens nothing.
    let err = call(&e, "unlock", json!({"passphrase": "x", "confirmation": null})).unwrap_err();
    assert_eq!(err["reason"], "not_asking");
    assert_eq!(call(&e, "unlock_state", json!({})).unwrap(), json!({"state": "starting"}));

    let open_key = |gate: Arc<Gate>| {
        let asker = unlock::asker(e.app.handle().clone(), gate.clone());
        let dir = data.path().to_owned();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let key = rt.block_on(keystore::open(KeystoreBackend::File, &dir, PassphraseSource::Ask(asker)));
            // What app start does once the service runs.
            gate.set(GateView::Unlocked { route: Some("/requests".into()) });
            key.map(|k| k.principal_id().to_owned()).map_err(|e| e.to_string())
        })
    };
    let wait_asked = |e: &Env| {
        for _ in 0..200 {
            let v = call(e, "unlock_state", json!({})).unwrap();
            if v["state"] == "asking" {
                return v;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        panic!("the keystore never asked");
    };

    let first = open_key(e.gate.clone());
    assert_eq!(wait_asked(&e), json!({"state": "asking", "purpose": "create", "problem": null}));
    let v = call(&e, "unlock", json!({"passphrase": "correct horse", "confirmation": "correct hose"})).unwrap();
    assert_eq!(v, json!({"state": "asking", "purpose": "create", "problem": "mismatch"}));
    assert!(!data.path().join(keystore::KEY_FILE_NAME).exists(), "no key before both fields agree");
    let v = call(&e, "unlock", json!({"passphrase": "correct horse", "confirmation": "correct horse"})).unwrap();
    assert_eq!(v, json!({"state": "unlocked", "route": "/requests"}));
    let principal = first.join().unwrap().unwrap();

    // A later run: one field; wrong, then right; the same principal.
    e.gate.set(GateView::Starting);
    let second = open_key(e.gate.clone());
    assert_eq!(wait_asked(&e), json!({"state": "asking", "purpose": "unlock", "problem": null}));
    let v = call(&e, "unlock", json!({"passphrase": "battery staple", "confirmation": null})).unwrap();
    assert_eq!(v, json!({"state": "asking", "purpose": "unlock", "problem": "wrong"}));
    let v = call(&e, "unlock", json!({"passphrase": "correct horse", "confirmation": null})).unwrap();
    assert_eq!(v["state"], "unlocked");
    assert_eq!(second.join().unwrap().unwrap(), principal);
    // The window the keystore asked in is the main one (it becomes Requests).
    assert!(tauri::Manager::get_webview_window(&e.app, "main").is_some());
}

/// A language switch while a request waits (docs/decisions.md "A language
/// switch and a pending request"): the pending request keeps the text it was
/// created with, which is the text approved and kept; what is asked afterwards
/// is rendered in the new language.
#[test]
fn a_pending_request_keeps_its_text_across_a_language_switch_and_new_ones_follow_it() {
    let e = env();
    let jkt = paired(&e, 5);
    let before = rule(&e, &jkt, "k-before");
    let english = call(&e, "prompt", json!({"id": before})).unwrap()["consent_text"].as_str().unwrap().to_owned();

    call(&e, "set_language", json!({"tag": "fr"})).unwrap();
    assert_eq!(e.svc.profile().language(), schcp_consent::Language::French);
    let shown = call(&e, "prompt", json!({"id": before})).unwrap();
    assert_eq!(shown["consent_text"], english.as_str(), "a pending request's text does not change under the person");

    let after = rule(&e, &jkt, "k-after");
    let french = call(&e, "prompt", json!({"id": after})).unwrap()["consent_text"].as_str().unwrap().to_owned();
    assert_ne!(french, english);
    // The same rule, in French: the renderer's own French for it.
    call(&e, "set_language", json!({"tag": "en"})).unwrap();
    let again = rule(&e, &jkt, "k-again");
    assert_eq!(call(&e, "prompt", json!({"id": again})).unwrap()["consent_text"], english.as_str());
    assert_ne!(french.lines().next(), english.lines().next(), "French is another text: {french}");

    // Approved after the switch: the text kept is the one shown.
    call(&e, "answer", json!({"id": before, "approve": true})).unwrap();
    let kept = call(&e, "prompt", json!({"id": before})).unwrap();
    assert_eq!((kept["status"].as_str(), kept["consent_text"].as_str()), (Some("approved"), Some(english.as_str())));
    assert_eq!(block(e.svc.requests().consent_text(&before)).unwrap(), english);
}

/// The terminal's answer to one control-socket command (`control::execute`,
/// what the socket sends), next to the window's.
fn socket(e: &Env, cmd: keyapp::control::Command) -> Value {
    block(keyapp::control::execute(&e.svc, cmd, None)).unwrap()
}

#[test]
fn the_window_and_the_terminal_list_the_same_pending_items_and_credentials() {
    use keyapp::control::Command;
    let e = env();
    let jkt = paired(&e, 7);
    rule(&e, &jkt, "k1");
    block(e.svc.pairings().request_pairing(&agent_jwk(8), "Second Assistant")).unwrap();
    let window = call(&e, "pending", json!({})).unwrap();
    assert_eq!(window.as_array().unwrap().len(), 2, "{window}");
    assert_eq!(socket(&e, Command::Pending), window);
    // The same typed view on both sides: the terminal reads back what the window gets.
    let items: Vec<keyapp::views::PendingItem> = serde_json::from_value(window.clone()).unwrap();
    assert_eq!(serde_json::to_value(&items).unwrap(), window);
    assert!(items.iter().all(|i| !i.expires.is_empty() && !i.created.is_empty()), "{window}");

    let id = items.iter().find(|i| i.kind == "rule").unwrap().id.clone();
    assert_eq!(socket(&e, Command::Show { id: id.clone() }), call(&e, "prompt", json!({"id": id})).unwrap());
    call(&e, "answer", json!({"id": id, "approve": true})).unwrap();
    let credentials = call(&e, "credentials", json!({})).unwrap();
    assert_eq!(socket(&e, Command::Mandates), credentials);
    // A rule is never revocable, and the view says so rather than each surface.
    assert_eq!(credentials[0]["revocable"], false, "{credentials}");
}

#[test]
fn the_window_and_the_terminal_page_through_the_same_history_without_a_cap() {
    use keyapp::control::Command;
    use keyapp::record_query::{HistoryQuery, RecordSearch, MAX_PAGE};
    let e = env();
    let over = MAX_PAGE as usize + 20;
    let noor = agent_jwk(9).principal_id().unwrap();
    block(async {
        // Each save is one history entry.
        for i in 0..over {
            e.svc
                .directory()
                .add_contact(&noor, &format!("Noor {i}"), None, keyapp::service::Origin::ThisProcess)
                .await
                .unwrap();
        }
    });
    // The window asks for more than a page holds: it gets the largest page, and the rest after it.
    let first = call(&e, "search_history", json!({"query": {"limit": 1_000_000}})).unwrap();
    let listed = first["items"].as_array().unwrap();
    assert_eq!(listed.len(), MAX_PAGE as usize);
    assert_eq!(listed[0]["detail"], format!("Noor {}", over - 1), "newest first");
    assert!(listed.iter().all(|h| h["when"].as_str().is_some_and(|w| !w.is_empty())));
    let next = first["next"].as_str().expect("a next page").to_owned();
    let rest = call(&e, "search_history", json!({"query": {"cursor": next}})).unwrap();
    assert_eq!(rest["items"].as_array().unwrap().len(), 20);
    assert!(rest.get("next").is_none(), "{rest}");
    // The terminal's query is the window's: the same page.
    let query = HistoryQuery::from(RecordSearch { limit: Some(1_000_000), ..Default::default() });
    assert_eq!(socket(&e, Command::SearchHistory { query }), first);
    // A forged cursor is refused in the person's words, by code and reason.
    let refused = call(&e, "search_history", json!({"query": {"cursor": "h1.x"}})).unwrap_err();
    assert_eq!((refused["code"].as_str(), refused["reason"].as_str()), (Some("INVALID_REQUEST"), Some("bad_query")));
    assert!(refused["message"].as_str().unwrap().contains("search again"), "{refused}");
    // A member the query does not have is refused, not ignored.
    assert!(call(&e, "search_history", json!({"query": {"txt": "Noor"}})).is_err());
}

#[test]
fn the_window_exports_the_records_to_the_file_the_person_names() {
    let e = env();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("records.json");
    let said = call(&e, "export_records", json!({"path": path.display().to_string(), "format": "json"})).unwrap();
    assert!(said.as_str().unwrap().contains("records.json"), "{said}");
    let written: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(written["format"], keyapp::export::FORMAT);
    let page = dir.path().join("records.html");
    call(&e, "export_records", json!({"path": page.display().to_string(), "format": "html"})).unwrap();
    assert!(std::fs::read_to_string(&page).unwrap().starts_with("<!DOCTYPE html>"));
    // A relative path or a folder that does not exist: refused, nothing written.
    for bad in ["records.json", "/no/such/folder/records.json"] {
        let refused = call(&e, "export_records", json!({"path": bad, "format": "json"})).unwrap_err();
        assert_eq!(refused["reason"], "bad_path", "{refused}");
        assert!(refused["message"].as_str().unwrap().starts_with("The file could not be written"), "{refused}");
    }
    assert!(call(&e, "export_path", json!({"format": "html"})).unwrap().as_str().unwrap().ends_with(".html"));
}

#[test]
fn the_first_run_and_settings_say_where_hosts_check_and_refuse_an_address_they_cannot_read() {
    let e = env();
    let view = call(&e, "status_setup", json!({})).unwrap();
    assert_eq!(view["answered"], false, "{view}");
    assert_eq!(view["choice"], "not_now");
    assert_eq!(view["hosts_can_check"], "this-machine");
    assert_eq!(view["publication"], "nothing");
    assert!(view["words"].as_str().unwrap().contains("You have not chosen a status service"), "{view}");
    // Hostile addresses: refused in one sentence with what to do, before the OS
    // is asked, and nothing is written.
    for (url, says) in [
        ("http://status.example", "it is not https"),
        ("https://192.168.1.20", "192.168.1.20 is an address of a private or local network"),
        ("https://status.example/?x=1", "is not a web address the key app can use"),
    ] {
        let err = call(&e, "choose_status", json!({"setup": {"choice": "hosted", "url": url}})).unwrap_err();
        assert_eq!(err["reason"], "status_unreachable", "{url}: {err}");
        assert!(err["message"].as_str().unwrap().contains(says), "{url}: {err}");
    }
    let own = call(&e, "choose_status", json!({"setup": {"choice": "own_base", "url": "https://10.1.2.3"}}));
    assert!(own.unwrap_err()["message"].as_str().unwrap().contains("10.1.2.3"));
    // A service that does not answer (a closed loopback port; these hosts are on this machine).
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let err = call(&e, "choose_status", json!({"setup": {"choice": "hosted", "url": url}})).unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("did not answer"), "{err}");
    let after = call(&e, "status_setup", json!({})).unwrap();
    assert_eq!(after, view, "nothing written");
    assert_eq!(e.svc.profile().config().status_base(), "http://127.0.0.1:7412");
}

/// The consent view's wait carries what changed: the pending list and the
/// oldest one's prompt, exactly as `pending` and `prompt` give them, so the
/// view shows a new request without a further command; a change made between
/// two waits answers the next one at once.
#[test]
fn the_consent_views_wait_carries_the_new_request_and_its_verified_prompt() {
    let e = env();
    let first = call(&e, "wait_pending", json!({})).unwrap();
    assert_eq!(first["pending"], json!([]));
    assert!(first.get("oldest").is_none(), "nothing to show: {first}");
    let seen = first["seen"].as_u64().unwrap();

    // A pairing asked after the first answer: the next wait past `seen`
    // answers at once with it.
    let p = block(e.svc.pairings().request_pairing(&agent_jwk(7), "Calendar <b>Assistant</b>")).unwrap();
    let change = call(&e, "wait_pending", json!({"seen": seen})).unwrap();
    assert!(change["seen"].as_u64().unwrap() > seen);
    assert_eq!(change["pending"], call(&e, "pending", json!({})).unwrap());
    assert_eq!(change["oldest"], call(&e, "prompt", json!({"id": p.pairing_id})).unwrap());
    assert_eq!(change["oldest"]["agent_name"], "“Calendar <b>Assistant</b>”");

    // A wait on the latest counter is woken by the next change, and its answer
    // holds the pending list after it: the pairing answered, nothing waits.
    let latest = change["seen"].as_u64().unwrap();
    let svc = e.svc.clone();
    let id = p.pairing_id.clone();
    let answering = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        block(svc.decline(&id)).unwrap();
    });
    let woken = call(&e, "wait_pending", json!({"seen": latest})).unwrap();
    answering.join().unwrap();
    assert!(woken["seen"].as_u64().unwrap() > latest);
    assert_eq!(woken["pending"], json!([]));
    assert!(woken.get("oldest").is_none(), "{woken}");

    // A counter that is not a number is refused before anything is read.
    assert!(call(&e, "wait_pending", json!({"seen": "latest"})).is_err());
}
