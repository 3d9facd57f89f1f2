//! The `acceptance` kind (§5.12), a member's side: the person's own yes to a
//! meeting contract another person organized, with the other members named by
//! the person's own contacts.

use super::issued::{meeting_records, Issued};
use super::kind::{stored_input, Context, Kind, Prepared};
use super::ServiceError;
use crate::kind::RequestKind;
use crate::store::meetings;
use schcp::claims::MeetingContract;
use schcp::refusal::Reason;
use schcp::verify::{verify_meeting_contract, VerifiedContract};
use schcp_consent::{AcceptanceRequest, ConsentRequest, ReplacedRevision};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AcceptanceBody {
    contract: String,
}

/// The contract as the organizer signed it, verified again at the person's yes.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AcceptanceInput {
    contract: String,
}

#[derive(Serialize)]
pub(super) struct AcceptanceResult {
    acceptance: String,
    contract_sha256: String,
}

pub(super) struct Acceptance;

/// What a member's key app checks before the person is asked: the contract
/// verifies (signature by the organizer's own key, shape, deadline: §5.12), it
/// names this person as a member, and this person is not its organizer, whose
/// signature over the contract is already their yes.
pub(super) fn contract_for_member(compact: &str, me: &str, now: i64) -> Result<VerifiedContract, ServiceError> {
    let contract = verify_meeting_contract(compact, now)?;
    // §5.12: an acceptance's iat is no earlier than the terms' - 60 s; one
    // signed now over a contract dated later would be refused by every calendar.
    if contract.claims.iat > now + 60 {
        return Err(ServiceError::unacceptable(Reason::MeetingInvalid, "the contract is dated in the future"));
    }
    if contract.claims.iss == me {
        return Err(ServiceError::unacceptable(
            Reason::OwnContract,
            "this person organized the meeting; their signature on the contract is their yes (§5.12)",
        ));
    }
    if contract.member(me).is_none() {
        return Err(ServiceError::unacceptable(
            Reason::NotAMember,
            "the meeting contract does not name this person as a member (§5.12)",
        ));
    }
    Ok(contract)
}

/// What a revision replaces, as this person knows it (§5.12 "Revisions"): the
/// latest earlier revision of the meeting they accepted here, so the text says
/// what changed since; or, when they accepted none, the revision just before.
async fn replaced_revision(
    ctx: &Context<'_>,
    contract: &MeetingContract,
) -> Result<Option<ReplacedRevision>, ServiceError> {
    if contract.revision < 2 {
        return Ok(None);
    }
    // The records hold what the person accepted, and the person's programs
    // can write them: an earlier contract counts only as its organizer signed
    // it (its deadline has passed since, which does not matter here), for this
    // meeting (a meeting id is its organizer's choice) and an earlier
    // revision, and only with this person's own signed acceptance of exactly
    // it. Otherwise the text would say "which I accepted" of terms no one
    // agreed to, or of ones copied from the new revision.
    for (acceptance, input) in meetings::acceptances(ctx.store, &contract.meeting_id, contract.revision).await? {
        let Ok(input) = stored_input::<AcceptanceInput>(&input) else { continue };
        let Some(old) = organizer_signed(&input.contract) else { continue };
        if old.iss != contract.iss || old.meeting_id != contract.meeting_id || old.revision >= contract.revision {
            continue;
        }
        if accepted_by(ctx, &acceptance, &input.contract) {
            return Ok(Some(ReplacedRevision::Accepted(old)));
        }
    }
    Ok(Some(ReplacedRevision::NotAccepted { revision: contract.revision - 1 }))
}

/// A contract as its organizer signed it (the key its claims name, which is
/// its issuer's), whatever its deadline.
fn organizer_signed(compact: &str) -> Option<MeetingContract> {
    let parsed = schcp::jws::parse(compact).ok()?;
    let old: MeetingContract = parsed.claims().ok()?;
    let key = schcp::jwk::PublicKey::Ed25519(old.principal_jwk.ed25519_key().ok()?);
    parsed.verify_signature(&key).ok()?;
    (old.iss == old.principal_jwk.principal_id().ok()?).then_some(old)
}

/// Whether `acceptance` is this person's own signed acceptance of exactly
/// the contract `contract`.
fn accepted_by(ctx: &Context<'_>, acceptance: &str, contract: &str) -> bool {
    let Ok(parsed) = schcp::jws::parse(acceptance) else { return false };
    let mut keys = std::iter::once(ctx.principal.key).chain(ctx.principal.es256);
    if !keys.any(|k| parsed.verify_signature(&k.public_key()).is_ok()) {
        return false;
    }
    let Ok(claims) = parsed.claims::<schcp::claims::Acceptance>() else { return false };
    claims.iss == ctx.principal.id && claims.terms_sha256 == schcp::hash::jws_sha256(contract)
}

impl Kind for Acceptance {
    const KIND: RequestKind = RequestKind::Acceptance;
    type Body = AcceptanceBody;
    type Input = AcceptanceInput;
    type Output = AcceptanceResult;

    async fn prepare(ctx: &Context<'_>, b: AcceptanceBody) -> Result<Prepared<AcceptanceInput>, ServiceError> {
        let me = ctx.principal.id;
        let contract = contract_for_member(&b.contract, me, ctx.now)?;
        // §5.12: exp is the deadline for everyone's answer.
        let not_after = Some(contract.claims.exp);
        let replaces = replaced_revision(ctx, &contract.claims).await?;
        let consent = ConsentRequest::Acceptance(AcceptanceRequest {
            contract: contract.claims,
            me: me.to_owned(),
            // Members are shown by the person's own contact names; a calendar's
            // domain would only be one this key app discovered, and it fetches none
            // for an acceptance.
            domains: BTreeMap::new(),
            replaces,
        });
        Ok(Prepared::asked(consent, AcceptanceInput { contract: b.contract }, not_after))
    }

    async fn issue(
        ctx: &Context<'_>,
        input: AcceptanceInput,
        statement: &str,
    ) -> Result<Issued<AcceptanceResult>, ServiceError> {
        let now = ctx.now;
        // Again at approval: a contract whose deadline passed while the person read
        // it is not accepted.
        let contract = contract_for_member(&input.contract, ctx.principal.id, now)?;
        let accepted = schcp::issue::acceptance(&contract, statement.to_owned(), now, ctx.principal.key)?;
        // An acceptance has no jti and nothing revokes it (taking back a yes is the
        // member's calendar's act, §5.12); the record's id is the key app's own.
        let (record, meeting) = meeting_records(
            Self::KIND,
            ctx.agent_jkt,
            now,
            &accepted.compact,
            &contract.claims,
            &contract.contract_sha256,
        );
        let result = AcceptanceResult { acceptance: accepted.compact, contract_sha256: contract.contract_sha256 };
        Ok(Issued { meeting: Some(meeting), ..Issued::one(result, record) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::kind::testing::{all_malformed, parse, round_trips};
    use ed25519_dalek::SigningKey;
    use schcp::jwk::Jwk;
    use serde_json::{json, Value};

    fn principal(key: &SigningKey) -> String {
        Jwk::ed25519(&key.verifying_key()).principal_id().unwrap()
    }

    /// A contract organized by `organizer` with `members` (a person each).
    fn contract(organizer: &SigningKey, members: &[&SigningKey], now: i64) -> String {
        let members: Vec<Value> = members
            .iter()
            .enumerate()
            .map(|(i, k)| {
                json!({"principal": principal(k), "name": format!("Member {i}"), "host": format!("member-{i}"),
                       "domain": null, "service_id": "playdate", "offer_sha256": schcp::hash::sha256_b64(format!("offer {i}"))})
            })
            .collect();
        let claims = json!({
            "v": "0.4", "iss": principal(organizer), "principal_jwk": Jwk::ed25519(&organizer.verifying_key()),
            "iat": now, "exp": now + 3600, "meeting_id": "mtg_1", "revision": 1, "title": "Playdate",
            "tz": "America/Toronto", "start": "2026-12-05T12:00:00-05:00", "open_end": true,
            "place": {"name": "The park"}, "members": members, "attendees": [], "answers": "person_or_rule",
            "statement": "I approve: a playdate."
        });
        schcp::issue::meeting_contract(serde_json::from_value(claims).unwrap(), now, organizer).unwrap().compact
    }

    const NOW: i64 = 1_796_000_000;

    #[test]
    fn a_member_other_than_the_organizer_may_accept() {
        let (noor, ellis) = (SigningKey::from_bytes(&[1; 32]), SigningKey::from_bytes(&[2; 32]));
        let c = contract(&noor, &[&noor, &ellis], NOW);
        assert!(contract_for_member(&c, &principal(&ellis), NOW).is_ok());
        // §5.12: the organizer's signature is their yes; they accept nothing.
        let own = contract_for_member(&c, &principal(&noor), NOW).unwrap_err();
        assert!(matches!(own, ServiceError::Unacceptable { reason: Reason::OwnContract, .. }), "{own}");
        let stranger = SigningKey::from_bytes(&[3; 32]);
        let not = contract_for_member(&c, &principal(&stranger), NOW).unwrap_err();
        assert!(matches!(not, ServiceError::Unacceptable { reason: Reason::NotAMember, .. }), "{not}");
        // Past its deadline, nobody may accept it.
        assert!(matches!(contract_for_member(&c, &principal(&ellis), NOW + 3600), Err(ServiceError::Verification(_))));
    }

    #[test]
    fn the_body_is_one_contract_string() {
        let ok = parse::<Acceptance>(r#"{"kind":"acceptance","idempotency_key":"k","contract":"a.b.c"}"#).unwrap();
        assert_eq!(ok.contract, "a.b.c");
        all_malformed::<Acceptance>(&[
            r#"{"kind":"acceptance","idempotency_key":"k"}"#,
            r#"{"kind":"acceptance","idempotency_key":"k","contract":7}"#,
            r#"{"kind":"acceptance","idempotency_key":"k","contract":"a.b.c","extra":true}"#,
            r#"{"kind":"acceptance","idempotency_key":"k","contract":"a.b.c","contract":"d.e.f"}"#,
            r#"{"kind":"acceptance","idempotency_key":"k","contract":"a.b.c""#,
        ]);
    }

    #[test]
    fn the_input_round_trips() {
        round_trips(&AcceptanceInput { contract: "a.b.c".into() });
        // The shape stored before the input was typed reads the same.
        let old: AcceptanceInput = serde_json::from_value(json!({"contract": "a.b.c"})).unwrap();
        assert_eq!(old, AcceptanceInput { contract: "a.b.c".into() });
    }
}
