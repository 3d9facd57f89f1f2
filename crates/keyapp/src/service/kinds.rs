//! The request kinds (docs/agent-api.md §6): how each one's input is verified and
//! shown (`prepare`), and how the credential is built from that verified input
//! once the person said yes (`issue`).

use super::requests::Requester;
use super::{Service, ServiceError};
use schcp::claims::{Action, Audience, Consent, ConsentMode, Constraints};
use schcp::issue::{self, RootMandate, SdJwtMandate};
use schcp::jwk::Jwk;
use schcp::verify::{HostKeys, ReceiptExpectations};
use schcp_consent::{
    BookingSummary, ConsentRequest, ManagementMandateRequest, MandateConstraints, MandateHost, OpenMandateRequest,
    ServiceLabel, VerifiedDomain, VerifiedOffer as ConsentOffer,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Root mandates live at most this long (README "Lifetime caps").
pub const MAX_ROOT_LIFETIME: i64 = 30 * 86_400;
/// …and this long when the agent does not say.
pub const DEFAULT_ROOT_LIFETIME: i64 = 86_400;
/// A closed mandate lives no longer than its offer, and at most this long.
pub const MAX_CLOSED_LIFETIME: i64 = 86_400;
/// At most this many hosts in one mandate.
pub const MAX_HOSTS: usize = 10;

pub(super) struct Prepared {
    pub consent: ConsentRequest,
    /// What `issue` builds the credential from; everything in it was verified.
    pub input: Value,
    /// The request expires no later than this (the offer's exp).
    pub not_after: Option<i64>,
    pub auto_approve: bool,
}

/// One credential to record with the approved request.
pub(super) struct CredentialRecord {
    pub jti: String,
    pub kind: &'static str,
    pub aud: Vec<String>,
    pub scope: Vec<Action>,
    pub iat: i64,
    pub exp: i64,
    pub compact: String,
    pub status_url: Option<String>,
    pub max_bookings: Option<u32>,
    pub shared_limit: bool,
    pub booking_id: Option<String>,
}

impl CredentialRecord {
    /// Recorded with the status API's own function, inside the approval's transaction.
    pub async fn insert(
        &self,
        tx: &mut sqlx::SqliteConnection,
        request_id: &str,
        agent_jkt: &str,
    ) -> Result<(), ServiceError> {
        let rec = crate::store::limits::MandateRecord {
            jti: self.jti.clone(),
            kind: self.kind.to_owned(),
            agent_jkt: Some(agent_jkt.to_owned()),
            request_id: Some(request_id.to_owned()),
            aud: self.aud.clone(),
            scope: self
                .scope
                .iter()
                .map(|a| serde_json::to_value(a).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default())
                .collect(),
            iat: self.iat,
            exp: self.exp,
            compact: self.compact.clone(),
            status_url: self.status_url.clone(),
            max_bookings: self.max_bookings,
            shared_limit: self.shared_limit,
            booking_id: self.booking_id.clone(),
        };
        crate::store::limits::insert_mandate(tx, &rec)
            .await
            .map_err(|e| ServiceError::Store(crate::store::StoreError::Corrupt(e.to_string())))
    }
}

pub(super) struct Issued {
    pub result: Value,
    pub credentials: Vec<CredentialRecord>,
    /// A host-signed receipt the credential was built on (DESIGN.md "Records").
    pub receipt: Option<ReceiptRecord>,
}

/// A verified receipt, kept so the person can see what was booked under which mandate.
pub(super) struct ReceiptRecord {
    pub host: String,
    pub booking_id: String,
    pub offer_sha256: Option<String>,
    pub mandate_jti: Option<String>,
    pub compact: String,
}

impl ReceiptRecord {
    pub async fn insert(&self, tx: &mut sqlx::SqliteConnection, now: i64) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO receipts (host, booking_id, offer_sha256, mandate_jti, compact, verified_at) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(&self.host)
        .bind(&self.booking_id)
        .bind(&self.offer_sha256)
        .bind(&self.mandate_jti)
        .bind(&self.compact)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        Ok(())
    }
}

pub(super) fn body<T: serde::de::DeserializeOwned>(obj: &Map<String, Value>) -> Result<T, ServiceError> {
    serde_json::from_value(Value::Object(obj.clone())).map_err(|e| ServiceError::invalid("malformed", e.to_string()))
}

pub(super) fn corrupt(e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Store(crate::store::StoreError::Corrupt(e.to_string()))
}

/// A stable pseudonym for `sub` (§3.3): the principal without its key.
fn pseudonym(principal: &str) -> String {
    format!("p-{}", &schcp::hash::sha256_b64(principal)[..16])
}

/// A credential's lifetime in seconds: the ISO 8601 duration the agent asked
/// for, capped at `max`, or `default` when it asked for none.
pub(super) fn capped_lifetime(asked: Option<&str>, default: i64, max: i64) -> Result<i64, ServiceError> {
    match asked {
        None => Ok(default),
        Some(l) => {
            let d = schcp::duration::Duration::parse(l)
                .map_err(|e| ServiceError::invalid("bad_lifetime", e.to_string()))?;
            Ok((d.as_seconds() as i64).clamp(1, max))
        }
    }
}

/// A host-signed offer as the key app verified it when it was shown: the bytes
/// and the keys of the discovery document it was verified with. A closed
/// mandate's and a meeting contract's input keep it, so the offer is checked
/// again, by the same keys, at approval or when shown as a current contract.
#[derive(Serialize, Deserialize)]
pub(super) struct StoredOffer {
    pub offer: String,
    pub host_id: String,
    pub keys: Vec<Jwk>,
}

impl StoredOffer {
    pub fn verify_at(&self, at: i64) -> Result<schcp::verify::VerifiedOffer, schcp::Error> {
        schcp::verify::verify_offer(&self.offer, HostKeys { host_id: &self.host_id, keys: &self.keys }, at)
    }
}

pub(super) fn verified_domain(d: &Option<String>) -> Option<VerifiedDomain> {
    d.as_deref().and_then(|d| VerifiedDomain::new(d).ok())
}

pub(super) async fn prepare(
    svc: &Service,
    agent: &Requester,
    kind: &str,
    obj: &Map<String, Value>,
) -> Result<Prepared, ServiceError> {
    match kind {
        "mandate" => prepare_mandate(svc, agent, obj).await,
        "closed_mandate" => prepare_closed(svc, obj).await,
        "management_mandate" => prepare_management(svc, agent, obj).await,
        "acceptance" => super::meeting::prepare_acceptance(svc, obj),
        "rule" => super::rule::prepare(svc, obj).await,
        "meeting_contract" => super::meeting::prepare_meeting(svc, obj).await,
        other => Err(ServiceError::invalid("unknown_kind", format!("unknown kind {other:?}"))),
    }
}

pub(super) async fn issue(
    svc: &Service,
    agent_jkt: &str,
    kind: &str,
    input: &Value,
    statement: &str,
    now: i64,
) -> Result<Issued, ServiceError> {
    match kind {
        "mandate" => issue_mandate(svc, agent_jkt, input, statement, now).await,
        "closed_mandate" => issue_closed(svc, agent_jkt, input, statement, now),
        "management_mandate" => issue_management(svc, agent_jkt, input, statement, now),
        "meeting_contract" => super::meeting::issue_meeting(svc, input, statement, now),
        "acceptance" => super::meeting::issue_acceptance(svc, input, statement, now),
        "rule" => super::rule::issue(svc, input, now),
        other => Err(corrupt(format!("stored request of unknown kind {other:?}"))),
    }
}

// ---- mandate (root, §3.3; or SD-JWT VC, §3.4) ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HostRef {
    id: String,
    discovery: String,
}

#[derive(Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum Format {
    #[default]
    Jws,
    #[serde(rename = "dc+sd-jwt")]
    DcSdJwt,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MandateBody {
    #[allow(dead_code)]
    kind: String,
    #[allow(dead_code)]
    idempotency_key: String,
    hosts: Vec<HostRef>,
    scope: Vec<Action>,
    #[serde(default)]
    constraints: Option<Value>,
    lifetime: Option<String>,
    consent_mode: Option<ConsentMode>,
    #[serde(default)]
    format: Format,
    host_constraints: Option<BTreeMap<String, Value>>,
    /// Which principal key signs: `EdDSA` (default) or, for `dc+sd-jwt` only,
    /// `ES256` (§3.4). (docs/agent-api.md §6).
    alg: Option<String>,
}

/// The name a mandate's text shows for service `id`: the name `host` gives it
/// in its discovery document, for a host's own constraint; for a shared one,
/// which applies at every host, the name only when every host that offers the
/// service calls it the same (`None`: the text shows the id).
fn service_name(names: &BTreeMap<String, BTreeMap<String, String>>, host: Option<&str>, id: &str) -> Option<String> {
    match host {
        Some(h) => names.get(h).and_then(|n| n.get(id)).cloned(),
        None => {
            let mut given = names.values().filter_map(|n| n.get(id));
            let first = given.next()?;
            given.all(|n| n == first).then(|| first.clone())
        }
    }
}

/// §3.4: "MUST NOT set a constraint in both places" (shared and a host's own
/// member); the first constraint that is, by its claim name.
fn set_in_both(shared: &Constraints, own: &Constraints) -> Option<&'static str> {
    [
        ("services", shared.services.is_some() && own.services.is_some()),
        ("window", shared.window.is_some() && own.window.is_some()),
        ("max_price", shared.max_price.is_some() && own.max_price.is_some()),
        ("max_bookings", shared.max_bookings.is_some() && own.max_bookings.is_some()),
        ("shared_limit", shared.shared_limit.is_some() && own.shared_limit.is_some()),
    ]
    .into_iter()
    .find_map(|(name, both)| both.then_some(name))
}

fn constraints_from(value: Option<&Value>) -> Result<Constraints, ServiceError> {
    let Some(value) = value else { return Ok(Constraints::default()) };
    schcp::schema::validate(schcp::schema::Def::Constraints, value)
        .map_err(|e| ServiceError::invalid("bad_constraints", e.to_string()))?;
    let c: Constraints =
        serde_json::from_value(value.clone()).map_err(|e| ServiceError::invalid("bad_constraints", e.to_string()))?;
    // docs/agent-api.md §5: offer-derived values come from a verified offer or receipt only.
    if c.offer_sha256.is_some() || c.bookings.is_some() {
        return Err(ServiceError::invalid(
            "bad_constraints",
            "offer_sha256 and bookings come from a verified offer or receipt (closed_mandate, management_mandate)",
        ));
    }
    if let Some(m) = &c.max_price {
        schcp::money::Amount::parse(&m.amount, &m.currency)
            .map_err(|e| ServiceError::invalid("bad_constraints", e.to_string()))?;
    }
    if let Some(w) = &c.window {
        let nb = schcp::datetime::parse_date_time(&w.not_before)
            .map_err(|e| ServiceError::invalid("bad_constraints", e.to_string()))?;
        let na = schcp::datetime::parse_date_time(&w.not_after)
            .map_err(|e| ServiceError::invalid("bad_constraints", e.to_string()))?;
        if na < nb {
            return Err(ServiceError::invalid("bad_constraints", "window.not_after is before window.not_before"));
        }
    }
    if c.shared_limit == Some(true) && c.max_bookings.is_none() {
        return Err(ServiceError::invalid("bad_constraints", "shared_limit needs max_bookings"));
    }
    Ok(c)
}

async fn prepare_mandate(svc: &Service, agent: &Requester, obj: &Map<String, Value>) -> Result<Prepared, ServiceError> {
    let b: MandateBody = body(obj)?;
    if b.hosts.is_empty() || b.hosts.len() > MAX_HOSTS {
        return Err(ServiceError::invalid("bad_hosts", format!("a mandate names 1 to {MAX_HOSTS} hosts")));
    }
    if b.scope.is_empty() {
        return Err(ServiceError::invalid("bad_scope", "scope is empty"));
    }
    let mut ids: Vec<&str> = b.hosts.iter().map(|h| h.id.as_str()).collect();
    if ids.contains(&"*") {
        return Err(ServiceError::invalid(
            "wildcard_audience",
            "the key app issues no wildcard mandates (§3.3 check 2)",
        ));
    }
    ids.sort_unstable();
    ids.dedup();
    if ids.len() != b.hosts.len() {
        return Err(ServiceError::invalid("bad_hosts", "a host is named twice"));
    }
    // §3.4: P-256 is for the SD-JWT VC profile only; everything else SchCP
    // signs is Ed25519.
    let es256 = match (b.alg.as_deref(), b.format) {
        (None | Some("EdDSA"), _) => false,
        (Some("ES256"), Format::DcSdJwt) => true,
        (Some("ES256"), Format::Jws) => {
            return Err(ServiceError::invalid(
                "bad_alg",
                "ES256 is for format dc+sd-jwt only; compact mandates are EdDSA (§3.4)",
            ))
        }
        (Some(other), _) => {
            return Err(ServiceError::invalid("bad_alg", format!("alg {other:?} is neither EdDSA nor ES256")))
        }
    };
    if es256 && svc.inner.es256.is_none() {
        return Err(ServiceError::invalid("bad_alg", "this key app has no P-256 key"));
    }
    let constraints = constraints_from(b.constraints.as_ref())?;
    let mut host_constraints = BTreeMap::new();
    if let Some(hc) = &b.host_constraints {
        if b.format != Format::DcSdJwt {
            return Err(ServiceError::invalid("bad_constraints", "host_constraints is for format dc+sd-jwt only"));
        }
        for (host, v) in hc {
            if !b.hosts.iter().any(|h| &h.id == host) {
                return Err(ServiceError::invalid(
                    "bad_constraints",
                    format!("host_constraints names {host:?}, not one of hosts"),
                ));
            }
            let own = constraints_from(Some(v))?;
            // A shared limit is one count across the hosts (§3.3); inside one
            // host's own member it means nothing, and a host that read it would
            // claim units the status API keeps for no such limit.
            if own.shared_limit.is_some() {
                return Err(ServiceError::invalid(
                    "bad_constraints",
                    format!("shared_limit is across every host; it is not one host's own constraint ({host:?})"),
                ));
            }
            if let Some(both) = set_in_both(&constraints, &own) {
                return Err(ServiceError::invalid(
                    "bad_constraints",
                    format!("{both} is set both in constraints and in host_constraints for {host:?} (§3.4)"),
                ));
            }
            host_constraints.insert(host.clone(), own);
        }
    }
    let lifetime = capped_lifetime(b.lifetime.as_deref(), DEFAULT_ROOT_LIFETIME, MAX_ROOT_LIFETIME)?;
    let now = svc.now();
    let exp = now + lifetime;

    let mut shown_hosts = Vec::new();
    let mut trusted_attesters = Vec::new();
    let mut zones = Vec::new();
    // Each host's own name for each of its services, by host id then service id.
    let mut service_names: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for h in &b.hosts {
        let host = svc.inner.discovery.fetch(&h.discovery).await?;
        if host.host_id != h.id {
            return Err(ServiceError::invalid(
                "host_mismatch",
                format!("the discovery document at {} is for host {:?}, not {:?}", h.discovery, host.host_id, h.id),
            ));
        }
        if let Some(trust) = &host.document.trust {
            for a in trust.attesters.iter().flatten() {
                trusted_attesters.push(a.id.clone());
            }
        }
        service_names
            .insert(h.id.clone(), host.document.services.iter().map(|s| (s.id.clone(), s.name.clone())).collect());
        zones.push(host.tz.clone());
        shown_hosts.push(MandateHost {
            id: h.id.clone(),
            name: Some(host.name.clone()),
            domain: verified_domain(&host.domain),
        });
    }
    zones.sort();
    zones.dedup();
    let shown = |c: &Constraints, host: Option<&str>| MandateConstraints {
        services: c.services.as_ref().map(|s| {
            s.iter().map(|id| ServiceLabel { id: id.clone(), name: service_name(&service_names, host, id) }).collect()
        }),
        window: c.window.clone(),
        max_price: c.max_price.clone(),
        max_bookings: c.max_bookings,
        shared_limit: c.shared_limit.unwrap_or(false),
    };
    let consent = ConsentRequest::OpenMandate(OpenMandateRequest {
        agent_name: svc.agent_name(&agent.jkt).await?,
        hosts: shown_hosts,
        scope: b.scope.clone(),
        constraints: shown(&constraints, None),
        exp,
        tz: if zones.len() == 1 { zones.pop() } else { None },
        host_constraints: host_constraints.iter().map(|(h, c)| (h.clone(), shown(c, Some(h)))).collect(),
    });
    let input = json!({
        "hosts": ids,
        "scope": b.scope,
        "constraints": constraints,
        "host_constraints": host_constraints,
        // The expiry the person reads is the one signed (§5.3: the text is
        // generated from the same values the credential carries).
        "exp": exp,
        "consent_mode": b.consent_mode,
        "format": if b.format == Format::DcSdJwt { "dc+sd-jwt" } else { "jws" },
        "alg": if es256 { "ES256" } else { "EdDSA" },
        "trusted_attesters": trusted_attesters,
    });
    Ok(Prepared { consent, input, not_after: None, auto_approve: false })
}

#[derive(Deserialize)]
struct MandateInput {
    hosts: Vec<String>,
    scope: Vec<Action>,
    constraints: Constraints,
    host_constraints: BTreeMap<String, Constraints>,
    exp: i64,
    consent_mode: Option<ConsentMode>,
    format: String,
    /// Absent in requests stored before it existed: EdDSA.
    #[serde(default)]
    alg: Option<String>,
    trusted_attesters: Vec<String>,
}

async fn issue_mandate(
    svc: &Service,
    agent_jkt: &str,
    input: &Value,
    statement: &str,
    now: i64,
) -> Result<Issued, ServiceError> {
    let m: MandateInput = serde_json::from_value(input.clone()).map_err(corrupt)?;
    let jti = Service::new_id("m-");
    let exp = m.exp;
    if exp <= now {
        return Err(ServiceError::Verification(schcp::Error::Expired { what: "mandate request", exp, now }));
    }
    let status_url = svc.config().status_url(&jti);
    let consent = Consent { mode: m.consent_mode, statement: statement.to_owned() };
    let sub = pseudonym(svc.principal());
    let shared_limit = m.constraints.shared_limit.unwrap_or(false);
    let max_bookings = m.constraints.max_bookings;
    let record = |compact: String| CredentialRecord {
        jti: jti.clone(),
        kind: "mandate",
        aud: m.hosts.clone(),
        scope: m.scope.clone(),
        iat: now,
        exp,
        compact,
        status_url: Some(status_url.clone()),
        max_bookings,
        shared_limit,
        booking_id: None,
    };
    if m.format == "dc+sd-jwt" {
        let agent_jwk = agent_jwk(svc, agent_jkt).await?;
        let mut host_constraints = m.host_constraints.clone();
        for h in &m.hosts {
            host_constraints.entry(h.clone()).or_default();
        }
        let issued = issue::sd_jwt_mandate(
            SdJwtMandate {
                sub,
                jti: jti.clone(),
                iat: now,
                exp,
                agent_jwk,
                scope: m.scope.clone(),
                constraints: m.constraints.clone(),
                host_constraints,
                consent,
                contact: None,
                schcp_status: Some(status_url.clone()),
                decoys: 2,
            },
            &mut rand_core::OsRng,
            match m.alg.as_deref() {
                Some("ES256") => {
                    svc.inner.es256.as_deref().ok_or_else(|| corrupt("no P-256 key for an ES256 request"))?
                }
                _ => svc.inner.key.as_ref(),
            },
        )?;
        let presentations: BTreeMap<String, String> =
            m.hosts.iter().filter_map(|h| issued.presentation_for(h).map(|p| (h.clone(), p))).collect();
        let result = json!({ "mandate": issued.issuer_jwt, "jti": jti, "exp": exp, "status": status_url,
                             "presentations": presentations });
        return Ok(Issued { result, credentials: vec![record(issued.issuer_jwt)], receipt: None });
    }
    let attestations = attestations_for(svc, &m.trusted_attesters, now).await?;
    let aud = if m.hosts.len() == 1 { Audience::One(m.hosts[0].clone()) } else { Audience::Many(m.hosts.clone()) };
    let issued = issue::root_mandate(
        RootMandate {
            aud,
            sub,
            jti: jti.clone(),
            iat: now,
            exp,
            agent_jkt: agent_jkt.to_owned(),
            scope: m.scope.clone(),
            constraints: (m.constraints != Constraints::default()).then(|| m.constraints.clone()),
            consent,
            contact: None,
            status: Some(status_url.clone()),
            attestations,
        },
        svc.inner.key.as_ref(),
    )?;
    let result = json!({ "mandate": issued.compact, "jti": jti, "exp": exp, "status": status_url });
    Ok(Issued { result, credentials: vec![record(issued.compact)], receipt: None })
}

async fn agent_jwk(svc: &Service, jkt: &str) -> Result<Jwk, ServiceError> {
    let (jwk,): (String,) =
        sqlx::query_as("SELECT jwk FROM agents WHERE jkt = ?").bind(jkt).fetch_one(svc.store().pool()).await?;
    serde_json::from_str(&jwk).map_err(corrupt)
}

/// §7.5: attestations the named hosts trust, unexpired, at most four.
async fn attestations_for(svc: &Service, trusted: &[String], now: i64) -> Result<Vec<String>, ServiceError> {
    if trusted.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<(String, String)> = sqlx::query_as("SELECT iss, compact FROM attestations WHERE exp > ? ORDER BY id")
        .bind(now)
        .fetch_all(svc.store().pool())
        .await?;
    Ok(rows.into_iter().filter(|(iss, _)| trusted.contains(iss)).map(|(_, c)| c).take(4).collect())
}

// ---- closed mandate (§5.3) ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClosedBody {
    #[allow(dead_code)]
    kind: String,
    #[allow(dead_code)]
    idempotency_key: String,
    offer: String,
    discovery: String,
}

async fn prepare_closed(svc: &Service, obj: &Map<String, Value>) -> Result<Prepared, ServiceError> {
    let b: ClosedBody = body(obj)?;
    let now = svc.now();
    let (offer, host) = svc.inner.discovery.verify_offer(&b.discovery, &b.offer, now).await?;
    let shown = ConsentOffer { claims: offer.claims.clone(), discovered: verified_domain(&host.domain) };
    let consent = match offer.claims.kind {
        schcp::claims::OfferKind::Booking => ConsentRequest::BookingOffer(shown),
        schcp::claims::OfferKind::Change => {
            let current = current_contract(svc, &host.host_id, &offer.claims)
                .await?
                .map(|claims| ConsentOffer { claims, discovered: verified_domain(&host.domain) });
            ConsentRequest::ChangeOffer { current, proposed: shown }
        }
    };
    let stored = StoredOffer { offer: b.offer, host_id: host.host_id.clone(), keys: host.keys.clone() };
    let input = serde_json::to_value(&stored).map_err(corrupt)?;
    Ok(Prepared { consent, input, not_after: Some(offer.claims.exp), auto_approve: false })
}

/// The booking's current contract, when the person approved it here: the offer
/// of an approved closed mandate for the same host whose hash is the change
/// offer's `prev` (§5.7, "prev: the SHA-256 of the booking's current contract").
/// An earlier change offer counts only when it moved the same booking. The
/// stored offer is checked again against the keys it was verified with, at the
/// time it was, so only bytes the host signed are shown as the old terms.
/// Without such a record the text says it cannot show what changes.
async fn current_contract(
    svc: &Service,
    host_id: &str,
    change: &schcp::claims::OfferClaims,
) -> Result<Option<schcp::claims::OfferClaims>, ServiceError> {
    let Some(prev) = change.prev.as_deref() else { return Ok(None) };
    // A booking offer names no booking; a verified receipt is what ties one to
    // a booking. If one ties this contract to another booking of the host, the
    // change offer's `prev` does not describe the booking it changes.
    let elsewhere: Option<(String,)> = sqlx::query_as(
        "SELECT booking_id FROM receipts WHERE host = ? AND offer_sha256 = ? AND booking_id <> ? LIMIT 1",
    )
    .bind(host_id)
    .bind(prev)
    .bind(change.booking_id.as_deref().unwrap_or_default())
    .fetch_optional(svc.store().pool())
    .await?;
    if elsewhere.is_some() {
        return Ok(None);
    }
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT input, created_at FROM requests
         WHERE kind = 'closed_mandate' AND status = 'approved' AND json_extract(result, '$.offer_sha256') = ?
         ORDER BY created_at DESC",
    )
    .bind(prev)
    .fetch_all(svc.store().pool())
    .await?;
    for (input, verified_at) in rows {
        let stored: StoredOffer = serde_json::from_str(&input).map_err(corrupt)?;
        if stored.host_id != host_id {
            continue;
        }
        // A record that fails is not shown as the old terms; the text then
        // says it has none, and the new terms are still shown in full.
        let Ok(old) = stored.verify_at(verified_at) else {
            continue;
        };
        let same_booking = match old.claims.kind {
            schcp::claims::OfferKind::Booking => true,
            schcp::claims::OfferKind::Change => old.claims.booking_id == change.booking_id,
        };
        if same_booking && old.offer_sha256 == prev {
            return Ok(Some(old.claims));
        }
    }
    Ok(None)
}

#[derive(Deserialize)]
struct HostInput {
    host_id: String,
    keys: Vec<Jwk>,
}

fn issue_closed(
    svc: &Service,
    agent_jkt: &str,
    input: &Value,
    statement: &str,
    now: i64,
) -> Result<Issued, ServiceError> {
    let stored: StoredOffer = serde_json::from_value(input.clone()).map_err(corrupt)?;
    // Re-verified against the keys it was verified with when shown: an offer
    // that expired while the person read it is not signed over.
    let offer = stored.verify_at(now)?;
    let jti = Service::new_id("m-");
    let issued = issue::closed_mandate(
        &offer,
        pseudonym(svc.principal()),
        jti.clone(),
        now,
        now + MAX_CLOSED_LIFETIME,
        agent_jkt.to_owned(),
        Consent { mode: Some(ConsentMode::HumanPresent), statement: statement.to_owned() },
        svc.inner.key.as_ref(),
    )?;
    let c = &issued.claims;
    let result = json!({ "mandate": issued.compact, "jti": jti, "exp": c.exp, "offer_sha256": offer.offer_sha256 });
    Ok(Issued {
        result,
        credentials: vec![CredentialRecord {
            jti,
            kind: "closed_mandate",
            aud: vec![stored.host_id.clone()],
            scope: c.scope.clone(),
            iat: now,
            exp: c.exp,
            compact: issued.compact.clone(),
            status_url: None,
            max_bookings: None,
            shared_limit: false,
            booking_id: offer.claims.booking_id.clone(),
        }],
        receipt: None,
    })
}

// ---- management mandate (§3.3 "Management mandates", "Renewal") ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ManagementBody {
    #[allow(dead_code)]
    kind: String,
    #[allow(dead_code)]
    idempotency_key: String,
    receipt: String,
    discovery: String,
}

async fn prepare_management(
    svc: &Service,
    agent: &Requester,
    obj: &Map<String, Value>,
) -> Result<Prepared, ServiceError> {
    let b: ManagementBody = body(obj)?;
    let (receipt, host) =
        svc.inner.discovery.verify_receipt(&b.discovery, &b.receipt, ReceiptExpectations::default()).await?;
    let now = svc.now();
    let exp = issue::management_expiry(&receipt)?;
    if exp <= now {
        return Err(ServiceError::Verification(schcp::Error::Expired { what: "booking", exp, now }));
    }
    let booking = &receipt.claims.booking;
    // The receipt's offer is not at hand, so the booking is described from its
    // signed event and the host's discovery document.
    let summary = BookingSummary {
        booking_id: booking.booking_id.clone(),
        iss: receipt.claims.iss.clone(),
        host_name: Some(host.name.clone()),
        tz: Some(host.tz.clone()),
        domain: verified_domain(&host.domain),
        service_name: booking.event.title.clone(),
        resource_name: None,
        start: booking.start.clone(),
        end: booking.end.clone(),
        place: booking.place.clone(),
    };
    let consent = ConsentRequest::ManagementMandate(ManagementMandateRequest {
        agent_name: svc.agent_name(&agent.jkt).await?,
        booking: summary,
        scope: vec![Action::Cancel, Action::Reschedule],
        exp,
    });
    let auto_approve = match &receipt.claims.consent {
        Some(c) => root_covers_management(svc, &agent.jkt, &c.mandate).await?,
        None => false,
    };
    let input = json!({ "receipt": b.receipt, "host_id": host.host_id, "keys": host.keys });
    Ok(Prepared { consent, input, not_after: None, auto_approve })
}

/// §3.3 / docs/agent-api.md §6: no prompt when the receipt's mandate is a root mandate this
/// key app issued to the same agent with both cancel and reschedule in scope,
/// so the management mandate grants nothing the person had not already granted.
async fn root_covers_management(svc: &Service, agent_jkt: &str, jti: &str) -> Result<bool, ServiceError> {
    let row: Option<(String,)> = sqlx::query_as(
        "SELECT scope FROM credentials WHERE jti = ? AND agent_jkt = ? AND kind = 'mandate' AND revoked_at IS NULL",
    )
    .bind(jti)
    .bind(agent_jkt)
    .fetch_optional(svc.store().pool())
    .await?;
    let Some((scope,)) = row else { return Ok(false) };
    let scope: Vec<Action> = serde_json::from_str(&scope).map_err(corrupt)?;
    Ok(scope.contains(&Action::Cancel) && scope.contains(&Action::Reschedule))
}

fn issue_management(
    svc: &Service,
    agent_jkt: &str,
    input: &Value,
    statement: &str,
    now: i64,
) -> Result<Issued, ServiceError> {
    let h: HostInput = serde_json::from_value(input.clone()).map_err(corrupt)?;
    let compact = input["receipt"].as_str().ok_or_else(|| corrupt("no receipt"))?;
    let receipt = schcp::verify::verify_receipt(
        compact,
        HostKeys { host_id: &h.host_id, keys: &h.keys },
        ReceiptExpectations::default(),
    )?;
    let jti = Service::new_id("m-");
    let issued = issue::management_mandate(
        &receipt,
        pseudonym(svc.principal()),
        jti.clone(),
        now,
        agent_jkt.to_owned(),
        Consent { mode: None, statement: statement.to_owned() },
        svc.inner.key.as_ref(),
    )?;
    let booking_id = receipt.claims.booking.booking_id.clone();
    let result = json!({ "mandate": issued.compact, "jti": jti, "exp": issued.claims.exp, "booking_id": booking_id });
    Ok(Issued {
        result,
        credentials: vec![CredentialRecord {
            jti,
            kind: "management_mandate",
            aud: vec![h.host_id.clone()],
            scope: issued.claims.scope.clone(),
            iat: now,
            exp: issued.claims.exp,
            compact: issued.compact.clone(),
            status_url: None,
            max_bookings: None,
            shared_limit: false,
            booking_id: Some(booking_id.clone()),
        }],
        receipt: Some(ReceiptRecord {
            host: receipt.claims.iss.clone(),
            booking_id,
            offer_sha256: receipt.claims.offer_sha256.clone(),
            mandate_jti: receipt.claims.consent.as_ref().map(|c| c.mandate.clone()),
            compact: compact.to_owned(),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_service_is_named_as_its_host_names_it() {
        let names: BTreeMap<String, BTreeMap<String, String>> = [
            ("a", [("oil", "Oil change"), ("wash", "Car wash")]),
            ("b", [("oil", "Engine rebuild"), ("wash", "Car wash")]),
        ]
        .into_iter()
        .map(|(h, s)| (h.to_owned(), s.into_iter().map(|(i, n)| (i.to_owned(), n.to_owned())).collect()))
        .collect();
        assert_eq!(service_name(&names, Some("b"), "oil").as_deref(), Some("Engine rebuild"));
        assert_eq!(service_name(&names, Some("a"), "oil").as_deref(), Some("Oil change"));
        // Shared: one name only where the hosts agree.
        assert_eq!(service_name(&names, None, "oil"), None);
        assert_eq!(service_name(&names, None, "wash").as_deref(), Some("Car wash"));
        assert_eq!(service_name(&names, None, "tyres"), None);
        assert_eq!(service_name(&names, Some("c"), "oil"), None);
    }
}
