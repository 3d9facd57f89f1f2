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
        Command::SearchHistory { query: Default::default() },
        Command::SearchCredentials { query: Default::default() },
        Command::ExportRecords { format: keyapp::export::ExportFormat::Json },
        Command::ExportRecords { format: keyapp::export::ExportFormat::Html },
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
            | Command::SearchHistory { .. }
            | Command::SearchCredentials { .. }
            | Command::ExportRecords { .. }
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
    assert_eq!(kit.principal_id(), running.service.profile().principal());
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

/// `schcp-keyapp restore` in a terminal, the phrase on standard input, with a
/// configuration in `locale`: (exit success, stdout, stderr).
fn restore_in(locale: &str, dir: &Path, data_dir: &Path, backup: &Path, phrase: &str) -> (bool, String, String) {
    use std::io::Write;
    let config = dir.join(format!("keyapp-{locale}.toml"));
    std::fs::write(
        &config,
        format!("data_dir = \"{}\"\nlocale = \"{locale}\"\n[keystore]\nbackend = \"file\"\n", data_dir.display()),
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_schcp-keyapp"))
        .arg("--config")
        .arg(&config)
        .arg("restore")
        .arg("--backup")
        .arg(backup)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(format!("{phrase}\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A wrong phrase and a tampered backup are refused in the person's language,
/// as the terminal's two lines ("Error: …" / "What to do: …"), never as the
/// error type's English, and nothing is written.
#[tokio::test]
async fn a_wrong_phrase_and_a_tampered_backup_are_refused_in_french_and_english() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old");
    let key =
        keystore::open(KeystoreBackend::File, &old, PassphraseSource::Fixed("pw".to_owned().into())).await.unwrap();
    let store = keyapp::store::Store::open(&old.join(keystore::RECORDS_FILE_NAME)).await.unwrap();
    let file = dir.path().join("records.age");
    keyapp::recovery::backup::write(&store, &key.backup_recipient(), key.principal_id(), &old, &file, 1_800_000_000)
        .await
        .unwrap();
    let asker = Asker::this_process(Surface::Terminal).unwrap();
    let (kit, _) = recovery::reveal(&key, &Yes, asker, "Show".into()).await.unwrap();
    let mut tampered = std::fs::read(&file).unwrap();
    let at = tampered.len() / 2;
    tampered[at] ^= 0x01;
    let tampered_file = dir.path().join("tampered.age");
    std::fs::write(&tampered_file, &tampered).unwrap();
    let other = RecoveryKit::generate(&mut rand::rngs::OsRng).phrase();
    let new_data = dir.path().join("new");

    let cases = [
        (
            "en",
            &file,
            other.expose_secret().to_owned(),
            "Error: Your recovery phrase does not open",
            "What to do: Check each word against your recovery kit",
        ),
        (
            "fr",
            &file,
            other.expose_secret().to_owned(),
            "Erreur : Votre phrase de récupération n’ouvre pas",
            "Que faire : Vérifiez chaque mot",
        ),
        (
            "en",
            &tampered_file,
            kit.phrase().expose_secret().to_owned(),
            "was changed or damaged after it was written, so nothing was restored from it.",
            "What to do: Use another backup",
        ),
        (
            "fr",
            &tampered_file,
            kit.phrase().expose_secret().to_owned(),
            "a été modifié ou abîmé après son écriture : rien n’en a été restauré.",
            "Que faire : Utilisez une autre sauvegarde",
        ),
    ];
    for (locale, backup, phrase, what, remedy) in cases {
        let (ok, _, stderr) = restore_in(locale, dir.path(), &new_data, backup, &phrase);
        assert!(!ok, "{locale}: {stderr}");
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|l| {
                l.starts_with("Error") || l.starts_with("Erreur") || l.starts_with("What") || l.starts_with("Que")
            })
            .collect();
        assert_eq!(lines.len(), 2, "{locale}: {stderr}");
        assert!(lines[0].contains(what), "{locale}: {stderr}");
        assert!(lines[1].starts_with(remedy), "{locale}: {stderr}");
        // Not the error type's English sentence, and nothing written.
        assert!(!stderr.contains("; check each word") && !stderr.contains("; use another backup"), "{stderr}");
        assert!(!new_data.join(keystore::RECORDS_FILE_NAME).exists(), "{locale}: records were written");
    }
}

/// `schcp-keyapp recovery-phrase` writes the words to a terminal only: into a
/// pipe (an assistant running the command for the person, or a redirect to a
/// file) it refuses before it opens the key or asks the OS, and writes nothing.
#[test]
fn the_terminal_kit_is_never_written_into_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    for (locale, words) in [("en", "only in a terminal window"), ("fr", "que dans une fenêtre de terminal")] {
        let config = dir.path().join(format!("keyapp-{locale}.toml"));
        std::fs::write(
            &config,
            format!(
                "data_dir = \"{}\"\nlocale = \"{locale}\"\n[keystore]\nbackend = \"file\"\n",
                dir.path().join("data").display()
            ),
        )
        .unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_schcp-keyapp"))
            .arg("--config")
            .arg(&config)
            .arg("recovery-phrase")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
        assert!(stderr.contains(words), "{locale}: {stderr}");
        assert!(!dir.path().join("data").exists(), "nothing was opened or made");
    }
}
