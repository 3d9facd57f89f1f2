//! The person's yes, confirmed by the OS: no approval that signs or pairs goes
//! through until the OS's own user verification says the person is there
//! (polkit on Linux; docs/decisions.md "User verification").
//!
//! An assistant runs as the person, with a shell: it can write to the control
//! socket, run `schcp-keyapp approve` and answer "y", and edit every file of the
//! person's config. So the yes is asked of something the person's processes
//! cannot answer for them: the OS, which asks for their password or fingerprint
//! on its own prompt, under a policy only root can change. Nothing in the config
//! turns this off; a Rust caller (a test, another OS's shell) chooses the
//! verifier when it builds the service (`Service::with_user_verifier`).
//!
//! Fail closed: no verifier reachable, no answer, a no, or a dismissed prompt
//! are each a [`Refusal`], and the caller signs nothing.

#[cfg(target_os = "linux")]
mod polkit;

#[cfg(target_os = "linux")]
pub use polkit::{PolkitVerifier, APPROVE_ACTION, PROMPT_TIMEOUT, RECOVERY_KIT_ACTION};

mod hang_up;
mod one_prompt;
pub(crate) use hang_up::HangUp;
pub use one_prompt::{OnePrompt, TURN_LIMIT};

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// Which of the person's surfaces the approval came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// A process on the control socket: `schcp-keyapp approve`, or anything
    /// else of the person's that opened the socket.
    Terminal,
    /// The key app's own window (the desktop app, this process).
    Window,
}

/// Who asked for the approval: the process the OS is asked about. Its pid and
/// start time together name one process even if the pid is later reused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asker {
    pub pid: u32,
    /// Its real uid, as the kernel reported it (SO_PEERCRED, or this process's).
    pub uid: u32,
    /// Clock ticks since boot when it started (`/proc/PID/stat`, field 22).
    pub start_time: u64,
    pub surface: Surface,
}

impl Asker {
    /// The process `pid` owned by `uid`, its start time read now: call it while
    /// the process is known to be alive (a connected socket's peer).
    pub fn process(pid: u32, uid: u32, surface: Surface) -> std::io::Result<Asker> {
        Ok(Asker { pid, uid, start_time: start_time(pid)?, surface })
    }

    /// This process: the desktop window's approvals, and every in-process caller.
    pub fn this_process(surface: Surface) -> std::io::Result<Asker> {
        let pid = std::process::id();
        Ok(Asker { pid, uid: real_uid(pid)?, start_time: start_time(pid)?, surface })
    }
}

/// A process's start time, field 22 of `/proc/PID/stat` (after the command
/// name, which may itself hold spaces and parentheses: read from the last `)`).
fn start_time(pid: u32) -> std::io::Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    parse_start_time(&stat).ok_or_else(|| std::io::Error::other(format!("/proc/{pid}/stat has no start time")))
}

fn parse_start_time(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    // After the name: state is field 3, so start time (22) is the 20th here.
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// A process's real uid, from the `Uid:` line of `/proc/PID/status`.
fn real_uid(pid: u32) -> std::io::Result<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().next())
        .and_then(|uid| uid.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("/proc/{pid}/status has no uid")))
}

/// What the OS is asked to confirm: who asked, and one line saying what they
/// approve (a request's consent text's first line, or "Pair … (code …)").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approval {
    pub asker: Asker,
    pub summary: String,
    /// The pending request or pairing it approves, if it is one.
    pub about: Option<String>,
    pub purpose: Purpose,
}

/// What the OS's prompt says the person confirms: each its own polkit action
/// with its own fixed sentence (packaging/polkit/org.schcp.keyapp.policy), so
/// the prompt that hands out the key itself never reads like an approval's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// An approval: a request, a pairing, a contact, a setting, a switch.
    Approve,
    /// Showing the recovery kit, which is the principal's key.
    ShowRecoveryKit,
}

/// The approval whose prompt is on screen ([`OnePrompt`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnScreen {
    pub what: String,
    pub surface: Surface,
    pub about: Option<String>,
}

/// Called when a prompt comes on screen or leaves it.
pub type PromptHook = Arc<dyn Fn() + Send + Sync>;

/// How the OS confirmed it was the person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Method {
    /// polkit (`org.schcp.keyapp.approve`): the person's password or
    /// fingerprint, as the OS's policy asks.
    Polkit,
}

impl Method {
    /// As the records keep it (migration 0012's `confirmed_by`).
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Polkit => "polkit",
        }
    }

    /// A stored `confirmed_by`; `None` for one this key app does not write.
    pub fn parse(s: &str) -> Option<Method> {
        match s {
            "polkit" => Some(Method::Polkit),
            _ => None,
        }
    }

    /// Its words in locales/*/ui.ftl ("confirmed with your password or
    /// fingerprint").
    pub fn message_id(self) -> &'static str {
        match self {
            Method::Polkit => "verification-confirmed-polkit",
        }
    }
}

/// Why the OS did not confirm it was the person. Each refuses the approval.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// Nothing could be asked: no polkit daemon, no system bus, the action not
    /// installed, or the asking process unknown.
    #[error("the OS's user verification is not available ({why})")]
    Unavailable { why: String },
    /// Asked, and the answer was no (a rule said no, the password was wrong,
    /// or no authentication agent could ask the person).
    #[error("the OS did not confirm it was the person")]
    NotAuthorized,
    /// The person dismissed or cancelled the OS's prompt.
    #[error("the person cancelled the OS's prompt")]
    Cancelled,
    /// No answer within the prompt's time ([`PROMPT_TIMEOUT`] for polkit).
    #[error("the OS's prompt got no answer in time")]
    TimedOut,
    /// The OS is asking the person to confirm something else ([`OnePrompt`]):
    /// `what` is that approval's summary, asked from `surface`. A program's
    /// approval gets it too when the window's takes its prompt's place.
    #[error("the OS is already asking the person to confirm something else")]
    Underway { what: String, surface: Surface },
}

impl Refusal {
    /// Its §9 reason (code `NOT_PERMITTED`, 403).
    pub fn reason(&self) -> schcp::refusal::Reason {
        use schcp::refusal::Reason;
        match self {
            Refusal::Unavailable { .. } => Reason::VerificationUnavailable,
            Refusal::NotAuthorized => Reason::UserNotVerified,
            Refusal::Cancelled => Reason::VerificationCancelled,
            Refusal::TimedOut => Reason::VerificationTimedOut,
            Refusal::Underway { .. } => Reason::VerificationUnderway,
        }
    }
}

/// What a verifier's answer is: the method that confirmed it, or why not.
pub type Verdict = Result<Method, Refusal>;

/// A boxed future of a verdict, so verifiers are object-safe (`Arc<dyn …>`).
pub type VerdictFuture<'a> = Pin<Box<dyn Future<Output = Verdict> + Send + 'a>>;

/// Resolves when a verification is no longer wanted
/// ([`UserVerifier::verify_until`]).
pub type Withdrawal<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Until `flag` is set: at once if it is already. The flag is borrowed for
/// the wait, so it is never closed under it.
async fn until_set(flag: &tokio::sync::watch::Sender<bool>) {
    let _ = flag.subscribe().wait_for(|set| *set).await;
}

/// Whether `withdrawn` has resolved already, polled once: a verification
/// withdrawn before it was asked asks nothing.
fn already(withdrawn: &mut Withdrawal<'_>) -> bool {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    withdrawn.as_mut().poll(&mut cx).is_ready()
}

/// The seam: polkit on Linux; LocalAuthentication on macOS and Windows Hello
/// on Windows would be other implementations (docs/decisions.md). A verifier
/// may take as long as the person takes to answer, up to its own timeout.
pub trait UserVerifier: Send + Sync {
    fn verify<'a>(&'a self, approval: &'a Approval) -> VerdictFuture<'a>;

    /// [`UserVerifier::verify`], withdrawn if `withdrawn` resolves first:
    /// then refused ([`Refusal::Cancelled`]) only once its prompt is closed,
    /// so whatever is asked next never finds it still on screen. This default
    /// drops the verification, for a verifier whose prompt ends with its
    /// future; polkit's tells polkit and waits for its answer.
    fn verify_until<'a>(&'a self, approval: &'a Approval, mut withdrawn: Withdrawal<'a>) -> VerdictFuture<'a> {
        Box::pin(async move {
            if already(&mut withdrawn) {
                return Err(Refusal::Cancelled);
            }
            tokio::select! {
                biased;
                verdict = self.verify(approval) => verdict,
                () = withdrawn => Err(Refusal::Cancelled),
            }
        })
    }

    /// Whether it asks one approval at a time already ([`OnePrompt`]).
    fn one_at_a_time(&self) -> bool {
        false
    }

    /// The approval whose prompt is on screen, where the verifier knows it.
    fn on_screen(&self) -> Option<OnScreen> {
        None
    }

    /// Has `hook` called whenever a prompt comes on screen or leaves it,
    /// where the verifier knows it.
    fn on_change(&self, _hook: PromptHook) {}
}

/// The verifier a service gets unless a Rust caller chooses another: polkit on
/// Linux; elsewhere none is built yet, so every approval is refused (fail closed).
pub fn platform_verifier() -> Arc<dyn UserVerifier> {
    #[cfg(target_os = "linux")]
    {
        Arc::new(PolkitVerifier::default())
    }
    #[cfg(not(target_os = "linux"))]
    {
        Arc::new(Unsupported)
    }
}

/// Where no verifier is built: refuses every approval.
#[cfg(not(target_os = "linux"))]
struct Unsupported;

#[cfg(not(target_os = "linux"))]
impl UserVerifier for Unsupported {
    fn verify<'a>(&'a self, _: &'a Approval) -> VerdictFuture<'a> {
        Box::pin(async { Err(Refusal::Unavailable { why: "no user verification on this OS yet".into() }) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_time_is_field_22_even_after_a_name_with_spaces_and_parentheses() {
        let stat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100";
        assert_eq!(parse_start_time(stat), Some(987654));
        assert_eq!(parse_start_time("4242 (x) S 1 2"), None);
        assert_eq!(parse_start_time("no name here"), None);
    }

    #[test]
    fn this_process_is_read_from_proc() {
        let me = Asker::this_process(Surface::Window).unwrap();
        assert_eq!(me.pid, std::process::id());
        assert!(me.start_time > 0);
        // Same process, same start time: it names one process.
        assert_eq!(Asker::process(me.pid, me.uid, Surface::Window).unwrap(), me);
        // A pid with no process is not an asker.
        assert!(Asker::process(u32::MAX, 0, Surface::Terminal).is_err());
    }

    #[test]
    fn methods_round_trip_through_the_records_and_unknown_ones_do_not() {
        assert_eq!(Method::parse(Method::Polkit.as_str()), Some(Method::Polkit));
        assert_eq!(Method::parse("none"), None);
        assert_eq!(Method::parse(""), None);
    }

    #[test]
    fn each_refusal_has_its_own_reason() {
        let all = [
            Refusal::Unavailable { why: "x".into() },
            Refusal::NotAuthorized,
            Refusal::Cancelled,
            Refusal::TimedOut,
            Refusal::Underway { what: "x".into(), surface: Surface::Window },
        ];
        let reasons: std::collections::BTreeSet<_> = all.iter().map(Refusal::reason).collect();
        assert_eq!(reasons.len(), all.len());
    }
}
