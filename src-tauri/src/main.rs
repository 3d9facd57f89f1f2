//! `schcp-keyapp-desktop [--config FILE]`: the key app with its tray and
//! windows. It starts the same service as `schcp-keyapp serve` in-process.
#![forbid(unsafe_code)]
// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use clap::Parser;
use keyapp::config::{Config, KeystoreBackend};

#[derive(Parser)]
#[command(version, about = "The SchCP key app: tray, consent window and the screens you manage it from")]
struct Args {
    /// The same TOML config as `schcp-keyapp serve --config`.
    #[arg(long)]
    config: Option<std::path::PathBuf>,
    /// Open the main window at start instead of waiting in the tray (a
    /// WebDriver session needs a window to attach to).
    #[arg(long)]
    open: bool,
}

fn main() -> anyhow::Result<()> {
    // The app holds the key: before anything else (a thread, a window, the
    // passphrase), its memory is closed to the person's other programs and
    // the passphrase it was started with leaves the environment.
    let passphrase = match keyapp::app::secure_process() {
        Ok(passphrase) => passphrase,
        Err(e) => {
            // Nothing of the key was read. Said in the person's language, in
            // the configuration's if it names one, before any window.
            let config = Args::parse().config.and_then(|path| Config::load(&path).ok()).unwrap_or_default();
            let words = keyapp::start_words::secure_error(keyapp::app::language(&config), &e);
            eprintln!("schcp-keyapp-desktop: {}", words.paragraph());
            std::process::exit(1);
        }
    };
    let args = Args::parse();
    let config = match &args.config {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    // One instance per data directory: a second start names the running one
    // and stops before touching the socket, the database or the key.
    let data_dir = keyapp::app::data_dir(&config)?;
    let runtime_dir = keyapp::control::runtime_dir(&config, &data_dir);
    let running =
        tauri::async_runtime::block_on(keyapp::control::call(&runtime_dir, &keyapp::control::Command::Principal));
    if let Ok(Ok(answer)) = running {
        eprintln!(
            "schcp-keyapp-desktop: the key app for {} is already running (principal {}, control socket {}); not starting another",
            data_dir.display(),
            answer["principal"].as_str().unwrap_or("?"),
            keyapp::control::socket_path(&runtime_dir).display()
        );
        std::process::exit(2);
    }
    // Where no OS keychain answers, the key goes in the file keystore (a key
    // file already there always wins; keyapp::keystore, `auto`). Its
    // passphrase is asked in a window, never on a terminal the person may not
    // see, unless the process was started with it (SCHCP_KEYAPP_PASSPHRASE_FD,
    // or SCHCP_KEYAPP_PASSPHRASE: the demo, tests).
    let mut config = config;
    if config.keystore.backend == KeystoreBackend::Os {
        config.keystore.backend = KeystoreBackend::Auto;
    }
    desktop::run(config, passphrase, args.open)
}
