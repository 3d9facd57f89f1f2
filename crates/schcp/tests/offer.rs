//! `verify_offer` (§2.1, §5.2, §5.7): every rule a key app applies before a person
//! sees an offer, each with the rule holding and the rule broken.

mod common;

use common::*;
use schcp::json::JsonError;
use schcp::jws::{JwsError, Typ};
use schcp::money::{Amount, MoneyError};
use schcp::schema::Def;
use schcp::verify::{verify_offer, HostKeys, VerifiedOffer};
use schcp::{Error, PricePart, SlotCheck};
use serde_json::{json, Value};

fn verify(claims: &Value) -> Result<VerifiedOffer, Error> {
    verify_offer(&sign_offer(claims), host(&host_keys()), NOW)
}

#[track_caller]
fn refused(claims: &Value) -> Error {
    verify(claims).expect_err("the offer must be refused")
}

// ---------------------------------------------------------------- the spec's offers

#[test]
fn the_priced_maple_street_auto_offer_verifies() {
    let compact = sign_offer(&priced_offer());
    let v = verify_offer(&compact, host(&host_keys()), NOW).expect("§5.2 priced offer");
    assert_eq!(v.compact, compact);
    assert_eq!(v.kid, KID);
    assert_eq!(v.claims.iss, HOST_ID);
    assert_eq!(v.start.to_rfc3339(), "2026-10-15T13:00:00-04:00");
    assert_eq!(v.end.map(|e| e.to_rfc3339()).as_deref(), Some("2026-10-15T13:45:00-04:00"));
    assert!(!v.is_open_ended());
    assert_eq!(v.total, Some(Amount::parse("89.27", "CAD").unwrap()));
    assert_eq!(v.retention.to_canonical(), "P365D");
}

#[test]
fn offer_sha256_is_the_hash_of_the_exact_compact_bytes() {
    // §5.3: base64url SHA-256 of the compact JWS, no JSON canonicalisation.
    let compact = sign_offer(&priced_offer());
    let v = verify_offer(&compact, host(&host_keys()), NOW).unwrap();
    assert_eq!(v.offer_sha256, schcp::hash::jws_sha256(&compact));
    assert_eq!(v.offer_sha256, schcp::hash::sha256_b64(compact.as_bytes()));
    // The same claims spelled with other whitespace are another contract.
    let pretty = serde_json::to_string_pretty(&priced_offer()).unwrap();
    let respelled = sign_raw(r#"{"alg":"EdDSA","typ":"schcp-offer+jwt","kid":"msa-2026-10"}"#, &pretty, &host_key());
    let other = verify_offer(&respelled, host(&host_keys()), NOW).unwrap();
    assert_eq!(other.claims, v.claims);
    assert_ne!(v.offer_sha256, other.offer_sha256);
}

#[test]
fn the_unpriced_open_ended_playdate_offer_verifies() {
    let compact = sign_host(Typ::Offer, Some(ELLIS_KID), &playdate_offer(), &ellis_calendar_key());
    let v = verify_offer(&compact, ellis_host(&ellis_keys()), NOW).expect("§5.2 playdate offer");
    assert!(v.is_open_ended());
    assert_eq!(v.end, None);
    // §5.2: an offer without price terms has nothing about money in it.
    assert_eq!(v.total, None);
    assert!(v.claims.price.is_none() && v.claims.lines.is_none());
    assert_eq!(v.retention.to_canonical(), "P30D");
}

#[test]
fn a_change_offer_verifies() {
    let prev = schcp::hash::jws_sha256(&sign_offer(&priced_offer()));
    let v = verify(&change_offer(&prev)).expect("§5.7 change offer");
    assert_eq!(v.claims.prev.as_deref(), Some(prev.as_str()));
    assert_eq!(v.claims.booking_id.as_deref(), Some("b_9Kd2Lm"));
}

// ---------------------------------------------------------------- keys, alg, typ (§2.1, §3.4)

#[test]
fn a_kid_that_names_no_discovery_key_is_refused() {
    let compact = sign_host(Typ::Offer, Some("msa-2026-09"), &priced_offer(), &host_key());
    let err = verify_offer(&compact, host(&host_keys()), NOW).unwrap_err();
    assert_eq!(err, Error::Jws(JwsError::UnknownKid("msa-2026-09".into())));
    assert_eq!(reason(&err), "unknown_kid");
}

#[test]
fn a_host_jws_without_kid_is_refused() {
    let compact = sign_host(Typ::Offer, None, &priced_offer(), &host_key());
    let err = verify_offer(&compact, host(&host_keys()), NOW).unwrap_err();
    assert_eq!(err, Error::Jws(JwsError::MissingKid));
    assert_eq!(reason(&err), "unknown_kid");
}

#[test]
fn a_key_from_anywhere_but_discovery_is_never_used() {
    // Signed by a stranger under the host's kid: the discovery key does not verify it.
    let compact = sign_host(Typ::Offer, Some(KID), &priced_offer(), &stranger_key());
    let err = verify_offer(&compact, host(&host_keys()), NOW).unwrap_err();
    assert_eq!(err, Error::Jws(JwsError::BadSignature));
    assert_eq!(reason(&err), "bad_signature");
}

#[test]
fn alg_none_is_refused() {
    let payload = priced_offer().to_string();
    let compact = sign_raw(r#"{"alg":"none","typ":"schcp-offer+jwt","kid":"msa-2026-10"}"#, &payload, &host_key());
    let err = verify_offer(&compact, host(&host_keys()), NOW).unwrap_err();
    assert_eq!(err, Error::Jws(JwsError::AlgNone));
    assert_eq!(reason(&err), "alg_mismatch");
}

#[test]
fn a_header_alg_that_is_not_the_keys_is_refused() {
    // ES256 in the header over a genuine Ed25519 signature by the discovery key.
    let payload = priced_offer().to_string();
    let compact = sign_raw(r#"{"alg":"ES256","typ":"schcp-offer+jwt","kid":"msa-2026-10"}"#, &payload, &host_key());
    let err = verify_offer(&compact, host(&host_keys()), NOW).unwrap_err();
    assert_eq!(err, Error::Jws(JwsError::AlgMismatch { alg: "ES256".into(), expected: "EdDSA" }));
    assert_eq!(reason(&err), "alg_mismatch");
    // The same bytes with the right alg verify: only the alg was wrong.
    let ok = sign_raw(r#"{"alg":"EdDSA","typ":"schcp-offer+jwt","kid":"msa-2026-10"}"#, &payload, &host_key());
    verify_offer(&ok, host(&host_keys()), NOW).expect("EdDSA is the key's alg");
}

#[test]
fn a_receipt_typ_is_not_an_offer() {
    let compact = sign_host(Typ::Receipt, Some(KID), &priced_offer(), &host_key());
    let err = verify_offer(&compact, host(&host_keys()), NOW).unwrap_err();
    assert_eq!(err, Error::Jws(JwsError::WrongTyp { expected: "schcp-offer+jwt", found: "schcp-receipt+jwt".into() }));
    assert_eq!(reason(&err), "wrong_typ");
}

#[test]
fn a_duplicate_member_in_the_payload_is_refused() {
    // §3.1: two parsers must never read different claims from the same bytes.
    let payload = priced_offer().to_string();
    let payload = payload.replacen(r#""retention":"P365D""#, r#""retention":"P365D","retention":"P0D""#, 1);
    assert!(payload.contains(r#""retention":"P0D""#));
    let compact = sign_raw(r#"{"alg":"EdDSA","typ":"schcp-offer+jwt","kid":"msa-2026-10"}"#, &payload, &host_key());
    let err = verify_offer(&compact, host(&host_keys()), NOW).unwrap_err();
    assert_eq!(
        err,
        Error::Jws(JwsError::BadJson { part: "payload", source: JsonError::DuplicateMember("retention".into()) })
    );
    assert_eq!(reason(&err), "duplicate_member");
}

#[test]
fn a_tampered_payload_is_refused() {
    let compact = sign_offer(&priced_offer());
    let parts: Vec<&str> = compact.split('.').collect();
    let cheaper =
        with(&with(&priced_offer(), "/total/amount", json!("9.27")), "/lines/1/amount/amount", json!("10.27"));
    let forged = format!("{}.{}.{}", parts[0], schcp::b64::encode(cheaper.to_string()), parts[2]);
    let err = verify_offer(&forged, host(&host_keys()), NOW).unwrap_err();
    assert_eq!(err, Error::Jws(JwsError::BadSignature));
}

// ---------------------------------------------------------------- closed claims (§5.2)

#[test]
fn a_cancellation_fee_inside_slot_is_refused_by_the_schema() {
    let c = with(&priced_offer(), "/slot/cancellation_fee", json!({ "amount": "25.00", "currency": "CAD" }));
    assert_schema(&refused(&c), Def::OfferClaims, "/slot/cancellation_fee");
}

#[test]
fn a_cancellation_fee_at_the_top_level_is_refused_by_the_schema() {
    let c = with(&priced_offer(), "/cancellation_fee", json!({ "amount": "25.00", "currency": "CAD" }));
    assert_schema(&refused(&c), Def::OfferClaims, "/cancellation_fee");
}

#[test]
fn a_fee_line_for_a_no_show_cannot_be_written() {
    // §5.2 No fee terms: no line kind exists for one.
    let c = with(&priced_offer(), "/lines/1/kind", json!("no_show"));
    assert_schema(&refused(&c), Def::OfferClaims, "/lines/1/kind");
}

// ---------------------------------------------------------------- money (§2.1, §5.2)

#[test]
fn lines_that_do_not_sum_to_the_total_are_refused() {
    let c = with(&priced_offer(), "/total/amount", json!("89.28"));
    let err = refused(&c);
    assert_eq!(
        err,
        Error::LinesDoNotSum {
            sum: Amount::parse("89.27", "CAD").unwrap(),
            total: Amount::parse("89.28", "CAD").unwrap()
        }
    );
    assert_eq!(reason(&err), "lines_do_not_sum");
}

#[test]
fn lines_without_a_total_are_refused() {
    let c = without(&without(&priced_offer(), "/total"), "/price");
    assert_schema(&refused(&c), Def::OfferClaims, "");
}

#[test]
fn a_price_without_a_total_is_refused() {
    let c = without(&without(&priced_offer(), "/total"), "/lines");
    assert_schema(&refused(&c), Def::OfferClaims, "");
}

#[test]
fn a_total_without_lines_is_refused() {
    let c = without(&priced_offer(), "/lines");
    assert_schema(&refused(&c), Def::OfferClaims, "");
}

#[test]
fn total_and_lines_without_a_price_verify() {
    // §5.2: an extension of an unpriced booking has total and lines but no price.
    let c = without(&priced_offer(), "/price");
    verify(&c).expect("total and lines may come without price");
}

#[test]
fn jpy_125_point_0_has_too_many_decimals() {
    let c = json!({
        "price": { "amount": "125", "currency": "JPY" },
        "total": { "amount": "125", "currency": "JPY" },
        "lines": [ { "kind": "service", "label": "Wash", "amount": { "amount": "125.0", "currency": "JPY" } } ]
    });
    let mut offer = priced_offer();
    for (k, v) in c.as_object().unwrap() {
        set(&mut offer, &format!("/{k}"), Some(v.clone()));
    }
    let err = refused(&offer);
    assert_eq!(err, Error::Money(MoneyError::TooManyDecimals { decimals: 1, currency: "JPY", minor_units: 0 }));
    assert_eq!(reason(&err), "money_invalid");
    // The rule holding: 125 JPY is fine.
    verify(&with(&offer, "/lines/0/amount/amount", json!("125"))).expect("whole yen");
}

#[test]
fn cad_79_point_001_has_too_many_decimals() {
    let c = with(&priced_offer(), "/lines/0/amount/amount", json!("79.001"));
    let err = refused(&c);
    assert_eq!(err, Error::Money(MoneyError::TooManyDecimals { decimals: 3, currency: "CAD", minor_units: 2 }));
    // Fewer decimals than the minor unit are fine (79 is 79.00 CAD).
    verify(&with(&priced_offer(), "/lines/0/amount/amount", json!("79"))).expect("79 CAD is 79.00 CAD");
}

#[test]
fn a_line_in_another_currency_is_refused() {
    let c = with(&priced_offer(), "/lines/1/amount/currency", json!("USD"));
    let err = refused(&c);
    assert_eq!(err, Error::MixedCurrencies(PricePart::Line(1)));
    assert_eq!(reason(&err), "mixed_currencies");
}

#[test]
fn a_price_in_another_currency_than_the_total_is_refused() {
    let c = with(&priced_offer(), "/price/currency", json!("USD"));
    assert_eq!(refused(&c), Error::MixedCurrencies(PricePart::Price));
}

// ---------------------------------------------------------------- issuer and times

#[test]
fn an_offer_from_another_host_id_than_the_one_discovered_is_refused() {
    let c = with(&priced_offer(), "/iss", json!("maple-street-auto-2"));
    let err = refused(&c);
    assert_eq!(
        err,
        Error::WrongIssuer { what: "offer", expected: HOST_ID.into(), found: "maple-street-auto-2".into() }
    );
    assert_eq!(reason(&err), "wrong_issuer");
    // And the same offer checked against another discovered host.
    let keys = host_keys();
    let other = HostKeys { host_id: "fades-on-queen", keys: &keys };
    assert!(matches!(
        verify_offer(&sign_offer(&priced_offer()), other, NOW),
        Err(Error::WrongIssuer { what: "offer", .. })
    ));
}

#[test]
fn an_offer_is_expired_at_exp_and_valid_just_before() {
    let compact = sign_offer(&priced_offer());
    let exp = NOW + 300;
    verify_offer(&compact, host(&host_keys()), exp - 1).expect("one second before exp");
    let err = verify_offer(&compact, host(&host_keys()), exp).unwrap_err();
    assert_eq!(err, Error::Expired { what: "offer", exp, now: exp });
    assert_eq!(reason(&err), "expired");
}

#[test]
fn iat_may_be_60_seconds_ahead_and_no_more() {
    let at_60 = with(&with(&priced_offer(), "/iat", json!(NOW + 60)), "/exp", json!(NOW + 600));
    verify(&at_60).expect("60 s of skew on iat");
    let at_61 = with(&at_60, "/iat", json!(NOW + 61));
    let err = refused(&at_61);
    assert_eq!(err, Error::IssuedInFuture { what: "offer", iat: NOW + 61, now: NOW });
    assert_eq!(reason(&err), "issued_in_future");
}

// ---------------------------------------------------------------- slot (§4.2)

#[test]
fn an_open_ended_offer_with_an_end_is_refused() {
    let c = with(&priced_offer(), "/open_end", json!(true));
    assert_schema(&refused(&c), Def::OfferClaims, "/slot");
}

#[test]
fn a_slot_without_end_must_be_open_ended() {
    let c = without(&priced_offer(), "/slot/end");
    assert_schema(&refused(&c), Def::OfferClaims, "/slot");
}

#[test]
fn an_end_before_or_at_the_start_is_refused() {
    let c = with(&priced_offer(), "/slot/end", json!("2026-10-15T12:45:00-04:00"));
    let err = refused(&c);
    assert_eq!(err, Error::BadSlot(SlotCheck::EndNotAfterStart));
    assert_eq!(reason(&err), "bad_slot");
    // The same instant in another offset is still not after the start.
    let c = with(&priced_offer(), "/slot/end", json!("2026-10-15T17:00:00Z"));
    assert_eq!(refused(&c), Error::BadSlot(SlotCheck::EndNotAfterStart));
}

// ---------------------------------------------------------------- host, retention, durations

#[test]
fn an_unknown_host_time_zone_is_refused() {
    let c = with(&priced_offer(), "/host/tz", json!("America/Springfield"));
    let err = refused(&c);
    assert_eq!(err, Error::UnknownTimeZone("America/Springfield".into()));
    assert_eq!(reason(&err), "unknown_time_zone");
}

#[test]
fn retention_in_hours_is_refused() {
    let c = with(&priced_offer(), "/retention", json!("PT1H"));
    assert_schema(&refused(&c), Def::OfferClaims, "/retention");
}

#[test]
fn retention_in_weeks_and_days_verifies() {
    for r in ["P0D", "P1W", "P2W3D", "P365D"] {
        let v = verify(&with(&priced_offer(), "/retention", json!(r))).unwrap_or_else(|e| panic!("{r}: {e}"));
        assert_eq!(v.claims.retention, r);
    }
}

#[test]
fn bad_durations_in_retention_are_refused() {
    for d in ["P1M", "PT", "P1DT", "pt1h", "PT1,5S", "P1Y", "PT1H\n"] {
        let c = with(&priced_offer(), "/retention", json!(d));
        assert_schema(&refused(&c), Def::OfferClaims, "/retention");
    }
}

#[test]
fn reconfirm_before_follows_the_duration_grammar() {
    let ok = with(&priced_offer(), "/reconfirm", json!({ "before": "PT24H", "default": "release" }));
    verify(&ok).expect("PT24H");
    for d in ["P1W", "P1DT12H", "PT0.5S", "PT90M"] {
        verify(&with(&ok, "/reconfirm/before", json!(d))).unwrap_or_else(|e| panic!("{d}: {e}"));
    }
    for d in ["P1M", "PT", "P1DT", "pt1h", "PT1,5S", "-PT1H", "PT1.5H"] {
        let c = with(&ok, "/reconfirm/before", json!(d));
        assert_schema(&refused(&c), Def::OfferClaims, "/reconfirm/before");
    }
}

// ---------------------------------------------------------------- kinds (§5.7)

#[test]
fn a_change_offer_without_booking_id_or_prev_is_refused() {
    let prev = schcp::hash::jws_sha256(&sign_offer(&priced_offer()));
    for missing in ["/booking_id", "/prev"] {
        let c = without(&change_offer(&prev), missing);
        assert_schema(&refused(&c), Def::OfferClaims, "");
    }
}

#[test]
fn a_booking_offer_with_prev_is_refused() {
    let prev = schcp::hash::jws_sha256("x");
    let c = with(&priced_offer(), "/prev", json!(prev));
    assert_schema(&refused(&c), Def::OfferClaims, "");
}

// ---------------------------------------------------------------- dates (§2.1 Formats)

#[test]
fn a_date_without_offset_is_refused() {
    let c = with(&priced_offer(), "/slot/start", json!("2026-10-15T13:00:00"));
    assert_schema(&refused(&c), Def::OfferClaims, "/slot/start");
}

#[test]
fn an_unparseable_date_is_refused() {
    let c = with(&priced_offer(), "/slot/start", json!("2026-13-45T00:00:00Z"));
    assert_schema(&refused(&c), Def::OfferClaims, "/slot/start");
    let c = with(&playdate_offer(), "/approval_by", json!("2026-13-45T00:00:00Z"));
    let compact = sign_host(Typ::Offer, Some(ELLIS_KID), &c, &ellis_calendar_key());
    let err = verify_offer(&compact, ellis_host(&ellis_keys()), NOW).unwrap_err();
    assert_schema(&err, Def::OfferClaims, "/approval_by");
}

// ---------------------------------------------------------------- the vector files

fn vectors(outcome: &str) -> Vec<(String, Value)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/offer").join(outcome);
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.unwrap().path();
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            (path.file_name().unwrap().to_string_lossy().into_owned(), v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Signs a vector's claims as their own iss would, and verifies at their iat.
fn verify_vector(claims: &Value) -> Result<VerifiedOffer, Error> {
    let iss = claims.get("iss").and_then(Value::as_str).unwrap_or(HOST_ID);
    let now = claims.get("iat").and_then(Value::as_i64).unwrap_or(NOW);
    let keys = host_keys();
    verify_offer(&sign_offer(claims), HostKeys { host_id: iss, keys: &keys }, now)
}

#[test]
fn every_valid_offer_vector_verifies() {
    let all = vectors("valid");
    assert!(!all.is_empty());
    for (file, v) in all {
        verify_vector(&v["claims"]).unwrap_or_else(|e| panic!("offer/valid/{file}: {e}"));
    }
}

#[test]
fn every_invalid_offer_vector_is_refused_by_the_schema() {
    let all = vectors("invalid");
    assert!(!all.is_empty());
    for (file, v) in all {
        match verify_vector(&v["claims"]) {
            Err(Error::Schema(e)) => assert_eq!(e.def, Def::OfferClaims, "offer/invalid/{file}"),
            other => panic!("offer/invalid/{file}: expected a schema failure, got {other:?}"),
        }
    }
}

#[test]
fn every_semantic_offer_vector_is_refused_by_the_rule_it_names() {
    // tests/vectors/offer/invalid_semantic: schema-valid offers the money rules refuse.
    let all = vectors("invalid_semantic");
    assert!(!all.is_empty());
    for (file, v) in all {
        let check = v["expect"]["check"].as_str().unwrap_or_default().to_owned();
        let err = verify_vector(&v["claims"]).expect_err(&file);
        let ok = match check.as_str() {
            "minor_units" => matches!(err, Error::Money(MoneyError::TooManyDecimals { .. })),
            "lines_sum" => matches!(err, Error::LinesDoNotSum { .. }),
            "one_currency" => matches!(err, Error::MixedCurrencies(_)),
            "currency" => matches!(err, Error::Money(MoneyError::UnknownCurrency { .. })),
            other => panic!("offer/invalid_semantic/{file}: unknown check {other:?}"),
        };
        assert!(ok, "offer/invalid_semantic/{file}: {check} expected, got {err:?}");
    }
}
