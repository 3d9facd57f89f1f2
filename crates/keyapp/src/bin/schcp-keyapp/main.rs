//! `schcp-keyapp`: the headless service and the person's terminal surface
//! (README "Try it on one machine"). `serve` runs the service; every other command talks to the
//! running service over the owner-only control socket.

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use keyapp::config::Config;
use keyapp::control::{self, Command};
use keyapp::keystore::PassphraseSource;
use keyapp::views::{HostChangeView, Prompt};
use serde_json::Value;
use std::io::{BufRead, Write};
use std::path::PathBuf;

mod listing;
mod recovery;
mod tty_agent;

#[derive(Parser)]
#[command(name = "schcp-keyapp", about = "The SchCP key app: your key, your yes.", version)]
struct Cli {
    /// Configuration file (TOML; every key optional).
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the service headless until stopped.
    Serve,
    /// List pending pairings and requests, one per line, id first.
    Pending,
    /// Print the consent text of a pending request or pairing.
    Show { id: String },
    /// Print the consent text, ask, and approve on "y" or "yes".
    Approve { id: String },
    /// Decline a pending request or pairing.
    Decline { id: String },
    /// List issued mandates.
    Mandates,
    /// Revoke a mandate now.
    Revoke { jti: String },
    /// What was approved, declined, issued and revoked.
    History,
    /// List contacts, or add one.
    Contacts {
        #[command(subcommand)]
        action: Option<ContactsCmd>,
    },
    /// Add an attestation about your key.
    Attestations {
        #[command(subcommand)]
        action: AttestationsCmd,
    },
    /// Print your principal id and public key.
    Principal,
    /// Businesses met at another domain than the one they were first verified
    /// at, or accept one's move (you are asked to confirm).
    Hosts {
        #[command(subcommand)]
        action: Option<HostsCmd>,
    },
    /// Print your recovery phrase, once your OS confirmed it is you.
    RecoveryPhrase,
    /// Write your records to FILE, encrypted to your recovery phrase.
    Backup { file: PathBuf },
    /// Restore your key (and, with --backup, your records) into an empty data
    /// directory; the recovery phrase is read from standard input, one line.
    Restore {
        #[arg(long)]
        backup: Option<PathBuf>,
        /// The kit is the key seed of a key made before recovery phrases (its kit says so).
        #[arg(long)]
        key_seed: bool,
    },
}

#[derive(Subcommand)]
enum HostsCmd {
    /// Accept that HOST_ID now lives at DOMAIN.
    Accept { host_id: String, domain: String },
}

#[derive(Subcommand)]
enum ContactsCmd {
    Add {
        principal: String,
        name: String,
        #[arg(long)]
        relationship: Option<String>,
    },
}

#[derive(Subcommand)]
enum AttestationsCmd {
    Add { jws: String },
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    // `serve` holds the key: before anything else, its memory is closed to the
    // person's other programs and its passphrase leaves the environment.
    let passphrase = match cli.command {
        Cmd::Serve | Cmd::RecoveryPhrase | Cmd::Backup { .. } | Cmd::Restore { .. } => {
            match keyapp::app::secure_process() {
                Ok(passphrase) => passphrase,
                Err(e) => {
                    eprintln!("schcp-keyapp: {e}");
                    return std::process::ExitCode::FAILURE;
                }
            }
        }
        _ => None,
    };
    // Logs go to stderr, at `info` unless RUST_LOG says otherwise; no secret,
    // token, consent text or personal data is logged at that level.
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
    match start(cli, passphrase) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            // One sentence with its remedy: each error's own message already
            // says its cause, so the chain is not printed under it again.
            eprintln!("schcp-keyapp: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn start(cli: Cli, passphrase: Option<PassphraseSource>) -> Result<()> {
    let config = match &cli.config {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(run(cli.command, config, passphrase))
}

async fn run(cmd: Cmd, config: Config, passphrase: Option<PassphraseSource>) -> Result<()> {
    let data_dir = keyapp::app::data_dir(&config)?;
    let socket = Socket(control::runtime_dir(&config, &data_dir));
    match cmd {
        Cmd::Serve => keyapp::app::serve(config, passphrase).await?,
        Cmd::RecoveryPhrase => recovery::recovery_phrase(&config, passphrase).await?,
        Cmd::Backup { file } => recovery::backup(&config, passphrase, file).await?,
        Cmd::Restore { backup, key_seed } => recovery::restore(&config, passphrase, backup, key_seed).await?,
        Cmd::Pending => listing::pending(socket.view(Command::Pending).await?),
        Cmd::Show { id } => println!("{}", socket.view::<Prompt>(Command::Show { id }).await?.consent_text),
        Cmd::Approve { id } => approve(&socket, id).await?,
        Cmd::Decline { id } => {
            socket.call(Command::Decline { id }).await?;
            println!("declined");
        }
        Cmd::Mandates => listing::credentials(socket.view(Command::Mandates).await?),
        Cmd::Revoke { jti } => {
            socket.call(Command::Revoke { jti: jti.clone() }).await?;
            println!("revoked {jti}");
        }
        Cmd::History => listing::history(socket.view(Command::History).await?),
        Cmd::Contacts { action: None } => listing::contacts(socket.view(Command::Contacts).await?),
        Cmd::Contacts { action: Some(ContactsCmd::Add { principal, name, relationship }) } => {
            socket.call(Command::ContactsAdd { principal, name, relationship }).await?;
            println!("added");
        }
        Cmd::Attestations { action: AttestationsCmd::Add { jws } } => {
            let v = socket.call(Command::AttestationsAdd { jws }).await?;
            println!("added attestation from {}", v["iss"].as_str().unwrap_or_default());
        }
        Cmd::Hosts { action: None } => listing::host_changes(socket.view(Command::HostChanges).await?),
        Cmd::Hosts { action: Some(HostsCmd::Accept { host_id, domain }) } => {
            accept_host(&socket, host_id, domain).await?
        }
        Cmd::Principal => {
            let v = socket.call(Command::Principal).await?;
            println!("{}", v["principal"].as_str().context("no principal")?);
            println!("{}", v["jwk"]);
        }
    }
    Ok(())
}

/// The running service's control socket, in its runtime directory.
struct Socket(PathBuf);

impl Socket {
    /// One command's answer, or its refusal as the error.
    async fn call(&self, c: Command) -> Result<Value> {
        match control::call(&self.0, &c).await? {
            Ok(v) => Ok(v),
            Err(e) => bail!("{}", e["message"].as_str().unwrap_or("refused")),
        }
    }

    /// One command's answer as the view it is (`keyapp::views`), the same
    /// type the window receives.
    async fn view<T: serde::de::DeserializeOwned>(&self, c: Command) -> Result<T> {
        serde_json::from_value(self.call(c).await?)
            .context("the key app answered in a shape this program does not know; are both the same version?")
    }
}

/// Prints the consent text, asks, and approves on an explicit yes.
async fn approve(socket: &Socket, id: String) -> Result<()> {
    let shown: Prompt = socket.view(Command::Show { id: id.clone() }).await?;
    println!("{}", shown.consent_text);
    if !asked_yes("Approve?")? {
        println!("not approved");
        return Ok(());
    }
    // The OS confirms it was the person (polkit): in a terminal, its prompt
    // is asked here, while the service waits for it.
    let tty_agent = tty_agent::start().await;
    let done = socket.call(Command::Approve { id }).await;
    tty_agent.stop().await;
    let done = done?;
    println!("approved");
    if let Some(result) = done.get("result").filter(|r| !r.is_null()) {
        println!("{}", serde_json::to_string_pretty(result)?);
    }
    Ok(())
}

/// Says a host's move in words, asks, and accepts it on an explicit yes.
async fn accept_host(socket: &Socket, host_id: String, domain: String) -> Result<()> {
    let changes: Vec<HostChangeView> = socket.view(Command::HostChanges).await?;
    let Some(change) = changes.iter().find(|c| c.change.host_id == host_id && c.change.domain == domain) else {
        bail!("{host_id} was not met at {domain}; `schcp-keyapp hosts` lists what was");
    };
    println!("{}", change.words);
    if asked_yes("Accept?")? {
        socket.call(Command::AcceptHostDomain { host_id, domain }).await?;
        println!("accepted");
    } else {
        println!("not accepted");
    }
    Ok(())
}

/// Asks `question` on the terminal; only an explicit yes (`is_yes`) is one.
fn asked_yes(question: &str) -> Result<bool> {
    print!("{question} [y/N] ");
    std::io::stdout().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(is_yes(&answer))
}

/// The person's yes is explicit: only `y` or `yes` approves; anything else, including nothing, does not.
fn is_yes(answer: &str) -> bool {
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

#[cfg(test)]
mod tests {
    use super::is_yes;

    #[test]
    fn only_y_or_yes_approves() {
        for yes in ["y", "Y", "yes", "YES", " yes\n"] {
            assert!(is_yes(yes), "{yes:?}");
        }
        for no in ["", "\n", "n", "no", "yep", "ye", "sure", "y es", "yes please"] {
            assert!(!is_yes(no), "{no:?}");
        }
    }
}
