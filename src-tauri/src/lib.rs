//! The SchCP key app on the desktop: a thin Tauri 2 shell over the service
//! (`keyapp`), which it runs in-process, so the `schcp-keyapp` terminal
//! commands work against it exactly as against `serve`. The shell holds no
//! protocol or wording logic: every screen's data comes from the service
//! through `commands`, and the consent text is the service's, verbatim.
#![forbid(unsafe_code)]

pub mod bindings;
pub mod commands;
pub mod recovery;
pub mod ui_strings;
pub mod unlock;
pub mod watcher;
pub mod web_extensions;
pub mod windows;

/// The commands the window may call (also the app manifest, see build.rs).
pub mod command_names {
    include!("command_names.rs");
}

use keyapp::app::Running;
use keyapp::config::Config;
use keyapp::keystore::PassphraseSource;
use std::sync::{Arc, Mutex};
use tauri::{AppHandle, Manager, RunEvent, Runtime};
use ui_strings::UiLanguage;
use unlock::{Gate, GateView};

/// The running service's listeners and lock, held for the app's life.
struct Held {
    _running: Mutex<Running>,
}

/// Builds and runs the desktop app until Quit. The service starts once the
/// key opens: from the OS keychain, or from the file keystore with its
/// passphrase asked in a window (`passphrase` `None`) or given by the caller.
pub fn run(config: Config, passphrase: Option<PassphraseSource>, open_main: bool) -> anyhow::Result<()> {
    let language = UiLanguage::new(keyapp::app::language(&config));
    let tray = tauri::async_runtime::block_on(windows::tray_available());
    let gate = Arc::new(Gate::default());
    let app = commands::register(tauri::Builder::default())
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_dialog::init())
        .manage(language)
        .manage(gate.clone())
        .setup(move |app| {
            let handle = app.handle().clone();
            tauri::async_runtime::spawn(start(handle, gate, config, passphrase, tray, open_main));
            Ok(())
        })
        .build(tauri::generate_context!())?;
    app.run(|app, event| {
        // Idle in the tray: the last window closing is not the end of the app
        // (Quit exits with a code). Without a tray (or before the key is
        // unlocked, when there is none yet) it is.
        if let RunEvent::ExitRequested { api, code: None, .. } = &event {
            if app.try_state::<windows::Tray<tauri::Wry>>().is_some() {
                api.prevent_exit();
            }
        }
        // Quitting is a clean stop: agent-api.json and the control socket go,
        // so no agent is sent to a port the key app no longer holds.
        if let RunEvent::Exit = event {
            if let Some(held) = app.try_state::<Held>() {
                held._running.lock().unwrap_or_else(|e| e.into_inner()).withdraw();
            }
        }
    });
    Ok(())
}

async fn start<R: Runtime>(
    app: AppHandle<R>,
    gate: Arc<Gate>,
    config: Config,
    passphrase: Option<PassphraseSource>,
    tray: bool,
    open_main: bool,
) {
    // The first run, before any key is made: a new key, or the person's own
    // from the recovery kit. A start given its passphrase (the demo, tests)
    // is not a person at a window, and makes its key as before.
    let restored = match passphrase.is_none() {
        true => first_run(&app, &gate, &config).await,
        false => false,
    };
    let source = passphrase.unwrap_or_else(|| PassphraseSource::Ask(unlock::asker(app.clone(), gate.clone())));
    let language = keyapp::app::language(&config);
    let running = match keyapp::app::start(config, source).await {
        Ok(running) => running,
        Err(e) => {
            eprintln!("schcp-keyapp-desktop: the key app service did not start: {e}");
            // A window the person typed into says why, and closing it ends the
            // app; with no window, the exit code and stderr do.
            if app.get_webview_window(windows::MAIN).is_some() {
                let message = keyapp::start_words::start_error(language, &e).paragraph();
                gate.set(GateView::Failed { message });
            } else {
                app.exit(1);
            }
            return;
        }
    };
    let service = running.service.clone();
    eprintln!(
        "schcp-keyapp-desktop: principal {}\n  agent API  http://{}\n  status API http://{}",
        service.profile().principal(),
        running.agent_addr,
        running.status_addr
    );
    app.manage(service.clone());
    app.manage(running.custody.clone());
    app.manage(Held { _running: Mutex::new(running) });
    let handle = app.clone();
    let _ = app.run_on_main_thread(move || {
        let mut notice = None;
        if tray {
            if let Err(e) = windows::build_tray(&handle) {
                eprintln!("schcp-keyapp-desktop: no tray icon ({e}); the main window stays open");
                notice = Some("no-tray");
            }
        } else {
            notice = Some("no-tray");
        }
        // After a restore, Agents says the old computer's assistants are paused.
        let route = |n: Option<&str>| match (restored, n) {
            (true, _) => "/agents?notice=restored".to_owned(),
            (false, Some(n)) => format!("/requests?notice={n}"),
            (false, None) => "/requests".to_owned(),
        };
        match handle.get_webview_window(windows::MAIN) {
            // The passphrase window: it goes on to Requests, or closes to the tray.
            Some(window) => {
                if open_main || notice.is_some() || restored {
                    windows::grow_to_main(&window);
                    gate.set(GateView::Unlocked { route: Some(route(notice)) });
                } else {
                    gate.set(GateView::Unlocked { route: None });
                    let _ = window.destroy();
                }
            }
            None => {
                gate.set(GateView::Unlocked { route: None });
                if notice.is_some() || open_main {
                    windows::open_main(&handle, notice);
                }
            }
        }
        tauri::async_runtime::spawn(watcher::watch(handle, service));
    });
}

/// The first run (no records in the data directory yet): asks in the window
/// whether to make a new key or restore the person's own, and restores until
/// a restore succeeds or the person chooses a new key. A refusal writes
/// nothing (keyapp::recovery::restore) and is said in the person's words.
/// Returns whether the key and records came back from a kit.
pub async fn first_run<R: Runtime>(app: &AppHandle<R>, gate: &Arc<Gate>, config: &Config) -> bool {
    let Ok(data_dir) = keyapp::app::data_dir(config) else {
        return false;
    };
    if data_dir.join(keyapp::keystore::RECORDS_FILE_NAME).exists() {
        return false;
    }
    let handle = app.clone();
    let _ = app.run_on_main_thread(move || windows::open_unlock(&handle));
    let language = keyapp::app::language(config);
    let mut problem = None;
    loop {
        let Some(choice) = gate.welcome(problem.take()).await else {
            return false;
        };
        let recovery::FirstChoice::Restore { words, backup, key_seed } = choice else {
            gate.set(GateView::Starting);
            return false;
        };
        let request = keyapp::recovery::restore::Restore {
            data_dir: data_dir.clone(),
            backend: config.keystore.backend,
            passphrase: PassphraseSource::Ask(unlock::asker(app.clone(), gate.clone())),
            words: keyapp::keystore::SecretString::from(words),
            backup: backup.filter(|b| !b.trim().is_empty()).map(|b| std::path::PathBuf::from(b.trim())),
            key_seed,
        };
        match keyapp::recovery::restore::restore(request, chrono::Utc::now().timestamp()).await {
            Ok(restored) => {
                eprintln!("schcp-keyapp-desktop: restored principal {} from the recovery kit", restored.principal);
                gate.set(GateView::Starting);
                return true;
            }
            Err(e) => {
                eprintln!("schcp-keyapp-desktop: nothing was restored: {e}");
                problem = Some(keyapp::ui_words::text(language, e.message_id()));
            }
        }
    }
}
