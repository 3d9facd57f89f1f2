//! `schcp-keyapp`: the headless service and the person's terminal surface
//! (README "Try it on one machine"). `serve` runs the service; every other command talks to the
//! running service over the owner-only control socket. This file parses and
//! dispatches; `cli.rs` is the command line, `error.rs` the words of what fails.

use clap::Parser;
use cli::{AttestationsCmd, Cli, Cmd, ContactsCmd, HostsCmd};
use error::CliError;
use keyapp::app::ServeError;
use keyapp::config::Config;
use keyapp::control::{self, Command};
use keyapp::keystore::PassphraseSource;
use keyapp::views::Prompt;
use socket::Socket;
use std::process::ExitCode;

mod ask;
mod cli;
mod error;
mod listing;
mod records;
mod recovery;
mod setup;
mod socket;
mod tty_agent;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let config_path = cli.config.clone();
    // `serve` holds the key: before anything else, its memory is closed to the
    // person's other programs and its passphrase leaves the environment.
    // The recovery commands open the key in this process, as `serve` does;
    // the switch from the phrase holds the key the words give.
    let holds_a_key =
        unlocks_the_key(&cli.command) || matches!(cli.command, Cmd::RevokeEverything { phrase: true, .. });
    let passphrase = match holds_a_key {
        true => match keyapp::app::secure_process() {
            Ok(passphrase) => passphrase,
            Err(e) => return failed(config_path.as_deref(), &CliError::NotSecured(Box::new(e))),
        },
        false => None,
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
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => failed(config_path.as_deref(), &e),
    }
}

/// Prints what failed and what to do, in the configured language.
fn failed(config: Option<&std::path::Path>, e: &CliError) -> ExitCode {
    eprintln!("{}", e.worded(error::language(config)));
    ExitCode::FAILURE
}

/// Whether `cmd` opens the profile's key, asking the OS to unlock it (the
/// unlock prompt names exactly these: packaging/polkit/org.schcp.keyapp.policy).
fn unlocks_the_key(cmd: &Cmd) -> bool {
    matches!(cmd, Cmd::Serve | Cmd::RecoveryPhrase | Cmd::Backup { .. } | Cmd::Restore { .. })
}

fn start(cli: Cli, passphrase: Option<PassphraseSource>) -> Result<(), CliError> {
    let config = match &cli.config {
        Some(path) => Config::load(path).map_err(CliError::Config)?,
        None => Config::default(),
    };
    let runtime = tokio::runtime::Runtime::new()?;
    let result = runtime.block_on(run(cli.command, config, passphrase));
    // `serve` listens for Ctrl-C from before the start (app::serve), so a
    // Ctrl-C at the passphrase prompt ends the start while the prompt still
    // waits on the terminal, off the runtime: not waited for.
    runtime.shutdown_background();
    result
}

// Long by design: the dispatch, one arm per subcommand.
async fn run(cmd: Cmd, config: Config, passphrase: Option<PassphraseSource>) -> Result<(), CliError> {
    let data_dir = keyapp::app::data_dir(&config)?;
    let socket = Socket::new(control::runtime_dir(&config, &data_dir));
    match cmd {
        Cmd::Serve => keyapp::app::serve(config, passphrase).await.map_err(|e| match e {
            ServeError::Start(e) => CliError::from(e),
            other => CliError::Start(other.to_string()),
        })?,
        Cmd::Pending => listing::pending(socket.view(Command::Pending).await?),
        Cmd::Show { id } => println!("{}", socket.view::<Prompt>(Command::Show { id }).await?.consent_text),
        Cmd::Approve { id } => ask::approve(&socket, id).await?,
        Cmd::Decline { id } => {
            socket.call(Command::Decline { id }).await?;
            println!("declined");
        }
        Cmd::Mandates { find, state } => records::credentials(&socket, find, state).await?,
        Cmd::Revoke { jti } => {
            socket.call(Command::Revoke { jti: jti.clone() }).await?;
            println!("revoked {jti}");
        }
        Cmd::Unpair { agent, revoke_credentials } => ask::unpair(&socket, agent, revoke_credentials).await?,
        Cmd::History { find, answer } => records::history(&socket, find, answer).await?,
        Cmd::Export { file, format } => records::export(&socket, file, format, keyapp::app::language(&config)).await?,
        Cmd::Contacts { action: None } => listing::contacts(socket.view(Command::Contacts).await?),
        Cmd::Contacts { action: Some(ContactsCmd::Add { principal, name, relationship }) } => {
            // The OS confirms the person names a contact (polkit): in a
            // terminal, its prompt is asked here, as an approval's is.
            let tty_agent = tty_agent::start().await;
            let done = socket.call(Command::ContactsAdd { principal, name, relationship }).await;
            tty_agent.stop().await;
            done?;
            println!("added");
        }
        Cmd::Attestations { action: AttestationsCmd::Add { jws } } => {
            // The OS confirms the person keeps it, in this terminal as a contact's.
            let tty_agent = tty_agent::start().await;
            let done = socket.call(Command::AttestationsAdd { jws }).await;
            tty_agent.stop().await;
            let v = done?;
            println!("added attestation from {}", v["iss"].as_str().unwrap_or_default());
        }
        Cmd::Hosts { action: None } => listing::host_changes(socket.view(Command::HostChanges).await?),
        Cmd::Hosts { action: Some(HostsCmd::Accept { host_id, domain }) } => {
            ask::accept_host(&socket, host_id, domain).await?
        }
        Cmd::RecoveryPhrase => recovery::recovery_phrase(&config, passphrase).await.map_err(CliError::recovery)?,
        Cmd::Backup { file } => recovery::backup(&config, passphrase, file).await.map_err(CliError::recovery)?,
        Cmd::Restore { backup, key_seed } => {
            recovery::restore(&config, passphrase, backup, key_seed).await.map_err(CliError::recovery)?
        }
        Cmd::RevokeEverything { phrase: false, .. } => {
            let done: keyapp::service::RevokedEverything = socket.view(Command::RevokeEverything).await?;
            for line in done.words {
                println!("{line}");
            }
        }
        Cmd::RevokeEverything { phrase: true, key_seed, hosted } => {
            recovery::revoke_with_phrase(&config, key_seed, hosted).await.map_err(CliError::recovery)?
        }
        Cmd::Setup(args) => setup::run(socket.path(), keyapp::app::language(&config), args)
            .await
            .map_err(|e| CliError::Setup(e.to_string()))?,
        Cmd::Principal => {
            let v = socket.call(Command::Principal).await?;
            println!("{}", v["principal"].as_str().ok_or(CliError::Version)?);
            println!("{}", v["jwk"]);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    /// The unlock prompt's sentence, in English.
    fn unlock_message() -> &'static str {
        let policy = include_str!("../../../../../packaging/polkit/org.schcp.keyapp.policy");
        let action = &policy[policy.find("<action id=\"org.schcp.keyapp.unlock\">").expect("the unlock action")..];
        let message = &action[action.find("<message>").expect("its message") + "<message>".len()..];
        &message[..message.find("</message>").expect("closed")]
    }

    /// A yes to the unlock prompt releases the key to whoever asked, so its
    /// sentence names exactly the moments it comes: every terminal command
    /// that unlocks the key, and no other (a prompt seen while the person runs
    /// `approve` must read as not theirs).
    #[test]
    fn the_unlock_prompt_names_every_command_that_unlocks_the_key_and_no_other() {
        let message = unlock_message();
        let mut named = Vec::new();
        for sub in Cli::command().get_subcommands() {
            let name = sub.get_name();
            let mut argv = vec!["schcp-keyapp".to_owned(), name.to_owned()];
            // Each command's required positional arguments, filled.
            argv.extend(sub.get_positionals().filter(|a| a.is_required_set()).map(|a| format!("{}-value", a.get_id())));
            let Ok(cli) = Cli::try_parse_from(&argv) else { continue };
            let said = message.split([' ', ',', '.']).any(|word| word == name);
            match cli.command {
                Cmd::Serve => assert!(unlocks_the_key(&cli.command) && message.contains("starting")),
                ref cmd => assert_eq!(said, unlocks_the_key(cmd), "{name}: {message}"),
            }
            if said {
                named.push(name.to_owned());
            }
        }
        assert_eq!(named, ["recovery-phrase", "backup", "restore"], "{message}");
    }
}
