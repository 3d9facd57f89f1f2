//! Starting the whole service: what `schcp-keyapp serve` and the desktop shell
//! both run. Takes the data directory's lock (one key app per data directory),
//! binds the agent API (loopback), the status API and the control socket,
//! writes `agent-api.json`, expires unanswered requests, and in hosted mode
//! publishes to the status service (`service::publication`). Each listener and
//! background task is watched: one that ends stops the service with its reason
//! (`Running::stopped`), instead of leaving a key app that silently answers
//! nothing.

use crate::agent_api::announce::{self, Announced, Previous};
use crate::config::{Config, KeystoreBackend};
use crate::control::{self, ControlError};
use crate::discovery::{DiscoveryClient, DiscoveryError};
use crate::keystore::{self, KeystoreError, PassphraseSource};
use crate::private_files;
use crate::service::{system_clock, Service, ServiceError};
use crate::store::{Store, StoreError};
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::net::SocketAddr;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::task::JoinSet;

/// The file in the data directory whose lock says a key app runs on it; it
/// also says which process and where its agent API listens.
pub const LOCK_FILE: &str = "keyapp.lock";

/// One of the service's two TCP listeners.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listener {
    /// The loopback agent API (docs/agent-api.md).
    AgentApi,
    /// The status API hosts call (§3.3).
    StatusApi,
}

impl std::fmt::Display for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Listener::AgentApi => "agent API",
            Listener::StatusApi => "status API",
        })
    }
}

/// The key app that already runs on a data directory, as its lock file says.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Instance {
    /// Its process id.
    pub pid: u32,
    /// Its agent API, once bound.
    pub agent_api: Option<String>,
}

impl std::fmt::Display for Instance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "process {}", self.pid)?;
        if let Some(url) = &self.agent_api {
            write!(f, ", agent API {url}")?;
        }
        Ok(())
    }
}

/// Why the service did not start. Each message is one sentence with its
/// remedy, so the terminal and the desktop can show it as it is.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// No `data_dir`, `XDG_DATA_HOME` or `HOME` to put the records in.
    #[error("there is no data directory: set data_dir in the configuration, or the XDG_DATA_HOME or HOME variable")]
    NoDataDir,
    /// The data directory or its lock file could not be made.
    #[error("the data directory {} cannot be used ({source}); check its owner and permissions, or set another data_dir", path.display())]
    DataDir {
        /// The path tried.
        path: PathBuf,
        /// What the file system said.
        #[source]
        source: std::io::Error,
    },
    /// Another key app holds the data directory's lock.
    #[error("the key app is already running for {} ({}); use that one, or stop it first", data_dir.display(), running.as_ref().map_or_else(|| "its details are not known yet".to_owned(), |i| i.to_string()))]
    AlreadyRunning {
        /// The data directory both would use.
        data_dir: PathBuf,
        /// What the running one wrote in the lock file, when it could be read.
        running: Option<Instance>,
    },
    /// The principal key could not be loaded or created.
    #[error(transparent)]
    Keystore(#[from] KeystoreError),
    /// The records could not be opened or migrated.
    #[error("the records in {} cannot be opened ({source}); if another program holds them, close it and start again", path.display())]
    Store {
        /// The database file.
        path: PathBuf,
        /// Why.
        #[source]
        source: StoreError,
    },
    /// The key opened is not the one the records were made with.
    #[error("the key opened for {} is not the one its records were made with ({recorded}, not {found}), so nothing was started and nothing signed; another program may have put a key in the keychain, or the records were moved: move them back where they were made, or restore your recovery kit into an empty folder and copy the records in", data_dir.display())]
    OtherKey {
        /// The data directory.
        data_dir: PathBuf,
        /// The principal id the records were made under.
        recorded: String,
        /// The opened key's principal id.
        found: String,
    },
    /// The `[discovery]` settings cannot be used (an unreadable root certificate).
    #[error("the [discovery] settings cannot be used ({0}); fix them in the configuration")]
    Discovery(#[source] DiscoveryError),
    /// A listener's address is taken or not allowed.
    #[error("the {listener} cannot listen on {addr} ({source}); another program uses it, or set another listen address under [{}] in the configuration", match listener { Listener::AgentApi => "agent_api", Listener::StatusApi => "status_api" })]
    Bind {
        /// Which listener.
        listener: Listener,
        /// The address configured.
        addr: SocketAddr,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The control socket or the runtime directory could not be made.
    #[error(transparent)]
    Control(#[from] ControlError),
    /// `agent-api.json` could not be written.
    #[error("{} cannot be written ({source}); check the runtime directory's permissions", path.display())]
    RuntimeFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A stale `agent-api.json` names a URL where this key app (the same
    /// principal key) already answers.
    #[error("this key app already answers at {url} (as {} says); use that one, or stop it first", path.display())]
    AlreadyAnswering {
        /// The URL where it answers.
        url: String,
        /// The `agent-api.json` naming it.
        path: PathBuf,
    },
    /// The service could not be built over the key and records.
    #[error("the key app cannot start: {0}")]
    Service(#[source] ServiceError),
}

/// A listener or background task that ended: the service is no longer whole.
#[derive(Debug, thiserror::Error)]
#[error("the {task} stopped: {reason}")]
pub struct TaskEnded {
    /// Which task.
    pub task: &'static str,
    /// Its error, or that it returned or panicked.
    pub reason: String,
}

/// `data_dir` from the config, else the OS data dir (`$XDG_DATA_HOME/schcp-keyapp`,
/// `~/.local/share/schcp-keyapp`).
pub fn data_dir(config: &Config) -> Result<PathBuf, StartError> {
    if let Some(d) = &config.data_dir {
        return Ok(d.clone());
    }
    if let Some(x) = std::env::var_os("XDG_DATA_HOME").filter(|x| !x.is_empty()) {
        return Ok(PathBuf::from(x).join("schcp-keyapp"));
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).ok_or(StartError::NoDataDir)?;
    Ok(PathBuf::from(home).join(".local/share/schcp-keyapp"))
}

/// The consent language: the config's `locale`, else the OS locale's, else English.
pub fn language(config: &Config) -> schcp_consent::Language {
    let candidates = schcp_consent::os_locale_candidates();
    schcp_consent::choose_language(
        config.locale.as_deref(),
        &candidates.iter().map(|c| c.as_deref()).collect::<Vec<_>>(),
    )
}

/// The running service's handles, for tests and the shell.
pub struct Running {
    /// The service every surface calls.
    pub service: Service,
    /// The key's recovery kit and the records backup, for the desktop window
    /// only (recovery::custody); no agent-facing surface holds it.
    pub custody: Arc<crate::recovery::custody::Custody>,
    /// Where the agent API listens.
    pub agent_addr: SocketAddr,
    /// Where the status API listens.
    pub status_addr: SocketAddr,
    /// Where `agent-api.json` and the control socket are.
    pub runtime_dir: PathBuf,
    tasks: JoinSet<(&'static str, Result<(), String>)>,
    /// `agent-api.json`, withdrawn on a clean stop (and when this is dropped).
    announced: Announced,
    /// Held for the service's life: the data directory's lock.
    _lock: File,
}

impl Running {
    /// A clean stop: removes `agent-api.json` (while it names this key app)
    /// and the control socket, so no agent is sent to a port this key app no
    /// longer holds. The listeners end when this is dropped.
    pub fn withdraw(&self) {
        self.announced.withdraw();
        let _ = std::fs::remove_file(control::socket_path(&self.runtime_dir));
    }

    /// Waits until a listener or background task ends, and says which and why.
    /// Never returns while the service is whole.
    pub async fn stopped(&mut self) -> TaskEnded {
        match self.tasks.join_next().await {
            Some(Ok((task, Ok(())))) => TaskEnded { task, reason: "it returned".into() },
            Some(Ok((task, Err(reason)))) => TaskEnded { task, reason },
            Some(Err(e)) => TaskEnded { task: "background task", reason: e.to_string() },
            None => std::future::pending().await,
        }
    }
}

/// Takes the data directory's lock, or says who holds it.
fn lock_data_dir(data_dir: &Path) -> Result<File, StartError> {
    let path = data_dir.join(LOCK_FILE);
    let io = |source| StartError::DataDir { path: path.clone(), source };
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&path)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut text = String::new();
            let running = file.read_to_string(&mut text).ok().and_then(|_| serde_json::from_str(&text).ok());
            Err(StartError::AlreadyRunning { data_dir: data_dir.to_owned(), running })
        }
        Err(std::fs::TryLockError::Error(e)) => Err(io(e)),
    }
}

/// Says in the lock file which process holds it and where it listens.
fn describe_instance(lock: &mut File, instance: &Instance) -> std::io::Result<()> {
    lock.set_len(0)?;
    lock.rewind()?;
    lock.write_all(serde_json::to_string(instance).expect("serializes").as_bytes())?;
    lock.flush()
}

async fn bind(listener: Listener, addr: SocketAddr) -> Result<(tokio::net::TcpListener, SocketAddr), StartError> {
    let bound =
        tokio::net::TcpListener::bind(addr).await.map_err(|source| StartError::Bind { listener, addr, source })?;
    let local = bound.local_addr().map_err(|source| StartError::Bind { listener, addr, source })?;
    Ok((bound, local))
}

/// Builds the service and starts every listener; returns once they are bound.
/// Every approval is confirmed by the platform's user verification (polkit).
pub async fn start(config: Config, passphrase: PassphraseSource) -> Result<Running, StartError> {
    start_verified_by(config, passphrase, crate::user_verification::platform_verifier()).await
}

/// `start` with the user verifier a Rust caller chose (tests, benchmarks);
/// never reachable from the config (user_verification).
pub async fn start_verified_by(
    config: Config,
    passphrase: PassphraseSource,
    verifier: Arc<dyn crate::user_verification::UserVerifier>,
) -> Result<Running, StartError> {
    let (data_dir, mut lock) = open_data_dir(&config)?;
    let (key, config) = open_key(config, &data_dir, passphrase).await?;
    let db = data_dir.join(keystore::RECORDS_FILE_NAME);
    let store = Store::open(&db).await.map_err(|source| StartError::Store { path: db.clone(), source })?;
    // The records name the principal they were made under: a key that is
    // not it signs nothing on top of them (docs/threat-model.md).
    let found = key.principal_id().to_owned();
    let store_error = |source| StartError::Store { path: db.clone(), source };
    // A new principal's first start: the key made in this start, with records
    // that name no principal yet. Empty records alone are no sign of one: the
    // person's programs can delete them, and a start that took them for a first
    // one would ask the OS about the configured status address, at start, under
    // polkit's fixed message (docs/threat-model.md).
    let first_start = key.is_new() && crate::store::principal::recorded(&store).await.map_err(store_error)?.is_none();
    let pinned = crate::store::principal::pin(&store, &found).await;
    if let Some(recorded) = pinned.map_err(|source| StartError::Store { path: db.clone(), source })? {
        return Err(StartError::OtherKey { data_dir, recorded, found });
    }
    let discovery = DiscoveryClient::new(&config.discovery).map_err(StartError::Discovery)?;
    let language = language(&config);
    let es256: crate::service::PrincipalSigner = Arc::new(key.es256());
    let key = Arc::new(key);
    // One prompt at a time, the recovery kit's included: one verifier for both.
    let verifier = crate::user_verification::OnePrompt::around(verifier);
    let custody = Arc::new(crate::recovery::custody::Custody::new(
        key.clone(),
        verifier.clone(),
        store.clone(),
        data_dir.clone(),
    ));
    let service = Service::new(store.clone(), key, Some(es256), config.clone(), discovery, language, system_clock())
        .map_err(StartError::Service)?
        .with_user_verifier(verifier);
    // Before anything is issued or served: the status address in force is the
    // one the person confirmed to the OS; one the config names beyond it is
    // asked of the OS only at a new principal's first start, else offered in
    // Settings (service::status_setup, docs/threat-model.md).
    service
        .status()
        .settle_status_address(&crate::status_address::StatusAddress::of(&config), first_start)
        .await
        .map_err(StartError::Service)?;
    let config = Config::clone(&service.profile().config());

    let runtime_dir = control::runtime_dir(&config, &data_dir);
    let info_path = runtime_dir.join(announce::FILE_NAME);
    settle_previous(&info_path, &service).await?;
    let (agent_listener, agent_addr) = bind(Listener::AgentApi, config.agent_api.listen).await?;
    let (status_listener, status_addr) = bind(Listener::StatusApi, config.status_api.listen).await?;
    let control_listener = control::bind(&runtime_dir)?;
    let owner =
        control::owner_uid(&data_dir).map_err(|source| StartError::DataDir { path: data_dir.clone(), source })?;

    // docs/agent-api.md: local agents find the API through this file.
    let agent_url = format!("http://{agent_addr}");
    let info = serde_json::json!({ "url": agent_url, "schcp": schcp::VERSION });
    private_files::write(&info_path, info.to_string().as_bytes())
        .map_err(|source| StartError::RuntimeFile { path: info_path.clone(), source })?;
    let announced = Announced::new(info_path, agent_url.clone());
    describe_instance(&mut lock, &Instance { pid: std::process::id(), agent_api: Some(agent_url.clone()) })
        .map_err(|source| StartError::DataDir { path: data_dir.join(LOCK_FILE), source })?;

    let listeners =
        Listeners { agent_api: agent_listener, agent_addr, status_api: status_listener, control: control_listener };
    let tasks = spawn_tasks(&service, &store, &config, listeners, owner);
    // The automatic daily backup, into the folder the person chose (recovery::schedule).
    custody.run_daily(custody.daily_at_start(&config.backup).await, system_clock());
    tracing::info!(agent_api = %agent_url, status_api = %status_addr, control = %control::socket_path(&runtime_dir).display(), "listening");
    Ok(Running { service, custody, agent_addr, status_addr, runtime_dir, tasks, announced, _lock: lock })
}

/// The data directory, made private to the person and locked for this key
/// app alone.
fn open_data_dir(config: &Config) -> Result<(PathBuf, File), StartError> {
    let data_dir = data_dir(config)?;
    let dir_error = |source| StartError::DataDir { path: data_dir.clone(), source };
    // The person's records are theirs alone: 0700 here, 0600 for each file.
    private_files::create_dir(&data_dir).map_err(dir_error)?;
    // First, before the keychain is asked or a port taken: a second key app on
    // the same records is told which one runs (docs/decisions.md).
    let lock = lock_data_dir(&data_dir)?;
    tracing::info!(data_dir = %data_dir.display(), "starting");
    let loosened = private_files::tighten(&data_dir).map_err(dir_error)?;
    if !loosened.is_empty() {
        tracing::warn!(
            data_dir = %data_dir.display(),
            entries = loosened.len(),
            "the data directory was readable by other users; now 0700 (directories) and 0600 (files)"
        );
    }
    Ok((data_dir, lock))
}

/// The principal key, and the config with `auto` settled to the backend
/// that holds it.
async fn open_key(
    mut config: Config,
    data_dir: &Path,
    passphrase: PassphraseSource,
) -> Result<(keystore::PrincipalKey, Config), StartError> {
    // One clear sentence when no keychain is reachable, and no start.
    let key = keystore::open(config.keystore.backend, data_dir, passphrase).await?;
    // `auto` settles here: Settings and the log name the backend that holds the key.
    config.keystore.backend = match key.location() {
        keystore::KeyLocation::File(_) => KeystoreBackend::File,
        _ => KeystoreBackend::Os,
    };
    tracing::info!(
        backend = match config.keystore.backend {
            KeystoreBackend::File => "passphrase-encrypted file",
            _ => "OS keychain",
        },
        "principal key loaded"
    );
    Ok((key, config))
}

/// The listeners bound before the service's tasks start.
struct Listeners {
    agent_api: tokio::net::TcpListener,
    agent_addr: SocketAddr,
    status_api: tokio::net::TcpListener,
    control: tokio::net::UnixListener,
}

/// Every task the running key app keeps: the agent API, the status API, the
/// control socket, the sweeper and the status publisher.
fn spawn_tasks(
    service: &Service,
    store: &Store,
    config: &Config,
    listeners: Listeners,
    owner: u32,
) -> JoinSet<(&'static str, Result<(), String>)> {
    let mut tasks = JoinSet::new();
    let app = crate::agent_api::routes::router(service.clone(), listeners.agent_addr.port());
    let agent_api_config = config.agent_api.clone();
    let agent_listener = listeners.agent_api;
    tasks.spawn(async move {
        let served = crate::agent_api::routes::serve(agent_listener, app, &agent_api_config).await;
        ("agent API", served.map_err(|e| e.to_string()))
    });
    let status_options = crate::status_api::StatusOptions {
        trusted_proxies: config.status_api.trusted_proxies.clone(),
        ..Default::default()
    };
    // The person may change their own base in Settings while this runs.
    let base = service.status().live_base();
    let status_state = crate::status_api::StatusState::with_live_base(store.clone(), status_options, base);
    let status_listener = listeners.status_api;
    tasks.spawn(async move {
        ("status API", crate::status_api::serve(status_listener, status_state).await.map_err(|e| e.to_string()))
    });
    let control_service = service.clone();
    let control_listener = listeners.control;
    tasks.spawn(async move {
        control::serve(control_listener, control_service, owner).await;
        ("control socket", Ok(()))
    });
    let sweeper = service.clone();
    tasks.spawn(async move {
        loop {
            tokio::time::sleep(std::time::Duration::from_secs(5)).await;
            // A busy database now is not a dead sweeper: the next round retries.
            if let Err(e) = sweeper.expire().await {
                tracing::warn!(error = %e, "expiring requests and pairings failed; retrying");
            }
        }
    });
    // Hosted mode (docs/hosted-status.md): what the outbox owes the status service is
    // published, retried with backoff until acknowledged. Run whatever the
    // config says now: rows written under an earlier `hosted` still go out.
    let publisher = service.clone();
    tasks.spawn(async move {
        publisher.status().run_publisher().await;
        ("status publisher", Ok(()))
    });
    tracing::info!(hosted = config.status_api.hosted.as_deref(), "status publisher started");
    tasks
}

/// An `agent-api.json` left by a key app that did not stop cleanly is replaced
/// only once it is known what answers at the URL it names: nothing (it is
/// removed), this key app itself (no start: use that one), or another program,
/// which the person is told of in one sentence before the file is removed,
/// so it never sends an agent there again.
async fn settle_previous(info_path: &Path, service: &Service) -> Result<(), StartError> {
    match announce::check(info_path, &service.profile().principal_jwk()).await {
        Previous::Absent => return Ok(()),
        Previous::Ours(url) => return Err(StartError::AlreadyAnswering { url, path: info_path.to_owned() }),
        Previous::Stranger(url) => tracing::warn!(
            "a program that is not this key app answers at {url}, where a stale {} pointed; agents are told this key app's own address instead, and agents paired with it refuse that program",
            info_path.display()
        ),
        Previous::Dead(_) | Previous::Unusable => {}
    }
    match std::fs::remove_file(info_path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(StartError::RuntimeFile { path: info_path.to_owned(), source: e })
        }
        _ => Ok(()),
    }
}

/// The first thing a process that will hold the key does (`schcp-keyapp
/// serve`, the desktop app): makes itself non-dumpable with no core dumps
/// ([`crate::hardening`]), then takes the passphrase it was started with out
/// of the environment ([`PassphraseSource::take_from_environment`]).
pub fn secure_process() -> Result<Option<PassphraseSource>, SecureError> {
    crate::hardening::harden()?;
    Ok(PassphraseSource::take_from_environment()?)
}

/// Why [`secure_process`] stopped the key app before it started.
#[derive(Debug, thiserror::Error)]
pub enum SecureError {
    #[error(transparent)]
    Hardening(#[from] crate::hardening::HardeningError),
    #[error(transparent)]
    Passphrase(#[from] KeystoreError),
}

/// Runs until Ctrl-C or SIGTERM, or until a listener or task ends (an error).
/// `passphrase` is the one the process was started with
/// ([`PassphraseSource::take_from_environment`]); without one, the file
/// keystore asks on the terminal.
pub async fn serve(config: Config, passphrase: Option<PassphraseSource>) -> Result<(), ServeError> {
    let passphrase = passphrase.unwrap_or(match config.keystore.backend {
        KeystoreBackend::File | KeystoreBackend::Auto => PassphraseSource::Prompt,
        _ => PassphraseSource::default(),
    });
    // Listened for before the start, which writes agent-api.json: a signal
    // that comes once the file is there then stops the key app cleanly
    // (removing it), never by the signal's default action. One that comes
    // during the start stops it there; what it made is undone as it is dropped.
    let handler = |kind| {
        tokio::signal::unix::signal(kind)
            .map_err(|e| ServeError::Ended(TaskEnded { task: "signal handler", reason: e.to_string() }))
    };
    let mut term = handler(tokio::signal::unix::SignalKind::terminate())?;
    let mut int = handler(tokio::signal::unix::SignalKind::interrupt())?;
    let mut running = tokio::select! {
        started = start(config, passphrase) => started?,
        _ = int.recv() => return Ok(()),
        _ = term.recv() => return Ok(()),
    };
    let outcome = tokio::select! {
        _ = int.recv() => Ok(()),
        _ = term.recv() => Ok(()),
        ended = running.stopped() => Err(ServeError::Ended(ended)),
    };
    match &outcome {
        Ok(()) => tracing::info!("stopping"),
        Err(e) => tracing::error!(error = %e, "stopping"),
    }
    running.withdraw();
    outcome
}

/// Why `serve` returned an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// It did not start.
    #[error(transparent)]
    Start(#[from] StartError),
    /// It started, then a listener or task ended.
    #[error(transparent)]
    Ended(TaskEnded),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_a_data_dir_says_who_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = lock_data_dir(dir.path()).unwrap();
        match lock_data_dir(dir.path()) {
            Err(StartError::AlreadyRunning { running: None, .. }) => {}
            other => panic!("{other:?}"),
        }
        let me = Instance { pid: 4242, agent_api: Some("http://127.0.0.1:7411".into()) };
        describe_instance(&mut first, &me).unwrap();
        let err = lock_data_dir(dir.path()).unwrap_err();
        assert!(matches!(&err, StartError::AlreadyRunning { running: Some(i), .. } if *i == me), "{err:?}");
        let sentence = err.to_string();
        assert!(sentence.contains("already running") && sentence.contains("http://127.0.0.1:7411"), "{sentence}");
        drop(first);
        lock_data_dir(dir.path()).expect("free once the first is gone");
    }
}
