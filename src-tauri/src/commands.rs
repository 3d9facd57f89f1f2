//! Every command the window calls: each forwards to one `Service` function,
//! the same ones the control socket's `execute` calls, so the window and the
//! terminal can never disagree. No protocol or wording logic lives here; the
//! consent text is the service's, verbatim.

use crate::ui_strings::{UiLanguage, UiStrings};
use crate::unlock::{self, Gate, GateView};
use crate::windows;
use keyapp::export::ExportFormat;
use keyapp::record_query::{CredentialPage, CredentialQuery, FilterChoices, HistoryPage, HistoryQuery};
use keyapp::service::{
    AgentView, AttestationView, Code, Contact, CredentialView, HostChangeView, Origin, PendingItem, Prompt, Reason,
    Service, ServiceError, Settings,
};
use keyapp::status_address::SetupChoice;
use keyapp::views::{PendingChange, StatusSetupView, UnpairedView};
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use tauri::{AppHandle, Manager, Runtime, State, WebviewWindow};

/// A refusal as the window shows it: the service's §9-style code, reason and
/// sentence (e.g. `INVALID_STATE`/`not_pending` for a request that expired).
#[derive(Debug, Clone, Serialize, PartialEq, thiserror::Error, ts_rs::TS)]
#[error("{message}")]
pub struct CommandError {
    /// A §9 code (SchCP §9.2): the window branches on it and on `reason` only.
    #[ts(type = "string")]
    pub code: Code,
    #[ts(type = "string")]
    pub reason: Reason,
    /// The refusal in the person's words, to show as it is.
    pub message: String,
}

/// The refusal in the person's language (`keyapp::ui_words::refusal`): the
/// window shows `message`, and the service's own message is for agent
/// developers, in English.
fn refused(svc: &Service) -> impl Fn(ServiceError) -> CommandError + '_ {
    move |e| {
        let (code, reason) = e.code_and_reason();
        CommandError { code, reason, message: keyapp::ui_words::refusal(svc.profile().language(), &e) }
    }
}

type Svc<'a> = State<'a, Service>;
type Answer<T> = Result<T, CommandError>;

#[tauri::command(rename_all = "snake_case")]
pub async fn pending(svc: Svc<'_>) -> Answer<Vec<PendingItem>> {
    svc.requests().pending_items().await.map_err(refused(&svc))
}

#[tauri::command(rename_all = "snake_case")]
pub async fn prompt(svc: Svc<'_>, id: String) -> Answer<Prompt> {
    svc.requests().prompt(&id).await.map_err(refused(&svc))
}

/// The person's yes or no. The service refuses anything not pending, so a
/// request withdrawn or expired while shown is never signed.
#[tauri::command(rename_all = "snake_case")]
pub async fn answer(svc: Svc<'_>, id: String, approve: bool) -> Answer<Value> {
    let answered = match approve {
        true => svc.approve(&id, Origin::ThisProcess).await,
        false => svc.decline(&id).await,
    };
    answered.map_err(refused(&svc))
}

/// What a terminal or another program is asking the OS to approve now, if
/// anything: the consent window says so beside whatever it shows.
#[tauri::command(rename_all = "snake_case")]
pub fn asked_elsewhere(svc: Svc<'_>, lang: State<'_, UiLanguage>) -> Option<ElsewhereView> {
    svc.asked_elsewhere().map(|asked| elsewhere_view(&lang, &asked))
}

/// A confirmation a terminal or another program asked the OS for, as the
/// consent window says it: the OS's prompt reads the same for every approval,
/// so a window showing anything but what it approves (another request, a
/// request already answered, none) names what it is for.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ElsewhereView {
    /// The pending request or pairing it would approve, if it is one.
    pub id: Option<String>,
    /// The sentence for a window showing anything else, naming what it is for.
    pub other: String,
}

pub fn elsewhere_view(lang: &UiLanguage, asked: &keyapp::service::AskedElsewhere) -> ElsewhereView {
    ElsewhereView {
        id: asked.id.clone(),
        other: lang.format("consent-asked-elsewhere-other", &[("what", asked.what.clone().into())]),
    }
}

#[tauri::command(rename_all = "snake_case")]
pub async fn relabel_rule(svc: Svc<'_>, id: String, label: String) -> Answer<Prompt> {
    svc.requests().relabel_rule(&id, &label).await.map_err(refused(&svc))
}

#[tauri::command(rename_all = "snake_case")]
pub async fn agents(svc: Svc<'_>) -> Answer<Vec<AgentView>> {
    svc.directory().agents().await.map_err(refused(&svc))
}

#[tauri::command(rename_all = "snake_case")]
pub async fn unpair(svc: Svc<'_>, jkt: String, revoke_credentials: Option<bool>) -> Answer<UnpairedView> {
    svc.pairings().unpair_revoking(&jkt, revoke_credentials.unwrap_or(false)).await.map_err(refused(&svc))
}

#[tauri::command(rename_all = "snake_case")]
pub async fn credentials(svc: Svc<'_>) -> Answer<Vec<CredentialView>> {
    svc.records().credentials(None).await.map_err(refused(&svc))
}

/// The person lets a paired agent in its cooldown ask again (Agents).
#[tauri::command(rename_all = "snake_case")]
pub async fn lift_cooldown(svc: Svc<'_>, jkt: String) -> Answer<()> {
    svc.requests().lift_cooldown(&jkt).await.map_err(refused(&svc))
}

/// My bookings: every booking the key app holds a verified receipt for.
#[tauri::command(rename_all = "snake_case")]
pub async fn bookings(svc: Svc<'_>) -> Answer<Vec<keyapp::views::BookingView>> {
    svc.records().bookings().await.map_err(refused(&svc))
}

#[tauri::command(rename_all = "snake_case")]
pub async fn revoke(svc: Svc<'_>, jti: String) -> Answer<()> {
    svc.records().revoke(&jti).await.map_err(refused(&svc))
}

/// One page of History: what the person's search finds (`record_query`),
/// the same query and pages as `schcp-keyapp history`.
#[tauri::command(rename_all = "snake_case")]
pub async fn search_history(svc: Svc<'_>, query: Option<HistoryQuery>) -> Answer<HistoryPage> {
    svc.records().history_page(&query.unwrap_or_default()).await.map_err(refused(&svc))
}

/// One page of Credentials, as `schcp-keyapp mandates` lists them.
#[tauri::command(rename_all = "snake_case")]
pub async fn search_credentials(svc: Svc<'_>, query: Option<CredentialQuery>) -> Answer<CredentialPage> {
    svc.records().credential_page(&query.unwrap_or_default()).await.map_err(refused(&svc))
}

/// The hosts and assistants a search can be narrowed to.
#[tauri::command(rename_all = "snake_case")]
pub async fn filter_choices(svc: Svc<'_>) -> Answer<FilterChoices> {
    svc.records().filter_choices().await.map_err(refused(&svc))
}

/// Where an export is written unless the person names another file: their
/// home folder (the window has no file picker; the person may type any path).
#[tauri::command(rename_all = "snake_case")]
pub fn export_path(format: ExportFormat) -> String {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from).unwrap_or_default();
    let name = match format {
        ExportFormat::Json => "schcp-records.json",
        ExportFormat::Html => "schcp-records.html",
    };
    home.join(name).display().to_string()
}

/// Writes the person's records to `path` (absolute, mode 0600) and says
/// where, in their words. The window's own action: no agent reaches it.
#[tauri::command(rename_all = "snake_case")]
pub async fn export_records(svc: Svc<'_>, path: String, format: ExportFormat) -> Answer<String> {
    let document = svc.records().export_document(format).await.map_err(refused(&svc))?;
    let path = std::path::PathBuf::from(path.trim());
    keyapp::export::write(&path, &document).map_err(|e| {
        let mut args = fluent_bundle::FluentArgs::new();
        args.set("detail", e.to_string());
        CommandError {
            code: Code::InvalidRequest,
            reason: Reason::BadPath,
            message: keyapp::ui_words::text_with(svc.profile().language(), "export-failed", &args),
        }
    })?;
    let mut args = fluent_bundle::FluentArgs::new();
    args.set("path", path.display().to_string());
    Ok(keyapp::ui_words::text_with(svc.profile().language(), "export-done", &args))
}

#[tauri::command(rename_all = "snake_case")]
pub async fn contacts(svc: Svc<'_>) -> Answer<Vec<Contact>> {
    svc.directory().contacts().await.map_err(refused(&svc))
}

#[tauri::command(rename_all = "snake_case")]
pub async fn add_contact(svc: Svc<'_>, principal: String, name: String, relationship: Option<String>) -> Answer<()> {
    svc.directory()
        .add_contact(&principal, &name, relationship.as_deref(), Origin::ThisProcess)
        .await
        .map_err(refused(&svc))
}

#[tauri::command(rename_all = "snake_case")]
pub async fn rename_contact(svc: Svc<'_>, principal: String, name: String) -> Answer<()> {
    svc.directory().rename_contact(&principal, &name, Origin::ThisProcess).await.map_err(refused(&svc))
}

#[tauri::command(rename_all = "snake_case")]
pub async fn remove_contact(svc: Svc<'_>, principal: String) -> Answer<()> {
    svc.directory().remove_contact(&principal).await.map_err(refused(&svc))
}

#[tauri::command(rename_all = "snake_case")]
pub async fn attestations(svc: Svc<'_>) -> Answer<Vec<AttestationView>> {
    svc.directory().attestations().await.map_err(refused(&svc))
}

#[tauri::command(rename_all = "snake_case")]
pub async fn add_attestation(svc: Svc<'_>, jws: String) -> Answer<Value> {
    svc.directory().add_attestation(&jws, Origin::ThisProcess).await.map_err(refused(&svc))
}

#[tauri::command(rename_all = "snake_case")]
pub fn settings(svc: Svc<'_>) -> Settings {
    svc.profile().settings()
}

/// Businesses met at another domain than they were first verified at (§2.2).
#[tauri::command(rename_all = "snake_case")]
pub async fn host_changes(svc: Svc<'_>) -> Answer<Vec<HostChangeView>> {
    svc.directory().host_domain_changes().await.map_err(refused(&svc))
}

/// The person accepts a business's move; no agent request can (§2.2).
#[tauri::command(rename_all = "snake_case")]
pub async fn accept_host_domain(svc: Svc<'_>, host_id: String, domain: String) -> Answer<()> {
    svc.directory().accept_host_domain(&host_id, &domain, Origin::ThisProcess).await.map_err(refused(&svc))
}

/// Where hosts check the person's credentials (Settings, the first run).
#[tauri::command(rename_all = "snake_case")]
pub async fn status_setup(svc: Svc<'_>) -> Answer<StatusSetupView> {
    svc.status().status_setup().await.map_err(refused(&svc))
}

/// Setup's answer; a change of address is confirmed by the OS first.
#[tauri::command(rename_all = "snake_case")]
pub async fn choose_status(svc: Svc<'_>, setup: SetupChoice) -> Answer<StatusSetupView> {
    svc.status().choose_status(setup, Origin::ThisProcess).await.map_err(setup_refused(&svc))
}

/// The person confirms the status address their config file names.
#[tauri::command(rename_all = "snake_case")]
pub async fn confirm_configured_status(svc: Svc<'_>) -> Answer<StatusSetupView> {
    svc.status().confirm_requested_status(Origin::ThisProcess).await.map_err(setup_refused(&svc))
}

/// Setup's refusals already carry the person's sentence, in their language,
/// naming what to fix (`keyapp::service::status_setup`); any other refusal is
/// worded as everywhere else.
fn setup_refused(svc: &Service) -> impl Fn(ServiceError) -> CommandError + '_ {
    move |e| match &e {
        ServiceError::Unacceptable { reason, message } => {
            CommandError { code: e.code_and_reason().0, reason: *reason, message: message.clone() }
        }
        _ => refused(svc)(e),
    }
}

/// The window's words in the language chosen (or the current one).
#[tauri::command(rename_all = "snake_case")]
pub fn ui_strings(lang: State<'_, UiLanguage>) -> UiStrings {
    lang.strings()
}

/// Switches the language at run time: the window's words, the tray, and the
/// consent text of what is asked from now on. A request already pending keeps
/// the text it was created with (`Service::set_language`).
#[tauri::command(rename_all = "snake_case")]
pub fn set_language<R: Runtime>(app: AppHandle<R>, lang: State<'_, UiLanguage>, tag: String) -> Answer<UiStrings> {
    let strings = lang.set(&tag).map_err(|_| CommandError {
        code: Code::InvalidRequest,
        reason: Reason::UnknownLanguage,
        message: keyapp::ui_words::text(lang.get(), "refusal-unknown_language"),
    })?;
    if let Some(svc) = app.try_state::<Service>() {
        svc.profile().set_language(lang.get()).map_err(refused(&svc))?;
    }
    windows::language_changed(&app);
    Ok(strings)
}

/// Where unlocking the key stands (the window's first look, and after a reload).
#[tauri::command(rename_all = "snake_case")]
pub fn unlock_state(gate: State<'_, Arc<Gate>>) -> GateView {
    gate.view()
}

/// The passphrase the person typed (and its confirmation for a new key), for
/// the keystore to judge; answers with what the window shows next: asked
/// again with the problem, or unlocked, or why the service did not start.
#[tauri::command(rename_all = "snake_case")]
pub async fn unlock(
    gate: State<'_, Arc<Gate>>,
    lang: State<'_, UiLanguage>,
    passphrase: String,
    confirmation: Option<String>,
) -> Answer<GateView> {
    gate.answer(unlock::answer_from(passphrase, confirmation)).await.map_err(|_| CommandError {
        code: Code::InvalidState,
        reason: Reason::NotAsking,
        message: keyapp::ui_words::text(lang.get(), "refusal-not_asking"),
    })
}

#[tauri::command(rename_all = "snake_case")]
pub fn open_main<R: Runtime>(app: AppHandle<R>) {
    windows::open_main(&app, None);
}

/// "Review" on Requests: the consent window, on that request (an id that is
/// not a pairing's or a request's opens it on the oldest pending one). The
/// main window stays as it is, so the person is never left in a consent view
/// with no way back.
#[tauri::command(rename_all = "snake_case")]
pub fn open_consent<R: Runtime>(app: AppHandle<R>, id: String) {
    windows::open_consent(&app, Some(&id));
}

/// Answers once the service's records change after `seen` (the counter the
/// window got from its previous call; none on the first), or after
/// [`CHANGE_WAIT`] with the counter unchanged. The window learns of a new,
/// withdrawn or expired request at once, without polling and without being
/// given Tauri's event access (capabilities/default.json grants the windows
/// the key app's own commands and nothing else).
#[tauri::command(rename_all = "snake_case")]
pub async fn wait_change(svc: Svc<'_>, seen: Option<u64>) -> Answer<u64> {
    Ok(svc.changes().wait_past(seen.unwrap_or(u64::MAX), CHANGE_WAIT).await)
}

/// The consent view's wait: like [`wait_change`], but the answer carries the
/// pending list and the oldest one's prompt as the service has them after the
/// change, so a view with nothing on screen shows a new request's text without
/// a further command. The prompt is the same verified view `prompt` gives;
/// both windows may already ask for it.
#[tauri::command(rename_all = "snake_case")]
pub async fn wait_pending(svc: Svc<'_>, seen: Option<u64>) -> Answer<PendingChange> {
    svc.requests().wait_pending(seen, CHANGE_WAIT).await.map_err(refused(&svc))
}

/// How long one `wait_change` waits: long enough that an idle window asks
/// rarely, short enough that a window closed mid-wait frees it soon.
pub const CHANGE_WAIT: std::time::Duration = std::time::Duration::from_secs(25);

/// Closing destroys the window (WebKit's memory goes with it); the app stays in the tray.
#[tauri::command(rename_all = "snake_case")]
pub fn close_window<R: Runtime>(window: WebviewWindow<R>) {
    let _ = window.destroy();
}

/// Registers every command above on a builder (the app's and the tests' mock one).
pub fn register<R: Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    builder.invoke_handler(tauri::generate_handler![
        pending,
        prompt,
        answer,
        relabel_rule,
        agents,
        unpair,
        credentials,
        revoke,
        search_history,
        search_credentials,
        filter_choices,
        export_path,
        export_records,
        contacts,
        add_contact,
        rename_contact,
        remove_contact,
        attestations,
        add_attestation,
        settings,
        host_changes,
        accept_host_domain,
        status_setup,
        choose_status,
        confirm_configured_status,
        ui_strings,
        set_language,
        unlock_state,
        unlock,
        open_main,
        close_window,
        wait_change,
        wait_pending,
        bookings,
        open_consent,
        asked_elsewhere,
        lift_cooldown,
        crate::recovery::recovery_kit,
        crate::recovery::confirm_recovery_words,
        crate::recovery::backup_now,
        crate::recovery::auto_backup,
        crate::recovery::set_auto_backup,
        crate::recovery::first_run_choice,
    ])
}
