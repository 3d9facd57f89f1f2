//! The `invitation` kind (§5.10): someone else's booking names this person as a
//! required participant, and asks for their own yes. The agent hands in the
//! booking as the host serves it to a participant (`GET /bookings/{id}`, §5.5:
//! the booking, its host-signed receipt and its contract `offer`). Accepting
//! issues a closed mandate the person's agent answers `respond` with; declining
//! issues nothing, and the booking follows its default at `confirm_by`.

use super::pipeline::{
    body, booking_mandate_record, corrupt, not_begun, pseudonym, verified_domain, Issued, Prepared, ReceiptRecord,
};
use super::{Requester, Service, ServiceError};
use crate::kind::RequestKind;
use schcp::claims::{
    Action, Audience, BookingResponse, BookingStatus, Consent, ConsentMode, OfferKind, Participant, ParticipantRole,
    ParticipantStatus,
};
use schcp::issue::{self, RootMandate};
use schcp::jwk::Jwk;
use schcp::refusal::Reason;
use schcp::schema::{self, Def};
use schcp::verify::{HostKeys, ReceiptExpectations, VerifiedOffer, VerifiedReceipt};
use schcp_consent::{ConsentRequest, InvitationRequest, VerifiedOffer as ConsentOffer};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InvitationBody {
    /// The `GET /bookings/{id}` response as the host served it (§5.5).
    booking: Value,
    discovery: String,
}

/// What `issue` checks again and builds the mandate from: the host's signed
/// bytes and the discovery keys they were verified with.
#[derive(Serialize, Deserialize)]
struct StoredInvitation {
    offer: String,
    receipt: String,
    host_id: String,
    keys: Vec<Jwk>,
}

/// An invitation that passed every check: the contract, the receipt, and this
/// person as the booking names them.
struct Verified {
    offer: VerifiedOffer,
    receipt: VerifiedReceipt,
    me: Participant,
    booker: Option<Participant>,
    confirm_by: i64,
}

/// A booking's contract: the offer it stands on, checked as when it was
/// accepted, at its own `iat`. Its `exp` bounded the hold it was offered on
/// (§5.2), not the booking, so a booking days old still has a contract a
/// participant can check (§5.10: "so they can verify the host's signature and
/// hash it"). Every other check of `verify_offer` applies.
fn verify_contract(compact: &str, host: HostKeys<'_>) -> Result<VerifiedOffer, schcp::Error> {
    let parsed = schcp::jws::parse(compact)?;
    // Not yet trusted: only the time the checks run at. A missing or wrongly
    // typed iat fails the schema inside verify_offer.
    let at = parsed.payload.get("iat").and_then(Value::as_i64).unwrap_or(0);
    schcp::verify::verify_offer(compact, host, at)
}

/// The signatures: the receipt and the contract by the host's discovery keys (§2.1, §5.3).
fn verify_signed(
    offer: &str,
    receipt: &str,
    host: HostKeys<'_>,
) -> Result<(VerifiedOffer, VerifiedReceipt), schcp::Error> {
    let receipt = schcp::verify::verify_receipt(receipt, host, ReceiptExpectations::default())?;
    let offer = verify_contract(offer, host)?;
    Ok((offer, receipt))
}

/// Everything §5.10 asks before the person reads an invitation, on signed data
/// only: the receipt names the contract given, and the booking names this person
/// (`me`) as an invitee whose answer is pending, with a deadline and a start
/// still ahead of `now`.
fn check(offer: VerifiedOffer, receipt: VerifiedReceipt, me: &str, now: i64) -> Result<Verified, ServiceError> {
    let booking = &receipt.claims.booking;
    // §5.3: "Every acceptance names its contract"; a receipt over another
    // booking's contract is not this booking's (§5.10 "The hash MUST be the
    // booking's current offer_sha256").
    if receipt.claims.offer_sha256.as_deref() != Some(offer.offer_sha256.as_str()) {
        return Err(ServiceError::unacceptable(
            Reason::ContractMismatch,
            "the receipt names another contract than the offer given (§5.3, §5.10)",
        ));
    }
    let same_terms = booking.service_id == offer.claims.service.id
        && booking.start == offer.claims.slot.start
        && match offer.claims.kind {
            OfferKind::Booking => true,
            OfferKind::Change => offer.claims.booking_id.as_deref() == Some(booking.booking_id.as_str()),
        };
    if !same_terms {
        return Err(ServiceError::unacceptable(
            Reason::ContractMismatch,
            "the contract's service, start or booking is not the booking's (§5.10)",
        ));
    }
    if offer.claims.iat > now + schcp::verify::IAT_SKEW {
        return Err(ServiceError::Verification(schcp::Error::IssuedInFuture {
            what: "offer",
            iat: offer.claims.iat,
            now,
        }));
    }
    // §5.10: tentative until every required participant accepts; at a host
    // that approves bookings, participants may answer while it is pending_host.
    if !matches!(booking.status, BookingStatus::Tentative | BookingStatus::PendingHost) {
        return Err(ServiceError::unacceptable(
            Reason::NotTentative,
            "the booking is not waiting for its participants' answers (§5.10)",
        ));
    }
    let participants = booking.participants.as_deref().unwrap_or_default();
    let mine: Vec<&Participant> = participants.iter().filter(|p| p.who.as_deref() == Some(me)).collect();
    let me_named = match mine.as_slice() {
        [] => {
            return Err(ServiceError::unacceptable(
                Reason::NotAParticipant,
                "the booking does not name this person as a participant (§5.10)",
            ))
        }
        [one] => (*one).clone(),
        _ => {
            return Err(ServiceError::unacceptable(
                Reason::DuplicateParticipant,
                "the booking names this person more than once (§5.10)",
            ))
        }
    };
    if me_named.role != ParticipantRole::Invitee {
        return Err(ServiceError::unacceptable(
            Reason::NotInvited,
            "the booking names this person, but not as an invitee asked to answer (§5.10); a booker's \
             reconfirmation is answered with a management_mandate",
        ));
    }
    match me_named.status {
        Some(ParticipantStatus::Pending) => {}
        Some(ParticipantStatus::Accepted | ParticipantStatus::Declined) => {
            return Err(ServiceError::unacceptable(
                Reason::AlreadyAnswered,
                "this person has already answered this booking (§5.10)",
            ))
        }
        Some(ParticipantStatus::NotRequired) | None => {
            return Err(ServiceError::unacceptable(
                Reason::NotInvited,
                "the booking does not ask this person for an answer (§5.10)",
            ))
        }
    }
    let Some(confirm_by) = me_named.confirm_by.as_deref() else {
        return Err(ServiceError::unacceptable(
            Reason::NoDeadline,
            "the booking gives this person no confirm_by (§5.10)",
        ));
    };
    let confirm_by = schcp::datetime::parse_date_time(confirm_by)
        .map_err(|e| ServiceError::invalid(Reason::BadSlot, e.to_string()))?;
    if confirm_by.timestamp() <= now {
        return Err(ServiceError::unacceptable(
            Reason::DeadlinePassed,
            format!("the deadline to answer, {confirm_by}, has passed; the booking follows its default (§5.10)"),
        ));
    }
    not_begun("booking", &booking.start, now)?;
    let booker = participants.iter().find(|p| p.role == ParticipantRole::Booker).cloned();
    Ok(Verified { offer, receipt, me: me_named, booker, confirm_by: confirm_by.timestamp() })
}

pub(super) async fn prepare(
    svc: &Service,
    _agent: &Requester,
    obj: &Map<String, Value>,
) -> Result<Prepared, ServiceError> {
    let b: InvitationBody = body(obj)?;
    // The booking response's own closed schema first (§5.3: "An agent MUST
    // refuse a response that fails").
    schema::validate(Def::BookingResponse, &b.booking).map_err(schcp::Error::from)?;
    let response: BookingResponse = serde_json::from_value(b.booking).map_err(|e| {
        ServiceError::Verification(schcp::Error::Json(schcp::json::JsonError::Malformed(e.to_string())))
    })?;
    let Some(offer) = response.offer.clone() else {
        return Err(ServiceError::unacceptable(
            Reason::NoContract,
            "the booking response carries no offer, so the contract cannot be checked (§5.10)",
        ));
    };
    let ((verified_offer, receipt), host) = svc
        .inner
        .discovery
        .verify_with(&b.discovery, |host| verify_signed(&offer, &response.receipt, host.host_keys()))
        .await?;
    // What the host served beside the receipt is unsigned: it must be the
    // booking the receipt signs, or the agent could show other terms.
    if response.booking != receipt.claims.booking {
        return Err(ServiceError::unacceptable(
            Reason::BookingMismatch,
            "the booking served differs from the one its receipt signs (§5.3)",
        ));
    }
    let now = svc.now();
    let v = check(verified_offer, receipt, svc.principal(), now)?;
    // §2.2: the host id is bound where it was verified, and a booking the key
    // app already holds credentials for verifies only at their place.
    let placed = svc.place(&host).await?;
    svc.at_booking_place(&v.receipt.claims.booking.booking_id, &placed.binding).await?;
    let replaces = match v.offer.claims.prev.as_deref() {
        Some(prev) => accepted_before(svc, &host.host_id, &v.receipt.claims.booking.booking_id, prev).await?,
        None => None,
    };
    let discovered = verified_domain(&host.domain);
    let consent = ConsentRequest::Invitation(InvitationRequest {
        contract: ConsentOffer { claims: v.offer.claims.clone(), discovered: discovered.clone(), new_host: placed.new },
        booker: v.booker.clone(),
        me: v.me.clone(),
        replaces: replaces.map(|claims| ConsentOffer { claims, discovered, new_host: placed.new }),
    });
    let stored =
        StoredInvitation { offer, receipt: response.receipt, host_id: host.host_id.clone(), keys: host.keys.clone() };
    Ok(Prepared {
        consent,
        input: serde_json::to_value(&stored).map_err(corrupt)?,
        // An answer after the deadline would be refused by the host (§5.10).
        not_after: Some(v.confirm_by),
        auto_approve: false,
        hosts: vec![placed.binding],
    })
}

/// The contract this person accepted for the same booking before it changed
/// (§5.10 "Changes re-ask"): the one an approved invitation here was over, whose
/// hash is the new contract's `prev` (§5.7's hash chain). Checked again by the
/// keys it was verified with, so only bytes the host signed are shown as the
/// old terms.
async fn accepted_before(
    svc: &Service,
    host_id: &str,
    booking_id: &str,
    prev: &str,
) -> Result<Option<schcp::claims::OfferClaims>, ServiceError> {
    let rows: Vec<(String,)> = sqlx::query_as(
        "SELECT input FROM requests
         WHERE kind = 'invitation' AND status = 'approved' AND json_extract(result, '$.offer_sha256') = ?
         ORDER BY created_at DESC",
    )
    .bind(prev)
    .fetch_all(svc.store().pool())
    .await?;
    for (input,) in rows {
        let stored: StoredInvitation = serde_json::from_str(&input).map_err(corrupt)?;
        if stored.host_id != host_id {
            continue;
        }
        let keys = HostKeys { host_id: &stored.host_id, keys: &stored.keys };
        let Ok((old, receipt)) = verify_signed(&stored.offer, &stored.receipt, keys) else { continue };
        if receipt.claims.booking.booking_id == booking_id && old.offer_sha256 == prev {
            return Ok(Some(old.claims));
        }
    }
    Ok(None)
}

pub(super) async fn issue(
    svc: &Service,
    agent_jkt: &str,
    input: &Value,
    statement: &str,
    now: i64,
) -> Result<Issued, ServiceError> {
    let stored: StoredInvitation = serde_json::from_value(input.clone()).map_err(corrupt)?;
    let keys = HostKeys { host_id: &stored.host_id, keys: &stored.keys };
    let (offer, receipt) = verify_signed(&stored.offer, &stored.receipt, keys)?;
    // Again at the person's yes: a deadline or start that passed while they
    // read it is not answered.
    let v = check(offer, receipt, svc.principal(), now)?;
    let booking_id = v.receipt.claims.booking.booking_id.clone();
    // §5.3 "Closed mandates", §5.10 "Answering": respond takes any scope, but
    // its constraints still apply. One action, the booking alone, this exact
    // contract, its slot and its total: nothing else can be done with it.
    let (_, mut constraints) = issue::closed_mandate_terms(&v.offer);
    constraints.bookings = Some(vec![booking_id.clone()]);
    let start = schcp::datetime::parse_date_time(&v.receipt.claims.booking.start)
        .map_err(|e| ServiceError::invalid(Reason::BadSlot, e.to_string()))?
        .timestamp();
    let jti = Service::new_id("m-");
    let status_url = svc.config().status_url(&svc.principal_thumbprint(), &jti);
    let issued = issue::root_mandate(
        RootMandate {
            aud: Audience::One(stored.host_id.clone()),
            sub: pseudonym(svc.principal()),
            jti: jti.clone(),
            iat: now,
            // §5.10: an answer after confirm_by is too late, and confirm_by is
            // never after the start.
            exp: v.confirm_by.min(start),
            agent_jkt: agent_jkt.to_owned(),
            scope: vec![Action::Book],
            constraints: Some(constraints),
            consent: Consent { mode: Some(ConsentMode::HumanPresent), statement: statement.to_owned() },
            contact: None,
            status: Some(status_url),
            attestations: Vec::new(),
        },
        svc.inner.key.as_ref(),
    )?;
    let result = json!({
        "mandate": issued.compact, "jti": jti, "exp": issued.claims.exp,
        "offer_sha256": v.offer.offer_sha256, "booking_id": booking_id,
    });
    Ok(Issued {
        result,
        credentials: vec![booking_mandate_record(RequestKind::Invitation, agent_jkt, &issued, Some(booking_id))],
        receipt: Some(ReceiptRecord::of(&v.receipt)),
        meeting: None,
        management: None,
    })
}
