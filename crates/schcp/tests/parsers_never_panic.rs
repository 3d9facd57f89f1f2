//! Hostile input to every parser of the protocol crate returns a typed error,
//! never a panic (every parser faces what an agent or host sends, so each is a
//! test subject of its own). Complements
//! the per-module property tests of durations, money and date-times.

use proptest::prelude::*;
use schcp::jwk::Jwk;

fn host_keys() -> Vec<Jwk> {
    let sk = ed25519_dalek::SigningKey::from_bytes(&[1; 32]);
    let mut j = Jwk::ed25519(&sk.verifying_key());
    j.kid = Some("k".into());
    vec![j]
}

/// Strings built from the characters compact JWS, JSON and SD-JWT parsers split
/// on, so the generator reaches deep into them instead of failing at the first byte.
fn jose_like() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just(".".to_owned()),
            Just("~".to_owned()),
            Just("eyJhbGciOiJFZERTQSJ9".to_owned()),
            Just("e30".to_owned()),
            Just("=".to_owned()),
            "[A-Za-z0-9_-]{0,12}",
            any::<String>(),
        ],
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn json_parse_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = schcp::json::parse(&bytes);
    }

    #[test]
    fn b64_decode_never_panics_and_round_trips(s in any::<String>()) {
        if let Ok(bytes) = schcp::b64::decode(&s) {
            // Strict decoding: the only accepted spelling is the canonical one.
            prop_assert_eq!(schcp::b64::encode(bytes), s);
        }
    }

    #[test]
    fn jws_parse_and_verify_never_panic(s in jose_like()) {
        if let Ok(parsed) = schcp::jws::parse(&s) {
            let _ = parsed.verify_with_discovery_keys(schcp::jws::Typ::Offer, &host_keys());
        }
        let _ = schcp::verify::verify_offer(&s, schcp::verify::HostKeys { host_id: "h", keys: &host_keys() }, 0);
        let _ = schcp::verify::verify_meeting_contract(&s, 0);
        let _ = schcp::verify::verify_rule(&s);
    }

    #[test]
    fn sd_jwt_presentation_never_panics(s in jose_like()) {
        let _ = schcp::sdjwt::verify_presentation(&s, "h", 0);
    }

    #[test]
    fn agent_key_header_never_panics(s in jose_like()) {
        let _ = schcp::jwk::parse_agent_key(&s);
    }
}
