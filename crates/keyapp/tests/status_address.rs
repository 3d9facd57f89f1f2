//! The hostile assistant edits the person's config to choose the status
//! address (docs/threat-model.md): the address hosts are sent to stays the
//! one the person confirmed to the OS, until they confirm the new one. Run
//! under scripts/with-keyring; the OS is a scripted verifier (testkit).

use keyapp::app;
use keyapp::config::Config;
use keyapp::control::Command;
use keyapp::keystore::PassphraseSource;
use keyapp::status_address::StatusAddress;
use keyapp::user_verification::{Method as Verified, Refusal};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::path::Path;
use testkit::env::*;
use testkit::verifier::Scripted;

const CONFIRMED: &str = "https://keyapp.example";
const ASSISTANTS: &str = "https://assistant-runs-this.example";

async fn start(config: &Config, os: std::sync::Arc<Scripted>) -> app::Running {
    app::start_verified_by(config.clone(), PassphraseSource::default(), os).await.expect("the key app starts")
}

fn mandate(env: &Env, key: &str, shared: bool) -> Value {
    let mut constraints = json!({"max_bookings": 2});
    if shared {
        constraints["shared_limit"] = json!(true);
    }
    json!({
        "kind": "mandate", "idempotency_key": key,
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book"], "constraints": constraints
    })
}

/// The key app's first start beside a default test host, from its config
/// file in `dir` (which a confirmed change of address rewrites), the OS
/// answering as `os` says.
async fn first_start(
    dir: &Path,
    os: std::sync::Arc<Scripted>,
) -> (testhost::TestHost, std::path::PathBuf, app::Running) {
    let host = testhost::TestHost::start(testhost::TestHostConfig::default()).await;
    let path = dir.join("keyapp.toml");
    std::fs::write(&path, host.keyapp_test_config(dir).unwrap()).unwrap();
    let app = start(&Config::load(&path).unwrap(), os).await;
    (host, path, app)
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{text}");
    std::fs::write(path, text.replace(from, to)).unwrap();
}

#[tokio::test]
async fn an_assistant_that_edits_the_config_does_not_choose_the_status_address() {
    let dir = tempfile::tempdir().unwrap();
    // The person's first start: their address is confirmed to the OS.
    let os = Scripted::new(Ok(Verified::Polkit));
    let (host, path, app) = first_start(dir.path(), os.clone()).await;
    assert_eq!(os.asked().len(), 1);
    assert!(os.asked()[0].summary.contains(CONFIRMED), "{:?}", os.asked());
    drop(app);

    // The assistant points the status address at its own server, makes a
    // loopback base count as read by hosts, and restarts the key app. The OS
    // is not asked at start, where its prompt would show nothing of the
    // address and the person, who just started the app, would confirm it
    // unseen: an OS that would say yes is never asked.
    edit(
        &path,
        &format!("public_base = \"{CONFIRMED}\""),
        &format!("public_base = \"{ASSISTANTS}\"\nhosts_on_this_machine = true"),
    );
    let edited = std::fs::read_to_string(&path).unwrap();
    os.answer(Ok(Verified::Polkit));
    let config = Config::load(&path).unwrap();
    let app = start(&config, os.clone()).await;
    assert_eq!(os.asked().len(), 1, "the OS is not asked at a later start: {:?}", os.asked());
    let env = Env { _dir: dir, host, config, app };
    assert_eq!(env.app.service.profile().config().status_base(), CONFIRMED, "the confirmed address stays in force");
    assert!(!env.app.service.profile().config().status_api.hosts_on_this_machine);
    // Settings says so, naming both.
    let view: Value = person(&env, Command::StatusSetup).await.unwrap();
    assert_eq!(view["base"], CONFIRMED);
    let requested = view["requested"]["words"].as_str().unwrap();
    assert!(requested.contains(ASSISTANTS) && requested.contains(CONFIRMED), "{view}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited, "the file is the person's to fix");

    // What hosts are sent to is the confirmed address.
    os.answer(Ok(Verified::Polkit));
    let a = paired_agent(&env, 70).await;
    let created = a.call(Method::POST, "/v1/requests", Some(&mandate(&env, "m1", false))).await.unwrap();
    let done = approved(&env, &a, &created).await;
    let url = done["result"]["status"].as_str().unwrap();
    assert!(url.starts_with(&format!("{CONFIRMED}/status/")), "{url}");

    // The assistant cannot confirm it through the person's surfaces either:
    // the terminal's confirmation is the OS's.
    os.answer(Err(Refusal::Cancelled));
    let err = person(&env, Command::ConfirmConfiguredStatus).await.unwrap_err();
    assert_eq!(err["reason"], "verification_cancelled", "{err}");
    assert_eq!(env.app.service.profile().config().status_base(), CONFIRMED);

    // The person confirms it themselves: it is in force from then on.
    os.answer(Ok(Verified::Polkit));
    let view: Value = person(&env, Command::ConfirmConfiguredStatus).await.unwrap();
    assert_eq!(view["base"], ASSISTANTS);
    assert!(view.get("requested").is_none(), "{view}");
    assert_eq!(env.app.service.profile().config().status_base(), ASSISTANTS);
    let confirmed = keyapp::store::status_address::confirmed(env.app.service.records().store()).await.unwrap().unwrap();
    assert_eq!(confirmed.address, StatusAddress::of(&Config::load(&env.config.source.clone().unwrap()).unwrap()));
}

#[tokio::test]
async fn records_the_assistant_deleted_do_not_make_a_start_the_first_one() {
    let dir = tempfile::tempdir().unwrap();
    let os = Scripted::new(Ok(Verified::Polkit));
    let (host, path, app) = first_start(dir.path(), os.clone()).await;
    assert_eq!(os.asked().len(), 1, "the new principal's first start asks: {:?}", os.asked());
    drop(app);

    // The assistant points the config at its own server and deletes the
    // records, which name the principal and the confirmed address: without
    // them the next start would look like the very first one, which asks the
    // OS about the configured address at start, under polkit's fixed message,
    // just after the person started the app. The key is kept, so it is not.
    edit(&path, &format!("public_base = \"{CONFIRMED}\""), &format!("public_base = \"{ASSISTANTS}\""));
    let config = Config::load(&path).unwrap();
    let records = app::data_dir(&config).unwrap().join(keyapp::keystore::RECORDS_FILE_NAME);
    for suffix in ["", "-wal", "-shm"] {
        let mut file = records.clone().into_os_string();
        file.push(suffix);
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => panic!("{e}"),
            _ => {}
        }
    }
    os.answer(Ok(Verified::Polkit));
    let app = start(&config, os.clone()).await;
    assert_eq!(os.asked().len(), 1, "an OS that would say yes is not asked: {:?}", os.asked());
    let env = Env { _dir: dir, host, config, app };
    assert_eq!(StatusAddress::of(&env.app.service.profile().config()), StatusAddress::built_in());
    assert!(keyapp::store::status_address::confirmed(env.app.service.records().store()).await.unwrap().is_none());
    // Settings offers it, named, for the person to confirm there.
    let view: Value = person(&env, Command::StatusSetup).await.unwrap();
    assert!(view["requested"]["words"].as_str().unwrap().contains(ASSISTANTS), "{view}");
}

#[tokio::test]
async fn a_confirmation_written_into_the_records_puts_no_address_in_force() {
    let dir = tempfile::tempdir().unwrap();
    let os = Scripted::new(Ok(Verified::Polkit));
    let (host, path, app) = first_start(dir.path(), os.clone()).await;
    assert_eq!(os.asked().len(), 1, "the new principal's first start asks: {:?}", os.asked());
    let store = app.service.records().store().clone();
    drop(app);

    // The assistant writes its own server into the confirmed row, as if the
    // person had confirmed it, and into the config, then waits for a restart.
    let pool = store.pool();
    let done = sqlx::query("UPDATE status_address SET public_base = ?").bind(ASSISTANTS).execute(pool).await.unwrap();
    assert_eq!(done.rows_affected(), 1);
    pool.close().await;
    edit(&path, &format!("public_base = \"{CONFIRMED}\""), &format!("public_base = \"{ASSISTANTS}\""));
    let config = Config::load(&path).unwrap();
    let app = start(&config, os.clone()).await;
    let env = Env { _dir: dir, host, config, app };
    // The row is not one the key app wrote (record_seal): no status URL points
    // at the assistant's server, and the OS is not asked at this start.
    assert_eq!(os.asked().len(), 1, "{:?}", os.asked());
    assert_eq!(StatusAddress::of(&env.app.service.profile().config()), StatusAddress::built_in());
    let view: Value = person(&env, Command::StatusSetup).await.unwrap();
    assert!(view["requested"]["words"].as_str().unwrap().contains(ASSISTANTS), "offered, named: {view}");
    let a = paired_agent(&env, 31).await;
    let created = a.call(Method::POST, "/v1/requests", Some(&mandate(&env, "m1", false))).await.unwrap();
    let done = approved(&env, &a, &created).await;
    let url = done["result"]["status"].as_str().unwrap();
    assert!(!url.contains("assistant-runs-this"), "{url}");
    assert!(url.starts_with("http://127.0.0.1"), "the built-in address: {url}");
}

#[tokio::test]
async fn a_configured_hosted_service_setup_would_refuse_is_neither_asked_nor_confirmed() {
    let dir = tempfile::tempdir().unwrap();
    let host = testhost::TestHost::start(testhost::TestHostConfig::default()).await;
    let mut config = config_for(dir.path(), &host);
    // The assistant's own service, over plain http, at the very first start.
    config.status_api.hosted = Some("http://status.example".into());
    let os = Scripted::new(Ok(Verified::Polkit));
    let app = start(&config, os.clone()).await;
    assert!(os.asked().is_empty(), "setup would refuse it, so the OS is not asked: {:?}", os.asked());
    let env = Env { _dir: dir, host, config, app };
    assert_eq!(StatusAddress::of(&env.app.service.profile().config()), StatusAddress::built_in());
    let view: Value = person(&env, Command::StatusSetup).await.unwrap();
    assert!(view["requested"]["words"].as_str().unwrap().contains("http://status.example"), "{view}");
    // Confirming it in Settings is refused with setup's sentence, before the OS.
    let err = person(&env, Command::ConfirmConfiguredStatus).await.unwrap_err();
    assert_eq!(err["reason"], "status_unreachable", "{err}");
    assert!(os.asked().is_empty(), "{:?}", os.asked());
    assert_eq!(StatusAddress::of(&env.app.service.profile().config()), StatusAddress::built_in());
    assert!(keyapp::store::status_address::confirmed(env.app.service.records().store()).await.unwrap().is_none());
}

#[tokio::test]
async fn an_unconfirmed_hosts_on_this_machine_does_not_drop_the_cannot_withdraw_line() {
    let dir = tempfile::tempdir().unwrap();
    let host = testhost::TestHost::start(testhost::TestHostConfig::default()).await;
    let mut config = config_for(dir.path(), &host);
    // No confirmation yet, and a loopback base the assistant says hosts read.
    config.status_api.public_base = "http://127.0.0.1:7412".into();
    config.status_api.hosts_on_this_machine = true;
    let os = Scripted::new(Err(Refusal::NotAuthorized));
    let app = start(&config, os.clone()).await;
    let env = Env { _dir: dir, host, config, app };
    assert_eq!(StatusAddress::of(&env.app.service.profile().config()), StatusAddress::built_in());
    os.answer(Ok(Verified::Polkit));
    let a = paired_agent(&env, 71).await;
    let (status, err) = a.send(Method::POST, "/v1/requests", Some(&mandate(&env, "s", true))).await.unwrap();
    assert_eq!(
        (status, err["error"]["reason"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("status_unreachable"))
    );
    let created = a.call(Method::POST, "/v1/requests", Some(&mandate(&env, "n", false))).await.unwrap();
    assert!(
        created["consent_text"].as_str().unwrap().contains("I cannot withdraw this before it expires"),
        "{created}"
    );
}

/// What the status API answers a host that names `authority` as its `Host`:
/// a lookup of a credential it does not hold is answered (404), a `Host` it
/// does not serve is refused (421, the DNS-rebinding defence).
async fn status_reason(app: &app::Running, authority: &str) -> (StatusCode, String) {
    let r = testkit::status::client()
        .get(format!("http://{}/status/m-unknown", app.status_addr))
        .header(reqwest::header::HOST, authority)
        .send()
        .await
        .unwrap();
    let (status, _, reason, _) = testkit::status::refusal(r).await;
    (status, reason)
}

#[tokio::test]
async fn a_base_the_person_changes_while_it_runs_is_the_one_hosts_reach_at_once() {
    const MOVED: &str = "https://status.person.example";
    let dir = tempfile::tempdir().unwrap();
    let os = Scripted::new(Ok(Verified::Polkit));
    let (host, path, app) = first_start(dir.path(), os.clone()).await;
    let config = Config::load(&path).unwrap();
    let answered = (StatusCode::NOT_FOUND, "unknown_mandate".to_owned());
    let refused = (StatusCode::MISDIRECTED_REQUEST, "bad_host".to_owned());
    assert_eq!(status_reason(&app, "keyapp.example").await, answered);
    assert_eq!(status_reason(&app, "status.person.example").await, refused);
    let env = Env { _dir: dir, host, config, app };

    // A refused change changes nothing: the old base is still the one served.
    os.answer(Err(Refusal::Cancelled));
    let setup = keyapp::status_address::SetupChoice::OwnBase { url: MOVED.into() };
    let err = person(&env, Command::ChooseStatus { setup: setup.clone() }).await.unwrap_err();
    assert_eq!(err["reason"], "verification_cancelled", "{err}");
    assert_eq!(status_reason(&env.app, "keyapp.example").await, answered);
    assert_eq!(status_reason(&env.app, "status.person.example").await, refused);

    // The person moves their own base in Settings: from the answer on, hosts
    // reach the new one and not the old, with no restart.
    os.answer(Ok(Verified::Polkit));
    let view: Value = person(&env, Command::ChooseStatus { setup }).await.unwrap();
    assert_eq!(view["base"], MOVED, "{view}");
    assert_eq!(status_reason(&env.app, "status.person.example").await, answered);
    assert_eq!(status_reason(&env.app, "keyapp.example").await, refused);
    assert_eq!(status_reason(&env.app, "127.0.0.1").await, answered, "loopback as ever");
}

#[tokio::test]
async fn a_base_the_status_api_could_not_answer_at_is_refused_at_the_change_and_changes_nothing() {
    // Passes the config's own check (an http(s) prefix), but has no host a
    // `Host` could name.
    const UNPARSABLE: &str = "https://keyapp example";
    let dir = tempfile::tempdir().unwrap();
    let os = Scripted::new(Ok(Verified::Polkit));
    let (host, path, app) = first_start(dir.path(), os.clone()).await;
    drop(app);
    edit(&path, &format!("public_base = \"{CONFIRMED}\""), &format!("public_base = \"{UNPARSABLE}\""));
    let edited = std::fs::read_to_string(&path).unwrap();
    let config = Config::load(&path).unwrap();
    let app = start(&config, os.clone()).await;
    assert_eq!(os.asked().len(), 1, "the OS is not asked about a base that cannot be put in force");
    let answered = (StatusCode::NOT_FOUND, "unknown_mandate".to_owned());
    assert_eq!(status_reason(&app, "keyapp.example").await, answered, "the confirmed base is served");
    let env = Env { _dir: dir, host, config, app };
    let view: Value = person(&env, Command::StatusSetup).await.unwrap();
    assert!(view["requested"]["words"].as_str().unwrap().contains(UNPARSABLE), "Settings offers it: {view}");

    // Confirming it is refused there, in words naming it, before the OS is
    // asked or anything written.
    let err = person(&env, Command::ConfirmConfiguredStatus).await.unwrap_err();
    assert_eq!(err["reason"], "status_unreachable", "{err}");
    assert!(err["message"].as_str().unwrap().contains(UNPARSABLE), "{err}");
    assert_eq!(os.asked().len(), 1);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    assert_eq!(env.app.service.profile().config().status_base(), CONFIRMED);
    let confirmed = keyapp::store::status_address::confirmed(env.app.service.records().store()).await.unwrap().unwrap();
    assert_eq!(confirmed.address.public_base, CONFIRMED);
    assert_eq!(status_reason(&env.app, "keyapp.example").await, answered, "the status API still serves it");
    assert_eq!(status_reason(&env.app, "127.0.0.1").await, answered);
}
