//! JWS-level interop vectors (§2.1 kids, §3.1 duplicate members, §3.4 alg/typ): data
//! files another implementation can run, each a compact JWS, the discovery keys to
//! check it with, the typ expected, and the outcome (`"ok"` or the §9.2 reason).
//!
//! The files are generated here, deterministically (Ed25519 signatures are, and the
//! keys come from fixed seeds). `the_committed_vectors_are_the_generated_ones` fails
//! when a file differs from what this code generates; to rewrite them after a
//! deliberate change, run with `SCHCP_WRITE_VECTORS=1` and review the diff.
//!
//! They live in `tests/jws_vectors/` rather than `tests/vectors/jws/`: every folder
//! under `tests/vectors/` is an object of the claims schema (`vectors_schema.rs`
//! refuses any other), and these are envelopes, not claims.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::*;
use schcp::jwk::Jwk;
use schcp::jws::{self, Typ};
use schcp::Error;
use serde::{Deserialize, Serialize};

/// One vector file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Vector {
    description: String,
    rule: String,
    compact: String,
    /// The host's discovery keys (§2.1): the only keys the JWS may be checked with.
    keys: Vec<Jwk>,
    /// The typ the verifier expects for this object.
    typ: String,
    /// `"ok"`, or the §9.2 reason of the refusal (`schcp::Error::reason`).
    expect: String,
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/jws_vectors")
}

/// The exact payload bytes every vector signs: the §5.2 priced offer, compact.
const PAYLOAD: &str = r#"{"v":"0.4","kind":"booking","iss":"maple-street-auto","hold_id":"h_7Qp2Zx","iat":1792000000,"exp":1792000300,"host":{"name":"Maple Street Auto","tz":"America/Toronto","domain":"maplestreetauto.example"},"service":{"id":"oil-change","name":"Synthetic oil change"},"slot":{"start":"2026-10-15T13:00:00-04:00","end":"2026-10-15T13:45:00-04:00"},"price":{"amount":"79.00","currency":"CAD"},"total":{"amount":"89.27","currency":"CAD"},"lines":[{"kind":"service","label":"Synthetic oil change","amount":{"amount":"79.00","currency":"CAD"}},{"kind":"tax","label":"HST 13%","amount":{"amount":"10.27","currency":"CAD"}}],"retention":"P365D"}"#;

const HEADER: &str = r#"{"alg":"EdDSA","typ":"schcp-offer+jwt","kid":"msa-2026-10"}"#;

fn typ_named(name: &str) -> Typ {
    [
        Typ::Mandate,
        Typ::Offer,
        Typ::Receipt,
        Typ::Meeting,
        Typ::Acceptance,
        Typ::Rule,
        Typ::Attestation,
        Typ::SdJwt,
        Typ::KbJwt,
    ]
    .into_iter()
    .find(|t| t.as_str() == name)
    .unwrap_or_else(|| panic!("unknown typ {name:?}"))
}

fn generate() -> BTreeMap<&'static str, Vector> {
    let keys = host_keys();
    let host = host_key();
    let ok = sign_raw(HEADER, PAYLOAD, &host);
    let [h, p, s]: [&str; 3] = ok.split('.').collect::<Vec<_>>().try_into().unwrap();
    let v = |description: &str, rule: &str, compact: String, expect: &str| Vector {
        description: description.into(),
        rule: rule.into(),
        compact,
        keys: keys.clone(),
        typ: "schcp-offer+jwt".into(),
        expect: expect.into(),
    };
    let mut out = BTreeMap::new();
    out.insert(
        "ok",
        v(
            "The §5.2 priced offer, signed by the discovery key its kid names.",
            "§2.1 keys, §3.4, §5.2",
            ok.clone(),
            "ok",
        ),
    );
    out.insert(
        "alg-none",
        v(
            "alg \"none\" over a genuine signature by the host key: never accepted.",
            "§3.4 Keys (none always is invalid)",
            sign_raw(r#"{"alg":"none","typ":"schcp-offer+jwt","kid":"msa-2026-10"}"#, PAYLOAD, &host),
            "alg_mismatch",
        ),
    );
    out.insert(
        "alg-none-unsigned",
        v(
            "alg \"none\" with an empty signature part.",
            "§3.4 Keys (none always is invalid)",
            format!("{}.{p}.", schcp::b64::encode(r#"{"alg":"none","typ":"schcp-offer+jwt","kid":"msa-2026-10"}"#)),
            "alg_mismatch",
        ),
    );
    out.insert(
        "alg-mismatch",
        v(
            "Header alg ES256 over an Ed25519 signature by the Ed25519 discovery key: the alg follows from the key.",
            "§3.4 Keys (a JWS whose alg is not the key's is invalid)",
            sign_raw(r#"{"alg":"ES256","typ":"schcp-offer+jwt","kid":"msa-2026-10"}"#, PAYLOAD, &host),
            "alg_mismatch",
        ),
    );
    out.insert(
        "wrong-typ",
        v(
            "An offer's claims under typ schcp-receipt+jwt, checked as an offer.",
            "§5.2 (typ schcp-offer+jwt)",
            sign_raw(r#"{"alg":"EdDSA","typ":"schcp-receipt+jwt","kid":"msa-2026-10"}"#, PAYLOAD, &host),
            "wrong_typ",
        ),
    );
    out.insert(
        "unknown-kid",
        v(
            "Signed by the host key but under a kid no discovery key has.",
            "§2.1 keys (refuses the JWS when no key has it)",
            sign_raw(r#"{"alg":"EdDSA","typ":"schcp-offer+jwt","kid":"msa-2026-09"}"#, PAYLOAD, &host),
            "unknown_kid",
        ),
    );
    out.insert(
        "missing-kid",
        v(
            "A host-signed JWS with no kid in its header.",
            "§2.1 keys (everything the host signs carries the kid)",
            sign_raw(r#"{"alg":"EdDSA","typ":"schcp-offer+jwt"}"#, PAYLOAD, &host),
            "unknown_kid",
        ),
    );
    out.insert(
        "key-in-header",
        v(
            "The header carries a jwk (the signer's own key) beside the host's kid: a key from anywhere else.",
            "§2.1 keys (MUST NOT accept a key from anywhere else)",
            {
                let stranger = stranger_key();
                let jwk = serde_json::to_string(&jwk_of(&stranger)).unwrap();
                sign_raw(
                    &format!(r#"{{"alg":"EdDSA","typ":"schcp-offer+jwt","kid":"msa-2026-10","jwk":{jwk}}}"#),
                    PAYLOAD,
                    &stranger,
                )
            },
            "malformed",
        ),
    );
    out.insert(
        "bad-signature",
        v(
            "Signed by another Ed25519 key than the one the kid names.",
            "§2.1 keys",
            sign_raw(HEADER, PAYLOAD, &stranger_key()),
            "bad_signature",
        ),
    );
    out.insert(
        "tampered-payload",
        v(
            "The ok vector with its total lowered after signing.",
            "§5.2 (the agent MUST verify the offer against the discovery keys)",
            format!("{h}.{}.{s}", schcp::b64::encode(PAYLOAD.replace("89.27", "19.27"))),
            "bad_signature",
        ),
    );
    out.insert(
        "duplicate-member-in-header",
        v(
            "The header names typ twice: two parsers could read two typs.",
            "§3.1 Parsing signed JSON",
            sign_raw(
                r#"{"alg":"EdDSA","typ":"schcp-receipt+jwt","kid":"msa-2026-10","typ":"schcp-offer+jwt"}"#,
                PAYLOAD,
                &host,
            ),
            "duplicate_member",
        ),
    );
    out.insert(
        "duplicate-member-in-payload",
        v(
            "The payload names retention twice: serde_json alone would keep the last one silently.",
            "§3.1 Parsing signed JSON",
            sign_raw(
                HEADER,
                &PAYLOAD.replace(r#""retention":"P365D""#, r#""retention":"P365D","retention":"P0D""#),
                &host,
            ),
            "duplicate_member",
        ),
    );
    out.insert(
        "padded-base64",
        v(
            "The ok vector with its signature part padded with '=': base64url here is unpadded.",
            "RFC 7515 §2 (base64url without padding), §3.4",
            format!("{ok}=="),
            "malformed",
        ),
    );
    out.insert(
        "non-canonical-trailing-bits",
        v(
            "The ok vector with the last signature character changed only in bits that fall off the end: the same signature bytes under another spelling.",
            "RFC 4648 §3.5 (canonical encoding), §5.3 (one compact JWS, one hash)",
            {
                const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
                let last = *ok.as_bytes().last().unwrap();
                let i = ALPHABET.iter().position(|c| *c == last).unwrap();
                // 64 bytes are 86 characters: the last one's low 4 bits are padding.
                let respelled = ALPHABET[i ^ 1] as char;
                format!("{}{respelled}", &ok[..ok.len() - 1])
            },
            "malformed",
        ),
    );
    out.insert(
        "trailing-newline",
        v(
            "The ok vector followed by a newline.",
            "RFC 7515 §7.1 (compact serialization), §5.3 (the exact bytes are hashed)",
            format!("{ok}\n"),
            "malformed",
        ),
    );
    out.insert(
        "trailing-space",
        v(
            "The ok vector followed by a space.",
            "RFC 7515 §7.1 (compact serialization), §5.3 (the exact bytes are hashed)",
            format!("{ok} "),
            "malformed",
        ),
    );
    out.insert(
        "four-parts",
        v(
            "The ok vector with a fourth dot-separated part.",
            "RFC 7515 §7.1 (three parts)",
            format!("{ok}.{s}"),
            "malformed",
        ),
    );
    out.insert(
        "crit-header",
        v(
            "A crit/b64 header that would change how the payload is read.",
            "RFC 7797, §3.4 (SchCP's JWS header is alg, typ, kid only)",
            sign_raw(
                r#"{"alg":"EdDSA","typ":"schcp-offer+jwt","kid":"msa-2026-10","crit":["b64"],"b64":false}"#,
                PAYLOAD,
                &host,
            ),
            "malformed",
        ),
    );
    out
}

fn render(v: &Vector) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap();
    s.push('\n');
    s
}

/// What a verifier makes of a vector: "ok" or the §9.2 reason.
fn outcome(v: &Vector) -> String {
    let result =
        jws::parse(&v.compact).and_then(|parsed| parsed.verify_with_discovery_keys(typ_named(&v.typ), &v.keys));
    match result {
        Ok(()) => "ok".into(),
        Err(e) => Error::from(e).reason().reason.into(),
    }
}

#[test]
fn the_committed_vectors_are_the_generated_ones() {
    let generated = generate();
    if std::env::var_os("SCHCP_WRITE_VECTORS").is_some() {
        std::fs::create_dir_all(dir()).unwrap();
        for (name, v) in &generated {
            std::fs::write(dir().join(format!("{name}.json")), render(v)).unwrap();
        }
    }
    let mut problems = Vec::new();
    for (name, v) in &generated {
        let path = dir().join(format!("{name}.json"));
        match std::fs::read_to_string(&path) {
            Ok(text) if text == render(v) => {}
            Ok(_) => problems.push(format!("{name}.json differs from the generated vector")),
            Err(e) => problems.push(format!("{name}.json: {e}")),
        }
    }
    for entry in std::fs::read_dir(dir()).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        let known = file.strip_suffix(".json").is_some_and(|n| generated.contains_key(n));
        if !known {
            problems.push(format!("{file}: not a generated vector"));
        }
    }
    assert!(problems.is_empty(), "rerun with SCHCP_WRITE_VECTORS=1 and review:\n{}", problems.join("\n"));
}

#[test]
fn every_vector_file_has_its_expected_outcome() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir()).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 10, "the JWS vectors are missing: {}", dir().display());
    let mut problems = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let v: Vector = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let got = outcome(&v);
        if got != v.expect {
            problems.push(format!("{}: expected {}, got {got}", path.display(), v.expect));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_ok_vector_is_the_offer_verify_offer_accepts() {
    // The envelope vectors sign a real offer: the ok one passes every later rule too.
    let ok = &generate()["ok"];
    let verified = schcp::verify::verify_offer(&ok.compact, host(&ok.keys), NOW).expect("the §5.2 offer");
    assert_eq!(verified.offer_sha256, schcp::hash::jws_sha256(&ok.compact));
    let claims: serde_json::Value = serde_json::from_str(PAYLOAD).unwrap();
    assert_eq!(claims, priced_offer(), "PAYLOAD is the fixture's priced offer");
}
