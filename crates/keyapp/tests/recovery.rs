//! The recovery kit is the principal key in words: no agent API route, MCP
//! tool or control-socket command hands it out, nor the seed or the records
//! backup key. Proved twice: the surfaces' sources never reach the one place
//! that hands the kit out (`recovery::reveal`), and a running key app is asked
//! on every control command and agent API route, and never answers with it.

use keyapp::config::KeystoreBackend;
use keyapp::control::{self, Command};
use keyapp::keystore::{self, PassphraseSource};
use keyapp::recovery::{self, RecoveryKit};
use keyapp::user_verification::{Approval, Asker, Method, Surface, UserVerifier, VerdictFuture};
use secrecy::ExposeSecret;
use std::path::{Path, PathBuf};

/// The crates' sources a surface is built from: the agent API, the control
/// socket, the status API, the service every surface calls, and the MCP server.
fn surface_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut stack = vec![
        root.join("src/agent_api"),
        root.join("src/service"),
        root.join("src/control.rs"),
        root.join("src/status_api.rs"),
        root.join("../mcp/src"),
    ];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    assert!(out.len() > 10, "the surfaces' sources were not found: {out:?}");
    out
}

#[test]
fn no_surface_reaches_the_kit() {
    // `PrincipalKey::kit` is crate-private and the service holds only a
    // signer (`Arc<dyn Signer>`), so these names are the only ways in.
    let forbidden = ["recovery", "reveal(", ".kit()", "backup_identity", "RecoveryKit", ".words()", ".phrase()"];
    for path in surface_sources() {
        let source = std::fs::read_to_string(&path).unwrap();
        for name in forbidden {
            assert!(!source.contains(name), "{} names {name}", path.display());
        }
    }
}

/// Every control command there is; the match fails to build when one is added.
fn every_command() -> Vec<Command> {
    let all = vec![
        Command::Pending,
        Command::Show { id: "pr_x".into() },
        Command::Approve { id: "pr_x".into() },
        Command::Decline { id: "pr_x".into() },
        Command::Mandates,
        Command::Revoke { jti: "m-x".into() },
        Command::History,
        Command::Contacts,
        Command::ContactsAdd { principal: "urn:x".into(), name: "Ellis".into(), relationship: None },
        Command::AttestationsAdd { jws: "a.b.c".into() },
        Command::Principal,
        Command::HostChanges,
        Command::AcceptHostDomain { host_id: "h".into(), domain: "example.com".into() },
        Command::AgentHolds { agent: "7F3A-91C2-K8QD".into() },
        Command::Unpair { agent: "7F3A-91C2-K8QD".into(), revoke_credentials: true },
        Command::StatusSetup,
        Command::ChooseStatus { setup: keyapp::status_address::SetupChoice::NotNow },
        Command::ConfirmConfiguredStatus,
        Command::RevokeEverything,
    ];
    for command in &all {
        match command {
            Command::Pending
            | Command::Show { .. }
            | Command::Approve { .. }
            | Command::Decline { .. }
            | Command::Mandates
            | Command::Revoke { .. }
            | Command::History
            | Command::Contacts
            | Command::ContactsAdd { .. }
            | Command::AttestationsAdd { .. }
            | Command::Principal
            | Command::HostChanges
            | Command::AcceptHostDomain { .. }
            | Command::AgentHolds { .. }
            | Command::Unpair { .. }
            | Command::StatusSetup
            | Command::ChooseStatus { .. }
            | Command::ConfirmConfiguredStatus
            | Command::RevokeEverything => {}
        }
    }
    all
}

struct Yes;
impl UserVerifier for Yes {
    fn verify<'a>(&'a self, _: &'a Approval) -> VerdictFuture<'a> {
        Box::pin(async { Ok(Method::Polkit) })
    }
}

/// What must never appear: the phrase, any four words of it in a row, and
/// the backup key in age's spelling.
fn secrets(kit: &RecoveryKit) -> Vec<String> {
    let words = kit.words();
    let mut out: Vec<String> = words.windows(4).map(|w| w.join(" ")).collect();
    out.push(kit.phrase().expose_secret().to_owned());
    out.push(kit.backup_identity().to_string().expose_secret().to_owned());
    out
}

#[tokio::test]
async fn a_running_key_app_never_answers_with_the_kit() {
    let dir = tempfile::tempdir().unwrap();
    let config = testkit::file_keyed::config(dir.path());
    let data_dir = config.data_dir.clone().unwrap();
    let running = testkit::file_keyed::start_with(config).await;
    let key = keystore::open(
        KeystoreBackend::File,
        &data_dir,
        PassphraseSource::Fixed("correct horse battery staple".to_owned().into()),
    )
    .await
    .unwrap();
    let asker = Asker::this_process(Surface::Window).unwrap();
    let (kit, _) = recovery::reveal(&key, &Yes, asker, "Show".into()).await.unwrap();
    assert_eq!(kit.principal_id(), running.service.principal());
    let secrets = secrets(&kit);

    let mut answers = Vec::new();
    for command in every_command() {
        let answer = control::call(&running.runtime_dir, &command).await.unwrap();
        answers.push(format!("{command:?} -> {answer:?}"));
    }
    // A control command the key app does not know is refused as such.
    for unknown in ["recovery_phrase", "backup", "kit", "seed", "export"] {
        assert!(serde_json::from_value::<Command>(serde_json::json!({ "cmd": unknown })).is_err(), "{unknown}");
    }

    let http = reqwest::Client::new();
    let base = format!("http://{}", running.agent_addr);
    for path in [
        "/v1/principal",
        "/v1/mandates",
        "/v1/pairings/pr_x",
        "/v1/requests/rq_x",
        "/v1/recovery",
        "/v1/recovery-phrase",
        "/v1/backup",
        "/v1/kit",
        "/v1/seed",
    ] {
        for method in [reqwest::Method::GET, reqwest::Method::POST] {
            let response = http.request(method.clone(), format!("{base}{path}")).body("{}").send().await.unwrap();
            let status = response.status();
            let body = response.text().await.unwrap();
            answers.push(format!("{method} {path} -> {status} {body}"));
        }
    }
    let status = format!("http://{}", running.status_addr);
    for path in ["/status/x/m-1", "/recovery", "/backup"] {
        let body = http.get(format!("{status}{path}")).send().await.unwrap().text().await.unwrap();
        answers.push(format!("GET status {path} -> {body}"));
    }
    assert!(answers.len() > 30);
    for answer in &answers {
        for secret in &secrets {
            assert!(!answer.contains(secret.as_str()), "the kit was in: {answer}");
        }
    }
}
