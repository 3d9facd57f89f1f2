//! The agent crate's typed client against the real key app: typed
//! answers per kind and the §9 refusals as typed errors. It lives here, beside
//! the MCP server's tests, because the agent crate never depends on the key app.

use agent::{
    AgentClient, AgentError, ClosedMandateRequest, Credential, ErrorCode, HostRef, InvitationRequest, MandateRequest,
    MandateStatus, NewRequest, PairingStatus, RequestKind, RequestStatus,
};
use ed25519_dalek::SigningKey;
use keyapp::control::Command;
use reqwest::StatusCode;
use schcp::verify::{verify_mandate_chain, ChainContext};
use serde_json::Value;

use testkit::env::*;
use testkit::invitation::served_invitation;
use testkit::now;

fn api(e: AgentError) -> agent::ApiError {
    match e {
        AgentError::Api(a) => *a,
        other => panic!("not a refusal: {other:?}"),
    }
}

#[tokio::test]
async fn the_typed_client_pairs_asks_waits_and_reads_refusals() {
    let env = start().await;
    let a = AgentClient::new(format!("http://{}", env.app.agent_addr), SigningKey::from_bytes(&[21; 32]));

    let e = api(a.principal().await.unwrap_err());
    assert_eq!(
        (e.status, e.code.clone(), e.reason.as_str()),
        (StatusCode::FORBIDDEN, ErrorCode::NotPermitted, "agent_not_paired")
    );

    let p = a.pair("Typed Agent").await.unwrap();
    assert_eq!(p.status, PairingStatus::Pending);
    assert_eq!(p.fingerprint.as_deref().map(str::len), Some(keyapp::service::fingerprint(&a.jkt()).len()));
    person(&env, Command::Approve { id: p.pairing_id.clone() }).await.unwrap();
    assert_eq!(a.pairing(&p.pairing_id, 0).await.unwrap().status, PairingStatus::Approved);
    let me = a.principal().await.unwrap();
    assert!(me.principal.starts_with("urn:schcp:principal:jwk-thumbprint:"));

    // A root mandate: its result typed as a mandate with a status URL.
    let root = NewRequest::Mandate(MandateRequest {
        hosts: vec![HostRef { id: "maple-street-auto".into(), discovery: env.host.discovery_url() }],
        scope: vec![agent::Action::Hold, agent::Action::Book],
        constraints: None,
        lifetime: Some("P2D".into()),
        consent_mode: None,
        format: None,
        host_constraints: None,
        alg: None,
    });
    let r = a.request("root-1", &root).await.unwrap();
    assert_eq!((r.kind.clone(), r.status.clone()), (RequestKind::Mandate, RequestStatus::Pending));
    assert!(r.credential().is_none());
    person(&env, Command::Approve { id: r.request_id.clone() }).await.unwrap();
    let done = a.request_status(&r.request_id, 5).await.unwrap();
    let Some(Ok(Credential::Mandate(m))) = done.credential() else { panic!("{done:?}") };
    assert!(m.status.starts_with("https://keyapp.example/status/") && m.status.ends_with(&m.jti), "{m:?}");
    let listed = a.mandates().await.unwrap();
    assert_eq!((listed[0].jti.as_str(), &listed[0].status), (m.jti.as_str(), &MandateStatus::Active));
    assert_eq!(listed[0].aud, ["maple-street-auto"]);

    // Withdrawal, typed; a second one is INVALID_STATE not_pending.
    let offer = future_offer(&env.host, 4).1;
    let closed = NewRequest::ClosedMandate(ClosedMandateRequest { offer, discovery: env.host.discovery_url() });
    let r = a.request("closed-1", &closed).await.unwrap();
    assert_eq!(a.withdraw(&r.request_id).await.unwrap().status, RequestStatus::Withdrawn);
    let e = api(a.withdraw(&r.request_id).await.unwrap_err());
    assert_eq!((e.code, e.reason.as_str()), (ErrorCode::InvalidState, "not_pending"));
    let e = api(a.request_status("rq_nothing", 0).await.unwrap_err());
    assert_eq!((e.status, e.code), (StatusCode::NOT_FOUND, ErrorCode::NotFound));
    assert!(matches!(a.request_status("../mandates", 0).await, Err(AgentError::BadId(_))));

    // Two declines: the cooldown carries its retry time. They are given in
    // the same second as the approval above, and still read as the last two
    // answers (the key app orders answers as they were given, migration 0009).
    for key in ["d1", "d2"] {
        let offer = future_offer(&env.host, 5).1;
        let r = a
            .request(
                key,
                &NewRequest::ClosedMandate(ClosedMandateRequest { offer, discovery: env.host.discovery_url() }),
            )
            .await
            .unwrap();
        person(&env, Command::Decline { id: r.request_id.clone() }).await.unwrap();
        assert_eq!(a.request_status(&r.request_id, 0).await.unwrap().status, RequestStatus::Declined);
    }
    let offer = future_offer(&env.host, 6).1;
    let e = api(a
        .request("d3", &NewRequest::ClosedMandate(ClosedMandateRequest { offer, discovery: env.host.discovery_url() }))
        .await
        .unwrap_err());
    assert_eq!((e.code.clone(), e.reason.as_str()), (ErrorCode::RateLimited, "cooldown"));
    let after = e.retry_after.expect("a cooldown says when").as_secs();
    assert!(after > 200 && after <= 300, "{after}");

    // Nobody there: Unreachable, not a refusal.
    let gone = AgentClient::new("http://127.0.0.1:9", SigningKey::from_bytes(&[22; 32]));
    assert!(matches!(gone.principal().await, Err(AgentError::Unreachable { .. })));
}

#[tokio::test]
async fn the_typed_client_answers_an_invitation_with_a_closed_mandate_for_respond() {
    let env = start().await;
    let a = AgentClient::new(format!("http://{}", env.app.agent_addr), SigningKey::from_bytes(&[23; 32]));
    let p = a.pair("Typed Agent").await.unwrap();
    person(&env, Command::Approve { id: p.pairing_id }).await.unwrap();
    let me = a.principal().await.unwrap().principal;

    // §5.10: the booking as the host served it, passed on whole.
    let (served, offer) = served_invitation(&env.host, &me, 5).await;
    let booking_id = served["booking"]["booking_id"].as_str().unwrap().to_owned();
    let Value::Object(booking) = served.clone() else { panic!("{served}") };
    let ask = NewRequest::Invitation(InvitationRequest { booking, discovery: env.host.discovery_url() });
    let r = a.request("inv-1", &ask).await.unwrap();
    assert_eq!((r.kind.clone(), r.status.clone()), (RequestKind::Invitation, RequestStatus::Pending));
    let shown = person(&env, Command::Show { id: r.request_id.clone() }).await.unwrap();
    assert_eq!(shown["consent_text"], r.consent_text.as_str());
    assert!(r.consent_text.starts_with("I accept an invitation from "), "{}", r.consent_text);
    person(&env, Command::Approve { id: r.request_id.clone() }).await.unwrap();

    let done = a.request_status(&r.request_id, 5).await.unwrap();
    let Some(Ok(Credential::Invitation(inv))) = done.credential() else { panic!("{done:?}") };
    assert_eq!(inv.booking_id, booking_id);
    assert_eq!(inv.offer_sha256, schcp::hash::jws_sha256(&offer));
    // What the host checks before it takes the answer (§3.3): this agent's
    // key, the host, this booking's current contract only.
    let chain = verify_mandate_chain(
        &inv.mandate,
        &ChainContext { host_id: "maple-street-auto", request_jkt: &a.jkt(), now: now(), allow_wildcard: false },
    )
    .expect("a host accepts it");
    let c = chain.root.claims.constraints.clone().unwrap();
    assert_eq!((c.offer_sha256, c.bookings), (Some(inv.offer_sha256.clone()), Some(vec![booking_id.clone()])));
    assert_eq!(chain.root.claims.exp, inv.exp);
    let listed = a.mandates().await.unwrap();
    let l = listed.iter().find(|m| m.jti == inv.jti).expect("listed");
    assert_eq!((l.kind.as_str(), &l.status), ("invitation", &MandateStatus::Active));

    // A served booking that is not the one the receipt signs: a typed refusal,
    // nothing pending.
    let mut edited = served.clone();
    edited["booking"]["status"] = "confirmed".into();
    let Value::Object(booking) = edited else { unreachable!() };
    let e = api(a
        .request("inv-2", &NewRequest::Invitation(InvitationRequest { booking, discovery: env.host.discovery_url() }))
        .await
        .unwrap_err());
    assert_eq!(
        (e.status, e.code, e.reason.as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, ErrorCode::VerificationFailed, "booking_mismatch")
    );
    assert!(pending_ids(&env).await.is_empty());
}

/// A host client that reaches the test host beside `env`, signing with `key`.
fn host_client(env: &Env, key: &SigningKey, dir: &std::path::Path) -> agent::host::HostClient {
    let ca = dir.join("host-ca.pem");
    std::fs::write(&ca, env.host.ca_pem()).unwrap();
    let (name, addr) = env.host.resolve();
    let trust = agent::host::HostTrust { extra_root_certs: vec![ca], resolve: [(name, addr)].into_iter().collect() };
    agent::host::HostClient::new(key.clone(), &trust).unwrap()
}

#[tokio::test]
async fn an_invitee_reads_with_a_typed_booking_read_and_a_no_signs_nothing() {
    let env = start().await;
    let key = SigningKey::from_bytes(&[24; 32]);
    let a = AgentClient::new(format!("http://{}", env.app.agent_addr), key.clone());
    let p = a.pair("Typed Agent").await.unwrap();
    person(&env, Command::Approve { id: p.pairing_id }).await.unwrap();
    let me = a.principal().await.unwrap().principal;
    let dir = tempfile::tempdir().unwrap();
    let hosts = host_client(&env, &key, dir.path());
    let host = hosts.discover(&env.host.discovery_url()).await.unwrap();

    // booking_read: a credential for that one booking, and the host serves it under it.
    let (served, _) = served_invitation(&env.host, &me, 5).await;
    let booking_id = served["booking"]["booking_id"].as_str().unwrap().to_owned();
    let read = NewRequest::BookingRead(agent::BookingReadRequest {
        host: "maple-street-auto".into(),
        discovery: env.host.discovery_url(),
        booking_id: booking_id.clone(),
        lifetime: None,
    });
    let r = a.request("read-1", &read).await.unwrap();
    assert_eq!((r.kind.clone(), r.status.clone()), (RequestKind::BookingRead, RequestStatus::Pending));
    person(&env, Command::Approve { id: r.request_id.clone() }).await.unwrap();
    let done = a.request_status(&r.request_id, 5).await.unwrap();
    let Some(Ok(Credential::BookingRead(m))) = done.credential() else { panic!("{done:?}") };
    assert_eq!(m.booking_id, booking_id);
    let got = hosts.booking_as_served(&host, Some(&m.mandate), &booking_id).await.unwrap();
    assert_eq!(Value::Object(got.clone()), served, "the host serves it to the invitee under that credential");
    // It reads that booking alone (§3.3 "Constraints bind reads too") and holds nothing.
    let (other, _) = served_invitation(&env.host, &me, 6).await;
    let other_id = other["booking"]["booking_id"].as_str().unwrap();
    let e = hosts.booking_as_served(&host, Some(&m.mandate), other_id).await.unwrap_err();
    assert_eq!(e.refusal().map(|r| r.reason_text.as_str()), Some("constraint_not_met"), "{e}");
    let slot = agent::host::HoldRequest {
        service_id: "oil-change".into(),
        start: (chrono::Utc::now() + chrono::Duration::days(8)).format("%Y-%m-%dT10:00:00-05:00").to_string(),
        ttl: None,
        party_size: None,
        place: None,
    };
    let e = hosts.hold(&host, &m.mandate, "hold-1", &slot).await.unwrap_err();
    assert_eq!(e.refusal().and_then(|r| r.code()), Some(schcp::refusal::Code::MandateLimit), "{e}");

    // The person's no: the declined request carries nothing the agent could
    // answer with (§5.10: respond takes a mandate of any scope), and the
    // booking waits at the host for its default.
    let ask = NewRequest::Invitation(InvitationRequest { booking: got, discovery: env.host.discovery_url() });
    let r = a.request("inv-no", &ask).await.unwrap();
    person(&env, Command::Decline { id: r.request_id.clone() }).await.unwrap();
    let done = a.request_status(&r.request_id, 5).await.unwrap();
    assert_eq!(done.status, RequestStatus::Declined);
    assert!(done.credential().is_none(), "{done:?}");
    assert_eq!(env.host.served_booking(&booking_id).unwrap().booking.status, schcp::claims::BookingStatus::Tentative);
}

#[tokio::test]
async fn a_typed_booking_acceptance_for_a_business_is_refused_as_not_the_persons_calendar() {
    let env = start().await;
    let a = AgentClient::new(format!("http://{}", env.app.agent_addr), SigningKey::from_bytes(&[25; 32]));
    let p = a.pair("Typed Agent").await.unwrap();
    person(&env, Command::Approve { id: p.pairing_id }).await.unwrap();
    // §7.7: the person's own yes is for their own calendar only; Maple Street
    // Auto is a business, so nothing reaches the person.
    let offer = future_offer(&env.host, 4).1;
    let own =
        NewRequest::BookingAcceptance(agent::BookingAcceptanceRequest { offer, discovery: env.host.discovery_url() });
    let e = api(a.request("own-1", &own).await.unwrap_err());
    assert_eq!((e.status, e.reason.as_str()), (StatusCode::UNPROCESSABLE_ENTITY, "not_my_calendar"));
    assert!(pending_ids(&env).await.is_empty());
    // A tampered offer never gets that far.
    let mut parts: Vec<String> = future_offer(&env.host, 4).1.split('.').map(str::to_owned).collect();
    let first = if parts[2].starts_with('A') { 'B' } else { 'A' };
    parts[2] = format!("{first}{}", &parts[2][1..]);
    let bad = NewRequest::BookingAcceptance(agent::BookingAcceptanceRequest {
        offer: parts.join("."),
        discovery: env.host.discovery_url(),
    });
    let e = api(a.request("own-2", &bad).await.unwrap_err());
    assert_eq!(e.code, ErrorCode::VerificationFailed, "{e:?}");
}
