//! The JSON vectors of `tests/vectors/` against the schema and the typed claims.
//!
//! Layout: `tests/vectors/<object>/<outcome>/<name>.json`, each file
//! `{"description", "rule", "claims"}` (plus `"expect"` under `invalid_semantic`):
//!
//! - `valid/`: validates against the object's `$defs` entry, deserializes into its type,
//!   and the type serializes back to JSON that validates again (and, for closed objects,
//!   is the same JSON).
//! - `invalid/`: named for the rule it breaks; fails the schema AND fails to deserialize
//!   (the typed claims and the schema agree).
//! - `invalid_semantic/`: passes the schema and the types, and is refused by a later
//!   rule the schema cannot state (money: minor units, one currency, lines summing);
//!   `expect` says which. `verify_offer`'s tests run them.
//!
//! The property test at the end mutates the valid vectors at random (members removed,
//! unknown members added, values replaced) and checks that the schema and the types
//! still agree on every mutant.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::sample::Index;
use schcp::claims::*;
use schcp::schema::{self, Def};
use serde_json::{json, Map, Value};

/// Deserializes into `T` and serializes back.
fn roundtrip<T: SchemaDef>(claims: &Value) -> Result<Value, String> {
    let typed: T = serde_json::from_value(claims.clone()).map_err(|e| e.to_string())?;
    let again = serde_json::to_value(&typed).map_err(|e| format!("serialize: {e}"))?;
    let twice: T = serde_json::from_value(again.clone()).map_err(|e| format!("re-read: {e}"))?;
    if twice != typed {
        return Err("serialize then deserialize changed the value".into());
    }
    Ok(again)
}

struct Object {
    dir: &'static str,
    def: Def,
    roundtrip: fn(&Value) -> Result<Value, String>,
    /// Closed objects serialize back to exactly what they read (whole floats aside).
    closed: bool,
}

const fn object<T: SchemaDef>(dir: &'static str, closed: bool) -> Object {
    Object { dir, def: T::DEF, roundtrip: roundtrip::<T>, closed }
}

const OBJECTS: &[Object] = &[
    object::<OfferClaims>("offer", true),
    object::<MandateClaims>("mandate", true),
    object::<SdJwtMandateClaims>("sd_jwt_mandate", true),
    object::<ReceiptClaims>("receipt", true),
    object::<Booking>("booking", true),
    object::<BookingResponse>("booking_response", true),
    object::<Hold>("hold", true),
    object::<Proposal>("proposal", true),
    object::<MeetingContract>("meeting_contract", true),
    object::<Acceptance>("acceptance", true),
    object::<RuleClaims>("rule", true),
    object::<AttestationClaims>("attestation", true),
    object::<Discovery>("discovery", false),
    object::<OperatorDocument>("operator", false),
    object::<ErrorResponse>("error", true),
];

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors")
}

struct Vector {
    file: String,
    claims: Value,
    expect: Option<Value>,
}

/// Reads `<object>/<outcome>/*.json`, checking each file's own shape.
fn read_vectors(object: &str, outcome: &str, problems: &mut Vec<String>) -> Vec<Vector> {
    let dir = vectors_dir().join(object).join(outcome);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("dir entry").path()).collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let file = format!("{object}/{outcome}/{}", path.file_name().unwrap().to_string_lossy());
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            problems.push(format!("{file}: not a .json vector"));
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read vector");
        let mut v: Map<String, Value> = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{file}: not a JSON object: {e}"));
                continue;
            }
        };
        let allowed: &[&str] = if outcome == "invalid_semantic" {
            &["description", "rule", "expect", "claims"]
        } else {
            &["description", "rule", "claims"]
        };
        for key in v.keys() {
            if !allowed.contains(&key.as_str()) {
                problems.push(format!("{file}: unexpected vector member {key:?}"));
            }
        }
        for key in ["description", "rule"] {
            if v.get(key).and_then(Value::as_str).is_none_or(str::is_empty) {
                problems.push(format!("{file}: needs a non-empty {key:?}"));
            }
        }
        let Some(claims) = v.remove("claims") else {
            problems.push(format!("{file}: no claims"));
            continue;
        };
        out.push(Vector { file, claims, expect: v.remove("expect") });
    }
    out
}

/// 1792000000.0 and 1792000000 are the same JSON Schema integer (§2.1); the types
/// write the second.
fn normalize_whole_floats(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap();
            if f.fract() == 0.0 && (0.0..9.0e15).contains(&f) {
                json!(f as u64)
            } else {
                v.clone()
            }
        }
        Value::Array(a) => Value::Array(a.iter().map(normalize_whole_floats).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), normalize_whole_floats(v))).collect()),
        _ => v.clone(),
    }
}

#[test]
fn vectors_agree_with_schema_and_types() {
    let mut problems = Vec::new();
    let mut counts: BTreeMap<&str, [usize; 3]> = BTreeMap::new();

    // Every folder under tests/vectors is an object this test knows.
    for entry in std::fs::read_dir(vectors_dir()).expect("tests/vectors exists") {
        let name = entry.expect("entry").file_name().to_string_lossy().into_owned();
        if !OBJECTS.iter().any(|o| o.dir == name) {
            problems.push(format!("{name}/: no object registered for this folder"));
        }
        for outcome in std::fs::read_dir(vectors_dir().join(&name)).expect("object dir") {
            let outcome = outcome.expect("entry").file_name().to_string_lossy().into_owned();
            if !["valid", "invalid", "invalid_semantic"].contains(&outcome.as_str()) {
                problems.push(format!("{name}/{outcome}/: unknown outcome folder"));
            }
        }
    }

    for o in OBJECTS {
        let c = counts.entry(o.dir).or_default();
        for v in read_vectors(o.dir, "valid", &mut problems) {
            c[0] += 1;
            if let Err(e) = schema::validate(o.def, &v.claims) {
                problems.push(format!("{}: valid vector fails the schema: {e}", v.file));
            }
            match (o.roundtrip)(&v.claims) {
                Err(e) => problems.push(format!("{}: valid vector does not deserialize: {e}", v.file)),
                Ok(again) => {
                    if let Err(e) = schema::validate(o.def, &again) {
                        problems.push(format!("{}: re-serialized claims fail the schema: {e}", v.file));
                    }
                    if o.closed && again != normalize_whole_floats(&v.claims) {
                        problems.push(format!("{}: re-serialized claims differ from the vector:\n  {again}", v.file));
                    }
                }
            }
        }
        for v in read_vectors(o.dir, "invalid", &mut problems) {
            c[1] += 1;
            if schema::validate(o.def, &v.claims).is_ok() {
                problems.push(format!("{}: invalid vector passes the schema", v.file));
            }
            if let Ok(again) = (o.roundtrip)(&v.claims) {
                problems.push(format!("{}: invalid vector deserializes into the type: {again}", v.file));
            }
        }
        for v in read_vectors(o.dir, "invalid_semantic", &mut problems) {
            c[2] += 1;
            if let Err(e) = schema::validate(o.def, &v.claims) {
                problems.push(format!("{}: semantic vector should pass the schema: {e}", v.file));
            }
            if let Err(e) = (o.roundtrip)(&v.claims) {
                problems.push(format!("{}: semantic vector should deserialize: {e}", v.file));
            }
            if v.expect.is_none() {
                problems.push(format!("{}: a semantic vector says what it expects", v.file));
            }
        }
        if c[0] == 0 || c[1] == 0 {
            problems.push(format!("{}: needs valid and invalid vectors", o.dir));
        }
    }

    let mut summary = String::new();
    for (dir, [valid, invalid, semantic]) in &counts {
        let _ = writeln!(summary, "{dir:>18}: {valid} valid, {invalid} invalid, {semantic} semantic");
    }
    println!("{summary}");
    assert!(problems.is_empty(), "{} vector problem(s):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn offer_error_points_at_the_unknown_member() {
    // §5.2: a cancellation_fee inside slot fails like one at the top, and says where.
    let mut problems = Vec::new();
    let vectors = read_vectors("offer", "invalid", &mut problems);
    let nested = vectors.iter().find(|v| v.file.ends_with("unknown-member-in-slot.json")).expect("vector");
    let err = schema::validate(Def::OfferClaims, &nested.claims).expect_err("closed");
    assert_eq!((err.path.as_str(), err.message.as_str()), ("/slot/cancellation_fee", "additional property"));
    let top = vectors.iter().find(|v| v.file.ends_with("unknown-member-top-level.json")).expect("vector");
    let err = schema::validate(Def::OfferClaims, &top.claims).expect_err("closed");
    assert_eq!(err.path, "/cancellation_fee");
    let typed = serde_json::from_value::<OfferClaims>(nested.claims.clone()).expect_err("closed");
    assert!(typed.to_string().contains("cancellation_fee"), "{typed}");
}

// ---- property: schema and types agree on mutants of every valid vector ----

fn all_valid() -> &'static Vec<(usize, Value)> {
    static VALID: std::sync::OnceLock<Vec<(usize, Value)>> = std::sync::OnceLock::new();
    VALID.get_or_init(|| {
        let mut problems = Vec::new();
        let mut out = Vec::new();
        for (i, o) in OBJECTS.iter().enumerate() {
            for v in read_vectors(o.dir, "valid", &mut problems) {
                out.push((i, v.claims));
            }
        }
        out
    })
}

/// JSON Pointer-ish paths of every value in `v` (the root is `[]`).
fn paths(v: &Value, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(prefix.clone());
    match v {
        Value::Object(o) => {
            for (k, child) in o {
                prefix.push(k.clone());
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                prefix.push(i.to_string());
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn at_mut<'a>(v: &'a mut Value, path: &[String]) -> &'a mut Value {
    path.iter().fold(v, |v, p| match v {
        Value::Object(o) => o.get_mut(p).expect("path"),
        Value::Array(a) => &mut a[p.parse::<usize>().expect("index")],
        _ => unreachable!("paths only descend into containers"),
    })
}

/// Values that exercise every grammar and type in the schema, right and wrong.
fn replacements() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(1),
        json!(-1),
        json!(1.0),
        json!(1.5),
        json!(1792000000.0),
        json!(4294967296u64),
        json!(""),
        json!("x"),
        json!("0.4"),
        json!("PT1H"),
        json!("P1M"),
        json!("PT1H\n"),
        json!("P7D"),
        json!("open"),
        json!("2026-10-15T13:00:00-04:00"),
        json!("2026-10-15T13:00:00"),
        json!("2026-13-45T00:00:00Z"),
        json!("2026-10-13T13:00:00Z"),
        json!("https://x.example/a"),
        json!("79.00"),
        json!("79.001"),
        json!("CAD"),
        json!("release"),
        json!("person"),
        json!("rule"),
        json!("host"),
        json!("change"),
        json!("*"),
        json!("a/b"),
        json!("urn:schcp:host:cafe"),
        json!("urn:schcp:principal:jwk-thumbprint:-1LR5tR9314FQ3YZqZFvE7xuN2NrdvHebBMlX_mAAaQ"),
        json!("mIGAvwyTKMnovQgnVcZHBIroJIH9BnmbrQXy4aThM5w"),
        json!("a.b.c"),
        json!("Event"),
        json!([]),
        json!(["hold"]),
        json!(["x"]),
        json!({}),
        json!({"amount": "1.00", "currency": "CAD"}),
        json!({"name": "Park"}),
        json!({"...": "mIGAvwyTKMnovQgnVcZHBIroJIH9BnmbrQXy4aThM5w"}),
        json!({"kty": "OKP", "crv": "Ed25519", "x": "2sKbc3NNsyAlWKn5CQZZao4pnnjr_NI2P3tEPjk41Fg"}),
    ]
}

#[derive(Debug, Clone)]
enum Mutation {
    Remove(Index),
    AddUnknown(Index),
    Replace(Index, Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<Index>().prop_map(Mutation::Remove),
        any::<Index>().prop_map(Mutation::AddUnknown),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Replace(a, b)),
    ]
}

fn apply(claims: &Value, m: &Mutation) -> Value {
    let mut v = claims.clone();
    let mut all = Vec::new();
    paths(&v, &mut Vec::new(), &mut all);
    match m {
        Mutation::Remove(_) | Mutation::AddUnknown(_) if !v.is_object() && !v.is_array() => {}
        Mutation::Remove(_) if all.len() == 1 => {}
        Mutation::Remove(i) => {
            let path = all[1 + i.index(all.len() - 1)].clone(); // never the root
            let (last, parent) = path.split_last().expect("non-root");
            match at_mut(&mut v, parent) {
                Value::Object(o) => {
                    o.remove(last);
                }
                Value::Array(a) => {
                    a.remove(last.parse::<usize>().expect("index"));
                }
                _ => unreachable!(),
            }
        }
        Mutation::AddUnknown(i) => {
            let objects: Vec<&Vec<String>> = all
                .iter()
                .filter(|p| {
                    let mut probe = v.clone();
                    at_mut(&mut probe, p).is_object()
                })
                .collect();
            if objects.is_empty() {
                return v;
            }
            if let Value::Object(o) = at_mut(&mut v, objects[i.index(objects.len())]) {
                o.insert("x_unknown_term".into(), json!("25.00"));
            }
        }
        Mutation::Replace(i, r) => {
            let path = &all[i.index(all.len())];
            *at_mut(&mut v, path) = r.get(&replacements()).clone();
        }
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig {
        // PROPTEST_CASES raises it for a longer hunt.
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(3000),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// A mutant validates exactly when it deserializes, and what deserializes
    /// serializes back to JSON that validates.
    #[test]
    fn schema_and_types_agree_on_mutants(
        which in any::<Index>(),
        m in proptest::collection::vec(mutation(), 1..4),
    ) {
        let (object, claims) = which.get(all_valid());
        let o = &OBJECTS[*object];
        let mutant = m.iter().fold(claims.clone(), |v, m| apply(&v, m));
        let schema_ok = schema::validate(o.def, &mutant);
        let typed = (o.roundtrip)(&mutant);
        prop_assert_eq!(
            schema_ok.is_ok(), typed.is_ok(),
            "{}: schema says {:?}, types say {:?}, for {:?} giving\n{}",
            o.dir, schema_ok, typed.as_ref().map(|_| ()), m, mutant
        );
        if let Ok(again) = typed {
            prop_assert!(schema::is_valid(o.def, &again), "{}: re-serialized fails: {}", o.dir, again);
        }
    }
}
