//! The file backend (`keystore.backend = "file"`), for machines without a
//! keychain: the 32-byte seed encrypted with age's scrypt (passphrase)
//! recipient in `<data_dir>/principal.key.age`, mode 0600, written through a
//! temporary file and a rename so a crash never leaves a half-written key.
//! There is no plaintext form of the key on disk at any moment.

use super::{blocking, KeyLocation, KeystoreError, PassphraseSource, PrincipalKey, KEY_FILE_NAME};
use secrecy::{ExposeSecret, SecretString};
use std::io::{ErrorKind, Read, Write};
use std::path::Path;
use zeroize::Zeroizing;

pub(super) async fn open(data_dir: &Path, source: PassphraseSource) -> Result<PrincipalKey, KeystoreError> {
    let path = data_dir.join(KEY_FILE_NAME);
    // scrypt is about a second of CPU by design, and a prompt waits on the
    // terminal: both belong off the async runtime.
    blocking(move || load_or_create(&path, &source)).await
}

/// What the passphrase is asked for; a new key gets it typed twice.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Purpose {
    Unlock,
    Create,
}

fn load_or_create(path: &Path, source: &PassphraseSource) -> Result<PrincipalKey, KeystoreError> {
    match std::fs::read(path) {
        Ok(ciphertext) => {
            let passphrase = passphrase(source, Purpose::Unlock, path)?;
            decrypt(path, &ciphertext, passphrase)
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let passphrase = passphrase(source, Purpose::Create, path)?;
            create(path, passphrase)
        }
        Err(error) => Err(KeystoreError::Io { action: "read", path: path.to_owned(), error }),
    }
}

fn create(path: &Path, passphrase: SecretString) -> Result<PrincipalKey, KeystoreError> {
    let location = KeyLocation::File(path.to_owned());
    let key = PrincipalKey::generate(location);
    // age's default work factor is calibrated to about one second on this
    // machine, which is what stands between a stolen file and the key.
    let recipient = age::scrypt::Recipient::new(passphrase.clone());
    let ciphertext = age::encrypt(&recipient, &key.seed()[..]).map_err(|e| KeystoreError::Io {
        action: "encrypt the key for",
        path: path.to_owned(),
        error: std::io::Error::other(e),
    })?;

    let dir = path.parent().expect("the key file is inside the data directory");
    let io = |action: &'static str, at: &Path| {
        let at = at.to_owned();
        move |error: std::io::Error| KeystoreError::Io { action, path: at, error }
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".principal.key.age.").suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600));
    let mut tmp = builder.tempfile_in(dir).map_err(io("create a temporary file in", dir))?;
    tmp.write_all(&ciphertext).map_err(io("write", tmp.path()))?;
    tmp.as_file().sync_all().map_err(io("flush", tmp.path()))?;
    // No-clobber: if another key app on this profile created the key in the
    // meantime, theirs stands and this one opens it, rather than one of the
    // two running with a key that is no longer on disk.
    match tmp.persist_noclobber(path) {
        Ok(_) => {}
        Err(e) if e.error.kind() == ErrorKind::AlreadyExists => {
            drop(e.file);
            let ciphertext = std::fs::read(path).map_err(io("read", path))?;
            return decrypt(path, &ciphertext, passphrase);
        }
        Err(e) => return Err(KeystoreError::Io { action: "write", path: path.to_owned(), error: e.error }),
    }
    // The rename is durable only once the directory entry is.
    #[cfg(unix)]
    std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(io("flush", dir))?;
    Ok(key)
}

fn decrypt(path: &Path, ciphertext: &[u8], passphrase: SecretString) -> Result<PrincipalKey, KeystoreError> {
    let location = KeyLocation::File(path.to_owned());
    let corrupt = |problem: &'static str| KeystoreError::CorruptKey { location: location.clone(), problem };
    let identity = age::scrypt::Identity::new(passphrase);
    let decryptor = age::Decryptor::new_buffered(ciphertext).map_err(|e| match e {
        age::DecryptError::UnknownFormat => corrupt("it is not an age file this key app can read"),
        _ => corrupt("its age header is damaged"),
    })?;
    if !decryptor.is_scrypt() {
        return Err(corrupt("it is not encrypted under a passphrase"));
    }
    let mut reader = decryptor.decrypt(std::iter::once(&identity as &dyn age::Identity)).map_err(|e| match e {
        // age's scrypt stanza is authenticated, so a failed unwrap is the
        // passphrase (or a file altered at exactly that spot, which no one can tell apart).
        age::DecryptError::DecryptionFailed | age::DecryptError::NoMatchingKeys => {
            KeystoreError::WrongPassphrase { path: path.to_owned() }
        }
        age::DecryptError::ExcessiveWork { .. } => corrupt("its passphrase work factor is far above this machine's"),
        _ => corrupt("its age header is damaged"),
    })?;
    let mut seed = Zeroizing::new(Vec::with_capacity(64));
    reader.read_to_end(&mut seed).map_err(|_| corrupt("its encrypted payload is damaged"))?;
    PrincipalKey::from_seed(&seed, location.clone())
}

/// The passphrase from its source. Never empty: an empty passphrase would be a
/// plaintext key with extra steps.
fn passphrase(source: &PassphraseSource, purpose: Purpose, path: &Path) -> Result<SecretString, KeystoreError> {
    let passphrase = match source {
        PassphraseSource::Env(var) => match std::env::var_os(var).map(|v| v.into_string()) {
            Some(Ok(value)) if !value.is_empty() => SecretString::from(value),
            _ => return Err(KeystoreError::PassphraseMissing { var: var.clone() }),
        },
        PassphraseSource::Fixed(passphrase) => passphrase.clone(),
        PassphraseSource::Prompt => prompt(purpose, path)?,
    };
    if passphrase.expose_secret().is_empty() {
        return Err(KeystoreError::EmptyPassphrase);
    }
    Ok(passphrase)
}

/// Reads the passphrase from the controlling terminal with echo off.
fn prompt(purpose: Purpose, path: &Path) -> Result<SecretString, KeystoreError> {
    let ask = |text: &str| -> Result<SecretString, KeystoreError> {
        rpassword::prompt_password(text).map(SecretString::from).map_err(|error| KeystoreError::NoTerminal { error })
    };
    match purpose {
        Purpose::Unlock => ask(&format!("Passphrase for the SchCP key app's key ({}): ", path.display())),
        Purpose::Create => {
            let first =
                ask(&format!("Choose a passphrase to protect the SchCP key app's new key ({}): ", path.display()))?;
            if first.expose_secret().is_empty() {
                return Err(KeystoreError::EmptyPassphrase);
            }
            let second = ask("Type the same passphrase again: ")?;
            if first.expose_secret() != second.expose_secret() {
                return Err(KeystoreError::PassphraseMismatch);
            }
            Ok(first)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{contains, files_under, seed_spellings};
    use super::*;
    use crate::config::KeystoreBackend;

    fn fixed(p: &str) -> PassphraseSource {
        PassphraseSource::Fixed(SecretString::from(p))
    }

    #[tokio::test]
    async fn the_file_holds_no_trace_of_the_seed_and_is_owner_only() {
        let dir = tempfile::tempdir().unwrap();
        let key = super::super::open(KeystoreBackend::File, dir.path(), fixed("correct horse")).await.unwrap();
        let files = files_under(dir.path());
        assert_eq!(files.len(), 1, "only the key file, no temporary left behind: {files:?}");
        let (path, bytes) = &files[0];
        assert_eq!(path, &dir.path().join(KEY_FILE_NAME));
        assert!(bytes.starts_with(b"age-encryption.org/v1\n-> scrypt "), "an age scrypt file");
        for spelling in seed_spellings(&key) {
            assert!(!contains(bytes, &spelling), "the seed is in the key file");
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "mode {mode:o}");
        }
        assert_eq!(key.location(), &KeyLocation::File(path.clone()));
    }

    #[test]
    fn a_truncated_or_foreign_file_is_corrupt_not_a_wrong_passphrase() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(KEY_FILE_NAME);
        let pass = || SecretString::from("pw");
        let err = decrypt(&path, b"-----BEGIN PRIVATE KEY-----\n", pass()).unwrap_err();
        assert!(matches!(err, KeystoreError::CorruptKey { .. }), "{err}");

        // An age file that holds something other than a 32-byte seed.
        let mut recipient = age::scrypt::Recipient::new(pass());
        recipient.set_work_factor(10);
        let not_a_seed = age::encrypt(&recipient, b"too short").unwrap();
        let err = decrypt(&path, &not_a_seed, pass()).unwrap_err();
        assert!(matches!(err, KeystoreError::CorruptKey { problem: "it is not a 32-byte Ed25519 seed", .. }), "{err}");

        // A damaged payload (past the header) is corruption too.
        let mut seed_file = age::encrypt(&recipient, &[9u8; 32]).unwrap();
        let last = seed_file.len() - 1;
        seed_file[last] ^= 1;
        let err = decrypt(&path, &seed_file, pass()).unwrap_err();
        assert!(matches!(err, KeystoreError::CorruptKey { .. }), "{err}");
    }

    #[test]
    fn empty_passphrases_are_refused() {
        let path = Path::new("/x");
        assert!(matches!(passphrase(&fixed(""), Purpose::Create, path), Err(KeystoreError::EmptyPassphrase)));
        let var = "SCHCP_KEYSTORE_UNIT_TEST_SURELY_UNSET_VAR";
        let err = passphrase(&PassphraseSource::Env(var.into()), Purpose::Unlock, path).unwrap_err();
        assert!(matches!(&err, KeystoreError::PassphraseMissing { var: v } if v == var), "{err}");
        assert!(err.to_string().contains(var), "{err}");
    }
}
