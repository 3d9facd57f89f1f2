//! The key app's discovery client against a real HTTPS host (`schcp-testhost`: its
//! own throwaway CA, a certificate for maplestreetauto.example, pinned to a local
//! port with `resolve`). Nothing is mocked: TLS, HTTP, caching and verification run
//! as in production, with the test host's CA as the one extra root.

use std::collections::BTreeMap;
use std::time::Duration;

use keyapp::config;
use keyapp::discovery::{DiscoveryClient, DiscoveryError, MAX_DOCUMENT_BYTES};
use schcp::claims::Approved;
use schcp::jws::{JwsError, Typ};
use schcp::verify::ReceiptExpectations;
use serde_json::{json, Value};
use testhost::{DiscoveryResponse, TestHost, TestHostConfig};

struct Setup {
    host: TestHost,
    client: DiscoveryClient,
    url: String,
    _dir: tempfile::TempDir,
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The key app's `[discovery]` config for this host: its CA as an extra root and
/// its name pinned to its port.
fn config_for(host: &TestHost, dir: &tempfile::TempDir, trust_ca: bool) -> config::Discovery {
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, host.ca_pem()).unwrap();
    let (name, addr) = host.resolve();
    config::Discovery {
        extra_root_certs: if trust_ca { vec![ca] } else { Vec::new() },
        resolve: BTreeMap::from([(name, addr)]),
    }
}

async fn setup() -> Setup {
    let host = TestHost::start(TestHostConfig::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let client = DiscoveryClient::new(&config_for(&host, &dir, true)).unwrap();
    let url = host.discovery_url();
    Setup { host, client, url, _dir: dir }
}

fn reason(err: &DiscoveryError) -> &'static str {
    err.api_error().reason.as_str()
}

#[tokio::test]
async fn a_good_offer_verifies_against_the_fetched_keys() {
    let s = setup().await;
    assert_eq!(s.url, "https://maplestreetauto.example/.well-known/scheduling.json");
    let offer = s.host.offer(now());
    let (verified, host) = s.client.verify_offer(&s.url, &offer, now()).await.unwrap();
    assert_eq!(verified.claims.iss, "maple-street-auto");
    assert_eq!(verified.kid, "msa-2026-10");
    assert_eq!(verified.offer_sha256, schcp::hash::jws_sha256(&offer));
    assert_eq!(verified.total.unwrap().to_string(), "89.27 CAD");
    assert_eq!(host.host_id, "maple-street-auto");
    assert_eq!(host.name, "Maple Street Auto");
    assert_eq!(host.tz, "America/Toronto");
    assert_eq!(host.domain.as_deref(), Some("maplestreetauto.example"));
    assert_eq!(host.keys, s.host.keys());
    assert_eq!(host.url.as_str(), s.url);

    // The unpriced open-ended offer and a change offer verify too.
    let open = s.host.sign_offer(&s.host.open_ended_offer(now())).unwrap();
    let (v, _) = s.client.verify_offer(&s.url, &open, now()).await.unwrap();
    assert!(v.is_open_ended() && v.total.is_none());
    let change = s.host.sign_offer(&s.host.change_offer("b_000042", &verified.offer_sha256, now())).unwrap();
    let (v, _) = s.client.verify_offer(&s.url, &change, now()).await.unwrap();
    assert_eq!(v.claims.booking_id.as_deref(), Some("b_000042"));
    // One fetch for all three: the document was cached.
    assert_eq!(s.host.discovery_requests(), 1);
}

#[tokio::test]
async fn a_receipt_verifies_and_must_match_what_was_agreed() {
    let s = setup().await;
    let offer = s.host.offer(now());
    let receipt = s.host.receipt(&offer, "mandate-jti-1", Approved::Offer, now()).unwrap();
    let hash = schcp::hash::jws_sha256(&offer);
    let expect = ReceiptExpectations {
        offer_sha256: Some(&hash),
        mandate: Some("mandate-jti-1"),
        retention: Some("P365D"),
        booking_id: None,
    };
    let (verified, host) = s.client.verify_receipt(&s.url, &receipt, expect).await.unwrap();
    assert_eq!(verified.claims.booking.offer_sha256.as_deref(), Some(hash.as_str()));
    assert_eq!(host.domain.as_deref(), Some("maplestreetauto.example"));

    let other = ReceiptExpectations { mandate: Some("another-jti"), ..expect };
    let err = s.client.verify_receipt(&s.url, &receipt, other).await.unwrap_err();
    assert_eq!(reason(&err), "receipt_mismatch");
}

#[tokio::test]
async fn an_http_url_is_refused_without_connecting() {
    let s = setup().await;
    let http = "http://maplestreetauto.example/.well-known/scheduling.json";
    let err = s.client.fetch(http).await.unwrap_err();
    assert!(matches!(err, DiscoveryError::Refused { .. }), "{err:?}");
    let err = s.client.verify_offer(http, &s.host.offer(now()), now()).await.unwrap_err();
    assert!(matches!(err, DiscoveryError::Refused { .. }), "{err:?}");
    let api = err.api_error();
    // §5.8's outbound policy: a refused URL is 422 with its own reason.
    assert_eq!(
        (api.status.as_u16(), api.code.as_str(), api.reason.as_str()),
        (422, "VERIFICATION_FAILED", "discovery_url_refused")
    );
    // Pinned to the host's port by `resolve`, so a connection would have shown here.
    assert_eq!(s.host.connections(), 0);
    assert_eq!(s.host.discovery_requests(), 0);
}

#[tokio::test]
async fn a_host_whose_ca_is_not_trusted_is_refused() {
    let s = setup().await;
    let dir = tempfile::tempdir().unwrap();
    let untrusting = DiscoveryClient::new(&config_for(&s.host, &dir, false)).unwrap();
    let err = untrusting.fetch(&s.url).await.unwrap_err();
    assert!(matches!(err, DiscoveryError::Fetch { .. }), "{err:?}");
    let text = err.to_string().to_lowercase();
    assert!(text.contains("certificate") || text.contains("issuer"), "{text}");
    assert_eq!(reason(&err), "discovery_failed");
    assert_eq!(err.api_error().status.as_u16(), 422);
    // The TLS handshake failed: no HTTP request was ever made.
    assert_eq!(s.host.connections(), 1);
    assert_eq!(s.host.discovery_requests(), 0);
}

#[tokio::test]
async fn a_root_cert_file_without_certificates_is_a_setup_error() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "not a certificate\n").unwrap();
    let cfg = config::Discovery { extra_root_certs: vec![empty], resolve: BTreeMap::new() };
    let err = DiscoveryClient::new(&cfg).unwrap_err();
    assert!(matches!(err, DiscoveryError::RootCerts { .. }), "{err:?}");
    let missing =
        config::Discovery { extra_root_certs: vec![dir.path().join("missing.pem")], resolve: BTreeMap::new() };
    assert!(matches!(DiscoveryClient::new(&missing), Err(DiscoveryError::RootCerts { .. })));
}

#[tokio::test]
async fn redirects_are_not_followed() {
    let s = setup().await;
    for (status, location) in [
        (302, s.host.moved_url()),
        (301, "https://evil.example/.well-known/scheduling.json".to_owned()),
        (308, s.host.moved_url()),
    ] {
        s.host.set_response(DiscoveryResponse::Redirect { status, location: location.clone() });
        let before = s.host.discovery_requests();
        let err = s.client.fetch(&s.url).await.unwrap_err();
        match &err {
            DiscoveryError::Redirect { status: st, location: l, .. } => {
                assert_eq!((*st, l.as_deref()), (status, Some(location.as_str())));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(reason(&err), "discovery_failed");
        // The redirect itself only: the same-origin target was not fetched.
        assert_eq!(s.host.discovery_requests(), before + 1);
    }
}

#[tokio::test]
async fn http_errors_are_refused() {
    let s = setup().await;
    for code in [404, 500, 204] {
        s.host.set_response(DiscoveryResponse::Status(code));
        let err = s.client.fetch(&s.url).await.unwrap_err();
        assert!(matches!(err, DiscoveryError::Status { status, .. } if status == code), "{err:?}");
        let api = err.api_error();
        assert_eq!(
            (api.status.as_u16(), api.code.as_str(), api.reason.as_str()),
            (422, "VERIFICATION_FAILED", "discovery_failed")
        );
        assert_eq!(api.details.unwrap()["status"], code);
    }
}

#[tokio::test]
async fn an_oversize_document_is_refused() {
    let s = setup().await;
    s.host.set_response(DiscoveryResponse::Oversize(MAX_DOCUMENT_BYTES + 1));
    let err = s.client.fetch(&s.url).await.unwrap_err();
    assert!(matches!(err, DiscoveryError::TooLarge { limit: MAX_DOCUMENT_BYTES, .. }), "{err:?}");
    assert_eq!(reason(&err), "discovery_failed");

    // Without Content-Length the limit is enforced while reading.
    s.host.set_response(DiscoveryResponse::OversizeChunked(4 * MAX_DOCUMENT_BYTES));
    let probe = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(s.host.ca_pem().as_bytes()).unwrap())
        .resolve(s.host.domain(), s.host.addr())
        .build()
        .unwrap();
    let r = probe.get(&s.url).send().await.unwrap();
    assert_eq!(r.content_length(), None, "the host must send this one without Content-Length");
    drop(r);
    let err = s.client.fetch(&s.url).await.unwrap_err();
    assert!(matches!(err, DiscoveryError::TooLarge { .. }), "{err:?}");

    // A document just under the limit is fine.
    s.host.set_response(DiscoveryResponse::Oversize(MAX_DOCUMENT_BYTES - 8 * 1024));
    s.client.fetch(&s.url).await.unwrap();
}

fn serve_body(host: &TestHost, body: impl Into<Vec<u8>>) {
    host.set_response(DiscoveryResponse::Body(body.into()));
}

#[tokio::test]
async fn malformed_documents_are_refused() {
    let s = setup().await;
    let doc = s.host.document();

    // §3.1: a duplicate member name.
    let text = serde_json::to_string(&doc).unwrap();
    let dup = text.replacen('{', r#"{"schcp":"0.4","#, 1);
    serve_body(&s.host, dup);
    let err = s.client.fetch(&s.url).await.unwrap_err();
    assert!(
        matches!(&err, DiscoveryError::Malformed { source: schcp::json::JsonError::DuplicateMember(m), .. } if m == "schcp"),
        "{err:?}"
    );
    assert_eq!(reason(&err), "discovery_invalid");

    // §3.1: the document says "schcp": "0.4".
    let mut old = doc.clone();
    old["schcp"] = json!("0.3");
    serve_body(&s.host, serde_json::to_vec(&old).unwrap());
    let err = s.client.fetch(&s.url).await.unwrap_err();
    assert!(matches!(&err, DiscoveryError::WrongVersion { found, .. } if found == "\"0.3\""), "{err:?}");
    assert_eq!(reason(&err), "discovery_invalid");

    // §2.1: kids are unique in the document.
    let mut twice = doc.clone();
    let mut other = s.host.rotate_key("msa-2026-11");
    other.kid = Some("msa-2026-10".into());
    twice["keys"].as_array_mut().unwrap().push(serde_json::to_value(other).unwrap());
    serve_body(&s.host, serde_json::to_vec(&twice).unwrap());
    let err = s.client.fetch(&s.url).await.unwrap_err();
    assert!(matches!(&err, DiscoveryError::DuplicateKid { kid, .. } if kid == "msa-2026-10"), "{err:?}");

    // Not JSON, not a discovery document, a key that is not Ed25519.
    serve_body(&s.host, "<html>hello</html>");
    assert!(matches!(s.client.fetch(&s.url).await, Err(DiscoveryError::Malformed { .. })));
    let mut no_keys = doc.clone();
    no_keys.as_object_mut().unwrap().remove("keys");
    serve_body(&s.host, serde_json::to_vec(&no_keys).unwrap());
    assert!(matches!(s.client.fetch(&s.url).await, Err(DiscoveryError::Schema { .. })));
    let mut private = doc.clone();
    private["keys"][0]["d"] = json!("nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A");
    serve_body(&s.host, serde_json::to_vec(&private).unwrap());
    assert!(matches!(s.client.fetch(&s.url).await, Err(DiscoveryError::Schema { .. })));

    // Members SchCP does not define are ignored: discovery is open (§2.1).
    let mut extra: Value = doc.clone();
    extra["x-extension"] = json!({"anything": true});
    serve_body(&s.host, serde_json::to_vec(&extra).unwrap());
    s.client.fetch(&s.url).await.unwrap();
}

#[tokio::test]
async fn cache_control_is_honoured() {
    let s = setup().await;

    // No Cache-Control: cached (60 s default).
    s.client.fetch(&s.url).await.unwrap();
    s.client.fetch(&s.url).await.unwrap();
    assert_eq!(s.host.discovery_requests(), 1);

    // max-age: cached within it, fetched again after it.
    s.client.clear_cache();
    s.host.set_cache_control(Some("public, max-age=1"));
    s.client.fetch(&s.url).await.unwrap();
    s.client.fetch(&s.url).await.unwrap();
    assert_eq!(s.host.discovery_requests(), 2);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    s.client.fetch(&s.url).await.unwrap();
    assert_eq!(s.host.discovery_requests(), 3);

    // no-store: every fetch goes to the host. (The copy cached a moment ago under
    // max-age=1 is still fresh, so the first fetch here is a refetch, and its
    // no-store drops that copy.)
    s.host.set_cache_control(Some("no-store"));
    s.client.refetch(&s.url).await.unwrap();
    s.client.fetch(&s.url).await.unwrap();
    s.client.fetch(&s.url).await.unwrap();
    assert_eq!(s.host.discovery_requests(), 6);

    // max-age=0 likewise.
    s.host.set_cache_control(Some("max-age=0"));
    s.client.fetch(&s.url).await.unwrap();
    s.client.fetch(&s.url).await.unwrap();
    assert_eq!(s.host.discovery_requests(), 8);

    // A failed fetch is not cached either.
    s.host.set_cache_control(None);
    s.host.set_response(DiscoveryResponse::Status(503));
    assert!(s.client.fetch(&s.url).await.is_err());
    s.host.reset();
    s.client.fetch(&s.url).await.unwrap();
    s.client.fetch(&s.url).await.unwrap();
    assert_eq!(s.host.discovery_requests(), 10);
}

#[tokio::test]
async fn a_rotated_key_is_picked_up_by_one_refetch() {
    let s = setup().await;
    s.host.set_cache_control(Some("max-age=600"));
    // The document with only msa-2026-10 is cached.
    s.client.verify_offer(&s.url, &s.host.offer(now()), now()).await.unwrap();
    assert_eq!(s.host.discovery_requests(), 1);

    s.host.rotate_key("msa-2026-11");
    s.host.retire_key("msa-2026-10").unwrap();
    let offer = s.host.offer(now());
    let (verified, host) = s.client.verify_offer(&s.url, &offer, now()).await.unwrap();
    assert_eq!(verified.kid, "msa-2026-11");
    assert_eq!(host.keys.len(), 1);
    assert_eq!(s.host.discovery_requests(), 2, "one refetch, bypassing the fresh cache");

    // The refetched document is the cached one now; receipts use it too.
    let receipt = s.host.receipt(&offer, "jti-1", Approved::Limits, now()).unwrap();
    s.client.verify_receipt(&s.url, &receipt, ReceiptExpectations::default()).await.unwrap();
    s.client.verify_offer(&s.url, &s.host.offer(now()), now()).await.unwrap();
    assert_eq!(s.host.discovery_requests(), 2);
}

#[tokio::test]
async fn a_kid_unknown_after_the_refetch_is_refused() {
    let s = setup().await;
    s.client.fetch(&s.url).await.unwrap();
    let claims = s.host.priced_offer(now());
    let offer = s.host.sign_with_kid(Typ::Offer, &claims, "msa-1999-01").unwrap();
    let err = s.client.verify_offer(&s.url, &offer, now()).await.unwrap_err();
    assert!(
        matches!(err.verification(), Some(schcp::Error::Jws(JwsError::UnknownKid(k))) if k == "msa-1999-01"),
        "{err:?}"
    );
    let api = err.api_error();
    assert_eq!(
        (api.status.as_u16(), api.code.as_str(), api.reason.as_str()),
        (422, "VERIFICATION_FAILED", "unknown_kid")
    );
    assert_eq!(s.host.discovery_requests(), 2, "the cached document, then exactly one refetch");

    // A receipt likewise.
    let receipt_claims = s.host.receipt_claims(&s.host.offer(now()), "jti-1", Approved::Offer, now()).unwrap();
    let receipt = s.host.sign_with_kid(Typ::Receipt, &receipt_claims, "msa-1999-01").unwrap();
    let err = s.client.verify_receipt(&s.url, &receipt, ReceiptExpectations::default()).await.unwrap_err();
    assert_eq!(reason(&err), "unknown_kid");
    assert_eq!(s.host.discovery_requests(), 3);

    // With nothing cached, the document fetched for the call is not fetched twice.
    s.client.clear_cache();
    let err = s.client.verify_offer(&s.url, &offer, now()).await.unwrap_err();
    assert_eq!(reason(&err), "unknown_kid");
    assert_eq!(s.host.discovery_requests(), 4);
}

#[tokio::test]
async fn the_verified_domain_is_the_one_fetched_never_the_offers() {
    let s = setup().await;
    let mut claims = s.host.priced_offer(now());
    claims.host.as_mut().unwrap().domain = Some("evil.example".into());
    let offer = s.host.sign_offer(&claims).unwrap();
    let (verified, host) = s.client.verify_offer(&s.url, &offer, now()).await.unwrap();
    // The offer says what it says; the key app shows what it discovered (§5.2).
    assert_eq!(verified.claims.host.unwrap().domain.as_deref(), Some("evil.example"));
    assert_eq!(host.domain.as_deref(), Some("maplestreetauto.example"));

    // The same document published at an operator's path: no verified domain at all.
    let (_, host) = s.client.verify_offer(&s.host.operator_url(), &offer, now()).await.unwrap();
    assert_eq!(host.domain, None);
}

#[tokio::test]
async fn offers_from_another_host_or_tampered_are_refused() {
    let s = setup().await;
    // Signed by this host's key but naming another issuer.
    let mut claims = s.host.priced_offer(now());
    claims.iss = "fades-on-queen".into();
    let offer = s.host.sign_offer(&claims).unwrap();
    let err = s.client.verify_offer(&s.url, &offer, now()).await.unwrap_err();
    assert_eq!(reason(&err), "wrong_issuer");

    // Another host's key under this host's kid.
    let other = TestHost::start(TestHostConfig::default()).await;
    let err = s.client.verify_offer(&s.url, &other.offer(now()), now()).await.unwrap_err();
    assert_eq!(reason(&err), "bad_signature");

    // An offer term SchCP does not define, even signed (§5.2 "Claims are closed").
    let mut raw = serde_json::to_value(s.host.priced_offer(now())).unwrap();
    raw["slot"]["cancellation_fee"] = json!({"amount": "50.00", "currency": "CAD"});
    let offer = s.host.sign(Typ::Offer, &raw).unwrap();
    let err = s.client.verify_offer(&s.url, &offer, now()).await.unwrap_err();
    assert_eq!(reason(&err), "schema_invalid");
    assert_eq!(err.api_error().status.as_u16(), 422);
}

/// An assistant can write the person's config. With its own CA among
/// `extra_root_certs` and a real business's name pinned to its own server, it
/// would serve its discovery document as that business, shown under the
/// business's domain as verified (SchCP §5.2). The config's roots prove
/// reserved names only, and a pin for a public name is refused.
#[tokio::test]
async fn the_configs_own_roots_and_pins_never_vouch_for_a_public_name() {
    let host = TestHost::start(TestHostConfig { domain: "maplestreetauto.com".into(), ..Default::default() }).await;
    let dir = tempfile::tempdir().unwrap();
    // Built from the fields, as the file cannot say it any more.
    let client = DiscoveryClient::new(&config_for(&host, &dir, true)).unwrap();
    let url = host.discovery_url();
    let err = client.verify_offer(&url, &host.offer(now()), now()).await.unwrap_err();
    assert!(matches!(err, DiscoveryError::Fetch { .. }), "{err:?}");
    let text = err.to_string().to_lowercase();
    assert!(text.contains("certificate") || text.contains("issuer"), "{text}");
    assert_eq!(host.discovery_requests(), 0, "the assistant's server was never read");

    // The same CA still proves a reserved name, as tests and private hosts need.
    let reserved = setup().await;
    assert!(reserved.client.fetch(&reserved.url).await.is_ok());

    // And the config file that would pin the public name is refused whole.
    let ca = dir.path().join("ca.pem");
    let file = format!(
        "[discovery]\nextra_root_certs = [{ca:?}]\nresolve = {{ \"maplestreetauto.com\" = \"{}\" }}\n",
        host.addr()
    );
    let e = config::Config::parse(&file, std::path::Path::new("config.toml")).unwrap_err();
    assert!(e.to_string().contains("\"maplestreetauto.com\", a public name"), "{e}");
    let trust = dir.path().join("trust.toml");
    std::fs::write(&trust, format!("resolve = {{ \"MapleStreetAuto.com.\" = \"{}\" }}\n", host.addr())).unwrap();
    let via_trust_file = format!("[discovery]\ntrust_files = [{trust:?}]\n");
    assert!(config::Config::parse(&via_trust_file, std::path::Path::new("config.toml")).is_err());
}
