//! The `mandate` kind: a root mandate for one or more hosts, as a compact JWS
//! (§3.3) or an SD-JWT VC with per-host disclosure (§3.4).

use super::pipeline::{body, capped_lifetime, corrupt, pseudonym, verified_domain, Issued, Prepared};
use super::{Requester, Service, ServiceError};
use crate::kind::RequestKind;
use crate::store::credentials::CredentialRecord;
use schcp::claims::{Action, Audience, Consent, ConsentMode, Constraints};
use schcp::issue::{self, RootMandate, SdJwtMandate};
use schcp::jwk::Jwk;
use schcp::refusal::Reason;
use schcp_consent::{ConsentRequest, MandateConstraints, MandateHost, OpenMandateRequest, ServiceLabel};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Root mandates live at most this long (README "Limits").
pub const MAX_ROOT_LIFETIME: i64 = 30 * 86_400;
/// …and this long when the agent does not say.
pub const DEFAULT_ROOT_LIFETIME: i64 = 86_400;
/// At most this many hosts in one mandate.
pub const MAX_HOSTS: usize = 10;

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
    /// `ES256` (§3.4). An addition to docs/agent-api.md's fields.
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

pub(super) async fn prepare(
    svc: &Service,
    agent: &Requester,
    obj: &Map<String, Value>,
) -> Result<Prepared, ServiceError> {
    let b: MandateBody = body(obj)?;
    if b.hosts.is_empty() || b.hosts.len() > MAX_HOSTS {
        return Err(ServiceError::invalid(Reason::BadHosts, format!("a mandate names 1 to {MAX_HOSTS} hosts")));
    }
    if b.scope.is_empty() {
        return Err(ServiceError::invalid(Reason::BadScope, "scope is empty"));
    }
    let mut ids: Vec<&str> = b.hosts.iter().map(|h| h.id.as_str()).collect();
    if ids.contains(&"*") {
        return Err(ServiceError::invalid(
            Reason::WildcardAudience,
            "the key app issues no wildcard mandates (§3.3 check 2)",
        ));
    }
    ids.sort_unstable();
    ids.dedup();
    if ids.len() != b.hosts.len() {
        return Err(ServiceError::invalid(Reason::BadHosts, "a host is named twice"));
    }
    // §3.4: P-256 is for the SD-JWT VC profile only; everything else SchCP
    // signs is Ed25519.
    let es256 = match (b.alg.as_deref(), b.format) {
        (None | Some("EdDSA"), _) => false,
        (Some("ES256"), Format::DcSdJwt) => true,
        (Some("ES256"), Format::Jws) => {
            return Err(ServiceError::invalid(
                Reason::BadAlg,
                "ES256 is for format dc+sd-jwt only; compact mandates are EdDSA (§3.4)",
            ))
        }
        (Some(other), _) => {
            return Err(ServiceError::invalid(Reason::BadAlg, format!("alg {other:?} is neither EdDSA nor ES256")))
        }
    };
    if es256 && svc.inner.es256.is_none() {
        return Err(ServiceError::invalid(Reason::BadAlg, "this key app has no P-256 key"));
    }
    let constraints = constraints_from(b.constraints.as_ref())?;
    if constraints.shared_limit == Some(true) {
        // Before any fetch, anything shown or stored (status_reach).
        crate::status_reach::shared_limit_allowed(svc.config())
            .map_err(|message| ServiceError::unacceptable(Reason::StatusUnreachable, message))?;
    }
    let mut host_constraints = BTreeMap::new();
    if let Some(hc) = &b.host_constraints {
        if b.format != Format::DcSdJwt {
            return Err(ServiceError::invalid(Reason::BadConstraints, "host_constraints is for format dc+sd-jwt only"));
        }
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
            if let Some(both) = set_in_both(&constraints, &own) {
                return Err(ServiceError::invalid(
                    Reason::BadConstraints,
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
    // Each host's discovery keys as verified now, by RFC 7638 thumbprint: the
    // keys a signed claim under this mandate must be made with
    // (docs/agent-api.md "Signed claims").
    let mut host_keys = status_edge::HostKeys::new();
    let mut bindings = Vec::new();
    for h in &b.hosts {
        let host = svc.inner.discovery.fetch(&h.discovery).await?;
        if host.host_id != h.id {
            return Err(ServiceError::invalid(
                Reason::HostMismatch,
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
        let thumbs = host.keys.iter().map(|k| k.thumbprint()).collect::<Result<Vec<_>, _>>();
        let thumbs = thumbs.map_err(|e| corrupt(format!("a verified discovery key: {e}")))?;
        if !thumbs.is_empty() {
            host_keys.insert(h.id.clone(), thumbs);
        }
        zones.push(host.tz.clone());
        // §2.2: a host id bound elsewhere is refused here, before anything is shown.
        let placed = svc.place(&host).await?;
        shown_hosts.push(MandateHost {
            id: h.id.clone(),
            name: Some(host.name.clone()),
            domain: verified_domain(&host.domain),
            new_host: placed.new,
        });
        bindings.push(placed.binding);
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
        consent_mode: b.consent_mode,
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
        "host_keys": host_keys,
    });
    Ok(Prepared { consent, input, not_after: None, auto_approve: false, hosts: bindings })
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
    /// Absent in requests stored before it existed: none, so claims under the
    /// mandate can only be unsigned.
    #[serde(default)]
    host_keys: status_edge::HostKeys,
}

pub(super) async fn issue(
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
    let status_url = svc.config().status_url(&svc.principal_thumbprint(), &jti);
    let consent = Consent { mode: m.consent_mode, statement: statement.to_owned() };
    let sub = pseudonym(svc.principal());
    let shared_limit = m.constraints.shared_limit.unwrap_or(false);
    let max_bookings = m.constraints.max_bookings;
    let record = |compact: String| CredentialRecord {
        jti: jti.clone(),
        kind: RequestKind::Mandate,
        agent_jkt: Some(agent_jkt.to_owned()),
        request_id: None,
        aud: m.hosts.clone(),
        scope: m.scope.clone(),
        iat: now,
        exp,
        compact,
        status_url: Some(status_url.clone()),
        max_bookings,
        shared_limit,
        booking_id: None,
        host_keys: m.host_keys.clone(),
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
                // §3.4: every mandate's aud and host_constraints are the same
                // length, whatever the number of hosts.
                padded_to: MAX_HOSTS,
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
        let credentials = vec![record(issued.issuer_jwt)];
        return Ok(Issued { result, credentials, receipt: None, meeting: None, management: None });
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
    Ok(Issued { result, credentials: vec![record(issued.compact)], receipt: None, meeting: None, management: None })
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
