//! `schcp-keyapp setup`, the real terminal program, on a running key app,
//! against the real `schcp-status` on a real PostgreSQL (run under
//! scripts/with-postgres, scripts/with-keyring and scripts/with-polkit, as
//! scripts/test does: the OS confirms a change of status address). A hosted
//! service is checked, confirmed, written to the config file and published
//! to; every address hosts could not read, a service that does not answer
//! and one that refuses this key app are refused in one sentence, with
//! nothing written anywhere.

use keyapp::app;
use keyapp::config::Config;
use keyapp::control::Command;
use keyapp::keystore::PassphraseSource;
use keyapp::status_address::StatusAddress;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use testkit::env::*;
use testkit::status_process::StatusProcess;

/// A key app started from a config file (so setup writes its choice there),
/// beside a test host; `here` says whether its hosts run on this machine.
async fn start_from_file(here: bool) -> (Env, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let host = testhost::TestHost::start(testhost::TestHostConfig::default()).await;
    let mut text = host.keyapp_test_config(dir.path()).unwrap();
    if here {
        text = text.replace("[status_api]\n", "[status_api]\nhosts_on_this_machine = true\n");
    }
    let path = dir.path().join("keyapp.toml");
    std::fs::write(&path, text).unwrap();
    let config = Config::load(&path).unwrap();
    let app = app::start(config.clone(), PassphraseSource::default()).await.expect("the key app starts");
    (Env { _dir: dir, host, config, app }, path)
}

/// `schcp-keyapp --config FILE ARGS…`: (success, stdout, stderr).
async fn cli(config: &Path, args: &[&str]) -> (bool, String, String) {
    terminal(env!("CARGO_BIN_EXE_schcp-keyapp"), config, args, "").await
}

/// What a refusal must leave as it was: the file, the records, the address in force.
struct Before {
    file: String,
    confirmed: Option<StatusAddress>,
    in_force: String,
}

async fn before(env: &Env, path: &Path) -> Before {
    Before {
        file: std::fs::read_to_string(path).unwrap(),
        confirmed: keyapp::store::status_address::confirmed(env.app.service.records().store())
            .await
            .unwrap()
            .map(|c| c.address),
        in_force: env.app.service.profile().config().status_base().to_owned(),
    }
}

async fn refused(env: &Env, path: &Path, args: &[&str], says: &str) {
    let was = before(env, path).await;
    let (ok, _, err) = cli(path, args).await;
    assert!(!ok, "{args:?} was taken");
    assert!(err.contains(says), "{args:?}: {err}");
    // What failed, then what to do (the terminal's two lines for every error).
    let lines: Vec<&str> = err.trim().lines().collect();
    assert_eq!(lines.len(), 2, "what failed and what to do: {err}");
    assert!(lines[0].starts_with("Error: ") && lines[1].starts_with("What to do: "), "{err}");
    let now = before(env, path).await;
    assert_eq!(now.file, was.file, "{args:?}: the config file changed");
    assert_eq!(now.confirmed, was.confirmed, "{args:?}: the records changed");
    assert_eq!(now.in_force, was.in_force, "{args:?}: the address in force changed");
}

fn shared_request(env: &Env, key: &str) -> Value {
    json!({
        "kind": "mandate", "idempotency_key": key,
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book"], "constraints": {"max_bookings": 2, "shared_limit": true}
    })
}

#[tokio::test]
async fn setup_checks_a_real_status_service_confirms_writes_the_config_and_publishes() {
    let server = StatusProcess::start("127.0.0.1:0", None);
    let (env, path) = start_from_file(true).await;
    let was: Value = person(&env, Command::StatusSetup).await.unwrap();
    assert_eq!((was["choice"].as_str(), was["base"].as_str()), (Some("own_base"), Some("https://keyapp.example")));

    let base = server.base();
    let (ok, out, err) = cli(&path, &["setup", "--hosted", &base]).await;
    assert!(ok, "{err}");
    assert!(out.contains(&format!("Hosts check your credentials at the hosted status service {base}.")), "{out}");
    // Written to the config the key app reads, the rest of it kept.
    let written = Config::load(&path).unwrap();
    assert_eq!(written.hosted_base(), Some(base.as_str()));
    assert_eq!(written.status_api.public_base, "https://keyapp.example");
    assert_eq!(written.discovery, env.config.discovery);
    // In force at once, and kept as confirmed.
    assert_eq!(env.app.service.profile().config().status_base(), base);
    let confirmed = keyapp::store::status_address::confirmed(env.app.service.records().store()).await.unwrap().unwrap();
    assert_eq!(
        (confirmed.address.hosted.as_deref(), confirmed.confirmed_by.as_deref()),
        (Some(base.as_str()), Some("polkit"))
    );

    // The next credential is checkable at the service, at once.
    let a = paired_agent(&env, 60).await;
    let created = a.call(Method::POST, "/v1/requests", Some(&shared_request(&env, "setup-1"))).await.unwrap();
    let done = approved(&env, &a, &created).await;
    let url = done["result"]["status"].as_str().unwrap().to_owned();
    assert!(url.starts_with(&format!("{base}/status/")), "{url}");
    let r = reqwest::get(&url).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.json::<Value>().await.unwrap()["remaining"], 2);

    // Settings: the choice in words, the publication reached, nothing waiting.
    let view: Value = person(&env, Command::StatusSetup).await.unwrap();
    assert_eq!((view["choice"].as_str(), view["hosts_can_check"].as_str()), (Some("hosted"), Some("this-machine")));
    assert_eq!((view["publication"].as_str(), view["waiting"].as_i64()), (Some("reached"), Some(0)));
    assert!(view["publication_words"].as_str().unwrap().contains("Nothing is waiting"), "{view}");
    // `setup` with no option says the same and, with no answer, leaves it.
    let (ok, out, _) = cli(&path, &["setup"]).await;
    assert!(
        ok && out.contains("The last update reached the status service") && out.contains("Left as it is."),
        "{out}"
    );

    // Hostile answers on this key app (its hosts on this machine): a service
    // that does not answer, and one whose operator does not serve this key.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nobody = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    refused(&env, &path, &["setup", "--hosted", &nobody], "did not answer over https").await;
    // The operator serves one other principal only.
    let strict = StatusProcess::start("127.0.0.1:0", Some(&format!("namespaces = [\"{}\"]\n", "A".repeat(43))));
    refused(&env, &path, &["setup", "--hosted", &strict.base()], "does not serve your key").await;
    refused(&env, &path, &["setup", "--own-base", "http://10.0.0.5"], "10.0.0.5").await;
}

#[tokio::test]
async fn setup_refuses_every_address_hosts_could_not_read_and_writes_nothing() {
    let (env, path) = start_from_file(false).await;
    let server = StatusProcess::start("127.0.0.1:0", None);
    for (url, says) in [
        ("http://status.example", "it is not https"),
        (server.base().as_str(), "it is this computer"),
        ("https://localhost:8450", "it is this computer"),
        ("https://192.168.1.20", "192.168.1.20 is an address of a private or local network"),
        ("https://100.64.0.9", "100.64.0.9 is an address of a private or local network"),
        ("https://nas.local", "nas.local is a name on your local network only"),
        ("https://user:pw@status.example", "user name or password"),
        ("status.example", "Type it whole, starting with https://"),
        ("https://status.example/?ns=1", "nothing after a ? or #"),
    ] {
        refused(&env, &path, &["setup", "--hosted", url], says).await;
    }
    // A public name that does not exist: checked over the network, no answer.
    refused(&env, &path, &["setup", "--hosted", "https://status.invalid"], "did not answer over https").await;
    // "Not now" away from an address hosts read is a change: confirmed, then written.
    let (ok, out, err) = cli(&path, &["setup", "--not-now"]).await;
    assert!(ok, "{err}");
    assert!(out.contains("You have not chosen a status service"), "{out}");
    assert_eq!(StatusAddress::of(&Config::load(&path).unwrap()), StatusAddress::built_in());
    let created = paired_agent(&env, 61)
        .await
        .send(Method::POST, "/v1/requests", Some(&shared_request(&env, "nn")))
        .await
        .unwrap();
    assert_eq!(
        (created.0, created.1["error"]["reason"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("status_unreachable"))
    );
}
