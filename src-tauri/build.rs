fn main() {
    // generate_context! embeds ../ui/dist at compile time. A build of the Rust
    // workspace alone (cargo test, clippy) must not need npm, so a missing
    // bundle is stood in for by a page that says how to build the real one;
    // scripts/test and scripts/desktop build the real one first.
    // Both pages: the main window's and the consent window's (ui/vite.config.ts).
    let dist = std::path::Path::new("../ui/dist");
    for page in ["index.html", "consent.html"] {
        if !dist.join(page).exists() {
            std::fs::create_dir_all(dist).expect("creating ui/dist");
            std::fs::write(
                dist.join(page),
                "<!doctype html><meta charset=utf-8><title>SchCP Key App</title>\
                 <p>The window was built without its interface: run <code>npm ci &amp;&amp; npm run build</code> in ui/.</p>",
            )
            .expect("writing a stand-in page in ui/dist");
        }
    }
    println!("cargo:rerun-if-changed=../ui/dist");
    // Every command the window may call; capabilities/ grants them by name.
    tauri_build::try_build(
        tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(desktop_commands::ALL)),
    )
    .expect("tauri build script");
}

// The library exports the list; here, in the build script, it is private.
#[allow(unreachable_pub, dead_code)]
mod desktop_commands {
    include!("src/command_names.rs");
}
