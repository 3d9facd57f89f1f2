//! Several hosts beside one key app: people's calendars and businesses, each on
//! HTTPS with its own CA, the key app trusting and resolving all of them, and
//! the open-ended offers they sign for a meeting, and the meeting's contract (§5.12).

use crate::env::Env;
use crate::{now, principal_of};
use ed25519_dalek::SigningKey;
use keyapp::app;
use keyapp::config::Config;
use keyapp::keystore::PassphraseSource;
use schcp::claims::{HostKind, Place, ServiceRef};
use schcp::jwk::Jwk;
use schcp::verify::VerifiedContract;
use serde_json::{json, Value};
use std::path::Path;
use testhost::{TestHost, TestHostConfig};

/// A test host for `host_id`, named `name`, at `domain`.
pub async fn calendar(host_id: &str, name: &str, domain: &str) -> TestHost {
    TestHost::start(TestHostConfig {
        host_id: host_id.into(),
        name: name.into(),
        domain: domain.into(),
        ..TestHostConfig::default()
    })
    .await
}

/// A key app configuration for records under `dir/data` whose discovery trusts
/// and resolves every one of `hosts` (their CAs written to `dir`).
pub fn trusting(dir: &Path, hosts: &[&TestHost]) -> Config {
    let mut cas = Vec::new();
    let mut resolve = Vec::new();
    for (i, h) in hosts.iter().enumerate() {
        let ca = dir.join(format!("ca-{i}.pem"));
        std::fs::write(&ca, h.ca_pem()).unwrap();
        cas.push(format!("\"{}\"", ca.display()));
        let (domain, addr) = h.resolve();
        resolve.push(format!("\"{domain}\" = \"{addr}\""));
    }
    let text = format!(
        "data_dir = \"{}\"\nlocale = \"en\"\n[agent_api]\nlisten = \"127.0.0.1:0\"\n[status_api]\nlisten = \"127.0.0.1:0\"\nhosts_on_this_machine = true\n\
         [discovery]\nextra_root_certs = [{}]\nresolve = {{ {} }}\n",
        dir.join("data").display(),
        cas.join(", "),
        resolve.join(", ")
    );
    Config::parse(&text, Path::new("test.toml")).unwrap()
}

/// The key app (OS keychain) trusting every one of `hosts`, its configuration
/// first changed by `edit`; the first host is the `Env`'s, the others are returned.
pub async fn start_trusting(mut hosts: Vec<TestHost>, edit: impl FnOnce(&mut Config)) -> (Env, Vec<TestHost>) {
    let dir = tempfile::tempdir().unwrap();
    let mut config = trusting(dir.path(), &hosts.iter().collect::<Vec<_>>());
    edit(&mut config);
    let app = app::start(config.clone(), PassphraseSource::default()).await.expect("the key app starts");
    let first = hosts.remove(0);
    (Env { _dir: dir, host: first, config, app }, hosts)
}

/// Café Lumière's premises, where the playdate's grown-ups meet.
pub fn cafe_place() -> Place {
    Place { name: Some("Café Lumière".into()), locality: Some("Toronto".into()), ..Default::default() }
}

/// A host's offer for a meeting at `start` (§5.12), at Café Lumière: a person's
/// calendar names its owner and the meeting's place; a business on its own
/// premises names none.
pub fn meeting_offer(host: &TestHost, owner: Option<&str>, start: &str) -> String {
    meeting_offer_at(host, owner, start, &cafe_place())
}

/// The same, a person's calendar naming `place`. Open-ended, as a playdate is.
pub fn meeting_offer_at(host: &TestHost, owner: Option<&str>, start: &str, place: &Place) -> String {
    let mut c = host.priced_offer(now());
    let info = c.host.as_mut().unwrap();
    match owner {
        Some(principal) => {
            info.kind = Some(HostKind::Person);
            info.owner = Some(principal.to_owned());
            c.service = ServiceRef { id: "playdate".into(), name: "Playdate".into() };
            c.price = None;
            c.total = None;
            c.lines = None;
            c.place = Some(place.clone());
        }
        None => c.service = ServiceRef { id: "table".into(), name: "Table for the grown-ups".into() },
    }
    c.slot.start = start.to_owned();
    c.slot.end = None;
    c.open_end = Some(true);
    host.sign_offer(&c).unwrap()
}

/// The §5.12 playdate's contract claims, organized by `organizer` as Noor
/// Haddad, with `me` as Ellis Moreau and then each of `others` (principal,
/// name, host id) as members, in three days' time at the park, issued at `iat`
/// until `exp`. Each member's offer hash stands for an offer at its host.
pub fn playdate_claims(organizer: &SigningKey, me: &str, others: &[(&str, &str, &str)], iat: i64, exp: i64) -> Value {
    let start = (chrono::Utc::now() + chrono::Duration::days(3)).format("%Y-%m-%dT12:00:00-05:00").to_string();
    let member = |principal: &str, name: &str, host: &str| {
        json!({"principal": principal, "name": name, "host": host, "domain": null, "service_id": "playdate",
               "offer_sha256": schcp::hash::sha256_b64(format!("offer at {host}"))})
    };
    let mut members = vec![
        member(&principal_of(organizer), "Noor Haddad", "noor-haddad"),
        member(me, "Ellis Moreau", "ellis-moreau"),
    ];
    members.extend(others.iter().map(|(principal, name, host)| member(principal, name, host)));
    json!({
        "v": "0.4", "iss": principal_of(organizer), "principal_jwk": Jwk::ed25519(&organizer.verifying_key()),
        "iat": iat, "exp": exp, "meeting_id": "mtg_7Hq2", "revision": 1, "title": "Playdate", "tz": "America/Toronto",
        "start": start, "open_end": true,
        "place": {"name": "Trinity Bellwoods Park playground", "locality": "Toronto"},
        "members": members,
        "answers": "person_or_rule",
        "statement": "I approve: a playdate."
    })
}

/// `claims` signed by `organizer` as the key app would sign a contract (§5.12).
pub fn signed_contract(claims: Value, iat: i64, organizer: &SigningKey) -> VerifiedContract {
    schcp::issue::meeting_contract(serde_json::from_value(claims).unwrap(), iat, organizer).unwrap()
}
