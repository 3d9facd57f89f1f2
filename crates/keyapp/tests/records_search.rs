//! The person's records searched and exported at the terminal, end to end:
//! `schcp-keyapp history` and `mandates` narrow with the service's own query,
//! and `schcp-keyapp export FILE` writes a document that parses, follows its
//! schema, and holds no signed credential. Run under scripts/with-keyring.

use reqwest::Method;
use testkit::env::*;

/// Runs `schcp-keyapp ARGS` against the running key app: success, stdout, stderr.
async fn cli(env: &Env, args: &[&str]) -> (bool, String, String) {
    terminal(env!("CARGO_BIN_EXE_schcp-keyapp"), &terminal_config(env), args, "").await
}

#[tokio::test]
async fn the_terminal_searches_the_records_and_exports_them_without_a_signed_credential() {
    let env = start().await;
    let a = paired_agent(&env, 61).await;
    let (_, offer) = future_offer(&env.host, 10);
    let yes = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "yes"))).await.unwrap();
    let done = approved(&env, &a, &yes).await;
    let jti = done["result"]["jti"].as_str().expect("a credential").to_owned();
    let compact = done["result"]["mandate"].as_str().or(done["result"]["credential"].as_str()).map(str::to_owned);
    let (_, offer2) = future_offer(&env.host, 11);
    let no = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer2, "no"))).await.unwrap();
    let no_id = no["request_id"].as_str().unwrap().to_owned();
    let (ok, _, err) = cli(&env, &["decline", &no_id]).await;
    assert!(ok, "{err}");

    // By answer: only the decline.
    let (ok, declined, err) = cli(&env, &["history", "--answer", "declined"]).await;
    assert!(ok, "{err}");
    assert_eq!(declined.lines().count(), 1, "{declined}");
    assert!(declined.contains("request_declined") && declined.contains(&no_id), "{declined}");
    // By assistant, by host, by words; a filter that matches nothing prints nothing.
    let (_, theirs, _) = cli(&env, &["history", "--agent", "calendar assistant"]).await;
    assert!(theirs.lines().count() >= 4, "{theirs}");
    let (_, at_host, _) = cli(&env, &["history", "--host", "maple-street-auto"]).await;
    assert!(at_host.contains(&no_id) && at_host.contains(&jti), "{at_host}");
    let (_, nobody, _) = cli(&env, &["history", "--agent", "Someone Else"]).await;
    assert_eq!(nobody, "");
    let (_, words, _) = cli(&env, &["history", "--text", "'; DROP TABLE history; --"]).await;
    assert_eq!(words, "", "text is only text");
    let (_, all, _) = cli(&env, &["history"]).await;
    assert!(all.lines().count() >= 6, "nothing was dropped: {all}");
    // By state: the credential is active, none is revoked.
    let (ok, active, err) = cli(&env, &["mandates", "--state", "active"]).await;
    assert!(ok && active.contains(&jti), "{active}{err}");
    let (_, revoked, _) = cli(&env, &["mandates", "--state", "revoked"]).await;
    assert_eq!(revoked, "");
    // A day that is not one, or an answer the query does not know: refused, in words.
    let (ok, _, err) = cli(&env, &["history", "--since", "2026-13-45"]).await;
    assert!(!ok && err.contains("2026-13-45") && err.contains("YYYY-MM-DD"), "{err}");
    let (ok, _, err) = cli(&env, &["history", "--answer", "maybe"]).await;
    assert!(!ok && err.contains("approved, declined"), "{err}");

    // Export: JSON that follows its schema, and a printable page.
    let dir = tempfile::tempdir().unwrap();
    let json_path = dir.path().join("records.json");
    let (ok, said, err) = cli(&env, &["export", json_path.to_str().unwrap()]).await;
    assert!(ok && said.contains("records.json"), "{said}{err}");
    let text = std::fs::read_to_string(&json_path).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let schema: serde_json::Value = serde_json::from_str(keyapp::export::SCHEMA_JSON).unwrap();
    let validator = jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(&schema).unwrap();
    if let Err(e) = validator.validate(&value) {
        panic!("the export does not follow its schema: {e}");
    }
    assert!(value["credentials"].as_array().unwrap().iter().any(|c| c["jti"] == jti.as_str()));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&json_path).unwrap().permissions().mode() & 0o777, 0o600);
    let html_path = dir.path().join("records.html");
    let (ok, _, err) = cli(&env, &["export", html_path.to_str().unwrap(), "--format", "html"]).await;
    assert!(ok, "{err}");
    let page = std::fs::read_to_string(&html_path).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && !page.contains("<script"), "{page}");
    for doc in [&text, &page] {
        // No signed credential (every JWS starts with a base64url JSON header).
        assert!(!doc.contains("eyJ"), "an export holds a signed object");
        if let Some(compact) = &compact {
            assert!(!doc.contains(compact.as_str()));
        }
    }
    // A folder that does not exist: refused in words, nothing written.
    let (ok, _, err) = cli(&env, &["export", "/no/such/folder/records.json"]).await;
    assert!(!ok && err.contains("could not be written"), "{err}");
}

/// The text search ignores case and accents for every letter, alike on every
/// surface: the control socket (the window's History and Credentials ask the
/// same service query) and the terminal's `history --text`.
#[tokio::test]
async fn words_are_found_without_their_case_or_accents_on_every_surface() {
    let env = start().await;
    let a = agent(&env, 62);
    let name = serde_json::json!({"agent_name": "Assistant de la Fête ÉLODIE"});
    let p = a.call(Method::POST, "/v1/pairings", Some(&name)).await.unwrap();
    let pairing = p["pairing_id"].as_str().unwrap().to_owned();
    person(&env, keyapp::control::Command::Approve { id: pairing.clone() }).await.unwrap();
    let (_, offer) = future_offer(&env.host, 10);
    let yes = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "fete"))).await.unwrap();
    let jti = approved(&env, &a, &yes).await["result"]["jti"].as_str().unwrap().to_owned();
    let other = paired_agent(&env, 63).await;
    let (_, offer2) = future_offer(&env.host, 11);
    let theirs = other.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer2, "other"))).await.unwrap();
    let theirs = theirs["request_id"].as_str().unwrap().to_owned();

    let history = |text: &str| {
        let query = serde_json::from_value(serde_json::json!({"text": text})).unwrap();
        person(&env, keyapp::control::Command::SearchHistory { query })
    };
    for text in ["fete", "FÊTE", "Fête", "élodie", "ELODIE", "de la fete elodie"] {
        let page = history(text).await.unwrap();
        let items = page["items"].as_array().unwrap();
        assert!(!items.is_empty() && page.to_string().contains(&pairing), "{text}: {page}");
        // Only what the accented assistant did: nothing of the other one.
        assert!(!page.to_string().contains(&theirs), "{text}: {page}");
    }
    assert!(history("fêtes").await.unwrap()["items"].as_array().unwrap().is_empty());
    let credentials = |text: &str| {
        let query = serde_json::from_value(serde_json::json!({"text": text})).unwrap();
        person(&env, keyapp::control::Command::SearchCredentials { query })
    };
    let page = credentials("elodie").await.unwrap();
    assert_eq!(page["items"].as_array().unwrap().len(), 1, "{page}");
    assert!(page.to_string().contains(&jti), "{page}");

    let (ok, out, err) = cli(&env, &["history", "--text", "FETE"]).await;
    assert!(ok && out.contains(&pairing), "{out}{err}");
    let (ok, out, err) = cli(&env, &["history", "--text", "fête élodie"]).await;
    assert!(ok && out.contains(&pairing), "{out}{err}");
}
