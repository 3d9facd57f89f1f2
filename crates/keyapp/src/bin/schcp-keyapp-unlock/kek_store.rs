//! The KEK files: one per (uid, profile), created once, never rewritten.

use std::ffi::OsStr;
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

/// A KEK's length: XChaCha20-Poly1305's key.
pub(crate) const KEK_LEN: usize = 32;

/// A profile's name: the 16 hex digits of its keychain account
/// (`principal:<16 hex>`), the only file names this helper makes.
const PROFILE_LEN: usize = 16;

#[derive(Debug, thiserror::Error)]
pub(crate) enum UnlockError {
    #[error("usage: schcp-keyapp-unlock PROFILE, run by the key app through pkexec; nothing was released")]
    Usage,
    #[error("the profile name must be 16 lowercase hex digits; nothing was released")]
    BadProfile,
    #[error("this helper runs as root through pkexec only; nothing was released")]
    NotRoot,
    #[error("PKEXEC_UID is missing or not a user id, so the caller is unknown; run the key app, which runs this through pkexec")]
    NoCaller,
    #[error("{} is not a root-only {kind}, so the key it holds cannot be trusted; have an administrator check it", path.display())]
    Unsafe { path: PathBuf, kind: &'static str },
    #[error("cannot {action} {path} ({error}); have an administrator check /var/lib/schcp-keyapp")]
    Io { action: &'static str, path: String, error: std::io::Error },
}

/// A KEK, and whether this call created it.
pub(crate) struct Kek {
    pub(crate) key: Zeroizing<[u8; KEK_LEN]>,
    pub(crate) created: bool,
}

pub(crate) fn profile_name(arg: &OsStr) -> Result<String, UnlockError> {
    let name = arg.to_str().ok_or(UnlockError::BadProfile)?;
    let hex = name.len() == PROFILE_LEN && name.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    hex.then(|| name.to_owned()).ok_or(UnlockError::BadProfile)
}

/// The uid pkexec says asked. Root's own KEKs are fine (tests run as root).
pub(crate) fn caller_uid(value: Option<&OsStr>) -> Result<u32, UnlockError> {
    let text = value.and_then(OsStr::to_str).ok_or(UnlockError::NoCaller)?;
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(UnlockError::NoCaller);
    }
    text.parse().map_err(|_| UnlockError::NoCaller)
}

pub(crate) fn load_or_create(root: &Path, uid: u32, profile: &str) -> Result<Kek, UnlockError> {
    let dir = root.join(uid.to_string());
    for d in [root, &dir] {
        private_dir(d)?;
    }
    let path = dir.join(profile);
    match read(&path)? {
        Some(key) => Ok(Kek { key, created: false }),
        None => create(&dir, &path),
    }
}

/// Creates `dir` 0700 (and its parents) if missing, then insists it is a
/// directory of root's that no one else may enter (not a symlink).
fn private_dir(dir: &Path) -> Result<(), UnlockError> {
    let io = |action| move |error| UnlockError::Io { action, path: dir.display().to_string(), error };
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(io("create"))?;
    let meta = std::fs::symlink_metadata(dir).map_err(io("inspect"))?;
    if !meta.is_dir() || meta.uid() != rustix::process::geteuid().as_raw() || meta.mode() & 0o077 != 0 {
        return Err(UnlockError::Unsafe { path: dir.to_owned(), kind: "directory" });
    }
    Ok(())
}

fn read(path: &Path) -> Result<Option<Zeroizing<[u8; KEK_LEN]>>, UnlockError> {
    let io = |action| move |error| UnlockError::Io { action, path: path.display().to_string(), error };
    // O_NOFOLLOW: a symlink planted here is refused, not followed.
    let mut file = match std::fs::OpenOptions::new().read(true).custom_flags(no_follow()).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io("open")(e)),
    };
    let meta = file.metadata().map_err(io("inspect"))?;
    if !meta.is_file() || meta.uid() != rustix::process::geteuid().as_raw() || meta.mode() & 0o077 != 0 {
        return Err(UnlockError::Unsafe { path: path.to_owned(), kind: "file" });
    }
    let mut key = Zeroizing::new([0u8; KEK_LEN]);
    file.read_exact(&mut key[..]).map_err(io("read"))?;
    if file.read(&mut [0u8; 1]).map_err(io("read"))? != 0 {
        return Err(UnlockError::Unsafe { path: path.to_owned(), kind: "32-byte file" });
    }
    Ok(Some(key))
}

/// A new KEK, written to a temporary file and linked into place without
/// replacing one that another start created first (then that one is used).
fn create(dir: &Path, path: &Path) -> Result<Kek, UnlockError> {
    use rand_core::RngCore;
    let mut key = Zeroizing::new([0u8; KEK_LEN]);
    rand_core::OsRng.fill_bytes(&mut key[..]);
    let io = |action, at: &Path| {
        let at = at.display().to_string();
        move |error| UnlockError::Io { action, path: at, error }
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".kek.").permissions(std::fs::Permissions::from_mode(0o600));
    let mut tmp = builder.tempfile_in(dir).map_err(io("create a file in", dir))?;
    tmp.write_all(&key[..]).map_err(io("write", tmp.path()))?;
    tmp.as_file().sync_all().map_err(io("flush", tmp.path()))?;
    match std::fs::hard_link(tmp.path(), path) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {
            let key = read(path)?.ok_or_else(|| io("read", path)(ErrorKind::NotFound.into()))?;
            return Ok(Kek { key, created: false });
        }
        Err(e) => return Err(io("create", path)(e)),
    }
    std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(io("flush", dir))?;
    Ok(Kek { key, created: true })
}

/// `O_NOFOLLOW`, from rustix's flags rather than a hand-written number.
fn no_follow() -> i32 {
    rustix::fs::OFlags::NOFOLLOW.bits() as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_sixteen_hex_digit_profile_is_accepted() {
        assert_eq!(profile_name(OsStr::new("0123456789abcdef")).unwrap(), "0123456789abcdef");
        for bad in
            ["", "0123456789abcde", "0123456789abcdef0", "0123456789ABCDEF", "../../../etc/pwd", "0123456789abcde/"]
        {
            assert!(matches!(profile_name(OsStr::new(bad)), Err(UnlockError::BadProfile)), "{bad:?}");
        }
    }

    #[test]
    fn the_caller_is_pkexecs_uid_and_nothing_else() {
        assert_eq!(caller_uid(Some(OsStr::new("1001"))).unwrap(), 1001);
        assert_eq!(caller_uid(Some(OsStr::new("0"))).unwrap(), 0);
        for bad in [None, Some(""), Some("-1"), Some("+5"), Some("1001 "), Some("99999999999"), Some("root")] {
            assert!(matches!(caller_uid(bad.map(OsStr::new)), Err(UnlockError::NoCaller)), "{bad:?}");
        }
    }

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_kek_is_created_once_root_only_and_then_returned_as_it_is() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().join("kek");
        let first = load_or_create(&root, 1001, "0123456789abcdef").unwrap();
        assert!(first.created);
        let again = load_or_create(&root, 1001, "0123456789abcdef").unwrap();
        assert!(!again.created);
        assert_eq!(first.key[..], again.key[..]);
        // Another profile, another user: other keys.
        let other = load_or_create(&root, 1001, "fedcba9876543210").unwrap();
        let someone = load_or_create(&root, 1002, "0123456789abcdef").unwrap();
        assert!(other.created && someone.created);
        assert_ne!(other.key[..], first.key[..]);
        assert_ne!(someone.key[..], first.key[..]);
        assert_eq!(mode(&root), 0o700);
        assert_eq!(mode(&root.join("1001")), 0o700);
        let file = root.join("1001").join("0123456789abcdef");
        assert_eq!(mode(&file), 0o600);
        assert_eq!(std::fs::read(&file).unwrap(), first.key[..]);
        // No temporary file is left beside the keys.
        assert_eq!(std::fs::read_dir(root.join("1001")).unwrap().count(), 2);
    }

    #[test]
    fn a_loosened_or_damaged_kek_is_refused_and_left_alone() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().join("kek");
        load_or_create(&root, 7, "0123456789abcdef").unwrap();
        let file = root.join("7").join("0123456789abcdef");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(matches!(load_or_create(&root, 7, "0123456789abcdef"), Err(UnlockError::Unsafe { .. })));
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::write(&file, [1u8; 31]).unwrap();
        assert!(matches!(load_or_create(&root, 7, "0123456789abcdef"), Err(UnlockError::Io { .. })));
        std::fs::write(&file, [1u8; 33]).unwrap();
        assert!(matches!(load_or_create(&root, 7, "0123456789abcdef"), Err(UnlockError::Unsafe { .. })));
        assert_eq!(std::fs::read(&file).unwrap(), [1u8; 33], "never rewritten");
        // A symlink in the KEK's place is not followed.
        let elsewhere = scratch.path().join("elsewhere");
        std::fs::write(&elsewhere, [2u8; 32]).unwrap();
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join("7").join("fedcba9876543210")).unwrap();
        assert!(load_or_create(&root, 7, "fedcba9876543210").is_err());
        std::fs::set_permissions(root.join("7"), std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(matches!(load_or_create(&root, 7, "0123456789abcdef"), Err(UnlockError::Unsafe { .. })));
    }
}
