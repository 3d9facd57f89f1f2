//! What the OS keychain item holds: the 32-byte seed sealed under the
//! profile's key-encryption key (KEK, released by the unlock helper after the
//! OS confirmed the person, `unlock`), so a process that reads the item
//! (`secret-tool lookup`, any Secret Service client of the person's) gets
//! ciphertext only.
//!
//! Layout, 80 bytes: the tag `SCHCPSK1` (version 1), a random 24-byte
//! XChaCha20-Poly1305 nonce, then the sealed seed with its 16-byte tag. The
//! associated data is the tag and the keychain account, so an item copied to
//! another profile's entry does not open there. A 32-byte item is the bare
//! seed earlier versions stored.
//!
//! The tag says what the sealed 32 bytes are: `SCHCPSK1` a key's seed (a key
//! made before recovery phrases), `SCHCPSK2` the recovery phrase's bytes the
//! key derives from (`recovery::RecoveryKit`). Being in the associated data,
//! the tag cannot be changed without the item failing to open.

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand_core::RngCore;
use zeroize::Zeroizing;

use super::{KitKind, RecoveryKit, SEED_LEN};

/// The tag of a sealed key seed (version 1).
const TAG: &[u8; 8] = b"SCHCPSK1";
/// The tag of a sealed recovery phrase (version 2).
const TAG_PHRASE: &[u8; 8] = b"SCHCPSK2";
const NONCE_LEN: usize = 24;
const AEAD_TAG_LEN: usize = 16;
/// The whole sealed item's length.
pub(super) const SEALED_LEN: usize = TAG.len() + NONCE_LEN + SEED_LEN + AEAD_TAG_LEN;

/// A KEK: wiped on drop.
pub(super) type Kek = Zeroizing<[u8; 32]>;

/// What a keychain item holds, recognised by its tag and length.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Stored {
    /// Sealed under a KEK (version 1).
    Sealed,
    /// A bare seed, as earlier versions stored it.
    Bare,
}

/// Recognises an item, or says why it is neither form.
pub(super) fn recognise(item: &[u8]) -> Result<Stored, &'static str> {
    match item.len() {
        SEALED_LEN if item.starts_with(TAG) || item.starts_with(TAG_PHRASE) => Ok(Stored::Sealed),
        SEED_LEN => Ok(Stored::Bare),
        _ if item.starts_with(b"SCHCPSK") => Err("it is sealed in a format this key app does not know"),
        _ => Err("it is neither a sealed key nor a 32-byte Ed25519 seed"),
    }
}

// chacha20poly1305 0.10 takes generic-array 0.14 keys and nonces, whose
// `from_slice` is deprecated in favour of generic-array 1.x.
#[allow(deprecated)]
/// Seals `kit` for the keychain entry `account` under `kek`.
pub(super) fn seal(kit: &RecoveryKit, kek: &Kek, account: &str) -> Vec<u8> {
    let tag = match kit.kind() {
        KitKind::KeySeed => TAG,
        KitKind::Phrase => TAG_PHRASE,
    };
    let mut nonce = [0u8; NONCE_LEN];
    rand_core::OsRng.fill_bytes(&mut nonce);
    let cipher = XChaCha20Poly1305::new(chacha20poly1305::Key::from_slice(&kek[..]));
    let aad = associated_data(tag, account);
    let sealed = cipher
        .encrypt(XNonce::from_slice(&nonce), Payload { msg: &kit.secret()[..], aad: &aad })
        .expect("XChaCha20-Poly1305 seals 32 bytes");
    [&tag[..], &nonce, &sealed].concat()
}

#[allow(deprecated)]
/// Opens a sealed item; `None` when it does not open (altered, another
/// profile's, or sealed under another KEK: the AEAD cannot tell these apart).
pub(super) fn open(item: &[u8], kek: &Kek, account: &str) -> Option<RecoveryKit> {
    if recognise(item) != Ok(Stored::Sealed) {
        return None;
    }
    let (tag, rest) = item.split_at(TAG.len());
    let kind = if tag == TAG_PHRASE { KitKind::Phrase } else { KitKind::KeySeed };
    let (nonce, sealed) = rest.split_at(NONCE_LEN);
    let cipher = XChaCha20Poly1305::new(chacha20poly1305::Key::from_slice(&kek[..]));
    let aad = associated_data(tag, account);
    let plain = Zeroizing::new(cipher.decrypt(XNonce::from_slice(nonce), Payload { msg: sealed, aad: &aad }).ok()?);
    let mut seed = Zeroizing::new([0u8; SEED_LEN]);
    seed.copy_from_slice(&plain);
    Some(RecoveryKit::from_bytes(kind, &seed))
}

fn associated_data(tag: &[u8], account: &str) -> Vec<u8> {
    [tag, account.as_bytes()].concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kek(byte: u8) -> Kek {
        Zeroizing::new([byte; 32])
    }

    fn seed_kit(byte: u8) -> RecoveryKit {
        RecoveryKit::from_bytes(KitKind::KeySeed, &[byte; SEED_LEN])
    }

    #[test]
    fn a_sealed_seed_opens_with_its_kek_and_account_only() {
        let seed = [7u8; SEED_LEN];
        let item = seal(&seed_kit(7), &kek(1), "principal:0123456789abcdef");
        assert_eq!(item.len(), SEALED_LEN);
        assert_eq!(recognise(&item), Ok(Stored::Sealed));
        assert!(!item.windows(SEED_LEN).any(|w| w == seed), "the seed is not in the item");
        let opened = open(&item, &kek(1), "principal:0123456789abcdef").unwrap();
        assert_eq!((opened.kind(), *opened.secret()), (KitKind::KeySeed, seed));
        assert!(open(&item, &kek(2), "principal:0123456789abcdef").is_none(), "another KEK");
        assert!(open(&item, &kek(1), "principal:fedcba9876543210").is_none(), "another profile's entry");
        // A fresh nonce each time.
        assert_ne!(seal(&seed_kit(7), &kek(1), "a"), seal(&seed_kit(7), &kek(1), "a"));
    }

    #[test]
    fn a_sealed_phrase_opens_as_a_phrase_and_its_tag_cannot_be_swapped() {
        let phrase = RecoveryKit::from_bytes(KitKind::Phrase, &[5u8; SEED_LEN]);
        let item = seal(&phrase, &kek(1), "acct");
        assert!(item.starts_with(TAG_PHRASE));
        let opened = open(&item, &kek(1), "acct").unwrap();
        assert_eq!((opened.kind(), opened.secret()), (KitKind::Phrase, &[5u8; SEED_LEN]));
        // Read as a seed instead of a phrase, it would be another principal: refused.
        let mut relabelled = item.clone();
        relabelled[..8].copy_from_slice(TAG);
        assert!(open(&relabelled, &kek(1), "acct").is_none());
    }

    #[test]
    fn every_altered_byte_is_refused() {
        let item = seal(&seed_kit(9), &kek(3), "acct");
        for i in 0..item.len() {
            let mut altered = item.clone();
            altered[i] ^= 0x01;
            assert!(open(&altered, &kek(3), "acct").is_none(), "byte {i} altered");
        }
        assert!(open(&item[..SEALED_LEN - 1], &kek(3), "acct").is_none());
    }

    #[test]
    fn items_are_recognised_by_tag_and_length() {
        assert_eq!(recognise(&[0u8; 32]), Ok(Stored::Bare));
        assert!(recognise(&[0u8; 31]).is_err());
        assert!(recognise(&[0u8; SEALED_LEN]).is_err(), "80 bytes without the tag");
        let mut future = seal(&seed_kit(1), &kek(1), "a");
        future[7] = b'3';
        assert_eq!(recognise(&future), Err("it is sealed in a format this key app does not know"));
        assert!(recognise(b"SCHCPSK1").is_err());
    }
}
