//! The person's answer to a pending pairing or request. A yes first goes
//! through the OS's user verification for the process that asked
//! (user_verification): only once the OS confirmed the person is anything
//! signed or paired, and a refusal leaves the request pending, changed in
//! nothing. A no signs nothing, so it needs no verification.

use super::pairing::{Pairing, PairingStatus, Pairings};
use super::requests::{RequestView, Requests};
use super::{Service, ServiceError};
use crate::kind::RequestKind;
use crate::user_verification::{Approval, Asker, Method, Purpose, Refusal, Surface};
use serde_json::{json, Value};
use std::borrow::Cow;

/// Where the person's answer comes from, as the OS is asked about it: this
/// process (the desktop window, and every in-process caller), or the peer
/// process of the control socket that carried it.
#[derive(Debug, Clone, Copy)]
pub enum Origin<'a> {
    ThisProcess,
    Peer(&'a Asker),
    /// A control-socket peer whose process the kernel did not name: it can
    /// confirm nothing, so it approves nothing; a no that signs nothing it
    /// may still give.
    UnknownPeer,
}

impl<'a> Origin<'a> {
    /// The process the OS is asked about; if even this process cannot be
    /// read, nothing can be asked.
    pub(super) fn asker(self) -> Result<Cow<'a, Asker>, ServiceError> {
        match self {
            Origin::ThisProcess => this_process().map(Cow::Owned),
            Origin::Peer(asker) => Ok(Cow::Borrowed(asker)),
            Origin::UnknownPeer => Err(unknown_peer().into()),
        }
    }
}

/// Why a peer the kernel did not name can confirm nothing.
fn unknown_peer() -> Refusal {
    Refusal::Unavailable { why: "the peer's process is not known".into() }
}

impl Service {
    /// The person's yes to a pending pairing (`pr_…`) or request, given
    /// from `origin`: the OS confirms the person first.
    pub async fn approve(&self, id: &str, origin: Origin<'_>) -> Result<Value, ServiceError> {
        if id.starts_with("pr_") {
            let p = self.pairings().approve(id, origin).await?;
            return Ok(json!({ "id": id, "status": p.status }));
        }
        let r = self.requests().approve(id, origin).await?;
        Ok(json!({ "id": id, "status": r.status, "result": r.result }))
    }

    /// The person's no to a pending pairing (`pr_…`) or request: a no signs
    /// nothing, so whoever gives it is not asked about, an invitation's
    /// included (§5.10).
    pub async fn decline(&self, id: &str) -> Result<Value, ServiceError> {
        if id.starts_with("pr_") {
            let p = self.pairings().decline(id).await?;
            return Ok(json!({ "id": id, "status": p.status }));
        }
        let r = self.requests().decline(id).await?;
        Ok(json!({ "id": id, "status": r.status, "result": r.result }))
    }

    /// Asks the service's verifier; its refusal is the approval's.
    pub(super) async fn confirm(&self, asker: &Asker, summary: String) -> Result<Method, ServiceError> {
        self.confirm_about(asker, summary, None).await
    }

    /// What a terminal or another program is asking the OS to confirm now, if
    /// anything: the OS's prompt names nothing, so the window shows this
    /// beside it (the desktop raises the consent window on `id`'s request or
    /// pairing, and a notification names `what`), and a person who asked for
    /// nothing cancels it (docs/threat-model.md).
    pub fn asked_elsewhere(&self) -> Option<AskedElsewhere> {
        let on_screen = self.verifier().on_screen()?;
        (on_screen.surface == Surface::Terminal).then_some(AskedElsewhere { what: on_screen.what, id: on_screen.about })
    }

    /// [`Service::confirm`], for the pending request or pairing `about`
    /// (shown by the window while a terminal's approval of it is asked).
    async fn confirm_about(&self, asker: &Asker, summary: String, about: Option<&str>) -> Result<Method, ServiceError> {
        let approval =
            Approval { asker: asker.clone(), summary, about: about.map(str::to_owned), purpose: Purpose::Approve };
        match self.verifier().verify(&approval).await {
            Ok(method) => {
                tracing::info!(method = method.as_str(), pid = asker.pid, "the OS confirmed the person's yes");
                Ok(method)
            }
            Err(refusal) => {
                tracing::warn!(reason = %refusal.reason(), error = %refusal, pid = asker.pid, "the OS did not confirm the person; nothing was approved");
                Err(refusal.into())
            }
        }
    }
}

/// A confirmation a terminal or another program asked the OS for: the line
/// confirmed, and the pending request or pairing it is for, if it is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskedElsewhere {
    pub what: String,
    pub id: Option<String>,
}

impl Requests<'_> {
    /// The person's yes to a request: the OS confirms the person for
    /// `origin`, with the consent text's first line (what `consent.statement`
    /// says, §5.3), and only then is the credential built and signed.
    pub async fn approve(self, request_id: &str, origin: Origin<'_>) -> Result<RequestView, ServiceError> {
        let asker = origin.asker()?;
        // The sealed row (record_seal), before the OS is asked: a row written
        // or changed outside the key app is never put to the person.
        let sealed = self.svc.pending_sealed_request(request_id).await?;
        let summary = sealed.consent_text.lines().next().unwrap_or_default().to_owned();
        let method = self.svc.confirm_about(&asker, summary, Some(request_id)).await?;
        self.svc.issue_confirmed(request_id, method, sealed.seal.as_deref().unwrap_or_default()).await
    }

    /// The person's no to a request, settled at once: a no signs nothing,
    /// so it needs no verification (an invitation's neither: §5.10 lets
    /// `respond` be signed under a mandate of any scope, so a credential for
    /// the no could say yes, docs/decisions.md "An invitation's no"). After
    /// a no to an invitation, the read credentials of that booking go too.
    pub async fn decline(self, request_id: &str) -> Result<RequestView, ServiceError> {
        let pending = self.svc.pending_sealed_request(request_id).await?;
        let declined = self.svc.decline_request(request_id).await?;
        if pending.kind == RequestKind::Invitation.as_str() {
            if let Some((host, booking)) = super::invitation::invited_booking(&pending.input) {
                self.svc.records().revoke_reads_of(&host, &booking).await;
            }
        }
        Ok(declined)
    }
}

impl Pairings<'_> {
    /// The person's yes to a pairing: confirmed by the OS for `origin` with
    /// "Pair “<agent>” (code …)", then settled.
    pub async fn approve(self, pairing_id: &str, origin: Origin<'_>) -> Result<Pairing, ServiceError> {
        let asker = origin.asker()?;
        self.svc.expire_pairings(self.svc.now()).await?;
        let p = self.pairing(pairing_id).await?;
        if p.status != PairingStatus::Pending {
            return Err(ServiceError::PairingNotPending(p.status));
        }
        let summary = self.svc.words_with(
            "verification-pairing-summary",
            // In quotes: a name such as "Cal (code 7F3A-…)" cannot put a
            // second code in the line the person confirms with their password.
            [
                ("agent", crate::ui_words::assistant_name(self.svc.language(), &p.agent_name).into()),
                ("code", p.fingerprint.clone().into()),
            ],
        );
        let method = self.svc.confirm_about(&asker, summary, Some(pairing_id)).await?;
        self.svc.settle_pairing(pairing_id, true, Some(method)).await
    }

    /// The person's no to a pairing: it needs no confirmation, since
    /// declining gives an assistant nothing.
    pub async fn decline(self, pairing_id: &str) -> Result<Pairing, ServiceError> {
        self.svc.settle_pairing(pairing_id, false, None).await
    }
}

/// This process as the asker; if even that cannot be read, nothing can be asked.
pub(super) fn this_process() -> Result<Asker, ServiceError> {
    Asker::this_process(Surface::Window)
        .map_err(|e| ServiceError::NotVerified(Refusal::Unavailable { why: format!("this process: {e}") }))
}
