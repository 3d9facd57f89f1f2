//! The `schcp-keyapp` program's failures, as a person reads them: a line
//! saying what happened, a line saying what to do, in the configured
//! language, with no code or reason. The key app it talks to is the service
//! behind a real control socket (no keychain needed).

use keyapp::control;
use std::path::Path;
use std::process::Output;

/// Runs `schcp-keyapp --config <config> args…` with the OS locale `lang`.
fn run(config: &Path, lang: &str, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_schcp-keyapp"))
        .arg("--config")
        .arg(config)
        .args(args)
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", lang)
        .env("RUST_LOG", "off")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// The program failed and printed exactly `what` then `remedy` on stderr.
fn says(out: &Output, what: &str, remedy: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert_eq!(stderr, format!("{what}\n{remedy}\n"));
    for raw in ["NOT_FOUND", "not_found", "INVALID_REQUEST", "schcp-keyapp:"] {
        assert!(!stderr.contains(raw), "{stderr}");
    }
}

/// A configuration with its records in `dir`, in `locale`.
fn config(dir: &Path, locale: &str) -> std::path::PathBuf {
    let path = dir.join(format!("keyapp-{locale}.toml"));
    std::fs::write(&path, format!("data_dir = \"{}\"\nlocale = \"{locale}\"\n", dir.display())).unwrap();
    path
}

#[test]
fn a_key_app_that_is_not_running_is_said_so_with_how_to_start_it() {
    let dir = tempfile::tempdir().unwrap();
    // The configured language wins over the OS's, both ways.
    let out = run(&config(dir.path(), "en"), "fr_FR.UTF-8", &["pending"]);
    says(
        &out,
        "Error: The key app is not running, so nothing could be asked of it.",
        "What to do: Start it with “schcp-keyapp serve”, or open the desktop app, then try again.",
    );
    let out = run(&config(dir.path(), "fr"), "C.UTF-8", &["pending"]);
    says(
        &out,
        "Erreur : L’appli de clés n’est pas lancée : rien n’a pu lui être demandé.",
        "Que faire : Lancez-la avec « schcp-keyapp serve » ou ouvrez l’application de bureau, puis réessayez.",
    );
}

/// `serve` that cannot start says why, and what to do, in the configured
/// language: the start's own words, not the English of its error type.
#[test]
fn a_key_app_that_cannot_start_says_why_in_the_configured_language() {
    let dir = tempfile::tempdir().unwrap();
    let in_the_way = dir.path().join("a-file");
    std::fs::write(&in_the_way, "not a folder").unwrap();
    let data_dir = in_the_way.join("records");
    for (locale, what, remedy) in [
        (
            "fr",
            format!(
                "Erreur : Le dossier de données {} ne peut pas être utilisé (une partie de ce chemin est un fichier, \
                 pas un dossier).",
                data_dir.display()
            ),
            "Que faire : Vérifiez son propriétaire et ses droits, ou indiquez un autre data_dir dans la configuration.",
        ),
        (
            "en",
            format!(
                "Error: The data folder {} cannot be used (part of that path is a file, not a folder).",
                data_dir.display()
            ),
            "What to do: Check its owner and permissions, or set another data_dir in the configuration.",
        ),
    ] {
        let config = dir.path().join(format!("serve-{locale}.toml"));
        std::fs::write(&config, format!("data_dir = \"{}\"\nlocale = \"{locale}\"\n", data_dir.display())).unwrap();
        let out = run(&config, "C.UTF-8", &["serve"]);
        says(&out, &what, remedy);
        assert!(!String::from_utf8_lossy(&out.stderr).contains("os error"), "the system's words are worded");
    }
}

/// `serve` started under a tracer (strace, as a program of the person's that
/// starts the key app under a debugger would) stops before it reads anything,
/// and says so in the configured language, naming the watching process.
#[test]
fn a_key_app_started_under_a_tracer_says_so_and_does_not_start() {
    let strace = std::process::Command::new("strace").args(["-o", "/dev/null", "true"]).output();
    if !strace.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: strace is not installed, or may not trace here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (locale, what, remedy) in [
        ("en", "Error: Another program (strace, ", "What to do: Close that program (a debugger or tracer, such as gdb"),
        ("fr", "Erreur : Un autre programme (strace, ", "Que faire : Fermez ce programme (un débogueur ou un traceur"),
    ] {
        let out = std::process::Command::new("strace")
            .args(["-f", "-qq", "-e", "trace=none", "-o", "/dev/null"])
            .arg(env!("CARGO_BIN_EXE_schcp-keyapp"))
            .arg("--config")
            .arg(config(dir.path(), locale))
            .arg("serve")
            .env("RUST_LOG", "off")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert!(lines.len() == 2 && lines[0].starts_with(what) && lines[1].starts_with(remedy), "{stderr}");
        assert!(!stderr.contains("PID namespace") && !stderr.contains("TracerPid"), "{stderr}");
    }
    // Nothing was made: it stopped before it opened the data folder.
    assert!(!dir.path().join("keyapp.db").exists());
}

#[test]
fn a_bad_configuration_is_named_with_how_to_fix_it_in_the_os_language() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.toml");
    let out = run(&missing, "C.UTF-8", &["pending"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with(&format!("Error: The configuration file {} cannot be read (", missing.display())));
    assert!(stderr
        .ends_with("\nWhat to do: Check the path given to --config, or leave --config out to use the defaults.\n"));
    // A file that says nothing of its language is worded in the OS's.
    let unknown_key = dir.path().join("bad.toml");
    std::fs::write(&unknown_key, "colour = \"blue\"\n").unwrap();
    let out = run(&unknown_key, "fr_FR.UTF-8", &["pending"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.starts_with(&format!(
            "Erreur : Le fichier de configuration {} n’est pas valide : ",
            unknown_key.display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains("colour"), "the setting is named: {stderr}");
    assert!(stderr.ends_with(
        "\nQue faire : Corrigez ce réglage ; chaque réglage est facultatif, vous pouvez donc retirer celui dont vous \
         n’avez pas besoin.\n"
    ));
    assert_eq!(stderr.lines().count(), 2, "{stderr}");
}

#[tokio::test]
async fn an_unknown_request_id_is_named_with_where_to_find_the_right_one() {
    let dir = tempfile::tempdir().unwrap();
    let (_, clock) = testkit::service::movable_clock(testkit::service::T0);
    let service = testkit::service::open(dir.path(), clock).await;
    let listener = control::bind(&dir.path().join("run")).unwrap();
    let served = tokio::spawn(control::serve(listener, service, rustix::process::getuid().as_raw()));
    let (en, fr) = (config(dir.path(), "en"), config(dir.path(), "fr"));
    let outs = tokio::task::spawn_blocking(move || {
        [run(&en, "C.UTF-8", &["show", "rq_nothing"]), run(&fr, "C.UTF-8", &["decline", "rq_nothing"])]
    })
    .await
    .unwrap();
    says(
        &outs[0],
        "Error: The key app has nothing with the id rq_nothing.",
        "What to do: “schcp-keyapp pending” lists what waits for your answer, and “schcp-keyapp mandates” what \
         you approved.",
    );
    says(
        &outs[1],
        "Erreur : L’appli de clés n’a rien sous l’identifiant rq_nothing.",
        "Que faire : « schcp-keyapp pending » liste ce qui attend votre réponse, et « schcp-keyapp mandates » ce \
         que vous avez approuvé.",
    );
    served.abort();
}
