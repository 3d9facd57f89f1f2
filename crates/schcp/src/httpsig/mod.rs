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
//! `schcp-mandate` when no mandate is sent. The agent API (docs/agent-api.md §1) uses the
//! same profile; it sends no mandate.
//!
//! Everything here is pure: no HTTP types, the clock passed in, the replay
//! memory a value the caller owns ([`NonceMemory`]). The key app's agent API
//! puts it on the wire; an agent signs with [`sign_request`].

use crate::jwk::Jwk;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::{Signer, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};

mod fields;
#[cfg(test)]
mod tests;

use fields::{check_content_digest, parse_signature, parse_signature_input};

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
/// The most a nonce may decode to: eight times the least, more than any
/// fresh random value needs. Every (keyid, nonce) is remembered (§3.2), and
/// an unbounded one would let a signer make that memory, and the index over
/// it, refuse the write (PostgreSQL's index entries stop at about 2.7 kB).
pub const MAX_NONCE_BYTES: usize = 128;

/// The `Signature-Input` header field (RFC 9421), lower case.
pub const SIGNATURE_INPUT: &str = "signature-input";
/// The `Signature` header field (RFC 9421), lower case.
pub const SIGNATURE: &str = "signature";
/// The `Content-Digest` header field (RFC 9530), covered for a request with a body.
pub const CONTENT_DIGEST: &str = "content-digest";
/// The `SchCP-Agent-Key` header field: the agent's public JWK (§3.2).
pub const AGENT_KEY: &str = "schcp-agent-key";
/// The `SchCP-Mandate` header field, covered when a mandate is sent (§3.2).
pub const MANDATE: &str = "schcp-mandate";
/// The `SchCP-Host-Key` header field: a host's public JWK, in the form of
/// `SchCP-Agent-Key`, on a request a host signs with a key of its discovery
/// document (§5.8 signs webhooks so; a signed claim to a status API,
/// docs/agent-api.md "Signed claims", the same way).
pub const HOST_KEY: &str = "schcp-host-key";
/// The `SchCP-Host` header field: the host id a host-signed request is from (§5.8).
pub const HOST: &str = "schcp-host";

/// Why a request signature was refused. Each maps to one §3.2 reason
/// (`ApiError::signature`): `stale_signature`, `replayed_nonce`, and
/// `bad_signature` for everything else.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SigError {
    /// `created` is more than 300 s from the verifier's clock (§3.2).
    #[error("signature created at {created} is more than 300 s from now ({now}) (§3.2)")]
    Stale {
        /// The signature's `created`.
        created: i64,
        /// The verifier's clock.
        now: i64,
    },
    /// The (keyid, nonce) pair was already spent (§3.2).
    #[error("this nonce was already used with this key (§3.2)")]
    Replayed,
    /// Signed before this process's replay memory began (a restart): whether
    /// its nonce was already used cannot be known, so it is refused like a
    /// stale signature, and the agent signs it again.
    #[error(
        "signature created at {created}, before the key app (re)started at {since}; sign the request again (§3.2)"
    )]
    BeforeMemory {
        /// The signature's `created`.
        created: i64,
        /// When the memory began.
        since: i64,
    },
    /// Anything else off the one exact form, or a signature that does not
    /// verify; the text says which.
    #[error("bad signature: {0}")]
    Bad(String),
    /// The replay memory is at its bound: refusing is the only
    /// safe answer, since forgetting a live nonce would allow a replay.
    #[error("too many recent requests to remember; try again in {retry_after} s")]
    Busy {
        /// Seconds until a remembered pair expires and makes room.
        retry_after: u64,
    },
}

pub(crate) fn bad(detail: impl Into<String>) -> SigError {
    SigError::Bad(detail.into())
}

/// The signature parameters a signer chooses; `alg` is always `"ed25519"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigParams {
    /// When the signature was made, Unix seconds.
    pub created: i64,
    /// RFC 7638 thumbprint of the agent key (§3.2).
    pub keyid: String,
    /// At least 16 random bytes, base64url without padding (§3.2).
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
    crate::b64::encode(json)
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
    let mut headers = signed_headers(method, target_uri, body, mandate, agent, created, nonce);
    headers.push(("SchCP-Agent-Key".to_owned(), agent_key_header(&agent.verifying_key())));
    if let Some(m) = mandate {
        headers.push(("SchCP-Mandate".to_owned(), m.to_owned()));
    }
    headers
}

/// Signs a request as a host does with a key of its discovery document (§5.8:
/// the §3.2 profile, no mandate), returning the headers to add:
/// `Signature-Input`, `Signature`, `Content-Digest` (when `body` is not
/// empty), `SchCP-Host-Key` (the key, as `SchCP-Agent-Key` carries an agent's)
/// and `SchCP-Host` naming `host_id`.
pub fn sign_host_request(
    method: &str,
    target_uri: &str,
    body: &[u8],
    host_id: &str,
    key: &SigningKey,
    created: i64,
    nonce: &str,
) -> Vec<(String, String)> {
    let mut headers = signed_headers(method, target_uri, body, None, key, created, nonce);
    headers.push(("SchCP-Host-Key".to_owned(), agent_key_header(&key.verifying_key())));
    headers.push(("SchCP-Host".to_owned(), host_id.to_owned()));
    headers
}

/// `Signature-Input`, `Signature` and, with a body, `Content-Digest`.
fn signed_headers(
    method: &str,
    target_uri: &str,
    body: &[u8],
    mandate: Option<&str>,
    key: &SigningKey,
    created: i64,
    nonce: &str,
) -> Vec<(String, String)> {
    let public = key.verifying_key();
    let keyid = Jwk::ed25519(&public).thumbprint().expect("a real Ed25519 key has a thumbprint");
    let params = SigParams { created, keyid, nonce: nonce.to_owned() };
    let digest = (!body.is_empty()).then(|| content_digest(body));
    let base = signature_base(method, target_uri, digest.as_deref(), mandate, &params);
    let signature = key.sign(base.as_bytes());
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
    headers
}

/// A request as received, transport-free. Header names compare
/// case-insensitively; values are the raw bytes.
#[derive(Debug, Clone)]
pub struct RequestParts<'a> {
    /// The upper-case method.
    pub method: &'a str,
    /// The URL the agent addressed (§3.2 "@target-uri").
    pub target_uri: &'a str,
    /// Every header field as received, name and raw value.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The body's exact bytes (empty for a bodiless request).
    pub body: &'a [u8],
}

/// An agent whose request signature verified.
#[derive(Debug, Clone)]
pub struct VerifiedAgent {
    /// The agent's public key as it sent it (`SchCP-Agent-Key`).
    pub jwk: Jwk,
    /// The same key, parsed.
    pub key: VerifyingKey,
    /// The RFC 7638 thumbprint of `jwk`: the agent's identity (= `keyid`).
    pub jkt: String,
    /// The signature's `created`.
    pub created: i64,
    /// The nonce it spent.
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
pub fn verify_request(
    req: &RequestParts<'_>,
    now: i64,
    nonces: &(impl NonceMemory + ?Sized),
) -> Result<VerifiedAgent, SigError> {
    let verified = verify_unspent(req, AGENT_KEY, now, nonces.began(now))?;
    // Only now, with the signature verified, is the nonce spent (§3.2). The
    // check and the insert are one step under the lock, so two copies of one
    // request racing each other cannot both pass.
    nonces.remember(&verified.jkt, &verified.nonce, verified.remember_until(), now)?;
    Ok(verified)
}

/// Verifies a request's §3.2 signature exactly, the signer's public key read
/// from header `key_header` ([`AGENT_KEY`], or [`HOST_KEY`] for a host), and
/// spends nothing: the caller spends the nonce (until
/// [`VerifiedAgent::remember_until`]) in its own memory, once whatever else it
/// checks of the signer has passed. `began` is [`NonceMemory::began`]: a
/// signature created before the caller's memory began is refused.
pub fn verify_unspent(
    req: &RequestParts<'_>,
    key_header: &str,
    now: i64,
    began: Option<i64>,
) -> Result<VerifiedAgent, SigError> {
    let input = req.single(SIGNATURE_INPUT)?.ok_or_else(|| bad("unsigned: no Signature-Input (§3.2)"))?;
    let signature = req.single(SIGNATURE)?.ok_or_else(|| bad("unsigned: no Signature (§3.2)"))?;
    let key_name = if key_header == AGENT_KEY { "SchCP-Agent-Key" } else { "SchCP-Host-Key" };
    let agent_key = req.single(key_header)?.ok_or_else(|| bad(format!("no {key_name} (§3.2)")))?;
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
    if let Some(since) = began {
        if params.created < since {
            return Err(SigError::BeforeMemory { created: params.created, since });
        }
    }

    let (jwk, key) =
        crate::jwk::parse_agent_key(agent_key).map_err(|e| bad(format!("{key_name}: {e} (§3.1, §3.2)")))?;
    let jkt = jwk.thumbprint().map_err(|e| bad(format!("{key_name}: {e}")))?;
    if params.keyid != jkt {
        return Err(bad(format!("keyid is not the thumbprint of {key_name} (§3.2)")));
    }
    match crate::b64::decode(&params.nonce) {
        Ok(n) if (MIN_NONCE_BYTES..=MAX_NONCE_BYTES).contains(&n.len()) => {}
        Ok(n) if n.len() > MAX_NONCE_BYTES => return Err(bad("nonce is longer than 128 bytes")),
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
    Ok(VerifiedAgent { jwk, key, jkt, created: params.created, nonce: params.nonce })
}

impl VerifiedAgent {
    /// The last second its (keyid, nonce) must be remembered: `created + 301 s` (§3.2).
    pub fn remember_until(&self) -> i64 {
        self.created + NONCE_MEMORY_SECS
    }
}

/// The replay memory §3.2 asks of a verifier: every (keyid, nonce) whose
/// signature verified, remembered until `created + 301 s`. A verifier keeps
/// one and hands it to [`verify_request`].
pub trait NonceMemory {
    /// When the memory began, as the clock reading `now` sees it, if it began
    /// recently enough to matter: a signature created earlier may repeat a
    /// nonce spent before the memory existed, and is refused.
    fn began(&self, now: i64) -> Option<i64>;

    /// Remembers the pair until `until` (inclusive), or refuses it:
    /// [`SigError::Replayed`] if it is remembered and not yet expired,
    /// [`SigError::Busy`] if the memory cannot take another pair now.
    fn remember(&self, keyid: &str, nonce: &str, until: i64, now: i64) -> Result<(), SigError>;
}
