//! Which hosts the agent's HTTPS client can reach beyond the public web: extra
//! root certificates and names pinned to addresses, exactly the two
//! `[discovery]` settings of the key app's config (README "Configuration"),
//! and the file the example host writes with `--trust-out`.

use super::error::HostError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// Extra roots and pinned names. The default trusts the system's roots and
/// resolves every name publicly.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostTrust {
    /// PEM files whose certificates are trusted besides the system's roots.
    #[serde(default)]
    pub extra_root_certs: Vec<PathBuf>,
    /// Host names pinned to one address and port, like `curl --resolve`; the
    /// outbound policy's one exception (a test or private host).
    #[serde(default)]
    pub resolve: BTreeMap<String, SocketAddr>,
}

impl HostTrust {
    /// Reads a trust file (TOML: `extra_root_certs`, `resolve`). A relative
    /// certificate path is taken from the file's own directory.
    pub fn from_file(path: &Path) -> Result<HostTrust, HostError> {
        let bad = |why: String| HostError::Trust { path: path.to_owned(), why };
        let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        let mut trust: HostTrust = toml::from_str(&text).map_err(|e| bad(e.message().to_owned()))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        for cert in &mut trust.extra_root_certs {
            if cert.is_relative() {
                *cert = dir.join(&*cert);
            }
        }
        Ok(trust)
    }

    /// Merges another file's settings into these.
    pub fn merge(&mut self, other: HostTrust) {
        self.extra_root_certs.extend(other.extra_root_certs);
        self.resolve.extend(other.resolve);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_example_hosts_trust_file_and_refuses_anything_else() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("trust.toml");
        std::fs::write(
            &p,
            "extra_root_certs = [\"ca.pem\"]\nresolve = { \"maplestreetauto.example\" = \"127.0.0.1:8443\" }\n",
        )
        .unwrap();
        let t = HostTrust::from_file(&p).unwrap();
        assert_eq!(t.extra_root_certs, vec![dir.path().join("ca.pem")]);
        assert_eq!(t.resolve["maplestreetauto.example"], "127.0.0.1:8443".parse().unwrap());
        std::fs::write(&p, "proxy = \"http://x\"\n").unwrap();
        assert!(matches!(HostTrust::from_file(&p), Err(HostError::Trust { .. })));
        std::fs::write(&p, "resolve = { a = \"not an address\" }\n").unwrap();
        assert!(matches!(HostTrust::from_file(&p), Err(HostError::Trust { .. })));
    }
}
