//! A lost computer's switch end to end, against the real `schcp-status`
//! binary on a real PostgreSQL (`DATABASE_URL`; run under
//! scripts/with-postgres; `cargo build -p schcp-status` first, as
//! tests/hosted_e2e.rs says): the person issues, backs up, issues more, loses
//! the computer, restores on a new one from the phrase and the backup, and
//! revokes everything. Every credential, the one issued after the backup
//! included, then reads `revoked` at the service. Without the OS's
//! confirmation of the person, no surface (control socket, agent API) revokes
//! anything; nor does the phrase alone.

use keyapp::app;
use keyapp::config::{Config, KeystoreBackend};
use keyapp::control::Command;
use keyapp::keystore::{self, PassphraseSource, RECORDS_FILE_NAME};
use keyapp::recovery::{self, backup, restore};
use keyapp::service::{RevokedEverything, ServiceReach};
use keyapp::user_verification::{Asker, Method, Refusal, Surface};
use reqwest::{Method as Http, StatusCode};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;
use testkit::env::*;
use testkit::status_process::StatusProcess;
use testkit::verifier::Scripted;

const PASSPHRASE: &str = "correct horse battery staple";

fn passphrase() -> PassphraseSource {
    PassphraseSource::Fixed(PASSPHRASE.to_owned().into())
}

/// A computer: the key app in hosted mode on `data`, the key in the file
/// keystore, the OS's answers scripted by `verifier`.
fn computer_config(dir: &Path, host: &testhost::TestHost, hosted: &str, data: &Path) -> Config {
    let mut config = config_for(dir, host);
    config.data_dir = Some(data.to_owned());
    config.locale = Some("en".into());
    config.keystore.backend = KeystoreBackend::File;
    config.status_api.hosted = Some(hosted.to_owned());
    config.status_api.hosts_on_this_machine = true;
    config
}

async fn start(config: Config, verifier: Arc<Scripted>) -> app::Running {
    app::start_verified_by(config, passphrase(), verifier).await.expect("the key app starts")
}

/// A computer whose key app issues to the hosted service `server`, the OS
/// confirming the person; with a paired agent (`seed`) and the recovery kit.
async fn computer_with_kit(
    server: &StatusProcess,
    seed: u8,
) -> (Env, agent::AgentClient, recovery::RecoveryKit, Arc<Scripted>) {
    let yes = Scripted::new(Ok(Method::Polkit));
    let dir = tempfile::tempdir().unwrap();
    let host = testhost::TestHost::start(testhost::TestHostConfig::default()).await;
    let data = dir.path().join("data");
    let config = computer_config(dir.path(), &host, &server.base(), &data);
    let app = start(config.clone(), yes.clone()).await;
    let env = Env { _dir: dir, host, config, app };
    let a = paired_agent(&env, seed).await;
    let key = keystore::open(KeystoreBackend::File, &data, passphrase()).await.unwrap();
    let asker = Asker::this_process(Surface::Terminal).unwrap();
    let (kit, _) = recovery::reveal(&key, yes.as_ref(), asker, "Show".into()).await.unwrap();
    (env, a, kit, yes)
}

/// A shared-limit mandate the person approves; its (jti, status URL).
async fn issue(env: &Env, a: &agent::AgentClient, key: &str) -> (String, String) {
    let body = json!({
        "kind": "mandate", "idempotency_key": key,
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book"], "constraints": {"max_bookings": 2, "shared_limit": true}
    });
    let r = a.call(Http::POST, "/v1/requests", Some(&body)).await.unwrap();
    let done = approved(env, a, &r).await;
    assert_eq!(done["status"], "approved", "{done}");
    (done["result"]["jti"].as_str().unwrap().to_owned(), done["result"]["status"].as_str().unwrap().to_owned())
}

async fn status_at(url: &str) -> Value {
    reqwest::get(url).await.unwrap().json::<Value>().await.unwrap()["status"].clone()
}

async fn claim(url: &str) -> (StatusCode, Value) {
    let r = reqwest::Client::new()
        .post(format!("{url}/claims"))
        .json(&json!({"claim_id": "maple-street-auto/h_1"}))
        .send()
        .await
        .unwrap();
    (r.status(), r.json().await.unwrap_or(Value::Null))
}

/// What the records say of `jti`: revoked or not.
async fn revoked_in_records(app: &app::Running, jti: &str) -> bool {
    sqlx::query_scalar("SELECT revoked_at IS NOT NULL FROM credentials WHERE jti = ?")
        .bind(jti)
        .fetch_one(app.service.records().store().pool())
        .await
        .unwrap()
}

#[tokio::test]
async fn a_lost_computers_credentials_are_all_revoked_from_the_restored_key_app() {
    let server = StatusProcess::start("127.0.0.1:0", None);
    let yes = Scripted::new(Ok(Method::Polkit));

    // The old computer: two credentials, a backup, then a third.
    let old_dir = tempfile::tempdir().unwrap();
    let host = testhost::TestHost::start(testhost::TestHostConfig::default()).await;
    let old_data = old_dir.path().join("data");
    let config = computer_config(old_dir.path(), &host, &server.base(), &old_data);
    let app = start(config.clone(), yes.clone()).await;
    let env = Env { _dir: old_dir, host, config, app };
    let a = paired_agent(&env, 60).await;
    let (first, first_url) = issue(&env, &a, "lost-1").await;
    let (second, second_url) = issue(&env, &a, "lost-2").await;
    let key = keystore::open(KeystoreBackend::File, &old_data, passphrase()).await.unwrap();
    let asker = Asker::this_process(Surface::Terminal).unwrap();
    let (kit, _) = recovery::reveal(&key, yes.as_ref(), asker, "Show".into()).await.unwrap();
    let backup_file = env._dir.path().join("records.age");
    let now = chrono::Utc::now().timestamp();
    backup::write(
        env.app.service.records().store(),
        &key.backup_recipient(),
        key.principal_id(),
        &old_data,
        &backup_file,
        now,
    )
    .await
    .unwrap();
    let (third, third_url) = issue(&env, &a, "lost-3").await;
    for url in [&first_url, &second_url, &third_url] {
        assert_eq!(status_at(url).await, "active", "{url}");
    }

    // The computer is gone: only the phrase and the backup file are left.
    let Env { _dir: old_dir, host, .. } = env;
    let saved = tempfile::tempdir().unwrap();
    let kept_backup = saved.path().join("records.age");
    std::fs::copy(&backup_file, &kept_backup).unwrap();
    drop(old_dir);

    // The new computer: restored from the phrase and the backup.
    let new_dir = tempfile::tempdir().unwrap();
    let new_data = new_dir.path().join("data");
    let restored = restore::restore(
        restore::Restore {
            data_dir: new_data.clone(),
            backend: KeystoreBackend::File,
            passphrase: passphrase(),
            words: kit.phrase(),
            backup: Some(kept_backup),
            key_seed: false,
        },
        chrono::Utc::now().timestamp(),
    )
    .await
    .unwrap();
    assert_eq!(restored.principal, kit.principal_id());
    let verifier = Scripted::new(Err(Refusal::NotAuthorized));
    let config = computer_config(new_dir.path(), &host, &server.base(), &new_data);
    let app = start(config.clone(), verifier.clone()).await;
    let env = Env { _dir: new_dir, host, config, app };
    assert!(!revoked_in_records(&env.app, &first).await, "the backup holds the first, in force");
    assert!(
        sqlx::query("SELECT 1 FROM credentials WHERE jti = ?")
            .bind(&third)
            .fetch_optional(env.app.service.records().store().pool())
            .await
            .unwrap()
            .is_none(),
        "the third was issued after the backup"
    );

    // Without the OS's confirmation nothing is revoked, whoever asks.
    let refused = person(&env, Command::RevokeEverything).await.unwrap_err();
    assert_eq!(refused["reason"], "user_not_verified", "{refused}");
    let agent_api = format!("http://{}", env.app.agent_addr);
    for path in ["/v1/revoke-everything", "/v1/revoke_everything", "/v1/mandates/revoke-all", "/v1/recovery"] {
        let r = reqwest::Client::new().post(format!("{agent_api}{path}")).body("{}").send().await.unwrap();
        assert!(r.status().is_client_error(), "{path}: {}", r.status());
    }
    for url in [&first_url, &second_url, &third_url] {
        assert_eq!(status_at(url).await, "active", "nothing was revoked: {url}");
    }
    assert!(!revoked_in_records(&env.app, &first).await);
    assert_eq!(verifier.asked().len(), 1, "the OS was asked once, for the control command");
    assert_eq!(verifier.asked()[0].summary, "Revoke everything your old computer issued");

    // With it: one signed update, and every credential reads revoked.
    verifier.answer(Ok(Method::Polkit));
    let done: RevokedEverything =
        serde_json::from_value(person(&env, Command::RevokeEverything).await.unwrap()).unwrap();
    let mut in_records = done.in_records.clone();
    in_records.sort();
    let mut expected = vec![first.clone(), second.clone()];
    expected.sort();
    assert_eq!(in_records, expected);
    let [ServiceReach::Revoked { base, revoked, not_in_records }] = done.services.as_slice() else {
        panic!("{:?}", done.services)
    };
    assert_eq!(base, &server.base());
    let mut all = vec![first.clone(), second.clone(), third.clone()];
    all.sort();
    assert_eq!(revoked, &all, "the service revoked all three, the one after the backup too");
    assert_eq!(not_in_records, &vec![third.clone()]);
    for url in [&first_url, &second_url, &third_url] {
        assert_eq!(status_at(url).await, "revoked", "{url}");
        let (code, body) = claim(url).await;
        assert_eq!((code, body["error"]["reason"].as_str()), (StatusCode::FORBIDDEN, Some("mandate_revoked")));
    }
    assert!(revoked_in_records(&env.app, &first).await && revoked_in_records(&env.app, &second).await);
    let words = done.words.join("\n");
    assert!(words.contains("The 2 credentials in force in your records are revoked."), "{words}");
    assert!(words.contains("revoked 3 credentials registered under your key"), "{words}");
    assert!(words.contains("One of them was not in your records"), "{words}");
    // The one update carried the records' revocations: none is owed one by one.
    let owed: i64 = sqlx::query_scalar("SELECT count(*) FROM status_outbox WHERE acked_at IS NULL")
        .fetch_one(env.app.service.records().store().pool())
        .await
        .unwrap();
    assert_eq!(owed, 0);

    // A credential the restored key app issues afterwards is not reached.
    let a = paired_agent(&env, 61).await;
    let (_, fresh_url) = issue(&env, &a, "new-1").await;
    assert_eq!(status_at(&fresh_url).await, "active");
}

/// From the phrase alone (no records): the OS's refusal revokes nothing; its
/// yes revokes everything registered under the key.
#[tokio::test]
async fn the_phrase_alone_revokes_everything_at_the_status_service_after_the_os_confirms() {
    let server = StatusProcess::start("127.0.0.1:0", None);
    let (env, a, kit, yes) = computer_with_kit(&server, 62).await;
    let (jti, url) = issue(&env, &a, "phrase-1").await;
    let asker = || Asker::this_process(Surface::Terminal).unwrap();
    assert!(env.config.data_dir.as_ref().unwrap().join(RECORDS_FILE_NAME).exists());

    let no = Scripted::new(Err(Refusal::Cancelled));
    let now = chrono::Utc::now().timestamp();
    let refused = recovery::revoke_all_with_kit(&kit, &server.base(), no.as_ref(), asker(), "x".into(), now).await;
    assert!(matches!(refused, Err(recovery::PhraseSwitchError::NotVerified(Refusal::Cancelled))), "{refused:?}");
    assert_eq!(status_at(&url).await, "active");

    let revoked =
        recovery::revoke_all_with_kit(&kit, &server.base(), yes.as_ref(), asker(), "x".into(), now).await.unwrap();
    assert_eq!(revoked, vec![jti]);
    assert_eq!(status_at(&url).await, "revoked");
}

/// `schcp-keyapp revoke-everything --phrase --hosted BASE` as a person runs
/// it: the binary, its configuration in English, the phrase on one line of
/// standard input, the OS's confirmation from the real polkit
/// (scripts/with-polkit; root is confirmed, the test user, with no agent to
/// ask, is not): (exit success, stdout, stderr).
fn revoke_with_phrase_cli(
    dir: &Path,
    base: &str,
    phrase: &str,
    user: Option<&testkit::local_user::TestUser>,
) -> (bool, String, String) {
    use std::os::unix::process::CommandExt;
    let config = dir.join("phrase-only.toml");
    // No records here: the phrase alone, on a computer that never had them.
    std::fs::write(&config, format!("data_dir = \"{}\"\nlocale = \"en\"\n", dir.join("none").display())).unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_schcp-keyapp"));
    command.arg("--config").arg(&config).args(["revoke-everything", "--phrase", "--hosted", base]);
    if let Some(user) = user {
        std::os::unix::fs::chown(dir, Some(user.uid), Some(user.gid)).unwrap();
        std::os::unix::fs::chown(&config, Some(user.uid), Some(user.gid)).unwrap();
        command.uid(user.uid).gid(user.gid).env("HOME", dir);
    }
    testkit::terminal::typed(&mut command, phrase)
}

/// The terminal's switch, run as the binary: words that are no phrase, and a
/// person the OS does not confirm, revoke nothing; the person's own phrase,
/// confirmed, revokes every credential registered under the key, and says so.
#[tokio::test]
async fn the_terminal_command_revokes_everything_from_the_phrase_on_standard_input() {
    let server = StatusProcess::start("127.0.0.1:0", None);
    let (env, a, kit, _) = computer_with_kit(&server, 63).await;
    let (_, first) = issue(&env, &a, "cli-1").await;
    let (_, second) = issue(&env, &a, "cli-2").await;
    let words = secrecy::ExposeSecret::expose_secret(&kit.phrase()).to_owned();
    let elsewhere = tempfile::Builder::new().prefix("schcp-phrase.").tempdir_in("/tmp").unwrap();
    let base = server.base();

    // Not a phrase: refused in words, before anyone is asked; nothing revoked.
    let (ok, _, err) = revoke_with_phrase_cli(elsewhere.path(), &base, "these are not the words", None);
    assert!(!ok && err.contains("Error:"), "{err}");
    assert_eq!((status_at(&first).await, status_at(&second).await), ("active".into(), "active".into()));

    // The right words, but the OS does not confirm the person: nothing revoked.
    if let Some(user) = testkit::local_user::TestUser::from_env() {
        let (ok, out, err) = revoke_with_phrase_cli(elsewhere.path(), &base, &words, Some(&user));
        assert!(!ok, "{out}{err}");
        assert!(err.contains("did not confirm it was you, so nothing was revoked"), "{err}");
        assert_eq!((status_at(&first).await, status_at(&second).await), ("active".into(), "active".into()));
    }

    // Confirmed: both, at once, and the person is told how many.
    let (ok, out, err) = revoke_with_phrase_cli(elsewhere.path(), &base, &words, None);
    assert!(ok, "{out}{err}");
    assert!(
        out.contains(&format!("The status service at {base} revoked 2 credentials registered under your key")),
        "{out}"
    );
    assert!(out.contains("restore your latest backup and run schcp-keyapp revoke-everything"), "{out}");
    assert!(!out.contains(&words) && !err.contains(&words), "the phrase is never echoed");
    assert_eq!((status_at(&first).await, status_at(&second).await), ("revoked".into(), "revoked".into()));
    let (code, body) = claim(&first).await;
    assert_eq!((code, body["error"]["reason"].as_str()), (StatusCode::FORBIDDEN, Some("mandate_revoked")));
}
