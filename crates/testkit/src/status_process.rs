//! `schcp-status serve`, the real hosted status service binary, as its own
//! process on one PostgreSQL (`DATABASE_URL`; scripts/with-postgres starts a
//! throwaway one), killed when dropped.

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The PostgreSQL the suites run on: `DATABASE_URL`, which
/// scripts/with-postgres sets (scripts/test does).
pub fn database_url() -> String {
    match std::env::var("DATABASE_URL") {
        Ok(u) if !u.is_empty() => u,
        _ => panic!("DATABASE_URL is not set: run under scripts/with-postgres (scripts/test does)"),
    }
}

/// target/debug/schcp-status, beside the running test's own directory: a
/// suite of another crate cannot name it with `CARGO_BIN_EXE_`.
pub fn status_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().and_then(|deps| deps.parent()).unwrap().join("schcp-status");
    assert!(bin.exists(), "{} is not built: run `cargo build -p schcp-status` (scripts/test builds it)", bin.display());
    bin
}

/// A running `schcp-status serve`.
pub struct StatusProcess {
    pub child: Child,
    pub addr: SocketAddr,
    /// The config file, kept as long as the process reads it.
    _config: Option<tempfile::NamedTempFile>,
}

impl StatusProcess {
    /// Runs `bin serve --listen listen` on `database_url`, with `config` as its
    /// config file when given, and waits for the address it says it listens on.
    pub fn spawn(bin: &Path, database_url: &str, listen: &str, config: Option<&str>) -> StatusProcess {
        let file = config.map(|text| {
            let mut file = tempfile::NamedTempFile::new().unwrap();
            file.write_all(text.as_bytes()).unwrap();
            file
        });
        let mut cmd = Command::new(bin);
        if let Some(file) = &file {
            cmd.arg("--config").arg(file.path());
        }
        let mut child = cmd
            .args(["serve", "--listen", listen])
            .env("DATABASE_URL", database_url)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("schcp-status did not start: {line:?}"))
            .parse()
            .unwrap();
        StatusProcess { child, addr, _config: file }
    }

    /// The built `schcp-status` ([`status_bin`]) on [`database_url`], migrated
    /// first, serving on `listen` with `config` as its config file when given.
    pub fn start(listen: &str, config: Option<&str>) -> StatusProcess {
        StatusProcess::migrate(&status_bin(), &database_url());
        StatusProcess::spawn(&status_bin(), &database_url(), listen, config)
    }

    /// `bin migrate` on `database_url` (idempotent), asserting it succeeded.
    pub fn migrate(bin: &Path, database_url: &str) {
        let migrated = Command::new(bin).arg("migrate").env("DATABASE_URL", database_url).status().unwrap();
        assert!(migrated.success(), "schcp-status migrate failed");
    }

    /// `http://{addr}`.
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// SIGKILL: no shutdown, open transactions cut off mid-way.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for StatusProcess {
    fn drop(&mut self) {
        self.kill();
    }
}
