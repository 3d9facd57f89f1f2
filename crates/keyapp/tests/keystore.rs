//! Key custody against a real keychain: run under `scripts/with-keyring`
//! (scripts/test does), which gives this process a private D-Bus session and
//! an unlocked gnome-keyring, so nothing here touches a developer's own keychain.
//! The OS backend's tests also need the unlock helper installed
//! (scripts/install-unlock-helper) and a polkitd (scripts/with-polkit): the
//! keychain item is sealed under a key the OS releases through pkexec, which
//! authorizes root (these tests) without asking.
//!
//! The failure cases (no session bus, no Secret Service provider, a locked
//! collection, the passphrase variable) need another environment than this
//! process's, and tests share the process's environment across threads; so each
//! runs this test binary again as a child with its own environment, and the
//! child (`child_scenario`) checks the outcome.

use keyapp::config::KeystoreBackend;
use keyapp::keystore::{self, KeyLocation, KeystoreError, PassphraseSource, PrincipalKey, SecretString};
use schcp::jwk::Jwk;
use schcp::jws::{self, HeaderExtras, Typ};
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/seed_scan.rs"]
mod seed_scan;

/// The variable that tells a child run of this binary which scenario to check.
const CHILD: &str = "SCHCP_KEYSTORE_TEST_CHILD";

fn open_blocking(
    backend: KeystoreBackend,
    dir: &Path,
    source: PassphraseSource,
) -> Result<PrincipalKey, KeystoreError> {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    rt.block_on(keystore::open(backend, dir, source))
}

/// The OS-keychain tests write to the session's keychain; refuse to run them
/// against a real desktop keychain.
fn require_scratch_keychain() {
    assert!(
        std::env::var_os("SCHCP_WITH_KEYRING").is_some(),
        "the keychain tests need a scratch keychain: run them as `scripts/with-keyring cargo test ...` (scripts/test does)"
    );
}

/// A direct keyring call (blocking D-Bus, so on a plain thread, not a runtime
/// worker), tried again while gnome-keyring is being restarted: it can abort
/// under another client's disconnect, and the scratch keychain's supervisor
/// brings it back (scripts/with-keyring), as the key app's own keystore waits.
fn with_keychain<T: Send + 'static>(call: impl Fn() -> keyring::Result<T> + Send + 'static) -> T {
    std::thread::spawn(move || {
        let mut tries = 0;
        loop {
            match call() {
                Err(keyring::Error::PlatformFailure(e) | keyring::Error::NoStorageAccess(e)) if tries < 3 => {
                    eprintln!("keychain call failed ({e}); trying again");
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(500));
                }
                other => return other.unwrap(),
            }
        }
    })
    .join()
    .unwrap()
}

/// What the keychain holds for `dir`'s profile, read with keyring directly, as
/// any process of the person's can.
fn keychain_item(dir: &Path) -> Vec<u8> {
    let account = keystore::keychain_account(dir).unwrap();
    with_keychain(move || keyring::Entry::new(keystore::KEYCHAIN_SERVICE, &account)?.get_secret())
}

fn set_keychain_item(dir: &Path, secret: &[u8]) {
    let account = keystore::keychain_account(dir).unwrap();
    let secret = secret.to_vec();
    with_keychain(move || keyring::Entry::new(keystore::KEYCHAIN_SERVICE, &account)?.set_secret(&secret));
}

fn public_key(key: &PrincipalKey) -> [u8; 32] {
    key.verifying_key().to_bytes()
}

/// The item is the sealed form (tag, 80 bytes) and gives no seed of `key`.
fn assert_sealed(item: &[u8], key: &PrincipalKey) {
    assert_eq!(item.len(), 80, "a sealed item");
    // SCHCPSK1 a key seed, SCHCPSK2 the recovery phrase a key derives from.
    assert!(item.starts_with(b"SCHCPSK1") || item.starts_with(b"SCHCPSK2"), "tagged with its version");
    assert_eq!(seed_scan::find_seed(item, &public_key(key)), None, "the item gives the seed");
}

fn public_jwk_of_seed(seed: &[u8]) -> Jwk {
    let seed: [u8; 32] = seed.try_into().expect("a 32-byte seed");
    Jwk::ed25519(&ed25519_dalek::SigningKey::from_bytes(&seed).verifying_key())
}

fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                out.push((path, bytes));
            }
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The seed raw, in hex and in both base64 alphabets.
fn spellings(seed: &[u8]) -> Vec<Vec<u8>> {
    use base64::Engine;
    let hex: String = seed.iter().map(|b| format!("{b:02x}")).collect();
    vec![
        seed.to_vec(),
        hex.into_bytes(),
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(seed).into_bytes(),
        base64::engine::general_purpose::STANDARD.encode(seed).into_bytes(),
    ]
}

fn assert_no_seed_in_files(seed: &[u8], dir: &Path) {
    for (path, bytes) in files_under(dir) {
        for spelling in spellings(seed) {
            assert!(!contains(&bytes, &spelling), "the private key is in {}", path.display());
        }
    }
}

fn assert_signs_verifiable_jws(key: &PrincipalKey) {
    let claims = serde_json::json!({"v": "0.4", "iss": key.principal_id(), "jti": "m-1"});
    let extras = HeaderExtras { kid: None, jwk: Some(key.jwk().clone()) };
    let compact = jws::sign(Typ::Mandate, extras, &claims, key).unwrap();
    let parsed = jws::parse(&compact).unwrap();
    parsed.verify(Typ::Mandate, &key.jwk().public_key().unwrap()).unwrap();
    assert_eq!(parsed.payload["iss"], key.principal_id());
}

// ---------------------------------------------------------------- OS keychain

#[test]
fn os_first_run_creates_a_key_and_later_runs_load_it() {
    require_scratch_keychain();
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("profile");
    let first = open_blocking(KeystoreBackend::Os, &data_dir, PassphraseSource::default()).unwrap();
    assert!(data_dir.is_dir(), "the data directory is created");
    assert!(first.principal_id().starts_with("urn:schcp:principal:jwk-thumbprint:"));
    assert_eq!(
        first.location(),
        &KeyLocation::Keychain { service: "schcp-keyapp", account: keystore::keychain_account(&data_dir).unwrap() }
    );

    let second = open_blocking(KeystoreBackend::Os, &data_dir, PassphraseSource::default()).unwrap();
    assert_eq!(second.jwk(), first.jwk(), "a restart keeps the key");
    assert_eq!(second.principal_id(), first.principal_id());

    // What the keychain holds is this key sealed, never its seed.
    assert_sealed(&keychain_item(&data_dir), &first);
    assert_signs_verifiable_jws(&second);
}

#[test]
fn os_two_data_dirs_hold_two_keys() {
    require_scratch_keychain();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let key_a = open_blocking(KeystoreBackend::Os, a.path(), PassphraseSource::default()).unwrap();
    let key_b = open_blocking(KeystoreBackend::Os, b.path(), PassphraseSource::default()).unwrap();
    assert_ne!(key_a.jwk(), key_b.jwk());
    assert_ne!(key_a.principal_id(), key_b.principal_id());
    // And each still loads its own.
    let again_a = open_blocking(KeystoreBackend::Os, a.path(), PassphraseSource::default()).unwrap();
    assert_eq!(again_a.jwk(), key_a.jwk());
}

#[test]
fn os_key_is_in_no_file_of_the_data_dir_nor_in_clear_in_the_keyring_files() {
    require_scratch_keychain();
    let dir = tempfile::tempdir().unwrap();
    let key = open_blocking(KeystoreBackend::Os, dir.path(), PassphraseSource::default()).unwrap();
    assert!(key.is_new(), "made by this open");
    // Records made after the key, as the key app makes them.
    std::fs::write(dir.path().join("keyapp.db"), b"not the key").unwrap();
    let again = open_blocking(KeystoreBackend::Os, dir.path(), PassphraseSource::default()).unwrap();
    assert!(!again.is_new(), "kept before, so not new");
    assert_eq!(again.jwk(), key.jwk());
    assert_sealed(&keychain_item(dir.path()), &key);
    seed_scan::assert_no_seed_under(&[dir.path()], &public_key(&key));
    // gnome-keyring's own files (under the scratch XDG_DATA_HOME) hold no seed either.
    let keyring_files = PathBuf::from(std::env::var_os("XDG_DATA_HOME").expect("with-keyring sets XDG_DATA_HOME"));
    assert!(seed_scan::assert_no_seed_under(&[&keyring_files], &public_key(&key)) > 0);
    // Nor does anything the key app prints carry it.
    assert_eq!(seed_scan::find_seed(format!("{key:?}").as_bytes(), &public_key(&key)), None);
    assert!(format!("{key:?}").contains("[redacted]"));
}

#[test]
fn os_a_corrupt_keychain_entry_is_refused_not_replaced() {
    require_scratch_keychain();
    let dir = tempfile::tempdir().unwrap();
    let account = keystore::keychain_account(dir.path()).unwrap();
    with_keychain(move || keyring::Entry::new(keystore::KEYCHAIN_SERVICE, &account)?.set_secret(b"sixteen bytes!!!"));
    let err = open_blocking(KeystoreBackend::Os, dir.path(), PassphraseSource::default()).unwrap_err();
    assert!(matches!(err, KeystoreError::CorruptKey { location: KeyLocation::Keychain { .. }, .. }), "{err}");
    assert_eq!(keychain_item(dir.path()), b"sixteen bytes!!!", "the entry is left for the person to restore");
}

/// A data directory moved to another path gets a keychain entry of another
/// name, and a profile whose KEK the helper makes anew: another program of the
/// person's that plants a seed it knows under that name is refused too. The
/// key app seals every key it keeps, so it never adopts a bare one.
#[test]
fn os_a_bare_seed_is_never_adopted_even_for_a_new_profile() {
    require_scratch_keychain();
    let dir = tempfile::tempdir().unwrap();
    let planted = ed25519_dalek::SigningKey::generate(&mut rand::rngs::OsRng);
    set_keychain_item(dir.path(), &planted.to_bytes());
    let err = open_blocking(KeystoreBackend::Os, dir.path(), PassphraseSource::default()).unwrap_err();
    assert!(matches!(err, KeystoreError::BareSeed { location: KeyLocation::Keychain { .. } }), "{err}");
    assert!(err.to_string().contains("nothing was changed"), "{err}");
    assert_eq!(keychain_item(dir.path()), planted.to_bytes(), "not adopted, not rewritten");
}

#[test]
fn os_a_bare_seed_planted_after_sealing_is_refused_and_left_as_it_is() {
    require_scratch_keychain();
    let dir = tempfile::tempdir().unwrap();
    let key = open_blocking(KeystoreBackend::Os, dir.path(), PassphraseSource::default()).unwrap();
    // Another program of the person's swaps in a seed it knows.
    let planted = ed25519_dalek::SigningKey::from_bytes(&[0x42; 32]);
    set_keychain_item(dir.path(), &planted.to_bytes());
    let err = open_blocking(KeystoreBackend::Os, dir.path(), PassphraseSource::default()).unwrap_err();
    assert!(matches!(err, KeystoreError::BareSeed { location: KeyLocation::Keychain { .. } }), "{err}");
    assert!(err.to_string().contains("nothing was changed"), "{err}");
    assert_eq!(keychain_item(dir.path()), planted.to_bytes(), "not adopted, not rewritten");
    drop(key);
}

#[test]
fn os_a_tampered_sealed_item_is_refused_with_its_own_error_and_left_alone() {
    require_scratch_keychain();
    let dir = tempfile::tempdir().unwrap();
    open_blocking(KeystoreBackend::Os, dir.path(), PassphraseSource::default()).unwrap();
    let mut item = keychain_item(dir.path());
    // One bit of the sealed seed, then one of the nonce.
    for at in [60, 10] {
        item[at] ^= 0x01;
        set_keychain_item(dir.path(), &item);
        let err = open_blocking(KeystoreBackend::Os, dir.path(), PassphraseSource::default()).unwrap_err();
        assert!(matches!(err, KeystoreError::SealedKeyRejected { location: KeyLocation::Keychain { .. } }), "{err}");
        assert_eq!(keychain_item(dir.path()), item, "the altered item is left for the person to restore");
        item[at] ^= 0x01;
    }
    // Restored, it opens again.
    set_keychain_item(dir.path(), &item);
    open_blocking(KeystoreBackend::Os, dir.path(), PassphraseSource::default()).unwrap();
}

#[test]
fn os_an_item_sealed_for_another_profile_does_not_open_here() {
    require_scratch_keychain();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    open_blocking(KeystoreBackend::Os, a.path(), PassphraseSource::default()).unwrap();
    set_keychain_item(b.path(), &keychain_item(a.path()));
    let err = open_blocking(KeystoreBackend::Os, b.path(), PassphraseSource::default()).unwrap_err();
    assert!(matches!(err, KeystoreError::SealedKeyRejected { .. }), "{err}");
}

#[test]
fn os_no_session_bus_when_the_address_is_unset() {
    let runtime = tempfile::tempdir().unwrap();
    // zbus falls back to $XDG_RUNTIME_DIR/bus; point that at an empty directory.
    let out = child("no-bus-unset", &[], |c| {
        c.env_remove("DBUS_SESSION_BUS_ADDRESS").env("XDG_RUNTIME_DIR", runtime.path());
    });
    assert_child_ok(&out);
}

#[test]
fn os_no_session_bus_when_the_address_points_nowhere() {
    let out = child("no-bus-nowhere", &[], |c| {
        c.env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/schcp-test-bus");
    });
    assert_child_ok(&out);
}

#[test]
fn auto_falls_back_to_the_file_only_for_a_profile_without_records() {
    let out = child("auto-no-bus", &[], |c| {
        c.env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/schcp-test-bus");
    });
    assert_child_ok(&out);
}

#[test]
fn os_no_secret_service_provider_on_the_bus() {
    // A session bus of its own that knows no services at all, so nothing owns
    // org.freedesktop.secrets and the bus cannot start gnome-keyring either.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bus.conf");
    std::fs::write(
        &config,
        format!(
            r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
            dir.path().display()
        ),
    )
    .unwrap();
    let config_arg = format!("--config-file={}", config.display());
    let out = child("no-provider", &["dbus-run-session", &config_arg, "--"], |_| {});
    assert_child_ok(&out);
}

#[test]
fn os_no_default_collection() {
    // The stock session bus, which starts gnome-keyring on demand, in a fresh
    // home where no login keyring was ever created: a provider, but nowhere
    // to keep the key (a headless machine that never had a desktop login).
    let home = tempfile::tempdir().unwrap();
    let runtime = home.path().join("run");
    std::fs::create_dir(&runtime).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(&runtime, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let out = child("no-collection", &["dbus-run-session", "--"], |c| {
        c.env("HOME", home.path())
            .env("XDG_DATA_HOME", home.path().join("data"))
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env("XDG_RUNTIME_DIR", &runtime);
    });
    assert_child_ok(&out);
}

#[test]
fn os_locked_collection() {
    // A keychain of the child's own (a nested with-keyring), since locking the
    // shared one would fail the tests running beside this one.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/with-keyring");
    let out = child("locked", &[script.to_str().unwrap()], |_| {});
    assert_child_ok(&out);
}

#[test]
fn os_a_provider_that_crashes_and_comes_back_is_waited_for() {
    // gnome-keyring can abort under a client's disconnect; a session manager
    // restarts it. Its own keychain again (a nested with-keyring, whose
    // supervisor restarts the daemon unlocked and whose bus starts nothing on
    // demand), since killing the shared daemon would fail the tests beside it.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/with-keyring");
    let out = child("provider-restarts", &[script.to_str().unwrap()], |_| {});
    assert_child_ok(&out);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("restarting it unlocked"),
        "the daemon was really killed and restarted:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---------------------------------------------------------------- file backend

fn fixed(p: &str) -> PassphraseSource {
    PassphraseSource::Fixed(SecretString::from(p))
}

#[test]
fn file_create_then_reopen_with_the_passphrase() {
    let dir = tempfile::tempdir().unwrap();
    let first = open_blocking(KeystoreBackend::File, dir.path(), fixed("correct horse battery")).unwrap();
    let path = dir.path().join(keystore::KEY_FILE_NAME);
    assert_eq!(first.location(), &KeyLocation::File(path.clone()));
    let second = open_blocking(KeystoreBackend::File, dir.path(), fixed("correct horse battery")).unwrap();
    assert_eq!(first.jwk(), second.jwk());
    // Only the open that made the key says so (a new principal's first start).
    assert!(first.is_new() && !second.is_new());
    assert_signs_verifiable_jws(&second);

    // The file is age (scrypt) ciphertext of the recovery phrase's bytes the
    // new key derives from (tagged SCHCPRP1), owner-only, and holds neither
    // them nor the seed in any readable form.
    let bytes = std::fs::read(&path).unwrap();
    let identity = age::scrypt::Identity::new(SecretString::from("correct horse battery"));
    let payload = age::decrypt(&identity, &bytes).unwrap();
    let root: [u8; 32] = payload.strip_prefix(b"SCHCPRP1").expect("a key made from a phrase").try_into().unwrap();
    let seed = seed_scan::seed_of_phrase(&root);
    assert_eq!(&public_jwk_of_seed(&seed), first.jwk());
    assert_no_seed_in_files(&seed, dir.path());
    assert_no_seed_in_files(&root, dir.path());
    assert_eq!(files_under(dir.path()).len(), 1, "no temporary file is left behind");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }
}

#[test]
fn file_wrong_passphrase_is_a_named_error_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let key = open_blocking(KeystoreBackend::File, dir.path(), fixed("right")).unwrap();
    let path = dir.path().join(keystore::KEY_FILE_NAME);
    let before = std::fs::read(&path).unwrap();
    let err = open_blocking(KeystoreBackend::File, dir.path(), fixed("wrong")).unwrap_err();
    assert!(matches!(&err, KeystoreError::WrongPassphrase { path: p } if *p == path), "{err}");
    assert!(err.to_string().contains("passphrase"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before, "a wrong passphrase never replaces the key");
    let again = open_blocking(KeystoreBackend::File, dir.path(), fixed("right")).unwrap();
    assert_eq!(again.jwk(), key.jwk());
}

#[test]
fn file_missing_passphrase_variable_names_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let var = "SCHCP_KEYAPP_TEST_PASSPHRASE_THAT_IS_NEVER_SET";
    assert!(std::env::var_os(var).is_none());
    let err = open_blocking(KeystoreBackend::File, dir.path(), PassphraseSource::Env(var.into())).unwrap_err();
    assert!(matches!(&err, KeystoreError::PassphraseMissing { var: v } if v == var), "{err}");
    assert!(err.to_string().contains(var), "{err}");
    assert!(files_under(dir.path()).is_empty(), "no key is created without a passphrase");
}

#[test]
fn file_default_variable_is_schcp_keyapp_passphrase() {
    assert_eq!(keystore::PASSPHRASE_ENV, "SCHCP_KEYAPP_PASSPHRASE");
    let dir = tempfile::tempdir().unwrap();
    // Unset: the error names the default variable.
    let unset = child("file-env", &[], |c| {
        c.env_remove("SCHCP_KEYAPP_PASSPHRASE").env("SCHCP_TEST_DATA_DIR", dir.path());
    });
    assert_child_ok(&unset);
    // Set: the key is created under it, and opens with the same passphrase given directly.
    let set = child("file-env", &[], |c| {
        c.env("SCHCP_KEYAPP_PASSPHRASE", "from the environment")
            .env("SCHCP_TEST_PASSPHRASE_WAS_SET", "1")
            .env("SCHCP_TEST_DATA_DIR", dir.path());
    });
    assert_child_ok(&set);
    open_blocking(KeystoreBackend::File, dir.path(), fixed("from the environment")).unwrap();
}

#[test]
fn the_passphrase_is_read_from_a_descriptor_and_leaves_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    // A pipe on fd 0, and the variable too: the descriptor wins, both go.
    let out = child_with_stdin("passphrase-fd", b"from a pipe\n", |c| {
        c.env(keystore::PASSPHRASE_FD_ENV, "0")
            .env(keystore::PASSPHRASE_ENV, "the variable, not used")
            .env("SCHCP_TEST_DATA_DIR", dir.path());
    });
    assert_child_ok(&out);
    // The key is under the pipe's passphrase, without its newline.
    open_blocking(KeystoreBackend::File, dir.path(), fixed("from a pipe")).unwrap();
    let err = open_blocking(KeystoreBackend::File, dir.path(), fixed("the variable, not used")).unwrap_err();
    assert!(matches!(err, KeystoreError::WrongPassphrase { .. }), "{err}");
}

#[test]
fn a_passphrase_in_the_variable_is_removed_from_the_environment_as_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let out = child("passphrase-env-taken", &[], |c| {
        c.env(keystore::PASSPHRASE_ENV, "from the environment").env("SCHCP_TEST_DATA_DIR", dir.path());
    });
    assert_child_ok(&out);
    open_blocking(KeystoreBackend::File, dir.path(), fixed("from the environment")).unwrap();
}

#[test]
fn a_descriptor_that_cannot_be_read_is_a_named_error() {
    for fd in ["not-a-number", "-1", "987"] {
        let out = child("passphrase-fd-bad", &[], |c| {
            c.env(keystore::PASSPHRASE_FD_ENV, fd).env("SCHCP_TEST_FD", fd);
        });
        assert_child_ok(&out);
    }
}

#[test]
fn file_prompt_without_a_terminal_says_to_use_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let out = child("file-prompt-no-tty", &["setsid", "-w"], |c| {
        c.env("SCHCP_TEST_DATA_DIR", dir.path());
    });
    assert_child_ok(&out);
}

// ---------------------------------------------------------------- child runs

/// Runs `child_scenario` with `stdin` on its standard input (a pipe).
fn child_with_stdin(scenario: &str, stdin: &[u8], env: impl FnOnce(&mut Command)) -> std::process::Output {
    use std::io::Write;
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["child_scenario", "--exact", "--include-ignored", "--nocapture", "--test-threads=1"])
        .env(CHILD, scenario)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    env(&mut command);
    let mut running = command.spawn().unwrap();
    running.stdin.take().unwrap().write_all(stdin).unwrap();
    running.wait_with_output().unwrap()
}

/// What a child of this process would inherit: `env`'s output.
fn inherited_environment() -> String {
    let out = Command::new("env").output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `child_scenario` of this test binary as `prefix… <this binary>`, with
/// its environment adjusted by `env`.
fn child(scenario: &str, prefix: &[&str], env: impl FnOnce(&mut Command)) -> std::process::Output {
    let exe = std::env::current_exe().unwrap();
    let mut command = match prefix.split_first() {
        Some((program, args)) => {
            let mut c = Command::new(program);
            c.args(args).arg(&exe);
            c
        }
        None => Command::new(&exe),
    };
    command
        .args(["child_scenario", "--exact", "--include-ignored", "--nocapture", "--test-threads=1"])
        .env(CHILD, scenario)
        .stdin(std::process::Stdio::null());
    env(&mut command);
    command.output().unwrap_or_else(|e| panic!("cannot run {prefix:?} {}: {e}", exe.display()))
}

fn assert_child_ok(out: &std::process::Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("CHILD-OK"),
        "child failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
}

#[test]
#[ignore = "run by the tests above, in a child process with its own environment"]
fn child_scenario() {
    let Ok(scenario) = std::env::var(CHILD) else { return };
    let scratch = tempfile::tempdir().unwrap();
    let os = || open_blocking(KeystoreBackend::Os, scratch.path(), PassphraseSource::default());
    let outcome: KeystoreError = match scenario.as_str() {
        "no-bus-unset" | "no-bus-nowhere" => {
            let err = os().unwrap_err();
            assert!(matches!(err, KeystoreError::NoSessionBus { .. }), "{err}");
            assert!(err.to_string().contains("DBUS_SESSION_BUS_ADDRESS"), "{err}");
            err
        }
        "auto-no-bus" => {
            // No keychain answers: a first run gets a file key under the passphrase.
            let key = open_blocking(KeystoreBackend::Auto, scratch.path(), fixed("pw")).unwrap();
            assert_eq!(key.location(), &KeyLocation::File(scratch.path().join(keystore::KEY_FILE_NAME)));
            // A profile with records but no key file had its key in a keychain:
            // no new principal is made behind the person's back.
            let kept = tempfile::tempdir().unwrap();
            std::fs::write(kept.path().join(keystore::RECORDS_FILE_NAME), b"").unwrap();
            let err = open_blocking(KeystoreBackend::Auto, kept.path(), fixed("pw")).unwrap_err();
            assert!(matches!(err, KeystoreError::NoSessionBus { .. }), "{err}");
            assert!(!kept.path().join(keystore::KEY_FILE_NAME).exists());
            err
        }
        "no-provider" => {
            assert!(std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some(), "dbus-run-session sets the address");
            let err = os().unwrap_err();
            assert!(matches!(err, KeystoreError::NoSecretService), "{err}");
            err
        }
        "no-collection" => {
            let err = os().unwrap_err();
            assert!(matches!(err, KeystoreError::KeychainNoCollection), "{err}");
            err
        }
        "locked" => {
            // Created while unlocked; then the collection is locked and the
            // unlock prompt cannot be shown (no display), as on a headless box.
            let key = os().unwrap();
            lock_default_collection();
            let err = os().unwrap_err();
            assert!(matches!(err, KeystoreError::KeychainLocked), "{err}");
            // A first run on a locked keychain is refused the same way, and creates nothing.
            let other = tempfile::tempdir().unwrap();
            let err2 = open_blocking(KeystoreBackend::Os, other.path(), PassphraseSource::default()).unwrap_err();
            assert!(matches!(err2, KeystoreError::KeychainLocked), "{err2}");
            drop(key);
            err
        }
        "provider-restarts" => {
            let key = os().unwrap();
            let scratch_keychain = PathBuf::from(std::env::var_os("SCHCP_WITH_KEYRING").unwrap());
            let pid = std::fs::read_to_string(scratch_keychain.join("gnome-keyring.pid")).unwrap();
            let killed = Command::new("kill").args(["-9", pid.trim()]).status().unwrap();
            assert!(killed.success());
            // At once, while nothing owns org.freedesktop.secrets: the first
            // attempt fails, and a later one finds the restarted daemon.
            let again = os().unwrap();
            assert_eq!(again.jwk(), key.jwk(), "the restarted keychain still holds the key");
            println!("CHILD-OK the key loaded again after the provider restarted");
            return;
        }
        "file-env" => {
            let data_dir = PathBuf::from(std::env::var_os("SCHCP_TEST_DATA_DIR").unwrap());
            let result = open_blocking(KeystoreBackend::File, &data_dir, PassphraseSource::default());
            match std::env::var_os("SCHCP_TEST_PASSPHRASE_WAS_SET").or(std::env::var_os("SCHCP_KEYAPP_PASSPHRASE")) {
                Some(_) => {
                    result.unwrap();
                    // Read, and gone from the environment the key app's children get.
                    assert!(std::env::var_os("SCHCP_KEYAPP_PASSPHRASE").is_none());
                    assert!(!inherited_environment().contains("from the environment"));
                    println!("CHILD-OK created under the variable");
                    return;
                }
                None => {
                    let err = result.unwrap_err();
                    assert!(
                        matches!(&err, KeystoreError::PassphraseMissing { var } if var == "SCHCP_KEYAPP_PASSPHRASE"),
                        "{err}"
                    );
                    assert!(err.to_string().contains("SCHCP_KEYAPP_PASSPHRASE"), "{err}");
                    err
                }
            }
        }
        "passphrase-fd" => {
            let data_dir = PathBuf::from(std::env::var_os("SCHCP_TEST_DATA_DIR").unwrap());
            let source = PassphraseSource::take_from_environment().unwrap().expect("a passphrase on fd 0");
            for var in [keystore::PASSPHRASE_FD_ENV, keystore::PASSPHRASE_ENV] {
                assert!(std::env::var_os(var).is_none(), "{var} is still set");
                assert!(!inherited_environment().contains(var), "a child inherits {var}");
            }
            open_blocking(KeystoreBackend::File, &data_dir, source).unwrap();
            println!("CHILD-OK created under the passphrase read from fd 0");
            return;
        }
        "passphrase-env-taken" => {
            let data_dir = PathBuf::from(std::env::var_os("SCHCP_TEST_DATA_DIR").unwrap());
            let source = PassphraseSource::take_from_environment().unwrap().expect("the variable's passphrase");
            assert!(std::env::var_os(keystore::PASSPHRASE_ENV).is_none());
            let inherited = inherited_environment();
            assert!(!inherited.contains(keystore::PASSPHRASE_ENV) && !inherited.contains("from the environment"));
            open_blocking(KeystoreBackend::File, &data_dir, source).unwrap();
            println!("CHILD-OK created under the variable, which no child inherits");
            return;
        }
        "passphrase-fd-bad" => {
            let fd = std::env::var("SCHCP_TEST_FD").unwrap();
            let err = PassphraseSource::take_from_environment().unwrap_err();
            assert!(matches!(&err, KeystoreError::PassphraseFd { fd: f, .. } if *f == fd), "{err}");
            assert!(err.to_string().contains(keystore::PASSPHRASE_FD_ENV), "{err}");
            assert!(std::env::var_os(keystore::PASSPHRASE_FD_ENV).is_none());
            err
        }
        "file-prompt-no-tty" => {
            let data_dir = PathBuf::from(std::env::var_os("SCHCP_TEST_DATA_DIR").unwrap());
            let err = open_blocking(KeystoreBackend::File, &data_dir, PassphraseSource::Prompt).unwrap_err();
            assert!(matches!(err, KeystoreError::NoTerminal { .. }), "{err}");
            assert!(err.to_string().contains("SCHCP_KEYAPP_PASSPHRASE"), "{err}");
            err
        }
        other => panic!("unknown scenario {other}"),
    };
    println!("CHILD-OK {outcome}");
}

/// Locks the Secret Service's default collection, as a screen lock would.
fn lock_default_collection() {
    let status = Command::new("dbus-send")
        .args([
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.secrets",
            "/org/freedesktop/secrets",
            "org.freedesktop.Secret.Service.Lock",
            "array:objpath:/org/freedesktop/secrets/aliases/default",
        ])
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "dbus-send Lock failed");
}
