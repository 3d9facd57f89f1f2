//! polkit behind the seam: `CheckAuthorization` of the action the approval's
//! purpose names (`org.schcp.keyapp.approve`, or `org.schcp.keyapp.recovery-kit`
//! to show the recovery phrase; packaging/polkit/org.schcp.keyapp.policy) for
//! the process that asked, with
//! AllowUserInteraction, so the person's authentication agent (the desktop's,
//! or `pkttyagent` in a terminal) asks for their password or fingerprint.

use super::{already, Approval, Asker, Method, Purpose, Refusal, UserVerifier, VerdictFuture, Withdrawal};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use zbus_polkit::policykit1::{AuthorityProxy, AuthorizationResult, CheckAuthorizationFlags, Subject};

/// The polkit action every approval asks for.
pub const APPROVE_ACTION: &str = "org.schcp.keyapp.approve";

/// The polkit action showing the recovery kit asks for: its prompt says the
/// words are the key, never "approve".
pub const RECOVERY_KIT_ACTION: &str = "org.schcp.keyapp.recovery-kit";

/// The polkit action `purpose` asks for.
fn action(purpose: Purpose) -> &'static str {
    match purpose {
        Purpose::Approve => APPROVE_ACTION,
        Purpose::ShowRecoveryKit => RECOVERY_KIT_ACTION,
    }
}

/// How long a person may take to answer the OS's prompt (typing a password,
/// finding the fingerprint reader) before the approval is refused. Shorter than
/// a request's life, so a slow answer still finds it pending.
pub const PROMPT_TIMEOUT: Duration = Duration::from_secs(180);

/// How long a cancellation of a check may take: polkit's answer to a check it
/// cancelled, waited for when the verification is withdrawn, or the cancel
/// alone, for a check nobody waits on.
const CANCEL_TIMEOUT: Duration = Duration::from_secs(5);

/// The detail the policy's message shows (`$(schcp.summary)`).
const SUMMARY_DETAIL: &str = "schcp.summary";

const POLKIT_ERROR: &str = "org.freedesktop.PolicyKit1.Error.";

/// Asks polkit on the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the standard
/// socket); one connection per approval, so a restarted bus or polkitd is
/// simply found again.
#[derive(Debug)]
pub struct PolkitVerifier {
    timeout: Duration,
    /// A bus address other than the system bus's (tests only, from Rust).
    address: Option<String>,
    /// polkit lets only root or an action owner pass details (so that no one
    /// else can put words in the prompt); once it has refused ours, the summary
    /// is not offered again and the policy's message stands alone.
    details_refused: AtomicBool,
}

impl Default for PolkitVerifier {
    fn default() -> Self {
        PolkitVerifier::with_timeout(PROMPT_TIMEOUT)
    }
}

impl PolkitVerifier {
    pub fn with_timeout(timeout: Duration) -> PolkitVerifier {
        PolkitVerifier { timeout, address: None, details_refused: AtomicBool::new(false) }
    }

    /// Asks the polkit on the bus at `address` instead of the system bus's.
    pub fn on_bus(address: impl Into<String>, timeout: Duration) -> PolkitVerifier {
        PolkitVerifier { address: Some(address.into()), ..PolkitVerifier::with_timeout(timeout) }
    }

    async fn connect(&self) -> zbus::Result<zbus::Connection> {
        match &self.address {
            None => zbus::Connection::system().await,
            Some(a) => zbus::connection::Builder::address(a.as_str())?.build().await,
        }
    }

    async fn check(&self, approval: &Approval, withdrawn: &mut Withdrawal<'_>) -> Result<Method, Refusal> {
        let unavailable = |e: zbus::Error| Refusal::Unavailable { why: e.to_string() };
        let bus = self.connect().await.map_err(unavailable)?;
        let authority = AuthorityProxy::builder(&bus)
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await
            .map_err(unavailable)?;
        let subject = subject(&approval.asker);
        if !self.details_refused.load(Ordering::Relaxed) {
            let details = HashMap::from([(SUMMARY_DETAIL, approval.summary.as_str())]);
            match self.ask(&authority, &subject, action(approval.purpose), &details, withdrawn).await {
                Err(Asked::Error(name)) if name == format!("{POLKIT_ERROR}NotAuthorized") => {
                    tracing::info!("polkit takes no details from this process; the prompt shows the policy's message");
                    self.details_refused.store(true, Ordering::Relaxed);
                }
                other => return verdict(other),
            }
        }
        verdict(self.ask(&authority, &subject, action(approval.purpose), &HashMap::new(), withdrawn).await)
    }

    /// One `CheckAuthorization`, cancelled at polkit (so the prompt closes) if
    /// the person has not answered within the timeout, or it is withdrawn.
    async fn ask(
        &self,
        authority: &AuthorityProxy<'_>,
        subject: &Subject,
        action_id: &str,
        details: &HashMap<&str, &str>,
        withdrawn: &mut Withdrawal<'_>,
    ) -> Result<AuthorizationResult, Asked> {
        if already(withdrawn) {
            return Err(Asked::Withdrawn);
        }
        let cancellation_id = cancellation_id();
        // Dropped before polkit answered (another approval took its place,
        // user_verification::OnePrompt), the check is cancelled at polkit,
        // which closes its prompt: no dialog stays on screen for an approval
        // nobody waits on.
        let mut unanswered = Unanswered { bus: Some(authority.inner().connection().clone()), id: &cancellation_id };
        let asked = authority.check_authorization(
            subject,
            action_id,
            details,
            CheckAuthorizationFlags::AllowUserInteraction.into(),
            &cancellation_id,
        );
        let asked = tokio::time::timeout(self.timeout, asked);
        tokio::pin!(asked);
        let asked = tokio::select! {
            // The check first, so it has gone out before a withdrawal cancels it.
            biased;
            asked = &mut asked => asked,
            () = withdrawn => {
                // Over only once polkit answers the cancelled check, its
                // prompt closed: whatever is asked next is not queued behind
                // it (user_verification::OnePrompt).
                let closed = async {
                    let _ = authority.cancel_check_authorization(&cancellation_id).await;
                    let _ = (&mut asked).await;
                };
                // Cancelled once already: a polkit that did not answer in
                // time is not asked again.
                let _ = tokio::time::timeout(CANCEL_TIMEOUT, closed).await;
                unanswered.bus = None;
                return Err(Asked::Withdrawn);
            }
        };
        unanswered.bus = None;
        match asked {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(zbus::Error::MethodError(name, _, _))) => Err(Asked::Error(name.to_string())),
            Ok(Err(e)) => Err(Asked::Bus(e.to_string())),
            Err(_) => {
                let _ =
                    tokio::time::timeout(CANCEL_TIMEOUT, authority.cancel_check_authorization(&cancellation_id)).await;
                Err(Asked::TimedOut)
            }
        }
    }
}

impl UserVerifier for PolkitVerifier {
    fn verify<'a>(&'a self, approval: &'a Approval) -> VerdictFuture<'a> {
        Box::pin(async move {
            let mut never: Withdrawal<'_> = Box::pin(std::future::pending());
            self.check(approval, &mut never).await
        })
    }

    fn verify_until<'a>(&'a self, approval: &'a Approval, mut withdrawn: Withdrawal<'a>) -> VerdictFuture<'a> {
        Box::pin(async move { self.check(approval, &mut withdrawn).await })
    }
}

/// A `CheckAuthorization` not answered yet: dropped so, it cancels the check
/// at polkit on the same connection, from a task of its own.
struct Unanswered<'a> {
    bus: Option<zbus::Connection>,
    id: &'a str,
}

impl Drop for Unanswered<'_> {
    fn drop(&mut self) {
        let (Some(bus), Ok(runtime)) = (self.bus.take(), tokio::runtime::Handle::try_current()) else { return };
        let id = self.id.to_owned();
        // Bounded: a bus that never answers keeps no task or connection.
        runtime.spawn(tokio::time::timeout(CANCEL_TIMEOUT, async move {
            let built = AuthorityProxy::builder(&bus).cache_properties(zbus::proxy::CacheProperties::No).build().await;
            if let Ok(authority) = built {
                let _ = authority.cancel_check_authorization(&id).await;
            }
        }));
    }
}

/// How one `CheckAuthorization` went wrong.
#[derive(Debug)]
enum Asked {
    /// A D-Bus error reply, by name.
    Error(String),
    /// No reply at all: the bus went away.
    Bus(String),
    TimedOut,
    /// Withdrawn by the caller, and cancelled at polkit.
    Withdrawn,
}

fn verdict(asked: Result<AuthorizationResult, Asked>) -> Result<Method, Refusal> {
    match asked {
        Ok(r) if r.is_authorized => Ok(Method::Polkit),
        Ok(r) if r.details.get("polkit.dismissed").is_some_and(|d| !d.is_empty()) => Err(Refusal::Cancelled),
        Ok(_) => Err(Refusal::NotAuthorized),
        Err(Asked::TimedOut) => Err(Refusal::TimedOut),
        Err(Asked::Withdrawn) => Err(Refusal::Cancelled),
        Err(Asked::Error(name)) => Err(refusal_for_error(&name)),
        Err(Asked::Bus(why)) => Err(Refusal::Unavailable { why }),
    }
}

/// A D-Bus error reply as a refusal: polkit's own "cancelled" and "not
/// authorized" are answers; anything else (no polkitd on the bus, the action
/// not installed) means nothing could be asked.
fn refusal_for_error(name: &str) -> Refusal {
    match name.strip_prefix(POLKIT_ERROR) {
        Some("Cancelled") => Refusal::Cancelled,
        Some("NotAuthorized") => Refusal::NotAuthorized,
        _ => Refusal::Unavailable { why: name.to_owned() },
    }
}

/// A `unix-process` subject naming exactly the process that asked: pid, start
/// time and uid. The uid goes as polkit's D-Bus type, a signed 32-bit integer:
/// sent unsigned, polkit ignores it and looks the owner up by pid instead,
/// which a process dying and its pid being reused could race.
fn subject(asker: &Asker) -> Subject {
    let mut details: HashMap<String, zbus::zvariant::OwnedValue> = HashMap::new();
    details.insert("pid".into(), asker.pid.into());
    details.insert("start-time".into(), asker.start_time.into());
    // A uid past i32::MAX is no real user's; -1 makes polkit look it up.
    details.insert("uid".into(), i32::try_from(asker.uid).unwrap_or(-1).into());
    Subject { subject_kind: "unix-process".into(), subject_details: details }
}

/// Unique per check, so a timed-out one can be cancelled at polkit.
fn cancellation_id() -> String {
    let mut bytes = [0u8; 12];
    rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut bytes);
    format!("schcp-{}", schcp::b64::encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(is_authorized: bool, details: &[(&str, &str)]) -> AuthorizationResult {
        AuthorizationResult {
            is_authorized,
            is_challenge: false,
            details: details.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        }
    }

    #[test]
    fn polkits_answers_decide_and_everything_else_refuses() {
        assert_eq!(verdict(Ok(result(true, &[]))), Ok(Method::Polkit));
        assert_eq!(verdict(Ok(result(false, &[]))), Err(Refusal::NotAuthorized));
        assert_eq!(verdict(Ok(result(false, &[("polkit.dismissed", "true")]))), Err(Refusal::Cancelled));
        assert_eq!(verdict(Err(Asked::TimedOut)), Err(Refusal::TimedOut));
        let cancelled = Asked::Error("org.freedesktop.PolicyKit1.Error.Cancelled".into());
        assert_eq!(verdict(Err(cancelled)), Err(Refusal::Cancelled));
        let no_polkitd = "org.freedesktop.DBus.Error.ServiceUnknown";
        assert!(
            matches!(verdict(Err(Asked::Error(no_polkitd.into()))), Err(Refusal::Unavailable { why }) if why == no_polkitd)
        );
        let not_installed = Asked::Error("org.freedesktop.PolicyKit1.Error.Failed".into());
        assert!(matches!(verdict(Err(not_installed)), Err(Refusal::Unavailable { .. })));
        assert!(matches!(verdict(Err(Asked::Bus("gone".into()))), Err(Refusal::Unavailable { .. })));
    }

    /// The prompt that shows the recovery kit is its own action, with its own
    /// sentence; every other confirmation is an approval's.
    #[test]
    fn showing_the_recovery_kit_asks_its_own_action() {
        assert_eq!(action(Purpose::ShowRecoveryKit), "org.schcp.keyapp.recovery-kit");
        assert_eq!(action(Purpose::Approve), "org.schcp.keyapp.approve");
        let policy = include_str!("../../../../packaging/polkit/org.schcp.keyapp.policy");
        for purpose in [Purpose::Approve, Purpose::ShowRecoveryKit] {
            assert!(policy.contains(&format!("<action id=\"{}\">", action(purpose))), "{purpose:?}");
        }
    }

    #[test]
    fn the_subject_names_pid_start_time_and_a_signed_uid() {
        let s = subject(&Asker { pid: 4242, uid: 1000, start_time: 987654, surface: super::super::Surface::Terminal });
        assert_eq!(s.subject_kind, "unix-process");
        let d = &s.subject_details;
        assert_eq!(u32::try_from(&d["pid"]).unwrap(), 4242);
        assert_eq!(u64::try_from(&d["start-time"]).unwrap(), 987654);
        assert_eq!(i32::try_from(&d["uid"]).unwrap(), 1000);
        assert!(u32::try_from(&d["uid"]).is_err(), "polkit ignores an unsigned uid");
    }

    #[tokio::test]
    async fn no_system_bus_is_unavailable() {
        // A bus address with nothing behind it: no daemon, so refused.
        let dir = tempfile::tempdir().unwrap();
        let gone = format!("unix:path={}", dir.path().join("no-bus").display());
        let asker = Asker::this_process(super::super::Surface::Window).unwrap();
        let approval = Approval { asker, summary: "x".into(), about: None, purpose: Purpose::Approve };
        let verdict = PolkitVerifier::on_bus(gone, PROMPT_TIMEOUT).verify(&approval).await;
        assert!(matches!(verdict, Err(Refusal::Unavailable { .. })), "{verdict:?}");
    }
}
