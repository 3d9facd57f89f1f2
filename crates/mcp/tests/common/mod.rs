//! What the test binaries of this crate share: the key app started for real
//! on loopback (OS keychain: run under scripts/with-keyring), the HTTPS test
//! host, and the person answering over the real control socket.
#![allow(dead_code)] // each test binary uses its own subset

use keyapp::app::{self, Running};
use keyapp::config::Config;
use keyapp::control::{self, Command};
use keyapp::keystore::PassphraseSource;
use serde_json::Value;
use std::path::Path;
use testhost::{TestHost, TestHostConfig};

pub(crate) struct Env {
    pub(crate) _dir: tempfile::TempDir,
    pub(crate) host: TestHost,
    pub(crate) app: Running,
}

pub(crate) fn config_for(dir: &Path, host: &TestHost) -> Config {
    Config::parse(&host.keyapp_test_config(dir).unwrap(), Path::new("test.toml")).unwrap()
}

pub(crate) async fn start() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let host = TestHost::start(TestHostConfig::default()).await;
    let config = config_for(dir.path(), &host);
    let app = app::start(config, PassphraseSource::default()).await.expect("the key app starts");
    Env { _dir: dir, host, app }
}

pub(crate) fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// An offer for a slot `days_ahead` days from now.
pub(crate) fn future_offer(host: &TestHost, days_ahead: i64) -> String {
    let mut c = host.priced_offer(now());
    let start = chrono::Utc::now() + chrono::Duration::days(days_ahead);
    c.slot.start = start.format("%Y-%m-%dT13:00:00-04:00").to_string();
    c.slot.end = Some(start.format("%Y-%m-%dT13:45:00-04:00").to_string());
    host.sign_offer(&c).unwrap()
}

pub(crate) async fn person(env: &Env, cmd: Command) -> Result<Value, Value> {
    control::call(&env.app.runtime_dir, &cmd).await.expect("the control socket answers")
}

pub(crate) async fn pending_ids(env: &Env) -> Vec<String> {
    let v = person(env, Command::Pending).await.unwrap();
    v.as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_owned()).collect()
}

/// A tentative booking the booker Sam made for a slot `days_ahead` days from
/// now that names `me` as an invitee who must answer by the day before
/// (§5.10), served by the test host and read back over HTTPS as the person's
/// agent reads it (`GET /bookings/{id}`, §5.5). Returns the served response
/// and the contract's offer.
pub(crate) async fn served_invitation(host: &TestHost, me: &str, days_ahead: i64) -> (Value, String) {
    use schcp::claims::{Participant, ParticipantRole, ParticipantStatus, ReconfirmDefault};
    let sam = schcp::jwk::Jwk::ed25519(&ed25519_dalek::SigningKey::from_bytes(&[0x90; 32]).verifying_key())
        .principal_id()
        .unwrap();
    let confirm_by =
        (chrono::Utc::now() + chrono::Duration::days(days_ahead - 1)).format("%Y-%m-%dT13:00:00-04:00").to_string();
    let participants = vec![
        Participant {
            who: Some(sam),
            name: Some("Sam R.".into()),
            role: ParticipantRole::Booker,
            relationship: None,
            confirm_within: None,
            confirm_by: None,
            default: None,
            status: Some(ParticipantStatus::NotRequired),
        },
        Participant {
            who: Some(me.to_owned()),
            name: Some("Alex".into()),
            role: ParticipantRole::Invitee,
            relationship: Some("brother".into()),
            confirm_within: Some("P1D".into()),
            confirm_by: Some(confirm_by),
            default: Some(ReconfirmDefault::Release),
            status: Some(ParticipantStatus::Pending),
        },
    ];
    let offer = future_offer(host, days_ahead);
    let response = host.tentative_booking(&offer, "m-booker", participants, now()).unwrap();
    let booking_id = response.booking.booking_id.clone();
    host.serve_booking(response);
    let (domain, addr) = host.resolve();
    let client = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(host.ca_pem().as_bytes()).unwrap())
        .resolve(&domain, addr)
        .build()
        .unwrap();
    let r = client.get(host.booking_url(&booking_id)).send().await.unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::OK);
    (r.json().await.unwrap(), offer)
}
