//! Attestations (§7.5): an attester binds a check it made (a phone number, a card) to
//! one principal key.

use super::{de, wire};

wire! {
    /// Claims of a `schcp-attestation+jwt` (§7.5). Closed.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct AttestationClaims {
        /// The attester's id, as hosts list it in `trust.attesters`.
        #[serde(deserialize_with = "de::string::<_, de::k::HostId>")]
        pub iss: String,
        /// The principal the attestation is about.
        #[serde(deserialize_with = "de::string::<_, de::k::PrincipalId>")]
        pub sub: String,
        /// When the attester checked (NumericDate).
        #[serde(deserialize_with = "de::numeric_date")]
        pub iat: i64,
        /// When the attestation lapses (NumericDate).
        #[serde(deserialize_with = "de::numeric_date")]
        pub exp: i64,
        /// What the attester checked, e.g. `unique_phone`.
        #[serde(deserialize_with = "de::string::<_, de::k::Assurance>")]
        pub assurance: String,
    }
}
