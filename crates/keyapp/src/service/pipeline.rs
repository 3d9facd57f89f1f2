//! What every request kind hands the pipeline (`requests`) and gets back from
//! it, and the helpers they share. Depends on no kind: each kind's module
//! depends on this one and never on a sibling.

use super::{Service, ServiceError};
use crate::host_binding::HostBinding;
use crate::kind::RequestKind;
use crate::store::credentials::CredentialRecord;
use crate::store::management_links::ManagementLink;
use crate::store::StoreError;
use schcp::claims::MeetingContract;
use schcp::jwk::Jwk;
use schcp::refusal::Reason;
use schcp::verify::HostKeys;
use schcp_consent::{ConsentRequest, VerifiedDomain};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A request verified and ready to be shown: what the person will read, and
/// the verified input the credential is built from once they say yes.
pub(super) struct Prepared {
    pub(super) consent: ConsentRequest,
    /// What `issue` builds the credential from; everything in it was verified.
    pub(super) input: Value,
    /// The request expires no later than this (the offer's exp).
    pub(super) not_after: Option<i64>,
    /// Issued without asking (§3.3: a management mandate a root mandate covers).
    pub(super) auto_approve: bool,
    /// Where each host the request names was verified (§2.2): bound at the
    /// person's yes, and kept with every credential issued for it.
    pub(super) hosts: Vec<HostBinding>,
}

/// What a kind issued on the person's yes.
pub(super) struct Issued {
    /// The request's `result` as the agent receives it.
    pub(super) result: Value,
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

/// What a meeting contract or an acceptance is about, kept beside its record.
pub(super) struct MeetingRecord {
    pub(super) jti: String,
    pub(super) meeting_id: String,
    pub(super) revision: u32,
    pub(super) contract_sha256: String,
    /// The members by the names the contract gives them.
    pub(super) members: Vec<String>,
}

impl MeetingRecord {
    /// The records of a signed meeting contract or acceptance (`kind`) about
    /// `contract`: a credential row with an id of the key app's own (neither
    /// has a jti or a status URL, so neither is revocable) and its meeting.
    pub(super) fn for_contract(
        kind: RequestKind,
        agent_jkt: &str,
        now: i64,
        compact: &str,
        contract: &MeetingContract,
        contract_sha256: &str,
    ) -> (CredentialRecord, MeetingRecord) {
        let jti = Service::new_id(if kind == RequestKind::Acceptance { "ac-" } else { "mc-" });
        let record = CredentialRecord {
            jti: jti.clone(),
            kind,
            agent_jkt: Some(agent_jkt.to_owned()),
            request_id: None,
            aud: Vec::new(),
            scope: Vec::new(),
            iat: now,
            exp: contract.exp,
            compact: compact.to_owned(),
            status_url: None,
            max_bookings: None,
            shared_limit: false,
            booking_id: None,
            host_keys: Default::default(),
        };
        let meeting = MeetingRecord {
            jti,
            meeting_id: contract.meeting_id.clone(),
            revision: contract.revision,
            contract_sha256: contract_sha256.to_owned(),
            members: contract.members.iter().map(|m| m.name.clone()).collect(),
        };
        (record, meeting)
    }

    pub(super) async fn insert(&self, tx: &mut sqlx::SqliteConnection) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO meeting_records (jti, meeting_id, revision, contract_sha256, members) VALUES (?, ?, ?, ?, ?)",
        )
        .bind(&self.jti)
        .bind(&self.meeting_id)
        .bind(self.revision)
        .bind(&self.contract_sha256)
        .bind(serde_json::to_string(&self.members).expect("names serialize"))
        .execute(&mut *tx)
        .await?;
        Ok(())
    }
}

/// The record of a mandate for one booking at one host (closed, management,
/// invitation): everything but its kind and booking read from the claims that
/// were signed, so the record cannot say other than the credential.
pub(super) fn booking_mandate_record(
    kind: RequestKind,
    agent_jkt: &str,
    issued: &schcp::issue::Issued<schcp::claims::MandateClaims>,
    booking_id: Option<String>,
) -> CredentialRecord {
    let c = &issued.claims;
    CredentialRecord {
        jti: c.jti.clone(),
        kind,
        agent_jkt: Some(agent_jkt.to_owned()),
        request_id: None,
        aud: c.aud.hosts().to_vec(),
        scope: c.scope.clone(),
        iat: c.iat,
        exp: c.exp,
        compact: issued.compact.clone(),
        status_url: c.status.clone(),
        max_bookings: None,
        shared_limit: false,
        booking_id,
        host_keys: Default::default(),
    }
}

/// A verified receipt, kept so the person can see what was booked under which mandate.
pub(super) struct ReceiptRecord {
    pub(super) host: String,
    pub(super) booking_id: String,
    pub(super) offer_sha256: Option<String>,
    pub(super) mandate_jti: Option<String>,
    pub(super) compact: String,
}

impl ReceiptRecord {
    /// What is kept of a receipt that passed the §5.3 checks.
    pub(super) fn of(receipt: &schcp::verify::VerifiedReceipt) -> ReceiptRecord {
        let c = &receipt.claims;
        ReceiptRecord {
            host: c.iss.clone(),
            booking_id: c.booking.booking_id.clone(),
            offer_sha256: c.offer_sha256.clone(),
            mandate_jti: c.consent.as_ref().map(|c| c.mandate.clone()),
            compact: receipt.compact.clone(),
        }
    }

    pub(super) async fn insert(&self, tx: &mut sqlx::SqliteConnection, now: i64) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO receipts (host, booking_id, offer_sha256, mandate_jti, compact, verified_at) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(&self.host)
        .bind(&self.booking_id)
        .bind(&self.offer_sha256)
        .bind(&self.mandate_jti)
        .bind(&self.compact)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        Ok(())
    }
}

/// A host-signed offer as the key app verified it when it was shown: the bytes
/// and the keys of the discovery document it was verified with. A closed
/// mandate's and a meeting contract's input keep it, so the offer is checked
/// again, by the same keys, at approval or when shown as a current contract.
#[derive(Serialize, Deserialize)]
pub(super) struct StoredOffer {
    pub(super) offer: String,
    pub(super) host_id: String,
    pub(super) keys: Vec<Jwk>,
}

impl StoredOffer {
    pub(super) fn verify_at(&self, at: i64) -> Result<schcp::verify::VerifiedOffer, schcp::Error> {
        schcp::verify::verify_offer(&self.offer, HostKeys { host_id: &self.host_id, keys: &self.keys }, at)
    }
}

/// A request body as one kind's closed shape (`deny_unknown_fields`), without
/// the envelope every kind shares (`kind`, `idempotency_key`), which the
/// pipeline has read and checked already.
pub(super) fn body<T: serde::de::DeserializeOwned>(obj: &Map<String, Value>) -> Result<T, ServiceError> {
    let mut own = obj.clone();
    own.remove("kind");
    own.remove("idempotency_key");
    serde_json::from_value(Value::Object(own)).map_err(|e| ServiceError::invalid(Reason::Malformed, e.to_string()))
}

/// A stored request input the key app wrote itself but cannot read back.
pub(super) fn corrupt(e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Store(StoreError::Corrupt(e.to_string()))
}

/// A stable pseudonym for `sub` (§3.3): the principal without its key.
pub(super) fn pseudonym(principal: &str) -> String {
    format!("p-{}", &schcp::hash::sha256_b64(principal)[..16])
}

/// A credential's lifetime in seconds: the ISO 8601 duration the agent asked
/// for, capped at `max`, or `default` when it asked for none. A duration too
/// long for any clock is capped like any long one, never wrapped.
pub(super) fn capped_lifetime(asked: Option<&str>, default: i64, max: i64) -> Result<i64, ServiceError> {
    match asked {
        None => Ok(default),
        Some(l) => {
            let d = schcp::duration::Duration::parse(l)
                .map_err(|e| ServiceError::invalid(Reason::BadLifetime, e.to_string()))?;
            Ok(i64::try_from(d.as_seconds()).unwrap_or(i64::MAX).clamp(1, max))
        }
    }
}

/// Refuses what starts at or before `now`: a yes to a slot that has begun
/// could only be used for something the person was not shown.
pub(super) fn not_begun(what: &str, start: &str, now: i64) -> Result<(), ServiceError> {
    let at =
        schcp::datetime::parse_date_time(start).map_err(|e| ServiceError::invalid(Reason::BadSlot, e.to_string()))?;
    if at.timestamp() <= now {
        return Err(ServiceError::unacceptable(
            Reason::AlreadyStarted,
            format!("the {what} started at {start}, before now"),
        ));
    }
    Ok(())
}

/// The domain the key app discovered a host at, as the consent text shows it (§5.2).
pub(super) fn verified_domain(d: &Option<String>) -> Option<VerifiedDomain> {
    d.as_deref().and_then(|d| VerifiedDomain::new(d).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifetimes_are_capped_defaulted_and_never_wrap() {
        assert_eq!(capped_lifetime(None, 60, 600).unwrap(), 60);
        assert_eq!(capped_lifetime(Some("PT5M"), 60, 600).unwrap(), 300);
        assert_eq!(capped_lifetime(Some("PT11M"), 60, 600).unwrap(), 600);
        // 2^63 seconds and more once became 1 second through an `as i64` cast.
        for huge in ["PT9223372036854775807S", "PT9223372036854775808S", "PT18446744073709551615S"] {
            assert_eq!(capped_lifetime(Some(huge), 60, 600).unwrap(), 600, "{huge}");
        }
        assert!(matches!(
            capped_lifetime(Some("forever"), 60, 600),
            Err(ServiceError::Invalid { reason: Reason::BadLifetime, .. })
        ));
    }
}
