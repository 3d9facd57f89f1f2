//! What the person reads cannot be disguised or buried, through the agent API as a
//! hostile agent or host would try it: a host string past its bound is refused
//! with `422 text_too_long`, never truncated, and nothing is pending; an agent
//! name with a control, bidi or zero-width character is refused at pairing; the
//! signed `consent_mode` is said in words. Run under scripts/with-keyring.

use keyapp::control::Command;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use testkit::env::*;

async fn pending(env: &Env) -> Vec<Value> {
    person(env, Command::Pending).await.unwrap().as_array().unwrap().clone()
}

#[tokio::test]
async fn a_20000_character_service_name_is_refused_and_one_at_the_bound_is_shown_whole() {
    let env = start().await;
    let a = paired_agent(&env, 21).await;
    let (good, _) = future_offer(&env.host, 3);

    let mut long = good.clone();
    long.service.name = "Synthetic oil change ".repeat(1000)[..20_000].to_owned();
    let offer = env.host.sign_offer(&long).unwrap();
    let (status, body) =
        a.send(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "long"))).await.unwrap();
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["error"]["reason"], "text_too_long", "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("20000 characters"), "{body}");
    assert!(pending(&env).await.is_empty(), "nothing is pending for a refused text");

    let mut at_bound = good.clone();
    at_bound.service.name = "s".repeat(schcp_consent::inert::MAX_FIELD_CHARS);
    let offer = env.host.sign_offer(&at_bound).unwrap();
    let (status, body) =
        a.send(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "bound"))).await.unwrap();
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert!(body["consent_text"].as_str().unwrap().contains(&at_bound.service.name), "shown whole: {body}");
    assert_eq!(pending(&env).await.len(), 1);
}

#[tokio::test]
async fn agent_names_that_could_disguise_the_text_are_refused_at_pairing() {
    let env = start().await;
    for (seed, (class, name, reason)) in [
        ("right-to-left override", "Calendar \u{202E}tnatsissA", "text_not_inert"),
        ("bidi isolate", "Calendar \u{2067}Assistant\u{2069}", "text_not_inert"),
        ("zero-width space", "Calendar\u{200B}Assistant", "text_not_inert"),
        ("control", "Calendar\u{1B}[2J Assistant", "text_not_inert"),
        ("line break", "Calendar\nApproved: yes", "text_not_inert"),
        ("too long", &"x".repeat(65), "text_too_long"),
    ]
    .into_iter()
    .enumerate()
    {
        let a = agent(&env, 40 + seed as u8);
        let (status, body) = a.send(Method::POST, "/v1/pairings", Some(&json!({ "agent_name": name }))).await.unwrap();
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{class}: {body}");
        assert_eq!(body["error"]["reason"], reason, "{class}: {body}");
    }
    assert!(pending(&env).await.is_empty(), "no refused name reaches the person");

    // The control: an ordinary name, markup characters included, is shown as it is.
    let a = agent(&env, 60);
    let (status, body) =
        a.send(Method::POST, "/v1/pairings", Some(&json!({ "agent_name": "<b>Sam</b> & Co" }))).await.unwrap();
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let items = pending(&env).await;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["agent_name"], "<b>Sam</b> & Co");
}

#[tokio::test]
async fn the_consent_mode_an_agent_chose_is_said_in_words() {
    let env = start().await;
    let a = paired_agent(&env, 22).await;
    let body = |key: &str, mode: Option<&str>| {
        let mut b = json!({
            "kind": "mandate", "idempotency_key": key,
            "hosts": [{"id": env.host.host_id(), "discovery": env.host.discovery_url()}],
            "scope": ["hold", "book"],
            "constraints": {"max_price": {"amount": "100.00", "currency": "CAD"}, "max_bookings": 3},
        });
        if let Some(m) = mode {
            b["consent_mode"] = json!(m);
        }
        b
    };
    let cases = [
        ("present", Some("human_present"), Some("Hosts are told that I am present")),
        (
            "absent",
            Some("human_not_present"),
            Some("Hosts are told that the assistant acts under this permission without me present"),
        ),
        ("unsaid", None, None),
    ];
    for (key, mode, words) in cases {
        let r = a.call(Method::POST, "/v1/requests", Some(&body(key, mode))).await.unwrap();
        let text = r["consent_text"].as_str().unwrap();
        match words {
            Some(w) => assert!(text.contains(w), "{key}: {text}"),
            None => assert!(!text.contains("Hosts are told"), "{key}: {text}"),
        }
        assert!(text.contains("each booking up to CAD 100.00 all-in, at most 3 bookings"), "{text}");
        assert!(text.contains("The assistant books within these limits without asking me again."), "{text}");
    }
}

/// A hostile assistant pairs under a name written to close its quotes and go
/// on as the key app's words. Only ordinary punctuation, so pairing takes it;
/// every surface the person reads then has it in quotes it cannot close: the
/// pending list (the Requests screen, the terminal, notifications) with its
/// quotation marks neutralised, the consent window's "From" in the language's
/// quotes.
#[tokio::test]
async fn an_agent_name_that_closes_its_quotes_stays_inside_them() {
    let env = start().await;
    let a = agent(&env, 61);
    let name = "Calendar” is done. Your dentist “Harbourview";
    let (status, body) = a.send(Method::POST, "/v1/pairings", Some(&json!({ "agent_name": name }))).await.unwrap();
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let items = pending(&env).await;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["agent_name"], "Calendar\u{FFFD} is done. Your dentist \u{FFFD}Harbourview");
    let id = items[0]["id"].as_str().unwrap();
    let shown = env.app.service.requests().prompt(id).await.unwrap();
    assert_eq!(shown.agent_name, "“Calendar\u{FFFD} is done. Your dentist \u{FFFD}Harbourview”");
}

/// The same, with characters that only look like quotation marks (`ˮ`, and two
/// turned commas `ʻʻ` for an opening one): neutralised wherever the name is
/// quoted. A name of blank letters (the Hangul filler) is refused at pairing, as
/// every invisible character is.
#[tokio::test]
async fn an_agent_name_with_look_alike_quotes_or_blank_letters_cannot_pass_as_other_words() {
    let env = start().await;
    let a = agent(&env, 62);
    let name = "Calendar\u{2EE} is done. Your dentist \u{2BB}\u{2BB}Harbourview";
    let (status, body) = a.send(Method::POST, "/v1/pairings", Some(&json!({ "agent_name": name }))).await.unwrap();
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let items = pending(&env).await;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["agent_name"], "Calendar\u{FFFD} is done. Your dentist \u{FFFD}\u{FFFD}Harbourview");
    let id = items[0]["id"].as_str().unwrap();
    let shown = env.app.service.requests().prompt(id).await.unwrap();
    assert_eq!(shown.agent_name, "“Calendar\u{FFFD} is done. Your dentist \u{FFFD}\u{FFFD}Harbourview”");

    let blank = agent(&env, 63);
    let (status, body) = blank
        .send(Method::POST, "/v1/pairings", Some(&json!({ "agent_name": "\u{3164}\u{3164}\u{3164}" })))
        .await
        .unwrap();
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["error"]["reason"], "text_not_inert", "{body}");
    assert_eq!(pending(&env).await.len(), 1, "nothing more is put before the person");
}
