//! The §3.2 profile's tests: the exact form, and every way off it refused.

use super::*;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::SigningKey;
use std::collections::HashMap;
use std::sync::Mutex;

/// The simplest replay memory §3.2 allows: every pair until it expires.
#[derive(Default)]
struct NonceCache(Mutex<HashMap<(String, String), i64>>);

impl NonceCache {
    fn new() -> Self {
        NonceCache::default()
    }
    fn is_empty(&self) -> bool {
        self.0.lock().unwrap().is_empty()
    }
}

impl NonceMemory for NonceCache {
    fn began(&self, _now: i64) -> Option<i64> {
        None
    }
    fn remember(&self, keyid: &str, nonce: &str, until: i64, now: i64) -> Result<(), SigError> {
        let mut seen = self.0.lock().unwrap();
        match seen.get(&(keyid.to_owned(), nonce.to_owned())) {
            Some(&exp) if exp >= now => Err(SigError::Replayed),
            _ => {
                seen.insert((keyid.to_owned(), nonce.to_owned()), until);
                Ok(())
            }
        }
    }
}

const NOW: i64 = 1_792_000_000;
const URL: &str = "http://127.0.0.1:7411/v1/requests";
const BODY: &[u8] = br#"{"kind":"mandate"}"#;

fn agent() -> SigningKey {
    SigningKey::from_bytes(&[7u8; 32])
}

fn nonce(i: u8) -> String {
    crate::b64::encode([i; 16])
}

/// A signed request's headers, as raw (name, bytes) pairs.
fn signed(method: &str, url: &str, body: &[u8], created: i64, n: &str) -> Vec<(String, Vec<u8>)> {
    sign_request(method, url, body, None, &agent(), created, n).into_iter().map(|(k, v)| (k, v.into_bytes())).collect()
}

fn verify(method: &str, url: &str, body: &[u8], headers: Vec<(String, Vec<u8>)>) -> Result<VerifiedAgent, SigError> {
    verify_at(method, url, body, headers, NOW, &NonceCache::new())
}

fn verify_at(
    method: &str,
    url: &str,
    body: &[u8],
    headers: Vec<(String, Vec<u8>)>,
    now: i64,
    nonces: &NonceCache,
) -> Result<VerifiedAgent, SigError> {
    verify_request(&RequestParts { method, target_uri: url, headers, body }, now, nonces)
}

fn get<'h>(h: &'h [(String, Vec<u8>)], name: &str) -> &'h str {
    std::str::from_utf8(&h.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).unwrap().1).unwrap()
}

fn set(h: &mut Vec<(String, Vec<u8>)>, name: &str, value: &str) {
    h.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    h.push((name.to_owned(), value.as_bytes().to_vec()));
}

fn remove(h: &mut Vec<(String, Vec<u8>)>, name: &str) {
    h.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
}

/// Re-signs an arbitrary Signature-Input with the agent's key, so a test
/// of a form rule fails on the form, not on the signature.
fn resign(h: &mut Vec<(String, Vec<u8>)>, method: &str, url: &str, digest: Option<&str>, params_value: &str) {
    let mut base = format!("\"@method\": {method}\n\"@target-uri\": {url}\n");
    if let Some(d) = digest {
        base.push_str(&format!("\"content-digest\": {d}\n"));
    }
    base.push_str(&format!("\"@signature-params\": {params_value}"));
    let sig = agent().sign(base.as_bytes());
    set(h, "Signature-Input", &format!("schcp={params_value}"));
    set(h, "Signature", &format!("schcp=:{}:", STANDARD.encode(sig.to_bytes())));
}

fn is_bad(r: Result<VerifiedAgent, SigError>, needle: &str) {
    match r {
        Err(SigError::Bad(d)) => assert!(d.contains(needle), "detail {d:?} lacks {needle:?}"),
        other => panic!("expected Bad({needle:?}), got {other:?}"),
    }
}

fn keyid() -> String {
    Jwk::ed25519(&agent().verifying_key()).thumbprint().unwrap()
}

#[test]
fn signature_base_is_the_section_3_2_form() {
    let p = SigParams { created: 1_792_000_000, keyid: "Z5hJ".into(), nonce: "q3Vh".into() };
    assert_eq!(
        signature_base("POST", "https://h.example/holds", Some("sha-256=:X=:"), Some("m.a.n"), &p),
        "\"@method\": POST\n\"@target-uri\": https://h.example/holds\n\"content-digest\": sha-256=:X=:\n\
         \"schcp-mandate\": m.a.n\n\"@signature-params\": (\"@method\" \"@target-uri\" \"content-digest\" \
         \"schcp-mandate\");created=1792000000;keyid=\"Z5hJ\";nonce=\"q3Vh\";alg=\"ed25519\""
    );
    assert_eq!(
        signature_base("GET", "http://127.0.0.1:7411/v1/principal", None, None, &p),
        "\"@method\": GET\n\"@target-uri\": http://127.0.0.1:7411/v1/principal\n\"@signature-params\": \
         (\"@method\" \"@target-uri\");created=1792000000;keyid=\"Z5hJ\";nonce=\"q3Vh\";alg=\"ed25519\""
    );
}

#[test]
fn sign_request_headers() {
    let h = sign_request("POST", URL, BODY, None, &agent(), NOW, &nonce(1));
    let names: Vec<&str> = h.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Signature-Input", "Signature", "Content-Digest", "SchCP-Agent-Key"]);
    assert!(h[0].1.starts_with("schcp=(\"@method\" \"@target-uri\" \"content-digest\");created=1792000000;"));
    let h = sign_request("GET", URL, b"", None, &agent(), NOW, &nonce(1));
    assert_eq!(h.len(), 3, "no Content-Digest for a bodiless request");
}

#[test]
fn valid_requests_verify() {
    let v = verify("POST", URL, BODY, signed("POST", URL, BODY, NOW, &nonce(1))).unwrap();
    assert_eq!(v.jkt, keyid());
    assert_eq!((v.created, v.nonce.as_str()), (NOW, nonce(1).as_str()));
    assert_eq!(v.key, agent().verifying_key());
    // Bodiless, and header names in another case.
    let h = signed("GET", URL, b"", NOW, &nonce(2)).into_iter().map(|(n, v)| (n.to_ascii_lowercase(), v)).collect();
    verify("GET", URL, b"", h).unwrap();
}

#[test]
fn mandate_is_covered_when_sent() {
    let h: Vec<(String, Vec<u8>)> = sign_request("POST", URL, BODY, Some("a.b.c"), &agent(), NOW, &nonce(1))
        .into_iter()
        .map(|(k, v)| (k, v.into_bytes()))
        .collect();
    assert!(get(&h, "signature-input").contains("\"content-digest\" \"schcp-mandate\")"));
    verify("POST", URL, BODY, h.clone()).unwrap();
    let mut swapped = h.clone();
    set(&mut swapped, "SchCP-Mandate", "x.y.z");
    is_bad(verify("POST", URL, BODY, swapped), "does not verify");
    let mut dropped = h;
    remove(&mut dropped, "SchCP-Mandate");
    is_bad(verify("POST", URL, BODY, dropped), "covered components");
}

#[test]
fn body_changed_after_signing() {
    let h = signed("POST", URL, BODY, NOW, &nonce(1));
    is_bad(verify("POST", URL, br#"{"kind":"rule"}"#, h.clone()), "does not match the body");
    // The digest recomputed for the new body still leaves the signature wrong.
    let mut h2 = h;
    set(&mut h2, "Content-Digest", &content_digest(br#"{"kind":"rule"}"#));
    is_bad(verify("POST", URL, br#"{"kind":"rule"}"#, h2), "does not verify");
}

#[test]
fn body_dropped_after_signing() {
    // Signed with a body, sent bodiless: the components no longer fit.
    is_bad(verify("POST", URL, b"", signed("POST", URL, BODY, NOW, &nonce(1))), "covered components");
    // Signed bodiless, sent with a body: content-digest must be covered.
    let h = signed("POST", URL, b"", NOW, &nonce(1));
    is_bad(verify("POST", URL, BODY, h), "covered components");
}

#[test]
fn digest_missing_wrong_or_other_algorithm() {
    let h = signed("POST", URL, BODY, NOW, &nonce(1));
    let mut missing = h.clone();
    remove(&mut missing, "Content-Digest");
    is_bad(verify("POST", URL, BODY, missing), "needs Content-Digest");

    let mut wrong = h.clone();
    set(&mut wrong, "Content-Digest", &content_digest(b"other"));
    is_bad(verify("POST", URL, BODY, wrong), "does not match the body");

    let sha512 = "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:";
    let mut other = h.clone();
    set(&mut other, "Content-Digest", sha512);
    is_bad(verify("POST", URL, BODY, other), "no sha-256");

    let mut both = h.clone();
    set(&mut both, "Content-Digest", &format!("{}, {sha512}", content_digest(BODY)));
    is_bad(verify("POST", URL, BODY, both), "sha-256 alone");

    let mut twice = h.clone();
    twice.push(("content-digest".into(), content_digest(BODY).into_bytes()));
    is_bad(verify("POST", URL, BODY, twice), "two content-digest");

    let mut unpadded = h;
    let d = content_digest(BODY);
    set(&mut unpadded, "Content-Digest", &d.replace("=:", ":").replacen("sha-256:", "sha-256=:", 1));
    is_bad(verify("POST", URL, BODY, unpadded), "standard base64");
}

#[test]
fn component_order_changed() {
    let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
    let d = content_digest(BODY);
    let p = format!(
        "(\"@target-uri\" \"@method\" \"content-digest\");created={NOW};keyid=\"{}\";nonce=\"{}\";alg=\"ed25519\"",
        keyid(),
        nonce(1)
    );
    resign(&mut h, "POST", URL, Some(&d), &p);
    is_bad(verify("POST", URL, BODY, h), "covered components");
}

#[test]
fn parameter_rules() {
    let d = content_digest(BODY);
    let (k, n) = (keyid(), nonce(1));
    let cases = [
        // An extra parameter.
        (format!("(\"@method\" \"@target-uri\" \"content-digest\");created={NOW};keyid=\"{k}\";nonce=\"{n}\";alg=\"ed25519\";expires={}", NOW + 60), "signature parameters"),
        (format!("(\"@method\" \"@target-uri\" \"content-digest\");created={NOW};expires={};keyid=\"{k}\";nonce=\"{n}\";alg=\"ed25519\"", NOW + 60), "signature parameters"),
        // A missing one.
        (format!("(\"@method\" \"@target-uri\" \"content-digest\");created={NOW};keyid=\"{k}\";alg=\"ed25519\""), "signature parameters"),
        (format!("(\"@method\" \"@target-uri\" \"content-digest\");created={NOW};keyid=\"{k}\";nonce=\"{n}\""), "signature parameters"),
        // Out of order.
        (format!("(\"@method\" \"@target-uri\" \"content-digest\");keyid=\"{k}\";created={NOW};nonce=\"{n}\";alg=\"ed25519\""), "signature parameters"),
        // Another alg.
        (format!("(\"@method\" \"@target-uri\" \"content-digest\");created={NOW};keyid=\"{k}\";nonce=\"{n}\";alg=\"rsa-pss-sha512\""), "alg must be"),
        (format!("(\"@method\" \"@target-uri\" \"content-digest\");created={NOW};keyid=\"{k}\";nonce=\"{n}\";alg=ed25519"), "alg must be"),
        // Not the exact bytes: a leading zero, an extra space, an escape.
        (format!("(\"@method\" \"@target-uri\" \"content-digest\");created=0{NOW};keyid=\"{k}\";nonce=\"{n}\";alg=\"ed25519\""), "exact form"),
        (format!("(\"@method\"  \"@target-uri\" \"content-digest\");created={NOW};keyid=\"{k}\";nonce=\"{n}\";alg=\"ed25519\""), "exact form"),
        (format!("(\"@method\" \"@target-uri\" \"content-digest\");created={NOW};keyid=\"{k}\";nonce=\"\\{n}\";alg=\"ed25519\""), "bad escape"),
    ];
    for (p, needle) in cases {
        let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
        resign(&mut h, "POST", URL, Some(&d), &p);
        is_bad(verify("POST", URL, BODY, h), needle);
    }
}

#[test]
fn label_other_than_schcp() {
    let h = signed("POST", URL, BODY, NOW, &nonce(1));
    let mut input = h.clone();
    let v = get(&h, "signature-input").replacen("schcp=", "sig1=", 1);
    set(&mut input, "Signature-Input", &v);
    is_bad(verify("POST", URL, BODY, input), "label \"sig1\"");
    let mut sig = h.clone();
    let v = get(&h, "signature").replacen("schcp=", "sig1=", 1);
    set(&mut sig, "Signature", &v);
    is_bad(verify("POST", URL, BODY, sig), "label \"sig1\"");
}

#[test]
fn two_signatures() {
    let h = signed("POST", URL, BODY, NOW, &nonce(1));
    let other = signed("POST", URL, BODY, NOW, &nonce(2));
    // Two members in one field.
    let mut one_field = h.clone();
    let v =
        format!("{}, {}", get(&h, "signature-input"), get(&other, "signature-input").replacen("schcp=", "sig2=", 1));
    set(&mut one_field, "Signature-Input", &v);
    is_bad(verify("POST", URL, BODY, one_field), "a second signature");
    let mut sig_field = h.clone();
    let v = format!("{}, {}", get(&h, "signature"), get(&other, "signature").replacen("schcp=", "sig2=", 1));
    set(&mut sig_field, "Signature", &v);
    is_bad(verify("POST", URL, BODY, sig_field), "a second signature");
    // Two fields.
    let mut two_fields = h.clone();
    two_fields.push(("signature-input".into(), get(&other, "signature-input").as_bytes().to_vec()));
    two_fields.push(("signature".into(), get(&other, "signature").as_bytes().to_vec()));
    is_bad(verify("POST", URL, BODY, two_fields), "a second signature");
}

#[test]
fn unsigned() {
    let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
    remove(&mut h, "Signature-Input");
    is_bad(verify("POST", URL, BODY, h), "unsigned");
    let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
    remove(&mut h, "Signature");
    is_bad(verify("POST", URL, BODY, h), "unsigned");
    is_bad(verify("GET", URL, b"", vec![]), "unsigned");
}

#[test]
fn keyid_must_be_the_agent_keys_thumbprint() {
    let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
    // A different (valid) key in SchCP-Agent-Key.
    let other = SigningKey::from_bytes(&[9u8; 32]).verifying_key();
    set(&mut h, "SchCP-Agent-Key", &agent_key_header(&other));
    is_bad(verify("POST", URL, BODY, h), "keyid is not the thumbprint");
    // Missing altogether.
    let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
    remove(&mut h, "SchCP-Agent-Key");
    is_bad(verify("POST", URL, BODY, h), "no SchCP-Agent-Key");
}

#[test]
fn agent_key_with_d_or_duplicate_member() {
    let x = crate::b64::encode(agent().verifying_key().as_bytes());
    let d = crate::b64::encode([7u8; 32]);
    for json in [
        format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{x}","d":"{d}"}}"#),
        format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{x}","x":"{x}"}}"#),
        format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{x}","use":"sig"}}"#),
    ] {
        let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
        set(&mut h, "SchCP-Agent-Key", &crate::b64::encode(json));
        is_bad(verify("POST", URL, BODY, h), "SchCP-Agent-Key");
    }
    // Member order and a kid do not matter: the thumbprint is computed.
    let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
    let json = format!(r#"{{"x":"{x}","kid":"k1","crv":"Ed25519","kty":"OKP"}}"#);
    set(&mut h, "SchCP-Agent-Key", &crate::b64::encode(json));
    verify("POST", URL, BODY, h).unwrap();
}

#[test]
fn stale_at_301_seconds_either_way_fresh_at_300() {
    for (created, stale) in [(NOW - 301, true), (NOW + 301, true), (NOW - 300, false), (NOW + 300, false)] {
        let h = signed("POST", URL, BODY, created, &nonce(1));
        match verify("POST", URL, BODY, h) {
            Err(SigError::Stale { created: c, now }) => assert!(stale && c == created && now == NOW),
            Ok(_) => assert!(!stale, "created {created} should be stale"),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn replayed_nonce_is_refused_until_created_plus_301() {
    let cache = NonceCache::new();
    let h = signed("POST", URL, BODY, NOW, &nonce(1));
    verify_at("POST", URL, BODY, h.clone(), NOW, &cache).unwrap();
    assert_eq!(verify_at("POST", URL, BODY, h.clone(), NOW, &cache).unwrap_err(), SigError::Replayed);
    assert_eq!(verify_at("POST", URL, BODY, h.clone(), NOW + 300, &cache).unwrap_err(), SigError::Replayed);
    // The same nonce on another request of the same key is a replay too.
    let other = signed("GET", URL, b"", NOW, &nonce(1));
    assert_eq!(verify_at("GET", URL, b"", other, NOW, &cache).unwrap_err(), SigError::Replayed);
    // Another key may use the same nonce: the memory is per (keyid, nonce).
    let k2 = SigningKey::from_bytes(&[8u8; 32]);
    let h2 = sign_request("POST", URL, BODY, None, &k2, NOW, &nonce(1));
    let h2 = h2.into_iter().map(|(k, v)| (k, v.into_bytes())).collect();
    verify_at("POST", URL, BODY, h2, NOW, &cache).unwrap();
    // Past created + 300 the signature itself is stale.
    assert!(matches!(verify_at("POST", URL, BODY, h, NOW + 301, &cache), Err(SigError::Stale { .. })));
}

#[test]
fn a_forged_request_does_not_spend_the_nonce() {
    let cache = NonceCache::new();
    let genuine = signed("POST", URL, BODY, NOW, &nonce(3));
    // Someone who saw the nonce (but not the key) signs with another key
    // while claiming this agent's key: the signature fails...
    let forger = SigningKey::from_bytes(&[66u8; 32]);
    let mut forged: Vec<(String, Vec<u8>)> = sign_request("POST", URL, BODY, None, &forger, NOW, &nonce(3))
        .into_iter()
        .map(|(k, v)| (k, v.into_bytes()))
        .collect();
    set(&mut forged, "SchCP-Agent-Key", get(&genuine, "schcp-agent-key"));
    let fi =
        get(&forged, "signature-input").replace(&Jwk::ed25519(&forger.verifying_key()).thumbprint().unwrap(), &keyid());
    set(&mut forged, "Signature-Input", &fi);
    is_bad(verify_at("POST", URL, BODY, forged, NOW, &cache), "does not verify");
    // ...a corrupted signature too...
    let mut corrupted = genuine.clone();
    let mut sig =
        STANDARD.decode(get(&genuine, "signature").trim_start_matches("schcp=:").trim_end_matches(':')).unwrap();
    sig[0] ^= 1;
    set(&mut corrupted, "Signature", &format!("schcp=:{}:", STANDARD.encode(sig)));
    is_bad(verify_at("POST", URL, BODY, corrupted, NOW, &cache), "does not verify");
    assert!(cache.is_empty());
    // ...and the genuine request with the same nonce still passes, once.
    verify_at("POST", URL, BODY, genuine.clone(), NOW, &cache).unwrap();
    assert_eq!(verify_at("POST", URL, BODY, genuine, NOW, &cache).unwrap_err(), SigError::Replayed);
}

#[test]
fn short_or_malformed_nonce() {
    for n in [crate::b64::encode([1u8; 15]), format!("{}=", crate::b64::encode([1u8; 16])), "+".repeat(24)] {
        let h = signed("POST", URL, BODY, NOW, &n);
        is_bad(verify("POST", URL, BODY, h), "nonce");
    }
    // 16 bytes is the minimum: 22 characters.
    assert_eq!(nonce(1).len(), 22);
    verify("POST", URL, BODY, signed("POST", URL, BODY, NOW, &nonce(1))).unwrap();
}

/// A nonce is remembered until created + 301 s (§3.2): one of kilobytes would
/// let a signer fill that memory and its index, which refuses entries past
/// about 2.7 kB, failing whatever write carried it. 128 bytes is the most.
#[test]
fn an_oversized_nonce_is_refused() {
    let at_most = crate::b64::encode([2u8; MAX_NONCE_BYTES]);
    verify("POST", URL, BODY, signed("POST", URL, BODY, NOW, &at_most)).unwrap();
    for n in [crate::b64::encode([3u8; MAX_NONCE_BYTES + 1]), crate::b64::encode([4u8; 3000])] {
        is_bad(verify("POST", URL, BODY, signed("POST", URL, BODY, NOW, &n)), "longer than 128 bytes");
    }
}

#[test]
fn target_uri_and_method_mismatch() {
    let h = signed("POST", "http://127.0.0.1:7411/v1/pairings", BODY, NOW, &nonce(1));
    is_bad(verify("POST", URL, BODY, h), "does not verify");
    let h = signed("POST", "http://localhost:7411/v1/requests", BODY, NOW, &nonce(1));
    is_bad(verify("POST", URL, BODY, h), "does not verify");
    let h = signed("PUT", URL, BODY, NOW, &nonce(1));
    is_bad(verify("POST", URL, BODY, h), "does not verify");
    let h = signed("GET", URL, b"", NOW, &nonce(1));
    is_bad(verify("DELETE", URL, b"", h), "does not verify");
}

#[test]
fn signature_header_form() {
    let h = signed("POST", URL, BODY, NOW, &nonce(1));
    let good = get(&h, "signature").to_owned();
    let b64 = good.trim_start_matches("schcp=:").trim_end_matches(':').to_owned();
    let url_safe = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(STANDARD.decode(&b64).unwrap());
    for (v, needle) in [
        (format!("schcp=:{}:", b64.trim_end_matches('=')), "standard base64"),
        (format!("schcp=:{url_safe}:"), "Signature"),
        (format!("schcp=:{b64}:;alg=\"x\""), "parameters"),
        (format!("schcp={b64}"), "not a byte sequence"),
        (format!("schcp=:{}:", STANDARD.encode([0u8; 63])), "64 bytes"),
    ] {
        let mut h2 = h.clone();
        set(&mut h2, "Signature", &v);
        is_bad(verify("POST", URL, BODY, h2), needle);
    }
}

/// A host signs with the same profile (§5.8), its key in `SchCP-Host-Key`;
/// `verify_unspent` checks it exactly and spends nothing, and an agent-keyed
/// verifier does not read the host's header (nor the other way round).
#[test]
fn a_host_signs_with_the_same_profile_and_the_caller_spends_the_nonce() {
    let host = SigningKey::from_bytes(&[9u8; 32]);
    let url = "https://keyapp.example/status/m-1/claims";
    let body = br#"{"claim_id":"maple-street-auto/h_1"}"#;
    let raw: Vec<(String, Vec<u8>)> = sign_host_request("POST", url, body, "maple-street-auto", &host, NOW, &nonce(4))
        .into_iter()
        .map(|(k, v)| (k, v.into_bytes()))
        .collect();
    let names: Vec<&str> = raw.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Signature-Input", "Signature", "Content-Digest", "SchCP-Host-Key", "SchCP-Host"]);
    let req = RequestParts { method: "POST", target_uri: url, headers: raw.clone(), body };
    let v = verify_unspent(&req, HOST_KEY, NOW, None).unwrap();
    assert_eq!(v.jkt, Jwk::ed25519(&host.verifying_key()).thumbprint().unwrap());
    assert_eq!(v.remember_until(), NOW + NONCE_MEMORY_SECS);
    // Nothing was spent: the same request verifies again; the caller spends.
    assert!(verify_unspent(&req, HOST_KEY, NOW, None).is_ok());
    is_bad(verify_unspent(&req, AGENT_KEY, NOW, None), "no SchCP-Agent-Key");
    assert!(matches!(verify_unspent(&req, HOST_KEY, NOW + 301, None), Err(SigError::Stale { .. })));
    assert!(matches!(verify_unspent(&req, HOST_KEY, NOW, Some(NOW + 1)), Err(SigError::BeforeMemory { .. })));
    let other = RequestParts { target_uri: "https://keyapp.example/status/m-2/claims", ..req.clone() };
    is_bad(verify_unspent(&other, HOST_KEY, NOW, None), "does not verify");
    let agent_signed = signed("POST", url, body, NOW, &nonce(5));
    let req = RequestParts { method: "POST", target_uri: url, headers: agent_signed, body };
    is_bad(verify_unspent(&req, HOST_KEY, NOW, None), "no SchCP-Host-Key");
}
