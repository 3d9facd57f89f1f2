//! Starting the whole service: what `schcp-keyapp serve` and the desktop shell
//! both run. Binds the agent API (loopback), the status API and the control
//! socket, writes `agent-api.json`, and expires unanswered requests.

use crate::config::Config;
use crate::control;
use crate::discovery::DiscoveryClient;
use crate::keystore::{self, PassphraseSource};
use crate::service::{system_clock, Service};
use crate::store::Store;
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::sync::Arc;

/// `data_dir` from the config, else the OS data dir (`$XDG_DATA_HOME/schcp-keyapp`,
/// `~/.local/share/schcp-keyapp`).
pub fn data_dir(config: &Config) -> Result<PathBuf> {
    if let Some(d) = &config.data_dir {
        return Ok(d.clone());
    }
    if let Some(x) = std::env::var_os("XDG_DATA_HOME").filter(|x| !x.is_empty()) {
        return Ok(PathBuf::from(x).join("schcp-keyapp"));
    }
    let home = std::env::var_os("HOME").context("neither data_dir, XDG_DATA_HOME nor HOME is set")?;
    Ok(PathBuf::from(home).join(".local/share/schcp-keyapp"))
}

/// The running service's handles, for tests and the shell.
pub struct Running {
    pub service: Service,
    pub agent_addr: std::net::SocketAddr,
    pub status_addr: std::net::SocketAddr,
    pub runtime_dir: PathBuf,
}

/// Builds the service and starts every listener; returns once they are bound.
pub async fn start(config: Config, passphrase: PassphraseSource) -> Result<Running> {
    let data_dir = data_dir(&config)?;
    std::fs::create_dir_all(&data_dir).with_context(|| format!("creating {}", data_dir.display()))?;
    // One clear sentence when no keychain is reachable, and no start.
    let key = keystore::open(config.keystore.backend, &data_dir, passphrase).await?;
    let store = Store::open(&data_dir.join("keyapp.db")).await?;
    let discovery = DiscoveryClient::new(&config.discovery)?;
    let candidates = schcp_consent::os_locale_candidates();
    let language = schcp_consent::choose_language(
        config.locale.as_deref(),
        &candidates.iter().map(|c| c.as_deref()).collect::<Vec<_>>(),
    );
    let es256: crate::service::PrincipalSigner = Arc::new(key.es256());
    let service =
        Service::new(store.clone(), Arc::new(key), Some(es256), config.clone(), discovery, language, system_clock())?;

    let agent_listener = tokio::net::TcpListener::bind(config.agent_api.listen)
        .await
        .with_context(|| format!("binding the agent API on {}", config.agent_api.listen))?;
    let agent_addr = agent_listener.local_addr()?;
    let status_listener = tokio::net::TcpListener::bind(config.status_api.listen)
        .await
        .with_context(|| format!("binding the status API on {}", config.status_api.listen))?;
    let status_addr = status_listener.local_addr()?;
    let runtime_dir = control::runtime_dir(&config, &data_dir);
    let control_listener = control::bind(&runtime_dir)?;
    let owner = control::owner_uid(&data_dir)?;

    // docs/agent-api.md §1: local agents find the API through this file.
    let info = serde_json::json!({ "url": format!("http://{agent_addr}"), "schcp": schcp::VERSION });
    std::fs::write(runtime_dir.join("agent-api.json"), info.to_string())?;

    let app = crate::agent_api::routes::router(service.clone(), agent_addr.port());
    tokio::spawn(async move {
        let _ = axum::serve(agent_listener, app.into_make_service_with_connect_info::<std::net::SocketAddr>()).await;
    });
    let status_options = crate::status_api::StatusOptions {
        trusted_proxies: config.status_api.trusted_proxies.clone(),
        ..Default::default()
    };
    let status_state = crate::status_api::StatusState::with_options(store.clone(), status_options);
    tokio::spawn(async move {
        let _ = crate::status_api::serve(status_listener, status_state).await;
    });
    tokio::spawn(control::serve(control_listener, service.clone(), owner));
    let sweeper = service.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(std::time::Duration::from_secs(5)).await;
            let _ = sweeper.expire_requests(sweeper.now()).await;
        }
    });
    Ok(Running { service, agent_addr, status_addr, runtime_dir })
}

/// Runs until Ctrl-C or SIGTERM.
pub async fn serve(config: Config) -> Result<()> {
    let passphrase = match config.keystore.backend {
        crate::config::KeystoreBackend::File if std::env::var_os(keystore::PASSPHRASE_ENV).is_none() => {
            PassphraseSource::Prompt
        }
        _ => PassphraseSource::default(),
    };
    let running = start(config, passphrase).await?;
    eprintln!(
        "schcp-keyapp: principal {}\n  agent API  http://{}\n  status API http://{}\n  control    {}",
        running.service.principal(),
        running.agent_addr,
        running.status_addr,
        control::socket_path(&running.runtime_dir).display()
    );
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    let _ = std::fs::remove_file(control::socket_path(&running.runtime_dir));
    Ok(())
}
