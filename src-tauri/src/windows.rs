//! The two windows and the tray. Idle, the app is a tray icon and no webview
//! (WebKit costs hundreds of MB): windows are created when needed and
//! destroyed when closed.

use crate::ui_strings::UiLanguage;
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Manager, Runtime, WebviewUrl, WebviewWindowBuilder};

pub const MAIN: &str = "main";
pub const CONSENT: &str = "consent";

/// The main window's page: every screen.
pub const MAIN_PAGE: &str = "index.html";
/// The consent window's page: the consent view alone (ui/vite.config.ts).
pub const CONSENT_PAGE: &str = "consent.html";

/// The tray's menu items whose text changes (pending count, language).
pub struct Tray<R: Runtime> {
    pub open: MenuItem<R>,
    pub pending: MenuItem<R>,
    pub quit: MenuItem<R>,
    pub icon: tauri::tray::TrayIcon<R>,
}

/// Whether the desktop has a tray host: on Linux a StatusNotifierWatcher on the
/// session bus (libayatana-appindicator's icon is invisible without one).
pub async fn tray_available() -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    let Ok(conn) = zbus::Connection::session().await else { return false };
    let Ok(dbus) = zbus::fdo::DBusProxy::new(&conn).await else { return false };
    let Ok(name) = zbus::names::BusName::try_from("org.kde.StatusNotifierWatcher") else { return false };
    dbus.name_has_owner(name).await.unwrap_or(false)
}

pub fn build_tray<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<()> {
    let lang = app.state::<UiLanguage>();
    let open = MenuItem::with_id(app, "open", lang.format("tray-open", &[]), true, None::<&str>)?;
    let pending =
        MenuItem::with_id(app, "pending", lang.format("tray-pending", &[("count", 0.into())]), true, None::<&str>)?;
    let quit = MenuItem::with_id(app, "quit", lang.format("tray-quit", &[]), true, None::<&str>)?;
    let sep = PredefinedMenuItem::separator(app)?;
    let menu = Menu::with_items(app, &[&open, &pending, &sep, &quit])?;
    let mut builder = TrayIconBuilder::with_id("keyapp").menu(&menu).tooltip(lang.format("app-title", &[]));
    if let Some(icon) = app.default_window_icon() {
        builder = builder.icon(icon.clone());
    }
    let icon = builder
        .on_menu_event(|app, event| match event.id().as_ref() {
            "open" => open_main(app, None),
            "pending" => open_consent(app, None),
            "quit" => app.exit(0),
            _ => {}
        })
        .build(app)?;
    app.manage(Tray { open, pending, quit, icon });
    Ok(())
}

/// The pending count in the tray menu and tooltip.
pub fn set_pending_count<R: Runtime>(app: &AppHandle<R>, count: usize) {
    if let Some(tray) = app.try_state::<Tray<R>>() {
        let lang = app.state::<UiLanguage>();
        let text = lang.format("tray-pending", &[("count", count.into())]);
        let _ = tray.pending.set_text(&text);
        let _ = tray.icon.set_tooltip(Some(format!("{} — {text}", lang.format("app-title", &[]))));
    }
}

/// The tray speaks the window's language.
pub fn language_changed<R: Runtime>(app: &AppHandle<R>) {
    if let Some(tray) = app.try_state::<Tray<R>>() {
        let lang = app.state::<UiLanguage>();
        let _ = tray.open.set_text(lang.format("tray-open", &[]));
        let _ = tray.quit.set_text(lang.format("tray-quit", &[]));
    }
}

/// `page` is the interface's page the window loads (ui/index.html, or
/// ui/consent.html: the consent view alone, a smaller page to load when a
/// request opens the window), `route` its hash.
fn open<R: Runtime>(app: &AppHandle<R>, label: &str, title_id: &str, page: &str, route: &str, size: (f64, f64)) {
    open_focused(app, label, title_id, page, route, size, true);
}

/// [`open`], taking the keyboard only when `focus` says so.
fn open_focused<R: Runtime>(
    app: &AppHandle<R>,
    label: &str,
    title_id: &str,
    page: &str,
    route: &str,
    size: (f64, f64),
    focus: bool,
) {
    if let Some(w) = app.get_webview_window(label) {
        let _ = w.unminimize();
        let _ = w.show();
        if focus {
            let _ = w.set_focus();
        }
        return;
    }
    let title = app.state::<UiLanguage>().format(title_id, &[]);
    let mut builder = WebviewWindowBuilder::new(app, label, WebviewUrl::App(format!("{page}#{route}").into()))
        .title(title)
        .inner_size(size.0, size.1)
        .min_inner_size(360.0, 400.0)
        .focused(focus);
    // Each web process made unreadable to the person's other programs as it
    // starts (crates/webext), when the extension is installed as root's.
    if let Some(dir) = crate::web_extensions::dir() {
        builder = builder.extensions_path(dir);
    }
    let built = builder.build();
    if let Err(e) = built {
        eprintln!("schcp-keyapp-desktop: cannot open the {label} window: {e}");
    }
}

/// The main window, on its Requests screen (`notice` adds a line, e.g. why there is no tray).
pub fn open_main<R: Runtime>(app: &AppHandle<R>, notice: Option<&str>) {
    let route = match notice {
        Some(n) => format!("/requests?notice={n}"),
        None => "/requests".to_owned(),
    };
    open(app, MAIN, "app-title", MAIN_PAGE, &route, MAIN_SIZE);
}

/// The main window's size on its screens (the passphrase and first-run
/// questions open it smaller, [`open_unlock`]).
pub const MAIN_SIZE: (f64, f64) = (960.0, 680.0);

/// The passphrase or first-run window becomes the main window: its screens get
/// the main window's room.
pub fn grow_to_main<R: Runtime>(window: &tauri::WebviewWindow<R>) {
    let _ = window.set_size(tauri::LogicalSize::new(MAIN_SIZE.0, MAIN_SIZE.1));
}

/// The consent window, on the pairing or request that raised it (else the
/// oldest pending one). An open window is told which one raised it through its
/// route; it shows it at once unless a pending one is on screen, beside which it
/// is announced (ui/src/Consent.tsx).
pub fn open_consent<R: Runtime>(app: &AppHandle<R>, raised_by: Option<&str>) {
    consent(app, raised_by, true);
}

/// The consent window shown on `about` without taking the keyboard: while a
/// terminal asks for the person's password, its keys stay the terminal's.
pub fn show_consent_beside<R: Runtime>(app: &AppHandle<R>, about: &str) {
    consent(app, Some(about), false);
}

fn consent<R: Runtime>(app: &AppHandle<R>, raised_by: Option<&str>, focus: bool) {
    let route = match raised_by.filter(|id| is_prompt_id(id)) {
        Some(id) => format!("/consent/{id}"),
        None => "/consent".to_owned(),
    };
    if raised_by.is_some() {
        if let Some(w) = app.get_webview_window(CONSENT) {
            let hash = serde_json::Value::String(format!("#{route}"));
            let _ = w.eval(format!("location.hash = {hash}"));
        }
    }
    open_focused(app, CONSENT, "consent-window-title", CONSENT_PAGE, &route, (620.0, 720.0), focus);
}

/// A pairing or request id as the service makes them (`pr_…`, `rq_…`, base64url):
/// nothing else is put into a route.
pub fn is_prompt_id(id: &str) -> bool {
    (id.starts_with("pr_") || id.starts_with("rq_"))
        && id.len() <= 64
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The passphrase window, before the service starts: the main window on its
/// unlock route, which becomes the Requests screen once the key opens (or is
/// closed, when the app then waits in the tray).
pub fn open_unlock<R: Runtime>(app: &AppHandle<R>) {
    open(app, MAIN, "app-title", MAIN_PAGE, "/unlock", (560.0, 520.0));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window's page that the interface does not build would open blank:
    /// each is an input of ui/vite.config.ts, and the consent page loads the
    /// consent view's own entry, not the main window's.
    #[test]
    fn each_windows_page_is_a_page_the_interface_builds() {
        let vite = include_str!("../../ui/vite.config.ts");
        let ui = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui");
        for page in [MAIN_PAGE, CONSENT_PAGE] {
            assert!(vite.contains(&format!("\"{page}\"")), "{page} is not a build input");
            assert!(ui.join(page).is_file(), "{page}");
        }
        let consent = include_str!("../../ui/consent.html");
        assert!(consent.contains("\"/src/consent-main.tsx\"") && !consent.contains("/src/main.tsx"));
    }
}
