//! Reviewed renderings, English and French, compared byte for byte. Each case is rendered through `render`, the one renderer every surface
//! shows; its snapshot is `snapshots/snapshots__<case>@<language>.snap`.

mod common;

use std::collections::BTreeMap;

use common::*;
use schcp_consent::claims::*;
use schcp_consent::*;

fn check(case: &str, req: &ConsentRequest, contacts: &Contacts) {
    for (tag, locale) in [("en", en()), ("fr", fr())] {
        let text = render(req, &locale, contacts).unwrap_or_else(|e| panic!("{case}@{tag}: {e}"));
        insta::assert_snapshot!(format!("{case}@{tag}"), text);
    }
}

fn offer(case: &str, o: VerifiedOffer) {
    check(case, &ConsentRequest::BookingOffer(o), &Contacts::new());
}

// ---- Booking offers (§5.2) ----

#[test]
fn offer_priced_fixed_verified() {
    offer("offer_dental", dental());
    offer("offer_oil_change", oil_change());
}

#[test]
fn offer_at_the_hosts_address() {
    let mut o = oil_change();
    o.claims.host.as_mut().unwrap().address = Some("412 Maple St, Toronto, ON M4M 2A1".into());
    offer("offer_host_address", o);
}

#[test]
fn offer_unpriced_open_ended_place_approval_unverified_person() {
    offer("offer_playdate", playdate_offer());
}

#[test]
fn offer_resource_reconfirm_two_weeks() {
    offer("offer_haircut", haircut());
}

#[test]
fn offer_party_size_nothing_kept() {
    let mut o = dental();
    let c = &mut o.claims;
    c.iss = "la-petite-table".into();
    c.host.as_mut().unwrap().name = "La Petite Table".into();
    c.host.as_mut().unwrap().tz = "America/Montreal".into();
    c.service = ServiceRef { id: "dinner".into(), name: "Dinner".into() };
    c.slot = Slot { start: "2026-10-16T19:30:00-04:00".into(), end: Some("2026-10-16T21:30:00-04:00".into()) };
    c.price = None;
    c.total = None;
    c.lines = None;
    c.party_size = Some(4);
    c.retention = "P0D".into();
    o.discovered = Some(domain("lapetitetable.example"));
    offer("offer_party_p0d", o);

    let mut one = oil_change();
    one.claims.party_size = Some(1);
    one.claims.retention = "P30D".into();
    offer("offer_party_of_one_p30d", one);
}

#[test]
fn offer_without_host_falls_back_to_iss_and_offset() {
    let mut o = oil_change();
    o.claims.host = None;
    o.discovered = None;
    offer("offer_no_host_unverified", o.clone());
    o.discovered = Some(domain("maplestreetauto.example"));
    offer("offer_no_host_verified_domain", o);
}

#[test]
fn offer_unverified_domain_never_shows_the_claimed_one() {
    let mut o = dental();
    o.discovered = None;
    offer("offer_unverified_domain", o.clone());
    for locale in [en(), fr()] {
        let text = render(&ConsentRequest::BookingOffer(o.clone()), &locale, &Contacts::new()).unwrap();
        assert!(!text.contains("harbourviewdental.example"), "{text}");
    }
}

#[test]
fn offer_times_across_noon_midnight_and_with_seconds() {
    let mut o = dental();
    o.claims.slot = Slot { start: "2026-10-15T11:30:00-07:00".into(), end: Some("2026-10-15T12:15:00-07:00".into()) };
    offer("offer_across_noon", o.clone());
    o.claims.slot = Slot { start: "2026-10-15T22:00:00-07:00".into(), end: Some("2026-10-16T02:00:00-07:00".into()) };
    offer("offer_across_midnight", o.clone());
    // Given in UTC; shown in the host's zone.
    o.claims.slot = Slot { start: "2026-10-15T15:00:30Z".into(), end: Some("2026-10-15T16:00:00Z".into()) };
    offer("offer_seconds_utc_input", o);
}

#[test]
fn offer_reconfirmation_forms() {
    let mut o = haircut();
    o.claims.reconfirm.as_mut().unwrap().before = "P1DT12H".into();
    o.claims.retention = "P365D".into();
    offer("offer_reconfirm_day_and_hours", o.clone());
    o.claims.reconfirm.as_mut().unwrap().before = "PT0S".into();
    offer("offer_reconfirm_at_start", o);
}

#[test]
fn offer_large_and_other_currency_amounts() {
    let mut o = dental();
    o.claims.price = Some(cad("1250"));
    o.claims.total = Some(cad("1250"));
    offer("offer_grouped_amount", o.clone());
    o.claims.total = Some(Money { amount: "12.5".into(), currency: "BHD".into() });
    o.claims.price = o.claims.total.clone();
    offer("offer_three_decimal_currency", o);
}

#[test]
fn offer_approval_deadline_with_reconfirmation_and_place() {
    let mut o = playdate_offer();
    o.claims.slot.end = Some("2026-10-17T15:00:00-04:00".into());
    o.claims.open_end = None;
    o.claims.reconfirm = Some(Reconfirm { before: "PT2H".into(), default: ReconfirmDefault::Release });
    o.claims.party_size = Some(3);
    o.claims.place = Some(Place {
        name: Some("Christie Pits".into()),
        street: Some("750 Bloor St W".into()),
        locality: Some("Toronto".into()),
        region: Some("ON".into()),
        postal_code: Some("M6G 3K4".into()),
        country: Some("CA".into()),
    });
    offer("offer_every_term", o);
}

// ---- Change offers (§5.7) ----

fn change_of(current: &VerifiedOffer) -> VerifiedOffer {
    let mut new = current.clone();
    new.claims.kind = OfferKind::Change;
    new.claims.booking_id = Some("b_7Qx2".into());
    new.claims.prev = Some("prev-hash".into());
    new
}

#[test]
fn change_offer_time_and_price() {
    let current = haircut();
    let mut new = change_of(&current);
    new.claims.slot = Slot { start: "2026-10-15T17:00:00-04:00".into(), end: Some("2026-10-15T17:30:00-04:00".into()) };
    new.claims.total = Some(cad("56.50"));
    new.claims.price = Some(cad("50.00"));
    check(
        "change_time_and_price",
        &ConsentRequest::ChangeOffer {
            current: Some(CurrentTerms::Offer(current)),
            proposed: new,
            by: ProposedChange::Guest,
        },
        &Contacts::new(),
    );
}

#[test]
fn change_offer_place_resource_party() {
    let current = playdate_offer();
    let mut new = change_of(&current);
    new.claims.place =
        Some(Place { name: Some("Dufferin Grove Park".into()), locality: Some("Toronto".into()), ..Place::default() });
    new.claims.party_size = Some(2);
    new.claims.resource_name = Some("the sandpit".into());
    check(
        "change_place_resource_party",
        &ConsentRequest::ChangeOffer {
            current: Some(CurrentTerms::Offer(current)),
            proposed: new,
            by: ProposedChange::Guest,
        },
        &Contacts::new(),
    );
}

#[test]
fn change_offer_without_current_terms_and_unchanged() {
    let current = oil_change();
    let mut new = change_of(&current);
    new.claims.slot = Slot { start: "2026-10-16T09:00:00-04:00".into(), end: Some("2026-10-16T09:45:00-04:00".into()) };
    check(
        "change_no_current",
        &ConsentRequest::ChangeOffer { current: None, proposed: new, by: ProposedChange::Guest },
        &Contacts::new(),
    );
    let same = change_of(&current);
    check(
        "change_nothing",
        &ConsentRequest::ChangeOffer {
            current: Some(CurrentTerms::Offer(current)),
            proposed: same,
            by: ProposedChange::Guest,
        },
        &Contacts::new(),
    );
}

// ---- Mandates (§3.3) ----

#[test]
fn open_mandate_one_host() {
    check("mandate_oil_change", &ConsentRequest::OpenMandate(oil_change_mandate()), &Contacts::new());
}

#[test]
fn open_mandate_shared_and_unshared_limits() {
    let mut m = oil_change_mandate();
    m.hosts.push(MandateHost {
        id: "speedy-lube".into(),
        name: Some("Speedy Lube".into()),
        domain: Some(domain("speedylube.example")),
        new_host: false,
    });
    m.hosts.push(MandateHost {
        id: "corner-garage".into(),
        name: Some("Corner Garage".into()),
        domain: None,
        new_host: false,
    });
    m.constraints.shared_limit = true;
    check("mandate_shared_limit", &ConsentRequest::OpenMandate(m.clone()), &Contacts::new());
    m.constraints.shared_limit = false;
    m.constraints.max_bookings = Some(2);
    check("mandate_limit_each", &ConsentRequest::OpenMandate(m), &Contacts::new());
}

/// An SD-JWT mandate (§3.4): the shared constraints, and each host's own member.
/// A constraint some host sets for itself is said host by host; a host that does
/// not set it reads as no limit there.
#[test]
fn open_mandate_with_per_host_constraints() {
    let mut m = oil_change_mandate();
    m.hosts.push(MandateHost {
        id: "speedy-lube".into(),
        name: Some("Speedy Lube".into()),
        domain: Some(domain("speedylube.example")),
        new_host: false,
    });
    let services = m.constraints.services.take();
    let max_price = m.constraints.max_price.take();
    m.constraints.max_bookings = None;
    m.host_constraints.insert(
        "maple-street-auto".into(),
        MandateConstraints { services, max_price, max_bookings: Some(1), ..Default::default() },
    );
    m.host_constraints
        .insert("speedy-lube".into(), MandateConstraints { max_price: Some(cad("60.00")), ..Default::default() });
    check("mandate_per_host", &ConsentRequest::OpenMandate(m.clone()), &Contacts::new());

    // Without a host's own member, the shared lines are exactly as for a JWS mandate.
    let mut plain = oil_change_mandate();
    plain.host_constraints.insert("maple-street-auto".into(), MandateConstraints::default());
    let (a, b) = (ConsentRequest::OpenMandate(plain), ConsentRequest::OpenMandate(oil_change_mandate()));
    assert_eq!(render(&a, &en(), &Contacts::new()).unwrap(), render(&b, &en(), &Contacts::new()).unwrap());
}

/// Limits read as they bind: max_price caps each booking's all-in total, beside
/// the number of bookings it may be spent on (§3.3 check 6).
#[test]
fn open_mandate_price_per_booking_and_bookings() {
    let mut m = oil_change_mandate();
    m.constraints.max_bookings = Some(3);
    let req = ConsentRequest::OpenMandate(m);
    check("mandate_three_bookings", &req, &Contacts::new());
    let en_text = render(&req, &en(), &Contacts::new()).unwrap();
    assert!(en_text.contains("each booking up to CAD 100.00 all-in, at most 3 bookings"), "{en_text}");
    assert!(!en_text.contains("in all"), "{en_text}");
    let fr_text = render(&req, &fr(), &Contacts::new()).unwrap();
    assert!(
        fr_text.contains("chaque réservation jusqu’à 100,00 CAD tout compris, au plus 3 réservations"),
        "{fr_text}"
    );
}

/// A mandate that expires before its window is over says so; one that does not, does not.
#[test]
fn open_mandate_ending_before_its_window() {
    let mut m = oil_change_mandate();
    m.exp -= 3 * 3600;
    let req = ConsentRequest::OpenMandate(m);
    check("mandate_ends_early", &req, &Contacts::new());
    assert!(render(&req, &en(), &Contacts::new()).unwrap().contains("before the end of the time it allows"));
    // Ending exactly with the window is no warning.
    let full = render(&ConsentRequest::OpenMandate(oil_change_mandate()), &en(), &Contacts::new()).unwrap();
    assert!(full.contains("Valid until") && !full.contains("before the end"), "{full}");
    // A host's own window counts too (§3.4).
    let mut own = oil_change_mandate();
    let window = own.constraints.window.take();
    own.host_constraints.insert("maple-street-auto".into(), MandateConstraints { window, ..Default::default() });
    own.exp -= 60;
    let text = render(&ConsentRequest::OpenMandate(own), &en(), &Contacts::new()).unwrap();
    assert!(text.contains("before the end of the time it allows"), "{text}");
}

/// The signed consent.mode, in words; an open mandate always says it books unasked.
#[test]
fn open_mandate_consent_mode_and_acting_unasked() {
    let mut m = oil_change_mandate();
    m.consent_mode = Some(ConsentMode::HumanPresent);
    check("mandate_mode_human_present", &ConsentRequest::OpenMandate(m.clone()), &Contacts::new());
    m.consent_mode = Some(ConsentMode::HumanNotPresent);
    m.scope = vec![Action::Cancel, Action::Reschedule];
    check("mandate_mode_human_not_present_no_book", &ConsentRequest::OpenMandate(m), &Contacts::new());
    let none = render(&ConsentRequest::OpenMandate(oil_change_mandate()), &en(), &Contacts::new()).unwrap();
    assert!(none.contains("The assistant books within these limits without asking me again."), "{none}");
    assert!(!none.contains("Hosts are told"), "{none}");
}

#[test]
fn open_mandate_without_constraints() {
    let mut m = oil_change_mandate();
    m.scope = vec![Action::Delegate, Action::Book, Action::Hold];
    m.constraints = MandateConstraints::default();
    m.tz = None;
    check("mandate_no_limits", &ConsentRequest::OpenMandate(m.clone()), &Contacts::new());
    m.hosts = vec![MandateHost { id: "*".into(), name: None, domain: None, new_host: false }];
    check("mandate_any_host", &ConsentRequest::OpenMandate(m), &Contacts::new());
}

#[test]
fn management_mandate() {
    let req = oil_change_management(vec![Action::Reschedule, Action::Cancel]);
    check("management_mandate", &ConsentRequest::ManagementMandate(req), &Contacts::new());
}

// ---- Meetings (§5.12) ----

#[test]
fn meeting_organizer_spec() {
    check("meeting_spec", &ConsentRequest::MeetingContract(organizer_request(playdate_contract())), &noors_contacts());
    // With the members' offers: each calendar's approval deadline and retention follow.
    let mut req = organizer_request(playdate_contract());
    req.offers = vec![
        member_playdate_offer("ellis-moreau", "Ellis Moreau", ELLIS),
        member_playdate_offer("priya-shah", "Priya Shah", PRIYA),
    ];
    req.offers[1].claims.retention = "P0D".into();
    req.offers[1].claims.approval_by = None;
    check("meeting_spec_with_offers", &ConsentRequest::MeetingContract(req), &noors_contacts());
}

#[test]
fn meeting_organizer_mixed_answers_unknown_member_business_fixed_end() {
    let mut c = playdate_contract();
    c.members[2].answers = Some(Answers::Person);
    c.members
        .push(Member {
            business: Some(true), ..member("urn:schcp:host:cafe-lumiere", "Café Lumière", "cafe-lumiere")
        });
    c.title = "Coffee".into();
    c.end = Some("2026-10-17T13:00:00-04:00".into());
    c.open_end = None;
    c.attendees.as_mut().unwrap().push(Attendee { name: "Leo".into(), relationship: None });
    let mut domains = BTreeMap::new();
    domains.insert("cafe-lumiere".to_string(), domain("cafelumiere.example"));
    let contacts: Contacts = [(ELLIS, "Ellis Moreau")].into_iter().collect();
    let mut cafe = dental();
    cafe.claims.iss = "cafe-lumiere".into();
    cafe.claims.host.as_mut().unwrap().name = "Café Lumière".into();
    cafe.claims.host.as_mut().unwrap().tz = "America/Toronto".into();
    cafe.claims.service = ServiceRef { id: "table".into(), name: "Table for four".into() };
    cafe.claims.slot = Slot { start: c.start.clone(), end: c.end.clone() };
    cafe.claims.total = Some(cad("12.00"));
    cafe.claims.price = Some(cad("12.00"));
    cafe.claims.retention = "P30D".into();
    cafe.discovered = Some(domain("cafelumiere.example"));
    check(
        "meeting_mixed",
        &ConsentRequest::MeetingContract(MeetingContractRequest {
            contract: c.clone(),
            domains: domains.clone(),
            offers: vec![cafe.clone()],
            replaces: None,
        }),
        &contacts,
    );
    // A revision says what it replaces, in the words the person approved then.
    let mut revised = c;
    revised.revision = 2;
    revised.start = "2026-10-17T11:00:00-04:00".into();
    check(
        "meeting_revision",
        &ConsentRequest::MeetingContract(MeetingContractRequest {
            contract: revised,
            domains,
            offers: vec![cafe],
            replaces: Some("I approve: Playdate with Ellis Moreau (ellis-moreau) and Café Lumière (cafelumiere.example), Saturday 17 October 2026 from 12:00 p.m. Eastern time, open-ended.".into()),
        }),
        &contacts,
    );
}

#[test]
fn meeting_everyone_answers_in_person() {
    let mut c = playdate_contract();
    c.answers = Some(Answers::Person);
    c.attendees = None;
    c.place = Place::default();
    check("meeting_in_person", &ConsentRequest::MeetingContract(organizer_request(c)), &noors_contacts());
}

#[test]
fn acceptance_spec_and_strangers() {
    check(
        "acceptance_spec",
        &ConsentRequest::Acceptance(acceptance_request(playdate_contract(), ELLIS)),
        &ellis_contacts(),
    );
    let only_noor: Contacts = [(NOOR, "Noor Haddad")].into_iter().collect();
    check(
        "acceptance_stranger_member",
        &ConsentRequest::Acceptance(acceptance_request(playdate_contract(), ELLIS)),
        &only_noor,
    );
    check(
        "acceptance_stranger_organizer",
        &ConsentRequest::Acceptance(acceptance_request(playdate_contract(), ELLIS)),
        &Contacts::new(),
    );
}

// ---- Rules (§7.9) and pairing ----

#[test]
fn rule_weekends() {
    check("rule_weekends", &ConsentRequest::Rule(weekend_rule()), &Contacts::new());
}

#[test]
fn rule_organizers_and_unknown_agent() {
    let mut r = weekend_rule();
    r.rule.services = None;
    r.rule.weekdays = Some(vec![Weekday::Sun, Weekday::Mon, Weekday::Wed, Weekday::Mon]);
    r.rule.organizers = Some(vec![NOOR.into(), ELLIS.into()]);
    r.agent.name = None;
    let contacts: Contacts = [(NOOR, "Noor Haddad")].into_iter().collect();
    check("rule_organizers", &ConsentRequest::Rule(r.clone()), &contacts);
    r.rule.weekdays = None;
    r.rule.organizers = None;
    r.rule.tz = None;
    check("rule_any", &ConsentRequest::Rule(r), &contacts);
}

#[test]
fn pairing() {
    check(
        "pairing",
        &ConsentRequest::Pairing { agent_name: "Calendar Assistant".into(), fingerprint: "7F3A-91C2-K8QD".into() },
        &Contacts::new(),
    );
}

// ---- Withdrawal (§3.3 "Status URLs"): hosts that cannot read the status address ----

/// The line hosts' unreachable status adds, in each language.
const NOT_WITHDRAWABLE: [(&str, &str); 2] = [
    ("en", "Hosts cannot check with this key app, so I cannot withdraw this before it expires."),
    (
        "fr",
        "Les hôtes ne peuvent pas vérifier auprès de cette application de clés; je ne pourrai donc pas retirer cet accord avant son expiration.",
    ),
];

fn locales() -> [(&'static str, Locale); 2] {
    [("en", en()), ("fr", fr())]
}

/// Every request whose credential carries a status URL (§3.3): offers, change
/// offers, open and management mandates, a reconfirmation, an invitation.
fn with_status() -> Vec<(&'static str, ConsentRequest)> {
    let current = oil_change();
    let mut change = change_of(&current);
    change.claims.slot =
        Slot { start: "2026-10-16T09:00:00-04:00".into(), end: Some("2026-10-16T09:45:00-04:00".into()) };
    let me = Participant {
        who: Some("urn:schcp:principal:jwk-thumbprint:Me".into()),
        name: Some("Alex".into()),
        role: ParticipantRole::Invitee,
        relationship: None,
        confirm_within: Some("PT24H".into()),
        confirm_by: Some("2026-10-14T13:00:00-04:00".into()),
        default: Some(ReconfirmDefault::Release),
        status: Some(ParticipantStatus::Pending),
    };
    let management = || oil_change_management(vec![Action::Cancel, Action::Reschedule]);
    vec![
        ("offer", ConsentRequest::BookingOffer(oil_change())),
        (
            "change",
            ConsentRequest::ChangeOffer {
                current: Some(CurrentTerms::Offer(current)),
                proposed: change,
                by: ProposedChange::Guest,
            },
        ),
        ("mandate", ConsentRequest::OpenMandate(oil_change_mandate())),
        ("management", ConsentRequest::ManagementMandate(management())),
        (
            "reconfirmation",
            ConsentRequest::Reconfirmation { mandate: management(), confirm_by: "2026-10-14T13:00:00-04:00".into() },
        ),
        (
            "invitation",
            ConsentRequest::Invitation(InvitationRequest { contract: dental(), booker: None, me, replaces: None }),
        ),
    ]
}

#[test]
fn not_withdrawable_snapshots() {
    for (case, req) in [
        ("not_withdrawable_offer", ConsentRequest::BookingOffer(oil_change())),
        ("not_withdrawable_mandate", ConsentRequest::OpenMandate(oil_change_mandate())),
    ] {
        for (tag, locale) in locales() {
            let text = render_with(&req, &locale, &Contacts::new(), Withdrawal::NotBeforeExpiry).unwrap();
            insta::assert_snapshot!(format!("{case}@{tag}"), text);
        }
    }
}

#[test]
fn a_credential_with_a_status_url_says_it_cannot_be_withdrawn_in_one_last_line_and_nothing_else_changes() {
    for (case, req) in with_status() {
        assert!(carries_status(&req), "{case}");
        for ((tag, locale), (_, line)) in locales().into_iter().zip(NOT_WITHDRAWABLE) {
            let plain = render(&req, &locale, &Contacts::new()).unwrap();
            let reaches = render_with(&req, &locale, &Contacts::new(), Withdrawal::ReachesHosts).unwrap();
            assert_eq!(reaches, plain, "{case}@{tag}: hosts that read the status: no line");
            assert!(!plain.contains(line), "{case}@{tag}");
            let not = render_with(&req, &locale, &Contacts::new(), Withdrawal::NotBeforeExpiry).unwrap();
            assert_eq!(not, format!("{plain}\n{line}"), "{case}@{tag}: only the new line, last");
            // The first line, the statement a credential signs (§5.3), is unchanged.
            assert_eq!(not.lines().next(), plain.lines().next(), "{case}@{tag}");
        }
    }
}

#[test]
fn what_is_never_revocable_says_nothing_of_withdrawal() {
    let pairing =
        ConsentRequest::Pairing { agent_name: "Calendar Assistant".into(), fingerprint: "7F3A-91C2-K8QD".into() };
    for (case, req, contacts) in [
        ("meeting", ConsentRequest::MeetingContract(organizer_request(playdate_contract())), noors_contacts()),
        ("acceptance", ConsentRequest::Acceptance(acceptance_request(playdate_contract(), ELLIS)), ellis_contacts()),
        ("rule", ConsentRequest::Rule(weekend_rule()), Contacts::new()),
        ("pairing", pairing, Contacts::new()),
    ] {
        assert!(!carries_status(&req), "{case}");
        for (tag, locale) in locales() {
            let plain = render(&req, &locale, &contacts).unwrap();
            let not = render_with(&req, &locale, &contacts, Withdrawal::NotBeforeExpiry).unwrap();
            assert_eq!(not, plain, "{case}@{tag}: nothing to withdraw, nothing said");
        }
    }
}

#[test]
fn the_line_counts_towards_the_bound_on_the_text() {
    // A text that fits only without the line is refused with it: never
    // truncated, never shown without it. Services' names grow the text until it does.
    let line = NOT_WITHDRAWABLE[0].1.chars().count() + 1;
    let sized = |count: usize, name: usize| {
        let mut m = oil_change_mandate();
        m.constraints.services =
            Some((0..count).map(|i| ServiceLabel { id: format!("s{i}"), name: Some("n".repeat(name)) }).collect());
        ConsentRequest::OpenMandate(m)
    };
    let len = |req: &ConsentRequest| render(req, &en(), &Contacts::new()).map(|t| t.chars().count());
    let mut found = None;
    'search: for count in 1..=30 {
        for name in (1..=inert::MAX_FIELD_CHARS).step_by(10) {
            match len(&sized(count, name)) {
                Ok(n) if n + line > inert::MAX_TEXT_CHARS => {
                    found = Some(sized(count, name));
                    break 'search;
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }
    let req = found.expect("some services' names bring the text within a line of its bound");
    let e = render_with(&req, &en(), &Contacts::new(), Withdrawal::NotBeforeExpiry).unwrap_err();
    assert!(matches!(e, ConsentError::TextTooLong { .. }), "{e}");
}
