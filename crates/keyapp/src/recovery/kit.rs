//! The recovery kit: 32 secret bytes, written as 24 words of the BIP-39
//! English list (256 bits and an 8-bit checksum), from which everything that
//! makes the principal derives (docs/decisions.md "The recovery phrase and
//! what derives from it"). Pure: no I/O, no clock; randomness is passed in.
//!
//! Two kinds share the spelling. A principal made from a phrase keeps the
//! phrase's 32 bytes (its *root*), and its Ed25519 seed is HKDF-SHA-256 of
//! them. A principal made before recovery kits existed has only a seed, which
//! no phrase derives: its kit is that seed itself, written the same way.

use bip39::{Language, Mnemonic};
use ed25519_dalek::SigningKey;
use schcp::jwk::Jwk;
use secrecy::SecretString;
use std::fmt;
use zeroize::Zeroizing;

/// The kit's secret bytes: 256 bits, 24 words.
pub const KIT_LEN: usize = 32;

/// How many words a kit has.
pub const WORDS: usize = 24;

/// HKDF's salt for everything a phrase derives; changing it changes every principal.
const SALT: &[u8] = b"schcp-keyapp recovery";
/// HKDF's info for the principal's Ed25519 seed (the P-256 key derives from
/// that seed in turn, `keystore::PrincipalKey::es256`).
const ED25519_INFO: &[u8] = b"principal Ed25519 seed, v1";
/// HKDF's info for the age X25519 key the records backups are encrypted to.
const BACKUP_INFO: &[u8] = b"records backup key, v1";

/// What the kit's 32 bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum KitKind {
    /// A recovery phrase: the principal's seed derives from it.
    Phrase,
    /// The seed of a key made before recovery phrases, written as words.
    KeySeed,
}

/// A recovery kit. It is the principal's key in another form: `Debug` never
/// shows it, and its bytes are wiped on drop.
#[derive(Clone)]
pub struct RecoveryKit {
    kind: KitKind,
    secret: Zeroizing<[u8; KIT_LEN]>,
}

/// Why words are not a recovery phrase. Each says which word, where it can.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PhraseError {
    /// Not 24 words.
    #[error("a recovery phrase has 24 words, and this one has {found}")]
    WordCount { found: usize },
    /// A word that is not in the BIP-39 English list (`position` counts from 1).
    #[error("word {position} is not a recovery phrase word")]
    UnknownWord { position: usize },
    /// Every word is known, but the last one does not match the others: a word
    /// was mistyped or two were swapped.
    #[error("the words do not add up: one of them is mistyped, or two are swapped")]
    Checksum,
}

impl RecoveryKit {
    /// A new phrase from `rng` (the OS's, outside tests).
    pub fn generate(rng: &mut impl rand_core::CryptoRngCore) -> RecoveryKit {
        let mut secret = Zeroizing::new([0u8; KIT_LEN]);
        rng.fill_bytes(&mut secret[..]);
        RecoveryKit { kind: KitKind::Phrase, secret }
    }

    /// A kit of `kind` over bytes a keystore kept.
    pub(crate) fn from_bytes(kind: KitKind, bytes: &[u8; KIT_LEN]) -> RecoveryKit {
        RecoveryKit { kind, secret: Zeroizing::new(*bytes) }
    }

    /// Reads the words a person typed: case, spacing and line breaks do not
    /// matter; a wrong count, an unknown word or a bad checksum is refused.
    pub fn parse(words: &str, kind: KitKind) -> Result<RecoveryKit, PhraseError> {
        let normalized = Zeroizing::new(words.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase());
        let count = normalized.split(' ').filter(|w| !w.is_empty()).count();
        if count != WORDS {
            return Err(PhraseError::WordCount { found: count });
        }
        let mnemonic = Mnemonic::parse_in_normalized(Language::English, &normalized).map_err(|e| match e {
            bip39::Error::UnknownWord(i) => PhraseError::UnknownWord { position: i + 1 },
            bip39::Error::BadWordCount(found) => PhraseError::WordCount { found },
            _ => PhraseError::Checksum,
        })?;
        let (entropy, len) = mnemonic.to_entropy_array();
        let entropy = Zeroizing::new(entropy);
        let mut secret = Zeroizing::new([0u8; KIT_LEN]);
        secret.copy_from_slice(&entropy[..len.min(KIT_LEN)]);
        Ok(RecoveryKit { kind, secret })
    }

    pub fn kind(&self) -> KitKind {
        self.kind
    }

    /// The 24 words, in order. This is the key: only a surface that showed the
    /// OS's user verification first may call it (`recovery::reveal`).
    pub fn words(&self) -> Zeroizing<Vec<String>> {
        let mnemonic = Mnemonic::from_entropy_in(Language::English, &self.secret[..])
            .expect("32 bytes is a valid BIP-39 entropy length");
        Zeroizing::new(mnemonic.words().map(str::to_owned).collect())
    }

    /// The words on one line, separated by single spaces.
    pub fn phrase(&self) -> SecretString {
        SecretString::from(self.words().join(" "))
    }

    /// The principal's Ed25519 seed: HKDF of a phrase, or the key seed itself.
    pub(crate) fn ed25519_seed(&self) -> Zeroizing<[u8; KIT_LEN]> {
        match self.kind {
            KitKind::Phrase => expand(&self.secret, ED25519_INFO),
            KitKind::KeySeed => self.secret.clone(),
        }
    }

    /// The bytes a keystore keeps (with the kind beside them).
    pub(crate) fn secret(&self) -> &[u8; KIT_LEN] {
        &self.secret
    }

    /// The principal id this kit restores: the Ed25519 key's thumbprint URN (§3.3).
    pub fn principal_id(&self) -> String {
        let signing = SigningKey::from_bytes(&self.ed25519_seed());
        Jwk::ed25519(&signing.verifying_key()).principal_id().expect("an Ed25519 key is a valid JWK")
    }

    /// The age identity the records backups are encrypted to. Derived from the
    /// kit's bytes whatever its kind, so the words alone open a backup.
    pub fn backup_identity(&self) -> age::x25519::Identity {
        use bech32::ToBase32;
        let key = expand(&self.secret, BACKUP_INFO);
        // age reads an X25519 identity only in its Bech32 spelling.
        let spelled = Zeroizing::new(
            bech32::encode("age-secret-key-", key.to_base32(), bech32::Variant::Bech32)
                .expect("a fixed, valid human-readable part")
                .to_uppercase(),
        );
        spelled.parse().expect("32 bytes in age's own spelling is an X25519 identity")
    }
}

/// HKDF-SHA-256 (RFC 5869) of the kit's bytes under [`SALT`] and `info`.
fn expand(secret: &[u8; KIT_LEN], info: &[u8]) -> Zeroizing<[u8; KIT_LEN]> {
    let mut out = Zeroizing::new([0u8; KIT_LEN]);
    hkdf::Hkdf::<sha2::Sha256>::new(Some(SALT), &secret[..])
        .expand(info, &mut out[..])
        .expect("32 bytes is a valid HKDF-SHA-256 length");
    out
}

impl fmt::Debug for RecoveryKit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecoveryKit").field("kind", &self.kind).field("words", &format_args!("[redacted]")).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::ExposeSecret;

    /// BIP-39's own test vector for 32 bytes of 0x7f (the reference vectors).
    const SEVENTY_F: &str = "legal winner thank year wave sausage worth useful legal winner thank year wave \
                             sausage worth useful legal winner thank year wave sausage worth title";
    /// BIP-39's vector for 32 bytes of zero.
    const ZEROS: &str = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon \
                         abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon \
                         abandon abandon art";

    /// Fixed phrase, fixed principal: these ids change only if a derivation
    /// label does, and then every restored principal would change with them.
    #[test]
    fn a_fixed_phrase_restores_a_fixed_principal() {
        let kit = RecoveryKit::parse(SEVENTY_F, KitKind::Phrase).unwrap();
        assert_eq!(kit.secret(), &[0x7f; 32]);
        assert_eq!(kit.phrase().expose_secret(), SEVENTY_F.split_whitespace().collect::<Vec<_>>().join(" "));
        assert_eq!(
            kit.principal_id(),
            "urn:schcp:principal:jwk-thumbprint:XRsusCBKwhPmdRub_qYnrSE1jipozlqkvKfsjGxtJb0"
        );
        let zeros = RecoveryKit::parse(ZEROS, KitKind::Phrase).unwrap();
        assert_eq!(
            zeros.principal_id(),
            "urn:schcp:principal:jwk-thumbprint:q4x9fZypsEujB1goMn0QUOaUIyhx27XesWYN4vqJzNQ"
        );
        // The same words as a key seed are that seed: another principal.
        let seed = RecoveryKit::parse(SEVENTY_F, KitKind::KeySeed).unwrap();
        assert_eq!(*seed.ed25519_seed(), [0x7f; 32]);
        assert_ne!(seed.principal_id(), kit.principal_id());
        // The backup key is the same for both readings, and another for other words.
        assert_eq!(seed.backup_identity().to_public().to_string(), kit.backup_identity().to_public().to_string());
        assert_ne!(zeros.backup_identity().to_public().to_string(), kit.backup_identity().to_public().to_string());
    }

    #[test]
    fn case_spacing_and_line_breaks_do_not_matter() {
        let messy = format!("  {}\n", SEVENTY_F.to_uppercase().replace(' ', "\n\t "));
        let kit = RecoveryKit::parse(&messy, KitKind::Phrase).unwrap();
        assert_eq!(kit.secret(), &[0x7f; 32]);
    }

    #[test]
    fn a_generated_kit_reads_back_from_its_words() {
        let kit = RecoveryKit::generate(&mut rand_core::OsRng);
        assert_eq!(kit.words().len(), WORDS);
        let back = RecoveryKit::parse(kit.phrase().expose_secret(), KitKind::Phrase).unwrap();
        assert_eq!(back.secret(), kit.secret());
        assert_eq!(back.principal_id(), kit.principal_id());
        assert_ne!(RecoveryKit::generate(&mut rand_core::OsRng).secret(), kit.secret());
    }

    #[test]
    fn a_wrong_word_count_is_refused() {
        let words: Vec<&str> = SEVENTY_F.split_whitespace().collect();
        assert_eq!(
            RecoveryKit::parse(&words[..23].join(" "), KitKind::Phrase).unwrap_err(),
            PhraseError::WordCount { found: 23 }
        );
        // 12 words is a valid BIP-39 phrase, but not 256 bits.
        let twelve = "legal winner thank year wave sausage worth useful legal winner thank yellow";
        assert_eq!(RecoveryKit::parse(twelve, KitKind::Phrase).unwrap_err(), PhraseError::WordCount { found: 12 });
        assert_eq!(RecoveryKit::parse("", KitKind::Phrase).unwrap_err(), PhraseError::WordCount { found: 0 });
    }

    #[test]
    fn an_unknown_word_is_refused_with_its_position() {
        let typo = SEVENTY_F.replacen("thank", "thenk", 1);
        assert_eq!(RecoveryKit::parse(&typo, KitKind::Phrase).unwrap_err(), PhraseError::UnknownWord { position: 3 });
    }

    #[test]
    fn a_bad_checksum_is_refused() {
        // Two known words swapped: every word is valid, the checksum is not.
        let swapped = SEVENTY_F.replacen("legal winner", "winner legal", 1);
        assert_eq!(RecoveryKit::parse(&swapped, KitKind::Phrase).unwrap_err(), PhraseError::Checksum);
        let last = SEVENTY_F.replace("title", "zoo");
        assert_eq!(RecoveryKit::parse(&last, KitKind::Phrase).unwrap_err(), PhraseError::Checksum);
    }

    #[test]
    fn debug_never_shows_the_words() {
        let kit = RecoveryKit::parse(SEVENTY_F, KitKind::Phrase).unwrap();
        let shown = format!("{kit:?}");
        assert!(shown.contains("[redacted]") && !shown.contains("legal") && !shown.contains("127"), "{shown}");
    }
}
