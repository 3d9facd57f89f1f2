//! An example agent: pairs with the key app, asks for a closed mandate over one
//! offer, waits for the person's yes, and prints the mandate.
//!
//! cargo run -p schcp-agent --example agent -- \
//!     --keyapp http://127.0.0.1:7411 --offer-file offer.jws \
//!     --discovery https://maplestreetauto.example/.well-known/scheduling.json \
//!     [--config /tmp/keyapp.toml] [--key-file PATH]
//!
//! `--config` is the key app's config, only to print the exact `schcp-keyapp`
//! commands the person answers with. The agent's own key is kept in
//! `--key-file` (default: `$XDG_CONFIG_HOME/schcp-example-agent/agent.key`),
//! created 0600 in a 0700 folder.

use agent::AgentClient;
use anyhow::{bail, Context, Result};
use ed25519_dalek::SigningKey;
use reqwest::Method;
use serde_json::json;
use std::path::PathBuf;

struct Args {
    keyapp: String,
    offer_file: PathBuf,
    discovery: String,
    key_file: PathBuf,
    config: Option<PathBuf>,
}

/// Where the example agent keeps its key unless told: never the working
/// directory, where a key is one `git add .` from being published.
fn default_key_file() -> Result<PathBuf> {
    let base = match std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("HOME").context("HOME is not set; pass --key-file")?).join(".config"),
    };
    Ok(base.join("schcp-example-agent").join("agent.key"))
}

fn args() -> Result<Args> {
    let mut keyapp = None;
    let mut offer_file = None;
    let mut discovery = None;
    let mut key_file = None;
    let mut config = None;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut v = || it.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--keyapp" => keyapp = Some(v()?),
            "--offer-file" => offer_file = Some(PathBuf::from(v()?)),
            "--discovery" => discovery = Some(v()?),
            "--key-file" => key_file = Some(PathBuf::from(v()?)),
            "--config" => config = Some(PathBuf::from(v()?)),
            other => bail!("unknown argument {other}"),
        }
    }
    Ok(Args {
        keyapp: keyapp.context("--keyapp URL is required (the url in agent-api.json)")?,
        offer_file: offer_file.context("--offer-file is required")?,
        discovery: discovery.context("--discovery URL is required")?,
        key_file: match key_file {
            Some(k) => k,
            None => default_key_file()?,
        },
        config,
    })
}

/// The agent's own key, kept in a file of its own (never the person's key).
fn agent_key(path: &PathBuf) -> Result<SigningKey> {
    if let Ok(bytes) = std::fs::read(path) {
        let seed: [u8; 32] = bytes.try_into().ok().context("agent key file is not 32 bytes")?;
        return Ok(SigningKey::from_bytes(&seed));
    }
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    }
    let key = SigningKey::generate(&mut rand_core::OsRng);
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    file.write_all(&key.to_bytes())?;
    Ok(key)
}

#[tokio::main]
async fn main() -> Result<()> {
    let a = args()?;
    let client = AgentClient::new(&a.keyapp, agent_key(&a.key_file)?);
    // The exact command the person answers with, with the config it needs.
    let keyapp_cmd = match &a.config {
        Some(c) => format!("schcp-keyapp --config {}", c.display()),
        None => "schcp-keyapp".to_owned(),
    };
    let pairing = client.call(Method::POST, "/v1/pairings", Some(&json!({ "agent_name": "Example Agent" }))).await?;
    let pairing_id = pairing["pairing_id"].as_str().context("no pairing_id")?.to_owned();
    if pairing["status"] != "approved" {
        println!(
            "Pairing {pairing_id}: compare the code {} with the key app's, then approve it:",
            pairing["fingerprint"].as_str().unwrap_or("?")
        );
        println!("  {keyapp_cmd} approve {pairing_id}");
        loop {
            let p = client.call(Method::GET, &format!("/v1/pairings/{pairing_id}?wait=60"), None).await?;
            match p["status"].as_str() {
                Some("approved") => break,
                Some("pending") => continue,
                other => bail!("pairing ended: {other:?}"),
            }
        }
    }
    let offer = std::fs::read_to_string(&a.offer_file)?.trim().to_owned();
    let body = json!({ "kind": "closed_mandate", "idempotency_key": schcp::hash::sha256_b64(&offer),
                       "offer": offer, "discovery": a.discovery });
    let req = client.call(Method::POST, "/v1/requests", Some(&body)).await?;
    let id = req["request_id"].as_str().context("no request_id")?.to_owned();
    println!("The key app shows the person:\n{}\n", req["consent_text"].as_str().unwrap_or_default());
    println!("Approve it with:\n  {keyapp_cmd} approve {id}");
    loop {
        let r = client.call(Method::GET, &format!("/v1/requests/{id}?wait=60"), None).await?;
        match r["status"].as_str() {
            Some("approved") => {
                println!("{}", r["result"]["mandate"].as_str().unwrap_or_default());
                return Ok(());
            }
            Some("pending") => continue,
            other => bail!("request ended: {other:?}"),
        }
    }
}
