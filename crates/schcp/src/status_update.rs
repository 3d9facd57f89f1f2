//! Updates a key app publishes to a hosted status service
//! (docs/hosted-status.md): "register this credential's status", "this
//! credential is revoked" and "every credential registered up to this instant
//! is revoked" (a lost computer's switch), each a compact JWS of type
//! `schcp-status-update+jwt` signed by the principal's own key.
//!
//! A status URL is namespaced by the principal's RFC 7638 thumbprint because a
//! `jti` is the signer's choice (§3.3: usage is keyed by (iss, jti)); so the
//! service must be sure that whoever writes into a namespace holds that
//! namespace's key. [`verify`] checks exactly that and everything else that
//! needs no state: the closed payload, the header, the signature, the thumbprint
//! against the path and `iss`, and the `iat` window. Whether the update `jti`
//! was seen before is the service's (it keeps them [`REPLAY_KEEP_SECS`]).
//!
//! Building an update is split so the key app's keystore does the signing:
//! [`header`] and [`payload`] give the two JSON values, [`signing_input`] the
//! bytes to sign, and [`assemble`] the compact JWS from them and the signature;
//! or [`sign`] with any [`jws::Signer`].

use crate::b64;
use crate::jwk::{Jwk, JwkError, PRINCIPAL_PREFIX};
use crate::jws::{self, Header, HeaderExtras, JwsError, Typ};
use crate::refusal::Reason;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The JWS `typ` of an update.
pub const TYP: &str = "schcp-status-update+jwt";
/// The largest compact JWS a service reads (the wire contract's 64 KiB).
pub const MAX_UPDATE_BYTES: usize = 64 * 1024;
/// How far `iat` may be from the service's clock, either way (±5 min).
pub const IAT_WINDOW_SECS: i64 = 300;
/// The least time a service remembers an update `jti`. An update is accepted
/// only while `|now - iat| <= IAT_WINDOW_SECS`, so after twice the window no
/// replay of it can pass the `iat` check anyway.
pub const REPLAY_KEEP_SECS: i64 = 2 * IAT_WINDOW_SECS;
/// The longest `jti` (credential or update): an `Id` is 1 to 255 characters.
pub const MAX_ID_CHARS: usize = 255;
/// The most hosts one registration names in `aud`.
pub const MAX_AUD: usize = 64;
/// The most discovery key thumbprints a registration records for one host.
pub const MAX_HOST_KEYS: usize = 64;
/// The furthest a registration's `exp` may be from the service's clock: the
/// key app's longest credential lifetime (a rule's 180 days) and a day's margin
/// for a slow clock. A credential that claims to live longer is refused
/// (`exp_too_far`), so nobody parks a row until 2100 on an open service.
pub const MAX_REGISTERED_LIFETIME: i64 = 181 * 86_400;

/// What an update does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    /// Make a credential's status known to the service.
    Register(Registration),
    /// Revoke a credential (final: §3.3, a revoked mandate never comes back).
    Revoke {
        /// The credential's `jti`.
        jti: String,
    },
    /// Revoke every credential of the namespace registered at or before
    /// `before` (unix seconds, by the service's clock), and none registered
    /// after: a lost computer's credentials, found by the service even when
    /// the person's records never held them. `before` is at most the
    /// update's `iat`, so a signed update never reaches a credential
    /// registered after it was signed, however it is replayed.
    RevokeAll {
        /// The last registration instant it reaches.
        before: i64,
    },
}

impl Operation {
    /// The credential `jti` the update is about; none for [`Operation::RevokeAll`].
    pub fn credential_jti(&self) -> Option<&str> {
        match self {
            Operation::Register(r) => Some(&r.jti),
            Operation::Revoke { jti } => Some(jti),
            Operation::RevokeAll { .. } => None,
        }
    }
}

/// What the service keeps about a credential: nothing about the person (many
/// principals share it), only what a host's status call needs (§3.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    /// The credential's `jti`: the last segment of its status URL.
    pub jti: String,
    /// The credential's `exp` (unix seconds): expired when `now >= exp`.
    pub exp: i64,
    /// The host ids that may claim (the credential's `aud`), non-empty, no duplicate.
    pub aud: Vec<String>,
    /// `constraints.max_bookings`.
    pub max_bookings: Option<u32>,
    /// `constraints.shared_limit`: the service counts `max_bookings` across hosts.
    pub shared_limit: bool,
    /// Per `aud` host, the RFC 7638 thumbprints of the keys of the discovery
    /// document the key app verified when the person approved: a signed claim
    /// or release (docs/agent-api.md "Signed claims") must be made with one of
    /// the claiming host's. Empty for a credential issued without them.
    pub host_keys: BTreeMap<String, Vec<String>>,
}

impl Registration {
    /// The shared limit the service counts, if any: `max_bookings` when
    /// `shared_limit` is set (without `shared_limit` each host counts its own, §3.3).
    pub fn shared_max(&self) -> Option<u32> {
        if self.shared_limit {
            self.max_bookings
        } else {
            None
        }
    }
}

/// An update whose signature, namespace and time all check out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedUpdate {
    /// The namespace: the principal key's RFC 7638 thumbprint.
    pub thumb: String,
    /// The update's own `jti`, for the service's replay check.
    pub update_jti: String,
    /// The update's `iat`.
    pub iat: i64,
    /// What it does.
    pub op: Operation,
}

impl VerifiedUpdate {
    /// Until when (unix seconds) the service must remember `update_jti`: at
    /// least [`REPLAY_KEEP_SECS`] from now, and past the end of its `iat` window.
    pub fn replay_keep_until(&self, now: i64) -> i64 {
        (now + REPLAY_KEEP_SECS).max(self.iat + IAT_WINDOW_SECS)
    }
}

/// Why an update is refused. Each has its own [`UpdateCheck::reason`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UpdateCheck {
    /// Over [`MAX_UPDATE_BYTES`].
    #[error("the update is larger than {MAX_UPDATE_BYTES} bytes")]
    TooLarge,
    /// Not a compact JWS, or its header is not `{"alg", "typ"}`.
    #[error("the update is not a compact JWS: {0}")]
    NotJws(JwsError),
    /// `typ` is not `schcp-status-update+jwt`.
    #[error("the update's typ is {0:?}, not \"schcp-status-update+jwt\"")]
    WrongTyp(String),
    /// The payload is not the closed update object (unknown member, wrong type,
    /// register/revoke shape, an empty or overlong id, a bad `aud`).
    #[error("the update payload is malformed: {0}")]
    Malformed(String),
    /// `principal_jwk` is not a usable public key.
    #[error("principal_jwk is unusable: {0}")]
    BadKey(JwkError),
    /// The key's thumbprint is not the namespace in the path, or `iss` names
    /// another principal: an update may only write its own key's namespace.
    #[error("the update's key ({thumb}) is not this namespace's ({expected}) or not its iss")]
    NamespaceMismatch {
        /// The thumbprint of `principal_jwk`.
        thumb: String,
        /// The namespace written to.
        expected: String,
    },
    /// `alg` is not the key's, or the signature does not verify with `principal_jwk`.
    #[error("the update's signature does not verify with principal_jwk: {0}")]
    SignatureInvalid(JwsError),
    /// A registration's `exp` more than [`MAX_REGISTERED_LIFETIME`] past the
    /// service's clock.
    #[error("the credential's exp {exp} is more than {MAX_REGISTERED_LIFETIME} s after now ({now})")]
    ExpTooFar {
        /// The registration's `exp`.
        exp: i64,
        /// The verifier's clock.
        now: i64,
    },
    /// `|now - iat| > IAT_WINDOW_SECS`.
    #[error("the update's iat {iat} is more than {IAT_WINDOW_SECS} s from now ({now})")]
    IatOutOfWindow {
        /// The update's `iat`.
        iat: i64,
        /// The verifier's clock.
        now: i64,
    },
}

impl UpdateCheck {
    /// The §9 `reason` a service answers with (docs/hosted-status.md).
    pub fn reason(&self) -> Reason {
        match self {
            UpdateCheck::TooLarge => Reason::BodyTooLarge,
            UpdateCheck::NotJws(_) | UpdateCheck::WrongTyp(_) | UpdateCheck::Malformed(_) => Reason::MalformedUpdate,
            UpdateCheck::BadKey(_) => Reason::BadPrincipalJwk,
            UpdateCheck::NamespaceMismatch { .. } => Reason::NamespaceMismatch,
            UpdateCheck::SignatureInvalid(_) => Reason::UpdateSignatureInvalid,
            UpdateCheck::IatOutOfWindow { .. } => Reason::UpdateIatOutOfWindow,
            UpdateCheck::ExpTooFar { .. } => Reason::ExpTooFar,
        }
    }
}

/// The payload as it travels. Closed: any other member is refused.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WirePayload {
    iss: String,
    principal_jwk: Jwk,
    iat: i64,
    jti: String,
    op: WireOp,
    /// Register and revoke: the credential. Absent from a revoke_all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    credential: Option<WireCredential>,
    /// A revoke_all's reach; absent from every other update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    before: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum WireOp {
    Register,
    Revoke,
    RevokeAll,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireCredential {
    jti: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exp: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    aud: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_bookings: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shared_limit: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    host_keys: Option<BTreeMap<String, Vec<String>>>,
}

fn check_id(what: &str, id: &str) -> Result<(), UpdateCheck> {
    let n = id.chars().count();
    if n == 0 || n > MAX_ID_CHARS || id.chars().any(char::is_control) {
        return Err(UpdateCheck::Malformed(format!(
            "{what} must be 1 to {MAX_ID_CHARS} characters, no control character"
        )));
    }
    Ok(())
}

/// A host id as the schema's `HostId`: printable ASCII without space, `/` or `*`.
fn check_host_id(id: &str) -> Result<(), UpdateCheck> {
    if id.is_empty()
        || id.len() > MAX_ID_CHARS
        || !id.bytes().all(|b| matches!(b, b'!'..=b')' | b'+'..=b'.' | b'0'..=b'~'))
    {
        return Err(UpdateCheck::Malformed(format!("aud member {id:?} is not a host id")));
    }
    Ok(())
}

fn check_registration(r: &Registration) -> Result<(), UpdateCheck> {
    check_id("credential.jti", &r.jti)?;
    if r.aud.is_empty() || r.aud.len() > MAX_AUD {
        return Err(UpdateCheck::Malformed(format!("credential.aud must name 1 to {MAX_AUD} hosts")));
    }
    for (i, host) in r.aud.iter().enumerate() {
        check_host_id(host)?;
        if r.aud[..i].contains(host) {
            return Err(UpdateCheck::Malformed(format!("credential.aud names {host:?} twice")));
        }
    }
    if r.shared_limit && r.max_bookings.is_none() {
        // §3.3: a shared limit is a shared max_bookings; without one there is nothing to count.
        return Err(UpdateCheck::Malformed("credential.shared_limit needs credential.max_bookings".into()));
    }
    for (host, thumbs) in &r.host_keys {
        if !r.aud.contains(host) {
            return Err(UpdateCheck::Malformed(format!("credential.host_keys names {host:?}, not in aud")));
        }
        if thumbs.is_empty() || thumbs.len() > MAX_HOST_KEYS {
            return Err(UpdateCheck::Malformed(format!(
                "credential.host_keys.{host} must list 1 to {MAX_HOST_KEYS} thumbprints"
            )));
        }
        for (i, t) in thumbs.iter().enumerate() {
            if !is_thumbprint(t) || thumbs[..i].contains(t) {
                return Err(UpdateCheck::Malformed(format!(
                    "credential.host_keys.{host} has {t:?}: not a distinct RFC 7638 thumbprint"
                )));
            }
        }
    }
    Ok(())
}

/// An RFC 7638 SHA-256 thumbprint as SchCP writes it: 43 characters of base64url.
pub fn is_thumbprint(s: &str) -> bool {
    s.len() == 43 && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl WirePayload {
    fn operation(self) -> Result<Operation, UpdateCheck> {
        if self.op == WireOp::RevokeAll {
            if self.credential.is_some() {
                return Err(UpdateCheck::Malformed("a revoke_all names no credential".into()));
            }
            let before = self.before.ok_or_else(|| UpdateCheck::Malformed("a revoke_all needs before".into()))?;
            // Never past the update's own iat: what was registered after the
            // person signed is not theirs to take back with it.
            if before < 0 || before > self.iat {
                return Err(UpdateCheck::Malformed(format!(
                    "a revoke_all's before ({before}) must be 0 to its iat ({})",
                    self.iat
                )));
            }
            return Ok(Operation::RevokeAll { before });
        }
        if self.before.is_some() {
            return Err(UpdateCheck::Malformed("only a revoke_all names before".into()));
        }
        let c = self.credential.ok_or_else(|| UpdateCheck::Malformed("the update needs credential".into()))?;
        match self.op {
            WireOp::Revoke => {
                if c.exp.is_some()
                    || c.aud.is_some()
                    || c.max_bookings.is_some()
                    || c.shared_limit.is_some()
                    || c.host_keys.is_some()
                {
                    return Err(UpdateCheck::Malformed("a revoke names only credential.jti".into()));
                }
                check_id("credential.jti", &c.jti)?;
                Ok(Operation::Revoke { jti: c.jti })
            }
            WireOp::Register => {
                let missing = |m: &str| UpdateCheck::Malformed(format!("a register needs credential.{m}"));
                let r = Registration {
                    jti: c.jti,
                    exp: c.exp.ok_or_else(|| missing("exp"))?,
                    aud: c.aud.ok_or_else(|| missing("aud"))?,
                    max_bookings: c.max_bookings,
                    shared_limit: c.shared_limit.ok_or_else(|| missing("shared_limit"))?,
                    host_keys: c.host_keys.unwrap_or_default(),
                };
                check_registration(&r)?;
                Ok(Operation::Register(r))
            }
            WireOp::RevokeAll => Err(UpdateCheck::Malformed("a revoke_all names no credential".into())),
        }
    }
}

/// The protected header for `principal`'s key: `alg` follows the key (§3.4:
/// `EdDSA` for Ed25519, `ES256` for P-256), `typ` is [`TYP`], nothing else.
pub fn header(principal: &Jwk) -> Result<Header, JwkError> {
    let key = principal.public_key()?;
    Ok(Header { alg: key.alg().to_owned(), typ: TYP.to_owned(), kid: None, jwk: None })
}

/// The payload of an update by `principal`, issued at `iat` with the update's
/// own `jti` (fresh for every update: the service refuses a second use).
pub fn payload(principal: &Jwk, iat: i64, update_jti: &str, op: &Operation) -> Result<Value, JwkError> {
    // The thumbprint covers kty/crv/x(/y) only; the JWK travels bare so the
    // service reads exactly the key the thumbprint names.
    let key = principal.public_key()?;
    let bare = key.to_jwk();
    let credential = match op {
        Operation::RevokeAll { .. } => None,
        Operation::Register(r) => Some(WireCredential {
            jti: r.jti.clone(),
            exp: Some(r.exp),
            aud: Some(r.aud.clone()),
            max_bookings: r.max_bookings,
            shared_limit: Some(r.shared_limit),
            // Left out when empty, as a credential without them was always sent.
            host_keys: (!r.host_keys.is_empty()).then(|| r.host_keys.clone()),
        }),
        Operation::Revoke { jti } => Some(WireCredential {
            jti: jti.clone(),
            exp: None,
            aud: None,
            max_bookings: None,
            shared_limit: None,
            host_keys: None,
        }),
    };
    let wire = WirePayload {
        iss: bare.principal_id()?,
        principal_jwk: bare,
        iat,
        jti: update_jti.to_owned(),
        op: match op {
            Operation::Register(_) => WireOp::Register,
            Operation::Revoke { .. } => WireOp::Revoke,
            Operation::RevokeAll { .. } => WireOp::RevokeAll,
        },
        credential,
        before: match op {
            Operation::RevokeAll { before } => Some(*before),
            _ => None,
        },
    };
    Ok(serde_json::to_value(wire).expect("the payload types always serialize"))
}

/// `base64url(header) . base64url(payload)`: the bytes the principal's key signs.
pub fn signing_input(header: &Header, payload: &Value) -> String {
    let h = serde_json::to_vec(header).expect("a header always serializes");
    let p = serde_json::to_vec(payload).expect("a JSON value always serializes");
    format!("{}.{}", b64::encode(h), b64::encode(p))
}

/// The compact JWS from a [`signing_input`] and its raw signature (Ed25519's
/// 64 bytes, or ES256's 64-byte r||s, RFC 7518 §3.4).
pub fn assemble(signing_input: &str, signature: &[u8]) -> String {
    format!("{signing_input}.{}", b64::encode(signature))
}

/// Builds and signs an update with any [`jws::Signer`] (its key is the principal).
pub fn sign(signer: &dyn jws::Signer, iat: i64, update_jti: &str, op: &Operation) -> Result<String, JwsError> {
    let jwk = signer.public_key().to_jwk();
    let payload = payload(&jwk, iat, update_jti, op)?;
    jws::sign(Typ::StatusUpdate, HeaderExtras::default(), &payload, signer)
}

/// Verifies an update written to namespace `path_thumb` at time `now`: size,
/// compact form, header `{alg, typ}` only, the closed payload, the key, its
/// thumbprint against the path and `iss`, the signature with that key (alg
/// following it), and `|now - iat| <= IAT_WINDOW_SECS`. Pure: the replay check
/// of the update `jti` is the caller's.
pub fn verify(compact_jws: &str, path_thumb: &str, now: i64) -> Result<VerifiedUpdate, UpdateCheck> {
    if compact_jws.len() > MAX_UPDATE_BYTES {
        return Err(UpdateCheck::TooLarge);
    }
    let parsed = jws::parse(compact_jws).map_err(UpdateCheck::NotJws)?;
    if parsed.header.typ != TYP {
        return Err(UpdateCheck::WrongTyp(parsed.header.typ.clone()));
    }
    if parsed.header.kid.is_some() || parsed.header.jwk.is_some() {
        // The key is the payload's principal_jwk, covered by the signature; a
        // second key in the header could only disagree with it.
        return Err(UpdateCheck::NotJws(JwsError::BadHeader("an update's header is {alg, typ} only".into())));
    }
    let wire: WirePayload =
        serde_json::from_value(parsed.payload.clone()).map_err(|e| UpdateCheck::Malformed(e.to_string()))?;
    let key = wire.principal_jwk.public_key().map_err(UpdateCheck::BadKey)?;
    let thumb = wire.principal_jwk.thumbprint().map_err(UpdateCheck::BadKey)?;
    let mismatch = || UpdateCheck::NamespaceMismatch { thumb: thumb.clone(), expected: path_thumb.to_owned() };
    if thumb != path_thumb {
        return Err(mismatch());
    }
    if wire.iss.strip_prefix(PRINCIPAL_PREFIX) != Some(thumb.as_str()) {
        return Err(mismatch());
    }
    parsed.verify_signature(&key).map_err(UpdateCheck::SignatureInvalid)?;
    if (now - wire.iat).abs() > IAT_WINDOW_SECS {
        return Err(UpdateCheck::IatOutOfWindow { iat: wire.iat, now });
    }
    check_id("jti", &wire.jti)?;
    let (update_jti, iat) = (wire.jti.clone(), wire.iat);
    let op = wire.operation()?;
    if let Operation::Register(r) = &op {
        if r.exp.saturating_sub(now) > MAX_REGISTERED_LIFETIME {
            return Err(UpdateCheck::ExpTooFar { exp: r.exp, now });
        }
    }
    Ok(VerifiedUpdate { thumb, update_jti, iat, op })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jws::Signer;
    use serde_json::json;

    const NOW: i64 = 1_792_000_000;

    fn ed(seed: u8) -> ed25519_dalek::SigningKey {
        ed25519_dalek::SigningKey::from_bytes(&[seed; 32])
    }

    fn es(seed: u8) -> p256::ecdsa::SigningKey {
        p256::ecdsa::SigningKey::from_slice(&[seed; 32]).unwrap()
    }

    fn thumb(s: &dyn Signer) -> String {
        s.public_key().to_jwk().thumbprint().unwrap()
    }

    fn reg() -> Operation {
        Operation::Register(Registration {
            jti: "m_1".into(),
            exp: NOW + 3600,
            aud: vec!["maple-street-auto".into(), "oak-lane-garage".into()],
            max_bookings: Some(2),
            shared_limit: true,
            host_keys: BTreeMap::from([("maple-street-auto".into(), vec![thumb(&ed(9))])]),
        })
    }

    /// The registration bound: `exp` up to 181 days from now is kept, a
    /// second more is refused with its own reason; a revoke has no `exp`.
    #[test]
    fn a_registration_lives_at_most_the_longest_lifetime_and_a_margin() {
        let s = ed(1);
        let at = |exp: i64| {
            let Operation::Register(mut r) = reg() else { unreachable!() };
            r.exp = exp;
            verify(&sign(&s, NOW, "u_1", &Operation::Register(r)).unwrap(), &thumb(&s), NOW)
        };
        assert!(at(NOW + MAX_REGISTERED_LIFETIME).is_ok());
        let far = at(NOW + MAX_REGISTERED_LIFETIME + 1).unwrap_err();
        assert_eq!(far, UpdateCheck::ExpTooFar { exp: NOW + MAX_REGISTERED_LIFETIME + 1, now: NOW });
        assert_eq!(far.reason(), "exp_too_far");
        assert_eq!(at(4_102_444_800).unwrap_err().reason(), "exp_too_far", "the year 2100");
    }

    /// Host key thumbprints travel with the registration and are checked:
    /// only hosts of `aud`, 1 to 64 distinct thumbprints each.
    #[test]
    fn host_keys_are_carried_and_checked() {
        let s = ed(1);
        let v = verify(&sign(&s, NOW, "u_1", &reg()).unwrap(), &thumb(&s), NOW).unwrap();
        assert_eq!(v.op, reg());
        let with = |keys: Value| {
            let mut p = good_payload(&s);
            p["credential"]["host_keys"] = keys;
            verify(&raw(&s, &hdr(&s), &p), &thumb(&s), NOW)
        };
        let t = thumb(&ed(9));
        assert!(with(json!({"oak-lane-garage": [t]})).is_ok());
        for bad in [
            json!({"elsewhere": [t]}),
            json!({"oak-lane-garage": []}),
            json!({"oak-lane-garage": [t, t]}),
            json!({"oak-lane-garage": ["short"]}),
            json!({"oak-lane-garage": vec![t.clone(); 65]}),
            json!(["x"]),
        ] {
            assert_eq!(with(bad.clone()).unwrap_err().reason(), "malformed_update", "{bad}");
        }
        let mut p = payload(&s.public_key().to_jwk(), NOW, "u_2", &Operation::Revoke { jti: "m_1".into() }).unwrap();
        p["credential"]["host_keys"] = json!({});
        assert_eq!(verify(&raw(&s, &hdr(&s), &p), &thumb(&s), NOW).unwrap_err().reason(), "malformed_update");
    }

    /// Signs an arbitrary header and payload with `s`, for the shapes [`sign`] never makes.
    fn raw(s: &dyn Signer, header: &Value, payload: &Value) -> String {
        let input = format!(
            "{}.{}",
            b64::encode(serde_json::to_vec(header).unwrap()),
            b64::encode(serde_json::to_vec(payload).unwrap())
        );
        assemble(&input, &s.sign(input.as_bytes()).unwrap())
    }

    fn good_payload(s: &dyn Signer) -> Value {
        payload(&s.public_key().to_jwk(), NOW, "u_1", &reg()).unwrap()
    }

    fn hdr(s: &dyn Signer) -> Value {
        json!({"alg": s.public_key().alg(), "typ": TYP})
    }

    #[test]
    fn ed25519_and_es256_updates_verify() {
        let signers: [Box<dyn Signer>; 2] = [Box::new(ed(1)), Box::new(es(1))];
        for s in &signers {
            let compact = sign(s.as_ref(), NOW, "u_1", &reg()).unwrap();
            let v = verify(&compact, &thumb(s.as_ref()), NOW).unwrap();
            assert_eq!(v.op, reg());
            assert_eq!((v.update_jti.as_str(), v.iat), ("u_1", NOW));
            let revoke = Operation::Revoke { jti: "m_1".into() };
            let compact = sign(s.as_ref(), NOW, "u_2", &revoke).unwrap();
            assert_eq!(verify(&compact, &thumb(s.as_ref()), NOW).unwrap().op, revoke);
        }
    }

    #[test]
    fn header_follows_the_key_and_the_split_builders_agree_with_sign() {
        let s = es(3);
        let jwk = s.public_key().to_jwk();
        let h = header(&jwk).unwrap();
        assert_eq!((h.alg.as_str(), h.typ.as_str()), ("ES256", TYP));
        assert_eq!(header(&ed(3).public_key().to_jwk()).unwrap().alg, "EdDSA");
        // What a keystore does: sign the signing input, then assemble.
        let input = signing_input(&h, &payload(&jwk, NOW, "u_9", &reg()).unwrap());
        let compact = assemble(&input, &s.sign(input.as_bytes()).unwrap());
        assert_eq!(verify(&compact, &thumb(&s), NOW).unwrap().update_jti, "u_9");
    }

    #[test]
    fn payload_is_the_wire_contract() {
        let s = ed(1);
        let p = good_payload(&s);
        assert_eq!(p["iss"], json!(format!("{PRINCIPAL_PREFIX}{}", thumb(&s))));
        assert_eq!(p["op"], "register");
        assert_eq!(
            p["credential"],
            json!({"jti": "m_1", "exp": NOW + 3600, "aud": ["maple-street-auto", "oak-lane-garage"],
                   "max_bookings": 2, "shared_limit": true,
                   "host_keys": {"maple-street-auto": [thumb(&ed(9))]}})
        );
        let revoke = payload(&s.public_key().to_jwk(), NOW, "u_2", &Operation::Revoke { jti: "m_1".into() }).unwrap();
        assert_eq!(revoke["credential"], json!({"jti": "m_1"}));
        let mut keys: Vec<_> = p.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        assert_eq!(keys, ["credential", "iat", "iss", "jti", "op", "principal_jwk"]);
    }

    #[test]
    fn another_keys_update_is_refused() {
        // Signed by the attacker over the victim's key: the signature fails.
        let (victim, attacker) = (ed(1), ed(2));
        let p = good_payload(&victim);
        let forged = raw(&attacker, &hdr(&attacker), &p);
        assert!(matches!(verify(&forged, &thumb(&victim), NOW), Err(UpdateCheck::SignatureInvalid(_))));
        // The attacker's own key, written into the victim's namespace.
        let own = sign(&attacker, NOW, "u_1", &reg()).unwrap();
        let err = verify(&own, &thumb(&victim), NOW).unwrap_err();
        assert!(matches!(err, UpdateCheck::NamespaceMismatch { .. }));
        assert_eq!(err.reason(), "namespace_mismatch");
    }

    #[test]
    fn iss_must_name_the_key() {
        let s = ed(1);
        let mut p = good_payload(&s);
        p["iss"] = json!(format!("{PRINCIPAL_PREFIX}{}", thumb(&ed(2))));
        let err = verify(&raw(&s, &hdr(&s), &p), &thumb(&s), NOW).unwrap_err();
        assert!(matches!(err, UpdateCheck::NamespaceMismatch { .. }), "{err:?}");
        p["iss"] = json!(thumb(&s)); // without the urn prefix
        assert!(matches!(verify(&raw(&s, &hdr(&s), &p), &thumb(&s), NOW), Err(UpdateCheck::NamespaceMismatch { .. })));
    }

    #[test]
    fn alg_must_follow_the_key() {
        let s = es(1);
        let h = json!({"alg": "EdDSA", "typ": TYP});
        let err = verify(&raw(&s, &h, &good_payload(&s)), &thumb(&s), NOW).unwrap_err();
        assert!(matches!(err, UpdateCheck::SignatureInvalid(JwsError::AlgMismatch { .. })), "{err:?}");
        let none = json!({"alg": "none", "typ": TYP});
        let err = verify(&raw(&s, &none, &good_payload(&s)), &thumb(&s), NOW).unwrap_err();
        assert_eq!(err, UpdateCheck::SignatureInvalid(JwsError::AlgNone));
    }

    #[test]
    fn a_tampered_payload_is_refused() {
        let s = ed(1);
        let compact = sign(&s, NOW, "u_1", &reg()).unwrap();
        let (h, rest) = compact.split_once('.').unwrap();
        let (_, sig) = rest.split_once('.').unwrap();
        let mut p = good_payload(&s);
        p["credential"]["max_bookings"] = json!(200);
        let tampered = format!("{h}.{}.{sig}", b64::encode(serde_json::to_vec(&p).unwrap()));
        assert!(matches!(
            verify(&tampered, &thumb(&s), NOW),
            Err(UpdateCheck::SignatureInvalid(JwsError::BadSignature))
        ));
    }

    #[test]
    fn iat_window_is_five_minutes_either_way() {
        let s = ed(1);
        let compact = sign(&s, NOW, "u_1", &reg()).unwrap();
        for now in [NOW - 300, NOW, NOW + 300] {
            verify(&compact, &thumb(&s), now).unwrap();
        }
        for now in [NOW - 301, NOW + 301] {
            let err = verify(&compact, &thumb(&s), now).unwrap_err();
            assert_eq!(err, UpdateCheck::IatOutOfWindow { iat: NOW, now });
            assert_eq!(err.reason(), "update_iat_out_of_window");
        }
    }

    #[test]
    fn replay_memory_outlives_the_window() {
        let s = ed(1);
        let v = verify(&sign(&s, NOW, "u_1", &reg()).unwrap(), &thumb(&s), NOW - 300).unwrap();
        // Accepted up to iat + 300; remembered at least that long and 10 min.
        assert_eq!(v.replay_keep_until(NOW - 300), NOW + 300);
        assert_eq!(v.replay_keep_until(NOW), NOW + REPLAY_KEEP_SECS);
    }

    #[test]
    fn wrong_typ_and_extra_header_members_are_refused() {
        let s = ed(1);
        let offer = jws::sign(Typ::Offer, HeaderExtras::default(), &good_payload(&s), &s).unwrap();
        assert_eq!(verify(&offer, &thumb(&s), NOW), Err(UpdateCheck::WrongTyp("schcp-offer+jwt".into())));
        let kid = json!({"alg": "EdDSA", "typ": TYP, "kid": "k1"});
        assert!(matches!(verify(&raw(&s, &kid, &good_payload(&s)), &thumb(&s), NOW), Err(UpdateCheck::NotJws(_))));
        let crit = json!({"alg": "EdDSA", "typ": TYP, "crit": ["exp"]});
        assert!(matches!(verify(&raw(&s, &crit, &good_payload(&s)), &thumb(&s), NOW), Err(UpdateCheck::NotJws(_))));
    }

    #[test]
    fn not_a_jws_and_oversized_are_refused() {
        let t = thumb(&ed(1));
        assert!(matches!(verify("a.b", &t, NOW), Err(UpdateCheck::NotJws(JwsError::NotCompact))));
        let big = "a".repeat(MAX_UPDATE_BYTES + 1);
        assert_eq!(verify(&big, &t, NOW), Err(UpdateCheck::TooLarge));
    }

    #[test]
    fn payload_is_closed() {
        let s = ed(1);
        let t = thumb(&s);
        let mut extra = good_payload(&s);
        extra["name"] = json!("Ada");
        assert!(matches!(verify(&raw(&s, &hdr(&s), &extra), &t, NOW), Err(UpdateCheck::Malformed(_))));
        let mut inner = good_payload(&s);
        inner["credential"]["sub"] = json!("ada@example.com");
        assert!(matches!(verify(&raw(&s, &hdr(&s), &inner), &t, NOW), Err(UpdateCheck::Malformed(_))));
        let mut op = good_payload(&s);
        op["op"] = json!("unrevoke");
        assert!(matches!(verify(&raw(&s, &hdr(&s), &op), &t, NOW), Err(UpdateCheck::Malformed(_))));
        let mut private = good_payload(&s);
        private["principal_jwk"]["d"] = json!("AAAA");
        assert!(matches!(verify(&raw(&s, &hdr(&s), &private), &t, NOW), Err(UpdateCheck::Malformed(_))));
    }

    #[test]
    fn a_duplicate_member_is_refused() {
        let s = ed(1);
        let p = serde_json::to_string(&good_payload(&s)).unwrap();
        let dup = p.replacen("{", r#"{"jti":"u_0","#, 1);
        let input = format!("{}.{}", b64::encode(serde_json::to_vec(&hdr(&s)).unwrap()), b64::encode(dup));
        let compact = assemble(&input, &s.sign(input.as_bytes()).unwrap());
        let err = verify(&compact, &thumb(&s), NOW).unwrap_err();
        assert!(matches!(err, UpdateCheck::NotJws(JwsError::BadJson { .. })), "{err:?}");
    }

    /// The good payload with `edit` made, signed by `s` and verified in its namespace.
    fn verify_edited(s: &dyn Signer, edit: &dyn Fn(&mut Value)) -> Result<VerifiedUpdate, UpdateCheck> {
        let mut p = good_payload(s);
        edit(&mut p);
        verify(&raw(s, &hdr(s), &p), &thumb(s), NOW)
    }

    #[test]
    fn register_and_revoke_shapes() {
        let s = ed(1);
        let check = |edit: &dyn Fn(&mut Value)| verify_edited(&s, edit);
        for m in ["exp", "aud", "shared_limit"] {
            let err = check(&|p: &mut Value| {
                p["credential"].as_object_mut().unwrap().remove(m);
            });
            assert!(matches!(err, Err(UpdateCheck::Malformed(_))), "register without {m}");
        }
        // max_bookings is optional without shared_limit.
        let ok = check(&|p: &mut Value| {
            p["credential"].as_object_mut().unwrap().remove("max_bookings");
            p["credential"]["shared_limit"] = json!(false);
        });
        assert!(matches!(ok.unwrap().op, Operation::Register(Registration { max_bookings: None, .. })));
        let err = check(&|p: &mut Value| {
            p["credential"].as_object_mut().unwrap().remove("max_bookings");
        });
        assert!(matches!(err, Err(UpdateCheck::Malformed(m)) if m.contains("shared_limit needs")));
        let err = check(&|p: &mut Value| p["op"] = json!("revoke"));
        assert!(matches!(err, Err(UpdateCheck::Malformed(m)) if m.contains("only credential.jti")));
        let err = check(&|p: &mut Value| p["credential"]["max_bookings"] = json!(-1));
        assert!(matches!(err, Err(UpdateCheck::Malformed(_))));
    }

    #[test]
    fn ids_and_aud_are_checked() {
        let s = ed(1);
        let check = |edit: &dyn Fn(&mut Value)| verify_edited(&s, edit);
        let bad: [&dyn Fn(&mut Value); 7] = [
            &|p| p["jti"] = json!(""),
            &|p| p["credential"]["jti"] = json!(""),
            &|p| p["credential"]["jti"] = json!("x".repeat(256)),
            &|p| p["credential"]["aud"] = json!([]),
            &|p| p["credential"]["aud"] = json!(["a", "a"]),
            &|p| p["credential"]["aud"] = json!(["has space"]),
            &|p| p["credential"]["aud"] = json!(["a/b"]),
        ];
        for (i, edit) in bad.iter().enumerate() {
            assert!(matches!(check(*edit), Err(UpdateCheck::Malformed(_))), "case {i}");
        }
        check(&|p| p["credential"]["jti"] = json!("x".repeat(255))).unwrap();
    }

    #[test]
    fn a_bad_principal_key_is_refused() {
        let s = ed(1);
        let mut p = good_payload(&s);
        p["principal_jwk"]["crv"] = json!("X25519");
        let err = verify(&raw(&s, &hdr(&s), &p), &thumb(&s), NOW).unwrap_err();
        assert!(matches!(err, UpdateCheck::BadKey(_)), "{err:?}");
    }

    /// A lost computer's switch: one update, `before` at most its `iat`,
    /// no credential; every other shape of it is refused, and `before` is
    /// refused on the other operations.
    #[test]
    fn revoke_all_reaches_back_from_its_iat_only() {
        let signers: [Box<dyn Signer>; 2] = [Box::new(ed(1)), Box::new(es(1))];
        for s in &signers {
            let s = s.as_ref();
            let op = Operation::RevokeAll { before: NOW };
            let v = verify(&sign(s, NOW, "u_all", &op).unwrap(), &thumb(s), NOW).unwrap();
            assert_eq!(v.op.credential_jti(), None);
            assert_eq!(v.op, op);
            let p = payload(&s.public_key().to_jwk(), NOW, "u_all", &Operation::RevokeAll { before: NOW - 5 }).unwrap();
            assert_eq!((p["op"].as_str(), p["before"].as_i64()), (Some("revoke_all"), Some(NOW - 5)));
            assert!(p.get("credential").is_none(), "{p}");
        }
        let s = ed(1);
        let all = |edit: &dyn Fn(&mut Value)| {
            let mut p = payload(&s.public_key().to_jwk(), NOW, "u_all", &Operation::RevokeAll { before: NOW }).unwrap();
            edit(&mut p);
            verify(&raw(&s, &hdr(&s), &p), &thumb(&s), NOW)
        };
        assert!(all(&|_| {}).is_ok());
        type Edit = dyn Fn(&mut Value);
        let bad: [(&str, &Edit); 6] = [
            ("after its iat", &|p| p["before"] = json!(NOW + 1)),
            ("negative", &|p| p["before"] = json!(-1)),
            ("not a number", &|p| p["before"] = json!("now")),
            ("without before", &|p| {
                p.as_object_mut().unwrap().remove("before");
            }),
            ("with a credential", &|p| p["credential"] = json!({"jti": "m_1"})),
            ("unknown op", &|p| p["op"] = json!("revoke_everything")),
        ];
        for (what, edit) in bad {
            assert_eq!(all(edit).unwrap_err().reason(), "malformed_update", "{what}");
        }
        // `before` belongs to revoke_all alone; a revoke still needs its credential.
        let err = verify_edited(&s, &|p| p["before"] = json!(NOW)).unwrap_err();
        assert!(matches!(err, UpdateCheck::Malformed(m) if m.contains("only a revoke_all")));
        let err = verify_edited(&s, &|p| {
            p["op"] = json!("revoke");
            p.as_object_mut().unwrap().remove("credential");
        })
        .unwrap_err();
        assert!(matches!(err, UpdateCheck::Malformed(m) if m.contains("needs credential")));
    }

    #[test]
    fn shared_max_needs_shared_limit() {
        let Operation::Register(mut r) = reg() else { unreachable!() };
        assert_eq!(r.shared_max(), Some(2));
        r.shared_limit = false;
        assert_eq!(r.shared_max(), None);
    }
}
