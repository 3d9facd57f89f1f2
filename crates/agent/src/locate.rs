//! Finding the key app: the `agent-api.json` it writes into its runtime
//! directory when it starts (docs/agent-api.md §1).

use std::path::{Path, PathBuf};

/// Why the key app's address could not be found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LocateError {
    /// No `agent-api.json`: the key app is not running (or runs with another data directory).
    #[error("the key app is not running: there is no {0} (start it, or name its address)")]
    NotRunning(PathBuf),
    /// The file is there but unreadable or not what the key app writes.
    #[error("{path} is not a key app's agent-api.json: {detail}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// No runtime directory and no home to derive the default location from.
    #[error(
        "no XDG_RUNTIME_DIR, XDG_DATA_HOME or HOME to find agent-api.json from; name its path or the key app's URL"
    )]
    NoDefault,
}

/// Where the key app on its default data directory writes `agent-api.json`:
/// `$XDG_RUNTIME_DIR/schcp-keyapp/`, or `<data dir>/run` without a runtime
/// directory (as `schcp-keyapp serve` chooses, crates/keyapp control.rs).
pub fn default_agent_api_file() -> Result<PathBuf, LocateError> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(run) = var("XDG_RUNTIME_DIR") {
        return Ok(run.join("schcp-keyapp").join("agent-api.json"));
    }
    let data = match var("XDG_DATA_HOME") {
        Some(d) => d.join("schcp-keyapp"),
        None => var("HOME").ok_or(LocateError::NoDefault)?.join(".local/share/schcp-keyapp"),
    };
    Ok(data.join("run").join("agent-api.json"))
}

/// The agent API's origin from an `agent-api.json`. Only a loopback `http`
/// origin is taken: an agent must never send its signed requests elsewhere
/// because a file said so (§2 of docs/agent-api.md: loopback only).
pub fn agent_api_url(path: &Path) -> Result<String, LocateError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(LocateError::NotRunning(path.to_owned())),
        Err(e) => return Err(LocateError::Invalid { path: path.to_owned(), detail: e.to_string() }),
    };
    let invalid = |detail: String| LocateError::Invalid { path: path.to_owned(), detail };
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
    let url = v.get("url").and_then(|u| u.as_str()).ok_or_else(|| invalid("no \"url\"".into()))?;
    check_loopback_url(url).map_err(invalid)?;
    Ok(url.to_owned())
}

/// `http://127.0.0.1:<port>` or `http://localhost:<port>`, nothing else.
pub fn check_loopback_url(url: &str) -> Result<(), String> {
    let rest = url.strip_prefix("http://").ok_or_else(|| format!("{url:?} is not an http:// URL"))?;
    let rest = rest.trim_end_matches('/');
    let (host, port) = rest.rsplit_once(':').ok_or_else(|| format!("{url:?} has no port"))?;
    if host != "127.0.0.1" && host != "localhost" {
        return Err(format!("{url:?} is not on loopback (127.0.0.1 or localhost)"));
    }
    port.parse::<u16>().map_err(|_| format!("{url:?} has no valid port"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_url_the_key_app_writes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("agent-api.json");
        std::fs::write(&p, r#"{"url": "http://127.0.0.1:7411", "schcp": "0.4"}"#).unwrap();
        assert_eq!(agent_api_url(&p).unwrap(), "http://127.0.0.1:7411");
    }

    #[test]
    fn a_missing_file_means_not_running_and_a_foreign_url_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("agent-api.json");
        assert!(matches!(agent_api_url(&p), Err(LocateError::NotRunning(_))));
        for bad in [r#"{"url": "http://evil.example:7411"}"#, r#"{"url": "https://127.0.0.1:7411"}"#, "{}", "not json"]
        {
            std::fs::write(&p, bad).unwrap();
            assert!(matches!(agent_api_url(&p), Err(LocateError::Invalid { .. })), "{bad}");
        }
        assert!(check_loopback_url("http://localhost:1").is_ok());
        assert!(check_loopback_url("http://127.0.0.1").is_err());
        assert!(check_loopback_url("http://127.0.0.1:99999").is_err());
    }
}
