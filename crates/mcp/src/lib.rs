#![forbid(unsafe_code)]
//! An MCP server that makes any MCP client (Claude Desktop, Claude Code, VS
//! Code, Cursor) a paired, well-behaved SchCP agent of the person's key app.
//! It speaks to the key app only over its signed loopback API
//! (docs/agent-api.md) through the `agent` crate, so it can do nothing an
//! agent cannot: every credential still needs the person's yes in the key
//! app. There is no tool that signs bytes or a hash, and none that approves.

mod booking;
mod refusal;
mod server;
mod session;
mod words;

pub use refusal::{HostStep, Refusal};
pub use server::{KeyAppServer, KeyAppSource, ServerConfig, MAX_WAIT_SECONDS, PROGRESS_EVERY_SECONDS};
