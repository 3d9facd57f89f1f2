//! Deserialization helpers that make the typed claims refuse exactly what the schema
//! refuses: the typed claims and the schema must agree, or one would let in what
//! the other refuses.
//!
//! Strings with a grammar (dates, durations, hashes, ids) stay `String`s in the types,
//! but are checked on the way in against the schema's own primitive definition, so the
//! grammar lives in one place: `schemas/schcp.schema.json`.
//!
//! serde reads `null` as `None` for an `Option`, and a missing `Option` as `None`; the
//! schema refuses a `null` where it allows absence. Optional members therefore use
//! [`present`] (or an `opt_*` helper) with `#[serde(default)]`: absent is `None`,
//! `null` is an error. Members that are required but may be `null` use `nullable_*`,
//! which (having no `default`) refuse absence.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde_json::Value;

use super::StrictJwk;
use crate::jwk::Jwk;
use crate::schema::{self, Def};

/// A string grammar, named by the schema definition that states it.
pub(crate) trait Kind {
    const DEF: Def;
}

/// Marker types for [`Kind`], one per string definition of the schema.
pub(crate) mod k {
    use super::Kind;
    use crate::schema::Def;

    macro_rules! kinds {
        ($($name:ident),* $(,)?) => {
            $(
                pub(crate) enum $name {}
                impl Kind for $name {
                    const DEF: Def = Def::$name;
                }
            )*
        };
    }

    kinds!(
        DateTime,
        UtcDateTime,
        LocalDateTime,
        Uri,
        Hostname,
        Text,
        Id,
        HostId,
        Audience,
        B64Sha256,
        PrincipalId,
        CompactJws,
        TimeZone,
        Duration,
        Retention,
        Currency,
        Amount,
        ServiceDuration,
        SetAside,
        LocalTime,
        Country,
        Assurance,
        RefusalCode,
        RefusalReason,
        Version,
    );
}

fn checked<E: de::Error, K: Kind>(s: String) -> Result<String, E> {
    let value = Value::String(s);
    if schema::is_valid(K::DEF, &value) {
        let Value::String(s) = value else { unreachable!("built as a string above") };
        Ok(s)
    } else {
        Err(E::custom(format_args!("invalid {}: {}", K::DEF, shorten(&value))))
    }
}

/// A JSON rendering short enough for an error message.
fn shorten(value: &Value) -> String {
    let mut text = value.to_string();
    if text.chars().count() > 80 {
        text = text.chars().take(77).collect::<String>() + "...";
    }
    text
}

/// A deserializer that reads only a map, for the derived `Deserialize` of a struct:
/// serde's derived structs (and internally tagged enums) also accept a sequence of the
/// field values, which the schema, whose objects are objects, refuses.
pub(crate) struct MapOnly<D>(pub(crate) D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for MapOnly<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// A required string of grammar `K`.
pub(crate) fn string<'de, D: Deserializer<'de>, K: Kind>(d: D) -> Result<String, D::Error> {
    checked::<_, K>(String::deserialize(d)?)
}

/// An optional string of grammar `K` (use with `#[serde(default)]`; `null` is refused).
pub(crate) fn opt_string<'de, D: Deserializer<'de>, K: Kind>(d: D) -> Result<Option<String>, D::Error> {
    string::<D, K>(d).map(Some)
}

/// A required string of grammar `K` that may be `null` (absence is refused).
pub(crate) fn nullable_string<'de, D: Deserializer<'de>, K: Kind>(d: D) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(d)?.map(checked::<_, K>).transpose()
}

/// An array of strings of grammar `K`, possibly empty.
pub(crate) fn strings<'de, D: Deserializer<'de>, K: Kind>(d: D) -> Result<Vec<String>, D::Error> {
    Vec::<String>::deserialize(d)?.into_iter().map(checked::<_, K>).collect()
}

/// A non-empty array of strings of grammar `K`.
pub(crate) fn strings1<'de, D: Deserializer<'de>, K: Kind>(d: D) -> Result<Vec<String>, D::Error> {
    let v = strings::<D, K>(d)?;
    if v.is_empty() {
        return Err(de::Error::invalid_length(0, &"at least one element"));
    }
    Ok(v)
}

/// An optional array of strings of grammar `K`, possibly empty.
pub(crate) fn opt_strings<'de, D: Deserializer<'de>, K: Kind>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    strings::<D, K>(d).map(Some)
}

/// An optional non-empty array of strings of grammar `K`.
pub(crate) fn opt_strings1<'de, D: Deserializer<'de>, K: Kind>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    strings1::<D, K>(d).map(Some)
}

/// An optional member of any type: absent is `None` (with `#[serde(default)]`), `null`
/// is refused unless `T` itself accepts it.
pub(crate) fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// A non-empty array.
pub(crate) fn non_empty<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    let v = Vec::<T>::deserialize(d)?;
    if v.is_empty() {
        return Err(de::Error::invalid_length(0, &"at least one element"));
    }
    Ok(v)
}

/// An optional non-empty array.
pub(crate) fn opt_non_empty<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Vec<T>>, D::Error> {
    non_empty(d).map(Some)
}

/// `open_end` (§4.2): only ever `true` (the schema's `const: true`); absent otherwise,
/// so a value read is `Some(true)` or `None`.
pub(crate) fn opt_true<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    if bool::deserialize(d)? {
        Ok(Some(true))
    } else {
        Err(de::Error::custom("open_end is true or absent"))
    }
}

/// A JSON number that is a whole number within `MIN..=MAX`. §2.1: numbers follow JSON
/// Schema, so `1792000000.0` is an integer.
struct Whole<const MIN: u64, const MAX: u64>;

impl<const MIN: u64, const MAX: u64> Whole<MIN, MAX> {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(Self)
    }
}

impl<'de, const MIN: u64, const MAX: u64> Visitor<'de> for Whole<MIN, MAX> {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an integer from {MIN} to {MAX}")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        if (MIN..=MAX).contains(&v) {
            Ok(v)
        } else {
            Err(E::invalid_value(de::Unexpected::Unsigned(v), &self))
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
        // MIN and MAX are far below 2^53, so a whole f64 in range converts exactly.
        if v.fract() == 0.0 && v >= MIN as f64 && v <= MAX as f64 {
            Ok(v as u64)
        } else {
            Err(E::invalid_value(de::Unexpected::Float(v), &self))
        }
    }
}

/// The schema's NumericDate bound: 9999-12-31T23:59:59Z.
const NUMERIC_DATE_MAX: u64 = 253_402_300_799;
const U32_MAX: u64 = u32::MAX as u64;

/// RFC 7519 NumericDate (`iat`, `exp`).
pub(crate) fn numeric_date<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    // NUMERIC_DATE_MAX < i64::MAX, so the conversion cannot wrap.
    Whole::<0, NUMERIC_DATE_MAX>::read(d).map(|v| v as i64)
}

/// A count from 0 (`sequence`, policy limits).
pub(crate) fn count<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    Whole::<0, U32_MAX>::read(d).map(|v| v as u32)
}

/// An optional count from 0.
pub(crate) fn opt_count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    count(d).map(Some)
}

/// A count from 1 (`max_bookings`, `party_size`, `revision`).
pub(crate) fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    Whole::<1, U32_MAX>::read(d).map(|v| v as u32)
}

/// An optional count from 1.
pub(crate) fn opt_positive<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    positive(d).map(Some)
}

/// An optional JSON number (a percentage, §2.1), refusing `null`.
pub(crate) fn opt_percent<'de, D: Deserializer<'de>>(d: D) -> Result<Option<serde_json::Number>, D::Error> {
    let n = serde_json::Number::deserialize(d)?;
    if n.as_f64().is_some_and(|f| f >= 0.0) {
        Ok(Some(n))
    } else {
        Err(de::Error::custom("a percentage is a number from 0"))
    }
}

fn ed25519<E: de::Error>(jwk: StrictJwk) -> Result<Jwk, E> {
    // §3.4: everything but the SD-JWT VC profile is Ed25519 only (the Jwk schema).
    let value = serde_json::to_value(&jwk).map_err(E::custom)?;
    if schema::is_valid(Def::Jwk, &value) {
        Ok(jwk.into())
    } else {
        Err(E::custom("an Ed25519 (OKP) public key is required here"))
    }
}

/// A required Ed25519 public JWK.
pub(crate) fn ed25519_jwk<'de, D: Deserializer<'de>>(d: D) -> Result<Jwk, D::Error> {
    ed25519(StrictJwk::deserialize(d)?)
}

/// An optional Ed25519 public JWK.
pub(crate) fn opt_ed25519_jwk<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Jwk>, D::Error> {
    ed25519_jwk(d).map(Some)
}

/// A non-empty array of Ed25519 public JWKs.
pub(crate) fn ed25519_jwks<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Jwk>, D::Error> {
    let keys = non_empty::<D, StrictJwk>(d)?;
    keys.into_iter().map(ed25519).collect()
}

/// The discovery keys (§2.1): non-empty, Ed25519, each with a kid.
pub(crate) fn discovery_keys<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Jwk>, D::Error> {
    let keys = ed25519_jwks(d)?;
    if keys.iter().any(|k| k.kid.is_none()) {
        return Err(de::Error::custom("every discovery key has a kid"));
    }
    Ok(keys)
}
