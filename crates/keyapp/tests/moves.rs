//! Moves shown from and to (§5.7), through the agent API as an agent sends
//! them: a booking made under an open mandate, its receipt sent with the change
//! offer, the `prev` chain and §5.7's `awaiting_host` rules, hostile receipts
//! refused with nothing changed, and a host's counter (§5.11) said to be the
//! host's. Run under scripts/with-keyring (the key app's OS keychain).

use agent::AgentClient;
use keyapp::control::Command;
use reqwest::{Method, StatusCode};
use schcp::claims::{
    Approved, BookingStatus, OfferClaims, Place, Proposal, ProposedBy, ReceiptClaims, ReceiptConsent, Reconfirm,
    ReconfirmDefault,
};
use schcp::hash::jws_sha256;
use serde_json::{json, Value};
use testhost::TestHost;

use testkit::env::*;
use testkit::now;

const NO_RECEIPT: &str = "The key app has no receipt for this booking, so it cannot show what changes";

/// A booking the agent made under an open mandate (the ordinary case, §5.3
/// `approved: "limits"`): the key app never saw its offer. Its contract and the
/// host's receipt claims.
fn open_mandate_booking(host: &TestHost, days_ahead: i64) -> (String, ReceiptClaims) {
    let (_, offer) = future_offer(host, days_ahead);
    let claims = host.receipt_claims(&offer, "m-open", Approved::Limits, now()).unwrap();
    (offer, claims)
}

/// A change offer of `booking_id` extending `prev`, `days_ahead` days from now at
/// 9:00, with a place, two people, a reconfirmation and a longer retention.
fn moved_claims(host: &TestHost, booking_id: &str, prev: &str, days_ahead: i64) -> OfferClaims {
    let mut c = host.change_offer(booking_id, prev, now());
    let day = chrono::Utc::now() + chrono::Duration::days(days_ahead);
    c.slot.start = day.format("%Y-%m-%dT09:00:00-04:00").to_string();
    c.slot.end = Some(day.format("%Y-%m-%dT09:45:00-04:00").to_string());
    c.place = Some(Place { name: Some("Bay 3, rear entrance".into()), ..Place::default() });
    c.party_size = Some(2);
    c.reconfirm = Some(Reconfirm { before: "PT24H".into(), default: ReconfirmDefault::Release });
    c.retention = "P730D".into();
    c
}

fn change_request(env: &Env, change: &str, receipt: Option<&str>, key: &str) -> Value {
    let mut body = closed_request(env, change, key);
    if let Some(r) = receipt {
        body["receipt"] = json!(r);
    }
    body
}

/// A refusal of `body` with `reason`, and nothing new for the person or in the records.
async fn refused(env: &Env, a: &AgentClient, body: &Value, status: StatusCode, reason: &str) {
    let before = person(env, Command::Mandates).await.unwrap();
    let (got, err) = a.send(Method::POST, "/v1/requests", Some(body)).await.unwrap();
    assert_eq!((got, err["error"]["reason"].as_str()), (status, Some(reason)), "{err}");
    assert!(pending_ids(env).await.is_empty(), "nothing waits for the person");
    assert_eq!(person(env, Command::Mandates).await.unwrap(), before, "nothing was recorded");
}

async fn withdraw(a: &AgentClient, r: &Value) {
    a.call(Method::DELETE, &format!("/v1/requests/{}", r["request_id"].as_str().unwrap()), None).await.unwrap();
}

#[tokio::test]
async fn a_move_under_an_open_mandate_asks_for_the_receipt_then_shows_every_change() {
    let env = start().await;
    let a = paired_agent(&env, 31).await;
    let (offer, claims) = open_mandate_booking(&env.host, 5);
    let booking = claims.booking.booking_id.clone();
    let receipt = env.host.sign_receipt(&claims).unwrap();
    let change = env.host.sign_offer(&moved_claims(&env.host, &booking, &jws_sha256(&offer), 8)).unwrap();

    // No receipt here: one plain line says so and asks for it.
    let r = a.call(Method::POST, "/v1/requests", Some(&change_request(&env, &change, None, "bare"))).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert_eq!(text.lines().filter(|l| l.contains("receipt")).count(), 1, "{text}");
    assert!(text.contains(NO_RECEIPT) && !text.contains("from"), "{text}");
    withdraw(&a, &r).await;

    // With the receipt: every term that changes, from and to.
    let r = a
        .call(Method::POST, "/v1/requests", Some(&change_request(&env, &change, Some(&receipt), "with")))
        .await
        .unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert!(!text.contains(NO_RECEIPT), "{text}");
    for line in [
        "Time: from ",
        "Place: from the host's premises to \"Bay 3, rear entrance\".",
        "Party size: from 1 to 2.",
        "Reconfirmation: from none to due 24 hours before the start, else the booking is released.",
        "Records kept after the booking: from 1 year to 2 years.",
    ] {
        assert!(text.contains(line), "{line:?} in {text}");
    }
    assert!(!text.contains("Price: from"), "the price did not change: {text}");
    let done = approved(&env, &a, &r).await;
    assert_eq!(done["status"], "approved");
    assert_eq!(done["result"]["offer_sha256"], jws_sha256(&change));
}

#[tokio::test]
async fn hostile_receipts_are_refused_and_change_nothing() {
    let env = start().await;
    let a = paired_agent(&env, 32).await;
    let (offer, claims) = open_mandate_booking(&env.host, 5);
    let booking = claims.booking.booking_id.clone();
    let contract = jws_sha256(&offer);
    let change = env.host.sign_offer(&moved_claims(&env.host, &booking, &contract, 8)).unwrap();
    let receipt = env.host.sign_receipt(&claims).unwrap();
    let unprocessable = StatusCode::UNPROCESSABLE_ENTITY;

    // Not a JWS at all.
    let body = change_request(&env, &change, Some("not.a-receipt"), "malformed");
    let (status, err) = a.send(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    assert!(status.is_client_error(), "{err}");
    assert!(pending_ids(&env).await.is_empty());
    // A receipt member of the wrong type is the body's shape.
    refused(
        &env,
        &a,
        &json!({"kind": "closed_mandate", "idempotency_key": "typed", "offer": change,
        "discovery": env.host.discovery_url(), "receipt": 7}),
        StatusCode::BAD_REQUEST,
        "malformed",
    )
    .await;
    // Forged: its booking edited after the host signed it.
    let mut parts: Vec<String> = receipt.split('.').map(str::to_owned).collect();
    let mut payload: Value = serde_json::from_slice(&schcp::b64::decode(&parts[1]).unwrap()).unwrap();
    payload["booking"]["party_size"] = json!(9);
    parts[1] = schcp::b64::encode(payload.to_string());
    refused(&env, &a, &change_request(&env, &change, Some(&parts.join(".")), "forged"), unprocessable, "bad_signature")
        .await;
    // Signed under a key the host never published.
    let stolen = env.host.sign_with_kid(schcp::jws::Typ::Receipt, &claims, "stolen-key").unwrap();
    refused(&env, &a, &change_request(&env, &change, Some(&stolen), "stolen"), unprocessable, "unknown_kid").await;
    // Another booking's receipt.
    let (_, other) = open_mandate_booking(&env.host, 6);
    let other = env.host.sign_receipt(&other).unwrap();
    refused(&env, &a, &change_request(&env, &change, Some(&other), "other"), unprocessable, "receipt_mismatch").await;
    // A receipt with a change offer the booking is not: refused as malformed.
    refused(
        &env,
        &a,
        &change_request(&env, &offer, Some(&receipt), "booking-offer"),
        StatusCode::BAD_REQUEST,
        "malformed",
    )
    .await;

    // Replayed: the receipt from before the booking moved, with a change that
    // extends the moved contract. The prev chain does not meet it.
    let moved = env.host.sign_offer(&moved_claims(&env.host, &booking, &contract, 7)).unwrap();
    let next = env.host.sign_offer(&moved_claims(&env.host, &booking, &jws_sha256(&moved), 9)).unwrap();
    refused(&env, &a, &change_request(&env, &next, Some(&receipt), "replayed"), unprocessable, "receipt_mismatch")
        .await;
    // The same receipt sent again with the right change is shown, twice alike.
    let r1 =
        a.call(Method::POST, "/v1/requests", Some(&change_request(&env, &change, Some(&receipt), "ok"))).await.unwrap();
    let r2 =
        a.call(Method::POST, "/v1/requests", Some(&change_request(&env, &change, Some(&receipt), "ok"))).await.unwrap();
    assert_eq!(r1["request_id"], r2["request_id"], "the same idempotency key is the same request");
    assert_eq!(pending_ids(&env).await.len(), 1);
}

/// `claims` with a guest's move of the booking waiting on the host (§5.7 step 3).
fn awaiting(claims: &ReceiptClaims, change: &str, expires_at: &str) -> ReceiptClaims {
    let mut c = claims.clone();
    let moved: OfferClaims = schcp::jws::parse(change).unwrap().claims().unwrap();
    c.booking.proposal = Some(Proposal {
        proposal_id: "p_1".into(),
        start: moved.slot.start.clone(),
        end: moved.slot.end.clone(),
        expires_at: expires_at.to_owned(),
        by: ProposedBy::Guest,
        place: moved.place.clone(),
        offer: change.to_owned(),
        awaiting_host: Some(true),
        consent: Some(ReceiptConsent { approved: Approved::Offer, mandate: "m-1".into(), mode: None }),
    });
    c
}

#[tokio::test]
async fn a_move_waiting_on_the_host_is_the_accepted_offer_and_waits_no_later_than_the_start() {
    let env = start().await;
    let a = paired_agent(&env, 33).await;
    let (offer, claims) = open_mandate_booking(&env.host, 5);
    let booking = claims.booking.booking_id.clone();
    let contract = jws_sha256(&offer);
    let receipt = env.host.sign_receipt(&claims).unwrap();

    // The person approves a move here.
    let accepted = env.host.sign_offer(&moved_claims(&env.host, &booking, &contract, 8)).unwrap();
    let r = a
        .call(Method::POST, "/v1/requests", Some(&change_request(&env, &accepted, Some(&receipt), "move")))
        .await
        .unwrap();
    approved(&env, &a, &r).await;
    let before_start = (chrono::Utc::now() + chrono::Duration::days(4)).to_rfc3339();
    let after_start = (chrono::Utc::now() + chrono::Duration::days(6)).to_rfc3339();

    // Another move asked while it waits: the receipt must show the accepted one.
    let other = env.host.sign_offer(&moved_claims(&env.host, &booking, &contract, 9)).unwrap();
    let next = env.host.sign_offer(&moved_claims(&env.host, &booking, &contract, 10)).unwrap();
    let not_accepted = env.host.sign_receipt(&awaiting(&claims, &other, &before_start)).unwrap();
    refused(
        &env,
        &a,
        &change_request(&env, &next, Some(&not_accepted), "not-accepted"),
        StatusCode::UNPROCESSABLE_ENTITY,
        "receipt_mismatch",
    )
    .await;
    let past_start = env.host.sign_receipt(&awaiting(&claims, &accepted, &after_start)).unwrap();
    refused(
        &env,
        &a,
        &change_request(&env, &next, Some(&past_start), "past-start"),
        StatusCode::UNPROCESSABLE_ENTITY,
        "receipt_mismatch",
    )
    .await;
    // The accepted move, waiting no later than the start: shown.
    let fine = env.host.sign_receipt(&awaiting(&claims, &accepted, &before_start)).unwrap();
    let r =
        a.call(Method::POST, "/v1/requests", Some(&change_request(&env, &next, Some(&fine), "fine"))).await.unwrap();
    assert!(r["consent_text"].as_str().unwrap().contains("Time: from "), "{r}");
}

#[tokio::test]
async fn a_hosts_counter_is_said_to_be_the_hosts() {
    let env = start().await;
    let a = paired_agent(&env, 34).await;
    let (offer, mut claims) = open_mandate_booking(&env.host, 5);
    let booking = claims.booking.booking_id.clone();
    let counter = env.host.sign_offer(&moved_claims(&env.host, &booking, &jws_sha256(&offer), 6)).unwrap();
    let c: OfferClaims = schcp::jws::parse(&counter).unwrap().claims().unwrap();
    // §5.11: the booking waits on the host, which answers with its own terms,
    // attached to the unchanged booking as a proposal by the host (§5.8).
    claims.booking.status = BookingStatus::PendingHost;
    claims.booking.proposal = Some(Proposal {
        proposal_id: "p_2".into(),
        start: c.slot.start.clone(),
        end: c.slot.end.clone(),
        expires_at: (chrono::Utc::now() + chrono::Duration::hours(2)).to_rfc3339(),
        by: ProposedBy::Host,
        place: c.place.clone(),
        offer: counter.clone(),
        awaiting_host: None,
        consent: None,
    });
    let receipt = env.host.sign_receipt(&claims).unwrap();
    let r = a
        .call(Method::POST, "/v1/requests", Some(&change_request(&env, &counter, Some(&receipt), "counter")))
        .await
        .unwrap();
    let text = r["consent_text"].as_str().unwrap();
    let heading = format!(
        "Maple Street Auto (maplestreetauto.example) has not accepted my booking request {booking} as I asked it, \
         and counters with its own terms:"
    );
    assert!(text.starts_with(&heading), "{text}");
    assert!(text.contains("Time: from "), "{text}");
    withdraw(&a, &r).await;
    // Confirmed, the same proposal is the host's proposal, not a counter.
    claims.booking.status = BookingStatus::Confirmed;
    let receipt = env.host.sign_receipt(&claims).unwrap();
    let r = a
        .call(Method::POST, "/v1/requests", Some(&change_request(&env, &counter, Some(&receipt), "proposal")))
        .await
        .unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert!(
        text.starts_with(&format!(
            "Maple Street Auto (maplestreetauto.example) proposes to change my booking {booking}:"
        )),
        "{text}"
    );
}
