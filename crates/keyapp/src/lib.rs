//! The SchCP key app service: everything beneath the window.
//!
//! It holds the principal's key (`keystore`), keeps records (`store`), verifies
//! what agents hand in and fetches discovery documents itself (`discovery`),
//! turns requests into consent prompts and signed credentials (`service`), and
//! serves the loopback agent API (`agent_api`), the public status API
//! (`status_api`) and the owner-only control socket (`control`). Every yes
//! the person gives is confirmed by the OS first (`user_verification`). It knows
//! nothing of Tauri: the desktop shell and the terminal are both surfaces over it.
#![forbid(unsafe_code)]

pub mod agent_api;
pub mod app;
pub mod config;
pub mod control;
pub mod discovery;
pub mod export;
pub mod hardening;
pub mod history_words;
pub mod host_binding;
/// Who a status API request is from behind a reverse proxy: the shared edge's.
pub use status_edge::forwarded;
pub mod hosted;
pub mod http_error;
pub mod keystore;
pub mod kind;
pub mod outbound;
pub mod private_files;
pub mod record_query;
pub mod record_seal;
pub mod recovery;
pub mod search_fold;
pub mod service;
pub mod start_words;
pub mod status_address;
pub mod status_api;
pub mod status_reach;
pub mod store;
pub mod ui_words;
pub mod user_verification;
pub mod views;
