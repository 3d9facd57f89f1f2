//! base64url without padding, strict (RFC 7515 §2, RFC 4648 §5).
//!
//! Two decoders that accept different spellings of the same bytes would let one
//! JWS have two readings, and a hash over the compact form (§5.3 `offer_sha256`)
//! would no longer name one thing. So decoding refuses padding, whitespace, the
//! standard alphabet's `+` and `/`, and non-zero trailing bits: every byte
//! string has exactly one accepted encoding.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

/// Why a string is not strict base64url (§3.1: unpadded, URL alphabet).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum B64Error {
    /// It ends in `=` padding, which SchCP never writes.
    #[error("base64url must not be padded with '='")]
    Padded,
    /// A character outside the URL-safe alphabet, or a length no bytes encode to.
    #[error("invalid base64url: {0}")]
    Invalid(String),
}

/// Unpadded base64url of `bytes`, as every SchCP object writes it.
pub fn encode(bytes: impl AsRef<[u8]>) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes strict unpadded base64url; padding and the standard alphabet are refused.
pub fn decode(text: &str) -> Result<Vec<u8>, B64Error> {
    if text.contains('=') {
        return Err(B64Error::Padded);
    }
    // The engine's default config refuses padding, whitespace and non-canonical
    // trailing bits (`decode_allow_trailing_bits(false)`).
    URL_SAFE_NO_PAD.decode(text).map_err(|e| B64Error::Invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for n in 0..40u8 {
            let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37)).collect();
            assert_eq!(decode(&encode(&bytes)).unwrap(), bytes);
        }
    }

    #[test]
    fn refuses_padding() {
        assert_eq!(encode(b"ab"), "YWI");
        assert_eq!(decode("YWI="), Err(B64Error::Padded));
    }

    #[test]
    fn refuses_whitespace_and_standard_alphabet() {
        assert!(decode("YW I").is_err());
        assert!(decode("YWI\n").is_err());
        assert!(decode("+/8").is_err());
        assert_eq!(decode("-_8").unwrap(), vec![0xfb, 0xff]);
    }

    #[test]
    fn refuses_non_canonical_trailing_bits() {
        // "YWI" is canonical for "ab"; "YWJ" differs only in bits that fall off the end.
        assert!(decode("YWJ").is_err());
        assert!(decode("Y").is_err(), "a lone char is never a whole byte");
    }
}
