//! The person's answer to a pending pairing or request. A yes first goes
//! through the OS's user verification for the process that asked
//! (user_verification): only once the OS confirmed the person is anything
//! signed or paired, and a refusal leaves the request pending, changed in
//! nothing. A no needs no verification where declining gives an assistant
//! nothing; an invitation's no is signed, so the host hears it at once (§5.10),
//! and is confirmed like a yes.

use super::pairing::{Pairing, PairingStatus};
use super::requests::{RequestStatus, RequestView};
use super::{Service, ServiceError};
use crate::user_verification::{Approval, Asker, Method, Refusal, Surface};
use serde_json::{json, Value};

impl Service {
    /// The person's yes or no from this process: the desktop window, and
    /// every in-process caller. The OS is asked about this process.
    pub async fn answer(&self, id: &str, approve: bool) -> Result<Value, ServiceError> {
        if !approve {
            return self.decline(id, this_process().ok().as_ref()).await;
        }
        self.answer_from(id, true, &this_process()?).await
    }

    /// The person's yes or no as `asker` gave it (the control socket's peer).
    pub async fn answer_from(&self, id: &str, approve: bool, asker: &Asker) -> Result<Value, ServiceError> {
        if !approve {
            return self.decline(id, Some(asker)).await;
        }
        if id.starts_with("pr_") {
            let p = self.approve_pairing_from(id, asker).await?;
            return Ok(json!({ "id": id, "status": p.status }));
        }
        let r = self.approve_request_from(id, asker).await?;
        Ok(json!({ "id": id, "status": r.status, "result": r.result }))
    }

    /// The person's no; `asker` is who gave it, asked about only when the no
    /// signs something (an invitation's, §5.10).
    pub async fn decline(&self, id: &str, asker: Option<&Asker>) -> Result<Value, ServiceError> {
        if id.starts_with("pr_") {
            let p = self.settle_pairing(id, false, None).await?;
            return Ok(json!({ "id": id, "status": p.status }));
        }
        let r = self.decline_request_from(id, asker).await?;
        Ok(json!({ "id": id, "status": r.status, "result": r.result }))
    }

    /// The person's yes to a request from this process.
    pub async fn approve_request(&self, request_id: &str) -> Result<RequestView, ServiceError> {
        self.approve_request_from(request_id, &this_process()?).await
    }

    /// The person's yes to a request: the OS confirms the person for `asker`,
    /// with the consent text's first line (what `consent.statement` says,
    /// §5.3), and only then is the credential built and signed.
    pub async fn approve_request_from(&self, request_id: &str, asker: &Asker) -> Result<RequestView, ServiceError> {
        let pending = self.request(request_id).await?;
        if pending.status != RequestStatus::Pending {
            return Err(ServiceError::NotPending(pending.status));
        }
        let summary = pending.consent_text.lines().next().unwrap_or_default().to_owned();
        let method = self.confirm(asker, summary).await?;
        self.issue_approved(request_id, Some(method)).await
    }

    /// The person's no to a request. A no that signs (an invitation's: the
    /// host hears it at once, §5.10) is confirmed by the OS for `asker` like a
    /// yes, with the statement it signs, and nothing is signed unless it is; a
    /// no that signs nothing is settled at once.
    pub async fn decline_request_from(
        &self,
        request_id: &str,
        asker: Option<&Asker>,
    ) -> Result<RequestView, ServiceError> {
        let pending = self.request(request_id).await?;
        if pending.status != RequestStatus::Pending {
            return Err(ServiceError::NotPending(pending.status));
        }
        let Some(statement) = self.no_statement(request_id).await? else {
            return self.decline_request(request_id).await;
        };
        let asker = asker.ok_or_else(|| Refusal::Unavailable { why: "the peer's process is not known".into() })?;
        let method = self.confirm(asker, statement.clone()).await?;
        match self.issue_declined(request_id, &statement, method).await {
            Ok(r) => Ok(r),
            Err(e @ ServiceError::NotPending(_)) => Err(e),
            // The person said no: a no that can no longer be signed (its
            // deadline passed while they read it) is still their no, kept as
            // one that gives the agent nothing.
            Err(e) => {
                tracing::warn!(request_id, error = %e, "the no could not be signed; declined without a credential");
                self.decline_request(request_id).await
            }
        }
    }

    /// The person's answer to a pairing from this process.
    pub async fn answer_pairing(&self, pairing_id: &str, approve: bool) -> Result<Pairing, ServiceError> {
        if !approve {
            return self.settle_pairing(pairing_id, false, None).await;
        }
        self.approve_pairing_from(pairing_id, &this_process()?).await
    }

    /// The person's yes to a pairing: confirmed by the OS for `asker` with
    /// "Pair <agent> (code …)", then settled.
    pub async fn approve_pairing_from(&self, pairing_id: &str, asker: &Asker) -> Result<Pairing, ServiceError> {
        self.expire_pairings(self.now()).await?;
        let p = self.pairing(pairing_id).await?;
        if p.status != PairingStatus::Pending {
            return Err(ServiceError::PairingNotPending(p.status));
        }
        let summary = self.words_with(
            "verification-pairing-summary",
            [("agent", p.agent_name.clone().into()), ("code", p.fingerprint.clone().into())],
        );
        let method = self.confirm(asker, summary).await?;
        self.settle_pairing(pairing_id, true, Some(method)).await
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

/// This process as the asker; if even that cannot be read, nothing can be asked.
pub(super) fn this_process() -> Result<Asker, ServiceError> {
    Asker::this_process(Surface::Window)
        .map_err(|e| ServiceError::NotVerified(Refusal::Unavailable { why: format!("this process: {e}") }))
}
