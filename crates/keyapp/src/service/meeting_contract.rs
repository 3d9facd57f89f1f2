//! The `meeting_contract` kind (§5.12), the organizer's side: the contract
//! over every member's verified offer, checked as the members' calendars will
//! check it before the person is asked.

use super::pipeline::{body, corrupt, not_begun, verified_domain, Issued, MeetingRecord, Prepared, StoredOffer};
use super::{Requester, Service, ServiceError};
use crate::kind::RequestKind;
use schcp::claims::{Answers, Attendee, HostKind, MeetingContract, Member, OfferClaims, OfferKind, Place};
use schcp::datetime::parse_date_time;
use schcp::refusal::Reason;
use schcp::verify::{check_contract_terms, HOST_PRINCIPAL_PREFIX};
use schcp_consent::{ConsentRequest, MeetingContractRequest, VerifiedDomain, VerifiedOffer as ConsentOffer};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// At most this many members in one meeting.
pub const MAX_MEMBERS: usize = 20;

// ---- meeting_contract: the organizer's side ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MeetingBody {
    meeting: MeetingTerms,
    members: Vec<MemberRef>,
}

#[derive(Deserialize)]
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MemberRef {
    name: String,
    host: String,
    discovery: String,
    offer: String,
    business: Option<bool>,
    answers: Option<Answers>,
}

fn bad_meeting(message: impl Into<String>) -> ServiceError {
    ServiceError::invalid(Reason::MeetingInvalid, message)
}

/// How a member's offer disagrees with the contract's terms (§5.12), refused
/// as `contract_mismatch`; the message says which term.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum TermsMismatch {
    #[error("{host}'s offer starts at {offer}, the meeting at {meeting}")]
    Start { host: String, offer: String, meeting: String },
    #[error("{0}'s offer does not end when the meeting does")]
    End(String),
    #[error("{0}'s offer is for another place than the meeting's")]
    Place(String),
    #[error("{0}'s offer names no place; a person's calendar holds the time at the meeting's place")]
    NoPlace(String),
    #[error("{host}'s offer is on its own premises, so the meeting's place is {name:?}")]
    Premises { host: String, name: String },
    #[error("two businesses on their own premises cannot both be the meeting's place")]
    TwoPremises,
}

/// §5.12 "Confirming with a contract": every calendar refuses a contract whose
/// start, end or open_end, and place are not its own offer's; so does the
/// organizer's key app, before the person is asked. A business whose service
/// happens on its premises names no place, and its calendar does not compare it.
fn offer_matches_terms(offer: &OfferClaims, terms: &MeetingContract, business: bool) -> Result<(), TermsMismatch> {
    let host = &offer.iss;
    let same_instant = |a: &str, b: &str| matches!((parse_date_time(a), parse_date_time(b)), (Ok(x), Ok(y)) if x == y);
    if !same_instant(&offer.slot.start, &terms.start) {
        return Err(TermsMismatch::Start {
            host: host.clone(),
            offer: offer.slot.start.clone(),
            meeting: terms.start.clone(),
        });
    }
    match (&offer.slot.end, &terms.end) {
        (Some(a), Some(b)) if same_instant(a, b) => {}
        (None, None) if offer.open_end == Some(true) && terms.is_open_ended() => {}
        _ => return Err(TermsMismatch::End(host.clone())),
    }
    match &offer.place {
        Some(place) if place == &terms.place => Ok(()),
        None if business => Ok(()),
        Some(_) => Err(TermsMismatch::Place(host.clone())),
        None => Err(TermsMismatch::NoPlace(host.clone())),
    }
}

/// §5.12: "Where the business's service happens on its own premises, its offer
/// names no place: the contract's place is the business." So the place the text
/// shows must be that business, by the name it signed; and two businesses
/// without a place cannot both be where the meeting is.
fn premises_are_the_place(contract: &MeetingContract, offers: &[OfferClaims]) -> Result<(), TermsMismatch> {
    let on_premises: Vec<&OfferClaims> = contract
        .members
        .iter()
        .zip(offers)
        .filter(|(m, o)| m.is_business() && o.place.is_none())
        .map(|(_, o)| o)
        .collect();
    match on_premises.as_slice() {
        [] => Ok(()),
        [offer] => {
            let name = offer.host.as_ref().map_or(offer.iss.as_str(), |h| h.name.as_str());
            if contract.place.name.as_deref() == Some(name) {
                Ok(())
            } else {
                Err(TermsMismatch::Premises { host: offer.iss.clone(), name: name.to_owned() })
            }
        }
        _ => Err(TermsMismatch::TwoPremises),
    }
}

/// The statement of the latest contract of `contract.meeting_id` the person
/// approved here, which a revision replaces. A revision of a meeting this key
/// app never signed, one that is not higher, or one with other members is
/// refused: it would read as a new meeting while moving an agreed one.
async fn previous_statement(svc: &Service, contract: &MeetingContract) -> Result<String, ServiceError> {
    let row: Option<(String,)> = sqlx::query_as(
        "SELECT result FROM requests
         WHERE kind = 'meeting_contract' AND status = 'approved' AND json_extract(result, '$.meeting_id') = ?
         ORDER BY json_extract(result, '$.revision') DESC LIMIT 1",
    )
    .bind(&contract.meeting_id)
    .fetch_optional(svc.store().pool())
    .await?;
    let Some((result,)) = row else {
        return Err(bad_meeting(format!("no meeting {:?} was approved here to revise", contract.meeting_id)));
    };
    let result: Value = serde_json::from_str(&result).map_err(corrupt)?;
    let compact = result["contract"].as_str().ok_or_else(|| corrupt("no contract"))?;
    // Our own signed record; its deadline may have passed, which does not matter here.
    let parsed = schcp::jws::parse(compact).map_err(corrupt)?;
    let previous: MeetingContract = serde_json::from_value(parsed.payload.clone()).map_err(corrupt)?;
    if contract.revision <= previous.revision {
        return Err(bad_meeting(format!("revision {} is not after revision {}", contract.revision, previous.revision)));
    }
    let principals = |c: &MeetingContract| {
        let mut p: Vec<String> = c.members.iter().map(|m| m.principal.clone()).collect();
        p.sort();
        p
    };
    if principals(&previous) != principals(contract) {
        return Err(bad_meeting("a revision keeps the meeting's members"));
    }
    Ok(previous.statement)
}

pub(super) async fn prepare(
    svc: &Service,
    _agent: &Requester,
    obj: &Map<String, Value>,
) -> Result<Prepared, ServiceError> {
    let b: MeetingBody = body(obj)?;
    let now = svc.now();
    if b.members.len() < 2 || b.members.len() > MAX_MEMBERS {
        return Err(bad_meeting(format!("a meeting has from 2 to {MAX_MEMBERS} members")));
    }
    let (meeting_id, revision) = match (b.meeting.meeting_id, b.meeting.revision) {
        (None, None) => (Service::new_id("mtg_"), 1),
        (Some(id), Some(r)) if r >= 2 => (id, r),
        _ => {
            return Err(bad_meeting(
                "a revision names both meeting_id and a revision of 2 or more; a new meeting names neither",
            ))
        }
    };
    let mut members = Vec::new();
    let mut offers = Vec::new();
    let mut stored = Vec::new();
    let mut domains: BTreeMap<String, VerifiedDomain> = BTreeMap::new();
    let mut not_after = b.meeting.exp;
    let mut placed = Vec::new();
    for m in &b.members {
        let (offer, host) = svc.inner.discovery.verify_offer(&m.discovery, &m.offer, now).await?;
        if host.host_id != m.host {
            return Err(ServiceError::invalid(
                Reason::HostMismatch,
                format!("the discovery document at {} is for host {:?}, not {:?}", m.discovery, host.host_id, m.host),
            ));
        }
        // §2.2: a member's calendar id is bound where it was verified.
        placed.push(svc.place(&host).await?);
        if offer.claims.kind == OfferKind::Change && revision == 1 {
            return Err(bad_meeting(format!(
                "{}'s offer is a change offer; a new meeting is made over booking offers",
                m.host
            )));
        }
        let business = m.business == Some(true);
        let signed_kind = offer.claims.host.as_ref().and_then(|h| h.kind).unwrap_or_default();
        let (principal, name) = if business {
            if signed_kind == HostKind::Person {
                return Err(bad_meeting(format!("{}'s offer is a person's calendar, not a business's", m.host)));
            }
            // §5.12: a business is shown as its own signed offer names it,
            // never by a name the agent chose.
            let name = offer.claims.host.as_ref().map_or_else(|| offer.claims.iss.clone(), |h| h.name.clone());
            (format!("{HOST_PRINCIPAL_PREFIX}{}", m.host), name)
        } else {
            // §5.12: a person's calendar names its owner's principal in its offers.
            let owner =
                offer.claims.host.as_ref().and_then(|h| h.owner.clone()).filter(|_| signed_kind == HostKind::Person);
            let owner = owner.ok_or_else(|| {
                bad_meeting(format!(
                    "{}'s offer is not a person's calendar (it names no owner); mark a business with business: true",
                    m.host
                ))
            })?;
            (owner, m.name.clone())
        };
        not_after = not_after.min(offer.claims.exp);
        if let Some(d) = verified_domain(&host.domain) {
            domains.insert(host.host_id.clone(), d);
        }
        members.push(Member {
            principal,
            name,
            host: m.host.clone(),
            domain: host.domain.clone(),
            service_id: offer.claims.service.id.clone(),
            offer_sha256: offer.offer_sha256.clone(),
            business: business.then_some(true),
            answers: m.answers,
        });
        stored.push(StoredOffer { offer: m.offer.clone(), host_id: host.host_id.clone(), keys: host.keys.clone() });
        offers.push(offer.claims);
    }
    let draft = MeetingContract {
        v: schcp::VERSION.into(),
        iss: svc.principal().to_owned(),
        principal_jwk: svc.principal_jwk(),
        iat: now,
        exp: b.meeting.exp,
        meeting_id,
        revision,
        title: b.meeting.title,
        tz: b.meeting.tz,
        start: b.meeting.start,
        end: b.meeting.end,
        open_end: b.meeting.open_end,
        place: b.meeting.place,
        members,
        attendees: b.meeting.attendees,
        answers: b.meeting.answers,
        // Replaced by the first line of the text the person approves.
        statement: "-".into(),
    };
    let value = serde_json::to_value(&draft).map_err(corrupt)?;
    schcp::schema::validate(schcp::schema::Def::MeetingContract, &value).map_err(|e| bad_meeting(e.to_string()))?;
    let draft: MeetingContract = serde_json::from_value(value).map_err(|e| bad_meeting(e.to_string()))?;
    if draft.members.iter().all(|m| m.principal != draft.iss) {
        return Err(bad_meeting(
            "the organizer is one of the members: name this person's own calendar and its offer (§5.12)",
        ));
    }
    // The agent's terms, not a host's signature, fail here: 400 like the
    // checks above, with the §5.12 rule in the message.
    let start = check_contract_terms(&draft, now).map_err(|e| bad_meeting(e.to_string()))?;
    if draft.exp > start.timestamp() {
        return Err(bad_meeting("the deadline for answers (exp) is after the meeting starts"));
    }
    for (member, offer) in draft.members.iter().zip(&offers) {
        offer_matches_terms(offer, &draft, member.is_business())
            .map_err(|why| ServiceError::invalid(Reason::ContractMismatch, why.to_string()))?;
    }
    premises_are_the_place(&draft, &offers)
        .map_err(|why| ServiceError::invalid(Reason::ContractMismatch, why.to_string()))?;
    not_begun("meeting", &draft.start, now)?;
    let replaces = match revision {
        1 => None,
        _ => Some(previous_statement(svc, &draft).await?),
    };
    let consent = ConsentRequest::MeetingContract(MeetingContractRequest {
        contract: draft.clone(),
        offers: offers
            .into_iter()
            .zip(&draft.members)
            .zip(&placed)
            .map(|((claims, m), p)| ConsentOffer { claims, discovered: domains.get(&m.host).cloned(), new_host: p.new })
            .collect(),
        domains,
        replaces,
    });
    let input = json!({ "contract": draft, "offers": stored });
    let hosts = placed.into_iter().map(|p| p.binding).collect();
    Ok(Prepared { consent, input, not_after: Some(not_after), auto_approve: false, hosts })
}

pub(super) async fn issue(
    svc: &Service,
    agent_jkt: &str,
    input: &Value,
    statement: &str,
    now: i64,
) -> Result<Issued, ServiceError> {
    let mut claims: MeetingContract = serde_json::from_value(input["contract"].clone()).map_err(corrupt)?;
    let stored: Vec<StoredOffer> = serde_json::from_value(input["offers"].clone()).map_err(corrupt)?;
    // Each offer again, against the keys it was verified with: a hold that
    // lapsed while the person read the text is not signed over.
    for s in &stored {
        s.verify_at(now)?;
    }
    claims.iat = now;
    claims.statement = statement.to_owned();
    let contract = schcp::issue::meeting_contract(claims, now, svc.inner.key.as_ref())?;
    let c = &contract.claims;
    let result = json!({ "contract": contract.compact, "contract_sha256": contract.contract_sha256,
                         "meeting_id": c.meeting_id, "revision": c.revision });
    // The contract has no jti and no status (what the members accept is its
    // hash); the record's id is the key app's own, and it is not revocable.
    let (record, meeting) = MeetingRecord::for_contract(
        RequestKind::MeetingContract,
        agent_jkt,
        now,
        &contract.compact,
        c,
        &contract.contract_sha256,
    );
    Ok(Issued { result, credentials: vec![record], receipt: None, meeting: Some(meeting), management: None })
}
