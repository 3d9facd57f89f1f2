//! The three structured fields of §3.2 (RFC 8941), parsed just far enough to
//! refuse everything but §3.2's one form with a specific reason.

use super::{bad, components, signature_params, SigError, SigParams, LABEL};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::Signature;
use sha2::{Digest, Sha256};

// Parsing the three structured fields (RFC 8941), just far enough to refuse
// everything but §3.2's one form with a specific reason.

struct Cursor<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Cursor<'a> {
    fn new(s: &'a str) -> Self {
        Cursor { s, i: 0 }
    }
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.i).copied()
    }
    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn at_end(&self) -> bool {
        self.i >= self.s.len()
    }
    fn skip(&mut self, set: &[u8]) {
        while self.peek().is_some_and(|b| set.contains(&b)) {
            self.i += 1;
        }
    }
    fn rest(&self) -> &'a str {
        &self.s[self.i..]
    }
    /// An RFC 8941 key: lcalpha / "*", then lcalpha / DIGIT / "_" / "-" / "." / "*".
    fn key(&mut self) -> Option<&'a str> {
        let start = self.i;
        if !self.peek().is_some_and(|b| b.is_ascii_lowercase() || b == b'*') {
            return None;
        }
        self.skip(b"abcdefghijklmnopqrstuvwxyz0123456789_-.*");
        Some(&self.s[start..self.i])
    }
    /// An sf-string after its opening quote.
    fn string(&mut self) -> Result<String, SigError> {
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return Err(bad("unterminated string")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    match self.peek() {
                        Some(c @ (b'"' | b'\\')) => out.push(c as char),
                        _ => return Err(bad("bad escape in string")),
                    }
                    self.i += 1;
                }
                Some(c) => {
                    out.push(c as char);
                    self.i += 1;
                }
            }
        }
    }
    /// Runs of a byte class (for integers and byte sequences).
    fn take_while(&mut self, f: impl Fn(u8) -> bool) -> &'a str {
        let start = self.i;
        while self.peek().is_some_and(&f) {
            self.i += 1;
        }
        &self.s[start..self.i]
    }
    /// After a dictionary member: the end, or a second member.
    fn end_of_dictionary(&mut self, field: &str, second: &str) -> Result<(), SigError> {
        self.skip(b" \t");
        if self.at_end() {
            Ok(())
        } else if self.peek() == Some(b',') {
            Err(bad(second.to_owned()))
        } else {
            Err(bad(format!("{field}: unexpected {:?}", self.rest())))
        }
    }
}

enum ParamValue {
    Integer(String),
    Str(String),
    /// A token, boolean or anything else §3.2 never uses.
    Other,
}

/// Parses `Signature-Input` and holds it to the exact form for this request.
// Long by design: one pass over the one Signature-Input form §3.2 allows.
pub(super) fn parse_signature_input(value: &str, has_digest: bool, has_mandate: bool) -> Result<SigParams, SigError> {
    const SECOND: &str = "a second signature: a request carries exactly one, labelled schcp (§3.2)";
    let mut c = Cursor::new(value);
    let label = c.key().ok_or_else(|| bad("Signature-Input is not a dictionary"))?;
    if label != LABEL {
        return Err(bad(format!("signature label {label:?}: only \"schcp\" is accepted (§3.2)")));
    }
    if !c.eat(b'=') || !c.eat(b'(') {
        return Err(bad("Signature-Input: schcp is not an inner list"));
    }
    let member_start = c.i - 1;
    let mut covered = Vec::new();
    loop {
        c.skip(b" ");
        if c.eat(b')') {
            break;
        }
        if !c.eat(b'"') {
            return Err(bad(
                "Signature-Input: a component is not a string (component parameters are not part of §3.2)",
            ));
        }
        covered.push(c.string()?);
        if !matches!(c.peek(), Some(b' ' | b')')) {
            return Err(bad("Signature-Input: malformed component list"));
        }
    }
    let mut params: Vec<(&str, ParamValue)> = Vec::new();
    while c.eat(b';') {
        c.skip(b" ");
        let name = c.key().ok_or_else(|| bad("Signature-Input: malformed parameter"))?;
        let v = if c.eat(b'=') {
            if c.eat(b'"') {
                ParamValue::Str(c.string()?)
            } else if c.peek().is_some_and(|b| b.is_ascii_digit() || b == b'-') {
                ParamValue::Integer(c.take_while(|b| b.is_ascii_digit() || b == b'-').to_owned())
            } else {
                c.take_while(|b| !matches!(b, b';' | b',' | b' '));
                ParamValue::Other
            }
        } else {
            ParamValue::Other
        };
        params.push((name, v));
    }
    let member = &value[member_start..c.i];
    c.end_of_dictionary("Signature-Input", SECOND)?;

    let expected = components(has_digest, has_mandate);
    if covered != expected {
        return Err(bad(format!(
            "covered components {covered:?}; this request needs exactly {expected:?} in that order \
             (§3.2: content-digest iff there is a body, schcp-mandate iff a mandate is sent)"
        )));
    }
    let names: Vec<&str> = params.iter().map(|(n, _)| *n).collect();
    if names != ["created", "keyid", "nonce", "alg"] {
        return Err(bad(format!(
            "signature parameters {names:?}; §3.2 takes exactly created, keyid, nonce, alg in that order"
        )));
    }
    let mut values = params.into_iter().map(|(_, v)| v);
    let created = match values.next() {
        Some(ParamValue::Integer(t)) => {
            t.parse::<i64>().ok().filter(|_| t.len() <= 15).ok_or_else(|| bad("created is not an integer"))?
        }
        _ => return Err(bad("created is not an integer")),
    };
    let Some(ParamValue::Str(keyid)) = values.next() else { return Err(bad("keyid is not a string")) };
    let Some(ParamValue::Str(nonce)) = values.next() else { return Err(bad("nonce is not a string")) };
    match values.next() {
        Some(ParamValue::Str(alg)) if alg == "ed25519" => {}
        _ => return Err(bad("alg must be \"ed25519\" (§3.2)")),
    }
    let params = SigParams { created, keyid, nonce };
    // Whatever the structure, the bytes must be the one exact form: no extra
    // spaces, escapes or leading zeros, so every implementation signs the same
    // base (§3.2 "One exact form").
    if member != signature_params(has_digest, has_mandate, &params) {
        return Err(bad("Signature-Input is not in §3.2's exact form"));
    }
    Ok(params)
}

/// Parses `Signature: schcp=:<standard base64>:` into an Ed25519 signature.
pub(super) fn parse_signature(value: &str) -> Result<Signature, SigError> {
    let mut c = Cursor::new(value);
    let label = c.key().ok_or_else(|| bad("Signature is not a dictionary"))?;
    if label != LABEL {
        return Err(bad(format!("signature label {label:?}: only \"schcp\" is accepted (§3.2)")));
    }
    let bytes = byte_sequence(&mut c, "Signature")?;
    c.end_of_dictionary("Signature", "a second signature: a request carries exactly one (§3.2)")?;
    let bytes: [u8; 64] = bytes.try_into().map_err(|_| bad("Signature is not 64 bytes"))?;
    Ok(Signature::from_bytes(&bytes))
}

/// `=:<base64>:` of a dictionary member, decoded strictly (RFC 8941 byte
/// sequences are standard base64 with padding); no parameters.
fn byte_sequence(c: &mut Cursor<'_>, field: &str) -> Result<Vec<u8>, SigError> {
    if !c.eat(b'=') || !c.eat(b':') {
        return Err(bad(format!("{field}: not a byte sequence")));
    }
    let text = c.take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    if !c.eat(b':') {
        return Err(bad(format!("{field}: malformed byte sequence")));
    }
    if c.peek() == Some(b';') {
        return Err(bad(format!("{field}: parameters are not part of §3.2")));
    }
    // The STANDARD engine requires canonical padding and zero trailing bits.
    STANDARD.decode(text).map_err(|_| bad(format!("{field}: not standard base64")))
}

/// Checks `Content-Digest` is exactly one `sha-256` member equal to the SHA-256
/// of the body's exact bytes (§3.2, RFC 9530). Another algorithm, alone or
/// beside sha-256, is refused: §3.2 names sha-256, and a second digest the key
/// app does not check would be a second reading of the same field.
pub(super) fn check_content_digest(value: &str, body: &[u8]) -> Result<(), SigError> {
    let mut c = Cursor::new(value);
    let mut members = Vec::new();
    loop {
        c.skip(b" \t");
        let name = c.key().ok_or_else(|| bad("Content-Digest is not a dictionary (RFC 9530)"))?;
        let bytes = byte_sequence(&mut c, "Content-Digest")?;
        members.push((name, bytes));
        c.skip(b" \t");
        if c.at_end() {
            break;
        }
        if !c.eat(b',') {
            return Err(bad("Content-Digest is not a dictionary (RFC 9530)"));
        }
    }
    match members.as_slice() {
        [("sha-256", digest)] => {
            if digest.as_slice() == &Sha256::digest(body)[..] {
                Ok(())
            } else {
                Err(bad("Content-Digest does not match the body (§3.2: recomputed over its exact bytes)"))
            }
        }
        m if m.iter().any(|(n, _)| *n == "sha-256") => Err(bad("Content-Digest must carry sha-256 alone (§3.2)")),
        _ => Err(bad("Content-Digest has no sha-256 digest (§3.2)")),
    }
}
