//! Consent text from any offer the typed claims accept: rendering may refuse,
//! never panic, and the same claims give the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schcp_consent::{render, ConsentRequest, Contacts, Language, Locale, VerifiedDomain, VerifiedOffer};
use std::sync::OnceLock;

fn locales() -> &'static [Locale; 2] {
    static L: OnceLock<[Locale; 2]> = OnceLock::new();
    L.get_or_init(|| [Locale::new(Language::English).unwrap(), Locale::new(Language::French).unwrap()])
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = schcp::json::parse(data) else { return };
    let Ok(claims) = serde_json::from_value::<schcp::claims::OfferClaims>(value) else { return };
    let offer = VerifiedOffer { claims, discovered: VerifiedDomain::new("maplestreetauto.example").ok() };
    let req = ConsentRequest::BookingOffer(offer);
    for locale in locales() {
        let first = render(&req, locale, &Contacts::new());
        let second = render(&req, locale, &Contacts::new());
        assert_eq!(first.is_ok(), second.is_ok());
        if let (Ok(a), Ok(b)) = (first, second) {
            assert_eq!(a, b);
        }
    }
});
