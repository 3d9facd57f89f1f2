//! The file backend (`keystore.backend = "file"`), for machines without a
//! keychain: the 32-byte seed encrypted with age's scrypt (passphrase)
//! recipient in `<data_dir>/principal.key.age`, mode 0600, written through a
//! temporary file and a rename so a crash never leaves a half-written key.
//! There is no plaintext form of the key on disk at any moment.
//!
//! The age payload is the 32-byte seed of a key made before recovery
//! phrases, or [`PHRASE_TAG`] and the 32 bytes of the phrase a key derives from.

use super::{
    blocking, KeyLocation, KeystoreError, KitKind, PassphraseAsker, PassphraseProblem, PassphrasePrompt,
    PassphrasePurpose as Purpose, PassphraseSource, PrincipalKey, RecoveryKit, KEY_FILE_NAME,
};
use secrecy::{ExposeSecret, SecretString};
use std::io::{ErrorKind, Read, Write};
use std::path::Path;
use zeroize::Zeroizing;

/// scrypt's log2(N) for a new key file: 2^18 (256 MiB, about a second here),
/// what age calibrates to on a desktop machine. Fixed rather than age's
/// per-run calibration, which measures the machine at that moment: a key file
/// written while idle was then refused as "far above this machine's" when
/// opened under load.
const WORK_FACTOR: u8 = 18;

/// The most a key file may ask of this machine (2^20: 1 GiB, a few seconds). A
/// file asking more is refused rather than left to exhaust memory.
const MAX_WORK_FACTOR: u8 = 20;

/// The payload's tag for a key made from a recovery phrase (version 1).
const PHRASE_TAG: &[u8; 8] = b"SCHCPRP1";

pub(super) async fn open(data_dir: &Path, source: PassphraseSource) -> Result<PrincipalKey, KeystoreError> {
    let path = data_dir.join(KEY_FILE_NAME);
    // scrypt is about a second of CPU by design, and a prompt waits on the
    // terminal: both belong off the async runtime.
    blocking(move || load_or_create(&path, &source)).await
}

fn load_or_create(path: &Path, source: &PassphraseSource) -> Result<PrincipalKey, KeystoreError> {
    match std::fs::read(path) {
        Ok(ciphertext) => match source {
            PassphraseSource::Ask(asker) => ask_until_unlocked(asker, path, &ciphertext),
            _ => {
                let passphrase = passphrase(source, Purpose::Unlock, path)?;
                decrypt(path, &ciphertext, passphrase)
            }
        },
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let passphrase = match source {
                PassphraseSource::Ask(asker) => ask_new(asker, path)?,
                _ => passphrase(source, Purpose::Create, path)?,
            };
            // Made now only if this call wrote it, not if another key app on
            // this profile wrote it first (`OnExisting::Open`).
            create(path, passphrase, PrincipalKey::generate(KeyLocation::File(path.to_owned())), OnExisting::Open)
                .map(|(key, written)| if written { key.made_now() } else { key })
        }
        Err(error) => Err(KeystoreError::Io { action: "read", path: path.to_owned(), error }),
    }
}

/// A window asks: a wrong passphrase is said so and asked again (the file is
/// untouched); only the person giving up ends it.
fn ask_until_unlocked(asker: &PassphraseAsker, path: &Path, ciphertext: &[u8]) -> Result<PrincipalKey, KeystoreError> {
    let mut problem = None;
    loop {
        let prompt = PassphrasePrompt { purpose: Purpose::Unlock, problem, path: path.to_owned() };
        let answer = asker(&prompt).ok_or(KeystoreError::PassphraseNotGiven)?;
        if answer.passphrase.expose_secret().is_empty() {
            problem = Some(PassphraseProblem::Empty);
            continue;
        }
        match decrypt(path, ciphertext, answer.passphrase) {
            Err(KeystoreError::WrongPassphrase { .. }) => problem = Some(PassphraseProblem::Wrong),
            other => return other,
        }
    }
}

/// A new key's passphrase from a window: typed twice, never empty; asked
/// again until both agree, so a typo cannot lock the person out of a new key.
fn ask_new(asker: &PassphraseAsker, path: &Path) -> Result<SecretString, KeystoreError> {
    let mut problem = None;
    loop {
        let prompt = PassphrasePrompt { purpose: Purpose::Create, problem, path: path.to_owned() };
        let answer = asker(&prompt).ok_or(KeystoreError::PassphraseNotGiven)?;
        let same = answer.confirmation.as_ref().is_some_and(|c| c.expose_secret() == answer.passphrase.expose_secret());
        problem = if answer.passphrase.expose_secret().is_empty() {
            Some(PassphraseProblem::Empty)
        } else if !same {
            Some(PassphraseProblem::Mismatch)
        } else {
            return Ok(answer.passphrase);
        };
    }
}

/// Writes a key restored from its recovery kit; a key file already there is
/// never replaced (that would change the principal id of this profile).
pub(super) async fn restore(
    data_dir: &Path,
    source: PassphraseSource,
    kit: RecoveryKit,
) -> Result<PrincipalKey, KeystoreError> {
    let path = data_dir.join(KEY_FILE_NAME);
    blocking(move || {
        if path.exists() {
            return Err(KeystoreError::KeyExists { location: KeyLocation::File(path) });
        }
        let passphrase = match &source {
            PassphraseSource::Ask(asker) => ask_new(asker, &path)?,
            _ => passphrase(&source, Purpose::Create, &path)?,
        };
        let key = PrincipalKey::from_kit(kit, KeyLocation::File(path.clone()));
        create(&path, passphrase, key, OnExisting::Refuse).map(|(key, _)| key)
    })
    .await
}

/// What `create` does when another key file appeared meanwhile.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OnExisting {
    /// Opens it: two key apps started at once on a new profile share one key.
    Open,
    /// Refuses: a restore never replaces a key.
    Refuse,
}

/// The age payload for `kit` (see the module's doc).
fn payload(kit: &RecoveryKit) -> Zeroizing<Vec<u8>> {
    match kit.kind() {
        KitKind::KeySeed => Zeroizing::new(kit.secret().to_vec()),
        KitKind::Phrase => Zeroizing::new([&PHRASE_TAG[..], &kit.secret()[..]].concat()),
    }
}

/// The kit an age payload holds, or what is wrong with it.
fn kit_from_payload(payload: &[u8]) -> Result<RecoveryKit, &'static str> {
    let (kind, bytes) = match payload.len() {
        32 => (KitKind::KeySeed, payload),
        40 if payload.starts_with(PHRASE_TAG) => (KitKind::Phrase, &payload[PHRASE_TAG.len()..]),
        _ => return Err("it is not a 32-byte Ed25519 seed"),
    };
    let bytes: &[u8; 32] = bytes.try_into().expect("32 bytes by the match above");
    Ok(RecoveryKit::from_bytes(kind, bytes))
}

/// Writes `key` to `path`, encrypted with `passphrase`; with whether this call
/// wrote it (`false`: another key app on the profile wrote one first, which
/// `OnExisting::Open` opens instead).
fn create(
    path: &Path,
    passphrase: SecretString,
    key: PrincipalKey,
    on_existing: OnExisting,
) -> Result<(PrincipalKey, bool), KeystoreError> {
    // The work factor is what stands between a stolen file and the key.
    let mut recipient = age::scrypt::Recipient::new(passphrase.clone());
    recipient.set_work_factor(WORK_FACTOR);
    let ciphertext = age::encrypt(&recipient, &payload(key.kit())).map_err(|e| KeystoreError::Io {
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
        Err(e) if e.error.kind() == ErrorKind::AlreadyExists && on_existing == OnExisting::Refuse => {
            return Err(KeystoreError::KeyExists { location: KeyLocation::File(path.to_owned()) });
        }
        Err(e) if e.error.kind() == ErrorKind::AlreadyExists => {
            drop(e.file);
            let ciphertext = std::fs::read(path).map_err(io("read", path))?;
            return decrypt(path, &ciphertext, passphrase).map(|key| (key, false));
        }
        Err(e) => return Err(KeystoreError::Io { action: "write", path: path.to_owned(), error: e.error }),
    }
    // The rename is durable only once the directory entry is.
    #[cfg(unix)]
    std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(io("flush", dir))?;
    Ok((key, true))
}

fn decrypt(path: &Path, ciphertext: &[u8], passphrase: SecretString) -> Result<PrincipalKey, KeystoreError> {
    let location = KeyLocation::File(path.to_owned());
    let corrupt = |problem: &'static str| KeystoreError::CorruptKey { location: location.clone(), problem };
    let mut identity = age::scrypt::Identity::new(passphrase);
    identity.set_max_work_factor(MAX_WORK_FACTOR);
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
    Ok(PrincipalKey::from_kit(kit_from_payload(&seed).map_err(corrupt)?, location))
}

/// The passphrase from its source. Never empty: an empty passphrase would be a
/// plaintext key with extra steps.
fn passphrase(source: &PassphraseSource, purpose: Purpose, path: &Path) -> Result<SecretString, KeystoreError> {
    let passphrase = match source {
        // Removed as it is read, so no child of the key app inherits it.
        PassphraseSource::Env(var) => match super::take_env(var) {
            Some(value) if !value.is_empty() => SecretString::from(value),
            _ => return Err(KeystoreError::PassphraseMissing { var: var.clone() }),
        },
        PassphraseSource::Fixed(passphrase) => passphrase.clone(),
        PassphraseSource::Prompt => prompt(purpose, path)?,
        // load_or_create asks through the window itself, with retries.
        PassphraseSource::Ask(_) => unreachable!("a window's passphrase is asked by ask_until_unlocked or ask_new"),
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
        // The work factor is the fixed one, not this moment's calibration.
        let stanza = bytes.split(|b| *b == b'\n').nth(1).unwrap();
        let log_n = std::str::from_utf8(stanza).unwrap().rsplit(' ').next().unwrap();
        assert_eq!(log_n, WORK_FACTOR.to_string(), "{}", String::from_utf8_lossy(stanza));
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

    /// A key file from before recovery phrases holds the bare seed: it opens as
    /// the same principal, and its kit is that seed; a new key is a phrase's.
    #[tokio::test]
    async fn a_key_file_from_before_phrases_opens_as_its_seed() {
        let dir = tempfile::tempdir().unwrap();
        let mut recipient = age::scrypt::Recipient::new(SecretString::from("pw"));
        recipient.set_work_factor(10);
        std::fs::write(dir.path().join(KEY_FILE_NAME), age::encrypt(&recipient, &[3u8; 32]).unwrap()).unwrap();
        let key = super::super::open(KeystoreBackend::File, dir.path(), fixed("pw")).await.unwrap();
        assert_eq!(key.kit().kind(), KitKind::KeySeed);
        assert_eq!(key.principal_id(), RecoveryKit::from_bytes(KitKind::KeySeed, &[3u8; 32]).principal_id());

        let new = tempfile::tempdir().unwrap();
        let made = super::super::open(KeystoreBackend::File, new.path(), fixed("pw")).await.unwrap();
        assert_eq!(made.kit().kind(), KitKind::Phrase);
        let again = super::super::open(KeystoreBackend::File, new.path(), fixed("pw")).await.unwrap();
        assert_eq!((again.kit().kind(), again.principal_id()), (KitKind::Phrase, made.principal_id()));
        assert_eq!(made.kit().principal_id(), made.principal_id());
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

    /// A window that answers from a script and records what it was asked.
    fn window(
        answers: &[Option<(&str, Option<&str>)>],
    ) -> (PassphraseSource, std::sync::Arc<std::sync::Mutex<Vec<PassphrasePrompt>>>) {
        use std::sync::{Arc, Mutex};
        let script: Mutex<std::collections::VecDeque<_>> =
            Mutex::new(answers.iter().map(|a| a.map(|(p, c)| (p.to_owned(), c.map(str::to_owned)))).collect());
        let asked = Arc::new(Mutex::new(Vec::new()));
        let log = asked.clone();
        let asker: super::super::PassphraseAsker = Arc::new(move |prompt: &PassphrasePrompt| {
            log.lock().unwrap().push(prompt.clone());
            let (passphrase, confirmation) = script.lock().unwrap().pop_front().expect("asked more than scripted")?;
            Some(super::super::PassphraseAnswer {
                passphrase: SecretString::from(passphrase),
                confirmation: confirmation.map(SecretString::from),
            })
        });
        (PassphraseSource::Ask(asker), asked)
    }

    fn problems(asked: &std::sync::Mutex<Vec<PassphrasePrompt>>) -> Vec<(Purpose, Option<PassphraseProblem>)> {
        asked.lock().unwrap().iter().map(|p| (p.purpose, p.problem)).collect()
    }

    #[tokio::test]
    async fn a_window_sets_the_passphrase_twice_and_is_asked_again_until_both_agree() {
        let dir = tempfile::tempdir().unwrap();
        let (source, asked) = window(&[Some(("one", Some("two"))), Some(("", Some(""))), Some(("same", Some("same")))]);
        let key = super::super::open(KeystoreBackend::File, dir.path(), source).await.unwrap();
        use PassphraseProblem::*;
        assert_eq!(
            problems(&asked),
            [(Purpose::Create, None), (Purpose::Create, Some(Mismatch)), (Purpose::Create, Some(Empty))]
        );
        // The key is under the passphrase both fields agreed on, and only that one.
        let again = super::super::open(KeystoreBackend::File, dir.path(), fixed("same")).await.unwrap();
        assert_eq!(again.jwk(), key.jwk());
        let err = super::super::open(KeystoreBackend::File, dir.path(), fixed("one")).await.unwrap_err();
        assert!(matches!(err, KeystoreError::WrongPassphrase { .. }), "{err}");
    }

    #[tokio::test]
    async fn a_window_is_told_a_wrong_passphrase_and_asked_again_and_giving_up_starts_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let key = super::super::open(KeystoreBackend::File, dir.path(), fixed("right")).await.unwrap();
        let before = std::fs::read(dir.path().join(KEY_FILE_NAME)).unwrap();
        let (source, asked) = window(&[Some(("wrong", None)), Some(("right", None))]);
        let again = super::super::open(KeystoreBackend::File, dir.path(), source).await.unwrap();
        assert_eq!(again.jwk(), key.jwk());
        assert_eq!(problems(&asked), [(Purpose::Unlock, None), (Purpose::Unlock, Some(PassphraseProblem::Wrong))]);

        // Wrong, then the window is closed: no key, and the file is as it was.
        let (source, asked) = window(&[Some(("wrong", None)), None]);
        let err = super::super::open(KeystoreBackend::File, dir.path(), source).await.unwrap_err();
        assert!(matches!(err, KeystoreError::PassphraseNotGiven), "{err}");
        assert_eq!(asked.lock().unwrap().len(), 2);
        assert_eq!(std::fs::read(dir.path().join(KEY_FILE_NAME)).unwrap(), before);

        // Closed on a first run: no key file is written.
        let fresh = tempfile::tempdir().unwrap();
        let (source, _) = window(&[None]);
        let err = super::super::open(KeystoreBackend::File, fresh.path(), source).await.unwrap_err();
        assert!(matches!(err, KeystoreError::PassphraseNotGiven), "{err}");
        assert!(!fresh.path().join(KEY_FILE_NAME).exists());
    }

    #[tokio::test]
    async fn auto_uses_a_key_file_already_there() {
        // The key file wins before any keychain is asked, so a keychain that
        // appears later never gets a second, different principal.
        let dir = tempfile::tempdir().unwrap();
        let key = super::super::open(KeystoreBackend::File, dir.path(), fixed("pw")).await.unwrap();
        let again = super::super::open(KeystoreBackend::Auto, dir.path(), fixed("pw")).await.unwrap();
        assert_eq!(again.jwk(), key.jwk());
        assert_eq!(again.location(), key.location());
        let err = super::super::open(KeystoreBackend::Auto, dir.path(), fixed("nope")).await.unwrap_err();
        assert!(matches!(err, KeystoreError::WrongPassphrase { .. }), "{err}");
    }
}
