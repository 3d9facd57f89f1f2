//! The §3.2 request-signature profile of HTTP Message Signatures (RFC 9421),
//! verified exactly, and the signing side agents (and tests) use.
//!
//! RFC 9421 leaves the label, the component order and the parameter order to
//! the signer; §3.2 fixes them ("one exact form"), so this module accepts only
//! that form:
//!
//! ```text
//! Signature-Input: schcp=("@method" "@target-uri" "content-digest" "schcp-mandate");created=…;keyid="…";nonce="…";alg="ed25519"
//! Signature: schcp=:<standard base64 of the Ed25519 signature>:
//! ```
//!
//! leaving out `content-digest` for a bodiless request (zero bytes) and
//! `schcp-mandate` when no mandate is sent. The agent API (docs/agent-api.md §3) uses the
//! same profile; it sends no mandate.
//!
//! Everything here is pure: no axum types, the clock passed in, the replay
//! memory a value the caller owns. `agent_api::guard` puts it on the wire.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use schcp::jwk::Jwk;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;

/// The only signature label (§3.2).
pub const LABEL: &str = "schcp";
/// `created` may be at most this many seconds from the verifier's clock, either
/// way (§3.2: "more than 300 s from its clock" is stale).
pub const MAX_SKEW_SECS: i64 = 300;
/// A (keyid, nonce) is remembered until `created + 301 s`, "the last moment the
/// signature could still verify" (§3.2).
pub const NONCE_MEMORY_SECS: i64 = MAX_SKEW_SECS + 1;
/// "nonce is at least 16 random bytes, base64url without padding" (§3.2).
pub const MIN_NONCE_BYTES: usize = 16;

pub const SIGNATURE_INPUT: &str = "signature-input";
pub const SIGNATURE: &str = "signature";
pub const CONTENT_DIGEST: &str = "content-digest";
pub const AGENT_KEY: &str = "schcp-agent-key";
pub const MANDATE: &str = "schcp-mandate";

/// Why a request signature was refused. Each maps to one §3.2 reason
/// (`ApiError::signature`): `stale_signature`, `replayed_nonce`, and
/// `bad_signature` for everything else.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SigError {
    #[error("signature created at {created} is more than 300 s from now ({now}) (§3.2)")]
    Stale { created: i64, now: i64 },
    #[error("this nonce was already used with this key (§3.2)")]
    Replayed,
    /// Signed before this process's replay memory began (a restart): whether
    /// its nonce was already used cannot be known, so it is refused like a
    /// stale signature, and the agent signs it again.
    #[error(
        "signature created at {created}, before the key app (re)started at {since}; sign the request again (§3.2)"
    )]
    BeforeMemory { created: i64, since: i64 },
    #[error("bad signature: {0}")]
    Bad(String),
    /// The replay memory is at its bound (`NonceCache`): refusing is the only
    /// safe answer, since forgetting a live nonce would allow a replay.
    #[error("too many recent requests to remember; try again in {retry_after} s")]
    Busy { retry_after: u64 },
}

fn bad(detail: impl Into<String>) -> SigError {
    SigError::Bad(detail.into())
}

/// The signature parameters a signer chooses; `alg` is always `"ed25519"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigParams {
    pub created: i64,
    /// RFC 7638 thumbprint of the agent key (§3.2).
    pub keyid: String,
    pub nonce: String,
}

/// The covered components for a request, in §3.2's order.
fn components(has_digest: bool, has_mandate: bool) -> Vec<&'static str> {
    let mut c = vec!["@method", "@target-uri"];
    if has_digest {
        c.push(CONTENT_DIGEST);
    }
    if has_mandate {
        c.push(MANDATE);
    }
    c
}

/// The `Signature-Input` member value after `schcp=`, in the one exact form
/// (§3.2): components in order, then created, keyid, nonce, alg and no other.
pub fn signature_params(has_digest: bool, has_mandate: bool, params: &SigParams) -> String {
    let list: Vec<String> = components(has_digest, has_mandate).iter().map(|c| format!("\"{c}\"")).collect();
    format!(
        "({});created={};keyid=\"{}\";nonce=\"{}\";alg=\"ed25519\"",
        list.join(" "),
        params.created,
        params.keyid,
        params.nonce
    )
}

/// The RFC 9421 signature base of the §3.2 profile: one line per component
/// that applies, then `"@signature-params"`, joined by `\n` with none at the end.
/// `content_digest` and `mandate` are the header values; `None` leaves the
/// component out (bodiless request, no mandate).
pub fn signature_base(
    method: &str,
    target_uri: &str,
    content_digest: Option<&str>,
    mandate: Option<&str>,
    params: &SigParams,
) -> String {
    let mut lines = vec![format!("\"@method\": {method}"), format!("\"@target-uri\": {target_uri}")];
    if let Some(d) = content_digest {
        lines.push(format!("\"{CONTENT_DIGEST}\": {d}"));
    }
    if let Some(m) = mandate {
        lines.push(format!("\"{MANDATE}\": {m}"));
    }
    lines.push(format!(
        "\"@signature-params\": {}",
        signature_params(content_digest.is_some(), mandate.is_some(), params)
    ));
    lines.join("\n")
}

/// `sha-256=:<standard base64>:` over the body's exact bytes (RFC 9530, §3.2).
pub fn content_digest(body: &[u8]) -> String {
    format!("sha-256=:{}:", STANDARD.encode(Sha256::digest(body)))
}

/// The `SchCP-Agent-Key` value for a key: base64url of the JWK's JSON (§3.2).
pub fn agent_key_header(key: &VerifyingKey) -> String {
    let json = serde_json::to_vec(&Jwk::ed25519(key)).expect("a JWK serializes");
    schcp::b64::encode(json)
}

/// Signs a request as an agent does (§3.2), returning the headers to add:
/// `Signature-Input`, `Signature`, `Content-Digest` (when `body` is not empty),
/// `SchCP-Agent-Key`, and `SchCP-Mandate` when a mandate is given (it is
/// covered byte for byte, so it is returned here rather than added separately).
/// `method` is the upper-case method; `target_uri` the exact URL addressed.
pub fn sign_request(
    method: &str,
    target_uri: &str,
    body: &[u8],
    mandate: Option<&str>,
    agent: &SigningKey,
    created: i64,
    nonce: &str,
) -> Vec<(String, String)> {
    let public = agent.verifying_key();
    let keyid = Jwk::ed25519(&public).thumbprint().expect("a real Ed25519 key has a thumbprint");
    let params = SigParams { created, keyid, nonce: nonce.to_owned() };
    let digest = (!body.is_empty()).then(|| content_digest(body));
    let base = signature_base(method, target_uri, digest.as_deref(), mandate, &params);
    let signature = agent.sign(base.as_bytes());

    let mut headers = vec![
        (
            "Signature-Input".to_owned(),
            format!("{LABEL}={}", signature_params(digest.is_some(), mandate.is_some(), &params)),
        ),
        ("Signature".to_owned(), format!("{LABEL}=:{}:", STANDARD.encode(signature.to_bytes()))),
    ];
    if let Some(d) = digest {
        headers.push(("Content-Digest".to_owned(), d));
    }
    headers.push(("SchCP-Agent-Key".to_owned(), agent_key_header(&public)));
    if let Some(m) = mandate {
        headers.push(("SchCP-Mandate".to_owned(), m.to_owned()));
    }
    headers
}

/// A request as received, transport-free. Header names compare
/// case-insensitively; values are the raw bytes.
#[derive(Debug, Clone)]
pub struct RequestParts<'a> {
    pub method: &'a str,
    /// The URL the agent addressed (§3.2 "@target-uri").
    pub target_uri: &'a str,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: &'a [u8],
}

/// An agent whose request signature verified.
#[derive(Debug, Clone)]
pub struct VerifiedAgent {
    pub jwk: Jwk,
    pub key: VerifyingKey,
    /// The RFC 7638 thumbprint of `jwk`: the agent's identity (= `keyid`).
    pub jkt: String,
    pub created: i64,
    pub nonce: String,
}

impl RequestParts<'_> {
    /// The one value of a header, or `None`. Two fields of the same name are
    /// refused rather than combined, so there is only one reading; a value
    /// must be visible ASCII (RFC 9421 §2.1 strips surrounding whitespace).
    fn single(&self, name: &str) -> Result<Option<&str>, SigError> {
        let mut found = self.headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name));
        let Some((_, first)) = found.next() else { return Ok(None) };
        if found.next().is_some() {
            return Err(match name {
                SIGNATURE_INPUT | SIGNATURE => bad("a second signature: a request carries exactly one (§3.2)"),
                _ => bad(format!("two {name} header fields")),
            });
        }
        let text = std::str::from_utf8(first)
            .ok()
            .filter(|t| t.bytes().all(|b| b == b'\t' || (0x20..0x7f).contains(&b)))
            .ok_or_else(|| bad(format!("{name} is not visible ASCII")))?;
        Ok(Some(text.trim_matches([' ', '\t'])))
    }
}

/// Verifies a request's §3.2 signature exactly, and only then spends its nonce.
///
/// `now` is the verifier's clock in Unix seconds. The (keyid, nonce) pair is
/// remembered in `nonces` only once the signature has verified, so a forged
/// request cannot spend someone else's nonce (§3.2).
pub fn verify_request(req: &RequestParts<'_>, now: i64, nonces: &NonceCache) -> Result<VerifiedAgent, SigError> {
    let input = req.single(SIGNATURE_INPUT)?.ok_or_else(|| bad("unsigned: no Signature-Input (§3.2)"))?;
    let signature = req.single(SIGNATURE)?.ok_or_else(|| bad("unsigned: no Signature (§3.2)"))?;
    let agent_key = req.single(AGENT_KEY)?.ok_or_else(|| bad("no SchCP-Agent-Key (§3.2)"))?;
    let mandate = req.single(MANDATE)?;
    // §3.2: "A request whose body is empty (zero bytes) is bodiless."
    let has_digest = !req.body.is_empty();

    let params = parse_signature_input(input, has_digest, mandate.is_some())?;
    if now.abs_diff(params.created) > MAX_SKEW_SECS as u64 {
        return Err(SigError::Stale { created: params.created, now });
    }
    // §3.2 remembers a nonce until created + 301 s; the memory is this
    // process's, so a signature older than the process could be a replay of
    // one the previous process accepted. Same second allowed: `created` has
    // one-second resolution, and an agent's first call after a start is in it.
    if let Some(since) = nonces.began(now) {
        if params.created < since {
            return Err(SigError::BeforeMemory { created: params.created, since });
        }
    }

    let (jwk, key) =
        schcp::jwk::parse_agent_key(agent_key).map_err(|e| bad(format!("SchCP-Agent-Key: {e} (§3.1, §3.2)")))?;
    let jkt = jwk.thumbprint().map_err(|e| bad(format!("SchCP-Agent-Key: {e}")))?;
    if params.keyid != jkt {
        return Err(bad("keyid is not the thumbprint of SchCP-Agent-Key (§3.2)"));
    }
    match schcp::b64::decode(&params.nonce) {
        Ok(n) if n.len() >= MIN_NONCE_BYTES => {}
        Ok(_) => return Err(bad("nonce is shorter than 16 bytes (§3.2)")),
        Err(e) => return Err(bad(format!("nonce is not base64url: {e} (§3.2)"))),
    }

    let digest = if has_digest {
        let value =
            req.single(CONTENT_DIGEST)?.ok_or_else(|| bad("a request with a body needs Content-Digest (§3.2)"))?;
        check_content_digest(value, req.body)?;
        Some(value)
    } else {
        None
    };

    let sig = parse_signature(signature)?;
    let base = signature_base(req.method, req.target_uri, digest, mandate, &params);
    key.verify_strict(base.as_bytes(), &sig)
        .map_err(|_| bad("the signature does not verify over the signature base (§3.2)"))?;

    // Only now, with the signature verified, is the nonce spent (§3.2). The
    // check and the insert are one step under the lock, so two copies of one
    // request racing each other cannot both pass.
    nonces.remember(&params.keyid, &params.nonce, params.created + NONCE_MEMORY_SECS, now)?;
    Ok(VerifiedAgent { jwk, key, jkt, created: params.created, nonce: params.nonce })
}

// ---------------------------------------------------------------------------
// Parsing the three structured fields (RFC 8941), just far enough to refuse
// everything but §3.2's one form with a specific reason.

struct Cursor<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Cursor<'a> {
    fn new(s: &'a str) -> Self {
        Cursor { s, i: 0 }
    }
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.i).copied()
    }
    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn at_end(&self) -> bool {
        self.i >= self.s.len()
    }
    fn skip(&mut self, set: &[u8]) {
        while self.peek().is_some_and(|b| set.contains(&b)) {
            self.i += 1;
        }
    }
    fn rest(&self) -> &'a str {
        &self.s[self.i..]
    }
    /// An RFC 8941 key: lcalpha / "*", then lcalpha / DIGIT / "_" / "-" / "." / "*".
    fn key(&mut self) -> Option<&'a str> {
        let start = self.i;
        if !self.peek().is_some_and(|b| b.is_ascii_lowercase() || b == b'*') {
            return None;
        }
        self.skip(b"abcdefghijklmnopqrstuvwxyz0123456789_-.*");
        Some(&self.s[start..self.i])
    }
    /// An sf-string after its opening quote.
    fn string(&mut self) -> Result<String, SigError> {
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return Err(bad("unterminated string")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    match self.peek() {
                        Some(c @ (b'"' | b'\\')) => out.push(c as char),
                        _ => return Err(bad("bad escape in string")),
                    }
                    self.i += 1;
                }
                Some(c) => {
                    out.push(c as char);
                    self.i += 1;
                }
            }
        }
    }
    /// Runs of a byte class (for integers and byte sequences).
    fn take_while(&mut self, f: impl Fn(u8) -> bool) -> &'a str {
        let start = self.i;
        while self.peek().is_some_and(&f) {
            self.i += 1;
        }
        &self.s[start..self.i]
    }
    /// After a dictionary member: the end, or a second member.
    fn end_of_dictionary(&mut self, field: &str, second: &str) -> Result<(), SigError> {
        self.skip(b" \t");
        if self.at_end() {
            Ok(())
        } else if self.peek() == Some(b',') {
            Err(bad(second.to_owned()))
        } else {
            Err(bad(format!("{field}: unexpected {:?}", self.rest())))
        }
    }
}

enum ParamValue {
    Integer(String),
    Str(String),
    /// A token, boolean or anything else §3.2 never uses.
    Other,
}

/// Parses `Signature-Input` and holds it to the exact form for this request.
fn parse_signature_input(value: &str, has_digest: bool, has_mandate: bool) -> Result<SigParams, SigError> {
    const SECOND: &str = "a second signature: a request carries exactly one, labelled schcp (§3.2)";
    let mut c = Cursor::new(value);
    let label = c.key().ok_or_else(|| bad("Signature-Input is not a dictionary"))?;
    if label != LABEL {
        return Err(bad(format!("signature label {label:?}: only \"schcp\" is accepted (§3.2)")));
    }
    if !c.eat(b'=') || !c.eat(b'(') {
        return Err(bad("Signature-Input: schcp is not an inner list"));
    }
    let member_start = c.i - 1;
    let mut covered = Vec::new();
    loop {
        c.skip(b" ");
        if c.eat(b')') {
            break;
        }
        if !c.eat(b'"') {
            return Err(bad(
                "Signature-Input: a component is not a string (component parameters are not part of §3.2)",
            ));
        }
        covered.push(c.string()?);
        if !matches!(c.peek(), Some(b' ' | b')')) {
            return Err(bad("Signature-Input: malformed component list"));
        }
    }
    let mut params: Vec<(&str, ParamValue)> = Vec::new();
    while c.eat(b';') {
        c.skip(b" ");
        let name = c.key().ok_or_else(|| bad("Signature-Input: malformed parameter"))?;
        let v = if c.eat(b'=') {
            if c.eat(b'"') {
                ParamValue::Str(c.string()?)
            } else if c.peek().is_some_and(|b| b.is_ascii_digit() || b == b'-') {
                ParamValue::Integer(c.take_while(|b| b.is_ascii_digit() || b == b'-').to_owned())
            } else {
                c.take_while(|b| !matches!(b, b';' | b',' | b' '));
                ParamValue::Other
            }
        } else {
            ParamValue::Other
        };
        params.push((name, v));
    }
    let member = &value[member_start..c.i];
    c.end_of_dictionary("Signature-Input", SECOND)?;

    let expected = components(has_digest, has_mandate);
    if covered != expected {
        return Err(bad(format!(
            "covered components {covered:?}; this request needs exactly {expected:?} in that order \
             (§3.2: content-digest iff there is a body, schcp-mandate iff a mandate is sent)"
        )));
    }
    let names: Vec<&str> = params.iter().map(|(n, _)| *n).collect();
    if names != ["created", "keyid", "nonce", "alg"] {
        return Err(bad(format!(
            "signature parameters {names:?}; §3.2 takes exactly created, keyid, nonce, alg in that order"
        )));
    }
    let mut values = params.into_iter().map(|(_, v)| v);
    let created = match values.next() {
        Some(ParamValue::Integer(t)) => {
            t.parse::<i64>().ok().filter(|_| t.len() <= 15).ok_or_else(|| bad("created is not an integer"))?
        }
        _ => return Err(bad("created is not an integer")),
    };
    let Some(ParamValue::Str(keyid)) = values.next() else { return Err(bad("keyid is not a string")) };
    let Some(ParamValue::Str(nonce)) = values.next() else { return Err(bad("nonce is not a string")) };
    match values.next() {
        Some(ParamValue::Str(alg)) if alg == "ed25519" => {}
        _ => return Err(bad("alg must be \"ed25519\" (§3.2)")),
    }
    let params = SigParams { created, keyid, nonce };
    // Whatever the structure, the bytes must be the one exact form: no extra
    // spaces, escapes or leading zeros, so every implementation signs the same
    // base (§3.2 "One exact form").
    if member != signature_params(has_digest, has_mandate, &params) {
        return Err(bad("Signature-Input is not in §3.2's exact form"));
    }
    Ok(params)
}

/// Parses `Signature: schcp=:<standard base64>:` into an Ed25519 signature.
fn parse_signature(value: &str) -> Result<Signature, SigError> {
    let mut c = Cursor::new(value);
    let label = c.key().ok_or_else(|| bad("Signature is not a dictionary"))?;
    if label != LABEL {
        return Err(bad(format!("signature label {label:?}: only \"schcp\" is accepted (§3.2)")));
    }
    let bytes = byte_sequence(&mut c, "Signature")?;
    c.end_of_dictionary("Signature", "a second signature: a request carries exactly one (§3.2)")?;
    let bytes: [u8; 64] = bytes.try_into().map_err(|_| bad("Signature is not 64 bytes"))?;
    Ok(Signature::from_bytes(&bytes))
}

/// `=:<base64>:` of a dictionary member, decoded strictly (RFC 8941 byte
/// sequences are standard base64 with padding); no parameters.
fn byte_sequence(c: &mut Cursor<'_>, field: &str) -> Result<Vec<u8>, SigError> {
    if !c.eat(b'=') || !c.eat(b':') {
        return Err(bad(format!("{field}: not a byte sequence")));
    }
    let text = c.take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    if !c.eat(b':') {
        return Err(bad(format!("{field}: malformed byte sequence")));
    }
    if c.peek() == Some(b';') {
        return Err(bad(format!("{field}: parameters are not part of §3.2")));
    }
    // The STANDARD engine requires canonical padding and zero trailing bits.
    STANDARD.decode(text).map_err(|_| bad(format!("{field}: not standard base64")))
}

/// Checks `Content-Digest` is exactly one `sha-256` member equal to the SHA-256
/// of the body's exact bytes (§3.2, RFC 9530). Another algorithm, alone or
/// beside sha-256, is refused: §3.2 names sha-256, and a second digest the key
/// app does not check would be a second reading of the same field.
fn check_content_digest(value: &str, body: &[u8]) -> Result<(), SigError> {
    let mut c = Cursor::new(value);
    let mut members = Vec::new();
    loop {
        c.skip(b" \t");
        let name = c.key().ok_or_else(|| bad("Content-Digest is not a dictionary (RFC 9530)"))?;
        let bytes = byte_sequence(&mut c, "Content-Digest")?;
        members.push((name, bytes));
        c.skip(b" \t");
        if c.at_end() {
            break;
        }
        if !c.eat(b',') {
            return Err(bad("Content-Digest is not a dictionary (RFC 9530)"));
        }
    }
    match members.as_slice() {
        [("sha-256", digest)] => {
            if digest.as_slice() == &Sha256::digest(body)[..] {
                Ok(())
            } else {
                Err(bad("Content-Digest does not match the body (§3.2: recomputed over its exact bytes)"))
            }
        }
        m if m.iter().any(|(n, _)| *n == "sha-256") => Err(bad("Content-Digest must carry sha-256 alone (§3.2)")),
        _ => Err(bad("Content-Digest has no sha-256 digest (§3.2)")),
    }
}

// ---------------------------------------------------------------------------

/// The replay memory of §3.2: each (keyid, nonce) whose signature verified,
/// until `created + 301 s`.
///
/// Bound: because `created` is within 300 s of the clock, an entry lives at
/// most 601 s, so the map holds at most the verified requests of the last
/// ~10 minutes; and never more than `capacity` entries (each a 32-byte hash
/// of the pair plus its expiry: 82 bytes with the table's overhead, measured
/// by `benches/memory.rs`, so the default 2^17 entries hold at most about
/// 10 MiB, reached only under a sustained ~218 verified requests a second; a
/// person's agents make a few a minute). At capacity, after pruning, a new
/// request is refused (`SigError::Busy`) rather than a live nonce forgotten.
/// Expired entries are pruned on insert, amortized: a full sweep whenever the
/// map has doubled since the last one (and whenever it reaches capacity).
#[derive(Debug)]
pub struct NonceCache {
    inner: Mutex<NonceInner>,
    capacity: usize,
    /// When the memory began: the wall-clock second then and the monotonic
    /// instant, so a wall clock stepped later (time sync, a resumed VM) moves
    /// the bound with it. Signatures created earlier are refused. `None`: no
    /// such bound (a memory that outlives restarts, or a test).
    remembers_since: Option<(i64, std::time::Instant)>,
}

#[derive(Debug)]
struct NonceInner {
    /// SHA-256 of the pair → the last second it must be remembered.
    seen: HashMap<[u8; 32], i64>,
    sweep_at: usize,
}

impl Default for NonceCache {
    fn default() -> Self {
        NonceCache::new()
    }
}

impl NonceCache {
    pub const DEFAULT_CAPACITY: usize = 1 << 17;
    const MIN_SWEEP: usize = 1024;

    pub fn new() -> Self {
        NonceCache::with_capacity(Self::DEFAULT_CAPACITY)
    }

    pub fn with_capacity(capacity: usize) -> Self {
        NonceCache {
            inner: Mutex::new(NonceInner { seen: HashMap::new(), sweep_at: Self::MIN_SWEEP }),
            capacity: capacity.max(1),
            remembers_since: None,
        }
    }

    /// A memory that began at `since` (Unix seconds): signatures created before
    /// it are refused (`SigError::BeforeMemory`), since their nonces may have
    /// been spent with a memory now gone.
    pub fn remembering_since(mut self, since: i64) -> Self {
        self.remembers_since = Some((since, std::time::Instant::now()));
        self
    }

    /// The wall-clock second the memory began, as the clock `now` reads it:
    /// the start, moved by however much the wall clock was stepped since.
    fn began(&self, now: i64) -> Option<i64> {
        let (since, at) = self.remembers_since?;
        let elapsed = i64::try_from(at.elapsed().as_secs()).unwrap_or(i64::MAX);
        // Unstepped, `now - elapsed` is `since` or a second after it (the
        // fractions of the two readings); a step shows as a larger difference.
        let moved = now.saturating_sub(elapsed);
        Some(if moved.abs_diff(since) <= 1 { since } else { moved })
    }

    /// Entries held, expired ones not yet swept included.
    pub fn len(&self) -> usize {
        self.lock().seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, NonceInner> {
        // Each operation leaves the map consistent, so a panic elsewhere while
        // holding the lock does not make it unsafe to keep using.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Remembers the pair until `until` (inclusive), or refuses it as a replay
    /// if it is already remembered and not yet expired.
    pub fn remember(&self, keyid: &str, nonce: &str, until: i64, now: i64) -> Result<(), SigError> {
        let k = pair_key(keyid, nonce);
        let mut g = self.lock();
        if g.seen.get(&k).is_some_and(|&exp| exp >= now) {
            return Err(SigError::Replayed);
        }
        if g.seen.len() >= g.sweep_at || g.seen.len() >= self.capacity {
            let mut earliest = i64::MAX;
            g.seen.retain(|_, exp| {
                let live = *exp >= now;
                if live {
                    earliest = earliest.min(*exp);
                }
                live
            });
            g.sweep_at = (g.seen.len() * 2).max(Self::MIN_SWEEP);
            if g.seen.len() >= self.capacity {
                let retry_after = (earliest.saturating_sub(now) + 1).clamp(1, NONCE_MEMORY_SECS * 2) as u64;
                return Err(SigError::Busy { retry_after });
            }
        }
        g.seen.insert(k, until);
        Ok(())
    }
}

/// A fixed-size key for the pair; the length prefix keeps (a, bc) and (ab, c) apart.
fn pair_key(keyid: &str, nonce: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update((keyid.len() as u64).to_be_bytes());
    h.update(keyid.as_bytes());
    h.update(nonce.as_bytes());
    h.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_792_000_000;
    const URL: &str = "http://127.0.0.1:7411/v1/requests";
    const BODY: &[u8] = br#"{"kind":"mandate"}"#;

    fn agent() -> SigningKey {
        SigningKey::from_bytes(&[7u8; 32])
    }

    fn nonce(i: u8) -> String {
        schcp::b64::encode([i; 16])
    }

    /// A signed request's headers, as raw (name, bytes) pairs.
    fn signed(method: &str, url: &str, body: &[u8], created: i64, n: &str) -> Vec<(String, Vec<u8>)> {
        sign_request(method, url, body, None, &agent(), created, n)
            .into_iter()
            .map(|(k, v)| (k, v.into_bytes()))
            .collect()
    }

    fn verify(
        method: &str,
        url: &str,
        body: &[u8],
        headers: Vec<(String, Vec<u8>)>,
    ) -> Result<VerifiedAgent, SigError> {
        verify_at(method, url, body, headers, NOW, &NonceCache::new())
    }

    fn verify_at(
        method: &str,
        url: &str,
        body: &[u8],
        headers: Vec<(String, Vec<u8>)>,
        now: i64,
        nonces: &NonceCache,
    ) -> Result<VerifiedAgent, SigError> {
        verify_request(&RequestParts { method, target_uri: url, headers, body }, now, nonces)
    }

    fn get<'h>(h: &'h [(String, Vec<u8>)], name: &str) -> &'h str {
        std::str::from_utf8(&h.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).unwrap().1).unwrap()
    }

    fn set(h: &mut Vec<(String, Vec<u8>)>, name: &str, value: &str) {
        h.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        h.push((name.to_owned(), value.as_bytes().to_vec()));
    }

    fn remove(h: &mut Vec<(String, Vec<u8>)>, name: &str) {
        h.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    }

    /// Re-signs an arbitrary Signature-Input with the agent's key, so a test
    /// of a form rule fails on the form, not on the signature.
    fn resign(h: &mut Vec<(String, Vec<u8>)>, method: &str, url: &str, digest: Option<&str>, params_value: &str) {
        let mut base = format!("\"@method\": {method}\n\"@target-uri\": {url}\n");
        if let Some(d) = digest {
            base.push_str(&format!("\"content-digest\": {d}\n"));
        }
        base.push_str(&format!("\"@signature-params\": {params_value}"));
        let sig = agent().sign(base.as_bytes());
        set(h, "Signature-Input", &format!("schcp={params_value}"));
        set(h, "Signature", &format!("schcp=:{}:", STANDARD.encode(sig.to_bytes())));
    }

    fn is_bad(r: Result<VerifiedAgent, SigError>, needle: &str) {
        match r {
            Err(SigError::Bad(d)) => assert!(d.contains(needle), "detail {d:?} lacks {needle:?}"),
            other => panic!("expected Bad({needle:?}), got {other:?}"),
        }
    }

    fn keyid() -> String {
        Jwk::ed25519(&agent().verifying_key()).thumbprint().unwrap()
    }

    #[test]
    fn signature_base_is_the_section_3_2_form() {
        let p = SigParams { created: 1_792_000_000, keyid: "Z5hJ".into(), nonce: "q3Vh".into() };
        assert_eq!(
            signature_base("POST", "https://h.example/holds", Some("sha-256=:X=:"), Some("m.a.n"), &p),
            "\"@method\": POST\n\"@target-uri\": https://h.example/holds\n\"content-digest\": sha-256=:X=:\n\
             \"schcp-mandate\": m.a.n\n\"@signature-params\": (\"@method\" \"@target-uri\" \"content-digest\" \
             \"schcp-mandate\");created=1792000000;keyid=\"Z5hJ\";nonce=\"q3Vh\";alg=\"ed25519\""
        );
        assert_eq!(
            signature_base("GET", "http://127.0.0.1:7411/v1/principal", None, None, &p),
            "\"@method\": GET\n\"@target-uri\": http://127.0.0.1:7411/v1/principal\n\"@signature-params\": \
             (\"@method\" \"@target-uri\");created=1792000000;keyid=\"Z5hJ\";nonce=\"q3Vh\";alg=\"ed25519\""
        );
    }

    #[test]
    fn sign_request_headers() {
        let h = sign_request("POST", URL, BODY, None, &agent(), NOW, &nonce(1));
        let names: Vec<&str> = h.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Signature-Input", "Signature", "Content-Digest", "SchCP-Agent-Key"]);
        assert!(h[0].1.starts_with("schcp=(\"@method\" \"@target-uri\" \"content-digest\");created=1792000000;"));
        let h = sign_request("GET", URL, b"", None, &agent(), NOW, &nonce(1));
        assert_eq!(h.len(), 3, "no Content-Digest for a bodiless request");
    }

    #[test]
    fn valid_requests_verify() {
        let v = verify("POST", URL, BODY, signed("POST", URL, BODY, NOW, &nonce(1))).unwrap();
        assert_eq!(v.jkt, keyid());
        assert_eq!((v.created, v.nonce.as_str()), (NOW, nonce(1).as_str()));
        assert_eq!(v.key, agent().verifying_key());
        // Bodiless, and header names in another case.
        let h = signed("GET", URL, b"", NOW, &nonce(2)).into_iter().map(|(n, v)| (n.to_ascii_lowercase(), v)).collect();
        verify("GET", URL, b"", h).unwrap();
    }

    #[test]
    fn mandate_is_covered_when_sent() {
        let h: Vec<(String, Vec<u8>)> = sign_request("POST", URL, BODY, Some("a.b.c"), &agent(), NOW, &nonce(1))
            .into_iter()
            .map(|(k, v)| (k, v.into_bytes()))
            .collect();
        assert!(get(&h, "signature-input").contains("\"content-digest\" \"schcp-mandate\")"));
        verify("POST", URL, BODY, h.clone()).unwrap();
        let mut swapped = h.clone();
        set(&mut swapped, "SchCP-Mandate", "x.y.z");
        is_bad(verify("POST", URL, BODY, swapped), "does not verify");
        let mut dropped = h;
        remove(&mut dropped, "SchCP-Mandate");
        is_bad(verify("POST", URL, BODY, dropped), "covered components");
    }

    #[test]
    fn body_changed_after_signing() {
        let h = signed("POST", URL, BODY, NOW, &nonce(1));
        is_bad(verify("POST", URL, br#"{"kind":"rule"}"#, h.clone()), "does not match the body");
        // The digest recomputed for the new body still leaves the signature wrong.
        let mut h2 = h;
        set(&mut h2, "Content-Digest", &content_digest(br#"{"kind":"rule"}"#));
        is_bad(verify("POST", URL, br#"{"kind":"rule"}"#, h2), "does not verify");
    }

    #[test]
    fn body_dropped_after_signing() {
        // Signed with a body, sent bodiless: the components no longer fit.
        is_bad(verify("POST", URL, b"", signed("POST", URL, BODY, NOW, &nonce(1))), "covered components");
        // Signed bodiless, sent with a body: content-digest must be covered.
        let h = signed("POST", URL, b"", NOW, &nonce(1));
        is_bad(verify("POST", URL, BODY, h), "covered components");
    }

    #[test]
    fn digest_missing_wrong_or_other_algorithm() {
        let h = signed("POST", URL, BODY, NOW, &nonce(1));
        let mut missing = h.clone();
        remove(&mut missing, "Content-Digest");
        is_bad(verify("POST", URL, BODY, missing), "needs Content-Digest");

        let mut wrong = h.clone();
        set(&mut wrong, "Content-Digest", &content_digest(b"other"));
        is_bad(verify("POST", URL, BODY, wrong), "does not match the body");

        let sha512 =
            "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:";
        let mut other = h.clone();
        set(&mut other, "Content-Digest", sha512);
        is_bad(verify("POST", URL, BODY, other), "no sha-256");

        let mut both = h.clone();
        set(&mut both, "Content-Digest", &format!("{}, {sha512}", content_digest(BODY)));
        is_bad(verify("POST", URL, BODY, both), "sha-256 alone");

        let mut twice = h.clone();
        twice.push(("content-digest".into(), content_digest(BODY).into_bytes()));
        is_bad(verify("POST", URL, BODY, twice), "two content-digest");

        let mut unpadded = h;
        let d = content_digest(BODY);
        set(&mut unpadded, "Content-Digest", &d.replace("=:", ":").replacen("sha-256:", "sha-256=:", 1));
        is_bad(verify("POST", URL, BODY, unpadded), "standard base64");
    }

    #[test]
    fn component_order_changed() {
        let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
        let d = content_digest(BODY);
        let p = format!(
            "(\"@target-uri\" \"@method\" \"content-digest\");created={NOW};keyid=\"{}\";nonce=\"{}\";alg=\"ed25519\"",
            keyid(),
            nonce(1)
        );
        resign(&mut h, "POST", URL, Some(&d), &p);
        is_bad(verify("POST", URL, BODY, h), "covered components");
    }

    #[test]
    fn parameter_rules() {
        let d = content_digest(BODY);
        let (k, n) = (keyid(), nonce(1));
        let cases = [
            // An extra parameter.
            (format!("(\"@method\" \"@target-uri\" \"content-digest\");created={NOW};keyid=\"{k}\";nonce=\"{n}\";alg=\"ed25519\";expires={}", NOW + 60), "signature parameters"),
            (format!("(\"@method\" \"@target-uri\" \"content-digest\");created={NOW};expires={};keyid=\"{k}\";nonce=\"{n}\";alg=\"ed25519\"", NOW + 60), "signature parameters"),
            // A missing one.
            (format!("(\"@method\" \"@target-uri\" \"content-digest\");created={NOW};keyid=\"{k}\";alg=\"ed25519\""), "signature parameters"),
            (format!("(\"@method\" \"@target-uri\" \"content-digest\");created={NOW};keyid=\"{k}\";nonce=\"{n}\""), "signature parameters"),
            // Out of order.
            (format!("(\"@method\" \"@target-uri\" \"content-digest\");keyid=\"{k}\";created={NOW};nonce=\"{n}\";alg=\"ed25519\""), "signature parameters"),
            // Another alg.
            (format!("(\"@method\" \"@target-uri\" \"content-digest\");created={NOW};keyid=\"{k}\";nonce=\"{n}\";alg=\"rsa-pss-sha512\""), "alg must be"),
            (format!("(\"@method\" \"@target-uri\" \"content-digest\");created={NOW};keyid=\"{k}\";nonce=\"{n}\";alg=ed25519"), "alg must be"),
            // Not the exact bytes: a leading zero, an extra space, an escape.
            (format!("(\"@method\" \"@target-uri\" \"content-digest\");created=0{NOW};keyid=\"{k}\";nonce=\"{n}\";alg=\"ed25519\""), "exact form"),
            (format!("(\"@method\"  \"@target-uri\" \"content-digest\");created={NOW};keyid=\"{k}\";nonce=\"{n}\";alg=\"ed25519\""), "exact form"),
            (format!("(\"@method\" \"@target-uri\" \"content-digest\");created={NOW};keyid=\"{k}\";nonce=\"\\{n}\";alg=\"ed25519\""), "bad escape"),
        ];
        for (p, needle) in cases {
            let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
            resign(&mut h, "POST", URL, Some(&d), &p);
            is_bad(verify("POST", URL, BODY, h), needle);
        }
    }

    #[test]
    fn label_other_than_schcp() {
        let h = signed("POST", URL, BODY, NOW, &nonce(1));
        let mut input = h.clone();
        let v = get(&h, "signature-input").replacen("schcp=", "sig1=", 1);
        set(&mut input, "Signature-Input", &v);
        is_bad(verify("POST", URL, BODY, input), "label \"sig1\"");
        let mut sig = h.clone();
        let v = get(&h, "signature").replacen("schcp=", "sig1=", 1);
        set(&mut sig, "Signature", &v);
        is_bad(verify("POST", URL, BODY, sig), "label \"sig1\"");
    }

    #[test]
    fn two_signatures() {
        let h = signed("POST", URL, BODY, NOW, &nonce(1));
        let other = signed("POST", URL, BODY, NOW, &nonce(2));
        // Two members in one field.
        let mut one_field = h.clone();
        let v = format!(
            "{}, {}",
            get(&h, "signature-input"),
            get(&other, "signature-input").replacen("schcp=", "sig2=", 1)
        );
        set(&mut one_field, "Signature-Input", &v);
        is_bad(verify("POST", URL, BODY, one_field), "a second signature");
        let mut sig_field = h.clone();
        let v = format!("{}, {}", get(&h, "signature"), get(&other, "signature").replacen("schcp=", "sig2=", 1));
        set(&mut sig_field, "Signature", &v);
        is_bad(verify("POST", URL, BODY, sig_field), "a second signature");
        // Two fields.
        let mut two_fields = h.clone();
        two_fields.push(("signature-input".into(), get(&other, "signature-input").as_bytes().to_vec()));
        two_fields.push(("signature".into(), get(&other, "signature").as_bytes().to_vec()));
        is_bad(verify("POST", URL, BODY, two_fields), "a second signature");
    }

    #[test]
    fn unsigned() {
        let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
        remove(&mut h, "Signature-Input");
        is_bad(verify("POST", URL, BODY, h), "unsigned");
        let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
        remove(&mut h, "Signature");
        is_bad(verify("POST", URL, BODY, h), "unsigned");
        is_bad(verify("GET", URL, b"", vec![]), "unsigned");
    }

    #[test]
    fn keyid_must_be_the_agent_keys_thumbprint() {
        let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
        // A different (valid) key in SchCP-Agent-Key.
        let other = SigningKey::from_bytes(&[9u8; 32]).verifying_key();
        set(&mut h, "SchCP-Agent-Key", &agent_key_header(&other));
        is_bad(verify("POST", URL, BODY, h), "keyid is not the thumbprint");
        // Missing altogether.
        let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
        remove(&mut h, "SchCP-Agent-Key");
        is_bad(verify("POST", URL, BODY, h), "no SchCP-Agent-Key");
    }

    #[test]
    fn agent_key_with_d_or_duplicate_member() {
        let x = schcp::b64::encode(agent().verifying_key().as_bytes());
        let d = schcp::b64::encode([7u8; 32]);
        for json in [
            format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{x}","d":"{d}"}}"#),
            format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{x}","x":"{x}"}}"#),
            format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{x}","use":"sig"}}"#),
        ] {
            let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
            set(&mut h, "SchCP-Agent-Key", &schcp::b64::encode(json));
            is_bad(verify("POST", URL, BODY, h), "SchCP-Agent-Key");
        }
        // Member order and a kid do not matter: the thumbprint is computed.
        let mut h = signed("POST", URL, BODY, NOW, &nonce(1));
        let json = format!(r#"{{"x":"{x}","kid":"k1","crv":"Ed25519","kty":"OKP"}}"#);
        set(&mut h, "SchCP-Agent-Key", &schcp::b64::encode(json));
        verify("POST", URL, BODY, h).unwrap();
    }

    #[test]
    fn stale_at_301_seconds_either_way_fresh_at_300() {
        for (created, stale) in [(NOW - 301, true), (NOW + 301, true), (NOW - 300, false), (NOW + 300, false)] {
            let h = signed("POST", URL, BODY, created, &nonce(1));
            match verify("POST", URL, BODY, h) {
                Err(SigError::Stale { created: c, now }) => assert!(stale && c == created && now == NOW),
                Ok(_) => assert!(!stale, "created {created} should be stale"),
                other => panic!("{other:?}"),
            }
        }
    }

    /// A restarted key app cannot know which nonces its previous run spent, so a
    /// signature older than its memory is refused; one from its first second on
    /// is checked as usual, and the refusal spends no nonce.
    #[test]
    fn a_signature_older_than_the_replay_memory_is_refused() {
        let cache = NonceCache::new().remembering_since(NOW);
        let before = signed("POST", URL, BODY, NOW - 10, &nonce(1));
        assert_eq!(
            verify_at("POST", URL, BODY, before, NOW, &cache).unwrap_err(),
            SigError::BeforeMemory { created: NOW - 10, since: NOW }
        );
        assert!(cache.is_empty());
        let at_start = signed("POST", URL, BODY, NOW, &nonce(1));
        verify_at("POST", URL, BODY, at_start.clone(), NOW, &cache).unwrap();
        assert_eq!(verify_at("POST", URL, BODY, at_start, NOW, &cache).unwrap_err(), SigError::Replayed);
        // Without a start, the window alone bounds it.
        let before = signed("POST", URL, BODY, NOW - 10, &nonce(2));
        verify_at("POST", URL, BODY, before, NOW, &NonceCache::new()).unwrap();
    }

    /// A wall clock stepped back after the start (time sync, a resumed VM) moves
    /// the bound with it, so agents signing by the same clock are not locked out.
    #[test]
    fn the_memorys_start_follows_a_stepped_wall_clock() {
        let cache = NonceCache::new().remembering_since(NOW);
        assert_eq!(cache.began(NOW), Some(NOW));
        assert_eq!(cache.began(NOW + 1), Some(NOW), "a second's fraction is not a step");
        assert_eq!(cache.began(NOW - 120), Some(NOW - 120));
        let h = signed("POST", URL, BODY, NOW - 100, &nonce(3));
        verify_at("POST", URL, BODY, h, NOW - 100, &cache).unwrap();
        assert_eq!(NonceCache::new().began(NOW), None);
    }

    #[test]
    fn replayed_nonce_is_refused_until_created_plus_301() {
        let cache = NonceCache::new();
        let h = signed("POST", URL, BODY, NOW, &nonce(1));
        verify_at("POST", URL, BODY, h.clone(), NOW, &cache).unwrap();
        assert_eq!(verify_at("POST", URL, BODY, h.clone(), NOW, &cache).unwrap_err(), SigError::Replayed);
        assert_eq!(verify_at("POST", URL, BODY, h.clone(), NOW + 300, &cache).unwrap_err(), SigError::Replayed);
        // The same nonce on another request of the same key is a replay too.
        let other = signed("GET", URL, b"", NOW, &nonce(1));
        assert_eq!(verify_at("GET", URL, b"", other, NOW, &cache).unwrap_err(), SigError::Replayed);
        // Another key may use the same nonce: the memory is per (keyid, nonce).
        let k2 = SigningKey::from_bytes(&[8u8; 32]);
        let h2 = sign_request("POST", URL, BODY, None, &k2, NOW, &nonce(1));
        let h2 = h2.into_iter().map(|(k, v)| (k, v.into_bytes())).collect();
        verify_at("POST", URL, BODY, h2, NOW, &cache).unwrap();
        // Past created + 300 the signature itself is stale.
        assert!(matches!(verify_at("POST", URL, BODY, h, NOW + 301, &cache), Err(SigError::Stale { .. })));
    }

    #[test]
    fn a_forged_request_does_not_spend_the_nonce() {
        let cache = NonceCache::new();
        let genuine = signed("POST", URL, BODY, NOW, &nonce(3));
        // Someone who saw the nonce (but not the key) signs with another key
        // while claiming this agent's key: the signature fails...
        let forger = SigningKey::from_bytes(&[66u8; 32]);
        let mut forged: Vec<(String, Vec<u8>)> = sign_request("POST", URL, BODY, None, &forger, NOW, &nonce(3))
            .into_iter()
            .map(|(k, v)| (k, v.into_bytes()))
            .collect();
        set(&mut forged, "SchCP-Agent-Key", get(&genuine, "schcp-agent-key"));
        let fi = get(&forged, "signature-input")
            .replace(&Jwk::ed25519(&forger.verifying_key()).thumbprint().unwrap(), &keyid());
        set(&mut forged, "Signature-Input", &fi);
        is_bad(verify_at("POST", URL, BODY, forged, NOW, &cache), "does not verify");
        // ...a corrupted signature too...
        let mut corrupted = genuine.clone();
        let mut sig =
            STANDARD.decode(get(&genuine, "signature").trim_start_matches("schcp=:").trim_end_matches(':')).unwrap();
        sig[0] ^= 1;
        set(&mut corrupted, "Signature", &format!("schcp=:{}:", STANDARD.encode(sig)));
        is_bad(verify_at("POST", URL, BODY, corrupted, NOW, &cache), "does not verify");
        assert!(cache.is_empty());
        // ...and the genuine request with the same nonce still passes, once.
        verify_at("POST", URL, BODY, genuine.clone(), NOW, &cache).unwrap();
        assert_eq!(verify_at("POST", URL, BODY, genuine, NOW, &cache).unwrap_err(), SigError::Replayed);
    }

    #[test]
    fn short_or_malformed_nonce() {
        for n in [schcp::b64::encode([1u8; 15]), format!("{}=", schcp::b64::encode([1u8; 16])), "+".repeat(24)] {
            let h = signed("POST", URL, BODY, NOW, &n);
            is_bad(verify("POST", URL, BODY, h), "nonce");
        }
        // 16 bytes is the minimum: 22 characters.
        assert_eq!(nonce(1).len(), 22);
        verify("POST", URL, BODY, signed("POST", URL, BODY, NOW, &nonce(1))).unwrap();
    }

    #[test]
    fn target_uri_and_method_mismatch() {
        let h = signed("POST", "http://127.0.0.1:7411/v1/pairings", BODY, NOW, &nonce(1));
        is_bad(verify("POST", URL, BODY, h), "does not verify");
        let h = signed("POST", "http://localhost:7411/v1/requests", BODY, NOW, &nonce(1));
        is_bad(verify("POST", URL, BODY, h), "does not verify");
        let h = signed("PUT", URL, BODY, NOW, &nonce(1));
        is_bad(verify("POST", URL, BODY, h), "does not verify");
        let h = signed("GET", URL, b"", NOW, &nonce(1));
        is_bad(verify("DELETE", URL, b"", h), "does not verify");
    }

    #[test]
    fn signature_header_form() {
        let h = signed("POST", URL, BODY, NOW, &nonce(1));
        let good = get(&h, "signature").to_owned();
        let b64 = good.trim_start_matches("schcp=:").trim_end_matches(':').to_owned();
        let url_safe = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(STANDARD.decode(&b64).unwrap());
        for (v, needle) in [
            (format!("schcp=:{}:", b64.trim_end_matches('=')), "standard base64"),
            (format!("schcp=:{url_safe}:"), "Signature"),
            (format!("schcp=:{b64}:;alg=\"x\""), "parameters"),
            (format!("schcp={b64}"), "not a byte sequence"),
            (format!("schcp=:{}:", STANDARD.encode([0u8; 63])), "64 bytes"),
        ] {
            let mut h2 = h.clone();
            set(&mut h2, "Signature", &v);
            is_bad(verify("POST", URL, BODY, h2), needle);
        }
    }

    #[test]
    fn nonce_cache_prunes_and_is_bounded() {
        let cache = NonceCache::with_capacity(2000);
        for i in 0..1500u32 {
            cache.remember("k", &i.to_string(), NOW + 10, NOW).unwrap();
        }
        // Later, all of those have expired: the sweep on insert clears them.
        for i in 0..600u32 {
            cache.remember("k", &format!("late{i}"), NOW + 700, NOW + 100).unwrap();
        }
        assert!(cache.len() <= 1500, "expired entries were swept, len {}", cache.len());
        // Fill to capacity with live entries: the next one is refused, not a
        // live nonce forgotten.
        let mut i = 0;
        let err = loop {
            match cache.remember("k", &format!("fill{i}"), NOW + 700, NOW + 100) {
                Ok(()) => i += 1,
                Err(e) => break e,
            }
        };
        assert!(matches!(err, SigError::Busy { retry_after } if retry_after >= 1));
        assert_eq!(cache.len(), 2000);
        assert_eq!(cache.remember("k", "late0", NOW + 700, NOW + 100), Err(SigError::Replayed));
        // Once they expire there is room again.
        cache.remember("k", "after", NOW + 2000, NOW + 701).unwrap();
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn nonce_cache_is_shared_across_threads() {
        let cache = std::sync::Arc::new(NonceCache::new());
        let wins: usize = (0..8)
            .map(|_| {
                let c = cache.clone();
                std::thread::spawn(move || c.remember("k", "same", NOW + 301, NOW).is_ok() as usize)
            })
            .map(|t| t.join().unwrap())
            .sum();
        assert_eq!(wins, 1, "exactly one of the racing copies passes");
    }
}
