//! A host id is bound to where it was verified (§2.2), and nothing the key app
//! signs on its own is wider than what the person signed (§3.3 "Renewal never
//! widens authority"), as an agent would try it: the key app started for real
//! (run under scripts/with-keyring), the real Maple Street Auto and a
//! look-alike domain serving a copy of its document (same host id, name and
//! kid, its own key), both on HTTPS with their own CAs.

use agent::AgentClient;
use keyapp::control::Command;
use reqwest::{Method, StatusCode};
use schcp::claims::{Action, Approved, BookingStatus, ReceiptClaims};
use schcp::verify::{verify_mandate_chain, ChainContext};
use serde_json::{json, Value};
use testhost::{TestHost, TestHostConfig};

use testkit::calendar::start_trusting;
use testkit::env::*;
use testkit::now;

const LOOK_ALIKE: &str = "maple-street-auto.example";
const DAY: i64 = 86_400;

/// A key app whose discovery trusts and resolves the real host and a
/// look-alike with the same id, name and kid but its own key.
async fn start_with_look_alike() -> (Env, TestHost) {
    let real = TestHost::start(TestHostConfig::default()).await;
    let fake = TestHost::start(TestHostConfig { domain: LOOK_ALIKE.into(), ..TestHostConfig::default() }).await;
    assert_eq!((fake.host_id(), fake.current_kid()), (real.host_id(), real.current_kid()));
    assert_ne!(fake.keys()[0].x, real.keys()[0].x, "the look-alike signs with its own key");
    let (env, mut others) = start_with(vec![real, fake]).await;
    (env, others.remove(0))
}

/// A key app whose discovery trusts and resolves every one of `hosts`, its
/// status URLs under the public base hosts read them at; the first is the
/// `Env`'s, the others are returned.
async fn start_with(hosts: Vec<TestHost>) -> (Env, Vec<TestHost>) {
    start_trusting(hosts, |config| config.status_api.public_base = "https://keyapp.example".into()).await
}

/// A verifier whose answer is always no, as the OS's is when the person is not there.
struct Refuses;

impl keyapp::user_verification::UserVerifier for Refuses {
    fn verify<'a>(
        &'a self,
        _approval: &'a keyapp::user_verification::Approval,
    ) -> keyapp::user_verification::VerdictFuture<'a> {
        Box::pin(async { Err(keyapp::user_verification::Refusal::NotAuthorized) })
    }
}

async fn count(env: &Env, table: &str) -> i64 {
    let (n,): (i64,) = sqlx::query_as(&format!("SELECT count(*) FROM {table}"))
        .fetch_one(env.app.service.records().store().pool())
        .await
        .unwrap();
    n
}

/// Refused with 422 `reason`, with nothing pending and nothing issued.
async fn refused(env: &Env, a: &AgentClient, body: &Value, reason: &str) -> Value {
    let issued = count(env, "credentials").await;
    let receipts = count(env, "receipts").await;
    let (status, err) = a.send(Method::POST, "/v1/requests", Some(body)).await.unwrap();
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {err}");
    assert_eq!(err["error"]["reason"], reason, "{err}");
    assert!(pending_ids(env).await.is_empty(), "nothing pending after {reason}");
    assert_eq!(count(env, "credentials").await, issued, "nothing signed after {reason}");
    assert_eq!(count(env, "receipts").await, receipts, "no receipt kept after {reason}");
    err
}

fn rfc3339(t: i64) -> String {
    schcp::issue::rfc3339_utc(t).unwrap()
}

fn root_body(key: &str, discovery: &str) -> Value {
    let mut body = open_root_body(key, discovery);
    body["constraints"]["window"] =
        json!({"not_before": rfc3339(now() + 6 * DAY), "not_after": rfc3339(now() + 10 * DAY)});
    body
}

/// A root without a window: any time.
fn open_root_body(key: &str, discovery: &str) -> Value {
    json!({
        "kind": "mandate", "idempotency_key": key,
        "hosts": [{"id": "maple-street-auto", "discovery": discovery}],
        "scope": ["hold", "book", "cancel", "reschedule"],
        "constraints": {
            "services": ["oil-change"],
            "max_price": {"amount": "100.00", "currency": "CAD"},
            "max_bookings": 1
        },
        "lifetime": "P1D"
    })
}

/// Asks for a root mandate at `discovery` and approves it; its text and jti.
async fn approved_root(env: &Env, a: &AgentClient, key: &str, discovery: &str) -> (String, String) {
    let r = a.call(Method::POST, "/v1/requests", Some(&root_body(key, discovery))).await.unwrap();
    let text = r["consent_text"].as_str().unwrap().to_owned();
    let rid = r["request_id"].as_str().unwrap().to_owned();
    person(env, Command::Approve { id: rid.clone() }).await.unwrap();
    let done = a.call(Method::GET, &format!("/v1/requests/{rid}"), None).await.unwrap();
    (text, done["result"]["jti"].as_str().unwrap().to_owned())
}

fn management(key: &str, receipt: &str, discovery: &str) -> Value {
    json!({"kind": "management_mandate", "idempotency_key": key, "receipt": receipt, "discovery": discovery})
}

/// A receipt for a booking `days_ahead` from now, under `mandate`, as `host` signs it.
fn receipt_claims(host: &TestHost, mandate: &str, days_ahead: i64) -> ReceiptClaims {
    let (_, offer) = future_offer(host, days_ahead);
    host.receipt_claims(&offer, mandate, Approved::Limits, now()).unwrap()
}

fn mandate_claims(m: &Value, a: &AgentClient) -> schcp::claims::MandateClaims {
    let ctx = ChainContext { host_id: "maple-street-auto", request_jkt: &jkt(a), now: now(), allow_wildcard: false };
    verify_mandate_chain(m["result"]["mandate"].as_str().unwrap(), &ctx).unwrap().root.claims
}

async fn status_of(a: &AgentClient, jti: &str) -> String {
    let listed = a.call(Method::GET, "/v1/mandates", None).await.unwrap();
    let entry = listed.as_array().unwrap().iter().find(|m| m["jti"] == jti).unwrap_or_else(|| panic!("{jti}"));
    entry["status"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_look_alike_domain_cannot_borrow_the_host_id_of_a_root_mandate() {
    let (env, fake) = start_with_look_alike().await;
    let a = paired_agent(&env, 21).await;
    // First contact: the person is told they have not dealt with the domain.
    let (text, _) = approved_root(&env, &a, "real-1", &env.host.discovery_url()).await;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[1], "You have not dealt with maplestreetauto.example before.", "{text}");
    // Control: the same host again reads as known and is asked as before.
    let r = a.call(Method::POST, "/v1/requests", Some(&root_body("real-2", &env.host.discovery_url()))).await.unwrap();
    assert_eq!(r["status"], "pending");
    assert!(!r["consent_text"].as_str().unwrap().contains("You have not dealt with"), "{r}");
    a.call(Method::DELETE, &format!("/v1/requests/{}", r["request_id"].as_str().unwrap()), None).await.unwrap();

    // The look-alike, same id, name and kid: refused, the pinned domain said.
    let err = refused(&env, &a, &root_body("fake-1", &fake.discovery_url()), "host_id_conflict").await;
    assert_eq!(err["error"]["code"], "VERIFICATION_FAILED");
    assert_eq!(err["error"]["details"]["pinned_domain"], "maplestreetauto.example", "{err}");
    assert_eq!(err["error"]["details"]["domain"], LOOK_ALIKE, "{err}");
    assert_eq!(err["error"]["details"]["host_id"], "maple-street-auto", "{err}");
    // A closed mandate over the look-alike's offer: refused the same way.
    let (_, offer) = future_offer(&fake, 5);
    let body = json!({"kind": "closed_mandate", "idempotency_key": "fake-2", "offer": offer,
                      "discovery": fake.discovery_url()});
    refused(&env, &a, &body, "host_id_conflict").await;

    // The person sees where it was met, and only the person can accept it.
    let changes = person(&env, Command::HostChanges).await.unwrap();
    let change = &changes.as_array().unwrap()[0];
    assert_eq!((change["host_id"].as_str(), change["domain"].as_str()), (Some("maple-street-auto"), Some(LOOK_ALIKE)));
    assert!(change["words"].as_str().unwrap().contains("first verified at maplestreetauto.example"), "{change}");
    let wrong = Command::AcceptHostDomain { host_id: "maple-street-auto".into(), domain: "elsewhere.example".into() };
    assert!(person(&env, wrong).await.is_err(), "a change nobody met is not accepted");
    // An assistant's `echo y` is not the person: without the OS's yes the move
    // is refused and stays waiting for the person.
    let unconfirmed = env.app.service.clone().with_user_verifier(std::sync::Arc::new(Refuses));
    let err = unconfirmed
        .directory()
        .accept_host_domain("maple-street-auto", LOOK_ALIKE, keyapp::service::Origin::ThisProcess)
        .await
        .unwrap_err()
        .to_api();
    assert_eq!((err.code.as_str(), err.reason.as_str()), ("NOT_PERMITTED", "user_not_verified"), "{}", err.message);
    let still = person(&env, Command::HostChanges).await.unwrap();
    assert_eq!(still.as_array().unwrap().len(), 1, "the refused acceptance changed nothing: {still}");
    let accept = Command::AcceptHostDomain { host_id: "maple-street-auto".into(), domain: LOOK_ALIKE.into() };
    person(&env, accept).await.unwrap();
    // From now on the new domain is the host's, and the old one is refused.
    let r = a.call(Method::POST, "/v1/requests", Some(&root_body("moved-1", &fake.discovery_url()))).await.unwrap();
    assert_eq!(r["status"], "pending", "{r}");
    a.call(Method::DELETE, &format!("/v1/requests/{}", r["request_id"].as_str().unwrap()), None).await.unwrap();
    let err = refused(&env, &a, &root_body("old-1", &env.host.discovery_url()), "host_id_conflict").await;
    assert_eq!(err["error"]["details"]["pinned_domain"], LOOK_ALIKE);
}

#[tokio::test]
async fn a_forged_receipt_from_a_look_alike_gets_no_management_mandate() {
    let (env, fake) = start_with_look_alike().await;
    let a = paired_agent(&env, 22).await;
    let (_, root) = approved_root(&env, &a, "root", &env.host.discovery_url()).await;

    // The look-alike signs a receipt citing the person's root, for a booking
    // id it made up, ending in 2100.
    let mut forged = receipt_claims(&fake, &root, 7);
    forged.booking.booking_id = "b_made_up".into();
    forged.booking.end = Some("2100-01-01T00:00:00Z".into());
    let forged = fake.sign_receipt(&forged).unwrap();
    let err = refused(&env, &a, &management("forged", &forged, &fake.discovery_url()), "host_id_conflict").await;
    assert_eq!(err["error"]["details"]["pinned_domain"], "maplestreetauto.example");
    // The same bytes handed in as the real host's: its keys refuse them.
    let (status, err) = a
        .send(Method::POST, "/v1/requests", Some(&management("forged-2", &forged, &env.host.discovery_url())))
        .await
        .unwrap();
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    assert_eq!(err["error"]["reason"], "bad_signature");
    assert!(pending_ids(&env).await.is_empty());

    // Control: the real host's receipt gets it without a prompt, as narrow as the root.
    let claims = receipt_claims(&env.host, &root, 7);
    let m = a
        .call(
            Method::POST,
            "/v1/requests",
            Some(&management("real", &env.host.sign_receipt(&claims).unwrap(), &env.host.discovery_url())),
        )
        .await
        .unwrap();
    assert_eq!(m["status"], "approved", "{m}");
    let c = mandate_claims(&m, &a);
    assert_eq!(c.scope, vec![Action::Cancel, Action::Reschedule]);
    let k = c.constraints.unwrap();
    assert_eq!(k.bookings, Some(vec![claims.booking.booking_id.clone()]));
    assert_eq!(k.services, Some(vec!["oil-change".to_owned()]), "the root's services");
    assert!(k.window.is_some(), "the root's window");
    assert_eq!(k.max_price.map(|p| p.amount), Some("100.00".to_owned()), "the root's max_price");
    assert_eq!(k.max_bookings, None);
}

#[tokio::test]
async fn a_silent_management_mandate_is_bounded_by_its_root_and_revoked_with_it() {
    let env = start().await;
    let a = paired_agent(&env, 23).await;
    let r =
        a.call(Method::POST, "/v1/requests", Some(&open_root_body("root", &env.host.discovery_url()))).await.unwrap();
    let done = approved(&env, &a, &r).await;
    let (root, root_exp) =
        (done["result"]["jti"].as_str().unwrap().to_owned(), done["result"]["exp"].as_i64().unwrap());

    // A booking that ends in 2100: the mandate ends with the root, whose
    // "Valid until" is what the person read (§3.3 "never widens authority").
    let mut far = receipt_claims(&env.host, &root, 7);
    far.booking.end = Some("2100-01-01T00:00:00Z".into());
    let m = a
        .call(
            Method::POST,
            "/v1/requests",
            Some(&management("far", &env.host.sign_receipt(&far).unwrap(), &env.host.discovery_url())),
        )
        .await
        .unwrap();
    assert_eq!(m["status"], "approved", "{m}");
    let exp = m["result"]["exp"].as_i64().unwrap();
    assert_eq!(exp, root_exp, "capped at the root's exp");
    let managed = m["result"]["jti"].as_str().unwrap().to_owned();

    // Revoking the root revokes what was issued under it.
    assert_eq!(status_of(&a, &managed).await, "active");
    person(&env, Command::Revoke { jti: root.clone() }).await.unwrap();
    assert_eq!(status_of(&a, &root).await, "revoked");
    assert_eq!(status_of(&a, &managed).await, "revoked", "revoked with its root");
    // And a revoked root covers nothing: the person is asked.
    let later = env.host.sign_receipt(&receipt_claims(&env.host, &root, 8)).unwrap();
    let m = a
        .call(Method::POST, "/v1/requests", Some(&management("after", &later, &env.host.discovery_url())))
        .await
        .unwrap();
    assert_eq!(m["status"], "pending", "{m}");
}

/// A replayed receipt gets nothing (§3.3 "Renewal"), sent at once too: the
/// hostile assistant sends one receipt in many requests together, each past
/// the request's own check before any was recorded; the approval's commit
/// reads the booking's links again, so exactly one management mandate is
/// signed, and the twins end refused, never in the person's window.
#[tokio::test]
async fn one_receipt_sent_many_times_at_once_gets_one_silent_management_mandate() {
    let env = start().await;
    let a = paired_agent(&env, 24).await;
    let r =
        a.call(Method::POST, "/v1/requests", Some(&open_root_body("root", &env.host.discovery_url()))).await.unwrap();
    let done = approved(&env, &a, &r).await;
    let root = done["result"]["jti"].as_str().unwrap().to_owned();
    let receipt = env.host.sign_receipt(&receipt_claims(&env.host, &root, 7)).unwrap();
    let issued = count(&env, "credentials").await;
    let mut sends = tokio::task::JoinSet::new();
    for i in 0..8 {
        // The same assistant (its key), one connection each.
        let (twin, body) = (agent(&env, 24), management(&format!("twin-{i}"), &receipt, &env.host.discovery_url()));
        sends.spawn(async move { twin.send(Method::POST, "/v1/requests", Some(&body)).await.unwrap() });
    }
    let answers = sends.join_all().await;
    let approved: Vec<_> = answers.iter().filter(|(s, v)| s.is_success() && v["status"] == "approved").collect();
    let said: Vec<_> =
        answers.iter().map(|(s, v)| (s.as_u16(), v["status"].clone(), v["error"]["reason"].clone())).collect();
    assert_eq!(approved.len(), 1, "{said:?}");
    for (status, v) in answers.iter().filter(|(s, _)| !s.is_success()) {
        assert_eq!(*status, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
        assert_eq!(v["error"]["reason"], "stale_receipt", "{v}");
    }
    assert_eq!(count(&env, "credentials").await, issued + 1, "one management mandate signed");
    assert_eq!(count(&env, "management_links").await, 1);
    assert!(pending_ids(&env).await.is_empty(), "no twin waits for the person");
}

/// The silent path reads the root's scope as signed: a root signed without
/// `reschedule` whose record was edited to list it gets no management
/// mandate without the person.
#[tokio::test]
async fn a_root_signed_without_reschedule_covers_nothing_whatever_its_record_says() {
    let env = start().await;
    let a = paired_agent(&env, 25).await;
    let mut body = open_root_body("root", &env.host.discovery_url());
    body["scope"] = json!(["hold", "book", "cancel"]);
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let root = approved(&env, &a, &r).await["result"]["jti"].as_str().unwrap().to_owned();
    sqlx::query("UPDATE credentials SET scope = '[\"hold\",\"book\",\"cancel\",\"reschedule\"]' WHERE jti = ?")
        .bind(&root)
        .execute(env.app.service.records().store().pool())
        .await
        .unwrap();
    let receipt = env.host.sign_receipt(&receipt_claims(&env.host, &root, 7)).unwrap();
    let m = a
        .call(Method::POST, "/v1/requests", Some(&management("edited", &receipt, &env.host.discovery_url())))
        .await
        .unwrap();
    assert_eq!(m["status"], "pending", "the person is asked: {m}");
}

/// The silent path covers a booking only with a root the person's own key
/// signed: the records can be written by the person's programs, and a root
/// there re-signed by another key, every limit gone, verifies on its own
/// (its iss is its own key's), so it gets no management mandate without the
/// person.
#[tokio::test]
async fn a_root_another_key_signed_in_the_records_covers_nothing() {
    let env = start().await;
    let a = paired_agent(&env, 26).await;
    let (_, root) = approved_root(&env, &a, "root", &env.host.discovery_url()).await;
    let pool = env.app.service.records().store().pool();
    let compact: String =
        sqlx::query_scalar("SELECT compact FROM credentials WHERE jti = ?").bind(&root).fetch_one(pool).await.unwrap();
    let mut claims = schcp::jws::parse(&compact).unwrap().payload;
    let theirs = ed25519_dalek::SigningKey::from_bytes(&[99; 32]);
    let jwk = schcp::jwk::Jwk::ed25519(&theirs.verifying_key());
    claims["iss"] = json!(jwk.principal_id().unwrap());
    claims["principal_jwk"] = serde_json::to_value(&jwk).unwrap();
    claims["constraints"].as_object_mut().unwrap().remove("max_price");
    claims["constraints"].as_object_mut().unwrap().remove("window");
    let forged =
        schcp::jws::sign(schcp::jws::Typ::Mandate, schcp::jws::HeaderExtras::default(), &claims, &theirs).unwrap();
    let ctx = ChainContext { host_id: "maple-street-auto", request_jkt: &jkt(&a), now: now(), allow_wildcard: false };
    assert!(verify_mandate_chain(&forged, &ctx).is_ok(), "the forged root verifies on its own");
    sqlx::query("UPDATE credentials SET compact = ? WHERE jti = ?")
        .bind(&forged)
        .bind(&root)
        .execute(pool)
        .await
        .unwrap();

    let receipt = env.host.sign_receipt(&receipt_claims(&env.host, &root, 7)).unwrap();
    let m = a
        .call(Method::POST, "/v1/requests", Some(&management("forged-root", &receipt, &env.host.discovery_url())))
        .await
        .unwrap();
    assert_eq!(m["status"], "pending", "the person is asked: {m}");
}

#[tokio::test]
async fn only_a_confirmed_booking_within_the_root_gets_one_without_a_prompt() {
    let env = start().await;
    let a = paired_agent(&env, 24).await;
    let (_, root) = approved_root(&env, &a, "root", &env.host.discovery_url()).await;
    let url = env.host.discovery_url();
    for (i, status) in
        [BookingStatus::Cancelled, BookingStatus::Declined, BookingStatus::Expired].into_iter().enumerate()
    {
        let mut c = receipt_claims(&env.host, &root, 7);
        c.booking.status = status;
        refused(
            &env,
            &a,
            &management(&format!("gone-{i}"), &env.host.sign_receipt(&c).unwrap(), &url),
            "booking_not_confirmed",
        )
        .await;
    }
    // Awaiting the host: not silent; the person decides.
    let mut c = receipt_claims(&env.host, &root, 7);
    c.booking.status = BookingStatus::PendingHost;
    let m = a
        .call(
            Method::POST,
            "/v1/requests",
            Some(&management("pending-host", &env.host.sign_receipt(&c).unwrap(), &url)),
        )
        .await
        .unwrap();
    assert_eq!(m["status"], "pending", "{m}");
    a.call(Method::DELETE, &format!("/v1/requests/{}", m["request_id"].as_str().unwrap()), None).await.unwrap();
    // Outside the root's window (12 days ahead): asked, not silent.
    let c = receipt_claims(&env.host, &root, 12);
    let m = a
        .call(Method::POST, "/v1/requests", Some(&management("outside", &env.host.sign_receipt(&c).unwrap(), &url)))
        .await
        .unwrap();
    assert_eq!(m["status"], "pending", "{m}");
    a.call(Method::DELETE, &format!("/v1/requests/{}", m["request_id"].as_str().unwrap()), None).await.unwrap();
    // A retention other than the host's: refused (§5.3).
    let mut c = receipt_claims(&env.host, &root, 7);
    c.retention = "P1D".into();
    refused(&env, &a, &management("retention", &env.host.sign_receipt(&c).unwrap(), &url), "receipt_mismatch").await;
    // A receipt signed by a key the root was not issued against (rotated since): asked.
    env.host.rotate_key("msa-2026-12");
    let c = receipt_claims(&env.host, &root, 7);
    let m = a
        .call(Method::POST, "/v1/requests", Some(&management("rotated", &env.host.sign_receipt(&c).unwrap(), &url)))
        .await
        .unwrap();
    assert_eq!(m["status"], "pending", "{m}");
}

#[tokio::test]
async fn a_moved_booking_renews_its_management_mandate_and_replaces_the_old_one() {
    let env = start().await;
    let a = paired_agent(&env, 25).await;
    let (_, root) = approved_root(&env, &a, "root", &env.host.discovery_url()).await;
    let url = env.host.discovery_url();
    let first = receipt_claims(&env.host, &root, 7);
    let booking_id = first.booking.booking_id.clone();
    let m1 = a
        .call(Method::POST, "/v1/requests", Some(&management("m1", &env.host.sign_receipt(&first).unwrap(), &url)))
        .await
        .unwrap();
    assert_eq!(m1["status"], "approved", "{m1}");
    let m1_jti = m1["result"]["jti"].as_str().unwrap().to_owned();

    // The same receipt again, or any not newer: a replay, refused.
    let mut replay = first.clone();
    replay.iat += 1;
    refused(&env, &a, &management("replay", &env.host.sign_receipt(&replay).unwrap(), &url), "stale_receipt").await;

    // Moved under m1 to a day still in the root's window, sequence 1: renewed at once.
    let mut moved = receipt_claims(&env.host, &m1_jti, 8);
    moved.booking.booking_id = booking_id.clone();
    moved.booking.sequence = 1;
    let m2 = a
        .call(Method::POST, "/v1/requests", Some(&management("m2", &env.host.sign_receipt(&moved).unwrap(), &url)))
        .await
        .unwrap();
    assert_eq!(m2["status"], "approved", "{m2}");
    assert_eq!(m2["result"]["booking_id"], booking_id.as_str(), "the same booking");
    let c = mandate_claims(&m2, &a);
    assert_eq!(c.scope, vec![Action::Cancel, Action::Reschedule], "the same narrow scope");
    assert_eq!(c.constraints.unwrap().services, Some(vec!["oil-change".to_owned()]));
    assert_eq!(status_of(&a, &m1_jti).await, "revoked", "the renewal replaces the old one");
    let m2_jti = m2["result"]["jti"].as_str().unwrap().to_owned();

    // Moved again, but the receipt cites a mandate that did not accept the move: asked.
    let mut other = receipt_claims(&env.host, "m-not-mine", 9);
    other.booking.booking_id = booking_id.clone();
    other.booking.sequence = 2;
    let m3 = a
        .call(Method::POST, "/v1/requests", Some(&management("m3", &env.host.sign_receipt(&other).unwrap(), &url)))
        .await
        .unwrap();
    assert_eq!(m3["status"], "pending", "{m3}");
    assert_eq!(status_of(&a, &m2_jti).await, "active", "nothing replaced before the person's yes");
}

/// The hostile assistant names a second host of its own in another zone, so
/// the text has no one zone to show the window in and reads it at its own
/// offset, and writes the window's end at another offset than its start. The
/// text names one zone, the start's, and reads the end on it: an end of
/// 5:00 p.m. at -12:00 is shown as 1:00 a.m. the next day at -04:00, never as
/// 5:00 p.m. in the zone named (eight hours less than is signed).
#[tokio::test]
async fn a_window_whose_ends_differ_in_offset_is_shown_as_signed() {
    let far = TestHost::start(TestHostConfig {
        domain: "oaklane.example".into(),
        host_id: "oak-lane-garage".into(),
        name: "Oak Lane Garage".into(),
        tz: "Pacific/Auckland".into(),
        ..TestHostConfig::default()
    })
    .await;
    let (env, others) = start_with(vec![TestHost::start(TestHostConfig::default()).await, far]).await;
    let a = paired_agent(&env, 28).await;
    let day = (chrono::Utc::now() + chrono::Duration::days(7)).date_naive();
    let body = json!({
        "kind": "mandate", "idempotency_key": "offsets",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()},
                  {"id": "oak-lane-garage", "discovery": others[0].discovery_url()}],
        "scope": ["hold", "book"],
        "constraints": {"window": {"not_before": format!("{day}T12:00:00-04:00"),
                                   "not_after": format!("{day}T17:00:00-12:00")}},
        "lifetime": "P1D"
    });
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    let next = (day + chrono::Duration::days(1)).format("%-d %B %Y").to_string();
    assert!(text.contains("GMT-04:00") && text.contains(&next) && text.contains("1:00"), "{text}");
    assert!(!text.contains("5:00"), "{text}");
}

/// A discovery document at a path its host's domain does not vouch for
/// speaks for itself only: the text names the host as unverified and its
/// services by the ids that are signed, never by the names such a document
/// gives them (one an assistant serves could call "engine-rebuild" an oil
/// change). From the well-known path, the host's own names.
#[tokio::test]
async fn services_of_a_document_no_domain_vouches_for_are_shown_by_the_ids_signed() {
    let env = start().await;
    let a = paired_agent(&env, 27).await;
    let body = |key: &str, discovery: String| {
        json!({"kind": "mandate", "idempotency_key": key,
               "hosts": [{"id": "maple-street-auto", "discovery": discovery}],
               "scope": ["hold", "book"], "constraints": {"services": ["oil-change"]}, "lifetime": "P1D"})
    };
    let r = a.call(Method::POST, "/v1/requests", Some(&body("elsewhere", env.host.operator_url()))).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert!(text.contains("unverified") && text.contains("oil-change"), "{text}");
    assert!(!text.contains("Synthetic oil change"), "{text}");
    let r = a.call(Method::POST, "/v1/requests", Some(&body("vouched", env.host.discovery_url()))).await.unwrap();
    assert!(r["consent_text"].as_str().unwrap().contains("Synthetic oil change"), "{r}");
}

/// §2.2 rule 2: a host without its own domain, whose document names its
/// operator and whose operator's document lists it back, is bound to the
/// operator's domain. When the operator stops listing it, the same id is only
/// operator-trust: another place, refused until the person accepts it.
#[tokio::test]
async fn an_operator_both_sides_name_binds_its_host_by_rule_two() {
    let platform = TestHost::start(TestHostConfig {
        domain: "platform.example".into(),
        host_id: "fades-on-queen".into(),
        name: "Fades on Queen".into(),
        operator: Some("platform.example".into()),
        ..TestHostConfig::default()
    })
    .await;
    platform.serve_operator_document(Some(platform.operator_listing()));
    let (env, _) = start_with(vec![platform]).await;
    let a = paired_agent(&env, 26).await;
    let body = |key: &str| {
        json!({"kind": "mandate", "idempotency_key": key,
               "hosts": [{"id": "fades-on-queen", "discovery": env.host.operator_url()}],
               "scope": ["hold", "book"], "lifetime": "P1D"})
    };
    let r = a.call(Method::POST, "/v1/requests", Some(&body("op-1"))).await.unwrap();
    assert!(r["consent_text"].as_str().unwrap().contains("You have not dealt with Fades on Queen"), "{r}");
    person(&env, Command::Approve { id: r["request_id"].as_str().unwrap().to_owned() }).await.unwrap();
    let bound = keyapp::store::host_bindings::binding(env.app.service.records().store(), "fades-on-queen")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (bound.binding.domain.as_str(), bound.binding.basis),
        ("platform.example", keyapp::host_binding::Basis::Operator)
    );

    // The operator no longer lists it: operator-trust, another place.
    let mut listing = env.host.operator_listing();
    listing["hosts"] = json!([]);
    env.host.serve_operator_document(Some(listing));
    let err = refused(&env, &a, &body("op-2"), "host_id_conflict").await;
    assert_eq!(err["error"]["details"]["pinned_domain"], "platform.example");
}

/// Runs `sql` on the key app's records as the person's other programs can
/// (docs/threat-model.md "Records the person's programs can write").
async fn written_outside(env: &Env, sql: &str, binds: &[&str]) {
    let mut q = sqlx::query(sql);
    for b in binds {
        q = q.bind(*b);
    }
    let done = q.execute(env.app.service.records().store().pool()).await.unwrap();
    assert!(done.rows_affected() > 0, "{sql}");
}

#[tokio::test]
async fn a_binding_written_into_the_records_makes_no_look_alike_known() {
    let (env, fake) = start_with_look_alike().await;
    let a = paired_agent(&env, 27).await;
    approved_root(&env, &a, "real-1", &env.host.discovery_url()).await;
    // The assistant moves the binding to its look-alike, and names the host
    // as it likes, straight in keyapp.db.
    written_outside(
        &env,
        "UPDATE host_bindings SET domain = ?, name = 'Your Bank' WHERE host_id = 'maple-street-auto'",
        &[LOOK_ALIKE],
    )
    .await;
    // §2.2: the binding binds nothing it was not sealed for. The look-alike's
    // request is not taken for a host the person knows: the person is told
    // they have not dealt with that domain.
    let r = a.call(Method::POST, "/v1/requests", Some(&root_body("fake-1", &fake.discovery_url()))).await.unwrap();
    assert_eq!(r["status"], "pending", "{r}");
    let text = r["consent_text"].as_str().unwrap();
    assert!(text.contains(&format!("You have not dealt with {LOOK_ALIKE} before.")), "{text}");
    // The name it wrote is offered nowhere.
    let hosts = env.app.service.records().filter_choices().await.unwrap().hosts;
    assert!(hosts.iter().all(|h| !h.label.contains("Your Bank")), "{hosts:?}");
    assert!(hosts.is_empty(), "a binding the key app did not seal is not a host it verified: {hosts:?}");
    // The person's yes binds the host again, sealed, where the person said it.
    a.call(Method::DELETE, &format!("/v1/requests/{}", r["request_id"].as_str().unwrap()), None).await.unwrap();
    approved_root(&env, &a, "real-2", &env.host.discovery_url()).await;
    let hosts = env.app.service.records().filter_choices().await.unwrap().hosts;
    assert_eq!(hosts.len(), 1, "{hosts:?}");
    refused(&env, &a, &root_body("fake-2", &fake.discovery_url()), "host_id_conflict").await;
}

#[tokio::test]
async fn a_move_written_into_the_records_is_never_offered_to_the_person() {
    let (env, fake) = start_with_look_alike().await;
    let a = paired_agent(&env, 28).await;
    approved_root(&env, &a, "real-1", &env.host.discovery_url()).await;
    // A place the key app never met, noted by the assistant for the person to accept.
    written_outside(
        &env,
        "INSERT INTO host_domain_changes (host_id, domain, basis, seen_at) VALUES ('maple-street-auto', ?, 'own_domain', 1)",
        &[LOOK_ALIKE],
    )
    .await;
    let changes = person(&env, Command::HostChanges).await.unwrap();
    assert_eq!(changes.as_array().unwrap().len(), 0, "{changes}");
    let accept = Command::AcceptHostDomain { host_id: "maple-street-auto".into(), domain: LOOK_ALIKE.into() };
    assert!(person(&env, accept.clone()).await.is_err(), "a move the key app did not note is not accepted");
    refused(&env, &a, &root_body("fake-1", &fake.discovery_url()), "host_id_conflict").await;
    // Control: once the key app met the look-alike itself, the same move is
    // listed and can be accepted.
    let changes = person(&env, Command::HostChanges).await.unwrap();
    assert_eq!(changes.as_array().unwrap().len(), 1, "{changes}");
    person(&env, accept).await.unwrap();
    let r = a.call(Method::POST, "/v1/requests", Some(&root_body("moved-1", &fake.discovery_url()))).await.unwrap();
    assert_eq!(r["status"], "pending", "{r}");
}

#[tokio::test]
async fn a_credential_host_written_into_the_records_gets_nothing_without_the_person() {
    let (env, fake) = start_with_look_alike().await;
    let a = paired_agent(&env, 29).await;
    let (_, root) = approved_root(&env, &a, "root", &env.host.discovery_url()).await;
    // The assistant rewrites where the root's host was verified, and with
    // which key, to its look-alike's, and drops the binding that would
    // refuse the look-alike outright.
    let theirs = serde_json::to_string(&[fake.keys()[0].thumbprint().unwrap()]).unwrap();
    written_outside(
        &env,
        "UPDATE credential_hosts SET domain = ?, key_thumbprints = ? WHERE jti = ?",
        &[LOOK_ALIKE, &theirs, &root],
    )
    .await;
    written_outside(&env, "DELETE FROM host_bindings WHERE host_id = 'maple-street-auto'", &[]).await;
    // A receipt the look-alike signed for a booking it made up, citing the root.
    let mut forged = receipt_claims(&fake, &root, 7);
    forged.booking.booking_id = "b_made_up".into();
    let forged = fake.sign_receipt(&forged).unwrap();
    let m = a.call(Method::POST, "/v1/requests", Some(&management("forged", &forged, &fake.discovery_url()))).await;
    // Nothing is signed without the person: the rewritten row is not one the
    // key app sealed as it issued the root (§2.2, §3.3).
    match m {
        Ok(m) => assert_eq!(m["status"], "pending", "the person is asked: {m}"),
        Err(e) => panic!("a request the person can answer, not a refusal: {e:?}"),
    }
    assert_eq!(pending_ids(&env).await.len(), 1);
}

/// The links that say which management mandates were issued under a root are
/// records the assistant can remove. The person's revocation of the root
/// still takes the silent mandate with it: the key app finds it from the
/// sealed records (§3.3 "Renewal never widens authority").
#[tokio::test]
async fn revoking_a_root_takes_its_silent_mandates_with_it_whatever_the_links_say() {
    let env = start().await;
    let a = paired_agent(&env, 32).await;
    let r =
        a.call(Method::POST, "/v1/requests", Some(&open_root_body("root", &env.host.discovery_url()))).await.unwrap();
    let root = approved(&env, &a, &r).await["result"]["jti"].as_str().unwrap().to_owned();
    let receipt = env.host.sign_receipt(&receipt_claims(&env.host, &root, 7)).unwrap();
    let m = a
        .call(Method::POST, "/v1/requests", Some(&management("silent", &receipt, &env.host.discovery_url())))
        .await
        .unwrap();
    assert_eq!(m["status"], "approved", "{m}");
    let managed = m["result"]["jti"].as_str().unwrap().to_owned();
    // A management mandate the person approved themselves rests on no root,
    // and stays (control).
    let asked_receipt = env.host.sign_receipt(&receipt_claims(&env.host, "m-not-mine", 9)).unwrap();
    let asked = a
        .call(Method::POST, "/v1/requests", Some(&management("asked", &asked_receipt, &env.host.discovery_url())))
        .await
        .unwrap();
    assert_eq!(asked["status"], "pending", "{asked}");
    let asked = approved(&env, &a, &asked).await["result"]["jti"].as_str().unwrap().to_owned();

    let pool = env.app.service.records().store().pool();
    let gone = sqlx::query("DELETE FROM management_links").execute(pool).await.unwrap();
    assert_eq!(gone.rows_affected(), 2);
    // The silent one's row relabelled (its seal gone with it), and the root
    // already marked revoked, so that the person's revocation finds nothing
    // left to do.
    for (sql, jti) in [
        ("UPDATE credentials SET kind = 'closed_mandate', seal = NULL WHERE jti = ?", &managed),
        ("UPDATE credentials SET revoked_at = 1 WHERE jti = ?", &root),
    ] {
        assert_eq!(sqlx::query(sql).bind(jti).execute(pool).await.unwrap().rows_affected(), 1);
    }
    // And a request row of its own making, naming the root, whose values do
    // not read as the key app writes them: it must not keep the person from
    // revoking.
    let junk = sqlx::query(
        "INSERT INTO requests (request_id, agent_jkt, kind, idempotency_key, body_sha256, status, consent_text,
                               input, created_at, expires_at)
         VALUES ('rq_junk', ?, 'management_mandate', 'junk', 'h', 'approved', 't', ?, X'00', 'soon')",
    )
    .bind(jkt(&a))
    .bind(format!("{{\"root_jti\":\"{root}\"}}"))
    .execute(pool)
    .await
    .unwrap();
    assert_eq!(junk.rows_affected(), 1);
    person(&env, Command::Revoke { jti: root.clone() }).await.unwrap();
    let revoked = |jti: String| {
        let pool = pool.clone();
        async move {
            let at: Option<i64> = sqlx::query_scalar("SELECT revoked_at FROM credentials WHERE jti = ?")
                .bind(jti)
                .fetch_one(&pool)
                .await
                .unwrap();
            at.is_some()
        }
    };
    assert!(revoked(managed.clone()).await, "revoked with its root");
    assert!(!revoked(asked.clone()).await, "the person's own yes rests on no root");
    assert_eq!(status_of(&a, &asked).await, "active");
}

/// The receipt cites one root; the assistant puts another root of its own,
/// with wider terms and also signed by the person, in that root's row. The
/// silent path takes only the root the receipt cites: the person is asked.
#[tokio::test]
async fn a_root_swapped_for_another_in_the_records_covers_nothing_without_the_person() {
    let env = start().await;
    let a = paired_agent(&env, 33).await;
    let (_, narrow) = approved_root(&env, &a, "narrow", &env.host.discovery_url()).await;
    let (_, wide) = approved_root(&env, &a, "wide", &env.host.discovery_url()).await;
    let pool = env.app.service.records().store().pool();
    let wide_compact: String =
        sqlx::query_scalar("SELECT compact FROM credentials WHERE jti = ?").bind(&wide).fetch_one(pool).await.unwrap();
    let done = sqlx::query("UPDATE credentials SET compact = ? WHERE jti = ?")
        .bind(&wide_compact)
        .bind(&narrow)
        .execute(pool)
        .await
        .unwrap();
    assert_eq!(done.rows_affected(), 1);
    let receipt = env.host.sign_receipt(&receipt_claims(&env.host, &narrow, 7)).unwrap();
    let m = a
        .call(Method::POST, "/v1/requests", Some(&management("swapped", &receipt, &env.host.discovery_url())))
        .await
        .unwrap();
    assert_eq!(m["status"], "pending", "the person is asked: {m}");
    // Control: the wide root's own receipt is covered silently.
    let receipt = env.host.sign_receipt(&receipt_claims(&env.host, &wide, 8)).unwrap();
    let m = a
        .call(Method::POST, "/v1/requests", Some(&management("own", &receipt, &env.host.discovery_url())))
        .await
        .unwrap();
    assert_eq!(m["status"], "approved", "{m}");
}

/// The links that say which management mandate is in force for a booking,
/// and which root it rests on, are records the assistant can write. It plants
/// one making a closed mandate the person approved "the mandate in force"
/// under a root, and hands in the booking's next receipt citing that closed
/// mandate: nothing is signed without the person, because the sealed records
/// say the closed mandate rests on no root (§3.3 "Renewal").
#[tokio::test]
async fn a_link_planted_in_the_records_renews_nothing_without_the_person() {
    let env = start().await;
    let a = paired_agent(&env, 34).await;
    let (_, root) = approved_root(&env, &a, "root", &env.host.discovery_url()).await;
    let (_, offer) = future_offer(&env.host, 7);
    let body = json!({"kind": "closed_mandate", "idempotency_key": "closed", "offer": offer,
                      "discovery": env.host.discovery_url()});
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let closed = approved(&env, &a, &r).await["result"]["jti"].as_str().unwrap().to_owned();
    let mut claims = receipt_claims(&env.host, &closed, 7);
    claims.booking.sequence = 1;
    let planted = sqlx::query(
        "INSERT INTO management_links (jti, root_jti, host_id, booking_id, sequence, retention)
         VALUES (?, ?, 'maple-street-auto', ?, 0, ?)",
    )
    .bind(&closed)
    .bind(&root)
    .bind(&claims.booking.booking_id)
    .bind(&claims.retention)
    .execute(env.app.service.records().store().pool())
    .await
    .unwrap();
    assert_eq!(planted.rows_affected(), 1);
    let receipt = env.host.sign_receipt(&claims).unwrap();
    let m = a
        .call(Method::POST, "/v1/requests", Some(&management("planted", &receipt, &env.host.discovery_url())))
        .await
        .unwrap();
    assert_eq!(m["status"], "pending", "the person is asked: {m}");
}
