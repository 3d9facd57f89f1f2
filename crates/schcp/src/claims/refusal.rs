//! Refusals (§9.2): one shape for every error body and for a booking's refusal.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{de, wire};

wire! {
    /// `basis`: the rule a refusal rests on, a policy and its limit (§9.2), never anything
    /// about other guests. Its other members depend on the policy (`limit`, `access`, a
    /// release schedule, …), so they are kept as JSON.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Basis {
        /// The policy, e.g. `holds.max_active_unproven`.
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub policy: String,
        /// The rule's own members, by name.
        #[serde(flatten)]
        pub other: Map<String, Value>,
    }
}

wire! {
    /// `retry` (§9.2): when trying again could help.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct Retry {
        /// When to try again (RFC 3339).
        #[serde(deserialize_with = "de::string::<_, de::k::Duration>")]
        pub after: String,
    }
}

/// What would help (§9.2 remedy types).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Remedy {
    /// A non-agent way to reach the host: its phone or web page.
    Contact {
        /// The host's phone number.
        #[serde(skip_serializing_if = "Option::is_none")]
        phone: Option<String>,
        /// The host's web page.
        #[serde(skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// Attesters the host trusts (§7.5).
    Attest {
        /// Attester ids whose attestation the host would accept (§7.5).
        attesters: Vec<String>,
    },
    /// Have the person approve this offer with a closed mandate (§5.3).
    ApproveOffer {
        /// The offer to approve, by its §5.3 hash.
        offer_sha256: String,
    },
    /// Try again after this long.
    Retry {
        /// When to retry (RFC 3339 date-time).
        after: String,
    },
}

// The derived Deserialize of an internally tagged enum also reads an array (tag
// first), so it goes through a private twin read as a map only, as `wire!` does for
// structs.
const _: () = {
    #[derive(Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields, rename = "Remedy")]
    enum Wire {
        Contact {
            #[serde(default, deserialize_with = "de::opt_string::<_, de::k::Text>")]
            phone: Option<String>,
            #[serde(default, deserialize_with = "de::opt_string::<_, de::k::Uri>")]
            url: Option<String>,
        },
        Attest {
            #[serde(deserialize_with = "de::strings1::<_, de::k::HostId>")]
            attesters: Vec<String>,
        },
        ApproveOffer {
            #[serde(deserialize_with = "de::string::<_, de::k::B64Sha256>")]
            offer_sha256: String,
        },
        Retry {
            #[serde(deserialize_with = "de::string::<_, de::k::Duration>")]
            after: String,
        },
    }

    impl<'de> Deserialize<'de> for Remedy {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let value = match Wire::deserialize(de::MapOnly(d))? {
                Wire::Contact { phone, url } => Remedy::Contact { phone, url },
                Wire::Attest { attesters } => Remedy::Attest { attesters },
                Wire::ApproveOffer { offer_sha256 } => Remedy::ApproveOffer { offer_sha256 },
                Wire::Retry { after } => Remedy::Retry { after },
            };
            value.check().map_err(serde::de::Error::custom)?;
            Ok(value)
        }
    }
};

impl Remedy {
    fn check(&self) -> Result<(), &'static str> {
        match self {
            Remedy::Contact { phone: None, url: None } => Err("a contact remedy has a phone or a url"),
            _ => Ok(()),
        }
    }
}

wire! {
    /// A refusal (§9.2): `code` is the class, `reason` a registered value under it that an
    /// agent acts on, `message` is for a person. Callers switch on `code`/`reason`, never
    /// on `message`.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct Refusal {
        /// The §9.2 class, e.g. `MANDATE_LIMIT`.
        #[serde(deserialize_with = "de::string::<_, de::k::RefusalCode>")]
        pub code: String,
        /// The registered reason under the class.
        #[serde(deserialize_with = "de::string::<_, de::k::RefusalReason>")]
        pub reason: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// A sentence for people; never matched on.
        pub message: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// The rule that refused, when the host says.
        pub basis: Option<Basis>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// When a retry could succeed.
        pub retry: Option<Retry>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// What would help.
        pub remedies: Option<Vec<Remedy>>,
        /// Per-code details (`offer_sha256` of a CONTRACT_MISMATCH, `awaiting`, …).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub details: Option<Map<String, Value>>,
    }
}

wire! {
    /// An error response body (§9): `{"error": …}`.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct ErrorResponse {
        /// The refusal.
        pub error: Refusal,
    }
}
