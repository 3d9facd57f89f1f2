//! The person's answer to a pending pairing or request. A yes first goes
//! through the OS's user verification for the process that asked
//! (user_verification): only once the OS confirmed the person is anything
//! signed or paired, and a refusal leaves the request pending, changed in
//! nothing. A no needs no verification where declining gives an assistant
//! nothing; an invitation's no is signed, so the host hears it at once (§5.10),
//! and is confirmed like a yes.

use super::pairing::{Pairing, PairingStatus, Pairings};
use super::requests::{RequestView, Requests};
use super::{Service, ServiceError};
use crate::user_verification::{Approval, Asker, Method, Refusal, Surface};
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

    /// The person's no to a pending pairing (`pr_…`) or request, given from
    /// `origin`, asked about only when the no signs something (an
    /// invitation's, §5.10).
    pub async fn decline(&self, id: &str, origin: Origin<'_>) -> Result<Value, ServiceError> {
        if id.starts_with("pr_") {
            let p = self.pairings().decline(id).await?;
            return Ok(json!({ "id": id, "status": p.status }));
        }
        let r = self.requests().decline(id, origin).await?;
        Ok(json!({ "id": id, "status": r.status, "result": r.result }))
    }

    /// Asks the service's verifier; its refusal is the approval's.
    pub(super) async fn confirm(&self, asker: &Asker, summary: String) -> Result<Method, ServiceError> {
        let approval = Approval { asker: asker.clone(), summary };
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
        let method = self.svc.confirm(&asker, summary).await?;
        self.svc.issue_confirmed(request_id, method, sealed.seal.as_deref().unwrap_or_default()).await
    }

    /// The person's no to a request. A no that signs (a kind's
    /// `no_statement`; none signs today) would be confirmed by the OS for
    /// `origin` like a yes, with the statement it signs, and nothing signed
    /// unless it is; a no that signs nothing is settled at once.
    pub async fn decline(self, request_id: &str, origin: Origin<'_>) -> Result<RequestView, ServiceError> {
        let asker = origin.asker().ok();
        let pending = self.svc.pending_sealed_request(request_id).await?;
        let Some(statement) = self.svc.no_statement(&pending)? else {
            return self.svc.decline_request(request_id).await;
        };
        let seal = pending.seal.unwrap_or_default();
        let asker = asker.ok_or_else(unknown_peer)?;
        let method = self.svc.confirm(&asker, statement.clone()).await?;
        match self.svc.issue_declined(request_id, &statement, method, &seal).await {
            Ok(r) => Ok(r),
            Err(e @ ServiceError::NotPending(_)) => Err(e),
            // The person said no: a no that can no longer be signed (its
            // deadline passed while they read it) is still their no, kept as
            // one that gives the agent nothing.
            Err(e) => {
                tracing::warn!(request_id, error = %e, "the no could not be signed; declined without a credential");
                self.svc.decline_request(request_id).await
            }
        }
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
        let method = self.svc.confirm(&asker, summary).await?;
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
