//! The person's attestations (SchCP §7.5), checked before they are kept.
//!
//! An attestation is worth keeping only if a host would honour it: its
//! attester is one a host lists in `trust.attesters`, its signature verifies
//! with a key that host lists for it, it is about this principal and
//! `iat ≤ now < exp`. The attesters' keys come from where hosts publish them,
//! the trust lists of the hosts' discovery documents the key app verified
//! when it showed the person a mandate request for them. Whether a particular
//! mandate carries it is decided again when the mandate is issued, per host
//! (`schcp::verify::select_attestations`).

use super::{mandate, Directory, Origin, Service, ServiceError};
use crate::kind::RequestKind;
use crate::store::attestations::{self, AttestationRow};
use crate::store::requests;
use schcp::claims::Attester;
use schcp::refusal::{Code, Reason};
use schcp::verify::AttestationCheck;
use serde_json::{json, Value};

/// The longest attestation kept, in bytes. One is a few hundred bytes; a
/// mandate carries up to four to every host (§3.3), so a large one would
/// weigh on every request an agent makes.
pub const MAX_ATTESTATION_BYTES: usize = 4096;

/// How many of the latest mandate requests' trust lists are searched for an
/// attester's keys.
const TRUST_LISTS_READ: i64 = 500;

/// Why an attestation the person added was not kept (§7.5). Each has a
/// reason of its own, so the window and the terminal word it alike; nothing
/// is stored, not even a history entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AttestationRefusal {
    #[error("an attestation is at most {max} bytes; this one is {len}")]
    TooLarge { len: usize, max: usize },
    /// Not a closed-schema compact JWS with `typ: schcp-attestation+jwt`.
    #[error("not an attestation: {0}")]
    Malformed(String),
    /// No host whose document the key app verified lists the attester, so
    /// there is no key to check its signature with.
    #[error("no host the person has dealt with trusts attester {0:?}, so its signature cannot be checked")]
    UnknownAttester(String),
    /// The attester is known, and no key listed for it verifies the signature.
    #[error("no key the hosts list for attester {0:?} verifies the attestation's signature")]
    Forged(String),
    #[error("the attestation is about {found:?}, not this principal")]
    WrongSubject { found: String },
    /// `iat` is after now (§7.5 `iat ≤ now`).
    #[error("the attestation is issued in the future (iat {iat}, now {now})")]
    NotYetValid { iat: i64, now: i64 },
    /// `exp` has passed (§7.5 `now < exp`).
    #[error("the attestation has expired (exp {exp}, now {now})")]
    Expired { exp: i64, now: i64 },
    /// The very same attestation is kept already.
    #[error("this attestation is already kept")]
    AlreadyHeld,
}

impl AttestationRefusal {
    /// Its §9 class and reason, on every surface.
    pub fn code_and_reason(&self) -> (Code, Reason) {
        use AttestationRefusal as A;
        match self {
            A::TooLarge { .. } => (Code::InvalidRequest, Reason::AttestationTooLarge),
            A::Malformed(_) => (Code::InvalidRequest, Reason::NotAnAttestation),
            A::UnknownAttester(_) => (Code::VerificationFailed, Reason::UnknownAttester),
            A::Forged(_) => (Code::VerificationFailed, Reason::AttestationForged),
            A::WrongSubject { .. } => (Code::VerificationFailed, Reason::WrongSubject),
            A::NotYetValid { .. } => (Code::VerificationFailed, Reason::AttestationNotYetValid),
            A::Expired { .. } => (Code::VerificationFailed, Reason::AttestationExpired),
            A::AlreadyHeld => (Code::Conflict, Reason::AttestationHeld),
        }
    }
}

impl From<AttestationCheck> for AttestationRefusal {
    fn from(c: AttestationCheck) -> Self {
        match c {
            AttestationCheck::Malformed(m) => AttestationRefusal::Malformed(m),
            AttestationCheck::UntrustedAttester(iss) => AttestationRefusal::UnknownAttester(iss),
            AttestationCheck::BadSignature(iss) => AttestationRefusal::Forged(iss),
            AttestationCheck::WrongSubject { found } => AttestationRefusal::WrongSubject { found },
            AttestationCheck::IssuedInFuture { iat, now } => AttestationRefusal::NotYetValid { iat, now },
            AttestationCheck::Expired { exp, now } => AttestationRefusal::Expired { exp, now },
            // A check added to the protocol crate later is still a refusal.
            other => AttestationRefusal::Malformed(other.to_string()),
        }
    }
}

impl From<AttestationRefusal> for ServiceError {
    fn from(r: AttestationRefusal) -> Self {
        ServiceError::Attestation(r)
    }
}

/// Every attester the trust lists name, each once, with every key any of
/// them lists for it: an attestation one host would honour is worth keeping.
fn merged(lists: impl IntoIterator<Item = Attester>) -> Vec<Attester> {
    let mut out: Vec<Attester> = Vec::new();
    for a in lists {
        match out.iter_mut().find(|m| m.id == a.id) {
            Some(m) => {
                for k in a.keys {
                    if !m.keys.contains(&k) {
                        m.keys.push(k);
                    }
                }
            }
            None => out.push(a),
        }
    }
    out
}

impl Service {
    /// The attesters the hosts of the person's latest mandate requests trust,
    /// with their keys, as verified when each request was shown.
    async fn known_attesters(&self) -> Result<Vec<Attester>, ServiceError> {
        let rows = requests::latest_sealed(self.store(), RequestKind::Mandate.as_str(), TRUST_LISTS_READ).await?;
        let mut lists = Vec::new();
        // Only rows the key app wrote (record_seal): a host's trust list is
        // what the key app verified when it showed the request.
        for row in rows.iter().filter(|r| self.request_sealed(r)) {
            lists.extend(mandate::host_trust_of(&row.input)?.into_iter().flat_map(|h| h.attesters));
        }
        Ok(merged(lists))
    }
}

impl Directory<'_> {
    /// Keeps an attestation about this principal (§7.5) once it is checked as
    /// a host that trusts its attester would check it, and the OS confirmed
    /// the person (`origin`): root mandates carry it to hosts, and the
    /// person's records show it as theirs, so a process of the person's must
    /// not add one they never saw (the attester's key may come from a host the
    /// assistant chose). A refused one changes nothing.
    pub async fn add_attestation(self, jws: &str, origin: Origin<'_>) -> Result<Value, ServiceError> {
        if jws.len() > MAX_ATTESTATION_BYTES {
            return Err(AttestationRefusal::TooLarge { len: jws.len(), max: MAX_ATTESTATION_BYTES }.into());
        }
        let known = self.svc.known_attesters().await?;
        let now = self.svc.now();
        let verified = schcp::verify::verify_attestation(jws, &known, self.svc.principal(), now)
            .map_err(AttestationRefusal::from)?;
        let summary = self.svc.words_with(
            "verification-attestation-summary",
            [("issuer", crate::ui_words::quoted(self.svc.language(), &verified.claims.iss).into())],
        );
        self.svc.confirm(&*origin.asker()?, summary).await?;
        let row = AttestationRow { iss: verified.claims.iss, exp: verified.claims.exp, compact: verified.compact };
        if !attestations::add(self.svc.store(), &row, now).await? {
            return Err(AttestationRefusal::AlreadyHeld.into());
        }
        Ok(json!({ "iss": row.iss, "exp": row.exp }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::service_at;
    use super::*;
    use crate::store::requests::NewRequest;
    use ed25519_dalek::SigningKey;
    use schcp::jwk::Jwk;
    use schcp::jws::Typ;

    const T0: i64 = 1_792_000_000;
    const ATTESTER: &str = "phone-check.example";

    fn attester_key() -> SigningKey {
        SigningKey::from_bytes(&[3; 32])
    }

    /// An attestation signed by `key` about `sub`, issued at `iat`, valid until `exp`.
    fn signed(key: &SigningKey, typ: Typ, sub: &str, iat: i64, exp: i64) -> String {
        let claims = json!({"iss": ATTESTER, "sub": sub, "iat": iat, "exp": exp, "assurance": "unique_phone"});
        schcp::jws::sign(typ, Default::default(), &claims, key).unwrap()
    }

    /// A mandate request shown for a host whose `trust.attesters` lists
    /// `ATTESTER` with `key` (what a verified discovery document gave).
    async fn shown_for_host_trusting(svc: &Service, key: &SigningKey) {
        let jkt = "agent-thumbprint";
        let agent = format!(
            "INSERT INTO agents (jkt, jwk, name, pairing_id, fingerprint, status, created_at) \
             VALUES ('{jkt}', '{{}}', 'Assistant', 'pr_1', 'f', 'approved', 0)"
        );
        crate::store::testing::write_unchecked(svc.store(), &agent).await;
        let trust = json!({"host_trust": [{"host": "https://garage.example", "attesters": [
            {"id": ATTESTER, "keys": [Jwk::ed25519(&key.verifying_key())]}]}]})
        .to_string();
        let mut r = NewRequest {
            request_id: "rq_1",
            agent_jkt: jkt,
            kind: RequestKind::Mandate.as_str(),
            idempotency_key: "k1",
            body_sha256: "",
            consent_text: "",
            input: &trust,
            created_at: T0 - 100,
            expires_at: T0 + 100,
            hosts: "[]",
            attention: "[]",
            summary: "",
            terms: None,
            seal: "",
        };
        // Sealed as the key app seals what it stores (record_seal).
        let seal = svc.seal_request(&r.sealed_fields());
        r.seal = &seal;
        assert_eq!(requests::insert(svc.store(), &r).await.unwrap(), requests::Inserted::Stored);
    }

    fn refusal(r: Result<Value, ServiceError>) -> AttestationRefusal {
        match r {
            Err(ServiceError::Attestation(a)) => a,
            other => panic!("not an attestation refusal: {other:?}"),
        }
    }

    async fn history_len(svc: &Service) -> usize {
        crate::store::history::latest(svc.store(), 100).await.unwrap().len()
    }

    /// An attestation a host would honour is still kept only after the OS
    /// confirmed the person: an assistant that names an attester through a
    /// host of its own and signs one over the control socket keeps nothing.
    #[tokio::test]
    async fn an_attestation_is_kept_only_once_the_os_confirmed_the_person() {
        use crate::user_verification::{Approval, Method, Refusal, UserVerifier, VerdictFuture};
        struct Says(Result<Method, Refusal>);
        impl UserVerifier for Says {
            fn verify<'a>(&'a self, _: &'a Approval) -> VerdictFuture<'a> {
                let verdict = self.0.clone();
                Box::pin(async move { verdict })
            }
        }
        let (svc, _clock, _dir) = service_at(T0).await;
        let svc = svc.with_user_verifier(std::sync::Arc::new(Says(Err(Refusal::NotAuthorized))));
        let me = svc.principal().to_owned();
        let key = attester_key();
        shown_for_host_trusting(&svc, &key).await;
        let before = history_len(&svc).await;
        let good = signed(&key, Typ::Attestation, &me, T0 - 60, T0 + 3600);
        let err = svc.directory().add_attestation(&good, Origin::ThisProcess).await.unwrap_err();
        assert!(matches!(err, ServiceError::NotVerified(Refusal::NotAuthorized)), "{err:?}");
        assert!(svc.directory().attestations().await.unwrap().is_empty(), "nothing kept");
        assert_eq!(history_len(&svc).await, before, "nor written down");
        let svc = svc.with_user_verifier(std::sync::Arc::new(Says(Ok(Method::Polkit))));
        svc.directory().add_attestation(&good, Origin::ThisProcess).await.unwrap();
        assert_eq!(svc.directory().attestations().await.unwrap().len(), 1);
    }

    /// §7.5, each rule and its violation: an attestation is kept only when a
    /// host the person deals with would honour it; a refused one changes
    /// nothing, not even the history.
    #[tokio::test]
    async fn only_an_attestation_a_host_would_honour_is_kept() {
        let (svc, _clock, _dir) = service_at(T0).await;
        let me = svc.principal().to_owned();
        let key = attester_key();
        let good = signed(&key, Typ::Attestation, &me, T0 - 60, T0 + 3600);

        // No host trusts the attester yet: there is no key to check it with.
        assert_eq!(
            refusal(svc.directory().add_attestation(&good, Origin::ThisProcess).await),
            AttestationRefusal::UnknownAttester(ATTESTER.into())
        );

        shown_for_host_trusting(&svc, &key).await;
        let before = history_len(&svc).await;
        let someone_else = Jwk::ed25519(&SigningKey::from_bytes(&[5; 32]).verifying_key()).principal_id().unwrap();
        let forger = SigningKey::from_bytes(&[9; 32]);
        let mut tampered = good.clone();
        tampered.pop();
        tampered.push(if good.ends_with('A') { 'B' } else { 'A' });
        let oversized = format!("{}{}", good, "A".repeat(MAX_ATTESTATION_BYTES));
        let cases: Vec<(String, Reason)> = vec![
            (signed(&forger, Typ::Attestation, &me, T0 - 60, T0 + 3600), Reason::AttestationForged),
            (tampered, Reason::AttestationForged),
            (signed(&key, Typ::Attestation, &someone_else, T0 - 60, T0 + 3600), Reason::WrongSubject),
            (signed(&key, Typ::Attestation, &me, T0 - 3600, T0), Reason::AttestationExpired),
            (signed(&key, Typ::Attestation, &me, T0 + 1, T0 + 3600), Reason::AttestationNotYetValid),
            (signed(&key, Typ::Offer, &me, T0 - 60, T0 + 3600), Reason::NotAnAttestation),
            ("not.a.jws".to_owned(), Reason::NotAnAttestation),
            (String::new(), Reason::NotAnAttestation),
            (format!("{good}\n"), Reason::NotAnAttestation),
            (oversized, Reason::AttestationTooLarge),
        ];
        for (jws, expected) in &cases {
            let r = refusal(svc.directory().add_attestation(jws, Origin::ThisProcess).await);
            assert_eq!(r.code_and_reason().1, *expected, "{jws}: {r:?}");
        }
        assert!(svc.directory().attestations().await.unwrap().is_empty(), "a refused attestation is not kept");
        assert_eq!(history_len(&svc).await, before, "nor written down");

        // The rule: iat ≤ now (iat = now is honoured) < exp.
        let at_now = signed(&key, Typ::Attestation, &me, T0, T0 + 1);
        assert_eq!(
            svc.directory().add_attestation(&at_now, Origin::ThisProcess).await.unwrap(),
            json!({"iss": ATTESTER, "exp": T0 + 1})
        );
        assert_eq!(
            svc.directory().add_attestation(&good, Origin::ThisProcess).await.unwrap(),
            json!({"iss": ATTESTER, "exp": T0 + 3600})
        );
        let kept: Vec<String> = svc.directory().attestations().await.unwrap().into_iter().map(|a| a.compact).collect();
        assert_eq!(kept, [at_now, good.clone()]);

        // The same one again is refused, and writes nothing.
        let entries = history_len(&svc).await;
        assert_eq!(
            refusal(svc.directory().add_attestation(&good, Origin::ThisProcess).await),
            AttestationRefusal::AlreadyHeld
        );
        assert_eq!((svc.directory().attestations().await.unwrap().len(), history_len(&svc).await), (2, entries));
    }

    #[test]
    fn the_trust_lists_name_each_attester_once_with_every_key() {
        let k = |seed: u8| Jwk::ed25519(&SigningKey::from_bytes(&[seed; 32]).verifying_key());
        let a = |id: &str, keys: Vec<Jwk>| Attester { id: id.into(), name: None, keys };
        let m = merged([a("x", vec![k(1)]), a("y", vec![k(2)]), a("x", vec![k(1), k(3)])]);
        assert_eq!(m, [a("x", vec![k(1), k(3)]), a("y", vec![k(2)])]);
    }

    #[test]
    fn every_refusal_has_its_own_reason() {
        use AttestationRefusal as A;
        let all = [
            A::TooLarge { len: 1, max: 0 },
            A::Malformed(String::new()),
            A::UnknownAttester(String::new()),
            A::Forged(String::new()),
            A::WrongSubject { found: String::new() },
            A::NotYetValid { iat: 0, now: 0 },
            A::Expired { exp: 0, now: 0 },
            A::AlreadyHeld,
        ];
        let reasons: std::collections::BTreeSet<_> = all.iter().map(|a| a.code_and_reason().1.as_str()).collect();
        assert_eq!(reasons.len(), all.len());
    }
}
