//! Several schcp-status processes on one PostgreSQL, 64 concurrent hosts
//! claiming, repeating and releasing: the shared limit is exact
//! (§3.3: "one booking fewer left, never one more") whichever process answers,
//! and a process killed with SIGKILL mid-storm loses no acknowledged claim and
//! grants nothing extra. The processes batch their claims (the default,
//! `claim_batches = 2`; crates/status/src/batch.rs), so a kill lands on whole
//! batches in flight.

mod common;

use common::{client, now, pool, publish, registration, spawn, Principal};
use reqwest::{Client, StatusCode};
use schcp_status::store;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use testkit::status_process::StatusProcess;

const CLIENTS: usize = 64;
const PROCESSES: usize = 3;
const HOSTS: [&str; 4] = ["maple-street-auto", "oak-lane-garage", "elm-road-tyres", "birch-lane-motors"];

/// Where the clients send their requests; a killed process is swapped for its
/// replacement.
type Bases = Arc<RwLock<Vec<String>>>;

struct Storm {
    procs: Vec<StatusProcess>,
    bases: Bases,
    principal: Arc<Principal>,
}

impl Storm {
    async fn start(max: u32) -> Storm {
        // The schema first: `serve` refuses a database that is not migrated.
        drop(pool().await);
        let procs: Vec<StatusProcess> = (0..PROCESSES).map(|_| spawn(8)).collect();
        let bases = Arc::new(RwLock::new(procs.iter().map(StatusProcess::base).collect()));
        let principal = Arc::new(Principal::ed25519());
        let reg = registration("m", &HOSTS, Some(max), true, now() + 3600);
        let r = publish(&client(), &procs[0].base(), &principal.thumb, principal.update(&reg)).await;
        assert_eq!(r.status(), StatusCode::CREATED);
        Storm { procs, bases, principal }
    }

    fn kill_and_replace(&mut self, i: usize) {
        self.procs[i].kill();
        let fresh = spawn(8);
        self.bases.write().unwrap()[i] = fresh.base();
        self.procs[i] = fresh;
    }
}

/// What one host believes it holds, from the answers it was given.
#[derive(Default)]
struct Belief {
    held: BTreeSet<String>,
    granted: usize,
}

/// Requests that found no process answering (cut off by a kill), retried.
static RETRIED: AtomicUsize = AtomicUsize::new(0);

/// Sends one claim or release, retrying on other processes until a process
/// answers (a killed one's connections fail). Retrying is safe: a claim id is
/// idempotent and a release gives back only a held unit (§3.3).
async fn send(c: &Client, bases: &Bases, start: usize, thumb: &str, claim_id: &str, release: bool) -> StatusCode {
    send_counted(c, bases, start, thumb, claim_id, release).await.0
}

/// [`send`], also saying whether the request had to be retried.
async fn send_counted(
    c: &Client,
    bases: &Bases,
    start: usize,
    thumb: &str,
    claim_id: &str,
    release: bool,
) -> (StatusCode, bool) {
    for attempt in 0..200 {
        let base = {
            let b = bases.read().unwrap();
            b[(start + attempt) % b.len()].clone()
        };
        let url = format!("{base}/status/{thumb}/m/claims");
        let r = if release {
            c.delete(format!("{url}/{claim_id}")).send().await
        } else {
            c.post(url).json(&serde_json::json!({ "claim_id": claim_id })).send().await
        };
        match r {
            Ok(r) if r.status() != StatusCode::SERVICE_UNAVAILABLE => return (r.status(), attempt > 0),
            _ => {
                RETRIED.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await
            }
        }
    }
    panic!("no process answered {claim_id}");
}

/// A small deterministic generator per client, so a failing run can be read.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// One host's traffic: `ops` claims, repeats and releases over its own claim
/// ids (so its belief is exact), spread over the processes.
async fn host(i: usize, bases: Bases, thumb: String, ops: usize, mut belief: Belief) -> Belief {
    let c = client();
    let mut rng = 0x9E37_79B9_7F4A_7C15u64 ^ (i as u64 + 1);
    for op in 0..ops {
        let r = next(&mut rng);
        let id = format!("{}/c{i}-{}", HOSTS[i % HOSTS.len()], r % 4);
        let start = i + op;
        if belief.held.contains(&id) {
            if r.is_multiple_of(3) {
                // A repeat: spends nothing, answers "already held".
                assert_eq!(send(&c, &bases, start, &thumb, &id, false).await, StatusCode::OK, "{id}");
            } else {
                assert_eq!(send(&c, &bases, start, &thumb, &id, true).await, StatusCode::NO_CONTENT, "{id}");
                belief.held.remove(&id);
            }
        } else {
            match send_counted(&c, &bases, start, &thumb, &id, false).await {
                (StatusCode::CREATED, _) => {
                    belief.held.insert(id);
                    belief.granted += 1;
                }
                // The attempt a killed process committed but never answered:
                // the retry is told it is held (§3.3), and nothing more is spent.
                (StatusCode::OK, true) => {
                    belief.held.insert(id);
                    belief.granted += 1;
                }
                (StatusCode::CONFLICT, _) => {}
                (other, retried) => panic!("claim {id}: {other} (retried: {retried})"),
            }
        }
    }
    belief
}

/// Runs every host's traffic at once and returns their beliefs.
async fn storm(s: &Storm, beliefs: Vec<Belief>, ops: usize) -> Vec<Belief> {
    let tasks: Vec<_> = beliefs
        .into_iter()
        .enumerate()
        .map(|(i, b)| tokio::spawn(host(i, s.bases.clone(), s.principal.thumb.clone(), ops, b)))
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

/// The database agrees with the hosts: every acknowledged claim held, nothing
/// else, and `remaining + held = max_bookings`.
async fn check(s: &Storm, beliefs: &[Belief], max: u32) {
    let pool = pool().await;
    let held: BTreeSet<String> =
        store::held_claims(&pool, &s.principal.thumb, "m").await.unwrap().into_iter().collect();
    let believed: BTreeSet<String> = beliefs.iter().flat_map(|b| b.held.iter().cloned()).collect();
    assert_eq!(held, believed, "the database holds exactly the acknowledged claims");
    let view = store::status(&pool, &s.principal.thumb, "m", now()).await.unwrap().unwrap();
    let remaining = view.remaining.unwrap();
    assert!(held.len() <= max as usize, "over-grant: {} held of {max}", held.len());
    assert_eq!(remaining as usize + held.len(), max as usize, "remaining + held = max_bookings");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_processes_grant_exactly_max_bookings() {
    const MAX: u32 = 40;
    let s = Storm::start(MAX).await;
    // Claims only, each sent twice to different processes: exactly MAX granted.
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|i| {
            let (bases, thumb) = (s.bases.clone(), s.principal.thumb.clone());
            tokio::spawn(async move {
                let c = client();
                let mut b = Belief::default();
                for k in 0..3 {
                    let id = format!("{}/c{i}-{k}", HOSTS[i % HOSTS.len()]);
                    let first = send(&c, &bases, i + k, &thumb, &id, false).await;
                    let again = send(&c, &bases, i + k + 1, &thumb, &id, false).await;
                    match first {
                        StatusCode::CREATED => {
                            assert_eq!(again, StatusCode::OK, "a repeat of a granted claim spends nothing");
                            b.held.insert(id);
                            b.granted += 1;
                        }
                        StatusCode::CONFLICT => assert_eq!(again, StatusCode::CONFLICT),
                        other => panic!("{id}: {other}"),
                    }
                }
                b
            })
        })
        .collect();
    let mut beliefs = Vec::new();
    for t in tasks {
        beliefs.push(t.await.unwrap());
    }
    assert_eq!(beliefs.iter().map(|b| b.granted).sum::<usize>(), MAX as usize, "granted = max_bookings exactly");
    check(&s, &beliefs, MAX).await;
    // Then claims, repeats and releases mixed.
    let beliefs = storm(&s, beliefs, 40).await;
    check(&s, &beliefs, MAX).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigkill_mid_storm_loses_no_acknowledged_claim() {
    const MAX: u32 = 50;
    let mut s = Storm::start(MAX).await;
    let mut beliefs: Vec<Belief> = (0..CLIENTS).map(|_| Belief::default()).collect();
    for round in 0..3 {
        let tasks: Vec<_> = beliefs
            .into_iter()
            .enumerate()
            .map(|(i, b)| tokio::spawn(host(i, s.bases.clone(), s.principal.thumb.clone(), 60, b)))
            .collect();
        tokio::time::sleep(Duration::from_millis(150 + 100 * round as u64)).await;
        // The kill lands mid-storm: hosts are still sending.
        assert!(tasks.iter().any(|t| !t.is_finished()), "the storm ended before the kill");
        s.kill_and_replace(round % PROCESSES);
        beliefs = Vec::new();
        for t in tasks {
            beliefs.push(t.await.unwrap());
        }
        check(&s, &beliefs, MAX).await;
    }
    assert!(RETRIED.load(Ordering::Relaxed) > 0, "the kills cut no request off");
}
