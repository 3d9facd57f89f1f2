//! The part of a SchCP status service that faces hosts (docs/agent-api.md §10;
//! §3.3 "One consent, several hosts"), whatever stores the statuses: the
//! bounded accept loop, the per-client rate limit behind trusted proxies, the
//! §9 refusals, the claim body, the words both stores answer in, and the
//! status routes themselves, over a [`StatusStore`].
//!
//! The key app's embedded status API (`schcp-keyapp`, on SQLite) and the hosted
//! status service (`schcp-status`, on PostgreSQL, docs/hosted-status.md) both answer hosts
//! through it, so their wire output is one code's; and the hosted service, which
//! many principals share, links none of the person's key app (keystore, records,
//! agent API).
#![forbid(unsafe_code)]

pub mod accept;
pub mod claims;
pub mod edge;
pub mod forwarded;
pub mod http_error;
pub mod public_base;
pub mod routes;
pub mod signed;

pub use accept::{serve_connections, Admitted, ConnectionLimits};
pub use claims::{check_signer, ClaimId, ClaimOutcome, ClaimRefusal, CredentialStatus, HostKeys, StatusView};
pub use edge::{now, read_bounded, read_claim, read_claim_with_body, serve_router, Edge, RateLimit, StatusOptions};
pub use forwarded::TrustedProxy;
pub use http_error::ApiError;
pub use public_base::{BaseInForce, LiveBase, NotABase, PublicBase};
pub use routes::{status_routes, Route, StatusStore, Unit};
pub use signed::{claimant, ClaimRequest, Claimant};
