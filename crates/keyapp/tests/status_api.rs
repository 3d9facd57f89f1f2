//! The status API hosts call (docs/agent-api.md §10, §3.3 "One consent, several hosts"),
//! served for real on a loopback port over a temporary database: every answer
//! and refusal the contract names, and the hostile-input bounds around them.
//! Every refusal is checked to have the §9 shape and to have changed nothing.

use keyapp::status_api::{RateLimit, StatusOptions};
use keyapp::store::credentials::{self, CredentialRecord, RevokeOutcome};
use reqwest::header::CONTENT_TYPE;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;
use testkit::now;
use testkit::status::{answer, claim_from_a_page, client, preflight_from_a_page, refusal, Embedded};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const MAPLE: &str = "maple-street-auto";
const OAK: &str = "oak-lane-garage";

type Server = Embedded;

/// The status API with no rate limit.
async fn unlimited() -> Server {
    Server::start(StatusOptions { rate_limit: None, ..StatusOptions::default() }).await
}

fn client_from(ip: &str) -> Client {
    Client::builder()
        .no_proxy()
        .local_address(ip.parse::<IpAddr>().unwrap())
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

async fn claim(c: &Client, s: &Server, jti: &str, claim_id: &str) -> reqwest::Response {
    c.post(s.url(&format!("/status/{jti}/claims"))).json(&json!({ "claim_id": claim_id })).send().await.unwrap()
}

async fn release(c: &Client, s: &Server, jti: &str, claim_id: &str) -> reqwest::Response {
    c.delete(s.url(&format!("/status/{jti}/claims/{claim_id}"))).send().await.unwrap()
}

async fn get(c: &Client, s: &Server, jti: &str) -> (StatusCode, Value) {
    answer(c.get(s.url(&format!("/status/{jti}"))).send().await.unwrap()).await
}

#[tokio::test]
async fn get_reports_status_and_remaining_only_with_a_shared_limit() {
    let s = unlimited().await;
    let c = client();
    s.mandate("m-shared", &[MAPLE, OAK], Some(2), true, now() + 3600).await;
    s.mandate("m-plain", &[MAPLE], Some(2), false, now() + 3600).await;
    assert_eq!(
        get(&c, &s, "m-shared").await,
        (StatusCode::OK, json!({"jti": "m-shared", "status": "active", "remaining": 2}))
    );
    assert_eq!(get(&c, &s, "m-plain").await, (StatusCode::OK, json!({"jti": "m-plain", "status": "active"})));

    let r = c.get(s.url("/status/m-shared")).send().await.unwrap();
    assert_eq!(r.headers()[CONTENT_TYPE], "application/json");

    let (st, code, reason, _) = refusal(c.get(s.url("/status/nobody")).send().await.unwrap()).await;
    assert_eq!((st, code.as_str(), reason.as_str()), (StatusCode::NOT_FOUND, "NOT_FOUND", "unknown_mandate"));
    let long = "m".repeat(300);
    let (st, _, reason, _) = refusal(c.get(s.url(&format!("/status/{long}"))).send().await.unwrap()).await;
    assert_eq!((st, reason.as_str()), (StatusCode::NOT_FOUND, "unknown_mandate"));

    // A credential without a status URL (a contract, say) has no status here.
    let mut rec = CredentialRecord {
        jti: "contract-1".into(),
        kind: keyapp::kind::RequestKind::MeetingContract,
        agent_jkt: None,
        request_id: None,
        aud: vec![MAPLE.into()],
        scope: vec![],
        iat: now(),
        exp: now() + 60,
        compact: "h.p.s".into(),
        status_url: None,
        max_bookings: None,
        shared_limit: false,
        booking_id: None,
        host_keys: Default::default(),
    };
    credentials::record(&s.store, rec.clone()).await.unwrap();
    assert_eq!(get(&c, &s, "contract-1").await.0, StatusCode::NOT_FOUND);
    rec.jti = "contract-2".into();
    rec.shared_limit = true;
    assert!(credentials::record(&s.store, rec).await.is_err(), "a shared limit needs max_bookings and a status URL");
}

#[tokio::test]
async fn claims_answer_201_then_200_and_409_when_none_are_left() {
    let s = unlimited().await;
    let c = client();
    s.mandate("m", &[MAPLE, OAK], Some(2), true, now() + 3600).await;

    let (st, body) = answer(claim(&c, &s, "m", "maple-street-auto/h_1").await).await;
    assert_eq!((st, body), (StatusCode::CREATED, json!({"claim_id": "maple-street-auto/h_1", "remaining": 1})));
    // The same claim id again (a confirm retried under another idempotency key):
    // 200, and nothing spent.
    let (st, body) = answer(claim(&c, &s, "m", "maple-street-auto/h_1").await).await;
    assert_eq!((st, body), (StatusCode::OK, json!({"claim_id": "maple-street-auto/h_1", "remaining": 1})));
    assert_eq!(get(&c, &s, "m").await.1["remaining"], 1);
    // The same hold id at another host is another claim.
    let (st, body) = answer(claim(&c, &s, "m", "oak-lane-garage/h_1").await).await;
    assert_eq!((st, body), (StatusCode::CREATED, json!({"claim_id": "oak-lane-garage/h_1", "remaining": 0})));

    let (st, code, reason, body) = refusal(claim(&c, &s, "m", "oak-lane-garage/h_2").await).await;
    assert_eq!((st, code.as_str(), reason.as_str()), (StatusCode::CONFLICT, "MANDATE_LIMIT", "shared_limit_reached"));
    assert_eq!(body["error"]["details"], json!({"max_bookings": 2, "remaining": 0}));
    // A held claim id is still answered 200 when the limit is spent.
    let (st, body) = answer(claim(&c, &s, "m", "maple-street-auto/h_1").await).await;
    assert_eq!((st, body["remaining"].clone()), (StatusCode::OK, json!(0)));
    assert_eq!(s.held("m").await, ["maple-street-auto/h_1", "oak-lane-garage/h_1"]);
    assert_eq!(get(&c, &s, "m").await.1["remaining"], 0);
}

#[tokio::test]
async fn releases_are_idempotent_and_take_the_whole_claim_id() {
    let s = unlimited().await;
    let c = client();
    s.mandate("m", &[MAPLE, OAK], Some(3), true, now() + 3600).await;
    for id in ["maple-street-auto/h_1", "maple-street-auto/h/2", "oak-lane-garage/h 3"] {
        assert_eq!(claim(&c, &s, "m", id).await.status(), StatusCode::CREATED, "{id}");
    }
    // Unknown claims, a bare host id, a prefix of a held id, an unknown mandate:
    // 204, and nothing changes.
    for (jti, id) in [
        ("m", "maple-street-auto/h_9"),
        ("m", "maple-street-auto"),
        ("m", "maple-street-auto/h"),
        ("m", "oak-lane-garage/h_1"),
        ("nobody", "maple-street-auto/h_1"),
        ("m", "no-slash-at-all"),
    ] {
        let (st, body) = answer(release(&c, &s, jti, id).await).await;
        assert_eq!((st, body), (StatusCode::NO_CONTENT, Value::Null), "{jti} {id}");
    }
    assert_eq!(s.held("m").await.len(), 3);
    assert_eq!(get(&c, &s, "m").await.1["remaining"], 0);

    // The route takes the whole id, its '/' included; percent-escapes decode.
    let (st, _) = answer(release(&c, &s, "m", "maple-street-auto/h/2").await).await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let (st, _) = answer(release(&c, &s, "m", "oak-lane-garage/h%203").await).await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    assert_eq!(s.held("m").await, ["maple-street-auto/h_1"]);
    assert_eq!(get(&c, &s, "m").await.1["remaining"], 2);
    // Releasing again changes nothing.
    assert_eq!(release(&c, &s, "m", "maple-street-auto/h/2").await.status(), StatusCode::NO_CONTENT);
    assert_eq!(get(&c, &s, "m").await.1["remaining"], 2);
    // A released unit can be claimed again.
    assert_eq!(claim(&c, &s, "m", "maple-street-auto/h/2").await.status(), StatusCode::CREATED);
    assert_eq!(get(&c, &s, "m").await.1["remaining"], 1);
}

#[tokio::test]
async fn revocation_shows_at_once_refuses_claims_and_still_takes_releases() {
    let s = unlimited().await;
    let c = client();
    s.mandate("m", &[MAPLE, OAK], Some(2), true, now() + 3600).await;
    assert_eq!(claim(&c, &s, "m", "maple-street-auto/h_1").await.status(), StatusCode::CREATED);

    assert_eq!(credentials::revoke(&s.store, "m", now()).await.unwrap(), RevokeOutcome::Revoked);
    assert_eq!(get(&c, &s, "m").await, (StatusCode::OK, json!({"jti": "m", "status": "revoked", "remaining": 1})));
    for id in ["oak-lane-garage/h_2", "maple-street-auto/h_1"] {
        let (st, code, reason, _) = refusal(claim(&c, &s, "m", id).await).await;
        assert_eq!(
            (st, code.as_str(), reason.as_str()),
            (StatusCode::FORBIDDEN, "MANDATE_INVALID", "mandate_revoked"),
            "{id}"
        );
    }
    assert_eq!(s.held("m").await, ["maple-street-auto/h_1"]);
    assert_eq!(release(&c, &s, "m", "maple-street-auto/h_1").await.status(), StatusCode::NO_CONTENT);
    assert_eq!(get(&c, &s, "m").await.1, json!({"jti": "m", "status": "revoked", "remaining": 2}));
    let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM history WHERE event = 'revoked' AND subject = 'm'")
        .fetch_one(s.store.pool())
        .await
        .unwrap();
    assert_eq!(n, 1);

    // Revoking a mandate without a shared limit shows too.
    s.mandate("plain", &[MAPLE], None, false, now() + 3600).await;
    credentials::revoke(&s.store, "plain", now()).await.unwrap();
    assert_eq!(get(&c, &s, "plain").await.1, json!({"jti": "plain", "status": "revoked"}));
}

#[tokio::test]
async fn expired_mandates_refuse_claims_and_still_take_releases() {
    let s = unlimited().await;
    let c = client();
    s.mandate("m", &[MAPLE], Some(2), true, now() + 3600).await;
    assert_eq!(claim(&c, &s, "m", "maple-street-auto/h_1").await.status(), StatusCode::CREATED);
    // Let it lapse: the exp passes (§3.3 check 3, no skew on exp).
    sqlx::query("UPDATE credentials SET exp = ? WHERE jti = 'm'")
        .bind(now() - 1)
        .execute(s.store.pool())
        .await
        .unwrap();
    assert_eq!(get(&c, &s, "m").await.1, json!({"jti": "m", "status": "expired", "remaining": 1}));
    let (st, code, reason, _) = refusal(claim(&c, &s, "m", "maple-street-auto/h_2").await).await;
    assert_eq!((st, code.as_str(), reason.as_str()), (StatusCode::FORBIDDEN, "MANDATE_INVALID", "mandate_expired"));
    assert_eq!(release(&c, &s, "m", "maple-street-auto/h_1").await.status(), StatusCode::NO_CONTENT);
    assert!(s.held("m").await.is_empty());
}

#[tokio::test]
async fn claims_that_cannot_apply_are_400_404_and_change_nothing() {
    let s = unlimited().await;
    let c = client();
    s.mandate("m", &[MAPLE, OAK], Some(5), true, now() + 3600).await;
    s.mandate("plain", &[MAPLE], Some(5), false, now() + 3600).await;
    s.mandate("any", &["*"], Some(1), true, now() + 3600).await;
    let long_hold = format!("maple-street-auto/{}", "h".repeat(256));
    let long_host = format!("{}/h", "a".repeat(256));
    for (jti, id, reason) in [
        ("m", "maple-street-auto", "bad_claim_id"),
        ("m", "/h_1", "bad_claim_id"),
        ("m", "maple-street-auto/", "bad_claim_id"),
        ("m", "*/h_1", "bad_claim_id"),
        ("m", "maple street/h_1", "bad_claim_id"),
        ("m", "mäple/h_1", "bad_claim_id"),
        ("m", &long_hold, "bad_claim_id"),
        ("m", &long_host, "bad_claim_id"),
        ("m", "", "bad_claim_id"),
        ("m", "elm-street-salon/h_1", "host_not_in_audience"),
        ("m", "maple-street-auto.evil/h_1", "host_not_in_audience"),
        ("plain", "maple-street-auto/h_1", "no_shared_limit"),
    ] {
        let (st, code, r, body) = refusal(claim(&c, &s, jti, id).await).await;
        assert_eq!(
            (st, code.as_str(), r.as_str()),
            (StatusCode::BAD_REQUEST, "INVALID_REQUEST", reason),
            "{id:?}: {body}"
        );
    }
    let (st, code, reason, _) = refusal(claim(&c, &s, "nobody", "maple-street-auto/h_1").await).await;
    assert_eq!((st, code.as_str(), reason.as_str()), (StatusCode::NOT_FOUND, "NOT_FOUND", "unknown_mandate"));
    assert!(s.held("m").await.is_empty());
    assert!(s.held("plain").await.is_empty());
    assert_eq!(get(&c, &s, "m").await.1["remaining"], 5);
    // A hold id may contain '/' and any character; `aud: "*"` matches any host.
    assert_eq!(claim(&c, &s, "m", "oak-lane-garage/h/é/1").await.status(), StatusCode::CREATED);
    assert_eq!(claim(&c, &s, "any", "elm-street-salon/h_1").await.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn hostile_bodies_get_specific_refusals_and_change_nothing() {
    let s = unlimited().await;
    let c = client();
    s.mandate("m", &[MAPLE], Some(1), true, now() + 3600).await;
    let url = s.url("/status/m/claims");
    let big = format!("{{\"claim_id\": \"maple-street-auto/{}\"}}", "h".repeat(5000));
    // A well-formed claim under a content type that is not JSON's.
    let claim: &[u8] = br#"{"claim_id": "maple-street-auto/h_1"}"#;
    let not_json = [None, Some("text/plain"), Some("application/json; charset=latin1")];
    let mut cases: Vec<(Option<&str>, Vec<u8>, StatusCode, &str)> =
        not_json.into_iter().map(|ct| (ct, claim.to_vec(), StatusCode::BAD_REQUEST, "bad_content_type")).collect();
    // JSON's content type over a body that is not one claim.
    let bodies: [(&[u8], &str); 11] = [
        (b"", "malformed_json"),
        (br#"{"claim_id": "maple-street-auto/h_1""#, "malformed_json"),
        (br#"{"claim_id": "maple-street-auto/h_1"} {}"#, "malformed_json"),
        (b"{\"claim_id\": \"maple-street-auto/h_\xff\"}", "malformed_json"),
        (br#"["maple-street-auto/h_1"]"#, "malformed_json"),
        (br#""maple-street-auto/h_1""#, "malformed_json"),
        (br#"{"claim_id": "maple-street-auto/h_1", "claim_id": "maple-street-auto/h_2"}"#, "duplicate_member"),
        (br#"{"claim_id": "maple-street-auto/h_1", "payment": {"card": "4111"}}"#, "unknown_member"),
        (br#"{}"#, "missing_member"),
        (br#"{"claim_id": 7}"#, "bad_claim_id"),
        (br#"{"claim_id": null}"#, "bad_claim_id"),
    ];
    cases.extend(
        bodies.iter().map(|(body, reason)| (Some("application/json"), body.to_vec(), StatusCode::BAD_REQUEST, *reason)),
    );
    cases.push((Some("application/json"), big.into_bytes(), StatusCode::PAYLOAD_TOO_LARGE, "body_too_large"));
    for (ct, body, want_status, want_reason) in cases {
        let mut req = c.post(&url).body(body.clone());
        if let Some(ct) = ct {
            req = req.header(CONTENT_TYPE, ct);
        }
        let (st, code, reason, err) = refusal(req.send().await.unwrap()).await;
        assert_eq!(
            (st, code.as_str(), reason.as_str()),
            (want_status, "INVALID_REQUEST", want_reason),
            "{ct:?} {:?}: {err}",
            String::from_utf8_lossy(&body)
        );
    }
    // A body over the limit without a declared length (chunked) is cut off too.
    let mut conn = raw_connect(s.addr, "127.0.0.1").await;
    let mut req = b"POST /status/m/claims HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..10 {
        req.extend_from_slice(b"3e8\r\n");
        req.extend_from_slice(&[b' '; 1000]);
        req.extend_from_slice(b"\r\n");
    }
    req.extend_from_slice(b"0\r\n\r\n");
    let _ = conn.write_all(&req).await;
    let got = read_to_close(&mut conn, Duration::from_secs(20)).await.expect("the server answers");
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 413") && text.contains("body_too_large"), "{text}");

    assert!(s.held("m").await.is_empty());
    assert_eq!(get(&c, &s, "m").await.1["remaining"], 1);
    // And the accepted shape still works, with a charset parameter.
    let r = c
        .post(&url)
        .header(CONTENT_TYPE, "application/json; charset=utf-8")
        .body(r#"{"claim_id":"maple-street-auto/h_1"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn unknown_routes_and_methods_get_the_section_9_shape_and_no_cors() {
    let s = unlimited().await;
    let c = client();
    s.mandate("m", &[MAPLE], Some(1), true, now() + 3600).await;
    let (st, code, _, _) = refusal(c.get(s.url("/nothing/here")).send().await.unwrap()).await;
    assert_eq!((st, code.as_str()), (StatusCode::NOT_FOUND, "NOT_FOUND"));
    let (st, _, reason, _) = refusal(c.put(s.url("/status/m")).send().await.unwrap()).await;
    assert_eq!((st, reason.as_str()), (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"));
    let (st, _, _, _) = refusal(c.get(s.url("/status/m/claims")).send().await.unwrap()).await;
    assert_eq!(st, StatusCode::METHOD_NOT_ALLOWED);
    // A CORS preflight from a web page gets no CORS headers.
    let (st, _, _, _) = refusal(preflight_from_a_page(&c, s.url("/status/m/claims")).await).await;
    assert_eq!(st, StatusCode::METHOD_NOT_ALLOWED);
    // A claim with an Origin is served like any other, still without CORS headers.
    assert_eq!(answer(claim_from_a_page(&c, s.url("/status/m/claims")).await).await.0, StatusCode::CREATED);
}

#[tokio::test]
async fn one_peers_flood_does_not_starve_another_and_releases_are_never_limited() {
    let s = Server::start(StatusOptions {
        rate_limit: Some(RateLimit { per_second: 0.01, burst: 3.0 }),
        ..StatusOptions::default()
    })
    .await;
    s.mandate("m", &[MAPLE, OAK], Some(2), true, now() + 3600).await;
    let flooder = client_from("127.0.0.1");
    let host = client_from("127.0.0.2");
    // The flooder spends its own bucket, claiming the mandate's limit away…
    assert_eq!(claim(&flooder, &s, "m", "maple-street-auto/h_1").await.status(), StatusCode::CREATED);
    assert_eq!(get(&flooder, &s, "m").await.0, StatusCode::OK);
    assert_eq!(get(&flooder, &s, "m").await.0, StatusCode::OK);
    let r = claim(&flooder, &s, "m", "maple-street-auto/h_2").await;
    let retry_after = r.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
    let (st, code, reason, body) = refusal(r).await;
    assert_eq!(
        (st, code.as_str(), reason.as_str()),
        (StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED", "too_many_requests")
    );
    let after = body["error"]["retry"]["after"].as_str().unwrap().to_owned();
    // §2.1: canonical in the body, seconds in the header, the same length.
    let after = schcp::duration::Duration::parse(&after).unwrap();
    assert_eq!(after.to_canonical(), body["error"]["retry"]["after"].as_str().unwrap());
    assert_eq!(retry_after.as_deref(), Some(after.as_seconds().to_string().as_str()));
    for _ in 0..20 {
        assert_eq!(claim(&flooder, &s, "m", "maple-street-auto/h_3").await.status(), StatusCode::TOO_MANY_REQUESTS);
    }
    // …and the refused claims spent nothing, while another host is served.
    assert_eq!(s.held("m").await, ["maple-street-auto/h_1"]);
    let (st, body) = answer(claim(&host, &s, "m", "oak-lane-garage/h_1").await).await;
    assert_eq!((st, body["remaining"].clone()), (StatusCode::CREATED, json!(0)));
    // Releases go through even for a peer out of tokens: they only give back.
    for _ in 0..10 {
        assert_eq!(release(&flooder, &s, "m", "maple-street-auto/h_1").await.status(), StatusCode::NO_CONTENT);
    }
    assert_eq!(s.held("m").await, ["oak-lane-garage/h_1"]);
}

async fn raw_connect(addr: SocketAddr, from: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(from.parse().unwrap(), 0)).unwrap();
    socket.connect(addr).await.unwrap()
}

/// Reads until the peer closes or `limit` passes (a liveness bound, not a speed
/// assertion); returns what arrived.
async fn read_to_close(stream: &mut TcpStream, limit: Duration) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let read = tokio::time::timeout(limit, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    read.ok().map(|_| out)
}

#[tokio::test]
async fn slow_clients_are_cut_off_and_heads_are_bounded() {
    let s = Server::start(StatusOptions {
        rate_limit: None,
        body_timeout: Duration::from_millis(200),
        header_timeout: Duration::from_millis(300),
        ..StatusOptions::default()
    })
    .await;
    s.mandate("m", &[MAPLE], Some(1), true, now() + 3600).await;

    // A body that never finishes arriving: 408, and nothing claimed.
    let mut conn = raw_connect(s.addr, "127.0.0.1").await;
    conn.write_all(b"POST /status/m/claims HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"claim_id\":")
        .await
        .unwrap();
    let got = read_to_close(&mut conn, Duration::from_secs(20)).await.expect("the server answers");
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("body_timeout") && text.to_ascii_lowercase().contains("cache-control: no-store"), "{text}");
    assert!(s.held("m").await.is_empty());

    // A head that never finishes arriving: the connection is closed.
    let mut conn = raw_connect(s.addr, "127.0.0.1").await;
    conn.write_all(b"GET /status/m HTTP/1.1\r\nHost: 127.0.0.1\r\n").await.unwrap();
    assert!(read_to_close(&mut conn, Duration::from_secs(20)).await.is_some(), "slow head not cut off");

    // An idle kept-alive connection is closed too.
    let mut conn = raw_connect(s.addr, "127.0.0.1").await;
    assert!(read_to_close(&mut conn, Duration::from_secs(20)).await.is_some(), "idle connection not closed");

    // A head over 16 KiB is refused.
    let mut conn = raw_connect(s.addr, "127.0.0.1").await;
    let head = format!("GET /status/m HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: {}\r\n\r\n", "a".repeat(20_000));
    let _ = conn.write_all(head.as_bytes()).await;
    let got = read_to_close(&mut conn, Duration::from_secs(20)).await.expect("closed");
    let text = String::from_utf8_lossy(&got);
    assert!(text.is_empty() || text.starts_with("HTTP/1.1 431"), "{text}");
}

#[tokio::test]
async fn one_peer_cannot_hold_every_connection() {
    let s = Server::start(StatusOptions { rate_limit: None, max_connections_per_peer: 2, ..StatusOptions::default() })
        .await;
    s.mandate("m", &[MAPLE], Some(1), true, now() + 3600).await;
    let _held = hold_connections(&s, "127.0.0.1", 2).await;
    let got = third_connection(&s, "127.0.0.1").await;
    assert!(got.is_empty(), "{}", String::from_utf8_lossy(&got));
    // Another peer is still served.
    assert_eq!(get(&client_from("127.0.0.2"), &s, "m").await.0, StatusCode::OK);
}

/// A trusted proxy's connections carry every host's calls, so the per-peer
/// connection cap does not apply to it (it still does to everyone else).
#[tokio::test]
async fn a_trusted_proxy_is_not_held_to_one_peers_connection_cap() {
    let s = Server::start(StatusOptions {
        rate_limit: None,
        max_connections_per_peer: 2,
        trusted_proxies: vec!["127.0.0.1".parse().unwrap()],
        ..StatusOptions::default()
    })
    .await;
    s.mandate("m", &[MAPLE], Some(1), true, now() + 3600).await;
    let _proxy = hold_connections(&s, "127.0.0.1", 2).await;
    let got = third_connection(&s, "127.0.0.1").await;
    assert!(got.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&got));
    // Another address is still held to the cap.
    let _other = hold_connections(&s, "127.0.0.2", 2).await;
    assert!(third_connection(&s, "127.0.0.2").await.is_empty());
}

/// `n` idle connections from `from`, once the accept loop has taken them.
async fn hold_connections(s: &Server, from: &str, n: usize) -> Vec<TcpStream> {
    let mut held = Vec::new();
    for _ in 0..n {
        held.push(raw_connect(s.addr, from).await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    held
}

/// What one more connection from `from` gets for a `GET /status/m`: the whole
/// answer, or nothing when it is closed unanswered.
async fn third_connection(s: &Server, from: &str) -> Vec<u8> {
    let mut conn = raw_connect(s.addr, from).await;
    let _ = conn.write_all(b"GET /status/m HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").await;
    read_to_close(&mut conn, Duration::from_secs(20)).await.expect("closed")
}

/// Behind a reverse proxy every call arrives from the proxy's address. With the
/// proxy trusted, each host counts against its own forwarded address, so one
/// host's flood does not refuse another's claims; without it, X-Forwarded-For is
/// not read at all (a host cannot choose its own bucket).
#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_host_has_its_own_bucket() {
    async fn flood_then_other(s: &Server, jti: &str) -> (StatusCode, StatusCode) {
        let proxy = client_from("127.0.0.1");
        let from = |r: reqwest::RequestBuilder, ip: &str| r.header("x-forwarded-for", ip);
        let status_of = |ip: &'static str| {
            let proxy = proxy.clone();
            let url = s.url(&format!("/status/{jti}"));
            async move { from(proxy.get(url), ip).send().await.unwrap().status() }
        };
        let mut flooder = StatusCode::OK;
        for _ in 0..5 {
            flooder = status_of("198.51.100.1").await;
        }
        (flooder, status_of("198.51.100.2").await)
    }

    let limit = Some(RateLimit { per_second: 0.01, burst: 3.0 });
    let trusted = Server::start(StatusOptions {
        rate_limit: limit,
        trusted_proxies: vec!["127.0.0.1".parse().unwrap()],
        ..StatusOptions::default()
    })
    .await;
    trusted.mandate("m", &[MAPLE], Some(1), false, now() + 3600).await;
    assert_eq!(flood_then_other(&trusted, "m").await, (StatusCode::TOO_MANY_REQUESTS, StatusCode::OK));
    // A client's own entry, left of the proxy's, changes nothing.
    let spoofed = client_from("127.0.0.1")
        .get(trusted.url("/status/m"))
        .header("x-forwarded-for", "203.0.113.99, 198.51.100.1")
        .send()
        .await
        .unwrap();
    assert_eq!(spoofed.status(), StatusCode::TOO_MANY_REQUESTS);

    let untrusted = Server::start(StatusOptions { rate_limit: limit, ..StatusOptions::default() }).await;
    untrusted.mandate("m", &[MAPLE], Some(1), false, now() + 3600).await;
    assert_eq!(flood_then_other(&untrusted, "m").await, (StatusCode::TOO_MANY_REQUESTS, StatusCode::TOO_MANY_REQUESTS));
}
