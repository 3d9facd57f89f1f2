//! The process that holds the principal's key keeps its memory to itself.
//!
//! An assistant runs as the same Unix user as the person, and the kernel lets
//! a process of that user read another's memory (`/proc/PID/mem`, ptrace), its
//! start-time environment (`/proc/PID/environ`) and its core dump. Made
//! non-dumpable (`PR_SET_DUMPABLE` 0), the process's `/proc/PID` entries
//! belong to root and ptrace is refused to the person's other processes; with
//! `RLIMIT_CORE` 0 (soft and hard, so it cannot be raised again) no crash
//! writes the key to disk. docs/decisions.md "Key custody".
//!
//! [`harden`] is the first thing `schcp-keyapp serve` and the desktop app do,
//! before any thread starts and before anything secret is read. A process of
//! the person's can still attach to it before that first line (an exec and
//! the dynamic linker come first) and stay attached; so once non-dumpable,
//! when nothing can attach any more, the key app checks that no thread has a
//! tracer and that no PID namespace hides one, and does not start if so.
//! (A `/proc/PID/mem` opened in that interval is no tracer and is not seen:
//! docs/threat-model.md.)

/// Why the process could not be hardened; the key app does not start then,
/// since it would hold the key where the person's other programs can read it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HardeningError {
    /// `PR_SET_DUMPABLE` 0 was refused.
    #[error("the key app cannot make its memory unreadable to your other programs ({error}); run it on a Linux kernel that allows prctl(PR_SET_DUMPABLE), since it will not hold your key otherwise")]
    Dumpable { error: std::io::Error },
    /// `RLIMIT_CORE` could not be set to 0.
    #[error("the key app cannot turn off its core dumps ({error}); check the resource limits the key app is started with, since it will not hold your key where a crash could write it to disk")]
    CoreLimit { error: std::io::Error },
    /// Another process was tracing the key app as it started, or the key app
    /// runs where a tracer could not be seen.
    #[error("another program is watching the key app's memory as it starts ({why}); it will not hold your key where that program could read it. Close debuggers and tracers, then start the key app again")]
    Traced { why: schcp_webext::HardeningError },
}

/// Makes this process non-dumpable, sets its core size limit to 0, and
/// checks that nothing traced it before.
pub fn harden() -> Result<(), HardeningError> {
    forbid_core_dumps()?;
    forbid_dumping()?;
    schcp_webext::untraced().map_err(|why| HardeningError::Traced { why })
}

#[cfg(unix)]
fn forbid_core_dumps() -> Result<(), HardeningError> {
    use rustix::process::{setrlimit, Resource, Rlimit};
    setrlimit(Resource::Core, Rlimit { current: Some(0), maximum: Some(0) })
        .map_err(|e| HardeningError::CoreLimit { error: e.into() })
}

#[cfg(not(unix))]
fn forbid_core_dumps() -> Result<(), HardeningError> {
    // Windows writes no core file unless the person set up Windows Error
    // Reporting's local dumps themselves.
    Ok(())
}

#[cfg(target_os = "linux")]
fn forbid_dumping() -> Result<(), HardeningError> {
    use rustix::process::{set_dumpable_behavior, DumpableBehavior};
    set_dumpable_behavior(DumpableBehavior::NotDumpable).map_err(|e| HardeningError::Dumpable { error: e.into() })
}

#[cfg(not(target_os = "linux"))]
fn forbid_dumping() -> Result<(), HardeningError> {
    // macOS and Windows let no other process of the user read this one's
    // memory without a debugging entitlement or elevation.
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    // A process traced from before its first line (started under strace, as
    // a program that starts the key app under a debugger would) does not harden.
    #[test]
    fn a_key_app_traced_as_it_starts_does_not_start() {
        let test = "hardening::tests::a_key_app_traced_as_it_starts_does_not_start";
        if std::env::var_os("SCHCP_HARDENING_CHILD").is_some() {
            let refused = super::harden();
            assert!(matches!(refused, Err(super::HardeningError::Traced { .. })), "{refused:?}");
            println!("REFUSED");
            return;
        }
        let exe = std::env::current_exe().unwrap();
        if std::process::Command::new("strace").arg("-V").output().is_err() {
            eprintln!("skipped: strace is not installed");
            return;
        }
        // strace attaches before the child's first instruction.
        let out = std::process::Command::new("strace")
            .args(["-f", "-qq", "-e", "trace=none", "-o", "/dev/null"])
            .arg(&exe)
            .args([test, "--exact", "--nocapture"])
            .env("SCHCP_HARDENING_CHILD", "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("REFUSED"),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // The process itself is checked from outside in tests/key_custody.rs; here,
    // that the calls take effect, in a child so the test binary stays dumpable.
    #[test]
    fn hardening_sets_the_core_limit_to_zero_and_clears_dumpable() {
        if std::env::var_os("SCHCP_HARDENING_CHILD").is_some() {
            use rustix::process::{dumpable_behavior, getrlimit, DumpableBehavior, Resource};
            assert_eq!(dumpable_behavior().unwrap(), DumpableBehavior::Dumpable, "dumpable before");
            super::harden().unwrap();
            assert_eq!(dumpable_behavior().unwrap(), DumpableBehavior::NotDumpable);
            let core = getrlimit(Resource::Core);
            assert_eq!((core.current, core.maximum), (Some(0), Some(0)));
            println!("HARDENED");
            return;
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "hardening::tests::hardening_sets_the_core_limit_to_zero_and_clears_dumpable",
                "--exact",
                "--nocapture",
            ])
            .env("SCHCP_HARDENING_CHILD", "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("HARDENED"),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
