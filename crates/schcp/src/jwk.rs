//! Public JWKs: Ed25519 (OKP) everywhere, P-256 (EC) in the SD-JWT profile only
//! (§3.2, §3.4), and RFC 7638 thumbprints.

use crate::b64;
use ed25519_dalek::VerifyingKey as Ed25519Key;
use p256::ecdsa::VerifyingKey as P256Key;
use serde::{Deserialize, Serialize};

/// The id prefix of a self-certifying principal (§3.3 check 1).
pub const PRINCIPAL_PREFIX: &str = "urn:schcp:principal:jwk-thumbprint:";

/// A public JWK as SchCP carries it. `deny_unknown_fields` is what refuses a
/// private `d` (§3.2: "a private d, above all, is refused") and any other
/// member the spec does not allow.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Jwk {
    /// Key type: `OKP` (Ed25519) or `EC` (P-256, SD-JWT profile only, §3.4).
    pub kty: String,
    /// Curve: `Ed25519` or `P-256`.
    pub crv: String,
    /// The public key (Ed25519) or its x coordinate (P-256), base64url.
    pub x: String,
    /// The y coordinate of a P-256 key, base64url; never on an OKP key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub y: Option<String>,
    /// Key id; in a discovery document, what a host JWS's `kid` names (§2.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kid: Option<String>,
    /// `use`, which must be `sig` when present.
    #[serde(rename = "use", skip_serializing_if = "Option::is_none")]
    pub use_: Option<String>,
    /// `alg`, which must be the key's own (`EdDSA` or `ES256`) when present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alg: Option<String>,
}

/// Why a JWK is unusable (§3.2, §3.4).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JwkError {
    /// A key type or curve SchCP does not use.
    #[error("unsupported key type kty={kty:?} crv={crv:?}: SchCP uses OKP/Ed25519 and, in the SD-JWT profile, EC/P-256 (§3.4)")]
    Unsupported {
        /// The key type (`kty`) as found.
        kty: String,
        /// The curve (`crv`) as found.
        crv: String,
    },
    /// This coordinate is not base64url of the curve's length.
    #[error("JWK member {0:?} is not base64url of the right length")]
    BadCoordinate(&'static str),
    /// The coordinates are not a point on the curve.
    #[error("not a valid point on the curve")]
    InvalidPoint,
    /// An OKP key carries a `y`.
    #[error("an OKP key has no \"y\"")]
    UnexpectedY,
    /// `use` is present and not `sig`.
    #[error("JWK \"use\" must be \"sig\"")]
    BadUse,
    /// `alg` is present and not the key's own.
    #[error("JWK \"alg\" {0:?} does not match the key")]
    AlgMismatch(String),
    /// A P-256 key where only Ed25519 is allowed (everything but SD-JWT mandates, §3.4).
    #[error("the key must be Ed25519 here (§3.4: everything but SD-JWT mandates is Ed25519-only)")]
    NotEd25519,
    /// An agent key (`Schcp-Agent-Key`, §3.2) carries a member besides kty, crv, x and kid.
    #[error("an agent key carries only kty, crv, x and optionally kid (§3.2)")]
    ExtraMember,
    /// Not a JWK object; the parser's words.
    #[error("malformed JWK: {0}")]
    Malformed(String),
}

/// A verified public key: its coordinates decoded and on the curve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PublicKey {
    /// An Ed25519 key (`EdDSA`): every SchCP signature but the SD-JWT profile's.
    Ed25519(Ed25519Key),
    /// A P-256 key (`ES256`): SD-JWT VC mandates only (§3.4).
    P256(P256Key),
}

impl PublicKey {
    /// The JWS alg that follows from the key (§3.4: never negotiated).
    pub fn alg(&self) -> &'static str {
        match self {
            PublicKey::Ed25519(_) => "EdDSA",
            PublicKey::P256(_) => "ES256",
        }
    }

    /// The key's public JWK, with kty, crv and coordinates only.
    pub fn to_jwk(&self) -> Jwk {
        match self {
            PublicKey::Ed25519(k) => Jwk::ed25519(k),
            PublicKey::P256(k) => Jwk::p256(k),
        }
    }
}

impl Jwk {
    /// The public JWK of an Ed25519 key.
    pub fn ed25519(key: &Ed25519Key) -> Jwk {
        Jwk {
            kty: "OKP".into(),
            crv: "Ed25519".into(),
            x: b64::encode(key.as_bytes()),
            y: None,
            kid: None,
            use_: None,
            alg: None,
        }
    }

    /// The public JWK of a P-256 key (uncompressed x and y).
    pub fn p256(key: &P256Key) -> Jwk {
        let point = key.to_encoded_point(false);
        Jwk {
            kty: "EC".into(),
            crv: "P-256".into(),
            x: b64::encode(point.x().expect("uncompressed point has x")),
            y: Some(b64::encode(point.y().expect("uncompressed point has y"))),
            kid: None,
            use_: None,
            alg: None,
        }
    }

    /// Decodes and checks the key: right type, right lengths, a point on the curve,
    /// `use`/`alg` consistent with it.
    pub fn public_key(&self) -> Result<PublicKey, JwkError> {
        if let Some(u) = &self.use_ {
            if u != "sig" {
                return Err(JwkError::BadUse);
            }
        }
        let key = match (self.kty.as_str(), self.crv.as_str()) {
            ("OKP", "Ed25519") => {
                if self.y.is_some() {
                    return Err(JwkError::UnexpectedY);
                }
                let x: [u8; 32] = coordinate(&self.x, "x")?;
                // `from_bytes` rejects encodings that are not a point; weak keys
                // are caught at verification by `verify_strict`.
                PublicKey::Ed25519(Ed25519Key::from_bytes(&x).map_err(|_| JwkError::InvalidPoint)?)
            }
            ("EC", "P-256") => {
                let x: [u8; 32] = coordinate(&self.x, "x")?;
                let y: [u8; 32] = coordinate(self.y.as_deref().ok_or(JwkError::BadCoordinate("y"))?, "y")?;
                let point = p256::EncodedPoint::from_affine_coordinates(&x.into(), &y.into(), false);
                PublicKey::P256(P256Key::from_encoded_point(&point).map_err(|_| JwkError::InvalidPoint)?)
            }
            _ => return Err(JwkError::Unsupported { kty: self.kty.clone(), crv: self.crv.clone() }),
        };
        if let Some(alg) = &self.alg {
            if alg != key.alg() {
                return Err(JwkError::AlgMismatch(alg.clone()));
            }
        }
        Ok(key)
    }

    /// An Ed25519 key, for every place but the SD-JWT profile (§3.4).
    pub fn ed25519_key(&self) -> Result<Ed25519Key, JwkError> {
        match self.public_key()? {
            PublicKey::Ed25519(k) => Ok(k),
            PublicKey::P256(_) => Err(JwkError::NotEd25519),
        }
    }

    /// RFC 7638 thumbprint: SHA-256 over the required members in lexicographic
    /// order with no whitespace — {crv,kty,x} for OKP, {crv,kty,x,y} for EC (§3.4).
    pub fn thumbprint(&self) -> Result<String, JwkError> {
        // Validating first means two spellings of one key cannot get two thumbprints.
        self.public_key()?;
        let canonical = match &self.y {
            None => format!(r#"{{"crv":{},"kty":{},"x":{}}}"#, q(&self.crv), q(&self.kty), q(&self.x)),
            Some(y) => format!(r#"{{"crv":{},"kty":{},"x":{},"y":{}}}"#, q(&self.crv), q(&self.kty), q(&self.x), q(y)),
        };
        Ok(crate::hash::sha256_b64(canonical))
    }

    /// `urn:schcp:principal:jwk-thumbprint:` + the thumbprint (§3.3).
    pub fn principal_id(&self) -> Result<String, JwkError> {
        Ok(format!("{PRINCIPAL_PREFIX}{}", self.thumbprint()?))
    }
}

/// Parses the `SchCP-Agent-Key` header: base64url of the UTF-8 JSON of an
/// Ed25519 JWK with kty, crv, x and optionally kid, in any order, with no other
/// member and no duplicate (§3.1, §3.2).
pub fn parse_agent_key(header_value: &str) -> Result<(Jwk, Ed25519Key), JwkError> {
    let bytes = b64::decode(header_value).map_err(|e| JwkError::Malformed(e.to_string()))?;
    let value = crate::json::parse(&bytes).map_err(|e| JwkError::Malformed(e.to_string()))?;
    let obj = value.as_object().ok_or_else(|| JwkError::Malformed("not an object".into()))?;
    if obj.keys().any(|k| !matches!(k.as_str(), "kty" | "crv" | "x" | "kid")) {
        return Err(JwkError::ExtraMember);
    }
    let jwk: Jwk = serde_json::from_value(value).map_err(|e| JwkError::Malformed(e.to_string()))?;
    let key = jwk.ed25519_key()?;
    Ok((jwk, key))
}

fn q(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

fn coordinate<const N: usize>(text: &str, name: &'static str) -> Result<[u8; N], JwkError> {
    b64::decode(text).ok().and_then(|v| <[u8; N]>::try_from(v).ok()).ok_or(JwkError::BadCoordinate(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 8037 Appendix A.2 / A.3.
    const RFC8037_X: &str = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
    const RFC8037_THUMBPRINT: &str = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k";

    fn rfc8037() -> Jwk {
        serde_json::from_str(&format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{RFC8037_X}"}}"#)).unwrap()
    }

    #[test]
    fn rfc8037_thumbprint() {
        assert_eq!(rfc8037().thumbprint().unwrap(), RFC8037_THUMBPRINT);
        assert_eq!(
            rfc8037().principal_id().unwrap(),
            format!("urn:schcp:principal:jwk-thumbprint:{RFC8037_THUMBPRINT}")
        );
    }

    #[test]
    fn thumbprint_ignores_kid_use_and_member_order() {
        let j: Jwk = serde_json::from_str(&format!(
            r#"{{"x":"{RFC8037_X}","kid":"k1","use":"sig","crv":"Ed25519","kty":"OKP"}}"#
        ))
        .unwrap();
        assert_eq!(j.thumbprint().unwrap(), RFC8037_THUMBPRINT);
    }

    #[test]
    fn refuses_private_d_and_unknown_members() {
        let with_d = format!(
            r#"{{"kty":"OKP","crv":"Ed25519","x":"{RFC8037_X}","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"}}"#
        );
        assert!(serde_json::from_str::<Jwk>(&with_d).is_err());
        let extra = format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{RFC8037_X}","n":"1"}}"#);
        assert!(serde_json::from_str::<Jwk>(&extra).is_err());
    }

    #[test]
    fn p256_thumbprint_covers_y() {
        let sk = p256::ecdsa::SigningKey::from_slice(&[7u8; 32]).unwrap();
        let jwk = Jwk::p256(sk.verifying_key());
        let t = jwk.thumbprint().unwrap();
        let expected = crate::hash::sha256_b64(format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            jwk.x,
            jwk.y.as_ref().unwrap()
        ));
        assert_eq!(t, expected);
        assert_eq!(jwk.public_key().unwrap().alg(), "ES256");
        assert_eq!(jwk.ed25519_key(), Err(JwkError::NotEd25519));
    }

    #[test]
    fn refuses_wrong_lengths_points_and_types() {
        let mut j = rfc8037();
        j.x = "AAAA".into();
        assert_eq!(j.public_key(), Err(JwkError::BadCoordinate("x")));
        let mut j = rfc8037();
        j.crv = "X25519".into();
        assert!(matches!(j.public_key(), Err(JwkError::Unsupported { .. })));
        let mut j = rfc8037();
        j.y = Some(RFC8037_X.into());
        assert_eq!(j.public_key(), Err(JwkError::UnexpectedY));
        let sk = p256::ecdsa::SigningKey::from_slice(&[7u8; 32]).unwrap();
        let mut ec = Jwk::p256(sk.verifying_key());
        ec.y = Some(ec.x.clone()); // almost surely off the curve
        assert_eq!(ec.public_key(), Err(JwkError::InvalidPoint));
    }

    #[test]
    fn alg_and_use_must_fit_the_key() {
        let mut j = rfc8037();
        j.alg = Some("ES256".into());
        assert_eq!(j.public_key(), Err(JwkError::AlgMismatch("ES256".into())));
        let mut j = rfc8037();
        j.use_ = Some("enc".into());
        assert_eq!(j.public_key(), Err(JwkError::BadUse));
        let mut j = rfc8037();
        j.alg = Some("EdDSA".into());
        j.use_ = Some("sig".into());
        assert!(j.public_key().is_ok());
    }

    #[test]
    fn agent_key_header_profile() {
        let ok = b64::encode(format!(r#"{{"crv":"Ed25519","x":"{RFC8037_X}","kty":"OKP","kid":"a"}}"#));
        assert_eq!(parse_agent_key(&ok).unwrap().0.thumbprint().unwrap(), RFC8037_THUMBPRINT);
        let with_use = b64::encode(format!(r#"{{"crv":"Ed25519","x":"{RFC8037_X}","kty":"OKP","use":"sig"}}"#));
        assert_eq!(parse_agent_key(&with_use).unwrap_err(), JwkError::ExtraMember);
        let dup = b64::encode(format!(r#"{{"crv":"Ed25519","x":"{RFC8037_X}","kty":"OKP","x":"{RFC8037_X}"}}"#));
        assert!(matches!(parse_agent_key(&dup), Err(JwkError::Malformed(_))));
        let sk = p256::ecdsa::SigningKey::from_slice(&[7u8; 32]).unwrap();
        let ec = Jwk::p256(sk.verifying_key());
        let ec_hdr = b64::encode(serde_json::to_string(&ec).unwrap());
        assert_eq!(parse_agent_key(&ec_hdr).unwrap_err(), JwkError::ExtraMember);
        assert!(parse_agent_key("not base64!").is_err());
    }
}
