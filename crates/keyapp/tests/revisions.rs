//! Revisions explained to members (§5.12 "Revisions"), who may answer by rule,
//! and meetings as large as one mandate names calendars, through the agent API
//! as an agent sends them. Run under scripts/with-keyring.

use ed25519_dalek::SigningKey;
use keyapp::control::Command;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use testkit::calendar::*;
use testkit::env::*;
use testkit::{now, principal_of};

/// The §5.12 playdate organized by `organizer`, with this person and Priya,
/// as revision `revision`, `later_hours` after noon, at `park`.
fn playdate(me: &str, organizer: &SigningKey, revision: u32, later_hours: u32, park: &str) -> String {
    let priya = principal_of(&SigningKey::from_bytes(&[0x82; 32]));
    let mut claims = playdate_claims(organizer, me, &[(&priya, "Priya Shah", "priya-shah")], now(), now() + 3600);
    claims["revision"] = json!(revision);
    let day = chrono::Utc::now() + chrono::Duration::days(3);
    claims["start"] = json!(day.format(&format!("%Y-%m-%dT{:02}:00:00-05:00", 12 + later_hours)).to_string());
    claims["place"] = json!({"name": park, "locality": "Toronto"});
    signed_contract(claims, now(), organizer).compact
}

fn acceptance(contract: &str, key: &str) -> Value {
    json!({"kind": "acceptance", "idempotency_key": key, "contract": contract})
}

#[tokio::test]
async fn a_revision_names_what_changed_since_the_one_accepted() {
    let env = start().await;
    let a = paired_agent(&env, 41).await;
    let me = a.call(Method::GET, "/v1/principal", None).await.unwrap()["principal"].as_str().unwrap().to_owned();
    let noor = SigningKey::from_bytes(&[0x81; 32]);
    let add = Command::ContactsAdd { principal: principal_of(&noor), name: "Noor Haddad".into(), relationship: None };
    person(&env, add).await.unwrap();

    // Revision 1: no earlier one, nothing said of one; who else answers, and how.
    let first = playdate(&me, &noor, 1, 0, "Trinity Bellwoods Park playground");
    let r = a.call(Method::POST, "/v1/requests", Some(&acceptance(&first, "r1"))).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert!(!text.contains("revision"), "{text}");
    assert!(
        text.contains(
            "The other members: someone you don't know, named \"Priya Shah\" may answer by a rule they signed."
        ),
        "{text}"
    );
    approved(&env, &a, &r).await;

    // Revision 2: what changed since revision 1, which this person accepted.
    let second = playdate(&me, &noor, 2, 1, "Dufferin Grove Park");
    let r = a.call(Method::POST, "/v1/requests", Some(&acceptance(&second, "r2"))).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert!(
        text.contains(
            "This is revision 2 of the meeting; it replaces revision 1, which I accepted. What changes since then:"
        ),
        "{text}"
    );
    assert!(text.contains("Time: from ") && text.contains("12:00 p.m.") && text.contains("1:00 p.m."), "{text}");
    assert!(
        text.contains("Place: from Trinity Bellwoods Park playground, Toronto to Dufferin Grove Park, Toronto."),
        "{text}"
    );
    // The statement signed is still the first line alone.
    assert!(text.lines().next().unwrap().starts_with("I accept: Playdate arranged by Noor Haddad"), "{text}");
    let done = approved(&env, &a, &r).await;
    assert_eq!(done["status"], "approved");

    // Revision 4 after revision 2 was accepted: shown against revision 2.
    let fourth = playdate(&me, &noor, 4, 1, "Dufferin Grove Park");
    let r = a.call(Method::POST, "/v1/requests", Some(&acceptance(&fourth, "r4"))).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert!(text.contains("it replaces revision 2, which I accepted"), "{text}");
    assert!(text.contains("The new terms are the same as the current ones."), "{text}");
    a.call(Method::DELETE, &format!("/v1/requests/{}", r["request_id"].as_str().unwrap()), None).await.unwrap();

    // The organizer's revision 3, which this person never accepted, written
    // into the record of the acceptance of revision 2: the records do not
    // make it one this person accepted (their signed acceptance is of
    // revision 2's terms), so the text does not say so.
    let third = playdate(&me, &noor, 3, 2, "Christie Pits");
    let pool = env.app.service.records().store().pool();
    let rid2 = done["request_id"].as_str().unwrap().to_owned();
    let q = sqlx::query("UPDATE requests SET input = json_set(input, '$.contract', ?) WHERE request_id = ?")
        .bind(&third)
        .bind(&rid2);
    assert_eq!(q.execute(pool).await.unwrap().rows_affected(), 1);
    let fifth = playdate(&me, &noor, 5, 2, "Christie Pits");
    let r = a.call(Method::POST, "/v1/requests", Some(&acceptance(&fifth, "r5"))).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert!(!text.contains("revision 3"), "{text}");
    assert!(text.contains("it replaces revision 1, which I accepted"), "the one it did accept: {text}");
    assert!(!text.contains("The new terms are the same as the current ones."), "{text}");
    a.call(Method::DELETE, &format!("/v1/requests/{}", r["request_id"].as_str().unwrap()), None).await.unwrap();

    // Another organizer's meeting under the same id is not the one accepted.
    let mallory = SigningKey::from_bytes(&[0x85; 32]);
    let spoof = playdate(&me, &mallory, 3, 5, "Somewhere else");
    let r = a.call(Method::POST, "/v1/requests", Some(&acceptance(&spoof, "spoof"))).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert!(
        text.contains("This is revision 3 of the meeting, and replaces revision 2, which I have not accepted."),
        "{text}"
    );
    assert!(!text.contains("Time: from"), "{text}");
}

#[tokio::test]
async fn a_meeting_has_no_more_members_than_one_mandate_names_hosts() {
    let env = start().await;
    let a = paired_agent(&env, 42).await;
    let member = |i: usize| {
        json!({"name": format!("Member {i}"), "host": format!("member-{i}"),
               "discovery": format!("https://member-{i}.example/.well-known/scheduling.json"), "offer": "a.b.c"})
    };
    let too_many: Vec<Value> = (0..=keyapp::service::MAX_HOSTS).map(member).collect();
    let body = json!({"kind": "meeting_contract", "idempotency_key": "big",
        "meeting": {"title": "Playdate", "tz": "America/Toronto", "start": "2026-12-05T12:00:00-05:00",
                    "open_end": true, "place": {"name": "The park"}, "exp": now() + 3600},
        "members": too_many});
    let (status, err) = a.send(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    assert_eq!((status, err["error"]["reason"].as_str()), (StatusCode::BAD_REQUEST, Some("meeting_invalid")), "{err}");
    assert!(err["error"]["message"].as_str().unwrap().contains("from 2 to 10 members"), "{err}");
    assert_eq!(keyapp::service::MAX_MEMBERS, keyapp::service::MAX_HOSTS);
    assert!(pending_ids(&env).await.is_empty());
}
