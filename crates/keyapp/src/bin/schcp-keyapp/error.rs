//! What `schcp-keyapp` prints when a command fails, as rage prints its own:
//! a line saying what happened and a line saying what to do, both from the
//! Fluent catalogue (`locales/{en,fr}/cli.ftl`) in the configured language.
//! Codes and reasons are what this program branches on; none is printed.

use fluent_bundle::FluentArgs;
use keyapp::app::StartError;
use keyapp::config::{Config, ConfigError};
use keyapp::control::ControlError;
use keyapp::recovery::backup::BackupError;
use keyapp::recovery::restore::RestoreError;
use keyapp::recovery::PhraseError;
use keyapp::ui_words;
use schcp::refusal::Reason;
use schcp_consent::Language;
use std::path::{Path, PathBuf};

/// Why a command failed, typed: each variant has its two sentences below.
#[derive(Debug)]
pub(crate) enum CliError {
    /// The configuration file could not be used.
    Config(ConfigError),
    /// The key app did not start: its own two sentences (`start_words`).
    NotStarted(Box<StartError>),
    /// The process that would hold the key stopped before it read anything
    /// (`app::secure_process`): its own two sentences (`start_words`).
    NotSecured(Box<keyapp::app::SecureError>),
    /// `serve` stopped.
    Start(String),
    /// Nothing listens on the control socket.
    NotRunning,
    /// The control socket is there but could not be used.
    Control { path: PathBuf, detail: String },
    /// The key app answered in a shape this program does not know.
    Version,
    /// The key app refused the command (its §9 reason, and its message for
    /// agent developers, worded again here); `id` is what the command named.
    Refused { reason: Reason, message: String, id: Option<String> },
    /// `hosts accept` of a host id not met at that domain.
    HostNotMet { host: String, domain: String },
    /// The terminal could not be read or written.
    Terminal(std::io::Error),
    /// `setup` could not use the status address asked for; the sentence is
    /// already in the person's words (setup.rs).
    Setup(String),
    /// A recovery command (phrase, backup, restore) failed; the sentence says
    /// what and that nothing was written.
    Recovery(String),
    /// `export` could not write its file.
    Export(String),
    /// A `--since` or `--until` that is not a day.
    Date(String),
    /// A backup was not written or not read.
    Backup(BackupError),
    /// Nothing was restored.
    Restore(RestoreError),
}

impl From<ControlError> for CliError {
    fn from(e: ControlError) -> Self {
        match e {
            ControlError::NotRunning(_) => CliError::NotRunning,
            ControlError::Io { path, source } => CliError::Control { path, detail: source.to_string() },
            // A malformed answer, or a failure a newer key app knows of.
            _ => CliError::Version,
        }
    }
}

impl From<StartError> for CliError {
    fn from(e: StartError) -> Self {
        CliError::NotStarted(Box::new(e))
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::Terminal(e)
    }
}

impl CliError {
    /// A recovery command's failure: a backup's or a restore's typed error
    /// gets its own two sentences; any other is already in the person's words.
    pub(crate) fn recovery(e: anyhow::Error) -> CliError {
        let e = match e.downcast::<RestoreError>() {
            Ok(RestoreError::Backup(b)) => return CliError::Backup(b),
            Ok(r) => return CliError::Restore(r),
            Err(e) => e,
        };
        match e.downcast::<BackupError>() {
            Ok(b) => CliError::Backup(b),
            Err(e) => CliError::Recovery(e.to_string()),
        }
    }

    /// The message ids of its two lines, and their arguments.
    // Long by design: one arm per error, naming its two messages and their arguments.
    fn ids(&self, language: Language) -> (&'static str, &'static str, FluentArgs<'static>) {
        let mut args = FluentArgs::new();
        let (what, remedy) = match self {
            CliError::Config(ConfigError::Read { path, source }) => {
                args.set("path", path.display().to_string());
                args.set("detail", source.to_string());
                ("cli-err-config-read", "cli-rec-config-read")
            }
            CliError::Config(ConfigError::Parse { path, source }) => {
                args.set("path", path.display().to_string());
                args.set("detail", source.message().to_owned());
                ("cli-err-config-parse", "cli-rec-config-parse")
            }
            CliError::Config(other) => {
                args.set("detail", other.to_string());
                ("cli-err-config-invalid", "cli-rec-config-invalid")
            }
            CliError::Start(detail) => {
                args.set("detail", detail.clone());
                ("cli-err-start", "cli-rec-start")
            }
            // Worded by `start_words` (`worded`); its detail, should anything ask.
            CliError::NotStarted(e) => {
                args.set("detail", e.to_string());
                ("cli-err-start", "cli-rec-start")
            }
            CliError::NotSecured(e) => {
                args.set("detail", e.to_string());
                ("cli-err-start", "cli-rec-start")
            }
            CliError::NotRunning => ("cli-err-not-running", "cli-rec-not-running"),
            CliError::Control { path, detail } => {
                args.set("path", path.display().to_string());
                args.set("detail", detail.clone());
                ("cli-err-control", "cli-rec-control")
            }
            CliError::Version => ("cli-err-version", "cli-rec-version"),
            CliError::Refused { reason: Reason::NotFound, id: Some(id), .. } => {
                args.set("id", id.clone());
                ("cli-err-unknown-id", "cli-rec-unknown-id")
            }
            // The wire does not say which status it has now; history does.
            CliError::Refused { reason: Reason::NotPending, id: Some(id), .. } => {
                args.set("id", id.clone());
                ("cli-err-not-pending", "cli-rec-not-pending")
            }
            CliError::Refused { reason, message, .. } => {
                args.set("what", ui_words::wire_refusal(language, *reason, message));
                ("cli-err-refused", refused_remedy(*reason))
            }
            CliError::HostNotMet { host, domain } => {
                args.set("host", host.clone());
                args.set("domain", domain.clone());
                ("cli-err-host-not-met", "cli-rec-host-not-met")
            }
            CliError::Terminal(e) => {
                args.set("detail", e.to_string());
                ("cli-err-terminal", "cli-rec-terminal")
            }
            CliError::Setup(detail) => {
                args.set("detail", detail.clone());
                ("cli-err-setup", "cli-rec-setup")
            }
            CliError::Recovery(detail) => {
                args.set("detail", detail.clone());
                ("cli-err-recovery", "cli-rec-recovery")
            }
            CliError::Export(detail) => {
                args.set("detail", detail.clone());
                ("cli-err-export", "cli-rec-export")
            }
            CliError::Date(date) => {
                args.set("date", date.clone());
                ("cli-err-date", "cli-rec-date")
            }
            CliError::Backup(e) => backup_ids(e, &mut args),
            CliError::Restore(e) => restore_ids(e, language, &mut args),
        };
        (what, remedy, args)
    }

    /// The two lines, in `language`: "Error: …" then "What to do: …".
    pub(crate) fn worded(&self, language: Language) -> String {
        let (what, remedy) = match self {
            CliError::NotStarted(e) => {
                let words = keyapp::start_words::start_error(language, e);
                (words.what, words.remedy)
            }
            CliError::NotSecured(e) => {
                let words = keyapp::start_words::secure_error(language, e);
                (words.what, words.remedy)
            }
            _ => {
                let (what, remedy, args) = self.ids(language);
                (ui_words::text_with(language, what, &args), ui_words::text_with(language, remedy, &args))
            }
        };
        let line = |label: &str, name: &str, text: String| {
            let mut outer = FluentArgs::new();
            outer.set(name, text);
            ui_words::text_with(language, label, &outer)
        };
        format!("{}\n{}", line("cli-error", "what", what), line("cli-remedy", "remedy", remedy))
    }
}

/// A backup's failure, worded: which file, and what to do.
fn backup_ids(e: &BackupError, args: &mut FluentArgs<'static>) -> (&'static str, &'static str) {
    match e {
        BackupError::NotABackup { path } => {
            args.set("path", path.display().to_string());
            ("cli-err-backup-not-a-backup", "cli-rec-backup-not-a-backup")
        }
        BackupError::WrongPhrase { path } => {
            args.set("path", path.display().to_string());
            ("cli-err-backup-wrong-phrase", "cli-rec-backup-wrong-phrase")
        }
        BackupError::Tampered { path } => {
            args.set("path", path.display().to_string());
            ("cli-err-backup-tampered", "cli-rec-backup-tampered")
        }
        BackupError::NewerSchema { path, .. } => {
            args.set("path", path.display().to_string());
            ("cli-err-backup-newer", "cli-rec-backup-newer")
        }
        BackupError::Store(e) => {
            args.set("detail", e.to_string());
            ("cli-err-backup-store", "cli-rec-backup-store")
        }
        BackupError::Io { path, error, .. } => {
            args.set("path", path.display().to_string());
            args.set("detail", error.to_string());
            ("cli-err-backup-io", "cli-rec-backup-io")
        }
        other => {
            args.set("detail", other.to_string());
            ("cli-err-recovery", "cli-rec-recovery")
        }
    }
}

/// A restore's failure, worded: nothing was restored, and what to do.
fn restore_ids(e: &RestoreError, language: Language, args: &mut FluentArgs<'static>) -> (&'static str, &'static str) {
    match e {
        RestoreError::Phrase(PhraseError::WordCount { found }) => {
            args.set("found", *found);
            ("cli-err-phrase-word-count", "cli-rec-phrase-word-count")
        }
        RestoreError::Phrase(PhraseError::UnknownWord { position }) => {
            args.set("position", *position);
            ("cli-err-phrase-unknown-word", "cli-rec-phrase-unknown-word")
        }
        RestoreError::Phrase(PhraseError::Checksum) => ("cli-err-phrase-checksum", "cli-rec-phrase-checksum"),
        RestoreError::Backup(b) => backup_ids(b, args),
        RestoreError::AnotherPrincipal { path, .. } => {
            args.set("path", path.display().to_string());
            ("cli-err-restore-another-principal", "cli-rec-restore-another-principal")
        }
        RestoreError::RecordsExist { path } => {
            args.set("path", path.display().to_string());
            ("cli-err-restore-records-exist", "cli-rec-restore-records-exist")
        }
        // The keychain's trouble in the person's words, as at start
        // (start_words), not the error type's English.
        RestoreError::Keystore(e) => {
            let words = keyapp::start_words::keystore_error(language, e);
            args.set("detail", words.what);
            args.set("remedy", words.remedy);
            ("cli-err-restore-keystore", "cli-rec-restore-keystore")
        }
        RestoreError::Store(e) => {
            args.set("detail", e.to_string());
            ("cli-err-restore-store", "cli-rec-restore-store")
        }
        RestoreError::Io { path, error, .. } => {
            args.set("path", path.display().to_string());
            args.set("detail", error.to_string());
            ("cli-err-restore-io", "cli-rec-restore-io")
        }
        other => {
            args.set("detail", other.to_string());
            ("cli-err-recovery", "cli-rec-recovery")
        }
    }
}

/// What to do after a refusal, by its reason: waiting, confirming again, or
/// correcting the command.
fn refused_remedy(reason: Reason) -> &'static str {
    match reason {
        Reason::Busy => "cli-rec-busy",
        Reason::UserNotVerified | Reason::VerificationCancelled | Reason::VerificationTimedOut => {
            "cli-rec-not-verified"
        }
        Reason::VerificationUnavailable => "cli-rec-install-polkit",
        Reason::VerificationUnderway => "cli-rec-verification-underway",
        Reason::NotFound => "cli-rec-unknown-id",
        Reason::NotPending => "cli-rec-not-pending",
        _ => "cli-rec-refused",
    }
}

/// The language errors are worded in: the configuration's, else the OS's
/// (a configuration that cannot be read says nothing of its language).
pub(crate) fn language(config: Option<&Path>) -> Language {
    let config = config.and_then(|p| Config::load(p).ok()).unwrap_or_default();
    keyapp::app::language(&config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_error() -> Vec<CliError> {
        let path = PathBuf::from("/nowhere/keyapp.toml");
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        let refused = |reason, id: Option<&str>| CliError::Refused {
            reason,
            message: "no such request".into(),
            id: id.map(str::to_owned),
        };
        vec![
            CliError::Config(ConfigError::Read { path: path.clone(), source: missing }),
            CliError::Config(Config::parse("colour = 1\n", &path).unwrap_err()),
            CliError::Config(ConfigError::Invalid("status_api.public_base must be an http(s) URL".into())),
            CliError::Start("the data directory cannot be used".into()),
            CliError::NotStarted(Box::new(StartError::NoDataDir)),
            CliError::NotSecured(Box::new(keyapp::app::SecureError::Hardening(
                keyapp::hardening::HardeningError::Traced { why: schcp_webext::HardeningError::Namespaced },
            ))),
            CliError::NotStarted(Box::new(StartError::Keystore(keyapp::keystore::KeystoreError::UnlockRefused))),
            CliError::NotRunning,
            CliError::Control { path: path.clone(), detail: "permission denied".into() },
            CliError::Version,
            refused(Reason::NotFound, Some("rq_x")),
            refused(Reason::NotPending, Some("rq_x")),
            refused(Reason::Busy, None),
            refused(Reason::UserNotVerified, None),
            refused(Reason::VerificationUnavailable, None),
            refused(Reason::BadName, None),
            refused(Reason::NotFound, None),
            CliError::HostNotMet { host: "maple".into(), domain: "maple.example".into() },
            CliError::Terminal(std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
            CliError::Export("/nowhere/records.json: No such file or directory".into()),
            CliError::Date("2026-13-45".into()),
            CliError::Backup(BackupError::NotABackup { path: path.clone() }),
            CliError::Backup(BackupError::WrongPhrase { path: path.clone() }),
            CliError::Backup(BackupError::Tampered { path: path.clone() }),
            CliError::Backup(BackupError::NewerSchema { path: path.clone(), found: 99, supported: 17 }),
            CliError::Backup(BackupError::Io {
                action: "write",
                path: path.clone(),
                error: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            }),
            CliError::Restore(RestoreError::Phrase(PhraseError::WordCount { found: 23 })),
            CliError::Restore(RestoreError::Phrase(PhraseError::UnknownWord { position: 7 })),
            CliError::Restore(RestoreError::Phrase(PhraseError::Checksum)),
            CliError::Restore(RestoreError::AnotherPrincipal {
                path: path.clone(),
                found: "urn:a".into(),
                expected: "urn:b".into(),
            }),
            CliError::Restore(RestoreError::RecordsExist { path: path.clone() }),
            CliError::Restore(RestoreError::Keystore(keyapp::keystore::KeystoreError::KeychainLocked)),
            CliError::Restore(RestoreError::Io {
                action: "create",
                path: path.clone(),
                error: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            }),
        ]
    }

    /// A wrong phrase and a tampered backup reach the person as the
    /// catalogue's two sentences in their language, never the English of
    /// the error type.
    #[test]
    fn a_wrong_phrase_and_a_tampered_backup_are_worded_in_both_languages() {
        let file = PathBuf::from("/media/usb/records.age");
        let wrong = CliError::recovery(RestoreError::from(BackupError::WrongPhrase { path: file.clone() }).into());
        assert_eq!(
            wrong.worded(Language::English),
            "Error: Your recovery phrase does not open /media/usb/records.age, so nothing was restored.\n\
             What to do: Check each word against your recovery kit, and that this backup was made with it."
        );
        assert_eq!(
            wrong.worded(Language::French),
            "Erreur : Votre phrase de récupération n’ouvre pas /media/usb/records.age : rien n’a été restauré.\n\
             Que faire : Vérifiez chaque mot sur votre kit de récupération, et que cette sauvegarde a bien été faite avec lui."
        );
        let tampered = CliError::recovery(RestoreError::from(BackupError::Tampered { path: file }).into());
        let (en, fr) = (tampered.worded(Language::English), tampered.worded(Language::French));
        assert!(en.starts_with("Error: /media/usb/records.age was changed or damaged after it was written"), "{en}");
        assert!(fr.starts_with("Erreur : /media/usb/records.age a été modifié ou abîmé"), "{fr}");
        // The English of the error type is not what the person reads.
        let english = BackupError::Tampered { path: "/media/usb/records.age".into() }.to_string();
        assert!(!en.contains(&english) && !fr.contains("so nothing was restored from it"), "{en}\n{fr}");
        let typo = CliError::recovery(RestoreError::from(PhraseError::UnknownWord { position: 7 }).into());
        assert_eq!(
            typo.worded(Language::French).lines().next().unwrap(),
            "Erreur : Le mot 7 n’est pas un mot de phrase de récupération : rien n’a été restauré."
        );
    }

    #[test]
    fn a_keychain_that_refuses_a_restore_is_worded_in_the_persons_language() {
        let locked = CliError::Restore(RestoreError::Keystore(keyapp::keystore::KeystoreError::KeychainLocked));
        let fr = locked.worded(Language::French);
        assert!(fr.starts_with("Erreur : Rien n’a été restauré."), "{fr}");
        // The French of the start's sentence, never the error type's English.
        let english = keyapp::keystore::KeystoreError::KeychainLocked.to_string();
        assert!(!fr.contains(&english) && !fr.contains("keychain"), "{fr}");
        let start =
            keyapp::start_words::keystore_error(Language::French, &keyapp::keystore::KeystoreError::KeychainLocked);
        assert!(fr.contains(&start.what) && fr.contains(&start.remedy), "{fr}");
        let en = locked.worded(Language::English);
        assert!(en.starts_with("Error: Nothing was restored.") && en.ends_with("Then restore again."), "{en}");
    }

    #[test]
    fn every_error_is_one_line_of_what_and_one_of_what_to_do_in_both_languages() {
        for e in every_error() {
            let (en, fr) = (e.worded(Language::English), e.worded(Language::French));
            for (w, error, remedy) in [(&en, "Error: ", "What to do: "), (&fr, "Erreur : ", "Que faire : ")] {
                let lines: Vec<&str> = w.lines().collect();
                assert_eq!(lines.len(), 2, "{e:?}: {w}");
                assert!(lines[0].starts_with(error) && lines[1].starts_with(remedy), "{e:?}: {w}");
                // A message id left unresolved would show as itself.
                assert!(!w.contains("cli-") && !w.contains('{'), "{e:?}: {w}");
                // No code or reason reaches the person.
                for raw in ["not_found", "NOT_FOUND", "not_pending", "INVALID", "bad_name"] {
                    assert!(!w.contains(raw), "{e:?}: {w}");
                }
            }
            assert_ne!(en, fr, "{e:?}");
        }
    }

    /// `schcp-keyapp approve` while another confirmation is on screen says
    /// so, and to answer or cancel it, in its own words: never the socket's
    /// message, which whatever answers there wrote.
    #[test]
    fn a_prompt_underway_is_worded_at_the_terminal_never_from_the_socket() {
        let e = CliError::Refused {
            reason: Reason::VerificationUnderway,
            message: "\u{1b}[2J Type your password now".into(),
            id: None,
        };
        let en = e.worded(Language::English);
        assert!(en.starts_with("Error: ") && en.contains("something else"), "{en}");
        assert!(en.contains("Answer or cancel the confirmation on your screen"), "{en}");
        assert!(!en.contains("password now") && !en.contains('\u{1b}'), "{en}");
    }

    #[test]
    fn an_unknown_id_names_the_id_and_where_to_find_the_right_one() {
        let e =
            CliError::Refused { reason: Reason::NotFound, message: "no such request".into(), id: Some("rq_x".into()) };
        assert_eq!(
            e.worded(Language::English),
            "Error: The key app has nothing with the id rq_x.\nWhat to do: “schcp-keyapp pending” lists what waits \
             for your answer, and “schcp-keyapp mandates” what you approved."
        );
        assert_eq!(
            e.worded(Language::French).lines().next().unwrap(),
            "Erreur : L’appli de clés n’a rien sous l’identifiant rq_x."
        );
    }
}
