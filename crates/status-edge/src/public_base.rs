//! The public base a status service answers at: the only non-loopback `Host`
//! a request may name (the DNS-rebinding defence), and the origin a signed
//! claim's `@target-uri` is rebuilt from (§3.2: "from its configured public
//! origin, never from the Host header").
//!
//! It is parsed once, when it is set: a base that is not an http(s) URL with
//! a host is refused there ([`PublicBase::parse`]), never found out per
//! request. The key app's person may change their own base while it runs; the
//! service then publishes the new one through its [`BaseInForce`], and every
//! request after that reads it through a [`LiveBase`] without parsing
//! anything, so a host reaches the new base at once and the old one no longer.

use tokio::sync::watch;

/// A public base URL, parsed: what `Host` and `@target-uri` are checked
/// against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicBase {
    /// The URL as set, without its trailing slash: `@target-uri` is it and
    /// the request's path.
    url: String,
    /// Its host, lower case.
    host: String,
    /// Its port, or its scheme's default.
    port: u16,
    /// Its scheme's default port, for a `Host` that names no port.
    default_port: u16,
}

/// Why a base cannot be a public base: it is not an http(s) URL with a host.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an http(s) URL with a host")]
pub struct NotABase(pub String);

impl PublicBase {
    /// `base` parsed, or refused when it is not an http(s) URL with a host.
    pub fn parse(base: &str) -> Result<PublicBase, NotABase> {
        let refused = || NotABase(base.to_owned());
        let uri: axum::http::Uri = base.parse().map_err(|_| refused())?;
        let default_port = match uri.scheme_str() {
            Some("https") => 443,
            Some("http") => 80,
            _ => return Err(refused()),
        };
        let authority = uri.authority().ok_or_else(refused)?;
        Ok(PublicBase {
            url: base.trim_end_matches('/').to_owned(),
            host: authority.host().to_ascii_lowercase(),
            port: authority.port_u16().unwrap_or(default_port),
            default_port,
        })
    }

    /// The URL, without its trailing slash.
    pub fn as_str(&self) -> &str {
        &self.url
    }

    /// Whether `named` (a request's `Host`: host and optional port) is this
    /// base's host (any case) and port (the scheme's default when it names none).
    pub fn is_named_by(&self, named: &str) -> bool {
        let Ok(authority) = named.parse::<axum::http::uri::Authority>() else { return false };
        authority.host().eq_ignore_ascii_case(&self.host)
            && authority.port_u16().unwrap_or(self.default_port) == self.port
    }
}

/// The public base in force, kept by whoever may change it (the key app's
/// service): [`BaseInForce::publish`] is the one write, at a change; the
/// edges read it through [`BaseInForce::reader`].
#[derive(Debug)]
pub struct BaseInForce {
    sender: watch::Sender<Option<PublicBase>>,
}

impl BaseInForce {
    /// `base` in force (`None`: loopback `Host` values only).
    pub fn new(base: Option<PublicBase>) -> BaseInForce {
        BaseInForce { sender: watch::Sender::new(base) }
    }

    /// Puts `base` in force: the very next request is checked against it.
    pub fn publish(&self, base: Option<PublicBase>) {
        self.sender.send_replace(base);
    }

    /// What an edge reads the base in force through.
    pub fn reader(&self) -> LiveBase {
        LiveBase(self.sender.subscribe())
    }
}

/// Reads the public base in force now, as last published: a read lock and
/// nothing parsed, whatever the number of requests.
#[derive(Debug, Clone)]
pub struct LiveBase(watch::Receiver<Option<PublicBase>>);

impl LiveBase {
    /// A base that never changes (the hosted service's, from its config).
    pub fn fixed(base: Option<PublicBase>) -> LiveBase {
        // The receiver keeps the last value once its sender is gone.
        BaseInForce::new(base).reader()
    }

    /// `f` of the base in force. `f` must not wait: the publisher's next
    /// change waits for it.
    pub fn with<T>(&self, f: impl FnOnce(Option<&PublicBase>) -> T) -> T {
        f(self.0.borrow().as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_is_an_http_url_with_a_host() {
        let base = PublicBase::parse("https://KeyApp.example/base/").unwrap();
        assert_eq!(
            (base.as_str(), base.host.as_str(), base.port),
            ("https://KeyApp.example/base", "keyapp.example", 443)
        );
        assert_eq!(PublicBase::parse("http://k.example:8080").unwrap().port, 8080);
        for bad in ["", "keyapp.example", "/status", "ftp://keyapp.example", "https://", "https://a b.example", "💥"]
        {
            assert_eq!(PublicBase::parse(bad), Err(NotABase(bad.to_owned())), "{bad:?}");
        }
    }

    #[test]
    fn a_published_base_is_read_at_the_very_next_read_and_the_old_one_no_longer() {
        let in_force = BaseInForce::new(Some(PublicBase::parse("https://old.example").unwrap()));
        let reader = in_force.reader();
        let named = |r: &LiveBase, h: &str| r.with(|b| b.is_some_and(|b| b.is_named_by(h)));
        assert!(named(&reader, "old.example") && !named(&reader, "new.example"));
        in_force.publish(Some(PublicBase::parse("https://new.example").unwrap()));
        assert!(named(&reader, "new.example") && !named(&reader, "old.example"));
        // A reader made before and one made after agree.
        assert!(named(&in_force.reader(), "new.example"));
        in_force.publish(None);
        assert!(!named(&reader, "new.example"));
        // A fixed base outlives its publisher.
        let fixed = LiveBase::fixed(PublicBase::parse("https://k.example").ok());
        assert!(named(&fixed, "k.example:443") && !named(&fixed, "k.example:80"));
    }
}
