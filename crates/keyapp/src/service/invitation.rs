//! The `invitation` kind (§5.10): someone else's booking names this person as a
//! required participant (an invitee, or someone coming along named with `who`),
//! and asks for their own answer. The agent hands in the booking as the host
//! serves it to a participant (`GET /bookings/{id}`, §5.5: the booking, its
//! host-signed receipt and its contract `offer`). Accepting issues a closed
//! mandate the person's agent answers `respond` with; declining signs nothing
//! (§5.10 lets `respond` be signed under a mandate of any scope, so any
//! credential for the no could accept), and the booking follows its default
//! at its deadline (docs/decisions.md "An invitation's no").

use super::issued::{booking_mandate_record, receipt_record, Issued};
use super::kind::{approved_over_offer, not_begun, verified_domain, Context, Kind, Prepared};
use super::{Service, ServiceError};
use crate::kind::RequestKind;
use schcp::claims::{
    Action, Audience, BookingResponse, BookingStatus, Consent, ConsentMode, OfferClaims, OfferKind, Participant,
    ParticipantRole, ParticipantStatus,
};
use schcp::issue::{self, RootMandate};
use schcp::jwk::Jwk;
use schcp::refusal::Reason;
use schcp::schema::{self, Def};
use schcp::verify::{HostKeys, ReceiptExpectations, VerifiedOffer, VerifiedReceipt};
use schcp_consent::{ConsentRequest, InvitationRequest, VerifiedOffer as ConsentOffer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct InvitationBody {
    /// The `GET /bookings/{id}` response as the host served it (§5.5): checked
    /// against its own closed schema before it is read as a booking.
    booking: Value,
    discovery: String,
}

/// What `issue` checks again and builds the mandate from: the host's signed
/// bytes and the discovery keys they were verified with.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StoredInvitation {
    offer: String,
    receipt: String,
    host_id: String,
    keys: Vec<Jwk>,
    /// What inputs stored while a no was signed kept: the statement it
    /// signed. Read and never used: a no signs nothing (docs/decisions.md
    /// "An invitation's no").
    #[serde(default, skip_serializing)]
    no: Option<String>,
}

/// What the agent receives. Its `offer_sha256` is what migration 0004's
/// index reads: how a changed booking's new contract finds the one the person
/// accepted before (`accepted_before`).
#[derive(Debug, PartialEq, Serialize)]
pub(super) struct InvitationResult {
    mandate: String,
    jti: String,
    exp: i64,
    offer_sha256: String,
    booking_id: String,
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
    same_contract(&offer, &receipt)?;
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
    let me_named = invitee(participants, me)?;
    let confirm_by = deadline(&me_named, now)?;
    not_begun("booking", &booking.start, now)?;
    let booker = participants.iter().find(|p| p.role == ParticipantRole::Booker).cloned();
    Ok(Verified { offer, receipt, me: me_named, booker, confirm_by })
}

/// §5.3: "Every acceptance names its contract"; a receipt over another
/// booking's contract is not this booking's (§5.10 "The hash MUST be the
/// booking's current offer_sha256"), nor is a contract for another service,
/// start or booking.
fn same_contract(offer: &VerifiedOffer, receipt: &VerifiedReceipt) -> Result<(), ServiceError> {
    let booking = &receipt.claims.booking;
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
    Ok(())
}

/// This person as the booking names them: once, as an invitee whose answer
/// is pending (§5.10).
fn invitee(participants: &[Participant], me: &str) -> Result<Participant, ServiceError> {
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
    // §5.10: "A required participant (one with who, a principal id) must
    // accept the booking": an invitee, or someone coming along named with who.
    if me_named.role == ParticipantRole::Booker {
        return Err(ServiceError::unacceptable(
            Reason::NotInvited,
            "the booking names this person as its booker, not as a participant asked to answer (§5.10); a \
             booker's reconfirmation is answered with a management_mandate",
        ));
    }
    match me_named.status {
        Some(ParticipantStatus::Pending) => Ok(me_named),
        Some(ParticipantStatus::Accepted | ParticipantStatus::Declined) => Err(ServiceError::unacceptable(
            Reason::AlreadyAnswered,
            "this person has already answered this booking (§5.10)",
        )),
        Some(ParticipantStatus::NotRequired) | None => Err(ServiceError::unacceptable(
            Reason::NotInvited,
            "the booking does not ask this person for an answer (§5.10)",
        )),
    }
}

/// The invitee's `confirm_by`, still ahead of `now` (§5.10).
fn deadline(me: &Participant, now: i64) -> Result<i64, ServiceError> {
    let Some(confirm_by) = me.confirm_by.as_deref() else {
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
    Ok(confirm_by.timestamp())
}

/// The contract the served booking carries: without it the booking's terms
/// cannot be checked (§5.10).
fn contract_of(response: &BookingResponse) -> Result<String, ServiceError> {
    response.offer.clone().ok_or_else(|| {
        ServiceError::unacceptable(
            Reason::NoContract,
            "the booking response carries no offer, so the contract cannot be checked (§5.10)",
        )
    })
}

/// What the host served beside the receipt is unsigned: it must be the
/// booking the receipt signs, or the agent could show other terms (§5.3).
fn served_as_signed(response: &BookingResponse, receipt: &VerifiedReceipt) -> Result<(), ServiceError> {
    if response.booking != receipt.claims.booking {
        return Err(ServiceError::unacceptable(
            Reason::BookingMismatch,
            "the booking served differs from the one its receipt signs (§5.3)",
        ));
    }
    Ok(())
}

/// What the person is shown: the contract, who booked it and how they are
/// named, and the contract it replaces, each as discovered at this host.
fn invitation_request(
    v: &Verified,
    discovered: Option<schcp_consent::VerifiedDomain>,
    new_host: bool,
    replaces: Option<OfferClaims>,
) -> InvitationRequest {
    let shown = |claims: OfferClaims| ConsentOffer { claims, discovered: discovered.clone(), new_host };
    InvitationRequest {
        contract: shown(v.offer.claims.clone()),
        booker: v.booker.clone(),
        me: v.me.clone(),
        replaces: replaces.map(shown),
    }
}

pub(super) struct Invitation;

impl Kind for Invitation {
    const KIND: RequestKind = RequestKind::Invitation;
    type Body = InvitationBody;
    type Input = StoredInvitation;
    type Output = InvitationResult;

    async fn prepare(ctx: &Context<'_>, b: InvitationBody) -> Result<Prepared<StoredInvitation>, ServiceError> {
        let response = booking_response(b.booking)?;
        let offer = contract_of(&response)?;
        let ((verified_offer, receipt), host) = ctx
            .discovery
            .verify_with(&b.discovery, |host| verify_signed(&offer, &response.receipt, host.host_keys()))
            .await?;
        served_as_signed(&response, &receipt)?;
        let v = check(verified_offer, receipt, ctx.principal.id, ctx.now)?;
        // §2.2: the host id is bound where it was verified, and a booking the key
        // app already holds credentials for verifies only at their place.
        let placed = ctx.records.place(&host).await?;
        let booking_id = &v.receipt.claims.booking.booking_id;
        ctx.records.at_booking_place(booking_id, &placed.binding).await?;
        let replaces = match v.offer.claims.prev.as_deref() {
            Some(prev) => accepted_before(ctx, &host.host_id, booking_id, prev).await?,
            None => None,
        };
        let invitation = invitation_request(&v, verified_domain(&host.domain), placed.new, replaces);
        let stored = StoredInvitation {
            offer,
            receipt: response.receipt,
            host_id: host.host_id.clone(),
            keys: host.keys.clone(),
            no: None,
        };
        let consent = ConsentRequest::Invitation(invitation);
        // An answer after the deadline would be refused by the host (§5.10).
        Ok(Prepared::asked(consent, stored, Some(v.confirm_by)).at(vec![placed.binding]))
    }

    /// The person's yes. Their no signs nothing (the trait's default): §5.10
    /// lets `respond` be signed under a mandate of any scope, its constraints
    /// alone applying, and no constraint tells `accept: false` from `accept:
    /// true`, so any credential signed for a no would let the assistant
    /// accept. Unanswered, the booking follows its default at `confirm_by`.
    async fn issue(
        ctx: &Context<'_>,
        stored: StoredInvitation,
        statement: &str,
    ) -> Result<Issued<InvitationResult>, ServiceError> {
        accept(ctx, &stored, statement)
    }
}

/// The host and booking a stored invitation is about, read from its sealed
/// input (the receipt's booking id, as the key app verified it when it
/// stored the request); `None` for an input that is not an invitation's.
pub(super) fn invited_booking(input: &str) -> Option<(String, String)> {
    let stored: StoredInvitation = serde_json::from_str(input).ok()?;
    let receipt: schcp::claims::ReceiptClaims = schcp::jws::parse(&stored.receipt).ok()?.claims().ok()?;
    Some((stored.host_id, receipt.booking.booking_id))
}

/// The mandate for the person's yes, built from the stored input verified
/// again now: a deadline or start that passed while they read it is not
/// answered.
fn accept(
    ctx: &Context<'_>,
    stored: &StoredInvitation,
    statement: &str,
) -> Result<Issued<InvitationResult>, ServiceError> {
    let keys = HostKeys { host_id: &stored.host_id, keys: &stored.keys };
    let (offer, receipt) = verify_signed(&stored.offer, &stored.receipt, keys)?;
    let v = check(offer, receipt, ctx.principal.id, ctx.now)?;
    let booking_id = v.receipt.claims.booking.booking_id.clone();
    let jti = Service::new_id("m-");
    let claims = answer_mandate(ctx, &stored.host_id, &v, &jti, statement)?;
    let issued = issue::root_mandate(claims, ctx.principal.key)?;
    let record = booking_mandate_record(Invitation::KIND, ctx.agent_jkt, &issued, Some(booking_id.clone()));
    let result = InvitationResult {
        mandate: issued.compact,
        jti,
        exp: issued.claims.exp,
        offer_sha256: v.offer.offer_sha256,
        booking_id,
    };
    Ok(Issued { receipt: Some(receipt_record(&v.receipt)), ..Issued::one(result, record) })
}

/// The booking response, checked against its own closed schema first (§5.3:
/// "An agent MUST refuse a response that fails").
fn booking_response(booking: Value) -> Result<BookingResponse, ServiceError> {
    schema::validate(Def::BookingResponse, &booking).map_err(schcp::Error::from)?;
    serde_json::from_value(booking)
        .map_err(|e| ServiceError::Verification(schcp::Error::Json(schcp::json::JsonError::Malformed(e.to_string()))))
}

/// §5.3 "Closed mandates", §5.10 "Answering": respond takes any scope, but
/// its constraints still apply. One action, the booking alone, this exact
/// contract, its slot and its total: nothing else can be done with it.
fn answer_mandate(
    ctx: &Context<'_>,
    host_id: &str,
    v: &Verified,
    jti: &str,
    statement: &str,
) -> Result<RootMandate, ServiceError> {
    let booking = &v.receipt.claims.booking;
    let (_, mut constraints) = issue::closed_mandate_terms(&v.offer);
    constraints.bookings = Some(vec![booking.booking_id.clone()]);
    let start = schcp::datetime::parse_date_time(&booking.start)
        .map_err(|e| ServiceError::invalid(Reason::BadSlot, e.to_string()))?
        .timestamp();
    Ok(RootMandate {
        aud: Audience::One(host_id.to_owned()),
        sub: ctx.principal.pseudonym(),
        jti: jti.to_owned(),
        iat: ctx.now,
        // §5.10: an answer after confirm_by is too late, and confirm_by is
        // never after the start.
        exp: v.confirm_by.min(start),
        agent_jkt: ctx.agent_jkt.to_owned(),
        scope: vec![Action::Book],
        constraints: Some(constraints),
        consent: Consent { mode: Some(ConsentMode::HumanPresent), statement: statement.to_owned() },
        contact: None,
        status: Some(ctx.status_url(jti)),
        attestations: Vec::new(),
    })
}

/// The contract this person accepted for the same booking before it changed
/// (§5.10 "Changes re-ask"): the one an approved invitation here was over, whose
/// hash is the new contract's `prev` (§5.7's hash chain). Checked again by the
/// keys it was verified with, so only bytes the host signed are shown as the
/// old terms.
async fn accepted_before(
    ctx: &Context<'_>,
    host_id: &str,
    booking_id: &str,
    prev: &str,
) -> Result<Option<OfferClaims>, ServiceError> {
    for (stored, _) in approved_over_offer::<StoredInvitation>(ctx, Invitation::KIND, prev).await? {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::kind::testing::{all_malformed, parse, refusal, round_trips};

    #[test]
    fn the_body_is_a_booking_response_and_its_discovery_url() {
        let ok = parse::<Invitation>(
            r#"{"kind":"invitation","idempotency_key":"k","booking":{"receipt":"a.b.c"},"discovery":"d"}"#,
        )
        .unwrap();
        assert_eq!(ok.discovery, "d");
        all_malformed::<Invitation>(&[
            r#"{"kind":"invitation","idempotency_key":"k","discovery":"d"}"#,
            r#"{"kind":"invitation","idempotency_key":"k","booking":{},"discovery":7}"#,
            r#"{"kind":"invitation","idempotency_key":"k","booking":{},"discovery":"d","answer":"yes"}"#,
            r#"{"kind":"invitation","idempotency_key":"k","booking":{"a":1,"a":2},"discovery":"d"}"#,
        ]);
    }

    #[test]
    fn a_booking_response_is_held_to_its_schema_before_it_is_read() {
        for bad in [serde_json::json!({}), serde_json::json!({"receipt": "a.b.c", "booking": {}, "extra": 1})] {
            let e = booking_response(bad).unwrap_err();
            assert!(matches!(e, ServiceError::Verification(_)), "{e}");
        }
    }

    #[test]
    fn the_input_round_trips_and_the_result_names_its_contract() {
        let mut input = StoredInvitation {
            offer: "o.f.f".into(),
            receipt: "r.e.c".into(),
            host_id: "h".into(),
            keys: Vec::new(),
            no: None,
        };
        round_trips(&input);
        // One stored while a no was signed still reads (its no signs nothing),
        // and is stored again without it.
        let older = r#"{"offer":"o.f.f","receipt":"r.e.c","host_id":"h","keys":[],"no":"I decline"}"#;
        input = serde_json::from_str(older).unwrap();
        assert_eq!(input.no.as_deref(), Some("I decline"));
        assert!(serde_json::to_value(&input).unwrap().get("no").is_none());
        let mut r = InvitationResult {
            mandate: "m".into(),
            jti: "m-1".into(),
            exp: 1,
            offer_sha256: "o".into(),
            booking_id: "b".into(),
        };
        let yes = serde_json::to_value(&r).unwrap();
        assert_eq!(yes["offer_sha256"], "o");
        r.jti = "m-2".into();
        assert_eq!(serde_json::to_value(&r).unwrap()["jti"], "m-2");
    }

    fn participant(
        who: &str,
        role: ParticipantRole,
        status: Option<ParticipantStatus>,
        confirm_by: Option<&str>,
    ) -> Participant {
        Participant {
            who: Some(who.to_owned()),
            name: None,
            role,
            relationship: None,
            confirm_within: None,
            confirm_by: confirm_by.map(str::to_owned),
            default: None,
            status,
        }
    }

    #[test]
    fn only_a_pending_required_participant_named_once_is_asked() {
        let me = "urn:schcp:principal:me";
        let ok =
            participant(me, ParticipantRole::Invitee, Some(ParticipantStatus::Pending), Some("2026-12-05T12:00:00Z"));
        let booker =
            participant("urn:schcp:principal:b", ParticipantRole::Booker, Some(ParticipantStatus::Accepted), None);
        assert_eq!(invitee(&[booker.clone(), ok.clone()], me).unwrap(), ok);
        // §5.10: someone coming along named with who is required and answers too.
        let along = Participant { role: ParticipantRole::Attendee, ..ok.clone() };
        assert_eq!(invitee(&[booker.clone(), along.clone()], me).unwrap(), along);
        let cases = [
            (vec![booker.clone()], Reason::NotAParticipant),
            (vec![ok.clone(), ok.clone()], Reason::DuplicateParticipant),
            (
                vec![participant(me, ParticipantRole::Booker, Some(ParticipantStatus::Pending), None)],
                Reason::NotInvited,
            ),
            (
                vec![participant(me, ParticipantRole::Invitee, Some(ParticipantStatus::Accepted), None)],
                Reason::AlreadyAnswered,
            ),
            (vec![participant(me, ParticipantRole::Invitee, None, None)], Reason::NotInvited),
        ];
        for (named, reason) in cases {
            assert_eq!(refusal(invitee(&named, me)), reason, "{named:?}");
        }
    }

    #[test]
    fn an_answer_needs_a_deadline_still_ahead() {
        let at = |s: &str| schcp::datetime::parse_date_time(s).unwrap().timestamp();
        let by = "2026-12-05T12:00:00Z";
        let me = |c: Option<&str>| {
            participant("urn:schcp:principal:me", ParticipantRole::Invitee, Some(ParticipantStatus::Pending), c)
        };
        assert_eq!(deadline(&me(Some(by)), at(by) - 1).unwrap(), at(by));
        assert_eq!(refusal(deadline(&me(Some(by)), at(by))), Reason::DeadlinePassed);
        assert_eq!(refusal(deadline(&me(None), 0)), Reason::NoDeadline);
        assert_eq!(refusal(deadline(&me(Some("soon")), 0)), Reason::BadSlot);
    }
}
