//! The status API conformance suite: one set of checks of the wire
//! contract hosts rely on (docs/agent-api.md §10, §3.3 "One consent, several
//! hosts"), run against both implementations: the key app's embedded status
//! API (SQLite) and schcp-status (PostgreSQL, namespaced by principal). Each
//! check is one function over a [`Target`]; `conformance!` makes a test of it
//! per implementation. Every refusal is checked for the §9 shape and for
//! having changed nothing.

mod common;

use common::{answer, client, now, publish, refusal, registration, revocation, InProcess, Principal};
use keyapp::status_api::{RateLimit, StatusOptions};
use keyapp::store::credentials::{self, CredentialRecord, RevokeOutcome};
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use std::time::Duration;
use testhost::{Signing, StatusRequest, TestHost, TestHostConfig};
use testkit::status::{claim_from_a_page, mandate, preflight_from_a_page, Embedded};

const MAPLE: &str = "maple-street-auto";
const OAK: &str = "oak-lane-garage";

/// One implementation of the status API, with a way to set credentials up.
enum Target {
    /// The key app's embedded status API over its SQLite store.
    Embedded(Embedded),
    /// schcp-status, credentials registered through its publishing route.
    Hosted { server: InProcess, principal: Principal },
}

impl Target {
    async fn embedded(options: StatusOptions) -> Target {
        Target::Embedded(Embedded::start(options).await)
    }

    async fn hosted(options: StatusOptions) -> Target {
        Target::Hosted { server: InProcess::start(options).await, principal: Principal::ed25519() }
    }

    /// The credential's status URL, plus `suffix`.
    fn url(&self, jti: &str, suffix: &str) -> String {
        match self {
            Target::Embedded(server) => server.url(&format!("/status/{jti}{suffix}")),
            Target::Hosted { server, principal } => {
                format!("{}/status/{}/{jti}{suffix}", server.base(), principal.thumb)
            }
        }
    }

    fn base(&self) -> String {
        match self {
            Target::Embedded(server) => server.url(""),
            Target::Hosted { server, .. } => server.base(),
        }
    }

    async fn mandate(&self, jti: &str, aud: &[&str], max: Option<u32>, shared: bool, exp: i64) {
        self.mandate_with_keys(jti, aud, max, shared, exp, Default::default()).await
    }

    /// A mandate whose hosts' discovery keys were recorded at issuance, as the
    /// key app records them (embedded) and registers them (hosted).
    async fn mandate_with_keys(
        &self,
        jti: &str,
        aud: &[&str],
        max: Option<u32>,
        shared: bool,
        exp: i64,
        host_keys: status_edge::HostKeys,
    ) {
        match self {
            Target::Embedded(server) => credentials::record(
                &server.store,
                CredentialRecord { host_keys, ..mandate(jti, aud, max, shared, exp) },
            )
            .await
            .unwrap(),
            Target::Hosted { server, principal } => {
                let mut op = registration(jti, aud, max, shared, exp);
                if let schcp::status_update::Operation::Register(r) = &mut op {
                    r.host_keys = host_keys;
                }
                let update = principal.update(&op);
                let r = publish(&client(), &server.base(), &principal.thumb, update).await;
                assert_eq!(r.status(), StatusCode::CREATED, "{:?}", r.text().await);
            }
        }
    }

    async fn revoke(&self, jti: &str) {
        match self {
            Target::Embedded(Embedded { store, .. }) => {
                assert_eq!(credentials::revoke(store, jti, now()).await.unwrap(), RevokeOutcome::Revoked)
            }
            Target::Hosted { server, principal } => {
                let r = publish(&client(), &server.base(), &principal.thumb, principal.update(&revocation(jti))).await;
                assert_eq!(answer(r).await, (StatusCode::OK, json!({"jti": jti, "status": "revoked"})));
            }
        }
    }

    async fn held(&self, jti: &str) -> Vec<String> {
        let mut held = match self {
            Target::Embedded(Embedded { store, .. }) => {
                keyapp::store::booking_claims::held_claims(store, jti).await.unwrap()
            }
            Target::Hosted { server, principal } => {
                schcp_status::store::held_claims(&server.pool, &principal.thumb, jti).await.unwrap()
            }
        };
        held.sort();
        held
    }

    async fn claim(&self, c: &Client, jti: &str, claim_id: &str) -> reqwest::Response {
        c.post(self.url(jti, "/claims")).json(&json!({ "claim_id": claim_id })).send().await.unwrap()
    }

    async fn release(&self, c: &Client, jti: &str, claim_id: &str) -> reqwest::Response {
        c.delete(self.url(jti, &format!("/claims/{claim_id}"))).send().await.unwrap()
    }

    /// Sends a request a test host built (`claim_request`, `release_request`).
    async fn send(&self, c: &Client, r: &StatusRequest) -> reqwest::Response {
        let method = reqwest::Method::from_bytes(r.method.as_bytes()).unwrap();
        let mut req = c.request(method, &r.url).body(r.body.clone());
        for (n, v) in &r.headers {
            req = req.header(n, v);
        }
        req.send().await.unwrap()
    }

    async fn get(&self, c: &Client, jti: &str) -> (StatusCode, Value) {
        answer(c.get(self.url(jti, "")).send().await.unwrap()).await
    }
}

/// Two hosts that claim: Maple Street Auto and Oak Lane Garage, each with its
/// own discovery key, and the thumbprints a key app records for a mandate
/// naming both.
async fn two_hosts() -> (TestHost, TestHost, status_edge::HostKeys) {
    let maple = TestHost::start(TestHostConfig::default()).await;
    let oak = TestHost::start(TestHostConfig {
        domain: "oaklanegarage.example".into(),
        host_id: OAK.into(),
        name: "Oak Lane Garage".into(),
        kid: "olg-2026-10".into(),
        ..TestHostConfig::default()
    })
    .await;
    let keys = [(MAPLE.to_owned(), maple.key_thumbprints()), (OAK.to_owned(), oak.key_thumbprints())].into();
    (maple, oak, keys)
}

fn unlimited() -> StatusOptions {
    StatusOptions { rate_limit: None, ..StatusOptions::default() }
}

macro_rules! conformance {
    ($($check:ident),* $(,)?) => {
        mod embedded {
            $(#[tokio::test] async fn $check() { super::$check(super::Target::embedded(super::unlimited()).await).await })*
        }
        mod hosted {
            $(#[tokio::test] async fn $check() { super::$check(super::Target::hosted(super::unlimited()).await).await })*
        }
    };
}

conformance!(
    get_reports_status_and_remaining_only_with_a_shared_limit,
    claims_answer_201_then_200_and_409_when_none_are_left,
    releases_are_idempotent_and_give_back_only_a_held_unit,
    revocation_refuses_claims_and_still_takes_releases,
    expired_credentials_refuse_claims,
    unknown_credentials_are_404,
    claims_that_cannot_apply_are_400_and_change_nothing,
    malformed_bodies_get_specific_refusals_and_change_nothing,
    oversized_bodies_are_413,
    duplicate_claim_ids_spend_one_unit,
    unknown_routes_and_methods_get_the_section_9_shape_and_no_cors,
    a_signed_claim_is_released_only_by_its_host,
    bad_signatures_are_refused_and_change_nothing,
    a_claim_id_taken_unsigned_becomes_its_hosts_once_it_claims_signed,
    a_foreign_host_header_is_421,
    a_release_under_another_jti_gives_nothing_back,
);

/// The double booking of a shared limit, reproduced: an agent that knows the
/// jti releases the host's claim unsigned, and another host books a second
/// time under `max_bookings: 1`. With the claim signed, the release is 403
/// and the second booking 409; only the claiming host's signed release gives
/// the unit back, and releases stay idempotent.
async fn a_signed_claim_is_released_only_by_its_host(t: Target) {
    let c = client();
    let (maple, oak, keys) = two_hosts().await;
    t.mandate_with_keys("m", &[MAPLE, OAK], Some(1), true, now() + 3600, keys).await;
    let status = t.url("m", "");
    let claim = maple.claim_request(&status, "h_1", Signing::Signed, now());
    let (st, body) = answer(t.send(&c, &claim).await).await;
    assert_eq!((st, body), (StatusCode::CREATED, json!({"claim_id": "maple-street-auto/h_1", "remaining": 0})));
    // The agent's unsigned release: refused, the unit stays held.
    let (st, code, reason) = refusal(t.release(&c, "m", "maple-street-auto/h_1").await).await;
    assert_eq!((st, code.as_str(), reason.as_str()), (StatusCode::FORBIDDEN, "NOT_PERMITTED", "claim_signed_by_host"));
    // Another host's signed release of it: refused too.
    let mut forged = oak.sign_status_request("DELETE", &t.url("m", "/claims/maple-street-auto/h_1"), b"", now());
    forged.retain(|(n, _)| n != "SchCP-Host"); // it would name Oak Lane Garage: refused sooner
    let release = StatusRequest {
        method: "DELETE",
        url: t.url("m", "/claims/maple-street-auto/h_1"),
        headers: forged,
        body: Vec::new(),
    };
    let (st, code, reason) = refusal(t.send(&c, &release).await).await;
    assert_eq!((st, code.as_str(), reason.as_str()), (StatusCode::FORBIDDEN, "NOT_PERMITTED", "signed_by_other_host"));
    assert_eq!(t.held("m").await, ["maple-street-auto/h_1"]);
    // So the second booking is refused, signed or not.
    for signing in [Signing::Unsigned, Signing::Signed] {
        let (st, _, reason) = refusal(t.send(&c, &oak.claim_request(&status, "h_2", signing, now())).await).await;
        assert_eq!((st, reason.as_str()), (StatusCode::CONFLICT, "shared_limit_reached"), "{signing:?}");
    }
    // The host's own signed release gives the unit back; again, and of an
    // unknown claim id, it is 204 and gives nothing more.
    for hold in ["h_1", "h_1", "h_9"] {
        let r = t.send(&c, &maple.release_request(&status, hold, Signing::Signed, now())).await;
        assert_eq!(answer(r).await, (StatusCode::NO_CONTENT, Value::Null), "{hold}");
        assert_eq!(t.get(&c, "m").await.1["remaining"], 1);
    }
    assert!(t.held("m").await.is_empty());
    // Unsigned claims keep working as the spec has them.
    let r = t.send(&c, &oak.claim_request(&status, "h_2", Signing::Unsigned, now())).await;
    assert_eq!(answer(r).await.0, StatusCode::CREATED);
    let r = t.send(&c, &oak.release_request(&status, "h_2", Signing::Unsigned, now())).await;
    assert_eq!(answer(r).await.0, StatusCode::NO_CONTENT);
    assert!(t.held("m").await.is_empty());
}

/// Every way a signature can be wrong gets its own answer and takes nothing:
/// stale, replayed, a key the key app never verified as the host's (a
/// look-alike with the same host id), another host's key, a body changed
/// under the signature, a half-signed request, `SchCP-Host` naming another.
async fn bad_signatures_are_refused_and_change_nothing(t: Target) {
    let c = client();
    let (maple, oak, keys) = two_hosts().await;
    let lookalike = TestHost::start(TestHostConfig::default()).await; // same id, its own key
    t.mandate_with_keys("m", &[MAPLE, OAK], Some(2), true, now() + 3600, keys).await;
    let status = t.url("m", "");
    let stale = maple.claim_request(&status, "h_1", Signing::Signed, now() - 400);
    let mut tampered = maple.claim_request(&status, "h_1", Signing::Signed, now());
    tampered.body = br#"{"claim_id":"maple-street-auto/h_2"}"#.to_vec();
    let mut half = maple.claim_request(&status, "h_1", Signing::Signed, now());
    half.headers.retain(|(n, _)| n != "Signature");
    let mut misnamed = maple.claim_request(&status, "h_1", Signing::Signed, now());
    for (n, v) in &mut misnamed.headers {
        if n == "SchCP-Host" {
            *v = OAK.into();
        }
    }
    let mut others = oak.claim_request(&status, "h_1", Signing::Signed, now());
    others.body = br#"{"claim_id":"maple-street-auto/h_1"}"#.to_vec();
    others.headers = oak.sign_status_request("POST", &others.url, &others.body, now());
    others.headers.push(("Content-Type".into(), "application/json".into()));
    others.headers.retain(|(n, _)| n != "SchCP-Host");
    let cases = [
        (stale, StatusCode::UNAUTHORIZED, "stale_signature"),
        (tampered, StatusCode::UNAUTHORIZED, "bad_signature"),
        (half, StatusCode::UNAUTHORIZED, "bad_signature"),
        (misnamed, StatusCode::BAD_REQUEST, "host_mismatch"),
        (lookalike.claim_request(&status, "h_1", Signing::Signed, now()), StatusCode::UNAUTHORIZED, "unknown_host_key"),
        (others, StatusCode::FORBIDDEN, "signed_by_other_host"),
    ];
    for (request, want_status, want_reason) in cases {
        let (st, _, reason) = refusal(t.send(&c, &request).await).await;
        assert_eq!((st, reason.as_str()), (want_status, want_reason), "{request:?}");
    }
    assert!(t.held("m").await.is_empty());
    assert_eq!(t.get(&c, "m").await.1["remaining"], 2);
    // The control: a good signature is taken once; the same bytes again are a replay.
    let good = maple.claim_request(&status, "h_1", Signing::Signed, now());
    assert_eq!(answer(t.send(&c, &good).await).await.0, StatusCode::CREATED);
    let release = maple.release_request(&status, "h_1", Signing::Signed, now());
    assert_eq!(answer(t.send(&c, &release).await).await.0, StatusCode::NO_CONTENT);
    let (st, _, reason) = refusal(t.send(&c, &good).await).await;
    assert_eq!((st, reason.as_str()), (StatusCode::UNAUTHORIZED, "replayed_nonce"));
    let (st, _, reason) = refusal(t.send(&c, &release).await).await;
    assert_eq!((st, reason.as_str()), (StatusCode::UNAUTHORIZED, "replayed_nonce"));
    assert!(t.held("m").await.is_empty());
}

/// A claim id someone took unsigned (junk, or the host's own unsigned retry)
/// becomes the host's once it claims it signed: 200, nothing spent, and from
/// then on only its signed release gives it back.
async fn a_claim_id_taken_unsigned_becomes_its_hosts_once_it_claims_signed(t: Target) {
    let c = client();
    let (maple, _oak, keys) = two_hosts().await;
    t.mandate_with_keys("m", &[MAPLE, OAK], Some(1), true, now() + 3600, keys).await;
    let status = t.url("m", "");
    assert_eq!(answer(t.claim(&c, "m", "maple-street-auto/h_1").await).await.0, StatusCode::CREATED);
    let r = t.send(&c, &maple.claim_request(&status, "h_1", Signing::Signed, now())).await;
    assert_eq!(answer(r).await, (StatusCode::OK, json!({"claim_id": "maple-street-auto/h_1", "remaining": 0})));
    let (st, _, reason) = refusal(t.release(&c, "m", "maple-street-auto/h_1").await).await;
    assert_eq!((st, reason.as_str()), (StatusCode::FORBIDDEN, "claim_signed_by_host"));
    assert_eq!(t.held("m").await, ["maple-street-auto/h_1"]);
}

/// `Host` names this service (loopback here) or it is 421, before anything
/// else: DNS rebinding reaches nothing.
async fn a_foreign_host_header_is_421(t: Target) {
    let c = client();
    t.mandate("m", &[MAPLE], Some(1), true, now() + 3600).await;
    for host in ["evil.example", "keyapp.example.evil.example:80"] {
        let r = c
            .post(t.url("m", "/claims"))
            .header("host", host)
            .json(&json!({"claim_id": "maple-street-auto/h_1"}))
            .send()
            .await
            .unwrap();
        let (st, code, reason) = refusal(r).await;
        assert_eq!(
            (st, code.as_str(), reason.as_str()),
            (StatusCode::MISDIRECTED_REQUEST, "INVALID_REQUEST", "bad_host")
        );
        let r = c.get(t.url("m", "")).header("host", host).send().await.unwrap();
        assert_eq!(refusal(r).await.0, StatusCode::MISDIRECTED_REQUEST);
    }
    assert!(t.held("m").await.is_empty());
    assert_eq!(answer(t.claim(&c, "m", "maple-street-auto/h_1").await).await.0, StatusCode::CREATED);
}

async fn get_reports_status_and_remaining_only_with_a_shared_limit(t: Target) {
    let c = client();
    t.mandate("m-shared", &[MAPLE, OAK], Some(2), true, now() + 3600).await;
    t.mandate("m-plain", &[MAPLE], Some(2), false, now() + 3600).await;
    assert_eq!(
        t.get(&c, "m-shared").await,
        (StatusCode::OK, json!({"jti": "m-shared", "status": "active", "remaining": 2}))
    );
    assert_eq!(t.get(&c, "m-plain").await, (StatusCode::OK, json!({"jti": "m-plain", "status": "active"})));
}

async fn claims_answer_201_then_200_and_409_when_none_are_left(t: Target) {
    let c = client();
    t.mandate("m", &[MAPLE, OAK], Some(2), true, now() + 3600).await;
    let (st, body) = answer(t.claim(&c, "m", "maple-street-auto/h_1").await).await;
    assert_eq!((st, body), (StatusCode::CREATED, json!({"claim_id": "maple-street-auto/h_1", "remaining": 1})));
    let (st, body) = answer(t.claim(&c, "m", "maple-street-auto/h_1").await).await;
    assert_eq!((st, body), (StatusCode::OK, json!({"claim_id": "maple-street-auto/h_1", "remaining": 1})));
    assert_eq!(answer(t.claim(&c, "m", "oak-lane-garage/h_2").await).await.0, StatusCode::CREATED);
    let (st, code, reason) = refusal(t.claim(&c, "m", "oak-lane-garage/h_3").await).await;
    assert_eq!((st, code.as_str(), reason.as_str()), (StatusCode::CONFLICT, "MANDATE_LIMIT", "shared_limit_reached"));
    assert_eq!(t.held("m").await, ["maple-street-auto/h_1", "oak-lane-garage/h_2"]);
    assert_eq!(t.get(&c, "m").await.1["remaining"], 0);
}

async fn releases_are_idempotent_and_give_back_only_a_held_unit(t: Target) {
    let c = client();
    t.mandate("m", &[MAPLE], Some(1), true, now() + 3600).await;
    // A hold id may itself contain '/': the route takes the claim id whole.
    assert_eq!(answer(t.claim(&c, "m", "maple-street-auto/h/1").await).await.0, StatusCode::CREATED);
    assert_eq!(answer(t.release(&c, "m", "maple-street-auto/h").await).await.0, StatusCode::NO_CONTENT);
    assert_eq!(t.held("m").await, ["maple-street-auto/h/1"], "a prefix of a claim id releases nothing");
    for _ in 0..2 {
        assert_eq!(
            answer(t.release(&c, "m", "maple-street-auto/h/1").await).await,
            (StatusCode::NO_CONTENT, Value::Null)
        );
        assert_eq!(t.get(&c, "m").await.1["remaining"], 1, "a second release gives nothing more back");
    }
    assert!(t.held("m").await.is_empty());
    assert_eq!(answer(t.release(&c, "unknown", "maple-street-auto/h").await).await.0, StatusCode::NO_CONTENT);
    assert_eq!(answer(t.claim(&c, "m", "maple-street-auto/h/2").await).await.0, StatusCode::CREATED);
}

/// A release names its unit by jti and claim id together: the same claim id
/// under another mandate, an unknown jti or one too long to be an `Id` gives
/// nothing back (204, as any release of nothing held), whether the claiming
/// host signs it or not; the unit stays held under its own jti.
async fn a_release_under_another_jti_gives_nothing_back(t: Target) {
    let c = client();
    let (maple, _, keys) = two_hosts().await;
    for jti in ["m", "other"] {
        t.mandate_with_keys(jti, &[MAPLE, OAK], Some(1), true, now() + 3600, keys.clone()).await;
    }
    assert_eq!(answer(t.claim(&c, "m", "maple-street-auto/h_1").await).await.0, StatusCode::CREATED);
    let long = "x".repeat(256);
    for jti in ["other", "unknown", long.as_str()] {
        let r = t.release(&c, jti, "maple-street-auto/h_1").await;
        assert_eq!(answer(r).await, (StatusCode::NO_CONTENT, Value::Null), "{jti}");
        let signed = maple.release_request(&t.url(jti, ""), "h_1", Signing::Signed, now());
        assert_eq!(answer(t.send(&c, &signed).await).await, (StatusCode::NO_CONTENT, Value::Null), "{jti}, signed");
    }
    assert_eq!(t.held("m").await, ["maple-street-auto/h_1"]);
    assert_eq!(t.get(&c, "m").await.1["remaining"], 0);
    assert_eq!(t.get(&c, "other").await.1["remaining"], 1);
    let (st, _, reason) = refusal(t.claim(&c, "m", "oak-lane-garage/h_2").await).await;
    assert_eq!((st, reason.as_str()), (StatusCode::CONFLICT, "shared_limit_reached"));
}

async fn revocation_refuses_claims_and_still_takes_releases(t: Target) {
    let c = client();
    t.mandate("m", &[MAPLE], Some(2), true, now() + 3600).await;
    assert_eq!(answer(t.claim(&c, "m", "maple-street-auto/h_1").await).await.0, StatusCode::CREATED);
    t.revoke("m").await;
    assert_eq!(t.get(&c, "m").await, (StatusCode::OK, json!({"jti": "m", "status": "revoked", "remaining": 1})));
    for id in ["maple-street-auto/h_2", "maple-street-auto/h_1"] {
        let (st, code, reason) = refusal(t.claim(&c, "m", id).await).await;
        assert_eq!((st, code.as_str(), reason.as_str()), (StatusCode::FORBIDDEN, "MANDATE_INVALID", "mandate_revoked"));
    }
    assert_eq!(answer(t.release(&c, "m", "maple-street-auto/h_1").await).await.0, StatusCode::NO_CONTENT);
    assert!(t.held("m").await.is_empty());
    assert_eq!(t.get(&c, "m").await.1, json!({"jti": "m", "status": "revoked", "remaining": 2}));
}

async fn expired_credentials_refuse_claims(t: Target) {
    let c = client();
    let exp = now() + 2;
    t.mandate("m", &[MAPLE], Some(2), true, exp).await;
    assert_eq!(answer(t.claim(&c, "m", "maple-street-auto/h_1").await).await.0, StatusCode::CREATED);
    // §3.3 check 3: expired once now >= exp, no skew.
    while now() < exp {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(t.get(&c, "m").await.1, json!({"jti": "m", "status": "expired", "remaining": 1}));
    let (st, code, reason) = refusal(t.claim(&c, "m", "maple-street-auto/h_2").await).await;
    assert_eq!((st, code.as_str(), reason.as_str()), (StatusCode::FORBIDDEN, "MANDATE_INVALID", "mandate_expired"));
    assert_eq!(answer(t.release(&c, "m", "maple-street-auto/h_1").await).await.0, StatusCode::NO_CONTENT);
    assert!(t.held("m").await.is_empty());
}

async fn unknown_credentials_are_404(t: Target) {
    let c = client();
    let long = "x".repeat(256);
    // A jti with a control character names nothing either, answered before any
    // store is asked (PostgreSQL cannot hold a NUL in text, and a statement
    // that fails on one would fail every claim batched with it).
    for jti in ["nope", long.as_str(), "a%00b", "a%0Ab", "%7F"] {
        let (st, code, reason) = refusal(c.get(t.url(jti, "")).send().await.unwrap()).await;
        assert_eq!((st, code.as_str(), reason.as_str()), (StatusCode::NOT_FOUND, "NOT_FOUND", "unknown_mandate"));
        let (st, _, reason) = refusal(t.claim(&c, jti, "maple-street-auto/h").await).await;
        assert_eq!((st, reason.as_str()), (StatusCode::NOT_FOUND, "unknown_mandate"));
    }
}

async fn claims_that_cannot_apply_are_400_and_change_nothing(t: Target) {
    let c = client();
    t.mandate("m", &[MAPLE], Some(2), true, now() + 3600).await;
    t.mandate("plain", &[MAPLE], Some(2), false, now() + 3600).await;
    let (st, code, reason) = refusal(t.claim(&c, "m", "elsewhere.example/h_1").await).await;
    assert_eq!(
        (st, code.as_str(), reason.as_str()),
        (StatusCode::BAD_REQUEST, "INVALID_REQUEST", "host_not_in_audience")
    );
    let (st, _, reason) = refusal(t.claim(&c, "plain", "maple-street-auto/h_1").await).await;
    assert_eq!((st, reason.as_str()), (StatusCode::BAD_REQUEST, "no_shared_limit"));
    for bad in ["no-slash", "/h_1", "maple-street-auto/", "has space/h_1"] {
        let (st, _, reason) = refusal(t.claim(&c, "m", bad).await).await;
        assert_eq!((st, reason.as_str()), (StatusCode::BAD_REQUEST, "bad_claim_id"), "{bad}");
    }
    assert!(t.held("m").await.is_empty());
    assert_eq!(t.get(&c, "m").await.1["remaining"], 2);
}

async fn malformed_bodies_get_specific_refusals_and_change_nothing(t: Target) {
    let c = client();
    t.mandate("m", &[MAPLE], Some(1), true, now() + 3600).await;
    let ok = br#"{"claim_id": "maple-street-auto/h_1"}"#.to_vec();
    let cases: Vec<(Option<&str>, Vec<u8>, &str)> = vec![
        (None, ok.clone(), "bad_content_type"),
        (Some("text/plain"), ok.clone(), "bad_content_type"),
        (Some("application/json"), b"".to_vec(), "malformed_json"),
        (Some("application/json"), b"{\"claim_id\": ".to_vec(), "malformed_json"),
        (Some("application/json"), b"[\"maple-street-auto/h_1\"]".to_vec(), "malformed_json"),
        (Some("application/json"), br#"{"claim_id": "maple-street-auto/h_1", "x": 1}"#.to_vec(), "unknown_member"),
        (Some("application/json"), br#"{}"#.to_vec(), "missing_member"),
        (Some("application/json"), br#"{"claim_id": 7}"#.to_vec(), "bad_claim_id"),
        (
            Some("application/json"),
            br#"{"claim_id": "maple-street-auto/h_1", "claim_id": "maple-street-auto/h_2"}"#.to_vec(),
            "duplicate_member",
        ),
    ];
    for (ct, body, want) in cases {
        let mut r = c.post(t.url("m", "/claims")).body(body.clone());
        if let Some(ct) = ct {
            r = r.header("content-type", ct);
        }
        let (st, code, reason) = refusal(r.send().await.unwrap()).await;
        assert_eq!(
            (st, code.as_str(), reason.as_str()),
            (StatusCode::BAD_REQUEST, "INVALID_REQUEST", want),
            "{ct:?} {body:?}"
        );
    }
    assert!(t.held("m").await.is_empty());
}

async fn oversized_bodies_are_413(t: Target) {
    let c = client();
    t.mandate("m", &[MAPLE], Some(1), true, now() + 3600).await;
    let big = format!("{{\"claim_id\": \"maple-street-auto/{}\"}}", "h".repeat(5000));
    let r = c.post(t.url("m", "/claims")).header("content-type", "application/json").body(big).send().await.unwrap();
    let (st, _, reason) = refusal(r).await;
    assert_eq!((st, reason.as_str()), (StatusCode::PAYLOAD_TOO_LARGE, "body_too_large"));
    assert!(t.held("m").await.is_empty());
}

async fn duplicate_claim_ids_spend_one_unit(t: Target) {
    t.mandate("m", &[MAPLE], Some(3), true, now() + 3600).await;
    let t = std::sync::Arc::new(t);
    let mut tasks = Vec::new();
    for _ in 0..16 {
        let t = t.clone();
        tasks.push(tokio::spawn(async move { answer(t.claim(&client(), "m", "maple-street-auto/same").await).await }));
    }
    let mut created = 0;
    for task in tasks {
        let (st, body) = task.await.unwrap();
        assert_eq!(body, json!({"claim_id": "maple-street-auto/same", "remaining": 2}));
        created += usize::from(st == StatusCode::CREATED);
        assert!(st == StatusCode::CREATED || st == StatusCode::OK, "{st}");
    }
    assert_eq!(created, 1, "one claim id holds one unit, however often it is sent");
    assert_eq!(t.held("m").await, ["maple-street-auto/same"]);
}

async fn unknown_routes_and_methods_get_the_section_9_shape_and_no_cors(t: Target) {
    let c = client();
    t.mandate("m", &[MAPLE], Some(1), true, now() + 3600).await;
    let (st, code, _) = refusal(c.get(format!("{}/nothing/here", t.base())).send().await.unwrap()).await;
    assert_eq!((st, code.as_str()), (StatusCode::NOT_FOUND, "NOT_FOUND"));
    let (st, _, reason) = refusal(c.put(t.url("m", "")).send().await.unwrap()).await;
    assert_eq!((st, reason.as_str()), (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"));
    assert_eq!(refusal(preflight_from_a_page(&c, t.url("m", "/claims")).await).await.0, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(answer(claim_from_a_page(&c, t.url("m", "/claims")).await).await.0, StatusCode::CREATED);
}

/// The per-client rate limit, the same edge in both: a burst, then 429 with
/// Retry-After. Releases have a bucket of their own, ten times as large: a
/// peer whose claims are spent still gives units back, and a flood of
/// releases (each a lookup) is stopped too.
async fn rate_limited_per_client(t: Target) {
    let c = client();
    t.mandate("m", &[MAPLE], Some(1), true, now() + 3600).await;
    for _ in 0..3 {
        assert_eq!(t.get(&c, "m").await.0, StatusCode::OK);
    }
    let r = c.get(t.url("m", "")).send().await.unwrap();
    assert!(r.headers().get("retry-after").is_some());
    let (st, code, _) = refusal(r).await;
    assert_eq!((st, code.as_str()), (StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED"));
    // The releases' bucket: 10 × the burst of 4.
    for _ in 0..40 {
        assert_eq!(answer(t.release(&c, "m", "maple-street-auto/h").await).await.0, StatusCode::NO_CONTENT);
    }
    let (st, code, _) = refusal(t.release(&c, "m", "maple-street-auto/h").await).await;
    assert_eq!((st, code.as_str()), (StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED"));
}

fn limited() -> StatusOptions {
    // The hosted side's registration goes through the same limit, so the
    // burst leaves room for it.
    StatusOptions { rate_limit: Some(RateLimit { per_second: 0.01, burst: 4.0 }), ..StatusOptions::default() }
}

#[tokio::test]
async fn embedded_rate_limited_per_client() {
    let t = Target::embedded(limited()).await;
    // The embedded API registers without HTTP: spend the token the hosted one spends.
    assert_eq!(answer(client().get(t.url("none", "")).send().await.unwrap()).await.0, StatusCode::NOT_FOUND);
    rate_limited_per_client(t).await;
}

#[tokio::test]
async fn hosted_rate_limited_per_client() {
    rate_limited_per_client(Target::hosted(limited()).await).await;
}

/// With a public base configured, its host passes as well as loopback, and a
/// signed claim's `@target-uri` is the public URL the host addressed.
async fn the_public_host_passes_and_signs(t: Target, public: &str) {
    let c = client();
    let (maple, _oak, keys) = two_hosts().await;
    t.mandate_with_keys("m", &[MAPLE, OAK], Some(1), true, now() + 3600, keys).await;
    let local = t.url("m", "");
    let path = local.splitn(4, '/').nth(3).unwrap();
    let public_status = format!("{public}/{path}");
    let mut claim = maple.claim_request(&public_status, "h_1", Signing::Signed, now());
    claim.url = format!("{local}/claims"); // sent through the "proxy"
    claim.headers.push(("Host".into(), public.trim_start_matches("https://").into()));
    let (st, _) = answer(t.send(&c, &claim).await).await;
    assert_eq!(st, StatusCode::CREATED);
    let r = c.get(t.url("m", "")).header("host", "other.example").send().await.unwrap();
    assert_eq!(refusal(r).await.0, StatusCode::MISDIRECTED_REQUEST);
}

fn public(base: &str) -> StatusOptions {
    StatusOptions { public_base: Some(base.into()), ..unlimited() }
}

#[tokio::test]
async fn embedded_the_public_host_passes_and_signs() {
    the_public_host_passes_and_signs(
        Target::embedded(public("https://keyapp.example")).await,
        "https://keyapp.example",
    )
    .await;
}

#[tokio::test]
async fn hosted_the_public_host_passes_and_signs() {
    the_public_host_passes_and_signs(Target::hosted(public("https://status.example")).await, "https://status.example")
        .await;
}
