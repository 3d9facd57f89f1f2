//! Exact accounting of the shared booking limit under concurrency and crashes
//! (docs/agent-api.md §10: "the number of held claims never exceeds max_bookings, and a crash
//! at any point loses or duplicates no unit"; §3.3 "One consent, several hosts").
//!
//! - `concurrent_claims_and_releases_keep_the_invariant`: 64 tasks of claims with
//!   distinct and repeated claim ids, then with interleaved releases, against
//!   `max_bookings` 1, 2 and 5, 20 rounds each, the invariant checked after every
//!   run.
//! - `sigkill_during_a_claim_storm_loses_and_duplicates_nothing`: the status server
//!   runs as a separate process (this test binary re-executed with
//!   `SCHCP_STATUS_CHILD_DB` set, running only `status_server_child`), is killed
//!   with SIGKILL at random moments of a claim storm and restarted on the same
//!   database; every acknowledged claim and release must have survived.

use keyapp::status_api::{self, StatusOptions, StatusState};
use keyapp::store::credentials::{self, CredentialRecord};
use keyapp::store::Store;
use rand::Rng;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use testkit::now;
use testkit::status::mandate;
use tokio::net::TcpListener;

const HOSTS: [&str; 3] = ["maple-street-auto", "oak-lane-garage", "elm-street-salon"];
const ROUNDS: usize = 20;
const TASKS: usize = 64;

fn client() -> Client {
    Client::builder().no_proxy().pool_max_idle_per_host(256).timeout(Duration::from_secs(60)).build().unwrap()
}

/// Options for load: the per-peer limits would throttle one test client.
fn unthrottled() -> StatusOptions {
    StatusOptions { rate_limit: None, max_connections_per_peer: 1024, ..StatusOptions::default() }
}

/// A shared-limit mandate for every one of `HOSTS`, as the key app records it.
fn record(jti: &str, max: u32) -> CredentialRecord {
    mandate(jti, &HOSTS, Some(max), true, now() + 3600)
}

async fn held(store: &Store, jti: &str) -> BTreeSet<String> {
    keyapp::store::booking_claims::held_claims(store, jti).await.unwrap().into_iter().collect()
}

/// The invariant, read from the database and from the API: held ≤ max, and
/// `remaining` = max − held.
async fn check_invariant(store: &Store, c: &Client, base: &str, jti: &str, max: u32) -> BTreeSet<String> {
    let rows = held(store, jti).await;
    assert!(rows.len() <= max as usize, "{jti}: {} claims held, max_bookings {max}: {rows:?}", rows.len());
    let r = c.get(format!("{base}/status/{jti}")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["remaining"], json!(max as usize - rows.len()), "{jti}: {body} with {rows:?}");
    rows
}

#[derive(Debug, Clone)]
struct Op {
    claim: bool,
    id: String,
    sent: Instant,
    acked: Instant,
    status: u16,
    remaining: Option<u64>,
}

async fn send(c: &Client, base: &str, jti: &str, claim: bool, id: &str) -> Op {
    let sent = Instant::now();
    let r = if claim {
        c.post(format!("{base}/status/{jti}/claims")).json(&json!({ "claim_id": id })).send().await.unwrap()
    } else {
        c.delete(format!("{base}/status/{jti}/claims/{id}")).send().await.unwrap()
    };
    let status = r.status().as_u16();
    let body: Value = if status == 204 { Value::Null } else { r.json().await.unwrap() };
    let acked = Instant::now();
    if status == 200 || status == 201 {
        assert_eq!(body["claim_id"], json!(id));
    }
    Op { claim, id: id.to_owned(), sent, acked, status, remaining: body["remaining"].as_u64() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_claims_and_releases_keep_the_invariant() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("keyapp.db")).await.unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let server = tokio::spawn(status_api::serve(listener, StatusState::with_options(store.clone(), unthrottled())));
    let c = client();

    for max in [1u32, 2, 5] {
        for round in 0..ROUNDS {
            let jti = format!("m-{max}-{round}");
            credentials::record(&store, record(&jti, max)).await.unwrap();
            let pool: Vec<String> = (0..3 * max as usize + 2).map(|j| format!("{}/h{j}", HOSTS[j % 3])).collect();

            // Run 1, claims only: every claim id is claimed by several tasks at
            // once. Exactly `max` distinct ids win one 201 each; the rest are 200
            // (already held) or 409.
            let mut tasks = tokio::task::JoinSet::new();
            for t in 0..TASKS {
                let (c, base, jti) = (c.clone(), base.clone(), jti.clone());
                let mine = [pool[(t * 7 + round) % pool.len()].clone(), pool[(t * 13 + 1) % pool.len()].clone()];
                tasks.spawn(async move {
                    let mut ops = Vec::new();
                    for id in mine {
                        ops.push(send(&c, &base, &jti, true, &id).await);
                    }
                    ops
                });
            }
            let ops: Vec<Op> = tasks.join_all().await.into_iter().flatten().collect();
            let rows = check_invariant(&store, &c, &base, &jti, max).await;
            let attempted: BTreeSet<&String> = ops.iter().map(|o| &o.id).collect();
            assert_eq!(rows.len(), (max as usize).min(attempted.len()), "{jti}");
            let won: Vec<&String> = ops.iter().filter(|o| o.status == 201).map(|o| &o.id).collect();
            assert_eq!(won.len(), rows.len(), "{jti}: one 201 per unit: {won:?}");
            assert_eq!(won.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(), rows, "{jti}");
            for o in &ops {
                match o.status {
                    201 | 200 => {
                        assert!(rows.contains(&o.id), "{jti}: acknowledged {} not held", o.id);
                        assert!(o.remaining.unwrap() < max as u64, "{jti}: {o:?}");
                    }
                    409 => assert!(!rows.contains(&o.id), "{jti}: refused {} but held", o.id),
                    other => panic!("{jti}: unexpected {other} for {o:?}"),
                }
            }

            // Run 2, claims with interleaved releases, on the same ids and new ones.
            let pool: Vec<String> =
                (0..2 * max as usize + 3).map(|j| format!("{}/h{j}", HOSTS[(j + round) % 3])).collect();
            let mut tasks = tokio::task::JoinSet::new();
            for t in 0..TASKS {
                let (c, base, jti, pool) = (c.clone(), base.clone(), jti.clone(), pool.clone());
                tasks.spawn(async move {
                    let mut ops = Vec::new();
                    for k in 0..6 {
                        let (claim, id) = {
                            let mut rng = rand::thread_rng();
                            (rng.gen_bool(0.65), pool[rng.gen_range(0..pool.len())].clone())
                        };
                        if (t + k) % 11 == 0 {
                            tokio::task::yield_now().await;
                        }
                        ops.push(send(&c, &base, &jti, claim, &id).await);
                    }
                    ops
                });
            }
            let ops: Vec<Op> = tasks.join_all().await.into_iter().flatten().collect();
            let rows = check_invariant(&store, &c, &base, &jti, max).await;
            check_against_history(&jti, max, &ops, &rows);
        }
    }
    server.abort();
}

/// What the final table must say about each claim id, from the acknowledged
/// operations alone. A claim acknowledged after every release of its id had
/// been acknowledged must be held; a release acknowledged after every claim of
/// its id had been acknowledged must have left it free. Anything else raced
/// and may go either way.
fn check_against_history(jti: &str, max: u32, ops: &[Op], rows: &BTreeSet<String>) {
    let mut by_id: HashMap<&str, Vec<&Op>> = HashMap::new();
    for o in ops {
        match (o.claim, o.status) {
            (true, 201 | 200) => assert!(o.remaining.unwrap() < max as u64, "{jti}: {o:?}"),
            (true, 409) | (false, 204) => {}
            _ => panic!("{jti}: unexpected answer {o:?}"),
        }
        by_id.entry(&o.id).or_default().push(o);
    }
    for (id, ops) in by_id {
        let claims: Vec<&&Op> = ops.iter().filter(|o| o.claim).collect();
        let releases: Vec<&&Op> = ops.iter().filter(|o| !o.claim).collect();
        let must_hold = claims
            .iter()
            .filter(|c| c.status == 201 || c.status == 200)
            .any(|c| releases.iter().all(|r| r.acked < c.sent));
        let must_be_free = releases.iter().any(|r| claims.iter().all(|c| c.acked < r.sent));
        assert!(!(must_hold && must_be_free), "{jti} {id}: contradictory history {ops:?}");
        if must_hold {
            assert!(rows.contains(id), "{jti}: acknowledged claim {id} lost: {ops:?}");
        }
        if must_be_free {
            assert!(!rows.contains(id), "{jti}: released claim {id} still held: {ops:?}");
        }
    }
}

// ---------------------------------------------------------------------------
// Crash safety.

const CHILD_DB: &str = "SCHCP_STATUS_CHILD_DB";
const CHILD_PORT_FILE: &str = "SCHCP_STATUS_CHILD_PORT_FILE";

/// Not a test of its own: the status server process the crash test starts and
/// kills. Without `SCHCP_STATUS_CHILD_DB` it returns at once.
#[test]
fn status_server_child() {
    let Ok(db) = std::env::var(CHILD_DB) else {
        return;
    };
    let port_file = PathBuf::from(std::env::var(CHILD_PORT_FILE).unwrap());
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let store = Store::open(Path::new(&db)).await.unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        // Written whole, then renamed: the parent never reads half a port.
        let tmp = port_file.with_extension("tmp");
        std::fs::write(&tmp, port.to_string()).unwrap();
        std::fs::rename(&tmp, &port_file).unwrap();
        status_api::serve(listener, StatusState::with_options(store, unthrottled())).await.unwrap();
    });
}

/// The child server process; killed (SIGKILL) when dropped.
struct ChildServer {
    child: Child,
    base: String,
}

impl ChildServer {
    async fn start(db: &Path, port_file: &Path) -> ChildServer {
        let _ = std::fs::remove_file(port_file);
        let child = Command::new(std::env::current_exe().unwrap())
            .args(["status_server_child", "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD_DB, db)
            .env(CHILD_PORT_FILE, port_file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut server = ChildServer { child, base: String::new() };
        for _ in 0..6000 {
            if let Ok(port) = std::fs::read_to_string(port_file) {
                server.base = format!("http://127.0.0.1:{port}");
                return server;
            }
            if let Some(status) = server.child.try_wait().unwrap() {
                panic!("status server exited early: {status}");
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("status server did not start");
    }

    /// SIGKILL: no destructor, no flush, no goodbye.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What the storm knows about one claim id (each id has one owner task, so its
/// operations are sequential and this is exact).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Known {
    /// The last operation was an acknowledged claim (201/200).
    Held,
    /// The last operation was an acknowledged release (204) or a 409.
    Free,
    /// The last operation got no answer: the server died under it.
    Unsure,
}

const STORM_MANDATES: [(&str, u32); 4] = [("c1", 1), ("c2", 2), ("c5", 5), ("c50", 50)];
const STORM_TASKS: usize = 48;
const CYCLES: usize = 12;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigkill_during_a_claim_storm_loses_and_duplicates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("keyapp.db");
    let port_file = dir.path().join("port");
    {
        let store = Store::open(&db).await.unwrap();
        for (jti, max) in STORM_MANDATES {
            credentials::record(&store, record(jti, max)).await.unwrap();
        }
        store.pool().close().await;
    }
    let known: Arc<Mutex<HashMap<(String, String), Known>>> = Arc::default();
    let violations: Arc<Mutex<Vec<String>>> = Arc::default();
    let mut acknowledged = 0usize;

    for cycle in 0..CYCLES {
        let mut server = ChildServer::start(&db, &port_file).await;
        let c = client();
        // Right after a restart: the invariant, and every claim known held.
        let reader = Store::open(&db).await.unwrap();
        for (jti, max) in STORM_MANDATES {
            let rows = check_invariant(&reader, &c, &server.base, jti, max).await;
            for ((j, id), k) in known.lock().unwrap().iter() {
                match k {
                    Known::Held if j == jti => {
                        assert!(rows.contains(id), "cycle {cycle}: acknowledged claim {jti} {id} lost")
                    }
                    Known::Free if j == jti => {
                        assert!(!rows.contains(id), "cycle {cycle}: released claim {jti} {id} held")
                    }
                    _ => {}
                }
            }
        }
        reader.pool().close().await;

        let mut tasks = tokio::task::JoinSet::new();
        for t in 0..STORM_TASKS {
            let (c, base, known, violations) = (c.clone(), server.base.clone(), known.clone(), violations.clone());
            tasks.spawn(async move { storm_task(t, &c, &base, &known, &violations).await });
        }
        let kill_after = Duration::from_millis(rand::thread_rng().gen_range(5..400));
        tokio::time::sleep(kill_after).await;
        server.kill();
        acknowledged += tasks.join_all().await.into_iter().sum::<usize>();
    }

    let v = violations.lock().unwrap().clone();
    assert!(v.is_empty(), "{v:#?}");
    let unsure = known.lock().unwrap().values().filter(|k| **k == Known::Unsure).count();
    eprintln!("storm: {CYCLES} kills, {acknowledged} answers, {unsure} claim ids left in doubt by the last kill");
    assert!(acknowledged > 0, "the storm never got an answer");

    // After the last kill: the database alone.
    let store = Store::open(&db).await.unwrap();
    for (jti, max) in STORM_MANDATES {
        let rows = held(&store, jti).await;
        assert!(rows.len() <= max as usize, "{jti}: {rows:?}");
        for ((j, id), k) in known.lock().unwrap().iter() {
            match k {
                Known::Held if j == jti => assert!(rows.contains(id), "acknowledged claim {jti} {id} lost"),
                Known::Free if j == jti => assert!(!rows.contains(id), "released claim {jti} {id} still held"),
                _ => {}
            }
        }
    }
    store.pool().close().await;
    // And a restarted server agrees, and still counts: release everything, then
    // exactly max_bookings new claims succeed.
    let server = ChildServer::start(&db, &port_file).await;
    let c = client();
    let store = Store::open(&db).await.unwrap();
    for (jti, max) in STORM_MANDATES {
        let rows = check_invariant(&store, &c, &server.base, jti, max).await;
        for id in &rows {
            assert_eq!(send(&c, &server.base, jti, false, id).await.status, 204);
        }
        let mut won = 0;
        for i in 0..max + 2 {
            won +=
                (send(&c, &server.base, jti, true, &format!("maple-street-auto/final-{i}")).await.status == 201) as u32;
        }
        assert_eq!(won, max, "{jti}");
        check_invariant(&store, &c, &server.base, jti, max).await;
    }
}

/// One storm client: owns three claim ids (one per host, spread over the
/// mandates), claims and releases them at random until the server dies under
/// it. Returns how many answers it got.
async fn storm_task(
    t: usize,
    c: &Client,
    base: &str,
    known: &Mutex<HashMap<(String, String), Known>>,
    violations: &Mutex<Vec<String>>,
) -> usize {
    let mine: Vec<(String, String)> = (0..3)
        .map(|k| (STORM_MANDATES[(t + k) % STORM_MANDATES.len()].0.to_owned(), format!("{}/t{t}-{k}", HOSTS[k])))
        .collect();
    let mut answers = 0;
    loop {
        let (key, claim) = {
            let mut rng = rand::thread_rng();
            (mine[rng.gen_range(0..mine.len())].clone(), rng.gen_bool(0.6))
        };
        let before = known.lock().unwrap().get(&key).copied();
        let url = if claim {
            format!("{base}/status/{}/claims", key.0)
        } else {
            format!("{base}/status/{}/claims/{}", key.0, key.1)
        };
        let request = if claim { c.post(url).json(&json!({ "claim_id": key.1 })) } else { c.delete(url) };
        let status = match request.send().await {
            Ok(r) => r.status().as_u16(),
            Err(_) => {
                // No answer: the server died while this was in flight (or before).
                known.lock().unwrap().insert(key, Known::Unsure);
                return answers;
            }
        };
        answers += 1;
        let after = match (claim, status) {
            (true, 201) => {
                if before == Some(Known::Held) {
                    violations.lock().unwrap().push(format!("{key:?}: held, yet claimed anew (201): a unit was lost"));
                }
                Known::Held
            }
            (true, 200) => {
                if before == Some(Known::Free) || before.is_none() {
                    violations.lock().unwrap().push(format!("{key:?}: free, yet answered already held (200)"));
                }
                Known::Held
            }
            (true, 409) => {
                if before == Some(Known::Held) {
                    violations.lock().unwrap().push(format!("{key:?}: held, yet refused 409"));
                }
                Known::Free
            }
            (false, 204) => Known::Free,
            other => {
                violations.lock().unwrap().push(format!("{key:?}: unexpected answer {other:?}"));
                Known::Unsure
            }
        };
        known.lock().unwrap().insert(key, after);
    }
}
