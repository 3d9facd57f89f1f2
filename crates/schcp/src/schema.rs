//! The SchCP JSON Schemas (`schemas/schcp.schema.json`), embedded and compiled once.
//!
//! §2.1 "Formats": validators MUST assert `format`, which 2020-12 otherwise treats as an
//! annotation, so every validator here is built with `should_validate_formats(true)`.
//! The root document is registered under its `$id` before anything is compiled, and the
//! `jsonschema` crate is built without its resolver features, so a `$ref` is never
//! fetched over the network: a reference the embedded document does not hold fails to
//! compile (a bug the tests catch), it is never looked up.
//!
//! Each definition is compiled the first time it is used and kept for the life of the
//! process: compiling costs far more than validating, so it is done once, not per call.

use std::sync::{LazyLock, OnceLock};

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, Registry, Validator};
use serde_json::Value;

/// The schema document, exactly as published.
pub const SCHEMA_JSON: &str = include_str!("../../../schemas/schcp.schema.json");

/// The `$id` of the schema document (§ Versions: schemas 0.N go with spec v0.N).
pub const SCHEMA_ID: &str = "https://schcp.org/schemas/0.4/schcp.schema.json";

macro_rules! defs {
    ($( $(#[$doc:meta])* $name:ident ),* $(,)?) => {
        /// A definition (`$defs` entry) of the SchCP schema.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Def {
            $( $(#[$doc])* $name, )*
        }

        impl Def {
            /// Every definition, in declaration order.
            pub const ALL: &'static [Def] = &[ $( Def::$name, )* ];

            /// The `$defs` key, as it appears in the schema document.
            pub const fn name(self) -> &'static str {
                match self { $( Def::$name => stringify!($name), )* }
            }
        }
    };
}

defs! {
    // Signed objects: closed at every depth (§5.2 "Claims are closed").
    /// §3.3: claims of a `schcp-mandate+jwt` (root or child).
    MandateClaims,
    /// §3.4: issuer-signed claims of a `dc+sd-jwt` mandate.
    SdJwtMandateClaims,
    /// §5.2, §5.7: claims of a `schcp-offer+jwt`.
    OfferClaims,
    /// §5.3: claims of a `schcp-receipt+jwt`.
    ReceiptClaims,
    /// §5.3, §5.5: a booking.
    Booking,
    /// §5.3: the JSCalendar event subset a booking carries.
    Event,
    /// §5.3: the response of every operation that returns a booking.
    BookingResponse,
    /// §5.2: a hold.
    Hold,
    /// §5.7, §5.8: an open change offer or an accepted move awaiting the host.
    Proposal,
    /// §5.12: claims of a `schcp-meeting+jwt`.
    MeetingContract,
    /// §5.12: claims of a `schcp-acceptance+jwt`.
    Acceptance,
    /// §7.9: claims of a `schcp-rule+jwt`.
    Rule,
    /// §7.5: claims of a `schcp-attestation+jwt`.
    Attestation,
    // Unsigned, open documents (§2.1).
    /// §2.1: a discovery document.
    Discovery,
    /// §2.3: an operator document.
    Operator,
    // §9.
    /// §9.2: a refusal (an error's body, a booking's refusal).
    Refusal,
    /// §9: an error response, `{"error": Refusal}`.
    Error,
    // Parts and primitives.
    /// §2.1: a duration.
    Duration,
    /// §2.1: a retention (weeks or days).
    Retention,
    /// §2.1: an amount of money.
    Money,
    /// §2.1: a decimal amount string.
    Amount,
    /// ISO 4217 alphabetic code.
    Currency,
    /// §5.2: a place.
    Place,
    /// §3.4: an Ed25519 public JWK.
    Jwk,
    /// §3.4: a P-256 public JWK (SD-JWT VC profile only).
    EcJwk,
    /// §3.4: an Ed25519 or P-256 public JWK.
    SdJwtIssuerJwk,
    /// §2.1: a host signing key in discovery (Ed25519 with a kid).
    DiscoveryKey,
    /// RFC 3339 date-time with an offset.
    DateTime,
    /// RFC 8984 UTCDateTime.
    UtcDateTime,
    /// RFC 8984 LocalDateTime.
    LocalDateTime,
    /// RFC 7519 NumericDate.
    NumericDate,
    /// RFC 3986 URI.
    Uri,
    /// DNS host name.
    Hostname,
    /// Non-empty text.
    Text,
    /// Opaque identifier.
    Id,
    /// Host id.
    HostId,
    /// Host id or the `*` wildcard.
    Audience,
    /// base64url SHA-256 digest or thumbprint.
    B64Sha256,
    /// `urn:schcp:principal:jwk-thumbprint:…`.
    PrincipalId,
    /// `urn:schcp:host:…`.
    HostPrincipal,
    /// Compact JWS.
    CompactJws,
    /// IANA time zone name.
    TimeZone,
    /// A service's duration or `open`.
    ServiceDuration,
    /// An open-ended service's set-aside or `until_close`.
    SetAside,
    /// `HH:MM` local time.
    LocalTime,
    /// ISO 3166-1 alpha-2 country code.
    Country,
    /// §7.5: what an attester checked.
    Assurance,
    /// §9.2: a refusal's code.
    RefusalCode,
    /// §9.2: a refusal's reason.
    RefusalReason,
    /// § Versions: `"0.4"`.
    Version,
    /// A mandate's constraints.
    Constraints,
    /// §3.4: `host_constraints`.
    HostConstraints,
}

impl std::fmt::Display for Def {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An instance does not match a definition. Carries the first error only: enough to say
/// what was refused and where (`/slot/cancellation_fee: additional property`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{def}: {path}: {message}")]
#[non_exhaustive]
pub struct SchemaError {
    /// The definition validated against.
    pub def: Def,
    /// JSON Pointer to the offending value (`""` for the instance itself). For an
    /// unexpected member it points at the member (`/slot/cancellation_fee`).
    pub path: String,
    /// What is wrong there, in the validator's words.
    pub message: String,
}

/// Validates `instance` against `$defs/<def>`, with format assertion on.
pub fn validate(def: Def, instance: &Value) -> Result<(), SchemaError> {
    let Err(err) = validator(def).validate(instance) else {
        return Ok(());
    };
    let mut path = err.instance_path().to_string();
    // The validator's own words, except where they would repeat the whole instance.
    let message = match err.kind() {
        // Point at the member itself, the way a person reads "unknown term".
        ValidationErrorKind::AdditionalProperties { unexpected } if !unexpected.is_empty() => {
            path.push('/');
            path.push_str(&escape_pointer_token(&unexpected[0]));
            "additional property".to_owned()
        }
        ValidationErrorKind::Not { schema } => format!("must not match {schema}"),
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
            "matches none of the allowed forms".to_owned()
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => "matches more than one of the allowed forms".to_owned(),
        _ => err.to_string(),
    };
    Err(SchemaError { def, path, message: shorten(message) })
}

/// Whether `instance` matches `$defs/<def>`. Faster than [`validate`] when the reason
/// is not needed.
pub fn is_valid(def: Def, instance: &Value) -> bool {
    validator(def).is_valid(instance)
}

/// The parsed schema document.
pub fn document() -> &'static Value {
    &DOCUMENT
}

static DOCUMENT: LazyLock<Value> =
    LazyLock::new(|| serde_json::from_str(SCHEMA_JSON).expect("schemas/schcp.schema.json is valid JSON"));

/// The root document registered under its `$id`, so `$ref`s resolve without retrieval.
static REGISTRY: LazyLock<Registry<'static>> = LazyLock::new(|| {
    Registry::new()
        .add(SCHEMA_ID, DOCUMENT.clone())
        .and_then(|builder| builder.prepare())
        .expect("the embedded schema registers under its $id")
});

const DEF_COUNT: usize = Def::ALL.len();

static VALIDATORS: [OnceLock<Validator>; DEF_COUNT] = [const { OnceLock::new() }; DEF_COUNT];

fn validator(def: Def) -> &'static Validator {
    VALIDATORS[def as usize].get_or_init(|| compile(def))
}

fn compile(def: Def) -> Validator {
    let reference = serde_json::json!({ "$ref": format!("{SCHEMA_ID}#/$defs/{}", def.name()) });
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(true)
        .with_registry(&REGISTRY)
        .build(&reference)
        .unwrap_or_else(|e| panic!("$defs/{def} of the embedded schema compiles: {e}"))
}

/// Keeps an error message readable when it quotes a long value.
fn shorten(message: String) -> String {
    const MAX: usize = 200;
    match message.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &message[..cut]),
        None => message,
    }
}

/// RFC 6901: `~` and `/` in a member name are escaped in a pointer.
fn escape_pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_def_exists_and_compiles() {
        let defs = document()["$defs"].as_object().expect("$defs");
        for def in Def::ALL {
            assert!(defs.contains_key(def.name()), "$defs/{def} missing");
            let _ = validator(*def);
        }
        assert_eq!(document()["$id"], SCHEMA_ID);
    }

    #[test]
    fn document_is_a_2020_12_schema() {
        // The meta-schemas are built into the crate: nothing is fetched.
        if let Err(e) = jsonschema::draft202012::meta::validate(document()) {
            panic!("schemas/schcp.schema.json against the 2020-12 meta-schema: {e}");
        }
        assert_eq!(document()["$schema"], "https://json-schema.org/draft/2020-12/schema");
    }

    #[test]
    fn every_schema_def_compiles() {
        // Definitions without a `Def` variant (parts such as `Slot`) must compile too.
        for name in document()["$defs"].as_object().expect("$defs").keys() {
            let reference = json!({ "$ref": format!("{SCHEMA_ID}#/$defs/{name}") });
            jsonschema::options()
                .with_draft(Draft::Draft202012)
                .should_validate_formats(true)
                .with_registry(&REGISTRY)
                .build(&reference)
                .unwrap_or_else(|e| panic!("$defs/{name}: {e}"));
        }
    }

    #[test]
    fn dollar_matches_only_at_the_very_end() {
        // §2.1 "Strings": "PT1H\n" is not a duration.
        assert!(is_valid(Def::Duration, &json!("PT1H")));
        assert!(!is_valid(Def::Duration, &json!("PT1H\n")));
        assert!(!is_valid(Def::Retention, &json!("P7D\n")));
        assert!(!is_valid(Def::Currency, &json!("CAD\n")));
    }

    #[test]
    fn digits_are_ascii_only() {
        // §2.1: \d matches the ASCII digits 0–9 only.
        assert!(!is_valid(Def::Duration, &json!("PT١H")));
        assert!(!is_valid(Def::Amount, &json!("٧٩.00")));
        // The engine itself treats \d as ASCII, so a pattern written with \d would agree.
        let v = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .build(&json!({ "pattern": "^\\d+$" }))
            .expect("compiles");
        assert!(v.is_valid(&json!("42")));
        assert!(!v.is_valid(&json!("٤٢")));
    }

    #[test]
    fn dates_are_asserted() {
        // §2.1 "Formats": an unparseable date is a schema failure, never a value to compare.
        assert!(is_valid(Def::DateTime, &json!("2026-10-15T13:00:00-04:00")));
        assert!(is_valid(Def::DateTime, &json!("2026-10-13T21:05:00Z")));
        assert!(!is_valid(Def::DateTime, &json!("2026-13-45T00:00:00Z")));
        assert!(!is_valid(Def::DateTime, &json!("2026-02-30T00:00:00Z")));
        assert!(!is_valid(Def::DateTime, &json!("2026-10-15T13:00:00")), "no offset");
        assert!(!is_valid(Def::DateTime, &json!("2026-10-15 13:00:00Z")));
        assert!(!is_valid(Def::Uri, &json!("not a uri")));
    }

    #[test]
    fn whole_floats_are_integers() {
        // §2.1: 1792000000.0 is an integer.
        assert!(is_valid(Def::NumericDate, &json!(1792000000.0)));
        assert!(is_valid(Def::NumericDate, &json!(1792000000)));
        assert!(!is_valid(Def::NumericDate, &json!(1792000000.5)));
        assert!(!is_valid(Def::NumericDate, &json!("1792000000")));
        assert!(!is_valid(Def::NumericDate, &json!(-1)));
    }

    #[test]
    fn duration_grammar() {
        for ok in [
            "PT1H",
            "P1W",
            "P7D",
            "PT168H",
            "P2W3D",
            "P1DT1H1M1S",
            "PT0S",
            "PT1.5S",
            "P0D",
            "PT45M",
            "P1W2DT3H4M5.25S",
            "PT1H30M",
            "PT1M1S",
            "PT1H1S",
        ] {
            assert!(is_valid(Def::Duration, &json!(ok)), "{ok}");
        }
        for bad in [
            "P", "PT", "P1DT", "P1M", "P1Y", "pt1h", "PT1,5S", "-PT1H", "PT1.5M", "PT.5S", "PT1.S", "P1D1W", "PT1M1H",
            "PT1H ", " PT1H", "P1.5D", "PT1H\n", "",
        ] {
            assert!(!is_valid(Def::Duration, &json!(bad)), "{bad:?}");
        }
        for ok in ["P365D", "P1W", "P2W3D", "P0D"] {
            assert!(is_valid(Def::Retention, &json!(ok)), "{ok}");
        }
        for bad in ["PT24H", "P1DT1H", "P", "P1M", "PT0S"] {
            assert!(!is_valid(Def::Retention, &json!(bad)), "{bad}");
        }
    }

    #[test]
    fn unknown_members_fail_at_any_depth() {
        // §5.2: a cancellation_fee inside slot fails like one at the top.
        let offer = json!({
            "v": "0.4", "kind": "booking", "iss": "maple-street-auto", "hold_id": "h_1",
            "iat": 1792000000, "exp": 1792000300,
            "service": {"id": "oil-change", "name": "Synthetic oil change"},
            "slot": {"start": "2026-10-15T13:00:00-04:00", "end": "2026-10-15T13:45:00-04:00"},
            "retention": "P365D"
        });
        assert_eq!(validate(Def::OfferClaims, &offer), Ok(()));
        let fee = json!({"amount": "25.00", "currency": "CAD"});
        let mut top = offer.clone();
        top["cancellation_fee"] = fee.clone();
        let err = validate(Def::OfferClaims, &top).expect_err("closed at the top");
        assert_eq!((err.path.as_str(), err.message.as_str()), ("/cancellation_fee", "additional property"));
        let mut nested = offer.clone();
        nested["slot"]["cancellation_fee"] = fee;
        let err = validate(Def::OfferClaims, &nested).expect_err("closed in slot");
        assert_eq!(err.path, "/slot/cancellation_fee");
        assert_eq!(err.to_string(), "OfferClaims: /slot/cancellation_fee: additional property");
        // 1792000000.0 is the same integer.
        let mut float = offer;
        float["iat"] = json!(1792000000.0);
        assert_eq!(validate(Def::OfferClaims, &float), Ok(()));
    }

    #[test]
    fn error_names_the_unexpected_member() {
        let err = validate(Def::Money, &json!({"amount": "1.00", "currency": "CAD", "fee": 1})).expect_err("closed");
        assert_eq!(err.def, Def::Money);
        assert_eq!(err.path, "/fee");
        assert_eq!(err.message, "additional property");
        assert_eq!(err.to_string(), "Money: /fee: additional property");
    }
}
