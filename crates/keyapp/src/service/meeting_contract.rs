//! The `meeting_contract` kind (§5.12), the organizer's side: the contract
//! over every member's verified offer, checked as the members' calendars will
//! check it before the person is asked.

use super::issued::{meeting_records, Issued};
use super::kind::{host_mismatch, not_begun, verified_domain, Context, Kind, Prepared, StoredOffer};
use super::{corrupt, Service, ServiceError};
use crate::host_binding::HostBinding;
use crate::kind::RequestKind;
use schcp::claims::{Answers, Attendee, MeetingContract, Member, OfferClaims, Place};
use schcp::refusal::Reason;
use schcp::verify::{self, check_contract_terms, MemberRefusal, TermsMismatch};
use schcp_consent::{ConsentRequest, MeetingContractRequest, VerifiedDomain, VerifiedOffer as ConsentOffer};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// At most this many members in one meeting. §5.12: "The organizer's key app
/// issues one mandate naming every member's calendar", so a meeting has no more
/// members than one mandate names hosts: both are bounded alike.
pub const MAX_MEMBERS: usize = super::MAX_HOSTS;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MeetingBody {
    meeting: MeetingTerms,
    members: Vec<MemberRef>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MeetingTerms {
    title: String,
    tz: String,
    start: String,
    end: Option<String>,
    open_end: Option<bool>,
    place: Place,
    attendees: Option<Vec<Attendee>>,
    answers: Option<Answers>,
    /// NumericDate: the deadline for everyone's answer.
    exp: i64,
    meeting_id: Option<String>,
    revision: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MemberRef {
    name: String,
    host: String,
    discovery: String,
    offer: String,
    business: Option<bool>,
    answers: Option<Answers>,
}

/// What `issue` signs: the contract as checked when shown, and each member's
/// offer with the keys it was verified with, checked again at the yes.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MeetingInput {
    contract: MeetingContract,
    offers: Vec<StoredOffer>,
}

/// What the agent receives.
#[derive(Debug, Serialize)]
pub(super) struct MeetingResult {
    contract: String,
    contract_sha256: String,
    meeting_id: String,
    revision: u32,
}

fn bad_meeting(message: impl Into<String>) -> ServiceError {
    ServiceError::invalid(Reason::MeetingInvalid, message)
}

/// The agent's terms, not a host's signature, fail here: 400 like the body
/// checks, with the §5.12 rule in the message.
fn refused_member(why: MemberRefusal) -> ServiceError {
    bad_meeting(why.to_string())
}

/// A member's offer against the contract's terms: `contract_mismatch`.
fn mismatch(why: TermsMismatch) -> ServiceError {
    ServiceError::invalid(Reason::ContractMismatch, why.to_string())
}

/// A new meeting names neither its id nor a revision (it gets both); a
/// revision names both, the revision 2 or more.
fn meeting_identity(meeting_id: Option<String>, revision: Option<u32>) -> Result<(String, u32), ServiceError> {
    match (meeting_id, revision) {
        (None, None) => Ok((Service::new_id("mtg_"), 1)),
        (Some(id), Some(r)) if r >= 2 => Ok((id, r)),
        _ => Err(bad_meeting(
            "a revision names both meeting_id and a revision of 2 or more; a new meeting names neither",
        )),
    }
}

/// Every member as its verified offer names it (§5.12), with what the text
/// shows of its calendar and what `issue` checks again.
#[derive(Default)]
struct Members {
    members: Vec<Member>,
    offers: Vec<OfferClaims>,
    stored: Vec<StoredOffer>,
    domains: BTreeMap<String, VerifiedDomain>,
    /// Where each calendar was verified (§2.2), and whether it is new to the person.
    placed: Vec<(HostBinding, bool)>,
    /// The earliest offer's exp: the request expires no later.
    not_after: i64,
}

/// Verifies each member's offer at its calendar's discovery document, places
/// the calendar (§2.2: a member's calendar id is bound where it was
/// verified) and names the member from the offer. A member who is one of the
/// person's contacts is signed under the contact's name, the one the consent
/// text shows, never under the agent's label for them, which the person does
/// not see (the text names contacts by the person's own names, §5.12).
async fn members(ctx: &Context<'_>, refs: &[MemberRef], revision: u32, exp: i64) -> Result<Members, ServiceError> {
    let mut found = Members { not_after: exp, ..Members::default() };
    let (_, contacts) = ctx.records.consent_words().await?;
    for m in refs {
        let (offer, host) = ctx.discovery.verify_offer(&m.discovery, &m.offer, ctx.now).await?;
        if host.host_id != m.host {
            return Err(host_mismatch(&m.discovery, &host.host_id, &m.host));
        }
        let placed = ctx.records.place(&host).await?;
        found.placed.push((placed.binding, placed.new));
        verify::offer_fits_revision(&offer.claims, &m.host, revision).map_err(refused_member)?;
        let business = m.business == Some(true);
        let named = verify::member_named(&offer.claims, &m.host, business, &m.name).map_err(refused_member)?;
        found.not_after = found.not_after.min(offer.claims.exp);
        if let Some(d) = verified_domain(&host.domain) {
            found.domains.insert(host.host_id.clone(), d);
        }
        let name = match business {
            true => named.name,
            false => contacts.name_of(&named.principal).map_or(named.name, str::to_owned),
        };
        found.members.push(Member {
            principal: named.principal,
            name,
            host: m.host.clone(),
            domain: host.domain.clone(),
            service_id: offer.claims.service.id.clone(),
            offer_sha256: offer.offer_sha256.clone(),
            business: business.then_some(true),
            answers: m.answers,
        });
        found.stored.push(StoredOffer::of(m.offer.clone(), &host));
        found.offers.push(offer.claims);
    }
    Ok(found)
}

/// The contract as the organizer will sign it, held to its closed schema and
/// to every rule the members' calendars will check (§5.12).
fn checked_contract(draft: MeetingContract, offers: &[OfferClaims], now: i64) -> Result<MeetingContract, ServiceError> {
    let value = serde_json::to_value(&draft).map_err(corrupt)?;
    schcp::schema::validate(schcp::schema::Def::MeetingContract, &value).map_err(|e| bad_meeting(e.to_string()))?;
    let draft: MeetingContract = serde_json::from_value(value).map_err(|e| bad_meeting(e.to_string()))?;
    verify::organizer_is_member(&draft).map_err(refused_member)?;
    let start = check_contract_terms(&draft, now).map_err(|e| bad_meeting(e.to_string()))?;
    verify::answers_due_before_start(&draft, start.timestamp()).map_err(refused_member)?;
    for (member, offer) in draft.members.iter().zip(offers) {
        verify::offer_matches_terms(offer, &draft, member.is_business()).map_err(mismatch)?;
    }
    verify::premises_are_the_place(&draft, offers).map_err(mismatch)?;
    not_begun("meeting", &draft.start, now)?;
    Ok(draft)
}

/// The statement of the latest contract of `contract.meeting_id` the person
/// approved here, which a revision replaces. A revision of a meeting this key
/// app never signed, one that is not higher, or one with other members is
/// refused: it would read as a new meeting while moving an agreed one.
async fn previous_statement(ctx: &Context<'_>, contract: &MeetingContract) -> Result<String, ServiceError> {
    // Only a contract this principal signed, of this meeting: the records
    // hold them, and the person's programs can write them; one written there
    // would put words the person never signed in the text, and make a
    // meeting the person never organized pass as a revision. Its deadline may
    // have passed, which does not matter here.
    let key = ctx.principal.key.public_key();
    for compact in crate::store::meetings::contracts(ctx.store, &contract.meeting_id).await? {
        let Ok(parsed) = schcp::jws::parse(&compact) else { continue };
        if parsed.verify_signature(&key).is_err() {
            continue;
        }
        let Ok(previous) = serde_json::from_value::<MeetingContract>(parsed.payload.clone()) else { continue };
        if previous.iss != ctx.principal.id || previous.meeting_id != contract.meeting_id {
            continue;
        }
        revises(&previous, contract)?;
        return Ok(previous.statement);
    }
    Err(bad_meeting(format!("no meeting {:?} was approved here to revise", contract.meeting_id)))
}

/// A revision comes after the one it replaces and keeps its members.
fn revises(previous: &MeetingContract, contract: &MeetingContract) -> Result<(), ServiceError> {
    if contract.revision <= previous.revision {
        return Err(bad_meeting(format!("revision {} is not after revision {}", contract.revision, previous.revision)));
    }
    if principals(previous) != principals(contract) {
        return Err(bad_meeting("a revision keeps the meeting's members"));
    }
    Ok(())
}

/// A contract's members' principals, sorted.
fn principals(c: &MeetingContract) -> Vec<&str> {
    let mut p: Vec<&str> = c.members.iter().map(|m| m.principal.as_str()).collect();
    p.sort_unstable();
    p
}

pub(super) struct MeetingContractKind;

impl Kind for MeetingContractKind {
    const KIND: RequestKind = RequestKind::MeetingContract;
    type Body = MeetingBody;
    type Input = MeetingInput;
    type Output = MeetingResult;

    async fn prepare(ctx: &Context<'_>, b: MeetingBody) -> Result<Prepared<MeetingInput>, ServiceError> {
        let now = ctx.now;
        if b.members.len() < 2 || b.members.len() > MAX_MEMBERS {
            return Err(bad_meeting(format!("a meeting has from 2 to {MAX_MEMBERS} members")));
        }
        let t = b.meeting;
        let (meeting_id, revision) = meeting_identity(t.meeting_id, t.revision)?;
        let found = members(ctx, &b.members, revision, t.exp).await?;
        let draft = MeetingContract {
            v: schcp::VERSION.into(),
            iss: ctx.principal.id.to_owned(),
            principal_jwk: ctx.principal.jwk(),
            iat: now,
            exp: t.exp,
            meeting_id,
            revision,
            title: t.title,
            tz: t.tz,
            start: t.start,
            end: t.end,
            open_end: t.open_end,
            place: t.place,
            members: found.members,
            attendees: t.attendees,
            answers: t.answers,
            // Replaced by the first line of the text the person approves.
            statement: "-".into(),
        };
        let contract = checked_contract(draft, &found.offers, now)?;
        let replaces = match revision {
            1 => None,
            _ => Some(previous_statement(ctx, &contract).await?),
        };
        let shown = found.offers.into_iter().zip(&contract.members).zip(&found.placed);
        let offers = shown
            .map(|((claims, m), (_, new_host))| ConsentOffer {
                claims,
                discovered: found.domains.get(&m.host).cloned(),
                new_host: *new_host,
            })
            .collect();
        let consent = ConsentRequest::MeetingContract(MeetingContractRequest {
            contract: contract.clone(),
            offers,
            domains: found.domains,
            replaces,
        });
        let hosts = found.placed.into_iter().map(|(binding, _)| binding).collect();
        let input = MeetingInput { contract, offers: found.stored };
        Ok(Prepared::asked(consent, input, Some(found.not_after)).at(hosts))
    }

    async fn issue(
        ctx: &Context<'_>,
        input: MeetingInput,
        statement: &str,
    ) -> Result<Issued<MeetingResult>, ServiceError> {
        let now = ctx.now;
        // Each offer again, against the keys it was verified with: a hold that
        // lapsed while the person read the text is not signed over.
        for s in &input.offers {
            s.verify_at(now)?;
        }
        let mut claims = input.contract;
        claims.iat = now;
        claims.statement = statement.to_owned();
        let contract = schcp::issue::meeting_contract(claims, now, ctx.principal.key)?;
        let c = &contract.claims;
        // The contract has no jti and no status (what the members accept is its
        // hash); the record's id is the key app's own, and it is not revocable.
        let (record, meeting) =
            meeting_records(Self::KIND, ctx.agent_jkt, now, &contract.compact, c, &contract.contract_sha256);
        let result = MeetingResult {
            meeting_id: c.meeting_id.clone(),
            revision: c.revision,
            contract: contract.compact,
            contract_sha256: contract.contract_sha256,
        };
        Ok(Issued { meeting: Some(meeting), ..Issued::one(result, record) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::kind::testing::{all_malformed, parse, refusal, round_trips};
    use serde_json::{json, Value};

    fn body(meeting: Value, members: Value) -> String {
        json!({"kind": "meeting_contract", "idempotency_key": "k", "meeting": meeting, "members": members}).to_string()
    }

    fn terms() -> Value {
        json!({"title": "Playdate", "tz": "America/Toronto", "start": "2026-12-05T12:00:00-05:00", "open_end": true,
               "place": {"name": "The park"}, "exp": 1_796_000_000})
    }

    fn member(host: &str) -> Value {
        json!({"name": host, "host": host, "discovery": format!("https://{host}.example/.well-known/scheduling.json"),
               "offer": "a.b.c"})
    }

    #[test]
    fn the_body_has_a_closed_shape() {
        let ok = parse::<MeetingContractKind>(&body(terms(), json!([member("a"), member("b")]))).unwrap();
        assert_eq!((ok.members.len(), ok.meeting.title.as_str()), (2, "Playdate"));
        let mut extra = terms();
        extra["price"] = json!("free");
        let mut bad_member = member("b");
        bad_member["principal"] = json!("urn:x");
        all_malformed::<MeetingContractKind>(&[
            body(extra, json!([member("a"), member("b")])),
            body(terms(), json!([member("a"), bad_member])),
            body(json!({"title": "Playdate"}), json!([member("a"), member("b")])),
            body(terms(), json!("a, b")),
        ]);
    }

    #[test]
    fn a_revision_names_its_meeting_and_a_new_meeting_neither() {
        let (id, revision) = meeting_identity(None, None).unwrap();
        assert!(id.starts_with("mtg_") && revision == 1);
        assert_eq!(meeting_identity(Some("mtg_1".into()), Some(2)).unwrap(), ("mtg_1".to_owned(), 2));
        for (id, r) in [(Some("mtg_1"), None), (None, Some(2)), (Some("mtg_1"), Some(1))] {
            assert_eq!(refusal(meeting_identity(id.map(str::to_owned), r)), Reason::MeetingInvalid);
        }
    }

    fn contract(revision: u32, principals: &[&str]) -> MeetingContract {
        let organizer = ed25519_dalek::SigningKey::from_bytes(&[1; 32]);
        let jwk = schcp::jwk::Jwk::ed25519(&organizer.verifying_key());
        let members: Vec<Value> = principals
            .iter()
            .enumerate()
            .map(|(i, p)| {
                json!({"principal": p, "name": format!("M{i}"), "host": format!("cal-{i}"), "domain": null,
                       "service_id": "playdate", "offer_sha256": schcp::hash::sha256_b64(format!("o{i}"))})
            })
            .collect();
        serde_json::from_value(json!({
            "v": "0.4", "iss": jwk.principal_id().unwrap(), "principal_jwk": jwk, "iat": 1_796_000_000,
            "exp": 1_796_003_600, "meeting_id": "mtg_1", "revision": revision, "title": "Playdate",
            "tz": "America/Toronto", "start": "2026-12-05T12:00:00-05:00", "open_end": true,
            "place": {"name": "The park"}, "members": members, "attendees": [], "answers": "person_or_rule",
            "statement": "I approve: a playdate."
        }))
        .unwrap_or_else(|e| panic!("a contract: {e}"))
    }

    fn principal(seed: u8) -> String {
        schcp::jwk::Jwk::ed25519(&ed25519_dalek::SigningKey::from_bytes(&[seed; 32]).verifying_key())
            .principal_id()
            .unwrap()
    }

    #[test]
    fn a_revision_comes_after_and_keeps_the_members() {
        let (a, b, c) = (principal(1), principal(2), principal(3));
        let first = contract(1, &[&a, &b]);
        assert!(revises(&first, &contract(2, &[&b, &a])).is_ok());
        assert_eq!(refusal(revises(&contract(2, &[&a, &b]), &contract(2, &[&a, &b]))), Reason::MeetingInvalid);
        assert_eq!(refusal(revises(&first, &contract(2, &[&a, &c]))), Reason::MeetingInvalid);
    }

    #[test]
    fn the_input_round_trips() {
        let a = principal(1);
        let input = MeetingInput {
            contract: contract(1, &[&a, &principal(2)]),
            offers: vec![StoredOffer { offer: "a.b.c".into(), host_id: "cal-0".into(), keys: Vec::new() }],
        };
        round_trips(&input);
    }
}
