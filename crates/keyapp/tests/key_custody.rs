//! The principal's key out of reach of the person's other processes, tried as
//! a hostile assistant running as the same Unix user would try it: the
//! service runs as a non-root test user (with its own session bus and
//! gnome-keyring, scripts/with-keyring run as that user), and that same user
//! then reads what it can.
//!
//! Run as root under scripts/with-polkit (a real polkitd and the test user
//! `$SCHCP_POLKIT_TEST_USER`), with the unlock helper installed at its fixed
//! path (scripts/install-unlock-helper); scripts/test does both.

#[path = "support/seed_scan.rs"]
mod seed_scan;

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use testkit::local_user::TestUser;

/// Polkit's rules are one directory for the whole machine: tests that write
/// one take turns.
static RULES: Mutex<()> = Mutex::new(());

const UNLOCK_ACTION: &str = "org.schcp.keyapp.unlock";
const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

fn test_user() -> TestUser {
    assert!(
        Path::new(keyapp::keystore::UNLOCK_HELPER).is_file(),
        "the unlock helper is not installed at {}: run scripts/install-unlock-helper (scripts/test does)",
        keyapp::keystore::UNLOCK_HELPER
    );
    TestUser::required()
}

/// A polkit rule answering `answer` for the unlock action to `user`, in
/// force once polkitd says so for a process of that user; removed on drop.
struct Rule {
    path: PathBuf,
    _turn: std::sync::MutexGuard<'static, ()>,
}

impl Rule {
    fn new(user: &TestUser, yes: bool) -> Rule {
        let turn = RULES.lock().unwrap_or_else(|p| p.into_inner());
        let dir = PathBuf::from(std::env::var("SCHCP_POLKIT_RULES_DIR").expect("scripts/with-polkit sets it"));
        let path = dir.join("50-schcp-test-key-custody.rules");
        let result = if yes { "YES" } else { "NO" };
        std::fs::write(
            &path,
            format!(
                "polkit.addRule(function(action, subject) {{\n  if (action.id == \"{UNLOCK_ACTION}\" && subject.user == \"{}\") {{ return polkit.Result.{result}; }}\n}});\n",
                user.name
            ),
        )
        .unwrap();
        await_polkit(user, yes);
        Rule { path, _turn: turn }
    }
}

impl Drop for Rule {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Waits until polkitd has loaded the rule: `pkcheck` for a process of the
/// user answers as the rule says.
fn await_polkit(user: &TestUser, yes: bool) {
    let mut subject = as_user(user, Command::new("sleep").arg("30")).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let checked = Command::new("pkcheck")
            .args(["--action-id", UNLOCK_ACTION, "--process", &subject.id().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        if checked.success() == yes {
            break;
        }
        assert!(Instant::now() < deadline, "polkitd did not load the rule");
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = subject.kill();
    let _ = subject.wait();
}

fn as_user<'c>(user: &TestUser, command: &'c mut Command) -> &'c mut Command {
    // std drops root's supplementary groups when it sets the uid.
    command.uid(user.uid).gid(user.gid).env_clear().env("PATH", PATH).env("LANG", "C.UTF-8")
}

/// A place of the test user's own: HOME, TMPDIR, the data directory.
struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new(user: &TestUser, backend: &str) -> Place {
        let dir = tempfile::Builder::new().prefix("schcp-custody.").tempdir_in("/tmp").unwrap();
        for sub in ["home", "tmp"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        let config = format!(
            "data_dir = \"{}\"\n[agent_api]\nlisten = \"127.0.0.1:0\"\n[status_api]\nlisten = \"127.0.0.1:0\"\n[keystore]\nbackend = \"{backend}\"\n",
            dir.path().join("data").display()
        );
        std::fs::write(dir.path().join("keyapp.toml"), config).unwrap();
        for entry in
            [dir.path().to_owned(), dir.path().join("home"), dir.path().join("tmp"), dir.path().join("keyapp.toml")]
        {
            std::os::unix::fs::chown(&entry, Some(user.uid), Some(user.gid)).unwrap();
        }
        Place { dir }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.path("serve.err")).unwrap_or_default()
    }
}

/// `schcp-keyapp serve` as the user; in a session with its own keychain
/// (scripts/with-keyring, run as the user) when `keychain`.
fn serve(user: &TestUser, place: &Place, keychain: bool, env: &[(&str, &str)], stdin: Option<&[u8]>) -> Child {
    let keyapp = env!("CARGO_BIN_EXE_schcp-keyapp");
    let config = place.path("keyapp.toml");
    let mut command = if keychain {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/with-keyring");
        let mut c = Command::new(script);
        c.arg(keyapp);
        c
    } else {
        Command::new(keyapp)
    };
    command.arg("--config").arg(&config).arg("serve");
    as_user(user, &mut command)
        .env("HOME", place.path("home"))
        .env("TMPDIR", place.path("tmp"))
        .env("RUST_LOG", "info")
        .current_dir(place.dir.path())
        .stdout(std::fs::File::create(place.path("serve.out")).unwrap())
        .stderr(std::fs::File::create(place.path("serve.err")).unwrap())
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().unwrap();
    if let Some(bytes) = stdin {
        child.stdin.take().unwrap().write_all(bytes).unwrap();
    }
    child
}

/// Waits until the service listens (it wrote agent-api.json) and returns its
/// pid, or `None` if it exited first.
fn started(place: &Place, child: &mut Child) -> Option<u32> {
    let deadline = Instant::now() + Duration::from_secs(90);
    let info = place.path("data/run/agent-api.json");
    loop {
        if info.exists() {
            let lock: serde_json::Value =
                serde_json::from_slice(&std::fs::read(place.path("data/keyapp.lock")).unwrap()).unwrap();
            return Some(lock["pid"].as_u64().unwrap() as u32);
        }
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        assert!(Instant::now() < deadline, "the service neither started nor stopped:\n{}", place.log());
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn stop(pid: u32, child: &mut Child) {
    Command::new("kill").args(["-TERM", &pid.to_string()]).status().unwrap();
    child.wait().unwrap();
}

/// The principal's Ed25519 public key, as `schcp-keyapp principal` shows it
/// to the user.
fn principal_public_key(user: &TestUser, place: &Place) -> [u8; 32] {
    use base64::Engine;
    let out = as_user(user, Command::new(env!("CARGO_BIN_EXE_schcp-keyapp")).arg("--config"))
        .arg(place.path("keyapp.toml"))
        .arg("principal")
        .env("HOME", place.path("home"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "principal: {stdout}{}", String::from_utf8_lossy(&out.stderr));
    let jwk: serde_json::Value = serde_json::from_str(stdout.lines().nth(1).unwrap()).unwrap();
    let x = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(jwk["x"].as_str().unwrap()).unwrap();
    x.try_into().unwrap()
}

/// What the user's own process gets reading `/proc/PID/{environ,mem}`:
/// "READ" or "DENIED …" for each. `None`: a dumpable child of the probe's own
/// (a process it may read even where Yama limits ptrace to descendants).
fn read_as_user(user: &TestUser, pid: Option<u32>) -> (String, String) {
    const PROBE: &str = r#"
import subprocess, sys
pid = sys.argv[1]
if pid == "child":
    child = subprocess.Popen(["sleep", "30"])
    pid = child.pid
try:
    open(f"/proc/{pid}/environ", "rb").read()
    print("READ")
except OSError as e:
    print("DENIED", e.errno)
try:
    with open(f"/proc/{pid}/mem", "rb") as mem:
        for line in open(f"/proc/{pid}/maps"):
            span, perms = line.split()[:2]
            if perms.startswith("r"):
                mem.seek(int(span.split("-")[0], 16))
                mem.read(16)
                break
    print("READ")
except OSError as e:
    print("DENIED", e.errno)
if sys.argv[1] == "child":
    child.kill()
"#;
    let target = pid.map_or("child".to_owned(), |p| p.to_string());
    let out = as_user(user, Command::new("python3").args(["-c", PROBE, &target])).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = stdout.lines().map(str::to_owned);
    (lines.next().unwrap_or_default(), lines.next().unwrap_or_default())
}

/// The person's other processes cannot read the service's memory or
/// environment, and it writes no core: with a same-user process beside it
/// whose memory they can read, so the probe itself is shown to work.
fn assert_memory_closed_to_the_user(user: &TestUser, pid: u32) {
    let readable = read_as_user(user, None);
    assert_eq!(readable, ("READ".to_owned(), "READ".to_owned()), "the probe reads an ordinary process of the user");
    let (environ, mem) = read_as_user(user, Some(pid));
    assert!(environ.starts_with("DENIED"), "the user read the service's /proc/{pid}/environ: {environ}");
    assert!(mem.starts_with("DENIED"), "the user read the service's /proc/{pid}/mem: {mem}");
    let limits = as_user(user, Command::new("cat").arg(format!("/proc/{pid}/limits"))).output().unwrap();
    let limits = String::from_utf8_lossy(&limits.stdout).into_owned();
    let core = limits.lines().find(|l| l.starts_with("Max core file size")).expect("a core limit line");
    let fields: Vec<&str> = core.split_whitespace().collect();
    assert_eq!(&fields[4..6], ["0", "0"], "soft and hard core limits: {core}");
}

/// Every secret of every item in the user's keychain, read as the user over
/// the service's own session bus (this test binary, run as the user).
fn keychain_secrets_as_user(user: &TestUser, place: &Place) -> Vec<Vec<u8>> {
    let tmp = place.path("tmp");
    let scratch = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("schcp-keyring."))
        .expect("scripts/with-keyring's scratch directory");
    let bus = std::fs::read_dir(&scratch)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("dbus-"))
        .expect("the session bus socket")
        .path();
    let out = as_user(user, &mut Command::new(std::env::current_exe().unwrap()))
        .args(["keychain_dump", "--exact", "--include-ignored", "--nocapture", "--test-threads=1"])
        .env("SCHCP_KEYCHAIN_DUMP", "1")
        .env("HOME", place.path("home"))
        .env("DBUS_SESSION_BUS_ADDRESS", format!("unix:path={}", bus.display()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "keychain dump: {stdout}{}", String::from_utf8_lossy(&out.stderr));
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("SECRET "))
        .map(|h| (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect())
        .collect()
}

/// Run as the user by `keychain_secrets_as_user`: prints each item's secret
/// in hex, as any Secret Service client of the user's can read it.
#[test]
#[ignore = "run by key_custody's tests as the test user"]
fn keychain_dump() {
    if std::env::var_os("SCHCP_KEYCHAIN_DUMP").is_none() {
        return;
    }
    use secret_service::blocking::SecretService;
    use secret_service::EncryptionType;
    let service = SecretService::connect(EncryptionType::Dh).unwrap();
    for collection in service.get_all_collections().unwrap() {
        collection.ensure_unlocked().unwrap();
        for item in collection.get_all_items().unwrap() {
            item.ensure_unlocked().unwrap();
            let attributes = item.get_attributes().unwrap();
            let secret = item.get_secret().unwrap();
            let hex: String = secret.iter().map(|b| format!("{b:02x}")).collect();
            println!("ITEM {:?}", attributes.get("service"));
            println!("SECRET {hex}");
        }
    }
}

#[test]
fn an_unlock_the_os_refuses_starts_nothing_and_a_granted_one_keeps_the_key_from_the_user() {
    let user = test_user();
    let place = Place::new(&user, "os");

    // polkit says no: the key stays sealed, the service does not start.
    let refused = Rule::new(&user, false);
    let mut child = serve(&user, &place, true, &[], None);
    assert_eq!(started(&place, &mut child), None, "started although polkit said no:\n{}", place.log());
    assert!(!child.wait().unwrap().success());
    let log = place.log();
    assert!(log.contains("Your computer did not confirm it was you"), "{log}");
    assert!(!place.path("data/run/agent-api.json").exists());
    let kek = kek_path(&user, &place);
    assert!(!kek.exists(), "no key-encryption key was made for a refused unlock");
    drop(refused);

    // polkit says yes: it starts, and the user's other processes get nothing.
    let _granted = Rule::new(&user, true);
    let mut child = serve(&user, &place, true, &[], None);
    let pid = started(&place, &mut child).unwrap_or_else(|| panic!("did not start:\n{}", place.log()));
    let public = principal_public_key(&user, &place);
    assert_memory_closed_to_the_user(&user, pid);

    let secrets = keychain_secrets_as_user(&user, &place);
    assert!(!secrets.is_empty(), "the keychain holds the sealed key");
    for secret in &secrets {
        assert_eq!(seed_scan::find_seed(secret, &public), None, "a keychain item gives the seed");
    }
    // The data and runtime directories, HOME and the keychain's own files.
    let scanned =
        seed_scan::assert_no_seed_under(&[&place.path("data"), &place.path("tmp"), &place.path("home")], &public);
    assert!(scanned >= 3, "the records, the runtime files and the keyring were scanned ({scanned} files)");
    // The KEK is out of the user's reach: its file, and the helper run
    // without pkexec (it is not setuid, so it runs as the user and refuses).
    let read = as_user(&user, Command::new("cat").arg(&kek)).output().unwrap();
    assert!(!read.status.success() && read.stdout.is_empty(), "the user read the KEK");
    let profile = kek.file_name().unwrap().to_owned();
    let direct = as_user(&user, Command::new(keyapp::keystore::UNLOCK_HELPER).arg(&profile)).output().unwrap();
    assert!(!direct.status.success() && direct.stdout.is_empty(), "the helper released the KEK without pkexec");
    stop(pid, &mut child);
    // The KEK is root's alone; this test's is removed with its profile.
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(&kek).unwrap();
    assert_eq!((meta.uid(), meta.mode() & 0o777), (0, 0o600));
    std::fs::remove_file(&kek).unwrap();
}

/// Where the unlock helper keeps the KEK of `place`'s profile for the user.
fn kek_path(user: &TestUser, place: &Place) -> PathBuf {
    let account = keyapp::keystore::keychain_account(&place.path("data")).unwrap();
    let profile = account.strip_prefix("principal:").unwrap();
    Path::new("/var/lib/schcp-keyapp/kek").join(user.uid.to_string()).join(profile)
}

#[test]
fn a_passphrase_given_on_a_descriptor_is_nowhere_in_the_environment() {
    let user = test_user();
    let place = Place::new(&user, "file");
    let passphrase = "a pipe carried this, not the environment";
    let stdin = format!("{passphrase}\n");
    let mut child = serve(&user, &place, false, &[("SCHCP_KEYAPP_PASSPHRASE_FD", "0")], Some(stdin.as_bytes()));
    let pid = started(&place, &mut child).unwrap_or_else(|| panic!("did not start:\n{}", place.log()));
    // Read as root, which non-dumpability does not stop: the start-time
    // environment and the command line never held it.
    for what in ["environ", "cmdline"] {
        let bytes = std::fs::read(format!("/proc/{pid}/{what}")).unwrap();
        assert!(!bytes.is_empty());
        assert!(!seed_scan_contains(&bytes, passphrase.as_bytes()), "the passphrase is in /proc/{pid}/{what}");
    }
    assert_memory_closed_to_the_user(&user, pid);
    let public = principal_public_key(&user, &place);
    stop(pid, &mut child);
    // The key file is the passphrase-encrypted one, and nothing else holds the seed.
    assert!(place.path("data/principal.key.age").is_file());
    seed_scan::assert_no_seed_under(&[&place.path("data"), &place.path("home")], &public);
}

#[test]
fn a_passphrase_in_the_variable_is_unreadable_to_the_users_other_processes() {
    let user = test_user();
    let place = Place::new(&user, "file");
    let passphrase = "still accepted in the environment";
    let mut child = serve(&user, &place, false, &[("SCHCP_KEYAPP_PASSPHRASE", passphrase)], None);
    let pid = started(&place, &mut child).unwrap_or_else(|| panic!("did not start:\n{}", place.log()));
    // The kernel keeps the start-time block in /proc/PID/environ after the
    // variable is removed; non-dumpability is what closes it to the user.
    assert_memory_closed_to_the_user(&user, pid);
    stop(pid, &mut child);
}

#[test]
fn the_scanner_finds_a_planted_seed_in_every_form() {
    use base64::Engine;
    let key = ed25519_dalek::SigningKey::from_bytes(&[0x5a; 32]);
    let seed = key.to_bytes();
    let public = key.verifying_key().to_bytes();
    let hex: String = seed.iter().map(|b| format!("{b:02x}")).collect();
    let forms: [(&str, Vec<u8>); 5] = [
        ("raw", seed.to_vec()),
        ("hex", hex.clone().into_bytes()),
        ("hex", hex.to_uppercase().into_bytes()),
        ("base64", base64::engine::general_purpose::STANDARD.encode(seed).into_bytes()),
        ("base64", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(seed).into_bytes()),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (i, (form, bytes)) in forms.iter().enumerate() {
        // Surrounded by other bytes of the same kind, at an odd offset.
        let planted = [&b"xyz0123456789abcdefABCDEF+/"[..], bytes, b"Zq9\n\x00\xff"].concat();
        assert_eq!(seed_scan::find_seed(&planted, &public).map(|f| f.form), Some(*form), "form {i}");
        std::fs::write(dir.path().join(format!("planted-{i}")), &planted).unwrap();
    }
    // Another key's seed, and near misses, are not found.
    let other = ed25519_dalek::SigningKey::from_bytes(&[0x5b; 32]);
    assert_eq!(seed_scan::find_seed(&other.to_bytes(), &public), None);
    assert_eq!(seed_scan::find_seed(&seed[..31], &public), None);
    assert_eq!(seed_scan::find_seed(&hex.as_bytes()[..63], &public), None);
    // And the directory scan names the planted file.
    let scan = std::panic::catch_unwind(|| seed_scan::assert_no_seed_under(&[dir.path()], &public));
    assert!(scan.is_err(), "the planted seed was found");
    std::fs::remove_dir_all(dir.path()).unwrap();
    std::fs::create_dir(dir.path()).unwrap();
    std::fs::write(dir.path().join("clean"), other.to_bytes()).unwrap();
    assert_eq!(seed_scan::assert_no_seed_under(&[dir.path()], &public), 1);
}

fn seed_scan_contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
