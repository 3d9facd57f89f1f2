//! The desktop app's web process extension: every WebKit web process the app
//! starts keeps its memory from the person's other programs, as the service
//! does (keyapp's `hardening`).
//!
//! The windows show what the person is asked (the consent text, verified by
//! the service) and take what only the person should give (the recovery
//! words, a passphrase). WebKit draws them in a web process of its own, which
//! runs as the person and, left as it starts, is dumpable: any program of
//! theirs, an assistant with a shell included, could ptrace it or open its
//! `/proc/PID/mem`, read the words and rewrite the text on screen (on a kernel
//! without Yama's `ptrace_scope`, or with it at 0, as Debian ships it).
//! WebKitGTK loads this extension into each web process before the process
//! loads a page; it makes the process non-dumpable (`PR_SET_DUMPABLE` 0) with
//! no core dumps (`RLIMIT_CORE` 0), then makes sure no tracer got in before
//! that: a tracer attached to any thread in between stays attached, so the
//! process stops itself rather than show the window under it.
//!
//! What this leaves (docs/threat-model.md): the interval between the web
//! process's start and this call, tens of milliseconds, in which it is still
//! dumpable. A program that opens its `/proc/PID/mem` then keeps that file,
//! and with it the process's memory, for good (the kernel checks the right to
//! it when it is opened, and an open file is no tracer); one that attaches,
//! changes its code and detaches before the check is not seen either. Only a
//! kernel that refuses ptrace between the person's own programs closes that:
//! Yama's `ptrace_scope` 2, or 1 for any program that is not an ancestor of
//! the web process (one that started the key app itself is).
#![deny(unsafe_code)]

use std::ffi::c_void;

/// Why a web process could not be made private; it stops then.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HardeningError {
    /// `RLIMIT_CORE` could not be set to 0.
    #[error("cannot turn off core dumps: {0}")]
    CoreLimit(std::io::Error),
    /// `PR_SET_DUMPABLE` 0 was refused.
    #[error("cannot make the process non-dumpable: {0}")]
    Dumpable(std::io::Error),
    /// The process's threads could not be read from `/proc/self/task`.
    #[error("cannot read this process's threads: {0}")]
    Threads(std::io::Error),
    /// A thread's status has no `TracerPid` line this reads as a number.
    #[error("a thread's status has no readable TracerPid line")]
    Status,
    /// A thread was traced by another process when it became non-dumpable.
    #[error("thread {thread} is traced by process {tracer}")]
    Traced { thread: u32, tracer: u32 },
    /// The process runs in a PID namespace of its own where it is the first
    /// process (its parent outside), or where its /proc shows it so: a tracer
    /// outside reads as none there. WebKit's own bubblewrap sandbox, which the
    /// app does not turn on, runs it as the namespace's second process under
    /// bubblewrap and is not seen by this: turning it on needs another check.
    #[error("the process runs in a PID namespace of its own, where its tracers cannot all be seen")]
    Namespaced,
}

/// The entry point WebKitGTK calls in each web process, by this name, as it
/// loads the extensions of the directory the app set
/// (`webkit_web_context_set_web_extensions_directory`), before any page. A
/// process that cannot be hardened stops: WebKit then shows no page in it.
#[allow(unsafe_code)] // `no_mangle`: WebKit looks the function up by its name.
#[no_mangle]
pub extern "C" fn webkit_web_extension_initialize(_extension: *mut c_void) {
    if let Err(e) = harden() {
        eprintln!(
            "schcp-keyapp web process: {e}; stopping, so no window is shown in a process other programs can read"
        );
        std::process::abort();
    }
}

/// Non-dumpable, no core, and no tracer on any thread. The tracers are read
/// after the process became non-dumpable, so none can attach after the check.
pub fn harden() -> Result<(), HardeningError> {
    forbid_core_dumps()?;
    forbid_dumping()?;
    untraced()
}

#[cfg(target_os = "linux")]
fn forbid_core_dumps() -> Result<(), HardeningError> {
    use rustix::process::{setrlimit, Resource, Rlimit};
    setrlimit(Resource::Core, Rlimit { current: Some(0), maximum: Some(0) })
        .map_err(|e| HardeningError::CoreLimit(e.into()))
}

#[cfg(target_os = "linux")]
fn forbid_dumping() -> Result<(), HardeningError> {
    use rustix::process::{set_dumpable_behavior, DumpableBehavior};
    set_dumpable_behavior(DumpableBehavior::NotDumpable).map_err(|e| HardeningError::Dumpable(e.into()))
}

/// Every thread of this process, each untraced. ptrace attaches to one
/// thread at a time, so the main thread's status alone would miss a tracer
/// on another.
#[cfg(target_os = "linux")]
pub fn untraced() -> Result<(), HardeningError> {
    let own = std::fs::read_to_string("/proc/self/status").map_err(HardeningError::Threads)?;
    // With a /proc of its own namespace, NSpid names one id; where the
    // process is the namespace's first, its parent is outside it, which
    // getppid() reads as none. (WebKit's bubblewrap sandbox, off here, puts
    // bubblewrap first and is not seen: HardeningError::Namespaced.)
    if namespaced(&own)? || rustix::process::getppid().is_none() {
        return Err(HardeningError::Namespaced);
    }
    let tasks = std::fs::read_dir("/proc/self/task").map_err(HardeningError::Threads)?;
    for task in tasks {
        let task = task.map_err(HardeningError::Threads)?;
        let Ok(thread) = task.file_name().to_string_lossy().parse::<u32>() else { continue };
        let status = match std::fs::read_to_string(task.path().join("status")) {
            Ok(status) => status,
            // A thread that ended since the directory was listed.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(HardeningError::Threads(e)),
        };
        if let Some(tracer) = tracer(&status)? {
            return Err(HardeningError::Traced { thread, tracer });
        }
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn forbid_core_dumps() -> Result<(), HardeningError> {
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn forbid_dumping() -> Result<(), HardeningError> {
    Ok(())
}

#[cfg(not(target_os = "linux"))]
pub fn untraced() -> Result<(), HardeningError> {
    Ok(())
}

/// The tracer a thread's `/proc/…/status` names (`TracerPid:`), if any: 0 is
/// none. A status without the line, or with anything but a number there, is
/// an error, never "untraced".
pub fn tracer(status: &str) -> Result<Option<u32>, HardeningError> {
    let line = status.lines().find_map(|l| l.strip_prefix("TracerPid:")).ok_or(HardeningError::Status)?;
    match line.trim().parse::<u32>() {
        Ok(0) => Ok(None),
        Ok(pid) => Ok(Some(pid)),
        Err(_) => Err(HardeningError::Status),
    }
}

/// Whether a status's `NSpid:` line names the process in more than one PID
/// namespace (it is in a child namespace). A status without the line (a
/// kernel before 4.1) is an error.
pub fn namespaced(status: &str) -> Result<bool, HardeningError> {
    let line = status.lines().find_map(|l| l.strip_prefix("NSpid:")).ok_or(HardeningError::Status)?;
    let ids: Vec<&str> = line.split_whitespace().collect();
    if ids.is_empty() || ids.iter().any(|id| id.parse::<u32>().is_err()) {
        return Err(HardeningError::Status);
    }
    Ok(ids.len() > 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tracer_is_read_from_the_status_line() {
        let status = "Name:\tWebKitWebProcess\nState:\tS (sleeping)\nTracerPid:\t0\nUid:\t1000\n";
        assert_eq!(tracer(status).unwrap(), None);
        assert_eq!(tracer("Name:\tx\nTracerPid:\t4242\n").unwrap(), Some(4242));
    }

    #[test]
    fn a_process_in_a_pid_namespace_of_its_own_is_seen() {
        assert!(!namespaced("Name:\tx\nNSpid:\t4242\n").unwrap());
        assert!(namespaced("Name:\tx\nNSpid:\t4242\t7\n").unwrap());
        for status in ["Name:\tx\n", "NSpid:\t\n", "NSpid:\t12\tx\n"] {
            assert!(matches!(namespaced(status), Err(HardeningError::Status)), "{status:?}");
        }
        // This test's own process, as the entry point reads it.
        assert!(!namespaced(&std::fs::read_to_string("/proc/self/status").unwrap()).unwrap());
    }

    // A PID namespace with a /proc of its own, as WebKit's bubblewrap sandbox
    // makes it (`unshare --pid --fork --mount-proc`, root only): NSpid names
    // one id there, and the process stops all the same.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_process_in_a_pid_namespace_with_its_own_proc_stops_itself() {
        let test = "tests::a_process_in_a_pid_namespace_with_its_own_proc_stops_itself";
        if std::env::var_os("SCHCP_WEBEXT_CHILD").is_some() {
            assert!(matches!(harden(), Err(HardeningError::Namespaced)), "namespaced, yet hardened");
            println!("NAMESPACED");
            return;
        }
        let exe = std::env::current_exe().unwrap();
        let can = std::process::Command::new("unshare")
            .args(["--pid", "--fork", "--mount-proc", "--mount", "true"])
            .env("LC_ALL", "C")
            .output()
            .is_ok_and(|o| o.status.success());
        if !can {
            eprintln!("skipped: this user cannot make a PID namespace with its own /proc");
            return;
        }
        let out = std::process::Command::new("unshare")
            .args(["--pid", "--fork", "--mount-proc", "--mount"])
            .arg(&exe)
            .args([test, "--exact", "--nocapture", "--test-threads=1"])
            .env("SCHCP_WEBEXT_CHILD", "1")
            .output();
        let out = out.unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains("NAMESPACED"));
    }

    #[test]
    fn a_status_without_a_readable_tracer_line_is_an_error_not_untraced() {
        for status in ["Name:\tx\n", "TracerPid:\t\n", "TracerPid:\t-1\n", "TracerPid:\tnone\n", ""] {
            assert!(matches!(tracer(status), Err(HardeningError::Status)), "{status:?}");
        }
    }

    // In a child of the test binary, so the test binary stays dumpable: the
    // entry point WebKit calls leaves the process non-dumpable, without core.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_entry_point_makes_the_process_non_dumpable_without_core() {
        if std::env::var_os("SCHCP_WEBEXT_CHILD").is_some() {
            use rustix::process::{dumpable_behavior, getrlimit, DumpableBehavior, Resource};
            assert_eq!(dumpable_behavior().unwrap(), DumpableBehavior::Dumpable, "dumpable before");
            webkit_web_extension_initialize(std::ptr::null_mut());
            assert_eq!(dumpable_behavior().unwrap(), DumpableBehavior::NotDumpable);
            let core = getrlimit(Resource::Core);
            assert_eq!((core.current, core.maximum), (Some(0), Some(0)));
            println!("HARDENED");
            return;
        }
        let out = child("tests::the_entry_point_makes_the_process_non_dumpable_without_core", false);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains("HARDENED"));
    }

    // A tracer attached before the entry point stays attached after it: the
    // process stops itself. The child runs traced from its start (python's
    // ctypes calls ptrace(PTRACE_TRACEME) before exec, and resumes it after
    // each stop), which is what a program of the person's that attached to a
    // starting web process would look like from inside.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_process_traced_before_the_entry_point_stops_itself() {
        if std::env::var_os("SCHCP_WEBEXT_CHILD").is_some() {
            assert!(matches!(harden(), Err(HardeningError::Traced { .. })), "traced, yet hardened");
            webkit_web_extension_initialize(std::ptr::null_mut());
            println!("NOT STOPPED");
            return;
        }
        let untraced = child("tests::a_process_traced_before_the_entry_point_stops_itself", false);
        assert!(!untraced.status.success(), "untraced, the child finds no tracer: its own assertion fails");
        let out = child("tests::a_process_traced_before_the_entry_point_stops_itself", true);
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(!stdout.contains("NOT STOPPED"), "the traced process went on: {stdout}");
        assert!(stderr.contains("is traced by process"), "{stderr}");
        assert!(stderr.contains("TRACED: stopped by SIGABRT"), "{stderr}");
    }

    /// The test binary again, on one test, as `SCHCP_WEBEXT_CHILD`; traced
    /// from its start by a python parent when `traced`.
    #[cfg(target_os = "linux")]
    fn child(test: &str, traced: bool) -> std::process::Output {
        let exe = std::env::current_exe().unwrap();
        let args = [test, "--exact", "--nocapture", "--test-threads=1"];
        let mut command = if traced {
            let mut c = std::process::Command::new("python3");
            c.args(["-c", TRACER, exe.to_str().unwrap()]).args(args);
            c
        } else {
            let mut c = std::process::Command::new(exe);
            c.args(args);
            c
        };
        command.env("SCHCP_WEBEXT_CHILD", "1").output().unwrap()
    }

    /// Runs argv[1:] traced by this python process from exec on, resuming it
    /// after each stop with the signal that stopped it; says how it ended.
    #[cfg(target_os = "linux")]
    const TRACER: &str = r#"
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
PTRACE_TRACEME, PTRACE_CONT = 0, 7
pid = os.fork()
if pid == 0:
    if libc.ptrace(PTRACE_TRACEME, 0, None, None) != 0:
        os._exit(90)
    os.execv(sys.argv[1], sys.argv[1:])
first = True
while True:
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status):
        print(f"TRACED: exited {os.WEXITSTATUS(status)}", file=sys.stderr)
        sys.exit(0)
    if os.WIFSIGNALED(status):
        print(f"TRACED: stopped by {signal.Signals(os.WTERMSIG(status)).name}", file=sys.stderr)
        sys.exit(0)
    sig = os.WSTOPSIG(status)
    # The stop at exec is the tracer's own (SIGTRAP); every later one is passed on.
    deliver = 0 if first and sig == signal.SIGTRAP else sig
    first = False
    libc.ptrace(PTRACE_CONT, pid, None, ctypes.c_void_p(deliver))
"#;
}
