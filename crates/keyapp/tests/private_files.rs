//! Records private to their owner: after the key app starts, its data
//! directory is 0700 and every file in it 0600 (the database, SQLite's `-wal`
//! and `-shm`, the encrypted key, `agent-api.json`, the control socket), after a
//! first start, after a restart, and when an older version left it looser.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use keyapp::app;
use keyapp::config::{self, Config};
use keyapp::keystore::PassphraseSource;

fn config(data: &Path) -> Config {
    let mut config = Config { data_dir: Some(data.to_owned()), locale: Some("en".into()), ..Config::default() };
    config.agent_api.listen = "127.0.0.1:0".parse().unwrap();
    config.status_api.listen = "127.0.0.1:0".parse().unwrap();
    config.keystore.backend = config::KeystoreBackend::File;
    config
}

fn passphrase() -> PassphraseSource {
    PassphraseSource::Fixed("correct horse battery staple".to_owned().into())
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777
}

/// Every entry under `dir`, itself included, with its mode.
fn modes(dir: &Path) -> Vec<(PathBuf, u32, bool)> {
    let mut out = vec![(dir.to_owned(), mode(dir), true)];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(modes(&path));
        } else {
            out.push((path.clone(), mode(&path), false));
        }
    }
    out
}

#[track_caller]
fn assert_private(dir: &Path, when: &str) {
    for (path, mode, is_dir) in modes(dir) {
        let want = if is_dir { 0o700 } else { 0o600 };
        assert_eq!(mode, want, "{when}: {} is {mode:o}", path.display());
    }
    for name in ["keyapp.db", "keyapp.db-wal", "keyapp.db-shm", "principal.key.age", "run/agent-api.json"] {
        assert!(dir.join(name).exists(), "{when}: {name} exists, so its mode was checked");
    }
}

/// A write to the records: a contact the person names (the OS, polkit here, confirms it).
async fn add_contact(running: &app::Running, principal: &str, name: &str) {
    let this = keyapp::service::Origin::ThisProcess;
    running.service.directory().add_contact(principal, name, None, this).await.unwrap();
}

#[tokio::test]
async fn the_data_directory_is_the_owners_alone_from_the_first_start_on() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("profile").join("data");
    let first = app::start(config(&data), passphrase()).await.expect("the key app starts");
    // The migrations wrote, so SQLite has made its WAL files by now.
    assert_private(&data, "after a first start");
    add_contact(&first, "urn:schcp:principal:jwk-thumbprint:x", "Ellis").await;
    assert_private(&data, "after a write");

    drop(first); // one key app per data directory
    let again = app::start(config(&data), passphrase()).await.expect("the key app restarts");
    add_contact(&again, "urn:schcp:principal:jwk-thumbprint:y", "Sam").await;
    assert_private(&data, "after a restart");
}

#[tokio::test]
async fn a_looser_data_directory_is_tightened_at_start() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    drop(app::start(config(&data), passphrase()).await.unwrap());
    // As an older version left it: a 0755 directory of 0644 files.
    for (path, _, is_dir) in modes(&data) {
        let loose = if is_dir { 0o755 } else { 0o644 };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(loose)).unwrap();
    }
    assert_eq!(mode(&data.join("keyapp.db")), 0o644);
    let running = app::start(config(&data), passphrase()).await.expect("the key app starts");
    add_contact(&running, "urn:schcp:principal:jwk-thumbprint:z", "Kim").await;
    assert_private(&data, "after a start on a loose directory");
}
