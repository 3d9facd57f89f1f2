//! Hosted mode against a stand-in status service: what the key app
//! sends, when the agent receives a credential, and what the person is told,
//! with the service down and then up. The stand-in answers like `schcp-status`
//! (docs/hosted-status.md) without PostgreSQL; `hosted_e2e.rs` runs the real one.
//! Run under scripts/with-keyring (the key app uses the OS keychain).

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use keyapp::app;
use keyapp::control::Command;
use reqwest::Method;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use testkit::env::*;
use testkit::now;

/// The stand-in's state: whether it answers, and what it was told.
#[derive(Default)]
struct Stand {
    up: AtomicBool,
    /// Every update it accepted: (namespace, header, payload).
    updates: Mutex<Vec<(String, Value, Value)>>,
    /// jti → revoked.
    known: Mutex<BTreeMap<String, bool>>,
    /// A §9 reason every update is refused with (403), when set.
    refuse: Mutex<Option<&'static str>>,
    /// Updates posted, refused or not.
    posted: std::sync::atomic::AtomicUsize,
}

fn part(jws: &str, i: usize) -> Value {
    serde_json::from_slice(&schcp::b64::decode(jws.split('.').nth(i).unwrap()).unwrap()).unwrap()
}

async fn publish(State(s): State<Arc<Stand>>, Path(thumb): Path<String>, headers: HeaderMap, body: Bytes) -> Response {
    if !s.up.load(Ordering::SeqCst) {
        return (StatusCode::SERVICE_UNAVAILABLE, "down").into_response();
    }
    assert_eq!(headers["content-type"], "application/jose");
    s.posted.fetch_add(1, Ordering::SeqCst);
    if let Some(reason) = *s.refuse.lock().unwrap() {
        let body = json!({"error": {"code": "NOT_PERMITTED", "reason": reason, "message": "refused by the stand-in"}});
        return (StatusCode::FORBIDDEN, Json(body)).into_response();
    }
    let jws = std::str::from_utf8(&body).unwrap();
    // The service's own check (docs/hosted-status.md): signature by the
    // namespace's key, closed payload, iat window.
    if let Err(e) = schcp::status_update::verify(jws, &thumb, now()) {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"error": {"code": "X", "reason": e.reason(), "message": e.to_string()}})),
        )
            .into_response();
    }
    let (header, payload) = (part(jws, 0), part(jws, 1));
    let jti = payload["credential"]["jti"].as_str().unwrap().to_owned();
    let op = payload["op"].as_str().unwrap().to_owned();
    s.updates.lock().unwrap().push((thumb, header, payload));
    let mut known = s.known.lock().unwrap();
    match op.as_str() {
        "register" if known.contains_key(&jti) => (StatusCode::OK, Json(json!({"jti": jti}))).into_response(),
        "register" => {
            known.insert(jti.clone(), false);
            (StatusCode::CREATED, Json(json!({"jti": jti, "status": "active"}))).into_response()
        }
        _ => match known.get_mut(&jti) {
            Some(r) => {
                *r = true;
                (StatusCode::OK, Json(json!({"jti": jti, "status": "revoked"}))).into_response()
            }
            None => StatusCode::NOT_FOUND.into_response(),
        },
    }
}

async fn status(State(s): State<Arc<Stand>>, Path((_thumb, jti)): Path<(String, String)>) -> Response {
    if !s.up.load(Ordering::SeqCst) {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    match s.known.lock().unwrap().get(&jti) {
        // A count only the service could know: hosts claimed 2 of 3 there.
        Some(revoked) => {
            Json(json!({"jti": jti, "status": if *revoked { "revoked" } else { "active" }, "remaining": 1}))
                .into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn stand_in() -> (Arc<Stand>, String) {
    let stand = Arc::new(Stand::default());
    let app = Router::new()
        .route("/status/{thumb}", post(publish))
        .route("/status/{thumb}/{jti}", get(status))
        .with_state(stand.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (stand, url)
}

async fn start_hosted(url: &str) -> Env {
    start_with(|config| {
        config.status_api.hosted = Some(format!("{url}/"));
        // The stand-in is on this machine, over http: hosts here can read it.
        config.status_api.hosts_on_this_machine = true;
    })
    .await
}

/// The stand-in, answering, and the key app publishing to it.
async fn up_and_hosted() -> (Arc<Stand>, String, Env) {
    let (stand, url) = stand_in().await;
    stand.up.store(true, Ordering::SeqCst);
    let env = start_hosted(&url).await;
    (stand, url, env)
}

/// The agent asks for a shared-limit mandate (idempotency `key`): the request's id.
async fn ask_mandate(env: &Env, a: &agent::AgentClient, key: &str) -> String {
    let r = a.call(Method::POST, "/v1/requests", Some(&shared_mandate(env, key))).await.unwrap();
    r["request_id"].as_str().unwrap().to_owned()
}

fn shared_mandate(env: &Env, key: &str) -> Value {
    json!({
        "kind": "mandate", "idempotency_key": key,
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book"], "constraints": {"max_bookings": 3, "shared_limit": true}
    })
}

async fn listed(env: &Env, jti: &str) -> Value {
    let all = person(env, Command::Mandates).await.unwrap();
    all.as_array().unwrap().iter().find(|m| m["jti"] == jti).cloned().expect("listed")
}

/// Waits up to `secs` for `check`, looking every 200 ms.
async fn eventually<F: std::future::Future<Output = bool>>(secs: u64, check: impl Fn() -> F) -> bool {
    for _ in 0..secs * 5 {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    false
}

#[tokio::test]
async fn the_agent_receives_the_mandate_only_once_the_service_has_it() {
    let (stand, url) = stand_in().await;
    let env = start_hosted(&url).await;
    let a = paired_agent(&env, 40).await;
    let me = a.call(Method::GET, "/v1/principal", None).await.unwrap();
    let thumb = me["principal"].as_str().unwrap().rsplit(':').next().unwrap().to_owned();

    // The service is down when the person approves.
    let rid = ask_mandate(&env, &a, "s1").await;
    let approved = person(&env, Command::Approve { id: rid.clone() }).await.unwrap();
    assert_eq!(approved["status"], "approved", "the person's answer is recorded");
    let jti = approved["result"]["jti"].as_str().unwrap().to_owned();

    // The agent does not get it yet: still pending, no result, not listed.
    let seen = a.call(Method::GET, &format!("/v1/requests/{rid}?wait=2"), None).await.unwrap();
    assert_eq!(seen["status"], "pending", "{seen}");
    assert!(seen.get("result").is_none(), "{seen}");
    assert!(a.call(Method::GET, "/v1/mandates", None).await.unwrap().as_array().unwrap().is_empty());
    let mine = listed(&env, &jti).await;
    assert_eq!(mine["publication"], "registration_pending", "{mine}");
    assert!(stand.updates.lock().unwrap().is_empty());
    // Withdrawing it now is refused: the person already said yes.
    let (status, _) = a.send(Method::DELETE, &format!("/v1/requests/{rid}"), None).await.unwrap();
    assert_eq!(status, reqwest::StatusCode::CONFLICT);

    // The service comes up: a long poll in progress is answered once it has it.
    let poll = {
        let a = agent(&env, 40);
        let rid = rid.clone();
        tokio::spawn(async move { a.call(Method::GET, &format!("/v1/requests/{rid}?wait=30"), None).await.unwrap() })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    stand.up.store(true, Ordering::SeqCst);
    let done = tokio::time::timeout(Duration::from_secs(25), poll).await.expect("delivered after the retry").unwrap();
    assert_eq!(done["status"], "approved", "{done}");
    assert_eq!(done["result"]["jti"], jti);
    assert_eq!(done["result"]["status"], format!("{url}/status/{thumb}/{jti}"), "namespaced, no doubled slash");

    // Exactly what docs/hosted-status.md says, signed by the principal key.
    let updates = stand.updates.lock().unwrap().clone();
    assert_eq!(updates.len(), 1);
    let (ns, header, payload) = &updates[0];
    assert_eq!(ns, &thumb);
    assert_eq!(header, &json!({"alg": "EdDSA", "typ": "schcp-status-update+jwt"}));
    assert_eq!(payload["iss"], me["principal"]);
    assert_eq!(payload["principal_jwk"], me["jwk"]);
    assert_eq!(payload["op"], "register");
    assert!((payload["iat"].as_i64().unwrap() - now()).abs() <= 60);
    assert_eq!(
        payload["credential"],
        json!({"jti": jti, "exp": done["result"]["exp"], "aud": ["maple-street-auto"], "max_bookings": 3,
               "shared_limit": true, "host_keys": {"maple-street-auto": env.host.key_thumbprints()}}),
        "the host keys verified at issuance travel with the registration (signed claims)"
    );
    let mut members: Vec<&str> = payload.as_object().unwrap().keys().map(String::as_str).collect();
    members.sort();
    assert_eq!(members, ["credential", "iat", "iss", "jti", "op", "principal_jwk"]);

    // Listed to the agent now, and the person's remaining is the service's.
    let theirs = a.call(Method::GET, "/v1/mandates", None).await.unwrap();
    assert_eq!(theirs[0]["jti"], jti);
    assert!(theirs[0].get("publication").is_none());
    let mine = listed(&env, &jti).await;
    assert!(mine.get("publication").is_none(), "{mine}");
    assert_eq!(mine["remaining"], 1, "read from the service, not the local count (3)");
}

#[tokio::test]
async fn a_revocation_made_while_the_service_is_down_arrives_when_it_is_up() {
    let (stand, _, env) = up_and_hosted().await;
    let a = paired_agent(&env, 41).await;
    let rid = ask_mandate(&env, &a, "s2").await;
    person(&env, Command::Approve { id: rid.clone() }).await.unwrap();
    // Published before approve returned: the agent has it at once.
    let done = a.call(Method::GET, &format!("/v1/requests/{rid}"), None).await.unwrap();
    assert_eq!(done["status"], "approved");
    let jti = done["result"]["jti"].as_str().unwrap().to_owned();

    stand.up.store(false, Ordering::SeqCst);
    person(&env, Command::Revoke { jti: jti.clone() }).await.unwrap();
    let mine = listed(&env, &jti).await;
    assert_eq!(mine["status"], "revoked", "recorded here at once");
    assert_eq!(mine["publication"], "revocation_pending");
    assert_eq!(mine["publication_note"], "revocation not yet published");
    assert!(mine.get("remaining").is_none(), "the service does not answer: unknown, not the local count");
    // The agent's view says revoked, without the person's publication words.
    let theirs = a.call(Method::GET, "/v1/mandates", None).await.unwrap();
    assert_eq!(theirs[0]["status"], "revoked");
    assert!(theirs[0].get("publication_note").is_none());
    // Retried while down (backoff), and a second revoke owes nothing more.
    tokio::time::sleep(Duration::from_secs(2)).await;
    person(&env, Command::Revoke { jti: jti.clone() }).await.unwrap();

    stand.up.store(true, Ordering::SeqCst);
    let arrived = eventually(20, || async { stand.known.lock().unwrap().get(&jti) == Some(&true) }).await;
    assert!(arrived, "the revocation reached the service");
    assert!(eventually(5, || async { listed(&env, &jti).await.get("publication").is_none() }).await);
    let revokes = stand.updates.lock().unwrap().iter().filter(|(_, _, p)| p["op"] == "revoke").count();
    assert_eq!(revokes, 1, "acknowledged once, never sent again");
    // Each attempt is a new update: a fresh jti, so the service never sees a replay.
    let ids: std::collections::BTreeSet<String> =
        stand.updates.lock().unwrap().iter().map(|(_, _, p)| p["jti"].as_str().unwrap().to_owned()).collect();
    assert_eq!(ids.len(), stand.updates.lock().unwrap().len());
}

#[tokio::test]
async fn the_french_person_reads_the_note_in_french() {
    let (stand, url) = stand_in().await;
    stand.up.store(true, Ordering::SeqCst);
    let env = start_with(|config| {
        config.status_api.hosted = Some(url.clone());
        config.status_api.hosts_on_this_machine = true;
        config.locale = Some("fr".into());
    })
    .await;
    let a = paired_agent(&env, 42).await;
    let rid = ask_mandate(&env, &a, "s3").await;
    let jti = person(&env, Command::Approve { id: rid }).await.unwrap()["result"]["jti"].as_str().unwrap().to_owned();
    stand.up.store(false, Ordering::SeqCst);
    person(&env, Command::Revoke { jti: jti.clone() }).await.unwrap();
    assert_eq!(listed(&env, &jti).await["publication_note"], "révocation pas encore publiée");
}

/// A refusal for good (`namespace_full`) ends the agent's wait with that
/// reason and is not retried; a refusal that may pass later is retried.
#[tokio::test]
async fn a_registration_refused_for_good_is_answered_and_not_retried() {
    let (stand, url, env) = up_and_hosted().await;
    *stand.refuse.lock().unwrap() = Some("namespace_full");
    let a = paired_agent(&env, 43).await;
    let rid = ask_mandate(&env, &a, "s4").await;
    let poll = {
        let a = agent(&env, 43);
        let rid = rid.clone();
        tokio::spawn(async move { a.send(Method::GET, &format!("/v1/requests/{rid}?wait=30"), None).await.unwrap() })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let approved = person(&env, Command::Approve { id: rid.clone() }).await.unwrap();
    assert_eq!(approved["status"], "approved", "the person's yes is recorded");
    let (status, body) = tokio::time::timeout(Duration::from_secs(10), poll).await.expect("answered at once").unwrap();
    assert_eq!(status, reqwest::StatusCode::FORBIDDEN, "{body}");
    assert_eq!(
        (body["error"]["code"].as_str(), body["error"]["reason"].as_str()),
        (Some("NOT_PERMITTED"), Some("namespace_full"))
    );
    assert_eq!(body["error"]["details"]["status_service"], url);
    // One attempt, however long the backoff would have been; the agent lists nothing.
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(stand.posted.load(Ordering::SeqCst), 1);
    assert!(a.call(Method::GET, "/v1/mandates", None).await.unwrap().as_array().unwrap().is_empty());

    // A refusal whose reason may pass later is retried as before.
    *stand.refuse.lock().unwrap() = Some("store_unavailable");
    let rid = ask_mandate(&env, &a, "s5").await;
    person(&env, Command::Approve { id: rid.clone() }).await.unwrap();
    assert!(eventually(10, || async { stand.posted.load(Ordering::SeqCst) >= 3 }).await, "retried");
    let seen = a.call(Method::GET, &format!("/v1/requests/{rid}"), None).await.unwrap();
    assert_eq!(seen["status"], "pending", "still waiting for a retry: {seen}");
}

/// The hostile assistant, running as the person, writes the records
/// (`keyapp.db`) while a registration is still owed (the service was down
/// at the yes): it raises the shared limit and adds its own key among the
/// host's, so that the key app would sign, on its own, a registration wider
/// than the person's yes. Nothing is signed from the changed row
/// (record_seal): the service hears nothing and the agent still waits. Put
/// back as it was, the row holds the seal the key app made at the yes, and
/// the person's own registration goes out; a row stripped of its seal never
/// does. (`publication.rs` tries each field the seal covers.)
#[tokio::test]
async fn a_registration_is_never_signed_from_a_record_widened_after_the_yes() {
    let (stand, url) = stand_in().await;
    let env = start_hosted(&url).await;
    let a = paired_agent(&env, 44).await;
    let rid = ask_mandate(&env, &a, "s6").await;
    let approved = person(&env, Command::Approve { id: rid.clone() }).await.unwrap();
    let jti = approved["result"]["jti"].as_str().unwrap().to_owned();

    let db = app::data_dir(&env.config).unwrap().join(keyapp::keystore::RECORDS_FILE_NAME);
    let db = sqlx::SqlitePool::connect(&format!("sqlite://{}", db.display())).await.unwrap();
    let issued: (Option<i64>, String) = sqlx::query_as("SELECT max_bookings, host_keys FROM credentials WHERE jti = ?")
        .bind(&jti)
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(issued.0, Some(3), "the person's limit, as issued");
    let widened = sqlx::query(
        "UPDATE credentials SET max_bookings = 1000,
                host_keys = json_set(host_keys, '$.\"maple-street-auto\"[#]', ?2) WHERE jti = ?1",
    )
    .bind(&jti)
    .bind("A".repeat(43))
    .execute(&db)
    .await
    .unwrap();
    assert_eq!(widened.rows_affected(), 1);

    // The service comes up; the publisher retries (its backoff is ≤ 2 s here).
    stand.up.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(stand.posted.load(Ordering::SeqCst), 0, "nothing signed from the widened row");
    let seen = a.call(Method::GET, &format!("/v1/requests/{rid}"), None).await.unwrap();
    assert_eq!(seen["status"], "pending", "the agent still waits: {seen}");
    assert_eq!(listed(&env, &jti).await["publication"], "registration_pending");

    // Put back exactly as the key app wrote it: the person's terms go out.
    sqlx::query("UPDATE credentials SET max_bookings = ?2, host_keys = ?3 WHERE jti = ?1")
        .bind(&jti)
        .bind(issued.0)
        .bind(&issued.1)
        .execute(&db)
        .await
        .unwrap();
    let arrived = eventually(25, || async { !stand.updates.lock().unwrap().is_empty() }).await;
    assert!(arrived, "published once put back");
    let updates = stand.updates.lock().unwrap().clone();
    assert_eq!(updates.len(), 1, "one registration");
    let credential = &updates[0].2["credential"];
    assert_eq!((&credential["jti"], &credential["max_bookings"]), (&json!(jti), &json!(3)));
    assert_eq!(credential["host_keys"], json!({"maple-street-auto": env.host.key_thumbprints()}));

    // A second credential whose row lost its seal (written by hand, or from
    // before seals) is never signed, whatever its values.
    stand.up.store(false, Ordering::SeqCst);
    let rid = ask_mandate(&env, &a, "s7").await;
    let approved = person(&env, Command::Approve { id: rid.clone() }).await.unwrap();
    let second = approved["result"]["jti"].as_str().unwrap().to_owned();
    sqlx::query("UPDATE credentials SET seal = NULL WHERE jti = ?").bind(&second).execute(&db).await.unwrap();
    let posted = stand.posted.load(Ordering::SeqCst);
    stand.up.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(stand.posted.load(Ordering::SeqCst), posted, "the unsealed row was never sent");
    assert_eq!(listed(&env, &second).await["publication"], "registration_pending");
}

/// The assistant keeps a revocation from ever leaving: a trigger in the
/// records marks each revocation's outbox row acknowledged as the key app
/// writes it, so nothing is sent and the person reads "revoked" while hosts
/// read "active". It also hides the credential from the check, as the row
/// tells it: an expiry in the past and a signed credential that no longer
/// reads back, or a registration the service "refused for good". The
/// person's listing asks the service anyway, at the address the principal
/// signed or every hosted credential has: the service does not hold the
/// revocation, so the key app signs it again and posts it at once. With the
/// service refusing that post too, the person reads that the revocation is
/// not yet published.
#[tokio::test]
async fn a_revocation_the_records_claim_was_sent_is_sent_once_the_listing_sees_hosts_do_not_know() {
    let (stand, _, env) = up_and_hosted().await;
    let a = paired_agent(&env, 45).await;
    let db = app::data_dir(&env.config).unwrap().join(keyapp::keystore::RECORDS_FILE_NAME);
    let db = sqlx::SqlitePool::connect(&format!("sqlite://{}", db.display())).await.unwrap();
    sqlx::query(
        "CREATE TRIGGER swallow AFTER INSERT ON status_outbox WHEN NEW.op = 'revoke'
         BEGIN UPDATE status_outbox SET acked_at = NEW.created_at WHERE id = NEW.id; END",
    )
    .execute(&db)
    .await
    .unwrap();
    for (n, hide) in [
        None,
        Some("UPDATE credentials SET exp = 1, compact = 'x.y.z', request_id = NULL WHERE jti = ?"),
        Some("UPDATE status_outbox SET refused_at = 1, refusal = 'namespace_full' WHERE op = 'register' AND jti = ?"),
    ]
    .into_iter()
    .enumerate()
    {
        let rid = ask_mandate(&env, &a, &format!("s8-{n}")).await;
        let approved = person(&env, Command::Approve { id: rid }).await.unwrap();
        let jti = approved["result"]["jti"].as_str().unwrap().to_owned();
        assert!(eventually(10, || async { stand.known.lock().unwrap().get(&jti) == Some(&false) }).await);
        person(&env, Command::Revoke { jti: jti.clone() }).await.unwrap();
        if let Some(hide) = hide {
            sqlx::query(hide).bind(&jti).execute(&db).await.unwrap();
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(stand.known.lock().unwrap().get(&jti), Some(&false), "the trigger kept it from leaving");

        // The person looks at Credentials: the service does not hold it, so it goes now.
        let mine = listed(&env, &jti).await;
        assert_eq!(mine["status"], "revoked");
        assert_eq!(stand.known.lock().unwrap().get(&jti), Some(&true), "hosts now read it revoked ({hide:?})");
        assert_ne!(mine["publication"], "revocation_pending", "sent and taken: {mine}");
    }

    // One whose revocation the service refuses to take as well: the person
    // is told it is not yet published.
    let rid = ask_mandate(&env, &a, "s9").await;
    let second =
        person(&env, Command::Approve { id: rid }).await.unwrap()["result"]["jti"].as_str().unwrap().to_owned();
    assert!(eventually(10, || async { stand.known.lock().unwrap().get(&second) == Some(&false) }).await);
    person(&env, Command::Revoke { jti: second.clone() }).await.unwrap();
    *stand.refuse.lock().unwrap() = Some("store_unavailable");
    let mine = listed(&env, &second).await;
    assert_eq!(mine["status"], "revoked");
    assert_eq!(mine["publication"], "revocation_pending", "{mine}");
    assert_eq!(mine["publication_note"], "revocation not yet published");
    assert_eq!(stand.known.lock().unwrap().get(&second), Some(&false));
}

/// The person revokes a root mandate; the assistant marks it active again in
/// the records and hands in a receipt under it. The key app signs a
/// management mandate without a prompt only under a root that still stands
/// where hosts check it: the hosted service holds the revocation, so the
/// person is asked (§3.3 "Renewal never widens authority").
#[tokio::test]
async fn a_root_revoked_where_hosts_check_it_covers_nothing_whatever_its_row_says() {
    let (stand, _, env) = up_and_hosted().await;
    let a = paired_agent(&env, 46).await;
    let root = json!({
        "kind": "mandate", "idempotency_key": "root",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book", "cancel", "reschedule"],
        "constraints": {"services": ["oil-change"], "max_price": {"amount": "100.00", "currency": "CAD"}},
        "lifetime": "P1D"
    });
    let r = a.call(Method::POST, "/v1/requests", Some(&root)).await.unwrap();
    let root = approved(&env, &a, &r).await["result"]["jti"].as_str().unwrap().to_owned();
    assert!(eventually(10, || async { stand.known.lock().unwrap().get(&root) == Some(&false) }).await);
    let management = |key: &str, days: i64| {
        let (_, offer) = future_offer(&env.host, days);
        let receipt = env.host.receipt(&offer, &root, schcp::claims::Approved::Limits, now()).unwrap();
        json!({"kind": "management_mandate", "idempotency_key": key, "receipt": receipt,
               "discovery": env.host.discovery_url()})
    };
    // Control: while the root stands, a receipt under it is covered silently.
    let m = a.call(Method::POST, "/v1/requests", Some(&management("before", 7))).await.unwrap();
    assert_eq!(m["status"], "approved", "{m}");

    person(&env, Command::Revoke { jti: root.clone() }).await.unwrap();
    assert!(eventually(10, || async { stand.known.lock().unwrap().get(&root) == Some(&true) }).await);
    let db = app::data_dir(&env.config).unwrap().join(keyapp::keystore::RECORDS_FILE_NAME);
    let db = sqlx::SqlitePool::connect(&format!("sqlite://{}", db.display())).await.unwrap();
    let done = sqlx::query("UPDATE credentials SET revoked_at = NULL WHERE jti = ?").bind(&root).execute(&db).await;
    assert_eq!(done.unwrap().rows_affected(), 1);

    let m = a.call(Method::POST, "/v1/requests", Some(&management("after", 8))).await.unwrap();
    assert_eq!(m["status"], "pending", "the person is asked: {m}");
    // And with the service not answering, the same: nothing is signed unasked.
    stand.up.store(false, Ordering::SeqCst);
    let m = a.call(Method::POST, "/v1/requests", Some(&management("down", 9))).await.unwrap();
    assert_eq!(m["status"], "pending", "{m}");
}
