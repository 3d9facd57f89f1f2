//! Configuration (README "Key storage", "The status API behind a reverse proxy"): TOML, every key optional.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}: {source}")]
    Parse { path: PathBuf, source: toml::de::Error },
    #[error("{0}")]
    Invalid(String),
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Database and runtime files; default: the OS data dir.
    pub data_dir: Option<PathBuf>,
    /// Consent language; default: the OS locale, else en.
    pub locale: Option<String>,
    /// The person's time zone (IANA), for dates in the records; default: the OS's, else UTC.
    pub timezone: Option<String>,
    /// The person's name, as `GET /v1/principal` reports it to paired agents.
    pub name: Option<String>,
    #[serde(default)]
    pub agent_api: AgentApi,
    #[serde(default)]
    pub status_api: StatusApi,
    #[serde(default, deserialize_with = "discovery_with_trust_files")]
    pub discovery: Discovery,
    #[serde(default)]
    pub keystore: Keystore,
    /// The file this was read from (`Config::load`), where setup writes the
    /// person's status choice; `None` for a config built in code or parsed
    /// from text. Never a key of the file itself.
    #[serde(skip)]
    pub source: Option<PathBuf>,
    /// The automatic daily backup of the records (`recovery::schedule`).
    #[serde(default)]
    pub backup: crate::recovery::schedule::AutoBackup,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AgentApi {
    #[serde(default = "default_agent_listen")]
    pub listen: SocketAddr,
    /// Seconds a connection may take to send a request head, or sit idle.
    #[serde(default = "default_agent_header_timeout")]
    pub header_timeout_secs: u64,
    /// Seconds a request body may take to arrive.
    #[serde(default = "default_agent_body_timeout")]
    pub body_timeout_secs: u64,
    /// Connections one local user may hold open at once (`agent_api::peer`).
    #[serde(default = "default_agent_connections_per_user")]
    pub max_connections_per_user: usize,
    /// Connections all local users may hold open together.
    #[serde(default = "default_agent_connections")]
    pub max_connections: usize,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StatusApi {
    #[serde(default = "default_status_listen")]
    pub listen: SocketAddr,
    /// Status URLs are `{public_base}/status/{jti}`.
    #[serde(default = "default_public_base")]
    pub public_base: String,
    /// Reverse proxies in front of the listener, whose `X-Forwarded-For`
    /// entries name the host a call counts against (`forwarded`). Empty: every
    /// call counts against its peer address.
    #[serde(default)]
    pub trusted_proxies: Vec<crate::forwarded::TrustedProxy>,
    /// Hosted mode (docs/hosted-status.md): the base URL of a `schcp-status` service. Status
    /// URLs are then `{hosted}/status/{principal thumbprint}/{jti}`, and every
    /// credential with one is registered there, and its revocation published,
    /// by the outbox (`publisher`). `https`, or `http` to a loopback address only
    /// (tests, or a TLS proxy on the same machine).
    #[serde(default)]
    pub hosted: Option<String>,
    /// The hosts that read status URLs run on this same machine (tests, demos,
    /// `--demo`): only then is a loopback status base one hosts can read
    /// (`status_reach`). Off by default: hosts fetch status URLs under §5.8's
    /// outbound policy, which refuses loopback addresses.
    #[serde(default)]
    pub hosts_on_this_machine: bool,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Discovery {
    /// PEM roots trusted in addition to the system's.
    #[serde(default)]
    pub extra_root_certs: Vec<PathBuf>,
    /// Fixed addresses, like curl --resolve: host name → "ip:port".
    #[serde(default)]
    pub resolve: BTreeMap<String, SocketAddr>,
}

/// What a `trust_files` entry may hold.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Trust {
    #[serde(default)]
    extra_root_certs: Vec<PathBuf>,
    #[serde(default)]
    resolve: BTreeMap<String, SocketAddr>,
}

/// `[discovery]` as written: besides its own entries, `trust_files`, files
/// with more `extra_root_certs` and `resolve` entries (TOML, those two keys
/// only), read when the config is and added to them. A test or example host
/// writes its throwaway CA and address there, so it never rewrites the key
/// app's own config (docs/decisions.md "The example host's trust").
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DiscoveryFile {
    #[serde(default)]
    extra_root_certs: Vec<PathBuf>,
    #[serde(default)]
    resolve: BTreeMap<String, SocketAddr>,
    #[serde(default)]
    trust_files: Vec<PathBuf>,
}

fn discovery_with_trust_files<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Discovery, D::Error> {
    use serde::de::Error;
    let file = DiscoveryFile::deserialize(d)?;
    let mut discovery = Discovery { extra_root_certs: file.extra_root_certs, resolve: file.resolve };
    for path in file.trust_files {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| D::Error::custom(format!("trust file {} cannot be read: {e}", path.display())))?;
        let trust: Trust =
            toml::from_str(&text).map_err(|e| D::Error::custom(format!("trust file {}: {e}", path.display())))?;
        discovery.extra_root_certs.extend(trust.extra_root_certs);
        for (name, addr) in trust.resolve {
            // Which address a fetch goes to must not depend on the files' order.
            match discovery.resolve.insert(name.clone(), addr) {
                Some(before) if before != addr => {
                    return Err(D::Error::custom(format!(
                        "trust file {} pins {name} to {addr}, but it is already pinned to {before}; keep one",
                        path.display()
                    )))
                }
                _ => {}
            }
        }
    }
    Ok(discovery)
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Keystore {
    #[serde(default)]
    pub backend: KeystoreBackend,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum KeystoreBackend {
    /// The OS keychain (Secret Service, macOS Keychain, Windows Credential Manager).
    #[default]
    Os,
    /// The key encrypted under a passphrase (age scrypt), for machines without a keychain.
    File,
    /// The OS keychain when one answers, else the file keystore; a key file
    /// already in the data directory always wins (`keystore::open`), so the
    /// principal never changes when a keychain comes or goes.
    Auto,
}

fn default_agent_listen() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 7411))
}
fn default_agent_header_timeout() -> u64 {
    10
}
fn default_agent_body_timeout() -> u64 {
    10
}
/// An agent holds one or two connections (a long poll and a call); a few
/// agents of one person stay far below this.
fn default_agent_connections_per_user() -> usize {
    64
}
fn default_agent_connections() -> usize {
    1024
}
fn default_status_listen() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 7412))
}
fn default_public_base() -> String {
    "http://127.0.0.1:7412".into()
}

impl Default for AgentApi {
    fn default() -> Self {
        AgentApi {
            listen: default_agent_listen(),
            header_timeout_secs: default_agent_header_timeout(),
            body_timeout_secs: default_agent_body_timeout(),
            max_connections_per_user: default_agent_connections_per_user(),
            max_connections: default_agent_connections(),
        }
    }
}
impl Default for StatusApi {
    fn default() -> Self {
        StatusApi {
            listen: default_status_listen(),
            public_base: default_public_base(),
            trusted_proxies: Vec::new(),
            hosted: None,
            hosts_on_this_machine: false,
        }
    }
}

impl Config {
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let config: Config =
            toml::from_str(text).map_err(|source| ConfigError::Parse { path: path.to_owned(), source })?;
        config.check()?;
        Ok(config)
    }

    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_owned(), source })?;
        let mut config = Config::parse(&text, path)?;
        config.source = Some(path.to_owned());
        Ok(config)
    }

    /// Writes `address` into the config file at `path`: the three status keys
    /// of `[status_api]` set (or removed where they are the defaults), every
    /// other line, comment and key kept as it was. The new text is parsed
    /// before it replaces the file, and replaces it whole (a temporary file
    /// renamed over it), so the key app never reads half of it.
    pub fn write_status_address(
        path: &Path,
        address: &crate::status_address::StatusAddress,
    ) -> Result<(), ConfigError> {
        Config::edit_table(path, "status_api", |table| {
            let defaults = StatusApi::default();
            match &address.hosted {
                Some(h) => table["hosted"] = toml_edit::value(h.as_str()),
                None => drop(table.remove("hosted")),
            }
            if address.public_base == defaults.public_base {
                table.remove("public_base");
            } else {
                table["public_base"] = toml_edit::value(address.public_base.as_str());
            }
            if address.hosts_on_this_machine {
                table["hosts_on_this_machine"] = toml_edit::value(true);
            } else {
                table.remove("hosts_on_this_machine");
            }
        })
    }

    /// Writes the daily backup's choice into `[backup]` of the config file at
    /// `path` (the folder removed when none), every other line kept, replaced
    /// whole as [`Config::write_status_address`] does.
    pub fn write_auto_backup(path: &Path, choice: &crate::recovery::schedule::AutoBackup) -> Result<(), ConfigError> {
        Config::edit_table(path, "backup", |table| {
            match choice.folder.as_deref().and_then(Path::to_str) {
                Some(folder) => table["folder"] = toml_edit::value(folder),
                None => drop(table.remove("folder")),
            }
            table["keep"] = toml_edit::value(i64::try_from(choice.keep).unwrap_or(i64::MAX));
        })
    }

    /// Changes the table `name` of the config file at `path` (made when the
    /// file or the table is missing) with `edit`, every other line, comment
    /// and key kept. The new text must parse as a config before it replaces
    /// the file, and replaces it whole (a temporary file renamed over it).
    fn edit_table(path: &Path, name: &str, edit: impl FnOnce(&mut toml_edit::Table)) -> Result<(), ConfigError> {
        let read = |source| ConfigError::Read { path: path.to_owned(), source };
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(read(e)),
        };
        let mut doc: toml_edit::Document =
            text.parse().map_err(|e: toml_edit::TomlError| ConfigError::Invalid(format!("{}: {e}", path.display())))?;
        let table = doc
            .entry(name)
            .or_insert_with(toml_edit::table)
            .as_table_mut()
            .ok_or_else(|| ConfigError::Invalid(format!("{}: {name} is not a table", path.display())))?;
        edit(table);
        let text = doc.to_string();
        Config::parse(&text, path)?;
        let tmp = path.with_extension("toml.new");
        crate::private_files::write(&tmp, text.as_bytes()).map_err(read)?;
        std::fs::rename(&tmp, path).map_err(read)
    }

    /// The agent API is loopback only (docs/agent-api.md §1), whatever the file says.
    fn check(&self) -> Result<(), ConfigError> {
        if !self.agent_api.listen.ip().is_loopback() {
            return Err(ConfigError::Invalid(format!(
                "agent_api.listen = {} is not a loopback address; the agent API listens on 127.0.0.1 only",
                self.agent_api.listen
            )));
        }
        let base = self.status_api.public_base.trim_end_matches('/');
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return Err(ConfigError::Invalid("status_api.public_base must be an http(s) URL".into()));
        }
        if let Some(hosted) = &self.status_api.hosted {
            check_hosted(hosted)?;
        }
        // An assistant can write this file: a pin for a real business's
        // name would let it answer as that business (`outbound::config_may_vouch_for`).
        if let Some(name) = self.discovery.resolve.keys().find(|n| !crate::outbound::config_may_vouch_for(n)) {
            return Err(ConfigError::Invalid(format!(
                "[discovery] resolve pins {name:?}, a public name; only names reserved for tests and private \
                 networks (….test, ….example, ….internal, ….home.arpa, ….localhost) may be pinned, and a real \
                 business is reached through DNS and a public certificate"
            )));
        }
        Ok(())
    }

    /// The hosted status service's base URL, without a trailing slash, in
    /// hosted mode.
    pub fn hosted_base(&self) -> Option<&str> {
        self.status_api.hosted.as_deref().map(|h| h.trim_end_matches('/'))
    }

    /// The base every status URL starts with: the hosted status service's in
    /// hosted mode, else `public_base`; without a trailing slash.
    pub fn status_base(&self) -> &str {
        self.hosted_base().unwrap_or_else(|| self.status_api.public_base.trim_end_matches('/'))
    }

    /// Whether hosts can read the status URLs this key app issues
    /// (`status_reach`, SchCP §3.3 "Status URLs").
    pub fn status_reach(&self) -> crate::status_reach::StatusReach {
        crate::status_reach::classify(self.status_base(), self.status_api.hosts_on_this_machine)
    }

    /// A credential's status URL: `{public_base}/status/{jti}` (docs/agent-api.md
    /// §10), or in hosted mode `{hosted}/status/{thumb}/{jti}`, namespaced by the
    /// principal's RFC 7638 thumbprint `thumb` because jti is the signer's choice
    /// (§3.3: usage is keyed by (iss, jti)).
    pub fn status_url(&self, thumb: &str, jti: &str) -> String {
        match self.hosted_base() {
            Some(base) => format!("{base}/status/{thumb}/{jti}"),
            None => format!("{}/status/{jti}", self.status_base()),
        }
    }
}

/// `status_api.hosted` must be an `https` URL with a host and nothing after the
/// path (the key app appends `/status/…`), or `http` to a loopback address: the
/// updates are signed, but a host reading status over plain HTTP could be lied to.
fn check_hosted(hosted: &str) -> Result<(), ConfigError> {
    let bad = |why: &str| ConfigError::Invalid(format!("status_api.hosted = {hosted:?}: {why}"));
    let url = reqwest::Url::parse(hosted).map_err(|e| bad(&e.to_string()))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("it must not carry credentials"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("it must have no query or fragment"));
    }
    let host = url.host_str().unwrap_or_default();
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match url.scheme() {
        "https" if !host.is_empty() => Ok(()),
        "http" if loopback => Ok(()),
        "http" => Err(bad("http is allowed to a loopback address only; use https")),
        _ => Err(bad("it must be an https URL")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_optional() {
        let c = Config::parse("", Path::new("x.toml")).unwrap();
        assert_eq!(c.agent_api.listen, "127.0.0.1:7411".parse().unwrap());
        assert_eq!(c.status_api.listen, "127.0.0.1:7412".parse().unwrap());
        assert_eq!(c.keystore.backend, KeystoreBackend::Os);
    }

    #[test]
    fn the_api_md_example_parses() {
        let text = r#"
data_dir = "/tmp/k"
locale = "fr"
[agent_api]
listen = "127.0.0.1:7411"
[status_api]
listen = "127.0.0.1:7412"
public_base = "https://keyapp.example/"
[discovery]
extra_root_certs = ["ca.pem"]
resolve = { "maplestreetauto.example" = "127.0.0.1:8443" }
[keystore]
backend = "file"
"#;
        let c = Config::parse(text, Path::new("x.toml")).unwrap();
        assert_eq!(c.status_url("T", "m-1"), "https://keyapp.example/status/m-1");
        assert_eq!(c.hosted_base(), None);
        assert_eq!(c.discovery.resolve["maplestreetauto.example"], "127.0.0.1:8443".parse().unwrap());
        assert_eq!(c.keystore.backend, KeystoreBackend::File);
        assert_eq!(c.locale.as_deref(), Some("fr"));
    }

    #[test]
    fn trusted_proxies_are_addresses_or_networks() {
        let c =
            Config::parse("[status_api]\ntrusted_proxies = [\"127.0.0.1\", \"::1\", \"10.0.0.0/8\"]", Path::new("x"))
                .unwrap();
        assert_eq!(c.status_api.trusted_proxies.len(), 3);
        assert!(Config::parse("", Path::new("x")).unwrap().status_api.trusted_proxies.is_empty());
        let e = Config::parse("[status_api]\ntrusted_proxies = [\"localhost\"]", Path::new("x")).unwrap_err();
        assert!(e.to_string().contains("localhost"), "{e}");
    }

    #[test]
    fn refuses_non_loopback_agent_api_and_unknown_keys() {
        let e = Config::parse("[agent_api]\nlisten = \"0.0.0.0:7411\"", Path::new("x")).unwrap_err();
        assert!(e.to_string().contains("loopback"), "{e}");
        assert!(Config::parse("colour = \"red\"", Path::new("x")).is_err());
        assert!(Config::parse("[keystore]\nbackend = \"plaintext\"", Path::new("x")).is_err());
        let auto = Config::parse("[keystore]\nbackend = \"auto\"", Path::new("x")).unwrap();
        assert_eq!(auto.keystore.backend, KeystoreBackend::Auto);
    }

    #[test]
    fn trust_files_add_roots_and_pins_and_a_conflicting_pin_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let trust = dir.path().join("host-trust.toml");
        std::fs::write(&trust, "extra_root_certs = [\"/ca.pem\"]\nresolve = { \"a.example\" = \"127.0.0.1:8443\" }\n")
            .unwrap();
        let config = dir.path().join("keyapp.toml");
        let write = |extra: &str| {
            std::fs::write(
                &config,
                format!(
                    "[discovery]\ntrust_files = [{:?}]\nextra_root_certs = [\"/own.pem\"]\n{extra}",
                    trust.display()
                ),
            )
            .unwrap()
        };
        write("");
        let c = Config::load(&config).unwrap();
        assert_eq!(c.discovery.extra_root_certs, [PathBuf::from("/own.pem"), PathBuf::from("/ca.pem")]);
        assert_eq!(c.discovery.resolve["a.example"], "127.0.0.1:8443".parse().unwrap());
        // The same pin twice is fine; another address for the name is not.
        write("resolve = { \"a.example\" = \"127.0.0.1:8443\" }\n");
        assert!(Config::load(&config).is_ok());
        write("resolve = { \"a.example\" = \"127.0.0.1:9999\" }\n");
        let e = Config::load(&config).unwrap_err();
        assert!(e.to_string().contains("a.example"), "{e}");
        // Anything else in a trust file is refused, and so is a missing one.
        std::fs::write(&trust, "data_dir = \"/elsewhere\"\n").unwrap();
        write("");
        let e = Config::load(&config).unwrap_err();
        assert!(matches!(e, ConfigError::Parse { .. }) && e.to_string().contains("data_dir"), "{e}");
        std::fs::remove_file(&trust).unwrap();
        let e = Config::load(&config).unwrap_err();
        assert!(e.to_string().contains("cannot be read"), "{e}");
    }

    #[test]
    fn hosted_status_urls_are_namespaced_by_thumbprint() {
        for base in ["https://status.example", "https://status.example/"] {
            let c = Config::parse(&format!("[status_api]\nhosted = \"{base}\""), Path::new("x")).unwrap();
            assert_eq!(c.hosted_base(), Some("https://status.example"));
            // No trailing-slash doubling (docs/hosted-status.md).
            assert_eq!(c.status_url("abc", "m-1"), "https://status.example/status/abc/m-1");
        }
        let c = Config::parse("[status_api]\nhosted = \"https://s.example/base\"", Path::new("x")).unwrap();
        assert_eq!(c.status_url("abc", "m-1"), "https://s.example/base/status/abc/m-1");
        for ok in ["http://127.0.0.1:8080", "http://[::1]:9", "http://localhost:1"] {
            assert!(Config::parse(&format!("[status_api]\nhosted = \"{ok}\""), Path::new("x")).is_ok(), "{ok}");
        }
    }

    #[test]
    fn the_status_base_is_the_hosted_services_in_hosted_mode_and_hosts_on_this_machine_is_off_by_default() {
        use crate::status_reach::StatusReach;
        let c = Config::parse("", Path::new("x")).unwrap();
        assert!(!c.status_api.hosts_on_this_machine);
        assert_eq!(c.status_base(), "http://127.0.0.1:7412");
        // Out of the box, no host can read the status base.
        assert!(!c.status_reach().reachable(), "{:?}", c.status_reach());
        let c = Config::parse("[status_api]\nhosts_on_this_machine = true", Path::new("x")).unwrap();
        assert_eq!(c.status_reach(), StatusReach::ThisMachine);
        let c = Config::parse("[status_api]\npublic_base = \"https://keyapp.example/\"", Path::new("x")).unwrap();
        assert_eq!((c.status_base(), c.status_reach()), ("https://keyapp.example", StatusReach::Public));
        // Hosted mode: the service's base is the one hosts read, whatever public_base says.
        let c = Config::parse(
            "[status_api]\npublic_base = \"https://keyapp.example\"\nhosted = \"http://127.0.0.1:9/\"",
            Path::new("x"),
        )
        .unwrap();
        assert_eq!(c.status_base(), "http://127.0.0.1:9");
        assert!(!c.status_reach().reachable());
        let c = Config::parse("[status_api]\nhosted = \"https://status.example\"", Path::new("x")).unwrap();
        assert_eq!(c.status_reach(), StatusReach::Public);
        assert!(Config::parse("[status_api]\nhosts_on_this_machine = \"yes\"", Path::new("x")).is_err());
    }

    #[test]
    fn the_status_address_is_written_into_the_file_keeping_everything_else() {
        use crate::status_address::StatusAddress;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keyapp.toml");
        let original = "# my settings\nlocale = \"fr\"\n\n[status_api]\n# behind nginx\nlisten = \"127.0.0.1:7999\"\npublic_base = \"https://me.example\"\n";
        std::fs::write(&path, original).unwrap();
        let loaded = Config::load(&path).unwrap();
        assert_eq!(loaded.source.as_deref(), Some(path.as_path()));
        let hosted = StatusAddress {
            hosted: Some("https://status.example".into()),
            public_base: "https://me.example".into(),
            hosts_on_this_machine: false,
        };
        Config::write_status_address(&path, &hosted).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("# my settings") && text.contains("# behind nginx"), "{text}");
        let c = Config::load(&path).unwrap();
        assert_eq!((c.status_base(), c.locale.as_deref()), ("https://status.example", Some("fr")));
        assert_eq!(c.status_api.listen, "127.0.0.1:7999".parse().unwrap());
        // Back to the built-in address: the keys go, the rest stays.
        Config::write_status_address(&path, &StatusAddress::built_in()).unwrap();
        let c = Config::load(&path).unwrap();
        assert_eq!(StatusAddress::of(&c), StatusAddress::built_in());
        assert_eq!(c.status_api.listen, "127.0.0.1:7999".parse().unwrap());
        // A missing file is made with the keys alone.
        let fresh = dir.path().join("new.toml");
        Config::write_status_address(&fresh, &hosted).unwrap();
        assert_eq!(StatusAddress::of(&Config::load(&fresh).unwrap()), hosted);
        // A file that is not a config is left alone.
        std::fs::write(&path, "[status_api\n").unwrap();
        assert!(Config::write_status_address(&path, &hosted).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[status_api\n");
    }

    #[test]
    fn hosted_must_be_https_or_loopback_http() {
        for (bad, why) in [
            ("http://status.example", "loopback"),
            ("http://10.0.0.1", "loopback"),
            ("ftp://status.example", "https"),
            ("status.example", "relative URL"),
            ("https://user:pw@status.example", "credentials"),
            ("https://status.example/?x=1", "query"),
            ("https://status.example/#f", "fragment"),
        ] {
            let e = Config::parse(&format!("[status_api]\nhosted = \"{bad}\""), Path::new("x")).unwrap_err();
            assert!(e.to_string().contains(why), "{bad}: {e}");
        }
    }
}
