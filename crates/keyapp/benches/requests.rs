//! Load client for `POST /v1/requests` (a closed mandate over a verified offer:
//! verification + rendering + storage, the host's discovery document already
//! cached), beside the same client against a trivial axum route in the same run.
//!
//! cargo bench -p schcp-keyapp --bench requests
//!
//! Each created request is withdrawn (untimed) so the per-agent pending cap
//! does not stop the run; the person's think time is not part of it.

use agent::AgentClient;
use ed25519_dalek::SigningKey;
use keyapp::config::Config;
use keyapp::control::{self, Command};
use keyapp::keystore::{PassphraseSource, SecretString};
use reqwest::Method;
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};
use testhost::{TestHost, TestHostConfig};

const WARMUP: usize = 50;
const SAMPLES: usize = 1000;

fn summary(name: &str, mut samples: Vec<Duration>) -> (f64, f64, f64) {
    samples.sort();
    let total: Duration = samples.iter().sum();
    let rps = samples.len() as f64 / total.as_secs_f64();
    let p = |q: f64| samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)].as_secs_f64() * 1e3;
    let (p50, p99) = (p(0.50), p(0.99));
    println!("{name:<28} {rps:>9.0} req/s   p50 {p50:>7.3} ms   p99 {p99:>7.3} ms");
    (rps, p50, p99)
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let host = TestHost::start(TestHostConfig::default()).await;
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, host.ca_pem()).unwrap();
    let (domain, addr) = host.resolve();
    let text = format!(
        "data_dir = \"{}\"\nlocale = \"en\"\n[agent_api]\nlisten = \"127.0.0.1:0\"\n[status_api]\nlisten = \"127.0.0.1:0\"\nhosts_on_this_machine = true\n\
         [discovery]\nextra_root_certs = [\"{}\"]\nresolve = {{ \"{domain}\" = \"{addr}\" }}\n[keystore]\nbackend = \"file\"\n",
        dir.path().join("data").display(),
        ca.display()
    );
    let config = Config::parse(&text, Path::new("bench.toml")).unwrap();
    let app =
        keyapp::app::start(config, PassphraseSource::Fixed(SecretString::from("bench".to_owned()))).await.unwrap();

    let agent = AgentClient::new(format!("http://{}", app.agent_addr), SigningKey::from_bytes(&[42; 32]));
    let p = agent.call(Method::POST, "/v1/pairings", Some(&json!({"agent_name": "Bench"}))).await.unwrap();
    control::call(&app.runtime_dir, &Command::Approve { id: p["pairing_id"].as_str().unwrap().into() })
        .await
        .unwrap()
        .unwrap();

    // One offer for the whole run, valid long enough; the discovery document is
    // fetched by the first request and cached after.
    let mut claims = host.priced_offer(chrono::Utc::now().timestamp());
    claims.exp = claims.iat + 3600;
    // A slot ahead of the run: an offer whose slot has begun is refused before
    // the person is asked, and the spec's example slot is in the past.
    let start = chrono::Utc::now() + chrono::Duration::days(3);
    claims.slot.start = start.format("%Y-%m-%dT13:00:00-04:00").to_string();
    claims.slot.end = Some(start.format("%Y-%m-%dT13:45:00-04:00").to_string());
    let offer = host.sign_offer(&claims).unwrap();
    let discovery = host.discovery_url();

    let mut keyapp_samples = Vec::with_capacity(SAMPLES);
    for i in 0..WARMUP + SAMPLES {
        let body = json!({"kind": "closed_mandate", "idempotency_key": format!("b{i}"), "offer": offer, "discovery": discovery});
        let t = Instant::now();
        let r = agent.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
        let took = t.elapsed();
        agent.call(Method::DELETE, &format!("/v1/requests/{}", r["request_id"].as_str().unwrap()), None).await.unwrap();
        if i >= WARMUP {
            keyapp_samples.push(took);
        }
    }

    // The framework's floor: the same client, signing the same way, against a
    // route that does nothing.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let trivial_addr = listener.local_addr().unwrap();
    let trivial =
        axum::Router::new().route("/v1/requests", axum::routing::post(|| async { axum::Json(json!({"ok": true})) }));
    tokio::spawn(async move { axum::serve(listener, trivial).await.unwrap() });
    let plain = AgentClient::new(format!("http://{trivial_addr}"), SigningKey::from_bytes(&[42; 32]));
    let mut trivial_samples = Vec::with_capacity(SAMPLES);
    for i in 0..WARMUP + SAMPLES {
        let body = json!({"kind": "closed_mandate", "idempotency_key": format!("b{i}"), "offer": offer, "discovery": discovery});
        let t = Instant::now();
        plain.call(Method::POST, "/v1/requests", Some(&body)).await.unwrap();
        if i >= WARMUP {
            trivial_samples.push(t.elapsed());
        }
    }

    println!("POST /v1/requests, closed mandate, {SAMPLES} sequential requests after {WARMUP} warm-up");
    let (k_rps, k_p50, k_p99) = summary("key app (closed_mandate)", keyapp_samples);
    let (t_rps, t_p50, t_p99) = summary("trivial axum route", trivial_samples);
    println!(
        "ratio key app / trivial:   throughput {:.2}x lower   p50 {:.2}x   p99 {:.2}x",
        t_rps / k_rps,
        k_p50 / t_p50,
        k_p99 / t_p99
    );
}
