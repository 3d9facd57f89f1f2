//! What the OS's user verification adds to "click → credential delivered to
//! the agent": the person's approve over the control socket, then the agent's
//! `GET /v1/requests/{id}` returning the signed rule. Two key apps in the same
//! run, the same path: one asking polkit (`org.schcp.keyapp.approve`), one with
//! a verifier that says yes at once. Samples alternate between the two.
//!
//! scripts/with-polkit cargo bench -p schcp-keyapp --bench verification
//!
//! As root, polkit answers yes without a prompt (root is always authorized), so
//! what is measured is the check itself: a system bus connection and one
//! `CheckAuthorization`, not a person typing. Request creation is untimed.

use agent::AgentClient;
use ed25519_dalek::SigningKey;
use keyapp::app::Running;
use keyapp::config::Config;
use keyapp::control::{self, Command};
use keyapp::keystore::{PassphraseSource, SecretString};
use keyapp::user_verification::{Approval, Method, UserVerifier, VerdictFuture};
use reqwest::Method as Http;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const WARMUP: usize = 10;
const SAMPLES: usize = 200;

/// Says yes at once: the path without verification.
struct NoOp;

impl UserVerifier for NoOp {
    fn verify<'a>(&'a self, _: &'a Approval) -> VerdictFuture<'a> {
        Box::pin(async { Ok(Method::Polkit) })
    }
}

async fn start(dir: &Path, verifier: Option<Arc<dyn UserVerifier>>) -> Running {
    let text = format!(
        "data_dir = \"{}\"\nlocale = \"en\"\n[agent_api]\nlisten = \"127.0.0.1:0\"\n[status_api]\nlisten = \"127.0.0.1:0\"\n\
         [keystore]\nbackend = \"file\"\n",
        dir.join("data").display()
    );
    let config = Config::parse(&text, Path::new("bench.toml")).unwrap();
    let passphrase = PassphraseSource::Fixed(SecretString::from("bench".to_owned()));
    match verifier {
        None => keyapp::app::start(config, passphrase).await.unwrap(),
        Some(v) => keyapp::app::start_verified_by(config, passphrase, v).await.unwrap(),
    }
}

/// An agent paired with `app` (its pairing approved as the samples are).
async fn paired(app: &Running) -> AgentClient {
    let agent = AgentClient::new(format!("http://{}", app.agent_addr), SigningKey::from_bytes(&[42; 32]));
    let p = agent.call(Http::POST, "/v1/pairings", Some(&json!({"agent_name": "Bench"}))).await.unwrap();
    let id = p["pairing_id"].as_str().unwrap().to_owned();
    control::call(&app.runtime_dir, &Command::Approve { id }).await.unwrap().expect("the pairing is approved");
    agent
}

/// One sample: a rule request (untimed), then click → credential delivered.
async fn click_to_delivery(app: &Running, agent: &AgentClient, i: usize) -> Duration {
    let body = json!({"kind": "rule", "idempotency_key": format!("b{i}"), "agent_jkt": agent.jkt(), "label": "Bench"});
    let r = agent.call(Http::POST, "/v1/requests", Some(&body)).await.unwrap();
    let id = r["request_id"].as_str().unwrap().to_owned();
    let t = Instant::now();
    control::call(&app.runtime_dir, &Command::Approve { id: id.clone() }).await.unwrap().expect("approved");
    let delivered = agent.call(Http::GET, &format!("/v1/requests/{id}"), None).await.unwrap();
    let took = t.elapsed();
    assert!(delivered["result"]["rule"].is_string(), "{delivered}");
    took
}

fn summary(name: &str, mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let p = |q: f64| samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)].as_secs_f64() * 1e3;
    let (p50, p99) = (p(0.50), p(0.99));
    println!("{name:<34} p50 {p50:>7.3} ms   p99 {p99:>7.3} ms");
    (p50, p99)
}

#[tokio::main]
async fn main() {
    let (with_dir, without_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let with = start(with_dir.path(), None).await;
    let without = start(without_dir.path(), Some(Arc::new(NoOp))).await;
    let (with_agent, without_agent) = (paired(&with).await, paired(&without).await);

    let (mut polkit, mut none) = (Vec::with_capacity(SAMPLES), Vec::with_capacity(SAMPLES));
    for i in 0..WARMUP + SAMPLES {
        let a = click_to_delivery(&with, &with_agent, i).await;
        let b = click_to_delivery(&without, &without_agent, i).await;
        if i >= WARMUP {
            polkit.push(a);
            none.push(b);
        }
    }
    println!("click → credential delivered (rule), {SAMPLES} samples each after {WARMUP} warm-up, alternating");
    let (v50, v99) = summary("polkit (answering for root)", polkit);
    let (n50, n99) = summary("no verification (yes at once)", none);
    println!("ratio polkit / none:   p50 {:.2}x   p99 {:.2}x", v50 / n50, v99 / n99);
}
