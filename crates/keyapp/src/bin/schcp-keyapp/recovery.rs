//! `recovery-phrase`, `backup` and `restore`: the recovery kit and the records
//! backup in a terminal. Each opens the keystore in this process rather than
//! asking the running service: no control-socket command hands out the kit or
//! a backup key (keyapp::recovery), so the phrase reaches only this terminal,
//! after the OS confirmed the person.

use crate::tty_agent;
use anyhow::{bail, Result};
use fluent_bundle::FluentArgs;
use keyapp::config::{Config, KeystoreBackend};
use keyapp::keystore::{self, PassphraseSource, PrincipalKey, RECORDS_FILE_NAME};
use keyapp::recovery::{self, backup, restore, KitKind};
use keyapp::store::Store;
use keyapp::ui_words::{text, text_with};
use keyapp::user_verification::{platform_verifier, Asker, Surface};
use secrecy::SecretString;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// The passphrase of a file-kept key: the one the process was started with,
/// else asked on this terminal.
fn passphrase_or_prompt(config: &Config, passphrase: Option<PassphraseSource>) -> PassphraseSource {
    passphrase.unwrap_or(match config.keystore.backend {
        KeystoreBackend::File | KeystoreBackend::Auto => PassphraseSource::Prompt,
        _ => PassphraseSource::default(),
    })
}

/// The profile's key; never a new one (a profile without records has none to show or back up).
async fn existing_key(config: &Config, data_dir: &Path, passphrase: Option<PassphraseSource>) -> Result<PrincipalKey> {
    let language = keyapp::app::language(config);
    if !data_dir.join(RECORDS_FILE_NAME).exists() {
        let mut args = FluentArgs::new();
        args.set("dir", data_dir.display().to_string());
        bail!(text_with(language, "recovery-no-profile", &args));
    }
    // The OS keychain's key is unsealed only after polkit asked the person here.
    let agent = tty_agent::start().await;
    let key = keystore::open(config.keystore.backend, data_dir, passphrase_or_prompt(config, passphrase)).await;
    agent.stop().await;
    Ok(key?)
}

/// `schcp-keyapp recovery-phrase`: the kit, after the OS confirmed the person.
pub(crate) async fn recovery_phrase(config: &Config, passphrase: Option<PassphraseSource>) -> Result<()> {
    let language = keyapp::app::language(config);
    // The words go to a person's eyes only: never into a pipe or a file, where
    // any of the person's programs could read them afterwards.
    if !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        bail!(text(language, "recovery-not-a-terminal"));
    }
    let data_dir = keyapp::app::data_dir(config)?;
    let key = existing_key(config, &data_dir, passphrase).await?;
    let asker = Asker::this_process(Surface::Terminal)?;
    let agent = tty_agent::start().await;
    let verifier = platform_verifier();
    let summary = text(language, "recovery-verification-summary");
    let revealed = recovery::reveal(&key, verifier.as_ref(), asker, summary).await;
    agent.stop().await;
    let Ok((kit, _)) = revealed else {
        bail!(text(language, "recovery-not-verified"));
    };
    println!("{}", text(language, "recovery-kit-title"));
    println!();
    let words = kit.words();
    for (row, chunk) in words.chunks(4).enumerate() {
        let line: Vec<String> =
            chunk.iter().enumerate().map(|(i, w)| format!("{:>2}. {w:<10}", row * 4 + i + 1)).collect();
        println!("  {}", line.join(" ").trim_end());
    }
    println!();
    let mut args = FluentArgs::new();
    args.set("principal", kit.principal_id());
    println!("{}", text_with(language, "recovery-kit-principal", &args));
    if kit.kind() == KitKind::KeySeed {
        println!("{}", text(language, "recovery-kit-key-seed"));
    }
    println!("{}", text(language, "recovery-kit-keep"));
    Ok(())
}

/// `schcp-keyapp backup FILE`: the records, encrypted to the recovery kit.
pub(crate) async fn backup(config: &Config, passphrase: Option<PassphraseSource>, file: PathBuf) -> Result<()> {
    let language = keyapp::app::language(config);
    let data_dir = keyapp::app::data_dir(config)?;
    let key = existing_key(config, &data_dir, passphrase).await?;
    let store = Store::open(&data_dir.join(RECORDS_FILE_NAME)).await?;
    let now = chrono::Utc::now().timestamp();
    backup::write(&store, &key.backup_recipient(), key.principal_id(), &data_dir, &file, now).await?;
    let mut args = FluentArgs::new();
    args.set("file", file.display().to_string());
    println!("{}", text_with(language, "recovery-backup-written", &args));
    Ok(())
}

/// `schcp-keyapp restore [--backup FILE] [--key-seed]`: the phrase, one line on
/// standard input, brings the principal back into an empty data directory.
pub(crate) async fn restore(
    config: &Config,
    passphrase: Option<PassphraseSource>,
    backup: Option<PathBuf>,
    key_seed: bool,
) -> Result<()> {
    let language = keyapp::app::language(config);
    let data_dir = keyapp::app::data_dir(config)?;
    let words = read_phrase(language)?;
    let request = restore::Restore {
        data_dir,
        backend: config.keystore.backend,
        passphrase: passphrase_or_prompt(config, passphrase),
        words,
        backup,
        key_seed,
    };
    let agent = tty_agent::start().await;
    let restored = restore::restore(request, chrono::Utc::now().timestamp()).await;
    agent.stop().await;
    let restored = restored?;
    let mut args = FluentArgs::new();
    args.set("principal", restored.principal.clone());
    println!("{}", text_with(language, "recovery-restored", &args));
    if let Some((_, paused)) = restored.records {
        let mut args = FluentArgs::new();
        args.set("pairings", paused.pairings);
        println!("{}", text_with(language, "recovery-restored-records", &args));
    }
    Ok(())
}

/// `schcp-keyapp revoke-everything --phrase [--key-seed] [--hosted URL]`: a
/// lost computer's switch with no records, from the recovery phrase alone
/// (standard input, one line), after the OS confirmed the person.
pub(crate) async fn revoke_with_phrase(config: &Config, key_seed: bool, hosted: Option<String>) -> Result<()> {
    let language = keyapp::app::language(config);
    let Some(base) = hosted.or_else(|| config.status_api.hosted.clone()) else {
        bail!(text(language, "revoke-everything-phrase-no-service"));
    };
    let words = read_phrase(language)?;
    let kind = if key_seed { KitKind::KeySeed } else { KitKind::Phrase };
    let kit = recovery::RecoveryKit::parse(secrecy::ExposeSecret::expose_secret(&words), kind)
        .map_err(restore::RestoreError::from)?;
    let asker = Asker::this_process(Surface::Terminal)?;
    let agent = tty_agent::start().await;
    let verifier = platform_verifier();
    let summary = text(language, "verification-revoke-everything-summary");
    let done =
        recovery::revoke_all_with_kit(&kit, &base, verifier.as_ref(), asker, summary, chrono::Utc::now().timestamp())
            .await;
    agent.stop().await;
    let mut args = FluentArgs::new();
    args.set("base", base.clone());
    match done {
        Ok(revoked) => {
            args.set("count", revoked.len());
            println!("{}", text_with(language, "revoke-everything-service-done", &args));
            println!("{}", text(language, "revoke-everything-phrase-records"));
            Ok(())
        }
        Err(recovery::PhraseSwitchError::NotVerified(_)) => bail!(text(language, "revoke-everything-not-verified")),
        Err(e) => {
            tracing::warn!(error = %e, "the revoke-all update did not reach the status service");
            args.set("count", 0);
            bail!(text_with(language, "revoke-everything-phrase-unreached", &args))
        }
    }
}

/// One line of standard input, bounded: a phrase is a few hundred bytes, and
/// nothing longer is one. Moved into the secret as it is, never copied. Typed
/// at a terminal, it is not echoed, so it stays out of the terminal's screen
/// and scrollback, which the person's other programs can read (a terminal
/// multiplexer's capture, a terminal's own memory).
fn read_phrase(language: schcp_consent::Language) -> Result<SecretString> {
    use std::io::{IsTerminal, Read};
    let line = if std::io::stdin().is_terminal() {
        eprint!("{} ", text(language, "recovery-restore-ask-hidden"));
        rpassword::read_password()?
    } else {
        eprintln!("{}", text(language, "recovery-restore-ask"));
        let mut line = String::new();
        std::io::stdin().lock().take(4096).read_line(&mut line)?;
        line
    };
    if line.trim().is_empty() {
        bail!(text(language, "recovery-no-phrase"));
    }
    Ok(SecretString::from(line))
}
