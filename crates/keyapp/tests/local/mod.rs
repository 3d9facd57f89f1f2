//! What the tests of local peers share: the key app on loopback with a file
//! key (no keychain needed), sockets made as another local user, a stranger
//! process listening where the key app did, and the open-files limit raised
//! for tests that hold thousands of connections.
#![allow(dead_code)] // each test binary uses its own subset

use keyapp::app::{self, Running};
use keyapp::config::{self, Config};
use keyapp::keystore::PassphraseSource;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

pub(crate) fn config(dir: &Path) -> Config {
    let mut config = Config { data_dir: Some(dir.join("data")), locale: Some("en".into()), ..Config::default() };
    config.agent_api.listen = "127.0.0.1:0".parse().unwrap();
    config.status_api.listen = "127.0.0.1:0".parse().unwrap();
    config.keystore.backend = config::KeystoreBackend::File;
    config
}

pub(crate) async fn start_with(config: Config) -> Running {
    app::start(config, PassphraseSource::Fixed("correct horse battery staple".to_owned().into()))
        .await
        .expect("the key app starts")
}

/// Whether this process may act as another user (tests run as root in CI).
pub(crate) fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// The other local user: `$SCHCP_POLKIT_TEST_USER` (scripts/with-polkit makes
/// it), else `nobody`'s uid, which needs no account to own a socket.
pub(crate) fn other_uid() -> (u32, u32) {
    if let Some(user) = std::env::var_os("SCHCP_POLKIT_TEST_USER") {
        let id = |flag: &str| {
            let out = Command::new("id").arg(flag).arg(&user).output().expect("id runs");
            String::from_utf8(out.stdout).unwrap().trim().parse::<u32>().expect("a numeric id")
        };
        return (id("-u"), id("-g"));
    }
    (65534, 65534)
}

/// Runs `f` on a thread whose effective uid is `uid` (Linux uids are
/// per-thread at the system call level), so the sockets it makes are that
/// user's in the kernel's table, then returns what it made.
pub(crate) fn as_uid<T: Send + 'static>(uid: u32, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::spawn(move || {
        rustix::thread::set_thread_res_uid(None, Some(rustix::process::Uid::from_raw(uid)), None)
            .expect("root may take another effective uid");
        f()
    })
    .join()
    .unwrap()
}

/// Raises the soft open-files limit to `want` (or the hard limit).
pub(crate) fn raise_open_files(want: u64) -> u64 {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let mut limit = getrlimit(Resource::Nofile);
    let hard = limit.maximum.unwrap_or(u64::MAX);
    let soft = limit.current.unwrap_or(u64::MAX);
    if soft < want {
        limit.current = Some(want.min(hard));
        setrlimit(Resource::Nofile, limit).expect("the soft limit can rise to the hard one");
    }
    getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX)
}

/// A tiny HTTP server, another process (as the other user when this test runs
/// as root), answering every request with `body` and logging each request line.
pub(crate) struct Stranger {
    child: Option<Child>,
}

impl Drop for Stranger {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

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
    /// Listens on `port` (retrying while the key app's listener closes).
    pub(crate) fn listen(port: u16, body: &str) -> Stranger {
        let python = if Path::new("/usr/bin/python3").exists() { "/usr/bin/python3" } else { "python3" };
        for _ in 0..50 {
            let mut cmd = Command::new(python);
            cmd.arg("-c").arg(STRANGER).arg(port.to_string()).arg(body);
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).env_clear();
            if is_root() {
                use std::os::unix::process::CommandExt;
                let (uid, gid) = other_uid();
                cmd.uid(uid).gid(gid).current_dir("/");
            }
            let mut child = cmd.spawn().expect("python3 runs");
            let mut line = String::new();
            let _ = BufReader::new(child.stdout.take().unwrap()).read_line(&mut line);
            if line.trim() == "ready" {
                return Stranger { child: Some(child) };
            }
            let _ = child.wait();
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("the stranger could not listen on port {port}");
    }

    /// Stops it and returns the request lines it was sent.
    pub(crate) fn requests(mut self) -> Vec<String> {
        let mut child = self.child.take().expect("running");
        let _ = child.kill();
        let out = child.wait_with_output().expect("the stranger ends");
        String::from_utf8_lossy(&out.stderr).lines().map(str::to_owned).collect()
    }
}
