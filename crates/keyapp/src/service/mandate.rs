//! The `mandate` kind: a root mandate for one or more hosts, as a compact JWS
//! (§3.3) or an SD-JWT VC with per-host disclosure (§3.4).

use super::issued::{credential, Issued};
use super::kind::{capped_lifetime, verified_domain, Context, KeyRef, Kind, Prepared};
use super::{corrupt, Service, ServiceError};
use crate::kind::RequestKind;
use crate::store::credentials::CredentialRecord;
use schcp::claims::{Action, Audience, Consent, ConsentMode, Constraints};
use schcp::issue::{self, RootMandate, SdJwtMandate};
use schcp::jwk::Jwk;
use schcp::refusal::Reason;
use schcp::verify::{HostTrust, Selection};
use schcp_consent::{ConsentRequest, MandateConstraints, MandateHost, OpenMandateRequest, ServiceLabel};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Root mandates live at most this long (README "Limits").
pub const MAX_ROOT_LIFETIME: i64 = 30 * 86_400;
/// …and this long when the agent does not say.
pub const DEFAULT_ROOT_LIFETIME: i64 = 86_400;
/// At most this many hosts in one mandate.
pub const MAX_HOSTS: usize = 10;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct HostRef {
    id: String,
    discovery: String,
}

/// The credential's form: a compact JWS (§3.3) or an SD-JWT VC (§3.4).
#[derive(Debug, Serialize, Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Format {
    #[default]
    Jws,
    #[serde(rename = "dc+sd-jwt")]
    DcSdJwt,
}

/// Which principal key signs (§3.4): Ed25519, or P-256 for the SD-JWT VC profile only.
#[derive(Debug, Serialize, Deserialize, Default, Clone, Copy, PartialEq, Eq)]
pub(super) enum Alg {
    #[default]
    EdDSA,
    ES256,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MandateBody {
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
    /// `ES256` (§3.4). An addition to docs/agent-api.md's fields. Read as a
    /// string, so an unknown one is refused as `bad_alg`, not as malformed.
    alg: Option<String>,
}

/// What `issue` signs: the terms the person read, decided when it was shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MandateInput {
    hosts: Vec<String>,
    scope: Vec<Action>,
    constraints: Constraints,
    host_constraints: BTreeMap<String, Constraints>,
    /// The expiry the person reads is the one signed (§5.3: the text is
    /// generated from the same values the credential carries).
    exp: i64,
    consent_mode: Option<ConsentMode>,
    format: Format,
    /// Absent in requests stored before it existed: EdDSA.
    #[serde(default)]
    alg: Alg,
    /// The attester ids the hosts trust; kept so requests stored before
    /// `host_trust` existed still read.
    trusted_attesters: Vec<String>,
    /// Each host's `trust.attesters`, keys included, as verified when shown:
    /// what an attestation is checked against before it is attached (§7.5).
    /// Absent in requests stored before it existed: none is attached.
    #[serde(default)]
    host_trust: Vec<HostTrust>,
    /// Each host's discovery keys as verified when shown, by RFC 7638
    /// thumbprint: the keys a signed claim under this mandate must be made with
    /// (docs/agent-api.md "Signed claims"). Absent in requests stored before it
    /// existed: none, so claims under the mandate can only be unsigned.
    #[serde(default)]
    host_keys: status_edge::HostKeys,
}

/// The part of a stored mandate input an attestation is checked against:
/// each host's `trust.attesters` as verified when the request was shown
/// (§7.5). Read on its own, so the rest of the input's shape does not matter.
#[derive(Deserialize)]
struct StoredTrust {
    #[serde(default)]
    host_trust: Vec<HostTrust>,
}

/// The hosts' trust lists kept in a mandate request's verified `input`.
pub(super) fn host_trust_of(input: &str) -> Result<Vec<HostTrust>, ServiceError> {
    Ok(serde_json::from_str::<StoredTrust>(input).map_err(corrupt)?.host_trust)
}

/// What the agent receives.
#[derive(Debug, Serialize)]
pub(super) struct MandateResult {
    mandate: String,
    jti: String,
    exp: i64,
    status: String,
    /// An SD-JWT VC's presentation for each host (§3.4).
    #[serde(skip_serializing_if = "Option::is_none")]
    presentations: Option<BTreeMap<String, String>>,
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
        .map_err(|e| ServiceError::invalid(Reason::BadConstraints, e.to_string()))?;
    let c: Constraints = serde_json::from_value(value.clone())
        .map_err(|e| ServiceError::invalid(Reason::BadConstraints, e.to_string()))?;
    // docs/agent-api.md: offer-derived values come from a verified offer or receipt only.
    if c.offer_sha256.is_some() || c.bookings.is_some() {
        return Err(ServiceError::invalid(
            Reason::BadConstraints,
            "offer_sha256 and bookings come from a verified offer or receipt (closed_mandate, management_mandate)",
        ));
    }
    if let Some(m) = &c.max_price {
        schcp::money::Amount::parse(&m.amount, &m.currency)
            .map_err(|e| ServiceError::invalid(Reason::BadConstraints, e.to_string()))?;
    }
    if let Some(w) = &c.window {
        let nb = schcp::datetime::parse_date_time(&w.not_before)
            .map_err(|e| ServiceError::invalid(Reason::BadConstraints, e.to_string()))?;
        let na = schcp::datetime::parse_date_time(&w.not_after)
            .map_err(|e| ServiceError::invalid(Reason::BadConstraints, e.to_string()))?;
        if na < nb {
            return Err(ServiceError::invalid(Reason::BadConstraints, "window.not_after is before window.not_before"));
        }
    }
    if c.shared_limit == Some(true) && c.max_bookings.is_none() {
        return Err(ServiceError::invalid(Reason::BadConstraints, "shared_limit needs max_bookings"));
    }
    Ok(c)
}

/// The mandate's terms as the body asks for them, checked before any host is
/// fetched.
#[derive(Debug, PartialEq)]
struct Terms {
    /// The host ids, sorted.
    hosts: Vec<String>,
    alg: Alg,
    constraints: Constraints,
    host_constraints: BTreeMap<String, Constraints>,
    exp: i64,
}

/// Checks what the body asks for (`has_es256`: whether this key app has a
/// P-256 key), in the order the refusals have always been given.
fn checked_terms(
    b: &MandateBody,
    has_es256: bool,
    config: &crate::config::Config,
    now: i64,
) -> Result<Terms, ServiceError> {
    let hosts = host_ids(&b.hosts)?;
    if b.scope.is_empty() {
        return Err(ServiceError::invalid(Reason::BadScope, "scope is empty"));
    }
    let alg = alg_for(b.alg.as_deref(), b.format)?;
    if alg == Alg::ES256 && !has_es256 {
        return Err(ServiceError::invalid(Reason::BadAlg, "this key app has no P-256 key"));
    }
    let constraints = constraints_from(b.constraints.as_ref())?;
    if constraints.shared_limit == Some(true) {
        // Before any fetch, anything shown or stored (status_reach).
        crate::status_reach::shared_limit_allowed(config)
            .map_err(|message| ServiceError::unacceptable(Reason::StatusUnreachable, message))?;
    }
    let host_constraints = match &b.host_constraints {
        Some(hc) => own_constraints(hc, b, &constraints)?,
        None => BTreeMap::new(),
    };
    let lifetime = capped_lifetime(b.lifetime.as_deref(), DEFAULT_ROOT_LIFETIME, MAX_ROOT_LIFETIME)?;
    Ok(Terms { hosts, alg, constraints, host_constraints, exp: now + lifetime })
}

/// The host ids: 1 to `MAX_HOSTS`, each once, never the wildcard (§3.3 check 2).
fn host_ids(hosts: &[HostRef]) -> Result<Vec<String>, ServiceError> {
    if hosts.is_empty() || hosts.len() > MAX_HOSTS {
        return Err(ServiceError::invalid(Reason::BadHosts, format!("a mandate names 1 to {MAX_HOSTS} hosts")));
    }
    let mut ids: Vec<String> = hosts.iter().map(|h| h.id.clone()).collect();
    if ids.iter().any(|id| id == "*") {
        return Err(ServiceError::invalid(
            Reason::WildcardAudience,
            "the key app issues no wildcard mandates (§3.3 check 2)",
        ));
    }
    ids.sort_unstable();
    ids.dedup();
    if ids.len() != hosts.len() {
        return Err(ServiceError::invalid(Reason::BadHosts, "a host is named twice"));
    }
    Ok(ids)
}

/// §3.4: P-256 is for the SD-JWT VC profile only; everything else SchCP
/// signs is Ed25519.
fn alg_for(alg: Option<&str>, format: Format) -> Result<Alg, ServiceError> {
    match (alg, format) {
        (None | Some("EdDSA"), _) => Ok(Alg::EdDSA),
        (Some("ES256"), Format::DcSdJwt) => Ok(Alg::ES256),
        (Some("ES256"), Format::Jws) => Err(ServiceError::invalid(
            Reason::BadAlg,
            "ES256 is for format dc+sd-jwt only; compact mandates are EdDSA (§3.4)",
        )),
        (Some(other), _) => {
            Err(ServiceError::invalid(Reason::BadAlg, format!("alg {other:?} is neither EdDSA nor ES256")))
        }
    }
}

/// Each host's own constraints (§3.4), for hosts the mandate names, never
/// setting what the shared constraints set.
fn own_constraints(
    hc: &BTreeMap<String, Value>,
    b: &MandateBody,
    shared: &Constraints,
) -> Result<BTreeMap<String, Constraints>, ServiceError> {
    if b.format != Format::DcSdJwt {
        return Err(ServiceError::invalid(Reason::BadConstraints, "host_constraints is for format dc+sd-jwt only"));
    }
    let mut own_by_host = BTreeMap::new();
    for (host, v) in hc {
        if !b.hosts.iter().any(|h| &h.id == host) {
            return Err(ServiceError::invalid(
                Reason::BadConstraints,
                format!("host_constraints names {host:?}, not one of hosts"),
            ));
        }
        let own = constraints_from(Some(v))?;
        // A shared limit is one count across the hosts (§3.3); inside one
        // host's own member it means nothing, and a host that read it would
        // claim units the status API keeps for no such limit.
        if own.shared_limit.is_some() {
            return Err(ServiceError::invalid(
                Reason::BadConstraints,
                format!("shared_limit is across every host; it is not one host's own constraint ({host:?})"),
            ));
        }
        if let Some(both) = set_in_both(shared, &own) {
            return Err(ServiceError::invalid(
                Reason::BadConstraints,
                format!("{both} is set both in constraints and in host_constraints for {host:?} (§3.4)"),
            ));
        }
        own_by_host.insert(host.clone(), own);
    }
    Ok(own_by_host)
}

/// What the hosts' discovery documents say, as the text shows them and the
/// mandate keeps them.
#[derive(Default)]
struct Discovered {
    shown: Vec<MandateHost>,
    trusted_attesters: Vec<String>,
    host_trust: Vec<HostTrust>,
    zones: Vec<String>,
    /// Each host's own name for each of its services, by host id then service id.
    service_names: BTreeMap<String, BTreeMap<String, String>>,
    host_keys: status_edge::HostKeys,
    bindings: Vec<crate::host_binding::HostBinding>,
}

/// Fetches and places each host (§2.2: a host id bound elsewhere is refused
/// here, before anything is shown).
async fn discover(ctx: &Context<'_>, hosts: &[HostRef]) -> Result<Discovered, ServiceError> {
    let mut d = Discovered::default();
    for h in hosts {
        let host = ctx.discovery.fetch(&h.discovery).await?;
        if host.host_id != h.id {
            return Err(super::kind::host_mismatch(&h.discovery, &host.host_id, &h.id));
        }
        let attesters: Vec<_> =
            host.document.trust.iter().flat_map(|t| t.attesters.iter().flatten()).cloned().collect();
        d.trusted_attesters.extend(attesters.iter().map(|a| a.id.clone()));
        d.host_trust.push(HostTrust { host: h.id.clone(), attesters });
        // A service's name is the document's own word for it. Only a document
        // its host's domain vouches for (§2.1, the well-known path) names the
        // services in the text; from any other, the text shows the ids that are
        // signed, as it shows the host "unverified" (a document anyone can
        // serve could call "engine-rebuild" an oil change).
        if verified_domain(&host.domain).is_some() {
            let names = host.document.services.iter().map(|s| (s.id.clone(), s.name.clone())).collect();
            d.service_names.insert(h.id.clone(), names);
        }
        let thumbs = host.keys.iter().map(|k| k.thumbprint()).collect::<Result<Vec<_>, _>>();
        let thumbs = thumbs.map_err(|e| corrupt(format!("a verified discovery key: {e}")))?;
        if !thumbs.is_empty() {
            d.host_keys.insert(h.id.clone(), thumbs);
        }
        d.zones.push(host.tz.clone());
        let placed = ctx.records.place(&host).await?;
        d.shown.push(MandateHost {
            id: h.id.clone(),
            name: Some(host.name.clone()),
            domain: verified_domain(&host.domain),
            new_host: placed.new,
        });
        d.bindings.push(placed.binding);
    }
    d.zones.sort();
    d.zones.dedup();
    Ok(d)
}

impl Discovered {
    /// Constraints as the text shows them, services by their hosts' names.
    fn shown(&self, c: &Constraints, host: Option<&str>) -> MandateConstraints {
        MandateConstraints {
            services: c.services.as_ref().map(|s| {
                s.iter()
                    .map(|id| ServiceLabel { id: id.clone(), name: service_name(&self.service_names, host, id) })
                    .collect()
            }),
            window: c.window.clone(),
            max_price: c.max_price.clone(),
            max_bookings: c.max_bookings,
            shared_limit: c.shared_limit.unwrap_or(false),
        }
    }

    fn request(&self, agent_name: String, b: &MandateBody, t: &Terms) -> OpenMandateRequest {
        OpenMandateRequest {
            agent_name,
            hosts: self.shown.clone(),
            scope: b.scope.clone(),
            constraints: self.shown(&t.constraints, None),
            exp: t.exp,
            tz: match self.zones.as_slice() {
                [one] => Some(one.clone()),
                _ => None,
            },
            host_constraints: t.host_constraints.iter().map(|(h, c)| (h.clone(), self.shown(c, Some(h)))).collect(),
            consent_mode: b.consent_mode,
        }
    }
}

pub(super) struct Mandate;

impl Kind for Mandate {
    const KIND: RequestKind = RequestKind::Mandate;
    type Body = MandateBody;
    type Input = MandateInput;
    type Output = MandateResult;

    async fn prepare(ctx: &Context<'_>, b: MandateBody) -> Result<Prepared<MandateInput>, ServiceError> {
        let terms = checked_terms(&b, ctx.principal.es256.is_some(), ctx.config, ctx.now)?;
        let found = discover(ctx, &b.hosts).await?;
        let agent_name = ctx.records.agent_name(ctx.agent_jkt).await?;
        let consent = ConsentRequest::OpenMandate(found.request(agent_name, &b, &terms));
        let input = MandateInput {
            hosts: terms.hosts,
            scope: b.scope,
            constraints: terms.constraints,
            host_constraints: terms.host_constraints,
            exp: terms.exp,
            consent_mode: b.consent_mode,
            format: b.format,
            alg: terms.alg,
            trusted_attesters: found.trusted_attesters,
            host_trust: found.host_trust,
            host_keys: found.host_keys,
        };
        Ok(Prepared::asked(consent, input, None).at(found.bindings))
    }

    async fn issue(ctx: &Context<'_>, m: MandateInput, statement: &str) -> Result<Issued<MandateResult>, ServiceError> {
        let (now, exp) = (ctx.now, m.exp);
        if exp <= now {
            return Err(ServiceError::Verification(schcp::Error::Expired { what: "mandate request", exp, now }));
        }
        let jti = Service::new_id("m-");
        let status = ctx.status_url(&jti);
        let consent = Consent { mode: m.consent_mode, statement: statement.to_owned() };
        let (compact, presentations) = match m.format {
            Format::DcSdJwt => sd_jwt(ctx, &m, &jti, &status, consent).await?,
            Format::Jws => (compact_jws(ctx, &m, &jti, &status, consent).await?, None),
        };
        let record = m.record(ctx, jti.clone(), status.clone(), compact.clone());
        Ok(Issued::one(MandateResult { mandate: compact, jti, exp, status, presentations }, record))
    }
}

impl MandateInput {
    fn record(&self, ctx: &Context<'_>, jti: String, status_url: String, compact: String) -> CredentialRecord {
        CredentialRecord {
            aud: self.hosts.clone(),
            scope: self.scope.clone(),
            status_url: Some(status_url),
            max_bookings: self.constraints.max_bookings,
            shared_limit: self.constraints.shared_limit.unwrap_or(false),
            host_keys: self.host_keys.clone(),
            ..credential(Mandate::KIND, jti, ctx.agent_jkt, ctx.now, self.exp, compact)
        }
    }

    /// The principal key the person's mandate is signed with (§3.4).
    fn signer<'a>(&self, ctx: &Context<'a>) -> Result<KeyRef<'a>, ServiceError> {
        match self.alg {
            Alg::ES256 => ctx.principal.es256.ok_or_else(|| corrupt("no P-256 key for an ES256 request")),
            Alg::EdDSA => Ok(ctx.principal.key),
        }
    }
}

/// An SD-JWT VC (§3.4): the issuer JWT and each host's presentation.
async fn sd_jwt(
    ctx: &Context<'_>,
    m: &MandateInput,
    jti: &str,
    status: &str,
    consent: Consent,
) -> Result<(String, Option<BTreeMap<String, String>>), ServiceError> {
    let agent_jwk = agent_jwk(ctx).await?;
    let mut host_constraints = m.host_constraints.clone();
    for h in &m.hosts {
        host_constraints.entry(h.clone()).or_default();
    }
    let mandate = SdJwtMandate {
        sub: ctx.principal.pseudonym(),
        jti: jti.to_owned(),
        iat: ctx.now,
        exp: m.exp,
        agent_jwk,
        scope: m.scope.clone(),
        constraints: m.constraints.clone(),
        host_constraints,
        consent,
        contact: None,
        schcp_status: Some(status.to_owned()),
        // §3.4: every mandate's aud and host_constraints are the same
        // length, whatever the number of hosts.
        padded_to: MAX_HOSTS,
        // §7.5, per host: each host is shown only what it honours.
        attestations: attestations_for(ctx, m).await?.per_host,
    };
    let issued = issue::sd_jwt_mandate(mandate, &mut rand_core::OsRng, m.signer(ctx)?)?;
    let presentations = m.hosts.iter().filter_map(|h| issued.presentation_for(h).map(|p| (h.clone(), p))).collect();
    Ok((issued.issuer_jwt, Some(presentations)))
}

/// A compact JWS root mandate (§3.3), with the attestations every one of its
/// hosts trusts: one signature covers all its hosts, so each reads all of it,
/// and §7.5 shows a host only an attester it trusts (an SD-JWT VC can do
/// better, per host: `sd_jwt`).
async fn compact_jws(
    ctx: &Context<'_>,
    m: &MandateInput,
    jti: &str,
    status: &str,
    consent: Consent,
) -> Result<String, ServiceError> {
    let attestations = attestations_for(ctx, m).await?.honoured_by_every(&m.hosts);
    let aud = match m.hosts.as_slice() {
        [one] => Audience::One(one.clone()),
        _ => Audience::Many(m.hosts.clone()),
    };
    let mandate = RootMandate {
        aud,
        sub: ctx.principal.pseudonym(),
        jti: jti.to_owned(),
        iat: ctx.now,
        exp: m.exp,
        agent_jkt: ctx.agent_jkt.to_owned(),
        scope: m.scope.clone(),
        constraints: (m.constraints != Constraints::default()).then(|| m.constraints.clone()),
        consent,
        contact: None,
        status: Some(status.to_owned()),
        attestations,
    };
    // A compact mandate is always EdDSA (`alg_for`).
    Ok(issue::root_mandate(mandate, ctx.principal.key)?.compact)
}

/// The requesting agent's key, which the credential is bound to (`cnf`).
/// The records hold it beside its thumbprint, and the person's programs can
/// write them: a key that is not the one the request was made with (its
/// thumbprint, from the sealed request) binds nothing.
async fn agent_jwk(ctx: &Context<'_>) -> Result<Jwk, ServiceError> {
    let jwk = crate::store::agents::jwk(ctx.store, ctx.agent_jkt).await?;
    let jwk: Jwk =
        serde_json::from_str(&jwk.ok_or_else(|| corrupt("a request of an agent not paired"))?).map_err(corrupt)?;
    if jwk.thumbprint().map_err(corrupt)? != ctx.agent_jkt {
        return Err(corrupt("the agent's key in the records is not the one that asked"));
    }
    // The key alone, rebuilt from it: members the thumbprint does not cover
    // (a kid, a use) are not the agent's to have signed into `cnf` by
    // writing them into its row.
    Ok(jwk.public_key().map_err(corrupt)?.to_jwk())
}

/// §7.5: the person's attestations that the mandate's hosts honour, each
/// checked against the keys the host lists for its attester, about the
/// principal whose key signs this mandate, issued and unexpired now; at most
/// four (`schcp::verify::select_attestations`).
async fn attestations_for(ctx: &Context<'_>, m: &MandateInput) -> Result<Selection, ServiceError> {
    if m.host_trust.iter().all(|h| h.attesters.is_empty()) {
        return Ok(Selection::default());
    }
    let principal = m.signer(ctx)?.public_key().to_jwk().principal_id().map_err(corrupt)?;
    let held = crate::store::attestations::unexpired(ctx.store, ctx.now).await?;
    let held: Vec<String> = held.into_iter().map(|a| a.compact).collect();
    Ok(schcp::verify::select_attestations(&held, &m.host_trust, &principal, ctx.now))
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

    use crate::service::kind::testing::{all_malformed, parse, refusal, round_trips};
    use serde_json::json;

    fn body(extra: Value) -> String {
        let mut b = json!({"kind": "mandate", "idempotency_key": "k", "scope": ["book"],
                           "hosts": [{"id": "a", "discovery": "https://a.example/.well-known/scheduling.json"}]});
        b.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        b.to_string()
    }

    const NOW: i64 = 1_796_000_000;

    fn terms(extra: Value, has_es256: bool) -> Result<Terms, ServiceError> {
        let mut config = crate::config::Config::default();
        config.status_api.hosts_on_this_machine = true;
        checked_terms(&parse::<Mandate>(&body(extra)).unwrap(), has_es256, &config, NOW)
    }

    #[test]
    fn the_body_has_a_closed_shape() {
        let ok = parse::<Mandate>(&body(json!({"format": "dc+sd-jwt", "lifetime": "P1D"}))).unwrap();
        assert_eq!(ok.format, Format::DcSdJwt);
        assert_eq!(parse::<Mandate>(&body(json!({}))).unwrap().format, Format::Jws);
        all_malformed::<Mandate>(&[
            body(json!({"format": "jwt"})),
            body(json!({"scope": ["fly"]})),
            body(json!({"hosts": [{"id": "a"}]})),
            body(json!({"audience": "a"})),
            body(json!({"hosts": "a"})),
            r#"{"kind":"mandate","idempotency_key":"k","scope":["book"],"scope":["cancel"],"hosts":[]}"#.to_owned(),
        ]);
    }

    #[test]
    fn terms_are_refused_for_what_they_ask() {
        let host = |id: &str| json!({"id": id, "discovery": "d"});
        let eleven: Vec<Value> = (0..=MAX_HOSTS).map(|i| host(&format!("h{i}"))).collect();
        let cases = [
            (json!({"hosts": []}), Reason::BadHosts),
            (json!({"hosts": eleven}), Reason::BadHosts),
            (json!({"hosts": [host("a"), host("a")]}), Reason::BadHosts),
            (json!({"hosts": [host("*")]}), Reason::WildcardAudience),
            (json!({"scope": []}), Reason::BadScope),
            (json!({"alg": "ES256"}), Reason::BadAlg),
            (json!({"alg": "RS256", "format": "dc+sd-jwt"}), Reason::BadAlg),
            (json!({"constraints": {"offer_sha256": "x"}}), Reason::BadConstraints),
            (json!({"constraints": {"shared_limit": true}}), Reason::BadConstraints),
            (json!({"host_constraints": {"a": {}}}), Reason::BadConstraints),
            (json!({"format": "dc+sd-jwt", "host_constraints": {"b": {}}}), Reason::BadConstraints),
            (
                json!({"format": "dc+sd-jwt", "host_constraints": {"a": {"shared_limit": false}}}),
                Reason::BadConstraints,
            ),
            (
                json!({"format": "dc+sd-jwt", "constraints": {"max_bookings": 1},
                       "host_constraints": {"a": {"max_bookings": 2}}}),
                Reason::BadConstraints,
            ),
            (json!({"lifetime": "forever"}), Reason::BadLifetime),
        ];
        for (extra, reason) in cases {
            assert_eq!(refusal(terms(extra.clone(), true)), reason, "{extra}");
        }
        // ES256 for an SD-JWT VC, only where the key app has a P-256 key.
        let es256 = json!({"alg": "ES256", "format": "dc+sd-jwt"});
        assert_eq!(terms(es256.clone(), true).unwrap().alg, Alg::ES256);
        assert_eq!(refusal(terms(es256, false)), Reason::BadAlg);
        let t = terms(json!({"lifetime": "P90D"}), false).unwrap();
        assert_eq!((t.hosts, t.alg, t.exp), (vec!["a".to_owned()], Alg::EdDSA, NOW + MAX_ROOT_LIFETIME));
    }

    #[test]
    fn the_input_round_trips_and_reads_what_was_stored_before() {
        let input = MandateInput {
            hosts: vec!["a".into()],
            scope: vec![Action::Book],
            constraints: Constraints::default(),
            host_constraints: BTreeMap::new(),
            exp: NOW,
            consent_mode: None,
            format: Format::DcSdJwt,
            alg: Alg::ES256,
            trusted_attesters: Vec::new(),
            host_trust: Vec::new(),
            host_keys: Default::default(),
        };
        round_trips(&input);
        let stored = serde_json::to_value(&input).unwrap();
        assert_eq!((stored["format"].as_str(), stored["alg"].as_str()), (Some("dc+sd-jwt"), Some("ES256")));
        // As the key app stored it before alg and host_keys were kept.
        let old: MandateInput = serde_json::from_value(json!({
            "hosts": ["a"], "scope": ["book"], "constraints": {}, "host_constraints": {}, "exp": NOW,
            "consent_mode": null, "format": "jws", "trusted_attesters": []
        }))
        .unwrap();
        assert_eq!((old.format, old.alg), (Format::Jws, Alg::EdDSA));
        // A format the key app never wrote is a corrupt record.
        let bad = json!({"hosts": ["a"], "scope": ["book"], "constraints": {}, "host_constraints": {}, "exp": NOW,
                         "consent_mode": null, "format": "jwt", "trusted_attesters": []});
        assert!(serde_json::from_value::<MandateInput>(bad).is_err());
    }
}
