//! An example agent: pairs with the key app, asks for a closed mandate over one
//! offer, waits for the person's yes, and prints the mandate.
//!
//! cargo run -p schcp-agent --example agent -- \
//!     --keyapp http://127.0.0.1:7411 --offer-file offer.jws \
//!     --discovery https://maplestreetauto.example/.well-known/scheduling.json \
//!     [--config /tmp/keyapp.toml] [--profile NAME | --key-file PATH]
//!
//! With `--receipt-file receipt.jws` instead of `--offer-file`, it hands the
//! key app the host's signed receipt of a booking it made (§5.3) and asks for
//! a management mandate over that booking (§3.3, docs/agent-api.md
//! `management_mandate`): the key app verifies the receipt, keeps it (the
//! booking then shows under My bookings) and, unless the receipt cites a root
//! mandate that already allows it, asks the person. It prints the mandate.
//!
//! `--config` is the key app's config, only to print the exact `schcp-keyapp`
//! commands the person answers with. The agent's own key is kept per profile
//! (default `example`, in `$XDG_CONFIG_HOME/schcp-example-agent/`): in the OS
//! keychain, or in a 0600 `agent.key` in the profile where no keychain
//! answers; `--key-file` keeps it in that file instead, and the principal key
//! pinned at pairing beside it.

use agent::{AgentClient, AgentProfile, ClosedMandateRequest, Credential, KeyBackend, NewRequest, PairingStatus};
use agent::{ManagementMandateRequest, RequestStatus, MAX_WAIT};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;

enum Ask {
    Offer(PathBuf),
    Receipt(PathBuf),
}

struct Args {
    keyapp: String,
    /// What is asked for: a closed mandate over an offer, or a management
    /// mandate over the booking a receipt tells of.
    ask: Ask,
    discovery: String,
    profile: String,
    key_file: Option<PathBuf>,
    config: Option<PathBuf>,
}

fn args() -> Result<Args> {
    let mut keyapp = None;
    let mut offer_file = None;
    let mut receipt_file = None;
    let mut discovery = None;
    let mut profile = "example".to_owned();
    let mut key_file = None;
    let mut config = None;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut v = || it.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--keyapp" => keyapp = Some(v()?),
            "--offer-file" => offer_file = Some(PathBuf::from(v()?)),
            "--receipt-file" => receipt_file = Some(PathBuf::from(v()?)),
            "--discovery" => discovery = Some(v()?),
            "--profile" => profile = v()?,
            "--key-file" => key_file = Some(PathBuf::from(v()?)),
            "--config" => config = Some(PathBuf::from(v()?)),
            other => bail!("unknown argument {other}"),
        }
    }
    let ask = match (offer_file, receipt_file) {
        (Some(o), None) => Ask::Offer(o),
        (None, Some(r)) => Ask::Receipt(r),
        (Some(_), Some(_)) => bail!("give --offer-file or --receipt-file, not both"),
        (None, None) => bail!("--offer-file (a closed mandate) or --receipt-file (a management mandate) is required"),
    };
    Ok(Args {
        keyapp: keyapp.context("--keyapp URL is required (the url in agent-api.json)")?,
        ask,
        discovery: discovery.context("--discovery URL is required")?,
        profile,
        key_file,
        config,
    })
}

#[tokio::main]
async fn main() -> Result<()> {
    let a = args()?;
    let profile = AgentProfile::named("schcp-example-agent", &a.profile)?;
    // A key file keeps its pinned principal beside it: the pin belongs to the
    // identity that was paired, not to whichever profile named it.
    let (profile, backend) = match &a.key_file {
        Some(f) => {
            let dir = f.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
            (AgentProfile::at(dir).with_key_file(f), KeyBackend::File)
        }
        None => (profile, KeyBackend::Auto),
    };
    let (key, _) = profile.key(backend).await?;
    // The key app proves itself before anything is sent, against the principal
    // key this profile pinned when it was paired (docs/agent-api.md §7).
    let client = AgentClient::new(&a.keyapp, key).pinned_in(profile.clone());
    // The exact command the person answers with, with the config it needs.
    let keyapp_cmd = match &a.config {
        Some(c) => format!("schcp-keyapp --config {}", c.display()),
        None => "schcp-keyapp".to_owned(),
    };
    let pairing = client.pair("Example Agent").await?;
    if pairing.status != PairingStatus::Approved {
        println!(
            "Pairing {}: compare the code {} with the key app's, then approve it:",
            pairing.pairing_id,
            pairing.fingerprint.as_deref().unwrap_or("?")
        );
        println!("  {keyapp_cmd} approve {}", pairing.pairing_id);
        loop {
            match client.pairing(&pairing.pairing_id, MAX_WAIT).await?.status {
                PairingStatus::Approved => break,
                PairingStatus::Pending => continue,
                other => bail!("pairing ended: {other:?}"),
            }
        }
    }
    // Paired: the principal key is pinned now, if it was not yet.
    let proven = client.prove().await?;
    println!("The key app proved it holds the key of {}.", proven.principal);
    // The idempotency key is the hash of what is handed in: running it again
    // with the same file finds the same request.
    let (file, ask) = match &a.ask {
        Ask::Offer(f) => {
            let offer = std::fs::read_to_string(f)?.trim().to_owned();
            (offer.clone(), NewRequest::ClosedMandate(ClosedMandateRequest { offer, discovery: a.discovery }))
        }
        Ask::Receipt(f) => {
            let receipt = std::fs::read_to_string(f)?.trim().to_owned();
            (
                receipt.clone(),
                NewRequest::ManagementMandate(ManagementMandateRequest { receipt, discovery: a.discovery }),
            )
        }
    };
    let req = client.request(&schcp::hash::sha256_b64(&file), &ask).await?;
    println!("The key app shows the person:\n{}\n", req.consent_text);
    println!("Approve it with:\n  {keyapp_cmd} approve {}", req.request_id);
    loop {
        let r = client.request_status(&req.request_id, MAX_WAIT).await?;
        match r.status {
            RequestStatus::Approved => {
                let mandate = match r.credential() {
                    Some(Ok(Credential::ClosedMandate(m))) => m.mandate,
                    Some(Ok(Credential::ManagementMandate(m))) => m.mandate,
                    _ => bail!("the approved request has no mandate: {:?}", r.result),
                };
                println!("{mandate}");
                return Ok(());
            }
            RequestStatus::Pending => continue,
            // The wire word (declined, expired, withdrawn): what a person or a
            // script reading this output looks for.
            other => bail!("request {}: nothing was signed", other.as_str()),
        }
    }
}
