//! Rules (§7.9): a person's signed, standing yes that their calendar agent may give.

use serde::{Deserialize, Serialize};

use crate::jwk::Jwk;

use super::{de, wire, Cnf};

/// A day of the week, read in the rule's `tz` (§7.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Weekday {
    /// Monday.
    Mon,
    /// Tuesday.
    Tue,
    /// Wednesday.
    Wed,
    /// Thursday.
    Thu,
    /// Friday.
    Fri,
    /// Saturday.
    Sat,
    /// Sunday.
    Sun,
}

wire! {
    /// Claims of a `schcp-rule+jwt` (§7.9). `services`, `weekdays` and `organizers` narrow
    /// what it covers; an absent one does not. Closed.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct RuleClaims {
        /// The person who signed it.
        #[serde(deserialize_with = "de::string::<_, de::k::PrincipalId>")]
        pub iss: String,
        /// The signer's public key; `iss` is its principal (self-certifying).
        #[serde(deserialize_with = "de::ed25519_jwk")]
        pub principal_jwk: Jwk,
        /// When it was issued (NumericDate).
        #[serde(deserialize_with = "de::numeric_date")]
        pub iat: i64,
        /// When it stops being in force (NumericDate, no skew, §7.9).
        #[serde(deserialize_with = "de::numeric_date")]
        pub exp: i64,
        /// Its id.
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub jti: String,
        /// The one agent key that may answer by this rule.
        pub cnf: Cnf,
        /// The rule in the person's own words, shown wherever it is used.
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub label: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_strings1::<_, de::k::Id>"
        )]
        /// The services it covers; absent: any.
        pub services: Option<Vec<String>>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_non_empty"
        )]
        /// The weekdays it covers, read in `tz`; absent: any.
        pub weekdays: Option<Vec<Weekday>>,
        /// Required with `weekdays`.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::TimeZone>"
        )]
        pub tz: Option<String>,
        /// Principals whose meetings it covers.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_strings1::<_, de::k::PrincipalId>"
        )]
        pub organizers: Option<Vec<String>>,
    }
    check = RuleClaims::check;
}

impl RuleClaims {
    fn check(&self) -> Result<(), &'static str> {
        if self.weekdays.is_some() && self.tz.is_none() {
            return Err("a rule with weekdays names the tz they are read in");
        }
        Ok(())
    }
}
