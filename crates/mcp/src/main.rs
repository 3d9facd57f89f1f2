#![forbid(unsafe_code)]
//! `schcp-mcp`: the MCP server over stdio. Standard output carries the
//! protocol only; everything for people goes to standard error.

use agent::{AgentProfile, KeyBackend};
use anyhow::{Context, Result};
use clap::{Parser, ValueEnum};
use mcp::{KeyAppServer, KeyAppSource, ServerConfig};
use rmcp::ServiceExt;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum)]
enum KeyStore {
    /// The OS keychain, or a 0600 file in the profile where no keychain answers.
    Auto,
    /// The OS keychain only.
    Keychain,
    /// A 0600 file in the profile directory.
    File,
}

/// An MCP server (stdio) that lets an AI assistant ask the person's SchCP key
/// app for mandates. Every credential still needs the person's yes in the key app.
#[derive(Parser)]
#[command(name = "schcp-mcp", version)]
struct Args {
    /// The key app's agent API origin, e.g. http://127.0.0.1:7411 (default: read agent-api.json).
    #[arg(long, value_name = "URL", conflicts_with = "agent_api")]
    keyapp: Option<String>,
    /// The agent-api.json the key app writes (default: $XDG_RUNTIME_DIR/schcp-keyapp/agent-api.json).
    #[arg(long, value_name = "FILE")]
    agent_api: Option<PathBuf>,
    /// The agent profile: its own key and pairing, in $XDG_CONFIG_HOME/schcp-mcp/NAME.
    #[arg(long, default_value = "default", conflicts_with = "profile_dir")]
    profile: String,
    /// The agent profile's directory, instead of a named profile.
    #[arg(long, value_name = "DIR")]
    profile_dir: Option<PathBuf>,
    /// Where the agent's key is kept.
    #[arg(long, value_enum, default_value = "auto")]
    key_store: KeyStore,
    /// The name the person sees when the assistant pairs, unless it names itself.
    #[arg(long, default_value = "AI assistant (MCP)")]
    agent_name: String,
    /// A host trust file (TOML: extra_root_certs, resolve), as the example host writes with --trust-out; for a
    /// business not reachable on the public web with public certificates. Repeatable.
    #[arg(long, value_name = "FILE")]
    host_trust: Vec<PathBuf>,
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let keyapp = match (args.keyapp, args.agent_api) {
        (Some(url), _) => {
            agent::check_loopback_url(&url).map_err(anyhow::Error::msg).context("--keyapp")?;
            KeyAppSource::Url(url)
        }
        (None, Some(file)) => KeyAppSource::AgentApiFile(file),
        (None, None) => KeyAppSource::AgentApiFile(agent::default_agent_api_file()?),
    };
    let profile = match args.profile_dir {
        Some(dir) => AgentProfile::at(dir),
        None => AgentProfile::named("schcp-mcp", &args.profile)?,
    };
    let backend = match args.key_store {
        KeyStore::Auto => KeyBackend::Auto,
        KeyStore::Keychain => KeyBackend::Keychain,
        KeyStore::File => KeyBackend::File,
    };
    let (key, _) = profile.key(backend).await.context("the agent's key")?;
    let mut trust = agent::host::HostTrust::default();
    for file in &args.host_trust {
        trust.merge(agent::host::HostTrust::from_file(file).context("--host-trust")?);
    }
    let server = KeyAppServer::new(ServerConfig { keyapp, key, profile, agent_name: args.agent_name, trust });
    let running = server.serve(rmcp::transport::stdio()).await.context("MCP handshake on stdio")?;
    running.waiting().await?;
    Ok(())
}
