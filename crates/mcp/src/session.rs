//! What the server remembers between tool calls: the hosts found, the
//! credentials the person issued to this assistant (the compact mandates, which
//! the key app's list does not return), and the holds and bookings made, so
//! the model names a booking by its id and never handles a mandate or receipt.
//!
//! Kept in the agent profile's directory (`session.json`, owner-only), so an
//! MCP client that restarts the server loses nothing. A mandate there is of no
//! use without the agent's key: each names that key in `cnf` (§3.3 check 4,
//! §3.4 `cnf.jwk`).

use ed25519_dalek::SigningKey;
use schcp::claims::{BookingResponse, Hold, MandateClaims, Proposal};
use schcp::jwk::Jwk;
use schcp::verify::{verify_mandate_chain, verify_sd_jwt_mandate, ChainContext, VerifiedChain};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One credential the person issued to this assistant.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Held {
    /// The compact JWS; for an SD-JWT VC mandate (§3.4), its issuer JWT.
    pub compact: String,
    /// Its claims, read from it (the key app signed it for this agent); for
    /// an SD-JWT VC mandate, the mandate its first host evaluates (§3.4).
    pub claims: MandateClaims,
    /// An SD-JWT VC mandate's presentation for each host (the issuer JWT and
    /// that host's disclosures, without a Key Binding JWT), as the key app
    /// handed them out: each host is shown only its own part.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub presentations: BTreeMap<String, String>,
}

impl Held {
    /// Reads a compact mandate the key app issued; `None` for anything else.
    pub(crate) fn read(compact: &str) -> Option<Held> {
        let claims = schcp::jws::parse(compact).ok()?.claims::<MandateClaims>().ok()?;
        Some(Held { compact: compact.to_owned(), claims, presentations: BTreeMap::new() })
    }

    /// Reads an approved request's result: a compact mandate, or an SD-JWT VC
    /// mandate with its per-host presentations, evaluated as its first host
    /// will (`agent` binds the check's presentation, as every call does).
    pub(crate) fn from_result(result: &serde_json::Value, agent: &SigningKey) -> Option<Held> {
        let compact = result.get("mandate")?.as_str()?;
        let Some(presentations) = result.get("presentations").and_then(|p| p.as_object()) else {
            return Held::read(compact);
        };
        let presentations: BTreeMap<String, String> =
            presentations.iter().filter_map(|(h, p)| Some((h.clone(), p.as_str()?.to_owned()))).collect();
        let (host, first) = presentations.iter().next()?;
        let chain = verify_for(first, host, agent)?;
        Some(Held { compact: compact.to_owned(), claims: chain.root.claims, presentations })
    }

    /// What goes in `SchCP-Mandate` at `host_id` (before the client binds an
    /// SD-JWT presentation), if this credential can be shown there.
    pub(crate) fn for_host(&self, host_id: &str) -> Option<&str> {
        if self.presentations.is_empty() {
            Some(&self.compact)
        } else {
            self.presentations.get(host_id).map(String::as_str)
        }
    }

    /// The chain `host_id` verifies from this credential (§3.3 checks 1–4,
    /// or §3.4's for an SD-JWT presentation), if it does.
    pub(crate) fn verified_at(&self, host_id: &str, agent: &SigningKey) -> Option<VerifiedChain> {
        let shown = self.for_host(host_id)?;
        if self.presentations.is_empty() {
            let jkt = Jwk::ed25519(&agent.verifying_key()).thumbprint().ok()?;
            let ctx = ChainContext { host_id, request_jkt: &jkt, now: now(), allow_wildcard: false };
            verify_mandate_chain(shown, &ctx).ok()
        } else {
            verify_for(shown, host_id, agent)
        }
    }
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// An SD-JWT presentation bound for `host_id` as a call binds it, then
/// verified as that host verifies it (§3.4).
fn verify_for(prefix: &str, host_id: &str, agent: &SigningKey) -> Option<VerifiedChain> {
    let jkt = Jwk::ed25519(&agent.verifying_key()).thumbprint().ok()?;
    let kb = schcp::sdjwt::key_binding_jwt(prefix, host_id, "session-check", now(), agent).ok()?;
    let ctx = ChainContext { host_id, request_jkt: &jkt, now: now(), allow_wildcard: false };
    verify_sd_jwt_mandate(&format!("{prefix}{kb}"), &ctx).ok()
}

/// A hold this assistant placed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct HoldMemo {
    pub discovery: String,
    pub host_name: String,
    pub hold: Hold,
    /// The jti of the mandate the hold was placed with.
    pub mandate: String,
}

/// A booking this assistant made.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct BookingMemo {
    pub discovery: String,
    pub host_name: String,
    /// The host's latest answer about it.
    pub response: BookingResponse,
    /// The jti of the credential that booked or last moved it.
    pub mandate: String,
    /// The open change this assistant asked for, while the person decides.
    #[serde(default)]
    pub change: Option<Proposal>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Session {
    /// Host id → its discovery URL.
    #[serde(default)]
    pub hosts: BTreeMap<String, String>,
    /// jti → credential.
    #[serde(default)]
    pub credentials: BTreeMap<String, Held>,
    #[serde(default)]
    pub holds: BTreeMap<String, HoldMemo>,
    #[serde(default)]
    pub bookings: BTreeMap<String, BookingMemo>,
}

/// The session's file in the profile directory.
pub(crate) fn file(profile_dir: &Path) -> PathBuf {
    profile_dir.join("session.json")
}

impl Session {
    /// The saved session, or an empty one (a missing or unreadable file is a
    /// fresh start: everything in it can be had again from the person).
    pub(crate) fn load(path: &Path) -> Session {
        std::fs::read(path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
    }

    /// Saves it, owner-only, replacing the file atomically.
    pub(crate) fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension("json.tmp");
        let bytes = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        std::io::Write::write_all(&mut options.open(&tmp)?, &bytes)?;
        std::fs::rename(tmp, path)
    }

    /// Keeps a credential the key app issued (an approved request's result).
    pub(crate) fn remember(&mut self, result: &serde_json::Value, agent: &SigningKey) -> Option<&Held> {
        let held = Held::from_result(result, agent)?;
        let jti = held.claims.jti.clone();
        self.credentials.insert(jti.clone(), held);
        self.credentials.get(&jti)
    }
}
