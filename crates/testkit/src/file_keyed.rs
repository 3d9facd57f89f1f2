//! The key app on loopback with a file key (no keychain needed), for the tests
//! of local peers and of what runs where the key app ran.

use keyapp::app::{self, Running};
use keyapp::config::{self, Config};
use keyapp::keystore::PassphraseSource;
use std::path::Path;

/// Records under `dir/data`, English, both listeners on free loopback ports,
/// the key in the file keystore.
pub fn config(dir: &Path) -> Config {
    let mut config = Config { data_dir: Some(dir.join("data")), locale: Some("en".into()), ..Config::default() };
    config.agent_api.listen = "127.0.0.1:0".parse().unwrap();
    config.status_api.listen = "127.0.0.1:0".parse().unwrap();
    // The tests' hosts are on this machine: its loopback status base is theirs.
    config.status_api.hosts_on_this_machine = true;
    config.keystore.backend = config::KeystoreBackend::File;
    config
}

/// Starts the key app on `config`, the file key unlocked with a fixed passphrase.
pub async fn start_with(config: Config) -> Running {
    app::start(config, PassphraseSource::Fixed("correct horse battery staple".to_owned().into()))
        .await
        .expect("the key app starts")
}
