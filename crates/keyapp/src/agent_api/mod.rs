//! The loopback agent API (docs/agent-api.md).
//!
//! `guard` is the layer every route sits behind: loopback peer, raw `Host` and
//! `Origin` checks, body limits, and the §3.2 request signature; then the
//! pairing gate. Route handlers take the verified agent as `AgentIdentity`.

pub mod announce;
pub mod guard;
pub mod nonce;
pub mod peer;
pub mod routes;
