fn main() {
    // The window's two commands, granted by capabilities/default.json.
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(&["close_window", "open_window"])),
    )
    .expect("tauri build script");
}
