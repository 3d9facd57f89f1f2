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
    Config::parse(&host.keyapp_test_config(dir).unwrap(), Path::new("test.toml")).unwrap()
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

/// A tentative booking the booker Sam made for a slot `days_ahead` days from
/// now that names `me` as an invitee who must answer by the day before
/// (§5.10), served by the test host and read back over HTTPS as the person's
/// agent reads it (`GET /bookings/{id}`, §5.5). Returns the served response
/// and the contract's offer.
pub(crate) async fn served_invitation(host: &TestHost, me: &str, days_ahead: i64) -> (Value, String) {
    use schcp::claims::{Participant, ParticipantRole, ParticipantStatus, ReconfirmDefault};
    let sam = schcp::jwk::Jwk::ed25519(&ed25519_dalek::SigningKey::from_bytes(&[0x90; 32]).verifying_key())
        .principal_id()
        .unwrap();
    let confirm_by =
        (chrono::Utc::now() + chrono::Duration::days(days_ahead - 1)).format("%Y-%m-%dT13:00:00-04:00").to_string();
    let participants = vec![
        Participant {
            who: Some(sam),
            name: Some("Sam R.".into()),
            role: ParticipantRole::Booker,
            relationship: None,
            confirm_within: None,
            confirm_by: None,
            default: None,
            status: Some(ParticipantStatus::NotRequired),
        },
        Participant {
            who: Some(me.to_owned()),
            name: Some("Alex".into()),
            role: ParticipantRole::Invitee,
            relationship: Some("brother".into()),
            confirm_within: Some("P1D".into()),
            confirm_by: Some(confirm_by),
            default: Some(ReconfirmDefault::Release),
            status: Some(ParticipantStatus::Pending),
        },
    ];
    let offer = future_offer(host, days_ahead);
    let response = host.tentative_booking(&offer, "m-booker", participants, now()).unwrap();
    let booking_id = response.booking.booking_id.clone();
    host.serve_booking(response);
    let (domain, addr) = host.resolve();
    let client = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(host.ca_pem().as_bytes()).unwrap())
        .resolve(&domain, addr)
        .build()
        .unwrap();
    let r = client.get(host.booking_url(&booking_id)).send().await.unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::OK);
    (r.json().await.unwrap(), offer)
}

/// A tiny HTTP server in another process (run as `$SCHCP_POLKIT_TEST_USER`
/// when this test runs as root) answering every request with `body`: a
/// stranger listening where the key app did.
pub(crate) struct Stranger(Option<std::process::Child>);

const STRANGER: &str = r#"
import http.server, sys
port, body = int(sys.argv[1]), sys.argv[2].encode()
class Answer(http.server.BaseHTTPRequestHandler):
    def answer(self):
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = do_DELETE = answer
    def log_message(self, *args):
        sys.stderr.write(self.requestline + "\n")
        sys.stderr.flush()
server = http.server.HTTPServer(("127.0.0.1", port), Answer)
print("ready", flush=True)
server.serve_forever()
"#;

impl Stranger {
    pub(crate) fn listen(port: u16, body: &str) -> Stranger {
        use std::io::BufRead;
        use std::os::unix::process::CommandExt;
        let python = if Path::new("/usr/bin/python3").exists() { "/usr/bin/python3" } else { "python3" };
        let id = |flag: &str, user: &std::ffi::OsStr| -> Option<u32> {
            let out = std::process::Command::new("id").arg(flag).arg(user).output().ok()?;
            String::from_utf8(out.stdout).ok()?.trim().parse().ok()
        };
        let me = std::process::Command::new("id").arg("-u").output().unwrap();
        let root = String::from_utf8_lossy(&me.stdout).trim() == "0";
        let user = std::env::var_os("SCHCP_POLKIT_TEST_USER");
        for _ in 0..50 {
            let mut cmd = std::process::Command::new(python);
            cmd.arg("-c").arg(STRANGER).arg(port.to_string()).arg(body).env_clear();
            cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
            if let (true, Some(user)) = (root, &user) {
                cmd.uid(id("-u", user).unwrap()).gid(id("-g", user).unwrap()).current_dir("/");
            }
            let mut child = cmd.spawn().expect("python3 runs");
            let mut line = String::new();
            let _ = std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line);
            if line.trim() == "ready" {
                return Stranger(Some(child));
            }
            let _ = child.wait();
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("the stranger could not listen on port {port}");
    }

    /// Stops it; the request lines it was sent.
    pub(crate) fn requests(mut self) -> Vec<String> {
        let mut child = self.0.take().unwrap();
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        String::from_utf8_lossy(&out.stderr).lines().map(str::to_owned).collect()
    }
}

impl Drop for Stranger {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
