//! Key custody: the principal's Ed25519 key, created
//! on first run and kept in the OS keychain (`os`) or, where there is none, in
//! an age file encrypted under a passphrase (`file`).
//!
//! The private key never leaves this module: [`PrincipalKey`] signs through
//! [`schcp::jws::Signer`] and hands out only public material (the JWK and the
//! principal id). No function returns the seed, and nothing here writes it to
//! disk in the clear or prints it. The one exception is the recovery kit
//! (`crate::recovery`), which is the key in words: it is reached only through
//! `recovery::reveal`, after the OS confirmed the person.
//!
//! A key made now derives from a recovery phrase (`recovery::RecoveryKit`),
//! and the keystore keeps the phrase's bytes; a key made before keeps its seed,
//! and its kit is that seed. Each stored form says which it is.

mod file;
mod os;
mod sealed_seed;
mod unlock;

use crate::config::KeystoreBackend;
use crate::recovery::{KitKind, RecoveryKit};
use ed25519_dalek::{SigningKey, VerifyingKey};
use schcp::jwk::{Jwk, PublicKey};
use schcp::jws::{JwsError, Signer};
use std::fmt;
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

pub use secrecy::SecretString;
pub use unlock::UNLOCK_HELPER;

/// The environment variable the file keystore reads its passphrase from, unless
/// the caller names another one. Still accepted, but [`PASSPHRASE_FD_ENV`] is
/// preferred: the kernel keeps a process's start-time environment in
/// `/proc/PID/environ` even after the variable is removed.
pub const PASSPHRASE_ENV: &str = "SCHCP_KEYAPP_PASSPHRASE";

/// The environment variable naming a file descriptor (a pipe, typically) the
/// file keystore's passphrase is read from, to its end; one trailing newline
/// is not part of it.
pub const PASSPHRASE_FD_ENV: &str = "SCHCP_KEYAPP_PASSPHRASE_FD";

/// The file keystore's file, inside the data directory.
pub const KEY_FILE_NAME: &str = "principal.key.age";

/// The keychain entry's service name; its account is [`keychain_account`].
pub const KEYCHAIN_SERVICE: &str = "schcp-keyapp";

/// An Ed25519 seed, the one secret the key is made from (sealed in the
/// keychain item, or the plaintext inside the age file).
const SEED_LEN: usize = ed25519_dalek::SECRET_KEY_LENGTH;

/// Loads the principal's key for the profile at `data_dir`, or creates it on
/// first run.
///
/// `passphrase` is used by [`KeystoreBackend::File`] only. Blocking work (D-Bus
/// calls, scrypt, a terminal prompt) runs on tokio's blocking pool.
pub async fn open(
    backend: KeystoreBackend,
    data_dir: &Path,
    passphrase: PassphraseSource,
) -> Result<PrincipalKey, KeystoreError> {
    ensure_data_dir(data_dir)?;
    match backend {
        KeystoreBackend::Os => os::open(data_dir).await,
        KeystoreBackend::File => file::open(data_dir, passphrase).await,
        KeystoreBackend::Auto => open_auto(data_dir, passphrase).await,
    }
}

/// Keeps the key a recovery kit makes in the profile at `data_dir` (a restore
/// on a new computer). Refused, with nothing changed, when the profile has a
/// key already: replacing it would change the principal id under every
/// credential it issued. `backend = "auto"` keeps it where a new key would go.
pub async fn restore(
    backend: KeystoreBackend,
    data_dir: &Path,
    passphrase: PassphraseSource,
    kit: RecoveryKit,
) -> Result<PrincipalKey, KeystoreError> {
    ensure_data_dir(data_dir)?;
    match backend {
        KeystoreBackend::Os => os::restore(data_dir, kit).await,
        KeystoreBackend::File => file::restore(data_dir, passphrase, kit).await,
        KeystoreBackend::Auto => {
            if data_dir.join(KEY_FILE_NAME).exists() {
                return Err(KeystoreError::KeyExists { location: KeyLocation::File(data_dir.join(KEY_FILE_NAME)) });
            }
            match os::restore(data_dir, kit.clone()).await {
                Err(e) if no_keychain(&e) => file::restore(data_dir, passphrase, kit).await,
                other => other,
            }
        }
    }
}

/// The records database's name in the data directory (`app::start` opens it):
/// its presence tells a profile that already has a principal.
pub const RECORDS_FILE_NAME: &str = "keyapp.db";

/// `backend = "auto"` (docs/decisions.md "Where no keychain answers"): a key
/// file already there is the key; else the OS keychain; where none answers,
/// a new key in the file keystore, but only for a profile with no records
/// yet. A profile with records and no key file kept its key in a keychain
/// that is gone now: creating a file key would silently change the principal
/// id under every credential issued, so that is the keychain's error instead.
async fn open_auto(data_dir: &Path, passphrase: PassphraseSource) -> Result<PrincipalKey, KeystoreError> {
    if data_dir.join(KEY_FILE_NAME).exists() {
        return file::open(data_dir, passphrase).await;
    }
    match os::open(data_dir).await {
        Err(e) if no_keychain(&e) && !data_dir.join(RECORDS_FILE_NAME).exists() => {
            tracing::info!(reason = %e, "no OS keychain answers; the key goes in the passphrase-encrypted file");
            file::open(data_dir, passphrase).await
        }
        other => other,
    }
}

/// No keychain at all (as opposed to one that is locked or says no, which the
/// person can act on): no session bus, no provider, or nowhere to keep a key.
fn no_keychain(e: &KeystoreError) -> bool {
    matches!(
        e,
        KeystoreError::NoSessionBus { .. } | KeystoreError::NoSecretService | KeystoreError::KeychainNoCollection
    )
}

/// The keychain account of the profile at `data_dir`: `principal:` + the first
/// 16 hex digits of SHA-256 over the canonical path. Hashing keeps the entry
/// name short and free of characters a keychain UI mangles, while two data
/// directories (two key apps, two principals) never share an entry.
pub fn keychain_account(data_dir: &Path) -> Result<String, KeystoreError> {
    use sha2::{Digest, Sha256};
    // Canonical, so `./data` and `/home/p/data` (or a symlink to it) are one profile.
    let canonical = data_dir.canonicalize().map_err(|error| KeystoreError::Io {
        action: "resolve the data directory",
        path: data_dir.to_owned(),
        error,
    })?;
    let digest = Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    let short: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("principal:{short}"))
}

/// Where the file keystore's passphrase comes from.
#[derive(Clone)]
#[non_exhaustive]
pub enum PassphraseSource {
    /// An environment variable (by default [`PASSPHRASE_ENV`]), for services
    /// started without a terminal.
    Env(String),
    /// Asked on the controlling terminal without echo; twice when the key is
    /// being created, so a typo cannot lock the person out of a new key.
    Prompt,
    /// Given by the caller (tests, or a surface that asked the person itself).
    Fixed(SecretString),
    /// Asked by a surface of the caller's (the desktop app's window): called
    /// again, with the problem, after a wrong passphrase or a confirmation
    /// that does not match, until the key opens or the person gives up.
    Ask(PassphraseAsker),
}

/// Asks the person for the passphrase; blocks until they answer. `None` means
/// they gave up (closed the window), and the key app does not start.
pub type PassphraseAsker = std::sync::Arc<dyn Fn(&PassphrasePrompt) -> Option<PassphraseAnswer> + Send + Sync>;

/// What a [`PassphraseSource::Ask`] is asked.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PassphrasePrompt {
    /// Unlock the existing key, or choose a passphrase for a new one (typed twice).
    pub purpose: PassphrasePurpose,
    /// What was wrong with the last answer, if any.
    pub problem: Option<PassphraseProblem>,
    /// The key file.
    pub path: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum PassphrasePurpose {
    Unlock,
    Create,
}

/// Why the last answer was asked again; the keystore decides, the surface only shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum PassphraseProblem {
    /// It does not decrypt the key file.
    Wrong,
    /// The two passphrases typed for a new key differ.
    Mismatch,
    /// It was empty.
    Empty,
}

/// The person's answer: for a new key, the passphrase typed a second time too.
pub struct PassphraseAnswer {
    pub passphrase: SecretString,
    pub confirmation: Option<SecretString>,
}

impl PassphraseSource {
    /// The passphrase this process was started with, if any: read from the
    /// descriptor [`PASSPHRASE_FD_ENV`] names, else taken from
    /// [`PASSPHRASE_ENV`]. Both variables are removed from the environment
    /// here, so no child the key app starts inherits them. Call it at the
    /// start of `main`, before other threads run (removing a variable races
    /// with C code reading the environment).
    pub fn take_from_environment() -> Result<Option<PassphraseSource>, KeystoreError> {
        let Some(fd) = std::env::var_os(PASSPHRASE_FD_ENV) else {
            if std::env::var_os(PASSPHRASE_ENV).is_none() {
                return Ok(None);
            }
            return match take_env(PASSPHRASE_ENV) {
                Some(passphrase) if !passphrase.is_empty() => Ok(Some(PassphraseSource::Fixed(passphrase.into()))),
                _ => Err(KeystoreError::PassphraseMissing { var: PASSPHRASE_ENV.to_owned() }),
            };
        };
        std::env::remove_var(PASSPHRASE_FD_ENV);
        // Given both, the descriptor wins, and the variable goes too.
        std::env::remove_var(PASSPHRASE_ENV);
        let fd = fd.to_str().and_then(|f| f.parse::<u32>().ok()).ok_or_else(|| KeystoreError::PassphraseFd {
            fd: fd.to_string_lossy().into_owned(),
            error: std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file descriptor number"),
        })?;
        read_passphrase_fd(fd).map(|p| Some(PassphraseSource::Fixed(p)))
    }
}

/// The variable's value, removed from the environment as it is read.
fn take_env(var: &str) -> Option<String> {
    let value = std::env::var_os(var);
    std::env::remove_var(var);
    value.and_then(|v| v.into_string().ok())
}

/// Reads the passphrase from descriptor `fd` through `/dev/fd` (a safe
/// `open`: adopting a raw descriptor would need `unsafe`). A pipe is the
/// intended carrier: once read, nothing is left in it for anyone else.
fn read_passphrase_fd(fd: u32) -> Result<SecretString, KeystoreError> {
    use std::io::Read;
    let failed = |error| KeystoreError::PassphraseFd { fd: fd.to_string(), error };
    let mut bytes = Zeroizing::new(Vec::with_capacity(256));
    // A passphrase, not a file: bounded, so a descriptor that never ends
    // cannot fill memory. Descriptor 0 is read as it is (reopening a pipe
    // through /dev/fd needs permission on the pipe, which its creator holds).
    if fd == 0 {
        std::io::stdin().lock().take(64 * 1024).read_to_end(&mut bytes).map_err(failed)?;
    } else {
        let file = std::fs::File::open(format!("/dev/fd/{fd}")).map_err(failed)?;
        file.take(64 * 1024).read_to_end(&mut bytes).map_err(failed)?;
    }
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| failed(std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8")))?;
    let text = text.strip_suffix('\n').map(|t| t.strip_suffix('\r').unwrap_or(t)).unwrap_or(text);
    // An exact-length copy: `bytes` is wiped on drop, and the secret's own
    // buffer is never reallocated behind a zeroizing type.
    Ok(SecretString::from(text.to_owned()))
}

impl Default for PassphraseSource {
    fn default() -> Self {
        PassphraseSource::Env(PASSPHRASE_ENV.to_owned())
    }
}

impl fmt::Debug for PassphraseSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PassphraseSource::Env(var) => f.debug_tuple("Env").field(var).finish(),
            PassphraseSource::Prompt => f.write_str("Prompt"),
            PassphraseSource::Fixed(_) => f.write_str("Fixed([redacted])"),
            PassphraseSource::Ask(_) => f.write_str("Ask"),
        }
    }
}

/// Where a principal key is kept; shown to the person (`schcp-keyapp principal`)
/// and named in errors about the stored key.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyLocation {
    /// The OS keychain entry (service, account).
    Keychain { service: &'static str, account: String },
    /// The age-encrypted file.
    File(PathBuf),
}

impl fmt::Display for KeyLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyLocation::Keychain { service, account } => {
                write!(f, "the OS keychain entry {service:?} / {account:?}")
            }
            KeyLocation::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The principal's signing key. It signs JWS signing inputs that `schcp`'s
/// builders made and gives out public material only; the seed stays inside.
pub struct PrincipalKey {
    /// `SigningKey` wipes its secret on drop (ed25519-dalek's `zeroize`).
    signing: SigningKey,
    /// What the keystore keeps and the recovery kit shows (wiped on drop).
    kit: RecoveryKit,
    jwk: Jwk,
    principal_id: String,
    location: KeyLocation,
    /// Whether the keystore made this key in this very call, as opposed to
    /// opening one kept before: only then is the start a new principal's first
    /// (app::start; an empty records file is no sign of one, since the
    /// person's programs can delete it).
    made_now: bool,
}

// If ed25519-dalek's `zeroize` feature were ever lost, this stops the build
// rather than silently leaving key material in freed memory.
const _: fn() = || {
    fn zeroized_on_drop<T: zeroize::ZeroizeOnDrop>() {}
    zeroized_on_drop::<SigningKey>();
    zeroized_on_drop::<p256::ecdsa::SigningKey>();
};

impl PrincipalKey {
    /// A fresh key, made from a new recovery phrase from the OS random number generator.
    fn generate(location: KeyLocation) -> PrincipalKey {
        PrincipalKey::from_kit(RecoveryKit::generate(&mut rand_core::OsRng), location)
    }

    /// The key a recovery kit makes.
    pub(crate) fn from_kit(kit: RecoveryKit, location: KeyLocation) -> PrincipalKey {
        let signing = SigningKey::from_bytes(&kit.ed25519_seed());
        let jwk = Jwk::ed25519(&signing.verifying_key());
        let principal_id = jwk.principal_id().expect("a key made from a valid Ed25519 seed is a valid JWK");
        PrincipalKey { signing, kit, jwk, principal_id, location, made_now: false }
    }

    /// The key, as one the keystore has just made (and kept).
    fn made_now(mut self) -> PrincipalKey {
        self.made_now = true;
        self
    }

    /// Whether the keystore made this key when it was opened, in this start:
    /// a new principal. A key kept before (opened, or restored from its kit
    /// beforehand) is not.
    pub fn is_new(&self) -> bool {
        self.made_now
    }

    /// The age recipient the records backups are encrypted to: public, it
    /// opens nothing; only the recovery kit's words open what it sealed.
    pub fn backup_recipient(&self) -> age::x25519::Recipient {
        self.kit.backup_identity().to_public()
    }

    /// The recovery kit: the key in words. Only `recovery` hands it out, after
    /// the OS confirmed the person, and the backups derive their key from it.
    pub(crate) fn kit(&self) -> &RecoveryKit {
        &self.kit
    }

    /// The Ed25519 seed, for the P-256 derivation; private to this module tree.
    fn seed(&self) -> Zeroizing<[u8; SEED_LEN]> {
        Zeroizing::new(self.signing.to_bytes())
    }

    /// The public JWK (OKP/Ed25519), as mandates carry it.
    pub fn jwk(&self) -> &Jwk {
        &self.jwk
    }

    /// `urn:schcp:principal:jwk-thumbprint:` + the RFC 7638 thumbprint (§3.3).
    pub fn principal_id(&self) -> &str {
        &self.principal_id
    }

    pub fn verifying_key(&self) -> VerifyingKey {
        self.signing.verifying_key()
    }

    /// Where the key is kept.
    pub fn location(&self) -> &KeyLocation {
        &self.location
    }
}

impl Signer for PrincipalKey {
    fn public_key(&self) -> PublicKey {
        PublicKey::Ed25519(self.signing.verifying_key())
    }

    fn sign(&self, signing_input: &[u8]) -> Result<Vec<u8>, JwsError> {
        Signer::sign(&self.signing, signing_input)
    }
}

/// The principal's P-256 key, for the SD-JWT VC profile only (§3.4: "In this
/// profile only, principals may use Ed25519 (EdDSA) or P-256 (ES256)").
///
/// Derived from the Ed25519 seed with HKDF-SHA-256, so each keystore still
/// keeps exactly one secret and both keys live and die together; its principal
/// id is the thumbprint of its own EC JWK ({crv,kty,x,y}), another id than the
/// Ed25519 one, as §3.4 requires of `iss`.
pub struct Es256Key {
    /// Wiped on drop (p256's `SigningKey` zeroizes its scalar).
    signing: p256::ecdsa::SigningKey,
    jwk: Jwk,
    principal_id: String,
}

/// HKDF labels of the P-256 derivation; changing them changes the key.
const ES256_SALT: &[u8] = b"schcp-keyapp";
const ES256_INFO: &[u8] = b"principal P-256 key, v1";

impl PrincipalKey {
    /// The P-256 key derived from this principal's seed (see [`Es256Key`]).
    pub fn es256(&self) -> Es256Key {
        let seed = self.seed();
        let hk = hkdf::Hkdf::<sha2::Sha256>::new(Some(ES256_SALT), &seed[..]);
        // A 32-byte output is a valid scalar unless it is zero or at least the
        // group order (probability about 2^-32); then the next counter is tried.
        for counter in 0u8..=u8::MAX {
            let mut okm = Zeroizing::new([0u8; 32]);
            hk.expand_multi_info(&[ES256_INFO, &[counter]], &mut okm[..])
                .expect("32 bytes is a valid HKDF-SHA-256 length");
            if let Ok(signing) = p256::ecdsa::SigningKey::from_slice(&okm[..]) {
                let jwk = Jwk::p256(signing.verifying_key());
                let principal_id = jwk.principal_id().expect("a P-256 key is a valid JWK");
                return Es256Key { signing, jwk, principal_id };
            }
        }
        unreachable!("256 HKDF outputs in a row outside the P-256 scalar range")
    }
}

impl Es256Key {
    /// The public JWK (EC/P-256), as the SD-JWT's header carries it.
    pub fn jwk(&self) -> &Jwk {
        &self.jwk
    }

    /// `urn:schcp:principal:jwk-thumbprint:` + the thumbprint of the EC JWK.
    pub fn principal_id(&self) -> &str {
        &self.principal_id
    }
}

impl Signer for Es256Key {
    fn public_key(&self) -> PublicKey {
        PublicKey::P256(*self.signing.verifying_key())
    }

    fn sign(&self, signing_input: &[u8]) -> Result<Vec<u8>, JwsError> {
        Signer::sign(&self.signing, signing_input)
    }
}

impl fmt::Debug for Es256Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Es256Key")
            .field("principal_id", &self.principal_id)
            .field("signing_key", &format_args!("[redacted]"))
            .finish()
    }
}

impl fmt::Debug for PrincipalKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrincipalKey")
            .field("principal_id", &self.principal_id)
            .field("location", &self.location)
            .field("signing_key", &format_args!("[redacted]"))
            .finish()
    }
}

/// Why the key could not be loaded or created. Each message is one sentence
/// saying what is wrong and what to do, because the service prints it and
/// does not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeystoreError {
    /// OS backend: no D-Bus session bus (address unset, or nothing listening there).
    #[error("the OS keychain cannot be reached because there is no D-Bus session bus ({reason}); start the key app inside your desktop session, or set backend = \"file\" under [keystore] in the configuration")]
    NoSessionBus { reason: String },

    /// OS backend: the bus is up but nothing owns `org.freedesktop.secrets`.
    #[error("no Secret Service provider (such as gnome-keyring or KeePassXC) is running on the D-Bus session bus, so there is no OS keychain to keep the key in; start one, or set backend = \"file\" under [keystore] in the configuration")]
    NoSecretService,

    /// OS backend: the collection is locked and unlocking it failed or was dismissed.
    #[error("the OS keychain's collection is locked and could not be unlocked; unlock it (for example by logging in to the desktop or opening your keyring manager) and start the key app again")]
    KeychainLocked,

    /// OS backend: the provider has no default collection (no "login" keyring).
    #[error("the OS keychain has no default collection to keep the key in; create one (a \"login\" keyring, with your keyring manager or `gnome-keyring-daemon --unlock`), or set backend = \"file\" under [keystore] in the configuration")]
    KeychainNoCollection,

    /// OS backend: the keychain (or its access policy) denied the key app.
    #[error("the OS keychain refused the key app access to the principal key; allow access when the keychain asks, or in its access settings, and start the key app again")]
    KeychainAccessDenied,

    /// OS backend: any other keychain failure; `detail` is the platform's words.
    #[error("the OS keychain failed ({detail}); check that the keychain service works, or set backend = \"file\" under [keystore] in the configuration")]
    KeychainFailure { detail: String },

    /// OS backend: the unlock helper is not installed (at its one fixed path).
    #[error("the key app's unlock helper is not installed at {}, so the principal key stays sealed and the key app does not start; install the schcp-keyapp package (or, from the source tree, run `sudo scripts/install-unlock-helper`)", path.display())]
    UnlockHelperMissing { path: PathBuf },

    /// OS backend: no pkexec to ask the OS with.
    #[error("{} is not installed, so your OS cannot confirm it is you before the principal key is unlocked and the key app does not start; install polkit's pkexec (`apt-get install pkexec polkitd`) and start the key app again", path.display())]
    NoPkexec { path: PathBuf },

    /// OS backend: polkit answered no for `org.schcp.keyapp.unlock`.
    #[error("your OS did not confirm it was you, so the principal key stays sealed and the key app does not start; start it again and confirm with your password or fingerprint when asked")]
    UnlockRefused,

    /// OS backend: the person dismissed the authentication dialog.
    #[error("the request to confirm it was you was dismissed, so the principal key stays sealed and the key app does not start; start it again and confirm with your password or fingerprint when asked")]
    UnlockCancelled,

    /// OS backend: polkit could not be asked, or the helper failed.
    #[error("your OS could not confirm it was you ({detail}), so the principal key stays sealed and the key app does not start; check that polkit (polkitd) runs and start the key app again")]
    UnlockFailed { detail: String },

    /// OS backend: the sealed item does not open under the profile's KEK.
    #[error("the sealed principal key in {location} does not open with this profile's unlock key, so it was altered or sealed elsewhere, and nothing was changed; restore the entry (or /var/lib/schcp-keyapp/kek) from a backup, because the key app will not replace the key and so change the principal id")]
    SealedKeyRejected { location: KeyLocation },

    /// OS backend: a bare seed, which this key app does not adopt.
    #[error("{location} holds a bare key, which this key app does not adopt (it seals every key it keeps, and another program may have put this one there), and nothing was changed; if it is your own key from a version before sealing, restore it from your recovery kit into an empty folder")]
    BareSeed { location: KeyLocation },

    /// OS backend: records exist, made with a key this entry does not hold.
    #[error("{location} holds no key, but the records in {} were made with one, so no new key was made (it would change who you are to your hosts); move the records back where they were made, or restore your recovery kit into an empty folder and copy the records in", records.display())]
    NoKeyForRecords { location: KeyLocation, records: PathBuf },

    /// The stored key is unreadable; it is left in place for the person to restore.
    #[error("the principal key stored in {location} is corrupt ({problem}); restore it from a backup, because the key app will not replace it with a new key and so change the principal id")]
    CorruptKey { location: KeyLocation, problem: &'static str },

    /// File backend: the passphrase variable `var` is unset, empty or not UTF-8.
    #[error("the file keystore needs a passphrase, but the environment variable {var} is unset, empty or not UTF-8; set {var} to the passphrase")]
    PassphraseMissing { var: String },

    /// File backend: the passphrase does not decrypt the key file.
    #[error("the passphrase does not decrypt {}; start the key app again with the passphrase the key was created with", path.display())]
    WrongPassphrase { path: PathBuf },

    /// File backend: the descriptor [`PASSPHRASE_FD_ENV`] names cannot be read.
    #[error("the file keystore's passphrase cannot be read from file descriptor {fd} named by {PASSPHRASE_FD_ENV} ({error}); pass the passphrase on that descriptor (for example a pipe) or leave {PASSPHRASE_FD_ENV} unset")]
    PassphraseFd { fd: String, error: std::io::Error },

    /// File backend: an empty passphrase was given.
    #[error("an empty passphrase cannot protect the principal key; choose a passphrase that is not empty")]
    EmptyPassphrase,

    /// File backend: the two passphrases typed for a new key differ.
    #[error("the two passphrases typed do not match; start the key app again and type the same passphrase twice")]
    PassphraseMismatch,

    /// File backend: the person closed the passphrase window (`PassphraseSource::Ask`).
    #[error("the passphrase was not given, so the key stays locked and the key app does not start; start it again to type it")]
    PassphraseNotGiven,

    /// File backend: `PassphraseSource::Prompt` without a controlling terminal.
    #[error("there is no terminal to ask for the file keystore's passphrase on ({error}); pass it on a file descriptor named by {PASSPHRASE_FD_ENV} (or in the environment variable {PASSPHRASE_ENV}) instead")]
    NoTerminal { error: std::io::Error },

    /// A restore found a key already kept for this profile.
    #[error("a principal key is already kept in {location}, and a restore never replaces one; restore into a new data directory, or keep the key that is there")]
    KeyExists { location: KeyLocation },

    /// Reading or writing the data directory or the key file failed.
    #[error("cannot {action} {} ({error}); check that the data directory exists and belongs to the user running the key app", path.display())]
    Io { action: &'static str, path: PathBuf, error: std::io::Error },
}

/// The data directory holds the key file (or, for the OS backend, names the
/// keychain entry), so it must exist before either. Created owner-only: it
/// also holds the records database.
fn ensure_data_dir(data_dir: &Path) -> Result<(), KeystoreError> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(data_dir).map_err(|error| KeystoreError::Io {
        action: "create the data directory",
        path: data_dir.to_owned(),
        error,
    })
}

/// Runs blocking keystore work off the async runtime; a panic there is
/// re-raised here rather than turned into an error message.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => value,
        Err(join) => std::panic::resume_unwind(join.into_panic()),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use schcp::jws::{self, HeaderExtras, Typ};

    fn key_from(seed: [u8; 32]) -> PrincipalKey {
        PrincipalKey::from_kit(RecoveryKit::from_bytes(KitKind::KeySeed, &seed), KeyLocation::File("/k".into()))
    }

    /// §3.4: the SD-JWT profile's P-256 key comes from the one stored seed, the
    /// same every time, its own for each seed, with its own principal id.
    #[test]
    fn the_p256_key_is_derived_from_the_seed() {
        let a = key_from([1; 32]);
        let (p, q) = (a.es256(), a.es256());
        assert_eq!(p.jwk(), q.jwk(), "a restart gives the same P-256 key");
        assert_ne!(key_from([2; 32]).es256().jwk(), p.jwk());
        assert_eq!(p.jwk().kty, "EC");
        assert_eq!(p.principal_id(), p.jwk().principal_id().unwrap());
        assert_ne!(p.principal_id(), a.principal_id());
        // It signs ES256 that verifies with its public key, and nothing prints it.
        let compact = jws::sign(
            Typ::Mandate,
            HeaderExtras { kid: None, jwk: Some(p.jwk().clone()) },
            &serde_json::json!({"v": "0.4"}),
            &p,
        )
        .unwrap();
        let parsed = jws::parse(&compact).unwrap();
        assert_eq!(parsed.header.alg, "ES256");
        parsed.verify(Typ::Mandate, &p.jwk().public_key().unwrap()).unwrap();
        assert!(format!("{p:?}").contains("[redacted]"));
    }

    /// Every file under `dir`, recursively, with its bytes.
    pub(crate) fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_owned()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    out.push((path.clone(), std::fs::read(&path).unwrap()));
                }
            }
        }
        out
    }

    pub(crate) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
        haystack.windows(needle.len()).any(|w| w == needle)
    }

    /// The seed in every spelling a careless writer might use.
    pub(crate) fn seed_spellings(key: &PrincipalKey) -> Vec<Vec<u8>> {
        use base64::Engine;
        let seed = key.seed();
        let hex: String = seed.iter().map(|b| format!("{b:02x}")).collect();
        let kit = *key.kit().secret();
        vec![
            kit.to_vec(),
            kit.iter().map(|b| format!("{b:02x}")).collect::<String>().into_bytes(),
            seed.to_vec(),
            hex.into_bytes(),
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&seed[..]).into_bytes(),
            base64::engine::general_purpose::STANDARD.encode(&seed[..]).into_bytes(),
        ]
    }

    fn test_key() -> PrincipalKey {
        PrincipalKey::generate(KeyLocation::File(PathBuf::from("/nowhere")))
    }

    #[test]
    fn debug_is_redacted() {
        let key = test_key();
        let shown = format!("{key:?}");
        assert!(shown.contains("[redacted]"), "{shown}");
        assert!(shown.contains(key.principal_id()), "{shown}");
        for spelling in seed_spellings(&key) {
            assert!(!contains(shown.as_bytes(), &spelling), "the seed shows in {shown}");
        }
        let seed_bytes = format!("{:?}", &key.seed()[..]);
        assert!(!shown.contains(&seed_bytes[1..seed_bytes.len() - 1]));
        let source = PassphraseSource::Fixed(SecretString::from("hunter2"));
        assert!(!format!("{source:?}").contains("hunter2"));
    }

    #[test]
    fn signs_jws_that_verify_under_its_jwk() {
        let key = test_key();
        let claims = serde_json::json!({"v": "0.4", "iss": key.principal_id()});
        let extras = HeaderExtras { kid: None, jwk: Some(key.jwk().clone()) };
        let compact = jws::sign(Typ::Mandate, extras, &claims, &key).unwrap();
        let parsed = jws::parse(&compact).unwrap();
        assert_eq!(parsed.header.alg, "EdDSA");
        parsed.verify(Typ::Mandate, &key.jwk().public_key().unwrap()).unwrap();
        // Another key's JWK does not verify it.
        assert_eq!(parsed.verify(Typ::Mandate, &test_key().public_key()), Err(JwsError::BadSignature));
    }

    #[test]
    fn principal_id_is_the_jwk_thumbprint_urn() {
        let key = test_key();
        assert_eq!(
            key.principal_id(),
            format!("urn:schcp:principal:jwk-thumbprint:{}", key.jwk().thumbprint().unwrap())
        );
        assert_eq!(key.jwk().kty, "OKP");
        assert_eq!(key.jwk().crv, "Ed25519");
    }

    #[test]
    fn keychain_account_is_per_canonical_data_dir() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let account = keychain_account(a.path()).unwrap();
        assert!(account.starts_with("principal:") && account.len() == "principal:".len() + 16, "{account}");
        assert_ne!(account, keychain_account(b.path()).unwrap());
        // Another spelling of the same directory is the same profile.
        let dotted = a.path().join(".").join("sub").join("..");
        std::fs::create_dir(a.path().join("sub")).unwrap();
        assert_eq!(account, keychain_account(&dotted).unwrap());
    }

    #[test]
    fn every_error_is_one_sentence() {
        let errors = [
            KeystoreError::NoSessionBus { reason: "DBUS_SESSION_BUS_ADDRESS is not set".into() },
            KeystoreError::NoSecretService,
            KeystoreError::KeychainLocked,
            KeystoreError::KeychainNoCollection,
            KeystoreError::KeychainAccessDenied,
            KeystoreError::KeychainFailure { detail: "x".into() },
            KeystoreError::CorruptKey { location: KeyLocation::File("/k".into()), problem: "p" },
            KeystoreError::UnlockHelperMissing { path: UNLOCK_HELPER.into() },
            KeystoreError::NoPkexec { path: "/usr/bin/pkexec".into() },
            KeystoreError::UnlockRefused,
            KeystoreError::UnlockCancelled,
            KeystoreError::UnlockFailed { detail: "no polkit".into() },
            KeystoreError::SealedKeyRejected { location: KeyLocation::File("/k".into()) },
            KeystoreError::BareSeed { location: KeyLocation::File("/k".into()) },
            KeystoreError::NoKeyForRecords { location: KeyLocation::File("/k".into()), records: "/r".into() },
            KeystoreError::PassphraseMissing { var: PASSPHRASE_ENV.into() },
            KeystoreError::WrongPassphrase { path: "/k".into() },
            KeystoreError::PassphraseFd { fd: "3".into(), error: std::io::Error::other("bad fd") },
            KeystoreError::EmptyPassphrase,
            KeystoreError::PassphraseMismatch,
            KeystoreError::PassphraseNotGiven,
            KeystoreError::NoTerminal { error: std::io::Error::other("no tty") },
            KeystoreError::Io { action: "read", path: "/k".into(), error: std::io::Error::other("boom") },
            KeystoreError::KeyExists { location: KeyLocation::File("/k".into()) },
        ];
        for e in errors {
            let text = e.to_string();
            // One sentence: no full stop followed by another sentence, no line breaks,
            // and always a "what to do" after the semicolon.
            assert!(!text.contains(". ") && !text.contains('\n'), "{text}");
            assert!(text.contains("; "), "no remedy in: {text}");
        }
    }
}
