//! An agent profile: the agent's own Ed25519 key (never the person's), kept in
//! the OS keychain, or in a 0600 file beside the profile where no keychain
//! answers; and the pairing it last started. The key is never printed: only
//! its public half and thumbprint leave this module.

use ed25519_dalek::SigningKey;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The keychain service under which agent keys are kept; the account is the
/// profile's directory, so two profiles never share a key.
pub const KEYCHAIN_SERVICE: &str = "schcp-agent";

/// The key file's name inside the profile directory (file backend).
pub const KEY_FILE: &str = "agent.key";

const PAIRING_FILE: &str = "pairing";

/// The RFC 7638 thumbprint of the principal key this profile's key app showed
/// once paired: from then on, a key app that cannot prove it holds that key is
/// refused as an impostor (`AgentClient::prove`). One per profile: a profile
/// pairs with one person's key app. Remove it only after resetting the key app.
pub const PRINCIPAL_PIN_FILE: &str = "principal-pin";

/// Where the agent's key is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyBackend {
    /// The keychain; a key file already in the profile, or no keychain
    /// answering, means the file.
    #[default]
    Auto,
    /// The OS keychain only.
    Keychain,
    /// The 0600 file in the profile directory only.
    File,
}

/// Where the key was found or made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyLocation {
    /// A keychain entry.
    Keychain {
        /// [`KEYCHAIN_SERVICE`].
        service: &'static str,
        /// The profile directory.
        account: String,
    },
    /// A file.
    File(PathBuf),
}

/// Why the agent's key could not be had.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileError {
    /// The profile name is not 1 to 64 of `[A-Za-z0-9_-]`.
    #[error("profile name {0:?} is not 1 to 64 letters, digits, '-' or '_'")]
    BadName(String),
    /// No `XDG_CONFIG_HOME` or `HOME` to put profiles in.
    #[error("no XDG_CONFIG_HOME or HOME to keep the agent profile in; name its directory")]
    NoConfigDir,
    /// A file of the profile could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The key file is not a 32-byte seed, or is readable by others.
    #[error("{path} is not an agent key file: {detail}")]
    BadKeyFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The keychain refused or failed (backend [`KeyBackend::Keychain`]).
    #[error("the OS keychain did not give the agent key: {0}")]
    Keychain(String),
}

/// One agent profile: a name and its directory.
#[derive(Debug, Clone)]
pub struct AgentProfile {
    name: String,
    dir: PathBuf,
    key_file: Option<PathBuf>,
}

impl AgentProfile {
    /// Profile `name` in `$XDG_CONFIG_HOME/<app>/<name>` (else `~/.config/...`).
    pub fn named(app: &str, name: &str) -> Result<AgentProfile, ProfileError> {
        check_name(name)?;
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let base = match var("XDG_CONFIG_HOME") {
            Some(d) => d,
            None => var("HOME").ok_or(ProfileError::NoConfigDir)?.join(".config"),
        };
        Ok(AgentProfile { name: name.to_owned(), dir: base.join(app).join(name), key_file: None })
    }

    /// A profile kept in `dir`.
    pub fn at(dir: impl Into<PathBuf>) -> AgentProfile {
        let dir: PathBuf = dir.into();
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        AgentProfile { name, dir, key_file: None }
    }

    /// The key file to use instead of `<dir>/agent.key` (file backend).
    pub fn with_key_file(mut self, path: impl Into<PathBuf>) -> AgentProfile {
        self.key_file = Some(path.into());
        self
    }

    /// The profile's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The profile's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn ensure_dir(&self) -> Result<(), ProfileError> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
            .map_err(|source| ProfileError::Io { path: self.dir.clone(), source })
    }

    /// The agent's key: loaded, or made and kept on first use.
    pub async fn key(&self, backend: KeyBackend) -> Result<(SigningKey, KeyLocation), ProfileError> {
        self.ensure_dir()?;
        let file = self.key_file.clone().unwrap_or_else(|| self.dir.join(KEY_FILE));
        if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(parent)
                .map_err(|source| ProfileError::Io { path: parent.to_owned(), source })?;
        }
        let use_file = match backend {
            KeyBackend::File => true,
            KeyBackend::Keychain => false,
            // A key file already there was made because no keychain answered:
            // keep that identity rather than pairing anew.
            KeyBackend::Auto => file.exists(),
        };
        if use_file {
            return Ok((file_key(&file)?, KeyLocation::File(file)));
        }
        let account = self.dir.display().to_string();
        let acct = account.clone();
        // keyring's API is synchronous and drives its own runtime for D-Bus:
        // never on a runtime worker (as the key app's keystore does).
        let got = tokio::task::spawn_blocking(move || keychain_key(&acct))
            .await
            .map_err(|e| ProfileError::Keychain(e.to_string()))?;
        match got {
            Ok(key) => Ok((key, KeyLocation::Keychain { service: KEYCHAIN_SERVICE, account })),
            Err(KeychainFailure::Unavailable(_)) if backend == KeyBackend::Auto => {
                Ok((file_key(&file)?, KeyLocation::File(file)))
            }
            Err(KeychainFailure::Unavailable(d) | KeychainFailure::Other(d)) => Err(ProfileError::Keychain(d)),
        }
    }

    /// The pairing this profile last started, if any.
    pub fn pairing_id(&self) -> Option<String> {
        let id = std::fs::read_to_string(self.dir.join(PAIRING_FILE)).ok()?;
        let id = id.trim();
        (!id.is_empty()).then(|| id.to_owned())
    }

    /// The principal key pinned at pairing (its thumbprint), if any.
    pub fn pinned_principal(&self) -> Option<String> {
        let pin = std::fs::read_to_string(self.dir.join(PRINCIPAL_PIN_FILE)).ok()?;
        let pin = pin.trim();
        (!pin.is_empty()).then(|| pin.to_owned())
    }

    /// Pins the principal key of the key app this profile is paired with.
    pub fn pin_principal(&self, thumbprint: &str) -> Result<(), ProfileError> {
        self.ensure_dir()?;
        write_private(&self.dir.join(PRINCIPAL_PIN_FILE), thumbprint.as_bytes(), true)
    }

    /// Remembers the pairing just started, so a restarted agent can report it.
    pub fn remember_pairing(&self, pairing_id: &str) -> Result<(), ProfileError> {
        self.ensure_dir()?;
        write_private(&self.dir.join(PAIRING_FILE), pairing_id.as_bytes(), true)
    }
}

fn check_name(name: &str) -> Result<(), ProfileError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(ProfileError::BadName(name.to_owned()))
    }
}

enum KeychainFailure {
    /// No keychain to talk to (no session bus, no provider, no access).
    Unavailable(String),
    /// A keychain that answered, wrongly.
    Other(String),
}

fn keychain_key(account: &str) -> Result<SigningKey, KeychainFailure> {
    let classify = |e: keyring::Error| match e {
        keyring::Error::PlatformFailure(_) | keyring::Error::NoStorageAccess(_) => {
            KeychainFailure::Unavailable(e.to_string())
        }
        other => KeychainFailure::Other(other.to_string()),
    };
    let entry = keyring::Entry::new(KEYCHAIN_SERVICE, account).map_err(classify)?;
    let seed = match entry.get_secret() {
        Ok(seed) => seed,
        Err(keyring::Error::NoEntry) => {
            let fresh = SigningKey::generate(&mut rand_core::OsRng);
            entry.set_secret(&fresh.to_bytes()).map_err(classify)?;
            // What the keychain holds is the key, should another agent on the
            // same profile have made one first.
            entry.get_secret().map_err(classify)?
        }
        Err(e) => return Err(classify(e)),
    };
    let seed: [u8; 32] =
        seed.try_into().map_err(|_| KeychainFailure::Other("the keychain entry is not a 32-byte seed".into()))?;
    Ok(SigningKey::from_bytes(&seed))
}

/// The key in `path`, made (0600, never replacing a file) when absent.
fn file_key(path: &Path) -> Result<SigningKey, ProfileError> {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(meta) => {
            if meta.mode() & 0o077 != 0 {
                return Err(ProfileError::BadKeyFile {
                    path: path.to_owned(),
                    detail: format!(
                        "its mode is {:o}; it must be readable by its owner only (0600)",
                        meta.mode() & 0o777
                    ),
                });
            }
            let bytes = std::fs::read(path).map_err(|source| ProfileError::Io { path: path.to_owned(), source })?;
            let seed: [u8; 32] = bytes
                .try_into()
                .map_err(|_| ProfileError::BadKeyFile { path: path.to_owned(), detail: "not 32 bytes".into() })?;
            Ok(SigningKey::from_bytes(&seed))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let key = SigningKey::generate(&mut rand_core::OsRng);
            write_private(path, &key.to_bytes(), false)?;
            Ok(key)
        }
        Err(source) => Err(ProfileError::Io { path: path.to_owned(), source }),
    }
}

fn write_private(path: &Path, bytes: &[u8], replace: bool) -> Result<(), ProfileError> {
    let io = |source| ProfileError::Io { path: path.to_owned(), source };
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).mode(0o600);
    if replace {
        opts.create(true).truncate(true);
    } else {
        opts.create_new(true);
    }
    let mut f = opts.open(path).map_err(io)?;
    f.write_all(bytes).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[tokio::test]
    async fn the_file_backend_makes_a_0600_key_once_and_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = AgentProfile::at(dir.path().join("p"));
        let (a, loc) = p.key(KeyBackend::File).await.unwrap();
        let file = dir.path().join("p").join(KEY_FILE);
        assert_eq!(loc, KeyLocation::File(file.clone()));
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(dir.path().join("p")).unwrap().permissions().mode() & 0o777, 0o700);
        let (b, _) = p.key(KeyBackend::File).await.unwrap();
        assert_eq!(a.to_bytes(), b.to_bytes());
        // Auto keeps a key file it finds rather than asking the keychain.
        let (c, loc) = p.key(KeyBackend::Auto).await.unwrap();
        assert_eq!(c.to_bytes(), a.to_bytes());
        assert!(matches!(loc, KeyLocation::File(_)));
    }

    #[tokio::test]
    async fn a_key_file_others_can_read_or_of_the_wrong_size_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = AgentProfile::at(dir.path());
        let file = dir.path().join(KEY_FILE);
        std::fs::write(&file, [7u8; 32]).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(matches!(p.key(KeyBackend::File).await, Err(ProfileError::BadKeyFile { .. })));
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::write(&file, [7u8; 31]).unwrap();
        assert!(matches!(p.key(KeyBackend::File).await, Err(ProfileError::BadKeyFile { .. })));
    }

    /// Under scripts/with-keyring (a scratch Secret Service), the key is in the
    /// keychain, the same on every start, and no key file is written.
    #[tokio::test]
    async fn the_keychain_keeps_the_key_and_no_file_is_written() {
        if std::env::var_os("SCHCP_WITH_KEYRING").is_none() {
            eprintln!("skipped: run under scripts/with-keyring");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let p = AgentProfile::at(dir.path().join("kc"));
        let (a, loc) = p.key(KeyBackend::Auto).await.unwrap();
        assert!(matches!(loc, KeyLocation::Keychain { .. }), "{loc:?}");
        let (b, _) = p.key(KeyBackend::Keychain).await.unwrap();
        assert_eq!(a.to_bytes(), b.to_bytes());
        assert!(!dir.path().join("kc").join(KEY_FILE).exists());
        // Another profile has another key.
        let (c, _) = AgentProfile::at(dir.path().join("other")).key(KeyBackend::Auto).await.unwrap();
        assert_ne!(a.to_bytes(), c.to_bytes());
    }

    #[test]
    fn profile_names_are_checked() {
        assert!(AgentProfile::named("schcp-mcp", "default").is_ok());
        for bad in ["", "../x", "a/b", "é", &"x".repeat(65)] {
            assert!(matches!(AgentProfile::named("schcp-mcp", bad), Err(ProfileError::BadName(_))), "{bad}");
        }
    }

    #[test]
    fn the_pairing_is_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let p = AgentProfile::at(dir.path());
        assert_eq!(p.pairing_id(), None);
        p.remember_pairing("pr_1").unwrap();
        p.remember_pairing("pr_2").unwrap();
        assert_eq!(p.pairing_id().as_deref(), Some("pr_2"));
    }

    #[test]
    fn the_principal_pin_is_kept_owner_only() {
        let dir = tempfile::tempdir().unwrap();
        let p = AgentProfile::at(dir.path().join("p"));
        assert_eq!(p.pinned_principal(), None);
        p.pin_principal("kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k").unwrap();
        assert_eq!(p.pinned_principal().as_deref(), Some("kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"));
        let mode = std::fs::metadata(dir.path().join("p").join(PRINCIPAL_PIN_FILE)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
