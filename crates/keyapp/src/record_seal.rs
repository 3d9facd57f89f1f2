//! Seals on the records that decide what the person is shown and what the
//! key signs after their yes (docs/threat-model.md, "Records the person's
//! programs can write").
//!
//! The person's programs, an assistant among them, can write `keyapp.db`. A
//! request's row holds the consent text the window shows and the verified
//! input the credential is built from once the person says yes; a row changed
//! there, or a trigger that changes it as the key app writes it, would show
//! the person words no host signed, or have a yes to one text sign another
//! input. So the key app seals each such row when it writes it: an
//! HMAC-SHA-256 over its fields, under a key only the principal's key can
//! make, and checks the seal each time it shows the row or signs from it. A
//! row it did not write, or one changed since, is refused, never shown or
//! signed from. A seal proves the key app wrote the row, not that the names
//! it rendered into it (from the agents' and contacts' rows) were honest; it
//! cannot tell an older row the key app wrote for the same request from the
//! current one (the service keeps the latest of those it reworded), nor see a
//! row deleted.

use hmac::{Hmac, Mac};
use schcp::jws::{JwsError, Signer};
use sha2::Sha256;
use zeroize::Zeroizing;

/// What the seal key is made from: the principal key's signature over this
/// label. Ed25519 signatures are deterministic (RFC 8032 §5.1.6), so every
/// start makes the same key, and only the holder of the private key can make
/// it. The label holds no `.`, and everything else the key app signs is a JWS
/// signing input, `BASE64URL(header) '.' BASE64URL(payload)` (RFC 7515 §5.1),
/// so no signature it ever gives out is this one.
const KEY_LABEL: &[u8] = b"schcp-keyapp records seal key, v1";

/// The seal key, wiped on drop.
pub struct RecordSeal {
    key: Zeroizing<[u8; 32]>,
}

/// A request's fields as they are shown and signed from: everything the
/// consent window reads and everything its yes is built from.
#[derive(Debug, Clone, Copy)]
pub struct RequestFields<'a> {
    pub request_id: &'a str,
    pub agent_jkt: &'a str,
    pub kind: &'a str,
    pub consent_text: &'a str,
    pub input: &'a str,
    pub hosts: Option<&'a str>,
    pub summary: &'a str,
    pub terms: Option<&'a str>,
    pub attention: Option<&'a str>,
    pub created_at: i64,
    pub expires_at: i64,
}

impl RecordSeal {
    /// The seal key of the principal whose key is `signer`.
    pub fn of(signer: &dyn Signer) -> Result<RecordSeal, JwsError> {
        let signature = Zeroizing::new(signer.sign(KEY_LABEL)?);
        // A signer whose signatures vary would make another key at each start
        // and refuse every row sealed before it: said here, once, instead.
        if *Zeroizing::new(signer.sign(KEY_LABEL)?) != *signature {
            return Err(JwsError::Signing("the principal key's signatures are not deterministic".into()));
        }
        let hk = hkdf::Hkdf::<Sha256>::new(Some(b"schcp-keyapp"), &signature);
        let mut key = Zeroizing::new([0u8; 32]);
        hk.expand(b"records seal, v1", &mut key[..]).expect("32 bytes is a valid HKDF-SHA-256 length");
        Ok(RecordSeal { key })
    }

    /// The seal of a request's row.
    pub fn request(&self, r: &RequestFields<'_>) -> String {
        schcp::b64::encode(self.request_mac(r).finalize().into_bytes())
    }

    /// Whether `seal` is the one the key app made for exactly these fields
    /// (compared in constant time). A row with none (written before seals,
    /// or by hand) holds none.
    pub fn holds(&self, r: &RequestFields<'_>, seal: Option<&str>) -> bool {
        let Some(tag) = seal.and_then(|s| schcp::b64::decode(s).ok()) else { return false };
        self.request_mac(r).verify_slice(&tag).is_ok()
    }

    fn request_mac(&self, r: &RequestFields<'_>) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.key[..]).expect("HMAC takes a key of any length");
        // Which record, then each field with its length (or absence), so no
        // two rows' fields read as the same bytes.
        let (created_at, expires_at) = (r.created_at.to_be_bytes(), r.expires_at.to_be_bytes());
        let fields: [Option<&[u8]>; 12] = [
            Some(b"request"),
            Some(r.request_id.as_bytes()),
            Some(r.agent_jkt.as_bytes()),
            Some(r.kind.as_bytes()),
            Some(r.consent_text.as_bytes()),
            Some(r.input.as_bytes()),
            r.hosts.map(str::as_bytes),
            Some(r.summary.as_bytes()),
            r.terms.map(str::as_bytes),
            r.attention.map(str::as_bytes),
            Some(&created_at),
            Some(&expires_at),
        ];
        for field in fields {
            match field {
                Some(bytes) => {
                    mac.update(&[1]);
                    mac.update(&(bytes.len() as u64).to_be_bytes());
                    mac.update(bytes);
                }
                None => mac.update(&[0]),
            }
        }
        mac
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::SigningKey;

    fn fields() -> RequestFields<'static> {
        RequestFields {
            request_id: "rq_1",
            agent_jkt: "jkt",
            kind: "mandate",
            consent_text: "I allow Example Agent to book one oil change.",
            input: r#"{"scope":["book"]}"#,
            hosts: Some("[]"),
            summary: "Oil change",
            terms: None,
            attention: Some("[]"),
            created_at: 1_799_999_400,
            expires_at: 1_800_000_000,
        }
    }

    #[test]
    fn a_seal_holds_for_the_fields_it_was_made_for_and_no_others() {
        let seal = RecordSeal::of(&SigningKey::from_bytes(&[7; 32])).unwrap();
        let f = fields();
        let tag = seal.request(&f);
        assert!(seal.holds(&f, Some(&tag)));
        assert!(!seal.holds(&f, None), "a row without a seal holds none");
        assert!(!seal.holds(&f, Some("not base64!")));
        // Each field is sealed: a changed one, a moved boundary between two,
        // and a present field taken for an absent one all fail.
        let changed = [
            RequestFields { input: r#"{"scope":["book","cancel"]}"#, ..f },
            RequestFields { consent_text: "I allow Example Agent to book anything.", ..f },
            RequestFields { request_id: "rq_2", ..f },
            RequestFields { kind: "closed_mandate", ..f },
            RequestFields { hosts: None, ..f },
            RequestFields { terms: Some(""), ..f },
            RequestFields { attention: None, ..f },
            RequestFields { summary: "Oil change at any price", ..f },
            RequestFields { agent_jkt: "other", ..f },
            RequestFields { expires_at: f.expires_at + 1, ..f },
            RequestFields { created_at: f.created_at - 1, ..f },
            RequestFields { kind: "mandat", consent_text: "eI allow Example Agent to book one oil change.", ..f },
        ];
        for c in changed {
            assert!(!seal.holds(&c, Some(&tag)), "{c:?}");
        }
    }

    #[test]
    fn the_key_is_the_principals_own_and_the_same_at_every_start() {
        let f = fields();
        let mine = RecordSeal::of(&SigningKey::from_bytes(&[7; 32])).unwrap().request(&f);
        let again = RecordSeal::of(&SigningKey::from_bytes(&[7; 32])).unwrap();
        assert!(again.holds(&f, Some(&mine)), "a restart checks the seals it made before");
        let other = RecordSeal::of(&SigningKey::from_bytes(&[8; 32])).unwrap();
        assert!(!other.holds(&f, Some(&mine)), "another key's seal is not this principal's");
    }

    #[test]
    fn the_label_can_never_be_a_jws_signing_input() {
        // RFC 7515 §5.1: a signing input always holds a '.'.
        assert!(!KEY_LABEL.contains(&b'.'));
    }
}
