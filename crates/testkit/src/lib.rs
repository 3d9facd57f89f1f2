//! What the test suites and benches of the workspace share, so each suite holds
//! only its tests: the key app started for real on loopback beside an HTTPS test
//! host (`env`, `file_keyed`), the service built directly with a clock a test
//! moves (`service`), hosts' offers and bookings (`calendar`,
//! `invitation`), other local users and strangers on the key app's ports
//! (`local_user`, `stranger`), and the status API as hosts call it (`status`,
//! `status_process`, `load`), a user verifier a test scripts (`verifier`), and
//! a program run with a line typed on its standard input (`terminal`).
//!
//! The layout rule holds here too: whatever acts as an agent or a host reaches
//! the key app over HTTP only ([`agent::AgentClient`], the test host); the key
//! app itself is started in-process, as a test of the service starts it, and
//! the person answers over the real control socket.
//!
//! A dev-dependency only (`publish = false`).
#![forbid(unsafe_code)]

pub mod calendar;
pub mod env;
pub mod file_keyed;
pub mod invitation;
pub mod load;
pub mod local_user;
pub mod service;
pub mod status;
pub mod status_process;
pub mod stranger;
pub mod terminal;
pub mod verifier;

/// Seconds since the epoch, now.
pub fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The principal id of `key`: its JWK thumbprint as a URN (§3.3, self-certifying).
pub fn principal_of(key: &ed25519_dalek::SigningKey) -> String {
    schcp::jwk::Jwk::ed25519(&key.verifying_key()).principal_id().unwrap()
}
