//! Every yes through a real polkit (run under scripts/with-polkit, as root):
//! `schcp-keyapp serve` runs as the non-root test user, and the person's
//! surfaces (the CLI answered "y", a raw `{"cmd":"approve"}` on the control
//! socket) run as that user too, as an assistant with a shell would. polkit's
//! answer decides: without authorization, or with a rule saying no, or with no
//! polkitd reachable, nothing is signed and the request stays pending; with a
//! rule granting `org.schcp.keyapp.approve`, the same approve works.

use agent::AgentClient;
use ed25519_dalek::SigningKey;
use reqwest::Method;
use serde_json::{json, Value};
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use testkit::local_user::TestUser;

/// The rules directory is the machine's: one test at a time writes to it.
static POLKIT: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const PASSPHRASE: &str = "correct horse battery staple";
const RULE_FILE: &str = "50-schcp-test-verify.rules";
const ACTION: &str = "org.schcp.keyapp.approve";

fn test_user() -> TestUser {
    TestUser::required()
}

/// What polkit answers the test user now, as `pkcheck` exits for one of their
/// processes: 0 authorized, 1 not authorized (a rule said no), 2 only after
/// authenticating (which nobody is there to do).
fn pkcheck(user: &TestUser) -> i32 {
    pkcheck_for(user, ACTION)
}

/// The same for `action`.
fn pkcheck_for(user: &TestUser, action: &str) -> i32 {
    let script = format!("exec pkcheck --action-id {action} --process $$");
    let out = Command::new("sh").args(["-c", &script]).uid(user.uid).gid(user.gid).output().unwrap();
    out.status.code().unwrap_or(-1)
}

/// Sets what polkit answers the test user (`Some("YES")`, `Some("NO")`, or no
/// rule), and waits until polkitd has reloaded and answers so.
fn rule(user: &TestUser, result: Option<&str>) {
    let dir = PathBuf::from(std::env::var("SCHCP_POLKIT_RULES_DIR").expect("run under scripts/with-polkit"));
    let path = dir.join(RULE_FILE);
    let expect = match result {
        None => {
            let _ = std::fs::remove_file(&path);
            2
        }
        Some(answer) => {
            let js = format!(
                "polkit.addRule(function(action, subject) {{\n  if (action.id == \"{ACTION}\" && subject.user == \"{}\") {{ return polkit.Result.{answer}; }}\n}});\n",
                user.name
            );
            std::fs::write(&path, js).unwrap();
            if answer == "YES" {
                0
            } else {
                1
            }
        }
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while pkcheck(user) != expect {
        assert!(Instant::now() < deadline, "polkitd did not take up the rule {result:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A data directory the test user owns, with its config: the file keystore
/// (the keychain of scripts/with-keyring is root's), loopback listeners.
struct Profile {
    dir: tempfile::TempDir,
}

impl Profile {
    fn new(user: &TestUser) -> Profile {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let config = format!(
            "data_dir = {data:?}\nlocale = \"en\"\n[agent_api]\nlisten = \"127.0.0.1:0\"\n\
             [status_api]\nlisten = \"127.0.0.1:0\"\n[keystore]\nbackend = \"file\"\n",
            data = data.display().to_string(),
        );
        std::fs::write(dir.path().join("keyapp.toml"), config).unwrap();
        for p in [dir.path().to_owned(), dir.path().join("keyapp.toml")] {
            std::os::unix::fs::chown(&p, Some(user.uid), Some(user.gid)).unwrap();
        }
        Profile { dir }
    }
    fn config(&self) -> PathBuf {
        self.dir.path().join("keyapp.toml")
    }
    fn runtime(&self) -> PathBuf {
        self.dir.path().join("data/run")
    }
}

/// The running service, stopped when dropped.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn keyapp_bin() -> &'static str {
    env!("CARGO_BIN_EXE_schcp-keyapp")
}

/// One command as the test user: the environment a person's session would
/// give it (HOME, PATH), nothing of root's.
fn as_user(user: &TestUser, profile: &Profile, program: &str) -> Command {
    let mut c = Command::new(program);
    c.uid(user.uid).gid(user.gid).env_clear().env("HOME", profile.dir.path()).env("PATH", "/usr/bin:/bin");
    if let Some(bus) = std::env::var_os("DBUS_SYSTEM_BUS_ADDRESS") {
        c.env("DBUS_SYSTEM_BUS_ADDRESS", bus);
    }
    c
}

/// Starts `schcp-keyapp serve` as the test user and waits for its agent API.
/// `system_bus` overrides where it looks for polkit. The one place that knows
/// how the service is given its passphrase.
fn serve(user: &TestUser, profile: &Profile, system_bus: Option<&str>) -> (Served, String) {
    let info = profile.runtime().join("agent-api.json");
    let _ = std::fs::remove_file(&info);
    let mut c = as_user(user, profile, keyapp_bin());
    c.arg("--config").arg(profile.config()).arg("serve").env("SCHCP_KEYAPP_PASSPHRASE", PASSPHRASE);
    if let Some(bus) = system_bus {
        c.env("DBUS_SYSTEM_BUS_ADDRESS", bus);
    }
    let log = std::fs::File::create(profile.dir.path().join("serve.log")).unwrap();
    let child = c.stdin(Stdio::null()).stdout(Stdio::null()).stderr(log).spawn().unwrap();
    let served = Served(child);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(text) = std::fs::read_to_string(&info) {
            if let Ok(v) = serde_json::from_str::<Value>(&text) {
                return (served, v["url"].as_str().unwrap().to_owned());
            }
        }
        let log = std::fs::read_to_string(profile.dir.path().join("serve.log")).unwrap_or_default();
        assert!(Instant::now() < deadline, "the service did not start:\n{log}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `schcp-keyapp ARGS` as the test user, `input` on its standard input, in a
/// session of its own (no controlling terminal: no password prompt can wait).
fn cli(user: &TestUser, profile: &Profile, args: &[&str], input: &str) -> Output {
    let mut c = as_user(user, profile, "/usr/bin/setsid");
    c.arg("--wait").arg(keyapp_bin()).arg("--config").arg(profile.config()).args(args);
    let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// One raw line on the control socket as the test user (perl-base's
/// IO::Socket::UNIX, on every Debian): what an assistant's shell can send.
fn raw_control(user: &TestUser, profile: &Profile, line: &Value) -> Value {
    let script = "use IO::Socket::UNIX; my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die \"connect: $!\"; \
                  print $s $ARGV[1], \"\\n\"; my $a = <$s>; print $a;";
    let sock = profile.runtime().join("control.sock");
    let out =
        as_user(user, profile, "/usr/bin/perl").args(["-e", script]).arg(&sock).arg(line.to_string()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Pairs an agent, the pairing approved at the terminal (polkit must say yes).
async fn pair(user: &TestUser, profile: &Profile, url: &str, seed: u8) -> AgentClient {
    let a = AgentClient::new(url, SigningKey::from_bytes(&[seed; 32]));
    let p = a.call(Method::POST, "/v1/pairings", Some(&json!({"agent_name": "Calendar Assistant"}))).await.unwrap();
    let id = p["pairing_id"].as_str().unwrap();
    let out = cli(user, profile, &["approve", id], "y\n");
    assert!(out.status.success(), "pairing: {}{}", text(&out.stdout), text(&out.stderr));
    let p = a.call(Method::GET, &format!("/v1/pairings/{id}"), None).await.unwrap();
    assert_eq!(p["status"], "approved");
    a
}

async fn rule_request(a: &AgentClient, key: &str) -> String {
    let body = json!({"kind": "rule", "idempotency_key": key, "agent_jkt": a.jkt(), "label": "Weekend playdates"});
    let v = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    v["request_id"].as_str().unwrap().to_owned()
}

/// The credentials the person's records hold, one line each (`schcp-keyapp mandates`).
fn issued(user: &TestUser, profile: &Profile) -> Vec<String> {
    let out = cli(user, profile, &["mandates"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout).lines().map(str::to_owned).collect()
}

/// The request is still pending, without a result, and nothing was issued.
async fn nothing_issued(user: &TestUser, profile: &Profile, a: &AgentClient, id: &str) {
    let r = a.call(Method::GET, &format!("/v1/requests/{id}"), None).await.unwrap();
    assert_eq!(r["status"], "pending", "{r}");
    assert!(r.get("result").is_none_or(Value::is_null), "{r}");
    assert_eq!(issued(user, profile), Vec::<String>::new(), "nothing issued");
}

fn assert_refused_at_terminal(out: &Output, sentence: &str) {
    assert!(!out.status.success(), "refused, so not success: {}", text(&out.stdout));
    assert!(text(&out.stdout).contains("Approve? [y/N]"), "the person was asked: {}", text(&out.stdout));
    assert!(!text(&out.stdout).contains("approved\n"), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains(sentence), "{}", text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread")]
async fn polkit_decides_every_yes_at_the_terminal_and_on_the_socket() {
    let _one = POLKIT.lock().await;
    let user = test_user();
    let profile = Profile::new(&user);
    let (_served, url) = serve(&user, &profile, None);

    rule(&user, Some("YES"));
    let a = pair(&user, &profile, &url, 1).await;
    let first = rule_request(&a, "k1").await;
    let second = rule_request(&a, "k2").await;

    // No authorization: polkit would want a password, and no agent can ask.
    rule(&user, None);
    let out = cli(&user, &profile, &["approve", &first], "y\n");
    assert_refused_at_terminal(&out, "Your computer did not confirm it was you, so nothing was approved or signed.");
    let raw = raw_control(&user, &profile, &json!({"cmd": "approve", "id": first}));
    assert_eq!(
        (raw["error"]["code"].as_str(), raw["error"]["reason"].as_str()),
        (Some("NOT_PERMITTED"), Some("user_not_verified"))
    );
    nothing_issued(&user, &profile, &a, &first).await;

    // A rule answering no is obeyed.
    rule(&user, Some("NO"));
    let out = cli(&user, &profile, &["approve", &first], "y\n");
    assert_refused_at_terminal(&out, "did not confirm it was you");
    let raw = raw_control(&user, &profile, &json!({"cmd": "approve", "id": second}));
    assert_eq!(raw["error"]["reason"], "user_not_verified", "{raw}");
    nothing_issued(&user, &profile, &a, &first).await;
    nothing_issued(&user, &profile, &a, &second).await;

    // A rule granting the action: the same approves work.
    rule(&user, Some("YES"));
    let out = cli(&user, &profile, &["approve", &first], "y\n");
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).contains("approved\n"), "{}", text(&out.stdout));
    let raw = raw_control(&user, &profile, &json!({"cmd": "approve", "id": second}));
    assert_eq!(raw["ok"]["status"], "approved", "{raw}");
    for id in [&first, &second] {
        let r = a.call(Method::GET, &format!("/v1/requests/{id}"), None).await.unwrap();
        assert_eq!(r["status"], "approved");
        assert!(r["result"]["rule"].is_string());
    }
    assert_eq!(issued(&user, &profile).len(), 2);
    // The records say how: the person's history, in their words.
    let history = cli(&user, &profile, &["history"], "");
    let approved: Vec<String> =
        text(&history.stdout).lines().filter(|l| l.contains("request_approved")).map(str::to_owned).collect();
    assert_eq!(approved.len(), 2, "{}", text(&history.stdout));
    assert!(approved.iter().all(|l| l.ends_with("(confirmed with your password or fingerprint)")), "{approved:?}");
    rule(&user, None);
}

#[tokio::test(flavor = "multi_thread")]
async fn with_no_polkit_daemon_nothing_is_signed_and_the_terminal_says_how_to_install_it() {
    let _one = POLKIT.lock().await;
    let user = test_user();
    let profile = Profile::new(&user);
    let (served, url) = serve(&user, &profile, None);
    rule(&user, Some("YES"));
    let a = pair(&user, &profile, &url, 2).await;
    let id = rule_request(&a, "k1").await;
    drop(served);

    // The same records, and a system bus address with nothing behind it.
    let nowhere = format!("unix:path={}", profile.dir.path().join("no-system-bus").display());
    let (_served, url) = serve(&user, &profile, Some(&nowhere));
    let a = AgentClient::new(url, SigningKey::from_bytes(&[2; 32]));
    let out = cli(&user, &profile, &["approve", &id], "y\n");
    assert_refused_at_terminal(&out, "polkit is not running or not installed");
    assert!(text(&out.stderr).contains("sudo apt install polkitd pkexec"), "{}", text(&out.stderr));
    let raw = raw_control(&user, &profile, &json!({"cmd": "approve", "id": id}));
    assert_eq!(raw["error"]["reason"], "verification_unavailable", "{raw}");
    nothing_issued(&user, &profile, &a, &id).await;
    rule(&user, None);
}

/// Showing the recovery phrase is its own action, with its own sentence
/// (packaging/polkit/org.schcp.keyapp.policy): a yes to approvals, even a
/// rule's, is none to it, and the key app asks polkit for that action.
#[tokio::test(flavor = "multi_thread")]
async fn a_yes_to_approvals_does_not_show_the_recovery_phrase() {
    use keyapp::user_verification::{self as uv, Approval, Asker, Purpose, Surface, UserVerifier};
    let _one = POLKIT.lock().await;
    let user = test_user();
    rule(&user, Some("YES"));
    assert_eq!(pkcheck_for(&user, uv::APPROVE_ACTION), 0);
    assert_eq!(pkcheck_for(&user, uv::RECOVERY_KIT_ACTION), 2, "the recovery phrase still wants the password");
    rule(&user, None);
    // Asked by the key app (here root, whom polkit authorizes for an action it knows).
    let asker = Asker::this_process(Surface::Terminal).unwrap();
    let show = Approval { asker, summary: "Show".into(), about: None, purpose: Purpose::ShowRecoveryKit };
    assert_eq!(uv::PolkitVerifier::default().verify(&show).await, Ok(uv::Method::Polkit));
}
