//! Who a status API request is from, when a reverse proxy stands in front of it.
//!
//! The status listener defaults to loopback with an `https` `public_base`
//! (README "The status API behind a reverse proxy"), so in production a TLS-terminating proxy forwards every host's
//! calls, and every call arrives from the proxy's address. Counting rate limits
//! per peer would then put all hosts in one bucket, and one host's flood would
//! refuse every other host's claims: the person's limit locked out by a stranger
//! (a rate limit must never be a way to lock a person out).
//!
//! Only peers the person lists as `trusted_proxies` are believed, and only the
//! `X-Forwarded-For` entries they appended: the list is read from the right, each
//! trusted address stepped over, and the first other address is the client. The
//! entries further left were written by the client and are never read, so a host
//! cannot pick its own bucket by sending the header itself.

use axum::http::HeaderMap;
use ipnet::IpNet;
use std::net::IpAddr;
use std::str::FromStr;

/// A configured proxy address or network (`"127.0.0.1"`, `"10.0.0.0/8"`, `"::1"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrustedProxy(IpNet);

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0:?} is neither an IP address nor an address/prefix network")]
pub struct BadProxy(String);

impl FromStr for TrustedProxy {
    type Err = BadProxy;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Ok(net) = s.parse::<IpNet>() {
            return Ok(TrustedProxy(net.trunc()));
        }
        s.parse::<IpAddr>().map(|a| TrustedProxy(IpNet::from(a))).map_err(|_| BadProxy(s.to_owned()))
    }
}

impl<'de> serde::Deserialize<'de> for TrustedProxy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Whether `ip` is one of the configured proxies.
pub fn is_trusted(ip: IpAddr, trusted: &[TrustedProxy]) -> bool {
    let ip = canonical(ip);
    trusted.iter().any(|t| t.0.contains(&ip))
}

/// IPv4-mapped IPv6 (`::ffff:127.0.0.1`, as a dual-stack listener reports IPv4
/// peers) is the IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// The address a request counts against: `peer` itself unless it is a trusted
/// proxy; then the rightmost `X-Forwarded-For` entry that is not a trusted
/// proxy. An entry that is not an address stops the walk at the last trusted hop
/// (the request then counts against that proxy, never against an address the
/// client could have chosen).
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[TrustedProxy]) -> IpAddr {
    let mut client = canonical(peer);
    if !is_trusted(client, trusted) {
        return client;
    }
    // Several X-Forwarded-For fields are one list, in order (RFC 9110 §5.3).
    // Read as bytes: a proxy that appends to the client's own field keeps
    // whatever bytes the client wrote to the left of its entry, and those must
    // not hide the entry the proxy wrote.
    let fields: Vec<&[u8]> = headers.get_all("x-forwarded-for").iter().map(|v| v.as_bytes()).collect();
    for entry in fields.iter().rev().flat_map(|f| f.rsplit(|b| *b == b',')) {
        let Some(hop) = std::str::from_utf8(entry).ok().and_then(|e| parse_entry(e.trim())) else { return client };
        client = canonical(hop);
        if !is_trusted(client, trusted) {
            return client;
        }
    }
    client
}

/// An `X-Forwarded-For` entry: an address, or (as some proxies write it) an
/// address with a port, IPv6 then in brackets.
fn parse_entry(entry: &str) -> Option<IpAddr> {
    if let Ok(ip) = entry.parse::<IpAddr>() {
        return Some(ip);
    }
    entry.parse::<std::net::SocketAddr>().ok().map(|s| s.ip())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn proxies(list: &[&str]) -> Vec<TrustedProxy> {
        list.iter().map(|p| p.parse().unwrap()).collect()
    }

    fn xff(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("x-forwarded-for", HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_sends() {
        let trusted = proxies(&["127.0.0.1"]);
        assert_eq!(client_ip(ip("203.0.113.7"), &xff(&["198.51.100.1"]), &trusted), ip("203.0.113.7"));
        assert_eq!(client_ip(ip("203.0.113.7"), &xff(&["198.51.100.1"]), &[]), ip("203.0.113.7"));
    }

    #[test]
    fn behind_a_trusted_proxy_the_entry_it_appended_is_the_client() {
        let trusted = proxies(&["127.0.0.1"]);
        assert_eq!(client_ip(ip("127.0.0.1"), &xff(&["198.51.100.1"]), &trusted), ip("198.51.100.1"));
        // What the client wrote itself, to the left, is never read.
        assert_eq!(
            client_ip(ip("127.0.0.1"), &xff(&["10.9.9.9, 1.2.3.4, 198.51.100.1"]), &trusted),
            ip("198.51.100.1")
        );
        // Several fields are one list, in order.
        assert_eq!(client_ip(ip("127.0.0.1"), &xff(&["10.9.9.9", "198.51.100.1"]), &trusted), ip("198.51.100.1"));
    }

    #[test]
    fn a_chain_of_trusted_proxies_is_stepped_over() {
        let trusted = proxies(&["127.0.0.1", "10.0.0.0/8"]);
        let h = xff(&["6.6.6.6, 198.51.100.1, 10.1.2.3, 10.4.5.6"]);
        assert_eq!(client_ip(ip("127.0.0.1"), &h, &trusted), ip("198.51.100.1"));
        // Only proxies in between: the leftmost of them is as far as is known.
        assert_eq!(client_ip(ip("127.0.0.1"), &xff(&["10.1.2.3"]), &trusted), ip("10.1.2.3"));
    }

    #[test]
    fn no_header_or_a_garbled_entry_counts_against_the_proxy() {
        let trusted = proxies(&["127.0.0.1"]);
        assert_eq!(client_ip(ip("127.0.0.1"), &HeaderMap::new(), &trusted), ip("127.0.0.1"));
        assert_eq!(client_ip(ip("127.0.0.1"), &xff(&[""]), &trusted), ip("127.0.0.1"));
        assert_eq!(client_ip(ip("127.0.0.1"), &xff(&["1.2.3.4, unknown"]), &trusted), ip("127.0.0.1"));
        assert_eq!(client_ip(ip("127.0.0.1"), &xff(&["1.2.3.4, _hidden"]), &trusted), ip("127.0.0.1"));
        let mut h = HeaderMap::new();
        h.append("x-forwarded-for", HeaderValue::from_bytes(b"\xff\xfe").unwrap());
        assert_eq!(client_ip(ip("127.0.0.1"), &h, &trusted), ip("127.0.0.1"));
        // Bytes a client wrote into the field the proxy appended to do not hide
        // the proxy's own entry.
        let mut h = HeaderMap::new();
        h.append("x-forwarded-for", HeaderValue::from_bytes(b"\xff, 198.51.100.1").unwrap());
        assert_eq!(client_ip(ip("127.0.0.1"), &h, &trusted), ip("198.51.100.1"));
    }

    #[test]
    fn ports_brackets_and_mapped_addresses() {
        let trusted = proxies(&["127.0.0.1", "::1"]);
        assert_eq!(client_ip(ip("127.0.0.1"), &xff(&["198.51.100.1:4711"]), &trusted), ip("198.51.100.1"));
        assert_eq!(client_ip(ip("::1"), &xff(&["[2001:db8::1]:4711"]), &trusted), ip("2001:db8::1"));
        assert_eq!(client_ip(ip("::ffff:127.0.0.1"), &xff(&["2001:db8::1"]), &trusted), ip("2001:db8::1"));
        assert_eq!(client_ip(ip("127.0.0.1"), &xff(&["::ffff:198.51.100.1"]), &trusted), ip("198.51.100.1"));
    }

    #[test]
    fn proxy_entries_parse_as_addresses_or_networks() {
        assert_eq!("127.0.0.1".parse::<TrustedProxy>(), "127.0.0.1/32".parse());
        assert_eq!("10.1.2.3/8".parse::<TrustedProxy>(), "10.0.0.0/8".parse());
        assert!("::1".parse::<TrustedProxy>().is_ok());
        for bad in ["", "localhost", "10.0.0.0/33", "1.2.3.4:80", "*"] {
            assert_eq!(bad.parse::<TrustedProxy>(), Err(BadProxy(bad.to_owned())), "{bad}");
        }
    }
}
