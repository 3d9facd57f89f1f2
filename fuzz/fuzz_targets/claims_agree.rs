//! The typed claims and the JSON Schema agree: for any JSON the
//! strict parser accepts, a type accepts it exactly when its schema does, and
//! what it accepts serializes back to a value it reads the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schcp::claims::*;
use schcp::schema;

fn agree<T: SchemaDef>(value: &serde_json::Value) {
    let typed = serde_json::from_value::<T>(value.clone());
    let valid = schema::validate(T::DEF, value);
    assert_eq!(typed.is_ok(), valid.is_ok(), "typed {:?} / schema {:?} on {value}", typed.err(), valid.err());
    if let Ok(t) = typed {
        let again = serde_json::to_value(&t).expect("serializes");
        let twice: T = serde_json::from_value(again).expect("reads back");
        assert_eq!(twice, t);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, json)) = data.split_first() else { return };
    let Ok(value) = schcp::json::parse(json) else { return };
    match which % 12 {
        0 => agree::<OfferClaims>(&value),
        1 => agree::<MandateClaims>(&value),
        2 => agree::<SdJwtMandateClaims>(&value),
        3 => agree::<ReceiptClaims>(&value),
        4 => agree::<Booking>(&value),
        5 => agree::<BookingResponse>(&value),
        6 => agree::<Hold>(&value),
        7 => agree::<Proposal>(&value),
        8 => agree::<MeetingContract>(&value),
        9 => agree::<Acceptance>(&value),
        10 => agree::<RuleClaims>(&value),
        _ => agree::<AttestationClaims>(&value),
    }
});
