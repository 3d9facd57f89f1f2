//! One OS confirmation at a time, for every surface together: the verifier
//! every approval of a running key app goes through (the service's and the
//! recovery kit's custody share one, `app::start_verified_by`).
//!
//! polkit shows the same fixed sentence for every approval (it takes no
//! details from an unprivileged service), so two prompts read alike. A program
//! of the person's can ask over the control socket for an approval of its own
//! just as the person clicks Approve, so that its prompt is the one on screen
//! when the person types their password. So:
//!
//! - The window's approval takes the place of a program's (a terminal's, or
//!   anything else on the control socket): the program's prompt is withdrawn
//!   (its check cancelled at polkit, so its dialog closes) and refused, and
//!   the prompt the person answers after clicking Approve is the window's.
//! - Any other approval asked while one is on screen is refused with no
//!   prompt of its own, naming the one on screen ([`Refusal::Underway`]): a
//!   program gets no prompt while the window's is up (and is not told what
//!   the person approves there), and a second click in the window is told
//!   what the first one's prompt is for.
//! - A turn lasts at most [`TURN_LIMIT`], so no verification that hangs holds
//!   every other approval back.
//! - A program that hangs up ([`HangUp`]) withdraws its approval, and its
//!   prompt is closed: no yes still answers for a program that gave up.
//!
//! A prompt withdrawn is closed before the turn passes on
//! ([`UserVerifier::verify_until`]): the window's prompt is asked only once
//! polkit has answered the program's cancelled check.
//!
//! What it cannot do: a prompt a program asked for while the person clicked
//! nothing is still the person's to cancel; the window names it beside the
//! OS's prompt (`Service::asked_elsewhere`, docs/threat-model.md).

use super::{
    until_set, Approval, HangUp, OnScreen, PromptHook, Refusal, Surface, UserVerifier, VerdictFuture, Withdrawal,
};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::watch;

/// The longest one approval holds the turn: longer than the polkit
/// verifier's own prompt timeout (180 s), so it only bounds a verification
/// that hangs (a bus that never answers).
pub const TURN_LIMIT: Duration = Duration::from_secs(200);

/// The verifier, asked one approval at a time.
pub struct OnePrompt {
    verifier: Arc<dyn UserVerifier>,
    underway: Mutex<Option<Turn>>,
    limit: Duration,
    /// Told whenever a prompt comes on screen or leaves it (the service's
    /// change counter, so the window sees what a program asks for).
    hooks: Mutex<Vec<PromptHook>>,
}

/// The approval on screen.
struct Turn {
    /// Which verification holds it (a count, never reused).
    number: u64,
    what: String,
    surface: Surface,
    about: Option<String>,
    signals: Arc<Signals>,
}

/// Between a turn's holder and the window's approval that takes its place:
/// each set once, and seen by a wait begun before or after.
struct Signals {
    /// The window's approval took this turn: its holder stops asking.
    taken: watch::Sender<bool>,
    /// The holder's verification has ended (its prompt is closed).
    gone: watch::Sender<bool>,
}

impl Default for Signals {
    fn default() -> Signals {
        Signals { taken: watch::Sender::new(false), gone: watch::Sender::new(false) }
    }
}

/// Frees the turn when the verification ends, answered or dropped alike.
struct TurnHeld<'a> {
    prompts: &'a OnePrompt,
    number: u64,
    signals: Arc<Signals>,
}

impl Drop for TurnHeld<'_> {
    fn drop(&mut self) {
        let mut underway = self.prompts.underway.lock().unwrap_or_else(PoisonError::into_inner);
        // A turn the window's approval took over is the window's now.
        if underway.as_ref().is_some_and(|t| t.number == self.number) {
            *underway = None;
        }
        drop(underway);
        self.signals.gone.send_replace(true);
        self.prompts.changed();
    }
}

/// What the turn on screen is said to be, to an approval from `to`: a
/// terminal or another program is not told what the person approves in the
/// window, only that the window asked (its refusal still shows that a
/// prompt of the window's is on screen: docs/threat-model.md).
fn refusal_for(turn: &Turn, to: Surface) -> Refusal {
    let what = match (turn.surface, to) {
        (Surface::Window, Surface::Terminal) => String::new(),
        _ => turn.what.clone(),
    };
    Refusal::Underway { what, surface: turn.surface }
}

impl OnePrompt {
    /// `verifier`, asked one approval at a time; a verifier that already is
    /// one is kept as it is, so its turns stay shared.
    pub fn around(verifier: Arc<dyn UserVerifier>) -> Arc<dyn UserVerifier> {
        OnePrompt::with_limit(verifier, TURN_LIMIT)
    }

    /// The same with another bound on a turn (tests).
    pub(crate) fn with_limit(verifier: Arc<dyn UserVerifier>, limit: Duration) -> Arc<dyn UserVerifier> {
        if verifier.one_at_a_time() {
            return verifier;
        }
        Arc::new(OnePrompt { verifier, underway: Mutex::new(None), limit, hooks: Mutex::default() })
    }

    fn changed(&self) {
        let hooks = self.hooks.lock().unwrap_or_else(PoisonError::into_inner).clone();
        for hook in hooks {
            hook();
        }
    }

    /// Takes the turn for `approval`: at once when none is on screen; from a
    /// program's when the window asks (the program's prompt is withdrawn, and
    /// the window's waits until it is closed); else the refusal naming the one
    /// on screen. A window's approval that took a program's turn holds it from
    /// that moment, so nothing asked meanwhile comes between.
    async fn take(&self, approval: &Approval, deadline: tokio::time::Instant) -> Result<TurnHeld<'_>, Refusal> {
        static NUMBERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let (held, replaced) = {
            let mut underway = self.underway.lock().unwrap_or_else(PoisonError::into_inner);
            let replaced = match underway.as_ref() {
                None => None,
                Some(t) if approval.asker.surface == Surface::Window && t.surface == Surface::Terminal => {
                    t.signals.taken.send_replace(true);
                    Some(t.signals.clone())
                }
                Some(t) => return Err(refusal_for(t, approval.asker.surface)),
            };
            let number = NUMBERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let signals = Arc::new(Signals::default());
            *underway = Some(Turn {
                number,
                what: approval.summary.clone(),
                surface: approval.asker.surface,
                about: approval.about.clone(),
                signals: signals.clone(),
            });
            (TurnHeld { prompts: self, number, signals }, replaced)
        };
        self.changed();
        if let Some(replaced) = replaced {
            let _ = tokio::time::timeout_at(deadline, until_set(&replaced.gone)).await;
        }
        Ok(held)
    }
}

impl UserVerifier for OnePrompt {
    fn verify<'a>(&'a self, approval: &'a Approval) -> VerdictFuture<'a> {
        Box::pin(async move {
            let line = HangUp::current();
            // A program gone already takes no turn, not even for a moment
            // (the window would name a prompt that never comes).
            if line.as_ref().is_some_and(HangUp::is_down) {
                return Err(Refusal::Cancelled);
            }
            // One bound for the whole turn, the wait for a program's prompt
            // to close included.
            let deadline = tokio::time::Instant::now() + self.limit;
            let held = self.take(approval, deadline).await?;
            let signals = held.signals.clone();
            // Taken by the window, or its program hung up: the verification
            // is withdrawn, and ends once its prompt is closed.
            let withdrawn: Withdrawal<'_> = Box::pin(async move {
                let hung_up = async {
                    match &line {
                        Some(line) => line.hung_up().await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    () = until_set(&signals.taken) => {}
                    () = hung_up => {}
                }
            });
            let verdict = tokio::time::timeout_at(deadline, self.verifier.verify_until(approval, withdrawn))
                .await
                .unwrap_or(Err(Refusal::TimedOut));
            // A yes that came as the window took the turn is refused all the
            // same: the window's click came first, and its prompt is next.
            if *held.signals.taken.borrow() {
                return Err(Refusal::Underway { what: String::new(), surface: Surface::Window });
            }
            verdict
        })
    }

    fn one_at_a_time(&self) -> bool {
        true
    }

    fn on_screen(&self) -> Option<OnScreen> {
        let underway = self.underway.lock().unwrap_or_else(PoisonError::into_inner);
        underway.as_ref().map(|t| OnScreen { what: t.what.clone(), surface: t.surface, about: t.about.clone() })
    }

    fn on_change(&self, hook: PromptHook) {
        self.hooks.lock().unwrap_or_else(PoisonError::into_inner).push(hook);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::user_verification::{Asker, Method};
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn approval(summary: &str, surface: Surface) -> Approval {
        Approval {
            asker: Asker { pid: 1, uid: 1000, start_time: 1, surface },
            summary: summary.into(),
            about: None,
            purpose: crate::user_verification::Purpose::Approve,
        }
    }

    /// The OS, standing in: each prompt stays on screen until let go (then
    /// says yes); counts the prompts asked and those closed unanswered, and
    /// keeps, in order, each prompt asked and each one withdrawn and closed.
    struct Held {
        go: tokio::sync::Semaphore,
        asked: AtomicUsize,
        closed: Arc<AtomicUsize>,
        events: Mutex<Vec<String>>,
    }

    impl Default for Held {
        fn default() -> Held {
            Held {
                go: tokio::sync::Semaphore::new(0),
                asked: AtomicUsize::new(0),
                closed: Arc::default(),
                events: Mutex::default(),
            }
        }
    }

    impl Held {
        fn events(&self) -> Vec<String> {
            self.events.lock().unwrap().clone()
        }
    }

    /// Counts a prompt closed before it was answered.
    struct Closes(Option<Arc<AtomicUsize>>);

    impl Drop for Closes {
        fn drop(&mut self) {
            if let Some(closed) = self.0.take() {
                closed.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    impl UserVerifier for Held {
        fn verify<'a>(&'a self, approval: &'a Approval) -> VerdictFuture<'a> {
            self.asked.fetch_add(1, Ordering::SeqCst);
            self.events.lock().unwrap().push(format!("asked {}", approval.summary));
            Box::pin(async move {
                let mut closes = Closes(Some(self.closed.clone()));
                self.go.acquire().await.expect("open").forget();
                closes.0 = None;
                Ok(Method::Polkit)
            })
        }

        /// As polkit's: a withdrawn prompt closes some time after it is told
        /// to, and only then is the verification over.
        fn verify_until<'a>(&'a self, approval: &'a Approval, withdrawn: Withdrawal<'a>) -> VerdictFuture<'a> {
            Box::pin(async move {
                tokio::select! {
                    biased;
                    verdict = self.verify(approval) => verdict,
                    () = withdrawn => {
                        for _ in 0..20 {
                            tokio::task::yield_now().await;
                        }
                        self.events.lock().unwrap().push(format!("closed {}", approval.summary));
                        Err(Refusal::Cancelled)
                    }
                }
            })
        }
    }

    struct Setup {
        held: Arc<Held>,
        verifier: Arc<dyn UserVerifier>,
    }

    impl Setup {
        fn new(limit: Duration) -> Setup {
            let held = Arc::new(Held::default());
            Setup { verifier: OnePrompt::with_limit(held.clone(), limit), held }
        }

        fn asked(&self) -> usize {
            self.held.asked.load(Ordering::SeqCst)
        }

        /// Starts asking for `summary` from `surface`, and waits until its
        /// prompt is on screen (the OS asked `on_screen` times in all).
        async fn on_screen(
            &self,
            summary: &'static str,
            surface: Surface,
            on_screen: usize,
        ) -> tokio::task::JoinHandle<crate::user_verification::Verdict> {
            let verifier = self.verifier.clone();
            let asking = tokio::spawn(async move { verifier.verify(&approval(summary, surface)).await });
            answered(async {
                while self.asked() < on_screen {
                    tokio::task::yield_now().await;
                }
            })
            .await;
            asking
        }
    }

    /// What `answer` comes to; a prompt left on screen fails the test rather
    /// than hanging it.
    async fn answered<T>(answer: impl std::future::Future<Output = T>) -> T {
        tokio::time::timeout(Duration::from_secs(30), answer).await.expect("answered, not left on screen")
    }

    #[test]
    fn wrapped_once_it_keeps_its_turns() {
        let verifier = OnePrompt::around(Arc::new(Held::default()));
        assert!(Arc::ptr_eq(&OnePrompt::around(verifier.clone()), &verifier));
    }

    /// While the window's prompt is on screen, a program's approval gets no
    /// prompt and is told what is on screen; so is a second window approval.
    #[tokio::test]
    async fn while_the_windows_prompt_is_on_screen_nothing_else_is_asked() {
        let s = Setup::new(TURN_LIMIT);
        let window = s.on_screen("Book a cleaning", Surface::Window, 1).await;
        // The program is not told what the person approves in the window.
        let program = answered(s.verifier.verify(&approval("Pair “Cal”", Surface::Terminal))).await;
        assert_eq!(program, Err(Refusal::Underway { what: String::new(), surface: Surface::Window }));
        let again = answered(s.verifier.verify(&approval("Swim lessons", Surface::Window))).await;
        assert_eq!(again, Err(Refusal::Underway { what: "Book a cleaning".into(), surface: Surface::Window }));
        assert_eq!(s.asked(), 1, "the OS was asked once");
        s.held.go.add_permits(1);
        assert_eq!(answered(window).await.unwrap(), Ok(Method::Polkit));
        // Answered, the turn is free.
        s.held.go.add_permits(1);
        assert_eq!(answered(s.verifier.verify(&approval("Pair “Cal”", Surface::Terminal))).await, Ok(Method::Polkit));
    }

    /// The race the one prompt is for: a program's prompt on screen just
    /// before the person clicks Approve. The program's prompt is closed
    /// unanswered and refused, naming the window's; the prompt the person
    /// then answers is the window's.
    #[tokio::test]
    async fn the_windows_approval_takes_the_place_of_a_programs_prompt() {
        let s = Setup::new(TURN_LIMIT);
        let program = s.on_screen("Pair “Cal”", Surface::Terminal, 1).await;
        assert_eq!(s.verifier.on_screen().map(|o| o.surface), Some(Surface::Terminal));
        let window = s.on_screen("Book a cleaning", Surface::Window, 2).await;
        assert_eq!(
            answered(program).await.unwrap(),
            Err(Refusal::Underway { what: String::new(), surface: Surface::Window }),
            "the program is told the window's prompt took its place, not what it is for"
        );
        let on_screen = s.verifier.on_screen().unwrap();
        assert_eq!((on_screen.what.as_str(), on_screen.surface), ("Book a cleaning", Surface::Window));
        assert_eq!(s.held.closed.load(Ordering::SeqCst), 1, "the program's prompt was closed unanswered");
        assert_eq!(
            s.held.events(),
            ["asked Pair “Cal”", "closed Pair “Cal”", "asked Book a cleaning"],
            "the window's prompt is asked only once the program's is closed"
        );
        // The program asks again: no prompt while the window's is on screen.
        let again = answered(s.verifier.verify(&approval("Pair “Cal”", Surface::Terminal))).await;
        assert!(matches!(again, Err(Refusal::Underway { surface: Surface::Window, .. })), "{again:?}");
        assert_eq!(s.asked(), 2);
        s.held.go.add_permits(1);
        assert_eq!(answered(window).await.unwrap(), Ok(Method::Polkit), "the person's yes is the window's");
    }

    /// A verification abandoned (its caller went away) or that never ends
    /// frees the turn: the first at once, the second at the turn's limit.
    /// Each next one is a program's, which takes no turn from another.
    #[tokio::test]
    async fn an_abandoned_or_hung_verification_frees_the_turn() {
        let s = Setup::new(Duration::from_millis(50));
        let abandoned = s.on_screen("Pair “Cal”", Surface::Terminal, 1).await;
        abandoned.abort();
        let _ = abandoned.await;
        assert_eq!(s.held.closed.load(Ordering::SeqCst), 1);
        assert_eq!(s.verifier.on_screen(), None);
        // Nobody lets this one go: the limit ends it.
        let hung = answered(s.verifier.verify(&approval("Book a cleaning", Surface::Terminal))).await;
        assert_eq!(hung, Err(Refusal::TimedOut));
        s.held.go.add_permits(1);
        assert_eq!(answered(s.verifier.verify(&approval("Book", Surface::Terminal))).await, Ok(Method::Polkit));
        assert_eq!(s.asked(), 3);
    }

    /// A program that hangs up while its prompt is on screen withdraws it:
    /// closed unanswered, refused, and the turn free for the next.
    #[tokio::test]
    async fn a_program_that_hangs_up_withdraws_its_prompt() {
        let s = Setup::new(TURN_LIMIT);
        let line = HangUp::default();
        let asking = {
            let (verifier, line) = (s.verifier.clone(), line.clone());
            tokio::spawn(async move { line.carry(verifier.verify(&approval("Pair “Cal”", Surface::Terminal))).await })
        };
        answered(async {
            while s.asked() < 1 {
                tokio::task::yield_now().await;
            }
        })
        .await;
        // Another program's line hanging up withdraws nothing of this one's.
        HangUp::default().hang_up();
        tokio::task::yield_now().await;
        assert!(s.verifier.on_screen().is_some());
        line.hang_up();
        assert_eq!(answered(asking).await.unwrap(), Err(Refusal::Cancelled));
        assert_eq!(s.held.events(), ["asked Pair “Cal”", "closed Pair “Cal”"]);
        assert_eq!(s.verifier.on_screen(), None);
        // A program gone already takes no turn, not even for a moment: no
        // prompt comes on screen for the window to name.
        let changes = Arc::new(AtomicUsize::new(0));
        let counted = changes.clone();
        s.verifier.on_change(Arc::new(move || {
            counted.fetch_add(1, Ordering::SeqCst);
        }));
        let gone = answered(line.carry(s.verifier.verify(&approval("Swim lessons", Surface::Terminal)))).await;
        assert_eq!(gone, Err(Refusal::Cancelled));
        assert_eq!((changes.load(Ordering::SeqCst), s.asked()), (0, 1));
        s.held.go.add_permits(1);
        assert_eq!(answered(s.verifier.verify(&approval("Book", Surface::Terminal))).await, Ok(Method::Polkit));
    }
}
