#![forbid(unsafe_code)]
//! The agent side of the key app's loopback API (docs/agent-api.md), over HTTP
//! only: every request signed as §3.2 requires, pairing, every request kind of
//! §6 typed, the long poll, the mandate list and withdrawal, with the key
//! app's §9 refusals as typed errors. The example agent, the MCP server
//! (crates/mcp) and the key app's end-to-end tests use it. It never links the
//! key app itself.

mod answers;
mod client;
mod error;
pub mod host;
mod locate;
mod profile;
mod requests;

pub use answers::{MandateListing, MandateStatus, Pairing, PairingStatus, Principal, ProvenKeyApp};
pub use client::{AgentClient, MAX_WAIT};
pub use error::{AgentError, ApiError, ErrorCode};
pub use locate::{agent_api_url, check_loopback_url, default_agent_api_file, LocateError};
pub use profile::{
    AgentProfile, KeyBackend, KeyLocation, ProfileError, KEYCHAIN_SERVICE, KEY_FILE, PRINCIPAL_PIN_FILE,
};
pub use requests::{
    AcceptanceRequest, AcceptanceResult, Action, Answers, Attendee, BookingAcceptanceRequest, BookingAcceptanceResult,
    BookingReadRequest, BookingReadResult, ClosedMandateRequest, ClosedMandateResult, ConsentMode, Constraints,
    Credential, HostRef, InvitationRequest, InvitationResult, ManagementMandateRequest, ManagementMandateResult,
    MandateFormat, MandateRequest, MandateResult, Meeting, MeetingContractRequest, MeetingContractResult, Member,
    Money, NewRequest, Place, Request, RequestKind, RequestStatus, RuleRequest, RuleResult, Weekday, Window,
};

/// The error `send` and `call` returned before the typed client; the same type.
pub type AgentClientError = AgentError;
