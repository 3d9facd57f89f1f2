//! Repository hygiene: no private key material in the tracked tree. A
//! demo key once got committed at the root next to the logs of a run; this keeps
//! the next one out. Scans `git ls-files` for a JSON object carrying a JWK's
//! private `"d"` member, a PEM private-key block, and a 32-byte file named `*.key`
//! (a raw Ed25519 seed). Files that hold one on purpose (published test keys,
//! negative vectors) are listed in `ALLOWED`, each with its reason.
//!
//! And no citation a reader of the repository cannot follow: the tracked tree
//! names no project brief outside it (the design, style and API notes the work
//! began from) and no issue number of a tracker it does not hold. Comments say
//! why themselves, cite the spec as "SchCP §5.3" (README "The spec, and how the
//! code cites it") or a document in the tree.

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

/// Each file `git ls-files` lists, by its path, with its bytes; `None` (said on
/// stderr) where there is no tracked tree to check: a source tree outside git,
/// such as an unpacked crate. A file deleted in the work tree but still in the
/// index has nothing on disk to check, and is left out.
fn tracked_files(root: &Path) -> Option<Vec<(String, Vec<u8>)>> {
    let listed = match Command::new("git").arg("-C").arg(root).args(["ls-files", "-z"]).output() {
        Ok(out) if out.status.success() => out.stdout,
        Ok(out) => {
            eprintln!("repo_hygiene: skipped, `git ls-files` failed: {}", String::from_utf8_lossy(&out.stderr).trim());
            return None;
        }
        Err(e) => {
            eprintln!("repo_hygiene: skipped, git is not available: {e}");
            return None;
        }
    };
    let names = listed.split(|b| *b == 0).filter(|n| !n.is_empty()).map(|n| String::from_utf8_lossy(n).into_owned());
    let files: Vec<_> = names.filter_map(|name| Some((name.clone(), std::fs::read(root.join(&name)).ok()?))).collect();
    assert!(files.len() > 50, "git listed only {} files under {}", files.len(), root.display());
    Some(files)
}

#[test]
fn the_tracked_tree_holds_no_private_key_material() {
    let root = repo_root();
    let Some(listed) = tracked_files(&root) else { return };
    let mut bad = Vec::new();
    let mut allowed_seen = Vec::new();
    for (name, bytes) in listed {
        for finding in findings(Path::new(&name), &bytes) {
            match ALLOWED.iter().find(|(p, f, _)| *p == name && *f == finding) {
                Some(entry) => allowed_seen.push(entry.0),
                None => bad.push(format!("{name}: {finding:?}")),
            }
        }
    }
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

/// Files that keep an outside citation because they cannot change: each applied
/// migration's bytes are checksummed by sqlx into every database that ran it, so
/// editing even a comment would stop the key app (or `schcp-status`) opening the
/// person's existing records. (path, why). A new migration is checked like any file.
const FROZEN: &[(&str, &str)] = &[
    ("crates/keyapp/migrations/0001_init.sql", "applied migration: sqlx checks its checksum"),
    ("crates/keyapp/migrations/0002_limit_counts.sql", "applied migration: sqlx checks its checksum"),
    ("crates/keyapp/migrations/0007_meeting_records.sql", "applied migration: sqlx checks its checksum"),
    ("crates/keyapp/migrations/0008_status_outbox.sql", "applied migration: sqlx checks its checksum"),
    ("crates/status/migrations/0001_status.sql", "applied migration: sqlx checks its checksum"),
    ("crates/status/migrations/0002_claim_functions.sql", "applied migration: sqlx checks its checksum"),
];

/// The briefs the work began from, which the repository does not hold. Spelled in
/// pieces, so this file does not cite them itself.
fn outside_documents() -> [String; 3] {
    ["DESIGN", "STYLE", "API"].map(|name| [name, ".md"].concat())
}

/// Each place in `text` that cites an outside brief or an issue number (the word,
/// singular or plural, in any case, then a number after spaces, a hyphen or `#`),
/// as `line: text of the line`.
fn outside_citations(text: &str) -> Vec<String> {
    let documents = outside_documents();
    let word_start = |line: &str, at: usize| !line[..at].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric());
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let brief = documents.iter().any(|d| line.match_indices(d.as_str()).any(|(at, _)| word_start(line, at)));
        let lower = line.to_ascii_lowercase();
        let issue = lower.match_indices("issue").any(|(at, word)| {
            let rest = lower[at + word.len()..].strip_prefix('s').unwrap_or(&lower[at + word.len()..]);
            let number = rest.trim_start_matches([' ', '-', '#', '\u{a0}']);
            word_start(&lower, at) && number.len() < rest.len() && number.starts_with(|c: char| c.is_ascii_digit())
        });
        if brief || issue {
            found.push(format!("{}: {}", n + 1, line.trim()));
        }
    }
    found
}

#[test]
fn the_tracked_tree_cites_nothing_a_reader_lacks() {
    let root = repo_root();
    let Some(listed) = tracked_files(&root) else { return };
    let mut bad = Vec::new();
    let mut frozen_seen = Vec::new();
    for (name, bytes) in listed {
        let cites = outside_citations(&String::from_utf8_lossy(&bytes));
        if cites.is_empty() {
            continue;
        }
        match FROZEN.iter().find(|(p, _)| *p == name) {
            Some((p, _)) => frozen_seen.push(*p),
            None => bad.extend(cites.into_iter().map(|c| format!("{name}:{c}"))),
        }
    }
    assert!(
        bad.is_empty(),
        "citations a reader of the repository cannot follow (say the why itself, cite the spec as \
         \"SchCP §N\", or a document in the tree):\n{}",
        bad.join("\n")
    );
    // An entry that no longer cites anything is stale: drop it, so it cannot cover a new one.
    for (path, _) in FROZEN {
        assert!(frozen_seen.contains(path), "FROZEN lists {path} but it no longer cites an outside document");
    }
}

#[test]
fn each_kind_of_outside_citation_is_found() {
    let [design, style, api] = outside_documents();
    let issue = ["iss", "ue"].concat();
    let cites = |line: String| outside_citations(&line).len() == 1;
    assert!(cites(format!("//! Key custody ({design} \"Key custody\")")));
    assert!(cites(format!("/// one place ({style}: one place)")));
    assert!(cites(format!("-- the person's answer ({api} \"Pairing\")")));
    assert!(cites(format!("//! Hosted mode ({issue} 12): what")));
    assert!(cites(format!("# review of {issue}s 11–13")));
    assert!(cites(format!("the {issue}-5 load client")));
    assert!(cites(format!("see {issue} #4")));
    let capital = format!("{}{}", issue[..1].to_ascii_uppercase(), &issue[1..]);
    assert!(cites(format!("// {capital} 10: the acceptance is a record")));
    assert_eq!(outside_citations(&format!("a\n// ({issue} 9)\nb")), vec![format!("2: // ({issue} 9)")]);

    // What the repository holds, and words that only look alike, are not citations.
    assert!(!cites("docs/agent-api.md §4 \"Pairing\"".into()));
    assert!(!cites("the spec (SchCP §5.3) and docs/decisions.md".into()));
    assert!(!cites(format!("the key app {issue}s a closed mandate; {issue}(&s, \"m1\")")));
    assert!(!cites(format!("{issue}d 2 mandates; the {issue}r's 3 keys")));
    assert!(!cites(format!("a t{issue} 5 cells deep; MY{api}")));
}
