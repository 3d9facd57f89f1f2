//! The status address: where the status URLs of the credentials this key app
//! issues point (SchCP §3.3 "Status URLs"), as the three config keys that
//! choose it, `[status_api] hosted`, `public_base` and `hosts_on_this_machine`.
//!
//! It decides who answers hosts for the person: a server at that address can
//! say "active" for a revoked mandate, or grant claims past a shared limit. An
//! assistant running as the person can edit the config, so the address in
//! force is the one the person confirmed to the OS (`service::status_setup`),
//! and the config's is only a request until they do (docs/threat-model.md).
//! This module is the pure part: what an address is, which change needs the
//! person's confirmation, and whether a URL the person typed in setup can be
//! one hosts read (`status_reach`, the §5.8 outbound policy).

use crate::config::Config;
use crate::status_reach::{classify, StatusReach, Unreachable};
use serde::{Deserialize, Serialize};

/// The three keys that choose where status URLs point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusAddress {
    /// A hosted status service's base (docs/hosted-status.md), without a trailing slash.
    pub hosted: Option<String>,
    /// The key app's own public base, without a trailing slash.
    pub public_base: String,
    /// Whether a loopback base counts as one hosts read (tests, demos).
    pub hosts_on_this_machine: bool,
}

/// What the person chose, in the words Settings uses for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ChoiceKind {
    /// A hosted status service answers hosts.
    Hosted,
    /// The key app's own public base (behind the person's reverse proxy).
    OwnBase,
    /// The built-in default: this machine's loopback listener, which no host
    /// elsewhere reads ("not now").
    NotNow,
}

impl StatusAddress {
    /// The address a config names.
    pub fn of(config: &Config) -> StatusAddress {
        StatusAddress {
            hosted: config.hosted_base().map(str::to_owned),
            public_base: config.status_api.public_base.trim_end_matches('/').to_owned(),
            hosts_on_this_machine: config.status_api.hosts_on_this_machine,
        }
    }

    /// The built-in one, which needs no confirmation: a loopback base no host
    /// elsewhere reads, so shared limits are refused and every credential says
    /// it cannot be withdrawn. Nothing hosts believe can be lied about there.
    pub fn built_in() -> StatusAddress {
        StatusAddress::of(&Config::default())
    }

    /// This address in `config`, every other key left as it was.
    pub fn apply(&self, config: &mut Config) {
        config.status_api.hosted = self.hosted.clone();
        config.status_api.public_base = self.public_base.clone();
        config.status_api.hosts_on_this_machine = self.hosts_on_this_machine;
    }

    /// The base status URLs start with: the hosted service's, else `public_base`.
    pub fn base(&self) -> &str {
        self.hosted.as_deref().unwrap_or(&self.public_base)
    }

    /// Whether hosts can read it (`status_reach`).
    pub fn reach(&self) -> StatusReach {
        classify(self.base(), self.hosts_on_this_machine)
    }

    /// Which of setup's three answers it is.
    pub fn kind(&self) -> ChoiceKind {
        if self.hosted.is_some() {
            ChoiceKind::Hosted
        } else if self.public_base == StatusAddress::built_in().public_base {
            ChoiceKind::NotNow
        } else {
            ChoiceKind::OwnBase
        }
    }
}

/// What the config asks for that the person has not confirmed: its address
/// when it is neither the confirmed one nor the built-in default. The built-in
/// default is never a request, so a key app run without a config file keeps
/// the address the person chose in setup (docs/decisions.md "Where the status
/// choice is kept").
pub fn requested(configured: &StatusAddress, confirmed: &StatusAddress) -> Option<StatusAddress> {
    (configured != confirmed && *configured != StatusAddress::built_in()).then(|| configured.clone())
}

/// One of setup's three answers (`schcp-keyapp setup`, the window's first run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "choice", rename_all = "snake_case", deny_unknown_fields)]
pub enum SetupChoice {
    /// A hosted status service at `url`: registered with, checked, published to.
    Hosted { url: String },
    /// The key app's own status API, published by the person's reverse proxy at `url`.
    OwnBase { url: String },
    /// Not now: the built-in loopback address, with its limits.
    NotNow,
}

/// Why a URL typed in setup cannot be the status address. Nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlRefusal {
    /// Not a URL, or one with a query or fragment (status URLs are appended to it).
    #[error("{url:?} is not a base URL: {why}")]
    NotABase { url: String, why: &'static str },
    /// Hosts could not read status URLs there (§3.3, §5.8).
    #[error("hosts could not check your credentials at {url}: {why}")]
    Unreachable { url: String, why: Unreachable },
}

/// The base a setup URL gives, once it is one hosts can read: https to a name
/// or a public address (or loopback when `hosts_on_this_machine`), no
/// credentials, no query or fragment; the trailing slash dropped.
pub fn setup_base(url: &str, hosts_on_this_machine: bool) -> Result<String, UrlRefusal> {
    let url = url.trim();
    let not_a_base = |why| UrlRefusal::NotABase { url: url.to_owned(), why };
    // Kept and shown as typed: nothing in it may reorder or erase what is
    // shown around it (a control or bidi character, which the parser would
    // only percent-encode or drop).
    if schcp_consent::inert::inert(url) != url {
        return Err(not_a_base("it must be plain text, without control or invisible characters"));
    }
    let parsed = reqwest::Url::parse(url).map_err(|_| not_a_base("type it whole, starting with https://"))?;
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(not_a_base("it must have no ? or # part"));
    }
    if let StatusReach::Unreachable(why) = classify(url, hosts_on_this_machine) {
        return Err(UrlRefusal::Unreachable { url: url.to_owned(), why });
    }
    Ok(url.trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(hosted: Option<&str>, base: &str, here: bool) -> StatusAddress {
        StatusAddress { hosted: hosted.map(str::to_owned), public_base: base.into(), hosts_on_this_machine: here }
    }

    #[test]
    fn the_built_in_address_is_loopback_and_unreachable() {
        let built_in = StatusAddress::built_in();
        assert_eq!(built_in, address(None, "http://127.0.0.1:7412", false));
        assert_eq!(built_in.kind(), ChoiceKind::NotNow);
        assert!(!built_in.reach().reachable());
    }

    #[test]
    fn a_config_asks_for_a_change_only_away_from_the_confirmed_and_the_default() {
        let confirmed = address(Some("https://status.example"), "http://127.0.0.1:7412", false);
        let edited = address(Some("https://evil.example"), "http://127.0.0.1:7412", false);
        assert_eq!(requested(&edited, &confirmed), Some(edited.clone()));
        assert_eq!(requested(&confirmed, &confirmed), None);
        // No config file (or one without the keys): the person's choice stands.
        assert_eq!(requested(&StatusAddress::built_in(), &confirmed), None);
        // Turning the loopback base into one "hosts read" is a change too.
        let here = address(None, "http://127.0.0.1:7412", true);
        assert_eq!(requested(&here, &StatusAddress::built_in()), Some(here.clone()));
        let own = address(None, "https://keyapp.example", false);
        assert_eq!((own.kind(), own.base()), (ChoiceKind::OwnBase, "https://keyapp.example"));
        assert_eq!(edited.kind(), ChoiceKind::Hosted);
    }

    #[test]
    fn apply_changes_the_three_keys_and_nothing_else() {
        let mut config = Config::parse(
            "locale = \"fr\"\n[status_api]\npublic_base = \"https://a.example/\"",
            std::path::Path::new("x"),
        )
        .unwrap();
        assert_eq!(StatusAddress::of(&config), address(None, "https://a.example", false));
        address(Some("https://s.example"), "https://a.example", true).apply(&mut config);
        assert_eq!(config.status_base(), "https://s.example");
        assert!(config.status_api.hosts_on_this_machine);
        assert_eq!(config.locale.as_deref(), Some("fr"));
    }

    #[test]
    fn setup_takes_only_a_base_hosts_can_read() {
        assert_eq!(setup_base(" https://status.example/ ", false).unwrap(), "https://status.example");
        assert_eq!(setup_base("https://s.example/base", false).unwrap(), "https://s.example/base");
        for (url, expect) in [
            ("http://status.example", "is not https"),
            ("http://127.0.0.1:8450", "loopback"),
            ("https://127.0.0.1:8450", "loopback"),
            ("https://localhost", "this machine"),
            ("https://192.168.1.20", "private"),
            ("https://10.0.0.5:8443", "private"),
            ("https://100.64.1.1", "CGNAT"),
            ("https://169.254.169.254", "link-local"),
            ("https://nas.local", "local network name"),
            ("https://user:pw@status.example", "credentials"),
        ] {
            let e = setup_base(url, false).unwrap_err();
            assert!(matches!(e, UrlRefusal::Unreachable { .. }), "{url}: {e:?}");
            assert!(e.to_string().contains(expect), "{url}: {e}");
        }
        for url in ["status.example", "", "https://status.example/?a=1", "https://status.example/#x"] {
            assert!(matches!(setup_base(url, false), Err(UrlRefusal::NotABase { .. })), "{url:?}");
        }
        // Hosts on this machine (tests, demos) read a loopback base; never a private one.
        assert_eq!(setup_base("http://127.0.0.1:8450/", true).unwrap(), "http://127.0.0.1:8450");
        assert!(setup_base("http://192.168.1.20", true).is_err());
    }
}
