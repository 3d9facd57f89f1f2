//! The window's TypeScript types, generated from the Rust types the commands
//! return (ts-rs, honouring their serde attributes), so `ui/src/api.ts` can
//! never drift from what the service sends. The file is committed as
//! `ui/src/bindings.ts`; the `bindings` test fails when it is stale, and
//! `SCHCP_WRITE_BINDINGS=1 cargo test -p schcp-desktop --test bindings`
//! writes it again.

use std::any::TypeId;
use std::collections::{BTreeMap, HashSet};
use ts_rs::{Config, TypeVisitor, TS};

/// Where the generated file lives, from the workspace root.
pub const PATH: &str = "ui/src/bindings.ts";

const HEADER: &str = "// Generated from the Rust views (src-tauri/src/bindings.rs, ts-rs): do not edit.\n\
// Regenerate: SCHCP_WRITE_BINDINGS=1 cargo test -p schcp-desktop --test bindings\n";

/// Every type a command returns, with every type they use, one declaration
/// each, by name.
pub fn typescript() -> String {
    use keyapp::views::{
        AgentView, AttestationView, Contact, CredentialView, HistoryEntry, HostChangeView, PendingItem, Prompt,
        Settings,
    };
    // Numbers on the wire are JSON numbers (serde_json), never bigints.
    let mut all =
        Declarations { cfg: Config::new().with_large_int("number"), seen: HashSet::new(), by_name: BTreeMap::new() };
    all.visit::<PendingItem>();
    all.visit::<Prompt>();
    all.visit::<keyapp::views::PendingChange>();
    all.visit::<AgentView>();
    all.visit::<keyapp::views::UnpairedView>();
    all.visit::<CredentialView>();
    all.visit::<keyapp::views::BookingView>();
    all.visit::<HistoryEntry>();
    all.visit::<keyapp::record_query::HistoryQuery>();
    all.visit::<keyapp::record_query::HistoryPage>();
    all.visit::<keyapp::record_query::CredentialQuery>();
    all.visit::<keyapp::record_query::CredentialPage>();
    all.visit::<keyapp::record_query::FilterChoices>();
    all.visit::<keyapp::export::ExportFormat>();
    all.visit::<Contact>();
    all.visit::<AttestationView>();
    all.visit::<Settings>();
    all.visit::<HostChangeView>();
    all.visit::<keyapp::views::StatusSetupView>();
    all.visit::<keyapp::status_address::SetupChoice>();
    all.visit::<crate::unlock::GateView>();
    all.visit::<crate::ui_strings::UiStrings>();
    all.visit::<crate::commands::CommandError>();
    all.visit::<crate::commands::ElsewhereView>();
    all.visit::<crate::recovery::KitView>();
    all.visit::<crate::recovery::AutoBackupView>();
    all.visit::<crate::recovery::FirstChoice>();
    let mut out = HEADER.to_owned();
    for decl in all.by_name.values() {
        out.push('\n');
        out.push_str(decl);
        out.push('\n');
    }
    out
}

/// Collects a type's declaration and, through it, its dependencies'.
struct Declarations {
    cfg: Config,
    seen: HashSet<TypeId>,
    by_name: BTreeMap<String, String>,
}

impl TypeVisitor for Declarations {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        // Only declared types have a file of their own; `Option<T>`, `Vec<T>`
        // and primitives are written inline, their `T` visited as a generic.
        if T::output_path().is_none() || !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        let docs = T::docs().unwrap_or_default();
        self.by_name.insert(T::ident(&self.cfg), format!("{docs}export {}", T::decl(&self.cfg)));
        T::visit_dependencies(self);
        T::visit_generics(self);
    }
}
