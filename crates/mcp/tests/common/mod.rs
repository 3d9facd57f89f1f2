//! What the test binaries of this crate share: the key app started for real
//! on loopback (OS keychain: run under scripts/with-keyring), the HTTPS test
//! host, and the person answering over the real control socket.
#![allow(dead_code)] // each test binary uses its own subset

use keyapp::app::{self, Running};
use keyapp::config::Config;
use keyapp::control::{self, Command};
use keyapp::keystore::PassphraseSource;
use serde_json::Value;
use std::path::Path;
use testhost::{TestHost, TestHostConfig};

pub(crate) struct Env {
    pub(crate) _dir: tempfile::TempDir,
    pub(crate) host: TestHost,
    pub(crate) app: Running,
}

pub(crate) fn config_for(dir: &Path, host: &TestHost) -> Config {
    let ca = dir.join("ca.pem");
    std::fs::write(&ca, host.ca_pem()).unwrap();
    let (domain, addr) = host.resolve();
    let text = format!(
        r#"
data_dir = "{data}"
locale = "en"
[agent_api]
listen = "127.0.0.1:0"
[status_api]
listen = "127.0.0.1:0"
public_base = "https://keyapp.example"
[discovery]
extra_root_certs = ["{ca}"]
resolve = {{ "{domain}" = "{addr}" }}
"#,
        data = dir.join("data").display(),
        ca = ca.display()
    );
    Config::parse(&text, Path::new("test.toml")).unwrap()
}

pub(crate) async fn start() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let host = TestHost::start(TestHostConfig::default()).await;
    let config = config_for(dir.path(), &host);
    let app = app::start(config, PassphraseSource::default()).await.expect("the key app starts");
    Env { _dir: dir, host, app }
}

pub(crate) fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// An offer for a slot `days_ahead` days from now.
pub(crate) fn future_offer(host: &TestHost, days_ahead: i64) -> String {
    let mut c = host.priced_offer(now());
    let start = chrono::Utc::now() + chrono::Duration::days(days_ahead);
    c.slot.start = start.format("%Y-%m-%dT13:00:00-04:00").to_string();
    c.slot.end = Some(start.format("%Y-%m-%dT13:45:00-04:00").to_string());
    host.sign_offer(&c).unwrap()
}

pub(crate) async fn person(env: &Env, cmd: Command) -> Result<Value, Value> {
    control::call(&env.app.runtime_dir, &cmd).await.expect("the control socket answers")
}

pub(crate) async fn pending_ids(env: &Env) -> Vec<String> {
    let v = person(env, Command::Pending).await.unwrap();
    v.as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_owned()).collect()
}
