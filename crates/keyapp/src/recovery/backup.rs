//! The encrypted backup of the records: one file, age-encrypted to the X25519
//! key the recovery kit derives (`RecoveryKit::backup_identity`), holding a
//! one-line JSON header (format, schema version, principal, time) and then the
//! whole SQLite database. The words alone open it on a new computer.
//!
//! The database is copied with `VACUUM INTO` (consistent while the key app
//! writes) into a temporary file inside a fresh owner-only directory of the
//! data directory, read, and removed before the encrypted file is written:
//! no plaintext copy is left on disk, and none is ever outside the data
//! directory, which holds the records in the clear anyway.

use crate::store::{snapshot, Store, StoreError};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

/// The header's `format`: what this file is, and its layout's version.
pub const FORMAT: &str = "schcp-keyapp-backup/1";

/// The largest backup read back; a person's records are far smaller, and a
/// file past this is not one (it would only fill memory).
pub const MAX_BACKUP_BYTES: u64 = 1 << 30;

/// The header's longest line; a longer first line is not a backup's.
const MAX_HEADER: usize = 4096;

/// What a backup says of itself (inside the encryption, so it is authentic).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackupHeader {
    pub format: String,
    /// The newest migration of the records it holds (`store::snapshot`).
    pub schema_version: i64,
    /// The principal whose records these are.
    pub principal: String,
    /// When it was taken (NumericDate).
    pub created_at: i64,
}

/// Why a backup was not written or not read. One sentence each, with its remedy.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackupError {
    /// Not an age file to a recovery key, or not this layout.
    #[error("{} is not a key app backup, so nothing was restored; choose a file that `schcp-keyapp backup` or the automatic backup wrote", path.display())]
    NotABackup { path: PathBuf },
    /// The words are not the ones the backup was made with.
    #[error("the recovery phrase does not open {}, so nothing was restored; check each word against your recovery kit", path.display())]
    WrongPhrase { path: PathBuf },
    /// The file opens but was changed or damaged after it was written.
    #[error("{} was changed or damaged after it was written, so nothing was restored from it; use another backup", path.display())]
    Tampered { path: PathBuf },
    /// The records need a newer key app than this one.
    #[error("{} was made by a newer key app (records version {found}, this one reads up to {supported}), so nothing was restored; install the newer key app and restore again", path.display())]
    NewerSchema { path: PathBuf, found: i64, supported: i64 },
    /// The records could not be copied or read.
    #[error("the records could not be copied ({0}); try again, and if it persists check the data directory")]
    Store(#[from] StoreError),
    /// A file or folder could not be read or written.
    #[error("cannot {action} {} ({error}); check that the folder exists and that you may write there", path.display())]
    Io { action: &'static str, path: PathBuf, error: std::io::Error },
}

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> BackupError {
    let path = path.to_owned();
    move |error| BackupError::Io { action, path, error }
}

/// Writes the backup of `store` to `dest`, encrypted to `recipient`, for
/// `principal`, at `now`. `work_dir` (the data directory) holds the copy while
/// it is read. `dest` is replaced whole or not at all.
pub async fn write(
    store: &Store,
    recipient: &age::x25519::Recipient,
    principal: &str,
    work_dir: &Path,
    dest: &Path,
    now: i64,
) -> Result<BackupHeader, BackupError> {
    let (header, plain) = {
        let private = tempfile::Builder::new()
            .prefix(".backup-")
            .tempdir_in(work_dir)
            .map_err(io("make a private folder in", work_dir))?;
        crate::private_files::restrict(private.path()).map_err(io("protect", private.path()))?;
        let copy = private.path().join("records.db");
        snapshot::copy_into(store, &copy).await?;
        let schema_version = snapshot::schema_version_of(&copy).await?;
        let header = BackupHeader {
            format: FORMAT.to_owned(),
            schema_version,
            principal: principal.to_owned(),
            created_at: now,
        };
        let mut plain = Zeroizing::new(serde_json::to_vec(&header).expect("a header serializes"));
        plain.push(b'\n');
        let db = Zeroizing::new(std::fs::read(&copy).map_err(io("read", &copy))?);
        plain.extend_from_slice(&db);
        // Removed now, before anything else can fail: the copy never outlives this call.
        private.close().map_err(io("remove the temporary copy in", work_dir))?;
        (header, plain)
    };
    let ciphertext = age::encrypt(recipient, &plain).map_err(|e| BackupError::Io {
        action: "encrypt the backup for",
        path: dest.to_owned(),
        error: std::io::Error::other(e),
    })?;
    write_whole(dest, &ciphertext)?;
    Ok(header)
}

/// Writes `bytes` to `dest` through a 0600 temporary file in the same folder
/// and a rename, so a crash leaves the old file or the new one, never half.
fn write_whole(dest: &Path, bytes: &[u8]) -> Result<(), BackupError> {
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".schcp-backup.").suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600));
    let mut tmp = builder.tempfile_in(dir).map_err(io("write a file in", dir))?;
    tmp.write_all(bytes).map_err(io("write", dest))?;
    tmp.as_file().sync_all().map_err(io("write", dest))?;
    tmp.persist(dest).map_err(|e| BackupError::Io { action: "write", path: dest.to_owned(), error: e.error })?;
    Ok(())
}

/// Opens the backup at `path` with `identity`: its header and the database
/// bytes. Refuses a file that is not a backup, is not to this identity, or
/// was altered; the schema version is the restore's to judge.
pub fn read(identity: &age::x25519::Identity, path: &Path) -> Result<(BackupHeader, Zeroizing<Vec<u8>>), BackupError> {
    let not_a_backup = || BackupError::NotABackup { path: path.to_owned() };
    let tampered = || BackupError::Tampered { path: path.to_owned() };
    let size = std::fs::metadata(path).map_err(io("read", path))?.len();
    if size > MAX_BACKUP_BYTES {
        return Err(not_a_backup());
    }
    let ciphertext = std::fs::read(path).map_err(io("read", path))?;
    // What age writes first; anything else was never a backup, rather than a damaged one.
    if !ciphertext.starts_with(b"age-encryption.org/") {
        return Err(not_a_backup());
    }
    let decryptor = age::Decryptor::new_buffered(&ciphertext[..]).map_err(|e| match e {
        age::DecryptError::UnknownFormat => not_a_backup(),
        _ => tampered(),
    })?;
    if decryptor.is_scrypt() {
        return Err(not_a_backup());
    }
    let mut reader = decryptor.decrypt(std::iter::once(identity as &dyn age::Identity)).map_err(|e| match e {
        age::DecryptError::NoMatchingKeys => BackupError::WrongPhrase { path: path.to_owned() },
        _ => tampered(),
    })?;
    let mut plain = Zeroizing::new(Vec::new());
    reader.read_to_end(&mut plain).map_err(|_| tampered())?;
    // Inside the encryption, so a bad header is a file this app never wrote.
    let end = plain.iter().take(MAX_HEADER).position(|b| *b == b'\n').ok_or_else(not_a_backup)?;
    let header: BackupHeader = serde_json::from_slice(&plain[..end]).map_err(|_| not_a_backup())?;
    if header.format != FORMAT {
        return Err(not_a_backup());
    }
    Ok((header, Zeroizing::new(plain[end + 1..].to_vec())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::{KitKind, RecoveryKit};

    async fn store_with_a_contact() -> (tempfile::TempDir, Store) {
        let (dir, store) = crate::store::testing::store().await;
        crate::store::testing::contact(store.pool(), "urn:x", "Ellis").await;
        (dir, store)
    }

    #[tokio::test]
    async fn a_backup_is_encrypted_leaves_no_copy_and_reads_back() {
        let (dir, store) = store_with_a_contact().await;
        let kit = RecoveryKit::generate(&mut rand_core::OsRng);
        let dest = dir.path().join("out").join("records.age");
        std::fs::create_dir(dest.parent().unwrap()).unwrap();
        let before: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        let header =
            write(&store, &kit.backup_identity().to_public(), "urn:p", dir.path(), &dest, 1_800_000_000).await.unwrap();
        let after: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(before, after, "no temporary copy is left in the data directory");
        assert_eq!(std::fs::read_dir(dest.parent().unwrap()).unwrap().count(), 1, "only the backup");
        let bytes = std::fs::read(&dest).unwrap();
        assert!(bytes.starts_with(b"age-encryption.org/v1\n-> X25519 "));
        assert!(!bytes.windows(5).any(|w| w == b"Ellis") && !bytes.windows(6).any(|w| w == b"SQLite"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&dest).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let (read_header, db) = read(&kit.backup_identity(), &dest).unwrap();
        assert_eq!(read_header, header);
        assert_eq!(header.schema_version, snapshot::current_schema_version());
        assert!(db.starts_with(b"SQLite format 3\0"));
    }

    #[tokio::test]
    async fn another_phrase_a_changed_byte_or_another_file_is_refused() {
        let (dir, store) = store_with_a_contact().await;
        let kit = RecoveryKit::generate(&mut rand_core::OsRng);
        let dest = dir.path().join("records.age");
        write(&store, &kit.backup_identity().to_public(), "urn:p", dir.path(), &dest, 1).await.unwrap();

        let other = RecoveryKit::generate(&mut rand_core::OsRng);
        assert!(matches!(read(&other.backup_identity(), &dest), Err(BackupError::WrongPhrase { .. })));
        // The same words read as a key seed open it too: the key derives from the words.
        let same_words = RecoveryKit::from_bytes(KitKind::KeySeed, kit.secret());
        assert!(read(&same_words.backup_identity(), &dest).is_ok());

        let bytes = std::fs::read(&dest).unwrap();
        let altered = dir.path().join("altered.age");
        for at in [bytes.len() - 1, bytes.len() / 2, bytes.len() - 40] {
            let mut changed = bytes.clone();
            changed[at] ^= 0x01;
            std::fs::write(&altered, &changed).unwrap();
            let err = read(&kit.backup_identity(), &altered).unwrap_err();
            assert!(matches!(err, BackupError::Tampered { .. }), "byte {at}: {err}");
        }
        std::fs::write(&altered, &bytes[..bytes.len() - 10]).unwrap();
        assert!(matches!(read(&kit.backup_identity(), &altered), Err(BackupError::Tampered { .. })));

        std::fs::write(&altered, b"SQLite format 3\0 not encrypted").unwrap();
        assert!(matches!(read(&kit.backup_identity(), &altered), Err(BackupError::NotABackup { .. })));
        // An age file of the right key but not a backup's layout.
        let foreign = age::encrypt(&kit.backup_identity().to_public(), b"no header line").unwrap();
        std::fs::write(&altered, foreign).unwrap();
        assert!(matches!(read(&kit.backup_identity(), &altered), Err(BackupError::NotABackup { .. })));
    }
}
