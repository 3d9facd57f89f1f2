//! Whether hosts can read the status URLs this key app issues: a pure
//! classification of the configured status base (the hosted status service's
//! in hosted mode, else `[status_api] public_base`).
//!
//! A host fetches a status URL on a caller's behalf, so it applies §5.8's
//! outbound policy to it (§3.3 "Status URLs"): https only, no credentials in
//! the URL, and no loopback, private, link-local, CGNAT, multicast or reserved
//! address. A base that fails any of these is one no host reads: a revocation
//! there reaches nobody, and a limit shared across hosts cannot be kept there
//! (a host that cannot claim refuses the booking). The key app therefore
//! refuses shared limits under such a base and says so in every other
//! credential's consent text.
//!
//! A DNS name over https counts as reachable. Whether it resolves to a public
//! address is for the host's resolver to find at connect time (§5.8: checking
//! the text is not enough); the key app's own answer could differ from the
//! host's, and a lookup would make this classification depend on the network
//! (docs/decisions.md "Which status bases hosts can reach").
//!
//! The one exception is `[status_api] hosts_on_this_machine`: tests and demos
//! whose hosts run beside the key app read a loopback base, so with it a
//! loopback base (any scheme) counts as reachable. A private address never does:
//! other machines' hosts would have to be on the person's network.

use crate::outbound::non_public_range;
use reqwest::Url;
use serde::Serialize;
use std::net::IpAddr;

/// Whether hosts can read the status base, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reach", rename_all = "snake_case")]
pub enum StatusReach {
    /// https to a DNS name or a public address: any host can read it.
    Public,
    /// A loopback base with `hosts_on_this_machine`: hosts on this machine
    /// read it, and only they.
    ThisMachine,
    /// No host can read it under §5.8's outbound policy.
    Unreachable(Unreachable),
}

/// Why hosts cannot read a status base.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "why", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Unreachable {
    /// Not an absolute URL with a host.
    #[error("it is not a URL with a host")]
    NotAUrl,
    /// Plain `http` or another scheme: hosts fetch `https` only (§5.8).
    #[error("it is not https")]
    NotHttps,
    /// A user name or password in the URL, which §5.8 refuses.
    #[error("it carries credentials")]
    Credentials,
    /// `localhost` or a name under `.localhost`: always this machine (RFC 6761).
    #[error("{name} is this machine")]
    Localhost { name: String },
    /// A name reserved for a local network, which no public resolver answers:
    /// `.local` (mDNS, RFC 6762), `.home.arpa` (RFC 8375), `.internal`.
    #[error("{name} is a local network name")]
    LocalName { name: String },
    /// An address literal outside public unicast; `range` names which
    /// (loopback, private, link-local, CGNAT shared, unspecified, documentation…).
    #[error("{address} is a {range} address")]
    NonPublicAddress { address: IpAddr, range: &'static str },
}

/// Names no public resolver answers, each with its own labels below it.
const LOCAL_SUFFIXES: &[&str] = &["local", "home.arpa", "internal"];

impl StatusReach {
    /// Whether hosts (on this machine, with `hosts_on_this_machine`) read it.
    pub fn reachable(&self) -> bool {
        !matches!(self, StatusReach::Unreachable(_))
    }

    /// Why hosts cannot read it, when they cannot.
    pub fn unreachable(&self) -> Option<&Unreachable> {
        match self {
            StatusReach::Unreachable(why) => Some(why),
            _ => None,
        }
    }

    /// What the consent text says of withdrawing a credential under it.
    pub fn withdrawal(&self) -> schcp_consent::Withdrawal {
        if self.reachable() {
            schcp_consent::Withdrawal::ReachesHosts
        } else {
            schcp_consent::Withdrawal::NotBeforeExpiry
        }
    }

    /// Its message id in locales/*/ui.ftl: the Settings screen's words.
    pub fn message_id(&self) -> &'static str {
        match self {
            StatusReach::Public => "settings-status-reachable",
            StatusReach::ThisMachine => "settings-status-this-machine",
            StatusReach::Unreachable(_) => "settings-status-unreachable",
        }
    }
}

/// Classifies `base`, the URL status URLs start with. `hosts_on_this_machine`
/// is `[status_api] hosts_on_this_machine`: only with it is a loopback base
/// reachable (to hosts on this machine).
pub fn classify(base: &str, hosts_on_this_machine: bool) -> StatusReach {
    let unreachable = StatusReach::Unreachable;
    let Ok(url) = Url::parse(base) else { return unreachable(Unreachable::NotAUrl) };
    if !url.username().is_empty() || url.password().is_some() {
        return unreachable(Unreachable::Credentials);
    }
    // The parser has turned every spelling of an address (0x7f.1, 2130706433)
    // into its dotted or bracketed form for http(s), so a literal is never
    // taken for a name.
    let found = match url.host_str() {
        None | Some("") => Some(Unreachable::NotAUrl),
        Some(host) => match host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>() {
            Ok(address) => address_class(address),
            Err(_) => name_class(host),
        },
    };
    match found {
        Some(why) if hosts_on_this_machine && is_loopback(&why) => StatusReach::ThisMachine,
        Some(why) => unreachable(why),
        None if url.scheme() != "https" => unreachable(Unreachable::NotHttps),
        None => StatusReach::Public,
    }
}

/// A limit shared across hosts (§3.3 "One consent, several hosts") is kept
/// only where hosts can claim against it: `Err` with the sentence the agent is
/// refused with (`status_unreachable`), saying how to fix it, when they cannot.
pub fn shared_limit_allowed(config: &crate::config::Config) -> Result<(), String> {
    match config.status_reach() {
        StatusReach::Unreachable(why) => Err(format!(
            "hosts cannot reach this key app's status address {} ({why}), so it cannot keep a booking limit \
             shared across hosts; the person chooses a hosted status service or a public https address of \
             this key app with `schcp-keyapp setup` or in the key app's Settings, and confirms it ([status_api] \
             hosted or public_base)",
            config.status_base()
        )),
        StatusReach::Public | StatusReach::ThisMachine => Ok(()),
    }
}

/// What keeps a host from reading a name, if anything: only the special-use
/// names; any other name is the resolver's to judge.
fn name_class(name: &str) -> Option<Unreachable> {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    let under = |suffix: &str| name == suffix || name.ends_with(&format!(".{suffix}"));
    if under("localhost") {
        Some(Unreachable::Localhost { name })
    } else if LOCAL_SUFFIXES.iter().any(|s| under(s)) {
        Some(Unreachable::LocalName { name })
    } else {
        None
    }
}

/// The outbound policy's own ranges (`outbound`), so the key app judges its
/// status base exactly as it judges what it fetches.
fn address_class(address: IpAddr) -> Option<Unreachable> {
    non_public_range(address).map(|range| Unreachable::NonPublicAddress { address, range })
}

/// A name or an address of this machine: `localhost`, 127.0.0.0/8, ::1, and
/// an IPv4-mapped loopback address.
fn is_loopback(why: &Unreachable) -> bool {
    match why {
        Unreachable::Localhost { .. } => true,
        Unreachable::NonPublicAddress { address, .. } => address.to_canonical().is_loopback(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(base: &str, here: bool) -> Option<Unreachable> {
        classify(base, here).unreachable().cloned()
    }

    fn range(base: &str) -> &'static str {
        match why(base, false) {
            Some(Unreachable::NonPublicAddress { range, .. }) => range,
            other => panic!("{base}: {other:?}"),
        }
    }

    #[test]
    fn https_to_a_name_or_a_public_address_is_reachable() {
        for base in [
            "https://keyapp.example",
            "https://status.example.com/base/",
            "https://STATUS.Example.COM.",
            "https://93.184.216.34",
            "https://[2606:4700::1111]:8443",
            // Just outside each refused range.
            "https://100.63.255.255",
            "https://100.128.0.0",
            "https://172.15.255.255",
            "https://172.32.0.0",
            "https://192.167.255.255",
            "https://169.253.255.255",
            "https://11.0.0.0",
            // A name that merely contains a special one.
            "https://localhost.example",
            "https://mylocal",
            "https://internal.example.org",
        ] {
            assert_eq!(classify(base, false), StatusReach::Public, "{base}");
            assert_eq!(classify(base, true), StatusReach::Public, "{base} (the key changes nothing here)");
        }
    }

    #[test]
    fn plain_http_is_unreachable_even_to_a_public_name() {
        for base in ["http://keyapp.example", "http://93.184.216.34", "ftp://keyapp.example", "ws://keyapp.example"] {
            assert_eq!(why(base, false), Some(Unreachable::NotHttps), "{base}");
            assert_eq!(why(base, true), Some(Unreachable::NotHttps), "{base}: not a loopback base");
        }
    }

    #[test]
    fn loopback_is_unreachable_unless_the_hosts_are_on_this_machine() {
        for base in [
            "http://127.0.0.1:7412",
            "https://127.0.0.1",
            "http://127.255.255.254",
            "http://0x7f.1",
            "http://2130706433",
            "http://[::1]:7412",
            "https://[::ffff:127.0.0.1]",
            "http://localhost:7412",
            "https://LOCALHOST.",
            "http://status.localhost",
        ] {
            let found = why(base, false).unwrap_or_else(|| panic!("{base} is loopback"));
            assert!(is_loopback(&found), "{base}: {found:?}");
            assert_eq!(classify(base, true), StatusReach::ThisMachine, "{base}");
        }
        assert_eq!(range("http://127.0.0.1:7412"), "loopback");
        assert_eq!(range("http://[::1]"), "loopback");
        assert_eq!(range("http://[::ffff:7f00:1]"), "loopback");
        assert_eq!(why("http://localhost", false), Some(Unreachable::Localhost { name: "localhost".into() }));
    }

    #[test]
    fn private_link_local_cgnat_unspecified_and_documentation_are_unreachable_even_with_the_key() {
        for (base, expected) in [
            ("https://10.0.0.5", "private"),
            ("https://10.255.255.255", "private"),
            ("https://172.16.0.1", "private"),
            ("https://172.31.255.255", "private"),
            ("https://192.168.1.10", "private"),
            ("https://[fc00::1]", "unique local (private)"),
            ("https://[fd12:3456::1]", "unique local (private)"),
            ("https://[::ffff:10.0.0.5]", "private"),
            ("https://169.254.169.254", "link-local"),
            ("https://[fe80::1]", "link-local"),
            ("https://[::ffff:169.254.0.1]", "link-local"),
            ("https://100.64.0.0", "CGNAT shared"),
            ("https://100.127.255.255", "CGNAT shared"),
            ("https://[::ffff:100.64.1.1]", "CGNAT shared"),
            ("https://0.0.0.0", "unspecified (this network)"),
            ("https://[::]", "unspecified"),
            ("https://192.0.2.1", "documentation"),
            ("https://198.51.100.7", "documentation"),
            ("https://203.0.113.9", "documentation"),
            ("https://[2001:db8::1]", "documentation"),
            ("https://224.0.0.1", "multicast"),
            ("https://240.0.0.1", "reserved"),
        ] {
            assert_eq!(range(base), expected, "{base}");
            assert!(!classify(base, true).reachable(), "{base}: only loopback is for hosts on this machine");
            assert!(!classify(&base.replace("https", "http"), true).reachable(), "{base} over http");
        }
    }

    #[test]
    fn local_network_names_credentials_and_non_urls_are_unreachable() {
        for base in ["https://keyapp.local", "https://nas.home.arpa", "https://status.internal", "https://LOCAL."] {
            assert!(matches!(why(base, true), Some(Unreachable::LocalName { .. })), "{base}");
        }
        assert_eq!(why("https://user:pw@keyapp.example", false), Some(Unreachable::Credentials));
        assert_eq!(why("https://user@127.0.0.1", true), Some(Unreachable::Credentials));
        for base in ["", "keyapp.example", "/status", "https://", "mailto:me@keyapp.example"] {
            assert_eq!(why(base, true), Some(Unreachable::NotAUrl), "{base:?}");
        }
    }

    #[test]
    fn a_shared_limit_is_refused_with_how_to_fix_it_only_under_an_unreachable_base() {
        let config = |text: &str| crate::config::Config::parse(text, std::path::Path::new("x")).unwrap();
        let e = shared_limit_allowed(&config("")).unwrap_err();
        assert!(e.starts_with("hosts cannot reach this key app's status address http://127.0.0.1:7412 (127.0.0.1 is a loopback address)"), "{e}");
        assert!(e.contains("[status_api] hosted") && e.contains("public_base"), "{e}");
        assert!(e.contains("schcp-keyapp setup"), "{e}");
        assert!(shared_limit_allowed(&config("[status_api]\nhosts_on_this_machine = true")).is_ok());
        let private = config("[status_api]\npublic_base = \"https://10.0.0.5\"\nhosts_on_this_machine = true");
        assert!(shared_limit_allowed(&private).unwrap_err().contains("10.0.0.5 is a private address"));
        assert!(shared_limit_allowed(&config("[status_api]\npublic_base = \"https://keyapp.example\"")).is_ok());
    }

    #[test]
    fn what_the_text_and_settings_say_follows_the_class() {
        let public = classify("https://keyapp.example", false);
        let here = classify("http://127.0.0.1:7412", true);
        let nowhere = classify("http://127.0.0.1:7412", false);
        assert_eq!(public.withdrawal(), schcp_consent::Withdrawal::ReachesHosts);
        assert_eq!(here.withdrawal(), schcp_consent::Withdrawal::ReachesHosts);
        assert_eq!(nowhere.withdrawal(), schcp_consent::Withdrawal::NotBeforeExpiry);
        assert_eq!(
            [public.message_id(), here.message_id(), nowhere.message_id()],
            ["settings-status-reachable", "settings-status-this-machine", "settings-status-unreachable"]
        );
        assert_eq!(serde_json::to_value(&public).unwrap(), serde_json::json!({"reach": "public"}));
        assert_eq!(
            serde_json::to_value(&nowhere).unwrap(),
            serde_json::json!({"reach": "unreachable", "why": "non_public_address", "address": "127.0.0.1", "range": "loopback"})
        );
        assert_eq!(nowhere.unreachable().unwrap().to_string(), "127.0.0.1 is a loopback address");
    }
}
