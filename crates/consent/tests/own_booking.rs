//! The person's own yes to a booking on their own calendar (§7.7, §7.9): shown like
//! any offer, after a first line that says whose calendar and whose yes it is,
//! English and French, byte for byte.

mod common;

use common::*;
use schcp_consent::*;

#[test]
fn my_own_yes_is_shown_like_any_offer_after_its_statement() {
    let offer = playdate_offer();
    let req = ConsentRequest::OwnBooking(offer.clone());
    for (tag, locale) in [("en", en()), ("fr", fr())] {
        let text = render(&req, &locale, &Contacts::new()).unwrap();
        insta::assert_snapshot!(format!("own_booking@{tag}"), text);
        // The first line is the statement the acceptance carries.
        assert_eq!(text.lines().next().unwrap(), own_booking_statement(&locale, &offer).unwrap());
        // The rest is the offer's own text, as any offer shows it.
        let as_offer = render(&ConsentRequest::BookingOffer(offer.clone()), &locale, &Contacts::new()).unwrap();
        let rest: Vec<&str> = text.lines().skip(1).collect();
        let offer_rest: Vec<&str> = as_offer.lines().skip(1).collect();
        assert_eq!(rest, offer_rest, "{tag}");
    }
    let text = render(&req, &en(), &Contacts::new()).unwrap();
    assert!(
        text.starts_with("I say yes myself to this booking on my own calendar: Playdate with Ellis Moreau")
            && text
                .lines()
                .next()
                .unwrap()
                .contains("Saturday 17 October 2026 from 12:00 p.m. Eastern time, open-ended"),
        "{text}"
    );
    // An acceptance is never withdrawn through the key app: no such line.
    let unread = render_with(&req, &en(), &Contacts::new(), Withdrawal::NotBeforeExpiry).unwrap();
    assert_eq!(unread, text);
}

/// A narrow read credential (§5.5, §5.10): one booking, one host, until when, and
/// nothing but reading, in both languages.
#[test]
fn a_read_credential_names_one_booking_and_allows_nothing_else() {
    let req = ConsentRequest::BookingRead(BookingReadRequest {
        agent_name: "Calendar Assistant".into(),
        host: MandateHost {
            id: "maple-street-auto".into(),
            name: Some("Maple Street Auto".into()),
            domain: Some(domain("maplestreetauto.example")),
            new_host: false,
        },
        booking_id: "b_7Qx2".into(),
        exp: 1_792_003_600,
        tz: Some("America/Toronto".into()),
    });
    for (tag, locale) in [("en", en()), ("fr", fr())] {
        let text = render(&req, &locale, &Contacts::new()).unwrap();
        insta::assert_snapshot!(format!("booking_read@{tag}"), text);
    }
    let text = render(&req, &en(), &Contacts::new()).unwrap();
    assert!(text.contains("b_7Qx2") && text.contains("Maple Street Auto (maplestreetauto.example)"), "{text}");
    assert!(carries_status(&req), "it is a mandate with a status URL");
}
