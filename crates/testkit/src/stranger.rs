//! A stranger listening where the key app did: a tiny HTTP server in another
//! process (as the other local user when the test runs as root), answering
//! every request with one body, as an impostor of the key app would.

use crate::local_user::{is_root, other_uid};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The running stranger; it is stopped when dropped.
pub struct Stranger {
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

/// The server: Python's own, so the stranger shares no code with the key app.
/// It logs the request line of each request it answers to stderr.
const SERVER: &str = r#"
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
    # One line per request answered; an error's report (log_error) is none.
    def log_request(self, *args):
        sys.stderr.write(self.requestline + "\n")
        sys.stderr.flush()
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", port), Answer)
print("ready", flush=True)
server.serve_forever()
"#;

impl Stranger {
    /// Listens on `port` answering `body` (retrying while the key app's
    /// listener closes).
    pub fn listen(port: u16, body: &str) -> Stranger {
        let python = if Path::new("/usr/bin/python3").exists() { "/usr/bin/python3" } else { "python3" };
        for _ in 0..50 {
            let mut cmd = Command::new(python);
            cmd.arg("-c").arg(SERVER).arg(port.to_string()).arg(body);
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

    /// Stops it and returns the request lines it was sent. Only those: the
    /// server's stderr also carries Python's report of a connection the
    /// client closed early, which is no request.
    pub fn requests(mut self) -> Vec<String> {
        let mut child = self.child.take().expect("running");
        let _ = child.kill();
        let out = child.wait_with_output().expect("the stranger ends");
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| ["GET ", "POST ", "DELETE "].iter().any(|m| l.starts_with(m)) && l.contains(" HTTP/"))
            .map(str::to_owned)
            .collect()
    }
}
