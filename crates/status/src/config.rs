//! The configuration file (`schcp-status --config FILE`, TOML) and the
//! environment. `DATABASE_URL`, when set, is the database whatever the file says.

use crate::service::{NamespacePolicy, DEFAULT_MAX_CREDENTIALS};
use crate::store::DbOptions;
use serde::Deserialize;
use status_edge::{RateLimit, StatusOptions, TrustedProxy};
use std::net::SocketAddr;
use std::path::Path;

/// The file's contents; every member optional.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// `postgres://user:password@host:port/database`.
    pub database_url: Option<String>,
    /// Where `serve` listens (default `127.0.0.1:8450`).
    pub listen: Option<SocketAddr>,
    /// Database connections per process (default 16).
    pub pool_size: Option<u32>,
    /// PostgreSQL `statement_timeout` in milliseconds (default 5000).
    pub statement_timeout_ms: Option<u64>,
    /// Proxies whose `X-Forwarded-For` names the client (the TLS proxy).
    #[serde(default)]
    pub trusted_proxies: Vec<TrustedProxy>,
    /// Requests per second per client, refilled (default 20; 0: no limit).
    pub rate_per_second: Option<f64>,
    /// Requests one client may make at once (default 60).
    pub rate_burst: Option<f64>,
    /// The principals allowed to publish (principal ids or their thumbprints);
    /// unset: any principal.
    pub namespaces: Option<Vec<Namespace>>,
    /// The most credentials one namespace holds at once (default 10 000).
    pub max_credentials_per_namespace: Option<u32>,
    /// The base URL hosts reach the service at (`https://status.example`):
    /// the only non-loopback `Host` a request may name (else 421), and the
    /// origin a signed claim's `@target-uri` is rebuilt from. Unset: loopback
    /// `Host` only (a proxy on this machine that passes its own address).
    pub public_base: Option<String>,
    /// How long a cache in front (a CDN) may keep a `GET` of a credential's
    /// status, in seconds (default 5, at most 60; 0: `no-store`). Claims and
    /// releases are never cacheable.
    pub status_max_age_secs: Option<u64>,
    /// Where `serve` answers `/healthz`, `/readyz` and `/metrics` (unset: not
    /// served). Kept off the hosts' port: these are the operator's.
    pub admin_listen: Option<SocketAddr>,
    /// Claim transactions in flight at once in this process, each carrying
    /// every waiting claim of the credentials it names (default 2; 0: one
    /// transaction per claim). docs/hosted-status.md "Batched claims".
    pub claim_batches: Option<usize>,
    /// How long, in microseconds, a claim may wait for others to join its
    /// batch while another batch is in flight (default
    /// [`DEFAULT_CLAIM_GATHER_US`], at most [`MAX_CLAIM_GATHER_US`]; 0: a
    /// batch leaves as soon as a slot is free). docs/hosted-status.md
    /// "Batched claims".
    pub claim_gather_us: Option<u64>,
    /// Threads serving requests in this process (default: one per core).
    pub worker_threads: Option<usize>,
}

/// `claim_gather_us` unless configured: the measured best on the benchmark
/// machine (docs/benchmarks.md).
pub const DEFAULT_CLAIM_GATHER_US: u64 = 1_000;

/// The longest `claim_gather_us` accepted: a claim's answer must not wait on
/// company for longer than a commit takes.
pub const MAX_CLAIM_GATHER_US: u64 = 10_000;

/// `status_max_age_secs` unless configured: a revocation reaches every host
/// within this, and a CDN in front still answers most reads.
pub const DEFAULT_STATUS_MAX_AGE_SECS: u64 = 5;

/// The longest `status_max_age_secs` accepted: past a minute, a revocation the
/// person sees at once would stay unseen by hosts for too long.
pub const MAX_STATUS_MAX_AGE_SECS: u64 = 60;

/// A namespace as the file names it: a principal id
/// (`urn:schcp:principal:jwk-thumbprint:…`) or its bare thumbprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace(pub String);

impl<'de> Deserialize<'de> for Namespace {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let thumb = s.strip_prefix(schcp::jwk::PRINCIPAL_PREFIX).unwrap_or(&s);
        if crate::service::is_thumb(thumb) {
            Ok(Namespace(thumb.to_owned()))
        } else {
            Err(serde::de::Error::custom(format!(
                "{s:?} is not a principal id or a JWK thumbprint (43 base64url characters)"
            )))
        }
    }
}

/// The settings a command runs with.
#[derive(Debug, Clone)]
pub struct Config {
    /// The database URL, if any was given.
    pub database_url: Option<String>,
    /// Where `serve` listens.
    pub listen: SocketAddr,
    /// Pool and timeouts.
    pub db: DbOptions,
    /// The HTTP edge: body and time bounds, rate limit, trusted proxies.
    pub edge: StatusOptions,
    /// Who may publish, and how much.
    pub namespaces: NamespacePolicy,
    /// How long a `GET` of a status may be cached (zero: `no-store`).
    pub status_max_age: std::time::Duration,
    /// Where the operator's endpoints are served, if anywhere.
    pub admin_listen: Option<SocketAddr>,
    /// Claim transactions in flight at once (0: no batching).
    pub claim_batches: usize,
    /// How long a claim may wait for company while a batch is in flight.
    pub claim_gather: std::time::Duration,
    /// Threads serving requests (`None`: one per core).
    pub worker_threads: Option<usize>,
}

/// Why the configuration is unusable.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not the configuration's TOML.
    #[error("{path}: {source}")]
    Parse {
        /// The file.
        path: String,
        /// Why.
        source: toml::de::Error,
    },
    /// `public_base` is not an http(s) URL with a host.
    #[error("public_base = {0:?} is not an http(s) URL with a host")]
    PublicBase(String),
    /// `status_max_age_secs` is above the bound.
    #[error(
        "status_max_age_secs = {0} is more than {MAX_STATUS_MAX_AGE_SECS}: hosts would miss a revocation for that long"
    )]
    StatusMaxAge(u64),
    /// `claim_gather_us` is above the bound.
    #[error("claim_gather_us = {0} is more than {MAX_CLAIM_GATHER_US}: every claim's answer could wait that long")]
    ClaimGather(u64),
    /// `worker_threads` is 0.
    #[error("worker_threads = 0: at least one thread must serve requests")]
    WorkerThreads,
}

impl Config {
    /// Reads `file` (if any), then `DATABASE_URL` from `env`.
    pub fn load(file: Option<&Path>, env_database_url: Option<String>) -> Result<Config, ConfigError> {
        let f = match file {
            None => FileConfig::default(),
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|source| ConfigError::Read { path: path.display().to_string(), source })?;
                toml::from_str(&text)
                    .map_err(|source| ConfigError::Parse { path: path.display().to_string(), source })?
            }
        };
        if let Some(base) = f.public_base.as_deref().filter(|b| !status_edge::edge::is_public_base(b)) {
            return Err(ConfigError::PublicBase(base.to_owned()));
        }
        if let Some(age) = f.status_max_age_secs.filter(|a| *a > MAX_STATUS_MAX_AGE_SECS) {
            return Err(ConfigError::StatusMaxAge(age));
        }
        if let Some(us) = f.claim_gather_us.filter(|us| *us > MAX_CLAIM_GATHER_US) {
            return Err(ConfigError::ClaimGather(us));
        }
        if f.worker_threads == Some(0) {
            return Err(ConfigError::WorkerThreads);
        }
        Ok(Config::from_file(f, env_database_url))
    }

    /// The settings from a parsed file and `DATABASE_URL`.
    pub fn from_file(f: FileConfig, env_database_url: Option<String>) -> Config {
        let defaults = DbOptions::default();
        let per_second = f.rate_per_second.unwrap_or(20.0);
        let edge = StatusOptions {
            rate_limit: (per_second > 0.0)
                .then(|| RateLimit { per_second, burst: f.rate_burst.unwrap_or(60.0).max(1.0) }),
            trusted_proxies: f.trusted_proxies,
            public_base: f.public_base,
            // A hosted service serves many people's hosts at once; the database
            // wait (statement_timeout) must end before the request bound does.
            ..StatusOptions::default()
        };
        Config {
            database_url: env_database_url.filter(|u| !u.is_empty()).or(f.database_url),
            listen: f.listen.unwrap_or_else(|| "127.0.0.1:8450".parse().expect("a valid address")),
            db: DbOptions {
                pool_size: f.pool_size.unwrap_or(defaults.pool_size),
                statement_timeout_ms: f.statement_timeout_ms.unwrap_or(defaults.statement_timeout_ms),
                acquire_timeout_ms: defaults.acquire_timeout_ms,
            },
            edge,
            namespaces: NamespacePolicy {
                allowed: f.namespaces.map(|n| n.into_iter().map(|n| n.0).collect()),
                max_credentials: f.max_credentials_per_namespace.unwrap_or(DEFAULT_MAX_CREDENTIALS),
            },
            status_max_age: std::time::Duration::from_secs(
                f.status_max_age_secs.unwrap_or(DEFAULT_STATUS_MAX_AGE_SECS).min(MAX_STATUS_MAX_AGE_SECS),
            ),
            admin_listen: f.admin_listen,
            claim_batches: f.claim_batches.unwrap_or(crate::service::DEFAULT_CLAIM_BATCHES),
            claim_gather: std::time::Duration::from_micros(
                f.claim_gather_us.unwrap_or(DEFAULT_CLAIM_GATHER_US).min(MAX_CLAIM_GATHER_US),
            ),
            worker_threads: f.worker_threads,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_database_url_wins_and_defaults_apply() {
        let f: FileConfig = toml::from_str(
            r#"database_url = "postgres://file/db"
               pool_size = 4
               statement_timeout_ms = 250
               trusted_proxies = ["127.0.0.1", "10.0.0.0/8"]
               rate_per_second = 0"#,
        )
        .unwrap();
        let c = Config::from_file(f.clone(), Some("postgres://env/db".into()));
        assert_eq!(c.database_url.as_deref(), Some("postgres://env/db"));
        assert_eq!((c.db.pool_size, c.db.statement_timeout_ms), (4, 250));
        assert_eq!(c.edge.trusted_proxies.len(), 2);
        assert_eq!(c.edge.rate_limit, None);
        assert_eq!(Config::from_file(f, None).database_url.as_deref(), Some("postgres://file/db"));
        let d = Config::from_file(FileConfig::default(), None);
        assert_eq!(d.edge.rate_limit, Some(RateLimit { per_second: 20.0, burst: 60.0 }));
        assert_eq!(d.listen.to_string(), "127.0.0.1:8450");
    }

    #[test]
    fn public_base_is_an_http_url_with_a_host() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.toml");
        std::fs::write(&file, "public_base = \"https://status.example\"").unwrap();
        let c = Config::load(Some(&file), None).unwrap();
        assert_eq!(c.edge.public_base.as_deref(), Some("https://status.example"));
        for bad in ["status.example", "ftp://status.example", "https://"] {
            std::fs::write(&file, format!("public_base = {bad:?}")).unwrap();
            assert!(matches!(Config::load(Some(&file), None), Err(ConfigError::PublicBase(_))), "{bad}");
        }
        assert_eq!(Config::from_file(FileConfig::default(), None).edge.public_base, None);
    }

    #[test]
    fn namespaces_are_principal_ids_or_thumbprints() {
        let thumb = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs";
        let f: FileConfig = toml::from_str(&format!(
            "namespaces = [\"urn:schcp:principal:jwk-thumbprint:{thumb}\", \"{thumb}\"]\nmax_credentials_per_namespace = 5"
        ))
        .unwrap();
        let c = Config::from_file(f, None);
        assert_eq!(c.namespaces.allowed, Some([thumb.to_owned()].into()));
        assert_eq!(c.namespaces.max_credentials, 5);
        let open = Config::from_file(FileConfig::default(), None).namespaces;
        assert_eq!(open, NamespacePolicy { allowed: None, max_credentials: DEFAULT_MAX_CREDENTIALS });
        for bad in ["urn:schcp:principal:jwk-thumbprint:short", "did:example:123", ""] {
            let e = toml::from_str::<FileConfig>(&format!("namespaces = [\"{bad}\"]")).unwrap_err();
            assert!(e.to_string().contains("not a principal id"), "{bad}: {e}");
        }
        assert!(toml::from_str::<FileConfig>("max_credentials_per_namespace = -1").is_err());
    }

    #[test]
    fn claim_gather_and_worker_threads_are_bounded() {
        let d = Config::from_file(FileConfig::default(), None);
        assert_eq!(d.claim_gather.as_micros(), u128::from(DEFAULT_CLAIM_GATHER_US));
        assert_eq!(d.worker_threads, None);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.toml");
        std::fs::write(&file, "claim_gather_us = 0\nworker_threads = 3").unwrap();
        let c = Config::load(Some(&file), None).unwrap();
        assert_eq!((c.claim_gather.as_micros(), c.worker_threads), (0, Some(3)));
        std::fs::write(&file, format!("claim_gather_us = {}", MAX_CLAIM_GATHER_US + 1)).unwrap();
        assert!(matches!(Config::load(Some(&file), None), Err(ConfigError::ClaimGather(_))));
        std::fs::write(&file, "worker_threads = 0").unwrap();
        assert!(matches!(Config::load(Some(&file), None), Err(ConfigError::WorkerThreads)));
        assert!(toml::from_str::<FileConfig>("claim_gather_us = -1").is_err());
    }

    #[test]
    fn status_max_age_defaults_to_a_few_seconds_and_is_bounded() {
        let d = Config::from_file(FileConfig::default(), None);
        assert_eq!(d.status_max_age.as_secs(), DEFAULT_STATUS_MAX_AGE_SECS);
        assert_eq!(d.admin_listen, None);
        assert_eq!(d.claim_batches, crate::service::DEFAULT_CLAIM_BATCHES);
        let off: FileConfig = toml::from_str("claim_batches = 0").unwrap();
        assert_eq!(Config::from_file(off, None).claim_batches, 0);
        assert!(toml::from_str::<FileConfig>("claim_batches = -1").is_err());
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.toml");
        std::fs::write(&file, "status_max_age_secs = 0\nadmin_listen = \"127.0.0.1:9450\"").unwrap();
        let c = Config::load(Some(&file), None).unwrap();
        assert_eq!(c.status_max_age.as_secs(), 0);
        assert_eq!(c.admin_listen, Some("127.0.0.1:9450".parse().unwrap()));
        std::fs::write(&file, "status_max_age_secs = 60").unwrap();
        assert_eq!(Config::load(Some(&file), None).unwrap().status_max_age.as_secs(), 60);
        std::fs::write(&file, "status_max_age_secs = 61").unwrap();
        let e = Config::load(Some(&file), None).unwrap_err();
        assert!(matches!(e, ConfigError::StatusMaxAge(61)), "{e}");
        assert!(toml::from_str::<FileConfig>("status_max_age_secs = -1").is_err());
    }

    #[test]
    fn the_shipped_deployment_config_is_valid() {
        // deploy/schcp-status.toml, as the container image and the systemd unit use it.
        let f: FileConfig = toml::from_str(include_str!("../../../deploy/schcp-status.toml")).unwrap();
        let c = Config::from_file(f, None);
        assert_eq!(c.database_url, None, "the database comes from DATABASE_URL, never the file");
        assert_eq!(c.admin_listen, Some("0.0.0.0:9450".parse().unwrap()));
        assert_eq!(c.listen.port(), 8450);
        assert_eq!(c.status_max_age.as_secs(), DEFAULT_STATUS_MAX_AGE_SECS);
    }

    #[test]
    fn unknown_members_and_bad_proxies_are_refused() {
        assert!(toml::from_str::<FileConfig>("databse_url = \"x\"").is_err());
        assert!(toml::from_str::<FileConfig>("trusted_proxies = [\"proxy.example\"]").is_err());
    }
}
