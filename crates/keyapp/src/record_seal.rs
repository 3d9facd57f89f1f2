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

/// The seal key, wiped on drop (each copy of it).
#[derive(Clone)]
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

/// A contact as the person confirmed it: the principal, and the name and
/// relationship a consent text shows for it.
#[derive(Debug, Clone, Copy)]
pub struct ContactFields<'a> {
    pub principal: &'a str,
    pub name: &'a str,
    pub relationship: Option<&'a str>,
}

/// A credential's row as the key app wrote it when it issued it: everything
/// a later signature is built from without the person (its registration
/// with the hosted status service: its hosts, expiry, limit and host keys)
/// and everything that names it. JSON columns are sealed as the text stored.
#[derive(Debug, Clone, Copy)]
pub struct CredentialFields<'a> {
    pub jti: &'a str,
    pub kind: &'a str,
    pub agent_jkt: Option<&'a str>,
    pub request_id: Option<&'a str>,
    pub aud: &'a str,
    pub scope: &'a str,
    pub iat: i64,
    pub exp: i64,
    pub compact: &'a str,
    pub status_url: Option<&'a str>,
    pub max_bookings: Option<i64>,
    pub shared_limit: bool,
    pub booking_id: Option<&'a str>,
    pub host_keys: &'a str,
}

/// A host's receipt as the key app verified and kept it (SchCP §5.3): what
/// My bookings shows, and the credential it says the booking rests on.
#[derive(Debug, Clone, Copy)]
pub struct ReceiptFields<'a> {
    pub host: &'a str,
    pub booking_id: &'a str,
    pub offer_sha256: Option<&'a str>,
    pub mandate_jti: Option<&'a str>,
    pub compact: &'a str,
    pub verified_at: i64,
}

/// A history entry as the key app wrote it, in the transaction of the change
/// it tells of: what History says the person and their assistants did.
#[derive(Debug, Clone, Copy)]
pub struct HistoryFields<'a> {
    pub id: i64,
    pub at: i64,
    pub event: &'a str,
    pub subject: &'a str,
    pub detail: &'a str,
    pub confirmed_by: Option<&'a str>,
}

/// An agent key as it asked to pair (docs/agent-api.md §4): the key, the
/// name every consent text gives it, its pairing, and whether the person
/// approved it (the OS confirmed their yes).
#[derive(Debug, Clone, Copy)]
pub struct PairingFields<'a> {
    pub jkt: &'a str,
    pub jwk: &'a str,
    pub name: &'a str,
    pub pairing_id: &'a str,
    pub approved: bool,
}

/// The status address the person confirmed: where every status URL the key
/// app signs points (SchCP §3.3 "Status URLs"), and when and how it was
/// confirmed.
#[derive(Debug, Clone, Copy)]
pub struct StatusAddressFields<'a> {
    pub hosted: Option<&'a str>,
    pub public_base: &'a str,
    pub hosts_on_this_machine: bool,
    pub confirmed_at: i64,
    pub confirmed_by: Option<&'a str>,
}

/// Where a host id stands in the records (SchCP §2.2): the binding made at
/// the person's first yes, a place it was met at instead and the person may
/// accept, or the place and keys one credential's host was verified with.
/// Each decides whether the person is warned of a host new to them, and
/// where a receipt or change offer citing a credential may come from.
#[derive(Debug, Clone, Copy)]
pub struct PlaceFields<'a> {
    pub record: PlaceRecord,
    pub host_id: &'a str,
    pub domain: &'a str,
    pub basis: &'a str,
    /// The host's name, kept with a binding only.
    pub name: Option<&'a str>,
    /// The credential, for a credential's host only.
    pub jti: Option<&'a str>,
    /// The discovery keys' thumbprints as the JSON stored, for a
    /// credential's host only.
    pub key_thumbprints: Option<&'a str>,
}

/// Which of the host records a [`PlaceFields`] is, so that a seal made for
/// one is never taken for another's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaceRecord {
    Binding,
    Change,
    CredentialHost,
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
        self.seal(r)
    }

    /// Whether `seal` is the one the key app made for exactly these fields
    /// (compared in constant time). A row with none (written before seals,
    /// or by hand) holds none.
    pub fn holds(&self, r: &RequestFields<'_>, seal: Option<&str>) -> bool {
        self.holds_for(r, seal)
    }

    /// The seal of a credential's row.
    pub fn credential(&self, c: &CredentialFields<'_>) -> String {
        self.seal(c)
    }

    /// Whether `seal` is the one the key app made for exactly this
    /// credential's fields, as [`RecordSeal::holds`] is for a request's.
    pub fn credential_holds(&self, c: &CredentialFields<'_>, seal: Option<&str>) -> bool {
        self.holds_for(c, seal)
    }

    /// The seal of a kept receipt's row.
    pub fn receipt(&self, r: &ReceiptFields<'_>) -> String {
        self.seal(r)
    }

    /// Whether `seal` is the one the key app made for exactly this receipt.
    pub fn receipt_holds(&self, r: &ReceiptFields<'_>, seal: Option<&str>) -> bool {
        self.holds_for(r, seal)
    }

    /// The seal of a history entry's row.
    pub fn history(&self, h: &HistoryFields<'_>) -> String {
        self.seal(h)
    }

    /// Whether `seal` is the one the key app made for exactly this entry.
    pub fn history_holds(&self, h: &HistoryFields<'_>, seal: Option<&str>) -> bool {
        self.holds_for(h, seal)
    }

    /// The seal of a contact's row.
    pub fn contact(&self, c: &ContactFields<'_>) -> String {
        self.seal(c)
    }

    /// Whether `seal` is the one the key app made for exactly this contact.
    pub fn contact_holds(&self, c: &ContactFields<'_>, seal: Option<&str>) -> bool {
        self.holds_for(c, seal)
    }

    /// The seal of an agent key's row.
    pub fn pairing(&self, p: &PairingFields<'_>) -> String {
        self.seal(p)
    }

    /// Whether `seal` is the one the key app made for exactly this pairing.
    pub fn pairing_holds(&self, p: &PairingFields<'_>, seal: Option<&str>) -> bool {
        self.holds_for(p, seal)
    }

    /// The seal of the confirmed status address's row.
    pub fn status_address(&self, a: &StatusAddressFields<'_>) -> String {
        self.seal(a)
    }

    /// Whether `seal` is the one the key app made for exactly this address.
    pub fn status_address_holds(&self, a: &StatusAddressFields<'_>, seal: Option<&str>) -> bool {
        self.holds_for(a, seal)
    }

    /// The seal of a host binding's, a noted change's or a credential host's row.
    pub fn place(&self, p: &PlaceFields<'_>) -> String {
        self.seal(p)
    }

    /// Whether `seal` is the one the key app made for exactly this place.
    pub fn place_holds(&self, p: &PlaceFields<'_>, seal: Option<&str>) -> bool {
        self.holds_for(p, seal)
    }

    fn seal(&self, record: &dyn Sealed) -> String {
        schcp::b64::encode(self.mac(record).finalize().into_bytes())
    }

    fn holds_for(&self, record: &dyn Sealed, seal: Option<&str>) -> bool {
        let Some(tag) = seal.and_then(|s| schcp::b64::decode(s).ok()) else { return false };
        self.mac(record).verify_slice(&tag).is_ok()
    }

    /// The MAC over one record: which kind of record it is first, then each
    /// field with its length (or absence), so no two rows' fields read as the
    /// same bytes.
    fn mac(&self, record: &dyn Sealed) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.key[..]).expect("HMAC takes a key of any length");
        record.feed(&mut |field| match field {
            Some(bytes) => {
                mac.update(&[1]);
                mac.update(&(bytes.len() as u64).to_be_bytes());
                mac.update(bytes);
            }
            None => mac.update(&[0]),
        });
        mac
    }
}

/// A record's fields in the order its seal covers them.
trait Sealed {
    fn feed(&self, put: &mut dyn FnMut(Option<&[u8]>));
}

impl Sealed for RequestFields<'_> {
    fn feed(&self, put: &mut dyn FnMut(Option<&[u8]>)) {
        put(Some(b"request"));
        put(Some(self.request_id.as_bytes()));
        put(Some(self.agent_jkt.as_bytes()));
        put(Some(self.kind.as_bytes()));
        put(Some(self.consent_text.as_bytes()));
        put(Some(self.input.as_bytes()));
        put(self.hosts.map(str::as_bytes));
        put(Some(self.summary.as_bytes()));
        put(self.terms.map(str::as_bytes));
        put(self.attention.map(str::as_bytes));
        put(Some(&self.created_at.to_be_bytes()));
        put(Some(&self.expires_at.to_be_bytes()));
    }
}

impl Sealed for ReceiptFields<'_> {
    fn feed(&self, put: &mut dyn FnMut(Option<&[u8]>)) {
        put(Some(b"receipt"));
        put(Some(self.host.as_bytes()));
        put(Some(self.booking_id.as_bytes()));
        put(self.offer_sha256.map(str::as_bytes));
        put(self.mandate_jti.map(str::as_bytes));
        put(Some(self.compact.as_bytes()));
        put(Some(&self.verified_at.to_be_bytes()));
    }
}

impl Sealed for HistoryFields<'_> {
    fn feed(&self, put: &mut dyn FnMut(Option<&[u8]>)) {
        put(Some(b"history"));
        put(Some(&self.id.to_be_bytes()));
        put(Some(&self.at.to_be_bytes()));
        put(Some(self.event.as_bytes()));
        put(Some(self.subject.as_bytes()));
        put(Some(self.detail.as_bytes()));
        put(self.confirmed_by.map(str::as_bytes));
    }
}

impl Sealed for ContactFields<'_> {
    fn feed(&self, put: &mut dyn FnMut(Option<&[u8]>)) {
        put(Some(b"contact"));
        put(Some(self.principal.as_bytes()));
        put(Some(self.name.as_bytes()));
        put(self.relationship.map(str::as_bytes));
    }
}

impl Sealed for PairingFields<'_> {
    fn feed(&self, put: &mut dyn FnMut(Option<&[u8]>)) {
        put(Some(b"pairing"));
        put(Some(self.jkt.as_bytes()));
        put(Some(self.jwk.as_bytes()));
        put(Some(self.name.as_bytes()));
        put(Some(self.pairing_id.as_bytes()));
        put(Some(&[u8::from(self.approved)]));
    }
}

impl Sealed for StatusAddressFields<'_> {
    fn feed(&self, put: &mut dyn FnMut(Option<&[u8]>)) {
        put(Some(b"status address"));
        put(self.hosted.map(str::as_bytes));
        put(Some(self.public_base.as_bytes()));
        put(Some(&[u8::from(self.hosts_on_this_machine)]));
        put(Some(&self.confirmed_at.to_be_bytes()));
        put(self.confirmed_by.map(str::as_bytes));
    }
}

impl Sealed for PlaceFields<'_> {
    fn feed(&self, put: &mut dyn FnMut(Option<&[u8]>)) {
        put(Some(match self.record {
            PlaceRecord::Binding => b"host binding".as_slice(),
            PlaceRecord::Change => b"host change",
            PlaceRecord::CredentialHost => b"credential host",
        }));
        put(Some(self.host_id.as_bytes()));
        put(Some(self.domain.as_bytes()));
        put(Some(self.basis.as_bytes()));
        put(self.name.map(str::as_bytes));
        put(self.jti.map(str::as_bytes));
        put(self.key_thumbprints.map(str::as_bytes));
    }
}

impl Sealed for CredentialFields<'_> {
    fn feed(&self, put: &mut dyn FnMut(Option<&[u8]>)) {
        put(Some(b"credential"));
        put(Some(self.jti.as_bytes()));
        put(Some(self.kind.as_bytes()));
        put(self.agent_jkt.map(str::as_bytes));
        put(self.request_id.map(str::as_bytes));
        put(Some(self.aud.as_bytes()));
        put(Some(self.scope.as_bytes()));
        put(Some(&self.iat.to_be_bytes()));
        put(Some(&self.exp.to_be_bytes()));
        put(Some(self.compact.as_bytes()));
        put(self.status_url.map(str::as_bytes));
        put(self.max_bookings.map(i64::to_be_bytes).as_ref().map(|b| &b[..]));
        put(Some(&[u8::from(self.shared_limit)]));
        put(self.booking_id.map(str::as_bytes));
        put(Some(self.host_keys.as_bytes()));
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

    fn credential() -> CredentialFields<'static> {
        CredentialFields {
            jti: "m-1",
            kind: "mandate",
            agent_jkt: Some("jkt"),
            request_id: Some("rq_1"),
            aud: r#"["maple-street-auto"]"#,
            scope: r#"["book"]"#,
            iat: 1_799_999_400,
            exp: 1_800_000_000,
            compact: "a.b.c",
            status_url: Some("https://status.example/status/t/m-1"),
            max_bookings: Some(2),
            shared_limit: true,
            booking_id: None,
            host_keys: r#"{"maple-street-auto":["k"]}"#,
        }
    }

    #[test]
    fn a_credentials_seal_covers_every_field_a_registration_is_built_from() {
        let seal = RecordSeal::of(&SigningKey::from_bytes(&[7; 32])).unwrap();
        let c = credential();
        let tag = seal.credential(&c);
        assert!(seal.credential_holds(&c, Some(&tag)));
        assert!(!seal.credential_holds(&c, None));
        let changed = [
            CredentialFields { max_bookings: Some(200), ..c },
            CredentialFields { max_bookings: None, ..c },
            CredentialFields { shared_limit: false, ..c },
            CredentialFields { aud: r#"["*"]"#, ..c },
            CredentialFields { exp: c.exp + 86_400, ..c },
            CredentialFields { host_keys: r#"{"maple-street-auto":["k","assistant"]}"#, ..c },
            CredentialFields { status_url: None, ..c },
            CredentialFields { jti: "m-2", ..c },
            CredentialFields { kind: "closed_mandate", ..c },
            CredentialFields { agent_jkt: None, ..c },
            CredentialFields { request_id: Some("rq_2"), ..c },
            CredentialFields { scope: r#"["book","cancel"]"#, ..c },
            CredentialFields { iat: c.iat - 1, ..c },
            CredentialFields { compact: "a.b.d", ..c },
            CredentialFields { booking_id: Some("b-1"), ..c },
        ];
        for x in changed {
            assert!(!seal.credential_holds(&x, Some(&tag)), "{x:?}");
        }
        // A request's seal never stands for a credential's, nor the reverse.
        assert!(!seal.holds(&fields(), Some(&tag)));
        assert!(!seal.credential_holds(&c, Some(&seal.request(&fields()))));
    }

    #[test]
    fn a_receipts_seal_covers_its_booking_the_credential_it_cites_and_the_hosts_bytes() {
        let seal = RecordSeal::of(&SigningKey::from_bytes(&[7; 32])).unwrap();
        let r = ReceiptFields {
            host: "maple-street-auto",
            booking_id: "b_1",
            offer_sha256: Some("h1"),
            mandate_jti: Some("m-1"),
            compact: "a.b.c",
            verified_at: 1_800_000_000,
        };
        let tag = seal.receipt(&r);
        assert!(seal.receipt_holds(&r, Some(&tag)));
        assert!(!seal.receipt_holds(&r, None), "a row without a seal holds none");
        for x in [
            ReceiptFields { host: "other-host", ..r },
            ReceiptFields { booking_id: "b_2", ..r },
            ReceiptFields { offer_sha256: None, ..r },
            ReceiptFields { mandate_jti: Some("m-2"), ..r },
            ReceiptFields { mandate_jti: None, ..r },
            ReceiptFields { compact: "a.x.c", ..r },
            ReceiptFields { verified_at: r.verified_at + 1, ..r },
        ] {
            assert!(!seal.receipt_holds(&x, Some(&tag)), "{x:?}");
        }
        // Nor does another record's seal stand for a receipt's.
        assert!(!seal.receipt_holds(&r, Some(&seal.credential(&credential()))));
        assert!(!seal.credential_holds(&credential(), Some(&tag)));
    }

    #[test]
    fn a_history_entrys_seal_covers_its_place_time_event_subject_and_detail() {
        let seal = RecordSeal::of(&SigningKey::from_bytes(&[7; 32])).unwrap();
        let h = HistoryFields {
            id: 7,
            at: 1_800_000_000,
            event: "request_declined",
            subject: "rq_1",
            detail: "mandate",
            confirmed_by: None,
        };
        let tag = seal.history(&h);
        assert!(seal.history_holds(&h, Some(&tag)));
        assert!(!seal.history_holds(&h, None), "a row without a seal holds none");
        for x in [
            HistoryFields { id: 8, ..h },
            HistoryFields { at: h.at + 1, ..h },
            HistoryFields { event: "request_approved", ..h },
            HistoryFields { subject: "rq_2", ..h },
            HistoryFields { detail: "closed_mandate", ..h },
            HistoryFields { confirmed_by: Some("polkit"), ..h },
        ] {
            assert!(!seal.history_holds(&x, Some(&tag)), "{x:?}");
        }
        assert!(!seal.history_holds(&h, Some(&seal.credential(&credential()))));
    }

    #[test]
    fn a_places_seal_binds_its_host_id_to_its_domain_and_keys_and_to_its_kind_of_record() {
        let seal = RecordSeal::of(&SigningKey::from_bytes(&[7; 32])).unwrap();
        let bound = PlaceFields {
            record: PlaceRecord::Binding,
            host_id: "maple-street-auto",
            domain: "maplestreetauto.example",
            basis: "own_domain",
            name: Some("Maple Street Auto"),
            jti: None,
            key_thumbprints: None,
        };
        let tag = seal.place(&bound);
        assert!(seal.place_holds(&bound, Some(&tag)));
        assert!(!seal.place_holds(&bound, None));
        let issued = PlaceFields {
            record: PlaceRecord::CredentialHost,
            name: None,
            jti: Some("m-1"),
            key_thumbprints: Some(r#"["k"]"#),
            ..bound
        };
        let changed = [
            PlaceFields { domain: "maple-street-auto.example", ..bound },
            PlaceFields { host_id: "other-host", ..bound },
            PlaceFields { basis: "operator_trust", ..bound },
            PlaceFields { name: Some("Your Bank"), ..bound },
            PlaceFields { name: None, ..bound },
            // The same fields as another kind of host record.
            PlaceFields { record: PlaceRecord::Change, ..bound },
            PlaceFields { record: PlaceRecord::CredentialHost, ..bound },
        ];
        for x in changed {
            assert!(!seal.place_holds(&x, Some(&tag)), "{x:?}");
        }
        let issued_tag = seal.place(&issued);
        assert!(seal.place_holds(&issued, Some(&issued_tag)));
        for x in [
            PlaceFields { key_thumbprints: Some(r#"["k","assistant"]"#), ..issued },
            PlaceFields { jti: Some("m-2"), ..issued },
        ] {
            assert!(!seal.place_holds(&x, Some(&issued_tag)), "{x:?}");
        }
    }

    #[test]
    fn a_pairings_seal_binds_its_name_to_its_key_and_says_whether_the_person_approved_it() {
        let seal = RecordSeal::of(&SigningKey::from_bytes(&[7; 32])).unwrap();
        let p = PairingFields { jkt: "k1", jwk: "{}", name: "Calendar", pairing_id: "pr_1", approved: false };
        let tag = seal.pairing(&p);
        assert!(seal.pairing_holds(&p, Some(&tag)));
        for x in [
            PairingFields { approved: true, ..p },
            PairingFields { name: "Family Calendar", ..p },
            PairingFields { jkt: "k2", ..p },
            PairingFields { jwk: r#"{"x":"y"}"#, ..p },
            PairingFields { pairing_id: "pr_2", ..p },
        ] {
            assert!(!seal.pairing_holds(&x, Some(&tag)), "{x:?}");
        }
    }

    #[test]
    fn a_status_addresss_seal_covers_where_and_how_it_was_confirmed() {
        let seal = RecordSeal::of(&SigningKey::from_bytes(&[7; 32])).unwrap();
        let a = StatusAddressFields {
            hosted: Some("https://status.example"),
            public_base: "https://status.example",
            hosts_on_this_machine: false,
            confirmed_at: 1_700_000_000,
            confirmed_by: Some("polkit"),
        };
        let tag = seal.status_address(&a);
        assert!(seal.status_address_holds(&a, Some(&tag)));
        assert!(!seal.status_address_holds(&a, None));
        for x in [
            StatusAddressFields { hosted: Some("https://assistant.example"), ..a },
            StatusAddressFields { hosted: None, ..a },
            StatusAddressFields { public_base: "https://assistant.example", ..a },
            StatusAddressFields { hosts_on_this_machine: true, ..a },
            StatusAddressFields { confirmed_at: a.confirmed_at + 1, ..a },
            StatusAddressFields { confirmed_by: None, ..a },
        ] {
            assert!(!seal.status_address_holds(&x, Some(&tag)), "{x:?}");
        }
    }

    #[test]
    fn a_contacts_seal_binds_its_name_to_its_principal() {
        let seal = RecordSeal::of(&SigningKey::from_bytes(&[7; 32])).unwrap();
        let noor = ContactFields { principal: "urn:a", name: "Noor", relationship: Some("sister") };
        let tag = seal.contact(&noor);
        assert!(seal.contact_holds(&noor, Some(&tag)));
        for changed in [
            ContactFields { name: "Mum", ..noor },
            ContactFields { principal: "urn:assistant", ..noor },
            ContactFields { relationship: None, ..noor },
            ContactFields { relationship: Some("mother"), ..noor },
        ] {
            assert!(!seal.contact_holds(&changed, Some(&tag)), "{changed:?}");
        }
        assert!(!seal.contact_holds(&noor, None));
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
