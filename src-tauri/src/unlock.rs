//! The file keystore's passphrase, asked in a window, never on a terminal the
//! person cannot see (the desktop app may have none). The keystore (`keyapp::keystore`) decides
//! everything: whether a passphrase is needed, whether it is new (typed twice),
//! wrong, empty or mismatched, and when to ask again. This module only carries
//! its questions to the window and the person's answers back, through a gate
//! the window reads with two commands. Nothing of the service runs until the
//! key opens: `keyapp::app::start` waits on this gate before it binds anything.

use crate::recovery::FirstChoice;
use crate::windows;
use keyapp::keystore::{
    PassphraseAnswer, PassphraseAsker, PassphraseProblem, PassphrasePrompt, PassphrasePurpose, SecretString,
};
use serde::Serialize;
use std::sync::{mpsc, Arc, Mutex};
use tauri::{AppHandle, Runtime};
use tokio::sync::watch;

/// What the window shows.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum GateView {
    /// The key is being opened; nothing asked (yet).
    Starting,
    /// The keystore asks for the passphrase.
    Asking { purpose: PassphrasePurpose, problem: Option<PassphraseProblem> },
    /// An answer is with the keystore (scrypt takes about a second).
    Checking,
    /// The service runs. `route` is where the window goes next; `None`: the
    /// window is closed and the app waits in the tray.
    Unlocked { route: Option<String> },
    /// The service did not start; the sentence says why and what to do.
    Failed { message: String },
    /// The first run, before any key exists: a new key, or the person's own
    /// from the recovery kit. `problem`: why the last restore wrote nothing.
    Welcome { problem: Option<String> },
    /// A restore is under way (words checked, backup opened, key kept).
    Restoring,
}

/// Between the keystore's question (on a blocking thread) and the window.
pub struct Gate {
    view: watch::Sender<GateView>,
    reply: Mutex<Option<mpsc::Sender<Option<PassphraseAnswer>>>>,
    /// The first run's answer, awaited by [`Gate::welcome`].
    first: Mutex<Option<tokio::sync::oneshot::Sender<FirstChoice>>>,
}

impl Default for Gate {
    fn default() -> Self {
        Gate { view: watch::Sender::new(GateView::Starting), reply: Mutex::new(None), first: Mutex::new(None) }
    }
}

/// Why the window's answer was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("nothing is asking for a passphrase now")]
pub struct NotAsking;

impl Gate {
    pub fn view(&self) -> GateView {
        self.view.borrow().clone()
    }

    pub fn set(&self, view: GateView) {
        self.view.send_replace(view);
    }

    /// The person's answer, handed to the waiting keystore; then waits until
    /// the keystore has judged it (asks again, or the service started or failed).
    pub async fn answer(&self, answer: PassphraseAnswer) -> Result<GateView, NotAsking> {
        let mut changes = self.view.subscribe();
        let reply = self.reply.lock().expect("the gate lock is never poisoned").take().ok_or(NotAsking)?;
        self.set(GateView::Checking);
        reply.send(Some(answer)).map_err(|_| NotAsking)?;
        loop {
            let now = changes.borrow_and_update().clone();
            if now != GateView::Checking {
                return Ok(now);
            }
            if changes.changed().await.is_err() {
                return Ok(self.view());
            }
        }
    }

    /// Shows the first run's question (with `problem`, why the last restore
    /// wrote nothing) and waits for the person's answer.
    pub async fn welcome(&self, problem: Option<String>) -> Option<FirstChoice> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        *self.first.lock().expect("the gate lock is never poisoned") = Some(tx);
        self.set(GateView::Welcome { problem });
        rx.await.ok()
    }

    /// The window's answer to the first run's question; then waits until the
    /// key app has acted on it (asks again, asks a passphrase, or started).
    pub async fn choose(&self, choice: FirstChoice) -> Result<GateView, NotAsking> {
        let mut changes = self.view.subscribe();
        let reply = self.first.lock().expect("the gate lock is never poisoned").take().ok_or(NotAsking)?;
        self.set(GateView::Restoring);
        reply.send(choice).map_err(|_| NotAsking)?;
        loop {
            let now = changes.borrow_and_update().clone();
            if now != GateView::Restoring {
                return Ok(now);
            }
            if changes.changed().await.is_err() {
                return Ok(self.view());
            }
        }
    }

    /// Blocks (the keystore's blocking thread) until the person answers `prompt`.
    fn ask(&self, prompt: &PassphrasePrompt) -> Option<PassphraseAnswer> {
        let (tx, rx) = mpsc::channel();
        *self.reply.lock().expect("the gate lock is never poisoned") = Some(tx);
        self.set(GateView::Asking { purpose: prompt.purpose, problem: prompt.problem });
        // The window closing ends the app (there is no tray yet), so a
        // dropped sender is the person giving up.
        rx.recv().ok().flatten()
    }
}

/// The keystore's asker: shows the window on the first question.
pub fn asker<R: Runtime>(app: AppHandle<R>, gate: Arc<Gate>) -> PassphraseAsker {
    Arc::new(move |prompt: &PassphrasePrompt| {
        let handle = app.clone();
        let _ = app.run_on_main_thread(move || windows::open_unlock(&handle));
        gate.ask(prompt)
    })
}

/// An answer as the window sends it; the keystore, not the window, compares
/// the two fields and refuses an empty one.
pub fn answer_from(passphrase: String, confirmation: Option<String>) -> PassphraseAnswer {
    PassphraseAnswer { passphrase: SecretString::from(passphrase), confirmation: confirmation.map(SecretString::from) }
}
