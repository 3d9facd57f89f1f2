//! SD-JWT building blocks for the AP2 profile's mandates (§3.4, RFC 9901):
//! disclosures, digests, decoys, array-element disclosures, and verification of a
//! presentation with its Key Binding JWT.
//!
//! The mandate-specific rules (which members may be disclosable, the evaluated
//! mandate a host checks) live in `verify::sd_jwt_mandate`; this module is the
//! envelope only.

use crate::jwk::{Jwk, PublicKey};
use crate::jws::{self, HeaderExtras, JwsError, Signer, Typ};
use crate::{b64, hash, json};
use rand_core::CryptoRngCore;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// The only `_sd_alg` SchCP uses.
pub const SD_ALG: &str = "sha-256";
/// Key binding freshness (§3.4): a KB-JWT is at most 300 s old…
pub const KB_MAX_AGE: i64 = 300;
/// …and at most 60 s ahead of the verifier's clock (§3.4).
pub const KB_MAX_AHEAD: i64 = 60;

/// Why an SD-JWT VC presentation is refused (§3.4, RFC 9901).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SdJwtError {
    /// Not `<issuer JWT>~<disclosures>~<KB-JWT>`; says which part.
    #[error("not an SD-JWT presentation: {0}")]
    Malformed(&'static str),
    /// The issuer JWT fails as a JWS.
    #[error("issuer JWT: {0}")]
    Issuer(JwsError),
    /// The issuer JWT header has no `jwk`.
    #[error("the issuer JWT header carries no jwk (§3.4)")]
    MissingIssuerKey,
    /// `iss` is not the principal of the header `jwk` (self-certifying issuer, §3.4).
    #[error("iss is not the principal of the header jwk (§3.4: self-certifying)")]
    IssuerMismatch,
    /// `_sd_alg` is not `sha-256`.
    #[error("_sd_alg must be \"sha-256\"")]
    UnsupportedSdAlg,
    /// The disclosure at this index is malformed.
    #[error("disclosure {0} is malformed")]
    BadDisclosure(usize),
    /// A disclosure names `_sd`, `...` or another reserved claim name.
    #[error("a disclosure may not name the claim {0:?}")]
    ReservedClaimName(String),
    /// The same disclosure is presented twice.
    #[error("the same disclosure is presented twice")]
    RepeatedDisclosure,
    /// A digest appears more than once in the payload.
    #[error("digest appears more than once in the payload")]
    RepeatedDigest,
    /// An object-member disclosure sits in an array, or an element disclosure in an object.
    #[error("a disclosure is in the wrong position (object member vs array element)")]
    MisplacedDisclosure,
    /// A disclosed claim name already exists in its object.
    #[error("disclosed claim {0:?} already exists in its object")]
    DuplicateClaimName(String),
    /// A presented disclosure is not referenced by any digest.
    #[error("a disclosure is not referenced by the payload")]
    UnreferencedDisclosure,
    /// `_sd` is not an array of digest strings.
    #[error("_sd must be an array of digest strings")]
    BadSdArray,
    /// The presentation ends without a Key Binding JWT.
    #[error("the presentation has no Key Binding JWT (§3.4: every presentation ends in one)")]
    MissingKeyBinding,
    /// The credential has no usable `cnf.jwk`.
    #[error("the credential has no usable cnf.jwk")]
    MissingCnf,
    /// The Key Binding JWT fails as a JWS (typ, alg or signature by `cnf.jwk`).
    #[error("Key Binding JWT: {0}")]
    KeyBinding(JwsError),
    /// The Key Binding JWT's claims are not [`KbClaims`].
    #[error("Key Binding JWT claims are malformed: {0}")]
    KeyBindingClaims(String),
    /// The Key Binding JWT is for another host.
    #[error("Key Binding JWT aud {found:?} is not this host ({expected:?})")]
    KeyBindingAudience {
        /// This host's id.
        expected: String,
        /// The aud the KB-JWT names.
        found: String,
    },
    /// The Key Binding JWT's iat is older than [`KB_MAX_AGE`] or further ahead than [`KB_MAX_AHEAD`].
    #[error("Key Binding JWT iat is outside the window (older than 300 s or more than 60 s ahead)")]
    KeyBindingStale,
    /// `sd_hash` is not the hash of the presented prefix.
    #[error("Key Binding JWT sd_hash does not match the presentation")]
    SdHashMismatch,
}

/// One disclosure: `[salt, name, value]` for an object member or `[salt, value]`
/// for an array element (RFC 9901 §4.2).
#[derive(Debug, Clone, PartialEq)]
pub struct Disclosure {
    /// The base64url disclosure as presented.
    pub encoded: String,
    /// Its digest, as the payload references it.
    pub digest: String,
    /// The member name, for an object member; `None` for an array element.
    pub name: Option<String>,
    /// The disclosed value.
    pub value: Value,
}

fn salt(rng: &mut dyn CryptoRngCore) -> String {
    let mut bytes = [0u8; 16];
    rng.fill_bytes(&mut bytes);
    b64::encode(bytes)
}

impl Disclosure {
    /// A fresh object-member disclosure `[salt, name, value]` with a 128-bit salt from `rng`.
    pub fn member(rng: &mut dyn CryptoRngCore, name: &str, value: Value) -> Disclosure {
        let array = Value::Array(vec![Value::String(salt(rng)), Value::String(name.to_owned()), value.clone()]);
        Disclosure::from_array(&array, Some(name.to_owned()), value)
    }

    /// A fresh array-element disclosure `[salt, value]` with a 128-bit salt from `rng`.
    pub fn element(rng: &mut dyn CryptoRngCore, value: Value) -> Disclosure {
        let array = Value::Array(vec![Value::String(salt(rng)), value.clone()]);
        Disclosure::from_array(&array, None, value)
    }

    fn from_array(array: &Value, name: Option<String>, value: Value) -> Disclosure {
        let encoded = b64::encode(serde_json::to_vec(array).expect("JSON values serialize"));
        let digest = hash::sha256_b64(encoded.as_bytes());
        Disclosure { encoded, digest, name, value }
    }

    /// Decodes a presented disclosure; `index` only labels the error.
    pub fn parse(encoded: &str, index: usize) -> Result<Disclosure, SdJwtError> {
        let bad = || SdJwtError::BadDisclosure(index);
        let bytes = b64::decode(encoded).map_err(|_| bad())?;
        let value = json::parse(&bytes).map_err(|_| bad())?;
        let items = value.as_array().ok_or_else(bad)?;
        let (name, value) = match items.as_slice() {
            [Value::String(_), Value::String(name), v] => {
                if name == "_sd" || name == "..." {
                    return Err(SdJwtError::ReservedClaimName(name.clone()));
                }
                (Some(name.clone()), v.clone())
            }
            [Value::String(_), v] => (None, v.clone()),
            _ => return Err(bad()),
        };
        Ok(Disclosure { encoded: encoded.to_owned(), digest: hash::sha256_b64(encoded.as_bytes()), name, value })
    }
}

/// A decoy digest (RFC 9901 §4.2.5): indistinguishable from a real one.
pub fn decoy_digest(rng: &mut dyn CryptoRngCore) -> String {
    hash::sha256_b64(salt(rng).as_bytes())
}

/// The placeholder for a disclosable array element: `{"...": digest}`.
pub fn array_placeholder(digest: &str) -> Value {
    let mut m = Map::new();
    m.insert("...".into(), Value::String(digest.to_owned()));
    Value::Object(m)
}

/// Signs the issuer JWT (header typ dc+sd-jwt, alg per key, jwk = the principal's).
pub fn sign_issuer_jwt(claims: &Value, signer: &dyn Signer) -> Result<String, JwsError> {
    let extras = HeaderExtras { kid: None, jwk: Some(signer.public_key().to_jwk()) };
    jws::sign(Typ::SdJwt, extras, claims, signer)
}

/// `<issuer JWT>~<d1>~…~<dn>~`, the part a KB-JWT's sd_hash covers.
pub fn presentation_prefix<'a>(issuer_jwt: &str, disclosures: impl IntoIterator<Item = &'a str>) -> String {
    let mut s = String::from(issuer_jwt);
    s.push('~');
    for d in disclosures {
        s.push_str(d);
        s.push('~');
    }
    s
}

/// Claims of a Key Binding JWT (§3.4, RFC 9901 §4.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KbClaims {
    /// The host the presentation is for.
    pub aud: String,
    /// A fresh nonce chosen by the holder.
    pub nonce: String,
    /// When it was made ([`KB_MAX_AGE`], [`KB_MAX_AHEAD`]).
    pub iat: i64,
    /// SHA-256 of the presentation prefix it binds, base64url.
    pub sd_hash: String,
}

/// The holder's Key Binding JWT over a presentation prefix.
pub fn key_binding_jwt(
    prefix: &str,
    aud: &str,
    nonce: &str,
    iat: i64,
    holder: &dyn Signer,
) -> Result<String, JwsError> {
    let claims = KbClaims { aud: aud.into(), nonce: nonce.into(), iat, sd_hash: hash::sha256_b64(prefix) };
    jws::sign(Typ::KbJwt, HeaderExtras::default(), &claims, holder)
}

/// A verified presentation: the issuer's key, the payload with the presented
/// disclosures applied (no `_sd`, `_sd_alg` or undisclosed elements), and the KB claims.
#[derive(Debug, Clone)]
pub struct VerifiedPresentation {
    /// The issuer's key from the issuer JWT header; its principal is `iss`.
    pub issuer_jwk: Jwk,
    /// The claims with the presented disclosures applied.
    pub claims: Value,
    /// The verified Key Binding JWT's claims.
    pub key_binding: KbClaims,
    /// The holder key (`cnf.jwk`) the KB-JWT is signed with.
    pub holder_key: PublicKey,
}

/// RFC 9901 §7.1 and §7.3 with SchCP's rules (§3.4): self-certifying issuer,
/// sha-256 only, a KB-JWT always, aud = `audience`, iat window, sd_hash.
// Long by design: RFC 9901 §7.1 and §7.3's checks in their order, each its own error.
pub fn verify_presentation(presentation: &str, audience: &str, now: i64) -> Result<VerifiedPresentation, SdJwtError> {
    let (prefix, kb) = match presentation.rfind('~') {
        Some(i) => (&presentation[..=i], &presentation[i + 1..]),
        None => return Err(SdJwtError::Malformed("no '~' separator")),
    };
    if kb.is_empty() {
        return Err(SdJwtError::MissingKeyBinding);
    }
    let mut parts = prefix[..prefix.len() - 1].split('~');
    let issuer_jwt = parts.next().ok_or(SdJwtError::Malformed("empty"))?;
    let encoded: Vec<&str> = parts.collect();
    if encoded.iter().any(|d| d.is_empty()) {
        return Err(SdJwtError::Malformed("empty disclosure"));
    }

    let parsed = jws::parse(issuer_jwt).map_err(SdJwtError::Issuer)?;
    parsed.expect_typ(Typ::SdJwt).map_err(SdJwtError::Issuer)?;
    let issuer_jwk = parsed.header.jwk.clone().ok_or(SdJwtError::MissingIssuerKey)?;
    let issuer_key = issuer_jwk.public_key().map_err(|e| SdJwtError::Issuer(e.into()))?;
    parsed.verify_signature(&issuer_key).map_err(SdJwtError::Issuer)?;
    let principal = issuer_jwk.principal_id().map_err(|e| SdJwtError::Issuer(e.into()))?;
    if parsed.payload.get("iss").and_then(Value::as_str) != Some(principal.as_str()) {
        return Err(SdJwtError::IssuerMismatch);
    }

    let mut claims = parsed.payload.clone();
    let obj = claims.as_object_mut().ok_or(SdJwtError::Malformed("payload is not an object"))?;
    if obj.remove("_sd_alg").and_then(|v| v.as_str().map(str::to_owned)).as_deref() != Some(SD_ALG) {
        return Err(SdJwtError::UnsupportedSdAlg);
    }
    let mut by_digest = HashMap::new();
    for (i, e) in encoded.iter().enumerate() {
        let d = Disclosure::parse(e, i)?;
        if by_digest.insert(d.digest.clone(), d).is_some() {
            return Err(SdJwtError::RepeatedDisclosure);
        }
    }
    let mut seen = HashSet::new();
    let mut used = HashSet::new();
    apply_disclosures(&mut claims, &by_digest, &mut seen, &mut used)?;
    if used.len() != by_digest.len() {
        return Err(SdJwtError::UnreferencedDisclosure);
    }

    let holder_jwk: Jwk = claims
        .pointer("/cnf/jwk")
        .cloned()
        .and_then(|v| serde_json::from_value(v).ok())
        .ok_or(SdJwtError::MissingCnf)?;
    let holder_key = holder_jwk.public_key().map_err(|_| SdJwtError::MissingCnf)?;
    let kb_parsed = jws::parse(kb).map_err(SdJwtError::KeyBinding)?;
    kb_parsed.verify(Typ::KbJwt, &holder_key).map_err(SdJwtError::KeyBinding)?;
    let key_binding: KbClaims = kb_parsed.claims().map_err(|e| SdJwtError::KeyBindingClaims(e.to_string()))?;
    if key_binding.aud != audience {
        return Err(SdJwtError::KeyBindingAudience { expected: audience.into(), found: key_binding.aud });
    }
    if key_binding.iat < now - KB_MAX_AGE || key_binding.iat > now + KB_MAX_AHEAD {
        return Err(SdJwtError::KeyBindingStale);
    }
    if key_binding.sd_hash != hash::sha256_b64(prefix) {
        return Err(SdJwtError::SdHashMismatch);
    }
    Ok(VerifiedPresentation { issuer_jwk, claims, key_binding, holder_key })
}

/// Replaces digests by disclosed values, depth first, refusing every
/// ambiguity RFC 9901 §7.1 names.
// Long by design: one recursive walk refusing each RFC 9901 §7.1 ambiguity where met.
fn apply_disclosures(
    value: &mut Value,
    by_digest: &HashMap<String, Disclosure>,
    seen: &mut HashSet<String>,
    used: &mut HashSet<String>,
) -> Result<(), SdJwtError> {
    match value {
        Value::Object(obj) => {
            let digests = match obj.remove("_sd") {
                None => Vec::new(),
                Some(Value::Array(items)) => items
                    .into_iter()
                    .map(|v| match v {
                        Value::String(s) => Ok(s),
                        _ => Err(SdJwtError::BadSdArray),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
                Some(_) => return Err(SdJwtError::BadSdArray),
            };
            for member in obj.values_mut() {
                apply_disclosures(member, by_digest, seen, used)?;
            }
            for digest in digests {
                if !seen.insert(digest.clone()) {
                    return Err(SdJwtError::RepeatedDigest);
                }
                let Some(d) = by_digest.get(&digest) else { continue };
                let name = d.name.as_ref().ok_or(SdJwtError::MisplacedDisclosure)?;
                if obj.contains_key(name) {
                    return Err(SdJwtError::DuplicateClaimName(name.clone()));
                }
                used.insert(digest);
                let mut v = d.value.clone();
                apply_disclosures(&mut v, by_digest, seen, used)?;
                obj.insert(name.clone(), v);
            }
        }
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for mut item in std::mem::take(items) {
                let placeholder = match &item {
                    Value::Object(o) if o.len() == 1 && o.contains_key("...") => {
                        Some(o["..."].as_str().ok_or(SdJwtError::BadSdArray)?.to_owned())
                    }
                    _ => None,
                };
                match placeholder {
                    Some(digest) => {
                        if !seen.insert(digest.clone()) {
                            return Err(SdJwtError::RepeatedDigest);
                        }
                        let Some(d) = by_digest.get(&digest) else { continue };
                        if d.name.is_some() {
                            return Err(SdJwtError::MisplacedDisclosure);
                        }
                        used.insert(digest);
                        let mut v = d.value.clone();
                        apply_disclosures(&mut v, by_digest, seen, used)?;
                        out.push(v);
                    }
                    None => {
                        apply_disclosures(&mut item, by_digest, seen, used)?;
                        out.push(item);
                    }
                }
            }
            *items = out;
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::OsRng;
    use serde_json::json;

    struct Fixture {
        principal: ed25519_dalek::SigningKey,
        agent: ed25519_dalek::SigningKey,
        aud: Vec<Disclosure>,
        hc: Vec<Disclosure>,
        jwt: String,
    }

    /// Two hosts' aud elements and host_constraints members, with decoys.
    fn fixture() -> Fixture {
        let mut rng = OsRng;
        let principal = ed25519_dalek::SigningKey::from_bytes(&[5; 32]);
        let agent = ed25519_dalek::SigningKey::from_bytes(&[6; 32]);
        let aud: Vec<Disclosure> =
            ["garage-a", "garage-b"].iter().map(|h| Disclosure::element(&mut rng, json!(h))).collect();
        let hc = vec![
            Disclosure::member(&mut rng, "garage-a", json!({"services": ["oil-change"]})),
            Disclosure::member(&mut rng, "garage-b", json!({})),
        ];
        let mut aud_vals: Vec<Value> = aud.iter().map(|d| array_placeholder(&d.digest)).collect();
        aud_vals.push(array_placeholder(&decoy_digest(&mut rng)));
        let mut sd: Vec<String> = hc.iter().map(|d| d.digest.clone()).collect();
        sd.push(decoy_digest(&mut rng));
        sd.sort();
        let iss = Jwk::ed25519(&principal.verifying_key()).principal_id().unwrap();
        let claims = json!({
            "iss": iss, "aud": aud_vals, "host_constraints": {"_sd": sd},
            "cnf": {"jwk": Jwk::ed25519(&agent.verifying_key())}, "_sd_alg": "sha-256"
        });
        let jwt = sign_issuer_jwt(&claims, &principal).unwrap();
        Fixture { principal, agent, aud, hc, jwt }
    }

    fn present(f: &Fixture, disclosures: &[&Disclosure], aud: &str, iat: i64) -> String {
        let prefix = presentation_prefix(&f.jwt, disclosures.iter().map(|d| d.encoded.as_str()));
        let kb = key_binding_jwt(&prefix, aud, "n-1234567890abcdef", iat, &f.agent).unwrap();
        format!("{prefix}{kb}")
    }

    #[test]
    fn host_sees_only_its_own_elements() {
        let f = fixture();
        let p = present(&f, &[&f.aud[0], &f.hc[0]], "garage-a", 1000);
        let v = verify_presentation(&p, "garage-a", 1000).unwrap();
        assert_eq!(v.claims["aud"], json!(["garage-a"]));
        assert_eq!(v.claims["host_constraints"], json!({"garage-a": {"services": ["oil-change"]}}));
        assert!(v.claims.get("_sd_alg").is_none());
        assert_eq!(v.key_binding.aud, "garage-a");
    }

    #[test]
    fn kb_jwt_is_required() {
        let f = fixture();
        let prefix = presentation_prefix(&f.jwt, [f.aud[0].encoded.as_str()]);
        assert_eq!(verify_presentation(&prefix, "garage-a", 1000).unwrap_err(), SdJwtError::MissingKeyBinding);
        assert!(matches!(verify_presentation(&f.jwt, "garage-a", 1000), Err(SdJwtError::Malformed(_))));
    }

    #[test]
    fn kb_audience_window_and_hash() {
        let f = fixture();
        let p = present(&f, &[&f.aud[0]], "garage-b", 1000);
        assert!(matches!(verify_presentation(&p, "garage-a", 1000), Err(SdJwtError::KeyBindingAudience { .. })));
        let p = present(&f, &[&f.aud[0]], "garage-a", 1000);
        assert!(verify_presentation(&p, "garage-a", 1300).is_ok(), "exactly 300 s old is accepted");
        assert_eq!(verify_presentation(&p, "garage-a", 1301).unwrap_err(), SdJwtError::KeyBindingStale);
        assert!(verify_presentation(&p, "garage-a", 940).is_ok(), "60 s ahead is accepted");
        assert_eq!(verify_presentation(&p, "garage-a", 939).unwrap_err(), SdJwtError::KeyBindingStale);
        // A KB-JWT made for one set of disclosures does not cover another.
        let kb = p.rsplit('~').next().unwrap();
        let swapped = format!("{}{kb}", presentation_prefix(&f.jwt, [f.aud[1].encoded.as_str()]));
        assert_eq!(verify_presentation(&swapped, "garage-a", 1000).unwrap_err(), SdJwtError::SdHashMismatch);
    }

    #[test]
    fn kb_signed_by_another_key_is_refused() {
        let f = fixture();
        let prefix = presentation_prefix(&f.jwt, [f.aud[0].encoded.as_str()]);
        let thief = ed25519_dalek::SigningKey::from_bytes(&[9; 32]);
        let kb = key_binding_jwt(&prefix, "garage-a", "n", 1000, &thief).unwrap();
        assert!(matches!(
            verify_presentation(&format!("{prefix}{kb}"), "garage-a", 1000),
            Err(SdJwtError::KeyBinding(JwsError::BadSignature))
        ));
    }

    #[test]
    fn repeated_unreferenced_and_misplaced_disclosures_are_refused() {
        let f = fixture();
        let p = present(&f, &[&f.aud[0], &f.aud[0]], "garage-a", 1000);
        assert_eq!(verify_presentation(&p, "garage-a", 1000).unwrap_err(), SdJwtError::RepeatedDisclosure);
        let stranger = Disclosure::member(&mut OsRng, "garage-z", json!({}));
        let p = present(&f, &[&f.aud[0], &stranger], "garage-a", 1000);
        assert_eq!(verify_presentation(&p, "garage-a", 1000).unwrap_err(), SdJwtError::UnreferencedDisclosure);
        // A member disclosure whose digest sits in an array slot is misplaced.
        let mut rng = OsRng;
        let member = Disclosure::member(&mut rng, "x", json!(1));
        let iss = Jwk::ed25519(&f.principal.verifying_key()).principal_id().unwrap();
        let claims = json!({"iss": iss, "aud": [array_placeholder(&member.digest)],
            "cnf": {"jwk": Jwk::ed25519(&f.agent.verifying_key())}, "_sd_alg": "sha-256"});
        let g = Fixture { jwt: sign_issuer_jwt(&claims, &f.principal).unwrap(), ..fixture() };
        let p = present(&g, &[&member], "garage-a", 1000);
        assert_eq!(verify_presentation(&p, "garage-a", 1000).unwrap_err(), SdJwtError::MisplacedDisclosure);
    }

    #[test]
    fn disclosed_name_clashing_with_a_plain_member_is_refused() {
        let f = fixture();
        let mut rng = OsRng;
        let d = Disclosure::member(&mut rng, "iss", json!("urn:evil"));
        let iss = Jwk::ed25519(&f.principal.verifying_key()).principal_id().unwrap();
        let claims = json!({"iss": iss, "_sd": [d.digest],
            "cnf": {"jwk": Jwk::ed25519(&f.agent.verifying_key())}, "_sd_alg": "sha-256"});
        let g = Fixture { jwt: sign_issuer_jwt(&claims, &f.principal).unwrap(), ..fixture() };
        let p = present(&g, &[&d], "garage-a", 1000);
        assert_eq!(
            verify_presentation(&p, "garage-a", 1000).unwrap_err(),
            SdJwtError::DuplicateClaimName("iss".into())
        );
    }

    #[test]
    fn repeated_digest_in_payload_is_refused() {
        let f = fixture();
        let mut rng = OsRng;
        let d = Disclosure::element(&mut rng, json!("garage-a"));
        let iss = Jwk::ed25519(&f.principal.verifying_key()).principal_id().unwrap();
        let claims = json!({"iss": iss, "aud": [array_placeholder(&d.digest), array_placeholder(&d.digest)],
            "cnf": {"jwk": Jwk::ed25519(&f.agent.verifying_key())}, "_sd_alg": "sha-256"});
        let g = Fixture { jwt: sign_issuer_jwt(&claims, &f.principal).unwrap(), ..fixture() };
        let p = present(&g, &[&d], "garage-a", 1000);
        assert_eq!(verify_presentation(&p, "garage-a", 1000).unwrap_err(), SdJwtError::RepeatedDigest);
    }

    #[test]
    fn issuer_must_be_self_certifying_and_sd_alg_sha256() {
        let f = fixture();
        let claims = json!({"iss": "urn:schcp:principal:jwk-thumbprint:someone-else", "_sd_alg": "sha-256",
            "cnf": {"jwk": Jwk::ed25519(&f.agent.verifying_key())}});
        let g = Fixture { jwt: sign_issuer_jwt(&claims, &f.principal).unwrap(), ..fixture() };
        assert_eq!(
            verify_presentation(&present(&g, &[], "a", 1000), "a", 1000).unwrap_err(),
            SdJwtError::IssuerMismatch
        );
        let iss = Jwk::ed25519(&f.principal.verifying_key()).principal_id().unwrap();
        let claims = json!({"iss": iss, "_sd_alg": "sha-512", "cnf": {"jwk": Jwk::ed25519(&f.agent.verifying_key())}});
        let g = Fixture { jwt: sign_issuer_jwt(&claims, &f.principal).unwrap(), ..fixture() };
        assert_eq!(
            verify_presentation(&present(&g, &[], "a", 1000), "a", 1000).unwrap_err(),
            SdJwtError::UnsupportedSdAlg
        );
    }

    #[test]
    fn p256_issuer_works_in_this_profile() {
        let ec = p256::ecdsa::SigningKey::from_slice(&[8u8; 32]).unwrap();
        let agent = ed25519_dalek::SigningKey::from_bytes(&[6; 32]);
        let iss = Jwk::p256(ec.verifying_key()).principal_id().unwrap();
        let claims = json!({"iss": iss, "_sd_alg": "sha-256", "cnf": {"jwk": Jwk::ed25519(&agent.verifying_key())}});
        let jwt = sign_issuer_jwt(&claims, &ec).unwrap();
        let prefix = presentation_prefix(&jwt, []);
        let kb = key_binding_jwt(&prefix, "a", "n", 10, &agent).unwrap();
        assert!(verify_presentation(&format!("{prefix}{kb}"), "a", 10).is_ok());
    }

    #[test]
    fn garbage_disclosures_are_refused() {
        let f = fixture();
        for junk in ["!!", "WyJhIl0", "e30", "WzEsMiwzXQ"] {
            // not base64 / ["a"] / {} / [1,2,3]
            let prefix = format!("{}~{junk}~", f.jwt);
            let kb = key_binding_jwt(&prefix, "garage-a", "n", 1000, &f.agent).unwrap();
            assert!(verify_presentation(&format!("{prefix}{kb}"), "garage-a", 1000).is_err(), "{junk}");
        }
        let reserved = b64::encode(r#"["salt","_sd",1]"#);
        assert_eq!(Disclosure::parse(&reserved, 0).unwrap_err(), SdJwtError::ReservedClaimName("_sd".into()));
    }
}
