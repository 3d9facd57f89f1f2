//! The domain the key app itself discovered a host at (§2.1–§2.2).
//!
//! §5.2: "A key app MUST NOT show a domain that differs from the one it discovered the
//! host at; it shows the discovered domain instead." So the only domain a consent text
//! ever shows is a [`VerifiedDomain`], which only the discovery client can make; an
//! offer's own `host.domain` is never read here.
//!
//! Look-alike letters (Cyrillic "а" for Latin "a") are the classic way to pass one
//! domain off as another. A `VerifiedDomain` is therefore always shown in its ASCII
//! form (UTS #46 / IDNA, Punycode `xn--` labels), where a look-alike cannot hide: the
//! person compares plain ASCII with where they meant to book.

use std::fmt;

use crate::ConsentError;

/// A host name the key app discovered a host at, normalised to its ASCII form.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VerifiedDomain(String);

impl VerifiedDomain {
    /// Normalises a discovered host name (IDNA to ASCII, lower case, strict DNS rules).
    ///
    /// Refuses anything that is not a host name: a scheme, port, path, space or empty
    /// label has no place in a domain the person is asked to check.
    pub fn new(discovered: &str) -> Result<Self, ConsentError> {
        let trimmed = discovered.strip_suffix('.').unwrap_or(discovered);
        let ascii =
            idna::domain_to_ascii_strict(trimmed).map_err(|_| ConsentError::BadDomain(discovered.to_owned()))?;
        let well_formed = !ascii.is_empty()
            && ascii.split('.').all(|label| {
                !label.is_empty() && label.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            });
        if !well_formed {
            return Err(ConsentError::BadDomain(discovered.to_owned()));
        }
        Ok(Self(ascii))
    }

    /// The ASCII form, as shown to the person.
    pub fn as_ascii(&self) -> &str {
        &self.0
    }

    /// Whether the domain has internationalised (`xn--`) labels.
    pub fn is_internationalised(&self) -> bool {
        self.0.split('.').any(|label| label.starts_with("xn--"))
    }
}

impl fmt::Display for VerifiedDomain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_domains_are_lower_cased() {
        let d = VerifiedDomain::new("HarbourviewDental.example").unwrap();
        assert_eq!(d.as_ascii(), "harbourviewdental.example");
        assert!(!d.is_internationalised());
    }

    #[test]
    fn look_alike_letters_show_as_punycode() {
        // "аpple.example" with a Cyrillic а (U+0430).
        let d = VerifiedDomain::new("\u{0430}pple.example").unwrap();
        assert!(d.as_ascii().starts_with("xn--"), "{d}");
        assert!(d.is_internationalised());
        assert_ne!(d.as_ascii(), "apple.example");
    }

    #[test]
    fn non_host_names_are_refused() {
        for bad in ["", "a b.example", "https://x.example", "x.example:443", "x.example/path", "a..b"] {
            assert!(VerifiedDomain::new(bad).is_err(), "{bad}");
        }
    }
}
