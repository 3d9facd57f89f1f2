//! Typed claims of every SchCP object the key app reads or writes.
//!
//! One module per object. The types mirror `schemas/schcp.schema.json` exactly:
//!
//! - Signed objects (mandates, offers, receipts, bookings, events, contracts,
//!   acceptances, rules, attestations, holds, booking responses) are closed at every
//!   depth (§5.2 "Claims are closed"): `#[serde(deny_unknown_fields)]` everywhere.
//! - Discovery and operator documents are open (§2.1): unknown members are ignored.
//! - Optional members are `Option<T>`, skipped when `None`, so a serialized value
//!   validates again; an explicit `null` is refused where the schema refuses it.
//! - Grammars (dates, durations, hashes, ids) are checked on the way in against the
//!   schema's own definitions (see `de`), and rules across members (`price` needs
//!   `total` and `lines`, …) by each type's `check`, so a value that deserializes is a
//!   value that validates, and the other way round (`tests/vectors_schema.rs`).
//!
//! Dates stay RFC 3339 `String`s, durations ISO 8601 `String`s and amounts decimal
//! `String`s here: parsing them into values is `crate::datetime`, `crate::duration`
//! and `crate::money`'s job.

use serde::{Deserialize, Serialize};

use crate::jwk::Jwk;
use crate::schema::Def;

pub(crate) mod de;

mod attestation;
mod booking;
mod discovery;
mod mandate;
mod meeting;
mod offer;
mod receipt;
mod refusal;
mod rule;

pub use attestation::*;
pub use booking::*;
pub use discovery::*;
pub use mandate::*;
pub use meeting::*;
pub use offer::*;
pub use receipt::*;
pub use refusal::*;
pub use rule::*;

/// A claims type and the schema definition it mirrors.
pub trait SchemaDef: Serialize + for<'de> Deserialize<'de> + std::fmt::Debug + Clone + PartialEq {
    /// The `$defs` entry this type mirrors.
    const DEF: Def;
}

macro_rules! schema_defs {
    ($($t:ty => $def:ident),* $(,)?) => {
        $( impl SchemaDef for $t { const DEF: Def = Def::$def; } )*
    };
}

schema_defs! {
    MandateClaims => MandateClaims,
    SdJwtMandateClaims => SdJwtMandateClaims,
    OfferClaims => OfferClaims,
    ReceiptClaims => ReceiptClaims,
    Booking => Booking,
    Event => Event,
    BookingResponse => BookingResponse,
    Hold => Hold,
    Proposal => Proposal,
    MeetingContract => MeetingContract,
    Acceptance => Acceptance,
    RuleClaims => Rule,
    AttestationClaims => Attestation,
    Discovery => Discovery,
    OperatorDocument => Operator,
    Refusal => Refusal,
    ErrorResponse => Error,
    Money => Money,
    Place => Place,
    Constraints => Constraints,
}

/// Defines a claims struct once and gives it serde's derived `Serialize` and a
/// `Deserialize` that goes through the checks the derive cannot make:
///
/// - the JSON must be an object: serde's derived structs also accept an array of the
///   field values (`["Mira"]` as an `Attendee`), which the schema refuses (`de::MapOnly`);
/// - `check = Type::check;` adds the rules across members (`price` needs `total` and
///   `lines`, …).
///
/// The derived `Deserialize` lives on a private twin of the struct (same name, same
/// fields, same attributes, in a hidden module), so the public type has no way in that
/// skips these checks. (serde's `remote = "Self"` would have left a public inherent
/// `deserialize` that does.)
macro_rules! wire {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$fattr:meta])* $fvis:vis $field:ident : $fty:ty ),* $(,)?
        }
        $( check = $check:expr; )?
    ) => {
        #[derive(::serde::Serialize)]
        $(#[$attr])*
        $vis struct $name {
            $( $(#[$fattr])* $fvis $field : $fty ),*
        }

        const _: () = {
            mod wire {
                #[allow(unused_imports)]
                use super::*;

                #[derive(::serde::Deserialize)]
                $(#[$attr])*
                #[allow(dead_code)]
                pub(super) struct $name {
                    $( $(#[$fattr])* pub(super) $field : $fty ),*
                }
            }

            impl<'de> ::serde::Deserialize<'de> for $name {
                fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    let wire::$name { $( $field ),* } =
                        ::serde::Deserialize::deserialize($crate::claims::de::MapOnly(d))?;
                    let value = $name { $( $field ),* };
                    $( ($check)(&value).map_err(<D::Error as ::serde::de::Error>::custom)?; )?
                    Ok(value)
                }
            }
        };
    };
}
pub(crate) use wire;

wire! {
    /// A public JWK as it is read from signed claims (§3.2, §3.4): the strict wire form of
    /// `crate::jwk::Jwk`. Ed25519 (`OKP`) anywhere, P-256 (`EC`) in the SD-JWT VC profile
    /// only; never a private `d`, never another member, never a `null`, and the member
    /// values the schema's `Jwk`/`EcJwk` state. Fields that must be Ed25519 check that too
    /// (`de::ed25519_jwk`).
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct StrictJwk {
        kty: String,
        crv: String,
        x: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        y: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        kid: Option<String>,
        #[serde(
            rename = "use",
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        use_: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        alg: Option<String>,
    }
    check = StrictJwk::check;
}

impl StrictJwk {
    fn check(&self) -> Result<(), &'static str> {
        // The member values (kty/crv pairs, key lengths) are the schema's Jwk and EcJwk.
        let value = serde_json::to_value(self).map_err(|_| "unserializable JWK")?;
        if crate::schema::is_valid(Def::SdJwtIssuerJwk, &value) {
            Ok(())
        } else {
            Err("not an Ed25519 or P-256 public JWK")
        }
    }
}

impl From<StrictJwk> for Jwk {
    fn from(w: StrictJwk) -> Jwk {
        let StrictJwk { kty, crv, x, y, kid, use_, alg } = w;
        Jwk { kty, crv, x, y, kid, use_, alg }
    }
}

wire! {
    /// Money (§2.1): a decimal string and an ISO 4217 code, never a float. Arithmetic,
    /// minor units and canonical form are `crate::money`'s.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct Money {
        /// Decimal string, e.g. `"79.00"`.
        #[serde(deserialize_with = "de::string::<_, de::k::Amount>")]
        pub amount: String,
        /// ISO 4217 code, e.g. `"CAD"`.
        #[serde(deserialize_with = "de::string::<_, de::k::Currency>")]
        pub currency: String,
    }
}

impl Money {
    /// Money from its two strings, unchecked (checking is `crate::money`'s).
    pub fn new(amount: impl Into<String>, currency: impl Into<String>) -> Self {
        Money { amount: amount.into(), currency: currency.into() }
    }
}

wire! {
    /// Where a booking happens when not at the host's (§5.2). At least one member.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    #[serde(deny_unknown_fields)]
    pub struct Place {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// The place's name.
        pub name: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// Street address.
        pub street: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// City or town.
        pub locality: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// Province, state or region.
        pub region: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// Postal code.
        pub postal_code: Option<String>,
        /// ISO 3166-1 alpha-2.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Country>"
        )]
        pub country: Option<String>,
    }
    check = Place::check;
}

impl Place {
    fn check(&self) -> Result<(), &'static str> {
        let Place { name, street, locality, region, postal_code, country } = self;
        if [name, street, locality, region, postal_code, country].iter().all(|m| m.is_none()) {
            return Err("a place has at least one member");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    struct Holder {
        #[serde(deserialize_with = "de::ed25519_jwk")]
        jwk: Jwk,
    }

    #[test]
    fn jwk_refuses_private_extra_and_foreign_members() {
        let x = "2sKbc3NNsyAlWKn5CQZZao4pnnjr_NI2P3tEPjk41Fg";
        let ok: Holder = serde_json::from_value(json!({"jwk": {"kty": "OKP", "crv": "Ed25519", "x": x, "kid": "k1"}}))
            .expect("Ed25519 JWK");
        assert_eq!(ok.jwk.x, x);
        assert_eq!(ok.jwk.kid.as_deref(), Some("k1"));
        for bad in [
            json!({"kty": "OKP", "crv": "Ed25519", "x": x, "d": x}),
            json!({"kty": "OKP", "crv": "Ed25519", "x": x, "ext": true}),
            json!({"kty": "OKP", "crv": "Ed25519", "x": x, "kid": null}),
            json!({"kty": "OKP", "crv": "X25519", "x": x}),
            json!({"kty": "OKP", "crv": "Ed25519", "x": "short"}),
            json!({"kty": "OKP", "crv": "Ed25519", "x": x, "y": x}),
            json!({"kty": "EC", "crv": "P-256", "x": x, "y": x}),
            json!(["OKP", "Ed25519", x]),
        ] {
            assert!(serde_json::from_value::<Holder>(json!({"jwk": bad})).is_err(), "{bad}");
        }
    }

    #[test]
    fn explicit_deserialize_goes_through_the_rules() {
        // `wire!` leaves no inherent `deserialize` (serde's `remote = "Self"` would),
        // so even an explicit call is the checked trait impl.
        assert!(Slot::deserialize(json!(["2026-10-15T13:00:00Z"])).is_err());
        assert!(Place::deserialize(json!({})).is_err());
        let offer = json!({"v": "0.4", "kind": "booking", "iss": "h", "hold_id": "h_1",
            "iat": 1, "exp": 2, "service": {"id": "s", "name": "S"},
            "slot": {"start": "2026-10-15T13:00:00Z", "end": "2026-10-15T14:00:00Z"},
            "lines": [{"kind": "service", "label": "S", "amount": {"amount": "1", "currency": "CAD"}}],
            "retention": "P1D"});
        assert!(OfferClaims::deserialize(offer).is_err(), "lines without total");
    }

    #[test]
    fn place_is_never_empty() {
        assert!(serde_json::from_value::<Place>(json!({})).is_err());
        assert!(serde_json::from_value::<Place>(json!({"name": null})).is_err());
        assert!(serde_json::from_value::<Place>(json!(["Park"])).is_err());
        assert!(serde_json::from_value::<Place>(json!({"name": "Park"})).is_ok());
    }
}
