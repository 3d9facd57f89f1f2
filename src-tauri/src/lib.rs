//! The SchCP key app on the desktop: a thin Tauri 2 shell over the service
//! (`keyapp`), which it runs in-process, so the `schcp-keyapp` terminal
//! commands work against it exactly as against `serve`. The shell holds no
//! protocol or wording logic: every screen's data comes from the service
//! through `commands`, and the consent text is the service's, verbatim.
#![forbid(unsafe_code)]

pub mod commands;
pub mod ui_strings;
pub mod watcher;
pub mod windows;

/// The commands the window may call (also the app manifest, see build.rs).
pub mod command_names {
    include!("command_names.rs");
}

use keyapp::service::Service;
use tauri::{Manager, RunEvent};
use ui_strings::UiLanguage;

/// Builds and runs the desktop app over a started service until Quit.
pub fn run(service: Service, open_main: bool) -> anyhow::Result<()> {
    let language = UiLanguage::new(service.language());
    let tray = tauri::async_runtime::block_on(windows::tray_available());
    let app = commands::register(tauri::Builder::default())
        .plugin(tauri_plugin_notification::init())
        .manage(service.clone())
        .manage(language)
        .setup(move |app| {
            let handle = app.handle().clone();
            if tray {
                if let Err(e) = windows::build_tray(&handle) {
                    eprintln!("schcp-keyapp-desktop: no tray icon ({e}); the main window stays open");
                    windows::open_main(&handle, Some("no-tray"));
                }
            } else {
                windows::open_main(&handle, Some("no-tray"));
            }
            if open_main {
                windows::open_main(&handle, None);
            }
            tauri::async_runtime::spawn(watcher::watch(handle, service.clone()));
            Ok(())
        })
        .build(tauri::generate_context!())?;
    app.run(|app, event| {
        // Idle in the tray: the last window closing is not the end of the app
        // (Quit exits with a code). Without a tray it is.
        if let RunEvent::ExitRequested { api, code: None, .. } = event {
            if app.try_state::<windows::Tray<tauri::Wry>>().is_some() {
                api.prevent_exit();
            }
        }
    });
    Ok(())
}
