//! What a kind issued on the person's yes, and the records kept of it: built
//! from the claims that were signed, so a record cannot say other than its
//! credential.

use super::Service;
use crate::kind::RequestKind;
use crate::store::credentials::CredentialRecord;
use crate::store::management_links::ManagementLink;
use crate::store::meetings::MeetingRecord;
use crate::store::receipts::ReceiptRecord;
use schcp::claims::MeetingContract;

/// What a kind issued on the person's yes.
pub(super) struct Issued<O> {
    /// The request's `result` as the agent receives it.
    pub(super) result: O,
    /// Recorded in the approval's transaction; `request_id` is the pipeline's.
    pub(super) credentials: Vec<CredentialRecord>,
    /// A host-signed receipt the credential was built on, kept so the person can
    /// look back at what was agreed.
    pub(super) receipt: Option<ReceiptRecord>,
    /// The meeting a contract or acceptance is about (§5.12).
    pub(super) meeting: Option<MeetingRecord>,
    /// A management mandate's place in its chain (§3.3), and the one it
    /// replaces on renewal, revoked in the same transaction.
    pub(super) management: Option<(ManagementLink, Option<String>)>,
}

impl<O> Issued<O> {
    /// One credential and nothing kept beside it.
    pub(super) fn one(result: O, credential: CredentialRecord) -> Issued<O> {
        Issued { result, credentials: vec![credential], receipt: None, meeting: None, management: None }
    }

    pub(super) fn map<P>(self, f: impl FnOnce(O) -> P) -> Issued<P> {
        Issued {
            result: f(self.result),
            credentials: self.credentials,
            receipt: self.receipt,
            meeting: self.meeting,
            management: self.management,
        }
    }
}

/// A credential row for `kind` with everything but what the caller sets.
pub(super) fn credential(
    kind: RequestKind,
    jti: String,
    agent_jkt: &str,
    iat: i64,
    exp: i64,
    compact: String,
) -> CredentialRecord {
    CredentialRecord {
        jti,
        kind,
        agent_jkt: Some(agent_jkt.to_owned()),
        request_id: None,
        aud: Vec::new(),
        scope: Vec::new(),
        iat,
        exp,
        compact,
        status_url: None,
        max_bookings: None,
        shared_limit: false,
        booking_id: None,
        host_keys: Default::default(),
    }
}

/// The records of a signed meeting contract or acceptance (`kind`) about
/// `contract`: a credential row with an id of the key app's own (neither has
/// a jti or a status URL, so neither is revocable) and its meeting.
pub(super) fn meeting_records(
    kind: RequestKind,
    agent_jkt: &str,
    now: i64,
    compact: &str,
    contract: &MeetingContract,
    contract_sha256: &str,
) -> (CredentialRecord, MeetingRecord) {
    let jti = Service::new_id(if kind == RequestKind::Acceptance { "ac-" } else { "mc-" });
    let record = credential(kind, jti.clone(), agent_jkt, now, contract.exp, compact.to_owned());
    let meeting = MeetingRecord {
        jti,
        meeting_id: contract.meeting_id.clone(),
        revision: contract.revision,
        contract_sha256: contract_sha256.to_owned(),
        members: contract.members.iter().map(|m| m.name.clone()).collect(),
    };
    (record, meeting)
}

/// The record of a mandate for one booking at one host (closed, management,
/// invitation): everything but its kind and booking read from the claims that
/// were signed.
pub(super) fn booking_mandate_record(
    kind: RequestKind,
    agent_jkt: &str,
    issued: &schcp::issue::Issued<schcp::claims::MandateClaims>,
    booking_id: Option<String>,
) -> CredentialRecord {
    let c = &issued.claims;
    CredentialRecord {
        aud: c.aud.hosts().to_vec(),
        scope: c.scope.clone(),
        status_url: c.status.clone(),
        booking_id,
        ..credential(kind, c.jti.clone(), agent_jkt, c.iat, c.exp, issued.compact.clone())
    }
}

/// What is kept of a receipt that passed the §5.3 checks.
pub(super) fn receipt_record(receipt: &schcp::verify::VerifiedReceipt) -> ReceiptRecord {
    let c = &receipt.claims;
    ReceiptRecord {
        host: c.iss.clone(),
        booking_id: c.booking.booking_id.clone(),
        offer_sha256: c.offer_sha256.clone(),
        mandate_jti: c.consent.as_ref().map(|c| c.mandate.clone()),
        compact: receipt.compact.clone(),
    }
}
