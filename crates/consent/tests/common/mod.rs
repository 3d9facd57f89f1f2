//! Fixtures: the spec's own examples (§5.2, §5.12, §7.9), and builders around them.
#![allow(dead_code)]

use std::collections::BTreeMap;

use schcp::jwk::Jwk;
use schcp_consent::claims::*;
use schcp_consent::*;

pub(crate) const NOOR: &str = "urn:schcp:principal:jwk-thumbprint:Noor";
pub(crate) const ELLIS: &str = "urn:schcp:principal:jwk-thumbprint:Ellis";
pub(crate) const PRIYA: &str = "urn:schcp:principal:jwk-thumbprint:Priya";

pub(crate) fn en() -> Locale {
    Locale::new(Language::English).unwrap()
}

pub(crate) fn fr() -> Locale {
    Locale::new(Language::French).unwrap()
}

/// A stand-in Ed25519 public key: rendering never reads it.
pub(crate) fn jwk() -> Jwk {
    Jwk {
        kty: "OKP".into(),
        crv: "Ed25519".into(),
        x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo".into(),
        y: None,
        kid: None,
        use_: None,
        alg: None,
    }
}

pub(crate) fn cad(amount: &str) -> Money {
    Money { amount: amount.into(), currency: "CAD".into() }
}

pub(crate) fn domain(d: &str) -> VerifiedDomain {
    VerifiedDomain::new(d).unwrap()
}

/// §5.2's reference rendering: a dental cleaning, priced, at a verified domain.
pub(crate) fn dental() -> VerifiedOffer {
    VerifiedOffer {
        claims: OfferClaims {
            v: schcp::VERSION.into(),
            kind: OfferKind::Booking,
            iss: "harbourview-dental".into(),
            hold_id: Some("h_dental".into()),
            booking_id: None,
            prev: None,
            iat: 1_792_000_000,
            exp: 1_792_000_300,
            host: Some(HostInfo {
                name: "Harbourview Dental".into(),
                tz: "America/Vancouver".into(),
                domain: Some("harbourviewdental.example".into()),
                address: None,
                kind: None,
                owner: None,
            }),
            service: ServiceRef { id: "cleaning".into(), name: "Cleaning and check-up".into() },
            slot: Slot { start: "2026-10-15T08:00:00-07:00".into(), end: Some("2026-10-15T09:00:00-07:00".into()) },
            open_end: None,
            price: Some(cad("180.00")),
            total: Some(cad("180.00")),
            lines: Some(vec![PriceLine {
                kind: LineKind::Service,
                label: "Cleaning and check-up".into(),
                amount: cad("180.00"),
            }]),
            retention: "P365D".into(),
            reconfirm: None,
            resource: None,
            resource_name: None,
            place: None,
            party_size: None,
            approval_by: None,
        },
        discovered: Some(domain("harbourviewdental.example")),
        new_host: false,
    }
}

/// §5.2's oil change at Maple Street Auto.
pub(crate) fn oil_change() -> VerifiedOffer {
    let mut o = dental();
    let c = &mut o.claims;
    c.iss = "maple-street-auto".into();
    c.host = Some(HostInfo {
        name: "Maple Street Auto".into(),
        tz: "America/Toronto".into(),
        domain: Some("maplestreetauto.example".into()),
        address: None,
        kind: None,
        owner: None,
    });
    c.service = ServiceRef { id: "oil-change".into(), name: "Synthetic oil change".into() };
    c.slot = Slot { start: "2026-10-15T13:00:00-04:00".into(), end: Some("2026-10-15T13:45:00-04:00".into()) };
    c.price = Some(cad("79.00"));
    c.total = Some(cad("89.27"));
    c.lines = Some(vec![
        PriceLine { kind: LineKind::Service, label: "Synthetic oil change".into(), amount: cad("79.00") },
        PriceLine { kind: LineKind::Tax, label: "HST 13%".into(), amount: cad("10.27") },
    ]);
    o.discovered = Some(domain("maplestreetauto.example"));
    o
}

/// §5.2's playdate on a person's calendar: no money, no end, a place, approval_by.
pub(crate) fn playdate_offer() -> VerifiedOffer {
    let mut o = dental();
    let c = &mut o.claims;
    c.iss = "ellis-moreau".into();
    c.exp = 1_792_000_900;
    c.host = Some(HostInfo {
        name: "Ellis Moreau".into(),
        tz: "America/Toronto".into(),
        domain: None,
        address: None,
        kind: Some(HostKind::Person),
        owner: Some(ELLIS.into()),
    });
    c.service = ServiceRef { id: "playdate".into(), name: "Playdate".into() };
    c.slot = Slot { start: "2026-10-17T12:00:00-04:00".into(), end: None };
    c.open_end = Some(true);
    c.price = None;
    c.total = None;
    c.lines = None;
    c.place = Some(Place {
        name: Some("Trinity Bellwoods Park playground".into()),
        locality: Some("Toronto".into()),
        ..Place::default()
    });
    c.approval_by = Some("2026-10-14T01:15:00Z".into());
    c.retention = "P30D".into();
    o.discovered = None;
    o
}

/// §5.2's "Haircut with Marcus at Fades on Queen": a chosen resource, reconfirmation.
pub(crate) fn haircut() -> VerifiedOffer {
    let mut o = dental();
    let c = &mut o.claims;
    c.iss = "fades-on-queen".into();
    c.host = Some(HostInfo {
        name: "Fades on Queen".into(),
        tz: "America/Toronto".into(),
        domain: None,
        address: None,
        kind: None,
        owner: None,
    });
    c.service = ServiceRef { id: "haircut".into(), name: "Haircut".into() };
    c.resource = Some("marcus".into());
    c.resource_name = Some("Marcus".into());
    c.slot = Slot { start: "2026-10-15T16:00:00-04:00".into(), end: Some("2026-10-15T16:30:00-04:00".into()) };
    c.price = Some(cad("45.00"));
    c.total = Some(cad("50.85"));
    c.reconfirm = Some(Reconfirm { before: "PT24H".into(), default: ReconfirmDefault::Release });
    c.retention = "P2W".into();
    o.discovered = Some(domain("fadesonqueen.example"));
    o
}

pub(crate) fn member(principal: &str, name: &str, host: &str) -> Member {
    Member {
        principal: principal.into(),
        name: name.into(),
        host: host.into(),
        domain: None,
        service_id: "playdate".into(),
        offer_sha256: format!("sha-{host}"),
        business: None,
        answers: None,
    }
}

/// §5.12's meeting contract, organized by Noor.
pub(crate) fn playdate_contract() -> MeetingContract {
    MeetingContract {
        v: schcp::VERSION.into(),
        iss: NOOR.into(),
        principal_jwk: jwk(),
        iat: 1_792_154_400,
        exp: 1_792_197_600,
        meeting_id: "mtg_1".into(),
        revision: 1,
        title: "Playdate".into(),
        tz: "America/Toronto".into(),
        start: "2026-10-17T12:00:00-04:00".into(),
        end: None,
        open_end: Some(true),
        place: Place {
            name: Some("Trinity Bellwoods Park playground".into()),
            locality: Some("Toronto".into()),
            ..Place::default()
        },
        members: vec![
            member(NOOR, "Noor Haddad", "noor-haddad"),
            member(ELLIS, "Ellis Moreau", "ellis-moreau"),
            member(PRIYA, "Priya Shah", "priya-shah"),
        ],
        attendees: Some(vec![Attendee { name: "Mira".into(), relationship: Some("child".into()) }]),
        answers: Some(Answers::PersonOrRule),
        // Rendering never reads the statement: it is what rendering produces.
        statement: String::new(),
    }
}

pub(crate) fn noors_contacts() -> Contacts {
    [(ELLIS, "Ellis Moreau"), (PRIYA, "Priya Shah")].into_iter().collect()
}

pub(crate) fn ellis_contacts() -> Contacts {
    [(NOOR, "Noor Haddad"), (PRIYA, "Priya Shah")].into_iter().collect()
}

pub(crate) fn organizer_request(contract: MeetingContract) -> MeetingContractRequest {
    MeetingContractRequest { contract, domains: BTreeMap::new(), offers: Vec::new(), replaces: None }
}

/// A member calendar's offer for the §5.12 playdate (as §5.2's playdate offer).
pub(crate) fn member_playdate_offer(host: &str, name: &str, owner: &str) -> VerifiedOffer {
    let mut o = playdate_offer();
    o.claims.iss = host.into();
    let h = o.claims.host.as_mut().unwrap();
    h.name = name.into();
    h.owner = Some(owner.into());
    o
}

pub(crate) fn acceptance_request(contract: MeetingContract, me: &str) -> AcceptanceRequest {
    AcceptanceRequest { contract, me: me.into(), domains: BTreeMap::new(), replaces: None }
}

/// §3.3's mandate: one oil change Thursday afternoon, under CAD 100.00.
pub(crate) fn oil_change_mandate() -> OpenMandateRequest {
    OpenMandateRequest {
        agent_name: "Calendar Assistant".into(),
        hosts: vec![MandateHost {
            id: "maple-street-auto".into(),
            name: Some("Maple Street Auto".into()),
            domain: Some(domain("maplestreetauto.example")),
            new_host: false,
        }],
        scope: vec![Action::Hold, Action::Book, Action::Cancel, Action::Reschedule],
        constraints: MandateConstraints {
            services: Some(vec![ServiceLabel { id: "oil-change".into(), name: Some("Synthetic oil change".into()) }]),
            window: Some(Window {
                not_before: "2026-10-15T12:00:00-04:00".into(),
                not_after: "2026-10-15T17:00:00-04:00".into(),
            }),
            max_price: Some(cad("100.00")),
            max_bookings: Some(1),
            shared_limit: false,
        },
        exp: 1_792_098_000,
        tz: Some("America/Toronto".into()),
        host_constraints: BTreeMap::new(),
        consent_mode: None,
    }
}

/// A management mandate (§5.10) over the oil change booked at Maple Street Auto.
pub(crate) fn oil_change_management(scope: Vec<Action>) -> ManagementMandateRequest {
    ManagementMandateRequest {
        agent_name: "Calendar Assistant".into(),
        booking: BookingSummary {
            booking_id: "b_7Qx2".into(),
            iss: "maple-street-auto".into(),
            host_name: Some("Maple Street Auto".into()),
            tz: Some("America/Toronto".into()),
            domain: Some(domain("maplestreetauto.example")),
            new_host: false,
            service_name: "Synthetic oil change".into(),
            resource_name: None,
            start: "2026-10-15T13:00:00-04:00".into(),
            end: Some("2026-10-15T13:45:00-04:00".into()),
            place: None,
        },
        scope,
        exp: 1_792_089_900,
    }
}

/// §7.9's rule: weekend playdates, signed by Priya.
pub(crate) fn weekend_rule() -> RuleRequest {
    RuleRequest {
        rule: RuleClaims {
            iss: PRIYA.into(),
            principal_jwk: jwk(),
            iat: 1_792_000_000,
            exp: 1_798_779_540,
            jti: "r-1".into(),
            cnf: Cnf { jkt: "agent-jkt".into() },
            label: "Weekend playdates with my contacts".into(),
            services: Some(vec!["playdate".into()]),
            weekdays: Some(vec![Weekday::Sat, Weekday::Sun]),
            tz: Some("America/Toronto".into()),
            organizers: None,
        },
        agent: AgentKey { name: Some("Calendar Assistant".into()), fingerprint: "7F3A-91C2-K8QD".into() },
    }
}

/// The moment the fixtures' requests are shown: two hours and a bit before
/// `oil_change_mandate` expires, so it is not long-lived.
pub(crate) const NOW: i64 = 1_792_090_000;
