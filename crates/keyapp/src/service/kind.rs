//! A request kind is one implementation of [`Kind`]: a typed `Body` read once
//! from the agent's request, a `prepare` that verifies it and describes it for
//! the person, a typed `Input` kept with the request, and an `issue` that
//! builds and signs the credential from that input once the person said yes.
//!
//! Both steps see only a [`Context`]: the clock, the principal's keys, the
//! discovery client, the records a kind may read and the §2.2 host placement.
//! Adding a kind is its own module and one line in `requests::handlers`.

use super::hosts::Placed;
use super::issued::Issued;
use super::{corrupt, Service, ServiceError};
use crate::config::Config;
use crate::discovery::{DiscoveredHost, DiscoveryClient};
use crate::host_binding::HostBinding;
use crate::kind::RequestKind;
use crate::store::Store;
use schcp::jwk::Jwk;
use schcp::jws::Signer;
use schcp::refusal::Reason;
use schcp_consent::{ConsentRequest, VerifiedDomain};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::future::Future;
use std::pin::Pin;

/// A boxed future of the service's, for the object-safe [`Records`].
pub(super) type Read<'a, T> = Pin<Box<dyn Future<Output = Result<T, ServiceError>> + Send + 'a>>;

/// A principal key as kinds sign with it.
pub(super) type KeyRef<'a> = &'a (dyn Signer + Send + Sync);

/// What a kind asks of the service beyond the store: where a host is (§2.2,
/// which notes a conflict for the person) and the names agents were paired
/// under. The service implements it; a kind's tests may fake it.
pub(super) trait Records: Send + Sync {
    /// §2.2: where `host`'s verified document puts its host id, and whether the person has dealt with it.
    fn place<'a>(&'a self, host: &'a DiscoveredHost) -> Read<'a, Placed>;
    /// §2.2: every credential issued for the booking was issued at this place.
    fn at_booking_place<'a>(&'a self, booking_id: &'a str, found: &'a HostBinding) -> Read<'a, ()>;
    /// §2.2: the credential `jti` names this place and, with `signing_key`, this key.
    fn at_credential_place<'a>(
        &'a self,
        jti: &'a str,
        found: &'a HostBinding,
        signing_key: Option<&'a str>,
    ) -> Read<'a, bool>;
    /// The name the requesting agent was paired under.
    fn agent_name<'a>(&'a self, jkt: &'a str) -> Read<'a, String>;
    /// The name of the agent paired with key `jkt`, if the person approved it.
    fn paired_agent_name<'a>(&'a self, jkt: &'a str) -> Read<'a, Option<String>>;
    /// The person's language and contacts, for a sentence a kind keeps to sign
    /// later (an invitation's no, §5.10), in the words its text was shown in.
    fn consent_words(&self) -> Read<'_, (std::sync::Arc<schcp_consent::Locale>, schcp_consent::Contacts)>;
    /// Whether a request's row is one the key app wrote (record_seal).
    fn sealed(&self, row: &crate::store::requests::SealedRow) -> bool;
    /// Whether the key app issued a credential for request `request_id`: a
    /// credential row naming it whose seal holds. A request's status is not
    /// sealed; a credential is written only at the person's yes.
    fn issued_for<'a>(&'a self, request_id: &'a str) -> Read<'a, bool>;
    /// Whether credential `jti` is a management mandate the key app signed
    /// without a prompt under root `root`, as its sealed records say (the
    /// links table that says so can be written by the person's programs).
    fn rests_on<'a>(&'a self, jti: &'a str, root: &'a str) -> Read<'a, bool>;
    /// Whether root `jti` (`compact`, as the principal signed it) still
    /// stands where hosts check it: the hosted status service, when it is
    /// the one the root names, must answer that it is active.
    fn root_stands<'a>(&'a self, jti: &'a str, compact: &'a str) -> Read<'a, bool>;
}

impl Records for Service {
    fn sealed(&self, row: &crate::store::requests::SealedRow) -> bool {
        self.request_sealed(row)
    }
    fn place<'a>(&'a self, host: &'a DiscoveredHost) -> Read<'a, Placed> {
        Box::pin(Service::place(self, host))
    }
    fn at_booking_place<'a>(&'a self, booking_id: &'a str, found: &'a HostBinding) -> Read<'a, ()> {
        Box::pin(Service::at_booking_place(self, booking_id, found))
    }
    fn at_credential_place<'a>(
        &'a self,
        jti: &'a str,
        found: &'a HostBinding,
        signing_key: Option<&'a str>,
    ) -> Read<'a, bool> {
        Box::pin(Service::at_credential_place(self, jti, found, signing_key))
    }
    fn agent_name<'a>(&'a self, jkt: &'a str) -> Read<'a, String> {
        Box::pin(self.directory().agent_name(jkt))
    }
    fn paired_agent_name<'a>(&'a self, jkt: &'a str) -> Read<'a, Option<String>> {
        Box::pin(Service::paired_agent_name(self, jkt))
    }
    fn consent_words(&self) -> Read<'_, (std::sync::Arc<schcp_consent::Locale>, schcp_consent::Contacts)> {
        Box::pin(async move { Ok((self.locale(), self.consent_contacts().await?)) })
    }
    fn root_stands<'a>(&'a self, jti: &'a str, compact: &'a str) -> Read<'a, bool> {
        Box::pin(Service::root_stands(self, jti, compact))
    }
    fn rests_on<'a>(&'a self, jti: &'a str, root: &'a str) -> Read<'a, bool> {
        Box::pin(Service::signed_under_root(self, jti, root))
    }
    fn issued_for<'a>(&'a self, request_id: &'a str) -> Read<'a, bool> {
        Box::pin(async move {
            let rows = crate::store::credentials::stored_for_request(self.store(), request_id).await?;
            Ok(rows.iter().any(|c| self.credential_sealed(c)))
        })
    }
}

/// The principal: its id and the keys it signs with.
#[derive(Clone, Copy)]
pub(super) struct Principal<'a> {
    pub(super) id: &'a str,
    /// The Ed25519 key everything SchCP signs is signed with.
    pub(super) key: KeyRef<'a>,
    /// The P-256 key of the SD-JWT VC profile (§3.4), when the keystore has one.
    pub(super) es256: Option<KeyRef<'a>>,
}

impl Principal<'_> {
    pub(super) fn jwk(&self) -> Jwk {
        self.key.public_key().to_jwk()
    }

    /// A stable pseudonym for `sub` (§3.3): the principal without its key.
    pub(super) fn pseudonym(&self) -> String {
        format!("p-{}", &schcp::hash::sha256_b64(self.id)[..16])
    }

    /// The principal's RFC 7638 thumbprint.
    fn thumbprint(&self) -> &str {
        self.id.strip_prefix(schcp::jwk::PRINCIPAL_PREFIX).unwrap_or(self.id)
    }
}

/// Everything a kind's `prepare` and `issue` may use: never the service itself.
#[derive(Clone, Copy)]
pub(super) struct Context<'a> {
    /// The time the step runs at (the request's creation, or the person's yes).
    pub(super) now: i64,
    /// The requesting agent's key thumbprint.
    pub(super) agent_jkt: &'a str,
    pub(super) principal: Principal<'a>,
    pub(super) discovery: &'a DiscoveryClient,
    /// The person's records, read through `store` functions.
    pub(super) store: &'a Store,
    pub(super) records: &'a dyn Records,
    pub(super) config: &'a Config,
}

impl Context<'_> {
    /// The status URL of credential `jti` (§3.3 check 7).
    pub(super) fn status_url(&self, jti: &str) -> String {
        self.config.status_url(self.principal.thumbprint(), jti)
    }
}

/// A request verified and ready to be shown: what the person will read, and
/// the verified input the credential is built from once they say yes.
pub(super) struct Prepared<I> {
    pub(super) consent: ConsentRequest,
    /// What `issue` builds the credential from; everything in it was verified.
    pub(super) input: I,
    /// The request expires no later than this (the offer's exp).
    pub(super) not_after: Option<i64>,
    /// Issued without asking (§3.3: a management mandate a root mandate covers).
    pub(super) auto_approve: bool,
    /// Where each host the request names was verified (§2.2): bound at the
    /// person's yes, and kept with every credential issued for it.
    pub(super) hosts: Vec<HostBinding>,
}

impl<I> Prepared<I> {
    /// A request shown as asked, bound to no host.
    pub(super) fn asked(consent: ConsentRequest, input: I, not_after: Option<i64>) -> Prepared<I> {
        Prepared { consent, input, not_after, auto_approve: false, hosts: Vec::new() }
    }

    /// The same request, bound to where its hosts were verified (§2.2).
    pub(super) fn at(self, hosts: Vec<HostBinding>) -> Prepared<I> {
        Prepared { hosts, ..self }
    }
}

/// One request kind (docs/agent-api.md "The kinds").
pub(super) trait Kind: 'static {
    const KIND: RequestKind;
    /// The kind's own members of the request body, a closed shape
    /// (`deny_unknown_fields`): read once, before anything else is looked at.
    type Body: DeserializeOwned + Send + 'static;
    /// What `issue` needs, kept as JSON in `requests.input` between the two.
    type Input: Serialize + DeserializeOwned + Send + 'static;
    /// The request's `result` as the agent receives it.
    type Output: Serialize + Send + 'static;

    /// Verifies the body and describes it for the person.
    fn prepare(
        ctx: &Context<'_>,
        body: Self::Body,
    ) -> impl Future<Output = Result<Prepared<Self::Input>, ServiceError>> + Send;

    /// Builds and signs the credential, on the person's yes; `statement` is
    /// the first line of the text they read (§5.3).
    fn issue(
        ctx: &Context<'_>,
        input: Self::Input,
        statement: &str,
    ) -> impl Future<Output = Result<Issued<Self::Output>, ServiceError>> + Send;
}

/// The members every kind shares, read and checked by the pipeline first.
pub(super) const ENVELOPE: [&str; 2] = ["kind", "idempotency_key"];

/// A request body as one kind's closed shape, without the envelope.
pub(super) fn body<T: DeserializeOwned>(mut obj: Map<String, Value>) -> Result<T, ServiceError> {
    for member in ENVELOPE {
        obj.remove(member);
    }
    serde_json::from_value(Value::Object(obj)).map_err(|e| ServiceError::invalid(Reason::Malformed, e.to_string()))
}

/// A kind's stored input as JSON, for `requests.input`.
pub(super) fn store_input<I: Serialize>(input: &I) -> Result<String, ServiceError> {
    serde_json::to_string(input).map_err(corrupt)
}

/// A stored input read back as the kind's own type. An input the key app
/// cannot read (one stored by another version) is a corrupt record: it is
/// refused, never approved (docs/decisions.md).
pub(super) fn stored_input<I: DeserializeOwned>(input: &str) -> Result<I, ServiceError> {
    serde_json::from_str(input).map_err(corrupt)
}

/// The stored inputs of the approved requests of `kind` over contract
/// `offer_sha256`, newest first, with when each was made. The lookup is by the
/// `offer_sha256` member of their results (migration 0004's index); each
/// result is read back and its hash compared again.
pub(super) async fn approved_over_offer<I: DeserializeOwned>(
    ctx: &Context<'_>,
    kind: RequestKind,
    offer_sha256: &str,
) -> Result<Vec<(I, i64)>, ServiceError> {
    /// What every such result names: the contract it was issued over.
    #[derive(Deserialize)]
    struct OverOffer {
        offer_sha256: String,
    }
    let mut inputs = Vec::new();
    for row in crate::store::requests::approved_over_offer(ctx.store, kind.as_str(), offer_sha256).await? {
        // Only rows the key app wrote (record_seal): what the person approved
        // before is put into a new consent text as the terms they had.
        if !ctx.records.sealed(&row.request) {
            tracing::warn!(
                request_id = row.request.request_id,
                "an approved request's record does not hold its seal; not read"
            );
            continue;
        }
        // Its status and result are not sealed: "approved" counts only with a
        // credential the key app issued for it at the person's yes.
        if !ctx.records.issued_for(&row.request.request_id).await? {
            tracing::warn!(
                request_id = row.request.request_id,
                "an approved request has no credential issued for it; not read"
            );
            continue;
        }
        let result: OverOffer = stored_input(&row.result)?;
        if result.offer_sha256 == offer_sha256 {
            inputs.push((stored_input(&row.request.input)?, row.request.created_at));
        }
    }
    Ok(inputs)
}

/// A credential's lifetime in seconds: the ISO 8601 duration the agent asked
/// for, capped at `max`, or `default` when it asked for none. A duration too
/// long for any clock is capped like any long one, never wrapped.
pub(super) fn capped_lifetime(asked: Option<&str>, default: i64, max: i64) -> Result<i64, ServiceError> {
    match asked {
        None => Ok(default),
        Some(l) => {
            let d = schcp::duration::Duration::parse(l)
                .map_err(|e| ServiceError::invalid(Reason::BadLifetime, e.to_string()))?;
            Ok(i64::try_from(d.as_seconds()).unwrap_or(i64::MAX).clamp(1, max))
        }
    }
}

/// Refuses what starts at or before `now`: a yes to a slot that has begun
/// could only be used for something the person was not shown.
pub(super) fn not_begun(what: &str, start: &str, now: i64) -> Result<(), ServiceError> {
    let at =
        schcp::datetime::parse_date_time(start).map_err(|e| ServiceError::invalid(Reason::BadSlot, e.to_string()))?;
    if at.timestamp() <= now {
        return Err(ServiceError::unacceptable(
            Reason::AlreadyStarted,
            format!("the {what} started at {start}, before now"),
        ));
    }
    Ok(())
}

/// The domain the key app discovered a host at, as the consent text shows it (§5.2).
pub(super) fn verified_domain(d: &Option<String>) -> Option<VerifiedDomain> {
    d.as_deref().and_then(|d| VerifiedDomain::new(d).ok())
}

/// The refusal of a discovery document that is not for the host the agent named.
pub(super) fn host_mismatch(discovery: &str, found: &str, named: &str) -> ServiceError {
    ServiceError::invalid(
        Reason::HostMismatch,
        format!("the discovery document at {discovery} is for host {found:?}, not {named:?}"),
    )
}

/// A host-signed offer as the key app verified it when it was shown: the bytes
/// and the keys of the discovery document it was verified with. A closed
/// mandate's and a meeting contract's input keep it, so the offer is checked
/// again, by the same keys, at approval or when shown as a current contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StoredOffer {
    pub(super) offer: String,
    pub(super) host_id: String,
    pub(super) keys: Vec<Jwk>,
}

impl StoredOffer {
    pub(super) fn of(offer: String, host: &DiscoveredHost) -> StoredOffer {
        StoredOffer { offer, host_id: host.host_id.clone(), keys: host.keys.clone() }
    }

    pub(super) fn verify_at(&self, at: i64) -> Result<schcp::verify::VerifiedOffer, schcp::Error> {
        let host = schcp::verify::HostKeys { host_id: &self.host_id, keys: &self.keys };
        schcp::verify::verify_offer(&self.offer, host, at)
    }
}

#[cfg(test)]
pub(super) mod testing {
    //! What the kinds' unit tests share: the pipeline's envelope read on raw
    //! bytes, and a round trip of a typed input through its stored JSON.

    use super::*;

    /// `bytes` read as `create_request` reads them, then as `K`'s body.
    pub(in crate::service) fn parse<K: Kind>(bytes: &str) -> Result<K::Body, ServiceError> {
        let (kind, _, obj) = super::super::requests::envelope(bytes.as_bytes())?;
        assert_eq!(kind, K::KIND, "the envelope names the kind under test");
        body(obj)
    }

    /// The refusal's reason, for a body that must be refused.
    pub(in crate::service) fn refusal<T>(r: Result<T, ServiceError>) -> schcp::refusal::Reason {
        match r {
            Ok(_) => panic!("accepted"),
            Err(e) => e.code_and_reason().1,
        }
    }

    /// Each of `bodies` is refused as malformed: a body outside the kind's
    /// closed shape is read no further.
    pub(in crate::service) fn all_malformed<K: Kind>(bodies: &[impl AsRef<str>]) {
        for bad in bodies {
            let bad = bad.as_ref();
            assert_eq!(refusal(parse::<K>(bad)), Reason::Malformed, "{bad}");
        }
    }

    /// An input stored and read back is the same input.
    pub(in crate::service) fn round_trips<I: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(input: &I) {
        let stored = store_input(input).unwrap();
        let back: I = stored_input(&stored).unwrap();
        assert_eq!(&back, input);
    }

    /// The records a kind reads, faked: which hosts the person has dealt
    /// with, where bookings and credentials were issued, and agents' names.
    /// Every call is noted, so a test can say what a kind asked.
    #[derive(Default)]
    pub(in crate::service) struct FakeRecords {
        /// Host ids the person has dealt with: `place` says they are not new.
        pub(in crate::service) known: Vec<String>,
        /// Booking ids whose credentials were issued at another place (§2.2).
        pub(in crate::service) booked_elsewhere: Vec<String>,
        /// Credentials issued at the place asked about, with its key.
        pub(in crate::service) credentials_here: Vec<String>,
        /// The requesting agent's name, as it was paired.
        pub(in crate::service) agent: String,
        pub(in crate::service) calls: std::sync::Mutex<Vec<String>>,
    }

    impl FakeRecords {
        fn note(&self, call: String) {
            self.calls.lock().unwrap().push(call);
        }

        pub(in crate::service) fn calls(&self) -> Vec<String> {
            self.calls.lock().unwrap().clone()
        }
    }

    impl Records for FakeRecords {
        fn sealed(&self, _row: &crate::store::requests::SealedRow) -> bool {
            true
        }
        fn place<'a>(&'a self, host: &'a DiscoveredHost) -> Read<'a, Placed> {
            self.note(format!("place {}", host.host_id));
            let new = !self.known.contains(&host.host_id);
            Box::pin(async move {
                let binding = crate::host_binding::binding_of(host, false).map_err(corrupt)?;
                Ok(Placed { binding, new })
            })
        }
        fn at_booking_place<'a>(&'a self, booking_id: &'a str, found: &'a HostBinding) -> Read<'a, ()> {
            self.note(format!("at_booking_place {booking_id}"));
            let elsewhere = self.booked_elsewhere.iter().any(|b| b == booking_id);
            Box::pin(async move {
                if elsewhere {
                    let pinned = HostBinding { domain: "elsewhere.example".into(), ..found.clone() };
                    return Err(super::super::hosts::conflict(&pinned, found));
                }
                Ok(())
            })
        }
        fn at_credential_place<'a>(
            &'a self,
            jti: &'a str,
            _found: &'a HostBinding,
            _signing_key: Option<&'a str>,
        ) -> Read<'a, bool> {
            self.note(format!("at_credential_place {jti}"));
            let here = self.credentials_here.iter().any(|c| c == jti);
            Box::pin(async move { Ok(here) })
        }
        fn agent_name<'a>(&'a self, jkt: &'a str) -> Read<'a, String> {
            self.note(format!("agent_name {jkt}"));
            Box::pin(async move { Ok(self.agent.clone()) })
        }
        fn paired_agent_name<'a>(&'a self, jkt: &'a str) -> Read<'a, Option<String>> {
            self.note(format!("paired_agent_name {jkt}"));
            Box::pin(async move { Ok(Some(self.agent.clone())) })
        }
        fn rests_on<'a>(&'a self, jti: &'a str, root: &'a str) -> Read<'a, bool> {
            self.note(format!("rests_on {jti} {root}"));
            Box::pin(async move { Ok(true) })
        }
        fn issued_for<'a>(&'a self, request_id: &'a str) -> Read<'a, bool> {
            self.note(format!("issued_for {request_id}"));
            Box::pin(async move { Ok(true) })
        }
        fn root_stands<'a>(&'a self, jti: &'a str, _compact: &'a str) -> Read<'a, bool> {
            self.note(format!("root_stands {jti}"));
            Box::pin(async move { Ok(true) })
        }
        fn consent_words(&self) -> Read<'_, (std::sync::Arc<schcp_consent::Locale>, schcp_consent::Contacts)> {
            self.note("consent_words".into());
            Box::pin(async move {
                let locale =
                    schcp_consent::Locale::new(schcp_consent::Language::English).map_err(ServiceError::Consent)?;
                Ok((std::sync::Arc::new(locale), schcp_consent::Contacts::new()))
            })
        }
    }

    /// What a kind's `prepare` and `issue` run against in a unit test: the
    /// HTTPS test host and a discovery client that trusts it, fresh records,
    /// the principal key `[1; 32]`, the agent key `[9; 32]`, the records
    /// beyond the store faked, and a clock the test passes in.
    pub(in crate::service) struct Bed {
        pub(in crate::service) host: testhost::TestHost,
        pub(in crate::service) store: Store,
        pub(in crate::service) records: FakeRecords,
        pub(in crate::service) agent_jkt: String,
        discovery: DiscoveryClient,
        config: Config,
        key: ed25519_dalek::SigningKey,
        principal: String,
        _dir: tempfile::TempDir,
    }

    impl Bed {
        pub(in crate::service) async fn new() -> Bed {
            let host = testhost::TestHost::start(testhost::TestHostConfig::default()).await;
            let dir = tempfile::tempdir().unwrap();
            let text = host.keyapp_test_config(dir.path()).unwrap();
            let config = Config::parse(&text, &dir.path().join("keyapp.toml")).unwrap();
            let discovery = DiscoveryClient::new(&config.discovery).unwrap();
            let store = Store::open(&dir.path().join("keyapp.db")).await.unwrap();
            let key = ed25519_dalek::SigningKey::from_bytes(&[1; 32]);
            let principal = Jwk::ed25519(&key.verifying_key()).principal_id().unwrap();
            let agent = ed25519_dalek::SigningKey::from_bytes(&[9; 32]);
            let agent_jkt = Jwk::ed25519(&agent.verifying_key()).thumbprint().unwrap();
            let records = FakeRecords { agent: "Calendar helper".into(), ..FakeRecords::default() };
            Bed { host, store, records, agent_jkt, discovery, config, key, principal, _dir: dir }
        }

        /// The context a step runs in at `now`.
        pub(in crate::service) fn ctx(&self, now: i64) -> Context<'_> {
            Context {
                now,
                agent_jkt: &self.agent_jkt,
                principal: Principal { id: &self.principal, key: &self.key, es256: None },
                discovery: &self.discovery,
                store: &self.store,
                records: &self.records,
                config: &self.config,
            }
        }

        /// The principal's public key, as hosts verify its signatures.
        pub(in crate::service) fn principal_jwk(&self) -> Jwk {
            Jwk::ed25519(&self.key.verifying_key())
        }
    }

    /// Now, by the wall clock, and a priced offer (§5.2) whose slot is some
    /// days from now with its signed form: the suites' own (`testkit`).
    pub(in crate::service) use testkit::env::future_offer;
    pub(in crate::service) use testkit::now;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifetimes_are_capped_defaulted_and_never_wrap() {
        assert_eq!(capped_lifetime(None, 60, 600).unwrap(), 60);
        assert_eq!(capped_lifetime(Some("PT5M"), 60, 600).unwrap(), 300);
        assert_eq!(capped_lifetime(Some("PT11M"), 60, 600).unwrap(), 600);
        // 2^63 seconds and more once became 1 second through an `as i64` cast.
        for huge in ["PT9223372036854775807S", "PT9223372036854775808S", "PT18446744073709551615S"] {
            assert_eq!(capped_lifetime(Some(huge), 60, 600).unwrap(), 600, "{huge}");
        }
        assert!(matches!(
            capped_lifetime(Some("forever"), 60, 600),
            Err(ServiceError::Invalid { reason: Reason::BadLifetime, .. })
        ));
    }

    #[test]
    fn a_slot_that_began_is_refused() {
        let start = "2026-12-05T12:00:00Z";
        let at = schcp::datetime::parse_date_time(start).unwrap().timestamp();
        assert!(not_begun("slot", start, at - 1).is_ok());
        for now in [at, at + 1] {
            assert!(matches!(
                not_begun("slot", start, now),
                Err(ServiceError::Unacceptable { reason: Reason::AlreadyStarted, .. })
            ));
        }
        assert!(matches!(
            not_begun("slot", "tomorrow", at),
            Err(ServiceError::Invalid { reason: Reason::BadSlot, .. })
        ));
    }

    #[test]
    fn an_unreadable_stored_input_is_corrupt_never_read_as_empty() {
        for bad in ["", "{", "{\"offer\": 1}", "{\"offer\":\"x\",\"host_id\":\"h\",\"keys\":[],\"more\":1}"] {
            assert!(
                matches!(
                    stored_input::<StoredOffer>(bad),
                    Err(ServiceError::Store(crate::store::StoreError::Corrupt(_)))
                ),
                "{bad}"
            );
        }
        let offer = StoredOffer { offer: "a.b.c".into(), host_id: "h".into(), keys: Vec::new() };
        testing::round_trips(&offer);
    }
}
