// The commands the window may call, by name: read by build.rs (the app
// manifest the capabilities grant from) and by the tests, so the list in
// capabilities/default.json cannot drift from the handler.
pub const ALL: &[&str] = &[
    "pending",
    "prompt",
    "answer",
    "relabel_rule",
    "agents",
    "unpair",
    "credentials",
    "revoke",
    "search_history",
    "search_credentials",
    "filter_choices",
    "export_path",
    "export_records",
    "contacts",
    "add_contact",
    "rename_contact",
    "remove_contact",
    "attestations",
    "add_attestation",
    "settings",
    "host_changes",
    "accept_host_domain",
    "status_setup",
    "choose_status",
    "confirm_configured_status",
    "ui_strings",
    "set_language",
    "unlock_state",
    "unlock",
    "open_main",
    "close_window",
    "wait_change",
    "wait_pending",
    "bookings",
    "open_consent",
    "asked_elsewhere",
    "lift_cooldown",
    "recovery_kit",
    "confirm_recovery_words",
    "backup_now",
    "auto_backup",
    "set_auto_backup",
    "first_run_choice",
];

/// The commands granted to the main window alone (capabilities/main.json):
/// the recovery kit, the backup and the restore (`recovery`).
pub const MAIN_ONLY: &[&str] =
    &["recovery_kit", "confirm_recovery_words", "backup_now", "auto_backup", "set_auto_backup", "first_run_choice"];
