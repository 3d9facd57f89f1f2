//! The command line `schcp-keyapp` takes: what each command is, and nothing
//! of how it runs (`main.rs` dispatches, `error.rs` words what fails).

use clap::{Parser, Subcommand};
use keyapp::record_query::{CredentialState, HistoryAnswer};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "schcp-keyapp", about = "The SchCP key app: your key, your yes.", version)]
pub(crate) struct Cli {
    /// Configuration file (TOML; every key optional).
    #[arg(long, global = true)]
    pub(crate) config: Option<PathBuf>,
    #[command(subcommand)]
    pub(crate) command: Cmd,
}

#[derive(Subcommand)]
pub(crate) enum Cmd {
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
    /// List the credentials you signed, newest first; the options narrow the list.
    Mandates {
        #[command(flatten)]
        find: Find,
        /// Only those in this state.
        #[arg(long, value_parser = parse_state)]
        state: Option<CredentialState>,
    },
    /// Revoke a mandate now.
    Revoke { jti: String },
    /// Unpair an assistant (its key fingerprint); asks whether to revoke what it holds too.
    Unpair {
        agent: String,
        /// Revoke every credential it holds, without asking.
        #[arg(long)]
        revoke_credentials: bool,
    },
    /// What was approved, declined, issued and revoked, newest first; the options narrow the list.
    History {
        #[command(flatten)]
        find: Find,
        /// Only what became of it: approved, declined, expired, withdrawn or revoked.
        #[arg(long, value_parser = parse_answer)]
        answer: Option<HistoryAnswer>,
    },
    /// Write your records (history, credentials, bookings, contacts) to FILE,
    /// as JSON or as a printable page. No key is in it.
    Export {
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
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
    /// Choose where hosts check your credentials: a hosted status service,
    /// your own public address, or not now (you are asked to confirm a change).
    Setup(super::setup::SetupArgs),
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
    /// Revoke everything your lost computer issued: every credential in your
    /// records and, at your status service, every one registered under your
    /// key until now (you are asked to confirm).
    RevokeEverything {
        /// Without the key app's records: the recovery phrase, read from
        /// standard input (one line), signs the one update to the status service.
        #[arg(long)]
        phrase: bool,
        /// With --phrase: the kit is the key seed of a key made before recovery phrases.
        #[arg(long, requires = "phrase")]
        key_seed: bool,
        /// With --phrase: the status service's address (else the configuration's).
        #[arg(long, requires = "phrase")]
        hosted: Option<String>,
    },
}

/// What `history` and `mandates` narrow their list to (`keyapp::record_query`).
#[derive(clap::Args)]
pub(crate) struct Find {
    /// Words to find: what it is about, an assistant's or a contact's name, a host's domain.
    #[arg(long)]
    pub(crate) text: Option<String>,
    /// A host, by its id or its domain.
    #[arg(long)]
    pub(crate) host: Option<String>,
    /// An assistant, by its name or its code.
    #[arg(long)]
    pub(crate) agent: Option<String>,
    /// From this day on (YYYY-MM-DD, in your time zone).
    #[arg(long)]
    pub(crate) since: Option<String>,
    /// Up to and including this day (YYYY-MM-DD, in your time zone).
    #[arg(long)]
    pub(crate) until: Option<String>,
}

/// The document `export` writes.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum Format {
    /// The records as JSON (schemas/records-export.schema.json).
    Json,
    /// A page to open in a browser and print.
    Html,
}

fn parse_answer(s: &str) -> Result<HistoryAnswer, String> {
    s.parse().map_err(|_| {
        let all: Vec<&str> = HistoryAnswer::ALL.iter().map(|a| a.as_str()).collect();
        format!("one of {}", all.join(", "))
    })
}

fn parse_state(s: &str) -> Result<CredentialState, String> {
    s.parse().map_err(|_| {
        let all: Vec<&str> = CredentialState::ALL.iter().map(|a| a.as_str()).collect();
        format!("one of {}", all.join(", "))
    })
}

#[derive(Subcommand)]
pub(crate) enum HostsCmd {
    /// Accept that HOST_ID now lives at DOMAIN.
    Accept { host_id: String, domain: String },
}

#[derive(Subcommand)]
pub(crate) enum ContactsCmd {
    Add {
        principal: String,
        name: String,
        #[arg(long)]
        relationship: Option<String>,
    },
}

#[derive(Subcommand)]
pub(crate) enum AttestationsCmd {
    Add { jws: String },
}
