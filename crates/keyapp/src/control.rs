//! The control socket (README "Try it on one machine"): how the person's own surfaces (the terminal
//! commands) reach the running service. A Unix socket in the runtime directory,
//! mode 0600 in a 0700 directory, and every connection's peer must be the owning
//! user; the agent API cannot reach any of it.
//!
//! An approval on the socket is confirmed by the OS for the peer process
//! (SO_PEERCRED's pid), so a yes any of the owner's processes could send is
//! still no yes until the person confirms it (user_verification).
//!
//! Protocol: one JSON object per line each way. Requests `{"cmd": …, …}`;
//! answers `{"ok": …}` or `{"error": {"code", "reason", "message"}}`. A listing
//! or a prompt is the view the window gets for it (`crate::views`), which the
//! terminal reads back as that type.

use crate::service::{Origin, Service, ServiceError};
use crate::user_verification::{self, Asker};
use schcp::refusal::{Code, Reason};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

/// Longest command line accepted (an attestation JWS is the biggest).
const MAX_LINE: usize = 64 * 1024;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "cmd", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    Pending,
    Show {
        id: String,
    },
    Approve {
        id: String,
    },
    Decline {
        id: String,
    },
    Mandates,
    Revoke {
        jti: String,
    },
    History,
    Contacts,
    ContactsAdd {
        principal: String,
        name: String,
        relationship: Option<String>,
    },
    AttestationsAdd {
        jws: String,
    },
    Principal,
    /// What unpairing an agent (its key thumbprint or fingerprint) could take back.
    AgentHolds {
        agent: String,
    },
    /// Unpairs an agent; with `revoke_credentials`, revokes what it holds.
    Unpair {
        agent: String,
        #[serde(default)]
        revoke_credentials: bool,
    },
    /// Host ids met at another domain than they were first verified at (§2.2).
    HostChanges,
    /// The person accepts that a host really moved to `domain`.
    AcceptHostDomain {
        host_id: String,
        domain: String,
    },
    /// Where hosts check the person's credentials (`schcp-keyapp setup`).
    StatusSetup,
    /// Setup's answer; a change of address is confirmed by the OS.
    ChooseStatus {
        setup: crate::status_address::SetupChoice,
    },
    /// The person confirms the status address the config asks for.
    ConfirmConfiguredStatus,
    /// One page of History: what the query finds (`record_query`), as the window's History asks.
    SearchHistory {
        #[serde(default)]
        query: crate::record_query::HistoryQuery,
    },
    /// One page of the credentials issued, as the window's Credentials asks.
    SearchCredentials {
        #[serde(default)]
        query: crate::record_query::CredentialQuery,
    },
    /// The person's records as one document (`export`); the terminal writes it.
    ExportRecords {
        format: crate::export::ExportFormat,
    },
    /// A lost computer's switch: revokes every credential in the records and,
    /// at each hosted status service, every one registered under the key up
    /// to now. The OS confirms the person first, as for an approval.
    RevokeEverything,
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ControlError {
    #[error("control socket {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("the key app is not running (no control socket at {0}); start it with `schcp-keyapp serve`")]
    NotRunning(PathBuf),
    #[error("malformed answer from the key app: {0}")]
    Protocol(String),
}

/// The runtime directory: `$XDG_RUNTIME_DIR/schcp-keyapp/` for the default
/// profile (docs/agent-api.md §1), `<data_dir>/run` for a configured `data_dir` or when there
/// is no XDG_RUNTIME_DIR, so a second profile never takes over the first's
/// socket and `agent-api.json`.
pub fn runtime_dir(config: &crate::config::Config, data_dir: &Path) -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(d) if !d.is_empty() && config.data_dir.is_none() => PathBuf::from(d).join("schcp-keyapp"),
        _ => data_dir.join("run"),
    }
}

pub fn socket_path(runtime_dir: &Path) -> PathBuf {
    runtime_dir.join("control.sock")
}

/// Creates the runtime directory (0700) and binds the socket (0600).
pub fn bind(runtime_dir: &Path) -> Result<UnixListener, ControlError> {
    let io = |source| ControlError::Io { path: runtime_dir.to_owned(), source };
    std::fs::create_dir_all(runtime_dir).map_err(io)?;
    std::fs::set_permissions(runtime_dir, std::fs::Permissions::from_mode(0o700)).map_err(io)?;
    let path = socket_path(runtime_dir);
    // A socket left by a crashed run would make bind fail.
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path).map_err(|source| ControlError::Io { path: path.clone(), source })?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
        .map_err(|source| ControlError::Io { path: path.clone(), source })?;
    Ok(listener)
}

/// Serves the control socket until the listener fails.
pub async fn serve(listener: UnixListener, service: Service, owner_uid: u32) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // A full file table frees up again; no busy loop meanwhile.
                tracing::warn!(error = %e, "control socket accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        // Defence in depth behind the file mode: only the owner's processes.
        let cred = match stream.peer_cred() {
            Ok(cred) if cred.uid() == owner_uid => cred,
            _ => continue,
        };
        // The process the OS is asked about when it approves: the peer as the
        // kernel saw it connect, its start time read now, while it waits.
        let asker = cred.pid().and_then(|pid| u32::try_from(pid).ok()).and_then(|pid| {
            user_verification::Asker::process(pid, cred.uid(), user_verification::Surface::Terminal).ok()
        });
        let service = service.clone();
        tokio::spawn(async move {
            let _ = handle(stream, service, asker).await;
        });
    }
}

/// The uid owning `path` (the data directory), whose processes may connect.
pub fn owner_uid(path: &Path) -> std::io::Result<u32> {
    Ok(std::fs::metadata(path)?.uid())
}

async fn handle(stream: UnixStream, service: Service, asker: Option<Asker>) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read.take(MAX_LINE as u64 * 16)).lines();
    // Lines the peer sent while the one before them ran: answered in turn.
    let mut ahead: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    let mut hung_up = false;
    loop {
        let line = match ahead.pop_front() {
            Some(line) => line,
            None if hung_up => return Ok(()),
            None => match lines.next_line().await? {
                Some(line) => line,
                None => return Ok(()),
            },
        };
        let answer = if line.len() > MAX_LINE {
            error_value(Code::InvalidRequest, Reason::TooLarge, "command too long")
        } else {
            match serde_json::from_str::<Command>(&line) {
                Ok(cmd) => {
                    // The peer's end is watched while its command runs: a
                    // peer that hangs up withdraws the approval it asked the
                    // OS for, so no prompt stays on screen for a program that
                    // is gone (user_verification::HangUp). After a half-close
                    // its queued lines still run, as hung up, so none asks the
                    // OS; after a full close their answers cannot be written
                    // and the connection ends.
                    let peer = user_verification::HangUp::default();
                    if hung_up {
                        peer.hang_up();
                    }
                    let run = peer.carry(execute(&service, cmd, asker.as_ref()));
                    tokio::pin!(run);
                    let done = loop {
                        tokio::select! {
                            done = &mut run => break done,
                            // Read on (the whole connection is bounded by
                            // `take`), so a hang-up behind queued lines is seen.
                            next = lines.next_line(), if !hung_up => match next {
                                Ok(Some(next)) => ahead.push_back(next),
                                ended => {
                                    if let Err(error) = ended {
                                        tracing::debug!(%error, "the control socket's peer sent what cannot be read; taken as gone");
                                    }
                                    hung_up = true;
                                    peer.hang_up();
                                }
                            },
                        }
                    };
                    match done {
                        Ok(v) => json!({ "ok": v }),
                        Err(e) => {
                            let api = e.to_api();
                            // A person reads this one at the terminal: their words.
                            let message = match &e {
                                ServiceError::NotVerified(_)
                                | ServiceError::Store(crate::store::StoreError::Tampered(_)) => {
                                    crate::ui_words::refusal(service.profile().language(), &e)
                                }
                                _ => api.message,
                            };
                            error_value(api.code, api.reason, &message)
                        }
                    }
                }
                Err(e) => error_value(Code::InvalidRequest, Reason::Malformed, &e.to_string()),
            }
        };
        let mut out = answer.to_string();
        out.push('\n');
        write.write_all(out.as_bytes()).await?;
    }
}

use tokio::io::AsyncReadExt as _;

fn error_value(code: Code, reason: Reason, message: &str) -> Value {
    json!({ "error": { "code": code, "reason": reason, "message": message } })
}

/// Runs one command against the service: the same functions the window calls.
/// `asker` is the peer process, whose approvals the OS is asked to confirm; a
/// peer whose process the kernel did not name can approve nothing.
pub async fn execute(service: &Service, cmd: Command, asker: Option<&Asker>) -> Result<Value, ServiceError> {
    let origin = asker.map_or(Origin::UnknownPeer, Origin::Peer);
    Ok(match cmd {
        // The window's views, as the window receives them (`views`).
        Command::Pending => to_value(service.requests().pending_items().await?),
        Command::Show { id } => to_value(service.requests().prompt(&id).await?),
        Command::Approve { id } => service.approve(&id, origin).await?,
        // A no signs nothing, so the peer is not asked about.
        Command::Decline { id } => service.decline(&id).await?,
        Command::Mandates => to_value(service.records().credentials(None).await?),
        Command::Revoke { jti } => {
            service.records().revoke(&jti).await?;
            json!({ "jti": jti, "status": "revoked" })
        }
        Command::History => to_value(service.records().recent_history().await?),
        Command::SearchHistory { query } => to_value(service.records().history_page(&query).await?),
        Command::SearchCredentials { query } => to_value(service.records().credential_page(&query).await?),
        Command::ExportRecords { format } => json!({ "document": service.records().export_document(format).await? }),
        Command::Contacts => to_value(service.directory().contacts().await?),
        // The consent text names people by the person's contacts (§5.12): a
        // name is as strong as a yes, so the OS confirms the peer first.
        Command::ContactsAdd { principal, name, relationship } => {
            service.directory().add_contact(&principal, &name, relationship.as_deref(), origin).await?;
            json!({ "principal": principal, "name": name })
        }
        // Kept only once the OS confirmed the person (a root mandate carries it).
        Command::AttestationsAdd { jws } => service.directory().add_attestation(&jws, origin).await?,
        Command::Principal => {
            json!({ "principal": service.profile().principal(), "jwk": service.profile().principal_jwk() })
        }
        Command::AgentHolds { agent } => {
            to_value(service.pairings().agent_holds(&service.pairings().paired_agent_key(&agent).await?).await?)
        }
        Command::Unpair { agent, revoke_credentials } => {
            let jkt = service.pairings().paired_agent_key(&agent).await?;
            to_value(service.pairings().unpair_revoking(&jkt, revoke_credentials).await?)
        }
        Command::HostChanges => to_value(service.directory().host_domain_changes().await?),
        Command::AcceptHostDomain { host_id, domain } => {
            // Re-binding a host id is as strong as a yes: a process of the
            // person's that could do it unconfirmed could lend a look-alike
            // domain a host's id (SchCP §2.2).
            service.directory().accept_host_domain(&host_id, &domain, origin).await?;
            json!({ "host_id": host_id, "domain": domain })
        }
        Command::StatusSetup => to_value(service.status().status_setup().await?),
        // The status address decides who answers hosts for the person: a
        // change is as strong as a yes (service::status_setup).
        Command::ChooseStatus { setup } => to_value(service.status().choose_status(setup, origin).await?),
        Command::ConfirmConfiguredStatus => to_value(service.status().confirm_requested_status(origin).await?),
        // Stronger than any one yes: it takes back everything at once.
        Command::RevokeEverything => to_value(service.records().revoke_everything(origin).await?),
    })
}

fn to_value(view: impl Serialize) -> Value {
    serde_json::to_value(view).expect("views serialize")
}

/// The terminal side: sends one command and returns the answer's `ok` value,
/// or the error object.
pub async fn call(runtime_dir: &Path, cmd: &Command) -> Result<Result<Value, Value>, ControlError> {
    let path = socket_path(runtime_dir);
    let stream = UnixStream::connect(&path).await.map_err(|_| ControlError::NotRunning(path.clone()))?;
    let (read, mut write) = stream.into_split();
    let mut line = serde_json::to_string(cmd).expect("commands serialize");
    line.push('\n');
    write.write_all(line.as_bytes()).await.map_err(|source| ControlError::Io { path: path.clone(), source })?;
    let mut lines = BufReader::new(read).lines();
    let answer = lines
        .next_line()
        .await
        .map_err(|source| ControlError::Io { path: path.clone(), source })?
        .ok_or_else(|| ControlError::Protocol("no answer".into()))?;
    let v: Value = serde_json::from_str(&answer).map_err(|e| ControlError::Protocol(e.to_string()))?;
    match (v.get("ok"), v.get("error")) {
        (Some(ok), None) => Ok(Ok(ok.clone())),
        (None, Some(err)) => Ok(Err(err.clone())),
        _ => Err(ControlError::Protocol(answer)),
    }
}
