//! Invitations end to end (§5.10): a booking someone else made names
//! this person as a required participant; their agent reads it from the test
//! host over HTTPS (`GET /bookings/{id}`, §5.5) and asks the key app. Run under
//! scripts/with-keyring, like e2e.rs.

use agent::AgentClient;
use ed25519_dalek::SigningKey;
use keyapp::control::Command;
use reqwest::{Method, StatusCode};
use schcp::claims::{Action, BookingResponse, Participant, ParticipantRole, ParticipantStatus, ReconfirmDefault};
use schcp::verify::{verify_mandate_chain, ChainContext};
use serde_json::{json, Value};
use testhost::{TestHost, TestHostConfig};
use testkit::env::*;
use testkit::invitation::{fetch_booking, fresh_nonce, invited, respond, sam, BOOKERS_MANDATE};
use testkit::{now, principal_of};

const HOST: &str = "maple-street-auto";

async fn my_principal(a: &AgentClient) -> String {
    a.call(Method::GET, "/v1/principal", None).await.unwrap()["principal"].as_str().unwrap().to_owned()
}

/// 13:00 Toronto time `days_ahead` from today, as the host writes times.
fn at_one_pm(days_ahead: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::days(days_ahead)).format("%Y-%m-%dT13:00:00-04:00").to_string()
}

/// The day `days_ahead` from today as the consent text writes it.
fn day_words(days_ahead: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::days(days_ahead)).format("%-d %B %Y").to_string()
}

/// The booker Sam (named `booker_name`), this person invited (§5.10's example: a
/// brother, answer within a day, released by default), and a child coming along.
fn participants(me: &str, booker_name: Option<&str>, confirm_by: &str) -> Vec<Participant> {
    let mut all = invited(me, booker_name, confirm_by);
    all.push(Participant {
        who: None,
        name: Some("Mira".into()),
        role: ParticipantRole::Attendee,
        relationship: Some("child".into()),
        confirm_within: None,
        confirm_by: None,
        default: None,
        status: Some(ParticipantStatus::NotRequired),
    });
    all
}

/// An oil change `days_ahead` from today, signed by the host.
fn offer_in(host: &TestHost, days_ahead: i64) -> String {
    future_offer(host, days_ahead).1
}

fn invitation(env: &Env, booking: &Value, key: &str) -> Value {
    json!({"kind": "invitation", "idempotency_key": key, "booking": booking, "discovery": env.host.discovery_url()})
}

fn to_value(b: &BookingResponse) -> Value {
    serde_json::to_value(b).unwrap()
}

/// Approves `rid` and returns the request as the agent then reads it.
async fn approved(env: &Env, a: &AgentClient, rid: &str) -> Value {
    person(env, Command::Approve { id: rid.to_owned() }).await.unwrap();
    let done = a.call(Method::GET, &format!("/v1/requests/{rid}"), None).await.unwrap();
    assert_eq!(done["status"], "approved", "{done}");
    done
}

fn jwcrypto_verifies(jwk: &Value, mandate: &str) -> Value {
    let script = r#"
import json, sys
from jwcrypto import jwk, jws
key = jwk.JWK(**json.loads(sys.argv[1]))
token = jws.JWS()
token.deserialize(sys.argv[2])
token.verify(key, alg="EdDSA")
print(token.payload.decode())
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script, &jwk.to_string(), mandate])
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "jwcrypto refused the mandate: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// An invitation as §5.10's example has it, from Sam, whom the person keeps
/// as a contact: the principal it names, the contract's offer (a slot five
/// days ahead), the deadline (the day before), and the booking as the host
/// serves it and as the agent fetched it.
struct Invited {
    me: String,
    offer: String,
    confirm_by: String,
    served: BookingResponse,
    booking_id: String,
    fetched: Value,
}

async fn invited_by_sam(env: &Env, a: &AgentClient) -> Invited {
    let me = my_principal(a).await;
    person(env, Command::ContactsAdd { principal: sam(), name: "Sam".into(), relationship: None }).await.unwrap();
    let offer = offer_in(&env.host, 5);
    let confirm_by = at_one_pm(4);
    let served = env
        .host
        .tentative_booking(&offer, BOOKERS_MANDATE, participants(&me, Some("Sam R."), &confirm_by), now())
        .unwrap();
    let booking_id = served.booking.booking_id.clone();
    let fetched = fetch_booking(&env.host, &booking_id).await;
    Invited { me, offer, confirm_by, served, booking_id, fetched }
}

#[tokio::test]
async fn an_invitation_is_shown_by_contact_name_and_accepted_with_a_closed_mandate_for_respond() {
    let env = start().await;
    let a = paired_agent(&env, 40).await;
    let Invited { me, offer, confirm_by, served, booking_id, fetched } = invited_by_sam(&env, &a).await;
    assert_eq!(fetched, to_value(&served), "served over HTTPS as given");

    let (status, r) = a.send(Method::POST, "/v1/requests", Some(&invitation(&env, &fetched, "inv-1"))).await.unwrap();
    assert_eq!(status, StatusCode::ACCEPTED, "{r}");
    assert_eq!(r["kind"], "invitation");
    let text = r["consent_text"].as_str().unwrap();
    // The person has not dealt with the host before: said once, after the summary.
    assert_eq!(text.lines().nth(1), Some("You have not dealt with maplestreetauto.example before."), "{text}");
    let lines: Vec<&str> = text.lines().filter(|l| !is_new_host_line(l)).collect();
    assert!(
        lines[0].starts_with(
            "I accept an invitation from Sam to a booking they made: Synthetic oil change with Maple Street Auto \
             (maplestreetauto.example), "
        ) && lines[0].contains(&day_words(5))
            && lines[0].ends_with(" Eastern time, CAD 89.27, paid to Maple Street Auto directly."),
        "{text}"
    );
    assert_eq!(lines[1], "The booking names me as an invitee (brother).");
    assert!(lines[2].starts_with("I must answer by ") && lines[2].contains(&day_words(4)), "{text}");
    // In the host's zone (the clock time depends on the season: -04:00 is written).
    assert!(lines[2].contains(" Eastern time. If I decline"), "{text}");
    assert!(lines[2].ends_with("the booking follows its default: it is released."), "{text}");
    assert!(text.ends_with("Maple Street Auto keeps my booking details for 1 year after the booking."), "{text}");
    let rid = r["request_id"].as_str().unwrap().to_owned();
    let shown = person(&env, Command::Show { id: rid.clone() }).await.unwrap();
    assert_eq!(shown["consent_text"], r["consent_text"]);
    // The window's look-twice data points at the deadline, in the text's own words.
    let prompt = env.app.service.requests().prompt(&rid).await.unwrap();
    assert_eq!(prompt.kind, "invitation");
    let kinds: Vec<&str> = prompt.attention.iter().map(|a| a.kind.as_str()).collect();
    assert_eq!(kinds, ["new_host", "price", "answer_by", "retention"]);
    // The deadline itself, as the text says it, never the text's whole line.
    let deadline = prompt.attention[2].detail.as_deref().unwrap();
    assert!(lines[2].contains(deadline) && deadline != lines[2], "{deadline:?} in {:?}", lines[2]);
    assert!(deadline.contains(&day_words(4)), "{deadline}");
    // The offer's price lines and total, typed from the verified claims: the
    // total is the one the text states, and the lines add up to it (§5.2).
    let terms = prompt.terms.as_ref().expect("an invitation is about one offer");
    assert_eq!(terms.host, "Maple Street Auto");
    assert!(!terms.lines.is_empty(), "{terms:?}");
    assert!(text.contains(terms.total.as_deref().unwrap()), "{terms:?} in {text}");
    assert!(terms.lines.iter().all(|l| l.amount.starts_with("CAD ")), "{terms:?}");

    let done = approved(&env, &a, &rid).await;
    let mandate = done["result"]["mandate"].as_str().unwrap();
    let contract = schcp::hash::jws_sha256(&offer);
    assert_eq!(done["result"]["offer_sha256"], contract.as_str());
    assert_eq!(done["result"]["booking_id"], booking_id.as_str());
    // A host's checks (§3.3): aud the host, the agent's key, now.
    let chain = verify_mandate_chain(
        mandate,
        &ChainContext { host_id: HOST, request_jkt: &jkt(&a), now: now(), allow_wildcard: false },
    )
    .expect("a host accepts it");
    let claims = &chain.root.claims;
    assert_eq!(claims.iss, me);
    assert_eq!(claims.scope, vec![Action::Book]);
    let c = claims.constraints.clone().unwrap();
    assert_eq!(c.offer_sha256.as_deref(), Some(contract.as_str()), "bound to the booking's current contract");
    assert_eq!(c.bookings, Some(vec![booking_id.clone()]), "this booking only");
    assert_eq!(c.max_price.unwrap().amount, "89.27");
    let deadline = schcp::datetime::parse_date_time(&confirm_by).unwrap().timestamp();
    assert!(claims.exp <= deadline, "valid no later than confirm_by: {} > {deadline}", claims.exp);
    assert_eq!(claims.consent.as_ref().unwrap().statement, lines[0]);
    // An independent JOSE implementation agrees.
    let jwk = a.call(Method::GET, "/v1/principal", None).await.unwrap()["jwk"].clone();
    let payload = jwcrypto_verifies(&jwk, mandate);
    assert_eq!(payload["aud"], HOST);
    assert_eq!(payload["constraints"]["offer_sha256"], contract.as_str());
    assert!(payload["exp"].as_i64().unwrap() <= deadline);
    assert!(done["result"].get("accept").is_none(), "a yes's result keeps its shape");
    // The host takes the yes (§5.10): the last required participant's makes it confirmed.
    let yes = json!({"idempotency_key": "yes-1", "accept": true, "offer_sha256": contract});
    let (status, answered) = respond(&env.host, a.key(), mandate, &booking_id, &yes, &fresh_nonce()).await;
    assert_eq!(status, StatusCode::OK, "{answered}");
    assert_eq!(answered["booking"]["status"], "confirmed", "{answered}");

    // Kept like any credential: the list, the history.
    let listed = person(&env, Command::Mandates).await.unwrap();
    let record = listed.as_array().unwrap().iter().find(|m| m["kind"] == "invitation").expect("listed").clone();
    assert_eq!(record["jti"], done["result"]["jti"]);
    let history = person(&env, Command::History).await.unwrap();
    assert!(history
        .as_array()
        .unwrap()
        .iter()
        .any(|h| h["event"] == "credential_issued" && h["subject"] == record["jti"] && h["detail"] == "invitation"));
    let agents_list = a.call(Method::GET, "/v1/mandates", None).await.unwrap();
    assert_eq!(agents_list[0]["kind"], "invitation");
    assert_eq!(agents_list[0]["status"], "active");

    // §5.10 "Changes re-ask": the booking moves; the person is asked again,
    // shown what changes from the contract they accepted to the new one.
    let mut change = env.host.change_offer(&booking_id, &contract, now());
    change.slot.start = at_one_pm(8);
    change.slot.end = Some(at_one_pm(8).replace("13:00:00", "13:45:00"));
    let change = env.host.sign_offer(&change).unwrap();
    let again = env
        .host
        .tentative_booking(&change, BOOKERS_MANDATE, participants(&me, Some("Sam R."), &at_one_pm(7)), now())
        .unwrap();
    assert_eq!(again.booking.booking_id, booking_id);
    let fetched = fetch_booking(&env.host, &booking_id).await;
    let r = a.call(Method::POST, "/v1/requests", Some(&invitation(&env, &fetched, "inv-2"))).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert!(text.contains("\nThe booking changed since I accepted it; this replaces my earlier yes:\n"), "{text}");
    let line = text.lines().find(|l| l.starts_with("Time: from ")).unwrap_or_else(|| panic!("{text}"));
    let (from, to) = line["Time: from ".len()..].split_once(" to ").unwrap();
    assert!(from.contains(&day_words(5)) && to.contains(&day_words(8)), "{line}");
    assert!(!text.contains("Price: from"), "the price did not change: {text}");
    let done = approved(&env, &a, r["request_id"].as_str().unwrap()).await;
    assert_eq!(done["result"]["offer_sha256"], schcp::hash::jws_sha256(&change).as_str());

    // Once answered, the same booking is not asked again.
    let mut answered = again.clone();
    for p in answered.booking.participants.as_mut().unwrap() {
        if p.who.as_deref() == Some(me.as_str()) {
            p.status = Some(ParticipantStatus::Accepted);
        }
    }
    let answered = resign(&env.host, answered);
    refused(&env, &a, &invitation(&env, &to_value(&answered), "inv-3"), "already_answered").await;
}

#[tokio::test]
async fn in_french_without_a_contact_name_and_a_no_that_signs_nothing() {
    let env = start_with(|config| config.locale = Some("fr".into())).await;
    let a = paired_agent(&env, 41).await;
    let me = my_principal(&a).await;
    let offer = offer_in(&env.host, 6);
    let served = env
        .host
        .tentative_booking(&offer, BOOKERS_MANDATE, participants(&me, Some("Sam R."), &at_one_pm(5)), now())
        .unwrap();
    let fetched = fetch_booking(&env.host, &served.booking.booking_id).await;
    let r = a.call(Method::POST, "/v1/requests", Some(&invitation(&env, &fetched, "fr-1"))).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !is_new_host_line(l)).collect();
    // Sam is not a contact: the booking's label, in quotes, flagged.
    assert!(
        lines[0].starts_with("J’accepte l’invitation de quelqu’un que vous ne connaissez pas, sous le nom de « Sam R. » à sa réservation : "),
        "{text}"
    );
    assert_eq!(lines[1], "La réservation m’inscrit comme personne invitée (brother).");
    assert!(lines[2].starts_with("Je dois répondre au plus tard le "), "{text}");
    assert!(lines[2].contains("Si je refuse, rien n’est signé et l’hôte n’en est pas informé"), "{text}");
    assert!(lines[2].ends_with("la réservation suit sa règle par défaut : elle est libérée."), "{text}");

    // The no signs nothing (docs/decisions.md "An invitation's no").
    let rid = r["request_id"].as_str().unwrap().to_owned();
    person(&env, Command::Decline { id: rid.clone() }).await.unwrap();
    let done = a.call(Method::GET, &format!("/v1/requests/{rid}"), None).await.unwrap();
    assert_eq!(done["status"], "declined");
    assert!(done.get("result").is_none_or(Value::is_null), "{done}");
    let history = person(&env, Command::History).await.unwrap();
    assert!(history
        .as_array()
        .unwrap()
        .iter()
        .any(|h| h["event"] == "request_declined" && h["subject"] == rid.as_str()));
}

/// Signs `response`'s booking afresh as the host's receipt, as the host would
/// serve a booking whose participants changed.
fn resign(host: &TestHost, mut response: BookingResponse) -> BookingResponse {
    let offer = response.offer.clone().unwrap();
    let mut claims = host.receipt_claims(&offer, BOOKERS_MANDATE, schcp::claims::Approved::Offer, now()).unwrap();
    claims.booking = response.booking.clone();
    response.receipt = host.sign_receipt(&claims).unwrap();
    response
}

async fn refused(env: &Env, a: &AgentClient, body: &Value, reason: &str) {
    let (status, err) = a.send(Method::POST, "/v1/requests", Some(body)).await.unwrap();
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{reason}: {err}");
    assert_eq!(err["error"]["reason"], reason, "{err}");
    assert!(pending_ids(env).await.is_empty(), "{reason}: nothing is pending");
}

#[tokio::test]
async fn hostile_invitations_are_refused_with_nothing_pending() {
    let env = start().await;
    let a = paired_agent(&env, 42).await;
    let me = my_principal(&a).await;
    let with = |me: &str| participants(me, Some("Sam R."), &at_one_pm(4));
    let good = env.host.tentative_booking(&offer_in(&env.host, 5), BOOKERS_MANDATE, with(&me), now()).unwrap();
    let other = env.host.tentative_booking(&offer_in(&env.host, 6), BOOKERS_MANDATE, with(&me), now()).unwrap();
    let edit = |f: &dyn Fn(&mut Vec<Participant>)| {
        let mut b = good.clone();
        f(b.booking.participants.as_mut().unwrap());
        resign(&env.host, b)
    };
    let mut cases: Vec<(&str, Value, &str)> = Vec::new();

    // The receipt of one booking with the contract of another.
    let mut swapped = good.clone();
    swapped.offer = other.offer.clone();
    cases.push(("receipt and offer from different bookings", to_value(&swapped), "contract_mismatch"));
    // This person not named at all.
    let stranger = principal_of(&SigningKey::from_bytes(&[0x91; 32]));
    let not_me = env.host.tentative_booking(&offer_in(&env.host, 5), BOOKERS_MANDATE, with(&stranger), now()).unwrap();
    cases.push(("not named", to_value(&not_me), "not_a_participant"));
    // Named as the booker: its reconfirmation is a management mandate's.
    let booker = edit(&|ps| ps[1].role = ParticipantRole::Booker);
    cases.push(("named as the booker", to_value(&booker), "not_invited"));
    // Named without a status to answer.
    let not_required = edit(&|ps| ps[1].status = Some(ParticipantStatus::NotRequired));
    cases.push(("not required", to_value(&not_required), "not_invited"));
    // Named twice.
    let twice = edit(&|ps| ps.push(ps[1].clone()));
    cases.push(("named twice", to_value(&twice), "duplicate_participant"));
    // Already answered, either way.
    let accepted = edit(&|ps| ps[1].status = Some(ParticipantStatus::Accepted));
    cases.push(("already accepted", to_value(&accepted), "already_answered"));
    let declined = edit(&|ps| ps[1].status = Some(ParticipantStatus::Declined));
    cases.push(("already declined", to_value(&declined), "already_answered"));
    // The deadline has passed.
    let late = (chrono::Utc::now() - chrono::Duration::minutes(5)).format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let lapsed = edit(&|ps| ps[1].confirm_by = Some(late.clone()));
    cases.push(("deadline passed", to_value(&lapsed), "deadline_passed"));
    // The start has passed (its deadline, wrongly, still ahead).
    let begun = env.host.tentative_booking(&offer_in(&env.host, -1), BOOKERS_MANDATE, with(&me), now()).unwrap();
    cases.push(("start passed", to_value(&begun), "already_started"));
    // A receipt signed by another host's key under the same name and kid.
    let impostor = TestHost::start(TestHostConfig::default()).await;
    let forged = impostor.tentative_booking(&good.offer.clone().unwrap(), BOOKERS_MANDATE, with(&me), now()).unwrap();
    cases.push(("receipt signed by another host", to_value(&forged), "bad_signature"));
    // The unsigned booking beside the receipt says something else.
    let mut unsigned = good.clone();
    unsigned.booking.participants.as_mut().unwrap()[1].relationship = Some("spouse".into());
    cases.push(("served booking differs from its receipt", to_value(&unsigned), "booking_mismatch"));
    // A booking that is already confirmed asks nobody.
    let mut confirmed = good.clone();
    confirmed.booking.status = schcp::claims::BookingStatus::Confirmed;
    cases.push(("not tentative", to_value(&resign(&env.host, confirmed)), "not_tentative"));

    for (i, (name, booking, reason)) in cases.iter().enumerate() {
        let (status, err) =
            a.send(Method::POST, "/v1/requests", Some(&invitation(&env, booking, &format!("h{i}")))).await.unwrap();
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{name}: {err}");
        assert_eq!(err["error"]["reason"], *reason, "{name}: {err}");
    }
    // A response that is not a booking response at all.
    let (status, err) =
        a.send(Method::POST, "/v1/requests", Some(&invitation(&env, &json!({"booking": {}}), "shape"))).await.unwrap();
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    assert!(pending_ids(&env).await.is_empty(), "a refused invitation never reaches the person");
    assert!(a.call(Method::GET, "/v1/mandates", None).await.unwrap().as_array().unwrap().is_empty());
    // The good one is still asked.
    let r = a.call(Method::POST, "/v1/requests", Some(&invitation(&env, &to_value(&good), "ok"))).await.unwrap();
    assert_eq!(r["status"], "pending");
    // A contract offered on a hold that lapsed a day ago is still the booking's
    // contract: its exp bounded the hold, not the booking.
    let (mut c, _) = future_offer(&env.host, 5);
    c.iat = now() - 86_400;
    c.exp = c.iat + 300;
    let lapsed_hold = env.host.sign_offer(&c).unwrap();
    let old = env.host.tentative_booking(&lapsed_hold, BOOKERS_MANDATE, with(&me), now()).unwrap();
    let r = a.call(Method::POST, "/v1/requests", Some(&invitation(&env, &to_value(&old), "old"))).await.unwrap();
    assert_eq!(r["status"], "pending", "{r}");
    // One dated ahead of now is not.
    let (mut c, _) = future_offer(&env.host, 5);
    c.iat = now() + 3600;
    c.exp = c.iat + 300;
    let ahead = env.host.sign_offer(&c).unwrap();
    let ahead = env.host.tentative_booking(&ahead, BOOKERS_MANDATE, with(&me), now()).unwrap();
    let (status, err) =
        a.send(Method::POST, "/v1/requests", Some(&invitation(&env, &to_value(&ahead), "ahead"))).await.unwrap();
    assert_eq!(
        (status, &err["error"]["reason"]),
        (StatusCode::UNPROCESSABLE_ENTITY, &json!("issued_in_future")),
        "{err}"
    );
}

#[tokio::test]
async fn the_bookers_reconfirmation_is_shown_with_its_deadline_and_always_asked() {
    let env = start().await;
    let a = paired_agent(&env, 43).await;
    let me = my_principal(&a).await;
    let offer = offer_in(&env.host, 5);
    let mut claims = env.host.receipt_claims(&offer, BOOKERS_MANDATE, schcp::claims::Approved::Offer, now()).unwrap();
    // §5.10: the booking's terms name the booker, with confirm_by.
    claims.booking.participants = Some(vec![Participant {
        who: Some(me.clone()),
        name: None,
        role: ParticipantRole::Booker,
        relationship: None,
        confirm_within: None,
        confirm_by: Some(at_one_pm(4)),
        default: Some(ReconfirmDefault::Release),
        status: Some(ParticipantStatus::Pending),
    }]);
    let receipt = env.host.sign_receipt(&claims).unwrap();
    let body = json!({"kind": "management_mandate", "idempotency_key": "re-1", "receipt": receipt,
                      "discovery": env.host.discovery_url()});
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    assert_eq!(r["status"], "pending", "{r}");
    let text = r["consent_text"].as_str().unwrap();
    let line = text.lines().find(|l| !is_new_host_line(l) && !l.starts_with("I allow")).unwrap();
    assert!(line.starts_with("This reconfirms the booking, which I must do by "), "{text}");
    assert!(line.contains(&day_words(4)) && line.contains(" Eastern time; if I don't"), "{text}");
    assert!(text.starts_with("I allow the assistant"), "{text}");
    // Without the booker named, the same receipt is a plain management mandate.
    claims.booking.participants = None;
    let plain = env.host.sign_receipt(&claims).unwrap();
    let body = json!({"kind": "management_mandate", "idempotency_key": "re-2", "receipt": plain,
                      "discovery": env.host.discovery_url()});
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    assert!(!r["consent_text"].as_str().unwrap().contains("reconfirms"), "{r}");
}

/// §5.10: `respond` takes a mandate of any scope, so a "manage my booking"
/// mandate over a booking that names this person only as a guest would answer
/// the invitation without its text (contract, price, deadline). It is refused,
/// and nothing is put before the person.
#[tokio::test]
async fn a_guests_booking_cannot_be_answered_through_a_management_mandate() {
    let env = start().await;
    let a = paired_agent(&env, 44).await;
    let me = my_principal(&a).await;
    let offer = offer_in(&env.host, 5);
    let mut claims = env.host.receipt_claims(&offer, BOOKERS_MANDATE, schcp::claims::Approved::Offer, now()).unwrap();
    claims.booking.participants = Some(participants(&me, Some("Sam"), &at_one_pm(4)));
    let receipt = env.host.sign_receipt(&claims).unwrap();
    let body = json!({"kind": "management_mandate", "idempotency_key": "guest-1", "receipt": receipt,
                      "discovery": env.host.discovery_url()});
    let (status, err) = a.send(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    assert_eq!(
        (status, &err["error"]["reason"]),
        (StatusCode::UNPROCESSABLE_ENTITY, &json!("participant_not_booker")),
        "{err}"
    );
    assert!(pending_ids(&env).await.is_empty());
    // Named as an attendee only: the same refusal.
    let mut guest = participants(&me, Some("Sam"), &at_one_pm(4));
    guest[1].role = ParticipantRole::Attendee;
    claims.booking.participants = Some(guest);
    let receipt = env.host.sign_receipt(&claims).unwrap();
    let body = json!({"kind": "management_mandate", "idempotency_key": "guest-2", "receipt": receipt,
                      "discovery": env.host.discovery_url()});
    let (status, err) = a.send(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    assert_eq!((status, &err["error"]["reason"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!("participant_not_booker")));
    assert!(pending_ids(&env).await.is_empty());
}

/// The line that says the person has not dealt with a host before (§2.2),
/// which the first request to a host carries after its summary.
fn is_new_host_line(line: &str) -> bool {
    line.starts_with("You have not dealt with ") || line.starts_with("Vous n’avez jamais eu affaire à ")
}

/// The mandate a result holds, checked as the host checks it (§3.3) for the agent `a`.
fn mandate_claims(a: &AgentClient, mandate: &str) -> schcp::claims::MandateClaims {
    let ctx = ChainContext { host_id: HOST, request_jkt: &jkt(a), now: now(), allow_wildcard: false };
    verify_mandate_chain(mandate, &ctx).expect("a host accepts it").root.claims
}

/// The booking as the host serves it now: its status and this person's answer.
async fn as_host_has_it(env: &Env, booking_id: &str, me: &str) -> (Value, Value) {
    let b = fetch_booking(&env.host, booking_id).await;
    let mine = b["booking"]["participants"].as_array().unwrap().iter().find(|p| p["who"] == me).unwrap().clone();
    (b["booking"]["status"].clone(), mine["status"].clone())
}

/// The person's no to an invitation signs nothing (docs/decisions.md "An
/// invitation's no"). §5.10 lets `respond` be signed under the participant's
/// mandate of any scope, its constraints alone applying, and no constraint
/// tells `accept: false` from `accept: true`: a credential signed for the no
/// would let the assistant accept the booking the person refused at any host
/// that reads §5.10 as written. So the no is settled at once, without the OS
/// (it commits the person to nothing), the agent receives nothing, and the
/// booking stays as the host has it until its default applies at `confirm_by`.
#[tokio::test]
async fn a_no_signs_nothing_the_assistant_could_accept_with() {
    use keyapp::user_verification::Method as Confirmed;
    let dir = tempfile::tempdir().unwrap();
    let host = TestHost::start(TestHostConfig::default()).await;
    let config = config_for(dir.path(), &host);
    let verifier = testkit::verifier::Scripted::new(Ok(Confirmed::Polkit));
    let app = keyapp::app::start_verified_by(config.clone(), Default::default(), verifier.clone()).await.unwrap();
    let env = Env { _dir: dir, host, config, app };
    let a = paired_agent(&env, 45).await;
    let Invited { me, booking_id, fetched, .. } = invited_by_sam(&env, &a).await;
    // The read credential the assistant asks for to show the invitation (as
    // the MCP tool does), and one for another booking.
    let read_claims = mandate_claims(&a, &read_credential(&env, &a, &booking_id, "read-it", None).await);
    assert!(read_claims.status.is_some(), "a read credential hosts can check");
    let read = read_claims.jti;
    let other = mandate_claims(&a, &read_credential(&env, &a, "b_another", "read-other", None).await).jti;
    let r = a.call(Method::POST, "/v1/requests", Some(&invitation(&env, &fetched, "no-1"))).await.unwrap();
    let text = r["consent_text"].as_str().unwrap();
    assert!(text.contains("If I decline, nothing is signed and the host is not told;"), "{text}");
    let rid = r["request_id"].as_str().unwrap().to_owned();
    let asked_before = verifier.asked().len();
    let status_of = |listed: &Value, jti: &str| {
        listed.as_array().unwrap().iter().find(|m| m["jti"] == jti).map(|m| m["status"].clone()).unwrap_or_default()
    };

    person(&env, Command::Decline { id: rid.clone() }).await.unwrap();
    assert_eq!(verifier.asked().len(), asked_before, "a no that signs nothing is not put to the OS");
    let done = a.call(Method::GET, &format!("/v1/requests/{rid}"), None).await.unwrap();
    assert_eq!(done["status"], "declined", "{done}");
    assert!(done.get("result").is_none_or(Value::is_null), "nothing for the agent: {done}");
    // Nothing signed for the no; the read credential of that booking, which
    // such a host would also take a yes under, is revoked; the other stands.
    assert!(a.call(Method::GET, "/v1/mandates", None).await.unwrap().as_array().unwrap().is_empty(), "nothing signed");
    let listed = person(&env, Command::Mandates).await.unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 2, "the two read credentials alone: {listed}");
    assert_eq!(status_of(&listed, &read), json!("revoked"), "{listed}");
    assert_eq!(status_of(&listed, &other), json!("active"), "{listed}");
    // Where hosts check it (§3.3 check 7; the status listener serves its status URL's path), it reads revoked.
    let at = format!("http://{}/status/{read}", env.app.status_addr);
    let at_status: Value = reqwest::get(&at).await.unwrap().json().await.unwrap();
    assert_eq!(at_status["status"], "revoked", "{at_status}");
    let history = person(&env, Command::History).await.unwrap();
    let events: Vec<&str> = history.as_array().unwrap().iter().filter_map(|h| h["event"].as_str()).collect();
    assert!(events.contains(&"request_declined") && events.contains(&"revoked"), "{events:?}");
    // Declining again changes nothing, and the booking waits for its default.
    assert!(person(&env, Command::Decline { id: rid.clone() }).await.is_err());
    assert_eq!(person(&env, Command::Mandates).await.unwrap(), listed);
    assert_eq!(as_host_has_it(&env, &booking_id, &me).await, (json!("tentative"), json!("pending")));
}

/// §5.10: "every participant with who is required and answers": someone coming
/// along named with `who` is asked, in the words of that role, and answered
/// like an invitee.
#[tokio::test]
async fn an_attendee_named_with_who_is_asked_not_refused() {
    let env = start().await;
    let a = paired_agent(&env, 48).await;
    let me = my_principal(&a).await;
    let mut named = participants(&me, Some("Sam R."), &at_one_pm(4));
    named[1].role = ParticipantRole::Attendee;
    let offer = offer_in(&env.host, 5);
    let served = env.host.tentative_booking(&offer, BOOKERS_MANDATE, named, now()).unwrap();
    let fetched = fetch_booking(&env.host, &served.booking.booking_id).await;
    let r = a.call(Method::POST, "/v1/requests", Some(&invitation(&env, &fetched, "along-1"))).await.unwrap();
    assert_eq!(r["status"], "pending", "{r}");
    let text = r["consent_text"].as_str().unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !is_new_host_line(l)).collect();
    assert_eq!(lines[1], "The booking names me as someone coming along (brother), who must answer.", "{text}");
    let done = approved(&env, &a, r["request_id"].as_str().unwrap()).await;
    let claims = mandate_claims(&a, done["result"]["mandate"].as_str().unwrap());
    assert_eq!(claims.scope, vec![Action::Book]);
    assert_eq!(claims.constraints.unwrap().offer_sha256.as_deref(), Some(schcp::hash::jws_sha256(&offer).as_str()));
}

/// An offer for a booking on `owner`'s own calendar (§7.7): `host.kind` person,
/// `host.owner`, an answer due by `approval_by`, made on a hold that lapsed an
/// hour ago (its `exp` bounded the hold, not the booking).
fn own_calendar_offer(host: &TestHost, days_ahead: i64, owner: &str, approval_by: &str) -> String {
    let (mut c, _) = future_offer(host, days_ahead);
    let h = c.host.as_mut().unwrap();
    h.kind = Some(schcp::claims::HostKind::Person);
    h.owner = Some(owner.to_owned());
    c.approval_by = Some(approval_by.to_owned());
    c.iat = now() - 3600;
    c.exp = c.iat + 300;
    host.sign_offer(&c).unwrap()
}

/// §7.9 "the person's own yes": a booking waiting at the person's own calendar is
/// shown like any offer, and the yes is signed as an acceptance of its offer hash
/// by person (§5.12 "Acceptances"). Another's calendar, a business's, a passed
/// deadline or start: refused, nothing shown.
#[tokio::test]
async fn my_own_yes_to_a_booking_on_my_calendar_is_an_acceptance_of_its_offer() {
    let env = start().await;
    let a = paired_agent(&env, 49).await;
    let me = my_principal(&a).await;
    let body = |offer: &str, key: &str| json!({"kind": "booking_acceptance", "idempotency_key": key, "offer": offer, "discovery": env.host.discovery_url()});
    let offer = own_calendar_offer(&env.host, 5, &me, &at_one_pm(4));
    let r = a.call(Method::POST, "/v1/requests", Some(&body(&offer, "own-1"))).await.unwrap();
    assert_eq!((&r["status"], &r["kind"]), (&json!("pending"), &json!("booking_acceptance")), "{r}");
    let text = r["consent_text"].as_str().unwrap();
    let statement = text.lines().next().unwrap();
    assert!(
        statement.starts_with(
            "I say yes myself to this booking on my own calendar: Synthetic oil change with Maple Street Auto \
             (maplestreetauto.example), "
        ) && statement.contains(&day_words(5)),
        "{text}"
    );
    assert!(text.ends_with("Maple Street Auto keeps my booking details for 1 year after the booking."), "{text}");

    let done = approved(&env, &a, r["request_id"].as_str().unwrap()).await;
    let acceptance = done["result"]["acceptance"].as_str().unwrap();
    let hash = schcp::hash::jws_sha256(&offer);
    assert_eq!(done["result"]["offer_sha256"], hash.as_str());
    let parsed = schcp::jws::parse(acceptance).unwrap();
    assert_eq!(parsed.header.typ, "schcp-acceptance+jwt");
    let jwk = a.call(Method::GET, "/v1/principal", None).await.unwrap()["jwk"].clone();
    let claims = jwcrypto_verifies(&jwk, acceptance);
    assert_eq!(claims["iss"], me.as_str());
    assert_eq!(claims["terms_sha256"], hash.as_str(), "the booking's offer hash");
    assert_eq!(claims["by"], "person");
    assert_eq!(claims["statement"], statement);
    assert!(claims.get("meeting_id").is_none() && claims.get("rule").is_none(), "{claims}");
    assert_eq!(claims["jwk"]["x"], jwk["x"], "the person's own key");
    let iat = claims["iat"].as_i64().unwrap();
    assert!((now() - 60..=now() + 60).contains(&iat), "given now, after the booking was made");
    schcp::schema::validate(schcp::schema::Def::Acceptance, &claims).expect("closed-schema valid");

    // The violations: nothing is put before the person.
    let late = (chrono::Utc::now() - chrono::Duration::minutes(5)).format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let (_, business) = future_offer(&env.host, 5);
    let cases = [
        ("a business's offer", business, "not_my_calendar"),
        ("someone else's calendar", own_calendar_offer(&env.host, 5, &sam(), &at_one_pm(4)), "not_my_calendar"),
        ("the answer deadline passed", own_calendar_offer(&env.host, 5, &me, &late), "deadline_passed"),
        ("the booking began", own_calendar_offer(&env.host, -1, &me, &at_one_pm(4)), "already_started"),
    ];
    for (i, (name, offer, reason)) in cases.iter().enumerate() {
        let (status, err) =
            a.send(Method::POST, "/v1/requests", Some(&body(offer, &format!("bad-{i}")))).await.unwrap();
        assert_eq!(
            (status, &err["error"]["reason"]),
            (StatusCode::UNPROCESSABLE_ENTITY, &json!(reason)),
            "{name}: {err}"
        );
    }
    // A forged offer (signed by another host's key under the same name and kid).
    let impostor = TestHost::start(TestHostConfig::default()).await;
    let forged = own_calendar_offer(&impostor, 5, &me, &at_one_pm(4));
    let (status, err) = a.send(Method::POST, "/v1/requests", Some(&body(&forged, "forged"))).await.unwrap();
    assert_eq!((status, &err["error"]["reason"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!("bad_signature")), "{err}");
    assert!(pending_ids(&env).await.is_empty(), "a refused request never reaches the person");
    // Replayed with the same key and body: the same request, nothing new.
    let again = a.call(Method::POST, "/v1/requests", Some(&body(&offer, "own-1"))).await.unwrap();
    assert_eq!(again["request_id"], r["request_id"]);
    assert_eq!(again["status"], "approved");
}

/// A narrow read credential (§5.5, §3.3 "Constraints bind reads too"): the
/// invitee's agent reads the booking it was invited to under a mandate for that
/// booking alone, whose scope (`hold`) such a mandate can never use, instead of
/// an open one. A wrong host or a booking id that could carry anything else is
/// refused, nothing shown.
#[tokio::test]
async fn a_read_credential_names_one_booking_and_allows_nothing_else() {
    let env = start().await;
    let a = paired_agent(&env, 50).await;
    let body = |host: &str, booking: &str, key: &str| {
        json!({"kind": "booking_read", "idempotency_key": key, "host": host,
               "discovery": env.host.discovery_url(), "booking_id": booking})
    };
    let r = a.call(Method::POST, "/v1/requests", Some(&body(HOST, "b_7Qx2", "read-1"))).await.unwrap();
    assert_eq!((&r["status"], &r["kind"]), (&json!("pending"), &json!("booking_read")), "{r}");
    let text = r["consent_text"].as_str().unwrap();
    assert!(
        text.starts_with(
            "I allow the assistant \"Calendar Assistant\" to read booking b_7Qx2 at Maple Street Auto \
             (maplestreetauto.example), mine or one I am invited to, until "
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "\nIt cannot book, change or cancel anything with it. But if the booking invites me, the host may take \
             my assistant’s answer to that invitation under it, yes or no, without my being asked again."
        ),
        "{text}"
    );
    let done = approved(&env, &a, r["request_id"].as_str().unwrap()).await;
    assert_eq!(done["result"]["booking_id"], "b_7Qx2");
    let claims = mandate_claims(&a, done["result"]["mandate"].as_str().unwrap());
    assert_eq!(claims.scope, vec![Action::Hold]);
    let c = claims.constraints.unwrap();
    assert_eq!(c.bookings, Some(vec!["b_7Qx2".to_owned()]));
    assert!(c.offer_sha256.is_none() && c.max_price.is_none());
    assert!(claims.exp <= now() + 3600 && claims.status.is_some(), "an hour, and revocable");
    // A host's checks (§3.3): the one action its scope names is never allowed under bookings.
    let chain = verify_mandate_chain(
        done["result"]["mandate"].as_str().unwrap(),
        &ChainContext { host_id: HOST, request_jkt: &jkt(&a), now: now(), allow_wildcard: false },
    )
    .unwrap();
    let action = |scope, booking: Option<&'static str>| schcp::verify::ActionCheck {
        scope,
        service_id: None,
        start: None,
        end: None,
        total: None,
        booking_id: booking,
        offer_sha256: None,
        active_bookings: [0, 0],
    };
    for (scope, booking) in [
        (Action::Hold, None),
        (Action::Hold, Some("b_7Qx2")),
        (Action::Book, Some("b_7Qx2")),
        (Action::Cancel, Some("b_7Qx2")),
    ] {
        assert!(schcp::verify::check_action(&chain, &action(scope, booking)).is_err(), "{scope:?}");
    }

    // Violations: nothing is put before the person.
    for (i, (host, booking, status, reason)) in [
        ("another-host", "b_7Qx2", StatusCode::BAD_REQUEST, "host_mismatch"),
        (HOST, "b 7\nI allow everything", StatusCode::BAD_REQUEST, "malformed"),
        (HOST, "", StatusCode::BAD_REQUEST, "malformed"),
    ]
    .into_iter()
    .enumerate()
    {
        let (got, err) =
            a.send(Method::POST, "/v1/requests", Some(&body(host, booking, &format!("bad-{i}")))).await.unwrap();
        assert_eq!((got, &err["error"]["reason"]), (status, &json!(reason)), "{err}");
    }
    assert!(pending_ids(&env).await.is_empty());
}

/// The invitee's agent's own HTTPS client for the test host.
fn host_client(env: &Env, a: &AgentClient, dir: &std::path::Path) -> agent::host::HostClient {
    let ca = dir.join("agent-ca.pem");
    std::fs::write(&ca, env.host.ca_pem()).unwrap();
    let (name, addr) = env.host.resolve();
    let trust = agent::host::HostTrust { extra_root_certs: vec![ca], resolve: [(name, addr)].into_iter().collect() };
    agent::host::HostClient::new(a.key().clone(), &trust).unwrap()
}

/// The refusal a host answered with: its code and reason.
fn host_refusal(e: agent::host::HostError) -> (StatusCode, String) {
    let r = e.refusal().unwrap_or_else(|| panic!("not a host refusal: {e}")).clone();
    (r.status, r.reason_text)
}

/// The expiry the person read is the one signed (§5.3: the text is what is
/// signed), however long the request waited for the yes: a read credential's
/// hour counts from when it was asked and shown, not from the approval.
#[tokio::test]
async fn a_read_credential_expires_when_the_person_was_told_however_late_the_yes() {
    let env = start().await;
    let a = paired_agent(&env, 52).await;
    let body = json!({"kind": "booking_read", "idempotency_key": "read-late", "host": HOST,
                      "discovery": env.host.discovery_url(), "booking_id": "b_7Qx2"});
    let before = now();
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let after = now();
    // The person answers later: past the next whole second.
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    let done = approved(&env, &a, r["request_id"].as_str().unwrap()).await;
    let exp = done["result"]["exp"].as_i64().unwrap();
    assert!((before + 3600..=after + 3600).contains(&exp), "signed {exp}, shown for {after} + 1 h");
    assert_eq!(mandate_claims(&a, done["result"]["mandate"].as_str().unwrap()).exp, exp);
}

/// A `booking_read` credential for `booking_id`, approved; its mandate.
async fn read_credential(env: &Env, a: &AgentClient, booking_id: &str, key: &str, lifetime: Option<&str>) -> String {
    let mut body = json!({"kind": "booking_read", "idempotency_key": key, "host": HOST,
                          "discovery": env.host.discovery_url(), "booking_id": booking_id});
    if let Some(l) = lifetime {
        body["lifetime"] = json!(l);
    }
    let r = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let done = approved(env, a, r["request_id"].as_str().unwrap()).await;
    done["result"]["mandate"].as_str().unwrap().to_owned()
}

/// §5.5 and §3.3 "Constraints bind reads too", at the host: the invitee's agent
/// reads the booking it was invited to with the narrow credential, and gets
/// what the booker would; the same credential is refused for another booking
/// the person is also invited to, for a write (`respond`, §5.10), and once
/// it has expired. A refused write leaves the booking as it was.
#[tokio::test]
async fn the_read_credential_reads_its_booking_at_the_host_and_nothing_else() {
    let env = start().await;
    let a = paired_agent(&env, 51).await;
    let me = my_principal(&a).await;
    let (served, offer) = testkit::invitation::served_invitation(&env.host, &me, 5).await;
    let booking_id = served["booking"]["booking_id"].as_str().unwrap().to_owned();
    let (other, _) = testkit::invitation::served_invitation(&env.host, &me, 6).await;
    let other_id = other["booking"]["booking_id"].as_str().unwrap().to_owned();
    assert_ne!(booking_id, other_id);
    let mandate = read_credential(&env, &a, &booking_id, "read-host-1", None).await;

    let dir = tempfile::tempdir().unwrap();
    let client = host_client(&env, &a, dir.path());
    let host = client.discover(&env.host.discovery_url()).await.unwrap();
    // The read: the booking and its contract, exactly as served to the booker.
    let read = client.booking_as_served(&host, Some(&mandate), &booking_id).await.unwrap();
    assert_eq!(Value::Object(read.clone()), served);
    assert_eq!(read["offer"], offer.as_str(), "the contract, to verify and hash (§5.10)");

    // Another booking, even one the person is invited to: outside `bookings`.
    let e = client.booking_as_served(&host, Some(&mandate), &other_id).await.unwrap_err();
    assert_eq!(host_refusal(e), (StatusCode::FORBIDDEN, "constraint_not_met".to_owned()));
    // A write: the answer §5.10 asks for needs `book` (or `cancel`), never `hold`.
    let contract = schcp::hash::jws_sha256(&offer);
    for accept in [true, false] {
        let body = json!({"idempotency_key": format!("w-{accept}"), "accept": accept, "offer_sha256": contract});
        let (status, err) = respond(&env.host, a.key(), &mandate, &booking_id, &body, &fresh_nonce()).await;
        assert_eq!((status, &err["error"]["code"]), (StatusCode::FORBIDDEN, &json!("MANDATE_SCOPE")), "{err}");
    }
    assert_eq!(as_host_has_it(&env, &booking_id, &me).await, (json!("tentative"), json!("pending")));
    // A host refuses a read credential for someone else's agent key (§3.3 check 4).
    let stranger = paired_agent(&env, 52).await;
    let e = host_client(&env, &stranger, dir.path()).booking_as_served(&host, Some(&mandate), &booking_id).await;
    assert_eq!(host_refusal(e.unwrap_err()).0, StatusCode::UNAUTHORIZED);

    // After its expiry: refused as expired, so the agent knows to ask again (§3.3 check 3).
    let short = read_credential(&env, &a, &booking_id, "read-host-2", Some("PT2S")).await;
    assert!(client.booking_as_served(&host, Some(&short), &booking_id).await.is_ok());
    tokio::time::sleep(std::time::Duration::from_millis(3_100)).await;
    let e = client.booking_as_served(&host, Some(&short), &booking_id).await.unwrap_err();
    assert_eq!(host_refusal(e), (StatusCode::UNAUTHORIZED, "mandate_expired".to_owned()));
}
