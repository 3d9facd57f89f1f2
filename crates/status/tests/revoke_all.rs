//! A lost computer's switch at the service (docs/hosted-status.md "Revoking
//! everything"): one update signed by the namespace's key revokes every
//! credential registered in it up to the update's `before`, and nothing
//! registered after, nothing in another namespace. Every hostile variant
//! (forged, another namespace's, replayed, malformed, oversized, stale) is
//! refused with its own reason and changes nothing.

mod common;

use common::{answer, client, now, publish, refusal, registration, revoke_all, snapshot, InProcess, Principal};
use reqwest::StatusCode;
use schcp::status_update::{self, MAX_UPDATE_BYTES};
use serde_json::{json, Value};

const MAPLE: &str = "maple-street-auto";

async fn register(s: &InProcess, p: &Principal, jti: &str) {
    let reg = registration(jti, &[MAPLE], Some(2), true, now() + 3600);
    assert_eq!(publish(&client(), &s.base(), &p.thumb, p.update(&reg)).await.status(), StatusCode::CREATED);
}

/// Makes `jti` look registered `secs` ago: the clock is whole seconds, and a
/// test cannot wait for registrations to fall behind a `before`.
async fn registered_ago(s: &InProcess, p: &Principal, jti: &str, secs: i64) {
    sqlx::query("UPDATE credentials SET registered_at = registered_at - $3 WHERE thumb = $1 AND jti = $2")
        .bind(&p.thumb)
        .bind(jti)
        .bind(secs)
        .execute(&s.pool)
        .await
        .unwrap();
}

/// What a host's `GET` reads.
async fn status_of(s: &InProcess, p: &Principal, jti: &str) -> Value {
    let (_, body) = answer(client().get(format!("{}/status/{}/{jti}", s.base(), p.thumb)).send().await.unwrap()).await;
    body["status"].clone()
}

#[tokio::test]
async fn one_update_revokes_every_credential_registered_before_it_and_none_after() {
    let s = InProcess::unlimited().await;
    let (p, neighbour) = (Principal::ed25519(), Principal::ed25519());
    for jti in ["m-1", "m-2", "m-3"] {
        register(&s, &p, jti).await;
        registered_ago(&s, &p, jti, 60).await;
    }
    register(&s, &neighbour, "m-1").await;
    registered_ago(&s, &neighbour, "m-1", 60).await;
    // One of them revoked already: it stays as it was, and is not listed again.
    let one = p.update(&common::revocation("m-3"));
    assert_eq!(publish(&client(), &s.base(), &p.thumb, one).await.status(), StatusCode::OK);
    // Signed ten seconds ago; a credential registered since is not its to reach.
    let signed_at = now() - 10;
    let switch = p.update_at(signed_at, &Principal::update_jti(), &revoke_all(signed_at));
    register(&s, &p, "after").await;

    let (st, body) = answer(publish(&client(), &s.base(), &p.thumb, switch.clone()).await).await;
    assert_eq!((st, body), (StatusCode::OK, json!({"before": signed_at, "revoked": ["m-1", "m-2"]})));
    for jti in ["m-1", "m-2", "m-3"] {
        assert_eq!(status_of(&s, &p, jti).await, "revoked", "{jti}");
    }
    assert_eq!(status_of(&s, &p, "after").await, "active");
    assert_eq!(status_of(&s, &neighbour, "m-1").await, "active", "another namespace is untouched");
    // A host's claim is refused at once.
    let claim = client()
        .post(format!("{}/status/{}/m-1/claims", s.base(), p.thumb))
        .json(&json!({"claim_id": "maple-street-auto/h_1"}))
        .send()
        .await
        .unwrap();
    assert_eq!(refusal(claim).await.2, "mandate_revoked");
    // The record of it: one row, two revoked.
    let (n, before): (i64, i64) = sqlx::query_as("SELECT revoked, before FROM namespace_revocations WHERE thumb = $1")
        .bind(&p.thumb)
        .fetch_one(&s.pool)
        .await
        .unwrap();
    assert_eq!((n, before), (2, signed_at));
    // Replayed, even at once: refused, and "after" stays active.
    s.refuses(&p, switch, (StatusCode::CONFLICT, "update_replayed")).await;
    assert_eq!(status_of(&s, &p, "after").await, "active");
}

#[tokio::test]
async fn an_empty_namespace_is_revoked_to_nothing() {
    let s = InProcess::unlimited().await;
    let p = Principal::ed25519();
    let (st, body) = answer(publish(&client(), &s.base(), &p.thumb, p.update(&revoke_all(now()))).await).await;
    assert_eq!((st, body["revoked"].clone()), (StatusCode::OK, json!([])));
}

#[tokio::test]
async fn a_forged_or_foreign_switch_changes_nothing() {
    let s = InProcess::unlimited().await;
    let (victim, attacker) = (Principal::ed25519(), Principal::ed25519());
    register(&s, &victim, "m-1").await;
    registered_ago(&s, &victim, "m-1", 60).await;
    // The attacker's own valid switch, sent to the victim's namespace.
    s.refuses(&victim, attacker.update(&revoke_all(now())), (StatusCode::UNAUTHORIZED, "namespace_mismatch")).await;
    // The victim's key named, the attacker's signature.
    let jwk = victim.key.public_key().to_jwk();
    let payload = status_update::payload(&jwk, now(), &Principal::update_jti(), &revoke_all(now())).unwrap();
    let input = status_update::signing_input(&status_update::header(&jwk).unwrap(), &payload);
    let forged = status_update::assemble(&input, &attacker.key.sign(input.as_bytes()).unwrap());
    s.refuses(&victim, forged, (StatusCode::UNAUTHORIZED, "update_signature_invalid")).await;
    // The victim's real switch with one byte of its payload changed.
    let good = victim.update(&revoke_all(now()));
    let mut parts: Vec<String> = good.split('.').map(str::to_owned).collect();
    let mut p: Value = serde_json::from_slice(&schcp::b64::decode(&parts[1]).unwrap()).unwrap();
    p["before"] = json!(now() - 1);
    parts[1] = schcp::b64::encode(serde_json::to_vec(&p).unwrap());
    s.refuses(&victim, parts.join("."), (StatusCode::UNAUTHORIZED, "update_signature_invalid")).await;
    assert_eq!(status_of(&s, &victim, "m-1").await, "active");
}

/// A change made to a good payload before it is signed.
type Edit = dyn Fn(&mut Value);

/// Signs `payload` with `p`'s key as is: shapes `status_update::sign` never makes.
fn signed_raw(p: &Principal, payload: &Value) -> String {
    let jwk = p.key.public_key().to_jwk();
    let input = status_update::signing_input(&status_update::header(&jwk).unwrap(), payload);
    status_update::assemble(&input, &p.key.sign(input.as_bytes()).unwrap())
}

#[tokio::test]
async fn malformed_stale_and_oversized_switches_change_nothing() {
    let s = InProcess::unlimited().await;
    let p = Principal::ed25519();
    register(&s, &p, "m-1").await;
    registered_ago(&s, &p, "m-1", 60).await;
    let jwk = p.key.public_key().to_jwk();
    let base = || status_update::payload(&jwk, now(), &Principal::update_jti(), &revoke_all(now())).unwrap();
    let edits: [(&str, &Edit); 5] = [
        ("reaching past its iat", &|v| v["before"] = json!(now() + 120)),
        ("without before", &|v| {
            v.as_object_mut().unwrap().remove("before");
        }),
        ("naming a credential", &|v| v["credential"] = json!({"jti": "m-1"})),
        ("before as text", &|v| v["before"] = json!("yesterday")),
        ("an extra member", &|v| v["reason"] = json!("laptop stolen")),
    ];
    for (what, edit) in edits {
        let mut v = base();
        edit(&mut v);
        let before = snapshot(&s.pool, &p.thumb).await;
        let (st, _, reason) = refusal(publish(&client(), &s.base(), &p.thumb, signed_raw(&p, &v)).await).await;
        assert_eq!((st, reason.as_str()), (StatusCode::BAD_REQUEST, "malformed_update"), "{what}");
        assert_eq!(snapshot(&s.pool, &p.thumb).await, before, "{what}");
    }
    // Signed long ago (a switch kept and sent later) or in the future.
    for iat in [now() - 3600, now() + 400] {
        let stale = p.update_at(iat, &Principal::update_jti(), &revoke_all(iat));
        s.refuses(&p, stale, (StatusCode::BAD_REQUEST, "update_iat_out_of_window")).await;
    }
    s.refuses(&p, "a".repeat(MAX_UPDATE_BYTES + 1), (StatusCode::PAYLOAD_TOO_LARGE, "body_too_large")).await;
    s.refuses(&p, "revoke.all.now".into(), (StatusCode::BAD_REQUEST, "malformed_update")).await;
    assert_eq!(status_of(&s, &p, "m-1").await, "active");
}
