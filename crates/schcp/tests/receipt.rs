//! `verify_receipt` (§5.3 "A receipt is evidence of the agreement"; shape per the
//! schema's ReceiptClaims): the receipt names the booking's contract, how long the
//! host keeps its records, and how the person agreed.

mod common;

use common::*;
use schcp::jws::{JwsError, Typ};
use schcp::schema::Def;
use schcp::verify::{verify_receipt, ReceiptExpectations, VerifiedReceipt};
use schcp::{Error, ReceiptCheck};
use serde_json::{json, Value};

/// The hash of the §5.2 offer the booking stands on.
fn offer_hash() -> String {
    schcp::hash::jws_sha256(&sign_offer(&priced_offer()))
}

fn booking(offer_sha256: Option<&str>) -> Value {
    booking_claims(offer_sha256)
}

fn receipt() -> Value {
    receipt_claims(&offer_hash())
}

/// A booking made on the host's own website: no contract, no consent.
fn outside_schcp_receipt() -> Value {
    json!({
        "v": "0.4", "iss": HOST_ID, "iat": NOW,
        "booking": without(&without(&without(&booking(None), "/price"), "/total"), "/lines"),
        "offer_sha256": null,
        "retention": "P365D"
    })
}

fn verify(claims: &Value, expect: ReceiptExpectations<'_>) -> Result<VerifiedReceipt, Error> {
    verify_receipt(&sign_receipt(claims), host(&host_keys()), expect)
}

/// What the agent that made the booking knows.
fn full_expectations(h: &str) -> ReceiptExpectations<'_> {
    ReceiptExpectations {
        offer_sha256: Some(h),
        mandate: Some(MANDATE_JTI),
        retention: Some("P365D"),
        booking_id: Some(BOOKING_ID),
    }
}

#[track_caller]
fn assert_mismatch(err: Error, what: ReceiptCheck) {
    assert_eq!(err, Error::ReceiptMismatch(what));
    assert_eq!(reason(&err), "receipt_mismatch");
}

#[test]
fn a_receipt_with_consent_verifies_against_everything_the_agent_knows() {
    let h = offer_hash();
    let compact = sign_receipt(&receipt());
    let v = verify_receipt(&compact, host(&host_keys()), full_expectations(&h)).expect("valid receipt");
    assert_eq!(v.compact, compact);
    assert_eq!(v.claims.offer_sha256.as_deref(), Some(h.as_str()));
    assert_eq!(v.claims.booking.booking_id, BOOKING_ID);
    let consent = v.claims.consent.expect("consent");
    assert_eq!(consent.mandate, MANDATE_JTI);
}

#[test]
fn a_receipt_with_no_expectations_checks_only_itself() {
    verify(&receipt(), ReceiptExpectations::default()).expect("valid receipt");
}

#[test]
fn a_booking_made_outside_schcp_has_no_hash_and_no_consent() {
    let v =
        verify(&outside_schcp_receipt(), ReceiptExpectations { booking_id: Some(BOOKING_ID), ..Default::default() })
            .expect("a booking made by phone");
    assert_eq!(v.claims.offer_sha256, None);
    assert_eq!(v.claims.consent, None);
}

#[test]
fn a_receipt_whose_hash_differs_from_its_bookings_is_refused() {
    let other = schcp::hash::jws_sha256("another offer");
    let c = with(&receipt(), "/offer_sha256", json!(other));
    assert_mismatch(verify(&c, ReceiptExpectations::default()).unwrap_err(), ReceiptCheck::OfferHashDiffersFromBooking);
    // Also when only the booking's names nothing.
    let c = with(&receipt(), "/booking/offer_sha256", Value::Null);
    assert_mismatch(verify(&c, ReceiptExpectations::default()).unwrap_err(), ReceiptCheck::OfferHashDiffersFromBooking);
}

#[test]
fn consent_without_a_contract_is_refused() {
    // §5.3: a booking made outside SchCP has no consent. The closed schema states it.
    let c = with(&outside_schcp_receipt(), "/consent", json!({ "approved": "limits", "mandate": "m-1" }));
    assert_schema(&verify(&c, ReceiptExpectations::default()).unwrap_err(), Def::ReceiptClaims, "");
}

#[test]
fn a_contract_without_consent_is_refused() {
    let c = without(&receipt(), "/consent");
    assert_schema(&verify(&c, ReceiptExpectations::default()).unwrap_err(), Def::ReceiptClaims, "");
}

#[test]
fn a_receipt_naming_another_offer_than_the_one_accepted_is_refused() {
    let accepted = schcp::hash::jws_sha256(&sign_offer(&with(&priced_offer(), "/hold_id", json!("h_other"))));
    let err = verify(&receipt(), full_expectations(&accepted)).unwrap_err();
    assert_mismatch(err, ReceiptCheck::AnotherOffer);
    // Nor does a booking made outside SchCP stand for an accepted offer.
    let err = verify(&outside_schcp_receipt(), full_expectations(&accepted)).unwrap_err();
    assert_mismatch(err, ReceiptCheck::AnotherOffer);
}

#[test]
fn a_receipt_naming_another_mandate_than_the_one_used_is_refused() {
    let h = offer_hash();
    let expect = ReceiptExpectations { mandate: Some("m-open-07"), ..full_expectations(&h) };
    assert_mismatch(verify(&receipt(), expect).unwrap_err(), ReceiptCheck::AnotherMandate);
}

#[test]
fn a_receipt_with_another_retention_than_the_contracts_is_refused() {
    let h = offer_hash();
    let expect = ReceiptExpectations { retention: Some("P30D"), ..full_expectations(&h) };
    assert_mismatch(verify(&receipt(), expect).unwrap_err(), ReceiptCheck::AnotherRetention);
    // The host's current policy changing does not change the contract's retention.
    let c = with(&receipt(), "/retention", json!("P2W"));
    assert_mismatch(verify(&c, full_expectations(&h)).unwrap_err(), ReceiptCheck::AnotherRetention);
}

#[test]
fn a_receipt_for_another_booking_is_refused() {
    let h = offer_hash();
    let expect = ReceiptExpectations { booking_id: Some("b_other"), ..full_expectations(&h) };
    assert_mismatch(verify(&receipt(), expect).unwrap_err(), ReceiptCheck::AnotherBooking);
}

#[test]
fn a_receipt_under_an_unknown_kid_is_refused() {
    let compact = sign_host(Typ::Receipt, Some("msa-2025-01"), &receipt(), &host_key());
    let err = verify_receipt(&compact, host(&host_keys()), ReceiptExpectations::default()).unwrap_err();
    assert_eq!(err, Error::Jws(JwsError::UnknownKid("msa-2025-01".into())));
    assert_eq!(reason(&err), "unknown_kid");
}

#[test]
fn an_offer_typ_is_not_a_receipt() {
    let compact = sign_host(Typ::Offer, Some(KID), &receipt(), &host_key());
    let err = verify_receipt(&compact, host(&host_keys()), ReceiptExpectations::default()).unwrap_err();
    assert_eq!(err, Error::Jws(JwsError::WrongTyp { expected: "schcp-receipt+jwt", found: "schcp-offer+jwt".into() }));
    assert_eq!(reason(&err), "wrong_typ");
}

#[test]
fn a_receipt_from_another_host_is_refused() {
    let c = with(&receipt(), "/iss", json!("fades-on-queen"));
    let err = verify(&c, ReceiptExpectations::default()).unwrap_err();
    assert_eq!(err, Error::WrongIssuer { what: "receipt", expected: HOST_ID.into(), found: "fades-on-queen".into() });
}

#[test]
fn a_receipt_signed_by_another_key_is_refused() {
    let compact = sign_host(Typ::Receipt, Some(KID), &receipt(), &stranger_key());
    let err = verify_receipt(&compact, host(&host_keys()), ReceiptExpectations::default()).unwrap_err();
    assert_eq!(err, Error::Jws(JwsError::BadSignature));
}

#[test]
fn a_receipt_is_closed_at_every_depth() {
    // §5.3: the booking and its JSCalendar event are closed too.
    let c = with(&receipt(), "/booking/event/x-fee", json!("25.00"));
    assert_schema(&verify(&c, ReceiptExpectations::default()).unwrap_err(), Def::ReceiptClaims, "/booking/event/x-fee");
    let c = with(&receipt(), "/booking/no_show_fee", json!({ "amount": "25.00", "currency": "CAD" }));
    assert_schema(&verify(&c, ReceiptExpectations::default()).unwrap_err(), Def::ReceiptClaims, "/booking/no_show_fee");
}
