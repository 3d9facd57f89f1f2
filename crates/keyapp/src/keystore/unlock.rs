//! The profile's key-encryption key (KEK), released by the OS after it
//! confirmed the person: `pkexec` asks polkit for `org.schcp.keyapp.unlock`
//! (the person's password or fingerprint, every time: auth_self), then runs
//! the root-owned helper, which alone can read the KEK files
//! (src/bin/schcp-keyapp-unlock). docs/decisions.md "Key custody".
//!
//! Both paths are fixed, never configurable: a setting or a variable the
//! person's other programs can change would let an assistant hand the key app
//! a "helper" of its own, which would then receive the key it seals.

use super::sealed_seed::Kek;
use super::KeystoreError;
use std::io::ErrorKind;
use std::path::Path;
use std::process::{Command, Stdio};
use zeroize::Zeroizing;

/// Where the `.deb` (and scripts/test) install the helper; the polkit action's
/// `org.freedesktop.policykit.exec.path` names the same file.
pub const UNLOCK_HELPER: &str = "/usr/libexec/schcp-keyapp/schcp-keyapp-unlock";

/// Debian's pkexec (package `pkexec`).
const PKEXEC: &str = "/usr/bin/pkexec";

/// pkexec's exit code when the person dismissed the authentication dialog.
const PKEXEC_DISMISSED: i32 = 126;
/// pkexec's exit code when polkit said no or could not be asked.
const PKEXEC_NOT_AUTHORIZED: i32 = 127;

/// A released KEK, and whether the helper created it just now (the profile
/// had none, so it never had a sealed key).
pub(super) struct Released {
    pub(super) kek: Kek,
    pub(super) created: bool,
}

/// Asks the OS for the KEK of the profile whose keychain entry is `account`.
pub(super) fn release(account: &str) -> Result<Released, KeystoreError> {
    release_with(Path::new(PKEXEC), Path::new(UNLOCK_HELPER), account)
}

fn release_with(pkexec: &Path, helper: &Path, account: &str) -> Result<Released, KeystoreError> {
    let profile = account.strip_prefix("principal:").expect("keychain_account names every profile principal:<hex>");
    if !helper.is_file() {
        return Err(KeystoreError::UnlockHelperMissing { path: helper.to_owned() });
    }
    let child = Command::new(pkexec)
        .arg(helper)
        .arg(profile)
        // pkexec refuses to run at all when SHELL names a shell that is not
        // in /etc/shells; the helper needs no shell.
        .env_remove("SHELL")
        // Without a graphical authentication agent, pkexec asks on the
        // terminal the key app was started from.
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            ErrorKind::NotFound => KeystoreError::NoPkexec { path: pkexec.to_owned() },
            _ => KeystoreError::UnlockFailed { detail: format!("{} could not be started: {e}", pkexec.display()) },
        })?;
    let out = child
        .wait_with_output()
        .map_err(|e| KeystoreError::UnlockFailed { detail: format!("waiting for {}: {e}", pkexec.display()) })?;
    let answer = Zeroizing::new(out.stdout);
    match out.status.code() {
        Some(0) => parse(&answer),
        code => Err(refusal(code, &String::from_utf8_lossy(&out.stderr))),
    }
}

/// The helper's answer: the "created" byte, then the 32-byte KEK.
fn parse(answer: &[u8]) -> Result<Released, KeystoreError> {
    let (created, kek) = match answer.split_first() {
        Some((&flag @ (0 | 1), kek)) if kek.len() == 32 => (flag == 1, kek),
        _ => {
            return Err(KeystoreError::UnlockFailed {
                detail: format!("the unlock helper answered {} bytes, not a key", answer.len()),
            })
        }
    };
    let mut released = Zeroizing::new([0u8; 32]);
    released.copy_from_slice(kek);
    Ok(Released { kek: released, created })
}

/// Why pkexec (or the helper behind it) gave no key.
fn refusal(code: Option<i32>, stderr: &str) -> KeystoreError {
    let said = stderr.lines().map(str::trim).rfind(|l| !l.is_empty()).unwrap_or("no reason given");
    match code {
        Some(PKEXEC_DISMISSED) => KeystoreError::UnlockCancelled,
        Some(PKEXEC_NOT_AUTHORIZED) if stderr.contains("Not authorized") => KeystoreError::UnlockRefused,
        Some(PKEXEC_NOT_AUTHORIZED) => KeystoreError::UnlockFailed { detail: said.to_owned() },
        Some(code) => {
            KeystoreError::UnlockFailed { detail: format!("the unlock helper failed with status {code}: {said}") }
        }
        None => KeystoreError::UnlockFailed { detail: "the unlock helper was killed".into() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_helper_fails_closed_before_anything_runs() {
        let scratch = tempfile::tempdir().unwrap();
        let absent = scratch.path().join("schcp-keyapp-unlock");
        // pkexec is not even looked for: the helper's absence is the message.
        let err = release_with(Path::new("/nonexistent/pkexec"), &absent, "principal:0123456789abcdef").err().unwrap();
        assert!(matches!(&err, KeystoreError::UnlockHelperMissing { path } if *path == absent), "{err}");
        assert!(err.to_string().contains(&absent.display().to_string()), "{err}");
    }

    #[test]
    fn no_pkexec_is_named() {
        let scratch = tempfile::tempdir().unwrap();
        let helper = scratch.path().join("helper");
        std::fs::write(&helper, b"").unwrap();
        let err = release_with(Path::new("/nonexistent/pkexec"), &helper, "principal:0123456789abcdef").err().unwrap();
        assert!(matches!(err, KeystoreError::NoPkexec { .. }), "{err}");
    }

    #[test]
    fn only_a_flag_and_thirty_two_bytes_are_a_key() {
        let mut answer = vec![1u8];
        answer.extend([5u8; 32]);
        let released = parse(&answer).unwrap();
        assert!(released.created);
        assert_eq!(*released.kek, [5u8; 32]);
        answer[0] = 0;
        assert!(!parse(&answer).unwrap().created);
        for bad in [&[][..], &[1u8; 32][..], &[1u8; 34][..], &[[2u8].as_slice(), &[5u8; 32]].concat()[..]] {
            assert!(matches!(parse(bad), Err(KeystoreError::UnlockFailed { .. })), "{} bytes", bad.len());
        }
    }

    #[test]
    fn pkexecs_answers_become_named_refusals() {
        assert!(matches!(refusal(Some(126), ""), KeystoreError::UnlockCancelled));
        let no = refusal(
            Some(127),
            "Error executing command as another user: Not authorized\n\nThis incident has been reported.\n",
        );
        assert!(matches!(no, KeystoreError::UnlockRefused), "{no}");
        let down =
            refusal(Some(127), "Error checking for authorization org.schcp.keyapp.unlock: GDBus.Error: no polkit\n");
        assert!(matches!(&down, KeystoreError::UnlockFailed { detail } if detail.contains("no polkit")), "{down}");
        let helper = refusal(Some(1), "schcp-keyapp-unlock: PKEXEC_UID is missing\n");
        assert!(matches!(&helper, KeystoreError::UnlockFailed { detail } if detail.contains("PKEXEC_UID")), "{helper}");
    }
}
