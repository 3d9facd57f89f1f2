//! Compact JWS (RFC 7515) as SchCP uses it: EdDSA and ES256 only, the algorithm
//! taken from the key (§3.4), the `typ` checked for each object, and host keys
//! chosen by `kid` from the discovery document alone (§2.1).

use crate::jwk::{Jwk, JwkError, PublicKey};
use crate::{b64, json};
use serde::{Deserialize, Serialize};

/// The media types of the objects SchCP signs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Typ {
    /// `schcp-mandate+jwt` (§3.3).
    Mandate,
    /// `schcp-offer+jwt` (§5.2).
    Offer,
    /// `schcp-receipt+jwt` (§5.3).
    Receipt,
    /// `schcp-meeting+jwt`, a meeting contract (§5.12).
    Meeting,
    /// `schcp-acceptance+jwt` (§5.12).
    Acceptance,
    /// `schcp-rule+jwt` (§7.9).
    Rule,
    /// `schcp-attestation+jwt` (§7.5).
    Attestation,
    /// `dc+sd-jwt`, the issuer JWT of an SD-JWT VC mandate (§3.4).
    SdJwt,
    /// `kb+jwt`, an SD-JWT Key Binding JWT (§3.4).
    KbJwt,
    /// `schcp-status-update+jwt`: a key app's update to a hosted status
    /// service ([`crate::status_update`], docs/hosted-status.md).
    StatusUpdate,
    /// `schcp-keyapp-proof+jwt`: a key app proving to a local agent that it
    /// holds the principal key ([`crate::keyapp_proof`]).
    KeyappProof,
}

impl Typ {
    /// The `typ` header value.
    pub fn as_str(self) -> &'static str {
        match self {
            Typ::Mandate => "schcp-mandate+jwt",
            Typ::Offer => "schcp-offer+jwt",
            Typ::Receipt => "schcp-receipt+jwt",
            Typ::Meeting => "schcp-meeting+jwt",
            Typ::Acceptance => "schcp-acceptance+jwt",
            Typ::Rule => "schcp-rule+jwt",
            Typ::Attestation => "schcp-attestation+jwt",
            Typ::SdJwt => "dc+sd-jwt",
            Typ::KbJwt => "kb+jwt",
            Typ::StatusUpdate => "schcp-status-update+jwt",
            Typ::KeyappProof => "schcp-keyapp-proof+jwt",
        }
    }
}

/// The protected header. Closed: a member SchCP does not use (`crit`, `b64`,
/// `x5c`, `jku`…) could change how the JWS is read, so it is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// `alg`: `EdDSA` or `ES256`, following the key (§3.4).
    pub alg: String,
    /// `typ`: the object's media type ([`Typ`]).
    pub typ: String,
    /// `kid`, on host-signed objects (§2.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kid: Option<String>,
    /// `jwk`, on an SD-JWT issuer JWT (§3.4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jwk: Option<Jwk>,
}

/// Why a compact JWS is refused (§3.4).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JwsError {
    /// Not three base64url parts separated by `.`.
    #[error("not a compact JWS: expected three base64url parts separated by '.'")]
    NotCompact,
    /// A part is not strict base64url.
    #[error("JWS {part} is not strict base64url")]
    BadBase64 {
        /// Which part of the compact JWS: `header` or `payload`.
        part: &'static str,
    },
    /// The header or payload is not the JSON §3.1 allows.
    #[error("JWS {part} is not valid JSON: {source}")]
    BadJson {
        /// Which part of the compact JWS: `header` or `payload`.
        part: &'static str,
        /// Why the JSON is refused.
        source: json::JsonError,
    },
    /// The header is JSON but not a SchCP header (unknown member, wrong type).
    #[error("JWS header is malformed: {0}")]
    BadHeader(String),
    /// `alg` is `none`.
    #[error("alg \"none\" is never accepted (§3.4)")]
    AlgNone,
    /// `alg` is not the one the key implies.
    #[error("alg {alg:?} is not the key's ({expected}) (§3.4)")]
    AlgMismatch {
        /// The header's alg.
        alg: String,
        /// The alg or typ the key or caller requires.
        expected: &'static str,
    },
    /// `typ` is not the expected object's.
    #[error("typ {found:?} where {expected:?} was expected")]
    WrongTyp {
        /// The alg or typ the key or caller requires.
        expected: &'static str,
        /// What was found instead.
        found: String,
    },
    /// A host-signed JWS names no `kid`.
    #[error("the JWS header names no kid (§2.1)")]
    MissingKid,
    /// `kid` names no key of the host's discovery document (§2.1).
    #[error("kid {0:?} names no discovery key (§2.1)")]
    UnknownKid(String),
    /// `kid` names more than one discovery key.
    #[error("kid {0:?} names more than one discovery key (§2.1: kids are unique)")]
    AmbiguousKid(String),
    /// The key to verify with is unusable.
    #[error("the signing key is unusable: {0}")]
    BadKey(#[from] JwkError),
    /// The signature does not verify.
    #[error("the signature does not verify")]
    BadSignature,
    /// The signer failed (a keystore error, for example).
    #[error("signing failed: {0}")]
    Signing(String),
}

/// A compact JWS split and decoded, its signature not yet checked.
#[derive(Debug, Clone)]
pub struct Parsed<'a> {
    /// The compact serialization, exactly as received.
    pub compact: &'a str,
    /// The decoded protected header.
    pub header: Header,
    /// The decoded payload (duplicate members already refused, §3.1).
    pub payload: serde_json::Value,
    signing_input: &'a str,
    signature: Vec<u8>,
}

/// Splits and decodes a compact JWS; refuses anything that is not exactly
/// three strict base64url parts with duplicate-free JSON (§3.1).
pub fn parse(compact: &str) -> Result<Parsed<'_>, JwsError> {
    let mut parts = compact.split('.');
    let (Some(h), Some(p), Some(s), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(JwsError::NotCompact);
    };
    let header_bytes = b64::decode(h).map_err(|_| JwsError::BadBase64 { part: "header" })?;
    let payload_bytes = b64::decode(p).map_err(|_| JwsError::BadBase64 { part: "payload" })?;
    let signature = b64::decode(s).map_err(|_| JwsError::BadBase64 { part: "signature" })?;
    let header_value = json::parse(&header_bytes).map_err(|source| JwsError::BadJson { part: "header", source })?;
    let header: Header = serde_json::from_value(header_value).map_err(|e| JwsError::BadHeader(e.to_string()))?;
    let payload = json::parse(&payload_bytes).map_err(|source| JwsError::BadJson { part: "payload", source })?;
    Ok(Parsed { compact, header, payload, signing_input: &compact[..h.len() + 1 + p.len()], signature })
}

impl<'a> Parsed<'a> {
    /// Refuses a `typ` other than `typ` (§3.4: each object has its own media type).
    pub fn expect_typ(&self, typ: Typ) -> Result<(), JwsError> {
        if self.header.typ != typ.as_str() {
            return Err(JwsError::WrongTyp { expected: typ.as_str(), found: self.header.typ.clone() });
        }
        Ok(())
    }

    /// Checks alg against the key and the signature over `header.payload`.
    pub fn verify_signature(&self, key: &PublicKey) -> Result<(), JwsError> {
        if self.header.alg.eq_ignore_ascii_case("none") {
            return Err(JwsError::AlgNone);
        }
        if self.header.alg != key.alg() {
            return Err(JwsError::AlgMismatch { alg: self.header.alg.clone(), expected: key.alg() });
        }
        let input = self.signing_input.as_bytes();
        match key {
            PublicKey::Ed25519(k) => {
                let sig = ed25519_dalek::Signature::from_slice(&self.signature).map_err(|_| JwsError::BadSignature)?;
                // verify_strict refuses small-order keys and non-canonical S.
                k.verify_strict(input, &sig).map_err(|_| JwsError::BadSignature)
            }
            PublicKey::P256(k) => {
                use p256::ecdsa::signature::Verifier;
                // RFC 7518 §3.4: raw r||s, 64 bytes, not DER.
                let sig = p256::ecdsa::Signature::from_slice(&self.signature).map_err(|_| JwsError::BadSignature)?;
                k.verify(input, &sig).map_err(|_| JwsError::BadSignature)
            }
        }
    }

    /// typ, then signature with `key`.
    pub fn verify(&self, typ: Typ, key: &PublicKey) -> Result<(), JwsError> {
        self.expect_typ(typ)?;
        self.verify_signature(key)
    }

    /// Host-signed objects (§2.1): the header's kid must name exactly one of the
    /// discovery document's keys, which must be Ed25519 (§3.4), and no key from
    /// anywhere else is used.
    pub fn verify_with_discovery_keys(&self, typ: Typ, keys: &[Jwk]) -> Result<(), JwsError> {
        self.expect_typ(typ)?;
        let kid = self.header.kid.as_deref().ok_or(JwsError::MissingKid)?;
        let mut matching = keys.iter().filter(|k| k.kid.as_deref() == Some(kid));
        let jwk = matching.next().ok_or_else(|| JwsError::UnknownKid(kid.to_owned()))?;
        if matching.next().is_some() {
            return Err(JwsError::AmbiguousKid(kid.to_owned()));
        }
        if self.header.jwk.is_some() {
            // A key in the header would be a key from somewhere else (§2.1).
            return Err(JwsError::BadHeader("a host-signed JWS carries no jwk".into()));
        }
        let key = PublicKey::Ed25519(jwk.ed25519_key()?);
        self.verify_signature(&key)
    }

    /// The payload as a typed value.
    pub fn claims<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_value(self.payload.clone())
    }
}

/// Something that holds a private key and signs JWS signing inputs this crate
/// built. There is deliberately no way to pass it arbitrary bytes from outside
/// the crate's own builders at the API edge: the key app has no "sign this
/// hash" call, every signature is over claims it built from verified input.
pub trait Signer {
    /// The public key the signatures verify with; it decides the alg (§3.4).
    fn public_key(&self) -> PublicKey;
    /// Signs the JWS signing input (`header.payload`) with the private key.
    fn sign(&self, signing_input: &[u8]) -> Result<Vec<u8>, JwsError>;
}

impl Signer for ed25519_dalek::SigningKey {
    fn public_key(&self) -> PublicKey {
        PublicKey::Ed25519(self.verifying_key())
    }
    fn sign(&self, signing_input: &[u8]) -> Result<Vec<u8>, JwsError> {
        Ok(ed25519_dalek::Signer::sign(self, signing_input).to_bytes().to_vec())
    }
}

impl Signer for p256::ecdsa::SigningKey {
    fn public_key(&self) -> PublicKey {
        PublicKey::P256(*self.verifying_key())
    }
    fn sign(&self, signing_input: &[u8]) -> Result<Vec<u8>, JwsError> {
        let sig: p256::ecdsa::Signature = p256::ecdsa::signature::Signer::sign(self, signing_input);
        Ok(sig.to_bytes().to_vec())
    }
}

/// What goes into the header besides alg and typ.
#[derive(Debug, Clone, Default)]
pub struct HeaderExtras {
    /// `kid`: which discovery key a host signed with (§2.1).
    pub kid: Option<String>,
    /// `jwk`: the issuer's own key in an SD-JWT issuer JWT (§3.4).
    pub jwk: Option<Jwk>,
}

/// Signs `claims` as a compact JWS of type `typ` with alg taken from the key.
pub fn sign<C: Serialize + ?Sized>(
    typ: Typ,
    extras: HeaderExtras,
    claims: &C,
    signer: &dyn Signer,
) -> Result<String, JwsError> {
    let header = Header {
        alg: signer.public_key().alg().to_owned(),
        typ: typ.as_str().to_owned(),
        kid: extras.kid,
        jwk: extras.jwk,
    };
    let h = b64::encode(serde_json::to_vec(&header).map_err(|e| JwsError::Signing(e.to_string()))?);
    let p = b64::encode(serde_json::to_vec(claims).map_err(|e| JwsError::Signing(e.to_string()))?);
    let input = format!("{h}.{p}");
    let sig = signer.sign(input.as_bytes())?;
    Ok(format!("{input}.{}", b64::encode(sig)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ed_key(seed: u8) -> ed25519_dalek::SigningKey {
        ed25519_dalek::SigningKey::from_bytes(&[seed; 32])
    }

    fn host_keys(sk: &ed25519_dalek::SigningKey, kid: &str) -> Vec<Jwk> {
        let mut j = Jwk::ed25519(&sk.verifying_key());
        j.kid = Some(kid.into());
        j.use_ = Some("sig".into());
        vec![j]
    }

    fn offer_jws(sk: &ed25519_dalek::SigningKey, kid: &str) -> String {
        let extras = HeaderExtras { kid: Some(kid.into()), jwk: None };
        sign(Typ::Offer, extras, &json!({"v": "0.4", "kind": "booking"}), sk).unwrap()
    }

    /// Builds a compact JWS from a raw header and payload, signed by `sk`.
    fn raw(header: &str, payload: &str, sk: &ed25519_dalek::SigningKey) -> String {
        let input = format!("{}.{}", b64::encode(header), b64::encode(payload));
        let sig = Signer::sign(sk, input.as_bytes()).unwrap();
        format!("{input}.{}", b64::encode(sig))
    }

    #[test]
    fn rfc8037_a4_vector_verifies() {
        let jwk: Jwk = serde_json::from_value(
            json!({"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}),
        )
        .unwrap();
        let jws = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg";
        // The RFC's payload is not JSON, so check the signature primitive directly.
        let (input, sig) = jws.rsplit_once('.').unwrap();
        let sig = ed25519_dalek::Signature::from_slice(&b64::decode(sig).unwrap()).unwrap();
        jwk.ed25519_key().unwrap().verify_strict(input.as_bytes(), &sig).unwrap();
        // And our signer reproduces it (Ed25519 is deterministic).
        let d: [u8; 32] = b64::decode("nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A").unwrap().try_into().unwrap();
        let sk = ed25519_dalek::SigningKey::from_bytes(&d);
        assert_eq!(b64::encode(Signer::sign(&sk, input.as_bytes()).unwrap()), jws.rsplit_once('.').unwrap().1);
    }

    #[test]
    fn sign_then_verify_by_kid() {
        let sk = ed_key(1);
        let jws = offer_jws(&sk, "k1");
        let parsed = parse(&jws).unwrap();
        parsed.verify_with_discovery_keys(Typ::Offer, &host_keys(&sk, "k1")).unwrap();
        assert_eq!(parsed.payload["kind"], "booking");
    }

    #[test]
    fn unknown_and_missing_kid_are_refused() {
        let sk = ed_key(1);
        let jws = offer_jws(&sk, "k2");
        let err = parse(&jws).unwrap().verify_with_discovery_keys(Typ::Offer, &host_keys(&sk, "k1"));
        assert_eq!(err, Err(JwsError::UnknownKid("k2".into())));
        let no_kid = sign(Typ::Offer, HeaderExtras::default(), &json!({}), &sk).unwrap();
        let err = parse(&no_kid).unwrap().verify_with_discovery_keys(Typ::Offer, &host_keys(&sk, "k1"));
        assert_eq!(err, Err(JwsError::MissingKid));
    }

    #[test]
    fn duplicate_kid_in_discovery_is_refused() {
        let sk = ed_key(1);
        let mut keys = host_keys(&sk, "k1");
        keys.extend(host_keys(&ed_key(2), "k1"));
        let err = parse(&offer_jws(&sk, "k1")).unwrap().verify_with_discovery_keys(Typ::Offer, &keys);
        assert_eq!(err, Err(JwsError::AmbiguousKid("k1".into())));
    }

    #[test]
    fn another_keys_signature_is_refused() {
        let jws = offer_jws(&ed_key(9), "k1");
        let err = parse(&jws).unwrap().verify_with_discovery_keys(Typ::Offer, &host_keys(&ed_key(1), "k1"));
        assert_eq!(err, Err(JwsError::BadSignature));
    }

    #[test]
    fn tampered_payload_is_refused() {
        let sk = ed_key(1);
        let jws = offer_jws(&sk, "k1");
        let mut parts: Vec<&str> = jws.split('.').collect();
        let forged = b64::encode(r#"{"v":"0.4","kind":"change"}"#);
        parts[1] = &forged;
        let forged = parts.join(".");
        let err = parse(&forged).unwrap().verify_with_discovery_keys(Typ::Offer, &host_keys(&sk, "k1"));
        assert_eq!(err, Err(JwsError::BadSignature));
    }

    #[test]
    fn alg_none_and_mismatch_are_refused() {
        let sk = ed_key(1);
        let none = raw(r#"{"alg":"none","typ":"schcp-offer+jwt","kid":"k1"}"#, "{}", &sk);
        assert_eq!(
            parse(&none).unwrap().verify_with_discovery_keys(Typ::Offer, &host_keys(&sk, "k1")),
            Err(JwsError::AlgNone)
        );
        let es = raw(r#"{"alg":"ES256","typ":"schcp-offer+jwt","kid":"k1"}"#, "{}", &sk);
        assert!(matches!(
            parse(&es).unwrap().verify_with_discovery_keys(Typ::Offer, &host_keys(&sk, "k1")),
            Err(JwsError::AlgMismatch { .. })
        ));
        // An unsigned JWS with an empty signature part is still refused.
        let unsigned = format!("{}.{}.", b64::encode(r#"{"alg":"none","typ":"schcp-offer+jwt"}"#), b64::encode("{}"));
        assert_eq!(parse(&unsigned).unwrap().verify(Typ::Offer, &sk.public_key()), Err(JwsError::AlgNone));
    }

    #[test]
    fn wrong_typ_is_refused() {
        let sk = ed_key(1);
        let jws = offer_jws(&sk, "k1");
        let err = parse(&jws).unwrap().verify_with_discovery_keys(Typ::Receipt, &host_keys(&sk, "k1"));
        assert!(matches!(err, Err(JwsError::WrongTyp { expected: "schcp-receipt+jwt", .. })));
    }

    #[test]
    fn host_jws_must_be_ed25519() {
        let ec = p256::ecdsa::SigningKey::from_slice(&[3u8; 32]).unwrap();
        let mut jwk = Jwk::p256(ec.verifying_key());
        jwk.kid = Some("k1".into());
        let jws = sign(Typ::Offer, HeaderExtras { kid: Some("k1".into()), jwk: None }, &json!({}), &ec).unwrap();
        let err = parse(&jws).unwrap().verify_with_discovery_keys(Typ::Offer, &[jwk]);
        assert_eq!(err, Err(JwsError::BadKey(JwkError::NotEd25519)));
    }

    #[test]
    fn es256_round_trip_with_raw_signature() {
        let ec = p256::ecdsa::SigningKey::from_slice(&[3u8; 32]).unwrap();
        let jws = sign(Typ::SdJwt, HeaderExtras::default(), &json!({"a": 1}), &ec).unwrap();
        let parsed = parse(&jws).unwrap();
        assert_eq!(parsed.header.alg, "ES256");
        assert_eq!(b64::decode(jws.rsplit('.').next().unwrap()).unwrap().len(), 64);
        parsed.verify(Typ::SdJwt, &ec.public_key()).unwrap();
        // An Ed25519 key cannot verify an ES256 JWS: alg follows from the key.
        assert!(matches!(parsed.verify(Typ::SdJwt, &ed_key(1).public_key()), Err(JwsError::AlgMismatch { .. })));
    }

    #[test]
    fn malformed_compact_forms_are_refused() {
        let sk = ed_key(1);
        let jws = offer_jws(&sk, "k1");
        assert!(matches!(parse("a.b"), Err(JwsError::NotCompact)));
        assert!(matches!(parse(&format!("{jws}.x")), Err(JwsError::NotCompact)));
        assert!(matches!(parse(&format!("{jws}=")), Err(JwsError::BadBase64 { part: "signature" })));
        assert!(matches!(parse(&jws.replacen('.', " .", 1)), Err(JwsError::BadBase64 { part: "header" })));
    }

    #[test]
    fn duplicate_members_in_header_or_payload_are_refused() {
        let sk = ed_key(1);
        let dup_h = raw(r#"{"alg":"EdDSA","typ":"schcp-offer+jwt","typ":"schcp-mandate+jwt"}"#, "{}", &sk);
        assert!(matches!(parse(&dup_h), Err(JwsError::BadJson { part: "header", .. })));
        let dup_p = raw(r#"{"alg":"EdDSA","typ":"schcp-offer+jwt"}"#, r#"{"a":1,"a":2}"#, &sk);
        assert!(matches!(parse(&dup_p), Err(JwsError::BadJson { part: "payload", .. })));
    }

    #[test]
    fn unknown_header_members_are_refused() {
        let sk = ed_key(1);
        let crit = raw(r#"{"alg":"EdDSA","typ":"schcp-offer+jwt","crit":["b64"],"b64":false}"#, "{}", &sk);
        assert!(matches!(parse(&crit), Err(JwsError::BadHeader(_))));
    }
}
