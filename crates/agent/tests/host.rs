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
    root_mandate(claims(w, jti, scope, constraints), &w.principal).unwrap().compact
}

/// The claims of an hour's root mandate for this agent at Maple Street Auto.
fn claims(w: &World, jti: &str, scope: Vec<Action>, constraints: Option<Constraints>) -> RootMandate {
    let now = Utc::now().timestamp();
    RootMandate {
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
    }
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

/// A status API (§3.3) on loopback that records each claim and release and
/// answers claims with `claim_answer`.
struct FakeStatus {
    base: String,
    seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    claim_answer: std::sync::Arc<std::sync::atomic::AtomicU16>,
}

async fn fake_status() -> FakeStatus {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let claim_answer = std::sync::Arc::new(std::sync::atomic::AtomicU16::new(201));
    let (s, a) = (seen.clone(), claim_answer.clone());
    tokio::spawn(async move {
        loop {
            let Ok((mut tcp, _)) = listener.accept().await else { return };
            let mut buf = vec![0u8; 4096];
            let n = tcp.read(&mut buf).await.unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).to_string();
            let line = head.lines().next().unwrap_or_default().to_owned();
            let method_path: Vec<&str> = line.split(' ').take(2).collect();
            s.lock().unwrap().push(method_path.join(" "));
            let code = if line.starts_with("POST") { a.load(std::sync::atomic::Ordering::SeqCst) } else { 204 };
            let answer = format!("HTTP/1.1 {code} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            let _ = tcp.write_all(answer.as_bytes()).await;
        }
    });
    FakeStatus { base, seen, claim_answer }
}

fn shared_limit() -> Option<Constraints> {
    Some(Constraints { max_bookings: Some(1), shared_limit: Some(true), ..Default::default() })
}

/// A root mandate with a status URL at `status`.
fn mandate_at(w: &World, jti: &str, constraints: Option<Constraints>, status: &str) -> String {
    let mut m = claims(w, jti, all(), constraints);
    m.consent.statement = "Book one oil change at either shop.".into();
    m.status = Some(format!("{status}/status/{jti}"));
    root_mandate(m, &w.principal).unwrap().compact
}

#[tokio::test]
async fn a_shared_limit_is_claimed_at_confirm_and_given_back_at_cancel() {
    let w = world().await;
    let status = fake_status().await;
    let host = w.client.discover(&w.host.discovery_url()).await.unwrap();
    let slots = next_week(&w, &host).await;
    let m = mandate_at(&w, "m-shared", shared_limit(), &status.base);
    let hold = w.client.hold(&host, &m, "k-h1", &hold_at(&slots[0])).await.unwrap();
    let hash = schcp::hash::jws_sha256(&hold.offer);
    let confirm = ConfirmRequest { offer_sha256: hash.clone(), notes: None };
    let booked = w.client.confirm(&host, &m, "k-b1", &hold.hold_id, &confirm).await.unwrap();
    let claimed = "POST /status/m-shared/claims".to_owned();
    assert_eq!(
        status.seen.lock().unwrap().as_slice(),
        std::slice::from_ref(&claimed),
        "§3.3: one claim before the confirm"
    );
    let id = booked.booking.booking_id.clone();
    w.client.cancel(&host, &m, "k-c1", &id, None).await.unwrap();
    let released = format!("DELETE /status/m-shared/claims/maple-street-auto/{}", hold.hold_id);
    assert_eq!(status.seen.lock().unwrap().clone(), [claimed.clone(), released], "given back before the answer");

    // §3.3: a refused claim (409, no bookings left) refuses the confirm, and
    // nothing is booked: the hold still stands.
    status.claim_answer.store(409, std::sync::atomic::Ordering::SeqCst);
    let hold = w.client.hold(&host, &m, "k-h2", &hold_at(&slots[1])).await.unwrap();
    let confirm = ConfirmRequest { offer_sha256: schcp::hash::jws_sha256(&hold.offer), notes: None };
    let e = w.client.confirm(&host, &m, "k-b2", &hold.hold_id, &confirm).await.unwrap_err();
    assert_eq!(refusal(e), (Some(Code::MandateLimit), "shared_limit_reached".into()));
    assert_eq!(w.client.get_hold(&host, &m, &hold.hold_id).await.unwrap().status, schcp::claims::HoldStatus::Held);
    assert_eq!(status.seen.lock().unwrap().len(), 3, "a refused claim is not released");

    // A status URL the host cannot reach is a key app that does not answer.
    let far = mandate_at(&w, "m-far", shared_limit(), "https://keyapp.example");
    let hold = w.client.hold(&host, &far, "k-h3", &hold_at(&slots[2])).await.unwrap();
    let confirm = ConfirmRequest { offer_sha256: schcp::hash::jws_sha256(&hold.offer), notes: None };
    let e = w.client.confirm(&host, &far, "k-b3", &hold.hold_id, &confirm).await.unwrap_err();
    assert_eq!(refusal(e), (Some(Code::MandateLimit), "shared_limit_reached".into()));
    // Without a shared limit no claim is made.
    status.claim_answer.store(201, std::sync::atomic::Ordering::SeqCst);
    let own = mandate_at(&w, "m-own", None, &status.base);
    let hold = w.client.hold(&host, &own, "k-h4", &hold_at(&slots[3])).await.unwrap();
    let confirm = ConfirmRequest { offer_sha256: schcp::hash::jws_sha256(&hold.offer), notes: None };
    w.client.confirm(&host, &own, "k-b4", &hold.hold_id, &confirm).await.unwrap();
    assert_eq!(status.seen.lock().unwrap().len(), 3);
}

/// An SD-JWT VC mandate (§3.4) for this host and another, as the key app
/// issues one: the presentation for this host, without a KB-JWT.
fn sd_jwt(w: &World, scope: Vec<Action>) -> String {
    let now = Utc::now().timestamp();
    let hosts = ["maple-street-auto", "other-garage"];
    let m = schcp::issue::SdJwtMandate {
        sub: "p-1".into(),
        jti: "m-sd".into(),
        iat: now,
        exp: now + 3600,
        agent_jwk: schcp::jwk::Jwk::ed25519(&w.agent.verifying_key()),
        scope,
        constraints: Constraints { services: Some(vec!["oil-change".into()]), ..Default::default() },
        host_constraints: hosts.iter().map(|h| (h.to_string(), Constraints::default())).collect(),
        consent: Consent { mode: None, statement: "Book one oil change.".into() },
        contact: None,
        schcp_status: None,
        padded_to: 4,
        attestations: Default::default(),
    };
    let issued = schcp::issue::sd_jwt_mandate(m, &mut rand_core::OsRng, &w.principal).unwrap();
    issued.presentation_for("maple-street-auto").unwrap()
}

#[tokio::test]
async fn an_sd_jwt_mandate_is_presented_with_a_fresh_key_binding_per_call() {
    let w = world().await;
    let host = w.client.discover(&w.host.discovery_url()).await.unwrap();
    let slots = next_week(&w, &host).await;
    let p = sd_jwt(&w, all());
    assert!(p.ends_with('~'));
    let hold = w.client.hold(&host, &p, "k-sd-h", &hold_at(&slots[0])).await.unwrap();
    let confirm = ConfirmRequest { offer_sha256: schcp::hash::jws_sha256(&hold.offer), notes: None };
    let booked = w.client.confirm(&host, &p, "k-sd-b", &hold.hold_id, &confirm).await.unwrap();
    let id = booked.booking.booking_id.clone();
    // The same presentation again: each call binds it afresh (§3.4), so
    // nothing is replayed.
    assert_eq!(w.client.booking(&host, &p, &id).await.unwrap().booking.booking_id, id);
    let cancelled = w.client.cancel(&host, &p, "k-sd-c", &id, None).await.unwrap();
    assert_eq!(cancelled.booking.status, BookingStatus::Cancelled);
    // A presentation already bound is not bound twice.
    let bound = format!("{p}eyJ.a.b");
    let e = w.client.booking(&host, &bound, &id).await.unwrap_err();
    assert!(matches!(e, HostError::BadMandate(_)), "{e}");
    // Without hold in scope, the host refuses the hold.
    let narrow = sd_jwt(&w, vec![Action::Book]);
    let e = w.client.hold(&host, &narrow, "k-sd-n", &hold_at(&slots[1])).await.unwrap_err();
    assert_eq!(refusal(e).0, Some(Code::MandateScope));
}

#[tokio::test]
async fn an_invitee_reads_the_booking_under_a_read_mandate_naming_it_alone() {
    use schcp::claims::{Participant, ParticipantRole, ParticipantStatus};
    let w = world().await;
    let host = w.client.discover(&w.host.discovery_url()).await.unwrap();
    let me = schcp::jwk::Jwk::ed25519(&w.principal.verifying_key()).principal_id().unwrap();
    let invitee = |who: &str| Participant {
        who: Some(who.to_owned()),
        name: None,
        role: ParticipantRole::Invitee,
        relationship: None,
        confirm_within: Some("P1D".into()),
        confirm_by: Some((Utc::now() + Duration::days(4)).to_rfc3339()),
        default: None,
        status: Some(ParticipantStatus::Pending),
    };
    let offer = w.host.offer(Utc::now().timestamp());
    let mine = w.host.tentative_booking(&offer, "m-booker", vec![invitee(&me)], Utc::now().timestamp()).unwrap();
    let id = mine.booking.booking_id.clone();
    let read = |bookings: Vec<String>| {
        mandate(&w, "m-read", vec![Action::Hold], Some(Constraints { bookings: Some(bookings), ..Default::default() }))
    };
    let served = w.client.booking_as_served(&host, Some(&read(vec![id.clone()])), &id).await.unwrap();
    assert_eq!(served["booking"]["booking_id"], id.as_str());
    // §3.3 "Constraints bind reads too": a read mandate for another booking is refused.
    let e = w.client.booking_as_served(&host, Some(&read(vec!["b_other".into()])), &id).await.unwrap_err();
    assert_eq!(refusal(e), (Some(Code::MandateLimit), "constraint_not_met".into()));
    // And a read mandate's services must include the booking's.
    let for_service = |service: &str| {
        let only = Constraints {
            bookings: Some(vec![id.clone()]),
            services: Some(vec![service.into()]),
            ..Default::default()
        };
        mandate(&w, "m-read-service", vec![Action::Hold], Some(only))
    };
    let e = w.client.booking_as_served(&host, Some(&for_service("inspection")), &id).await.unwrap_err();
    assert_eq!(refusal(e), (Some(Code::MandateLimit), "constraint_not_met".into()));
    let served = w.client.booking_as_served(&host, Some(&for_service("oil-change")), &id).await.unwrap();
    assert_eq!(served["booking"]["booking_id"], id.as_str());
    // A booking that does not name this principal is not found for them (§5.5).
    let theirs =
        w.host.tentative_booking(&offer, "m-booker", vec![invitee("urn:schcp:principal:jwk-thumbprint:x")], 0).unwrap();
    let other = theirs.booking.booking_id.clone();
    let e = w.client.booking_as_served(&host, Some(&read(vec![other.clone()])), &other).await.unwrap_err();
    assert_eq!(refusal(e).0, Some(Code::NotFound));
}

/// §3.3 Management mandates: "Constraints bind reads too", and every change.
/// A management mandate whose `services` do not include the booking's
/// neither reads nor changes it (403 MANDATE_LIMIT, constraint_not_met), and
/// nothing moves; one that includes it, or names no services, does both.
#[tokio::test]
async fn a_management_mandate_for_another_service_neither_reads_nor_changes_the_booking() {
    let w = world().await;
    let host = w.client.discover(&w.host.discovery_url()).await.unwrap();
    let slots = next_week(&w, &host).await;
    let m = mandate(&w, "m-buy", vec![Action::Hold, Action::Book], None);
    let hold = w.client.hold(&host, &m, "k-hold", &hold_at(&slots[0])).await.unwrap();
    let confirm = ConfirmRequest { offer_sha256: schcp::hash::jws_sha256(&hold.offer), notes: None };
    let id = w.client.confirm(&host, &m, "k-book", &hold.hold_id, &confirm).await.unwrap().booking.booking_id;
    let manage = |jti: &str, bookings: &[&str], services: Option<&[&str]>| {
        let constraints = Constraints {
            bookings: Some(bookings.iter().map(|b| b.to_string()).collect()),
            services: services.map(|s| s.iter().map(|x| x.to_string()).collect()),
            ..Default::default()
        };
        mandate(&w, jti, vec![Action::Cancel, Action::Reschedule], Some(constraints))
    };
    let oil = manage("m-oil", &[&id], Some(&["oil-change"]));
    let inspection = manage("m-inspection", &[&id], Some(&["inspection"]));
    let refused = (Some(Code::MandateLimit), "constraint_not_met".to_owned());

    assert_eq!(w.client.booking(&host, &oil, &id).await.unwrap().booking.booking_id, id);
    assert_eq!(refusal(w.client.booking(&host, &inspection, &id).await.unwrap_err()), refused);
    // The booking list binds a read of a booking this host made, too.
    let elsewhere = manage("m-elsewhere", &["b_other"], None);
    assert_eq!(refusal(w.client.booking(&host, &elsewhere, &id).await.unwrap_err()), refused);

    let change = ChangeRequest { sequence: 0, start: Some(slots[1].clone()), place: None };
    let e = w.client.change_offer(&host, &inspection, "k-change-1", &id, &change).await.unwrap_err();
    assert_eq!(refusal(e), refused);
    let proposal = w.client.change_offer(&host, &oil, "k-change-2", &id, &change).await.unwrap();
    let hash = schcp::hash::jws_sha256(&proposal.offer);
    let e = w.client.reschedule(&host, &inspection, "k-move-1", &id, 0, &hash).await.unwrap_err();
    assert_eq!(refusal(e), refused);
    let e = w.client.cancel(&host, &inspection, "k-cancel-1", &id, None).await.unwrap_err();
    assert_eq!(refusal(e), refused);
    let unchanged = w.client.booking(&host, &oil, &id).await.unwrap().booking;
    assert_eq!(
        (unchanged.status, unchanged.sequence, unchanged.start),
        (BookingStatus::Confirmed, 0, slots[0].clone())
    );

    // A management mandate that lists no services is not narrowed by service.
    let any_service = manage("m-any", &[&id], None);
    let moved = w.client.reschedule(&host, &any_service, "k-move-2", &id, 0, &hash).await.unwrap();
    assert_eq!((moved.booking.start.as_str(), moved.booking.sequence), (slots[1].as_str(), 1));
    let cancelled = w.client.cancel(&host, &oil, "k-cancel-2", &id, None).await.unwrap();
    assert_eq!(cancelled.booking.status, BookingStatus::Cancelled);
}
