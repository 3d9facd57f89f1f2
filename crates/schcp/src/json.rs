//! Strict JSON for signed objects (§3.1 "Parsing signed JSON").
//!
//! A JWS header or payload, an SchCP-Agent-Key value or a request body with a
//! duplicate member name is invalid, so two parsers can never read different
//! claims from the same bytes. `serde_json` silently keeps the last duplicate,
//! so values are built here through a visitor that refuses one at any depth.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Why bytes are not the JSON SchCP accepts (§3.1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JsonError {
    /// The bytes are not UTF-8.
    #[error("not UTF-8: signed claims and request bodies are UTF-8 (§3.1)")]
    NotUtf8,
    /// An object names this member twice (§3.1: refused, never last-wins).
    #[error("duplicate member name {0:?} (§3.1)")]
    DuplicateMember(String),
    /// Not JSON at all; the parser's words.
    #[error("malformed JSON: {0}")]
    Malformed(String),
}

/// Parses `bytes` as one JSON value, refusing duplicate member names at any depth.
pub fn parse(bytes: &[u8]) -> Result<Value, JsonError> {
    let text = std::str::from_utf8(bytes).map_err(|_| JsonError::NotUtf8)?;
    let mut de = serde_json::Deserializer::from_str(text);
    let value = StrictValue.deserialize(&mut de).map_err(classify)?;
    de.end().map_err(classify)?;
    Ok(value)
}

/// Parses and then deserializes into a typed value (closed types refuse
/// unknown members through `deny_unknown_fields`).
pub fn parse_as<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, JsonError> {
    let value = parse(bytes)?;
    serde_json::from_value(value).map_err(|e| JsonError::Malformed(e.to_string()))
}

const DUP_PREFIX: &str = "schcp-duplicate-member:";

fn classify(e: serde_json::Error) -> JsonError {
    let text = e.to_string();
    match text.strip_prefix(DUP_PREFIX) {
        // serde_json appends " at line L column C"; the name is what precedes it.
        Some(rest) => {
            let name = rest.rsplit_once(" at line ").map_or(rest, |(n, _)| n);
            JsonError::DuplicateMember(name.to_owned())
        }
        None => JsonError::Malformed(text),
    }
}

struct StrictValue;

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v).map(Value::Number).ok_or_else(|| E::custom("number out of range"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(StrictValue)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if members.contains_key(&key) {
                return Err(de::Error::custom(format_args!("{DUP_PREFIX}{key}")));
            }
            let value = map.next_value_seed(StrictValue)?;
            members.insert(key, value);
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ordinary_json() {
        let v = parse(br#"{"a":1,"b":[true,null,"x",{"c":2.5}]}"#).unwrap();
        assert_eq!(v["b"][3]["c"], 2.5);
    }

    #[test]
    fn refuses_duplicate_at_top_level() {
        assert_eq!(parse(br#"{"aud":"a","aud":"b"}"#), Err(JsonError::DuplicateMember("aud".into())));
    }

    #[test]
    fn refuses_duplicate_nested_in_arrays_and_objects() {
        let r = parse(br#"{"x":[{"k":1},{"slot":{"start":"a","start":"b"}}]}"#);
        assert_eq!(r, Err(JsonError::DuplicateMember("start".into())));
    }

    #[test]
    fn escaped_spelling_of_the_same_name_is_a_duplicate() {
        // "\u0061ud" is "aud": the names are equal after unescaping.
        let r = parse(br#"{"aud":"a","\u0061ud":"b"}"#);
        assert_eq!(r, Err(JsonError::DuplicateMember("aud".into())));
    }

    #[test]
    fn same_name_in_different_objects_is_fine() {
        assert!(parse(br#"{"a":{"n":1},"b":{"n":2}}"#).is_ok());
    }

    #[test]
    fn refuses_non_utf8_and_lone_surrogates() {
        assert_eq!(parse(b"{\"a\":\"\xff\"}"), Err(JsonError::NotUtf8));
        assert!(matches!(parse(br#"{"a":"\ud800"}"#), Err(JsonError::Malformed(_))));
    }

    #[test]
    fn refuses_trailing_garbage_and_truncation() {
        assert!(matches!(parse(br#"{"a":1} x"#), Err(JsonError::Malformed(_))));
        assert!(matches!(parse(br#"{"a":1"#), Err(JsonError::Malformed(_))));
        assert!(matches!(parse(b""), Err(JsonError::Malformed(_))));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000);
        assert!(matches!(parse(deep.as_bytes()), Err(JsonError::Malformed(_))));
    }
}
