//! A host as discovered (§2.1) and the checks that make its endpoint one to
//! call (§2.2).

use super::error::HostError;
use reqwest::Url;
use schcp::claims::Discovery;
use schcp::jwk::Jwk;
use schcp::schema::Def;
use schcp::verify::HostKeys;

/// The path of a host's own discovery document (§2.1).
pub const WELL_KNOWN_PATH: &str = "/.well-known/scheduling.json";

/// A host whose discovery document was fetched and checked just now.
#[derive(Debug, Clone, PartialEq)]
pub struct Host {
    /// The URL the document was fetched from.
    pub url: String,
    /// `host.id`: the `iss` of everything it signs.
    pub host_id: String,
    /// `host.name`.
    pub name: String,
    /// `host.timezone`.
    pub tz: String,
    /// The domain TLS proved, when the URL is the host's own well-known one
    /// (§2.2 rule 1, §5.2); `None` for any other URL.
    pub domain: Option<String>,
    /// The endpoint, authorized (§2.2), without a trailing slash.
    pub endpoint: String,
    /// The signing keys (§2.1).
    pub keys: Vec<Jwk>,
    /// The whole document.
    pub document: Discovery,
}

impl Host {
    /// The keys `schcp::verify` checks host JWSs with.
    pub fn host_keys(&self) -> HostKeys<'_> {
        HostKeys { host_id: &self.host_id, keys: &self.keys }
    }

    /// `{endpoint}{path}`.
    pub(crate) fn url_of(&self, path: &str) -> String {
        format!("{}{path}", self.endpoint)
    }
}

/// Parses and checks a document fetched from `url`: no duplicate members
/// (§3.1), version 0.4, the `Discovery` schema, unique kids (§2.1), and an
/// endpoint on the document's own origin (§2.2 rule 1; the operator rule 2 is
/// not followed by this client, so an endpoint elsewhere is refused).
pub(crate) fn parse_document(url: &Url, body: &[u8]) -> Result<Host, HostError> {
    let bad = |why: String| HostError::Discovery { url: url.to_string(), why };
    let value = schcp::json::parse(body).map_err(|e| bad(e.to_string()))?;
    match value.get("schcp") {
        Some(serde_json::Value::String(v)) if v == schcp::VERSION => {}
        Some(other) => return Err(bad(format!("it is SchCP {other}, not {}", schcp::VERSION))),
        None => return Err(bad("it has no \"schcp\" member".into())),
    }
    schcp::schema::validate(Def::Discovery, &value).map_err(|e| bad(e.to_string()))?;
    let document: Discovery = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
    let mut seen = std::collections::HashSet::new();
    for key in &document.keys {
        if let Some(kid) = &key.kid {
            if !seen.insert(kid.as_str()) {
                return Err(bad(format!("two keys have kid {kid:?}")));
            }
        }
    }
    let endpoint = Url::parse(&document.endpoint).map_err(|e| bad(format!("its endpoint: {e}")))?;
    if endpoint.origin() != url.origin() {
        return Err(HostError::EndpointNotAuthorized { url: url.to_string(), endpoint: document.endpoint.clone() });
    }
    Ok(Host {
        url: url.to_string(),
        host_id: document.host.id.clone(),
        name: document.host.name.clone(),
        tz: document.host.timezone.clone(),
        domain: verified_domain(url),
        endpoint: document.endpoint.trim_end_matches('/').to_owned(),
        keys: document.keys.clone(),
        document,
    })
}

/// §5.2, §2.2 rule 1: the domain of a host's own well-known URL.
fn verified_domain(url: &Url) -> Option<String> {
    let well_known = url.scheme() == "https"
        && url.port().is_none()
        && url.path() == WELL_KNOWN_PATH
        && url.query().is_none()
        && url.fragment().is_none();
    well_known.then(|| url.host_str().map(str::to_owned)).flatten()
}
