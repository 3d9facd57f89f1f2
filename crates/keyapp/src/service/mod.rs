//! The request → consent → sign pipeline: the key app's one path to a signature.
//!
//! An agent's request is verified first (host signatures via discovery, the
//! closed schemas, money and time rules); only then is consent text rendered
//! from the verified claims and stored, exactly as the person will read it.
//! Nothing is signed until the person approves on a surface the agent cannot
//! reach (the control socket or the window), and what is signed is built here
//! from the stored verified input, never from bytes the agent supplied.

//! Each request kind is one module (`mandate`, `closed_mandate`,
//! `management_mandate`, `meeting_contract`, `acceptance`, `rule`, `invitation`)
//! implementing `kind::Kind`: its `prepare` (verify and describe) and `issue`
//! (build and sign). They share `kind` and `issued` and never import one
//! another. `requests` is the pipeline itself.

//! `Service` itself holds only the pipeline's core: `create_request`,
//! `approve`, `decline` and `expire`. Everything else is reached through one
//! borrowed handle per concept, each in its own module:
//!
//! | handle | module | what it covers |
//! |---|---|---|
//! | `svc.requests()` → `Requests` | `requests`, `prompts`, `answers` | a request's views, the window's prompts, withdrawals, cooldowns |
//! | `svc.pairings()` → `Pairings` | `pairing` | agents asking to pair, paired, unpaired |
//! | `svc.directory()` → `Directory` | `directory`, `attestations`, `hosts` | agents as listed, contacts, attestations, hosts' new domains |
//! | `svc.records()` → `Records` | `records`, `search`, `export`, `bookings`, `revoke_everything` | credentials, revocation (a lost computer's switch too), history, searches, exports |
//! | `svc.status()` → `Status` | `status_setup`, `publication` | the status address hosts check, publishing to it |
//! | `svc.profile()` → `Profile` | `profile` | the principal, the config in force, language, Settings |
//! | `svc.changes()` → `Changes` | `changes` | the counter long polls wait on |
//!
//! Whatever the person answers is asked with an `Origin`: this process (the
//! window) or the control socket's peer, about which the OS is asked.

mod acceptance;
mod answers;
mod attestations;
mod booking_acceptance;
mod booking_read;
mod bookings;
mod changes;
mod closed_mandate;
mod directory;
mod export;
mod hosts;
mod invitation;
mod issued;
mod kind;
mod management_mandate;
mod mandate;
mod meeting_contract;
mod pairing;
mod profile;
mod prompts;
mod publication;
mod records;
mod requests;
mod revoke_everything;
mod rule;
mod search;
mod status_setup;
#[cfg(test)]
mod test_support;

pub use crate::kind::RequestKind;
pub use crate::views::{AgentView, AttentionView, AttestationView, PendingItem, Prompt, Settings};
pub use answers::{AskedElsewhere, Origin};
pub use attestations::{AttestationRefusal, MAX_ATTESTATION_BYTES};
pub use changes::Changes;
pub use closed_mandate::MAX_CLOSED_LIFETIME;
pub use directory::Directory;
pub use hosts::{HostChangeView, MAX_NOTED_CHANGES};
pub use mandate::{DEFAULT_ROOT_LIFETIME, MAX_HOSTS, MAX_ROOT_LIFETIME};
pub use meeting_contract::MAX_MEMBERS;
pub use pairing::{
    fingerprint, Pairing, PairingStatus, Pairings, CHURN_NOTICE_FROM, CHURN_WINDOW, DECLINED_COOLDOWN, MAX_AGENT_NAME,
    MAX_PENDING_PAIRINGS, MAX_PENDING_PAIRINGS_ALL, PAIRING_TTL,
};
pub use profile::Profile;
pub use prompts::MAX_LABEL;
pub use publication::{Round, PUBLISHER_IDLE};
pub use records::{Contact, CredentialView, HistoryEntry, MeetingView, Publication, Records};
pub use requests::{
    RequestStatus, RequestView, Requester, Requests, COOLDOWN, MAX_IDEMPOTENCY_KEY, MAX_PENDING, REQUEST_TTL,
};
pub use revoke_everything::{RevokedEverything, ServiceReach};
pub use rule::{DEFAULT_RULE_LIFETIME, MAX_RULE_LIFETIME};
/// The §9.2 code and reason every refusal carries (SchCP §9.2).
pub use schcp::refusal::{Code, Reason};
pub use status_setup::{SetupError, Status};

use crate::config::Config;
use crate::discovery::{DiscoveryClient, DiscoveryError};
use crate::http_error::{AgentApiError, ApiError};
use crate::store::{Store, StoreError};
use crate::user_verification::UserVerifier;
use axum::http::StatusCode;
use schcp::jws::Signer;
use schcp_consent::Language;
use std::sync::Arc;

/// The principal key as the service uses it: it signs JWS signing inputs the
/// protocol crate built, and nothing else: there is no "sign this" call (the
/// records' seal key is made from it once, over a label that is never a JWS
/// signing input: record_seal).
pub type PrincipalSigner = Arc<dyn Signer + Send + Sync>;

/// Seconds since the epoch; injectable so tests can move time.
pub type Clock = Arc<dyn Fn() -> i64 + Send + Sync>;

pub fn system_clock() -> Clock {
    Arc::new(|| chrono::Utc::now().timestamp())
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServiceError {
    /// The agent's (or the person's) input is wrong: 400 `INVALID_REQUEST`.
    /// `message` is the sentence for agent developers; nothing branches on it.
    #[error("{message}")]
    Invalid { reason: Reason, message: String },
    /// Input that is well formed and verifies, but that the key app will not
    /// put before this person (a slot that has begun, a contract not theirs):
    /// 422, like any credential or offer that fails verification.
    #[error("{message}")]
    Unacceptable { reason: Reason, message: String },
    #[error(transparent)]
    Verification(#[from] schcp::Error),
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),
    #[error("idempotency key reused with a different body")]
    IdempotencyConflict,
    #[error("{message}")]
    TooMany { reason: Reason, message: String, retry_after: Option<u64> },
    /// Nothing in the records has the id the agent or the person named.
    #[error("no such {0}")]
    NotFound(Missing),
    /// The request was answered, withdrawn or expired: it is in this status now.
    #[error("the request is {0}, not pending")]
    NotPending(RequestStatus),
    /// The agent asking is not paired (the person unpaired it while its
    /// request was on its way): nothing was stored.
    #[error("this agent key is not paired; ask to pair with POST /v1/pairings")]
    NotPaired,
    /// The pairing was answered, expired or unpaired: it is in this status now.
    #[error("the request is {0}, not pending")]
    PairingNotPending(PairingStatus),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Recording an issued credential failed; nothing was issued.
    #[error(transparent)]
    Record(#[from] crate::store::credentials::RecordError),
    #[error("consent text: {0}")]
    Consent(schcp_consent::ConsentError),
    /// The hosted status service's client could not be made, or an update not built.
    #[error("the hosted status service: {0}")]
    Hosted(HostedFailure),
    /// The hosted status service refused for good to register the credential
    /// a request issued (`store::outbox::terminal`): the agent never receives
    /// it, since no host could check it (docs/agent-api.md "Hosted mode").
    #[error("{message}")]
    NotPublished { reason: Reason, message: String, base: String },
    /// The OS did not confirm that the person gave this yes: nothing was
    /// signed or paired, and the request stays pending (user_verification).
    #[error("nothing was approved: {0}")]
    NotVerified(#[from] crate::user_verification::Refusal),
    /// A search of the person's records the key app will not run (a cursor
    /// it did not make, a text too long): nothing was read.
    #[error("{0}")]
    Query(#[from] crate::record_query::QueryError),
    /// An attestation the person added that a host would not honour (§7.5).
    #[error(transparent)]
    Attestation(AttestationRefusal),
}

/// What an agent or the person named that the records do not hold. Its
/// words on the wire (`Display`: "no such request") are decided here; the
/// person's, in `ui_words::not_found_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Missing {
    Request,
    /// A request that is not a rule's, where only a rule's is meant.
    RuleRequest,
    Credential,
    Contact,
    /// A host id's move to another domain that was never met (SchCP §2.2).
    HostDomainChange,
    Pairing,
    /// An agent that is not paired now.
    PairedAgent,
    /// A status address the configuration asks for, waiting for the
    /// person's confirmation: there is none now.
    ConfiguredStatusAddress,
}

impl Missing {
    /// Every kind of missing thing, for the tests that each has words.
    pub const ALL: [Missing; 8] = [
        Missing::Request,
        Missing::RuleRequest,
        Missing::Credential,
        Missing::Contact,
        Missing::HostDomainChange,
        Missing::Pairing,
        Missing::PairedAgent,
        Missing::ConfiguredStatusAddress,
    ];

    /// As the wire names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Missing::Request => "request",
            Missing::RuleRequest => "rule request",
            Missing::Credential => "credential",
            Missing::Contact => "contact",
            Missing::HostDomainChange => "host domain change",
            Missing::Pairing => "pairing",
            Missing::PairedAgent => "paired agent",
            Missing::ConfiguredStatusAddress => "status address the configuration asks for",
        }
    }
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the hosted status service could not be written to.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostedFailure {
    #[error("its client cannot be made: {0}")]
    Client(reqwest::Error),
    #[error("the update cannot be signed: {0}")]
    Sign(schcp::jws::JwsError),
}

impl From<sqlx::Error> for ServiceError {
    fn from(e: sqlx::Error) -> Self {
        ServiceError::Store(StoreError::from(e))
    }
}

impl ServiceError {
    pub fn invalid(reason: Reason, message: impl Into<String>) -> Self {
        ServiceError::Invalid { reason, message: message.into() }
    }

    pub fn unacceptable(reason: Reason, message: impl Into<String>) -> Self {
        ServiceError::Unacceptable { reason, message: message.into() }
    }

    /// What the agent is told of a registration refused for good.
    pub fn not_published(refused: crate::store::outbox::Refused) -> Self {
        let crate::store::outbox::Refused { op, base, reason, message, .. } = refused;
        let what = match op {
            crate::store::outbox::Op::Register => "register its credential",
            crate::store::outbox::Op::Revoke => "publish the person's revocation of its credential",
        };
        ServiceError::NotPublished {
            message: format!(
                "the person approved this request, but the hosted status service at {base} refused for good to \
                 {what} ({message}), so hosts could never check it and it is not delivered; the person can \
                 choose another status service, or ask this one's operator, then ask again"
            ),
            reason,
            base,
        }
    }

    /// The §9 refusal this failure is, on every surface (the agent API, the
    /// control socket, the window): its code, HTTP status, reason and
    /// details are decided here and nowhere else.
    pub fn to_api(&self) -> ApiError {
        let message = self.to_string();
        match self {
            ServiceError::Invalid { reason, .. } => ApiError::invalid_request(*reason, message),
            ServiceError::Unacceptable { reason, .. } => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, Code::VerificationFailed, *reason, message)
            }
            // §2.2: the agent learns where the host id is bound, so it can tell
            // the person; only the person can accept a move.
            ServiceError::Verification(e @ schcp::Error::HostIdConflict { host_id, pinned, found }) => {
                ApiError::verification(e).with_details(serde_json::json!({
                    "host_id": host_id, "pinned_domain": pinned, "domain": found,
                }))
            }
            ServiceError::Verification(e) => ApiError::verification(e),
            ServiceError::Discovery(e) => e.api_error(),
            ServiceError::IdempotencyConflict => ApiError::new(
                StatusCode::CONFLICT,
                Code::IdempotencyConflict,
                Reason::IdempotencyConflict,
                "this idempotency_key was used with a different body",
            ),
            ServiceError::TooMany { reason, retry_after, .. } => {
                let e = ApiError::new(StatusCode::TOO_MANY_REQUESTS, Code::RateLimited, *reason, message);
                match retry_after {
                    Some(s) => e.with_retry_after(*s),
                    None => e,
                }
            }
            ServiceError::NotFound(_) => ApiError::not_found(message),
            ServiceError::NotPaired => ApiError::not_permitted(Reason::AgentNotPaired, message),
            ServiceError::NotPending(_) | ServiceError::PairingNotPending(_) => {
                ApiError::new(StatusCode::CONFLICT, Code::InvalidState, Reason::NotPending, message)
            }
            ServiceError::Store(StoreError::Busy(_)) => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                Code::Unavailable,
                Reason::Busy,
                "the key app's records are busy; try again",
            )
            .with_retry_after(1),
            ServiceError::Store(e) => ApiError::internal(e.to_string()),
            ServiceError::Record(e) => ApiError::internal(e.to_string()),
            // Verified input the renderer cannot put into words is still not
            // shown, and so never signed; the agent's input is what must change.
            ServiceError::Consent(e) => ApiError::invalid_request(Reason::Unrenderable, e.to_string()),
            ServiceError::Hosted(e) => ApiError::internal(e.to_string()),
            // The service's own class and reason: the agent learns why it will
            // not receive what the person approved, and that waiting is over.
            ServiceError::NotPublished { reason, base, .. } => {
                ApiError::new(StatusCode::FORBIDDEN, Code::NotPermitted, *reason, message)
                    .with_details(serde_json::json!({ "status_service": base }))
            }
            ServiceError::NotVerified(refusal) => {
                ApiError::new(StatusCode::FORBIDDEN, Code::NotPermitted, refusal.reason(), message)
            }
            ServiceError::Query(_) => ApiError::invalid_request(Reason::BadQuery, message),
            ServiceError::Attestation(refusal) => {
                let (code, reason) = refusal.code_and_reason();
                let status = code.status().and_then(|s| StatusCode::from_u16(s).ok());
                ApiError::new(status.unwrap_or(StatusCode::BAD_REQUEST), code, reason, message)
            }
        }
    }

    /// The refusal's class and reason, for surfaces that branch on them.
    pub fn code_and_reason(&self) -> (Code, Reason) {
        let api = self.to_api();
        (api.code, api.reason)
    }
}

/// Where a record's summary comes from (`Service::sealed_summaries`).
pub(super) enum SummarySource<'a> {
    /// It shows none.
    None,
    /// The summary of this request.
    Request(&'a str),
    /// A request the record names, though the record itself is not one the
    /// key app wrote: nothing it names is shown.
    Unverified,
}

/// A record that shows a request's summary.
pub(super) trait Summarised {
    /// The request its summary is read from; `svc` checks the record that
    /// names it, where that record is sealed.
    fn summary_source(&self, svc: &Service) -> SummarySource<'_>;
    fn set_summary(&mut self, summary: Option<String>);
}

impl Summarised for crate::store::credentials::ListedCredential {
    /// A credential's `request_id` counts only while its own row holds its
    /// seal: pointed at another request, it would borrow that one's words.
    fn summary_source(&self, svc: &Service) -> SummarySource<'_> {
        if !svc.credential_sealed(&self.stored) {
            // Its request_id removed, too, it would say nothing at all.
            return SummarySource::Unverified;
        }
        self.request_id.as_deref().map_or(SummarySource::None, SummarySource::Request)
    }
    fn set_summary(&mut self, summary: Option<String>) {
        self.summary = summary;
    }
}

/// A request's row whose seal does not hold (record_seal).
pub(super) fn tampered(e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Store(StoreError::tampered(crate::store::Stored::Request, e))
}

/// A request's stored value (its input, result or kind) the key app wrote
/// itself but cannot read back.
pub(super) fn corrupt(e: impl std::fmt::Display) -> ServiceError {
    corrupt_as(crate::store::Stored::Request, e)
}

/// A stored value of record `what` the key app wrote itself but cannot read back.
pub(super) fn corrupt_as(what: crate::store::Stored, e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Store(StoreError::corrupt(what, e))
}

/// A text the renderer refused: too long to show is the agent's or host's
/// input at fault (422 `text_too_long`, never truncated); anything else cannot
/// be put into words.
fn consent_error(e: schcp_consent::ConsentError) -> ServiceError {
    match e {
        schcp_consent::ConsentError::TextTooLong { what, chars, max } => {
            ServiceError::Verification(schcp::Error::TextTooLong { what, chars, max })
        }
        other => ServiceError::Consent(other),
    }
}

struct Inner {
    store: Store,
    key: PrincipalSigner,
    /// Seals the records that decide what is shown and signed (record_seal).
    seal: crate::record_seal::RecordSeal,
    /// The seals a request the person reworded (a rule's label) held before,
    /// while this runs: those rows hold seals the key app made too, and only
    /// the latest is the one the window shows.
    superseded: std::sync::Mutex<std::collections::HashSet<String>>,
    /// The P-256 key of the SD-JWT VC profile (§3.4), when the keystore has one.
    es256: Option<PrincipalSigner>,
    principal: String,
    /// Replaced whole when the person confirms another status address
    /// (`status_setup`); every step reads one snapshot of it.
    config: std::sync::RwLock<Arc<Config>>,
    /// The config's `[status_api] public_base`, parsed when it is put in
    /// force, for the status API to read at each request (`status_setup`).
    status_base: status_edge::BaseInForce,
    /// An address the config asks for that the person has not confirmed
    /// (`status_setup`): not in force; Settings offers to confirm it.
    status_requested: std::sync::RwLock<Option<crate::status_address::StatusAddress>>,
    discovery: DiscoveryClient,
    /// The consent language and its formatters (ICU4X, Fluent: costly to make,
    /// so built once per language). Switchable at run time (`set_language`).
    locale: std::sync::RwLock<Arc<schcp_consent::Locale>>,
    /// The person's time zone (IANA), in which their records' dates are told.
    zone: String,
    clock: Clock,
    /// Bumped on every state change, so long polls wake up.
    changes: tokio::sync::watch::Sender<u64>,
    /// Hosted mode's HTTP client, made on first use.
    hosted: std::sync::OnceLock<crate::hosted::HostedClient>,
    /// One outbox round at a time (`publication`).
    publishing: tokio::sync::Mutex<()>,
    /// Wakes the publisher task when a row is added.
    publish_now: tokio::sync::Notify,
}

impl Inner {
    /// Moves the change counter the surfaces wait on.
    fn changed(&self) {
        self.changes.send_modify(|n| *n = n.wrapping_add(1));
    }
}

/// The zone the person's records are told in: the configured one when it is a
/// known IANA zone, else the OS's, else UTC.
fn person_zone(configured: Option<&str>) -> String {
    let known = |z: &str| z.parse::<chrono_tz::Tz>().is_ok();
    configured
        .filter(|z| known(z))
        .map(str::to_owned)
        .or_else(|| iana_time_zone::get_timezone().ok().filter(|z| known(z)))
        .unwrap_or_else(|| "Etc/UTC".to_owned())
}

/// The key app service. Cheap to clone; every surface holds one.
#[derive(Clone)]
pub struct Service {
    inner: Arc<Inner>,
    /// Who confirms the person's yes (user_verification): the platform's
    /// unless a Rust caller chose another; never the config's to choose.
    verifier: Arc<dyn UserVerifier>,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service").field("principal", &self.inner.principal).finish_non_exhaustive()
    }
}

impl Service {
    pub fn new(
        store: Store,
        key: PrincipalSigner,
        es256: Option<PrincipalSigner>,
        config: Config,
        discovery: DiscoveryClient,
        language: Language,
        clock: Clock,
    ) -> Result<Service, ServiceError> {
        let principal = key.public_key().to_jwk().principal_id().map_err(|e| ServiceError::Verification(e.into()))?;
        let seal = crate::record_seal::RecordSeal::of(key.as_ref())
            .map_err(|e| ServiceError::Verification(schcp::Error::Jws(e)))?;
        store.seal_history_with(seal.clone());
        let (changes, _) = tokio::sync::watch::channel(0);
        let locale = schcp_consent::Locale::new(language).map_err(ServiceError::Consent)?;
        let zone = person_zone(config.timezone.as_deref());
        let status_base =
            status_edge::BaseInForce::new(status_edge::PublicBase::parse(&config.status_api.public_base).ok());
        Ok(Service {
            inner: Arc::new(Inner {
                store,
                key,
                seal,
                superseded: std::sync::Mutex::new(std::collections::HashSet::new()),
                es256,
                principal,
                config: std::sync::RwLock::new(Arc::new(config)),
                status_base,
                status_requested: std::sync::RwLock::new(None),
                discovery,
                zone,
                locale: std::sync::RwLock::new(Arc::new(locale)),
                clock,
                changes,
                hosted: std::sync::OnceLock::new(),
                publishing: tokio::sync::Mutex::new(()),
                publish_now: tokio::sync::Notify::new(),
            }),
            verifier: crate::user_verification::OnePrompt::around(crate::user_verification::platform_verifier()),
        }
        .watching_prompts())
    }

    /// The same service with another user verifier: for tests (a fake that
    /// allows, denies or cancels) and for another OS's shell. Clones made
    /// before keep theirs, so choose it before handing the service out. There
    /// is deliberately no config key or variable for this: an assistant can
    /// edit the person's config, so the config cannot weaken the check.
    /// It is asked one approval at a time (`user_verification::OnePrompt`).
    pub fn with_user_verifier(mut self, verifier: Arc<dyn UserVerifier>) -> Service {
        self.verifier = crate::user_verification::OnePrompt::around(verifier);
        self.watching_prompts()
    }

    /// A prompt coming on screen or leaving it is a change the surfaces wait
    /// on: the window shows what a terminal asks the OS to confirm.
    fn watching_prompts(self) -> Service {
        let inner = Arc::downgrade(&self.inner);
        self.verifier.on_change(Arc::new(move || {
            if let Some(inner) = inner.upgrade() {
                inner.changed();
            }
        }));
        self
    }

    /// The request kinds' requests once created: their views for agents and
    /// the window, withdrawals, cooldowns, and the person's answer to one.
    pub fn requests(&self) -> Requests<'_> {
        Requests { svc: self }
    }

    /// Agents asking to pair, paired and unpaired (docs/agent-api.md §4).
    pub fn pairings(&self) -> Pairings<'_> {
        Pairings { svc: self }
    }

    /// Whom the key app knows: paired agents as the person lists them,
    /// contacts, attestations, and hosts' moves to another domain.
    pub fn directory(&self) -> Directory<'_> {
        Directory { svc: self }
    }

    /// The person's records: credentials issued and revoked (one by one, or
    /// all at once after a lost computer), history, bookings, searches,
    /// exports, and the store they live in.
    pub fn records(&self) -> Records<'_> {
        Records { svc: self }
    }

    /// The status address hosts check (its setup) and the publication of
    /// status updates to a hosted status service.
    pub fn status(&self) -> Status<'_> {
        Status { svc: self }
    }

    /// Who the key app is (its principal) and how it speaks to the person.
    pub fn profile(&self) -> Profile<'_> {
        Profile { svc: self }
    }

    /// The change counter the surfaces' long polls wait on.
    pub fn changes(&self) -> Changes<'_> {
        Changes { svc: self }
    }

    fn verifier(&self) -> &dyn UserVerifier {
        self.verifier.as_ref()
    }

    /// The service's clock (seconds since the epoch): every step reads time
    /// from it, so tests can move it.
    pub fn now(&self) -> i64 {
        (self.inner.clock)()
    }
    // The accessors below are the concept modules' own; surfaces reach the
    // same through the handles (`Records::store`, `Profile`).
    fn store(&self) -> &Store {
        &self.inner.store
    }

    /// The seal of a request about to be stored or reworded (record_seal).
    fn seal_request(&self, r: &crate::record_seal::RequestFields<'_>) -> String {
        self.inner.seal.request(r)
    }

    /// Whether `row` is one the key app wrote (record_seal): every value of
    /// the type it writes, its seal holds, and it is not a row the person
    /// reworded while this runs, put back.
    fn request_sealed(&self, row: &crate::store::requests::SealedRow) -> bool {
        let superseded = row
            .seal
            .as_ref()
            .is_some_and(|seal| self.inner.superseded.lock().unwrap_or_else(|p| p.into_inner()).contains(seal));
        row.well_typed && !superseded && self.inner.seal.holds(&row.fields(), row.seal.as_deref())
    }

    /// Sets each summary of `rows` from its request's row as sealed
    /// (record_seal), never from what the listing joined, and says, row by
    /// row, whether one it names was withheld. The records screens
    /// (Credentials, History, My bookings) name what each record allowed by
    /// that summary; another program's words there, or a record pointed at
    /// another request's, would tell the person a credential allows less than
    /// it does.
    pub(super) async fn sealed_summaries<T: Summarised>(&self, rows: &mut [T]) -> Result<Vec<bool>, ServiceError> {
        let mut ids: Vec<String> = rows
            .iter()
            .filter_map(|r| match r.summary_source(self) {
                SummarySource::Request(id) => Some(id.to_owned()),
                _ => None,
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let sealed: std::collections::HashMap<String, String> = crate::store::requests::sealed_many(self.store(), &ids)
            .await?
            .into_iter()
            .filter(|r| self.request_sealed(r))
            .map(|r| (r.request_id, r.summary))
            .collect();
        let withheld: Vec<bool> = rows
            .iter_mut()
            .map(|r| {
                let (summary, withheld) = match r.summary_source(self) {
                    SummarySource::None => (None, false),
                    SummarySource::Request(id) => match sealed.get(id) {
                        // A request from before summaries were kept has ''.
                        Some(s) => ((!s.is_empty()).then(|| s.clone()), false),
                        None => (None, true),
                    },
                    SummarySource::Unverified => (None, true),
                };
                r.set_summary(summary);
                withheld
            })
            .collect();
        let n = withheld.iter().filter(|w| **w).count();
        if n > 0 {
            tracing::warn!(rows = n, "records do not hold their seals: what they name is not shown");
        }
        Ok(withheld)
    }

    /// Whether credential row `row` is the one the key app wrote when it
    /// issued it (record_seal).
    pub(super) fn credential_sealed(&self, row: &crate::store::credentials::StoredCredential) -> bool {
        self.inner.seal.credential_holds(&row.fields(), row.seal.as_deref())
    }

    /// Records issued credential `c` inside the caller's transaction, sealed
    /// as written (record_seal): a registration is signed from this row
    /// later, without the person, only while it is the one written here.
    pub(super) async fn record_sealed_in(
        &self,
        tx: &mut sqlx::SqliteConnection,
        c: &crate::store::credentials::CredentialRecord,
    ) -> Result<(), crate::store::credentials::RecordError> {
        let row = crate::store::credentials::insert(tx, c).await?;
        crate::store::credentials::seal(tx, &c.jti, &self.inner.seal.credential(&row.fields())).await?;
        Ok(())
    }

    /// A reworded request's seal `was` no longer stands (its row was
    /// replaced, `relabel_rule`); kept only after the new row is written, so
    /// a read in between sees one row or the other, each standing.
    fn supersede(&self, was: &str) {
        self.inner.superseded.lock().unwrap_or_else(|p| p.into_inner()).insert(was.to_owned());
    }

    /// Request `request_id` with everything its seal covers, once its seal
    /// holds: what the window shows and what a yes is signed from. A row the
    /// key app did not write, or one changed since (the person's programs can
    /// write the records), is refused (`StoreError::Tampered`), never shown or
    /// signed from.
    async fn sealed_request(&self, request_id: &str) -> Result<crate::store::requests::SealedRow, ServiceError> {
        self.refuse_unsealed(self.request_row(request_id).await?)
    }

    /// Pending request `request_id` with everything its seal covers, read
    /// once: refused `NotPending` when it was answered or has expired (swept
    /// first), then as `sealed_request` refuses.
    async fn pending_sealed_request(
        &self,
        request_id: &str,
    ) -> Result<crate::store::requests::SealedRow, ServiceError> {
        self.expire_requests(self.now()).await?;
        let row = self.request_row(request_id).await?;
        let status = RequestStatus::parse(&row.status)?;
        if status != RequestStatus::Pending {
            return Err(ServiceError::NotPending(status));
        }
        self.refuse_unsealed(row)
    }

    /// Request `request_id`'s row, its seal not yet checked.
    async fn request_row(&self, request_id: &str) -> Result<crate::store::requests::SealedRow, ServiceError> {
        crate::store::requests::sealed(self.store(), request_id).await?.ok_or(ServiceError::NotFound(Missing::Request))
    }

    /// `row`, if it is one the key app wrote (`request_sealed`).
    fn refuse_unsealed(
        &self,
        row: crate::store::requests::SealedRow,
    ) -> Result<crate::store::requests::SealedRow, ServiceError> {
        if !self.request_sealed(&row) {
            tracing::warn!(
                request_id = row.request_id,
                "a request's record does not hold its seal: it was written or changed outside the key app"
            );
            return Err(tampered("its seal does not hold"));
        }
        Ok(row)
    }
    /// The configuration in force now (`Profile::config`).
    fn config(&self) -> Arc<Config> {
        self.inner.config.read().unwrap_or_else(|p| p.into_inner()).clone()
    }
    fn principal(&self) -> &str {
        &self.inner.principal
    }
    /// Message `id` of the window's catalogue, in the person's language (`ui_words`).
    fn words(&self, id: &str) -> String {
        crate::ui_words::text(self.language(), id)
    }
    /// Message `id` with `args`, in the person's language: the one way the
    /// service fills in a sentence of the catalogue.
    fn words_with<'a>(
        &self,
        id: &str,
        args: impl IntoIterator<Item = (&'a str, fluent_bundle::FluentValue<'a>)>,
    ) -> String {
        let mut fluent = fluent_bundle::FluentArgs::new();
        for (name, value) in args {
            fluent.set(name, value);
        }
        crate::ui_words::text_with(self.language(), id, &fluent)
    }
    fn language(&self) -> Language {
        self.locale().language()
    }

    fn locale(&self) -> Arc<schcp_consent::Locale> {
        self.inner.locale.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The person's time zone, as their records' dates are told in it.
    fn zone(&self) -> &str {
        &self.inner.zone
    }

    /// An instant (NumericDate) in words, in the person's language and time
    /// zone, as the consent text tells times: every surface shows records' dates
    /// this way, never as Unix seconds.
    ///
    /// Lists tell the minute, not the second no person needs: the instant is
    /// read down to its minute, so an expiry is never said later than it is.
    /// (The consent text itself keeps a signed time's seconds: it says exactly
    /// what is signed, §5.3.)
    fn instant_words(&self, at: i64) -> String {
        let minute = at - at.rem_euclid(60);
        schcp_consent::numeric_date_words(&self.locale(), "at", minute, Some(&self.inner.zone))
            .unwrap_or_else(|_| schcp::issue::rfc3339_utc(at).unwrap_or_else(|| at.to_string()))
    }

    fn notify(&self) {
        self.inner.changed();
    }

    /// Renders consent text with the one renderer every surface uses, with the
    /// person's contacts where the text names people (§5.12, §7.9).
    async fn render(&self, req: &schcp_consent::ConsentRequest) -> Result<String, ServiceError> {
        use schcp_consent::ConsentRequest as R;
        let contacts = match req {
            R::MeetingContract(_) | R::Acceptance(_) | R::Rule(_) | R::Invitation(_) => self.consent_contacts().await?,
            _ => schcp_consent::Contacts::new(),
        };
        // What the person is told is what hosts will see: under a status base
        // no host reads, a credential cannot be withdrawn before it expires.
        let withdrawal = self.config().status_reach().withdrawal();
        schcp_consent::render_with(req, &self.locale(), &contacts, withdrawal).map_err(consent_error)
    }

    /// A fresh random id with a prefix (`rq_`, `pr_`, `m-`).
    fn new_id(prefix: &str) -> String {
        let mut bytes = [0u8; 16];
        rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut bytes);
        format!("{prefix}{}", schcp::b64::encode(bytes))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    #[tokio::test]
    async fn a_waiting_surface_learns_of_a_change_made_before_or_during_its_wait() {
        let (svc, _, _dir) = super::test_support::service_at(0).await;
        let seen = svc.changes().wait_past(u64::MAX, Duration::ZERO).await;
        // Nothing changed: the wait ends at its timeout with the same counter.
        assert_eq!(svc.changes().wait_past(seen, Duration::from_millis(20)).await, seen);
        // A change between two waits is not lost.
        svc.notify();
        assert_ne!(svc.changes().wait_past(seen, Duration::from_secs(30)).await, seen);
        // A change during the wait ends it.
        let now = svc.changes().wait_past(u64::MAX, Duration::ZERO).await;
        let waiter = tokio::spawn({
            let svc = svc.clone();
            async move { svc.changes().wait_past(now, Duration::from_secs(30)).await }
        });
        tokio::task::yield_now().await;
        svc.notify();
        assert_ne!(waiter.await.unwrap(), now);
    }

    #[tokio::test]
    async fn lists_tell_the_minute_and_never_a_time_later_than_the_instant() {
        let (svc, _, _dir) = super::test_support::service_at(0).await;
        let at = 1_796_156_088; // 48 seconds past a minute
        let words = svc.instant_words(at);
        assert_eq!(words, svc.instant_words(at - 48), "read down to its minute");
        assert!(!words.contains(":48"), "no seconds: {words}");
        assert_ne!(words, svc.instant_words(at + 60), "minutes still differ");
    }
}
