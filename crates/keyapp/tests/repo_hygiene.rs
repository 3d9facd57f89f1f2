//! Repository hygiene (issue 10): no private key material in the tracked tree. A
//! demo key once got committed at the root next to the logs of a run; this keeps
//! the next one out. Scans `git ls-files` for a JSON object carrying a JWK's
//! private `"d"` member, a PEM private-key block, and a 32-byte file named `*.key`
//! (a raw Ed25519 seed). Files that hold one on purpose (published test keys,
//! negative vectors) are listed in `ALLOWED`, each with its reason.

use std::path::{Path, PathBuf};
use std::process::Command;

/// (path from the repository root, the finding it may have, why).
const ALLOWED: &[(&str, Finding, &str)] = &[
    (
        "crates/schcp/src/jwk.rs",
        Finding::JwkD,
        "RFC 8037 Appendix A's published Ed25519 test key, in a test that a JWK with d is refused",
    ),
    (
        "tests/vectors/acceptance/invalid/jwk-with-d.json",
        Finding::JwkD,
        "negative vector: an acceptance whose public JWK wrongly carries d must be refused",
    ),
    (
        "tests/vectors/discovery/invalid/key-with-d.json",
        Finding::JwkD,
        "negative vector: a discovery document publishing a private key must be refused",
    ),
    (
        "tests/vectors/mandate/invalid/principal-jwk-with-d.json",
        Finding::JwkD,
        "negative vector: a mandate whose principal_jwk carries d must be refused",
    ),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Finding {
    /// `"d": "<base64url>"`, the private member of an OKP or EC JWK (RFC 7517 §4, RFC 8037 §2).
    JwkD,
    /// `-----BEGIN … PRIVATE KEY-----` (RFC 7468).
    PemPrivateKey,
    /// A file named `*.key` of exactly 32 bytes: a raw seed.
    RawKeyFile,
}

/// Shortest value counted as key material: an Ed25519 `d` is 43 characters, a
/// P-256 one too; 20 still catches a truncated one without flagging prose.
const MIN_D_CHARS: usize = 20;

fn has_jwk_d(text: &str) -> bool {
    // JSON inside an ordinary string literal has its quotes escaped.
    let text = text.replace("\\\"", "\"");
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find("\"d\"") {
        let mut i = from + at + 3;
        from = i;
        let skip_ws = |i: &mut usize| {
            while *i < bytes.len() && bytes[*i].is_ascii_whitespace() {
                *i += 1;
            }
        };
        skip_ws(&mut i);
        if bytes.get(i) != Some(&b':') {
            continue;
        }
        i += 1;
        skip_ws(&mut i);
        if bytes.get(i) != Some(&b'"') {
            continue;
        }
        i += 1;
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'-' || bytes[i] == b'_') {
            i += 1;
        }
        if i - start >= MIN_D_CHARS && bytes.get(i) == Some(&b'"') {
            return true;
        }
    }
    false
}

fn has_pem_private_key(text: &str) -> bool {
    // Spelled in pieces, so this file does not match itself.
    let begin = ["-----", "BEGIN "].concat();
    let tail = ["PRIVATE KEY", "-----"].concat();
    text.match_indices(&begin).any(|(at, _)| {
        let line = text[at + begin.len()..].lines().next().unwrap_or_default();
        line.ends_with(&tail) && line[..line.len() - tail.len()].chars().all(|c| c.is_ascii_uppercase() || c == ' ')
    })
}

fn findings(path: &Path, bytes: &[u8]) -> Vec<Finding> {
    let mut out = Vec::new();
    if path.extension().is_some_and(|e| e == "key") && bytes.len() == 32 {
        out.push(Finding::RawKeyFile);
    }
    let text = String::from_utf8_lossy(bytes);
    if has_jwk_d(&text) {
        out.push(Finding::JwkD);
    }
    if has_pem_private_key(&text) {
        out.push(Finding::PemPrivateKey);
    }
    out
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

#[test]
fn the_tracked_tree_holds_no_private_key_material() {
    let root = repo_root();
    let listed = match Command::new("git").arg("-C").arg(&root).args(["ls-files", "-z"]).output() {
        Ok(out) if out.status.success() => out.stdout,
        Ok(out) => {
            // A source tree outside git (an unpacked crate) has no tracked tree to check.
            eprintln!("repo_hygiene: skipped, `git ls-files` failed: {}", String::from_utf8_lossy(&out.stderr).trim());
            return;
        }
        Err(e) => {
            eprintln!("repo_hygiene: skipped, git is not available: {e}");
            return;
        }
    };
    let mut bad = Vec::new();
    let mut allowed_seen = Vec::new();
    let mut scanned = 0;
    for name in listed.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).into_owned();
        let path = root.join(&name);
        // Deleted in the work tree but still in the index: nothing on disk to leak.
        let Ok(bytes) = std::fs::read(&path) else { continue };
        scanned += 1;
        for finding in findings(Path::new(&name), &bytes) {
            match ALLOWED.iter().find(|(p, f, _)| *p == name && *f == finding) {
                Some(entry) => allowed_seen.push(entry.0),
                None => bad.push(format!("{name}: {finding:?}")),
            }
        }
    }
    assert!(scanned > 50, "git listed only {scanned} files under {}", root.display());
    assert!(
        bad.is_empty(),
        "private key material in the tracked tree (remove it, or list it in ALLOWED with a reason):\n{}",
        bad.join("\n")
    );
    // An entry that no longer matches is stale: drop it, so it cannot cover a new key later.
    for (path, finding, _) in ALLOWED {
        assert!(allowed_seen.contains(path), "ALLOWED lists {path} ({finding:?}) but it no longer holds one");
    }
}

#[test]
fn each_kind_of_key_material_is_found() {
    let d = "A".repeat(43);
    assert!(has_jwk_d(&format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{d}","d":"{d}"}}"#)));
    assert!(has_jwk_d(&format!("{{\n  \"d\" :\n  \"{d}\"\n}}")));
    assert!(has_jwk_d(&format!(r#"let k = "{{\"kty\":\"OKP\",\"d\":\"{d}\"}}";"#)));
    assert!(!has_jwk_d(&format!(r#"{{"x":"{d}"}}"#)), "a public JWK");
    assert!(!has_jwk_d(r#"{"d": "short"}"#));
    assert!(!has_jwk_d(r#"the "d" member: "never published""#));

    let pem = |label: &str| format!("{}BEGIN {label}{}\nMC4CAQAw\n", "-----", "-----");
    assert!(has_pem_private_key(&pem("PRIVATE KEY")));
    assert!(has_pem_private_key(&pem("EC PRIVATE KEY")));
    assert!(has_pem_private_key(&pem("ENCRYPTED PRIVATE KEY")));
    assert!(!has_pem_private_key(&pem("CERTIFICATE")));
    assert!(!has_pem_private_key(&pem("PUBLIC KEY")));
    // A header quoted in code, on one line with its `\n`, is no block (the keystore's
    // test of a foreign file has one).
    assert!(!has_pem_private_key(&format!("b\"{}BEGIN PRIVATE KEY{}\\n\", pass()", "-----", "-----")));

    assert_eq!(findings(Path::new("agent.key"), &[7; 32]), vec![Finding::RawKeyFile]);
    assert!(findings(Path::new("agent.key"), &[7; 33]).is_empty());
    assert!(findings(Path::new("agent.bin"), &[7; 32]).is_empty());
}
