//! Every string parser of the protocol crate, on arbitrary input: an error is
//! fine, a panic is a bug. (The property tests in
//! crates/schcp/tests/parsers_never_panic.rs do the same without coverage
//! guidance.)
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = schcp::json::parse(data);
    let Ok(s) = std::str::from_utf8(data) else { return };
    let _ = schcp::duration::Duration::parse(s);
    let _ = schcp::duration::Retention::parse(s);
    let _ = schcp::datetime::DateTime::parse(s);
    let _ = schcp::datetime::parse_date_time(s);
    let _ = schcp::money::Currency::parse(s);
    let _ = schcp::money::Percent::parse(s);
    if let Some((amount, currency)) = s.split_once(' ') {
        let _ = schcp::money::Amount::parse(amount, currency);
    }
    let _ = schcp::b64::decode(s);
    if let Ok(parsed) = schcp::jws::parse(s) {
        let _ = parsed.claims::<serde_json::Value>();
    }
    for (i, part) in s.split('~').enumerate() {
        let _ = schcp::sdjwt::Disclosure::parse(part, i);
    }
    let _ = schcp::verify::verify_rule(s);
    let _ = schcp::verify::verify_meeting_contract(s, 1_792_000_000);
});
