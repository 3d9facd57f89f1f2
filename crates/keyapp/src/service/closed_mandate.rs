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
        let input = StoredOffer::of(b.offer, &host);
        Ok(Prepared::asked(consent, input, Some(offer.claims.exp)).at(vec![placed.binding]))
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
    use crate::service::kind::testing::{all_malformed, parse, refusal, round_trips};
    use schcp::refusal::Reason;

    #[test]
    fn the_body_is_an_offer_and_its_discovery_url() {
        let ok = parse::<ClosedMandate>(
            r#"{"kind":"closed_mandate","idempotency_key":"k","offer":"a.b.c","discovery":"https://h.example/.well-known/scheduling.json"}"#,
        )
        .unwrap();
        assert_eq!(ok.offer, "a.b.c");
        all_malformed::<ClosedMandate>(&[
            r#"{"kind":"closed_mandate","idempotency_key":"k","offer":"a.b.c"}"#,
            r#"{"kind":"closed_mandate","idempotency_key":"k","offer":["a.b.c"],"discovery":"d"}"#,
            r#"{"kind":"closed_mandate","idempotency_key":"k","offer":"a.b.c","discovery":"d","lifetime":"P1D"}"#,
            r#"{"kind":"closed_mandate","idempotency_key":"k","offer":"a.b.c","offer":"x.y.z","discovery":"d"}"#,
        ]);
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

    use crate::service::kind::testing::{future_offer, now, Bed};
    use schcp::verify::{verify_mandate_chain, ChainContext};

    fn body(bed: &Bed, offer: &str) -> ClosedBody {
        ClosedBody { offer: offer.to_owned(), discovery: bed.host.discovery_url(), receipt: None }
    }

    /// §5.3: a verified offer is shown as the host signed it, at the domain the
    /// key app discovered the host at (§5.2), and kept with the keys it was
    /// verified with; the request lives no longer than the offer.
    #[tokio::test]
    async fn a_verified_offer_is_shown_and_kept_with_the_keys_it_verified_with() {
        let bed = Bed::new().await;
        let (claims, offer) = future_offer(&bed.host, 3);
        let p = ClosedMandate::prepare(&bed.ctx(now()), body(&bed, &offer)).await.unwrap();
        let ConsentRequest::BookingOffer(shown) = &p.consent else { panic!("not a booking offer") };
        assert_eq!(shown.claims, claims);
        assert_eq!(shown.discovered.as_ref().map(|d| d.as_ascii()), Some(bed.host.domain()));
        assert!(shown.new_host, "the person has not dealt with this host before");
        assert_eq!(p.input, StoredOffer { offer, host_id: bed.host.host_id().to_owned(), keys: bed.host.keys() });
        assert_eq!(p.not_after, Some(claims.exp));
        assert!(!p.auto_approve, "a closed mandate is always asked");
        assert_eq!(p.hosts.len(), 1);
        assert_eq!(p.hosts[0].host_id, bed.host.host_id());
        assert_eq!(bed.records.calls(), [format!("place {}", bed.host.host_id())]);
    }

    #[tokio::test]
    async fn a_host_the_person_dealt_with_is_not_shown_as_new() {
        let mut bed = Bed::new().await;
        bed.records.known.push(bed.host.host_id().to_owned());
        let (_, offer) = future_offer(&bed.host, 3);
        let p = ClosedMandate::prepare(&bed.ctx(now()), body(&bed, &offer)).await.unwrap();
        let ConsentRequest::BookingOffer(shown) = &p.consent else { panic!("not a booking offer") };
        assert!(!shown.new_host);
    }

    /// A yes to a slot that has begun could only be used for something the
    /// person was not shown: refused before the records are asked anything.
    #[tokio::test]
    async fn an_offer_whose_slot_has_begun_is_refused_before_asking() {
        let bed = Bed::new().await;
        let mut c = bed.host.priced_offer(now());
        let begun = chrono::Utc::now() - chrono::Duration::minutes(5);
        c.slot.start = begun.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        c.slot.end = Some((begun + chrono::Duration::minutes(45)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
        let offer = bed.host.sign_offer(&c).unwrap();
        let refused = ClosedMandate::prepare(&bed.ctx(now()), body(&bed, &offer)).await.err().expect("refused");
        // 422, as any offer that fails verification (an agent sees this).
        let api = refused.to_api();
        assert_eq!((api.status, api.reason), (axum::http::StatusCode::UNPROCESSABLE_ENTITY, Reason::AlreadyStarted));
        assert!(bed.records.calls().is_empty(), "{:?}", bed.records.calls());
        // The same offer a day ahead is shown.
        let (_, later) = future_offer(&bed.host, 1);
        assert!(ClosedMandate::prepare(&bed.ctx(now()), body(&bed, &later)).await.is_ok());
    }

    /// Hostile offers are refused with the rule they break, before the
    /// records are asked anything.
    #[tokio::test]
    async fn hostile_offers_are_refused_with_their_reason() {
        let bed = Bed::new().await;
        let (good, offer) = future_offer(&bed.host, 2);
        let mut parts: Vec<String> = offer.split('.').map(str::to_owned).collect();
        let mut payload: serde_json::Value = serde_json::from_slice(&schcp::b64::decode(&parts[1]).unwrap()).unwrap();
        payload["total"]["amount"] = serde_json::json!("9.27");
        parts[1] = schcp::b64::encode(payload.to_string());
        let mut lines = good.clone();
        lines.lines.as_mut().unwrap()[1].amount.amount = "10.28".into();
        let mut fee = serde_json::to_value(&good).unwrap();
        fee["slot"]["cancellation_fee"] = serde_json::json!({"amount": "50.00", "currency": "CAD"});
        let mut expired = good.clone();
        (expired.iat, expired.exp) = (now() - 1000, now() - 10);
        let cases = [
            (parts.join("."), Reason::BadSignature),
            (bed.host.sign_offer(&lines).unwrap(), Reason::LinesDoNotSum),
            (bed.host.sign(schcp::jws::Typ::Offer, &fee).unwrap(), Reason::SchemaInvalid),
            (bed.host.sign_offer(&expired).unwrap(), Reason::Expired),
        ];
        for (offer, reason) in cases {
            assert_eq!(refusal(ClosedMandate::prepare(&bed.ctx(now()), body(&bed, &offer)).await), reason);
        }
        assert!(bed.records.calls().is_empty(), "{:?}", bed.records.calls());
    }

    /// §2.2: a change offer verifies only at the place its booking's
    /// credentials were issued for.
    #[tokio::test]
    async fn a_change_offer_for_a_booking_issued_elsewhere_is_refused() {
        let mut bed = Bed::new().await;
        bed.records.booked_elsewhere.push("b_moved".into());
        let mut change = bed.host.change_offer("b_moved", &"A".repeat(43), now());
        let (future, _) = future_offer(&bed.host, 4);
        change.slot = future.slot;
        let offer = bed.host.sign_offer(&change).unwrap();
        let r = ClosedMandate::prepare(&bed.ctx(now()), body(&bed, &offer)).await;
        assert_eq!(refusal(r), Reason::HostIdConflict);
        assert!(bed.records.calls().contains(&"at_booking_place b_moved".to_owned()), "{:?}", bed.records.calls());
    }

    /// §5.3: the mandate is over the exact offer the person was shown, for
    /// the requesting agent, names where hosts check it (§3.3 check 7), and
    /// passes a host's checks.
    #[tokio::test]
    async fn the_mandate_is_over_the_exact_offer_and_passes_a_hosts_checks() {
        let bed = Bed::new().await;
        let (claims, offer) = future_offer(&bed.host, 3);
        let stored =
            StoredOffer { offer: offer.clone(), host_id: bed.host.host_id().to_owned(), keys: bed.host.keys() };
        let at = now();
        let issued = ClosedMandate::issue(&bed.ctx(at), stored, "You approve the oil change.").await.unwrap();
        let r = &issued.result;
        assert_eq!(r.offer_sha256, schcp::hash::jws_sha256(&offer));
        assert!(r.exp <= at + MAX_CLOSED_LIFETIME, "no longer than a day");
        let chain = verify_mandate_chain(
            &r.mandate,
            &ChainContext { host_id: bed.host.host_id(), request_jkt: &bed.agent_jkt, now: at, allow_wildcard: false },
        )
        .expect("the issued mandate passes a host's checks");
        let root = &chain.root.claims;
        assert_eq!(root.constraints.as_ref().and_then(|c| c.offer_sha256.as_deref()), Some(r.offer_sha256.as_str()));
        assert_eq!(root.consent.as_ref().map(|c| c.statement.as_str()), Some("You approve the oil change."));
        assert_eq!(root.status.as_deref(), Some(format!("https://keyapp.example/status/{}", r.jti).as_str()));
        assert_eq!(root.principal_jwk.as_ref(), Some(&bed.principal_jwk()));
        let [record] = issued.credentials.as_slice() else { panic!("one credential") };
        assert_eq!((record.kind, record.jti.as_str()), (RequestKind::ClosedMandate, r.jti.as_str()));
        assert_eq!(record.booking_id, claims.booking_id);
        assert_eq!(record.agent_jkt.as_deref(), Some(bed.agent_jkt.as_str()));
        assert!(bed.records.calls().is_empty(), "issuing reads no records");
    }

    /// An offer that expired while the person read it is not signed over.
    #[tokio::test]
    async fn an_offer_that_expired_while_shown_is_not_signed_over() {
        let bed = Bed::new().await;
        let (claims, offer) = future_offer(&bed.host, 3);
        let stored = StoredOffer { offer, host_id: bed.host.host_id().to_owned(), keys: bed.host.keys() };
        let r = ClosedMandate::issue(&bed.ctx(claims.exp + 1), stored.clone(), "s").await;
        assert_eq!(refusal(r), Reason::Expired);
        // Verified against the keys it was shown with, never others.
        let other = StoredOffer { keys: Vec::new(), ..stored };
        assert_eq!(refusal(ClosedMandate::issue(&bed.ctx(now()), other, "s").await), Reason::UnknownKid);
    }
}
