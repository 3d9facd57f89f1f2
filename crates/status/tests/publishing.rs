//! The publishing route (docs/hosted-status.md): what schcp-status accepts
//! from a key app, and what it refuses (forged, replayed, out of the
//! iat window, un-revoking, changed limits, oversized) — each refusal with the
//! §9 shape and nothing written.

mod common;

use common::{answer, client, now, publish, refusal, registration, revocation, snapshot, InProcess, Principal};
use keyapp::status_api::StatusOptions;
use reqwest::StatusCode;
use schcp::status_update::{self, MAX_UPDATE_BYTES};
use schcp_status::service::NamespacePolicy;
use serde_json::json;

const MAPLE: &str = "maple-street-auto";

#[tokio::test]
async fn register_then_the_same_again_then_revoke() {
    let s = InProcess::unlimited().await;
    let p = Principal::ed25519();
    let reg = registration("m", &[MAPLE], Some(2), true, now() + 3600);
    let (st, body) = answer(publish(&client(), &s.base(), &p.thumb, p.update(&reg)).await).await;
    assert_eq!((st, body), (StatusCode::CREATED, json!({"jti": "m", "status": "active", "remaining": 2})));
    // A retry after a lost answer: a new update jti, the same registration.
    let (st, body) = answer(publish(&client(), &s.base(), &p.thumb, p.update(&reg)).await).await;
    assert_eq!((st, body), (StatusCode::OK, json!({"jti": "m", "status": "active", "remaining": 2})));
    for _ in 0..2 {
        let (st, body) = answer(publish(&client(), &s.base(), &p.thumb, p.update(&revocation("m"))).await).await;
        assert_eq!((st, body), (StatusCode::OK, json!({"jti": "m", "status": "revoked"})));
    }
}

#[tokio::test]
async fn an_es256_principal_publishes_too() {
    let s = InProcess::unlimited().await;
    let p = Principal::es256();
    let reg = registration("m", &[MAPLE], None, false, now() + 3600);
    let (st, body) = answer(publish(&client(), &s.base(), &p.thumb, p.update(&reg)).await).await;
    assert_eq!((st, body), (StatusCode::CREATED, json!({"jti": "m", "status": "active"})));
}

#[tokio::test]
async fn updates_signed_by_another_key_are_refused() {
    let s = InProcess::unlimited().await;
    let (victim, attacker) = (Principal::ed25519(), Principal::ed25519());
    let reg = registration("m", &[MAPLE], Some(9), true, now() + 3600);
    // The attacker's own, valid update, written into the victim's namespace.
    s.refuses(&victim, attacker.update(&reg), (StatusCode::UNAUTHORIZED, "namespace_mismatch")).await;
    // The victim's key named in the payload, signed by the attacker.
    let payload =
        status_update::payload(&victim.key.public_key().to_jwk(), now(), &Principal::update_jti(), &reg).unwrap();
    let header = status_update::header(&victim.key.public_key().to_jwk()).unwrap();
    let input = status_update::signing_input(&header, &payload);
    let forged = status_update::assemble(&input, &attacker.key.sign(input.as_bytes()).unwrap());
    s.refuses(&victim, forged, (StatusCode::UNAUTHORIZED, "update_signature_invalid")).await;
    // Nor can the attacker revoke the victim's credential.
    victim_registers(&s, &victim).await;
    s.refuses(&victim, attacker.update(&revocation("m")), (StatusCode::UNAUTHORIZED, "namespace_mismatch")).await;
}

async fn victim_registers(s: &InProcess, p: &Principal) {
    let reg = registration("m", &[MAPLE], Some(1), true, now() + 3600);
    assert_eq!(publish(&client(), &s.base(), &p.thumb, p.update(&reg)).await.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn a_replayed_update_is_refused() {
    let s = InProcess::unlimited().await;
    let p = Principal::ed25519();
    let reg = registration("m", &[MAPLE], Some(1), true, now() + 3600);
    let once = p.update(&reg);
    assert_eq!(publish(&client(), &s.base(), &p.thumb, once.clone()).await.status(), StatusCode::CREATED);
    s.refuses(&p, once, (StatusCode::CONFLICT, "update_replayed")).await;
    // The same update jti on another operation is a replay too.
    let jti = Principal::update_jti();
    assert_eq!(publish(&client(), &s.base(), &p.thumb, p.update_at(now(), &jti, &reg)).await.status(), StatusCode::OK);
    s.refuses(&p, p.update_at(now(), &jti, &revocation("m")), (StatusCode::CONFLICT, "update_replayed")).await;
}

#[tokio::test]
async fn updates_outside_the_iat_window_are_refused() {
    let s = InProcess::unlimited().await;
    let p = Principal::ed25519();
    let reg = registration("m", &[MAPLE], Some(1), true, now() + 3600);
    for iat in [now() - 400, now() + 400] {
        let update = p.update_at(iat, &Principal::update_jti(), &reg);
        s.refuses(&p, update, (StatusCode::BAD_REQUEST, "update_iat_out_of_window")).await;
    }
}

#[tokio::test]
async fn revoked_is_final() {
    let s = InProcess::unlimited().await;
    let p = Principal::ed25519();
    let reg = registration("m", &[MAPLE], Some(1), true, now() + 3600);
    assert_eq!(publish(&client(), &s.base(), &p.thumb, p.update(&reg)).await.status(), StatusCode::CREATED);
    assert_eq!(publish(&client(), &s.base(), &p.thumb, p.update(&revocation("m"))).await.status(), StatusCode::OK);
    // Registering again answers as the idempotent retry it looks like, and the
    // credential stays revoked: nothing un-revokes.
    let (st, body) = answer(publish(&client(), &s.base(), &p.thumb, p.update(&reg)).await).await;
    assert_eq!((st, body), (StatusCode::OK, json!({"jti": "m", "status": "revoked", "remaining": 1})));
    let url = format!("{}/status/{}/m", s.base(), p.thumb);
    assert_eq!(answer(client().get(&url).send().await.unwrap()).await.1["status"], "revoked");
    let claim = client().post(format!("{url}/claims")).json(&json!({"claim_id": "maple-street-auto/h"})).send();
    assert_eq!(refusal(claim.await.unwrap()).await.2, "mandate_revoked");
}

#[tokio::test]
async fn a_registration_that_changes_limits_is_refused() {
    let s = InProcess::unlimited().await;
    let p = Principal::ed25519();
    let exp = now() + 3600;
    let reg = registration("m", &[MAPLE], Some(1), true, exp);
    assert_eq!(publish(&client(), &s.base(), &p.thumb, p.update(&reg)).await.status(), StatusCode::CREATED);
    for changed in [
        registration("m", &[MAPLE], Some(5), true, exp),
        registration("m", &[MAPLE], Some(1), false, exp),
        registration("m", &[MAPLE, "oak-lane-garage"], Some(1), true, exp),
        registration("m", &[MAPLE], Some(1), true, exp + 1),
    ] {
        s.refuses(&p, p.update(&changed), (StatusCode::CONFLICT, "registration_conflict")).await;
    }
}

/// The registration's host keys are part of it: other keys conflict, the
/// same keys again are the retry's 200.
#[tokio::test]
async fn host_keys_are_part_of_the_registration() {
    let s = InProcess::unlimited().await;
    let p = Principal::ed25519();
    let exp = now() + 3600;
    let with_keys = |keys: &[&str]| {
        let mut op = registration("m", &[MAPLE], Some(1), true, exp);
        if let status_update::Operation::Register(r) = &mut op {
            r.host_keys = [(MAPLE.to_owned(), keys.iter().map(|k| k.to_string()).collect())].into();
        }
        op
    };
    let k1 = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs";
    let k2 = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k";
    let first = p.update(&with_keys(&[k1]));
    assert_eq!(publish(&client(), &s.base(), &p.thumb, first).await.status(), StatusCode::CREATED);
    let again = p.update(&with_keys(&[k1]));
    assert_eq!(publish(&client(), &s.base(), &p.thumb, again).await.status(), StatusCode::OK);
    s.refuses(&p, p.update(&with_keys(&[k1, k2])), (StatusCode::CONFLICT, "registration_conflict")).await;
    let none = registration("m", &[MAPLE], Some(1), true, exp);
    s.refuses(&p, p.update(&none), (StatusCode::CONFLICT, "registration_conflict")).await;
}

/// A registration lives at most 181 days from the service's clock (the key
/// app's longest lifetime and a day): one further, the year 2100 above all,
/// is refused with its own reason and nothing written; the bound itself passes.
#[tokio::test]
async fn a_registration_exp_past_the_bound_is_refused() {
    let s = InProcess::unlimited().await;
    let p = Principal::ed25519();
    for exp in [now() + status_update::MAX_REGISTERED_LIFETIME + 120, 4_102_444_800] {
        let far = registration("far", &[MAPLE], Some(1), true, exp);
        s.refuses(&p, p.update(&far), (StatusCode::BAD_REQUEST, "exp_too_far")).await;
    }
    let c = client();
    assert_eq!(
        answer(c.get(format!("{}/status/{}/far", s.base(), p.thumb)).send().await.unwrap()).await.0,
        StatusCode::NOT_FOUND
    );
    // The control: within the bound (a few seconds' leeway for the clock read here).
    let near = registration("near", &[MAPLE], Some(1), true, now() + status_update::MAX_REGISTERED_LIFETIME - 120);
    assert_eq!(publish(&c, &s.base(), &p.thumb, p.update(&near)).await.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn oversized_malformed_and_mistyped_bodies_are_refused() {
    let s = InProcess::unlimited().await;
    let p = Principal::ed25519();
    s.refuses(&p, "a".repeat(MAX_UPDATE_BYTES + 1), (StatusCode::PAYLOAD_TOO_LARGE, "body_too_large")).await;
    s.refuses(&p, "not.a.jws".into(), (StatusCode::BAD_REQUEST, "malformed_update")).await;
    // An unknown member in the payload (closed), signed properly.
    let mut payload = status_update::payload(
        &p.key.public_key().to_jwk(),
        now(),
        &Principal::update_jti(),
        &registration("m", &[MAPLE], Some(1), true, now() + 3600),
    )
    .unwrap();
    payload["credential"]["name"] = json!("Ada Lovelace");
    let header = status_update::header(&p.key.public_key().to_jwk()).unwrap();
    let input = status_update::signing_input(&header, &payload);
    let extra = status_update::assemble(&input, &p.key.sign(input.as_bytes()).unwrap());
    s.refuses(&p, extra, (StatusCode::BAD_REQUEST, "malformed_update")).await;
    // Wrong Content-Type.
    let before = snapshot(&s.pool, &p.thumb).await;
    let good = p.update(&registration("m", &[MAPLE], Some(1), true, now() + 3600));
    let r = client()
        .post(format!("{}/status/{}", s.base(), p.thumb))
        .header("content-type", "application/json")
        .body(good)
        .send()
        .await
        .unwrap();
    assert_eq!(refusal(r).await.2, "bad_content_type");
    assert_eq!(snapshot(&s.pool, &p.thumb).await, before);
    // A revoke of a credential never registered.
    s.refuses(&p, p.update(&revocation("never")), (StatusCode::NOT_FOUND, "unknown_mandate")).await;
}

/// Anyone can open a namespace with a fresh key, so what no answer needs any
/// more is purged: credentials expired for longer than `EXPIRED_KEPT` with
/// their claims, and update ids whose iat window has closed. What hosts or
/// the replay check still need stays.
#[tokio::test]
async fn the_purge_drops_only_what_no_answer_needs() {
    use schcp_status::store::{purge, EXPIRED_KEPT};
    let s = InProcess::unlimited().await;
    let p = Principal::ed25519();
    let t = now();
    for (jti, exp) in [("long-gone", t - EXPIRED_KEPT - 60), ("just-expired", t - 60), ("live", t + 3600)] {
        let reg = registration(jti, &[MAPLE], Some(2), true, exp);
        let (st, _) = answer(publish(&client(), &s.base(), &p.thumb, p.update(&reg)).await).await;
        assert_eq!(st, StatusCode::CREATED, "{jti}");
    }
    // A unit held on the long-expired credential, and an update id whose window closed.
    sqlx::query(
        "INSERT INTO claims (thumb, jti, claim_id, claimed_at) VALUES ($1, 'long-gone', 'maple-street-auto/h1', $2)",
    )
    .bind(&p.thumb)
    .bind(t - EXPIRED_KEPT - 120)
    .execute(&s.pool)
    .await
    .unwrap();
    sqlx::query("INSERT INTO seen_updates (thumb, jti, keep_until) VALUES ($1, 'u-old', $2)")
        .bind(&p.thumb)
        .bind(t - 1)
        .execute(&s.pool)
        .await
        .unwrap();
    let before = snapshot(&s.pool, &p.thumb).await;

    let purged = purge(&s.pool, now()).await.unwrap();
    // Other tests share the database, so at least this namespace's rows.
    assert!(purged.credentials >= 1 && purged.claims >= 1 && purged.updates >= 1, "{purged:?}");
    let after = snapshot(&s.pool, &p.thumb).await;
    let gone: Vec<_> = before.iter().filter(|r| !after.contains(r)).collect();
    assert_eq!(gone.len(), 3, "exactly the credential, its claim and the closed update id: {gone:?}");
    assert!(gone.iter().all(|r| r.contains("long-gone") || r.contains("u-old")), "{gone:?}");

    // Hosts still read the recent ones; the replay memory of live updates stays.
    for (jti, want) in [("just-expired", "expired"), ("live", "active")] {
        let url = format!("{}/status/{}/{jti}", s.base(), p.thumb);
        let (st, body) = answer(client().get(&url).send().await.unwrap()).await;
        assert_eq!((st, body["status"].as_str()), (StatusCode::OK, Some(want)), "{jti}");
    }
    let replay = p.update_at(now(), "u-replayed", &registration("x", &[MAPLE], None, false, t + 600));
    let (st, _) = answer(publish(&client(), &s.base(), &p.thumb, replay.clone()).await).await;
    assert_eq!(st, StatusCode::CREATED);
    purge(&s.pool, now()).await.unwrap();
    s.refuses(&p, replay, (StatusCode::CONFLICT, "update_replayed")).await;
}

fn policy(allowed: Option<&[&Principal]>, max_credentials: u32) -> NamespacePolicy {
    NamespacePolicy { allowed: allowed.map(|ps| ps.iter().map(|p| p.thumb.clone()).collect()), max_credentials }
}

async fn server_with(policy: NamespacePolicy) -> InProcess {
    InProcess::start_with(StatusOptions { rate_limit: None, ..StatusOptions::default() }, policy).await
}

#[tokio::test]
async fn a_namespace_the_operator_does_not_list_cannot_publish() {
    let (listed, other) = (Principal::ed25519(), Principal::ed25519());
    let s = server_with(policy(Some(&[&listed]), 10)).await;
    let reg = registration("m", &[MAPLE], Some(1), true, now() + 3600);
    // A valid update, correctly signed by its own namespace's key, still refused.
    s.refuses(&other, other.update(&reg), (StatusCode::FORBIDDEN, "namespace_not_allowed")).await;
    s.refuses(&other, "not even a JWS".into(), (StatusCode::FORBIDDEN, "namespace_not_allowed")).await;
    let (st, _) = answer(publish(&client(), &s.base(), &listed.thumb, listed.update(&reg)).await).await;
    assert_eq!(st, StatusCode::CREATED);
}

#[tokio::test]
async fn a_full_namespace_refuses_new_credentials_but_not_retries_or_revocations() {
    let s = server_with(policy(None, 2)).await;
    let (p, q) = (Principal::ed25519(), Principal::ed25519());
    let reg = |jti: &str| registration(jti, &[MAPLE], Some(1), true, now() + 3600);
    for jti in ["a", "b"] {
        let (st, _) = answer(publish(&client(), &s.base(), &p.thumb, p.update(&reg(jti))).await).await;
        assert_eq!(st, StatusCode::CREATED, "{jti}");
    }
    s.refuses(&p, p.update(&reg("c")), (StatusCode::FORBIDDEN, "namespace_full")).await;
    // What is already held stays manageable: a retried registration, a revocation.
    let (st, _) = answer(publish(&client(), &s.base(), &p.thumb, p.update(&reg("a"))).await).await;
    assert_eq!(st, StatusCode::OK);
    let (st, body) = answer(publish(&client(), &s.base(), &p.thumb, p.update(&revocation("a"))).await).await;
    assert_eq!((st, body), (StatusCode::OK, json!({"jti": "a", "status": "revoked"})));
    // The bound is per namespace.
    let (st, _) = answer(publish(&client(), &s.base(), &q.thumb, q.update(&reg("c"))).await).await;
    assert_eq!(st, StatusCode::CREATED);
}

#[tokio::test]
async fn concurrent_registrations_never_overfill_a_namespace() {
    let s = server_with(policy(None, 3)).await;
    let p = Principal::ed25519();
    let updates: Vec<String> =
        (0..12).map(|i| p.update(&registration(&format!("m{i}"), &[MAPLE], None, false, now() + 3600))).collect();
    let mut tasks = tokio::task::JoinSet::new();
    for u in updates {
        let (base, thumb) = (s.base(), p.thumb.clone());
        tasks.spawn(async move { publish(&client(), &base, &thumb, u).await.status() });
    }
    let answers = tasks.join_all().await;
    let created = answers.iter().filter(|st| **st == StatusCode::CREATED).count();
    let full = answers.iter().filter(|st| **st == StatusCode::FORBIDDEN).count();
    assert_eq!((created, full), (3, 9), "{answers:?}");
    let held: i64 = sqlx::query_scalar("SELECT count(*) FROM credentials WHERE thumb = $1")
        .bind(&p.thumb)
        .fetch_one(&s.pool)
        .await
        .unwrap();
    assert_eq!(held, 3);
}
