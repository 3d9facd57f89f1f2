//! The polkit verifier withdrawing a check, against an authority standing in
//! for polkit's on the session bus (scripts/with-keyring starts one): a
//! withdrawn verification is over only once polkit has answered the cancelled
//! check, its prompt closed, so the one prompt's next approval
//! (user_verification::OnePrompt) is never queued behind it; and one
//! withdrawn before its check went out asks nothing at all.

use keyapp::user_verification::{
    Approval, Asker, PolkitVerifier, Purpose, Refusal, Surface, UserVerifier, PROMPT_TIMEOUT,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;
use zbus_polkit::policykit1::{AuthorizationResult, Subject};

/// polkit's authority, standing in: each check stays open until it is
/// cancelled, and its prompt takes a moment to close after that.
struct Authority {
    events: Arc<Mutex<Vec<&'static str>>>,
    cancelled: Arc<Notify>,
    /// Cancellations are heard but never acted on (a polkitd that hangs).
    deaf: Arc<std::sync::atomic::AtomicBool>,
    /// The action each check asked for, in order.
    actions: Arc<Mutex<Vec<String>>>,
}

#[zbus::interface(name = "org.freedesktop.PolicyKit1.Authority")]
impl Authority {
    async fn check_authorization(
        &self,
        _subject: Subject,
        action_id: String,
        _details: HashMap<String, String>,
        _flags: u32,
        _cancellation_id: String,
    ) -> AuthorizationResult {
        self.actions.lock().unwrap().push(action_id);
        self.events.lock().unwrap().push("asked");
        self.cancelled.notified().await;
        // A dialog closes some time after it is told to.
        tokio::time::sleep(Duration::from_millis(100)).await;
        self.events.lock().unwrap().push("closed");
        AuthorizationResult {
            is_authorized: false,
            is_challenge: false,
            details: HashMap::from([("polkit.dismissed".to_owned(), "true".to_owned())]),
        }
    }

    async fn cancel_check_authorization(&self, _cancellation_id: String) {
        self.events.lock().unwrap().push("cancel");
        if !self.deaf.load(std::sync::atomic::Ordering::SeqCst) {
            self.cancelled.notify_one();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_withdrawn_check_is_over_once_polkit_closed_its_prompt() {
    let address = std::env::var("DBUS_SESSION_BUS_ADDRESS").expect("a D-Bus session (scripts/with-keyring)");
    let events = Arc::new(Mutex::new(Vec::new()));
    let deaf = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let actions = Arc::new(Mutex::new(Vec::new()));
    let authority = Authority {
        events: events.clone(),
        cancelled: Arc::new(Notify::new()),
        deaf: deaf.clone(),
        actions: actions.clone(),
    };
    let _polkit = zbus::connection::Builder::session()
        .unwrap()
        .name("org.freedesktop.PolicyKit1")
        .unwrap()
        .serve_at("/org/freedesktop/PolicyKit1/Authority", authority)
        .unwrap()
        .build()
        .await
        .unwrap();
    let verifier = PolkitVerifier::on_bus(address, PROMPT_TIMEOUT);
    let asker = Asker::this_process(Surface::Terminal).unwrap();
    let approval = Approval { asker, summary: "Pair".into(), about: None, purpose: Purpose::Approve };

    // Withdrawn before its check went out: nothing is asked.
    let verdict = verifier.verify_until(&approval, Box::pin(async {})).await;
    assert_eq!(verdict, Err(Refusal::Cancelled));
    assert!(events.lock().unwrap().is_empty(), "{:?}", events.lock().unwrap());

    // Withdrawn while its prompt is on screen: over after polkit closed it.
    assert_eq!(withdrawn_once_asked(&verifier, &approval, &events).await, Err(Refusal::Cancelled));
    assert_eq!(*events.lock().unwrap(), ["asked", "cancel", "closed", "over"]);

    // Showing the recovery phrase asks its own action, never the approval's.
    events.lock().unwrap().clear();
    let show = Approval { purpose: Purpose::ShowRecoveryKit, ..approval.clone() };
    assert_eq!(withdrawn_once_asked(&verifier, &show, &events).await, Err(Refusal::Cancelled));
    assert_eq!(*actions.lock().unwrap(), ["org.schcp.keyapp.approve", "org.schcp.keyapp.recovery-kit"]);

    // A polkit that never answers the cancellation holds nothing back for
    // long: the withdrawal is over after its bound (5 s) all the same.
    events.lock().unwrap().clear();
    deaf.store(true, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(withdrawn_once_asked(&verifier, &approval, &events).await, Err(Refusal::Cancelled));
    assert_eq!(*events.lock().unwrap(), ["asked", "cancel", "over"]);
}

/// `approval` asked, and withdrawn once its check is open; "over" is noted
/// when the verification ends.
async fn withdrawn_once_asked(
    verifier: &PolkitVerifier,
    approval: &Approval,
    events: &Mutex<Vec<&'static str>>,
) -> keyapp::user_verification::Verdict {
    let withdraw = Arc::new(Notify::new());
    let checking = async {
        let withdrawn = withdraw.clone();
        let verdict = verifier.verify_until(approval, Box::pin(async move { withdrawn.notified().await })).await;
        events.lock().unwrap().push("over");
        verdict
    };
    let withdrawing = async {
        while !events.lock().unwrap().contains(&"asked") {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        withdraw.notify_one();
    };
    let (verdict, ()) = tokio::time::timeout(Duration::from_secs(30), async { tokio::join!(checking, withdrawing) })
        .await
        .expect("withdrawn, not left on screen");
    verdict
}
