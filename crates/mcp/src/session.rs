//! What the server remembers between tool calls: the hosts found, the
//! credentials the person issued to this assistant (the compact mandates, which
//! the key app's list does not return), and the holds and bookings made, so
//! the model names a booking by its id and never handles a mandate or receipt.
//!
//! Kept in the agent profile's directory (`session.json`, owner-only), so an
//! MCP client that restarts the server loses nothing. A mandate there is of no
//! use without the agent's key: each names that key in `cnf` (§3.3 check 4).

use schcp::claims::{BookingResponse, Hold, MandateClaims, Proposal};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One credential the person issued to this assistant.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Held {
    /// The compact JWS.
    pub compact: String,
    /// Its claims, read from it (the key app signed it for this agent).
    pub claims: MandateClaims,
}

impl Held {
    /// Reads a compact mandate the key app issued; `None` for anything else
    /// (an SD-JWT presentation is not kept: this server sends compact ones).
    pub(crate) fn read(compact: &str) -> Option<Held> {
        let claims = schcp::jws::parse(compact).ok()?.claims::<MandateClaims>().ok()?;
        Some(Held { compact: compact.to_owned(), claims })
    }
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

    /// Keeps a credential the key app issued.
    pub(crate) fn remember(&mut self, compact: &str) -> Option<&Held> {
        let held = Held::read(compact)?;
        let jti = held.claims.jti.clone();
        self.credentials.insert(jti.clone(), held);
        self.credentials.get(&jti)
    }
}
