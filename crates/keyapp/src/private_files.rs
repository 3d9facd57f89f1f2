//! Records private to their owner: the data directory holds the
//! person's history, contacts, credentials and encrypted key, so it is 0700 and
//! every file in it 0600, whatever the process umask. Modes are set explicitly
//! when each file is made (SQLite then gives its `-wal` and `-shm` files the
//! database file's mode), and a directory left looser by an older version or by
//! hand is tightened at start.

use std::fs::{DirBuilder, OpenOptions, Permissions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

pub const DIR_MODE: u32 = 0o700;
pub const FILE_MODE: u32 = 0o600;

/// Creates `dir` (and any missing parent) with mode 0700. An existing directory
/// keeps its mode; [`tighten`] deals with that.
pub fn create_dir(dir: &Path) -> std::io::Result<()> {
    DirBuilder::new().recursive(true).mode(DIR_MODE).create(dir)
}

/// Takes group's and others' access away from `dir` and everything beneath it
/// (0700 directories, 0600 files as this module makes them); symbolic links are left alone
/// and not followed. Returns what was changed.
pub fn tighten(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut changed = Vec::new();
    tighten_into(dir, &mut changed)?;
    Ok(changed)
}

fn tighten_into(path: &Path, changed: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        return Ok(());
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        // Only group's and others' bits go: the owner's stay as they were.
        std::fs::set_permissions(path, Permissions::from_mode(mode & 0o700))?;
        changed.push(path.to_owned());
    }
    if meta.is_dir() {
        for entry in std::fs::read_dir(path)? {
            tighten_into(&entry?.path(), changed)?;
        }
    }
    Ok(())
}

/// Creates `path` empty with mode 0600 unless it exists; an existing file looser
/// than 0600 is tightened. For a file another library then opens (SQLite).
pub fn ensure_file(path: &Path) -> std::io::Result<()> {
    OpenOptions::new().write(true).create(true).truncate(false).mode(FILE_MODE).open(path)?;
    restrict(path)
}

/// Writes `bytes` to `path`, mode 0600 from the moment the file exists.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = OpenOptions::new().write(true).create(true).truncate(true).mode(FILE_MODE).open(path)?;
    // `mode` applies only to a new file; one left by an older run is fixed here.
    file.set_permissions(Permissions::from_mode(FILE_MODE))?;
    file.write_all(bytes)
}

/// Tightens one existing file to 0600 if group or others have any access.
pub fn restrict(path: &Path) -> std::io::Result<()> {
    let mode = std::fs::metadata(path)?.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        std::fs::set_permissions(path, Permissions::from_mode(mode & 0o700))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_loose_tree_is_tightened_and_a_tight_one_left_alone() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("data");
        create_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        let run = dir.join("run");
        create_dir(&run).unwrap();
        let db = dir.join("keyapp.db");
        ensure_file(&db).unwrap();
        write(&run.join("agent-api.json"), b"{}").unwrap();
        assert_eq!((mode(&run), mode(&db), mode(&run.join("agent-api.json"))), (0o700, 0o600, 0o600));
        assert!(tighten(&dir).unwrap().is_empty(), "nothing to change");

        // As an older version left it: 0755 directories, 0644 files.
        for (p, m) in [(&dir, 0o755), (&run, 0o755), (&db, 0o644), (&run.join("agent-api.json"), 0o666)] {
            std::fs::set_permissions(p, Permissions::from_mode(m)).unwrap();
        }
        let outside = root.path().join("outside");
        std::fs::write(&outside, b"x").unwrap();
        std::fs::set_permissions(&outside, Permissions::from_mode(0o644)).unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("link")).unwrap();
        let changed = tighten(&dir).unwrap();
        assert_eq!(changed.len(), 4, "{changed:?}");
        assert_eq!((mode(&dir), mode(&run), mode(&db)), (0o700, 0o700, 0o600));
        assert_eq!(mode(&run.join("agent-api.json")), 0o600);
        assert_eq!(mode(&outside), 0o644, "a link's target outside is not touched");

        // ensure_file keeps the content and tightens; write replaces it, 0600.
        std::fs::write(&db, b"data").unwrap();
        std::fs::set_permissions(&db, Permissions::from_mode(0o644)).unwrap();
        ensure_file(&db).unwrap();
        assert_eq!((std::fs::read(&db).unwrap(), mode(&db)), (b"data".to_vec(), 0o600));
        let info = run.join("agent-api.json");
        std::fs::set_permissions(&info, Permissions::from_mode(0o644)).unwrap();
        write(&info, b"{\"url\":1}").unwrap();
        assert_eq!((std::fs::read(&info).unwrap(), mode(&info)), (b"{\"url\":1}".to_vec(), 0o600));
    }
}
