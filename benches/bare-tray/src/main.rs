//! A bare Tauri 2 app with a tray icon, the benchmarks' baseline: idle it is a
//! tray icon and no window, like the key app. `--open` opens one window at
//! start (WebDriver attaches to it); the window's `close` destroys it, as the
//! key app's windows are, and the app stays in the tray.
#![forbid(unsafe_code)]

use tauri::menu::{Menu, MenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{Manager, RunEvent, WebviewUrl, WebviewWindowBuilder};

#[tauri::command]
fn close_window(window: tauri::WebviewWindow) {
    let _ = window.destroy();
}

#[tauri::command]
fn open_window(app: tauri::AppHandle) {
    open(&app);
}

fn open(app: &tauri::AppHandle) {
    if app.get_webview_window("main").is_none() {
        let _ = WebviewWindowBuilder::new(app, "main", WebviewUrl::App("index.html".into()))
            .title("Bare Tray")
            .inner_size(620.0, 720.0)
            .build();
    }
}

fn main() {
    let open_at_start = std::env::args().any(|a| a == "--open");
    let app = tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![close_window, open_window])
        .setup(move |app| {
            // A menu of one item: libayatana-appindicator registers no icon
            // without a menu (the key app's has four).
            let quit = MenuItem::with_id(app, "quit", "Quit", true, None::<&str>)?;
            let menu = Menu::with_items(app, &[&quit])?;
            let mut tray = TrayIconBuilder::with_id("bare")
                .menu(&menu)
                .tooltip("Bare Tray")
                .on_menu_event(|app, event| {
                    if event.id().as_ref() == "quit" {
                        app.exit(0);
                    }
                });
            if let Some(icon) = app.default_window_icon() {
                tray = tray.icon(icon.clone());
            }
            tray.build(app)?;
            if open_at_start {
                open(app.handle());
            }
            Ok(())
        })
        .build(tauri::generate_context!())
        .expect("the bare tray app builds");
    app.run(|_, event| {
        if let RunEvent::ExitRequested { api, code: None, .. } = event {
            api.prevent_exit();
        }
    });
}
