//! The OS keychain backend: the 32-byte seed is the secret of one `keyring`
//! entry, service [`KEYCHAIN_SERVICE`], account [`keychain_account`] of the
//! data directory (Secret Service on Linux over the pure-Rust zbus client,
//! Keychain on macOS, Credential Manager on Windows).

use super::{blocking, keychain_account, KeyLocation, KeystoreError, PrincipalKey, KEYCHAIN_SERVICE};
use std::path::Path;
use std::time::Duration;

/// How long to wait before each new attempt after a transient failure: about
/// two seconds in all, enough for a session manager (systemd's
/// `Restart=on-failure`, a supervisor) to bring a crashed provider back.
const RETRY_DELAYS: [Duration; 3] = [Duration::from_millis(250), Duration::from_millis(500), Duration::from_secs(1)];

pub(super) async fn open(data_dir: &Path) -> Result<PrincipalKey, KeystoreError> {
    let account = keychain_account(data_dir)?;
    let mut delays = RETRY_DELAYS.iter();
    loop {
        let attempt = account.clone();
        // keyring's API is synchronous and, on Linux, drives its own small tokio
        // runtime for the D-Bus calls; calling it on a runtime worker would block
        // the worker (and `block_on` inside a runtime panics), so it runs here.
        match blocking(move || load_or_create(attempt)).await {
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
/// they are reported at once. `load_or_create` is safe to repeat: it reads
/// before it writes, and reads back what it wrote.
fn is_transient(err: &KeystoreError) -> bool {
    matches!(err, KeystoreError::NoSecretService | KeystoreError::KeychainFailure { .. })
}

fn load_or_create(account: String) -> Result<PrincipalKey, KeystoreError> {
    let location = KeyLocation::Keychain { service: KEYCHAIN_SERVICE, account: account.clone() };
    let entry = keyring::Entry::new(KEYCHAIN_SERVICE, &account).map_err(classify)?;
    match entry.get_secret() {
        Ok(seed) => PrincipalKey::from_seed(&zeroize::Zeroizing::new(seed), location),
        Err(keyring::Error::NoEntry) => {
            let fresh = PrincipalKey::generate(location.clone());
            entry.set_secret(&fresh.seed()[..]).map_err(classify)?;
            // Read it back and use what the keychain holds: this proves the
            // key will be there on the next start (a keychain that accepted
            // the write but kept nothing would otherwise give a principal id
            // that silently changes), and if another key app on the same
            // profile created it first, both end up with the stored one.
            let stored = entry.get_secret().map_err(classify)?;
            PrincipalKey::from_seed(&zeroize::Zeroizing::new(stored), location)
        }
        Err(e) => Err(classify(e)),
    }
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
