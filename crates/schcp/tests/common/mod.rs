//! Shared fixtures for the integration tests: fixed Ed25519 keys from fixed seeds,
//! the spec's own offers (§5.2), and helpers that sign claims the way a host, a
//! principal or an agent would, including deliberately malformed JWS.
//!
//! Everything here is deterministic (Ed25519 signatures are), so a test that hashes
//! a compact JWS gets the same hash on every run.
#![allow(dead_code)]

use ed25519_dalek::SigningKey;
use schcp::jwk::Jwk;
use schcp::jws::{self, HeaderExtras, Signer, Typ};
use schcp::verify::HostKeys;
use schcp::Error;
use serde_json::{json, Value};

/// The instant every test runs at: the §5.2 offers' iat.
pub(crate) const NOW: i64 = 1_792_000_000;

/// The host of the §2.1 and §5.2 examples, and the kid of its discovery key.
pub(crate) const HOST_ID: &str = "maple-street-auto";
pub(crate) const KID: &str = "msa-2026-10";

/// The person's calendar of the §5.2 playdate offer.
pub(crate) const ELLIS_HOST_ID: &str = "ellis-moreau";
pub(crate) const ELLIS_KID: &str = "ellis-2026";

fn key(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed; 32])
}

/// Maple Street Auto's signing key (discovery kid "msa-2026-10").
pub(crate) fn host_key() -> SigningKey {
    key(0x11)
}
/// The principal (the person whose key app signs mandates).
pub(crate) fn principal_key() -> SigningKey {
    key(0x22)
}
/// The consumer agent the principal's mandates bind (cnf.jkt).
pub(crate) fn agent_key() -> SigningKey {
    key(0x33)
}
/// A sub-agent a delegating agent issues a child mandate to (§3.3 Attenuation).
pub(crate) fn sub_agent_key() -> SigningKey {
    key(0x44)
}
/// A key nobody named anywhere: the attacker, or simply the wrong key.
pub(crate) fn stranger_key() -> SigningKey {
    key(0x55)
}
/// Ellis's calendar (a host of kind person, §7.7) signs its offers with this.
pub(crate) fn ellis_calendar_key() -> SigningKey {
    key(0x66)
}
/// Ellis's own principal key (host.owner of the playdate offer, §5.12 member).
pub(crate) fn ellis_key() -> SigningKey {
    key(0x77)
}
/// P-256 key of a principal whose secure enclave holds only P-256 (§3.4).
pub(crate) fn p256_principal_key() -> p256::ecdsa::SigningKey {
    p256::ecdsa::SigningKey::from_slice(&[0x29; 32]).expect("a valid P-256 scalar")
}

/// The public JWK of a signer.
pub(crate) fn jwk_of(signer: &dyn Signer) -> Jwk {
    signer.public_key().to_jwk()
}
/// RFC 7638 thumbprint of a signer's key: what cnf.jkt names.
pub(crate) fn jkt(signer: &dyn Signer) -> String {
    jwk_of(signer).thumbprint().expect("a valid key")
}
/// `urn:schcp:principal:jwk-thumbprint:` + the thumbprint (§3.3 check 1).
pub(crate) fn principal_id(signer: &dyn Signer) -> String {
    jwk_of(signer).principal_id().expect("a valid key")
}

/// A discovery document's `keys` entry for `signer` under `kid` (§2.1).
pub(crate) fn discovery_key(signer: &dyn Signer, kid: &str) -> Jwk {
    let mut j = jwk_of(signer);
    j.kid = Some(kid.into());
    j.use_ = Some("sig".into());
    j
}

/// Maple Street Auto's discovery keys: one Ed25519 key, kid "msa-2026-10".
pub(crate) fn host_keys() -> Vec<Jwk> {
    vec![discovery_key(&host_key(), KID)]
}
pub(crate) fn ellis_keys() -> Vec<Jwk> {
    vec![discovery_key(&ellis_calendar_key(), ELLIS_KID)]
}

/// `HostKeys` for `verify_offer`/`verify_receipt`: the id the key app discovered and
/// that discovery document's keys.
pub(crate) fn host(keys: &[Jwk]) -> HostKeys<'_> {
    HostKeys { host_id: HOST_ID, keys }
}
pub(crate) fn ellis_host(keys: &[Jwk]) -> HostKeys<'_> {
    HostKeys { host_id: ELLIS_HOST_ID, keys }
}

/// Signs `claims` as a host JWS of type `typ` with header kid `kid`.
pub(crate) fn sign_host(typ: Typ, kid: Option<&str>, claims: &Value, signer: &dyn Signer) -> String {
    let extras = HeaderExtras { kid: kid.map(str::to_owned), jwk: None };
    jws::sign(typ, extras, claims, signer).expect("signing succeeds")
}
/// An offer as Maple Street Auto signs it.
pub(crate) fn sign_offer(claims: &Value) -> String {
    sign_host(Typ::Offer, Some(KID), claims, &host_key())
}
/// A receipt as Maple Street Auto signs it.
pub(crate) fn sign_receipt(claims: &Value) -> String {
    sign_host(Typ::Receipt, Some(KID), claims, &host_key())
}
/// A JWS with no kid and no jwk in its header (mandates, contracts, rules…).
pub(crate) fn sign_plain(typ: Typ, claims: &Value, signer: &dyn Signer) -> String {
    jws::sign(typ, HeaderExtras::default(), claims, signer).expect("signing succeeds")
}

/// A compact JWS over the exact header and payload text given, signed by `signer`
/// whatever the header says: for duplicate members, a lying alg, and so on.
pub(crate) fn sign_raw(header: &str, payload: &str, signer: &dyn Signer) -> String {
    let input = format!("{}.{}", schcp::b64::encode(header), schcp::b64::encode(payload));
    let sig = signer.sign(input.as_bytes()).expect("signing succeeds");
    format!("{input}.{}", schcp::b64::encode(sig))
}

/// The priced offer of §5.2, as Maple Street Auto states it.
pub(crate) fn priced_offer() -> Value {
    json!({
        "v": "0.4", "kind": "booking", "iss": HOST_ID, "hold_id": "h_7Qp2Zx",
        "iat": NOW, "exp": NOW + 300,
        "host": { "name": "Maple Street Auto", "tz": "America/Toronto", "domain": "maplestreetauto.example" },
        "service": { "id": "oil-change", "name": "Synthetic oil change" },
        "slot": { "start": "2026-10-15T13:00:00-04:00", "end": "2026-10-15T13:45:00-04:00" },
        "price": { "amount": "79.00", "currency": "CAD" },
        "total": { "amount": "89.27", "currency": "CAD" },
        "lines": [
            { "kind": "service", "label": "Synthetic oil change", "amount": { "amount": "79.00", "currency": "CAD" } },
            { "kind": "tax", "label": "HST 13%", "amount": { "amount": "10.27", "currency": "CAD" } }
        ],
        "retention": "P365D"
    })
}

/// The unpriced, open-ended playdate offer of §5.2 on Ellis's calendar.
pub(crate) fn playdate_offer() -> Value {
    json!({
        "v": "0.4", "kind": "booking", "iss": ELLIS_HOST_ID, "hold_id": "h_Pl4yD8",
        "iat": NOW, "exp": NOW + 900,
        "host": { "name": "Ellis Moreau", "tz": "America/Toronto", "kind": "person",
                  "owner": principal_id(&ellis_key()) },
        "service": { "id": "playdate", "name": "Playdate" },
        "slot": { "start": "2026-10-17T12:00:00-04:00" }, "open_end": true,
        "place": { "name": "Trinity Bellwoods Park playground", "locality": "Toronto" },
        "approval_by": "2026-10-14T01:15:00Z", "retention": "P30D"
    })
}

/// A change offer (§5.7) moving the §5.2 booking half an hour later.
pub(crate) fn change_offer(prev: &str) -> Value {
    let mut o = priced_offer();
    let m = o.as_object_mut().unwrap();
    m.remove("hold_id");
    m.insert("kind".into(), json!("change"));
    m.insert("booking_id".into(), json!("b_9Kd2Lm"));
    m.insert("prev".into(), json!(prev));
    m.insert("slot".into(), json!({ "start": "2026-10-15T13:30:00-04:00", "end": "2026-10-15T14:15:00-04:00" }));
    o
}

/// Sets the member (or array element) at JSON pointer `path`, whose parent must
/// exist, or removes it when `value` is None. An index one past an array's end
/// appends.
pub(crate) fn set(claims: &mut Value, path: &str, value: Option<Value>) {
    let (parent, name) = path.rsplit_once('/').expect("a pointer");
    match claims.pointer_mut(parent) {
        Some(Value::Object(obj)) => match value {
            Some(v) => {
                obj.insert(name.to_owned(), v);
            }
            None => {
                obj.remove(name);
            }
        },
        Some(Value::Array(items)) => {
            let i: usize = name.parse().unwrap_or_else(|_| panic!("{name:?} is not an index"));
            match value {
                Some(v) if i == items.len() => items.push(v),
                Some(v) => items[i] = v,
                None => {
                    items.remove(i);
                }
            }
        }
        _ => panic!("no object or array at {parent:?}"),
    }
}

/// A copy of `claims` with `path` set to `value`.
pub(crate) fn with(claims: &Value, path: &str, value: Value) -> Value {
    let mut c = claims.clone();
    set(&mut c, path, Some(value));
    c
}
/// A copy of `claims` without `path`.
pub(crate) fn without(claims: &Value, path: &str) -> Value {
    let mut c = claims.clone();
    set(&mut c, path, None);
    c
}

/// The §9.2 reason a failure maps to.
pub(crate) fn reason(err: &Error) -> &'static str {
    err.reason().reason.as_str()
}

/// Asserts `err` is a schema failure of `def` at instance path `path`.
#[track_caller]
pub(crate) fn assert_schema(err: &Error, def: schcp::schema::Def, path: &str) {
    match err {
        Error::Schema(e) => {
            assert_eq!(e.def, def, "{err}");
            assert_eq!(e.path, path, "{err}");
            assert_eq!(reason(err), "schema_invalid");
        }
        other => panic!("expected a schema failure of {def} at {path:?}, got {other:?}"),
    }
}

/// A deterministic stand-in for the key app's CSPRNG (salts, decoys), so SD-JWT
/// tests produce the same bytes on every run. Never for anything real.
pub(crate) struct FixedRng(u64);

impl FixedRng {
    pub(crate) fn new(seed: u64) -> Self {
        FixedRng(seed)
    }
}

impl rand_core::RngCore for FixedRng {
    fn next_u32(&mut self) -> u32 {
        self.next_u64() as u32
    }
    fn next_u64(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(8) {
            let n = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&n[..chunk.len()]);
        }
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

impl rand_core::CryptoRng for FixedRng {}

/// The booking of the §5.3 example, on the §5.2 offer (or made outside SchCP when
/// `offer_sha256` is None).
pub(crate) const BOOKING_ID: &str = "b_9Kd2Lm";
/// The jti of the root mandate a receipt's consent names.
pub(crate) const MANDATE_JTI: &str = "m-closed-01";

pub(crate) fn booking_claims(offer_sha256: Option<&str>) -> Value {
    json!({
        "booking_id": BOOKING_ID, "status": "confirmed", "sequence": 0,
        "service_id": "oil-change",
        "start": "2026-10-15T13:00:00-04:00", "end": "2026-10-15T13:45:00-04:00",
        "price": { "amount": "79.00", "currency": "CAD" },
        "total": { "amount": "89.27", "currency": "CAD" },
        "lines": [
            { "kind": "service", "label": "Synthetic oil change", "amount": { "amount": "79.00", "currency": "CAD" } },
            { "kind": "tax", "label": "HST 13%", "amount": { "amount": "10.27", "currency": "CAD" } }
        ],
        "offer_sha256": offer_sha256,
        "event": {
            "@type": "Event", "uid": "b_9Kd2Lm@maplestreetauto.example",
            "start": "2026-10-15T13:00:00", "timeZone": "America/Toronto", "duration": "PT45M",
            "title": "Synthetic oil change — Maple Street Auto", "sequence": 0,
            "updated": "2026-10-13T13:00:00Z", "status": "confirmed"
        },
        "answer": { "by": "host", "at": "2026-10-13T13:00:00Z" }
    })
}

/// ReceiptClaims (schemas/schcp.schema.json) for that booking on the offer with hash `offer_sha256`,
/// accepted under the closed mandate MANDATE_JTI.
pub(crate) fn receipt_claims(offer_sha256: &str) -> Value {
    json!({
        "v": "0.4", "iss": HOST_ID, "iat": NOW,
        "booking": booking_claims(Some(offer_sha256)),
        "offer_sha256": offer_sha256,
        "retention": "P365D",
        "consent": { "approved": "offer", "mandate": MANDATE_JTI, "mode": "human_present" }
    })
}
