//! The key app end to end: the service started for real on loopback
//! ports with the OS keychain (run under scripts/with-keyring), a test host on
//! HTTPS with its own CA, and a test agent signing real requests.

use agent::AgentClient;
use ed25519_dalek::SigningKey;
use keyapp::app;
use keyapp::control::{self, Command};
use keyapp::keystore::PassphraseSource;
use reqwest::{Method, StatusCode};
use schcp::claims::{Action, Approved, OfferClaims};
use schcp::verify::{verify_mandate_chain, ChainContext};
use serde_json::{json, Value};
use std::path::Path;
use testhost::{TestHost, TestHostConfig};

use testkit::calendar::*;
use testkit::env::*;
use testkit::{now, principal_of};

fn chain_ok(mandate: &str, host_id: &str, agent_jkt: &str) -> schcp::verify::VerifiedChain {
    verify_mandate_chain(mandate, &ChainContext { host_id, request_jkt: agent_jkt, now: now(), allow_wildcard: false })
        .expect("the issued mandate passes a host's checks")
}

#[tokio::test]
async fn pairing_then_closed_mandate_approved_in_the_terminal() {
    let env = start().await;
    let a = agent(&env, 1);

    // Unpaired: nothing but pairing.
    let (status, body) = a.send(Method::GET, "/v1/principal", None).await.unwrap();
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["error"]["reason"], "agent_not_paired");

    let (status, p) =
        a.send(Method::POST, "/v1/pairings", Some(&json!({"agent_name": "Calendar Assistant"}))).await.unwrap();
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(p["status"], "pending");
    assert_eq!(p["fingerprint"], keyapp::service::fingerprint(&jkt(&a)));
    let id = p["pairing_id"].as_str().unwrap().to_owned();
    // The person sees the same fingerprint the agent shows.
    let shown = person(&env, Command::Show { id: id.clone() }).await.unwrap();
    assert!(shown["consent_text"].as_str().unwrap().contains(p["fingerprint"].as_str().unwrap()));
    person(&env, Command::Approve { id: id.clone() }).await.unwrap();

    let me = a.call(Method::GET, "/v1/principal", None).await.unwrap();
    assert!(me["principal"].as_str().unwrap().starts_with("urn:schcp:principal:jwk-thumbprint:"));
    assert_eq!(me["jwk"]["crv"], "Ed25519");

    let (_, offer) = future_offer(&env.host, 5);
    let (status, r) = a.send(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "k1"))).await.unwrap();
    assert_eq!(status, StatusCode::ACCEPTED, "{r}");
    assert_eq!(r["status"], "pending");
    let text = r["consent_text"].as_str().unwrap();
    assert!(text.starts_with("Synthetic oil change with Maple Street Auto (maplestreetauto.example), "), "{text}");
    assert!(text.contains("CAD 89.27, paid to Maple Street Auto directly"), "{text}");
    let rid = r["request_id"].as_str().unwrap().to_owned();
    assert_eq!(pending_ids(&env).await, vec![rid.clone()]);

    // What the terminal shows is what the agent was given.
    let shown = person(&env, Command::Show { id: rid.clone() }).await.unwrap();
    assert_eq!(shown["consent_text"], r["consent_text"]);
    person(&env, Command::Approve { id: rid.clone() }).await.unwrap();

    let done = a.call(Method::GET, &format!("/v1/requests/{rid}?wait=5"), None).await.unwrap();
    assert_eq!(done["status"], "approved");
    let mandate = done["result"]["mandate"].as_str().unwrap();
    assert_eq!(done["result"]["offer_sha256"], schcp::hash::jws_sha256(&offer));
    let chain = chain_ok(mandate, "maple-street-auto", &jkt(&a));
    let c = chain.root.claims.constraints.unwrap();
    assert_eq!(c.offer_sha256.as_deref(), Some(schcp::hash::jws_sha256(&offer).as_str()));
    assert_eq!(chain.root.claims.scope, vec![Action::Book]);
    assert_eq!(c.max_price.unwrap().amount, "89.27");
    assert_eq!(chain.root.claims.iss, me["principal"].as_str().unwrap());
    // Nothing is left waiting for the person.
    assert!(pending_ids(&env).await.is_empty());
    let listed = a.call(Method::GET, "/v1/mandates", None).await.unwrap();
    assert_eq!(listed[0]["jti"], done["result"]["jti"]);
    assert_eq!(listed[0]["status"], "active");
}

#[tokio::test]
async fn declined_request_has_no_result_and_an_agent_sees_only_its_own() {
    let env = start().await;
    let a = paired_agent(&env, 2).await;
    let other = paired_agent(&env, 3).await;
    let (_, offer) = future_offer(&env.host, 3);
    let r = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "d1"))).await.unwrap();
    let rid = r["request_id"].as_str().unwrap().to_owned();
    let (status, body) = other.send(Method::GET, &format!("/v1/requests/{rid}"), None).await.unwrap();
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    person(&env, Command::Decline { id: rid.clone() }).await.unwrap();
    let done = a.call(Method::GET, &format!("/v1/requests/{rid}"), None).await.unwrap();
    assert_eq!(done["status"], "declined");
    assert!(done.get("result").is_none());
    // Approving a declined request does nothing.
    let again = person(&env, Command::Approve { id: rid }).await.unwrap_err();
    assert_eq!(again["reason"], "not_pending");
}

#[tokio::test]
async fn hostile_offers_are_refused_and_nothing_is_pending() {
    let env = start().await;
    let a = paired_agent(&env, 4).await;
    let (good, offer) = future_offer(&env.host, 2);
    let mut cases: Vec<(&str, String, &str)> = Vec::new();
    // Bytes changed after the host signed them.
    let mut parts: Vec<String> = offer.split('.').map(str::to_owned).collect();
    let mut payload: Value = serde_json::from_slice(&schcp::b64::decode(&parts[1]).unwrap()).unwrap();
    payload["total"]["amount"] = json!("9.27");
    parts[1] = schcp::b64::encode(payload.to_string());
    cases.push(("tampered", parts.join("."), "bad_signature"));
    // Lines that do not sum, signed by the host's real key.
    let mut c = good.clone();
    c.lines.as_mut().unwrap()[1].amount.amount = "10.28".into();
    cases.push(("lines", env.host.sign_offer(&c).unwrap(), "lines_do_not_sum"));
    // A term SchCP does not define.
    let mut v = serde_json::to_value(&good).unwrap();
    v["slot"]["cancellation_fee"] = json!({"amount": "50.00", "currency": "CAD"});
    cases.push(("fee", env.host.sign(schcp::jws::Typ::Offer, &v).unwrap(), "schema_invalid"));
    // Signed under a kid the host never published.
    cases.push((
        "kid",
        env.host.sign_with_kid(schcp::jws::Typ::Offer, &good, "stolen-key").unwrap_or_default(),
        "unknown_kid",
    ));
    // Expired.
    let mut c = good.clone();
    c.iat = now() - 1000;
    c.exp = now() - 10;
    cases.push(("expired", env.host.sign_offer(&c).unwrap(), "expired"));
    // Mixed currencies.
    let mut c = good.clone();
    c.lines.as_mut().unwrap()[1].amount.currency = "USD".into();
    cases.push(("currency", env.host.sign_offer(&c).unwrap(), "mixed_currencies"));

    for (i, (name, offer, reason)) in cases.iter().enumerate() {
        if offer.is_empty() {
            continue;
        }
        let (status, body) =
            a.send(Method::POST, "/v1/requests", Some(&closed_request(&env, offer, &format!("h{i}")))).await.unwrap();
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{name}: {body}");
        assert_eq!(body["error"]["reason"], *reason, "{name}: {body}");
    }
    assert!(pending_ids(&env).await.is_empty(), "a refused offer never reaches the person");
    assert!(a.call(Method::GET, "/v1/mandates", None).await.unwrap().as_array().unwrap().is_empty());
}

#[tokio::test]
async fn idempotency_pending_cap_and_cooldown() {
    let env = start().await;
    let a = paired_agent(&env, 5).await;
    let (_, offer) = future_offer(&env.host, 4);
    let first = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "same"))).await.unwrap();
    let again = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "same"))).await.unwrap();
    assert_eq!(first["request_id"], again["request_id"]);
    let (_, other_offer) = future_offer(&env.host, 6);
    let (status, body) =
        a.send(Method::POST, "/v1/requests", Some(&closed_request(&env, &other_offer, "same"))).await.unwrap();
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"]["code"], "IDEMPOTENCY_CONFLICT");

    // The history has the request once: the replay and the conflict wrote nothing.
    let history = person(&env, Command::History).await.unwrap();
    let created: Vec<&Value> = history.as_array().unwrap().iter().filter(|e| e["event"] == "request_created").collect();
    assert_eq!(created.len(), 1, "{history}");
    assert_eq!((&created[0]["subject"], &created[0]["detail"]), (&first["request_id"], &json!("closed_mandate")));

    let mut ids = vec![first["request_id"].as_str().unwrap().to_owned()];
    for i in 0..4 {
        let r =
            a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, &format!("p{i}")))).await.unwrap();
        ids.push(r["request_id"].as_str().unwrap().to_owned());
    }
    let (status, body) =
        a.send(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "sixth"))).await.unwrap();
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert_eq!(body["error"]["reason"], "too_many_pending");
    assert_eq!(pending_ids(&env).await.len(), 5, "the refused sixth request left nothing behind");

    // A withdrawn request does not count towards the cooldown.
    a.call(Method::DELETE, &format!("/v1/requests/{}", ids[0]), None).await.unwrap();
    person(&env, Command::Decline { id: ids[1].clone() }).await.unwrap();
    person(&env, Command::Decline { id: ids[2].clone() }).await.unwrap();
    let (status, body) =
        a.send(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "after"))).await.unwrap();
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert_eq!(body["error"]["reason"], "cooldown");
    assert!(body["error"]["retry"]["after"].as_str().unwrap().starts_with("PT"));
}

#[tokio::test]
async fn root_mandate_then_management_mandate_without_a_prompt() {
    let env = start().await;
    let a = paired_agent(&env, 6).await;
    let body = json!({
        "kind": "mandate", "idempotency_key": "root-1",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book", "cancel", "reschedule"],
        "constraints": {"services": ["oil-change"], "max_price": {"amount": "100.00", "currency": "CAD"}, "max_bookings": 1},
        "lifetime": "P400D"
    });
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert!(text.contains("Maple Street Auto (maplestreetauto.example)"), "{text}");
    let done = approved(&env, &a, &r).await;
    let root = done["result"]["mandate"].as_str().unwrap().to_owned();
    let jti = done["result"]["jti"].as_str().unwrap().to_owned();
    assert_eq!(done["result"]["status"], format!("https://keyapp.example/status/{jti}"));
    let chain = chain_ok(&root, "maple-street-auto", &jkt(&a));
    // The lifetime asked for is capped (30 days), and the expiry signed is the
    // one the person read.
    assert!(chain.root.claims.exp - chain.root.claims.iat <= 30 * 86_400);
    // Told in the host's zone (the test host's is America/Toronto), so the date
    // is taken there: near a year's end the UTC year differs.
    let shown_exp =
        chrono::DateTime::from_timestamp(chain.root.claims.exp, 0).unwrap().with_timezone(&chrono_tz::America::Toronto);
    assert!(text.contains(&shown_exp.format("%-d %B %Y").to_string()), "{text}");
    assert_eq!(chain.root.claims.cnf.jkt, jkt(&a), "cnf.jkt is the requesting agent's key");

    // A receipt for a booking under that root: the management mandate is issued at once.
    let (_, offer) = future_offer(&env.host, 7);
    let receipt = env.host.receipt(&offer, &jti, Approved::Limits, now()).unwrap();
    let body = json!({"kind": "management_mandate", "idempotency_key": "mgmt-1", "receipt": receipt,
                      "discovery": env.host.discovery_url()});
    let m = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    assert_eq!(m["status"], "approved", "{m}");
    let mandate = m["result"]["mandate"].as_str().unwrap();
    let chain = chain_ok(mandate, "maple-street-auto", &jkt(&a));
    assert_eq!(chain.root.claims.scope, vec![Action::Cancel, Action::Reschedule]);
    let bookings = chain.root.claims.constraints.unwrap().bookings.unwrap();
    assert_eq!(bookings, vec![m["result"]["booking_id"].as_str().unwrap().to_owned()]);
    // The verified receipt is kept with what was issued on it.
    let (kept_jti, kept_booking): (String, String) = sqlx::query_as("SELECT mandate_jti, booking_id FROM receipts")
        .fetch_one(env.app.service.records().store().pool())
        .await
        .unwrap();
    assert_eq!((kept_jti.as_str(), kept_booking.as_str()), (jti.as_str(), m["result"]["booking_id"].as_str().unwrap()));

    // Under a mandate the key app did not issue to this agent, the person is asked.
    let receipt = env.host.receipt(&offer, "m-someone-else", Approved::Limits, now()).unwrap();
    let body = json!({"kind": "management_mandate", "idempotency_key": "mgmt-2", "receipt": receipt,
                      "discovery": env.host.discovery_url()});
    let m = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    assert_eq!(m["status"], "pending");
    person(&env, Command::Decline { id: m["request_id"].as_str().unwrap().to_owned() }).await.unwrap();

    // Revocation from the terminal shows at once in the agent's list.
    person(&env, Command::Revoke { jti: jti.clone() }).await.unwrap();
    let listed = a.call(Method::GET, "/v1/mandates", None).await.unwrap();
    let root_entry = listed.as_array().unwrap().iter().find(|m| m["jti"] == jti.as_str()).unwrap().clone();
    assert_eq!(root_entry["status"], "revoked");
}

#[tokio::test]
async fn restart_keeps_the_key_pairings_and_history() {
    let env = start().await;
    let a = paired_agent(&env, 7).await;
    let before = a.call(Method::GET, "/v1/principal", None).await.unwrap();
    let history_before = person(&env, Command::History).await.unwrap();
    assert!(!history_before.as_array().unwrap().is_empty());

    // One key app per data directory: a second start while it runs is refused,
    // naming the running one.
    match app::start(env.config.clone(), PassphraseSource::default()).await {
        Err(app::StartError::AlreadyRunning { running: Some(i), .. }) => {
            assert_eq!(i.agent_api, Some(format!("http://{}", env.app.agent_addr)));
            assert_eq!(i.pid, std::process::id());
        }
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("a second key app started on the same data directory"),
    }
    let Env { _dir, host: _host, config, app: first } = env;
    drop(first);
    let again = app::start(config, PassphraseSource::default()).await.expect("starts once the first has stopped");
    let b = AgentClient::new(format!("http://{}", again.agent_addr), SigningKey::from_bytes(&[7; 32]));
    let after = b.call(Method::GET, "/v1/principal", None).await.expect("still paired after a restart");
    assert_eq!(before["principal"], after["principal"], "the same key");
    let history_after = control::call(&again.runtime_dir, &Command::History).await.unwrap().unwrap();
    assert!(history_after.as_array().unwrap().len() >= history_before.as_array().unwrap().len());
}

/// Records moved to another folder meet another keychain entry (it is named
/// for the path): an empty one makes no new key for them, and one holding
/// another key (made for that folder before, or by whoever filled it) does not
/// start under them: the records name the principal they were made under.
/// Nothing is served and nothing signed.
#[tokio::test]
async fn records_moved_to_another_folder_start_under_no_other_key() {
    let env = start().await;
    let a = paired_agent(&env, 9).await;
    let principal = a.call(Method::GET, "/v1/principal", None).await.unwrap()["principal"].clone();
    let Env { _dir, host: _host, mut config, app: first } = env;
    let data_dir = config.data_dir.clone().expect("the test config names its data_dir");
    drop(first);
    let copy_records = |to: &Path| {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(&data_dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with(keyapp::keystore::RECORDS_FILE_NAME) {
                std::fs::copy(&path, to.join(&name)).unwrap();
            }
        }
    };
    let start_in = |dir: &Path| {
        let mut config = config.clone();
        config.data_dir = Some(dir.to_owned());
        app::start(config, PassphraseSource::default())
    };

    // An empty entry: no key is made for records that were made with one.
    let moved = _dir.path().join("moved");
    copy_records(&moved);
    match start_in(&moved).await {
        Err(app::StartError::Keystore(keyapp::keystore::KeystoreError::NoKeyForRecords { .. })) => {}
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("the records started under a new key"),
    }
    // An entry that holds another key: a key app started there once, empty.
    let other = _dir.path().join("other");
    drop(start_in(&other).await.expect("a new folder starts with a new key"));
    for entry in std::fs::read_dir(&other).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap().to_string_lossy().starts_with(keyapp::keystore::RECORDS_FILE_NAME) {
            std::fs::remove_file(path).unwrap();
        }
    }
    copy_records(&other);
    match start_in(&other).await {
        Err(app::StartError::OtherKey { recorded, found, .. }) => {
            assert_eq!(json!(recorded), principal, "the records name the person's principal");
            assert_ne!(recorded, found);
        }
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("the records started under another key"),
    }
    // Where they were made, with their own key, they start as before.
    config.data_dir = Some(data_dir.clone());
    let again = app::start(config, PassphraseSource::default()).await.expect("starts where the records were made");
    let b = AgentClient::new(format!("http://{}", again.agent_addr), SigningKey::from_bytes(&[9; 32]));
    assert_eq!(b.call(Method::GET, "/v1/principal", None).await.unwrap()["principal"], principal);
}

#[tokio::test]
async fn mandates_verify_with_an_independent_jose_implementation() {
    let env = start().await;
    let a = paired_agent(&env, 8).await;
    let (_, offer) = future_offer(&env.host, 8);
    let r = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "jose"))).await.unwrap();
    let done = approved(&env, &a, &r).await;
    let mandate = done["result"]["mandate"].as_str().unwrap();
    // The person's history names the credential issued, with its time in words.
    let history = person(&env, Command::History).await.unwrap();
    let issued = history
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["event"] == "credential_issued" && h["subject"] == done["result"]["jti"])
        .expect("the issued credential is in the history");
    assert_eq!(issued["detail"], "closed_mandate");
    let when = issued["when"].as_str().unwrap();
    assert!(when.contains(" 20") && !when.chars().all(|c| c.is_ascii_digit()), "{when}");
    let listed = person(&env, Command::Mandates).await.unwrap();
    let expires = listed[0]["expires"].as_str().unwrap();
    assert!(expires.contains(" 20"), "{expires}");
    let me = a.call(Method::GET, "/v1/principal", None).await.unwrap();
    let script = r#"
import json, sys
from jwcrypto import jwk, jws
key = jwk.JWK(**json.loads(sys.argv[1]))
token = jws.JWS()
token.deserialize(sys.argv[2])
token.verify(key, alg="EdDSA")
print(json.loads(token.payload)["iss"])
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script, &me["jwk"].to_string(), mandate])
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "jwcrypto refused the mandate: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), me["principal"].as_str().unwrap());
}

/// Every hostile offer of the protocol vector set (tests/vectors/offer/invalid*),
/// signed with the host's real key, is refused at once with 422 and a reason,
/// and nothing reaches the person.
#[tokio::test]
async fn every_hostile_offer_vector_is_refused_before_the_person_sees_it() {
    let env = start().await;
    let a = paired_agent(&env, 9).await;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/offer");
    let mut checked = 0;
    for dir in ["invalid", "invalid_semantic"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files {
            let vector: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
            let mut claims = vector["claims"].clone();
            // Fresh times, so each vector is refused for the rule it breaks
            // rather than for being old.
            let stem = file.file_stem().unwrap().to_string_lossy().to_string();
            let about_time = stem.contains("iat") || stem.contains("exp");
            if !about_time && claims.is_object() && claims["iat"].is_i64() && claims["exp"].is_i64() {
                claims["iat"] = json!(now());
                claims["exp"] = json!(now() + 300);
            }
            let offer = env.host.sign(schcp::jws::Typ::Offer, &claims).unwrap();
            let key = format!("v-{checked}");
            let (status, body) =
                a.send(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, &key))).await.unwrap();
            assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{}: {body}", file.display());
            assert_eq!(body["error"]["code"], "VERIFICATION_FAILED", "{}: {body}", file.display());
            assert!(body["error"]["reason"].as_str().is_some_and(|r| !r.is_empty()));
            checked += 1;
        }
    }
    assert!(checked >= 60, "only {checked} vectors found");
    assert!(pending_ids(&env).await.is_empty(), "no refused offer is pending");
    let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM requests")
        .fetch_one(env.app.service.records().store().pool())
        .await
        .unwrap();
    assert_eq!(count, 0, "and none was stored");
}

#[tokio::test]
async fn a_declined_root_mandate_issues_nothing() {
    let env = start().await;
    let a = paired_agent(&env, 10).await;
    let body = json!({
        "kind": "mandate", "idempotency_key": "root-d",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book"]
    });
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert!(text.contains("any service") && text.contains("any time") && text.contains("no price limit"), "{text}");
    person(&env, Command::Decline { id: r["request_id"].as_str().unwrap().to_owned() }).await.unwrap();
    assert!(a.call(Method::GET, "/v1/mandates", None).await.unwrap().as_array().unwrap().is_empty());
    // A host the discovery document does not describe is refused before the person sees it.
    let body = json!({
        "kind": "mandate", "idempotency_key": "root-x",
        "hosts": [{"id": "another-shop", "discovery": env.host.discovery_url()}],
        "scope": ["book"]
    });
    let (status, err) = a.send(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    assert_eq!(err["error"]["reason"], "host_mismatch");
    // Offer-derived constraints cannot be supplied by the agent.
    let body = json!({
        "kind": "mandate", "idempotency_key": "root-y",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["book"], "constraints": {"offer_sha256": schcp::hash::sha256_b64("x")}
    });
    let (status, err) = a.send(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    assert_eq!(err["error"]["reason"], "bad_constraints");
    assert!(pending_ids(&env).await.is_empty());
}

#[tokio::test]
async fn sd_jwt_mandate_discloses_to_each_host_only_its_own_part() {
    let env = start().await;
    let a = paired_agent(&env, 11).await;
    let body = json!({
        "kind": "mandate", "idempotency_key": "sd-1", "format": "dc+sd-jwt",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book"],
        "constraints": {"max_bookings": 1},
        "host_constraints": {"maple-street-auto": {"services": ["oil-change"]}}
    });
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    // The host's own constraints are read as such: the text says what the
    // credential holds, not the shared "any service".
    let text = r["consent_text"].as_str().unwrap();
    assert!(
        text.contains("\nServices: at Maple Street Auto (maplestreetauto.example), Synthetic oil change.\n"),
        "{text}"
    );
    assert!(text.contains("\nBookings: at most 1.\n"), "{text}");
    let done = approved(&env, &a, &r).await;
    let prefix = done["result"]["presentations"]["maple-street-auto"].as_str().unwrap();
    assert!(prefix.starts_with(done["result"]["mandate"].as_str().unwrap()));
    // The agent adds its Key Binding JWT and presents it to the host.
    let kb = schcp::sdjwt::key_binding_jwt(prefix, "maple-street-auto", "n-0123456789abcdef", now(), a.key()).unwrap();
    let ctx = ChainContext { host_id: "maple-street-auto", request_jkt: &jkt(&a), now: now(), allow_wildcard: false };
    let chain = schcp::verify::verify_sd_jwt_mandate(&format!("{prefix}{kb}"), &ctx).expect("a host accepts it");
    let c = chain.root.claims.constraints.unwrap();
    assert_eq!(c.services, Some(vec!["oil-change".to_owned()]));
    assert_eq!(c.max_bookings, Some(1));
    assert_eq!(chain.root.claims.status.as_deref(), done["result"]["status"].as_str());
    // host_constraints are for the SD-JWT format only.
    let mut jws_body = body.clone();
    jws_body["format"] = json!("jws");
    jws_body["idempotency_key"] = json!("sd-2");
    let (status, err) = a.send(Method::POST, "/v1/requests", Some(&jws_body)).await.unwrap();
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    // §3.4: no constraint is set both shared and for a host; refused before the
    // person is asked, and nothing is left pending.
    let mut both = body.clone();
    both["idempotency_key"] = json!("sd-3");
    both["host_constraints"]["maple-street-auto"]["max_bookings"] = json!(2);
    let (status, err) = a.send(Method::POST, "/v1/requests", Some(&both)).await.unwrap();
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    assert_eq!(err["error"]["reason"], "bad_constraints", "{err}");
    assert!(err["error"]["message"].as_str().unwrap().contains("max_bookings"), "{err}");
    assert!(pending_ids(&env).await.is_empty());
    // §3.4: in this profile the principal may sign with P-256. The issuer JWT
    // then carries the EC key and its own principal id, and a host verifies it.
    let mut es = body.clone();
    es["idempotency_key"] = json!("sd-es256");
    es["alg"] = json!("ES256");
    let r = a.call(Method::POST, "/v1/requests", Some(&es)).await.unwrap();
    let done = approved(&env, &a, &r).await;
    let prefix = done["result"]["presentations"]["maple-street-auto"].as_str().unwrap();
    let issuer = schcp::jws::parse(prefix.split('~').next().unwrap()).unwrap();
    assert_eq!(issuer.header.alg, "ES256");
    let ec = issuer.header.jwk.clone().expect("the principal's key in the header");
    assert_eq!((ec.kty.as_str(), ec.crv.as_str()), ("EC", "P-256"));
    let kb = schcp::sdjwt::key_binding_jwt(prefix, "maple-street-auto", "n-0123456789abcdef", now(), a.key()).unwrap();
    let chain = schcp::verify::verify_sd_jwt_mandate(&format!("{prefix}{kb}"), &ctx).expect("a host accepts it");
    assert_eq!(chain.root.claims.iss, ec.principal_id().unwrap());
    // And an independent JOSE implementation verifies the ES256 signature (raw r||s).
    let script = r#"
import json, sys
from jwcrypto import jwk, jws
token = jws.JWS()
token.deserialize(sys.argv[2])
token.verify(jwk.JWK(**json.loads(sys.argv[1])), alg="ES256")
"#;
    let issuer_jwt = prefix.split('~').next().unwrap();
    let out = std::process::Command::new("python3")
        .args(["-c", script, &serde_json::to_string(&ec).unwrap(), issuer_jwt])
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "jwcrypto refused the ES256 issuer JWT: {}", String::from_utf8_lossy(&out.stderr));
    assert_ne!(
        chain.root.claims.iss,
        a.call(Method::GET, "/v1/principal", None).await.unwrap()["principal"].as_str().unwrap()
    );
    // Compact mandates are Ed25519 only; no other alg exists.
    let mut compact_es = es.clone();
    compact_es["format"] = json!("jws");
    compact_es.as_object_mut().unwrap().remove("host_constraints");
    compact_es["idempotency_key"] = json!("sd-es256-jws");
    refused(&env, &a, &compact_es, "bad_alg").await;
    let mut rs = es.clone();
    rs["idempotency_key"] = json!("sd-rs256");
    rs["alg"] = json!("RS256");
    refused(&env, &a, &rs, "bad_alg").await;

    // A shared limit is across hosts, never one host's own constraint.
    let mut shared = body.clone();
    shared["idempotency_key"] = json!("sd-4");
    shared["constraints"] = json!({});
    shared["host_constraints"]["maple-street-auto"] = json!({"max_bookings": 2, "shared_limit": true});
    refused(&env, &a, &shared, "bad_constraints").await;
}

#[tokio::test]
async fn long_poll_wakes_on_the_answer_and_bad_waits_are_refused() {
    let env = start().await;
    let a = paired_agent(&env, 12).await;
    let (_, offer) = future_offer(&env.host, 9);
    let r = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "lp"))).await.unwrap();
    let rid = r["request_id"].as_str().unwrap().to_owned();
    let path = format!("/v1/requests/{rid}?wait=60");
    let waiting = tokio::spawn(async move { a.call(Method::GET, &path, None).await.unwrap() });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    person(&env, Command::Approve { id: rid.clone() }).await.unwrap();
    // Had the poll not woken, it would have answered "pending" after 60 s.
    let done = waiting.await.unwrap();
    assert_eq!(done["status"], "approved");
    let b = agent(&env, 12);
    for bad in ["wait=soon", "wait=-1", "wait=1e3"] {
        let (status, err) = b.send(Method::GET, &format!("/v1/requests/{rid}?{bad}"), None).await.unwrap();
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {err}");
        assert_eq!(err["error"]["reason"], "bad_wait", "{bad}");
    }
}

/// The terminal surface: `schcp-keyapp approve` shows the consent text, and only
/// `y` or `yes` approves.
#[tokio::test]
async fn the_terminal_approves_only_on_yes() {
    let env = start().await;
    let a = paired_agent(&env, 13).await;
    let (_, offer) = future_offer(&env.host, 10);
    let r = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "cli"))).await.unwrap();
    let rid = r["request_id"].as_str().unwrap().to_owned();
    let config_path = terminal_config(&env);
    let run = |args: Vec<String>, input: &'static str| {
        let config_path = config_path.clone();
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (ok, out, _) = terminal(env!("CARGO_BIN_EXE_schcp-keyapp"), &config_path, &args, input).await;
            (ok, out)
        }
    };
    let (ok, listed) = run(vec!["pending".into()], "").await;
    assert!(ok);
    assert!(listed.starts_with(&format!("{rid}\tclosed_mandate\t")), "{listed}");
    for answer in ["\n", "n\n", "yep\n"] {
        let (ok, shown) = run(vec!["approve".into(), rid.clone()], answer).await;
        assert!(ok);
        assert!(shown.contains(r["consent_text"].as_str().unwrap()), "the terminal shows the same text: {shown}");
        assert!(shown.contains("Approve? [y/N] not approved"), "{answer:?}: {shown}");
        let v = a.call(Method::GET, &format!("/v1/requests/{rid}"), None).await.unwrap();
        assert_eq!(v["status"], "pending", "{answer:?} does not approve");
    }
    let (ok, shown) = run(vec!["approve".into(), rid.clone()], "yes\n").await;
    assert!(ok, "{shown}");
    let v = a.call(Method::GET, &format!("/v1/requests/{rid}"), None).await.unwrap();
    assert_eq!(v["status"], "approved");
    let (ok, mandates) = run(vec!["mandates".into()], "").await;
    assert!(ok && mandates.contains(v["result"]["jti"].as_str().unwrap()), "{mandates}");
}

#[tokio::test]
async fn the_control_socket_is_the_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let env = start().await;
    let socket = control::socket_path(&env.app.runtime_dir);
    assert_eq!(std::fs::metadata(&socket).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(std::fs::metadata(&env.app.runtime_dir).unwrap().permissions().mode() & 0o777, 0o700);
    // A malformed command gets a specific error and changes nothing.
    let stream = tokio::net::UnixStream::connect(&socket).await.unwrap();
    let (read, mut write) = stream.into_split();
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    write
        .write_all(
            b"{\"cmd\": \"approve\", \"id\": \"rq_x\", \"extra\": 1}\n{\"cmd\": \"sign\", \"bytes\": \"AAAA\"}\n",
        )
        .await
        .unwrap();
    let mut lines = tokio::io::BufReader::new(read).lines();
    for _ in 0..2 {
        let answer: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(answer["error"]["reason"], "malformed", "{answer}");
    }
    let unknown = person(&env, Command::Approve { id: "rq_nothing".into() }).await.unwrap_err();
    assert_eq!(unknown["code"], "NOT_FOUND");
}

/// A root mandate with a shared booking limit is served by the status API at
/// the URL its `status` claim names (§3.3, docs/agent-api.md §10).
#[tokio::test]
async fn a_shared_limit_mandate_is_counted_by_the_status_api() {
    let env = start().await;
    let a = paired_agent(&env, 14).await;
    let body = json!({
        "kind": "mandate", "idempotency_key": "shared",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book"], "constraints": {"max_bookings": 1, "shared_limit": true}
    });
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let done = approved(&env, &a, &r).await;
    let jti = done["result"]["jti"].as_str().unwrap().to_owned();
    // The status claim is {public_base}/status/{jti}; the listener serves /status/{jti}.
    assert_eq!(done["result"]["status"], format!("https://keyapp.example/status/{jti}"));
    let base = format!("http://{}/status/{jti}", env.app.status_addr);
    let http = reqwest::Client::new();
    let status: Value = http.get(&base).send().await.unwrap().json().await.unwrap();
    assert_eq!(status, json!({"jti": jti, "status": "active", "remaining": 1}));
    let first =
        http.post(format!("{base}/claims")).json(&json!({"claim_id": "maple-street-auto/h_1"})).send().await.unwrap();
    assert_eq!(first.status(), StatusCode::CREATED);
    let again =
        http.post(format!("{base}/claims")).json(&json!({"claim_id": "maple-street-auto/h_1"})).send().await.unwrap();
    assert_eq!(again.status(), StatusCode::OK);
    let second =
        http.post(format!("{base}/claims")).json(&json!({"claim_id": "maple-street-auto/h_2"})).send().await.unwrap();
    assert_eq!(second.status(), StatusCode::CONFLICT);
    let listed = a.call(Method::GET, "/v1/mandates", None).await.unwrap();
    assert_eq!(listed[0]["remaining"], 0);
    person(&env, Command::Revoke { jti: jti.clone() }).await.unwrap();
    let status: Value = http.get(&base).send().await.unwrap().json().await.unwrap();
    assert_eq!(status["status"], "revoked");
}

/// The double booking of a shared limit, reproduced end to end: the key app
/// records the host's discovery keys when the person approves, the host claims
/// signed, an agent that knows the jti releases the claim unsigned (refused,
/// 403), and another booking under `max_bookings: 1` is refused (409). The
/// host's own signed release gives the unit back.
#[tokio::test]
async fn a_claim_the_host_signed_is_released_only_by_the_host() {
    use testhost::Signing;
    let env = start().await;
    let a = paired_agent(&env, 15).await;
    let body = json!({
        "kind": "mandate", "idempotency_key": "signed-claims",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book"], "constraints": {"max_bookings": 1, "shared_limit": true}
    });
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let done = approved(&env, &a, &r).await;
    let jti = done["result"]["jti"].as_str().unwrap().to_owned();
    let status = format!("http://{}/status/{jti}", env.app.status_addr);
    let http = reqwest::Client::new();
    let send = |r: testhost::StatusRequest| {
        let http = http.clone();
        async move {
            let mut req = http.request(reqwest::Method::from_bytes(r.method.as_bytes()).unwrap(), &r.url).body(r.body);
            for (n, v) in r.headers {
                req = req.header(n, v);
            }
            req.send().await.unwrap()
        }
    };
    let claimed = send(env.host.claim_request(&status, "h_1", Signing::Signed, now())).await;
    assert_eq!(claimed.status(), StatusCode::CREATED);
    // The agent's release, unsigned: refused, the claim stays.
    let forged = http.delete(format!("{status}/claims/maple-street-auto/h_1")).send().await.unwrap();
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let refusal: Value = forged.json().await.unwrap();
    assert_eq!(refusal["error"]["reason"], "claim_signed_by_host", "{refusal}");
    // So the second booking is refused.
    let second = send(env.host.claim_request(&status, "h_2", Signing::Unsigned, now())).await;
    assert_eq!(second.status(), StatusCode::CONFLICT);
    // The host's own signed release gives it back, once.
    for _ in 0..2 {
        let released = send(env.host.release_request(&status, "h_1", Signing::Signed, now())).await;
        assert_eq!(released.status(), StatusCode::NO_CONTENT);
    }
    let view: Value = http.get(&status).send().await.unwrap().json().await.unwrap();
    assert_eq!(view["remaining"], 1);
}

/// Signs a change offer (§5.7) for `booking_id` naming `prev` as its current
/// contract, moved to `days_ahead` days from now.
fn change_offer(host: &TestHost, booking_id: &str, prev: &str, days_ahead: i64) -> String {
    let mut c = host.change_offer(booking_id, prev, now());
    let start = chrono::Utc::now() + chrono::Duration::days(days_ahead);
    c.slot.start = start.format("%Y-%m-%dT13:00:00-04:00").to_string();
    c.slot.end = Some(start.format("%Y-%m-%dT13:45:00-04:00").to_string());
    host.sign_offer(&c).unwrap()
}

/// The day an offer `days_ahead` from now falls on, as the consent text writes it.
fn day_words(days_ahead: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::days(days_ahead)).format("%-d %B %Y").to_string()
}

/// The consent text's "Time: from … to …" line, split at " to ".
fn time_change(text: &str) -> (String, String) {
    let line =
        text.lines().find(|l| l.starts_with("Time: from ")).unwrap_or_else(|| panic!("no time change in {text}"));
    let (from, to) = line["Time: from ".len()..].split_once(" to ").unwrap();
    (from.to_owned(), to.to_owned())
}

#[tokio::test]
async fn a_change_offer_is_shown_from_the_current_contract_to_the_new_terms() {
    let env = start().await;
    let a = paired_agent(&env, 9).await;
    const NO_RECORD: &str = "has no receipt for this booking";

    // The booking: a closed mandate over the offer, then the host's receipt for it.
    let (_, offer) = future_offer(&env.host, 5);
    let r = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "book"))).await.unwrap();
    let booked = approved(&env, &a, &r).await;
    let contract = booked["result"]["offer_sha256"].as_str().unwrap().to_owned();
    let receipt = env.host.receipt(&offer, booked["result"]["jti"].as_str().unwrap(), Approved::Offer, now()).unwrap();
    let body = json!({"kind": "management_mandate", "idempotency_key": "manage", "receipt": receipt,
                      "discovery": env.host.discovery_url()});
    let m = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    person(&env, Command::Approve { id: m["request_id"].as_str().unwrap().to_owned() }).await.unwrap();
    let m = a.call(Method::GET, &format!("/v1/requests/{}", m["request_id"].as_str().unwrap()), None).await.unwrap();
    let booking = m["result"]["booking_id"].as_str().unwrap().to_owned();

    // The move: shown from the terms the person approved to the new ones.
    let moved = change_offer(&env.host, &booking, &contract, 8);
    let r = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &moved, "move-1"))).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert!(
        text.starts_with(&format!("Change my booking {booking} with Maple Street Auto (maplestreetauto.example):")),
        "{text}"
    );
    assert!(!text.contains(NO_RECORD), "{text}");
    let (from, to) = time_change(text);
    assert!(from.contains(&day_words(5)) && to.contains(&day_words(8)), "{text}");
    assert!(!text.contains("Price: from"), "the price did not change: {text}");
    let done = approved(&env, &a, &r).await;
    // §5.3, §5.7: a closed mandate over a change offer allows the reschedule of that booking only.
    let chain = chain_ok(done["result"]["mandate"].as_str().unwrap(), "maple-street-auto", &jkt(&a));
    assert_eq!(chain.root.claims.scope, vec![Action::Reschedule]);
    let c = chain.root.claims.constraints.unwrap();
    assert_eq!(c.bookings, Some(vec![booking.clone()]));
    assert_eq!(c.offer_sha256.as_deref(), Some(schcp::hash::jws_sha256(&moved).as_str()));

    // A second move names the first as the current contract (the hash chain of §5.7).
    let again = change_offer(&env.host, &booking, &schcp::hash::jws_sha256(&moved), 11);
    let r = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &again, "move-2"))).await.unwrap();
    let (from, to) = time_change(r["consent_text"].as_str().unwrap());
    assert!(from.contains(&day_words(8)) && to.contains(&day_words(11)), "{from} / {to}");
    a.call(Method::DELETE, &format!("/v1/requests/{}", r["request_id"].as_str().unwrap()), None).await.unwrap();

    // A contract the key app never approved, or one a receipt ties to another
    // booking, is not shown as the old terms: the text says it has none.
    for (key, hostile) in [
        ("unknown-prev", change_offer(&env.host, &booking, &schcp::hash::sha256_b64("not a contract"), 8)),
        ("other-booking", change_offer(&env.host, "b_elsewhere", &contract, 8)),
    ] {
        let r = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &hostile, key))).await.unwrap();
        let text = r["consent_text"].as_str().unwrap();
        assert!(text.contains(NO_RECORD), "{key}: {text}");
        assert!(!text.contains("Time: from"), "{key}: {text}");
        a.call(Method::DELETE, &format!("/v1/requests/{}", r["request_id"].as_str().unwrap()), None).await.unwrap();
    }

    // A request the person declined, marked approved in the records by
    // another program, is no contract the person approved: no credential was
    // ever issued for it.
    let (_, declined) = future_offer(&env.host, 6);
    let r = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &declined, "declined"))).await.unwrap();
    let rid = r["request_id"].as_str().unwrap().to_owned();
    person(&env, Command::Decline { id: rid.clone() }).await.unwrap();
    let relabel = sqlx::query(
        "UPDATE requests SET status = 'approved', result = json_object('offer_sha256', ?) WHERE request_id = ?",
    )
    .bind(schcp::hash::jws_sha256(&declined))
    .bind(&rid)
    .execute(env.app.service.records().store().pool())
    .await
    .unwrap();
    assert_eq!(relabel.rows_affected(), 1);
    let hostile = change_offer(&env.host, &booking, &schcp::hash::jws_sha256(&declined), 9);
    let r = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &hostile, "relabelled"))).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert!(text.contains(NO_RECORD), "{text}");
    assert!(!text.contains("Time: from"), "{text}");
}

/// A refusal of `body` with `reason`, and nothing left for the person.
async fn refused(env: &Env, a: &AgentClient, body: &Value, reason: &str) {
    refused_as(env, a, body, StatusCode::BAD_REQUEST, reason).await
}

async fn refused_as(env: &Env, a: &AgentClient, body: &Value, expected: StatusCode, reason: &str) {
    let (status, err) = a.send(Method::POST, "/v1/requests", Some(body)).await.unwrap();
    assert_eq!(status, expected, "{body}: {err}");
    assert_eq!(err["error"]["reason"], reason, "{body}: {err}");
    assert!(pending_ids(env).await.is_empty(), "{body}");
}

#[tokio::test]
async fn a_rule_names_one_agent_key_and_is_signed_after_the_persons_yes() {
    let env = start().await;
    let a = paired_agent(&env, 12).await;
    let noor = principal_of(&SigningKey::from_bytes(&[0x81; 32]));
    person(&env, Command::ContactsAdd { principal: noor.clone(), name: "Noor Haddad".into(), relationship: None })
        .await
        .unwrap();
    let body = json!({
        "kind": "rule", "idempotency_key": "rule-1", "agent_jkt": jkt(&a),
        "label": "Weekend playdates with my contacts", "services": ["playdate"],
        "weekdays": ["sat", "sun"], "tz": "America/Toronto", "organizers": [noor], "lifetime": "P400D"
    });
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    assert_eq!(r["status"], "pending", "{r}");
    // §7.9: the person's own label, what it covers (organizers by the person's
    // contact names), and which paired assistant's key may answer by it.
    let text = r["consent_text"].as_str().unwrap();
    assert!(text.contains("\"Weekend playdates with my contacts\""), "{text}");
    assert!(text.contains("Noor Haddad"), "{text}");
    assert!(text.contains("Calendar Assistant") && text.contains(&keyapp::service::fingerprint(&jkt(&a))), "{text}");
    let done = approved(&env, &a, &r).await;
    let rule = schcp::verify::verify_rule(done["result"]["rule"].as_str().unwrap()).expect("a valid rule");
    let me = a.call(Method::GET, "/v1/principal", None).await.unwrap();
    assert_eq!(rule.claims.iss, me["principal"].as_str().unwrap());
    assert_eq!(rule.claims.cnf.jkt, jkt(&a));
    assert_eq!(rule.claims.organizers, Some(vec![noor.clone()]));
    assert_eq!(done["result"]["jti"], rule.claims.jti.as_str());
    assert_eq!(done["result"]["exp"], rule.claims.exp);
    assert!(rule.claims.exp - rule.claims.iat <= 180 * 86_400, "400 days asked, the cap signed");

    // The person's list shows it; the agent's list of mandates does not, and a
    // rule, being unpublished, cannot be revoked.
    let all = person(&env, Command::Mandates).await.unwrap();
    assert!(
        all.as_array().unwrap().iter().any(|m| m["jti"] == rule.claims.jti.as_str() && m["kind"] == "rule"),
        "{all}"
    );
    let mine = a.call(Method::GET, "/v1/mandates", None).await.unwrap();
    assert!(mine.as_array().unwrap().iter().all(|m| m["kind"] != "rule"), "{mine}");
    let err = person(&env, Command::Revoke { jti: rule.claims.jti.clone() }).await.unwrap_err();
    assert_eq!(err["reason"], "not_revocable", "{err}");

    // A key the person never paired is named as such.
    let stranger = jkt(&agent(&env, 99));
    let r = a
        .call(
            Method::POST,
            "/v1/requests",
            Some(&json!({"kind": "rule", "idempotency_key": "rule-2", "agent_jkt": stranger, "label": "Anything"})),
        )
        .await
        .unwrap();
    assert!(r["consent_text"].as_str().unwrap().contains("not paired with this key app"), "{r}");
    person(&env, Command::Decline { id: r["request_id"].as_str().unwrap().to_owned() }).await.unwrap();
    let declined =
        a.call(Method::GET, &format!("/v1/requests/{}", r["request_id"].as_str().unwrap()), None).await.unwrap();
    assert_eq!(declined["status"], "declined");
    assert!(declined.get("result").is_none() || declined["result"].is_null(), "{declined}");

    // Rules that could not be valid are refused before the person is asked.
    let base = json!({"kind": "rule", "agent_jkt": jkt(&a), "label": "Weekends"});
    for (key, change, reason) in [
        ("bad-1", json!({"weekdays": ["sat"]}), "bad_rule"),
        ("bad-2", json!({"agent_jkt": "not-a-thumbprint"}), "bad_rule"),
        ("bad-3", json!({"weekdays": ["sat"], "tz": "Mars/Olympus_Mons"}), "bad_rule"),
        ("bad-4", json!({"organizers": ["noor"]}), "bad_rule"),
        ("bad-5", json!({"services": []}), "bad_rule"),
        ("bad-6", json!({"lifetime": "forever"}), "bad_lifetime"),
        ("bad-7", json!({"colour": "red"}), "malformed"),
    ] {
        let mut body = base.clone();
        body["idempotency_key"] = json!(key);
        for (k, v) in change.as_object().unwrap() {
            body[k] = v.clone();
        }
        refused(&env, &a, &body, reason).await;
    }
}

/// The §5.12 playdate, organized by Noor, with this key app's person as Ellis,
/// Priya, and a child coming along.
fn playdate(me: &str, organizer: &SigningKey, iat: i64, exp: i64) -> schcp::verify::VerifiedContract {
    let priya = principal_of(&SigningKey::from_bytes(&[0x82; 32]));
    let mut claims = playdate_claims(organizer, me, &[(&priya, "Priya Shah", "priya-shah")], iat, exp);
    claims["attendees"] = json!([{"name": "Mira", "relationship": "child"}]);
    signed_contract(claims, iat, organizer)
}

#[tokio::test]
async fn a_member_accepts_a_meeting_contract_as_shown() {
    let env = start().await;
    let a = paired_agent(&env, 13).await;
    let me = a.call(Method::GET, "/v1/principal", None).await.unwrap()["principal"].as_str().unwrap().to_owned();
    let noor = SigningKey::from_bytes(&[0x81; 32]);
    person(
        &env,
        Command::ContactsAdd { principal: principal_of(&noor), name: "Noor Haddad".into(), relationship: None },
    )
    .await
    .unwrap();
    let contract = playdate(&me, &noor, now(), now() + 3600);
    let body = json!({"kind": "acceptance", "idempotency_key": "acc-1", "contract": contract.compact});
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    // The organizer by the person's own name for them; Priya, not a contact, flagged.
    assert!(text.starts_with("I accept: Playdate arranged by Noor Haddad (noor-haddad), with someone you don't know, named \"Priya Shah\" (priya-shah), "), "{text}");
    assert!(text.contains("with Mira (child) coming along"), "{text}");
    let done = approved(&env, &a, &r).await;
    assert_eq!(done["result"]["contract_sha256"], contract.contract_sha256.as_str());
    // The acceptance is a record like any credential, in the history too.
    let listed = person(&env, Command::Mandates).await.unwrap();
    let record = listed.as_array().unwrap().iter().find(|m| m["kind"] == "acceptance").expect("kept").clone();
    assert_eq!(record["meeting"]["contract_sha256"], contract.contract_sha256.as_str());
    assert_eq!(record["meeting"]["meeting_id"], contract.claims.meeting_id.as_str());
    assert_eq!(record["meeting"]["current"], true);
    let history = person(&env, Command::History).await.unwrap();
    assert!(history
        .as_array()
        .unwrap()
        .iter()
        .any(|h| h["event"] == "credential_issued" && h["subject"] == record["jti"]));
    let err = person(&env, Command::Revoke { jti: record["jti"].as_str().unwrap().to_owned() }).await.unwrap_err();
    assert_eq!(err["reason"], "not_revocable", "{err}");
    // Every other calendar can check it (§5.12 "It is valid for a member when").
    let accepted =
        schcp::verify::verify_acceptance(done["result"]["acceptance"].as_str().unwrap(), &contract, &me, now())
            .expect("a valid acceptance by person");
    assert_eq!(accepted.claims.statement.as_deref(), text.lines().next());

    // Contracts this person cannot accept are refused before they are asked.
    let stranger = principal_of(&SigningKey::from_bytes(&[0x84; 32]));
    let not_mine = playdate(&stranger, &noor, now(), now() + 3600);
    // Verified but not this person's: 422, like any credential that fails.
    refused_as(
        &env,
        &a,
        &json!({"kind": "acceptance", "idempotency_key": "acc-2", "contract": not_mine.compact}),
        StatusCode::UNPROCESSABLE_ENTITY,
        "not_a_member",
    )
    .await;
    let lapsed = playdate(&me, &noor, now() - 7200, now() - 3600);
    let body = json!({"kind": "acceptance", "idempotency_key": "acc-3", "contract": lapsed.compact});
    refused_as(&env, &a, &body, StatusCode::UNPROCESSABLE_ENTITY, "meeting_invalid").await;
    let mut forged = contract.compact.clone().into_bytes();
    let i = forged.len() - 3;
    forged[i] = if forged[i] == b'A' { b'B' } else { b'A' };
    let forged = String::from_utf8(forged).unwrap();
    let (status, err) = a
        .send(
            Method::POST,
            "/v1/requests",
            Some(&json!({"kind": "acceptance", "idempotency_key": "acc-4", "contract": forged})),
        )
        .await
        .unwrap();
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    assert!(pending_ids(&env).await.is_empty());
}

#[tokio::test]
async fn the_organizer_signs_a_meeting_contract_over_every_members_verified_offer() {
    let (env, others) = start_trusting(
        vec![
            calendar("noor-haddad", "Noor's calendar", "noor.example").await,
            calendar("priya-shah", "Priya's calendar", "priya.example").await,
            calendar("cafe-lumiere", "Café Lumière", "cafelumiere.example").await,
        ],
        |_| {},
    )
    .await;
    let (priya_cal, cafe) = (&others[0], &others[1]);
    let a = paired_agent(&env, 14).await;
    let me = a.call(Method::GET, "/v1/principal", None).await.unwrap()["principal"].as_str().unwrap().to_owned();
    let priya_key = SigningKey::from_bytes(&[0x82; 32]);
    let priya = principal_of(&priya_key);
    person(&env, Command::ContactsAdd { principal: priya.clone(), name: "Priya Shah".into(), relationship: None })
        .await
        .unwrap();
    let day = chrono::Utc::now() + chrono::Duration::days(3);
    let start = day.format("%Y-%m-%dT17:00:00Z").to_string();
    let offers = [
        meeting_offer(&env.host, Some(&me), &start),
        meeting_offer(priya_cal, Some(&priya), &start),
        meeting_offer(cafe, None, &start),
    ];
    let body = |key: &str, offers: &[String], exp: i64| {
        json!({
            "kind": "meeting_contract", "idempotency_key": key,
            "meeting": {
                "title": "Playdate", "tz": "America/Toronto", "start": start, "open_end": true,
                "place": {"name": "Café Lumière", "locality": "Toronto"},
                "attendees": [{"name": "Mira", "relationship": "child"}], "exp": exp
            },
            "members": [
                {"name": "Noor Haddad", "host": "noor-haddad", "discovery": env.host.discovery_url(), "offer": offers[0]},
                {"name": "Priya's probation officer", "host": "priya-shah", "discovery": priya_cal.discovery_url(),
                 "offer": offers[1], "answers": "person"},
                {"name": "The place downstairs", "host": "cafe-lumiere", "discovery": cafe.discovery_url(), "offer": offers[2],
                 "business": true}
            ]
        })
    };
    let r = a.call(Method::POST, "/v1/requests", Some(&body("meet-1", &offers, now() + 3600))).await.unwrap();
    let text = r["consent_text"].as_str().unwrap().to_owned();
    // Members by the person's contact names, with the domains the key app itself discovered.
    assert!(
        text.starts_with(
            "I approve: Playdate with Priya Shah (priya.example) and Café Lumière (cafelumiere.example), "
        ),
        "{text}"
    );
    assert!(text.contains("with Mira (child) coming along"), "{text}");
    // Priya answers in person (her own answers), and the business's price commits the organizer too (§5.3).
    assert!(text.contains("Priya Shah answers in person"), "{text}");
    assert!(text.contains("CAD 89.27"), "{text}");
    let done = approved(&env, &a, &r).await;
    let contract = schcp::verify::verify_meeting_contract(done["result"]["contract"].as_str().unwrap(), now())
        .expect("every member's calendar verifies it");
    let c = &contract.claims;
    assert_eq!(done["result"]["contract_sha256"], contract.contract_sha256.as_str());
    assert_eq!(
        (done["result"]["meeting_id"].as_str(), done["result"]["revision"].as_u64()),
        (Some(c.meeting_id.as_str()), Some(1))
    );
    assert_eq!(c.iss, me);
    assert_eq!(c.statement, text.lines().next().unwrap(), "the statement is the text the person approved");
    let principals: Vec<&str> = c.members.iter().map(|m| m.principal.as_str()).collect();
    assert_eq!(principals, [me.as_str(), priya.as_str(), "urn:schcp:host:cafe-lumiere"]);
    // A business is named as its signed offer names it, not as the agent did (§5.12),
    // and a contact as the person's text named them: the agent's label for Priya,
    // which the person never saw, is not what their key signs.
    assert_eq!(c.members[2].name, "Café Lumière");
    assert_eq!(c.members[1].name, "Priya Shah");
    assert!(!text.contains("probation"), "{text}");
    assert!(!text.contains("downstairs"), "{text}");
    for (m, offer) in c.members.iter().zip(&offers) {
        assert_eq!(m.offer_sha256, schcp::hash::jws_sha256(offer), "{}", m.host);
    }
    // Priya's key app can accept it (§5.12 "Acceptances").
    let accepted = schcp::issue::acceptance(&contract, "I accept: a playdate.".into(), now(), &priya_key).unwrap();
    schcp::verify::verify_acceptance(&accepted.compact, &contract, &priya, now()).unwrap();

    // Contracts no calendar would accept are refused before the person is asked.
    let later = day.format("%Y-%m-%dT18:00:00Z").to_string();
    let moved = [offers[0].clone(), meeting_offer(priya_cal, Some(&priya), &later), offers[2].clone()];
    refused(&env, &a, &body("meet-2", &moved, now() + 3600), "contract_mismatch").await;
    let mut elsewhere: OfferClaims =
        serde_json::from_value(schcp::jws::parse(&offers[1]).unwrap().payload.clone()).unwrap();
    elsewhere.place.as_mut().unwrap().name = Some("Christie Pits".into());
    let elsewhere = [offers[0].clone(), priya_cal.sign_offer(&elsewhere).unwrap(), offers[2].clone()];
    refused(&env, &a, &body("meet-9", &elsewhere, now() + 3600), "contract_mismatch").await;
    // The café is on its own premises (its offer names no place), so the meeting
    // cannot be said to be somewhere else.
    let park = schcp::claims::Place { name: Some("Trinity Bellwoods Park playground".into()), ..Default::default() };
    let at_park = [
        meeting_offer_at(&env.host, Some(&me), &start, &park),
        meeting_offer_at(priya_cal, Some(&priya), &start, &park),
        offers[2].clone(),
    ];
    let mut in_the_park = body("meet-10", &at_park, now() + 3600);
    in_the_park["meeting"]["place"] = json!({"name": "Trinity Bellwoods Park playground"});
    refused(&env, &a, &in_the_park, "contract_mismatch").await;
    // A person's calendar passed off as a business.
    let mut as_business = body("meet-11", &offers, now() + 3600);
    as_business["members"][1]["business"] = json!(true);
    refused(&env, &a, &as_business, "meeting_invalid").await;
    let stranger = principal_of(&SigningKey::from_bytes(&[0x85; 32]));
    let not_mine = [meeting_offer(&env.host, Some(&stranger), &start), offers[1].clone(), offers[2].clone()];
    refused(&env, &a, &body("meet-3", &not_mine, now() + 3600), "meeting_invalid").await;
    let mut unmarked = body("meet-4", &offers, now() + 3600);
    unmarked["members"][2].as_object_mut().unwrap().remove("business");
    refused(&env, &a, &unmarked, "meeting_invalid").await;
    let start_ts = chrono::DateTime::parse_from_rfc3339(&start).unwrap().timestamp();
    refused(&env, &a, &body("meet-5", &offers, start_ts + 60), "meeting_invalid").await;
    let mut wrong_host = body("meet-6", &offers, now() + 3600);
    wrong_host["members"][1]["host"] = json!("someone-else");
    refused(&env, &a, &wrong_host, "host_mismatch").await;
    let mut revision = body("meet-7", &offers, now() + 3600);
    revision["meeting"]["revision"] = json!(2);
    refused(&env, &a, &revision, "meeting_invalid").await;

    // A revision: only of a meeting approved here, higher, with the same members,
    // and its text says what it replaces.
    let later_start = later.clone();
    let later = [
        meeting_offer(&env.host, Some(&me), &later),
        meeting_offer(priya_cal, Some(&priya), &later),
        meeting_offer(cafe, None, &later),
    ];
    let revise = |key: &str, id: &str, rev: u32| {
        let mut b = body(key, &later, now() + 3600);
        b["meeting"]["start"] = json!(day.format("%Y-%m-%dT18:00:00Z").to_string());
        b["meeting"]["meeting_id"] = json!(id);
        b["meeting"]["revision"] = json!(rev);
        b
    };
    refused(&env, &a, &revise("rev-0", "mtg_never_approved_here", 2), "meeting_invalid").await;
    // The record of the approved contract rewritten outside the key app, its
    // statement changed (the signature no longer holds): it is no contract the
    // person signed, so there is nothing here to revise, and no word of it shown.
    let pool = env.app.service.records().store().pool();
    let (jti, compact): (String, String) = sqlx::query_as(
        "SELECT c.jti, c.compact FROM meeting_records m JOIN credentials c ON c.jti = m.jti WHERE m.meeting_id = ?",
    )
    .bind(&c.meeting_id)
    .fetch_one(pool)
    .await
    .unwrap();
    let mut parts: Vec<String> = compact.split('.').map(str::to_owned).collect();
    let mut payload: Value = serde_json::from_slice(&schcp::b64::decode(&parts[1]).unwrap()).unwrap();
    payload["statement"] = json!("I agree to pay Noor 500 CAD for the playdate");
    parts[1] = schcp::b64::encode(serde_json::to_vec(&payload).unwrap());
    let set = |compact: String| {
        let (pool, jti) = (pool.clone(), jti.clone());
        async move {
            let q = sqlx::query("UPDATE credentials SET compact = ? WHERE jti = ?").bind(compact).bind(jti);
            assert_eq!(q.execute(&pool).await.unwrap().rows_affected(), 1);
        }
    };
    set(parts.join(".")).await;
    refused(&env, &a, &revise("rev-forged", &c.meeting_id, 2), "meeting_invalid").await;
    set(compact.clone()).await;
    let r = a.call(Method::POST, "/v1/requests", Some(&revise("rev-1", &c.meeting_id, 2))).await.unwrap();
    let revised_text = r["consent_text"].as_str().unwrap();
    let second_line = revised_text.lines().nth(1).unwrap();
    assert_eq!(
        second_line,
        format!("This is revision 2 of a meeting I approved before, and replaces it: {}", c.statement)
    );
    person(&env, Command::Approve { id: r["request_id"].as_str().unwrap().to_owned() }).await.unwrap();
    let done = a.call(Method::GET, &format!("/v1/requests/{}", r["request_id"].as_str().unwrap()), None).await.unwrap();
    let revised = schcp::verify::verify_meeting_contract(done["result"]["contract"].as_str().unwrap(), now()).unwrap();
    assert_eq!((revised.claims.meeting_id.as_str(), revised.claims.revision), (c.meeting_id.as_str(), 2));
    // Both contracts are records, and the record says which revision is current.
    let listed = person(&env, Command::Mandates).await.unwrap();
    let mut kept: Vec<(u64, bool)> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == "meeting_contract" && m["meeting"]["meeting_id"] == c.meeting_id.as_str())
        .map(|m| (m["meeting"]["revision"].as_u64().unwrap(), m["meeting"]["current"].as_bool().unwrap()))
        .collect();
    kept.sort();
    assert_eq!(kept, [(1, false), (2, true)], "{listed}");
    let second = listed.as_array().unwrap().iter().find(|m| m["meeting"]["revision"] == 2).unwrap();
    assert_eq!(second["meeting"]["contract_sha256"], done["result"]["contract_sha256"]);
    assert_eq!(second["meeting"]["members"].as_array().unwrap().len(), revised.claims.members.len());
    let err = person(&env, Command::Revoke { jti: second["jti"].as_str().unwrap().to_owned() }).await.unwrap_err();
    assert_eq!(err["reason"], "not_revocable", "{err}");
    // Not a mandate: the agent's mandate list leaves it out.
    let agents_list = a.call(Method::GET, "/v1/mandates", None).await.unwrap();
    assert!(agents_list.as_array().unwrap().iter().all(|m| m["kind"] != "meeting_contract"), "{agents_list}");
    refused(&env, &a, &revise("rev-2", &c.meeting_id, 2), "meeting_invalid").await;
    let mut other_people = revise("rev-3", &c.meeting_id, 3);
    other_people["members"][1]["offer"] = json!(meeting_offer(priya_cal, Some(&stranger), &later_start));
    refused(&env, &a, &other_people, "meeting_invalid").await;
    let mut alone = revise("rev-4", &c.meeting_id, 3);
    alone["members"].as_array_mut().unwrap().remove(1);
    refused(&env, &a, &alone, "meeting_invalid").await;
    let mut one = body("meet-8", &offers, now() + 3600);
    one["members"].as_array_mut().unwrap().truncate(1);
    refused(&env, &a, &one, "meeting_invalid").await;
}

/// A closed mandate is a yes the person can take back until the
/// booking is made, so it names a status URL; revoking it flips what hosts
/// read there at once. A credential without one is refused, never "revoked".
#[tokio::test]
async fn a_revoked_closed_mandate_is_revoked_where_hosts_look() {
    let env = start().await;
    let a = paired_agent(&env, 41).await;
    let (_, offer) = future_offer(&env.host, 4);
    let r = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "revocable"))).await.unwrap();
    let done = approved(&env, &a, &r).await;
    let jti = done["result"]["jti"].as_str().unwrap().to_owned();
    let mandate = schcp::jws::parse(done["result"]["mandate"].as_str().unwrap()).unwrap();
    assert_eq!(mandate.payload["status"], format!("https://keyapp.example/status/{jti}"), "the signed status claim");

    let url = format!("http://{}/status/{jti}", env.app.status_addr);
    let http = reqwest::Client::new();
    let before: Value = http.get(&url).send().await.unwrap().json().await.unwrap();
    assert_eq!(before, json!({"jti": jti, "status": "active"}));
    person(&env, Command::Revoke { jti: jti.clone() }).await.unwrap();
    let after: Value = http.get(&url).send().await.unwrap().json().await.unwrap();
    assert_eq!(after, json!({"jti": jti, "status": "revoked"}), "a host's §3.3 check 7 now refuses it");
    let listed = person(&env, Command::Mandates).await.unwrap();
    let entry = listed.as_array().unwrap().iter().find(|m| m["jti"] == jti.as_str()).unwrap().clone();
    assert_eq!(entry["status"], "revoked");

    // Its record made to read as one with no status URL (by another program:
    // the row no longer holds its seal) is still taken back, since the
    // credential as signed names one hosts read; a credential whose signed
    // claims name none is refused (service::records' unit tests).
    sqlx::query("UPDATE credentials SET status_url = NULL, revoked_at = NULL WHERE jti = ?")
        .bind(&jti)
        .execute(env.app.service.records().store().pool())
        .await
        .unwrap();
    person(&env, Command::Revoke { jti: jti.clone() }).await.unwrap();
    let (revoked,): (Option<i64>,) = sqlx::query_as("SELECT revoked_at FROM credentials WHERE jti = ?")
        .bind(&jti)
        .fetch_one(env.app.service.records().store().pool())
        .await
        .unwrap();
    assert!(revoked.is_some(), "revoked as the person asked");
}

/// §3.3 step 1: a root mandate lets its management mandates skip the person
/// only at the hosts it names. Another host that learnt the root's jti and
/// cites it in its own receipt gets the person asked.
#[tokio::test]
async fn a_host_the_root_does_not_name_cannot_cite_it_to_skip_the_person() {
    let (env, mut others) = start_trusting(
        vec![
            TestHost::start(TestHostConfig::default()).await,
            calendar("elm-street-auto", "Elm Street Auto", "elmstreetauto.example").await,
        ],
        |_| {},
    )
    .await;
    let elm = others.remove(0);
    let a = paired_agent(&env, 9).await;
    let body = json!({
        "kind": "mandate", "idempotency_key": "root-maple",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book", "cancel", "reschedule"],
        "constraints": {"services": ["oil-change"], "max_price": {"amount": "100.00", "currency": "CAD"}, "max_bookings": 1},
        "lifetime": "P1D"
    });
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let done = approved(&env, &a, &r).await;
    let jti = done["result"]["jti"].as_str().unwrap().to_owned();

    // At the host it names: no prompt.
    let (_, offer) = future_offer(&env.host, 7);
    let receipt = env.host.receipt(&offer, &jti, Approved::Limits, now()).unwrap();
    let body = json!({"kind": "management_mandate", "idempotency_key": "mgmt-maple", "receipt": receipt,
                      "discovery": env.host.discovery_url()});
    assert_eq!(a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap()["status"], "approved");
    // At a host it does not name, under the same jti: the person is asked.
    let (_, offer) = future_offer(&elm, 7);
    let receipt = elm.receipt(&offer, &jti, Approved::Limits, now()).unwrap();
    let body = json!({"kind": "management_mandate", "idempotency_key": "mgmt-elm", "receipt": receipt,
                      "discovery": elm.discovery_url()});
    let m = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    assert_eq!(m["status"], "pending", "{m}");
    assert_eq!(pending_ids(&env).await, vec![m["request_id"].as_str().unwrap().to_owned()]);
}
