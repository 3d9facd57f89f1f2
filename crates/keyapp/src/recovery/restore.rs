//! Restore on a new computer: the recovery phrase brings the same principal
//! back into an empty data directory, and a backup (optional) its records.
//!
//! Everything is checked before anything is written: the words, the backup's
//! encryption and integrity, that it is this principal's, and its schema
//! version. The records are prepared in an owner-only folder of the data
//! directory (migrated if older, pairings paused), the key is then kept, and
//! the records are moved into place last. A refusal leaves the data directory
//! as it was.

use super::backup::{self, BackupError, BackupHeader};
use super::{KitKind, PhraseError, RecoveryKit};
use crate::config::KeystoreBackend;
use crate::keystore::{self, KeystoreError, PassphraseSource, RECORDS_FILE_NAME};
use crate::store::snapshot::{self, Paused};
use crate::store::{Store, StoreError};
use secrecy::{ExposeSecret, SecretString};
use std::path::{Path, PathBuf};

/// What to restore, and where.
pub struct Restore {
    pub data_dir: PathBuf,
    pub backend: KeystoreBackend,
    /// The file keystore's passphrase for the restored key.
    pub passphrase: PassphraseSource,
    /// The 24 words, as typed.
    pub words: SecretString,
    /// The encrypted backup of the records, if the person has one.
    pub backup: Option<PathBuf>,
    /// The kit is the seed of a key made before recovery phrases (its kit page
    /// says so). With a backup this is found out from the backup itself.
    pub key_seed: bool,
}

/// What came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    pub principal: String,
    pub kind: KitKind,
    /// The backup's header and what the restore changed, when one was given.
    pub records: Option<(BackupHeader, Paused)>,
}

/// Why nothing was restored. One sentence each, with its remedy.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RestoreError {
    #[error("the recovery phrase cannot be read: {0}; type the 24 words of your recovery kit again")]
    Phrase(#[from] PhraseError),
    #[error(transparent)]
    Backup(#[from] BackupError),
    /// The backup opens with these words but holds another principal's records.
    #[error("{} holds the records of another principal ({found}) than this recovery phrase's ({expected}), so nothing was restored; use the backup made with this recovery kit", path.display())]
    AnotherPrincipal { path: PathBuf, found: String, expected: String },
    /// The data directory already holds records.
    #[error("{} already holds records, and a restore never replaces them; restore into a new data directory", path.display())]
    RecordsExist { path: PathBuf },
    #[error(transparent)]
    Keystore(#[from] KeystoreError),
    #[error("the restored records could not be prepared ({0}), so nothing was restored; try again")]
    Store(#[from] StoreError),
    #[error("cannot {action} {} ({error}), so nothing was restored; check the data directory's owner and permissions", path.display())]
    Io { action: &'static str, path: PathBuf, error: std::io::Error },
}

impl RestoreError {
    /// The window's sentence for this refusal (locales/*/ui.ftl): the
    /// person's words, without paths or versions.
    pub fn message_id(&self) -> &'static str {
        match self {
            RestoreError::Phrase(_) => "restore-refused-phrase",
            RestoreError::Backup(BackupError::WrongPhrase { .. }) => "restore-refused-wrong-phrase",
            RestoreError::Backup(BackupError::Tampered { .. }) => "restore-refused-tampered",
            RestoreError::Backup(BackupError::NotABackup { .. }) => "restore-refused-not-backup",
            RestoreError::Backup(BackupError::NewerSchema { .. }) => "restore-refused-newer",
            RestoreError::Backup(_) => "restore-refused-backup-unreadable",
            RestoreError::AnotherPrincipal { .. } => "restore-refused-another-principal",
            RestoreError::RecordsExist { .. } => "restore-refused-records-exist",
            RestoreError::Keystore(_) | RestoreError::Store(_) | RestoreError::Io { .. } => "restore-refused-failed",
        }
    }
}

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> RestoreError {
    let path = path.to_owned();
    move |error| RestoreError::Io { action, path, error }
}

/// Restores the principal (and its records) at `now`; see the module's doc.
pub async fn restore(request: Restore, now: i64) -> Result<Restored, RestoreError> {
    let records_path = request.data_dir.join(RECORDS_FILE_NAME);
    if records_path.exists() {
        return Err(RestoreError::RecordsExist { path: request.data_dir.clone() });
    }
    let kind = if request.key_seed { KitKind::KeySeed } else { KitKind::Phrase };
    let mut kit = RecoveryKit::parse(request.words.expose_secret(), kind)?;
    let opened = match &request.backup {
        Some(path) => {
            let (header, db) = backup::read(&kit.backup_identity(), path)?;
            kit = kit_of(kit, &header, path)?;
            let supported = snapshot::current_schema_version();
            if header.schema_version > supported {
                return Err(
                    BackupError::NewerSchema { path: path.clone(), found: header.schema_version, supported }.into()
                );
            }
            Some((header, db))
        }
        None => None,
    };
    crate::private_files::create_dir(&request.data_dir).map_err(io("create", &request.data_dir))?;
    let private = tempfile::Builder::new()
        .prefix(".restore-")
        .tempdir_in(&request.data_dir)
        .map_err(io("make a private folder in", &request.data_dir))?;
    crate::private_files::restrict(private.path()).map_err(io("protect", private.path()))?;
    let prepared = private.path().join(RECORDS_FILE_NAME);
    let records = match opened {
        Some((header, db)) => {
            crate::private_files::write(&prepared, &db).map_err(io("write", &prepared))?;
            Some((header, prepare(&prepared, now).await?))
        }
        None => None,
    };
    let key = keystore::restore(request.backend, &request.data_dir, request.passphrase, kit.clone()).await?;
    if records.is_some() {
        // A hard link, not a rename: it fails rather than replace records
        // that appeared meanwhile. The private folder then goes with its copy.
        std::fs::hard_link(&prepared, &records_path).map_err(io("move the records into", &records_path))?;
    }
    private.close().map_err(io("remove the temporary folder in", &request.data_dir))?;
    tracing::info!(principal = key.principal_id(), records = records.is_some(), "restored from the recovery kit");
    Ok(Restored { principal: key.principal_id().to_owned(), kind: kit.kind(), records })
}

/// The kit reading whose principal the backup is: the words as typed, or,
/// for a kit made before phrases, the same words as a key seed.
fn kit_of(kit: RecoveryKit, header: &BackupHeader, path: &Path) -> Result<RecoveryKit, RestoreError> {
    if kit.principal_id() == header.principal {
        return Ok(kit);
    }
    let other = match kit.kind() {
        KitKind::Phrase => KitKind::KeySeed,
        KitKind::KeySeed => KitKind::Phrase,
    };
    let other = RecoveryKit::from_bytes(other, kit.secret());
    if other.principal_id() == header.principal {
        return Ok(other);
    }
    Err(RestoreError::AnotherPrincipal {
        path: path.to_owned(),
        found: header.principal.clone(),
        expected: kit.principal_id(),
    })
}

/// Brings the records at `path` to this build's schema (an older backup is
/// migrated), checks them, pauses the pairings, and folds them into one file.
async fn prepare(path: &Path, now: i64) -> Result<Paused, RestoreError> {
    // Read first without migrating, so a damaged file is not half migrated.
    snapshot::schema_version_of(path).await?;
    let store = Store::open(path).await?;
    if !snapshot::is_intact(&store).await? {
        return Err(StoreError::corrupt(crate::store::Stored::Database, "SQLite's integrity check failed").into());
    }
    let paused = snapshot::pause_pairings(&store, now).await?;
    snapshot::close_for_move(store).await?;
    Ok(paused)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keystore::PrincipalKey;
    use crate::store::testing;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    const NOW: i64 = 1_800_000_000;

    fn pass() -> PassphraseSource {
        PassphraseSource::Fixed("correct horse".into())
    }

    /// A profile as the key app leaves it: a file-kept key and its records,
    /// with a contact and one paired agent.
    async fn profile() -> (tempfile::TempDir, PrincipalKey, Store) {
        let dir = tempfile::tempdir().unwrap();
        let key = keystore::open(KeystoreBackend::File, dir.path(), pass()).await.unwrap();
        let store = Store::open(&dir.path().join(RECORDS_FILE_NAME)).await.unwrap();
        testing::contact(store.pool(), "urn:x", "Ellis").await;
        testing::paired_agent(&store, "j", "Assistant", "f").await;
        (dir, key, store)
    }

    async fn back_up(key: &PrincipalKey, store: &Store, dir: &Path) -> PathBuf {
        let file = dir.join("records.age");
        backup::write(store, &key.backup_recipient(), key.principal_id(), dir, &file, NOW).await.unwrap();
        file
    }

    fn request(data_dir: &Path, words: &str, backup: Option<PathBuf>) -> Restore {
        Restore {
            data_dir: data_dir.to_owned(),
            backend: KeystoreBackend::File,
            passphrase: pass(),
            words: words.into(),
            backup,
            key_seed: false,
        }
    }

    fn words(key: &PrincipalKey) -> String {
        key.kit().phrase().expose_secret().to_owned()
    }

    /// Every file under `dir` (none when it does not exist).
    fn files(dir: &Path) -> Vec<PathBuf> {
        if !dir.exists() {
            return Vec::new();
        }
        crate::keystore::tests::files_under(dir).into_iter().map(|(p, _)| p).collect()
    }

    #[tokio::test]
    async fn the_phrase_and_a_backup_bring_back_the_same_principal_with_its_records() {
        let (old, key, store) = profile().await;
        let file = back_up(&key, &store, old.path()).await;
        let new = tempfile::tempdir().unwrap();
        let data_dir = new.path().join("data");

        let restored = restore(request(&data_dir, &words(&key), Some(file)), NOW + 10).await.unwrap();
        assert_eq!(restored.principal, key.principal_id());
        let (header, paused) = restored.records.unwrap();
        assert_eq!(header.principal, key.principal_id());
        assert_eq!(paused, Paused { pairings: 1, requests: 0 });

        // The key app opens it as its own: the same principal, the same records.
        let reopened = keystore::open(KeystoreBackend::File, &data_dir, pass()).await.unwrap();
        assert_eq!(reopened.principal_id(), key.principal_id());
        assert_eq!(reopened.kit().phrase().expose_secret(), words(&key));
        let records = Store::open(&data_dir.join(RECORDS_FILE_NAME)).await.unwrap();
        assert_eq!(testing::contact_names(&records).await, ["Ellis"]);
        assert_eq!(testing::agent_statuses(&records).await, ["unpaired"], "each agent is confirmed again");
        // Only the key and the records: no temporary folder is left.
        let mut left: Vec<_> = files(&data_dir).iter().map(|p| p.file_name().unwrap().to_owned()).collect();
        left.sort();
        assert!(
            left.iter().all(|n| n == "principal.key.age" || n.to_string_lossy().starts_with("keyapp.db")),
            "{left:?}"
        );
    }

    #[tokio::test]
    async fn the_phrase_alone_brings_back_the_principal() {
        let (_old, key, _store) = profile().await;
        let new = tempfile::tempdir().unwrap();
        let restored = restore(request(new.path(), &words(&key), None), NOW).await.unwrap();
        assert_eq!((restored.principal.as_str(), restored.records), (key.principal_id(), None));
        assert!(!new.path().join(RECORDS_FILE_NAME).exists());
    }

    #[tokio::test]
    async fn a_wrong_phrase_or_a_tampered_backup_writes_nothing() {
        let (old, key, store) = profile().await;
        let file = back_up(&key, &store, old.path()).await;
        let new = tempfile::tempdir().unwrap();
        let data_dir = new.path().join("data");

        let other = RecoveryKit::generate(&mut rand_core::OsRng);
        let err = restore(request(&data_dir, other.phrase().expose_secret(), Some(file.clone())), NOW).await;
        assert!(matches!(err, Err(RestoreError::Backup(BackupError::WrongPhrase { .. }))), "{err:?}");
        assert_eq!(files(&data_dir), Vec::<PathBuf>::new());

        // A typo: no word of the list ends in "q", so this one is refused
        // whatever the kit (two words swapped would pass the checksum about
        // once in 256 kits and be refused as another person's phrase instead).
        let mut typo = words(&key).split(' ').map(str::to_owned).collect::<Vec<_>>();
        typo[0].push('q');
        let err = restore(request(&data_dir, &typo.join(" "), Some(file.clone())), NOW).await;
        assert!(matches!(err, Err(RestoreError::Phrase(PhraseError::UnknownWord { position: 1 }))), "{err:?}");
        assert_eq!(files(&data_dir), Vec::<PathBuf>::new());

        let mut bytes = std::fs::read(&file).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&file, bytes).unwrap();
        let err = restore(request(&data_dir, &words(&key), Some(file)), NOW).await;
        assert!(matches!(err, Err(RestoreError::Backup(BackupError::Tampered { .. }))), "{err:?}");
        assert_eq!(files(&data_dir), Vec::<PathBuf>::new());
        assert!(err.unwrap_err().to_string().contains("nothing was restored"));
    }

    #[tokio::test]
    async fn a_backup_of_another_principal_is_refused() {
        let (old, key, store) = profile().await;
        // Encrypted to this kit's backup key, but saying it is someone else's.
        let file = old.path().join("other.age");
        backup::write(
            &store,
            &key.backup_recipient(),
            "urn:schcp:principal:jwk-thumbprint:other",
            old.path(),
            &file,
            NOW,
        )
        .await
        .unwrap();
        let new = tempfile::tempdir().unwrap();
        let err = restore(request(new.path(), &words(&key), Some(file)), NOW).await;
        assert!(matches!(err, Err(RestoreError::AnotherPrincipal { .. })), "{err:?}");
        assert_eq!(files(new.path()), Vec::<PathBuf>::new());
    }

    #[tokio::test]
    async fn a_newer_schema_is_refused_and_an_older_one_migrated() {
        let (old, key, store) = profile().await;
        let future = snapshot::current_schema_version() + 1;
        testing::migrated_by_newer(&store, future).await;
        let file = back_up(&key, &store, old.path()).await;
        let new = tempfile::tempdir().unwrap();
        let err = restore(request(new.path(), &words(&key), Some(file)), NOW).await;
        assert!(
            matches!(err, Err(RestoreError::Backup(BackupError::NewerSchema { found, .. })) if found == future),
            "{err:?}"
        );
        assert_eq!(files(new.path()), Vec::<PathBuf>::new());

        // Records of migration 0012's time (before pairings kept their user).
        let older_dir = tempfile::tempdir().unwrap();
        let older_path = older_dir.path().join("older.db");
        snapshot::older_database(&older_path, 13).await;
        let older = {
            let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&older_path);
            sqlx::SqlitePool::connect_with(options).await.unwrap()
        };
        testing::contact(&older, "urn:y", "Sam").await;
        older.close().await;
        let older = snapshot::open_as_is(&older_path).await;
        let file = older_dir.path().join("older.age");
        backup::write(&older, &key.backup_recipient(), key.principal_id(), older_dir.path(), &file, NOW).await.unwrap();
        let restored = restore(request(&new.path().join("d"), &words(&key), Some(file)), NOW).await.unwrap();
        assert_eq!(restored.records.unwrap().0.schema_version, 12);
        let path = new.path().join("d").join(RECORDS_FILE_NAME);
        assert_eq!(snapshot::schema_version_of(&path).await.unwrap(), snapshot::current_schema_version());
        let records = Store::open(&path).await.unwrap();
        assert_eq!(testing::contact_names(&records).await, ["Sam"]);
    }

    #[tokio::test]
    async fn a_profile_with_a_key_or_records_is_never_replaced() {
        let (old, key, store) = profile().await;
        let file = back_up(&key, &store, old.path()).await;
        let err = restore(request(old.path(), &words(&key), Some(file)), NOW).await;
        assert!(matches!(err, Err(RestoreError::RecordsExist { .. })), "{err:?}");
        // A key without records (a first start that made a key): the key stays.
        let keyed = tempfile::tempdir().unwrap();
        let theirs = keystore::open(KeystoreBackend::File, keyed.path(), pass()).await.unwrap();
        let err = restore(request(keyed.path(), &words(&key), None), NOW).await;
        assert!(matches!(err, Err(RestoreError::Keystore(KeystoreError::KeyExists { .. }))), "{err:?}");
        let still = keystore::open(KeystoreBackend::File, keyed.path(), pass()).await.unwrap();
        assert_eq!(still.principal_id(), theirs.principal_id());
    }

    /// A key made before recovery phrases: its kit is its seed, in the same
    /// words; a backup tells which reading it is, and without one the person says.
    #[tokio::test]
    async fn a_key_seed_kit_restores_its_own_principal() {
        let seed_kit = RecoveryKit::from_bytes(KitKind::KeySeed, &[42u8; 32]);
        let legacy = PrincipalKey::from_kit(seed_kit.clone(), keystore::KeyLocation::File("/old".into()));
        let (old, _, store) = profile().await;
        let file = back_up(&legacy, &store, old.path()).await;
        let typed = seed_kit.phrase().expose_secret().to_owned();

        let with_backup = tempfile::tempdir().unwrap();
        let restored = restore(request(with_backup.path(), &typed, Some(file)), NOW).await.unwrap();
        assert_eq!((restored.principal.as_str(), restored.kind), (legacy.principal_id(), KitKind::KeySeed));

        let alone = tempfile::tempdir().unwrap();
        let restored = restore(Restore { key_seed: true, ..request(alone.path(), &typed, None) }, NOW).await.unwrap();
        assert_eq!(restored.principal, legacy.principal_id());
        let reopened = keystore::open(KeystoreBackend::File, alone.path(), pass()).await.unwrap();
        assert_eq!(reopened.kit().kind(), KitKind::KeySeed);
    }

    /// A backup taken while the key app writes holds whole transactions only:
    /// each writes two rows, and every restored copy has both or neither.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_backup_during_concurrent_writes_restores_consistent_records() {
        use std::sync::atomic::AtomicU32;
        let (old, key, store) = profile().await;
        let stop = Arc::new(AtomicBool::new(false));
        let committed = Arc::new(AtomicU32::new(0));
        let writer = {
            let (store, stop, committed) = (store.clone(), stop.clone(), committed.clone());
            tokio::spawn(async move {
                // Bounded, in case the backups below never stop it.
                for n in 0..1_000_000u32 {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let mut tx = store.begin().await.unwrap();
                    for side in ["a", "b"] {
                        testing::contact(&mut *tx, &format!("urn:{side}:{n}"), "x").await;
                    }
                    tx.commit().await.unwrap();
                    committed.store(n + 1, Ordering::Relaxed);
                }
            })
        };
        while committed.load(Ordering::Relaxed) < 50 {
            tokio::task::yield_now().await;
        }
        let mut seen = Vec::new();
        for i in 0..4 {
            let file = old.path().join(format!("b{i}.age"));
            backup::write(&store, &key.backup_recipient(), key.principal_id(), old.path(), &file, NOW).await.unwrap();
            // The records half of a restore (the key's half is tested above).
            let (_, db) = backup::read(&key.kit().backup_identity(), &file).unwrap();
            let new = tempfile::tempdir().unwrap();
            let path = new.path().join(RECORDS_FILE_NAME);
            crate::private_files::write(&path, &db).unwrap();
            prepare(&path, NOW).await.unwrap();
            let records = Store::open(&path).await.unwrap();
            assert!(snapshot::is_intact(&records).await.unwrap());
            let (a, b) = (
                testing::contacts_prefixed(&records, "urn:a:").await,
                testing::contacts_prefixed(&records, "urn:b:").await,
            );
            assert_eq!(a, b, "backup {i} holds half a transaction");
            seen.push(a);
        }
        stop.store(true, Ordering::Relaxed);
        writer.await.unwrap();
        let written = i64::from(committed.load(Ordering::Relaxed));
        // Taken amid the writes: each after the first 50, none after the last.
        assert!(seen.iter().all(|n| *n >= 50 && *n <= written), "{seen:?} of {written}");
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    }
}
