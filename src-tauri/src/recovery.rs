//! The recovery kit, the records backup and the restore, as the main window
//! reaches them (keyapp::recovery). The kit is the key in words, so:
//! - its commands are granted to the main window alone (capabilities/main.json),
//!   and each checks the calling window's label again;
//! - showing it asks the OS to confirm the person, with its own prompt
//!   (`Custody::reveal`); a refusal hands out nothing;
//! - no agent API route, MCP tool or control-socket command reaches `Custody`.

use crate::commands::CommandError;
use crate::ui_strings::UiLanguage;
use crate::windows;
use keyapp::recovery::custody::{AutoBackupError, Custody};
use keyapp::recovery::schedule::AutoBackup;
use keyapp::recovery::KitKind;
use keyapp::service::{Code, Reason, Service, ServiceError};
use keyapp::ui_words::{text, text_with};
use keyapp::user_verification::{Asker, Refusal, Surface};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;
use tauri::{Runtime, State, WebviewWindow};

type Answer<T> = Result<T, CommandError>;

/// The kit as the window shows it once: the words, what they restore, the two
/// places to type back, and the printable page's content (keyapp::recovery::page).
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct KitView {
    pub words: Vec<String>,
    pub principal: String,
    /// The key was made before recovery phrases: the words are its seed.
    pub key_seed: bool,
    /// Word numbers (1-based) the person types back.
    pub confirm: Vec<u32>,
    /// The printable page's body (escaped HTML, no script, no outside resource).
    pub page: String,
}

/// The daily backup as Settings shows it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct AutoBackupView {
    pub folder: Option<String>,
    pub keep: u32,
    /// Where the choice is kept: in the config file the key app read, or in the records.
    pub in_config_file: bool,
}

/// The first run's question, before any key exists: a new key, or the
/// person's own, brought back from the recovery kit (and a backup).
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[serde(tag = "choice", rename_all = "snake_case")]
pub enum FirstChoice {
    New,
    Restore {
        words: String,
        backup: Option<String>,
        #[serde(default)]
        key_seed: bool,
    },
}

/// The longest phrase the window sends: 24 words of at most 8 letters and
/// their spaces, with room for stray spacing.
pub const MAX_PHRASE: usize = 1024;
/// The longest path the window sends.
pub const MAX_PATH: usize = 4096;

fn refusal(code: Code, reason: Reason, message: String) -> CommandError {
    CommandError { code, reason, message }
}

/// Only the main window (the person's own, never the consent window, never
/// remote content) reaches the kit; the capability grants it there alone and
/// this says it again.
fn main_window_only<R: Runtime>(window: &WebviewWindow<R>, lang: &UiLanguage) -> Answer<()> {
    if window.label() == windows::MAIN {
        return Ok(());
    }
    Err(refusal(Code::NotPermitted, Reason::UserNotVerified, text(lang.get(), "recovery-window-main-only")))
}

/// A path the person typed: absolute, of a sane length, else a sentence.
fn typed_path(path: &str, lang: &UiLanguage) -> Answer<PathBuf> {
    let path = path.trim();
    let p = PathBuf::from(path);
    if path.is_empty() || path.len() > MAX_PATH || !p.is_absolute() || path.contains('\0') {
        return Err(refusal(Code::InvalidRequest, Reason::BadPath, text(lang.get(), "recovery-window-bad-path")));
    }
    Ok(p)
}

/// The kit, after the OS confirmed the person (first run and Settings alike).
#[tauri::command(rename_all = "snake_case")]
pub async fn recovery_kit<R: Runtime>(
    window: WebviewWindow<R>,
    custody: State<'_, Arc<Custody>>,
    lang: State<'_, UiLanguage>,
) -> Answer<KitView> {
    main_window_only(&window, &lang)?;
    let language = lang.get();
    let asker = Asker::this_process(Surface::Window).map_err(|_| {
        refusal(Code::NotPermitted, Reason::VerificationUnavailable, text(language, "recovery-window-not-verified"))
    })?;
    let (kit, _, positions) =
        custody.reveal(asker, text(language, "recovery-verification-summary")).await.map_err(|refused| {
            let underway = matches!(refused, Refusal::Underway { .. });
            let refused = ServiceError::NotVerified(refused);
            let (code, reason) = refused.code_and_reason();
            // Another prompt on screen: say what it is for, never "confirm
            // with your password", which would send the person to it.
            let message = match underway {
                true => keyapp::ui_words::refusal(language, &refused),
                false => text(language, "recovery-window-not-verified"),
            };
            refusal(code, reason, message)
        })?;
    let date = chrono::Local::now().format("%Y-%m-%d").to_string();
    Ok(KitView {
        words: kit.words().to_vec(),
        principal: kit.principal_id(),
        key_seed: kit.kind() == KitKind::KeySeed,
        confirm: positions.iter().map(|p| *p as u32 + 1).collect(),
        page: keyapp::recovery::page::body(&kit, language, &date),
    })
}

/// Whether the two words typed back are the kit's at the places asked.
#[tauri::command(rename_all = "snake_case")]
pub fn confirm_recovery_words<R: Runtime>(
    window: WebviewWindow<R>,
    custody: State<'_, Arc<Custody>>,
    lang: State<'_, UiLanguage>,
    words: Vec<String>,
) -> Answer<bool> {
    main_window_only(&window, &lang)?;
    if words.len() != 2 || words.iter().any(|w| w.len() > 64) {
        return Err(refusal(Code::InvalidRequest, Reason::TooLarge, text(lang.get(), "recovery-confirm-wrong")));
    }
    Ok(custody.confirm(&words))
}

/// "Back up now": the records, encrypted to the kit, into the file named.
#[tauri::command(rename_all = "snake_case")]
pub async fn backup_now<R: Runtime>(
    window: WebviewWindow<R>,
    svc: State<'_, Service>,
    custody: State<'_, Arc<Custody>>,
    lang: State<'_, UiLanguage>,
    path: String,
) -> Answer<String> {
    main_window_only(&window, &lang)?;
    let dest = typed_path(&path, &lang)?;
    if dest.is_dir() {
        return Err(refusal(Code::InvalidRequest, Reason::BadPath, text(lang.get(), "recovery-window-bad-path")));
    }
    custody.backup_to(&dest, svc.now()).await.map_err(|e| {
        eprintln!("schcp-keyapp-desktop: the backup from the window was not written: {e}");
        let mut args = fluent_bundle::FluentArgs::new();
        args.set("file", dest.display().to_string());
        refusal(Code::Unavailable, Reason::BadPath, text_with(lang.get(), "recovery-window-backup-failed", &args))
    })?;
    let mut args = fluent_bundle::FluentArgs::new();
    args.set("file", dest.display().to_string());
    Ok(text_with(lang.get(), "recovery-backup-written", &args))
}

fn auto_view(choice: &AutoBackup, in_config_file: bool) -> AutoBackupView {
    AutoBackupView {
        folder: choice.folder.as_ref().map(|f| f.display().to_string()),
        keep: u32::try_from(choice.keep).unwrap_or(u32::MAX),
        in_config_file,
    }
}

/// The daily backup in force.
#[tauri::command(rename_all = "snake_case")]
pub fn auto_backup<R: Runtime>(
    window: WebviewWindow<R>,
    svc: State<'_, Service>,
    custody: State<'_, Arc<Custody>>,
    lang: State<'_, UiLanguage>,
) -> Answer<AutoBackupView> {
    main_window_only(&window, &lang)?;
    Ok(auto_view(&custody.auto_backup(), svc.profile().config().source.is_some()))
}

/// The person's daily backup: a folder (none: off) and how many to keep.
#[tauri::command(rename_all = "snake_case")]
pub async fn set_auto_backup<R: Runtime>(
    window: WebviewWindow<R>,
    svc: State<'_, Service>,
    custody: State<'_, Arc<Custody>>,
    lang: State<'_, UiLanguage>,
    folder: Option<String>,
    keep: u32,
) -> Answer<AutoBackupView> {
    main_window_only(&window, &lang)?;
    let folder = match folder.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(f) => Some(typed_path(f, &lang)?),
    };
    let choice = AutoBackup { folder, keep: keep as usize };
    let config_file = svc.profile().config().source.clone();
    let chosen = custody.choose_daily(choice, config_file.as_deref(), keyapp::service::system_clock()).await;
    let chosen = chosen.map_err(|e| {
        let id = match e {
            AutoBackupError::Keep { .. } => "recovery-window-keep-range",
            AutoBackupError::Folder { .. } => "recovery-window-bad-folder",
            _ => "recovery-window-auto-failed",
        };
        refusal(Code::InvalidRequest, Reason::BadPath, text(lang.get(), id))
    })?;
    Ok(auto_view(&chosen, config_file.is_some()))
}

/// The first run's answer: a new key, or a restore (see `unlock::Gate::welcome`).
#[tauri::command(rename_all = "snake_case")]
pub async fn first_run_choice<R: Runtime>(
    window: WebviewWindow<R>,
    gate: State<'_, Arc<crate::unlock::Gate>>,
    lang: State<'_, UiLanguage>,
    choice: FirstChoice,
) -> Answer<crate::unlock::GateView> {
    main_window_only(&window, &lang)?;
    if let FirstChoice::Restore { words, backup, .. } = &choice {
        if words.len() > MAX_PHRASE {
            return Err(refusal(Code::InvalidRequest, Reason::TooLarge, text(lang.get(), "restore-refused-phrase")));
        }
        if let Some(b) = backup.as_deref().filter(|b| !b.trim().is_empty()) {
            typed_path(b, &lang)?;
        }
    }
    gate.choose(choice)
        .await
        .map_err(|_| refusal(Code::InvalidState, Reason::NotAsking, text(lang.get(), "refusal-not_asking")))
}
