//! The OS keychain backend: one `keyring` entry, service [`KEYCHAIN_SERVICE`],
//! account [`keychain_account`] of the data directory (Secret Service on Linux
//! over the pure-Rust zbus client, Keychain on macOS, Credential Manager on
//! Windows), whose secret is the seed sealed under the profile's
//! key-encryption key (`sealed_seed`), which the OS releases only once it
//! confirmed the person (`unlock`). The keychain alone gives no process of
//! the person's the key: on Linux, any of them can read any item.

use super::sealed_seed::{self, Kek, Stored};
use super::{
    blocking, keychain_account, unlock, KeyLocation, KeystoreError, PrincipalKey, RecoveryKit, KEYCHAIN_SERVICE,
};
use std::path::Path;
use std::time::Duration;
use zeroize::Zeroizing;

/// How long to wait before each new attempt after a transient failure: about
/// two seconds in all, enough for a session manager (systemd's
/// `Restart=on-failure`, a supervisor) to bring a crashed provider back.
const RETRY_DELAYS: [Duration; 3] = [Duration::from_millis(250), Duration::from_millis(500), Duration::from_secs(1)];

pub(super) async fn open(data_dir: &Path) -> Result<PrincipalKey, KeystoreError> {
    let account = keychain_account(data_dir)?;
    let location = KeyLocation::Keychain { service: KEYCHAIN_SERVICE, account: account.clone() };
    // The keychain first: an unreachable keychain or a corrupt item is said
    // before the OS asks the person anything.
    let stored = retrying(account.clone(), read_item).await?;
    let form = match &stored {
        Some(item) => Some(
            sealed_seed::recognise(item)
                .map_err(|problem| KeystoreError::CorruptKey { location: location.clone(), problem })?,
        ),
        None => None,
    };
    // Records made with a key this entry does not hold (moved, or linked, from
    // the path the entry is named for): a new key would change the person's
    // principal under them, so none is made, and the OS is not asked.
    let records = data_dir.join(super::RECORDS_FILE_NAME);
    if stored.is_none() && records.exists() {
        return Err(KeystoreError::NoKeyForRecords { location, records });
    }
    let released = {
        let account = account.clone();
        blocking(move || unlock::release(&account)).await?
    };
    // `released` (the KEK) is wiped when this returns, as soon as the seed is out.
    if released.created {
        tracing::info!("the OS made a key-encryption key for this profile");
    }
    match (stored, form) {
        (Some(item), Some(Stored::Sealed)) => unseal(&item, &released.kek, &account, location),
        // This key app seals every key it keeps, so a bare seed is one another
        // program put there, and never adopted: not even for a profile whose
        // KEK is new, which is what a data directory moved to another path
        // gives (the keychain entry is named for the path), with a seed the
        // other program knows planted under the new name.
        (Some(_), _) => Err(KeystoreError::BareSeed { location }),
        (None, _) => store(PrincipalKey::generate(location.clone()), released.kek, account, location)
            .await
            .map(PrincipalKey::made_now),
    }
}

/// Seals a key restored from its recovery kit into the profile's entry; an
/// entry already there is never replaced (that would change the principal id).
pub(super) async fn restore(data_dir: &Path, kit: RecoveryKit) -> Result<PrincipalKey, KeystoreError> {
    let account = keychain_account(data_dir)?;
    let location = KeyLocation::Keychain { service: KEYCHAIN_SERVICE, account: account.clone() };
    if retrying(account.clone(), read_item).await?.is_some() {
        return Err(KeystoreError::KeyExists { location });
    }
    let released = {
        let account = account.clone();
        blocking(move || unlock::release(&account)).await?
    };
    store(PrincipalKey::from_kit(kit, location.clone()), released.kek, account, location).await
}

fn unseal(item: &[u8], kek: &Kek, account: &str, location: KeyLocation) -> Result<PrincipalKey, KeystoreError> {
    match sealed_seed::open(item, kek, account) {
        Some(kit) => Ok(PrincipalKey::from_kit(kit, location)),
        None => Err(KeystoreError::SealedKeyRejected { location }),
    }
}

/// Seals `key` into the entry, then reads it back and uses what the keychain
/// holds: this proves the key will be there on the next start (a keychain
/// that accepted the write but kept nothing would otherwise give a principal
/// id that silently changes), and if another key app on the same profile
/// wrote first, both end up with the stored one.
async fn store(
    key: PrincipalKey,
    kek: Kek,
    account: String,
    location: KeyLocation,
) -> Result<PrincipalKey, KeystoreError> {
    let sealed = sealed_seed::seal(key.kit(), &kek, &account);
    drop(key);
    retrying((account.clone(), sealed), |(account, sealed)| write_item(&account, &sealed)).await?;
    let stored = retrying(account.clone(), read_item).await?;
    let stored = stored.ok_or(KeystoreError::KeychainFailure {
        detail: "the keychain accepted the key but holds no entry for it afterwards".into(),
    })?;
    unseal(&stored, &kek, &account, location)
}

/// Runs one keychain call off the runtime, again after a transient failure.
async fn retrying<A, T>(arg: A, call: fn(A) -> Result<T, KeystoreError>) -> Result<T, KeystoreError>
where
    A: Clone + Send + 'static,
    T: Send + 'static,
{
    let mut delays = RETRY_DELAYS.iter();
    loop {
        let attempt = arg.clone();
        // keyring's API is synchronous and, on Linux, drives its own small tokio
        // runtime for the D-Bus calls; calling it on a runtime worker would block
        // the worker (and `block_on` inside a runtime panics), so it runs here.
        match blocking(move || call(attempt)).await {
            Err(err) if is_transient(&err) => match delays.next() {
                Some(delay) => tokio::time::sleep(*delay).await,
                None => return Err(err),
            },
            outcome => return outcome,
        }
    }
}

/// Whether another attempt may succeed where this one failed. gnome-keyring
/// is known to abort when a client disconnects in the middle of its session
/// negotiation, and keyring opens one connection per call; the provider
/// then vanishes from the bus until it is restarted. A missing bus, a locked
/// or missing collection, a refusal or a corrupt entry stay as they are, so
/// they are reported at once. Reads and writes are safe to repeat.
fn is_transient(err: &KeystoreError) -> bool {
    matches!(err, KeystoreError::NoSecretService | KeystoreError::KeychainFailure { .. })
}

/// The entry's secret, or `None` when the profile has no entry yet.
fn read_item(account: String) -> Result<Option<Zeroizing<Vec<u8>>>, KeystoreError> {
    let entry = keyring::Entry::new(KEYCHAIN_SERVICE, &account).map_err(classify)?;
    match entry.get_secret() {
        Ok(secret) => Ok(Some(Zeroizing::new(secret))),
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(e) => Err(classify(e)),
    }
}

fn write_item(account: &str, sealed: &[u8]) -> Result<(), KeystoreError> {
    keyring::Entry::new(KEYCHAIN_SERVICE, account).and_then(|entry| entry.set_secret(sealed)).map_err(classify)
}

/// Maps keyring's error to the named error the person can act on.
fn classify(err: keyring::Error) -> KeystoreError {
    match err {
        keyring::Error::PlatformFailure(inner) => classify_platform(inner, false),
        keyring::Error::NoStorageAccess(inner) => classify_platform(inner, true),
        keyring::Error::Ambiguous(entries) => KeystoreError::KeychainFailure {
            detail: format!(
                "{} keychain entries match service {KEYCHAIN_SERVICE:?} and this profile, so which one holds the key is unclear",
                entries.len()
            ),
        },
        other => KeystoreError::KeychainFailure { detail: other.to_string() },
    }
}

#[cfg(any(target_os = "linux", target_os = "freebsd", target_os = "openbsd"))]
fn classify_platform(inner: Box<dyn std::error::Error + Send + Sync>, no_access: bool) -> KeystoreError {
    match inner.downcast::<secret_service::Error>() {
        Ok(ss) => secret_service_error::classify(*ss),
        Err(_) if no_access => KeystoreError::KeychainAccessDenied,
        Err(other) => KeystoreError::KeychainFailure { detail: other.to_string() },
    }
}

/// macOS and Windows report a refusal (a locked keychain the person did not
/// unlock, an access-control denial) as `NoStorageAccess`.
#[cfg(not(any(target_os = "linux", target_os = "freebsd", target_os = "openbsd")))]
fn classify_platform(inner: Box<dyn std::error::Error + Send + Sync>, no_access: bool) -> KeystoreError {
    if no_access {
        KeystoreError::KeychainAccessDenied
    } else {
        KeystoreError::KeychainFailure { detail: inner.to_string() }
    }
}

/// The Secret Service's errors (keyring wraps `secret_service::Error`).
#[cfg(any(target_os = "linux", target_os = "freebsd", target_os = "openbsd"))]
mod secret_service_error {
    use super::KeystoreError;
    use secret_service::Error as SsError;

    /// The well-known name every Secret Service provider owns.
    const SECRETS_NAME: &str = "org.freedesktop.secrets";

    pub(super) fn classify(err: SsError) -> KeystoreError {
        match err {
            // `Prompt`: the collection was locked and the unlock prompt was
            // dismissed or could not be shown (no display), so it is still locked.
            SsError::Locked | SsError::Prompt => KeystoreError::KeychainLocked,
            // The provider refusing an operation on a locked collection or item
            // (gnome-keyring answers a write to a locked collection this way).
            SsError::Zbus(zbus::Error::MethodError(ref name, _, _))
                if name.as_str() == "org.freedesktop.Secret.Error.IsLocked" =>
            {
                KeystoreError::KeychainLocked
            }
            SsError::ZbusFdo(zbus::fdo::Error::AccessDenied(_)) => KeystoreError::KeychainAccessDenied,
            SsError::Zbus(zbus::Error::MethodError(ref name, _, _))
                if name.as_str() == "org.freedesktop.DBus.Error.AccessDenied" =>
            {
                KeystoreError::KeychainAccessDenied
            }
            // `Unavailable` is secret-service's one word for both "no bus" and
            // "nobody serves org.freedesktop.secrets", and a dead provider shows
            // as a plain D-Bus error; ask the bus itself which it is.
            SsError::Unavailable | SsError::Zbus(_) | SsError::ZbusFdo(_) | SsError::NoResult => {
                match probe_bus() {
                    Bus::Unreachable(reason) => KeystoreError::NoSessionBus { reason },
                    Bus::NoProvider => KeystoreError::NoSecretService,
                    // `NoResult` with a provider present: the collection the
                    // entry belongs in (the "default" alias) does not exist, as
                    // with a gnome-keyring started by the bus on a machine
                    // where no login keyring was ever made.
                    Bus::Provider if matches!(err, SsError::NoResult) => KeystoreError::KeychainNoCollection,
                    Bus::Provider => KeystoreError::KeychainFailure { detail: err.to_string() },
                }
            }
            other => KeystoreError::KeychainFailure { detail: other.to_string() },
        }
    }

    enum Bus {
        Unreachable(String),
        NoProvider,
        Provider,
    }

    /// Connects to the session bus the way zbus (and so keyring) does, then
    /// asks whether anyone owns the Secret Service's name.
    fn probe_bus() -> Bus {
        let conn = match zbus::blocking::Connection::session() {
            Ok(conn) => conn,
            Err(e) => return Bus::Unreachable(unreachable_reason(&e)),
        };
        let Ok(dbus) = zbus::blocking::fdo::DBusProxy::new(&conn) else {
            return Bus::Unreachable("the session bus does not answer".into());
        };
        let name = zbus::names::BusName::try_from(SECRETS_NAME).expect("a valid well-known name");
        // keyring's own call already asked the bus to start an activatable
        // provider, so "still no owner" covers both none installed and one
        // that failed to start: for the person, there is no keychain.
        match dbus.name_has_owner(name) {
            Ok(true) => Bus::Provider,
            Ok(false) => Bus::NoProvider,
            Err(e) => Bus::Unreachable(format!("the session bus does not answer: {e}")),
        }
    }

    fn unreachable_reason(error: &zbus::Error) -> String {
        match std::env::var("DBUS_SESSION_BUS_ADDRESS") {
            // zbus's fallback when the variable is unset (zbus::Address::session).
            Err(_) => {
                let runtime_dir = std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| "/run/user/<uid>".into());
                format!("DBUS_SESSION_BUS_ADDRESS is not set and there is no bus at {runtime_dir}/bus: {error}")
            }
            Ok(address) => format!("nothing answers at DBUS_SESSION_BUS_ADDRESS={address}: {error}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_vanished_provider_or_a_failed_call_is_retried() {
        assert!(is_transient(&KeystoreError::NoSecretService));
        assert!(is_transient(&KeystoreError::KeychainFailure { detail: "connection reset".into() }));
        for settled in [
            KeystoreError::NoSessionBus { reason: "unset".into() },
            KeystoreError::KeychainLocked,
            KeystoreError::KeychainNoCollection,
            KeystoreError::KeychainAccessDenied,
            KeystoreError::CorruptKey { location: KeyLocation::File("/k".into()), problem: "p" },
        ] {
            assert!(!is_transient(&settled), "{settled}");
        }
        assert!(RETRY_DELAYS.iter().sum::<Duration>() <= Duration::from_secs(2));
    }
}
