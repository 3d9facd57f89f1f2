//! Attestations end to end (SchCP §7.5): the person adds the code their
//! verifier gave them, checked as a host that trusts the verifier would check
//! it; a mandate an agent asks for, for several hosts, carries it only to the
//! hosts that trust its attester (a compact one, read whole by each host,
//! only when every host does); and such a host honours it, through the
//! agent API and the example host (crates/testhost). Run under
//! scripts/with-keyring.

use agent::host::{AvailabilityQuery, Host, HostClient, HostTrust, TimeRange};
use agent::AgentClient;
use ed25519_dalek::SigningKey;
use keyapp::control::Command;
use reqwest::Method;
use schcp::claims::Attester;
use schcp::jwk::Jwk;
use schcp::jws::Typ;
use schcp::verify::{ChainContext, VerifiedChain};
use serde_json::{json, Value};
use testhost::{TestHost, TestHostConfig};
use testkit::calendar::start_trusting;
use testkit::env::*;
use testkit::now;

const ATTESTER: &str = "phonecheck.example";
const GARAGE: &str = "maple-street-auto";
const SALON: &str = "salon-lumiere";
const BARBER: &str = "barbier-du-coin";

fn attester_key() -> SigningKey {
    SigningKey::from_bytes(&[42; 32])
}

/// `trust.attesters` naming PhoneCheck with `key`.
fn phonecheck(key: &SigningKey) -> Vec<Attester> {
    vec![Attester {
        id: ATTESTER.into(),
        name: Some("PhoneCheck".into()),
        keys: vec![Jwk::ed25519(&key.verifying_key())],
    }]
}

/// An attestation by `iss`, signed with `key`, about `sub`, for a day from now.
fn attestation(key: &SigningKey, iss: &str, sub: &str) -> String {
    let claims = json!({"iss": iss, "sub": sub, "iat": now() - 60, "exp": now() + 86_400, "assurance": "unique_phone"});
    schcp::jws::sign(Typ::Attestation, Default::default(), &claims, key).unwrap()
}

/// The garage and the barber trust PhoneCheck; the salon trusts no attester.
async fn garage_salon_and_barber() -> (Env, TestHost, TestHost) {
    let garage =
        TestHost::start(TestHostConfig { attesters: phonecheck(&attester_key()), ..TestHostConfig::default() }).await;
    let salon = TestHost::start(TestHostConfig {
        host_id: SALON.into(),
        name: "Salon Lumière".into(),
        domain: "salonlumiere.example".into(),
        ..TestHostConfig::default()
    })
    .await;
    let barber = TestHost::start(TestHostConfig {
        host_id: BARBER.into(),
        name: "Barbier du Coin".into(),
        domain: "barbierducoin.example".into(),
        attesters: phonecheck(&attester_key()),
        ..TestHostConfig::default()
    })
    .await;
    let (env, mut others) = start_trusting(vec![garage, salon, barber], |_| {}).await;
    let barber = others.remove(1);
    (env, others.remove(0), barber)
}

/// The agent's own HTTPS client for both hosts (their CAs, their names pinned).
fn host_client(agent: &AgentClient, hosts: &[&TestHost], dir: &std::path::Path) -> HostClient {
    let mut trust = HostTrust::default();
    for (i, h) in hosts.iter().enumerate() {
        let ca = dir.join(format!("agent-ca-{i}.pem"));
        std::fs::write(&ca, h.ca_pem()).unwrap();
        trust.extra_root_certs.push(ca);
        let (name, addr) = h.resolve();
        trust.resolve.insert(name, addr);
    }
    HostClient::new(agent.key().clone(), &trust).unwrap()
}

async fn add(env: &Env, jws: &str) -> Result<Value, Value> {
    person(env, Command::AttestationsAdd { jws: jws.to_owned() }).await
}

fn mandate_request(key: &str, format: &str, hosts: &[&TestHost]) -> Value {
    let hosts: Vec<Value> = hosts.iter().map(|h| json!({"id": h.host_id(), "discovery": h.discovery_url()})).collect();
    json!({"kind": "mandate", "idempotency_key": key, "format": format, "hosts": hosts,
           "scope": ["hold", "book"], "constraints": {"max_bookings": 1}})
}

/// A compact JWS mandate (§3.3) for `hosts`, asked for by `a` and approved.
async fn compact(env: &Env, a: &AgentClient, key: &str, hosts: &[&TestHost]) -> String {
    let r = a.call(Method::POST, "/v1/requests", Some(&mandate_request(key, "jws", hosts))).await.unwrap();
    approved(env, a, &r).await["result"]["mandate"].as_str().unwrap().to_owned()
}

/// A presentation as the host receives it: the agent's key binding added (§3.4).
fn presented(prefix: &str, host_id: &str, a: &AgentClient) -> String {
    let kb = schcp::sdjwt::key_binding_jwt(prefix, host_id, "n-0123456789abcdef", now(), a.key()).unwrap();
    format!("{prefix}{kb}")
}

/// What `host_id` reads of `mandate` once it has verified it (§3.3, §3.4).
fn as_host_reads(mandate: &str, host_id: &str, a: &AgentClient) -> VerifiedChain {
    let ctx = ChainContext { host_id, request_jkt: &jkt(a), now: now(), allow_wildcard: false };
    if mandate.contains('~') {
        schcp::verify::verify_sd_jwt_mandate(mandate, &ctx).expect("the host accepts it")
    } else {
        schcp::verify::verify_mandate_chain(mandate, &ctx).expect("the host accepts it")
    }
}

fn carried(chain: &VerifiedChain) -> Vec<String> {
    chain.root.claims.attestations.clone().unwrap_or_default()
}

/// A free oil-change start a week from now at `host`.
async fn free_start(client: &HostClient, host: &Host) -> String {
    let start = chrono::Utc::now() + chrono::Duration::days(7);
    let q = AvailabilityQuery {
        service_id: "oil-change".into(),
        window: TimeRange { start: start.to_rfc3339(), end: (start + chrono::Duration::days(7)).to_rfc3339() },
        limit: Some(1),
        party_size: None,
    };
    client.availability(host, &q, None).await.unwrap().slots.remove(0).start
}

fn hold_at(start: &str) -> agent::host::HoldRequest {
    agent::host::HoldRequest {
        service_id: "oil-change".into(),
        start: start.into(),
        ttl: None,
        party_size: None,
        place: None,
    }
}

#[tokio::test]
async fn an_attestation_goes_only_to_the_hosts_that_trust_its_attester_and_such_a_host_honours_it() {
    let (env, salon, barber) = garage_salon_and_barber().await;
    let a = paired_agent(&env, 21).await;
    let me = a.call(Method::GET, "/v1/principal", None).await.unwrap()["principal"].as_str().unwrap().to_owned();
    let good = attestation(&attester_key(), ATTESTER, &me);

    // No host the person has been asked about trusts PhoneCheck yet: there is
    // no key to check the code with, so it is not kept.
    assert_eq!(add(&env, &good).await.unwrap_err()["reason"], "unknown_attester");

    // The agent asks for one SD-JWT VC mandate for both hosts (§3.4); while
    // the person reads it, they add their verifier's code.
    let r = a
        .call(Method::POST, "/v1/requests", Some(&mandate_request("att-sd", "dc+sd-jwt", &[&env.host, &salon])))
        .await
        .unwrap();
    let forged = attestation(&SigningKey::from_bytes(&[43; 32]), ATTESTER, &me);
    assert_eq!(add(&env, &forged).await.unwrap_err()["reason"], "attestation_forged");
    let untrusted = attestation(&attester_key(), "idcheck.example", &me);
    assert_eq!(add(&env, &untrusted).await.unwrap_err()["reason"], "unknown_attester");
    assert_eq!(add(&env, &good).await.unwrap()["iss"], ATTESTER);
    assert_eq!(add(&env, &good).await.unwrap_err()["reason"], "attestation_held");

    // §7.5: each host is shown only what it honours.
    let done = approved(&env, &a, &r).await;
    let presentations = &done["result"]["presentations"];
    let at_garage = presented(presentations[GARAGE].as_str().unwrap(), GARAGE, &a);
    let at_salon = presented(presentations[SALON].as_str().unwrap(), SALON, &a);
    assert_eq!(carried(&as_host_reads(&at_garage, GARAGE, &a)), [good.as_str()]);
    assert_eq!(carried(&as_host_reads(&at_salon, SALON, &a)), Vec::<String>::new());
    assert!(!at_salon.contains(&good), "not even as a disclosure the salon could read");

    // A compact mandate is one credential for all its hosts, each of which
    // reads all of it (§3.3): it carries the attestation only when every one
    // of its hosts honours it (§7.5), and the text the person signed names
    // no attestation, so it never claims one goes where it does not.
    let mixed = compact(&env, &a, "att-jws-mixed", &[&env.host, &salon]).await;
    for host in [GARAGE, SALON] {
        let read = as_host_reads(&mixed, host, &a);
        assert_eq!(carried(&read), Vec::<String>::new(), "{host}");
        let text = read.root.claims.consent.as_ref().expect("a root carries its consent").statement.to_lowercase();
        assert!(!text.contains("phonecheck") && !text.contains("attest"), "{text}");
    }
    assert!(!mixed.contains(&good), "the salon, which trusts no attester, is not shown it");
    let both = compact(&env, &a, "att-jws-both", &[&env.host, &barber]).await;
    assert_eq!(carried(&as_host_reads(&both, GARAGE, &a)), [good.as_str()]);
    assert_eq!(carried(&as_host_reads(&both, BARBER, &a)), [good.as_str()]);
    let salon_only = compact(&env, &a, "att-jws-1", &[&salon]).await;
    assert_eq!(carried(&as_host_reads(&salon_only, SALON, &a)), Vec::<String>::new());

    // The hosts accept what the agent received: the garage counts the hold
    // against PhoneCheck's pool (§7.5), the salon against the new-guest pool.
    let dir = tempfile::tempdir().unwrap();
    let client = host_client(&a, &[&env.host, &salon], dir.path());
    let garage_host = client.discover(&env.host.discovery_url()).await.unwrap();
    let salon_host = client.discover(&salon.discovery_url()).await.unwrap();
    let start = free_start(&client, &garage_host).await;
    // The client binds its own fresh KB-JWT to each call (§3.4): it takes the
    // presentation as the key app handed it out.
    let hold =
        client.hold(&garage_host, presentations[GARAGE].as_str().unwrap(), "h-garage", &hold_at(&start)).await.unwrap();
    assert_eq!(env.host.vouched_by(&hold.hold_id).as_deref(), Some(ATTESTER));
    let start = free_start(&client, &salon_host).await;
    let hold =
        client.hold(&salon_host, presentations[SALON].as_str().unwrap(), "h-salon", &hold_at(&start)).await.unwrap();
    assert_eq!(salon.vouched_by(&hold.hold_id), None);
    // The compact one too, at the host that trusts its attester.
    let start = free_start(&client, &garage_host).await;
    let hold = client.hold(&garage_host, &both, "h-garage-jws", &hold_at(&start)).await.unwrap();
    assert_eq!(env.host.vouched_by(&hold.hold_id).as_deref(), Some(ATTESTER));
}
