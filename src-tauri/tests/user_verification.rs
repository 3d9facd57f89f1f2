//! The window's approve goes through the service's user verifier, about the
//! desktop app's own process, through Tauri's mock runtime (no display): a yes
//! the OS confirms is signed; one it denies or the person cancels is refused
//! with the person's own sentence, and signs nothing. A fake verifier stands
//! in for polkit (crates/keyapp/tests/polkit.rs asks a real one).

use ed25519_dalek::SigningKey;
use keyapp::service::{Requester, Service};
use keyapp::user_verification::{Method, Refusal, Surface, Verdict};
use schcp::jwk::Jwk;
use serde_json::{json, Value};
use std::sync::Arc;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{mock_builder, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::WebviewWindow;
use testkit::verifier::Scripted;

struct Env {
    _dir: tempfile::TempDir,
    _app: tauri::App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
    svc: Service,
    verifier: Arc<Scripted>,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let verifier = Scripted::new(Ok(Method::Polkit));
    let open = testkit::service::open(dir.path(), keyapp::service::system_clock());
    let svc = tauri::async_runtime::block_on(open).with_user_verifier(verifier.clone());
    let app = desktop::commands::register(mock_builder())
        .manage(svc.clone())
        .manage(Arc::new(desktop::unlock::Gate::default()))
        .manage(desktop::ui_strings::UiLanguage::new(schcp_consent::Language::English))
        .build(tauri::generate_context!(test = true))
        .expect("the mock app builds");
    let window = tauri::WebviewWindowBuilder::new(&app, "consent", Default::default()).build().unwrap();
    Env { _dir: dir, _app: app, window, svc, verifier }
}

fn call(e: &Env, cmd: &str, args: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    tauri::test::get_ipc_response(&e.window, request).map(|b| b.deserialize::<Value>().unwrap())
}

fn answer_with(e: &Env, verdict: Verdict) {
    e.verifier.answer(verdict);
}

/// A paired agent (approved with the verifier saying yes) and one pending rule request.
fn pending_rule(e: &Env) -> String {
    let jwk = Jwk::ed25519(&SigningKey::from_bytes(&[3; 32]).verifying_key());
    let p = tauri::async_runtime::block_on(e.svc.pairings().request_pairing(&jwk, "Calendar Assistant")).unwrap();
    assert_eq!(call(e, "answer", json!({"id": p.pairing_id, "approve": true})).unwrap()["status"], "approved");
    let jkt = jwk.thumbprint().unwrap();
    let body = json!({"kind": "rule", "idempotency_key": "k1", "agent_jkt": jkt, "label": "Weekend playdates"});
    let requester = Requester { jkt };
    let bytes = body.to_string();
    tauri::async_runtime::block_on(e.svc.create_request(&requester, bytes.as_bytes())).unwrap().0.request_id
}

fn credentials(e: &Env) -> Vec<Value> {
    call(e, "credentials", json!({})).unwrap().as_array().unwrap().clone()
}

#[test]
fn the_windows_yes_is_confirmed_for_the_desktop_apps_own_process() {
    let e = env();
    let id = pending_rule(&e);
    let done = call(&e, "answer", json!({"id": id, "approve": true})).unwrap();
    assert_eq!(done["status"], "approved");
    let asked = e.verifier.asked();
    assert_eq!(asked.len(), 2, "the pairing and the request");
    for a in &asked {
        assert_eq!((a.asker.pid, a.asker.surface), (std::process::id(), Surface::Window));
    }
    let creds = credentials(&e);
    assert_eq!(creds.len(), 1);
    assert_eq!(creds[0]["confirmed"], "confirmed with your password or fingerprint");
    let history = call(&e, "search_history", json!({})).unwrap();
    let approved = history["items"].as_array().unwrap().iter().find(|h| h["event"] == "request_approved").unwrap();
    assert_eq!(approved["confirmed_by"], "polkit");
}

#[test]
fn a_denied_yes_is_refused_in_the_persons_words_and_signs_nothing() {
    let e = env();
    let id = pending_rule(&e);
    answer_with(&e, Err(Refusal::NotAuthorized));
    let err = call(&e, "answer", json!({"id": id, "approve": true})).unwrap_err();
    assert_eq!((err["code"].as_str(), err["reason"].as_str()), (Some("NOT_PERMITTED"), Some("user_not_verified")));
    assert_eq!(
        err["message"],
        "Your computer did not confirm it was you, so nothing was approved or signed. It is still waiting for your answer."
    );
    assert!(credentials(&e).is_empty());
    assert_eq!(call(&e, "prompt", json!({"id": id})).unwrap()["status"], "pending");
    // Declining needs no confirmation, whatever the OS would say.
    assert_eq!(call(&e, "answer", json!({"id": id, "approve": false})).unwrap()["status"], "declined");
    assert!(credentials(&e).is_empty());
}

#[test]
fn a_cancelled_prompt_is_refused_and_the_request_can_still_be_approved() {
    let e = env();
    let id = pending_rule(&e);
    answer_with(&e, Err(Refusal::Cancelled));
    call(&e, "set_language", json!({"tag": "fr"})).unwrap();
    let err = call(&e, "answer", json!({"id": id, "approve": true})).unwrap_err();
    assert_eq!(err["reason"], "verification_cancelled");
    assert_eq!(
        err["message"],
        "La confirmation sur votre ordinateur a été annulée : rien n’a été approuvé ni signé. La demande attend toujours votre réponse."
    );
    assert!(credentials(&e).is_empty());
    assert_eq!(call(&e, "prompt", json!({"id": id})).unwrap()["status"], "pending");
    // The person tries again and confirms: one credential, no more.
    answer_with(&e, Ok(Method::Polkit));
    assert_eq!(call(&e, "answer", json!({"id": id, "approve": true})).unwrap()["status"], "approved");
    assert_eq!(credentials(&e).len(), 1);
}

#[test]
fn a_status_address_chosen_in_the_window_is_confirmed_by_the_os_first_and_a_no_writes_nothing() {
    let e = env();
    let before = call(&e, "status_setup", json!({})).unwrap();
    assert_eq!(before["answered"], false);
    // The OS says no: nothing is written, and the address in force stays.
    e.verifier.answer(Err(Refusal::NotAuthorized));
    let err =
        call(&e, "choose_status", json!({"setup": {"choice": "own_base", "url": "https://me.example/"}})).unwrap_err();
    assert_eq!(err["reason"], "user_not_verified", "{err}");
    assert_eq!(call(&e, "status_setup", json!({})).unwrap(), before);
    assert_eq!(e.svc.profile().config().status_base(), "http://127.0.0.1:7412");
    // The OS says yes: asked about this process, naming the address; then in force.
    e.verifier.answer(Ok(Method::Polkit));
    let view =
        call(&e, "choose_status", json!({"setup": {"choice": "own_base", "url": "https://me.example/"}})).unwrap();
    assert_eq!((view["answered"].as_bool(), view["choice"].as_str()), (Some(true), Some("own_base")));
    assert_eq!(view["base"], "https://me.example");
    assert_eq!(view["hosts_can_check"], "reachable");
    let last = e.verifier.asked().pop().unwrap();
    assert_eq!(last.summary, "Let hosts check your credentials at https://me.example");
    assert_eq!((last.asker.pid, last.asker.surface), (std::process::id(), Surface::Window));
    assert_eq!(e.svc.profile().config().status_base(), "https://me.example");
    // Choosing what is in force again asks nothing.
    let asked = e.verifier.asked().len();
    call(&e, "choose_status", json!({"setup": {"choice": "own_base", "url": "https://me.example"}})).unwrap();
    assert_eq!(e.verifier.asked().len(), asked);
}
