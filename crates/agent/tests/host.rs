//! The agent crate's host calls against the example host (crates/testhost):
//! discovery, availability, a hold, confirm, read, change offer, reschedule
//! and cancel, each signed (§3.2) under a mandate (§3.3), and the refusals on
//! that path as typed §9.2 errors.

use agent::host::{
    AvailabilityQuery, ChangeRequest, ConfirmRequest, HoldRequest, Host, HostClient, HostError, HostTrust, TimeRange,
};
use chrono::{Duration, Utc};
use ed25519_dalek::SigningKey;
use schcp::claims::{Action, Audience, BookingStatus, Consent, Constraints};
use schcp::issue::{root_mandate, RootMandate};
use schcp::refusal::{Code, Reason};
use testhost::{TestHost, TestHostConfig};

struct World {
    host: TestHost,
    client: HostClient,
    agent: SigningKey,
    principal: SigningKey,
    _dir: tempfile::TempDir,
}

async fn world() -> World {
    let host = TestHost::start(TestHostConfig::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, host.ca_pem()).unwrap();
    let (name, addr) = host.resolve();
    let trust = HostTrust { extra_root_certs: vec![ca], resolve: [(name, addr)].into_iter().collect() };
    let agent = SigningKey::from_bytes(&[3u8; 32]);
    let client = HostClient::new(agent.clone(), &trust).unwrap();
    World { host, client, agent, principal: SigningKey::from_bytes(&[9u8; 32]), _dir: dir }
}

fn jkt(key: &SigningKey) -> String {
    schcp::jwk::Jwk::ed25519(&key.verifying_key()).thumbprint().unwrap()
}

/// A root mandate the principal signs for this agent.
fn mandate(w: &World, jti: &str, scope: Vec<Action>, constraints: Option<Constraints>) -> String {
    let now = Utc::now().timestamp();
    let m = RootMandate {
        aud: Audience::One("maple-street-auto".into()),
        sub: "p-1".into(),
        jti: jti.into(),
        iat: now,
        exp: now + 3600,
        agent_jkt: jkt(&w.agent),
        scope,
        constraints,
        consent: Consent { mode: None, statement: "Book my oil change next week.".into() },
        contact: None,
        status: None,
        attestations: vec![],
    };
    root_mandate(m, &w.principal).unwrap().compact
}

fn all() -> Vec<Action> {
    vec![Action::Hold, Action::Book, Action::Cancel, Action::Reschedule]
}

async fn next_week(w: &World, host: &Host) -> Vec<String> {
    let start = Utc::now() + Duration::days(7);
    let q = AvailabilityQuery {
        service_id: "oil-change".into(),
        window: TimeRange { start: start.to_rfc3339(), end: (start + Duration::days(7)).to_rfc3339() },
        limit: Some(10),
        party_size: None,
    };
    let a = w.client.availability(host, &q, None).await.unwrap();
    assert_eq!(a.timezone, "America/Toronto");
    a.slots.into_iter().map(|s| s.start).collect()
}

fn refusal(e: HostError) -> (Option<Code>, String) {
    match e {
        HostError::Refused(r) => (r.code(), r.reason_text.clone()),
        other => panic!("not a host refusal: {other}"),
    }
}

fn hold_at(start: &str) -> HoldRequest {
    HoldRequest {
        service_id: "oil-change".into(),
        start: start.into(),
        ttl: Some("PT5M".into()),
        party_size: None,
        place: None,
    }
}

#[tokio::test]
async fn the_whole_path_hold_book_read_move_cancel() {
    let w = world().await;
    let host = w.client.discover(&w.host.discovery_url()).await.unwrap();
    assert_eq!(host.host_id, "maple-street-auto");
    assert_eq!(host.domain.as_deref(), Some("maplestreetauto.example"), "§2.2 rule 1: the domain TLS proved");
    let slots = next_week(&w, &host).await;
    assert!(slots.len() >= 2, "{slots:?}");

    let m = mandate(&w, "m-all", all(), None);
    let hold = w.client.hold(&host, &m, "k-hold", &hold_at(&slots[0])).await.unwrap();
    assert_eq!(hold.start, slots[0]);
    // §9.1: the same key returns the same hold, the same offer bytes.
    let again = w.client.hold(&host, &m, "k-hold", &hold_at(&slots[0])).await.unwrap();
    assert_eq!(again.offer, hold.offer);
    let hash = schcp::hash::jws_sha256(&hold.offer);

    let booked = w
        .client
        .confirm(&host, &m, "k-book", &hold.hold_id, &ConfirmRequest { offer_sha256: hash.clone(), notes: None })
        .await
        .unwrap();
    assert_eq!(booked.booking.status, BookingStatus::Confirmed);
    assert_eq!(booked.booking.offer_sha256.as_deref(), Some(hash.as_str()));
    let id = booked.booking.booking_id.clone();
    assert_eq!(w.client.booking(&host, &m, &id).await.unwrap().booking.start, slots[0]);

    let change = ChangeRequest { sequence: 0, start: Some(slots[1].clone()), place: None };
    let proposal = w.client.change_offer(&host, &m, "k-change", &id, &change).await.unwrap();
    assert_eq!(proposal.start, slots[1]);
    let change_hash = schcp::hash::jws_sha256(&proposal.offer);
    // §5.7 step 2: a stale sequence is refused, and nothing moves.
    let stale = w.client.reschedule(&host, &m, "k-stale", &id, 5, &change_hash).await.unwrap_err();
    assert_eq!(refusal(stale), (Some(Code::StaleSequence), "stale_sequence".into()));
    let wrong = w.client.reschedule(&host, &m, "k-wrong", &id, 0, &hash).await.unwrap_err();
    assert_eq!(refusal(wrong), (Some(Code::ContractMismatch), "contract_mismatch".into()));
    let moved = w.client.reschedule(&host, &m, "k-move", &id, 0, &change_hash).await.unwrap();
    assert_eq!((moved.booking.start.as_str(), moved.booking.sequence), (slots[1].as_str(), 1));
    assert_eq!(moved.offer.as_deref(), Some(proposal.offer.as_str()), "the change offer is the contract now");

    let cancelled = w.client.cancel(&host, &m, "k-cancel", &id, Some("plans changed")).await.unwrap();
    assert_eq!((cancelled.booking.status, cancelled.booking.sequence), (BookingStatus::Cancelled, 2));
    let twice = w.client.cancel(&host, &m, "k-cancel-2", &id, None).await.unwrap_err();
    assert_eq!(refusal(twice).0, Some(Code::InvalidState));
    // The cancelled time is free again.
    assert!(next_week(&w, &host).await.contains(&slots[0]));
}

#[tokio::test]
async fn refusals_on_the_path_are_typed() {
    let w = world().await;
    let host = w.client.discover(&w.host.discovery_url()).await.unwrap();
    let slots = next_week(&w, &host).await;
    let m = mandate(&w, "m-1", all(), None);

    // A mandate without hold in scope (§3.3 check 5).
    let book_only = mandate(&w, "m-book", vec![Action::Book], None);
    let e = w.client.hold(&host, &book_only, "k0", &hold_at(&slots[0])).await.unwrap_err();
    assert_eq!(refusal(e).0, Some(Code::MandateScope));
    // A slot already held: SLOT_UNAVAILABLE with alternatives (§5.2).
    let hold = w.client.hold(&host, &m, "k1", &hold_at(&slots[0])).await.unwrap();
    let e = w.client.hold(&host, &m, "k2", &hold_at(&slots[0])).await.unwrap_err();
    let r = e.refusal().cloned().unwrap();
    assert_eq!((r.code(), r.reason_text.as_str()), (Some(Code::SlotUnavailable), "slot_taken"));
    assert!(!r.alternatives().is_empty());
    // Another offer's hash: CONTRACT_MISMATCH, nothing booked (§5.3).
    let e = w
        .client
        .confirm(&host, &m, "k3", &hold.hold_id, &ConfirmRequest { offer_sha256: "x".repeat(43), notes: None })
        .await
        .unwrap_err();
    assert_eq!(refusal(e), (Some(Code::ContractMismatch), "contract_mismatch".into()));
    // An expired hold cannot be booked.
    w.host.expire_holds();
    let hash = schcp::hash::jws_sha256(&hold.offer);
    let e = w
        .client
        .confirm(&host, &m, "k4", &hold.hold_id, &ConfirmRequest { offer_sha256: hash, notes: None })
        .await
        .unwrap_err();
    assert_eq!(refusal(e), (Some(Code::InvalidState), Reason::Expired.as_str().into()));
    // A total above the mandate's max_price (§3.3 check 6): MANDATE_LIMIT.
    let narrow = Constraints { max_price: Some(schcp::claims::Money::new("50.00", "CAD")), ..Default::default() };
    let cheap = mandate(&w, "m-cheap", all(), Some(narrow));
    let e = w.client.hold(&host, &cheap, "k5", &hold_at(&slots[1])).await.unwrap_err();
    assert_eq!(refusal(e).0, Some(Code::MandateLimit));
    // An ID that would change the path is never sent.
    assert!(matches!(w.client.booking(&host, &m, "../holds").await, Err(HostError::BadId(_))));
}

#[tokio::test]
async fn discovery_follows_the_outbound_policy() {
    let w = world().await;
    // §5.8: a loopback address is never fetched, whatever the URL says.
    let addr = w.host.addr();
    let e = w.client.discover(&format!("https://{addr}/.well-known/scheduling.json")).await.unwrap_err();
    assert!(matches!(e, HostError::UrlRefused { .. }), "{e}");
    let e = w.client.discover("http://maplestreetauto.example/.well-known/scheduling.json").await.unwrap_err();
    assert!(matches!(e, HostError::UrlRefused { .. }), "{e}");
    // A redirect is not followed.
    w.host.set_response(testhost::DiscoveryResponse::Redirect { status: 302, location: w.host.moved_url() });
    let e = w.client.discover(&w.host.discovery_url()).await.unwrap_err();
    assert!(matches!(e, HostError::Discovery { .. }), "{e}");
    // A client that does not trust the host's CA reaches nothing.
    w.host.reset();
    let (name, addr) = w.host.resolve();
    let untrusting = HostClient::new(
        SigningKey::from_bytes(&[5u8; 32]),
        &HostTrust { extra_root_certs: vec![], resolve: [(name, addr)].into_iter().collect() },
    )
    .unwrap();
    let e = untrusting.discover(&w.host.discovery_url()).await.unwrap_err();
    assert!(matches!(e, HostError::Unreachable { .. }), "{e}");
}
