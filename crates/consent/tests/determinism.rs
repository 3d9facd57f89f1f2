//! Properties over generated offers: the same claims, locale
//! and contacts give the same bytes, and every committing term of the offer (§5.3:
//! time, place, price total, reconfirmation, approval deadline, retention) appears in
//! what the person reads.

mod common;

use std::sync::LazyLock;

use chrono::{DateTime, Datelike, FixedOffset};
use proptest::prelude::*;
use schcp_consent::claims::*;
use schcp_consent::*;

static EN: LazyLock<Locale> = LazyLock::new(|| Locale::new(Language::English).unwrap());
static FR: LazyLock<Locale> = LazyLock::new(|| Locale::new(Language::French).unwrap());

const ZONES: &[&str] = &[
    "America/Toronto",
    "America/Vancouver",
    "America/St_Johns",
    "America/Halifax",
    "Europe/Paris",
    "Asia/Kolkata",
    "Australia/Lord_Howe",
    "Pacific/Chatham",
    "Etc/UTC",
];

fn rfc3339(secs: i64, offset_minutes: i32) -> String {
    let offset = FixedOffset::east_opt(offset_minutes * 60).unwrap();
    DateTime::from_timestamp(secs, 0).unwrap().with_timezone(&offset).to_rfc3339()
}

fn text() -> impl Strategy<Value = String> {
    // Mostly ordinary names; sometimes anything at all.
    prop_oneof![
        4 => "[A-Za-z][A-Za-z '&.-]{0,24}",
        1 => any::<String>(),
    ]
}

prop_compose! {
    fn place()(name in proptest::option::of(text()), locality in proptest::option::of(text()),
               country in proptest::option::of("[A-Z]{2}")) -> Place {
        Place { name, locality, country, ..Place::default() }
    }
}

prop_compose! {
    fn offer()(
        host in proptest::option::of((text(), proptest::sample::select(ZONES))),
        iss in "[a-z][a-z0-9-]{2,20}",
        service in text(),
        resource in proptest::option::of(text()),
        start in 1_600_000_000i64..2_000_000_000,
        offset_minutes in proptest::sample::select(vec![-600, -420, -240, -150, 0, 60, 330, 765]),
        minutes in proptest::option::of(15i64..2_000),
        cents in proptest::option::of(0u64..10_000_000),
        party in proptest::option::of(1u32..40),
        place in proptest::option::of(place()),
        reconfirm_hours in proptest::option::of(0u32..200),
        approval_before in proptest::option::of(1i64..500_000),
        retention in prop_oneof![(0u32..1000).prop_map(|d| format!("P{d}D")), (0u32..120).prop_map(|w| format!("P{w}W"))],
        discovered in proptest::option::of("[a-z]{1,12}\\.example"),
    ) -> VerifiedOffer {
        VerifiedOffer {
            claims: OfferClaims {
                v: schcp::VERSION.into(),
                kind: OfferKind::Booking,
                iss,
                hold_id: Some("h_1".into()),
                booking_id: None,
                prev: None,
                iat: start - 86_400,
                exp: start - 86_000,
                host: host.map(|(name, tz)| HostInfo { name, tz: tz.to_string(), domain: None, address: None, kind: None, owner: None }),
                service: ServiceRef { id: "s".into(), name: service },
                slot: Slot {
                    start: rfc3339(start, offset_minutes),
                    end: minutes.map(|m| rfc3339(start + m * 60, offset_minutes)),
                },
                open_end: minutes.is_none().then_some(true),
                price: cents.map(|c| Money { amount: format!("{}.{:02}", c / 100, c % 100), currency: "CAD".into() }),
                total: cents.map(|c| Money { amount: format!("{}.{:02}", c / 100, c % 100), currency: "CAD".into() }),
                lines: None,
                retention,
                reconfirm: reconfirm_hours.map(|h| Reconfirm { before: format!("PT{h}H"), default: ReconfirmDefault::Release }),
                resource: None,
                resource_name: resource,
                place,
                party_size: party,
                approval_by: approval_before.map(|s| rfc3339(start - s, 0)),
            },
            discovered: discovered.map(|d| VerifiedDomain::new(&d).unwrap()),
            new_host: false,
        }
    }
}

fn check_offer(locale: &Locale, o: &VerifiedOffer) -> Result<(), TestCaseError> {
    let req = ConsentRequest::BookingOffer(o.clone());
    let first = render(&req, locale, &Contacts::new()).unwrap();
    let again = render(&req, locale, &Contacts::new()).unwrap();
    prop_assert_eq!(&first, &again);
    // A freshly built locale gives the same bytes too: nothing hangs on caches.
    let fresh = Locale::new(locale.language()).unwrap();
    prop_assert_eq!(&first, &render(&req, &fresh, &Contacts::new()).unwrap());

    let c = &o.claims;
    let tz = c.host.as_ref().map(|h| h.tz.as_str());
    // Time.
    let when = slot_words(locale, &c.slot.start, c.slot.end.as_deref(), tz).unwrap();
    prop_assert!(first.contains(&when), "time {when:?} missing from {first:?}");
    // The local year, independently of the renderer (chrono-tz, not ICU4X).
    let start = DateTime::parse_from_rfc3339(&c.slot.start).unwrap();
    let year = match tz {
        Some(tz) => start.with_timezone(&tz.parse::<chrono_tz::Tz>().unwrap()).year(),
        None => start.year(),
    };
    prop_assert!(when.contains(&year.to_string()));
    // Place.
    if let Some(place) = c.place.as_ref().and_then(|p| place_words(locale, p).unwrap()) {
        prop_assert!(first.contains(&place), "place {place:?} missing from {first:?}");
    }
    // Price: the total, paid to the host directly; and no money at all without one.
    match &c.total {
        Some(total) => {
            let price = price_words(locale, total, &host_name(locale, c).unwrap()).unwrap();
            prop_assert!(first.contains(&price), "price {price:?} missing from {first:?}");
        }
        None => {
            let names = format!("{} {:?} {:?} {:?}", c.service.name, c.host, c.place, c.resource_name);
            if !names.contains("CAD") {
                prop_assert!(!first.contains("CAD"), "money words in an unpriced offer: {first:?}");
            }
        }
    }
    // Reconfirmation, approval deadline, retention: each its own line.
    let lines: Vec<&str> = first.lines().collect();
    if let Some(r) = reconfirm_sentence(locale, c).unwrap() {
        prop_assert!(lines.contains(&r.as_str()), "reconfirm {r:?} missing from {first:?}");
    }
    if let Some(a) = approval_sentence(locale, c).unwrap() {
        prop_assert!(lines.contains(&a.as_str()), "approval {a:?} missing from {first:?}");
    }
    let retention = retention_sentence(locale, c).unwrap();
    prop_assert_eq!(lines.last().copied(), Some(retention.as_str()));
    // One line per term: a host string never adds one.
    let expected_lines = 2 + usize::from(c.reconfirm.is_some()) + usize::from(c.approval_by.is_some());
    prop_assert_eq!(lines.len(), expected_lines);
    // The only domain shown is the one the key app discovered.
    if let Some(d) = &o.discovered {
        let shown = format!("({})", d.as_ascii());
        prop_assert!(first.contains(&shown), "domain {} missing from {:?}", shown, first);
    }
    // No control character but line feeds, no bidi control but balanced isolates.
    prop_assert!(first.chars().all(|ch| ch == '\n' || !ch.is_control()));
    prop_assert_eq!(first.matches('\u{2068}').count(), first.matches('\u{2069}').count());
    let hidden = |ch: char| matches!(ch, '\u{202A}'..='\u{202E}' | '\u{2066}' | '\u{2067}' | '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}');
    prop_assert!(!first.chars().any(hidden), "bidi or invisible character in {:?}", first);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn offers_render_deterministically_and_completely(o in offer()) {
        check_offer(&EN, &o)?;
        check_offer(&FR, &o)?;
    }
}

prop_compose! {
    fn meeting()(
        names in proptest::collection::vec(text(), 3),
        known in proptest::collection::vec(any::<bool>(), 3),
        in_person in proptest::collection::vec(proptest::option::of(any::<bool>()), 3),
        title in text(),
        attendees in proptest::collection::vec((text(), proptest::option::of(text())), 0..3),
        minutes in proptest::option::of(15i64..600),
        start in 1_700_000_000i64..1_900_000_000,
    ) -> (MeetingContract, Contacts, Contacts) {
        let mut c = common::playdate_contract();
        c.title = title;
        c.start = rfc3339(start, -240);
        c.end = minutes.map(|m| rfc3339(start + m * 60, -240));
        c.open_end = minutes.is_none().then_some(true);
        c.attendees = Some(attendees.into_iter().map(|(name, relationship)| Attendee { name, relationship }).collect());
        let mut organizer_contacts = Contacts::new();
        let mut ellis_contacts = Contacts::new();
        for (i, m) in c.members.iter_mut().enumerate() {
            m.name = names[i].clone();
            m.answers = in_person[i].map(|p| if p { Answers::Person } else { Answers::PersonOrRule });
            if known[i] {
                organizer_contacts.insert(m.principal.clone(), format!("{} (contact)", names[i]));
                ellis_contacts.insert(m.principal.clone(), names[i].clone());
            }
        }
        (c, organizer_contacts, ellis_contacts)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn meetings_render_deterministically(m in meeting()) {
        let (contract, organizer_contacts, ellis_contacts) = m;
        for locale in [&*EN, &*FR] {
            let organizer = ConsentRequest::MeetingContract(common::organizer_request(contract.clone()));
            let a = render(&organizer, locale, &organizer_contacts).unwrap();
            prop_assert_eq!(&a, &render(&organizer, locale, &organizer_contacts).unwrap());
            let member = ConsentRequest::Acceptance(common::acceptance_request(contract.clone(), common::ELLIS));
            let b = render(&member, locale, &ellis_contacts).unwrap();
            prop_assert_eq!(&b, &render(&member, locale, &ellis_contacts).unwrap());
            // One statement, one line, whatever the names hold, then the name the
            // organizer's key signs for them; a member's text says, in one more
            // line, how the other person answers (§5.12 "answers").
            for (text, lines) in [(&a, 2), (&b, 2)] {
                prop_assert_eq!(text.lines().count(), lines);
                prop_assert!(text.chars().all(|ch| ch == '\n' || !ch.is_control()));
                let when = slot_words(locale, &contract.start, contract.end.as_deref(), Some(&contract.tz)).unwrap();
                prop_assert!(text.contains(&when), "time {:?} missing from {:?}", when, text);
            }
        }
    }
}
