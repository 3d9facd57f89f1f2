//! The claims the test host signs: the discovery document (§2.1), booking and change
//! offers (§5.2, §5.7) and receipts (§5.3, `ReceiptClaims` in schemas/schcp.schema.json).
//!
//! Built as typed `schcp::claims` values where the shape is closed, so a field the
//! protocol crate renames or adds breaks this crate's build rather than a test later.

use chrono::{TimeZone, Utc};
use schcp::claims::{
    Approved, Booking, BookingStatus, Event, EventLocation, EventStatus, EventType, HostInfo, LineKind, LocationType,
    Money, OfferClaims, OfferKind, Place, PriceLine, ReceiptClaims, ReceiptConsent, ServiceRef, Slot,
};
use serde_json::{json, Value};

use crate::TestHostConfig;

/// The offer lifetime of the spec's example (§5.2: `exp` = `iat` + 300).
pub const OFFER_LIFETIME: i64 = 300;

/// The spec's slot for the oil change (§5.2).
pub const SPEC_SLOT_START: &str = "2026-10-15T13:00:00-04:00";
pub const SPEC_SLOT_END: &str = "2026-10-15T13:45:00-04:00";

/// How long an open-ended booking's calendar event sets aside (§4.2), for receipts.
const OPEN_END_SET_ASIDE: &str = "PT2H";

/// The Maple Street Auto discovery document of §2.1, with `keys` as given.
pub(crate) fn discovery_document(cfg: &TestHostConfig, keys: &[schcp::jwk::Jwk]) -> Value {
    let mut document = spec_document(cfg, keys);
    if !cfg.attesters.is_empty() {
        document["trust"] = json!({ "attesters": cfg.attesters });
    }
    document
}

fn spec_document(cfg: &TestHostConfig, keys: &[schcp::jwk::Jwk]) -> Value {
    json!({
        "schcp": schcp::VERSION,
        "host": {
            "id": cfg.host_id,
            "name": cfg.name,
            "kind": "business",
            "timezone": cfg.tz,
            "url": format!("https://{}", cfg.domain),
            "address": { "locality": "Toronto", "region": "ON", "country": "CA" }
        },
        "endpoint": format!("https://{}/schcp/v0", cfg.domain),
        "operator": cfg.operator.as_ref().map(|d| json!({ "domain": d })),
        "keys": keys,
        "services": [
            {
                "id": "oil-change",
                "name": "Synthetic oil change",
                "duration": "PT45M",
                "buffer_after": "PT15M",
                "price": { "amount": "79.00", "currency": "CAD" },
                "requires": [ { "resource_type": "bay" }, { "resource_type": "technician" } ],
                "booking_window": { "min_notice": "PT2H", "max_advance": "P60D" }
            },
            {
                // An unpriced, open-ended service (§4.2, §5.2): a courtesy inspection that
                // takes as long as it takes.
                "id": "inspection",
                "name": "Courtesy inspection",
                "duration": "open",
                "set_aside": OPEN_END_SET_ASIDE
            }
        ],
        "policies": {
            "holds": { "max_ttl": "PT10M", "max_active_per_agent": 3, "requires_mandate": true,
                       "max_active_unproven": 8, "max_active_per_attester": 8 },
            "confirmation": "instant",
            "closed_mandate": "never",
            "retention": "P365D"
        },
        "capabilities": ["availability", "holds", "bookings", "cancel", "change_offers",
                         "webhooks", "proposals", "closed_mandates", "attestations",
                         "all_in_totals", "open_end"],
        "auth": {
            "request_signing": "rfc9421-ed25519",
            "mandates": ["schcp-mandate+jwt", "dc+sd-jwt"]
        }
    })
}

fn cad(amount: &str) -> Money {
    Money::new(amount, "CAD")
}

fn host_info(cfg: &TestHostConfig) -> HostInfo {
    HostInfo {
        name: cfg.name.clone(),
        tz: cfg.tz.clone(),
        domain: Some(cfg.domain.clone()),
        address: None,
        kind: None,
        owner: None,
    }
}

/// The spec's priced offer (§5.2): a synthetic oil change, 79.00 + 13 % HST = 89.27 CAD.
pub(crate) fn priced_offer(cfg: &TestHostConfig, hold_id: String, now: i64) -> OfferClaims {
    OfferClaims {
        v: schcp::VERSION.into(),
        kind: OfferKind::Booking,
        iss: cfg.host_id.clone(),
        hold_id: Some(hold_id),
        booking_id: None,
        prev: None,
        iat: now,
        exp: now + OFFER_LIFETIME,
        host: Some(host_info(cfg)),
        service: ServiceRef { id: "oil-change".into(), name: "Synthetic oil change".into() },
        slot: Slot { start: SPEC_SLOT_START.into(), end: Some(SPEC_SLOT_END.into()) },
        open_end: None,
        price: Some(cad("79.00")),
        total: Some(cad("89.27")),
        lines: Some(vec![
            PriceLine { kind: LineKind::Service, label: "Synthetic oil change".into(), amount: cad("79.00") },
            PriceLine { kind: LineKind::Tax, label: "HST 13%".into(), amount: cad("10.27") },
        ]),
        retention: "P365D".into(),
        reconfirm: None,
        resource: None,
        resource_name: None,
        place: None,
        party_size: None,
        approval_by: None,
    }
}

/// An unpriced, open-ended offer (§4.2, §5.2): no money at all, a start and no end.
pub(crate) fn open_ended_offer(cfg: &TestHostConfig, hold_id: String, now: i64) -> OfferClaims {
    OfferClaims {
        service: ServiceRef { id: "inspection".into(), name: "Courtesy inspection".into() },
        slot: Slot { start: SPEC_SLOT_START.into(), end: None },
        open_end: Some(true),
        price: None,
        total: None,
        lines: None,
        ..priced_offer(cfg, hold_id, now)
    }
}

/// A change offer (§5.7): the booking's terms at a new time, linked to its current
/// contract by `prev`. It names the booking, not a hold.
pub(crate) fn change_offer(cfg: &TestHostConfig, booking_id: &str, prev: &str, now: i64) -> OfferClaims {
    OfferClaims {
        kind: OfferKind::Change,
        hold_id: None,
        booking_id: Some(booking_id.to_owned()),
        prev: Some(prev.to_owned()),
        slot: Slot { start: "2026-10-16T09:00:00-04:00".into(), end: Some("2026-10-16T09:45:00-04:00".into()) },
        ..priced_offer(cfg, String::new(), now)
    }
}

/// A receipt (§5.3) for a booking made on `offer` (its exact compact JWS) under the
/// root mandate `mandate`, approved as `approved`.
// Long by design: one receipt's claims written out member by member, as §5.3 lists them.
pub(crate) fn receipt(
    cfg: &TestHostConfig,
    offer_compact: &str,
    booking_id: String,
    mandate: &str,
    approved: Approved,
    now: i64,
) -> Result<ReceiptClaims, crate::TestHostError> {
    let parsed = schcp::jws::parse(offer_compact)?;
    let offer: OfferClaims = parsed.claims().map_err(|e| crate::TestHostError::Claims(e.to_string()))?;
    let offer_sha256 = schcp::hash::jws_sha256(offer_compact);
    let (booking_id, sequence) = match (&offer.kind, &offer.booking_id) {
        // Accepting a change offer moves the booking: sequence + 1 (§5.7 step 2).
        (OfferKind::Change, Some(id)) => (id.clone(), 1),
        _ => (booking_id, 0),
    };
    let tz: chrono_tz::Tz =
        cfg.tz.parse().map_err(|_| crate::TestHostError::Claims(format!("unknown time zone {}", cfg.tz)))?;
    let start = schcp::datetime::parse_date_time(&offer.slot.start)?;
    let duration = match &offer.slot.end {
        Some(end) => {
            let end = schcp::datetime::parse_date_time(end)?;
            let secs = u64::try_from((end - start).num_seconds())
                .map_err(|_| crate::TestHostError::Claims("slot ends before it starts".into()))?;
            schcp::duration::Duration::from_seconds(secs).to_canonical()
        }
        None => OPEN_END_SET_ASIDE.to_owned(),
    };
    let updated = Utc
        .timestamp_opt(now, 0)
        .single()
        .ok_or_else(|| crate::TestHostError::Claims(format!("{now} is not a time")))?;
    let locations = offer.place.as_ref().map(|p| {
        [("place".to_owned(), EventLocation { type_: LocationType::Location, name: one_line(p) })].into_iter().collect()
    });
    let event = Event {
        type_: EventType::Event,
        uid: format!("{booking_id}@{}", cfg.domain),
        start: start.with_timezone(&tz).format("%Y-%m-%dT%H:%M:%S").to_string(),
        time_zone: cfg.tz.clone(),
        duration,
        title: format!("{} — {}", offer.service.name, cfg.name),
        description: None,
        sequence,
        updated: updated.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        status: EventStatus::Confirmed,
        locations,
    };
    let booking =
        Booking::of_offer(booking_id, BookingStatus::Confirmed, sequence, &offer, Some(offer_sha256.clone()), event);
    Ok(ReceiptClaims {
        v: schcp::VERSION.into(),
        iss: cfg.host_id.clone(),
        iat: now,
        booking,
        offer_sha256: Some(offer_sha256),
        // The contract's own retention, never the host's current policy (§5.2).
        retention: offer.retention,
        consent: Some(ReceiptConsent { approved, mandate: mandate.to_owned(), mode: None }),
    })
}

/// A place's name and address on one line, as the event's location (§5.2 "Place").
fn one_line(p: &Place) -> String {
    [&p.name, &p.street, &p.locality, &p.region, &p.postal_code, &p.country]
        .into_iter()
        .flatten()
        .cloned()
        .collect::<Vec<_>>()
        .join(", ")
}
