//! The hostile assistant writes the person's records (`keyapp.db`) itself, as
//! `sqlite3` would, while the key app runs (docs/threat-model.md, "Records the
//! person's programs can write"). What the consent window shows and what a
//! yes signs come from a request's row only while the seal the key app made
//! for it holds (record_seal): a row changed, inserted by hand or rewritten by
//! a trigger is never shown, never put to the OS and never signed from. Run
//! under scripts/with-keyring; the OS is a scripted verifier (testkit).

use keyapp::app;
use keyapp::control::Command;
use keyapp::keystore::PassphraseSource;
use keyapp::user_verification::Method as Verified;
use reqwest::Method;
use serde_json::{json, Value};
use sqlx::SqlitePool;
use std::sync::Arc;
use testkit::env::*;
use testkit::verifier::Scripted;

/// The key app beside a test host, the OS answering yes.
async fn started() -> (Env, Arc<Scripted>) {
    let dir = tempfile::tempdir().unwrap();
    let host = testhost::TestHost::start(testhost::TestHostConfig::default()).await;
    let config = config_for(dir.path(), &host);
    let os = Scripted::new(Ok(Verified::Polkit));
    let app = app::start_verified_by(config.clone(), PassphraseSource::default(), os.clone())
        .await
        .expect("the key app starts");
    (Env { _dir: dir, host, config, app }, os)
}

/// The assistant's own connection to the records, beside the key app's.
async fn assistants_sqlite(env: &Env) -> SqlitePool {
    let db = app::data_dir(&env.config).unwrap().join(keyapp::keystore::RECORDS_FILE_NAME);
    SqlitePool::connect(&format!("sqlite://{}", db.display())).await.unwrap()
}

/// A narrow mandate: one booking, `book` only.
fn narrow_mandate(env: &Env, key: &str) -> Value {
    json!({
        "kind": "mandate", "idempotency_key": key,
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["book"], "constraints": {"max_bookings": 1}
    })
}

/// What widening looks like in the stored input: `cancel` and `reschedule`
/// beside `book`, a limit of 50. Asserts it changed the row.
const WIDEN: &str =
    "UPDATE requests SET input = replace(replace(input, '\"book\"', '\"book\",\"cancel\",\"reschedule\"'),
                                                     '\"max_bookings\":1', '\"max_bookings\":50')";

async fn input_of(db: &SqlitePool, id: &str) -> String {
    sqlx::query_scalar("SELECT input FROM requests WHERE request_id = ?").bind(id).fetch_one(db).await.unwrap()
}

/// Nothing was issued for the request and it is still not approved.
async fn nothing_signed(env: &Env, a: &agent::AgentClient, id: &str) {
    let back = a.call(Method::GET, &format!("/v1/requests/{id}"), None).await.unwrap();
    assert_ne!(back["status"], "approved", "{back}");
    assert!(back.get("result").is_none_or(Value::is_null), "{back}");
    let mandates = person(env, Command::Mandates).await.unwrap();
    assert_eq!(mandates.as_array().map(Vec::len), Some(0), "no credential: {mandates}");
}

/// A request's status as the records hold it.
async fn status_of(db: &SqlitePool, id: &str) -> String {
    sqlx::query_scalar("SELECT status FROM requests WHERE request_id = ?").bind(id).fetch_one(db).await.unwrap()
}

/// No credential was issued at all.
async fn nothing_signed_at_all(env: &Env) {
    let mandates = person(env, Command::Mandates).await.unwrap();
    assert_eq!(mandates.as_array().map(Vec::len), Some(0), "no credential: {mandates}");
}

#[tokio::test]
async fn a_request_widened_in_the_records_after_it_was_shown_signs_nothing() {
    let (env, os) = started().await;
    let a = paired_agent(&env, 71).await;
    let asked_before = os.asked().len();
    let created = a.call(Method::POST, "/v1/requests", Some(&narrow_mandate(&env, "m1"))).await.unwrap();
    let id = created["request_id"].as_str().unwrap().to_owned();
    let shown = person(&env, Command::Show { id: id.clone() }).await.unwrap();
    assert_eq!(shown["consent_text"], created["consent_text"], "{shown}");

    // While the person reads the narrow text, the assistant widens what
    // the yes would be signed from.
    let db = assistants_sqlite(&env).await;
    let before = input_of(&db, &id).await;
    let done = sqlx::query(&format!("{WIDEN} WHERE request_id = ?")).bind(&id).execute(&db).await.unwrap();
    assert_eq!(done.rows_affected(), 1);
    assert_ne!(input_of(&db, &id).await, before, "the input was widened");

    // The person approves: the row's seal no longer holds, so the OS is not
    // asked and nothing is signed; the window no longer shows it either.
    let err = person(&env, Command::Approve { id: id.clone() }).await.unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("changed by another program"), "{err}");
    assert_eq!(os.asked().len(), asked_before, "the OS is not asked about a changed row: {:?}", os.asked());
    nothing_signed(&env, &a, &id).await;
    let err = person(&env, Command::Show { id: id.clone() }).await.unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("changed by another program"), "{err}");

    // The row as the key app wrote it holds its seal again: the check is of
    // what the row says, and the person's yes then signs the narrow mandate.
    sqlx::query("UPDATE requests SET input = ? WHERE request_id = ?")
        .bind(&before)
        .bind(&id)
        .execute(&db)
        .await
        .unwrap();
    let done = approved(&env, &a, &created).await;
    assert_eq!(done["status"], "approved", "{done}");
    let claims = schcp::jws::parse(done["result"]["mandate"].as_str().unwrap()).unwrap().payload;
    assert_eq!(claims["scope"], json!(["book"]), "{claims}");
    assert_eq!(claims["constraints"]["max_bookings"], 1, "{claims}");

    // Widened again while it waits, the list does not show it: it is
    // withdrawn, and nothing more can be asked of it.
    let created = a.call(Method::POST, "/v1/requests", Some(&narrow_mandate(&env, "m1b"))).await.unwrap();
    let id = created["request_id"].as_str().unwrap().to_owned();
    sqlx::query(&format!("{WIDEN} WHERE request_id = ?")).bind(&id).execute(&db).await.unwrap();
    let pending = pending_ids(&env).await;
    assert!(!pending.contains(&id), "a changed row is not listed for the person: {pending:?}");
    let back = a.call(Method::GET, &format!("/v1/requests/{id}"), None).await.unwrap();
    assert_eq!(back["status"], "withdrawn", "{back}");
}
#[tokio::test]
async fn words_written_into_a_pending_request_are_never_shown() {
    let (env, os) = started().await;
    let a = paired_agent(&env, 72).await;
    let db = assistants_sqlite(&env).await;
    for (n, change) in [
        "UPDATE requests SET consent_text = 'I allow Calendar Assistant to renew my car insurance.'",
        "UPDATE requests SET summary = 'Renew your car insurance'",
        "UPDATE requests SET terms = '{\"host\":\"Maple Street Auto\",\"lines\":[]}'",
        // The callouts beside the text are sealed with it.
        "UPDATE request_attention SET items = '[]'",
        // A time written as text reads as its numeric prefix, and the
        // sweeper's comparison never expires it: told apart by its type.
        "UPDATE requests SET expires_at = CAST(expires_at AS TEXT) || ' or later'",
    ]
    .into_iter()
    .enumerate()
    {
        let created =
            a.call(Method::POST, "/v1/requests", Some(&narrow_mandate(&env, &format!("m2-{n}")))).await.unwrap();
        let id = created["request_id"].as_str().unwrap().to_owned();
        let done = sqlx::query(&format!("{change} WHERE request_id = ?")).bind(&id).execute(&db).await.unwrap();
        assert_eq!(done.rows_affected(), 1, "{change}");
        let err = person(&env, Command::Show { id: id.clone() }).await.unwrap_err();
        assert!(err["message"].as_str().unwrap().contains("changed by another program"), "{change}: {err}");
        let asked = os.asked().len();
        assert!(person(&env, Command::Approve { id: id.clone() }).await.is_err(), "{change}");
        assert_eq!(os.asked().len(), asked, "the OS is not asked: {change}");
        // Still pending until the list is read; then withdrawn, never listed.
        assert_eq!(status_of(&db, &id).await, "pending", "{change}");
        assert!(!pending_ids(&env).await.contains(&id), "{change}");
        assert_eq!(status_of(&db, &id).await, "withdrawn", "{change}");
    }
    nothing_signed_at_all(&env).await;
}

#[tokio::test]
async fn a_request_the_assistant_inserted_by_hand_is_neither_listed_shown_nor_signed() {
    let (env, os) = started().await;
    let a = paired_agent(&env, 73).await;
    let created = a.call(Method::POST, "/v1/requests", Some(&narrow_mandate(&env, "m3"))).await.unwrap();
    let id = created["request_id"].as_str().unwrap().to_owned();
    // A copy of a real, sealed row under another id, widened, seal and all,
    // and listed before it (older).
    let db = assistants_sqlite(&env).await;
    sqlx::query(
        "INSERT INTO requests (request_id, agent_jkt, kind, idempotency_key, body_sha256, status, consent_text,
                               input, created_at, expires_at, hosts, summary, summary_fold, terms, seal)
         SELECT 'rq_forged', agent_jkt, kind, 'forged', body_sha256, 'pending', consent_text,
                input, created_at - 1, expires_at, hosts, summary, summary_fold, terms, seal
           FROM requests WHERE request_id = ?1",
    )
    .bind(&id)
    .execute(&db)
    .await
    .unwrap();
    sqlx::query("INSERT INTO request_attention (request_id, items) SELECT 'rq_forged', items FROM request_attention WHERE request_id = ?")
        .bind(&id)
        .execute(&db)
        .await
        .unwrap();
    sqlx::query(&format!("{WIDEN} WHERE request_id = 'rq_forged'")).execute(&db).await.unwrap();

    // Refused before the OS is asked: the seal, not the status, refuses it.
    assert!(person(&env, Command::Show { id: "rq_forged".into() }).await.is_err());
    let asked = os.asked().len();
    let err = person(&env, Command::Approve { id: "rq_forged".into() }).await.unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("changed by another program"), "{err}");
    assert_eq!(os.asked().len(), asked, "the OS is not asked");
    // The real row again under its own id as a blob, which the unique index
    // takes for another value: a second copy in the list, if read as text.
    sqlx::query(
        "INSERT INTO requests (request_id, agent_jkt, kind, idempotency_key, body_sha256, status, consent_text,
                               input, created_at, expires_at, hosts, summary, summary_fold, terms, seal)
         SELECT CAST(request_id AS BLOB), agent_jkt, kind, 'copy', body_sha256, 'pending', consent_text,
                input, created_at, expires_at, hosts, summary, summary_fold, terms, seal
           FROM requests WHERE request_id = ?1",
    )
    .bind(&id)
    .execute(&db)
    .await
    .unwrap();
    // Listed: the real request once, neither copy.
    assert_eq!(pending_ids(&env).await.iter().filter(|p| p.starts_with("rq_")).collect::<Vec<_>>(), [&id]);
    nothing_signed(&env, &a, &id).await;
    let shown = person(&env, Command::Show { id: id.clone() }).await.unwrap();
    assert_eq!(shown["id"], id.as_str());
}

#[tokio::test]
async fn a_trigger_that_rewrites_requests_as_the_key_app_stores_them_gets_nothing_signed() {
    let (env, os) = started().await;
    let a = paired_agent(&env, 74).await;
    // SQLite runs a trigger inside the key app's own statement, so there is no
    // moment between the key app's write and the assistant's.
    let db = assistants_sqlite(&env).await;
    sqlx::query(&format!(
        "CREATE TRIGGER widen AFTER INSERT ON requests BEGIN {WIDEN} WHERE request_id = NEW.request_id; END"
    ))
    .execute(&db)
    .await
    .unwrap();
    let created = a.call(Method::POST, "/v1/requests", Some(&narrow_mandate(&env, "m4"))).await.unwrap();
    let id = created["request_id"].as_str().unwrap().to_owned();
    assert!(input_of(&db, &id).await.contains("reschedule"), "the trigger ran");
    let asked = os.asked().len();
    assert!(person(&env, Command::Show { id: id.clone() }).await.is_err());
    assert!(person(&env, Command::Approve { id: id.clone() }).await.is_err());
    assert_eq!(os.asked().len(), asked, "the OS is not asked");
    nothing_signed(&env, &a, &id).await;
}

/// A row of junk among the pending requests (a kind the key app does not
/// know, a time that is text, no seal) neither breaks the pending list, so the
/// window still shows the real request, nor keeps counting against the agent:
/// it is withdrawn when the list is read.
#[tokio::test]
async fn junk_among_the_pending_requests_does_not_keep_the_window_from_the_real_one() {
    let (env, _os) = started().await;
    let a = paired_agent(&env, 75).await;
    let created = a.call(Method::POST, "/v1/requests", Some(&narrow_mandate(&env, "m5"))).await.unwrap();
    let id = created["request_id"].as_str().unwrap().to_owned();
    let db = assistants_sqlite(&env).await;
    sqlx::query(
        "INSERT INTO requests (request_id, agent_jkt, kind, idempotency_key, body_sha256, status, consent_text,
                               input, created_at, expires_at)
         SELECT 'rq_junk', agent_jkt, 'teleport', 'junk', 'h', 'pending', x'00ff', 'not json', 0, 'never'
           FROM requests WHERE request_id = ?",
    )
    .bind(&id)
    .execute(&db)
    .await
    .unwrap();
    assert_eq!(pending_ids(&env).await.iter().filter(|p| p.starts_with("rq_")).collect::<Vec<_>>(), [&id]);
    let status: String =
        sqlx::query_scalar("SELECT status FROM requests WHERE request_id = 'rq_junk'").fetch_one(&db).await.unwrap();
    assert_eq!(status, "withdrawn");
    let shown = person(&env, Command::Show { id: id.clone() }).await.unwrap();
    assert_eq!(shown["consent_text"], created["consent_text"]);
}

/// Credential `jti` as the person's Credentials lists it.
async fn listed(env: &Env, jti: &str) -> Value {
    let all = person(env, Command::Mandates).await.unwrap();
    all.as_array().unwrap().iter().find(|c| c["jti"] == jti).cloned().expect("listed")
}

/// After the yes, the assistant rewrites the approved request's summary, the
/// one line Credentials and History show for what the person allowed, so
/// that a wide mandate reads as a small one and the person leaves it be.
/// The records screens show a summary only while its request's row holds
/// its seal: the rewritten words are never shown, and Credentials says the
/// record was changed by another program. Put back, the line returns.
#[tokio::test]
async fn words_written_into_an_approved_requests_summary_are_not_shown_on_the_records_screens() {
    let (env, _os) = started().await;
    let a = paired_agent(&env, 76).await;
    let created = a.call(Method::POST, "/v1/requests", Some(&narrow_mandate(&env, "s1"))).await.unwrap();
    let id = created["request_id"].as_str().unwrap().to_owned();
    let done = approved(&env, &a, &created).await;
    let jti = done["result"]["jti"].as_str().unwrap().to_owned();
    let honest = listed(&env, &jti).await;
    let summary = honest["summary"].as_str().expect("a summary of what was allowed").to_owned();
    assert!(honest.get("changed").is_none(), "{honest}");

    let db = assistants_sqlite(&env).await;
    let lie = "One free car wash, nothing else";
    let done = sqlx::query("UPDATE requests SET summary = ? WHERE request_id = ?")
        .bind(lie)
        .bind(&id)
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(done.rows_affected(), 1);

    let shown = listed(&env, &jti).await;
    assert!(shown.get("summary").is_none(), "the rewritten line is not shown: {shown}");
    let note = shown["changed"].as_str().expect("the person is told");
    assert!(note.contains("Another program changed"), "{note}");
    let history = person(&env, Command::History).await.unwrap();
    assert!(!history.to_string().contains(lie), "{history}");
    let page = person(&env, Command::SearchCredentials { query: Default::default() }).await.unwrap();
    assert!(!page.to_string().contains(lie), "{page}");
    assert!(page.to_string().contains("Another program changed"), "{page}");

    // Put back as the key app wrote it: the person's own line again.
    sqlx::query("UPDATE requests SET summary = ? WHERE request_id = ?")
        .bind(&summary)
        .bind(&id)
        .execute(&db)
        .await
        .unwrap();
    let back = listed(&env, &jti).await;
    assert_eq!(back["summary"], summary);
    assert!(back.get("changed").is_none(), "{back}");
    assert!(person(&env, Command::History).await.unwrap().to_string().contains(&summary));
}

/// The assistant points a wide credential at an older, honest request (so
/// it borrows that request's sealed "one oil change"), and makes it read as
/// one that cannot be taken back (no status URL, a rule's kind), so that the
/// person neither worries about it nor can revoke it. The credential's own
/// seal covers both: Credentials shows no borrowed words, says the record was
/// changed, and still offers Revoke, which revokes it.
#[tokio::test]
async fn a_credential_pointed_at_another_request_borrows_nothing_and_can_still_be_revoked() {
    let (env, _os) = started().await;
    let a = paired_agent(&env, 77).await;
    let narrow = a.call(Method::POST, "/v1/requests", Some(&narrow_mandate(&env, "n1"))).await.unwrap();
    let narrow_id = narrow["request_id"].as_str().unwrap().to_owned();
    let narrow_done = approved(&env, &a, &narrow).await;
    let wide = json!({
        "kind": "mandate", "idempotency_key": "w1",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["book", "cancel", "reschedule"], "constraints": {"max_bookings": 20}
    });
    let wide = a.call(Method::POST, "/v1/requests", Some(&wide)).await.unwrap();
    let wide_jti = approved(&env, &a, &wide).await["result"]["jti"].as_str().unwrap().to_owned();
    let honest = listed(&env, narrow_done["result"]["jti"].as_str().unwrap()).await;
    let narrow_words = honest["summary"].as_str().unwrap().to_owned();

    let db = assistants_sqlite(&env).await;
    sqlx::query("UPDATE credentials SET request_id = ?, status_url = NULL, kind = 'rule' WHERE jti = ?")
        .bind(&narrow_id)
        .bind(&wide_jti)
        .execute(&db)
        .await
        .unwrap();
    let shown = listed(&env, &wide_jti).await;
    assert!(shown.get("summary").is_none(), "no borrowed words: {shown}");
    assert!(shown["changed"].as_str().unwrap().contains("Another program changed"), "{shown}");
    assert_eq!(shown["revocable"], true, "the person can still take it back: {shown}");
    person(&env, Command::Revoke { jti: wide_jti.clone() }).await.unwrap();
    assert_eq!(listed(&env, &wide_jti).await["status"], "revoked");
    // The honest credential is untouched, and keeps its words.
    assert_eq!(listed(&env, narrow_done["result"]["jti"].as_str().unwrap()).await["summary"], narrow_words);
}

/// The assistant renames itself in the agents' table, after the person paired
/// it, to the name of an assistant the person trusts. The row no longer holds
/// the seal of the person's yes (record_seal): the key is no longer paired, so
/// it can ask nothing under the new name, and no records screen shows it.
#[tokio::test]
async fn an_assistant_that_renames_itself_in_the_records_is_neither_paired_nor_shown_by_that_name() {
    let (env, _os) = started().await;
    let a = paired_agent(&env, 77).await;
    let created = a.call(Method::POST, "/v1/requests", Some(&narrow_mandate(&env, "n1"))).await.unwrap();
    approved(&env, &a, &created).await;
    let history = person(&env, Command::History).await.unwrap().to_string();
    assert!(history.contains("Calendar Assistant"), "control: its paired name: {history}");

    let db = assistants_sqlite(&env).await;
    let trusted = "Family Doctor's Office";
    let done = sqlx::query("UPDATE agents SET name = ?").bind(trusted).execute(&db).await.unwrap();
    assert_eq!(done.rows_affected(), 1);

    let (status, err) = a.send(Method::POST, "/v1/requests", Some(&narrow_mandate(&env, "n2"))).await.unwrap();
    assert_eq!(status, reqwest::StatusCode::FORBIDDEN, "{err}");
    assert_eq!(err["error"]["reason"], "agent_not_paired", "{err}");
    assert!(person(&env, Command::Pending).await.unwrap().as_array().unwrap().is_empty());
    for shown in [
        person(&env, Command::History).await.unwrap(),
        serde_json::to_value(env.app.service.directory().agents().await.unwrap()).unwrap(),
        serde_json::to_value(env.app.service.records().filter_choices().await.unwrap()).unwrap(),
    ] {
        assert!(!shown.to_string().contains("Family Doctor"), "{shown}");
    }
}

/// The credential an agent asked for is bound to its key (`cnf`). The
/// assistant writes its own key into another agent's row while that agent's
/// request waits, so that the credential the person approves for "Calendar
/// Assistant" would be one the assistant can present. The key is checked
/// against the thumbprint the request was made with: nothing is issued.
#[tokio::test]
async fn a_credential_is_never_bound_to_a_key_written_into_the_agents_row() {
    let (env, _os) = started().await;
    let a = paired_agent(&env, 78).await;
    let body = json!({
        "kind": "mandate", "idempotency_key": "sd-key", "format": "dc+sd-jwt",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["book"], "constraints": {"max_bookings": 1}
    });
    let created = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let id = created["request_id"].as_str().unwrap().to_owned();

    let db = assistants_sqlite(&env).await;
    let own = sqlx::query_scalar::<_, String>("SELECT jwk FROM agents WHERE jkt = ?")
        .bind(jkt(&a))
        .fetch_one(&db)
        .await
        .unwrap();
    let theirs = schcp::jwk::Jwk::ed25519(&ed25519_dalek::SigningKey::from_bytes(&[99; 32]).verifying_key());
    let swap = |jwk: String| {
        let db = db.clone();
        let who = jkt(&a);
        async move {
            let done = sqlx::query("UPDATE agents SET jwk = ? WHERE jkt = ?").bind(jwk).bind(who).execute(&db).await;
            assert_eq!(done.unwrap().rows_affected(), 1);
        }
    };
    swap(serde_json::to_string(&theirs).unwrap()).await;
    assert!(person(&env, Command::Approve { id: id.clone() }).await.is_err(), "nothing is issued");
    // Put back, so that the agent can look: it was given nothing.
    swap(own.clone()).await;
    nothing_signed(&env, &a, &id).await;

    // The same key with members of the assistant's choosing beside it (the
    // thumbprint covers only the key): the credential binds the key alone.
    let body = json!({
        "kind": "mandate", "idempotency_key": "sd-kid", "format": "dc+sd-jwt",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["book"], "constraints": {"max_bookings": 1}
    });
    let created = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let mut dressed: Value = serde_json::from_str(&own).unwrap();
    dressed["kid"] = json!("assistant-chosen");
    dressed["use"] = json!("sig");
    swap(dressed.to_string()).await;
    person(&env, Command::Approve { id: created["request_id"].as_str().unwrap().to_owned() }).await.unwrap();
    swap(own.clone()).await;
    let done = a.call(Method::GET, &format!("/v1/requests/{}", created["request_id"].as_str().unwrap()), None).await;
    let issuer_jwt = done.unwrap()["result"]["mandate"].as_str().unwrap().split('~').next().unwrap().to_owned();
    let claims = schcp::jws::parse(&issuer_jwt).unwrap().payload;
    let cnf = &claims["cnf"]["jwk"];
    assert!(cnf.get("kid").is_none() && cnf.get("use").is_none(), "{cnf}");
    assert_eq!(cnf["x"], serde_json::from_str::<Value>(&own).unwrap()["x"]);
}

/// My bookings shows what hosts signed and the key app kept (SchCP §5.3), and
/// who may change each booking as the person signed it (§3.3 "Management
/// mandates"). The assistant writes the records to show a booking no host
/// signed, to point the person's real booking at other terms, and to make its
/// own management mandate look gone or moved; none of it shows.
#[tokio::test]
async fn my_bookings_shows_only_receipts_the_key_app_kept_and_managers_as_they_were_signed() {
    let (env, _os) = started().await;
    let svc = &env.app.service;
    let a = paired_agent(&env, 79).await;
    let root = json!({
        "kind": "mandate", "idempotency_key": "root",
        "hosts": [{"id": "maple-street-auto", "discovery": env.host.discovery_url()}],
        "scope": ["hold", "book", "cancel", "reschedule"],
        "constraints": {"services": ["oil-change"], "max_bookings": 1}, "lifetime": "PT6H"
    });
    let root = a.call(Method::POST, "/v1/requests", Some(&root)).await.unwrap();
    let root_jti = approved(&env, &a, &root).await["result"]["jti"].as_str().unwrap().to_owned();
    let (_, offer) = future_offer(&env.host, 7);
    let claims = env.host.receipt_claims(&offer, &root_jti, schcp::claims::Approved::Limits, testkit::now()).unwrap();
    let receipt = env.host.sign_receipt(&claims).unwrap();
    let body = json!({"kind": "management_mandate", "idempotency_key": "mgmt", "receipt": receipt,
                      "discovery": env.host.discovery_url()});
    let m = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    assert_eq!(m["status"], "approved", "under the root, without a prompt: {m}");
    let first = m["result"]["jti"].as_str().unwrap().to_owned();
    // The host changes the booking (§5.7: its sequence goes up) and signs its
    // receipt again; handed in, the person approves a management mandate over it.
    let mut moved = claims.clone();
    moved.booking.sequence = 1;
    moved.booking.event.title = "Synthetic oil change, moved".into();
    let body = json!({"kind": "management_mandate", "idempotency_key": "mgmt-2",
                      "receipt": env.host.sign_receipt(&moved).unwrap(), "discovery": env.host.discovery_url()});
    let m = a.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
    let manager = approved(&env, &a, &m).await["result"]["jti"].as_str().unwrap().to_owned();
    let booking = claims.booking.booking_id.clone();
    let honest = svc.records().bookings().await.unwrap();
    assert_eq!(honest.len(), 1, "{honest:?}");
    assert_eq!(honest[0].what, "Synthetic oil change, moved", "{honest:?}");
    let rests_on = honest[0].rests_on.clone();
    assert!(rests_on.is_some(), "{honest:?}");

    let db = assistants_sqlite(&env).await;
    // A booking no host signed: its receipt signed by a key the host's
    // document does not publish, kept with the real row's seal copied.
    let stranger = testhost::TestHost::start(testhost::TestHostConfig::default()).await;
    let mut forged = claims.clone();
    forged.booking.booking_id = "b_never_made".into();
    forged.booking.event.title = "Transfer of title".into();
    sqlx::query(
        "INSERT INTO receipts (host, booking_id, offer_sha256, mandate_jti, compact, verified_at, seal)
         SELECT host, 'b_never_made', offer_sha256, mandate_jti, ?, verified_at, seal FROM receipts",
    )
    .bind(stranger.sign_receipt(&forged).unwrap())
    .execute(&db)
    .await
    .unwrap();
    // The host's own first receipt, kept again as the newest row, once as
    // sealed (the booking before its change) and once pointed at the
    // management mandate (the booking would rest on other terms).
    let oldest = "SELECT min(id) FROM receipts WHERE booking_id = ?2";
    for pointed in ["mandate_jti", "?1"] {
        sqlx::query(&format!(
            "INSERT INTO receipts (host, booking_id, offer_sha256, mandate_jti, compact, verified_at, seal)
             SELECT host, booking_id, offer_sha256, {pointed}, compact, verified_at, seal FROM receipts
             WHERE id = ({oldest})"
        ))
        .bind(&manager)
        .bind(&booking)
        .execute(&db)
        .await
        .unwrap();
    }
    // The management mandate made to look gone and moved: its chain's link
    // deleted, its row moved to another booking, marked expired, another kind.
    sqlx::query("DELETE FROM management_links").execute(&db).await.unwrap();
    sqlx::query("UPDATE credentials SET booking_id = 'b_other', exp = 1, kind = 'mandate' WHERE jti = ?")
        .bind(&manager)
        .execute(&db)
        .await
        .unwrap();

    let shown = svc.records().bookings().await.unwrap();
    assert_eq!(shown.len(), 1, "no booking no host signed: {shown:?}");
    let b = &shown[0];
    assert_eq!(b.booking_id, booking);
    assert_eq!(b.what, "Synthetic oil change, moved", "the booking as the host signed it last: {b:?}");
    assert_eq!(b.rests_on, rests_on, "the terms the key app kept it under");
    let jtis: Vec<&str> = b.managers.iter().map(|m| m.jti.as_str()).collect();
    assert!(b.managers.iter().any(|m| m.jti == first && !m.revocable), "the one renewed has ended: {jtis:?}");
    let managing = b.managers.iter().find(|m| m.jti == manager).expect("the assistant is still named");
    assert!(managing.revocable, "{b:?}");
    let said = &managing.sentence;
    assert!(said.starts_with("“Calendar Assistant” may cancel or move it"), "by its paired name: {said}");

    // A receipt row rewritten in place is no longer the one kept: the booking
    // is not shown from it (rows deleted cannot be told from rows never kept).
    sqlx::query("UPDATE receipts SET mandate_jti = NULL").execute(&db).await.unwrap();
    assert!(svc.records().bookings().await.unwrap().is_empty());
}

/// History tells the person what they and their assistants did. The assistant
/// writes entries into it: one saying the person approved what they never saw,
/// and the person's real "no" turned into a yes. Each entry is sealed as the
/// key app writes it, over its place, time, event, subject and detail
/// (record_seal), so those read as entries the key app cannot vouch for, with
/// none of their words, and the honest entries around them read as before.
#[tokio::test]
async fn history_written_by_another_program_is_not_told_as_what_the_person_did() {
    let (env, _os) = started().await;
    let svc = &env.app.service;
    let a = paired_agent(&env, 80).await;
    let r = a.call(Method::POST, "/v1/requests", Some(&narrow_mandate(&env, "h1"))).await.unwrap();
    let id = r["request_id"].as_str().unwrap().to_owned();
    person(&env, Command::Decline { id: id.clone() }).await.unwrap();
    let sentences = |entries: Vec<keyapp::views::HistoryEntry>| -> Vec<String> {
        entries.into_iter().map(|h| h.sentence).collect()
    };
    let honest = sentences(svc.records().history_entries(50).await.unwrap());
    let declined = honest.iter().find(|s| s.starts_with("You declined: ")).expect("the person's no").clone();
    assert!(!honest.iter().any(|s| s.contains("cannot vouch")), "{honest:#?}");

    let db = assistants_sqlite(&env).await;
    // An approval the person never gave, copying a real entry's seal.
    sqlx::query(
        "INSERT INTO history (at, event, subject, detail, confirmed_by, seal)
         SELECT at + 1, 'request_approved', subject, detail, 'polkit', seal FROM history WHERE event = 'request_declined'",
    )
    .execute(&db)
    .await
    .unwrap();
    let shown = sentences(svc.records().history_entries(50).await.unwrap());
    assert_eq!(shown.iter().filter(|s| s.contains("cannot vouch")).count(), 1, "{shown:#?}");
    assert!(!shown.iter().any(|s| s.starts_with("You approved")), "{shown:#?}");
    assert!(shown.contains(&declined), "{shown:#?}");

    // The person's no copied whole, seal and all, as a second entry: an entry
    // is sealed to its place in the history, so the copy vouches for nothing.
    sqlx::query(
        "INSERT INTO history (at, event, subject, detail, detail_fold, confirmed_by, seal)
         SELECT at, event, subject, detail, detail_fold, confirmed_by, seal FROM history WHERE event = 'request_declined'",
    )
    .execute(&db)
    .await
    .unwrap();
    let shown = sentences(svc.records().history_entries(50).await.unwrap());
    assert_eq!(shown.iter().filter(|s| **s == declined).count(), 1, "{shown:#?}");
    assert_eq!(shown.iter().filter(|s| s.contains("cannot vouch")).count(), 2, "{shown:#?}");
    sqlx::query("DELETE FROM history WHERE id = (SELECT max(id) FROM history)").execute(&db).await.unwrap();

    // The person's no rewritten as a yes.
    sqlx::query("UPDATE history SET event = 'request_approved' WHERE event = 'request_declined'")
        .execute(&db)
        .await
        .unwrap();
    let q = keyapp::record_query::HistoryQuery::from(keyapp::record_query::RecordSearch::default());
    let page = svc.records().history_page(&q).await.unwrap().items;
    let unvouched: Vec<_> = page.iter().filter(|h| h.sentence.contains("cannot vouch")).collect();
    assert_eq!(unvouched.len(), 2, "{page:#?}");
    for h in unvouched {
        assert!(h.event.is_empty() && h.subject.is_empty() && h.detail.is_empty() && h.confirmed.is_none(), "{h:?}");
    }
    assert!(!page.iter().any(|h| h.sentence.starts_with("You approved") || h.sentence == declined), "{page:#?}");
    // What the key app wrote stays as written: the request, asked for.
    assert!(page.iter().any(|h| h.sentence.contains("asked:")), "{page:#?}");

    // A pending request written by hand, long expired: the key app marks it
    // expired as it sweeps, but its entry is not sealed from that row's words.
    sqlx::query(
        "INSERT INTO requests (request_id, agent_jkt, kind, idempotency_key, body_sha256, status, consent_text,
                               input, created_at, expires_at, seal)
         SELECT 'rq_planted', agent_jkt, 'Call 555-0100 now', 'planted', 'h', 'pending', 'x', '{}', 1, 2, seal
         FROM requests LIMIT 1",
    )
    .execute(&db)
    .await
    .unwrap();
    svc.requests().pending_items().await.unwrap();
    let status: String =
        sqlx::query_scalar("SELECT status FROM requests WHERE request_id = 'rq_planted'").fetch_one(&db).await.unwrap();
    assert_eq!(status, "expired", "swept");
    let page = svc.records().history_page(&q).await.unwrap().items;
    assert_eq!(page.iter().filter(|h| h.sentence.contains("cannot vouch")).count(), 3, "{page:#?}");
    assert!(!page.iter().any(|h| h.detail.contains("555") || h.sentence.contains("555")), "{page:#?}");
}

/// A history entry the key app wrote and sealed is told with the words and
/// the assistant of the rows it was written about, as sealed: the assistant
/// points the credential it was signed at the request the person declined,
/// and gives the request it asked another paired assistant's key, so that
/// "Signed for" would tell of terms the person refused and "asked" would
/// blame another assistant. Neither borrows anything.
#[tokio::test]
async fn a_sealed_history_entry_borrows_no_words_or_name_through_rows_rewritten_beside_it() {
    let (env, _os) = started().await;
    let svc = &env.app.service;
    let a = paired_agent(&env, 81).await;
    let other = agent(&env, 82);
    let p = other.call(Method::POST, "/v1/pairings", Some(&json!({"agent_name": "Family Planner"}))).await.unwrap();
    person(&env, Command::Approve { id: p["pairing_id"].as_str().unwrap().to_owned() }).await.unwrap();
    let refused = a.call(Method::POST, "/v1/requests", Some(&narrow_mandate(&env, "refused"))).await.unwrap();
    let refused_id = refused["request_id"].as_str().unwrap().to_owned();
    person(&env, Command::Decline { id: refused_id.clone() }).await.unwrap();
    let (_, offer) = future_offer(&env.host, 5);
    let asked = a.call(Method::POST, "/v1/requests", Some(&closed_request(&env, &offer, "closed"))).await.unwrap();
    let asked_id = asked["request_id"].as_str().unwrap().to_owned();
    let jti = approved(&env, &a, &asked).await["result"]["jti"].as_str().unwrap().to_owned();
    let sentences = || async {
        svc.records().history_entries(50).await.unwrap().into_iter().map(|h| h.sentence).collect::<Vec<_>>()
    };
    let honest = sentences().await;
    let refused_words = honest.iter().find_map(|s| s.strip_prefix("You declined: ")).unwrap().to_owned();
    let signed = honest.iter().find(|s| s.starts_with("Signed for ")).unwrap().clone();
    assert!(signed.starts_with("Signed for “Calendar Assistant”: ") && !signed.contains(&refused_words), "{signed}");
    let blames = |s: &String| s.starts_with("“Family Planner” asked: ") || s.starts_with("Signed for “Family Planner”");
    assert!(!honest.iter().any(blames), "{honest:#?}");

    let db = assistants_sqlite(&env).await;
    sqlx::query("UPDATE credentials SET request_id = ? WHERE jti = ?")
        .bind(&refused_id)
        .bind(&jti)
        .execute(&db)
        .await
        .unwrap();
    sqlx::query(
        "UPDATE requests SET agent_jkt = (SELECT jkt FROM agents WHERE name = 'Family Planner') WHERE request_id = ?",
    )
    .bind(&asked_id)
    .execute(&db)
    .await
    .unwrap();
    let shown = sentences().await;
    let signed = shown.iter().find(|s| s.starts_with("Signed for ")).unwrap();
    assert!(!signed.contains(&refused_words), "no words of the refused request: {signed}");
    assert!(!shown.iter().any(blames), "no other assistant blamed: {shown:#?}");
    // The refused request is still told as refused, and the other entries stand.
    assert!(shown.contains(&format!("You declined: {refused_words}")), "{shown:#?}");
    assert!(!shown.iter().any(|s| s.contains("cannot vouch")), "{shown:#?}");
}
