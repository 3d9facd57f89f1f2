//! Hashes that name contracts (§5.3, §5.12).

use sha2::{Digest, Sha256};

/// base64url SHA-256 of `bytes`.
pub fn sha256_b64(bytes: impl AsRef<[u8]>) -> String {
    crate::b64::encode(Sha256::digest(bytes.as_ref()))
}

/// `offer_sha256` / `contract_sha256`: the base64url SHA-256 of the exact
/// compact JWS bytes, with no JSON canonicalisation (§5.3 "Every acceptance
/// names its contract").
pub fn jws_sha256(compact_jws: &str) -> String {
    sha256_b64(compact_jws.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_empty_string_is_the_known_value() {
        // SHA-256("") = e3b0c442...b855, in base64url without padding.
        assert_eq!(sha256_b64(b""), "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
    }

    #[test]
    fn hash_is_over_exact_bytes() {
        // The same claims in another spelling are a different contract.
        assert_ne!(jws_sha256("a.b.c"), jws_sha256("a.b.c "));
        assert_eq!(jws_sha256("a.b.c"), sha256_b64("a.b.c"));
    }
}
