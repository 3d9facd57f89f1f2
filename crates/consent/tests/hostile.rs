//! Host-, organizer- and agent-supplied strings cannot reorder, hide or forge the text
//! a person reads, tested both ways: what
//! is hostile is neutralised, and what is ordinary passes through untouched.

mod common;

use common::*;
use schcp_consent::claims::*;
use schcp_consent::*;

/// Every rendering, whatever its input: no control character but the line feed, no
/// format character but the balanced isolates the renderer adds itself (U+2068 …
/// U+2069 around right-to-left text), no line or paragraph separator.
fn assert_inert(text: &str) {
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '\n' => assert_eq!(depth, 0, "an isolate spans a line in {text:?}"),
            '\u{2068}' => depth += 1,
            '\u{2069}' => {
                depth -= 1;
                assert!(depth >= 0, "unbalanced PDI in {text:?}");
            }
            '\u{202A}'..='\u{202E}' | '\u{2066}' | '\u{2067}' | '\u{200E}' | '\u{200F}' | '\u{061C}' => {
                panic!("bidi control {c:?} in {text:?}")
            }
            '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{00AD}' => {
                panic!("invisible {c:?} in {text:?}")
            }
            '\u{2028}' | '\u{2029}' => panic!("separator {c:?} in {text:?}"),
            c if c.is_control() => panic!("control {c:?} in {text:?}"),
            _ => {}
        }
    }
    assert_eq!(depth, 0, "unbalanced FSI in {text:?}");
}

fn render_offer(o: &VerifiedOffer, locale: &Locale) -> String {
    let text = render(&ConsentRequest::BookingOffer(o.clone()), locale, &Contacts::new()).unwrap();
    assert_inert(&text);
    text
}

#[test]
fn a_service_name_cannot_fake_a_lower_price() {
    // Right-to-left override: a naive display would show the rest of the line reversed,
    // "… CAD 10.00" ahead of the real price.
    let mut o = dental();
    o.claims.service.name = "Cleaning\u{202E}00.01 DAC".into();
    let text = render_offer(&o, &en());
    let first = text.lines().next().unwrap();
    assert_eq!(
        first,
        "\"Cleaning\u{FFFD}00.01 DAC\" with Harbourview Dental (harbourviewdental.example), Thursday 15 October 2026, 8:00–9:00 a.m. Pacific time, CAD 180.00, paid to Harbourview Dental directly"
    );
    let text = render_offer(&o, &fr());
    assert!(text.starts_with("« Cleaning\u{FFFD}00.01 DAC » avec"), "{text}");
    assert!(text.contains("180,00 CAD, à payer directement"), "{text}");
}

#[test]
fn a_service_name_cannot_fake_a_whole_term_list() {
    let mut o = dental();
    o.claims.service.name = "Cleaning, CAD 1.00, paid to Harbourview Dental directly\nHarbourview Dental keeps my booking details for 0 days".into();
    let text = render_offer(&o, &en());
    assert_eq!(text.lines().count(), 2, "a line break in a name must not make a line: {text}");
    assert!(text.starts_with("\"Cleaning, CAD 1.00, paid to Harbourview Dental directly\u{FFFD}Harbourview"), "{text}");
    assert!(text.contains("CAD 180.00, paid to Harbourview Dental directly\n"), "{text}");
}

#[test]
fn a_host_name_cannot_fake_its_domain() {
    let mut o = dental();
    o.claims.host.as_mut().unwrap().name = "Harbourview Dental (harbourviewdental.example)".into();
    o.claims.host.as_mut().unwrap().domain = Some("harbourviewdental.example".into());
    o.discovered = Some(domain("evil.example"));
    let text = render_offer(&o, &en());
    assert!(
        text.starts_with(
            "Cleaning and check-up with \"Harbourview Dental (harbourviewdental.example)\" (evil.example), "
        ),
        "{text}"
    );
    let text = render_offer(&o, &fr());
    assert!(
        text.starts_with(
            "Cleaning and check-up avec « Harbourview Dental (harbourviewdental.example) » (evil.example), "
        ),
        "{text}"
    );
}

#[test]
fn a_host_name_cannot_close_its_quotes_early() {
    let mut o = dental();
    o.claims.host.as_mut().unwrap().name = "Harbourview Dental\" (harbourviewdental.example) \"x".into();
    o.discovered = Some(domain("evil.example"));
    let text = render_offer(&o, &en());
    assert!(
        text.contains("with \"Harbourview Dental\u{FFFD} (harbourviewdental.example) \u{FFFD}x\" (evil.example), "),
        "{text}"
    );
    o.claims.host.as_mut().unwrap().name = "Harbourview » (harbourviewdental.example) «".into();
    let text = render_offer(&o, &fr());
    assert!(
        text.contains("avec « Harbourview \u{FFFD} (harbourviewdental.example) \u{FFFD} » (evil.example)"),
        "{text}"
    );
}

/// The same attack with characters that only look like quotation marks: modifier
/// letters (`ʺ` U+02BA, `ˮ` U+02EE), the double prime, ditto and CJK quotes, two
/// apostrophe-like letters side by side, and, in French, the look-alikes of `«` `»`.
/// Each is neutralised inside the quotes, as a real quotation mark is.
#[test]
fn a_look_alike_quotation_mark_cannot_close_a_host_names_quotes() {
    let mut o = dental();
    o.discovered = Some(domain("evil.example"));
    for mark in ["\u{2BA}", "\u{2EE}", "\u{2033}", "\u{3003}", "\u{301E}", "''", "\u{2BB}\u{2BB}", "\u{2BC}'"] {
        o.claims.host.as_mut().unwrap().name =
            format!("Harbourview Dental{mark} (harbourviewdental.example), booked via {mark}HVD");
        let text = render_offer(&o, &en());
        let neutral = "\u{FFFD}".repeat(mark.chars().count());
        assert!(
            text.contains(&format!(
                "with \"Harbourview Dental{neutral} (harbourviewdental.example), booked via {neutral}HVD\" (evil.example), "
            )),
            "{mark}: {text}"
        );
    }
    for mark in ["\u{275D}", "\u{275E}", "\u{1F677}"] {
        o.claims.host.as_mut().unwrap().name = format!("Harbourview Dental{mark} (harbourviewdental.example)");
        let text = render_offer(&o, &en());
        assert!(
            text.contains("with \"Harbourview Dental\u{FFFD} (harbourviewdental.example)\" (evil.example), "),
            "{text}"
        );
    }
    for (open, close) in [
        ("\u{226A}", "\u{226B}"),
        ("\u{2C2}", "\u{2C3}"),
        ("\u{300A}", "\u{300B}"),
        ("\u{27EA}", "\u{27EB}"),
        ("\u{3008}", "\u{3009}"),
    ] {
        o.claims.host.as_mut().unwrap().name = format!("Harbourview {close} (harbourviewdental.example) {open}");
        let text = render_offer(&o, &fr());
        assert!(
            text.contains("avec « Harbourview \u{FFFD} (harbourviewdental.example) \u{FFFD} » (evil.example)"),
            "{open}{close}: {text}"
        );
    }
    // ASCII's angle brackets are quotes in pairs only.
    o.claims.host.as_mut().unwrap().name = "Harbourview >> (harbourviewdental.example) <<".into();
    let text = render_offer(&o, &fr());
    assert!(
        text.contains(
            "avec « Harbourview \u{FFFD}\u{FFFD} (harbourviewdental.example) \u{FFFD}\u{FFFD} » (evil.example)"
        ),
        "{text}"
    );
    // One apostrophe, of any look, is a name's own: kept.
    o.claims.host.as_mut().unwrap().name = "Hawai\u{2BB}i Dental, O'Brien & Co".into();
    let text = render_offer(&o, &en());
    assert!(text.contains("with \"Hawai\u{2BB}i Dental, O'Brien & Co\" (evil.example), "), "{text}");
}

/// Letters that look like a comma, a full stop or a colon (Lisu `ꓹ ꓸ ꓽ`) are read as
/// them: a name with them is quoted, and one whose skeleton holds a domain is too,
/// while the same name in letters that look like letters stays bare.
#[test]
fn look_alike_punctuation_cannot_make_a_name_read_as_the_key_apps_terms() {
    let mut o = dental();
    o.claims.service.name = "Cleaning\u{A4F9} CAD 1\u{A4F8}00\u{A4F9} paid to Harbourview Dental directly".into();
    let text = render_offer(&o, &en());
    assert!(
        text.starts_with("\"Cleaning\u{A4F9} CAD 1\u{A4F8}00\u{A4F9} paid to Harbourview Dental directly\" with "),
        "{text}"
    );
    o.claims.service.name = "Cleaning\u{A4FD} free".into();
    assert!(render_offer(&o, &en()).starts_with("\"Cleaning\u{A4FD} free\" with "));
    o.claims.service.name = "Cleaning and check-up".into();
    o.claims.host.as_mut().unwrap().name = "Harbourview Dental harbourviewdental\u{A4F8}example".into();
    o.discovered = Some(domain("evil.example"));
    let text = render_offer(&o, &en());
    assert!(text.contains("with \"Harbourview Dental harbourviewdental\u{A4F8}example\" (evil.example)"), "{text}");
    // Cyrillic letters that look like Latin ones are letters: bare.
    o.claims.host.as_mut().unwrap().name = "Нarbourview Dеntal".into();
    let text = render_offer(&o, &en());
    assert!(text.contains("with Нarbourview Dеntal (evil.example)"), "{text}");
}

/// Letters and symbols that fonts draw as blank (the Hangul fillers, the blank
/// braille pattern) and other default-ignorable characters are shown as U+FFFD, so
/// a name cannot pad the terms after it out of sight with blank lines.
#[test]
fn blank_letters_and_ignorable_characters_are_shown_not_hidden() {
    let mut o = dental();
    for blank in ['\u{3164}', '\u{FFA0}', '\u{115F}', '\u{1160}', '\u{2800}', '\u{34F}', '\u{FE0F}', '\u{180E}'] {
        o.claims.host.as_mut().unwrap().name = format!("Harbourview Dental{}", blank.to_string().repeat(200));
        let text = render_offer(&o, &en());
        assert!(!text.contains(blank), "{:04X}: {text}", blank as u32);
        assert!(text.contains(&format!("\"Harbourview Dental{}\"", "\u{FFFD}".repeat(200))), "{text}");
    }
    assert_eq!(inert::first_hidden("\u{3164}"), Some('\u{3164}'), "nor can an assistant be named with them");
    assert_eq!(inert::first_hidden("Calendar \u{2800}"), Some('\u{2800}'));
}

/// A letter keeps a few combining marks, as real scripts stack them; a flood of
/// them, which would be painted over the lines around it, ends in one U+FFFD.
#[test]
fn a_flood_of_combining_marks_stays_on_its_letter() {
    let mut o = dental();
    o.claims.service.name = format!("Cleaning{} and check-up", "\u{333}\u{489}".repeat(120));
    let text = render_offer(&o, &en());
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("\"Cleaning\u{333}\u{489}\u{333}\u{489}\u{FFFD} and check-up\" with "), "{first}");
    // Real stacks pass whole: Vietnamese written decomposed (two marks on a
    // letter), Tibetan (three), Hebrew with its vowel points, Devanagari.
    for name in [
        "Nguye\u{302}\u{303}n Thi\u{323}",
        "\u{F66}\u{F92}\u{FB2}\u{F7C}\u{F63}\u{F0B}\u{F58}",
        "\u{5D7}\u{5B7}\u{5D9}\u{5B4}\u{5BC}\u{5D9}\u{5DD}",
        "क्षत्रिय",
    ] {
        assert_eq!(inert::inert_in_quotes(name), inert::inert(name));
        assert_eq!(inert::inert(name).trim_matches(['\u{2068}', '\u{2069}']), name);
    }
}

/// A combining mark with no letter under it is drawn alone, as punctuation
/// (U+030E like a closing quote, U+0326 like a comma), or on the key app's own
/// opening quotation mark: shown as U+FFFD.
#[test]
fn a_mark_with_no_letter_under_it_is_shown_not_drawn_as_punctuation() {
    let mut o = dental();
    o.discovered = Some(domain("evil.example"));
    o.claims.host.as_mut().unwrap().name =
        "Harbourview Dental \u{30E} (harbourviewdental.example), via \u{30E}HVD".into();
    let text = render_offer(&o, &en());
    assert!(
        text.contains(
            "with \"Harbourview Dental \u{FFFD} (harbourviewdental.example), via \u{FFFD}HVD\" (evil.example)"
        ),
        "{text}"
    );
    o.claims.service.name = "\u{338}Cleaning \u{326} CAD 0.00 paid at the desk".into();
    let text = render_offer(&o, &en());
    assert!(text.starts_with("\"\u{FFFD}Cleaning \u{FFFD} CAD 0.00 paid at the desk\" with "), "{text}");
}

/// Names in every script stay as written, in quotes or not: the look-alike rules
/// judge symbols, marks and modifier letters, never a script's own letters (a
/// doubled Hebrew yod, the Yiddish ligatures, the Inuktitut syllable `ᐸ`, an
/// Icelandic eth), and an ASCII token is read for a domain as it is written.
#[test]
fn real_names_in_every_script_are_not_taken_for_look_alikes() {
    for name in [
        "\u{5D7}\u{5D9}\u{5D9}\u{5DD}",
        "\u{5DE}\u{5E8}\u{5E4}\u{5D0}\u{5EA} \u{5E9}\u{5D9}\u{5E0}\u{5D9}\u{5D9}\u{5DD}",
        "\u{5F2}\u{5B7}\u{5E0}\u{5E7}\u{5DC}",
        "\u{1438}\u{14D0}\u{14C2}\u{1585}\u{1511}\u{1585}",
        "Guðrún Sigurðardóttir",
        "Nº 5",
    ] {
        let once = inert::inert_in_quotes(name);
        assert!(!once.contains('\u{FFFD}'), "{name}: {once}");
        assert_eq!(once.trim_matches(['\u{2068}', '\u{2069}']), name);
    }
    for name in ["Guðrún Sigurðardóttir", "Room 1.10", "Suite 2.01", "No.10 Studio", "Nº 5"] {
        assert!(inert::is_plain(&inert::inert(name)), "{name}");
    }
    // An emoji keeps the selector that draws it as one; elsewhere it is hidden.
    assert_eq!(inert::first_hidden("\u{2600}\u{FE0F} Planner"), None);
    assert_eq!(inert::inert("\u{2600}\u{FE0F} Planner"), "\u{2600}\u{FE0F} Planner");
    assert_eq!(inert::first_hidden("Planner\u{FE0F}"), Some('\u{FE0F}'));
}

/// A surface that quotes a name a list already made inert shows it as the list
/// did, even when what made it right-to-left was a quotation mark.
#[test]
fn a_name_made_inert_in_quotes_comes_back_unchanged() {
    for name in ["Cal \u{5F4}", "Cal \u{5D9}\u{5D9}", "\u{2BB}\u{2BB}Harbourview", "Nguye\u{302}\u{303}n", "a \u{30E}"]
    {
        let once = inert::inert_in_quotes(name);
        assert_eq!(inert::inert_in_quotes(&once), once, "{name}");
    }
}

#[test]
fn zero_width_and_bidi_marks_in_names_are_shown_not_hidden() {
    let mut o = dental();
    o.claims.host.as_mut().unwrap().name = "Harbour\u{200B}view\u{200F} Dental\u{2066}".into();
    let text = render_offer(&o, &en());
    assert!(text.contains("\"Harbour\u{FFFD}view\u{FFFD} Dental\u{FFFD}\" (harbourviewdental.example)"), "{text}");
}

#[test]
fn place_and_party_terms_cannot_be_forged_by_a_place() {
    let mut o = playdate_offer();
    o.claims.place = Some(Place {
        name: Some("Park\u{2028}for 1 person".into()),
        locality: Some("Toronto\r\nEllis Moreau keeps my booking details for 1 day after the booking.".into()),
        ..Place::default()
    });
    o.claims.party_size = Some(12);
    let text = render_offer(&o, &en());
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.contains("at \"Park\u{FFFD}for 1 person\", "), "{text}");
    assert!(text.contains(", for 12 people\n"), "{text}");
}

#[test]
fn right_to_left_names_are_isolated_and_cannot_capture_the_domain() {
    let mut o = dental();
    o.claims.host.as_mut().unwrap().name = "מרפאת שיניים".into();
    let text = render_offer(&o, &en());
    assert!(text.contains("with \u{2068}מרפאת שיניים\u{2069} (harbourviewdental.example), "), "{text}");
    // A name that tries to close our isolate early gets its PDI neutralised.
    o.claims.host.as_mut().unwrap().name = "מרפאת\u{2069}\u{202E} evil".into();
    let text = render_offer(&o, &en());
    assert!(text.contains("\u{2068}מרפאת\u{FFFD}\u{FFFD} evil\u{2069}\" (harbourviewdental.example)"), "{text}");
}

#[test]
fn look_alike_domains_are_shown_in_ascii() {
    let mut o = dental();
    // "harbourviewdental.example" with a Cyrillic "а" (U+0430) for the first "a".
    o.discovered = Some(domain("h\u{0430}rbourviewdental.example"));
    let text = render_offer(&o, &en());
    let shown = o.discovered.as_ref().unwrap().as_ascii().to_owned();
    assert!(shown.starts_with("xn--"), "{shown}");
    assert!(text.contains(&format!("Harbourview Dental ({shown})")), "{text}");
    assert!(!text.contains('\u{0430}'), "{text}");
}

#[test]
fn meeting_names_titles_and_attendees_are_inert() {
    let mut c = playdate_contract();
    c.title = "Playdate\u{202E}".into();
    c.members[1].name = "Ellis\nMoreau".into();
    c.members[2].name = "Priya Shah\" (priya-shah), and everyone's \"".into();
    let attendees = c.attendees.as_mut().unwrap();
    attendees[0].name = "Mira\u{0007}".into();
    attendees[0].relationship = Some("child)\u{200D}".into());
    let contacts: Contacts = [(ELLIS, "Ellis \u{202D}Moreau")].into_iter().collect();
    let text = meeting_statement(&en(), &organizer_request(c.clone()), &contacts).unwrap();
    assert_inert(&text);
    assert!(text.starts_with("I approve: \"Playdate\u{FFFD}\" with \"Ellis \u{FFFD}Moreau\" (ellis-moreau)"), "{text}");
    assert!(
        text.contains(
            "someone you don't know, named \"Priya Shah\u{FFFD} (priya-shah), and everyone's \u{FFFD}\" (priya-shah)"
        ),
        "{text}"
    );
    let text = acceptance_statement(&fr(), &acceptance_request(c, ELLIS), &Contacts::new()).unwrap();
    assert_inert(&text);
}

#[test]
fn rule_labels_agent_names_and_fingerprints_are_inert() {
    let mut r = weekend_rule();
    r.rule.label = "Weekends\u{202E}\u{FEFF}".into();
    r.agent.name = Some("Calendar\u{2067} Assistant".into());
    r.agent.fingerprint = "7F3A\u{200B}-91C2-K8QD".into();
    let text = render_rule(&en(), &r, &Contacts::new()).unwrap();
    assert_inert(&text);
    assert!(text.contains("under my rule \"Weekends\u{FFFD}\u{FFFD}\"."), "{text}");
    let text = render_pairing(&fr(), "Agent\u{0}\u{1B}[31m", "AB\u{202E}CD").unwrap();
    assert_inert(&text);
    assert!(text.contains("« Agent\u{FFFD}\u{FFFD}[31m »"), "{text}");
}

#[test]
fn ordinary_strings_pass_untouched() {
    // The other direction: nothing ordinary is quoted, replaced or isolated.
    let text = render_offer(&dental(), &en());
    assert!(!text.contains('\u{FFFD}') && !text.contains('"'), "{text}");
    let text = render_offer(&haircut(), &fr());
    assert!(!text.contains('\u{FFFD}') && !text.contains('«'), "{text}");
    let mut o = dental();
    o.claims.host.as_mut().unwrap().name = "Dr. O'Brien & Associates".into();
    o.claims.service.name = "Check-up #2".into();
    let text = render_offer(&o, &en());
    assert!(text.starts_with("Check-up #2 with Dr. O'Brien & Associates (harbourviewdental.example), "), "{text}");
}

// ---- Bounded, never truncated ----

fn too_long(r: Result<String, ConsentError>) -> (&'static str, usize, usize) {
    match r {
        Err(ConsentError::TextTooLong { what, chars, max }) => (what, chars, max),
        other => panic!("expected TextTooLong, got {other:?}"),
    }
}

#[test]
fn a_20000_character_service_name_is_refused_not_shown_or_cut() {
    let mut o = oil_change();
    o.claims.service.name = "Synthetic oil change ".repeat(1000)[..20_000].to_owned();
    for locale in [en(), fr()] {
        let r = render(&ConsentRequest::BookingOffer(o.clone()), &locale, &Contacts::new());
        assert_eq!(too_long(r), ("a name, place or service", 20_000, inert::MAX_FIELD_CHARS));
    }
}

#[test]
fn a_name_at_the_bound_is_shown_whole() {
    let name = "x".repeat(inert::MAX_FIELD_CHARS);
    let mut o = oil_change();
    o.claims.service.name = name.clone();
    let text = render_offer(&o, &en());
    assert!(text.contains(&name));
    o.claims.host.as_mut().unwrap().name = format!("{name}y");
    let r = render(&ConsentRequest::BookingOffer(o), &en(), &Contacts::new());
    assert_eq!(too_long(r).1, inert::MAX_FIELD_CHARS + 1);
}

#[test]
fn a_place_is_bounded_as_a_whole() {
    let field = || Some("p".repeat(100));
    let mut o = oil_change();
    o.claims.place = Some(Place { name: field(), street: field(), locality: field(), ..Place::default() });
    let r = render(&ConsentRequest::BookingOffer(o), &en(), &Contacts::new());
    assert_eq!(too_long(r).0, "a place");
}

#[test]
fn a_text_past_its_bound_is_refused_whole() {
    // Fourteen hosts, each named just inside its own bound: the text as a whole is not.
    let mut m = oil_change_mandate();
    m.hosts = (0..14)
        .map(|i| MandateHost {
            id: format!("host-{i}"),
            name: Some(format!("{i} {}", "n".repeat(290))),
            domain: None,
            new_host: false,
        })
        .collect();
    let r = render(&ConsentRequest::OpenMandate(m), &en(), &Contacts::new());
    let (what, chars, max) = too_long(r);
    assert_eq!((what, max), ("the consent text", inert::MAX_TEXT_CHARS));
    assert!(chars > max);
}

/// The lists' one-line summary, the callouts and the wide-mandate heading are
/// new places a host's or an agent's names reach the person (Requests, History,
/// notifications, the consent window's callouts): each is as inert as the text.
#[test]
fn summaries_callouts_and_the_wide_heading_are_as_inert_as_the_text() {
    let mut o = dental();
    o.claims.service.name = "Cleaning\u{202E}00.01 DAC".into();
    o.claims.host.as_mut().unwrap().name = "Harbour\u{200B}view\u{2066}".into();
    o.discovered = None;
    o.new_host = true;
    let req = ConsentRequest::BookingOffer(o);
    for locale in [en(), fr()] {
        let line = summary(&req, &locale).unwrap();
        assert_inert(&line);
        assert!(line.contains("Cleaning\u{FFFD}00.01 DAC"), "{line}");
        for a in attention(&req, &locale, NOW).unwrap() {
            assert_inert(a.detail.as_deref().unwrap_or_default());
        }
    }
    let mut m = oil_change_mandate();
    m.constraints = MandateConstraints::default();
    m.agent_name = "Cal\u{202E}gnikoob".into();
    m.hosts[0].name = Some("Maple\u{2028}Street".into());
    for locale in [en(), fr()] {
        let heading = schcp_consent::attention::wide_heading(&locale, &m).unwrap().unwrap();
        assert_inert(&heading);
        assert!(!heading.contains('\u{202E}') && !heading.contains('\u{2028}'), "{heading}");
        assert_inert(&summary(&ConsentRequest::OpenMandate(m.clone()), &locale).unwrap());
    }
}

/// A range shown at its own offset names one zone, the start's, and reads its end
/// on that offset too: an end written at another offset cannot pass for a time of
/// the named zone (here 5:00 p.m. at -12:00 is 1:00 a.m. the next day at -04:00).
#[test]
fn a_range_whose_ends_have_different_offsets_is_read_on_the_start_offset() {
    let locale = en();
    let mixed = slot_words(&locale, "2026-10-15T12:00:00-04:00", Some("2026-10-15T17:00:00-12:00"), None).unwrap();
    let same = slot_words(&locale, "2026-10-15T12:00:00-04:00", Some("2026-10-16T01:00:00-04:00"), None).unwrap();
    assert_eq!(mixed, same);
    assert!(mixed.contains("Friday 16 October 2026"), "{mixed}");
    assert!(!mixed.contains("5:00"), "{mixed}");
    // An end at the start's offset reads as it did.
    let plain = slot_words(&locale, "2026-10-15T12:00:00-04:00", Some("2026-10-15T17:00:00-04:00"), None).unwrap();
    assert!(plain.contains("12:00–5:00 p.m.") || plain.contains("12:00–5:00\u{202F}p.m."), "{plain}");
}
