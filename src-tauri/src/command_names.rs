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
    "history",
    "contacts",
    "add_contact",
    "rename_contact",
    "remove_contact",
    "attestations",
    "add_attestation",
    "settings",
    "host_changes",
    "accept_host_domain",
    "ui_strings",
    "set_language",
    "unlock_state",
    "unlock",
    "open_main",
    "close_window",
];
