//! docs/openapi.json against the running key app: the service started
//! for real (agent API, status API, HTTPS test hosts for discovery), every route
//! called, for its successes and its main refusals, and each real response
//! checked against the document: its status declared for that path and method,
//! its body valid against the declared JSON Schema (2020-12, `$ref`s resolved
//! inside the document), and every declared required header present with a
//! valid value. Every request body sent is checked against the declared request
//! schema too, so the document can neither refuse what the service takes nor
//! promise what it does not answer.
//!
//! The file keystore (age, passphrase given here) keeps this test off the OS
//! keychain, so it runs without scripts/with-keyring.

use ed25519_dalek::SigningKey;
use jsonschema::{Draft, Registry, Validator};
use keyapp::app::{self, Running};
use keyapp::config::KeystoreBackend;
use keyapp::keystore::PassphraseSource;
use reqwest::header::HeaderMap;
use reqwest::{Method, RequestBuilder};
use schcp::claims::Approved;
use schcp::httpsig::sign_request;
use schcp::jwk::Jwk;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::sync::Mutex;
use testhost::{TestHost, TestHostConfig};
use testkit::calendar::{meeting_offer, playdate_claims, signed_contract, trusting};
use testkit::{now, principal_of};

const DOC: &str = include_str!("../../../docs/openapi.json");
/// The document's base URI in the validator's registry; never fetched.
const DOC_URI: &str = "https://schcp-keyapp.invalid/openapi.json";

// ---------------------------------------------------------------------------
// The contract: the OpenAPI document and the checks of a response against it.

/// RFC 6901 escaping of one pointer token.
fn token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

struct Contract {
    doc: Value,
    registry: Registry<'static>,
    /// (method, path template, status) of every response checked.
    seen: Mutex<BTreeSet<(String, String, u16)>>,
}

impl Contract {
    fn new(doc: Value) -> Contract {
        let registry = Registry::new()
            .add(DOC_URI, doc.clone())
            .and_then(|b| b.prepare())
            .expect("the document registers as a schema resource");
        Contract { doc, registry, seen: Mutex::new(BTreeSet::new()) }
    }

    fn load() -> Contract {
        Contract::new(serde_json::from_str(DOC).expect("docs/openapi.json is JSON"))
    }

    /// The validator for the schema at `pointer` inside the document.
    fn validator(&self, pointer: &str) -> Validator {
        jsonschema::options()
            .with_draft(Draft::Draft202012)
            .should_validate_formats(true)
            .with_registry(&self.registry)
            // A URI fragment: the path templates' braces are percent-encoded (RFC 6901 §6).
            .build(&json!({ "$ref": format!("{DOC_URI}#{}", pointer.replace('{', "%7B").replace('}', "%7D")) }))
            .unwrap_or_else(|e| panic!("the schema at {pointer} compiles: {e}"))
    }

    fn validate(&self, pointer: &str, instance: &Value) -> Result<(), String> {
        let v = self.validator(pointer);
        let errors: Vec<String> =
            v.iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path())).take(5).collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(format!("against {pointer}: {}", errors.join("; ")))
        }
    }

    /// Follows a `$ref` to `#/components/…`: the object and its pointer.
    fn deref<'a>(&'a self, value: &'a Value, pointer: String) -> (&'a Value, String) {
        match value.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let p = r.strip_prefix('#').unwrap_or_else(|| panic!("a local $ref: {r}"));
                (self.doc.pointer(p).unwrap_or_else(|| panic!("{r} exists")), p.to_owned())
            }
            None => (value, pointer),
        }
    }

    /// The path template of the document that `path` (without query) is an
    /// instance of: `{param}` is one segment, and a last `{param}` may take the
    /// rest of the path (the status API's `claim_id` holds a `/`).
    fn template(&self, path: &str) -> Option<String> {
        let segs: Vec<&str> = path.split('/').collect();
        let matches = |t: &str, rest: bool| {
            let ts: Vec<&str> = t.split('/').collect();
            let fits = |(a, b): (&&str, &&str)| a == b || (a.starts_with('{') && !b.is_empty());
            if ts.len() == segs.len() {
                ts.iter().zip(&segs).all(fits)
            } else {
                rest && ts.len() < segs.len()
                    && ts.last().is_some_and(|l| l.starts_with('{'))
                    && ts.iter().zip(&segs).all(fits)
            }
        };
        let paths = self.doc["paths"].as_object()?;
        let rest = || paths.keys().filter(|t| matches(t, true)).max_by_key(|t| t.split('/').count());
        paths.keys().find(|t| matches(t, false)).or_else(rest).cloned()
    }

    fn operation(&self, method: &str, template: &str) -> Result<(&Value, String), String> {
        let m = method.to_ascii_lowercase();
        let op =
            self.doc["paths"][template].get(&m).ok_or_else(|| format!("{method} {template} is not in the document"))?;
        Ok((op, format!("/paths/{}/{m}", token(template))))
    }

    /// Checks a request body against the declared request schema.
    fn check_request(&self, method: &str, path: &str, body: &Value) -> Result<(), String> {
        let template = self.template(path).ok_or_else(|| format!("no path of the document matches {path}"))?;
        let (op, at) = self.operation(method, &template)?;
        if op.pointer("/requestBody/content/application~1json/schema").is_none() {
            return Err(format!("{method} {template} declares no JSON request body"));
        }
        self.validate(&format!("{at}/requestBody/content/application~1json/schema"), body)
    }

    /// Checks one real response against the document.
    fn check(&self, method: &str, path: &str, status: u16, headers: &HeaderMap, body: &[u8]) -> Result<(), String> {
        let path = path.split('?').next().unwrap_or_default();
        let template = self.template(path).ok_or_else(|| format!("no path of the document matches {path}"))?;
        let (op, at) = self.operation(method, &template)?;
        let declared = op["responses"]
            .get(status.to_string())
            .ok_or_else(|| format!("{method} {template} does not declare status {status}"))?;
        let (response, at) = self.deref(declared, format!("{at}/responses/{status}"));
        if let Some(hs) = response.get("headers").and_then(Value::as_object) {
            for (name, h) in hs {
                let (h, hat) = self.deref(h, format!("{at}/headers/{}", token(name)));
                match headers.get(name.as_str()) {
                    None if h["required"] == true => {
                        return Err(format!("{method} {template} {status}: header {name} missing"))
                    }
                    None => {}
                    Some(value) => {
                        let value = Value::String(value.to_str().map_err(|e| e.to_string())?.to_owned());
                        self.validate(&format!("{hat}/schema"), &value)
                            .map_err(|e| format!("{method} {template} {status}: header {name}: {e}"))?;
                    }
                }
            }
        }
        match response.pointer("/content/application~1json/schema") {
            Some(_) => {
                let ct = headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default();
                if !ct.starts_with("application/json") {
                    return Err(format!("{method} {template} {status}: content-type {ct:?}, not JSON"));
                }
                let json: Value = serde_json::from_slice(body)
                    .map_err(|e| format!("{method} {template} {status}: body is not JSON: {e}"))?;
                self.validate(&format!("{at}/content/application~1json/schema"), &json)
                    .map_err(|e| format!("{method} {template} {status}: {e}\nbody: {json}"))?;
            }
            None if !body.is_empty() => {
                return Err(format!("{method} {template} {status}: a body where the document declares none"))
            }
            None => {}
        }
        self.seen.lock().unwrap().insert((method.to_owned(), template, status));
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// The running service, and an agent that signs as §3.2 requires.

struct Env {
    _dir: tempfile::TempDir,
    /// Maple Street Auto: offers, receipts and mandates.
    host: TestHost,
    /// This person's calendar and a friend's, for a meeting contract.
    calendar: TestHost,
    friend: TestHost,
    app: Running,
    http: reqwest::Client,
    contract: Contract,
}

async fn start() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let host = TestHost::start(TestHostConfig::default()).await;
    let calendar = testkit::calendar::calendar("ellis-moreau", "Ellis's calendar", "ellis.example").await;
    let friend = testkit::calendar::calendar("priya-shah", "Priya's calendar", "priya.example").await;
    let mut config = trusting(dir.path(), &[&host, &calendar, &friend]);
    config.name = Some("Ellis Moreau".into());
    config.status_api.public_base = "https://keyapp.example".into();
    config.keystore.backend = KeystoreBackend::File;
    let passphrase = PassphraseSource::Fixed(secrecy::SecretString::from("openapi test passphrase"));
    let app = app::start(config, passphrase).await.expect("the key app starts");
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    Env { _dir: dir, host, calendar, friend, app, http, contract: Contract::load() }
}

fn nonce() -> String {
    schcp::b64::encode(rand::random::<[u8; 16]>())
}

struct Agent {
    key: SigningKey,
}

impl Agent {
    fn new(seed: u8) -> Agent {
        Agent { key: SigningKey::from_bytes(&[seed; 32]) }
    }
    fn jkt(&self) -> String {
        Jwk::ed25519(&self.key.verifying_key()).thumbprint().unwrap()
    }
}

/// A response as received.
struct Answer {
    status: u16,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
    fn reason(&self) -> Value {
        self.json()["error"]["reason"].clone()
    }
}

impl Env {
    fn agent_url(&self, path: &str) -> String {
        format!("http://{}{path}", self.app.agent_addr)
    }

    fn status_url(&self, path: &str) -> String {
        format!("http://{}{path}", self.app.status_addr)
    }

    /// A request signed as §3.2 requires (`created` now), JSON-typed with a
    /// body; the body is first checked against the document's request schema.
    fn signed(&self, agent: &Agent, method: Method, path: &str, body: Option<&Value>) -> RequestBuilder {
        if let Some(b) = body {
            self.contract.check_request(method.as_str(), path, b).unwrap_or_else(|e| panic!("request sent: {e}"));
        }
        let bytes = body.map(|b| serde_json::to_vec(b).unwrap()).unwrap_or_default();
        self.raw(agent, method, path, bytes, now(), |_| {})
    }

    /// A signed request over exactly `bytes`, created at `created`, its headers
    /// passed through `edit` before they are set (to break them).
    fn raw(
        &self,
        agent: &Agent,
        method: Method,
        path: &str,
        bytes: Vec<u8>,
        created: i64,
        edit: impl FnOnce(&mut Vec<(String, String)>),
    ) -> RequestBuilder {
        let url = self.agent_url(path);
        let mut headers = sign_request(method.as_str(), &url, &bytes, None, &agent.key, created, &nonce());
        edit(&mut headers);
        let mut rb = self.http.request(method, url);
        for (k, v) in headers {
            rb = rb.header(k, v);
        }
        if !bytes.is_empty() {
            rb = rb.header("content-type", "application/json").body(bytes);
        }
        rb
    }

    /// Sends, checks the answer against the document, and checks its status.
    async fn expect(&self, method: &str, path: &str, rb: RequestBuilder, status: u16) -> Answer {
        let resp = rb.send().await.expect("the key app answers");
        let answer = Answer {
            status: resp.status().as_u16(),
            headers: resp.headers().clone(),
            body: resp.bytes().await.unwrap().to_vec(),
        };
        self.contract
            .check(method, path, answer.status, &answer.headers, &answer.body)
            .unwrap_or_else(|e| panic!("drift from docs/openapi.json: {e}"));
        assert_eq!(answer.status, status, "{method} {path}: {}", String::from_utf8_lossy(&answer.body));
        answer
    }

    /// A signed agent API call, checked.
    async fn call(&self, agent: &Agent, method: Method, path: &str, body: Option<&Value>, status: u16) -> Answer {
        let m = method.as_str().to_owned();
        self.expect(&m, path, self.signed(agent, method, path, body), status).await
    }

    /// A status API call, checked.
    async fn status(&self, method: Method, path: &str, body: Option<&Value>, status: u16) -> Answer {
        let m = method.as_str().to_owned();
        let mut rb = self.http.request(method, self.status_url(path));
        if let Some(b) = body {
            self.contract.check_request(&m, path, b).unwrap_or_else(|e| panic!("request sent: {e}"));
            rb = rb.json(b);
        }
        self.expect(&m, path, rb, status).await
    }

    async fn approve(&self, id: &str) {
        self.app.service.approve(id, keyapp::service::Origin::ThisProcess).await.expect("the person approves");
    }

    async fn decline(&self, id: &str) {
        self.app.service.decline(id).await.expect("the person declines");
    }

    async fn paired(&self, seed: u8) -> Agent {
        let a = Agent::new(seed);
        let p = self.call(&a, Method::POST, "/v1/pairings", Some(&json!({"agent_name": "Helper"})), 202).await;
        self.approve(p.json()["pairing_id"].as_str().unwrap()).await;
        a
    }

    /// A priced offer for a slot `days_ahead` days from now.
    fn offer(&self, days_ahead: i64) -> String {
        let mut c = self.host.priced_offer(now());
        let start = chrono::Utc::now() + chrono::Duration::days(days_ahead);
        c.slot.start = start.format("%Y-%m-%dT13:00:00-04:00").to_string();
        c.slot.end = Some(start.format("%Y-%m-%dT13:45:00-04:00").to_string());
        self.host.sign_offer(&c).unwrap()
    }

    fn closed(&self, offer: &str, key: &str) -> Value {
        json!({"kind": "closed_mandate", "idempotency_key": key, "offer": offer,
               "discovery": self.host.discovery_url()})
    }

    /// Creates a request, has the person approve it, and returns the approved view.
    async fn approved(&self, agent: &Agent, body: &Value) -> Value {
        let r = self.call(agent, Method::POST, "/v1/requests", Some(body), 202).await.json();
        assert_eq!(r["status"], "pending", "{r}");
        let id = r["request_id"].as_str().unwrap().to_owned();
        self.approve(&id).await;
        let done = self.call(agent, Method::GET, &format!("/v1/requests/{id}?wait=5"), None, 200).await.json();
        assert_eq!(done["status"], "approved", "{done}");
        done
    }
}

/// A §5.12 contract organized by `organizer`, naming `me` as a member.
fn contract_for(me: &str, organizer: &SigningKey) -> String {
    signed_contract(playdate_claims(organizer, me, &[], now(), now() + 3600), now(), organizer).compact
}

// ---------------------------------------------------------------------------
// The tests.

#[tokio::test]
async fn every_route_answers_as_the_document_says() {
    let env = start().await;

    // ---- Finding the API: agent-api.json in the runtime directory.
    let found: Value =
        serde_json::from_slice(&std::fs::read(env.app.runtime_dir.join("agent-api.json")).unwrap()).unwrap();
    assert_eq!(found, json!({"url": env.agent_url(""), "schcp": "0.4"}));

    // ---- Pairing, and what an unpaired key may not do.
    let a = Agent::new(1);
    // A path the API does not have is gated like any other (docs/agent-api.md §2).
    let r = env.signed(&a, Method::GET, "/v1/nothing", None).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 403);
    assert_eq!(env.call(&a, Method::GET, "/v1/principal", None, 403).await.reason(), "agent_not_paired");
    assert_eq!(env.call(&a, Method::GET, "/v1/mandates", None, 403).await.reason(), "agent_not_paired");
    let name = json!({"agent_name": "Calendar Assistant"});
    let p = env.call(&a, Method::POST, "/v1/pairings", Some(&name), 202).await.json();
    assert_eq!(p["fingerprint"], keyapp::service::fingerprint(&a.jkt()));
    let pid = p["pairing_id"].as_str().unwrap().to_owned();
    let r = env.call(&a, Method::GET, &format!("/v1/pairings/{pid}"), None, 200).await;
    assert_eq!(r.json()["status"], "pending");
    let r = env.call(&a, Method::GET, &format!("/v1/pairings/{pid}?wait=soon"), None, 400).await;
    assert_eq!(r.reason(), "bad_wait");
    assert_eq!(env.call(&a, Method::GET, "/v1/pairings/pr_unknown", None, 404).await.reason(), "not_found");
    let blank = json!({"agent_name": " "});
    assert_eq!(env.call(&a, Method::POST, "/v1/pairings", Some(&blank), 400).await.reason(), "bad_agent_name");
    let hidden = json!({"agent_name": "Calendar \u{202E}tnatsissA"});
    assert_eq!(env.call(&a, Method::POST, "/v1/pairings", Some(&hidden), 422).await.reason(), "text_not_inert");
    // A member the body does not have (outside the request schema, so sent raw).
    let extra = serde_json::to_vec(&json!({"agent_name": "X", "colour": "red"})).unwrap();
    let rb = env.raw(&a, Method::POST, "/v1/pairings", extra, now(), |_| {});
    assert_eq!(env.expect("POST", "/v1/pairings", rb, 400).await.reason(), "malformed");
    env.approve(&pid).await;
    let r = env.call(&a, Method::GET, &format!("/v1/pairings/{pid}?wait=5"), None, 200).await;
    assert_eq!(r.json()["status"], "approved");
    assert_eq!(env.call(&a, Method::POST, "/v1/pairings", Some(&name), 202).await.json()["status"], "approved");
    let me = env.call(&a, Method::GET, "/v1/principal", None, 200).await.json();
    assert_eq!(me["name"], "Ellis Moreau");
    let me = me["principal"].as_str().unwrap().to_owned();
    // Outside the document: an unknown path (paired) is 404, a method a path
    // does not take 405, both without a body (docs/agent-api.md §2).
    let r = env.signed(&a, Method::GET, "/v1/nothing", None).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 404);
    assert!(r.bytes().await.unwrap().is_empty());
    let r = env.signed(&a, Method::PUT, "/v1/principal", None).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 405);
    assert!(r.bytes().await.unwrap().is_empty());

    // ---- The guard (loopback rules and §3.2), on a route the agent may call.
    let p = "/v1/principal";
    let rb = env.raw(&a, Method::GET, p, Vec::new(), now(), |h| {
        let sig = h.iter_mut().find(|(k, _)| k == "Signature").unwrap();
        // One base64 character changed: same shape, another signature.
        let i = "schcp=:".len();
        let c = if &sig.1[i..i + 1] == "A" { "B" } else { "A" };
        sig.1.replace_range(i..i + 1, c);
    });
    assert_eq!(env.expect("GET", p, rb, 401).await.reason(), "bad_signature");
    let rb = env.raw(&a, Method::GET, p, Vec::new(), now(), |h| h.retain(|(k, _)| k != "SchCP-Agent-Key"));
    assert_eq!(env.expect("GET", p, rb, 401).await.reason(), "bad_signature");
    let rb = env.raw(&a, Method::GET, p, Vec::new(), now() - 400, |_| {});
    assert_eq!(env.expect("GET", p, rb, 401).await.reason(), "stale_signature");
    let once = env.signed(&a, Method::GET, p, None);
    let twice = once.try_clone().unwrap();
    env.expect("GET", p, once, 200).await;
    assert_eq!(env.expect("GET", p, twice, 401).await.reason(), "replayed_nonce");
    let rb = env.signed(&a, Method::GET, p, None).header("origin", "https://evil.example");
    assert_eq!(env.expect("GET", p, rb, 403).await.reason(), "browser_origin");
    let rb = env.signed(&a, Method::GET, p, None).header("host", format!("evil.example:{}", env.app.agent_addr.port()));
    assert_eq!(env.expect("GET", p, rb, 421).await.reason(), "bad_host");
    let body = serde_json::to_vec(&json!({"agent_name": "X"})).unwrap();
    let rb = env.raw(&a, Method::POST, "/v1/pairings", body, now(), |_| {}).header("content-type", "text/plain");
    assert_eq!(env.expect("POST", "/v1/pairings", rb, 415).await.reason(), "unsupported_media_type");
    let huge = serde_json::to_vec(&json!({"agent_name": "x".repeat(300 * 1024)})).unwrap();
    let rb = env.raw(&a, Method::POST, "/v1/requests", huge, now(), |_| {});
    assert_eq!(env.expect("POST", "/v1/requests", rb, 413).await.reason(), "body_too_large");

    // ---- closed_mandate: created, replayed, conflicting, polled, approved.
    let offer = env.offer(5);
    let r = env.call(&a, Method::POST, "/v1/requests", Some(&env.closed(&offer, "c1")), 202).await.json();
    assert_eq!((r["kind"].as_str(), r["status"].as_str()), (Some("closed_mandate"), Some("pending")));
    let rid = r["request_id"].as_str().unwrap().to_owned();
    let same = env.call(&a, Method::POST, "/v1/requests", Some(&env.closed(&offer, "c1")), 202).await.json();
    assert_eq!(same["request_id"], rid.as_str());
    let other = env.offer(6);
    let r = env.call(&a, Method::POST, "/v1/requests", Some(&env.closed(&other, "c1")), 409).await;
    assert_eq!(r.json()["error"]["code"], "IDEMPOTENCY_CONFLICT");
    assert_eq!(env.call(&a, Method::GET, &format!("/v1/requests/{rid}"), None, 200).await.json()["status"], "pending");
    env.approve(&rid).await;
    let done = env.call(&a, Method::GET, &format!("/v1/requests/{rid}?wait=5"), None, 200).await.json();
    assert_eq!(done["result"]["offer_sha256"], schcp::hash::jws_sha256(&offer));
    let r = env.call(&a, Method::DELETE, &format!("/v1/requests/{rid}"), None, 409).await;
    assert_eq!(r.reason(), "not_pending");
    assert_eq!(env.call(&a, Method::GET, "/v1/requests/rq_unknown", None, 404).await.reason(), "not_found");

    // ---- Refused before the person is asked.
    let mut parts: Vec<String> = offer.split('.').map(str::to_owned).collect();
    parts[2] = schcp::b64::encode([7u8; 64]);
    let forged = parts.join(".");
    let r = env.call(&a, Method::POST, "/v1/requests", Some(&env.closed(&forged, "c2")), 422).await;
    assert_eq!((r.json()["error"]["code"].as_str(), r.reason()), (Some("VERIFICATION_FAILED"), json!("bad_signature")));
    let unknown = serde_json::to_vec(&json!({"kind": "anything", "idempotency_key": "c3"})).unwrap();
    let rb = env.raw(&a, Method::POST, "/v1/requests", unknown, now(), |_| {});
    assert_eq!(env.expect("POST", "/v1/requests", rb, 400).await.reason(), "unknown_kind");
    let plain_http = json!({"kind": "mandate", "idempotency_key": "c4",
                          "hosts": [{"id": "maple-street-auto", "discovery": "http://maplestreetauto.example/"}],
                          "scope": ["book"]});
    let rb = env.raw(&a, Method::POST, "/v1/requests", serde_json::to_vec(&plain_http).unwrap(), now(), |_| {});
    assert_eq!(env.expect("POST", "/v1/requests", rb, 422).await.reason(), "discovery_url_refused");

    // ---- mandate (JWS), with a shared limit the status API counts.
    let root = json!({
        "kind": "mandate", "idempotency_key": "root",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book", "cancel", "reschedule"],
        "constraints": {"services": ["oil-change"], "max_price": {"amount": "100.00", "currency": "CAD"},
                        "max_bookings": 2, "shared_limit": true},
        "lifetime": "P7D", "consent_mode": "human_not_present"
    });
    let done = env.approved(&a, &root).await;
    let jti = done["result"]["jti"].as_str().unwrap().to_owned();
    assert_eq!(done["result"]["status"], format!("https://keyapp.example/status/{jti}"));

    // ---- mandate (dc+sd-jwt), each host's own constraints disclosed to it alone.
    let sd = json!({
        "kind": "mandate", "idempotency_key": "sd", "format": "dc+sd-jwt",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book"], "constraints": {"max_bookings": 1},
        "host_constraints": {"maple-street-auto": {"services": ["oil-change"]}}
    });
    let done = env.approved(&a, &sd).await;
    assert!(done["result"]["presentations"]["maple-street-auto"].as_str().unwrap().ends_with('~'));
    let sd_jti = done["result"]["jti"].as_str().unwrap().to_owned();

    // ---- management_mandate: under the agent's own root mandate, no prompt.
    let receipt = env.host.receipt(&env.offer(7), &jti, Approved::Limits, now()).unwrap();
    let body = json!({"kind": "management_mandate", "idempotency_key": "mgmt", "receipt": receipt,
                      "discovery": env.host.discovery_url()});
    let m = env.call(&a, Method::POST, "/v1/requests", Some(&body), 202).await.json();
    assert_eq!(m["status"], "approved", "{m}");
    assert!(m["result"]["booking_id"].is_string());

    // ---- rule.
    let rule = json!({"kind": "rule", "idempotency_key": "rule", "agent_jkt": a.jkt(), "label": "Weekend playdates",
                      "services": ["playdate"], "weekdays": ["sat", "sun"], "tz": "America/Toronto",
                      "lifetime": "P30D"});
    let done = env.approved(&a, &rule).await;
    assert!(done["result"]["jti"].as_str().unwrap().starts_with("r-"));

    // ---- acceptance of another person's meeting contract.
    let noor = SigningKey::from_bytes(&[0x81; 32]);
    let body = json!({"kind": "acceptance", "idempotency_key": "acc", "contract": contract_for(&me, &noor)});
    let done = env.approved(&a, &body).await;
    assert!(done["result"]["acceptance"].is_string());

    // ---- meeting_contract over the members' verified offers.
    let priya = principal_of(&SigningKey::from_bytes(&[0x82; 32]));
    let start = (chrono::Utc::now() + chrono::Duration::days(3)).format("%Y-%m-%dT17:00:00Z").to_string();
    let body = json!({
        "kind": "meeting_contract", "idempotency_key": "meet",
        "meeting": {"title": "Coffee", "tz": "America/Toronto", "start": start, "open_end": true,
                    "place": {"name": "Café Lumière", "locality": "Toronto"}, "exp": now() + 3600},
        "members": [
            {"name": "Ellis Moreau", "host": "ellis-moreau", "discovery": env.calendar.discovery_url(),
             "offer": meeting_offer(&env.calendar, Some(&me), &start)},
            {"name": "Priya Shah", "host": "priya-shah", "discovery": env.friend.discovery_url(),
             "offer": meeting_offer(&env.friend, Some(&priya), &start), "answers": "person"}
        ]
    });
    let done = env.approved(&a, &body).await;
    assert_eq!(done["result"]["revision"], 1);

    // ---- invitation (§5.10): a tentative booking that names this person as an invitee.
    let confirm_by = (chrono::Utc::now() + chrono::Duration::days(2)).format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let invitee = schcp::claims::Participant {
        who: Some(me.clone()),
        name: None,
        role: schcp::claims::ParticipantRole::Invitee,
        relationship: None,
        confirm_within: None,
        confirm_by: Some(confirm_by),
        default: None,
        status: Some(schcp::claims::ParticipantStatus::Pending),
    };
    let booking = env.host.tentative_booking(&env.offer(5), "m-booker", vec![invitee], now()).unwrap();
    let body = json!({"kind": "invitation", "idempotency_key": "inv", "booking": booking,
                      "discovery": env.host.discovery_url()});
    let done = env.approved(&a, &body).await;
    assert_eq!(done["result"]["booking_id"], booking.booking.booking_id.as_str());

    // ---- The agent's mandates (rules are not listed).
    let listed = env.call(&a, Method::GET, "/v1/mandates", None, 200).await.json();
    let kinds: BTreeSet<&str> = listed.as_array().unwrap().iter().map(|m| m["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, BTreeSet::from(["mandate", "closed_mandate", "management_mandate", "invitation"]));

    // ---- Pending cap, withdrawal, cooldown: a second agent.
    let b = env.paired(2).await;
    let offer = env.offer(4);
    let mut ids = Vec::new();
    for i in 0..5 {
        let r = env.call(&b, Method::POST, "/v1/requests", Some(&env.closed(&offer, &format!("p{i}"))), 202).await;
        ids.push(r.json()["request_id"].as_str().unwrap().to_owned());
    }
    let r = env.call(&b, Method::POST, "/v1/requests", Some(&env.closed(&offer, "p5")), 429).await;
    assert_eq!(r.reason(), "too_many_pending");
    assert!(r.headers.get("retry-after").is_none());
    // Another agent's request is not found; its own is withdrawn.
    assert_eq!(
        env.call(&a, Method::DELETE, &format!("/v1/requests/{}", ids[0]), None, 404).await.reason(),
        "not_found"
    );
    let w = env.call(&b, Method::DELETE, &format!("/v1/requests/{}", ids[0]), None, 200).await.json();
    assert_eq!(w["status"], "withdrawn");
    env.decline(&ids[1]).await;
    env.decline(&ids[2]).await;
    let r = env.call(&b, Method::POST, "/v1/requests", Some(&env.closed(&offer, "p6")), 429).await;
    assert_eq!(r.reason(), "cooldown");
    let after: u64 = r.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=300).contains(&after), "{after}");
    // §2.1: the body's length is canonical (`PT4M10S`, never `PT250S`).
    assert_eq!(r.json()["error"]["retry"]["after"], schcp::duration::Duration::from_seconds(after).to_canonical());

    // ---- Unpaired by the person: the pairing says so, and only pairing is open.
    let again = env.call(&b, Method::POST, "/v1/pairings", Some(&name), 202).await.json();
    env.app.service.pairings().unpair(&b.jkt()).await.unwrap();
    let path = format!("/v1/pairings/{}", again["pairing_id"].as_str().unwrap());
    assert_eq!(env.call(&b, Method::GET, &path, None, 200).await.json()["status"], "unpaired");
    assert_eq!(env.call(&b, Method::GET, "/v1/mandates", None, 403).await.reason(), "agent_not_paired");
    // Its pending requests were withdrawn with it.
    let r = env.app.service.requests().request(&ids[3]).await.unwrap();
    assert_eq!(r.status, keyapp::service::RequestStatus::Withdrawn);

    // ---- The status API (§3.3).
    let s = format!("/status/{jti}");
    let st = env.status(Method::GET, &s, None, 200).await;
    assert_eq!(st.json(), json!({"jti": jti, "status": "active", "remaining": 2}));
    assert_eq!(env.status(Method::GET, &format!("/status/{sd_jti}"), None, 200).await.json()["status"], "active");
    assert_eq!(env.status(Method::GET, "/status/m-unknown", None, 404).await.reason(), "unknown_mandate");
    let claims = format!("{s}/claims");
    let claim = |hold: &str| json!({"claim_id": format!("maple-street-auto/{hold}")});
    assert_eq!(env.status(Method::POST, &claims, Some(&claim("h_1")), 201).await.json()["remaining"], 1);
    assert_eq!(env.status(Method::POST, &claims, Some(&claim("h_1")), 200).await.json()["remaining"], 1);
    assert_eq!(env.status(Method::POST, &claims, Some(&claim("h_2")), 201).await.json()["remaining"], 0);
    let r = env.status(Method::POST, &claims, Some(&claim("h_3")), 409).await;
    assert_eq!(r.reason(), "shared_limit_reached");
    env.status(Method::DELETE, &format!("{claims}/maple-street-auto/h_2"), None, 204).await;
    env.status(Method::DELETE, &format!("{claims}/maple-street-auto/never"), None, 204).await;
    let r = env.status(Method::POST, &claims, Some(&json!({"claim_id": "oak-lane-garage/h_9"})), 400).await;
    assert_eq!(r.reason(), "host_not_in_audience");
    let r = env.status(Method::POST, &format!("/status/{sd_jti}/claims"), Some(&claim("h_1")), 400).await;
    assert_eq!(r.reason(), "no_shared_limit");
    let r = env.status(Method::POST, "/status/m-unknown/claims", Some(&claim("h_1")), 404).await;
    assert_eq!(r.reason(), "unknown_mandate");
    let rb = env.http.post(env.status_url(&claims)).json(&json!({"claim_id": "maple-street-auto/h_4", "n": 1}));
    assert_eq!(env.expect("POST", &claims, rb, 400).await.reason(), "unknown_member");
    let rb = env.http.post(env.status_url(&claims)).body(r#"{"claim_id":"maple-street-auto/h_4"}"#);
    assert_eq!(env.expect("POST", &claims, rb, 400).await.reason(), "bad_content_type");
    let rb = env.http.post(env.status_url(&claims)).json(&json!({"claim_id": "x".repeat(5000)}));
    assert_eq!(env.expect("POST", &claims, rb, 413).await.reason(), "body_too_large");
    env.app.service.records().revoke(&jti).await.unwrap();
    let r = env.status(Method::POST, &claims, Some(&claim("h_5")), 403).await;
    assert_eq!(r.reason(), "mandate_revoked");
    assert_eq!(env.status(Method::GET, &s, None, 200).await.json()["status"], "revoked");
    // The per-client rate limit (bursts of 60).
    let mut limited = None;
    for _ in 0..200 {
        let resp = env.http.get(env.status_url(&s)).send().await.unwrap();
        if resp.status().as_u16() == 429 {
            let headers = resp.headers().clone();
            let body = resp.bytes().await.unwrap();
            env.contract.check("GET", &s, 429, &headers, &body).unwrap_or_else(|e| panic!("drift: {e}"));
            limited = Some(headers);
            break;
        }
    }
    assert!(limited.expect("the limit answers 429 within 200 calls").contains_key("retry-after"));

    // ---- Every operation of the document was called, and the main refusals seen.
    let seen = env.contract.seen.lock().unwrap().clone();
    for (template, item) in env.contract.doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys().filter(|k| *k != "servers") {
            let m = method.to_ascii_uppercase();
            assert!(seen.iter().any(|(sm, st, _)| *sm == m && st == template), "{m} {template} never called");
        }
    }
    let statuses: BTreeSet<u16> = seen.iter().map(|(_, _, s)| *s).collect();
    for s in [200, 201, 202, 204, 400, 401, 403, 404, 409, 413, 415, 421, 422, 429] {
        assert!(statuses.contains(&s), "no response with status {s} was checked");
    }
}

/// The checks above can fail: a document that drifts from the service (an
/// undeclared status, a field the body does not have, a missing header) is
/// caught, each with its own message.
#[test]
fn a_drifting_document_is_caught() {
    let contract = Contract::load();
    let mut headers = HeaderMap::new();
    headers.insert("content-type", "application/json".parse().unwrap());
    headers.insert("cache-control", "no-store".parse().unwrap());
    let status = br#"{"jti":"m-1","status":"active","remaining":2}"#;
    contract.check("GET", "/status/m-1", 200, &headers, status).expect("the real shape passes");

    // A status the document does not declare.
    let err = contract.check("GET", "/status/m-1", 418, &headers, status).unwrap_err();
    assert!(err.contains("does not declare status 418"), "{err}");
    // A member the closed schema does not have, and a wrong enum value.
    let err = contract.check("GET", "/status/m-1", 200, &headers, br#"{"jti":"m-1","status":"active","x":1}"#);
    assert!(err.is_err());
    let err = contract.check("GET", "/status/m-1", 200, &headers, br#"{"jti":"m-1","status":"paused"}"#);
    assert!(err.is_err());
    // A required header missing.
    let mut no_cache = headers.clone();
    no_cache.remove("cache-control");
    let err = contract.check("GET", "/status/m-1", 200, &no_cache, status).unwrap_err();
    assert!(err.contains("Cache-Control missing"), "{err}");
    // A route the document does not have.
    assert!(contract.check("PUT", "/status/m-1", 200, &headers, status).is_err());

    // The same response against a document whose schema was changed.
    let mut doc = contract.doc.clone();
    doc["components"]["schemas"]["MandateStatus"]["required"] = json!(["jti", "status", "since"]);
    let drifted = Contract::new(doc);
    let err = drifted.check("GET", "/status/m-1", 200, &headers, status).unwrap_err();
    assert!(err.contains("since"), "{err}");
}

/// The document is an OpenAPI 3.1 document whose every schema is a valid
/// 2020-12 schema that compiles with its `$ref`s resolved.
#[test]
fn the_document_is_well_formed() {
    let contract = Contract::load();
    assert_eq!(contract.doc["openapi"], "3.1.0");
    let mut pointers = Vec::new();
    fn walk(v: &Value, at: String, out: &mut Vec<String>) {
        if let Value::Object(m) = v {
            for (k, child) in m {
                let here = format!("{at}/{}", token(k));
                if k == "schema" {
                    out.push(here.clone());
                }
                walk(child, here, out);
            }
        }
    }
    walk(&contract.doc["paths"], "/paths".into(), &mut pointers);
    walk(&contract.doc["components"], "/components".into(), &mut pointers);
    for name in contract.doc["components"]["schemas"].as_object().unwrap().keys() {
        pointers.push(format!("/components/schemas/{name}"));
    }
    assert!(pointers.len() > 50, "{}", pointers.len());
    for p in &pointers {
        let schema = contract.doc.pointer(p).unwrap();
        if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
            panic!("{p} is not a 2020-12 schema: {e}");
        }
        let _ = contract.validator(p);
    }
}

/// The signing walk-through of docs/agent-api.md §3 is computed, not typed:
/// every value it shows is the one `sign_request` produces for its inputs.
#[test]
fn the_signing_example_in_the_guide_is_real() {
    let guide = include_str!("../../../docs/agent-api.md");
    let key = SigningKey::from_bytes(&[7u8; 32]);
    let body = br#"{"agent_name":"Calendar Assistant"}"#;
    let url = "http://127.0.0.1:7411/v1/pairings";
    let nonce = schcp::b64::encode([0x2au8; 16]);
    let headers = sign_request("POST", url, body, None, &key, 1_796_000_000, &nonce);
    let keyid = Jwk::ed25519(&key.verifying_key()).thumbprint().unwrap();
    let jwk = serde_json::to_string(&Jwk::ed25519(&key.verifying_key())).unwrap();
    let params = schcp::httpsig::SigParams { created: 1_796_000_000, keyid: keyid.clone(), nonce: nonce.clone() };
    let digest = schcp::httpsig::content_digest(body);
    let base = schcp::httpsig::signature_base("POST", url, Some(&digest), None, &params);
    let mut shown = vec![jwk, keyid, nonce, base];
    shown.extend(headers.iter().map(|(k, v)| format!("{k}: {v}")));
    for value in &shown {
        assert!(
            guide.contains(value.as_str()),
            "docs/agent-api.md §3 must show, each verbatim:\n\n{}",
            shown.join("\n\n")
        );
    }
}
