//! What the test host signs and serves is what the protocol crate accepts: a test
//! host that drifted from the schema would make every client test meaningless.

use schcp::claims::{Approved, Discovery};
use schcp::schema::{validate, Def};
use schcp::verify::{verify_offer, verify_receipt, HostKeys, ReceiptExpectations};
use testhost::{TestHost, TestHostConfig};

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

#[tokio::test]
async fn the_document_is_a_valid_v0_4_discovery_document() {
    let host = TestHost::start(TestHostConfig::default()).await;
    let doc = host.document();
    validate(Def::Discovery, &doc).unwrap();
    let parsed: Discovery = serde_json::from_value(doc).unwrap();
    assert_eq!(parsed.schcp, "0.4");
    assert_eq!(parsed.host.id, "maple-street-auto");
    assert_eq!(parsed.keys.len(), 1);
    assert_eq!(parsed.keys[0].kid.as_deref(), Some("msa-2026-10"));
    assert_eq!(host.discovery_url(), "https://maplestreetauto.example/.well-known/scheduling.json");
    assert!(host.ca_pem().starts_with("-----BEGIN CERTIFICATE-----"));
}

#[tokio::test]
async fn offers_and_receipts_verify() {
    let host = TestHost::start(TestHostConfig::default()).await;
    let keys = host.keys();
    let hk = HostKeys { host_id: host.host_id(), keys: &keys };
    let t = now();

    let priced = host.offer(t);
    let v = verify_offer(&priced, hk, t).unwrap();
    assert_eq!(v.total.unwrap().to_string(), "89.27 CAD");
    let open = host.sign_offer(&host.open_ended_offer(t)).unwrap();
    assert!(verify_offer(&open, hk, t).unwrap().is_open_ended());
    let change = host.sign_offer(&host.change_offer("b_000001", &v.offer_sha256, t)).unwrap();
    verify_offer(&change, hk, t).unwrap();

    for (offer, approved) in [(&priced, Approved::Offer), (&open, Approved::Limits), (&change, Approved::Offer)] {
        let receipt = host.receipt(offer, "jti-1", approved, t).unwrap();
        let hash = schcp::hash::jws_sha256(offer);
        let expect = ReceiptExpectations {
            offer_sha256: Some(&hash),
            mandate: Some("jti-1"),
            retention: Some("P365D"),
            booking_id: None,
        };
        let r = verify_receipt(&receipt, hk, expect).unwrap();
        validate(Def::Booking, &serde_json::to_value(&r.claims.booking).unwrap()).unwrap();
    }
    let r = host.receipt_claims(&change, "jti-1", Approved::Offer, t).unwrap();
    assert_eq!((r.booking.booking_id.as_str(), r.booking.sequence), ("b_000001", 1));
}

#[tokio::test]
async fn rotation_publishes_the_new_key_and_signs_with_it() {
    let host = TestHost::start(TestHostConfig { signing_seed: Some([7; 32]), ..TestHostConfig::default() }).await;
    let before = host.keys();
    host.rotate_key("msa-2026-11");
    assert_eq!(host.current_kid(), "msa-2026-11");
    assert_eq!(host.keys().len(), 2, "the old key stays published until retired");
    assert!(host.retire_key("msa-2026-11").is_err(), "the signing key cannot be retired");
    host.retire_key("msa-2026-10").unwrap();
    let keys = host.keys();
    assert_eq!(keys.len(), 1);
    assert_ne!(keys[0], before[0]);
    let hk = HostKeys { host_id: host.host_id(), keys: &keys };
    let v = verify_offer(&host.offer(now()), hk, now()).unwrap();
    assert_eq!(v.kid, "msa-2026-11");
    // The old key's offers no longer verify against the new document.
    let hk_old = HostKeys { host_id: host.host_id(), keys: &before };
    assert!(verify_offer(&host.offer(now()), hk_old, now()).is_err());
}
