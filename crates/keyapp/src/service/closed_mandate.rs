//! The `closed_mandate` kind (§5.3): a mandate over one exact, verified offer
//! or change offer; a change offer is shown beside the booking's current
//! contract, from … to … (§5.7).

use super::issued::{booking_mandate_record, Issued};
use super::kind::{approved_over_offer, not_begun, verified_domain, Context, Kind, Prepared, StoredOffer};
use super::{Service, ServiceError};
use crate::discovery::DiscoveredHost;
use crate::kind::RequestKind;
use crate::store::credentials;
use crate::store::receipts;
use schcp::claims::MandateClaims;
use schcp::claims::{Consent, ConsentMode, OfferClaims, OfferKind};
use schcp::issue;
use schcp::refusal::Reason;
use schcp::verify::{ReceiptExpectations, VerifiedOffer, VerifiedReceipt};
use schcp_consent::{ConsentRequest, CurrentTerms, ProposedChange, VerifiedOffer as ConsentOffer};
use serde::{Deserialize, Serialize};

/// A closed mandate lives no longer than its offer, and at most this long.
pub const MAX_CLOSED_LIFETIME: i64 = 86_400;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ClosedBody {
    offer: String,
    discovery: String,
    /// For a change offer: the host's receipt of the booking it moves (§5.3),
    /// so the text shows what changes when the key app holds none (§5.7).
    #[serde(default)]
    receipt: Option<String>,
}

/// What the agent receives. Its `offer_sha256` is what migration 0004's
/// index reads (`$.offer_sha256`): how a later change offer finds the
/// contract it changes (`current_contract`).
#[derive(Debug, PartialEq, Serialize)]
pub(super) struct ClosedResult {
    mandate: String,
    jti: String,
    exp: i64,
    pub(super) offer_sha256: String,
}

pub(super) struct ClosedMandate;

impl Kind for ClosedMandate {
    const KIND: RequestKind = RequestKind::ClosedMandate;
    type Body = ClosedBody;
    type Input = StoredOffer;
    type Output = ClosedResult;

    async fn prepare(ctx: &Context<'_>, b: ClosedBody) -> Result<Prepared<StoredOffer>, ServiceError> {
        let now = ctx.now;
        let (offer, host) = ctx.discovery.verify_offer(&b.discovery, &b.offer, now).await?;
        not_begun("offered slot", &offer.claims.slot.start, now)?;
        let placed = ctx.records.place(&host).await?;
        if let Some(booking_id) = offer.claims.booking_id.as_deref() {
            // A change offer cites its booking: it verifies only at the place the
            // booking's credentials were issued for (§2.2).
            ctx.records.at_booking_place(booking_id, &placed.binding).await?;
        }
        let shown = |claims: OfferClaims| ConsentOffer {
            claims,
            discovered: verified_domain(&host.domain),
            new_host: placed.new,
        };
        let consent = match offer.claims.kind {
            OfferKind::Booking if b.receipt.is_some() => {
                return Err(ServiceError::invalid(
                    Reason::Malformed,
                    "a receipt goes with a change offer, for the booking it moves (§5.7)",
                ))
            }
            OfferKind::Booking => ConsentRequest::BookingOffer(shown(offer.claims.clone())),
            OfferKind::Change => {
                let receipt = booking_receipt(ctx, &host, &offer, b.receipt.as_deref()).await?;
                let contract = current_contract(ctx, &host.host_id, &offer.claims).await?;
                let by = receipt.as_ref().map_or(ProposedChange::Guest, |r| {
                    schcp::verify::proposed_by(&r.claims.booking, &offer.offer_sha256)
                });
                // The contract the person approved here states every term (its
                // resource too); a receipt states all but the resource (§5.3).
                let current = match (contract, receipt) {
                    (Some(old), _) => Some(CurrentTerms::Offer(shown(old))),
                    (None, Some(r)) => Some(CurrentTerms::Receipt(r.claims)),
                    (None, None) => None,
                };
                ConsentRequest::ChangeOffer { current, proposed: shown(offer.claims.clone()), by }
            }
        };
        Ok(Prepared {
            consent,
            input: StoredOffer::of(b.offer, &host),
            not_after: Some(offer.claims.exp),
            auto_approve: false,
            hosts: vec![placed.binding],
        })
    }

    async fn issue(
        ctx: &Context<'_>,
        stored: StoredOffer,
        statement: &str,
    ) -> Result<Issued<ClosedResult>, ServiceError> {
        let now = ctx.now;
        // Re-verified against the keys it was verified with when shown: an offer
        // that expired while the person read it is not signed over.
        let offer = stored.verify_at(now)?;
        let jti = Service::new_id("m-");
        let issued = issue::closed_mandate(
            &offer,
            ctx.principal.pseudonym(),
            jti.clone(),
            now,
            now + MAX_CLOSED_LIFETIME,
            ctx.agent_jkt.to_owned(),
            Consent { mode: Some(ConsentMode::HumanPresent), statement: statement.to_owned() },
            // Every credential the person can take back names where hosts check it
            // (§3.3 check 7): a yes can be withdrawn until the booking is made.
            Some(ctx.status_url(&jti)),
            ctx.principal.key,
        )?;
        let booking_id = offer.claims.booking_id.clone();
        let record = booking_mandate_record(Self::KIND, ctx.agent_jkt, &issued, booking_id);
        let result =
            ClosedResult { mandate: issued.compact, jti, exp: issued.claims.exp, offer_sha256: offer.offer_sha256 };
        Ok(Issued::one(result, record))
    }
}

/// A verified receipt of the booking the change offer `change` moves, that the
/// change extends (§5.7's `prev` chain) and that shows no move waiting on the
/// host against §5.7's rules. A receipt the agent sent is verified like any
/// (§5.3) and any failure refuses the request; without one, the receipt
/// verified here last is used when it is of the booking's current contract,
/// and is otherwise treated as none (the booking moved since: the text then
/// asks for its receipt).
async fn booking_receipt(
    ctx: &Context<'_>,
    host: &DiscoveredHost,
    change: &VerifiedOffer,
    sent: Option<&str>,
) -> Result<Option<VerifiedReceipt>, ServiceError> {
    let Some(booking_id) = change.claims.booking_id.as_deref() else { return Ok(None) };
    let expect = ReceiptExpectations { booking_id: Some(booking_id), ..Default::default() };
    let receipt = match sent {
        Some(compact) => {
            let receipt = schcp::verify::verify_receipt(compact, host.host_keys(), expect)?;
            schcp::verify::check_prev_chain(&change.claims, &receipt.claims)?;
            receipt
        }
        None => {
            let Some(compact) = receipts::latest_for_booking(ctx.store, &host.host_id, booking_id).await? else {
                return Ok(None);
            };
            // Verified again with the host's keys as discovered now: a receipt
            // whose key was retired since is not shown as the current terms.
            let Ok(receipt) = schcp::verify::verify_receipt(&compact, host.host_keys(), expect) else {
                return Ok(None);
            };
            if schcp::verify::check_prev_chain(&change.claims, &receipt.claims).is_err() {
                return Ok(None);
            }
            receipt
        }
    };
    let accepted = accepted_change(ctx, &host.host_id, booking_id, receipt.claims.offer_sha256.as_deref()).await?;
    schcp::verify::check_awaiting_move(&receipt.claims.booking, accepted.as_deref())?;
    Ok(Some(receipt))
}

/// The change offer the person accepted here for `booking_id` over its current
/// contract (§5.7: a move waiting on the host must be that offer): the newest
/// closed mandate issued for the booking whose change offer's `prev` is
/// `contract`. None when the person approved no such change here (the agent
/// then accepted it under an open mandate).
async fn accepted_change(
    ctx: &Context<'_>,
    host_id: &str,
    booking_id: &str,
    contract: Option<&str>,
) -> Result<Option<String>, ServiceError> {
    let Some(contract) = contract else { return Ok(None) };
    for compact in credentials::closed_for_booking(ctx.store, booking_id).await? {
        // The key app's own signed record.
        let parsed = schcp::jws::parse(&compact).map_err(super::corrupt)?;
        let mandate: MandateClaims = parsed.claims().map_err(super::corrupt)?;
        let Some(hash) = mandate.constraints.and_then(|c| c.offer_sha256) else { continue };
        for (stored, verified_at) in approved_over_offer::<StoredOffer>(ctx, ClosedMandate::KIND, &hash).await? {
            let Ok(offer) = stored.verify_at(verified_at) else { continue };
            if stored.host_id == host_id && offer.claims.prev.as_deref() == Some(contract) {
                return Ok(Some(hash));
            }
        }
    }
    Ok(None)
}

/// The booking's current contract, when the person approved it here: the offer
/// of an approved closed mandate for the same host whose hash is the change
/// offer's `prev` (§5.7, "prev: the SHA-256 of the booking's current contract").
/// An earlier change offer counts only when it moved the same booking. The
/// stored offer is checked again against the keys it was verified with, at the
/// time it was, so only bytes the host signed are shown as the old terms.
/// Without such a record the text says it cannot show what changes.
async fn current_contract(
    ctx: &Context<'_>,
    host_id: &str,
    change: &OfferClaims,
) -> Result<Option<OfferClaims>, ServiceError> {
    let Some(prev) = change.prev.as_deref() else { return Ok(None) };
    // A booking offer names no booking; a verified receipt is what ties one to
    // a booking. If one ties this contract to another booking of the host, the
    // change offer's `prev` does not describe the booking it changes.
    let booking_id = change.booking_id.as_deref().unwrap_or_default();
    if receipts::ties_offer_elsewhere(ctx.store, host_id, prev, booking_id).await? {
        return Ok(None);
    }
    for (stored, verified_at) in approved_over_offer::<StoredOffer>(ctx, ClosedMandate::KIND, prev).await? {
        if stored.host_id != host_id {
            continue;
        }
        // A record that fails is not shown as the old terms; the text then
        // says it has none, and the new terms are still shown in full.
        let Ok(old) = stored.verify_at(verified_at) else { continue };
        let same = same_booking(old.claims.kind, old.claims.booking_id.as_deref(), change.booking_id.as_deref());
        if same && old.offer_sha256 == prev {
            return Ok(Some(old.claims));
        }
    }
    Ok(None)
}

/// Whether the earlier contract `old` is of the booking `change` moves: a
/// booking offer is (its receipt was checked above); a change offer only when
/// it moved the same booking (§5.7).
fn same_booking(old: OfferKind, old_booking: Option<&str>, changed_booking: Option<&str>) -> bool {
    match old {
        OfferKind::Booking => true,
        OfferKind::Change => old_booking == changed_booking,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::kind::testing::{parse, refusal, round_trips};
    use schcp::refusal::Reason;

    #[test]
    fn the_body_is_an_offer_and_its_discovery_url() {
        let ok = parse::<ClosedMandate>(
            r#"{"kind":"closed_mandate","idempotency_key":"k","offer":"a.b.c","discovery":"https://h.example/.well-known/scheduling.json"}"#,
        )
        .unwrap();
        assert_eq!(ok.offer, "a.b.c");
        for bad in [
            r#"{"kind":"closed_mandate","idempotency_key":"k","offer":"a.b.c"}"#,
            r#"{"kind":"closed_mandate","idempotency_key":"k","offer":["a.b.c"],"discovery":"d"}"#,
            r#"{"kind":"closed_mandate","idempotency_key":"k","offer":"a.b.c","discovery":"d","lifetime":"P1D"}"#,
            r#"{"kind":"closed_mandate","idempotency_key":"k","offer":"a.b.c","offer":"x.y.z","discovery":"d"}"#,
        ] {
            assert_eq!(refusal(parse::<ClosedMandate>(bad)), Reason::Malformed, "{bad}");
        }
    }

    #[test]
    fn the_result_names_its_contract_where_the_index_reads_it() {
        let r = ClosedResult { mandate: "m".into(), jti: "m-1".into(), exp: 5, offer_sha256: "o".into() };
        assert_eq!(serde_json::to_value(&r).unwrap()["offer_sha256"], "o");
        round_trips(&StoredOffer { offer: "a.b.c".into(), host_id: "h".into(), keys: Vec::new() });
    }

    #[test]
    fn an_earlier_change_is_the_current_contract_of_its_own_booking_only() {
        assert!(same_booking(OfferKind::Booking, None, Some("b1")));
        assert!(same_booking(OfferKind::Change, Some("b1"), Some("b1")));
        assert!(!same_booking(OfferKind::Change, Some("b2"), Some("b1")));
        assert!(!same_booking(OfferKind::Change, None, Some("b1")));
    }
}
