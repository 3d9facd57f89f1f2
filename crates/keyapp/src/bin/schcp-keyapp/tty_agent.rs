//! polkit's text authentication agent for this terminal, while `approve`
//! waits: the service asks polkit to confirm the person for this process, and
//! `pkttyagent --process <this pid> --fallback` is what asks them, for their
//! password, right here (where no desktop agent already does: `--fallback`).
//! Without a terminal it cannot start, and polkit's answer is then no.

use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};

/// How long to wait for the agent to register before approving anyway (an
/// agent that did not come up only means nobody is asked, which refuses).
const REGISTER_TIMEOUT: Duration = Duration::from_secs(5);

/// The running agent, if one started; stopped with `stop`, or on drop.
pub(crate) struct TtyAgent(Option<Child>);

/// Starts `pkttyagent` for this process and waits until it has registered
/// with polkit (it closes its standard output then: `--notify-fd 1`), or has
/// given up.
pub(crate) async fn start() -> TtyAgent {
    let spawned = Command::new("pkttyagent")
        .arg("--process")
        .arg(std::process::id().to_string())
        .args(["--fallback", "--notify-fd", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        // Not installed: a desktop's own agent may still answer.
        Err(_) => return TtyAgent(None),
    };
    if let Some(mut registered) = child.stdout.take() {
        let mut sink = Vec::new();
        let _ = tokio::time::timeout(REGISTER_TIMEOUT, registered.read_to_end(&mut sink)).await;
    }
    TtyAgent(Some(child))
}

impl TtyAgent {
    /// Stops the agent (its registration ends with its connection to the bus).
    pub(crate) async fn stop(mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill().await;
        }
    }
}
