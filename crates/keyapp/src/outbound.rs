//! The outbound policy: where the key app lets a URL an agent hands it take the
//! key app's own HTTPS client.
//!
//! §5.8 states the rule for a host's webhook callbacks, and it applies as written
//! to every fetch an agent can point the key app at (discovery documents,
//! operators' documents): otherwise any local process could use the key app to
//! reach what only the person's machine can reach (its loopback services, the
//! home network, a cloud metadata address). Checking the URL's text is not enough,
//! since a public name can resolve to a private address and change its answer
//! between a check and the connection, so the check runs inside the resolver the
//! client connects with ([`PublicOnlyResolver`]): the addresses it returns are the
//! only ones the connection can use. A URL naming an address literally never
//! reaches a resolver, so [`check_url`] classifies it before any connection.
//!
//! The one exception is the person's own config: names in `[discovery] resolve`
//! (how tests and private deployments reach a host) resolve to exactly the listed
//! address and port, and to nothing else. The config may name only names no
//! business can hold ([`config_may_vouch_for`]).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use ipnet::{Ipv4Net, Ipv6Net};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::Url;

/// The message of an outbound fetch's error and every error beneath it:
/// reqwest's own Display says only "error sending request", the cause (an
/// unknown issuer, a refused connection, a refused address) is further down.
pub(crate) fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let next = s.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text
}

/// Why a URL or an address is refused. Also the error [`PublicOnlyResolver`]
/// fails a lookup with, so the caller can find it in the client's error chain.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    #[error("it is not an https URL (§5.8: only public https URLs are fetched)")]
    NotHttps,
    #[error("it carries credentials (§5.8)")]
    Credentials,
    #[error("{name} is {addr}, a {range} address; only public addresses are fetched (§5.8)")]
    NonPublic { name: String, addr: IpAddr, range: &'static str },
    #[error("{name} is pinned to {pinned} by the config's [discovery] resolve; port {port} is not that address")]
    PinnedPort { name: String, pinned: SocketAddr, port: u16 },
}

impl Refusal {
    /// A stable word for the rule, for the §9 error's details.
    pub fn rule(&self) -> &'static str {
        match self {
            Refusal::NotHttps => "not_https",
            Refusal::Credentials => "credentials",
            Refusal::NonPublic { .. } => "non_public_address",
            Refusal::PinnedPort { .. } => "pinned_port",
        }
    }
}

/// IPv4 ranges no fetch may reach (IANA special-purpose registry, RFC 6890 and
/// successors): nothing here is a public unicast address.
const V4_REFUSED: &[(&str, &str)] = &[
    ("0.0.0.0/8", "unspecified (this network)"),
    ("10.0.0.0/8", "private"),
    ("100.64.0.0/10", "CGNAT shared"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link-local"),
    ("172.16.0.0/12", "private"),
    ("192.0.0.0/24", "IETF protocol assignment (reserved)"),
    ("192.0.2.0/24", "documentation"),
    ("192.88.99.0/24", "6to4 relay (reserved)"),
    ("192.168.0.0/16", "private"),
    ("198.18.0.0/15", "benchmarking (reserved)"),
    ("198.51.100.0/24", "documentation"),
    ("203.0.113.0/24", "documentation"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved"),
];

/// IPv6 ranges refused inside global unicast (2000::/3); everything outside
/// 2000::/3 is refused too, save the two prefixes that embed an IPv4 address,
/// which are judged by that address.
const V6_REFUSED: &[(&str, &str)] = &[
    ("2001::/23", "IETF protocol assignment (reserved)"),
    ("2001:db8::/32", "documentation"),
    ("2002::/16", "6to4 (reserved)"),
    ("3fff::/20", "documentation"),
];

/// The special range `ip` is in, or `None` for a public unicast address.
pub fn non_public_range(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_range(v4),
        IpAddr::V6(v6) => v6_range(v6),
    }
}

fn v4_range(ip: Ipv4Addr) -> Option<&'static str> {
    V4_REFUSED
        .iter()
        .find(|(net, _)| net.parse::<Ipv4Net>().expect("a valid range").contains(&ip))
        .map(|(_, label)| *label)
}

fn v6_range(ip: Ipv6Addr) -> Option<&'static str> {
    let within = |net: &str| net.parse::<Ipv6Net>().expect("a valid range").contains(&ip);
    // IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96, RFC 6052) reach the
    // IPv4 address they carry, so that address decides.
    if within("::ffff:0:0/96") || within("64:ff9b::/96") {
        let [.., a, b, c, d] = ip.octets();
        return v4_range(Ipv4Addr::new(a, b, c, d));
    }
    if ip.is_unspecified() {
        return Some("unspecified");
    }
    if ip.is_loopback() {
        return Some("loopback");
    }
    if within("fc00::/7") {
        return Some("unique local (private)");
    }
    if within("fe80::/10") {
        return Some("link-local");
    }
    if within("fec0::/10") {
        return Some("site-local (deprecated)");
    }
    if within("ff00::/8") {
        return Some("multicast");
    }
    if !within("2000::/3") {
        return Some("reserved");
    }
    V6_REFUSED.iter().find(|(net, _)| within(net)).map(|(_, label)| *label)
}

/// Names reserved for tests and private networks: no public certificate
/// authority issues for them, so no business can be reached at one (RFC 6761
/// §6, RFC 2606 §3, RFC 8375, and ICANN's `internal`).
const RESERVED_SUFFIXES: [&str; 9] =
    ["test", "example", "invalid", "localhost", "internal", "home.arpa", "example.com", "example.net", "example.org"];

/// Whether the person's config may vouch for `name`: pin its address in
/// `[discovery] resolve`, or prove it with a certificate from
/// `extra_root_certs`. Only a reserved name may be. The config is a file every
/// process of the person's can write, an assistant's included; if it could
/// vouch for a public name, that assistant could serve its own discovery
/// document as a real business's, and the consent text would show that
/// business's domain as verified (SchCP §5.2, §5.3).
pub fn config_may_vouch_for(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    RESERVED_SUFFIXES.iter().any(|suffix| {
        name == *suffix || name.strip_suffix(suffix).is_some_and(|head| head.len() > 1 && head.ends_with('.'))
    })
}

/// Names pinned by the config's `[discovery] resolve`, lowercased (URLs' hosts are).
pub type Pinned = HashMap<String, SocketAddr>;

/// Checks a parsed URL against the policy, before any connection: https, no
/// credentials, an address literal only if public, a pinned name only on its
/// pinned port. A name's addresses are checked later, by the resolver.
pub fn check_url(url: &Url, pinned: &Pinned) -> Result<(), Refusal> {
    if url.scheme() != "https" {
        return Err(Refusal::NotHttps);
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Refusal::Credentials);
    }
    let host = url.host_str().unwrap_or_default();
    // The URL parser has already turned every spelling of an address (0x7f.1,
    // 2130706433) into its dotted or bracketed form.
    if let Ok(addr) = host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>() {
        // The client connects to a literal without asking any resolver.
        return match non_public_range(addr) {
            Some(range) => Err(Refusal::NonPublic { name: addr.to_string(), addr, range }),
            None => Ok(()),
        };
    }
    let name = host;
    if let (Some(pinned), Some(port)) = (pinned.get(name), url.port()) {
        // reqwest lets a URL's explicit port override the resolved one; a pinned
        // name reaches only its pinned address, port included.
        if port != pinned.port() {
            return Err(Refusal::PinnedPort { name: name.to_owned(), pinned: *pinned, port });
        }
    }
    Ok(())
}

/// The resolved addresses of `name`, or the refusal naming the first that is not
/// public. One private address refuses the name: the client might try it.
pub fn check_resolved(name: &str, addrs: &[SocketAddr]) -> Result<(), Refusal> {
    for a in addrs {
        if let Some(range) = non_public_range(a.ip()) {
            return Err(Refusal::NonPublic { name: name.to_owned(), addr: a.ip(), range });
        }
    }
    Ok(())
}

/// The resolver of the key app's HTTPS client: a pinned name gets its pinned
/// address; any other name the system's addresses, all of them public, or an
/// error (and so no connection).
#[derive(Debug, Clone)]
pub struct PublicOnlyResolver {
    pinned: Pinned,
}

impl PublicOnlyResolver {
    pub fn new(pinned: Pinned) -> Self {
        PublicOnlyResolver { pinned }
    }
}

impl Resolve for PublicOnlyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let name = name.as_str().to_ascii_lowercase();
        if let Some(addr) = self.pinned.get(&name) {
            let addrs: Addrs = Box::new(std::iter::once(*addr));
            return Box::pin(std::future::ready(Ok(addrs)));
        }
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            check_resolved(&name, &addrs)?;
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// The policy refusal somewhere in an error's chain (a client error wraps the
/// resolver's several layers down).
pub fn find_refusal(e: &(dyn std::error::Error + 'static)) -> Option<Refusal> {
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = next {
        if let Some(r) = err.downcast_ref::<Refusal>() {
            return Some(r.clone());
        }
        next = err.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(s: &str) -> Option<&'static str> {
        non_public_range(s.parse().unwrap())
    }

    /// Each range, at both of its edges and just outside them.
    #[test]
    fn ipv4_ranges_are_refused_edge_to_edge() {
        let cases: &[(&str, &str, &str, &str)] = &[
            // (last address before, first in, last in, first after)
            ("0.0.0.0", "0.0.0.0", "0.255.255.255", "1.0.0.0"),
            ("9.255.255.255", "10.0.0.0", "10.255.255.255", "11.0.0.0"),
            ("100.63.255.255", "100.64.0.0", "100.127.255.255", "100.128.0.0"),
            ("126.255.255.255", "127.0.0.0", "127.255.255.255", "128.0.0.0"),
            ("169.253.255.255", "169.254.0.0", "169.254.255.255", "169.255.0.0"),
            ("172.15.255.255", "172.16.0.0", "172.31.255.255", "172.32.0.0"),
            ("191.255.255.255", "192.0.0.0", "192.0.0.255", "192.0.1.0"),
            ("192.0.1.255", "192.0.2.0", "192.0.2.255", "192.0.3.0"),
            ("192.88.98.255", "192.88.99.0", "192.88.99.255", "192.88.100.0"),
            ("192.167.255.255", "192.168.0.0", "192.168.255.255", "192.169.0.0"),
            ("198.17.255.255", "198.18.0.0", "198.19.255.255", "198.20.0.0"),
            ("198.51.99.255", "198.51.100.0", "198.51.100.255", "198.51.101.0"),
            ("203.0.112.255", "203.0.113.0", "203.0.113.255", "203.0.114.0"),
            ("223.255.255.255", "224.0.0.0", "239.255.255.255", "240.0.0.0"),
        ];
        for (before, first, last, after) in cases {
            assert!(refused(first).is_some(), "{first}");
            assert!(refused(last).is_some(), "{last}");
            // The first range starts at 0.0.0.0; "before" repeats it.
            if before != first {
                assert_eq!(refused(before), None, "{before}");
            }
            // 240.0.0.0 starts the reserved range right after multicast.
            if *after != "240.0.0.0" {
                assert_eq!(refused(after), None, "{after}");
            }
        }
        assert_eq!(refused("239.255.255.255"), Some("multicast"));
        assert_eq!(refused("240.0.0.0"), Some("reserved"));
        assert_eq!(refused("255.255.255.255"), Some("reserved"));
        assert_eq!(refused("127.0.0.3"), Some("loopback"));
        assert_eq!(refused("100.64.0.1"), Some("CGNAT shared"));
        assert_eq!(refused("169.254.169.254"), Some("link-local"));
        assert_eq!(refused("8.8.8.8"), None);
        assert_eq!(refused("93.184.215.14"), None);
    }

    #[test]
    fn ipv6_ranges_are_refused_edge_to_edge() {
        for s in [
            "::",
            "::1",
            "::2",
            "fc00::",
            "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            "fe80::1",
            "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            "fec0::1",
            "ff00::",
            "ff02::1",
            "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            "4000::",
            "100::",
            "2001::",
            "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
            "2001:db8::",
            "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
            "2002::",
            "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            "3fff::",
            "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff",
        ] {
            assert!(refused(s).is_some(), "{s}");
        }
        for s in [
            "2000::",
            "2001:200::",
            "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff",
            "2001:db9::",
            "2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            "2003::",
            "2606:4700:4700::1111",
            "3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            "3fff:1000::",
            "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        ] {
            assert_eq!(refused(s), None, "{s}");
        }
        assert_eq!(refused("::1"), Some("loopback"));
        assert_eq!(refused("fd12::1"), Some("unique local (private)"));
        assert_eq!(refused("fe80::1"), Some("link-local"));
        assert_eq!(refused("ff02::1"), Some("multicast"));
    }

    #[test]
    fn embedded_ipv4_addresses_are_judged_by_the_ipv4_rules() {
        assert_eq!(refused("::ffff:127.0.0.1"), Some("loopback"));
        assert_eq!(refused("::ffff:10.1.2.3"), Some("private"));
        assert_eq!(refused("::ffff:169.254.169.254"), Some("link-local"));
        assert_eq!(refused("::ffff:100.64.0.0"), Some("CGNAT shared"));
        assert_eq!(refused("::ffff:0.0.0.0"), Some("unspecified (this network)"));
        assert_eq!(refused("::ffff:8.8.8.8"), None);
        assert_eq!(refused("64:ff9b::7f00:1"), Some("loopback"));
        assert_eq!(refused("64:ff9b::808:808"), None);
        // Just outside the mapped prefix: the deprecated IPv4-compatible form, reserved.
        assert_eq!(refused("::fffe:808:808"), Some("reserved"));
        assert_eq!(refused("::808:808"), Some("reserved"));
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn the_config_vouches_only_for_names_no_business_can_hold() {
        for ok in ["maplestreetauto.example", "a.test", "x.y.internal", "printer.home.arpa", "www.example.com", "test."]
        {
            assert!(config_may_vouch_for(ok), "{ok}");
        }
        for bad in
            ["maplestreetauto.com", "mybank.fr", "notexample.com", "fooexample", "example.com.evil.fr", "test.com", ""]
        {
            assert!(!config_may_vouch_for(bad), "{bad}");
        }
    }

    #[test]
    fn urls_are_judged_before_any_connection() {
        let pinned = Pinned::from([("maplestreetauto.example".to_owned(), "127.0.0.1:8443".parse().unwrap())]);
        let check = |s: &str| check_url(&url(s), &pinned).map_err(|r| r.rule());
        assert_eq!(check("http://maplestreetauto.example/"), Err("not_https"));
        assert_eq!(check("https://user:pass@maplestreetauto.example/"), Err("credentials"));
        assert_eq!(check("https://user@maplestreetauto.example/"), Err("credentials"));
        assert_eq!(check("https://127.0.0.3:8443/x"), Err("non_public_address"));
        assert_eq!(check("https://[::1]:8443/x"), Err("non_public_address"));
        assert_eq!(check("https://[::ffff:7f00:1]/x"), Err("non_public_address"));
        // The URL parser's other spellings of an address are addresses too.
        assert_eq!(check("https://0x7f.1/x"), Err("non_public_address"));
        assert_eq!(check("https://2130706433/x"), Err("non_public_address"));
        assert_eq!(check("https://8.8.8.8/x"), Ok(()));
        assert_eq!(check("https://maplestreetauto.example/x"), Ok(()));
        assert_eq!(check("https://maplestreetauto.example:8443/x"), Ok(()));
        assert_eq!(check("https://maplestreetauto.example:22/x"), Err("pinned_port"));
        // Names are checked by the resolver, when they are looked up.
        assert_eq!(check("https://localhost:22/x"), Ok(()));
    }

    #[test]
    fn resolved_addresses_must_all_be_public() {
        let a = |s: &str| -> SocketAddr { s.parse().unwrap() };
        assert!(check_resolved("x.example", &[a("8.8.8.8:0"), a("[2606:4700::1]:0")]).is_ok());
        let e = check_resolved("x.example", &[a("8.8.8.8:0"), a("127.0.0.1:0")]).unwrap_err();
        assert_eq!(e.rule(), "non_public_address");
        assert!(e.to_string().contains("127.0.0.1") && e.to_string().contains("loopback"), "{e}");
        assert!(check_resolved("x.example", &[a("[::ffff:192.168.1.1]:0")]).is_err());
    }

    #[tokio::test]
    async fn the_resolver_refuses_a_name_for_a_loopback_address_and_keeps_pins_exact() {
        let pin: SocketAddr = "127.0.0.1:8443".parse().unwrap();
        let r = PublicOnlyResolver::new(Pinned::from([("pinned.example".to_owned(), pin)]));
        let got: Vec<_> = r.resolve("pinned.example".parse().unwrap()).await.unwrap().collect();
        assert_eq!(got, vec![pin]);
        let Err(e) = r.resolve("localhost".parse().unwrap()).await else { panic!("localhost resolved") };
        assert_eq!(find_refusal(e.as_ref()).map(|r| r.rule()), Some("non_public_address"), "{e}");
    }
}
