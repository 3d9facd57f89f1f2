//! Why the key app did not start, in the person's language: what happened and
//! what to do about it, from `locales/{en,fr}/start.ftl`. The terminal shows
//! the two as its "Error:" and "What to do:" lines, the desktop's window as one
//! paragraph. The errors' own `Display` stays English, for logs.

use crate::app::{Instance, Listener, SecureError, StartError};
use crate::control::ControlError;
use crate::hardening::HardeningError;
use crate::keystore::{KeyLocation, KeystoreError, PASSPHRASE_ENV, PASSPHRASE_FD_ENV};
use crate::ui_words::{text, text_with};
use fluent_bundle::FluentArgs;
use schcp_consent::Language;
use std::io::ErrorKind;
use std::path::Path;

/// What happened and what to do, each one sentence or two.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartWords {
    pub what: String,
    pub remedy: String,
}

impl StartWords {
    /// The two as one paragraph, as a window shows them.
    pub fn paragraph(&self) -> String {
        format!("{} {}", self.what, self.remedy)
    }
}

/// Why the key app did not start, worded in `language`.
pub fn start_error(language: Language, e: &StartError) -> StartWords {
    let mut args = FluentArgs::new();
    let id = match e {
        StartError::NoDataDir => "no-data-dir",
        StartError::DataDir { path, source } => {
            set_path(&mut args, path);
            args.set("detail", io_detail(language, source));
            "data-dir"
        }
        StartError::AlreadyRunning { data_dir, running } => {
            set_path(&mut args, data_dir);
            args.set("running", running_words(language, running.as_ref()));
            "already-running"
        }
        StartError::AlreadyAnswering { url, path } => {
            set_path(&mut args, path);
            args.set("url", url.clone());
            "already-answering"
        }
        StartError::Keystore(k) => return keystore_error(language, k),
        StartError::Store { path, source } => {
            set_path(&mut args, path);
            args.set("detail", source.to_string());
            "store"
        }
        StartError::OtherKey { data_dir, .. } => {
            set_path(&mut args, data_dir);
            "other-key"
        }
        StartError::Discovery(d) => {
            args.set("detail", d.to_string());
            "discovery"
        }
        StartError::Bind { listener, addr, source } => {
            args.set("addr", addr.to_string());
            args.set("detail", io_detail(language, source));
            match listener {
                Listener::AgentApi => "bind-agent-api",
                Listener::StatusApi => "bind-status-api",
            }
        }
        StartError::Control(ControlError::Io { path, source }) => {
            set_path(&mut args, path);
            args.set("detail", io_detail(language, source));
            "control"
        }
        // Not what a start meets (they are a client's); said as any other
        // failure to set up, with the system's words.
        StartError::Control(other) => {
            args.set("detail", other.to_string());
            "service"
        }
        StartError::RuntimeFile { path, source } => {
            set_path(&mut args, path);
            args.set("detail", io_detail(language, source));
            "runtime-file"
        }
        StartError::Service(s) => {
            args.set("detail", s.to_string());
            "service"
        }
    };
    worded(language, id, &args)
}

/// Why the process that would hold the key stopped before it started
/// (`app::secure_process`), worded in `language`: a program watching it, a
/// sandbox where one could not be seen, a kernel that would not keep its
/// memory to itself, or the passphrase it was started with.
pub fn secure_error(language: Language, e: &SecureError) -> StartWords {
    use schcp_webext::HardeningError as Unseen;
    let mut args = FluentArgs::new();
    let id = match e {
        SecureError::Passphrase(k) => return keystore_error(language, k),
        SecureError::Hardening(HardeningError::Traced { why: Unseen::Traced { tracer, .. } }) => {
            args.set("tracer", program_name(*tracer));
            "traced"
        }
        SecureError::Hardening(HardeningError::Traced { why: Unseen::Namespaced }) => "sandboxed",
        // The system would not say whether a tracer is there, or would not
        // close the memory: its own words for a system error, none else.
        SecureError::Hardening(HardeningError::Dumpable { error })
        | SecureError::Hardening(HardeningError::CoreLimit { error }) => {
            args.set("detail", io_detail(language, error));
            "unprotected"
        }
        // It could not read its own threads' state (`/proc/self/task`).
        SecureError::Hardening(_) => "unprotected-unread",
    };
    worded(language, id, &args)
}

/// A watching process as the person may know it: its program's name
/// (`/proc/PID/comm`, inert), with its number; the number alone once it is gone.
fn program_name(pid: u32) -> String {
    match std::fs::read_to_string(format!("/proc/{pid}/comm")) {
        Ok(name) if !name.trim().is_empty() => format!("{}, {pid}", schcp_consent::inert::inert(name.trim())),
        _ => pid.to_string(),
    }
}

/// Why the principal key could not be opened, made or kept, worded in
/// `language`: at a start, and where a restore keeps the key.
pub fn keystore_error(language: Language, e: &KeystoreError) -> StartWords {
    let mut args = FluentArgs::new();
    let id = match e {
        KeystoreError::NoSessionBus { reason } => {
            args.set("detail", reason.clone());
            "no-session-bus"
        }
        KeystoreError::NoSecretService => "no-secret-service",
        KeystoreError::KeychainLocked => "keychain-locked",
        KeystoreError::KeychainNoCollection => "keychain-no-collection",
        KeystoreError::KeychainAccessDenied => "keychain-access-denied",
        KeystoreError::KeychainFailure { detail } => {
            args.set("detail", detail.clone());
            "keychain-failure"
        }
        KeystoreError::UnlockHelperMissing { path } => {
            set_path(&mut args, path);
            "unlock-helper-missing"
        }
        KeystoreError::NoPkexec { path } => {
            set_path(&mut args, path);
            "no-pkexec"
        }
        KeystoreError::UnlockRefused => "unlock-refused",
        KeystoreError::UnlockCancelled => "unlock-cancelled",
        KeystoreError::UnlockFailed { detail } => {
            args.set("detail", detail.clone());
            "unlock-failed"
        }
        KeystoreError::SealedKeyRejected { location } => {
            args.set("location", location_words(language, location));
            "sealed-key-rejected"
        }
        KeystoreError::BareSeed { location } => {
            args.set("location", location_words(language, location));
            "bare-seed"
        }
        KeystoreError::NoKeyForRecords { location, records } => {
            args.set("location", location_words(language, location));
            set_path(&mut args, records);
            "no-key-for-records"
        }
        KeystoreError::CorruptKey { location, problem } => {
            args.set("location", location_words(language, location));
            args.set("detail", *problem);
            "corrupt-key"
        }
        KeystoreError::PassphraseMissing { var } => {
            args.set("var", var.clone());
            "passphrase-missing"
        }
        KeystoreError::WrongPassphrase { path } => {
            set_path(&mut args, path);
            "wrong-passphrase"
        }
        KeystoreError::PassphraseFd { fd, error } => {
            args.set("fd", fd.clone());
            args.set("var", PASSPHRASE_FD_ENV);
            args.set("detail", io_detail(language, error));
            "passphrase-fd"
        }
        KeystoreError::EmptyPassphrase => "empty-passphrase",
        KeystoreError::PassphraseMismatch => "passphrase-mismatch",
        KeystoreError::PassphraseNotGiven => "passphrase-not-given",
        KeystoreError::NoTerminal { error } => {
            args.set("detail", io_detail(language, error));
            args.set("fd_var", PASSPHRASE_FD_ENV);
            args.set("var", PASSPHRASE_ENV);
            "no-terminal"
        }
        KeystoreError::KeyExists { location } => {
            args.set("location", location_words(language, location));
            "key-exists"
        }
        KeystoreError::Io { path, error, .. } => {
            set_path(&mut args, path);
            args.set("detail", io_detail(language, error));
            "io"
        }
    };
    worded(language, id, &args)
}

fn worded(language: Language, id: &str, args: &FluentArgs<'_>) -> StartWords {
    StartWords {
        what: text_with(language, &format!("start-err-{id}"), args),
        remedy: text_with(language, &format!("start-rec-{id}"), args),
    }
}

fn set_path(args: &mut FluentArgs<'_>, path: &Path) {
    args.set("path", path.display().to_string());
}

/// Where the key is kept: a keychain entry in words, or the file's path.
fn location_words(language: Language, location: &KeyLocation) -> String {
    match location {
        KeyLocation::Keychain { service, account } => {
            let mut args = FluentArgs::new();
            args.set("service", *service);
            args.set("account", account.clone());
            text_with(language, "start-location-keychain", &args)
        }
        KeyLocation::File(path) => path.display().to_string(),
    }
}

/// The key app holding the data folder, as its lock file names it.
fn running_words(language: Language, running: Option<&Instance>) -> String {
    let Some(i) = running else { return text(language, "start-running-unknown") };
    let mut args = FluentArgs::new();
    args.set("pid", i.pid.to_string());
    match &i.agent_api {
        Some(url) => {
            args.set("url", url.clone());
            text_with(language, "start-running-process-url", &args)
        }
        None => text_with(language, "start-running-process", &args),
    }
}

/// What the system said, in the person's words where they can act on it;
/// otherwise the system's own words.
fn io_detail(language: Language, e: &std::io::Error) -> String {
    let id = match e.kind() {
        ErrorKind::PermissionDenied => "start-io-permission",
        ErrorKind::NotFound => "start-io-not-found",
        ErrorKind::NotADirectory => "start-io-not-a-folder",
        ErrorKind::StorageFull => "start-io-no-space",
        ErrorKind::ReadOnlyFilesystem => "start-io-read-only",
        ErrorKind::AddrInUse => "start-io-address-in-use",
        ErrorKind::AddrNotAvailable => "start-io-address-not-available",
        _ => return e.to_string(),
    };
    text(language, id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::SocketAddr;
    use std::path::PathBuf;

    fn io(kind: ErrorKind) -> std::io::Error {
        std::io::Error::new(kind, "the system's words")
    }

    fn keychain() -> KeyLocation {
        KeyLocation::Keychain { service: "schcp-keyapp", account: "principal".into() }
    }

    /// One of every keystore error.
    fn keystore_errors() -> Vec<KeystoreError> {
        let path = || PathBuf::from("/home/p/.local/share/schcp-keyapp/principal.key.age");
        vec![
            KeystoreError::NoSessionBus { reason: "no DBUS_SESSION_BUS_ADDRESS".into() },
            KeystoreError::NoSecretService,
            KeystoreError::KeychainLocked,
            KeystoreError::KeychainNoCollection,
            KeystoreError::KeychainAccessDenied,
            KeystoreError::KeychainFailure { detail: "timeout".into() },
            KeystoreError::UnlockHelperMissing { path: "/usr/libexec/schcp-keyapp-unlock".into() },
            KeystoreError::NoPkexec { path: "/usr/bin/pkexec".into() },
            KeystoreError::UnlockRefused,
            KeystoreError::UnlockCancelled,
            KeystoreError::UnlockFailed { detail: "polkitd is not running".into() },
            KeystoreError::SealedKeyRejected { location: keychain() },
            KeystoreError::BareSeed { location: KeyLocation::File(path()) },
            KeystoreError::NoKeyForRecords { location: keychain(), records: "/home/p/keyapp.db".into() },
            KeystoreError::CorruptKey { location: keychain(), problem: "not 32 bytes" },
            KeystoreError::PassphraseMissing { var: PASSPHRASE_ENV.into() },
            KeystoreError::WrongPassphrase { path: path() },
            KeystoreError::PassphraseFd { fd: "9".into(), error: io(ErrorKind::InvalidInput) },
            KeystoreError::EmptyPassphrase,
            KeystoreError::PassphraseMismatch,
            KeystoreError::PassphraseNotGiven,
            KeystoreError::NoTerminal { error: io(ErrorKind::NotFound) },
            KeystoreError::KeyExists { location: keychain() },
            KeystoreError::Io { action: "read", path: path(), error: io(ErrorKind::PermissionDenied) },
        ]
    }

    /// One of every start error but `Keystore`, which is each of the above.
    fn start_errors() -> Vec<StartError> {
        let addr: SocketAddr = "127.0.0.1:7411".parse().unwrap();
        let dir = || PathBuf::from("/home/p/.local/share/schcp-keyapp");
        let running = Instance { pid: 4242, agent_api: Some("http://127.0.0.1:7411".into()) };
        vec![
            StartError::NoDataDir,
            StartError::DataDir { path: dir(), source: io(ErrorKind::PermissionDenied) },
            StartError::AlreadyRunning { data_dir: dir(), running: Some(running) },
            StartError::AlreadyRunning { data_dir: dir(), running: None },
            StartError::Store { path: dir().join("keyapp.db"), source: crate::store::testing::busy() },
            StartError::OtherKey {
                data_dir: dir(),
                recorded: "urn:schcp:principal:jwk-thumbprint:recorded".into(),
                found: "urn:schcp:principal:jwk-thumbprint:found".into(),
            },
            StartError::Discovery(crate::discovery::DiscoveryError::RootCerts {
                path: "/etc/roots.pem".into(),
                why: "no such file".into(),
            }),
            StartError::Bind { listener: Listener::AgentApi, addr, source: io(ErrorKind::AddrInUse) },
            StartError::Bind { listener: Listener::StatusApi, addr, source: io(ErrorKind::AddrNotAvailable) },
            StartError::Control(ControlError::Io {
                path: dir().join("run"),
                source: io(ErrorKind::ReadOnlyFilesystem),
            }),
            StartError::RuntimeFile { path: dir().join("run/agent-api.json"), source: io(ErrorKind::StorageFull) },
            StartError::AlreadyAnswering { url: "http://127.0.0.1:7411".into(), path: dir().join("agent-api.json") },
            StartError::Service(crate::service::ServiceError::Store(crate::store::testing::busy())),
        ]
    }

    /// One of every reason a start is stopped before anything is read.
    fn secure_errors() -> Vec<SecureError> {
        use schcp_webext::HardeningError as Unseen;
        let traced = |why| SecureError::Hardening(HardeningError::Traced { why });
        vec![
            traced(Unseen::Traced { thread: 4243, tracer: 777 }),
            traced(Unseen::Namespaced),
            traced(Unseen::Status),
            traced(Unseen::Threads(io(ErrorKind::PermissionDenied))),
            SecureError::Hardening(HardeningError::Dumpable { error: io(ErrorKind::PermissionDenied) }),
            SecureError::Hardening(HardeningError::CoreLimit { error: io(ErrorKind::PermissionDenied) }),
            SecureError::Passphrase(KeystoreError::EmptyPassphrase),
        ]
    }

    fn every() -> Vec<(String, StartWords, StartWords)> {
        let mut out = Vec::new();
        for e in secure_errors() {
            out.push((format!("{e:?}"), secure_error(Language::English, &e), secure_error(Language::French, &e)));
        }
        for e in start_errors() {
            out.push((format!("{e:?}"), start_error(Language::English, &e), start_error(Language::French, &e)));
        }
        for k in keystore_errors() {
            let (en, fr) = (keystore_error(Language::English, &k), keystore_error(Language::French, &k));
            let e = StartError::Keystore(k);
            assert_eq!(start_error(Language::English, &e), en, "a start's keystore error is the keystore's words");
            out.push((format!("{e:?}"), en, fr));
        }
        out
    }

    #[test]
    fn every_start_error_is_worded_in_english_and_french_with_its_remedy() {
        for (which, en, fr) in every() {
            for words in [&en.what, &en.remedy, &fr.what, &fr.remedy] {
                assert!(!words.starts_with("start-"), "{which}: no such message {words:?}");
                assert!(!words.contains("{ $") && !words.contains("{$"), "{which}: an argument unset in {words:?}");
                assert!(!words.contains("urn:schcp"), "{which}: no principal id where a person reads: {words:?}");
            }
            assert_ne!(en.what, fr.what, "{which}: the French is not the English");
            assert_ne!(en.remedy, fr.remedy, "{which}");
        }
    }

    /// A start stopped before it read anything says which of the three it
    /// met: a program watching (named by its process), a sandbox where one
    /// could not be seen, or a system that would not keep the memory closed.
    #[test]
    fn a_start_stopped_before_anything_is_read_says_why() {
        let [traced, sandboxed, status, threads, ..] = &secure_errors()[..] else { unreachable!() };
        assert_eq!(secure_error(Language::English, threads), secure_error(Language::English, status));
        let en = secure_error(Language::English, traced);
        assert!(en.what.contains("watching") && en.what.contains("777"), "{en:?}");
        // A tracer that is still there is named by its program's name.
        let me = SecureError::Hardening(HardeningError::Traced {
            why: schcp_webext::HardeningError::Traced { thread: 1, tracer: std::process::id() },
        });
        let named = secure_error(Language::English, &me).what;
        let name = std::fs::read_to_string("/proc/self/comm").unwrap();
        assert!(named.contains(name.trim()), "{named}");
        assert!(en.remedy.contains("strace"), "{en:?}");
        let fr = secure_error(Language::French, sandboxed);
        assert!(fr.what.contains("bac à sable") && !fr.what.contains("pourrait lire"), "{fr:?}");
        assert!(secure_error(Language::English, sandboxed).what.contains("Flatpak"));
        let unread = secure_error(Language::English, status);
        assert!(unread.what.contains("could not read whether"), "{unread:?}");
        // A system error in the system's words for it, not a developer's.
        let closed = SecureError::Hardening(HardeningError::Dumpable { error: io(ErrorKind::PermissionDenied) });
        let unprotected = secure_error(Language::French, &closed);
        assert!(unprotected.what.contains("protéger sa mémoire"), "{unprotected:?}");
        assert!(
            !unprotected.what.contains("system's words") && !unprotected.what.contains("denied"),
            "{unprotected:?}"
        );
        // Four different sentences.
        let whats: std::collections::BTreeSet<_> =
            [traced, sandboxed, status, &closed].iter().map(|e| secure_error(Language::English, e).what).collect();
        assert_eq!(whats.len(), 4);
    }

    #[test]
    fn the_words_carry_what_the_person_acts_on() {
        let dir = PathBuf::from("/home/p/.local/share/schcp-keyapp");
        let e = StartError::DataDir { path: dir.clone(), source: io(ErrorKind::PermissionDenied) };
        let fr = start_error(Language::French, &e);
        assert_eq!(
            fr.what,
            "Le dossier de données /home/p/.local/share/schcp-keyapp ne peut pas être utilisé (accès refusé)."
        );
        let en = start_error(Language::English, &e).paragraph();
        assert_eq!(
            en,
            "The data folder /home/p/.local/share/schcp-keyapp cannot be used (permission denied). \
             Check its owner and permissions, or set another data_dir in the configuration."
        );
        // A system error with no words of its own keeps the system's.
        let other = StartError::DataDir { path: dir, source: io(ErrorKind::Other) };
        assert!(start_error(Language::French, &other).what.contains("the system's words"));
        let running = StartError::AlreadyRunning {
            data_dir: "/d".into(),
            running: Some(Instance { pid: 4242, agent_api: Some("http://127.0.0.1:7411".into()) }),
        };
        assert_eq!(
            start_error(Language::French, &running).what,
            "L’appli de clés est déjà lancée pour /d (processus 4242, API des assistants http://127.0.0.1:7411)."
        );
        let keychain = keystore_error(Language::French, &KeystoreError::KeyExists { location: keychain() });
        assert!(keychain.what.contains("l’entrée « schcp-keyapp » / « principal » du trousseau"), "{keychain:?}");
        let terminal = keystore_error(Language::English, &KeystoreError::NoTerminal { error: io(ErrorKind::NotFound) });
        assert!(terminal.remedy.contains(PASSPHRASE_FD_ENV) && terminal.remedy.contains(PASSPHRASE_ENV));
    }

    use crate::ui_words::catalogue_ids as ids;

    #[test]
    fn the_start_catalogues_have_the_same_ids_and_every_error_its_remedy() {
        let (en, fr) = (ids(crate::ui_words::EN[3]), ids(crate::ui_words::FR[3]));
        assert_eq!(en, fr);
        for id in &en {
            if let Some(what) = id.strip_prefix("start-err-") {
                assert!(en.contains(&format!("start-rec-{what}").as_str()), "{id} has no remedy");
            }
        }
    }
}
