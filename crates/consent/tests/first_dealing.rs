//! A host the key app has not dealt with before is said in one plain line,
//! right after the summary (§2.2; the key app binds a host id where the person
//! first said yes to it). Snapshots in English and French; a known host's text
//! has no such line and is otherwise the same.

mod common;

use common::*;
use schcp_consent::claims::*;
use schcp_consent::*;

fn check(case: &str, req: &ConsentRequest) {
    for (tag, locale) in [("en", en()), ("fr", fr())] {
        let text = render(req, &locale, &Contacts::new()).unwrap_or_else(|e| panic!("{case}@{tag}: {e}"));
        insta::assert_snapshot!(format!("{case}@{tag}"), text);
    }
}

/// The text of `new` is the text of `known` with one line more, the second.
fn one_line_more(new: &ConsentRequest, known: &ConsentRequest, line: &str) {
    let new = render(new, &en(), &Contacts::new()).unwrap();
    let known = render(known, &en(), &Contacts::new()).unwrap();
    assert!(!known.contains("You have not dealt with"), "{known}");
    let mut lines: Vec<&str> = new.lines().collect();
    assert_eq!(lines.remove(1), line, "{new}");
    assert_eq!(lines.join("\n"), known);
}

#[test]
fn an_offer_from_a_new_host_says_so_after_the_summary() {
    let mut o = oil_change();
    o.discovered = Some(domain("maple-street-auto.example"));
    let known = ConsentRequest::BookingOffer(o.clone());
    o.new_host = true;
    let new = ConsentRequest::BookingOffer(o);
    check("booking_offer_new_host", &new);
    one_line_more(&new, &known, "You have not dealt with maple-street-auto.example before.");
}

#[test]
fn a_new_host_without_a_verified_domain_is_named_as_unverified() {
    let mut o = oil_change();
    o.discovered = None;
    o.new_host = true;
    let text = render(&ConsentRequest::BookingOffer(o), &en(), &Contacts::new()).unwrap();
    assert_eq!(
        text.lines().nth(1),
        Some("You have not dealt with Maple Street Auto (maple-street-auto, unverified) before."),
        "{text}"
    );
}

#[test]
fn a_mandate_names_only_its_new_hosts_in_one_line() {
    let mut m = oil_change_mandate();
    m.hosts.push(MandateHost {
        id: "speedy-lube".into(),
        name: Some("Speedy Lube".into()),
        domain: Some(domain("speedylube.example")),
        new_host: true,
    });
    m.hosts.push(MandateHost {
        id: "corner-garage".into(),
        name: Some("Corner Garage".into()),
        domain: Some(domain("cornergarage.example")),
        new_host: true,
    });
    let new = ConsentRequest::OpenMandate(m.clone());
    check("mandate_new_hosts", &new);
    for h in &mut m.hosts {
        h.new_host = false;
    }
    one_line_more(
        &new,
        &ConsentRequest::OpenMandate(m),
        "You have not dealt with speedylube.example and cornergarage.example before.",
    );
}

#[test]
fn a_management_mandate_at_a_new_host_says_so() {
    let mut m = oil_change_management(vec![Action::Cancel, Action::Reschedule]);
    let known = ConsentRequest::ManagementMandate(m.clone());
    m.booking.new_host = true;
    let new = ConsentRequest::ManagementMandate(m);
    check("management_new_host", &new);
    one_line_more(&new, &known, "You have not dealt with maplestreetauto.example before.");
}

#[test]
fn new_hosts_lists_what_the_line_names() {
    let mut o = oil_change();
    assert!(new_hosts(&en(), &ConsentRequest::BookingOffer(o.clone())).unwrap().is_empty());
    o.new_host = true;
    assert_eq!(new_hosts(&en(), &ConsentRequest::BookingOffer(o)).unwrap(), vec!["maplestreetauto.example".to_owned()]);
}
