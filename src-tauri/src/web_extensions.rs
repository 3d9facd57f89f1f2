//! The web process extension every window's WebKit web process loads
//! (crates/webext): it makes the process that shows the consent text, and
//! takes the recovery words, unreadable to the person's other programs, as the
//! service is (docs/threat-model.md).
//!
//! WebKit loads every shared object in the directory it is given, into a
//! process that draws what the person is asked; so the directory is only given
//! when no program of the person's can put anything in it: root's, at one fixed
//! path (the .deb installs it; from the source tree, scripts/install-webext),
//! with nothing in it that anyone but root may write. Otherwise the windows
//! open without it, as they did before it, and the app says so on stderr once.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// Where the extension is installed, root's.
pub const DIR: &str = "/usr/lib/schcp-keyapp/webext";

/// The file WebKit loads from [`DIR`] (the `schcp-webext` crate's cdylib).
pub const FILE: &str = "libschcp_webext.so";

/// Why [`DIR`] is not given to WebKit.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum Untrusted {
    /// The extension is not there.
    #[error("{path} is not installed (run scripts/install-webext, or install the schcp-keyapp package)")]
    Missing { path: String },
    /// A path on the way, or an entry beside the extension, cannot be read.
    #[error("{path} cannot be read")]
    Unreadable { path: String },
    /// Not root's, or not a plain directory or file (a link, say).
    #[error("{path} is not a directory or file owned by root")]
    NotRoots { path: String },
    /// Others than root may write it.
    #[error("{path} may be written by others than root (mode {mode:o})")]
    Writable { path: String, mode: u32 },
}

/// `dir` and everything in it: root's, writable by root alone, and the
/// extension there. Another file in it would be loaded too: it is refused
/// whole unless every entry passes.
pub fn check(dir: &Path) -> Result<(), Untrusted> {
    let named = |p: &Path| p.display().to_string();
    if !dir.join(FILE).exists() {
        return Err(Untrusted::Missing { path: named(&dir.join(FILE)) });
    }
    owned_by_root(dir)?;
    // Whoever may rename an entry of a parent may swap the directory whole:
    // each parent is root's and writable by root alone, or sticky (as /tmp is:
    // others cannot rename what root owns there).
    for parent in dir.ancestors().skip(1) {
        parent_owned_by_root(parent)?;
    }
    let entries = std::fs::read_dir(dir).map_err(|_| Untrusted::Unreadable { path: named(dir) })?;
    for entry in entries {
        let entry = entry.map_err(|_| Untrusted::Unreadable { path: named(dir) })?;
        owned_by_root(&entry.path())?;
    }
    Ok(())
}

#[cfg(unix)]
fn owned_by_root(path: &Path) -> Result<(), Untrusted> {
    use std::os::unix::fs::MetadataExt;
    let named = || path.display().to_string();
    // Not followed: a link is judged as a link would be by the one who can
    // change where it points, so it is refused.
    let meta = std::fs::symlink_metadata(path).map_err(|_| Untrusted::Unreadable { path: named() })?;
    if meta.uid() != 0 || !(meta.is_dir() || meta.is_file()) {
        return Err(Untrusted::NotRoots { path: named() });
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(Untrusted::Writable { path: named(), mode });
    }
    Ok(())
}

#[cfg(unix)]
fn parent_owned_by_root(path: &Path) -> Result<(), Untrusted> {
    use std::os::unix::fs::MetadataExt;
    let named = || path.display().to_string();
    // Not followed either: a link among the parents could be swapped by
    // whoever owns it in a sticky parent, and where it leads is not checked.
    // The fixed path has none (/usr/lib is a directory, merged /usr or not).
    let meta = std::fs::symlink_metadata(path).map_err(|_| Untrusted::Unreadable { path: named() })?;
    if meta.uid() != 0 || !meta.is_dir() {
        return Err(Untrusted::NotRoots { path: named() });
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 && mode & 0o1000 == 0 {
        return Err(Untrusted::Writable { path: named(), mode });
    }
    Ok(())
}

#[cfg(not(unix))]
fn owned_by_root(_: &Path) -> Result<(), Untrusted> {
    Ok(())
}

#[cfg(not(unix))]
fn parent_owned_by_root(_: &Path) -> Result<(), Untrusted> {
    Ok(())
}

/// [`DIR`] when [`check`] passes, looked at for each window (a few `stat`s:
/// the extension may be installed or taken away while the app runs); on Linux
/// only (WebKitGTK's extensions). The first refusal is said on stderr.
pub fn dir() -> Option<&'static Path> {
    static SAID: AtomicBool = AtomicBool::new(false);
    if !cfg!(target_os = "linux") {
        return None;
    }
    match check(Path::new(DIR)) {
        Ok(()) => Some(Path::new(DIR)),
        Err(e) => {
            if !SAID.swap(true, Ordering::Relaxed) {
                eprintln!(
                    "schcp-keyapp-desktop: the windows' web process extension is not used: {e}; \
                     the windows' WebKit processes stay readable to your other programs"
                );
            }
            None
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{chown, PermissionsExt};

    fn installed() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        install(dir.path());
        dir
    }

    /// The extension in `dir`, as scripts/install-webext leaves it.
    fn install(dir: &Path) {
        std::fs::write(dir.join(FILE), b"\x7fELF").unwrap();
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(dir.join(FILE), std::fs::Permissions::from_mode(0o644)).unwrap();
    }

    /// Whether the tests' files are root's (tests run as root in CI).
    fn root() -> bool {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(tempfile::tempdir().unwrap().path()).unwrap().uid() == 0
    }

    #[test]
    fn a_directory_without_the_extension_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(check(dir.path()), Err(Untrusted::Missing { .. })));
    }

    #[test]
    fn roots_directory_with_the_extension_alone_is_used() {
        if !root() {
            eprintln!("skipped: the files are the test user's, not root's");
            return;
        }
        let dir = installed();
        assert_eq!(check(dir.path()), Ok(()));
    }

    #[test]
    fn a_directory_others_may_write_to_is_not_used() {
        if !root() {
            eprintln!("skipped: the files are the test user's, not root's");
            return;
        }
        let dir = installed();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(matches!(check(dir.path()), Err(Untrusted::Writable { mode: 0o777, .. })));
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(dir.path().join(FILE), std::fs::Permissions::from_mode(0o664)).unwrap();
        assert!(matches!(check(dir.path()), Err(Untrusted::Writable { mode: 0o664, .. })));
    }

    #[test]
    fn a_file_of_someone_elses_beside_the_extension_refuses_the_directory() {
        if !root() {
            eprintln!("skipped: chown needs root");
            return;
        }
        let dir = installed();
        assert_eq!(check(dir.path()), Ok(()));
        let planted = dir.path().join("planted.so");
        std::fs::write(&planted, b"\x7fELF").unwrap();
        std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o644)).unwrap();
        chown(&planted, Some(65534), Some(65534)).unwrap();
        assert!(matches!(check(dir.path()), Err(Untrusted::NotRoots { .. })));
        std::fs::remove_file(&planted).unwrap();
        std::os::unix::fs::symlink("/tmp", &planted).unwrap();
        assert!(matches!(check(dir.path()), Err(Untrusted::NotRoots { .. })), "a link is refused");
        std::fs::remove_file(&planted).unwrap();
        chown(dir.path().join(FILE), Some(65534), None).unwrap();
        assert!(matches!(check(dir.path()), Err(Untrusted::NotRoots { .. })));
    }

    #[test]
    fn a_parent_others_may_write_to_refuses_the_directory() {
        if !root() {
            eprintln!("skipped: the files are the test user's, not root's");
            return;
        }
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("webext");
        std::fs::create_dir(&dir).unwrap();
        install(&dir);
        std::fs::set_permissions(parent.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(check(&dir), Ok(()));
        std::fs::set_permissions(parent.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(matches!(check(&dir), Err(Untrusted::Writable { mode: 0o777, .. })));
        // Sticky, as /tmp: others cannot rename root's directory.
        std::fs::set_permissions(parent.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        assert_eq!(check(&dir), Ok(()));
        // Reached through a link: refused, wherever it leads.
        std::fs::set_permissions(parent.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let link = parent.path().join("link");
        std::os::unix::fs::symlink(parent.path(), &link).unwrap();
        assert!(matches!(check(&link.join("webext")), Err(Untrusted::NotRoots { .. })));
    }
}
