//! Finds an Ed25519 seed in bytes without knowing it: every 32-byte candidate
//! (each window of the raw bytes, each 64-digit run of hex, each 43- or
//! 44-character run of base64 or base64url) is turned into its public key and
//! compared with the principal's. A test of the key's custody needs only the
//! principal's public key, which the key app shows to anyone.
#![allow(dead_code)] // each test binary uses its own subset

use base64::Engine;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Where a seed was found: the form and the offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) form: &'static str,
    pub(crate) offset: usize,
}

/// The first place in `bytes` where a seed of `public` is, in any form.
pub(crate) fn find_seed(bytes: &[u8], public: &[u8; 32]) -> Option<Found> {
    let mut seen = HashSet::new();
    let mut check = |candidate: &[u8], form: &'static str, offset: usize| -> Option<Found> {
        let seed: [u8; 32] = candidate.try_into().ok()?;
        // Repeated windows (zero pages, padding) are derived once.
        if !seen.insert(seed) {
            return None;
        }
        let derived = ed25519_dalek::SigningKey::from_bytes(&seed).verifying_key().to_bytes();
        if derived == *public {
            return Some(Found { form, offset });
        }
        // A recovery phrase's 32 bytes are the key too: its seed derives from them.
        let derived = ed25519_dalek::SigningKey::from_bytes(&seed_of_phrase(&seed)).verifying_key().to_bytes();
        (derived == *public).then_some(Found { form: "recovery phrase", offset })
    };
    for offset in 0..bytes.len().saturating_sub(31) {
        if let Some(found) = check(&bytes[offset..offset + 32], "raw", offset) {
            return Some(found);
        }
    }
    for (start, run) in runs(bytes, |b| b.is_ascii_hexdigit()) {
        for offset in 0..run.len().saturating_sub(63) {
            let Some(decoded) = hex(&run[offset..offset + 64]) else { continue };
            if let Some(found) = check(&decoded, "hex", start + offset) {
                return Some(found);
            }
        }
    }
    let base64ish = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_' | b'=');
    for (start, run) in runs(bytes, base64ish) {
        for width in [43, 44] {
            for offset in 0..run.len().saturating_sub(width - 1) {
                for decoded in base64_decodings(&run[offset..offset + width]) {
                    if let Some(found) = check(&decoded, "base64", start + offset) {
                        return Some(found);
                    }
                }
            }
        }
    }
    None
}

/// The Ed25519 seed a recovery phrase's bytes derive (docs/decisions.md "The
/// recovery phrase and what derives from it"), so a leaked phrase is found too.
pub(crate) fn seed_of_phrase(root: &[u8; 32]) -> [u8; 32] {
    let mut seed = [0u8; 32];
    hkdf::Hkdf::<sha2::Sha256>::new(Some(b"schcp-keyapp recovery"), root)
        .expand(b"principal Ed25519 seed, v1", &mut seed)
        .expect("32 bytes is a valid HKDF-SHA-256 length");
    seed
}

/// Maximal runs of bytes for which `keep` holds, with their offsets.
fn runs(bytes: &[u8], keep: impl Fn(u8) -> bool) -> Vec<(usize, &[u8])> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, &b) in bytes.iter().chain(std::iter::once(&0)).enumerate() {
        match (keep(b) && i < bytes.len(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, &bytes[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    out
}

fn hex(digits: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(digits).ok()?;
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok()).collect()
}

fn base64_decodings(token: &[u8]) -> Vec<Vec<u8>> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD].iter().filter_map(|e| e.decode(token).ok()).collect()
}

/// Every regular file under `dir`, recursively (symlinks not followed), with
/// its bytes; unreadable entries are skipped.
pub(crate) fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                if let Ok(bytes) = std::fs::read(entry.path()) {
                    out.push((entry.path(), bytes));
                }
            }
        }
    }
    out
}

/// Panics naming the first file under any of `dirs` that holds the seed of `public`.
pub(crate) fn assert_no_seed_under(dirs: &[&Path], public: &[u8; 32]) -> usize {
    let mut scanned = 0;
    for dir in dirs {
        for (path, bytes) in files_under(dir) {
            scanned += 1;
            if let Some(found) = find_seed(&bytes, public) {
                panic!("the principal's seed is in {} ({found:?})", path.display());
            }
        }
    }
    scanned
}
