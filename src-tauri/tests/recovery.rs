//! The recovery kit, the backup and the restore through the window's commands
//! (Tauri's mock runtime, no display), with a scripted verifier standing in
//! for polkit: the kit is handed out only after the OS said yes, only to the
//! main window; a refusal hands out nothing; the restore from the first-run
//! window writes nothing when the words are wrong or the backup tampered.

use desktop::ui_strings::UiLanguage;
use desktop::unlock::{Gate, GateView};
use keyapp::config::{Config, KeystoreBackend};
use keyapp::keystore::{self, PassphraseSource, KEY_FILE_NAME, RECORDS_FILE_NAME};
use keyapp::recovery::custody::Custody;
use keyapp::service::Service;
use keyapp::user_verification::{Method, Purpose, Refusal};
use serde_json::{json, Value};
use std::sync::Arc;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{mock_builder, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::WebviewWindow;
use testkit::verifier::Scripted;

struct Env {
    dir: tempfile::TempDir,
    app: tauri::App<MockRuntime>,
    main: WebviewWindow<MockRuntime>,
    consent: WebviewWindow<MockRuntime>,
    gate: Arc<Gate>,
    svc: Service,
    custody: Arc<Custody>,
    verifier: Arc<Scripted>,
}

fn block<T>(f: impl std::future::Future<Output = T>) -> T {
    tauri::async_runtime::block_on(f)
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let verifier = Scripted::new(Err(Refusal::NotAuthorized));
    let svc = block(testkit::service::open(dir.path(), keyapp::service::system_clock()));
    let key_dir = dir.path().join("key");
    let key = block(keystore::open(KeystoreBackend::File, &key_dir, PassphraseSource::Fixed("pw".into()))).unwrap();
    let custody =
        Arc::new(Custody::new(Arc::new(key), verifier.clone(), svc.records().store().clone(), dir.path().to_owned()));
    let gate = Arc::new(Gate::default());
    let app = desktop::commands::register(mock_builder())
        .manage(svc.clone())
        .manage(gate.clone())
        .manage(custody.clone())
        .manage(UiLanguage::new(schcp_consent::Language::English))
        .build(tauri::generate_context!(test = true))
        .expect("the mock app builds");
    let main = tauri::WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
    let consent = tauri::WebviewWindowBuilder::new(&app, "consent", Default::default()).build().unwrap();
    Env { dir, app, main, consent, gate, svc, custody, verifier }
}

fn call_in(window: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    tauri::test::get_ipc_response(window, request).map(|b| b.deserialize::<Value>().unwrap())
}

fn call(e: &Env, cmd: &str, args: Value) -> Result<Value, Value> {
    call_in(&e.main, cmd, args)
}

#[test]
fn an_unverified_call_is_refused_and_hands_out_no_word() {
    let e = env();
    let err = call(&e, "recovery_kit", json!({})).unwrap_err();
    assert_eq!(err["reason"], "user_not_verified", "{err}");
    assert_eq!(
        err["message"],
        "Your computer did not confirm it was you, so your recovery kit was not shown. Try again and confirm with your password or fingerprint."
    );
    assert_eq!(err.as_object().unwrap().len(), 3, "code, reason and message only: {err}");
    assert_eq!(e.verifier.asked().len(), 1, "the OS was asked");
    assert_eq!(e.verifier.asked()[0].summary, "Show your recovery phrase");
    // Its own prompt, which never reads like an approval's.
    assert_eq!(e.verifier.asked()[0].purpose, Purpose::ShowRecoveryKit);
    // A cancelled or timed-out confirmation is refused the same way.
    for refusal in [Refusal::Cancelled, Refusal::TimedOut] {
        e.verifier.answer(Err(refusal));
        assert!(call(&e, "recovery_kit", json!({})).is_err());
    }
    // Nothing was asked to type back, so no word can be confirmed (or guessed).
    assert_eq!(call(&e, "confirm_recovery_words", json!({"words": ["abandon", "abandon"]})).unwrap(), json!(false));
}

#[test]
fn the_consent_window_cannot_reach_the_kit_even_when_the_os_would_say_yes() {
    let e = env();
    e.verifier.answer(Ok(Method::Polkit));
    for cmd in desktop::command_names::MAIN_ONLY {
        let err = call_in(&e.consent, cmd, json!({})).unwrap_err();
        assert!(err.to_string().contains("not allowed"), "{cmd}: {err}");
    }
    assert!(e.verifier.asked().is_empty(), "the OS was never asked for the consent window");
}

#[test]
fn a_verified_call_shows_the_kit_once_and_only_the_asked_words_confirm() {
    let e = env();
    e.verifier.answer(Ok(Method::Polkit));
    let kit = call(&e, "recovery_kit", json!({})).unwrap();
    let words: Vec<String> = serde_json::from_value(kit["words"].clone()).unwrap();
    assert_eq!(words.len(), 24);
    assert_eq!(kit["principal"], e.custody.principal());
    assert_eq!(kit["key_seed"], false);
    let page = kit["page"].as_str().unwrap();
    assert!(page.contains(e.custody.principal()) && page.contains(&format!(" {}</li>", words[23])), "{page}");
    assert!(!page.contains("<script") && !page.contains("<style"), "{page}");
    let asked: Vec<usize> = serde_json::from_value(kit["confirm"].clone()).unwrap();
    assert!(asked.len() == 2 && asked[0] < asked[1] && asked[0] >= 1 && asked[1] <= 24, "{asked:?}");
    let right = vec![words[asked[0] - 1].to_uppercase(), format!(" {} ", words[asked[1] - 1])];
    let wrong_word = if words[asked[0] - 1] == "zoo" { "abandon" } else { "zoo" };
    let wrong = vec![wrong_word.to_owned(), words[asked[1] - 1].clone()];
    assert_eq!(call(&e, "confirm_recovery_words", json!({"words": wrong})).unwrap(), json!(false));
    assert_eq!(call(&e, "confirm_recovery_words", json!({"words": right})).unwrap(), json!(true));
    // One word, three words or an oversized one: refused, not judged.
    for bad in [json!([words[0]]), json!([words[0], words[1], words[2]]), json!(["a".repeat(65), "b"])] {
        let err = call(&e, "confirm_recovery_words", json!({ "words": bad })).unwrap_err();
        assert_eq!(err["code"], "INVALID_REQUEST", "{err}");
    }
}

#[test]
fn back_up_now_writes_an_encrypted_file_and_refuses_a_path_it_cannot_use() {
    let e = env();
    let dest = e.dir.path().join("mine.age");
    let said = call(&e, "backup_now", json!({"path": dest.to_str().unwrap()})).unwrap();
    assert!(said.as_str().unwrap().contains("mine.age") && said.as_str().unwrap().contains("encrypted"), "{said}");
    let bytes = std::fs::read(&dest).unwrap();
    assert!(bytes.starts_with(b"age-encryption.org/v1"), "an age file");
    assert!(!bytes.windows(15).any(|w| w == b"SQLite format 3"), "no plaintext records");
    for (path, reason) in [("relative.age", "bad_path"), ("", "bad_path"), (e.dir.path().to_str().unwrap(), "bad_path")]
    {
        let err = call(&e, "backup_now", json!({ "path": path })).unwrap_err();
        assert_eq!(err["reason"], reason, "{path}: {err}");
    }
    let err = call(&e, "backup_now", json!({"path": "/nonexistent-folder/x.age"})).unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("could not be written"), "{err}");
    assert!(!std::path::Path::new("/nonexistent-folder/x.age").exists());
}

#[test]
fn the_daily_backup_is_chosen_kept_and_a_bad_choice_changes_nothing() {
    let e = env();
    assert_eq!(
        call(&e, "auto_backup", json!({})).unwrap(),
        json!({"folder": null, "keep": 7, "in_config_file": false})
    );
    let folder = e.dir.path().join("daily");
    std::fs::create_dir(&folder).unwrap();
    let folder = folder.to_str().unwrap();
    for (args, reason) in [
        (json!({"folder": folder, "keep": 0}), "keep"),
        (json!({"folder": folder, "keep": 366}), "keep"),
        (json!({"folder": "/nonexistent-folder", "keep": 3}), "folder"),
        (json!({"folder": "relative", "keep": 3}), "path"),
    ] {
        let err = call(&e, "set_auto_backup", args.clone()).unwrap_err();
        assert!(!err["message"].as_str().unwrap().is_empty(), "{args}: {reason}");
        assert_eq!(call(&e, "auto_backup", json!({})).unwrap()["folder"], Value::Null, "{args}");
    }
    let chosen = call(&e, "set_auto_backup", json!({"folder": folder, "keep": 3})).unwrap();
    assert_eq!(chosen, json!({"folder": folder, "keep": 3, "in_config_file": false}));
    assert_eq!(call(&e, "auto_backup", json!({})).unwrap(), chosen);
    // Kept in the records (no config file), for the next start.
    let kept = block(keyapp::store::auto_backup::chosen(e.svc.records().store())).unwrap().unwrap();
    assert_eq!((kept.folder.unwrap().to_str().unwrap(), kept.keep), (folder, 3));
    // The schedule runs at once: the first backup is in the folder.
    testkit_wait(|| std::fs::read_dir(folder).unwrap().count() == 1);
    // Off again.
    let off = call(&e, "set_auto_backup", json!({"folder": null, "keep": 3})).unwrap();
    assert_eq!(off["folder"], Value::Null);
}

fn testkit_wait(mut done: impl FnMut() -> bool) {
    for _ in 0..200 {
        if done() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    panic!("timed out");
}

/// The first-run window's restore, with the real restore and file keystore
/// (`desktop::first_run`, as the app runs it before anything starts).
#[test]
fn the_first_run_restores_only_what_checks_out_and_writes_nothing_otherwise() {
    let e = env();
    // Nothing asks yet: an answer is refused.
    let err = call(&e, "first_run_choice", json!({"choice": {"choice": "new"}})).unwrap_err();
    assert_eq!(err["reason"], "not_asking");

    // The old computer: its kit (shown after the OS said yes) and a backup.
    e.verifier.answer(Ok(Method::Polkit));
    let kit = call(&e, "recovery_kit", json!({})).unwrap();
    let words: Vec<String> = serde_json::from_value(kit["words"].clone()).unwrap();
    let phrase = words.join(" ");
    let backup = e.dir.path().join("old.age");
    call(&e, "backup_now", json!({"path": backup.to_str().unwrap()})).unwrap();
    let tampered = e.dir.path().join("tampered.age");
    let mut bytes = std::fs::read(&backup).unwrap();
    let n = bytes.len();
    bytes[n - 40] ^= 1;
    std::fs::write(&tampered, bytes).unwrap();

    // The new computer: an empty data directory.
    let new_dir = tempfile::tempdir().unwrap();
    let data = new_dir.path().join("data");
    let mut config = Config { data_dir: Some(data.clone()), ..Default::default() };
    config.keystore.backend = KeystoreBackend::File;
    let (handle, gate) = (e.app.handle().clone(), e.gate.clone());
    let first = std::thread::spawn(move || block(desktop::first_run(&handle, &gate, &config)));
    testkit_wait(|| matches!(e.gate.view(), GateView::Welcome { problem: None }));

    let nothing_written = || assert!(!data.join(RECORDS_FILE_NAME).exists() && !data.join(KEY_FILE_NAME).exists());
    let restore = |words: &str, backup: Option<&std::path::Path>| {
        call(
            &e,
            "first_run_choice",
            json!({"choice": {"choice": "restore", "words": words, "backup": backup.map(|b| b.to_str().unwrap())}}),
        )
    };
    let problem_of = |view: Value| view["problem"].as_str().unwrap_or_default().to_owned();
    // A mistyped word: no word of the list ends in "q", so it is refused
    // whatever the kit (a word swapped for another of the list would pass the
    // checksum about once in 256 kits, and be asked about as a phrase).
    let mut typed = words.clone();
    typed[3].push('q');
    let typo = typed.join(" ");
    let view = restore(&typo, None).unwrap();
    assert_eq!(view["state"], "welcome");
    assert!(problem_of(view).starts_with("Those words are not a recovery phrase"));
    nothing_written();
    // The right words with a tampered backup.
    let view = restore(&phrase, Some(&tampered)).unwrap();
    assert!(problem_of(view).contains("changed or damaged"), "tampered");
    nothing_written();
    // Other (valid) words with the real backup: they do not open it.
    // BIP-39's vector for 32 zero bytes: a valid phrase, another principal.
    let other = format!("{}art", "abandon ".repeat(23));
    let view = restore(&other, Some(&backup)).unwrap();
    assert!(problem_of(view).starts_with("These words do not open that backup"));
    nothing_written();
    // An oversized answer is refused before it reaches the restore.
    let err = restore(&"abandon ".repeat(200), None).unwrap_err();
    assert_eq!(err["reason"], "too_large");

    // The right words and backup: the file keystore asks the new passphrase.
    let view = restore(&phrase, Some(&backup)).unwrap();
    assert_eq!(view["state"], "asking", "{view}");
    let view = call(&e, "unlock", json!({"passphrase": "new pw", "confirmation": "new pw"})).unwrap();
    assert_eq!(view["state"], "starting", "{view}");
    assert!(first.join().unwrap(), "restored");
    assert!(data.join(RECORDS_FILE_NAME).exists() && data.join(KEY_FILE_NAME).exists());
    let key = block(keystore::open(KeystoreBackend::File, &data, PassphraseSource::Fixed("new pw".into()))).unwrap();
    assert_eq!(key.principal_id(), e.custody.principal(), "the same principal is back");
}

#[test]
fn making_a_new_key_at_first_run_restores_nothing() {
    let e = env();
    let new_dir = tempfile::tempdir().unwrap();
    let config = Config { data_dir: Some(new_dir.path().join("data")), ..Default::default() };
    let (handle, gate) = (e.app.handle().clone(), e.gate.clone());
    let first = std::thread::spawn(move || block(desktop::first_run(&handle, &gate, &config)));
    testkit_wait(|| matches!(e.gate.view(), GateView::Welcome { .. }));
    let view = call(&e, "first_run_choice", json!({"choice": {"choice": "new"}})).unwrap();
    assert_eq!(view["state"], "starting");
    assert!(!first.join().unwrap());
    assert!(!new_dir.path().join("data").join(RECORDS_FILE_NAME).exists());
}
