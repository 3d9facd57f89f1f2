//! The `closed_mandate` kind (§5.3): a mandate over one exact, verified offer
//! or change offer; a change offer is shown beside the booking's current
//! contract, from … to … (§5.7).

use super::pipeline::{
    body, booking_mandate_record, corrupt, not_begun, pseudonym, verified_domain, Issued, Prepared, StoredOffer,
};
use super::{Requester, Service, ServiceError};
use crate::kind::RequestKind;
use schcp::claims::{Consent, ConsentMode};
use schcp::issue;
use schcp_consent::{ConsentRequest, VerifiedOffer as ConsentOffer};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// A closed mandate lives no longer than its offer, and at most this long.
pub const MAX_CLOSED_LIFETIME: i64 = 86_400;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClosedBody {
    offer: String,
    discovery: String,
}

pub(super) async fn prepare(
    svc: &Service,
    _agent: &Requester,
    obj: &Map<String, Value>,
) -> Result<Prepared, ServiceError> {
    let b: ClosedBody = body(obj)?;
    let now = svc.now();
    let (offer, host) = svc.inner.discovery.verify_offer(&b.discovery, &b.offer, now).await?;
    not_begun("offered slot", &offer.claims.slot.start, now)?;
    let placed = svc.place(&host).await?;
    if let Some(booking_id) = offer.claims.booking_id.as_deref() {
        // A change offer cites its booking: it verifies only at the place the
        // booking's credentials were issued for (§2.2).
        svc.at_booking_place(booking_id, &placed.binding).await?;
    }
    let shown =
        ConsentOffer { claims: offer.claims.clone(), discovered: verified_domain(&host.domain), new_host: placed.new };
    let consent = match offer.claims.kind {
        schcp::claims::OfferKind::Booking => ConsentRequest::BookingOffer(shown),
        schcp::claims::OfferKind::Change => {
            let current = current_contract(svc, &host.host_id, &offer.claims).await?.map(|claims| ConsentOffer {
                claims,
                discovered: verified_domain(&host.domain),
                new_host: placed.new,
            });
            ConsentRequest::ChangeOffer { current, proposed: shown }
        }
    };
    let stored = StoredOffer { offer: b.offer, host_id: host.host_id.clone(), keys: host.keys.clone() };
    let input = serde_json::to_value(&stored).map_err(corrupt)?;
    Ok(Prepared { consent, input, not_after: Some(offer.claims.exp), auto_approve: false, hosts: vec![placed.binding] })
}

/// The booking's current contract, when the person approved it here: the offer
/// of an approved closed mandate for the same host whose hash is the change
/// offer's `prev` (§5.7, "prev: the SHA-256 of the booking's current contract").
/// An earlier change offer counts only when it moved the same booking. The
/// stored offer is checked again against the keys it was verified with, at the
/// time it was, so only bytes the host signed are shown as the old terms.
/// Without such a record the text says it cannot show what changes.
async fn current_contract(
    svc: &Service,
    host_id: &str,
    change: &schcp::claims::OfferClaims,
) -> Result<Option<schcp::claims::OfferClaims>, ServiceError> {
    let Some(prev) = change.prev.as_deref() else { return Ok(None) };
    // A booking offer names no booking; a verified receipt is what ties one to
    // a booking. If one ties this contract to another booking of the host, the
    // change offer's `prev` does not describe the booking it changes.
    let elsewhere: Option<(String,)> = sqlx::query_as(
        "SELECT booking_id FROM receipts WHERE host = ? AND offer_sha256 = ? AND booking_id <> ? LIMIT 1",
    )
    .bind(host_id)
    .bind(prev)
    .bind(change.booking_id.as_deref().unwrap_or_default())
    .fetch_optional(svc.store().pool())
    .await?;
    if elsewhere.is_some() {
        return Ok(None);
    }
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT input, created_at FROM requests
         WHERE kind = 'closed_mandate' AND status = 'approved' AND json_extract(result, '$.offer_sha256') = ?
         ORDER BY created_at DESC",
    )
    .bind(prev)
    .fetch_all(svc.store().pool())
    .await?;
    for (input, verified_at) in rows {
        let stored: StoredOffer = serde_json::from_str(&input).map_err(corrupt)?;
        if stored.host_id != host_id {
            continue;
        }
        // A record that fails is not shown as the old terms; the text then
        // says it has none, and the new terms are still shown in full.
        let Ok(old) = stored.verify_at(verified_at) else {
            continue;
        };
        let same_booking = match old.claims.kind {
            schcp::claims::OfferKind::Booking => true,
            schcp::claims::OfferKind::Change => old.claims.booking_id == change.booking_id,
        };
        if same_booking && old.offer_sha256 == prev {
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
    let stored: StoredOffer = serde_json::from_value(input.clone()).map_err(corrupt)?;
    // Re-verified against the keys it was verified with when shown: an offer
    // that expired while the person read it is not signed over.
    let offer = stored.verify_at(now)?;
    let jti = Service::new_id("m-");
    // Every credential the person can take back names where hosts check it
    // (§3.3 check 7): a yes can be withdrawn until the booking is made.
    let status_url = svc.config().status_url(&svc.principal_thumbprint(), &jti);
    let issued = issue::closed_mandate(
        &offer,
        pseudonym(svc.principal()),
        jti.clone(),
        now,
        now + MAX_CLOSED_LIFETIME,
        agent_jkt.to_owned(),
        Consent { mode: Some(ConsentMode::HumanPresent), statement: statement.to_owned() },
        Some(status_url),
        svc.inner.key.as_ref(),
    )?;
    let c = &issued.claims;
    let result = json!({ "mandate": issued.compact, "jti": jti, "exp": c.exp, "offer_sha256": offer.offer_sha256 });
    Ok(Issued {
        result,
        credentials: vec![booking_mandate_record(
            RequestKind::ClosedMandate,
            agent_jkt,
            &issued,
            offer.claims.booking_id.clone(),
        )],
        receipt: None,
        meeting: None,
        management: None,
    })
}
