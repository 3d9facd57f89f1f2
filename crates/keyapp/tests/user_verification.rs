//! Every yes goes through the user verifier before anything is signed or
//! paired, from every surface (the window's in-process calls, the control
//! socket), and each refusal (denied, cancelled, unavailable, timed out) signs
//! nothing and leaves the request pending. A fake verifier stands in for the
//! OS here; tests/polkit.rs asks a real polkit.

use ed25519_dalek::SigningKey;
use keyapp::config::Config;
use keyapp::control::{self, Command};
use keyapp::service::{RequestStatus, Requester, Service, ServiceError};
use keyapp::user_verification::{Method, Refusal, Surface, Verdict};
use schcp::jwk::Jwk;
use serde_json::json;
use std::sync::Arc;
use testkit::service;
use testkit::verifier::Scripted;

struct Env {
    dir: tempfile::TempDir,
    svc: Service,
    verifier: Arc<Scripted>,
}

async fn env(verdict: Verdict) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let verifier = Scripted::new(verdict);
    let svc = service::open(dir.path(), keyapp::service::system_clock()).await.with_user_verifier(verifier.clone());
    Env { dir, svc, verifier }
}

fn agent_jwk(seed: u8) -> Jwk {
    Jwk::ed25519(&SigningKey::from_bytes(&[seed; 32]).verifying_key())
}

/// A pairing approved while the verifier says yes; the agent's thumbprint.
async fn paired(e: &Env, seed: u8) -> String {
    let jwk = agent_jwk(seed);
    let p = e.svc.pairings().request_pairing(&jwk, "Calendar Assistant").await.unwrap();
    e.svc.approve(&p.pairing_id, keyapp::service::Origin::ThisProcess).await.unwrap();
    jwk.thumbprint().unwrap()
}

async fn rule_request(e: &Env, jkt: &str, key: &str) -> String {
    labelled_rule_request(e, jkt, key, "Weekend playdates").await
}

async fn labelled_rule_request(e: &Env, jkt: &str, key: &str, label: &str) -> String {
    let body = json!({"kind": "rule", "idempotency_key": key, "agent_jkt": jkt, "label": label});
    let (v, _) = e.svc.create_request(&Requester { jkt: jkt.to_owned() }, body.to_string().as_bytes()).await.unwrap();
    v.request_id
}

fn refusal_of(r: Result<serde_json::Value, ServiceError>) -> Refusal {
    match r {
        Err(ServiceError::NotVerified(refusal)) => refusal,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

async fn approvals_in_history(svc: &Service) -> usize {
    let h = svc.records().history_entries(100).await.unwrap();
    h.iter().filter(|h| h.event == "request_approved" || h.event == "credential_issued").count()
}

#[tokio::test]
async fn each_refusal_signs_nothing_and_leaves_the_request_pending() {
    let e = env(Ok(Method::Polkit)).await;
    let jkt = paired(&e, 1).await;
    let id = rule_request(&e, &jkt, "k1").await;
    let refusals = [
        (Refusal::NotAuthorized, "user_not_verified"),
        (Refusal::Cancelled, "verification_cancelled"),
        (Refusal::TimedOut, "verification_timed_out"),
        (Refusal::Unavailable { why: "no polkitd".into() }, "verification_unavailable"),
    ];
    for (refusal, reason) in refusals {
        e.verifier.answer(Err(refusal.clone()));
        let err = e.svc.approve(&id, keyapp::service::Origin::ThisProcess).await.unwrap_err();
        let api = err.to_api();
        assert_eq!((api.code.as_str(), api.reason.as_str()), ("NOT_PERMITTED", reason), "{refusal:?}");
        assert_eq!(api.status, axum::http::StatusCode::FORBIDDEN);
        assert_eq!(e.svc.requests().request(&id).await.unwrap().status, RequestStatus::Pending, "{refusal:?}");
        assert!(e.svc.records().credentials(None).await.unwrap().is_empty(), "{refusal:?}: nothing signed");
        assert_eq!(approvals_in_history(&e.svc).await, 0, "{refusal:?}");
        // The person reads one sentence of their own, not the service's words.
        let words = keyapp::ui_words::refusal(schcp_consent::Language::English, &err);
        assert!(words.contains("nothing was approved or signed") && words.ends_with('.'), "{words}");
    }
    // The same request, once the OS confirms the person, is approved.
    e.verifier.answer(Ok(Method::Polkit));
    let done = e.svc.approve(&id, keyapp::service::Origin::ThisProcess).await.unwrap();
    assert_eq!(done["status"], "approved");
    assert!(done["result"]["rule"].is_string());
}

#[tokio::test]
async fn the_verifier_is_asked_before_anything_is_signed_with_the_consent_texts_first_line() {
    let e = env(Ok(Method::Polkit)).await;
    let jwk = agent_jwk(2);
    let p = e.svc.pairings().request_pairing(&jwk, "Calendar Assistant").await.unwrap();
    e.svc.approve(&p.pairing_id, keyapp::service::Origin::ThisProcess).await.unwrap();
    let id = rule_request(&e, &jwk.thumbprint().unwrap(), "k1").await;
    let text = e.svc.requests().request(&id).await.unwrap().consent_text;
    e.svc.requests().approve(&id, keyapp::service::Origin::ThisProcess).await.unwrap();

    let asked = e.verifier.asked();
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[0].summary, format!("Pair “Calendar Assistant” (code {})", p.fingerprint));
    assert_eq!(asked[1].summary, text.lines().next().unwrap());
    for a in &asked {
        // In process, the OS is asked about this very process.
        assert_eq!((a.asker.pid, a.asker.surface), (std::process::id(), Surface::Window));
        assert!(!a.summary.contains('\n'));
        assert_eq!(a.purpose, keyapp::user_verification::Purpose::Approve);
    }
}

#[tokio::test]
async fn a_pairing_refused_by_the_os_stays_pending_and_the_agent_stays_unpaired() {
    let e = env(Err(Refusal::NotAuthorized)).await;
    let jwk = agent_jwk(3);
    let p = e.svc.pairings().request_pairing(&jwk, "Calendar Assistant").await.unwrap();
    assert_eq!(
        refusal_of(e.svc.approve(&p.pairing_id, keyapp::service::Origin::ThisProcess).await),
        Refusal::NotAuthorized
    );
    assert_eq!(e.svc.pairings().pairing(&p.pairing_id).await.unwrap().status, keyapp::service::PairingStatus::Pending);
    assert!(e.svc.directory().agents().await.unwrap().is_empty());
    let history = e.svc.records().history_entries(50).await.unwrap();
    assert!(history.iter().all(|h| h.event != "pairing_approved"), "{history:?}");
}

#[tokio::test]
async fn a_no_and_a_refusal_of_nothing_never_ask_the_os() {
    let e = env(Ok(Method::Polkit)).await;
    let jkt = paired(&e, 4).await;
    let asked_before = e.verifier.asked().len();
    let id = rule_request(&e, &jkt, "k1").await;
    assert_eq!(e.svc.decline(&id).await.unwrap()["status"], "declined");
    // Already answered, or unknown: refused without a prompt for nothing.
    assert!(matches!(
        e.svc.approve(&id, keyapp::service::Origin::ThisProcess).await,
        Err(ServiceError::NotPending(RequestStatus::Declined))
    ));
    assert!(matches!(
        e.svc.approve("rq_unknown", keyapp::service::Origin::ThisProcess).await,
        Err(ServiceError::NotFound(_))
    ));
    assert!(matches!(
        e.svc.approve("pr_unknown", keyapp::service::Origin::ThisProcess).await,
        Err(ServiceError::NotFound(_))
    ));
    let p = e.svc.pairings().request_pairing(&agent_jwk(5), "Other Assistant").await.unwrap();
    assert_eq!(e.svc.decline(&p.pairing_id).await.unwrap()["status"], "declined");
    assert_eq!(e.verifier.asked().len(), asked_before);
}

#[tokio::test]
async fn the_records_say_how_the_yes_was_confirmed() {
    let e = env(Ok(Method::Polkit)).await;
    let jkt = paired(&e, 6).await;
    let id = rule_request(&e, &jkt, "k1").await;
    let done = e.svc.approve(&id, keyapp::service::Origin::ThisProcess).await.unwrap();
    let jti = done["result"]["jti"].as_str().unwrap();

    let creds = e.svc.records().credentials(None).await.unwrap();
    assert_eq!(creds[0].jti, jti);
    assert_eq!(creds[0].confirmed_by.as_deref(), Some("polkit"));
    assert_eq!(creds[0].confirmed.as_deref(), Some("confirmed with your password or fingerprint"));
    // An agent's own listing never carries it.
    assert!(e.svc.records().credentials(Some(&jkt)).await.unwrap().iter().all(|c| c.confirmed_by.is_none()));

    let history = e.svc.records().history_entries(50).await.unwrap();
    for event in ["request_approved", "credential_issued", "pairing_approved"] {
        let entry = history.iter().find(|h| h.event == event).unwrap_or_else(|| panic!("{event}"));
        assert_eq!(entry.confirmed_by.as_deref(), Some("polkit"), "{event}");
    }
    // Nothing the person was not asked about claims a confirmation.
    let created = history.iter().find(|h| h.event == "request_created").unwrap();
    assert_eq!((created.confirmed_by.as_deref(), created.confirmed.as_deref()), (None, None));

    e.svc.profile().set_language(schcp_consent::Language::French).unwrap();
    let fr = e.svc.records().history_entries(50).await.unwrap();
    let entry = fr.iter().find(|h| h.event == "request_approved").unwrap();
    assert_eq!(entry.confirmed.as_deref(), Some("confirmé avec votre mot de passe ou votre empreinte"));
}

/// A confirmation written into History that the key app never writes claims
/// nothing: the entry vouches for nothing, and the rest of History reads on.
#[tokio::test]
async fn a_record_of_a_method_the_key_app_never_writes_is_not_trusted() {
    let e = env(Ok(Method::Polkit)).await;
    paired(&e, 7).await;
    sqlx::query("UPDATE history SET confirmed_by = 'trust-me' WHERE event = 'pairing_approved'")
        .execute(e.svc.records().store().pool())
        .await
        .unwrap();
    let history = e.svc.records().history_entries(50).await.unwrap();
    assert!(history.iter().all(|h| h.confirmed_by.is_none() && h.event != "pairing_approved"), "{history:#?}");
    assert!(history.iter().any(|h| h.event == "pairing_requested"), "{history:#?}");
}

/// The control socket: the OS is asked about the peer process (this test's,
/// here), as a terminal; the answer the socket gives is the person's sentence.
#[tokio::test]
async fn the_control_socket_asks_about_its_peer() {
    let e = env(Ok(Method::Polkit)).await;
    let jkt = paired(&e, 8).await;
    let id = rule_request(&e, &jkt, "k1").await;
    let runtime = e.dir.path().join("run");
    let listener = control::bind(&runtime).unwrap();
    let owner = control::owner_uid(e.dir.path()).unwrap();
    tokio::spawn(control::serve(listener, e.svc.clone(), owner));

    e.verifier.answer(Err(Refusal::NotAuthorized));
    let refused = control::call(&runtime, &Command::Approve { id: id.clone() }).await.unwrap().unwrap_err();
    assert_eq!(
        (refused["code"].as_str(), refused["reason"].as_str()),
        (Some("NOT_PERMITTED"), Some("user_not_verified"))
    );
    assert_eq!(
        refused["message"],
        "Your computer did not confirm it was you, so nothing was approved or signed. It is still waiting for your answer."
    );
    let last = e.verifier.asked().pop().unwrap();
    assert_eq!((last.asker.pid, last.asker.surface), (std::process::id(), Surface::Terminal));
    assert_eq!(e.svc.requests().request(&id).await.unwrap().status, RequestStatus::Pending);

    e.verifier.answer(Ok(Method::Polkit));
    let ok = control::call(&runtime, &Command::Approve { id: id.clone() }).await.unwrap().unwrap();
    assert_eq!(ok["status"], "approved");
}

/// What `answer` comes to; a prompt left on screen (no answer in 30 s) fails
/// the test rather than hanging it.
async fn answered<T>(answer: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(std::time::Duration::from_secs(30), answer).await.expect("answered, not left on screen")
}

/// A program's approval of `id` over the control socket at `runtime`, started.
fn program_approves(
    runtime: &std::path::Path,
    id: &str,
) -> tokio::task::JoinHandle<Result<Result<serde_json::Value, serde_json::Value>, control::ControlError>> {
    let (runtime, id) = (runtime.to_owned(), id.to_owned());
    tokio::spawn(async move { control::call(&runtime, &Command::Approve { id }).await })
}

/// The window's approval of `id`, started.
fn window_approves(svc: &Service, id: &str) -> tokio::task::JoinHandle<Result<serde_json::Value, ServiceError>> {
    let (svc, id) = (svc.clone(), id.to_owned());
    tokio::spawn(async move { svc.approve(&id, keyapp::service::Origin::ThisProcess).await })
}

/// The control socket of `e`, served; its directory.
fn control_socket(e: &Env) -> std::path::PathBuf {
    let runtime = e.dir.path().join("run");
    let listener = control::bind(&runtime).unwrap();
    let owner = control::owner_uid(e.dir.path()).unwrap();
    tokio::spawn(control::serve(listener, e.svc.clone(), owner));
    runtime
}

/// A paired assistant's two requests, the one the window shows and one of a
/// program's own, with the control socket served and every prompt held on
/// screen; `before` counts the prompts asked by then.
struct Two {
    e: Env,
    shown: String,
    its_own: String,
    runtime: std::path::PathBuf,
    before: usize,
}

async fn two_requests(seed: u8) -> Two {
    let e = env(Ok(Method::Polkit)).await;
    let jkt = paired(&e, seed).await;
    let shown = labelled_rule_request(&e, &jkt, "shown", "Weekend playdates").await;
    let its_own = labelled_rule_request(&e, &jkt, "its-own", "Swim lessons").await;
    let runtime = control_socket(&e);
    e.verifier.hold();
    let before = e.verifier.asked().len();
    Two { e, shown, its_own, runtime, before }
}

/// A program's approval refused because the window's prompt is on screen:
/// told the window asked, not what the person approves there.
fn told_the_window_asked(refused: &serde_json::Value) {
    assert_eq!(
        (refused["code"].as_str(), refused["reason"].as_str()),
        (Some("NOT_PERMITTED"), Some("verification_underway"))
    );
    let message = refused["message"].as_str().unwrap();
    assert!(message.contains("window") && !message.contains("Weekend playdates"), "{message}");
}

/// The window's prompt answered yes: its approval signed, and the program's
/// request still pending, with no credential of its own.
async fn only_the_window_approved(
    e: &Env,
    window: tokio::task::JoinHandle<Result<serde_json::Value, ServiceError>>,
    its_own: &str,
) {
    e.verifier.let_go();
    assert_eq!(answered(window).await.unwrap().unwrap()["status"], "approved");
    assert_eq!(e.svc.requests().request(its_own).await.unwrap().status, RequestStatus::Pending);
    assert_eq!(e.svc.records().credentials(None).await.unwrap().len(), 1, "the window's credential only");
}

/// polkit's prompt reads the same for every approval. A program of the
/// person's that asks over the control socket for an approval of its own just
/// before the person clicks Approve must not have their password confirm it:
/// the window's approval takes its place, the program's prompt is withdrawn
/// and refused, naming the window's, and the prompt the person answers after
/// clicking is the window's own.
#[tokio::test]
async fn a_programs_prompt_on_screen_gives_way_to_the_windows_approve() {
    let Two { e, shown, its_own, runtime, before } = two_requests(10).await;
    let program = program_approves(&runtime, &its_own);
    answered(e.verifier.asked_times(before + 1)).await;
    assert!(e.verifier.asked().pop().unwrap().summary.contains("Swim lessons"));

    let window = window_approves(&e.svc, &shown);
    // The program is refused before the person answers anything.
    told_the_window_asked(&answered(program).await.unwrap().unwrap().unwrap_err());
    answered(e.verifier.asked_times(before + 2)).await;
    let prompt = e.verifier.asked().pop().unwrap();
    assert!(prompt.summary.contains("Weekend playdates"), "{}", prompt.summary);
    assert_eq!(prompt.asker.surface, Surface::Window);

    only_the_window_approved(&e, window, &its_own).await;
}

/// The other way round: while the window's prompt is on screen, an approval
/// asked over the control socket gets no prompt of its own, and its refusal
/// (in the person's words, as the terminal shows it) says the window asked.
#[tokio::test]
async fn while_the_windows_prompt_is_on_screen_a_programs_approve_gets_no_prompt() {
    let Two { e, shown, its_own, runtime, before } = two_requests(11).await;
    let window = window_approves(&e.svc, &shown);
    answered(e.verifier.asked_times(before + 1)).await;

    let refused =
        answered(control::call(&runtime, &Command::Approve { id: its_own.clone() })).await.unwrap().unwrap_err();
    told_the_window_asked(&refused);
    assert_eq!(e.verifier.asked().len(), before + 1, "the OS was not asked for the program's approval");
    // A second click in the window waits for the person's answer to the first.
    let second = answered(e.svc.approve(&its_own, keyapp::service::Origin::ThisProcess)).await.unwrap_err();
    let words = keyapp::ui_words::refusal(schcp_consent::Language::English, &second);
    assert!(words.contains("Weekend playdates") && words.contains("window"), "{words}");
    assert_eq!(e.verifier.asked().len(), before + 1);

    only_the_window_approved(&e, window, &its_own).await;
}

#[tokio::test]
async fn a_peer_whose_process_is_unknown_approves_nothing() {
    let e = env(Ok(Method::Polkit)).await;
    let jkt = paired(&e, 9).await;
    let asked = e.verifier.asked().len();
    let id = rule_request(&e, &jkt, "k1").await;
    let err = control::execute(&e.svc, Command::Approve { id: id.clone() }, None).await.unwrap_err();
    assert!(matches!(err, ServiceError::NotVerified(Refusal::Unavailable { .. })), "{err:?}");
    assert_eq!(e.verifier.asked().len(), asked);
    assert_eq!(e.svc.requests().request(&id).await.unwrap().status, RequestStatus::Pending);
    // A decline needs no asker.
    let declined = control::execute(&e.svc, Command::Decline { id }, None).await.unwrap();
    assert_eq!(declined["status"], "declined");
}

#[test]
fn no_config_key_can_turn_the_verification_off() {
    for toml in [
        "user_verification = false\n",
        "[user_verification]\nenabled = false\n",
        "[polkit]\nenabled = false\n",
        "[control]\nverify = false\n",
    ] {
        assert!(Config::parse(toml, std::path::Path::new("k.toml")).is_err(), "{toml}");
    }
}

/// The consent text names members, bookers and a rule's people by the
/// person's own contacts (SchCP §5.12 "What a member can trust"). An
/// assistant that could add a contact over the control socket unconfirmed
/// could name its own key "Mum", and the person would read "Mum" where the
/// key app would otherwise say "someone you don't know". A name, added or
/// changed, goes through the OS like a yes.
#[tokio::test]
async fn a_contact_is_named_only_with_the_oss_confirmation() {
    let e = env(Err(Refusal::NotAuthorized)).await;
    let runtime = e.dir.path().join("run");
    let listener = control::bind(&runtime).unwrap();
    let owner = control::owner_uid(e.dir.path()).unwrap();
    tokio::spawn(control::serve(listener, e.svc.clone(), owner));
    let assistant = agent_jwk(7).principal_id().unwrap();
    let add = |name: &str| Command::ContactsAdd { principal: assistant.clone(), name: name.into(), relationship: None };

    let refused = control::call(&runtime, &add("Mum")).await.unwrap().unwrap_err();
    assert_eq!(
        (refused["code"].as_str(), refused["reason"].as_str()),
        (Some("NOT_PERMITTED"), Some("user_not_verified")),
        "{refused}"
    );
    let asked = e.verifier.asked().pop().unwrap();
    assert_eq!((asked.asker.pid, asked.summary.as_str()), (std::process::id(), "Name a contact “Mum”"));
    assert!(e.svc.directory().contacts().await.unwrap().is_empty(), "nothing was kept");
    // A peer the kernel did not name is not asked about, and adds nothing.
    let before = e.verifier.asked().len();
    assert!(control::execute(&e.svc, add("Mum"), None).await.is_err());
    assert_eq!(e.verifier.asked().len(), before);
    assert!(e.svc.directory().contacts().await.unwrap().is_empty());
    // Bad input is refused before the OS is asked.
    assert!(control::call(&runtime, &add(" ")).await.unwrap().is_err());
    assert_eq!(e.verifier.asked().len(), before);

    // The person confirms: the contact is kept.
    e.verifier.answer(Ok(Method::Polkit));
    control::call(&runtime, &add("Noor")).await.unwrap().unwrap();
    assert_eq!(e.svc.directory().contacts().await.unwrap()[0].name, "Noor");
    // A rename is a name too: refused by the OS, the old name stays.
    e.verifier.answer(Err(Refusal::Cancelled));
    let rename = e.svc.directory().rename_contact(&assistant, "Mum", keyapp::service::Origin::ThisProcess).await;
    assert!(matches!(rename, Err(ServiceError::NotVerified(Refusal::Cancelled))), "{rename:?}");
    assert_eq!(e.svc.directory().contacts().await.unwrap()[0].name, "Noor");
    assert_eq!(e.verifier.asked().pop().unwrap().summary, "Name a contact “Mum”");
}

/// The running key app's approvals and its recovery kit ask the OS through
/// one verifier: the window's "show the recovery phrase" takes the place of a
/// program's approval on screen, as the window's Approve does.
#[tokio::test]
async fn the_recovery_kit_and_the_approvals_take_turns_at_one_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let verifier = Scripted::new(Ok(Method::Polkit));
    let running = keyapp::app::start_verified_by(
        testkit::file_keyed::config(dir.path()),
        keyapp::keystore::PassphraseSource::Fixed("correct horse battery staple".to_owned().into()),
        verifier.clone(),
    )
    .await
    .expect("the key app starts");
    let pairing = running.service.pairings().request_pairing(&agent_jwk(12), "Calendar Assistant").await.unwrap();
    verifier.hold();
    let before = verifier.asked().len();
    let program = program_approves(&running.runtime_dir, &pairing.pairing_id);
    answered(verifier.asked_times(before + 1)).await;

    let custody = running.custody.clone();
    let kit = tokio::spawn(async move {
        let me = keyapp::user_verification::Asker::this_process(Surface::Window).unwrap();
        custody.reveal(me, "Show your recovery phrase".into()).await.map(|_| ())
    });
    let refused = answered(program).await.unwrap().unwrap().unwrap_err();
    assert_eq!(refused["reason"], "verification_underway");
    let message = refused["message"].as_str().unwrap();
    assert!(message.contains("window") && !message.contains("recovery"), "{message}");
    answered(verifier.asked_times(before + 2)).await;
    verifier.let_go();
    assert_eq!(answered(kit).await.unwrap(), Ok(()));
    let pairings = running.service.pairings().pairing(&pairing.pairing_id).await.unwrap();
    assert_eq!(pairings.status, keyapp::service::PairingStatus::Pending, "the program's approval took nothing");
}

/// The OS's prompt names nothing, so the window is told what a terminal or
/// another program asks it to approve: the request, while its prompt is on
/// screen, with a change that wakes the surfaces as it comes and goes. The
/// window's own prompt is not one of those.
#[tokio::test]
async fn what_a_program_asks_the_os_to_approve_is_known_to_the_window() {
    let Two { e, shown, its_own, runtime, before } = two_requests(13).await;
    assert_eq!(e.svc.asked_elsewhere(), None);
    let seen = e.svc.changes().wait_past(u64::MAX, std::time::Duration::ZERO).await;
    let program = program_approves(&runtime, &its_own);
    answered(e.verifier.asked_times(before + 1)).await;
    let on_screen = e.verifier.asked().pop().unwrap().summary;
    let asked = e.svc.asked_elsewhere().expect("a program's prompt is on screen");
    assert_eq!((asked.what.as_str(), asked.id.as_deref()), (on_screen.as_str(), Some(its_own.as_str())));
    let moved = answered(e.svc.changes().wait_past(seen, std::time::Duration::from_secs(30))).await;
    assert_ne!(moved, seen, "the surfaces were woken");

    // Cancelled, it is gone.
    e.verifier.answer(Err(Refusal::Cancelled));
    e.verifier.let_go();
    answered(program).await.unwrap().unwrap().unwrap_err();
    assert_eq!(e.svc.asked_elsewhere(), None);

    // The window's own prompt is not asked elsewhere.
    e.verifier.answer(Ok(Method::Polkit));
    let window = window_approves(&e.svc, &shown);
    answered(e.verifier.asked_times(before + 2)).await;
    assert_eq!(e.svc.asked_elsewhere(), None);
    e.verifier.let_go();
    assert_eq!(answered(window).await.unwrap().unwrap()["status"], "approved");
}

/// A program that hangs up while the OS asks about its approval (a
/// terminal's Ctrl-C) withdraws it: its prompt closes, the window no longer
/// names it, and the next approval is asked at once. A second approval it
/// queued behind the first asks nothing.
#[tokio::test]
async fn a_program_that_hangs_up_leaves_no_prompt_on_screen() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let Two { e, shown, its_own, runtime, before } = two_requests(14).await;
    let jkt = agent_jwk(14).thumbprint().unwrap();
    let queued = labelled_rule_request(&e, &jkt, "queued", "Piano lessons").await;
    let mut program = tokio::net::UnixStream::connect(control::socket_path(&runtime)).await.unwrap();
    let mut lines = String::new();
    for id in [&its_own, &queued] {
        lines.push_str(&serde_json::to_string(&Command::Approve { id: id.clone() }).unwrap());
        lines.push('\n');
    }
    program.write_all(lines.as_bytes()).await.unwrap();
    answered(e.verifier.asked_times(before + 1)).await;
    assert_eq!(e.svc.asked_elsewhere().and_then(|a| a.id), Some(its_own.clone()));

    // Hung up (its writing end closed): both answers are refusals, and the
    // second approval asked the OS nothing.
    program.shutdown().await.unwrap();
    let mut answers = tokio::io::BufReader::new(program).lines();
    for _ in 0..2 {
        let answer = answered(answers.next_line()).await.unwrap().expect("an answer");
        let answer: serde_json::Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["error"]["reason"], "verification_cancelled", "{answer}");
    }
    assert_eq!(e.verifier.asked().len(), before + 1);
    assert_eq!(e.svc.asked_elsewhere(), None);
    // The window's approval is asked next, and is the only prompt since.
    let window = window_approves(&e.svc, &shown);
    answered(e.verifier.asked_times(before + 2)).await;
    e.verifier.let_go();
    assert_eq!(answered(window).await.unwrap().unwrap()["status"], "approved");
    let asked: Vec<String> = e.verifier.asked()[before..].iter().map(|a| a.summary.clone()).collect();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(asked[0].contains("Swim lessons") && asked[1].contains("Weekend playdates"), "{asked:?}");
    for id in [&its_own, &queued] {
        assert_eq!(e.svc.requests().request(id).await.unwrap().status, RequestStatus::Pending);
    }
}
