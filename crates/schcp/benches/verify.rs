//! verify_offer and mandate building, each beside the bare Ed25519 operation it
//! is built on, measured in the same run (docs/benchmarks.md reports the ratios).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use ed25519_dalek::{Signer as _, SigningKey};
use schcp::claims::{Action, Audience, Consent, ConsentMode, Constraints, Money, Window};
use schcp::issue::{root_mandate, RootMandate};
use schcp::jwk::Jwk;
use schcp::jws::{self, HeaderExtras, Typ};
use schcp::verify::{verify_offer, HostKeys};
use serde_json::json;

/// The priced offer of §5.2, signed by a fixed host key.
fn spec_offer(host: &SigningKey) -> String {
    let claims = json!({ "v": "0.4", "kind": "booking", "iss": "maple-street-auto", "hold_id": "h_1",
      "iat": 1792000000, "exp": 1792000300,
      "host": { "name": "Maple Street Auto", "tz": "America/Toronto", "domain": "maplestreetauto.example" },
      "service": { "id": "oil-change", "name": "Synthetic oil change" },
      "slot": { "start": "2026-10-15T13:00:00-04:00", "end": "2026-10-15T13:45:00-04:00" },
      "price": { "amount": "79.00", "currency": "CAD" },
      "total": { "amount": "89.27", "currency": "CAD" },
      "lines": [ { "kind": "service", "label": "Synthetic oil change", "amount": { "amount": "79.00", "currency": "CAD" } },
                 { "kind": "tax", "label": "HST 13%", "amount": { "amount": "10.27", "currency": "CAD" } } ],
      "retention": "P365D" });
    jws::sign(Typ::Offer, HeaderExtras { kid: Some("msa-2026-10".into()), jwk: None }, &claims, host).unwrap()
}

fn bench(c: &mut Criterion) {
    let host = SigningKey::from_bytes(&[1; 32]);
    let principal = SigningKey::from_bytes(&[2; 32]);
    let mut key = Jwk::ed25519(&host.verifying_key());
    key.kid = Some("msa-2026-10".into());
    let keys = vec![key];
    let offer = spec_offer(&host);
    let hk = HostKeys { host_id: "maple-street-auto", keys: &keys };
    verify_offer(&offer, hk, 1792000100).expect("the spec's offer verifies");

    let (input, sig) = offer.rsplit_once('.').unwrap();
    let sig = ed25519_dalek::Signature::from_slice(&schcp::b64::decode(sig).unwrap()).unwrap();
    let vk = host.verifying_key();

    let mut g = c.benchmark_group("offer");
    g.bench_function("bare_ed25519_verify", |b| {
        b.iter(|| vk.verify_strict(black_box(input.as_bytes()), black_box(&sig)).unwrap())
    });
    g.bench_function("verify_offer", |b| b.iter(|| verify_offer(black_box(&offer), hk, 1792000100).unwrap()));
    g.finish();

    let agent = SigningKey::from_bytes(&[3; 32]);
    let agent_jkt = Jwk::ed25519(&agent.verifying_key()).thumbprint().unwrap();
    let mandate = || RootMandate {
        aud: Audience::One("maple-street-auto".into()),
        sub: "principal-pseudonym-7f3a".into(),
        jti: "m-01J9Z".into(),
        iat: 1792000000,
        exp: 1792086400,
        agent_jkt: agent_jkt.clone(),
        scope: vec![Action::Hold, Action::Book, Action::Cancel, Action::Reschedule],
        constraints: Some(Constraints {
            services: Some(vec!["oil-change".into()]),
            window: Some(Window {
                not_before: "2026-10-15T12:00:00-04:00".into(),
                not_after: "2026-10-15T17:00:00-04:00".into(),
            }),
            max_price: Some(Money { amount: "100.00".into(), currency: "CAD".into() }),
            max_bookings: Some(1),
            ..Constraints::default()
        }),
        consent: Consent {
            mode: Some(ConsentMode::HumanPresent),
            statement: "Book my oil change Thursday afternoon, under $100.".into(),
        },
        contact: None,
        status: Some("https://keyapp.example/status/m-01J9Z".into()),
        attestations: Vec::new(),
    };
    let mut g = c.benchmark_group("mandate");
    g.bench_function("bare_ed25519_sign", |b| b.iter(|| principal.sign(black_box(input.as_bytes()))));
    g.bench_function("build_sign_check_mandate", |b| b.iter(|| root_mandate(mandate(), &principal).unwrap()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
