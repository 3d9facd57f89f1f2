//! `agent-api.json`, the file in the runtime directory through which local
//! agents find the agent API (docs/agent-api.md §1). It must never name a port
//! this key app does not hold: it is removed on a clean stop, and one left by a
//! key app that did not stop cleanly is replaced only after checking what
//! answers at the URL it names. Agents that pinned the principal key refuse an
//! impostor there anyway (`schcp::keyapp_proof`); this keeps the file from
//! sending them to one.

use ed25519_dalek::SigningKey;
use schcp::jwk::Jwk;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The file's name in the runtime directory.
pub const FILE_NAME: &str = "agent-api.json";

/// How long the check of a stale file's URL waits for an answer.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// What an `agent-api.json` found at start names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Previous {
    /// No file.
    Absent,
    /// A file naming nothing usable (unreadable, not loopback, not JSON).
    Unusable,
    /// A URL where nothing answers now: a key app that stopped without cleaning up.
    Dead(String),
    /// A URL where this key app answers (the same principal key proves itself).
    Ours(String),
    /// A URL where some other program answers.
    Stranger(String),
}

/// The URL the file at `path` names, if it names a loopback `http` origin.
pub fn named_url(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let url = value.get("url")?.as_str()?;
    let rest = url.strip_prefix("http://")?;
    let addr: SocketAddr = rest.trim_end_matches('/').replace("localhost", "127.0.0.1").parse().ok()?;
    addr.ip().is_loopback().then(|| url.to_owned())
}

/// What the `agent-api.json` at `path` names, checked against the principal
/// key `principal`: whether anything answers at its URL and, if so, whether it
/// proves it holds that key.
pub async fn check(path: &Path, principal: &Jwk) -> Previous {
    if !path.exists() {
        return Previous::Absent;
    }
    let Some(url) = named_url(path) else { return Previous::Unusable };
    let addr = url.trim_start_matches("http://").trim_end_matches('/').replace("localhost", "127.0.0.1");
    let connected = tokio::time::timeout(PROBE_TIMEOUT, tokio::net::TcpStream::connect(&addr)).await;
    if !matches!(connected, Ok(Ok(_))) {
        return Previous::Dead(url);
    }
    if proves_principal(&url, principal).await {
        Previous::Ours(url)
    } else {
        Previous::Stranger(url)
    }
}

/// Asks `url` for the key app's proof as a throwaway agent key would, and
/// checks it against `principal`.
async fn proves_principal(url: &str, principal: &Jwk) -> bool {
    let Ok(pinned) = principal.thumbprint() else { return false };
    let key = SigningKey::generate(&mut rand_core::OsRng);
    let jkt = Jwk::ed25519(&key.verifying_key()).thumbprint().expect("an Ed25519 JWK has a thumbprint");
    let mut nonce = [0u8; 32];
    rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut nonce);
    let nonce = schcp::b64::encode(nonce);
    let target = format!("{}/v1/principal?nonce={nonce}", url.trim_end_matches('/'));
    let now = chrono::Utc::now().timestamp();
    let mut request_nonce = [0u8; 16];
    rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut request_nonce);
    let headers =
        schcp::httpsig::sign_request("GET", &target, b"", None, &key, now, &schcp::b64::encode(request_nonce));
    let Ok(http) = reqwest::Client::builder().no_proxy().timeout(PROBE_TIMEOUT).build() else { return false };
    let mut req = http.get(&target);
    for (name, value) in headers {
        req = req.header(name, value);
    }
    let Ok(answer) = req.send().await else { return false };
    let Ok(body) = answer.json::<serde_json::Value>().await else { return false };
    let (Some(proof), Some(jwk)) =
        (body["proof"].as_str(), body.get("jwk").and_then(|j| serde_json::from_value::<Jwk>(j.clone()).ok()))
    else {
        return false;
    };
    schcp::keyapp_proof::verify(proof, &jwk, &pinned, &jkt, &nonce, now).is_ok()
}

/// The file this key app wrote, removed on a clean stop only while it still
/// names this key app's URL (another key app may have written its own since).
#[derive(Debug)]
pub struct Announced {
    path: PathBuf,
    url: String,
}

impl Announced {
    pub fn new(path: PathBuf, url: String) -> Announced {
        Announced { path, url }
    }

    /// Removes the file if it still names this key app. Safe to call twice.
    pub fn withdraw(&self) {
        if named_url(&self.path).as_deref() == Some(self.url.as_str()) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl Drop for Announced {
    fn drop(&mut self) {
        self.withdraw();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn principal() -> Jwk {
        Jwk::ed25519(&SigningKey::from_bytes(&[9; 32]).verifying_key())
    }

    #[tokio::test]
    async fn a_file_naming_a_closed_port_is_dead_and_one_naming_a_stranger_is_a_stranger() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        assert_eq!(check(&path, &principal()).await, Previous::Absent);
        std::fs::write(&path, r#"{"url": "http://evil.example:80"}"#).unwrap();
        assert_eq!(check(&path, &principal()).await, Previous::Unusable);

        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", closed.local_addr().unwrap());
        drop(closed);
        std::fs::write(&path, serde_json::json!({ "url": url }).to_string()).unwrap();
        assert_eq!(check(&path, &principal()).await, Previous::Dead(url));

        // Something answers, but not with a proof of this principal's key.
        let stranger = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", stranger.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut s, _)) = stranger.accept().await {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf).await;
                let body = r#"{"principal":"urn:x","proof":"a.b.c"}"#;
                let _ = s
                    .write_all(format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{body}", body.len()).as_bytes())
                    .await;
            }
        });
        std::fs::write(&path, serde_json::json!({ "url": url }).to_string()).unwrap();
        assert_eq!(check(&path, &principal()).await, Previous::Stranger(url));
    }

    #[test]
    fn the_file_is_withdrawn_only_while_it_names_this_key_app() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let mine = Announced::new(path.clone(), "http://127.0.0.1:7411".into());
        std::fs::write(&path, r#"{"url": "http://127.0.0.1:7999"}"#).unwrap();
        mine.withdraw();
        assert!(path.exists(), "another key app's file stays");
        std::fs::write(&path, r#"{"url": "http://127.0.0.1:7411"}"#).unwrap();
        drop(mine);
        assert!(!path.exists());
    }
}
