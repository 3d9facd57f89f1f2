//! Invitations (§5.10): a tentative booking the booker Sam made that names this
//! person as an invitee, served by the test host and read back over HTTPS as
//! the person's agent reads it (`GET /bookings/{id}`, §5.5).

use crate::env::future_offer;
use crate::{now, principal_of};
use ed25519_dalek::SigningKey;
use schcp::claims::{Participant, ReconfirmDefault};
use serde_json::Value;
use testhost::TestHost;

/// The root mandate the booker booked under, as the host's receipt names it (§5.3).
pub const BOOKERS_MANDATE: &str = "m-booker";

/// The booker Sam's principal id.
pub fn sam() -> String {
    principal_of(&SigningKey::from_bytes(&[0x90; 32]))
}

/// The booker Sam (named `booker_name`) and `me` invited as §5.10's example
/// has it: a brother, answering by `confirm_by` (within a day), released by default.
pub fn invited(me: &str, booker_name: Option<&str>, confirm_by: &str) -> Vec<Participant> {
    let invitee =
        Participant::invitee(me.to_owned(), "P1D".into(), Some(confirm_by.to_owned()), ReconfirmDefault::Release);
    vec![
        Participant::booker(sam(), booker_name.map(Into::into)),
        Participant { name: Some("Alex".into()), relationship: Some("brother".into()), ..invitee },
    ]
}

/// `GET /bookings/{id}` at `host` over HTTPS, trusting only the test host's CA.
pub async fn fetch_booking(host: &TestHost, booking_id: &str) -> Value {
    let client = https_client(host);
    let r = client.get(host.booking_url(booking_id)).send().await.unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::OK);
    r.json().await.unwrap()
}

/// A tentative booking Sam made for a slot `days_ahead` days from now that
/// names `me` as an invitee who must answer by the day before, served by
/// `host` and fetched as the person's agent fetches it. The served response
/// and the contract's offer.
pub async fn served_invitation(host: &TestHost, me: &str, days_ahead: i64) -> (Value, String) {
    let confirm_by =
        (chrono::Utc::now() + chrono::Duration::days(days_ahead - 1)).format("%Y-%m-%dT13:00:00-04:00").to_string();
    let offer = future_offer(host, days_ahead).1;
    let response =
        host.tentative_booking(&offer, BOOKERS_MANDATE, invited(me, Some("Sam R."), &confirm_by), now()).unwrap();
    let booking_id = response.booking.booking_id.clone();
    host.serve_booking(response);
    (fetch_booking(host, &booking_id).await, offer)
}

/// A client that reaches `host` over HTTPS at its domain, trusting only the
/// test host's CA.
fn https_client(host: &TestHost) -> reqwest::Client {
    let (domain, addr) = host.resolve();
    reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(host.ca_pem().as_bytes()).unwrap())
        .resolve(&domain, addr)
        .build()
        .unwrap()
}

/// A fresh §3.2 nonce (32 bytes, base64url): unique per call and per process;
/// it need only be fresh here, not secret.
pub fn fresh_nonce() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    schcp::hash::sha256_b64(format!("{}-{t}-{n}", std::process::id()))
}

/// `POST {endpoint}/bookings/{id}/respond` at `host` (§5.10), as a participant's
/// agent sends it: `body` signed by `agent` (§3.2) under `mandate`, with `nonce`
/// (a test replays one by sending it twice). The status and the JSON answer.
pub async fn respond(
    host: &TestHost,
    agent: &SigningKey,
    mandate: &str,
    booking_id: &str,
    body: &Value,
    nonce: &str,
) -> (reqwest::StatusCode, Value) {
    let client = https_client(host);
    let url = format!("{}/respond", host.booking_url(booking_id));
    let bytes = serde_json::to_vec(body).unwrap();
    let headers = schcp::httpsig::sign_request("POST", &url, &bytes, Some(mandate), agent, now(), nonce);
    let mut req = client.post(&url).header("content-type", "application/json").body(bytes);
    for (name, value) in headers {
        req = req.header(name, value);
    }
    let r = req.send().await.unwrap();
    let status = r.status();
    (status, r.json().await.unwrap())
}
