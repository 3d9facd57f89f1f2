//! The window's TypeScript types are the Rust views' (src-tauri/src/bindings.rs):
//! the committed `ui/src/bindings.ts` must be what the Rust types generate now.

use std::path::Path;

#[test]
fn the_committed_typescript_types_are_the_rust_types() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(desktop::bindings::PATH);
    let generated = desktop::bindings::typescript();
    if std::env::var_os("SCHCP_WRITE_BINDINGS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let first = committed.lines().zip(generated.lines()).position(|(a, b)| a != b);
        panic!(
            "{} is stale: the Rust views changed (first difference at line {}). Regenerate it with\n  \
             SCHCP_WRITE_BINDINGS=1 cargo test -p schcp-desktop --test bindings\nand commit it.",
            desktop::bindings::PATH,
            first.map_or_else(|| "the end".to_owned(), |i| (i + 1).to_string()),
        );
    }
}

#[test]
fn the_generated_types_say_what_the_window_reads() {
    let ts = desktop::bindings::typescript();
    for expected in [
        "export type CredentialView = ",
        "expires: string",
        "revocable: boolean",
        "meeting?: MeetingView",
        "export type HistoryEntry = ",
        "when: string",
        "export type CredentialStatus = \"active\" | \"revoked\" | \"expired\";",
        "export type PromptStatus = ",
        "export type GateView = ",
    ] {
        assert!(ts.contains(expected), "{expected:?} missing from the generated types:\n{ts}");
    }
    // A field the service never sends (`agent_jkt` is skipped) is not declared.
    assert!(!ts.contains("agent_jkt"), "{ts}");
    // Every number is a JSON number.
    assert!(!ts.contains("bigint"), "{ts}");
    // A doc comment that says `*/` would end its JSDoc comment early.
    assert_eq!(ts.matches("/**").count(), ts.matches("*/").count(), "a doc comment closes early:\n{ts}");
}
