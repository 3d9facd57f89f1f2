//! A key app proving to a local agent that it holds the principal's key
//! (docs/agent-api.md, `GET /v1/principal?nonce=…`): a compact JWS of type
//! `schcp-keyapp-proof+jwt` over claims the key app alone builds: `iss` (the
//! principal id of the signing key), `aud` (the thumbprint of the agent key
//! that signed the request, as the key app verified it), the agent's `nonce`
//! and `iat`.
//!
//! It is not a "sign this" operation: the `typ` is fixed and no verifier of
//! mandates, offers or status updates accepts it (§3.4: each object has its
//! own media type); the payload is closed and has no member an agent chooses
//! but the nonce, which must be 16 to 64 random-looking bytes an agent made,
//! and which no host reads as anything (it is not a `jti`, a date or a claim
//! id). An agent that pinned the principal key at pairing verifies the proof
//! with [`verify`], against its own fresh nonce, so a program listening on the
//! key app's port that does not hold the key is named an impostor.

use crate::b64;
use crate::jwk::{Jwk, JwkError};
use crate::jws::{self, HeaderExtras, JwsError, Signer, Typ};
use serde::{Deserialize, Serialize};

/// The JWS `typ` of a proof.
pub const TYP: &str = "schcp-keyapp-proof+jwt";
/// The fewest nonce bytes (as §3.2 asks of request nonces).
pub const MIN_NONCE_BYTES: usize = 16;
/// The most nonce bytes: a nonce is a challenge, not a place for data.
pub const MAX_NONCE_BYTES: usize = 64;
/// How far `iat` may be from the agent's clock, either way (as §3.2's `created`).
pub const IAT_WINDOW_SECS: i64 = 300;

/// The claims of a proof. Closed: a proof with another member is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProofClaims {
    /// The principal id of the key that signed (§3.3).
    pub iss: String,
    /// The RFC 7638 thumbprint of the agent key the proof answers.
    pub aud: String,
    /// The agent's nonce, as sent.
    pub nonce: String,
    /// When the key app signed, in Unix seconds.
    pub iat: i64,
}

/// Why a nonce or a proof is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProofError {
    /// The nonce is not strict base64url.
    #[error("the nonce is not base64url without padding")]
    NonceNotBase64,
    /// The nonce decodes to too few or too many bytes.
    #[error("the nonce is {0} bytes; it must be {MIN_NONCE_BYTES} to {MAX_NONCE_BYTES}")]
    NonceLength(usize),
    /// Not a compact JWS of the proof's type, or its signature does not verify.
    #[error("the proof does not verify: {0}")]
    Jws(#[from] JwsError),
    /// The payload is not the proof's closed claims.
    #[error("the proof's claims are malformed: {0}")]
    Claims(String),
    /// The key shown is not the principal key the agent pinned.
    #[error("the proof is shown with another key than the principal's pinned at pairing")]
    WrongKey,
    /// The key shown is not a usable public key.
    #[error("the key shown is unusable: {0}")]
    BadKey(#[from] JwkError),
    /// `iss` is not the principal id of the signing key.
    #[error("the proof names another principal than its key's")]
    WrongIssuer,
    /// `aud` is another agent's key.
    #[error("the proof was made for another agent key")]
    WrongAudience,
    /// `nonce` is not the one the agent just sent (a replayed proof).
    #[error("the proof answers another nonce than the one just sent")]
    WrongNonce,
    /// `iat` is outside the window.
    #[error("the proof was signed {0} s away from now")]
    Stale(i64),
}

/// A nonce an agent may send: strict base64url of 16 to 64 bytes.
pub fn check_nonce(nonce: &str) -> Result<(), ProofError> {
    let bytes = b64::decode(nonce).map_err(|_| ProofError::NonceNotBase64)?;
    if !(MIN_NONCE_BYTES..=MAX_NONCE_BYTES).contains(&bytes.len()) {
        return Err(ProofError::NonceLength(bytes.len()));
    }
    Ok(())
}

/// The key app's proof for the agent key `agent_jkt` (as verified from its
/// request signature) and its `nonce`, signed at `iat` with the principal key.
/// Every claim but the checked nonce comes from the key app.
pub fn sign(signer: &dyn Signer, agent_jkt: &str, nonce: &str, iat: i64) -> Result<String, ProofError> {
    check_nonce(nonce)?;
    let iss = signer.public_key().to_jwk().principal_id()?;
    let claims = ProofClaims { iss, aud: agent_jkt.to_owned(), nonce: nonce.to_owned(), iat };
    Ok(jws::sign(Typ::KeyappProof, HeaderExtras::default(), &claims, signer)?)
}

/// Checks a proof as the agent that asked: `jwk` is the key the answer shows,
/// which must be the one pinned (`pinned`, its RFC 7638 thumbprint); the JWS
/// must be of the proof's type and verify with it; `iss` must be its principal
/// id; `aud` the agent's own thumbprint; `nonce` the nonce just sent; `iat`
/// within [`IAT_WINDOW_SECS`] of `now`.
pub fn verify(
    compact: &str,
    jwk: &Jwk,
    pinned: &str,
    agent_jkt: &str,
    nonce: &str,
    now: i64,
) -> Result<ProofClaims, ProofError> {
    if jwk.thumbprint()? != pinned {
        return Err(ProofError::WrongKey);
    }
    let parsed = jws::parse(compact)?;
    if parsed.header.kid.is_some() || parsed.header.jwk.is_some() {
        return Err(JwsError::BadHeader("a key app proof carries neither kid nor jwk".into()).into());
    }
    parsed.verify(Typ::KeyappProof, &jwk.public_key()?)?;
    let claims: ProofClaims = parsed.claims().map_err(|e| ProofError::Claims(e.to_string()))?;
    if claims.iss != jwk.principal_id()? {
        return Err(ProofError::WrongIssuer);
    }
    if claims.aud != agent_jkt {
        return Err(ProofError::WrongAudience);
    }
    if claims.nonce != nonce {
        return Err(ProofError::WrongNonce);
    }
    let skew = claims.iat - now;
    if skew.abs() > IAT_WINDOW_SECS {
        return Err(ProofError::Stale(skew));
    }
    Ok(claims)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::SigningKey;

    const NOW: i64 = 1_792_000_000;

    fn principal() -> SigningKey {
        SigningKey::from_bytes(&[3; 32])
    }

    fn pin(key: &SigningKey) -> String {
        Jwk::ed25519(&key.verifying_key()).thumbprint().unwrap()
    }

    fn nonce(n: u8) -> String {
        b64::encode([n; 24])
    }

    const AGENT: &str = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k";

    #[test]
    fn a_proof_verifies_with_the_pinned_key_for_its_agent_and_nonce() {
        let key = principal();
        let proof = sign(&key, AGENT, &nonce(1), NOW).unwrap();
        let jwk = Jwk::ed25519(&key.verifying_key());
        let claims = verify(&proof, &jwk, &pin(&key), AGENT, &nonce(1), NOW + 2).unwrap();
        assert_eq!(claims.iss, jwk.principal_id().unwrap());
        assert_eq!((claims.aud.as_str(), claims.iat), (AGENT, NOW));
        let header = jws::parse(&proof).unwrap().header;
        assert_eq!((header.typ.as_str(), header.alg.as_str()), (TYP, "EdDSA"));
    }

    #[test]
    fn a_proof_fails_with_another_key_nonce_audience_or_time() {
        let key = principal();
        let other = SigningKey::from_bytes(&[4; 32]);
        let jwk = Jwk::ed25519(&key.verifying_key());
        let proof = sign(&key, AGENT, &nonce(1), NOW).unwrap();
        // The impostor shows its own key: not the pinned one.
        let forged = sign(&other, AGENT, &nonce(1), NOW).unwrap();
        let other_jwk = Jwk::ed25519(&other.verifying_key());
        assert_eq!(verify(&forged, &other_jwk, &pin(&key), AGENT, &nonce(1), NOW), Err(ProofError::WrongKey));
        // Or shows the pinned key with its own signature.
        assert_eq!(
            verify(&forged, &jwk, &pin(&key), AGENT, &nonce(1), NOW),
            Err(ProofError::Jws(JwsError::BadSignature))
        );
        // A proof replayed to a fresh nonce, or made for another agent.
        assert_eq!(verify(&proof, &jwk, &pin(&key), AGENT, &nonce(2), NOW), Err(ProofError::WrongNonce));
        let other_agent = pin(&other);
        assert_eq!(verify(&proof, &jwk, &pin(&key), &other_agent, &nonce(1), NOW), Err(ProofError::WrongAudience));
        assert_eq!(
            verify(&proof, &jwk, &pin(&key), AGENT, &nonce(1), NOW + IAT_WINDOW_SECS + 1),
            Err(ProofError::Stale(-IAT_WINDOW_SECS - 1))
        );
        verify(&proof, &jwk, &pin(&key), AGENT, &nonce(1), NOW + IAT_WINDOW_SECS).unwrap();
    }

    #[test]
    fn a_jws_of_another_type_or_with_more_claims_is_no_proof() {
        let key = principal();
        let jwk = Jwk::ed25519(&key.verifying_key());
        let iss = jwk.principal_id().unwrap();
        let claims = serde_json::json!({"iss": iss, "aud": AGENT, "nonce": nonce(1), "iat": NOW});
        let mandate_typed = jws::sign(Typ::Mandate, HeaderExtras::default(), &claims, &key).unwrap();
        assert!(matches!(
            verify(&mandate_typed, &jwk, &pin(&key), AGENT, &nonce(1), NOW),
            Err(ProofError::Jws(JwsError::WrongTyp { .. }))
        ));
        let mut more = claims.clone();
        more["scope"] = "book".into();
        let wider = jws::sign(Typ::KeyappProof, HeaderExtras::default(), &more, &key).unwrap();
        assert!(matches!(verify(&wider, &jwk, &pin(&key), AGENT, &nonce(1), NOW), Err(ProofError::Claims(_))));
        let mut wrong_iss = claims;
        wrong_iss["iss"] = "urn:schcp:principal:jwk-thumbprint:x".into();
        let wrong = jws::sign(Typ::KeyappProof, HeaderExtras::default(), &wrong_iss, &key).unwrap();
        assert_eq!(verify(&wrong, &jwk, &pin(&key), AGENT, &nonce(1), NOW), Err(ProofError::WrongIssuer));
        assert!(matches!(verify("not.a.jws", &jwk, &pin(&key), AGENT, &nonce(1), NOW), Err(ProofError::Jws(_))));
    }

    #[test]
    fn nonces_are_base64url_of_16_to_64_bytes() {
        check_nonce(&b64::encode([0u8; 16])).unwrap();
        check_nonce(&b64::encode([0u8; 64])).unwrap();
        assert_eq!(check_nonce(&b64::encode([0u8; 15])), Err(ProofError::NonceLength(15)));
        assert_eq!(check_nonce(&b64::encode([0u8; 65])), Err(ProofError::NonceLength(65)));
        for bad in ["", "a+b/c=", "AAAAAAAAAAAAAAAAAAAAAA==", "not base64!"] {
            assert!(check_nonce(bad).is_err(), "{bad:?}");
        }
        let key = principal();
        assert_eq!(sign(&key, AGENT, "short", NOW), Err(ProofError::NonceNotBase64));
    }
}
