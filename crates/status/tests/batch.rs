//! Claims batched per process (docs/hosted-status.md "Batched claims"): one
//! transaction for many claims answers each exactly as it would have been
//! answered alone (§3.3), grants exactly the limit under concurrency, and
//! answers every claim of a failed transaction with an error, granting none.

mod common;

use common::{database_url, now, pool, snapshot, Principal};
use schcp::status_update::Registration;
use schcp_status::batch::ClaimBatches;
use schcp_status::store::{self, ClaimError, DbOptions, QueuedClaim};
use sqlx::PgPool;
use status_edge::{ClaimId, ClaimOutcome, ClaimRefusal, Claimant, HostKeys};
use std::collections::BTreeSet;
use std::time::Duration;

const MAPLE: &str = "maple-street-auto";
const OAK: &str = "oak-lane-garage";

/// Registers `jti` in `thumb`'s namespace: aud maple and oak, a shared limit of
/// `max`, the host keys `keys` (maple's).
async fn credential(pool: &PgPool, thumb: &str, jti: &str, max: u32, keys: &[&str]) {
    let reg = Registration {
        jti: jti.into(),
        exp: now() + 3600,
        aud: vec![MAPLE.into(), OAK.into()],
        max_bookings: Some(max),
        shared_limit: true,
        host_keys: HostKeys::from([(MAPLE.to_owned(), keys.iter().map(|k| k.to_string()).collect())]),
    };
    store::register(pool, thumb, &Principal::update_jti(), now() + 600, &reg, now(), 1000).await.unwrap();
}

fn queued(thumb: &str, jti: &str, claim_id: &str) -> QueuedClaim {
    QueuedClaim {
        thumb: thumb.into(),
        jti: jti.into(),
        claim_id: ClaimId::parse(claim_id).unwrap(),
        now: now(),
        signer: None,
    }
}

fn signed(mut q: QueuedClaim, keyid: &str, nonce: &str) -> QueuedClaim {
    q.signer = Some(Claimant { thumbprint: keyid.into(), nonce: nonce.into(), remember_until: now() + 301 });
    q
}

/// An answer as text, so a batch's and single claims' answers compare.
fn said(r: &Result<ClaimOutcome, ClaimError>) -> String {
    match r {
        Ok(o) => format!("{o:?}"),
        Err(ClaimError::Refused(r)) => format!("refused {r:?}"),
        Err(ClaimError::Replayed) => "replayed".into(),
        Err(e) => panic!("not an answer of the rules: {e}"),
    }
}

/// The same claims, one call each, in order ([`store::claim`]).
async fn one_by_one(pool: &PgPool, claims: &[QueuedClaim]) -> Vec<String> {
    let mut out = Vec::new();
    for q in claims {
        out.push(said(&store::claim(pool, &q.thumb, &q.jti, &q.claim_id, q.now, q.signer.as_ref()).await));
    }
    out
}

async fn remaining(pool: &PgPool, thumb: &str, jti: &str) -> Option<u32> {
    store::status(pool, thumb, jti, now()).await.unwrap().unwrap().remaining
}

#[tokio::test]
async fn one_batch_at_the_limit_grants_exactly_the_limit_in_arrival_order() {
    let (pool, p) = (pool().await, Principal::ed25519());
    credential(&pool, &p.thumb, "m", 10, &[]).await;
    let claims: Vec<QueuedClaim> = (0..40).map(|i| queued(&p.thumb, "m", &format!("{MAPLE}/h{i:02}"))).collect();
    let got = store::claim_batch(&pool, &claims).await.unwrap();
    assert_eq!(got.len(), 40);
    for (i, r) in got.iter().enumerate() {
        if i < 10 {
            assert_eq!(r.as_ref().unwrap(), &ClaimOutcome::Claimed { remaining: 9 - i as u32 }, "claim {i}");
        } else {
            assert!(matches!(r, Err(ClaimError::Refused(ClaimRefusal::NoneLeft { max_bookings: 10 }))), "claim {i}");
        }
    }
    let held = store::held_claims(&pool, &p.thumb, "m").await.unwrap();
    let first: Vec<String> = (0..10).map(|i| format!("{MAPLE}/h{i:02}")).collect();
    assert_eq!(held, first, "the first ten in arrival order hold the units, and nothing else is written");
    assert_eq!(remaining(&pool, &p.thumb, "m").await, Some(0));
}

/// Two batchers are two processes: 200 claim ids, each sent to both at once,
/// on a limit of 25.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_claims_through_two_batchers_grant_exactly_the_limit() {
    exactly_the_limit_through_two_batchers(Duration::ZERO).await;
}

/// The same when a claim waits for company while a batch is in flight
/// (`claim_gather_us`): gathering changes which claims share a transaction,
/// never what they are granted.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn gathering_batchers_grant_exactly_the_limit() {
    exactly_the_limit_through_two_batchers(Duration::from_millis(2)).await;
}

async fn exactly_the_limit_through_two_batchers(gather: Duration) {
    const MAX: u32 = 25;
    let (pool, p) = (pool().await, Principal::ed25519());
    credential(&pool, &p.thumb, "m", MAX, &[]).await;
    let batchers = [
        ClaimBatches::spawn_gathering(pool.clone(), 2, gather),
        ClaimBatches::spawn_gathering(pool.clone(), 2, gather),
    ];
    let mut tasks = Vec::new();
    for i in 0..200 {
        for b in &batchers {
            let (b, q) = (b.clone(), queued(&p.thumb, "m", &format!("{MAPLE}/c{i:03}")));
            tasks.push(tokio::spawn(async move { b.claim(q).await }));
        }
    }
    let mut answers = Vec::new();
    for t in tasks {
        answers.push(t.await.unwrap());
    }
    let mut granted = BTreeSet::new();
    for (i, pair) in answers.chunks(2).enumerate() {
        let id = format!("{MAPLE}/c{i:03}");
        match (&pair[0], &pair[1]) {
            (Ok(ClaimOutcome::Claimed { .. }), Ok(ClaimOutcome::AlreadyHeld { .. }))
            | (Ok(ClaimOutcome::AlreadyHeld { .. }), Ok(ClaimOutcome::Claimed { .. })) => {
                granted.insert(id);
            }
            (
                Err(ClaimError::Refused(ClaimRefusal::NoneLeft { max_bookings: MAX })),
                Err(ClaimError::Refused(ClaimRefusal::NoneLeft { max_bookings: MAX })),
            ) => {}
            other => panic!("{id}: {other:?}"),
        }
    }
    assert_eq!(granted.len(), MAX as usize, "granted = max_bookings exactly");
    let held: BTreeSet<String> = store::held_claims(&pool, &p.thumb, "m").await.unwrap().into_iter().collect();
    assert_eq!(held, granted, "the table holds exactly the granted claims");
    assert_eq!(remaining(&pool, &p.thumb, "m").await, Some(0));
}

/// A trigger that fails the insert of any claim id containing `/boom-`, as
/// PostgreSQL refuses an input it cannot hold (a data exception, class 22): a
/// transaction that fails midway, after other claims of its batch were applied.
async fn booby_trap(pool: &PgPool) {
    // Tests set it at once: one at a time (two CREATE OR REPLACE of one
    // function at once collide in PostgreSQL's catalog).
    let mut tx = pool.begin().await.unwrap();
    sqlx::query("SELECT pg_advisory_xact_lock(7242)").execute(&mut *tx).await.unwrap();
    sqlx::query(
        "CREATE OR REPLACE FUNCTION test_batch_boom() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'a claim the test fails'; END $$",
    )
    .execute(&mut *tx)
    .await
    .unwrap();
    sqlx::query(
        "DO $$ BEGIN
           CREATE TRIGGER test_batch_boom BEFORE INSERT ON claims FOR EACH ROW
             WHEN (NEW.claim_id LIKE '%/boom-%') EXECUTE FUNCTION test_batch_boom();
         EXCEPTION WHEN duplicate_object THEN NULL; END $$",
    )
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

#[tokio::test]
async fn a_failing_batch_grants_none_of_its_claims() {
    let (pool, p) = (pool().await, Principal::ed25519());
    booby_trap(&pool).await;
    credential(&pool, &p.thumb, "m", 10, &[]).await;
    credential(&pool, &p.thumb, "n", 10, &[]).await;
    let before = snapshot(&pool, &p.thumb).await;
    // Credential m sorts first, so its claims are applied before n's fails.
    let claims = [
        queued(&p.thumb, "m", &format!("{MAPLE}/a")),
        queued(&p.thumb, "n", &format!("{MAPLE}/boom-1")),
        queued(&p.thumb, "m", &format!("{MAPLE}/b")),
    ];
    assert!(store::claim_batch(&pool, &claims).await.is_err());
    assert_eq!(snapshot(&pool, &p.thumb).await, before, "nothing of the batch was written");
    assert_eq!(remaining(&pool, &p.thumb, "m").await, Some(10));
}

/// Through the batcher: the claims that waited together while the first
/// batch was held at the row lock go as one transaction; one of them fails
/// it (claims of every namespace share a batch), and the others go again
/// alone and are answered as they would have been: only the failing one is
/// an error. The batcher goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_that_fails_its_batch_fails_alone() {
    let (pool, p) = (pool().await, Principal::ed25519());
    booby_trap(&pool).await;
    credential(&pool, &p.thumb, "m", 10, &[]).await;
    // The batcher's own connections, named so the test sees when they wait.
    let name = format!("batch-{}", &p.thumb[..12]);
    let batches = ClaimBatches::spawn(named_pool(&name).await, 1);
    let blocker = holding(&pool, &p.thumb, "m").await;
    let claim = |id: &str| {
        let (b, q) = (batches.clone(), queued(&p.thumb, "m", &format!("{MAPLE}/{id}")));
        tokio::spawn(async move { b.claim(q).await })
    };
    let first = claim("first");
    until("the first batch waits at the row lock", || async { waiting_on_a_lock(&pool, &name).await == 1 }).await;
    let rest: Vec<_> = ["x", "boom-2", "y", "z"].iter().map(|id| claim(id)).collect();
    until("the four claims wait for the next batch", || async { batches.waiting() == 4 }).await;
    blocker.rollback().await.unwrap();
    assert_eq!(first.await.unwrap().unwrap(), ClaimOutcome::Claimed { remaining: 9 });
    let mut answers = Vec::new();
    for r in rest {
        answers.push(r.await.unwrap());
    }
    assert!(matches!(answers[1], Err(ClaimError::BatchFailed(_))), "the failing claim: {answers:?}");
    // The four reached the batcher in whatever order their tasks ran: each of
    // the three took one unit of its own.
    let mut left: Vec<_> = [&answers[0], &answers[2], &answers[3]]
        .iter()
        .map(|a| match a {
            Ok(ClaimOutcome::Claimed { remaining }) => *remaining,
            other => panic!("the others are claimed alone: {other:?}"),
        })
        .collect();
    left.sort_unstable();
    assert_eq!(left, [6, 7, 8], "one unit each");
    let held: BTreeSet<String> = store::held_claims(&pool, &p.thumb, "m").await.unwrap().into_iter().collect();
    let expected: BTreeSet<String> = ["first", "x", "y", "z"].iter().map(|id| format!("{MAPLE}/{id}")).collect();
    assert_eq!(held, expected, "nothing of the failing claim is held");
    assert_eq!(remaining(&pool, &p.thumb, "m").await, Some(6));
    let after = claim("after").await.unwrap().unwrap();
    assert_eq!(after, ClaimOutcome::Claimed { remaining: 5 }, "the batcher goes on after a failed batch");
}

/// A pool whose connections name themselves `name` to PostgreSQL, so a test
/// sees when they wait.
async fn named_pool(name: &str) -> PgPool {
    let url = format!("{}?application_name={name}", database_url());
    store::connect(&url, &DbOptions { pool_size: 2, ..DbOptions::default() }).await.unwrap()
}

/// A transaction holding credential `jti`'s row lock, until it ends.
async fn holding(pool: &PgPool, thumb: &str, jti: &str) -> sqlx::Transaction<'static, sqlx::Postgres> {
    let mut tx = pool.begin().await.unwrap();
    sqlx::query("SELECT 1 FROM credentials WHERE thumb = $1 AND jti = $2 FOR UPDATE")
        .bind(thumb)
        .bind(jti)
        .execute(&mut *tx)
        .await
        .unwrap();
    tx
}

async fn waiting_on_a_lock(pool: &PgPool, name: &str) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'")
        .bind(name)
        .fetch_one(pool)
        .await
        .unwrap()
}

/// A signed claim that finds its claim id held already (taken unsigned, as a
/// hostile assistant that knows the hold can) holds that row from where it
/// finds it until its commit (migration 0008): an unsigned release sent
/// meanwhile waits, then finds the row its host's and is refused.
/// Before, the release could delete the row while the claim waited at its
/// credential's lock, and the host was answered `already_held` for a unit no
/// row held (one booking over the limit), or the two deadlocked.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_unsigned_release_cannot_take_the_row_a_signed_claim_found_held() {
    let (pool, p) = (pool().await, Principal::ed25519());
    credential(&pool, &p.thumb, "m", 2, &["maple-key"]).await;
    let id = format!("{MAPLE}/h_1");
    let first = store::claim_batch(&pool, &[queued(&p.thumb, "m", &id)]).await.unwrap();
    assert_eq!(first[0].as_ref().unwrap(), &ClaimOutcome::Claimed { remaining: 1 });

    let (host, agent) = (format!("host-{}", &p.thumb[..12]), format!("agent-{}", &p.thumb[..12]));
    let (host_pool, agent_pool) = (named_pool(&host).await, named_pool(&agent).await);
    // The credential's row held elsewhere, so the host's claim waits there,
    // past the step where it found its claim id.
    let blocker = holding(&pool, &p.thumb, "m").await;
    let claim = {
        let q = signed(queued(&p.thumb, "m", &id), "maple-key", "bm9uY2Utb2YtdGhlLWhvc3Q");
        tokio::spawn(async move { store::claim_batch(&host_pool, &[q]).await })
    };
    until("the host's claim waits at the credential", || async { waiting_on_a_lock(&pool, &host).await == 1 }).await;
    let release = {
        let (thumb, claim_id) = (p.thumb.clone(), ClaimId::parse(&id).unwrap());
        tokio::spawn(async move { store::release(&agent_pool, &thumb, "m", &claim_id, None, now()).await })
    };
    until("the release waits for the claim's row", || async { waiting_on_a_lock(&pool, &agent).await == 1 }).await;
    blocker.rollback().await.unwrap();
    let answered = claim.await.unwrap().unwrap();
    assert_eq!(answered[0].as_ref().unwrap(), &ClaimOutcome::AlreadyHeld { remaining: 1 });
    // It waited for the claim's commit and was refused: the row is its host's
    // now (and neither was made to give way to a deadlock).
    let released = release.await.unwrap();
    assert!(matches!(released, Err(ClaimError::Refused(ClaimRefusal::ClaimSignedByHost { .. }))), "{released:?}");
    assert_eq!(
        store::held_claims(&pool, &p.thumb, "m").await.unwrap(),
        std::slice::from_ref(&id),
        "the host's unit is held"
    );
    assert_eq!(remaining(&pool, &p.thumb, "m").await, Some(1), "and nothing was given back");
    // Its host's own release gives it back; the unsigned one gets nothing.
    let again = store::release(&pool, &p.thumb, "m", &ClaimId::parse(&id).unwrap(), None, now()).await;
    assert!(matches!(again, Err(ClaimError::Refused(ClaimRefusal::ClaimSignedByHost { .. }))), "{again:?}");
}

/// The batcher keeps connections of its own between batches, beside the pool
/// (crates/status/src/batch.rs), and sends a batch on one used moments ago
/// without a round trip. A connection the server dropped while it sat idle is
/// still found out before use, the batcher's as the pool's: the next claim
/// and the next read are answered, not failed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_the_server_dropped_while_idle_are_replaced_before_use() {
    let (pool, p) = (pool().await, Principal::ed25519());
    credential(&pool, &p.thumb, "m", 10, &[]).await;
    let name = format!("idle-{}", &p.thumb[..12]);
    let url = format!("{}?application_name={name}", database_url());
    let service_pool = store::connect(&url, &DbOptions { pool_size: 2, ..DbOptions::default() }).await.unwrap();
    let batches = ClaimBatches::spawn(service_pool.clone(), 1);
    let claim = |id: &str| batches.claim(queued(&p.thumb, "m", &format!("{MAPLE}/{id}")));
    assert_eq!(claim("a").await.unwrap(), ClaimOutcome::Claimed { remaining: 9 });
    assert_eq!(remaining(&service_pool, &p.thumb, "m").await, Some(9));
    let backends = || async {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1")
            .bind(&name)
            .fetch_one(&pool)
            .await
            .unwrap()
    };
    assert_eq!(backends().await, 2, "the batcher's kept connection and the pool's idle one");
    sqlx::query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1")
        .bind(&name)
        .execute(&pool)
        .await
        .unwrap();
    until("the server has dropped both", || async { backends().await == 0 }).await;
    tokio::time::sleep(store::PING_IDLE_AFTER + Duration::from_millis(100)).await;
    assert_eq!(claim("b").await.unwrap(), ClaimOutcome::Claimed { remaining: 8 }, "the batcher took a fresh one");
    assert_eq!(remaining(&service_pool, &p.thumb, "m").await, Some(8), "and so did the pool");
}

/// A connection is checked before use only once it has sat idle.
#[test]
fn only_a_connection_left_idle_is_checked_before_use() {
    assert!(!store::ping_before_use(Duration::ZERO));
    assert!(!store::ping_before_use(store::PING_IDLE_AFTER - Duration::from_millis(1)));
    assert!(store::ping_before_use(store::PING_IDLE_AFTER));
}

/// Polls `ready` until it holds; fails after many tries, never on a time.
async fn until<F: std::future::Future<Output = bool>>(what: &str, ready: impl Fn() -> F) {
    for _ in 0..2000 {
        if ready().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("never: {what}");
}

/// Repeats, a repeat after a refusal, refusals of several kinds and
/// credentials in one batch: each answered as single claims in the same
/// order are, and the same rows written.
#[tokio::test]
async fn duplicated_and_hostile_claims_in_one_batch_answer_as_single_claims_do() {
    let (pool, p) = (pool().await, Principal::ed25519());
    for jti in ["one", "batch"] {
        credential(&pool, &p.thumb, jti, 2, &[]).await;
        credential(&pool, &p.thumb, &format!("{jti}-revoked"), 2, &[]).await;
        store::revoke(&pool, &p.thumb, &Principal::update_jti(), now() + 600, &format!("{jti}-revoked"), now())
            .await
            .unwrap();
    }
    let ops = |jti: &str| -> Vec<QueuedClaim> {
        let revoked = format!("{jti}-revoked");
        [
            (jti, "maple-street-auto/a"),
            (jti, "maple-street-auto/a"),
            (jti, "oak-lane-garage/b"),
            ("no-such-credential", "maple-street-auto/a"),
            (jti, "elm-road-tyres/a"),
            (revoked.as_str(), "maple-street-auto/a"),
            (jti, "maple-street-auto/c"),
            (jti, "maple-street-auto/a"),
            (jti, "maple-street-auto/c"),
            (jti, "oak-lane-garage/b"),
        ]
        .iter()
        .map(|(j, id)| queued(&p.thumb, j, id))
        .collect()
    };
    let single = one_by_one(&pool, &ops("one")).await;
    let batched: Vec<String> = store::claim_batch(&pool, &ops("batch")).await.unwrap().iter().map(said).collect();
    assert_eq!(batched, single);
    let expected = [
        "Claimed { remaining: 1 }",
        "AlreadyHeld { remaining: 1 }",
        "Claimed { remaining: 0 }",
        "refused UnknownMandate",
        "refused HostNotInAudience { host: \"elm-road-tyres\" }",
        "refused Revoked",
        "refused NoneLeft { max_bookings: 2 }",
        "AlreadyHeld { remaining: 0 }",
        "refused NoneLeft { max_bookings: 2 }",
        "AlreadyHeld { remaining: 0 }",
    ];
    assert_eq!(batched, expected);
    assert_eq!(
        store::held_claims(&pool, &p.thumb, "batch").await.unwrap(),
        store::held_claims(&pool, &p.thumb, "one").await.unwrap()
    );
    assert_eq!(
        store::held_claims(&pool, &p.thumb, "batch").await.unwrap(),
        [MAPLE.to_owned() + "/a", OAK.to_owned() + "/b"]
    );
    assert!(store::held_claims(&pool, &p.thumb, "batch-revoked").await.unwrap().is_empty());
    // A claim names a credential the functions found; with no foreign key
    // to catch it (migration 0006), an unknown one leaves no row, alone or
    // batched.
    assert!(store::held_claims(&pool, &p.thumb, "no-such-credential").await.unwrap().is_empty());
}

/// One batch over several credentials of two namespaces, their claims
/// interleaved in an order that is not the credentials' sorted order (the
/// order the batch locks them in, migration 0007): each credential spends its
/// own units, exactly as single claims one after another do.
#[tokio::test]
async fn claims_on_several_credentials_interleaved_in_one_batch_each_spend_their_own_credential() {
    let pool = pool().await;
    let (p, q) = (Principal::ed25519(), Principal::ed25519());
    // Arrival order z, a, m over jtis whose sorted order is a, m, z, and two
    // namespaces, so a claim matched to the wrong credential shows.
    let creds = [(&q.thumb, "z", 1), (&p.thumb, "z", 3), (&p.thumb, "a", 1), (&p.thumb, "m", 2)];
    for run in ["one", "batch"] {
        for (thumb, jti, max) in creds {
            credential(&pool, thumb, &format!("{jti}-{run}"), max, &[]).await;
        }
    }
    let ops = |run: &str| -> Vec<QueuedClaim> {
        [
            (&p.thumb, "z", "maple-street-auto/1"),
            (&p.thumb, "a", "maple-street-auto/1"),
            (&q.thumb, "z", "maple-street-auto/1"),
            (&p.thumb, "m", "oak-lane-garage/1"),
            (&p.thumb, "a", "maple-street-auto/2"),
            (&q.thumb, "z", "oak-lane-garage/2"),
            (&p.thumb, "z", "oak-lane-garage/2"),
            (&p.thumb, "m", "maple-street-auto/2"),
            (&p.thumb, "m", "maple-street-auto/3"),
            (&p.thumb, "z", "maple-street-auto/1"),
        ]
        .iter()
        .map(|(thumb, jti, id)| queued(thumb, &format!("{jti}-{run}"), id))
        .collect()
    };
    let single = one_by_one(&pool, &ops("one")).await;
    let batched: Vec<String> = store::claim_batch(&pool, &ops("batch")).await.unwrap().iter().map(said).collect();
    assert_eq!(batched, single);
    assert_eq!(
        batched,
        [
            "Claimed { remaining: 2 }",
            "Claimed { remaining: 0 }",
            "Claimed { remaining: 0 }",
            "Claimed { remaining: 1 }",
            "refused NoneLeft { max_bookings: 1 }",
            "refused NoneLeft { max_bookings: 1 }",
            "Claimed { remaining: 1 }",
            "Claimed { remaining: 0 }",
            "refused NoneLeft { max_bookings: 2 }",
            "AlreadyHeld { remaining: 1 }",
        ]
    );
    for (thumb, jti, _) in creds {
        let (one, batch) = (format!("{jti}-one"), format!("{jti}-batch"));
        assert_eq!(remaining(&pool, thumb, &batch).await, remaining(&pool, thumb, &one).await, "{jti}");
        assert_eq!(
            store::held_claims(&pool, thumb, &batch).await.unwrap(),
            store::held_claims(&pool, thumb, &one).await.unwrap(),
            "{jti}"
        );
    }
    assert_eq!(remaining(&pool, &p.thumb, "z-batch").await, Some(1));
}

/// The function refuses arrays of a shape the service never sends (nested,
/// or not from index 1) rather than answering them out of step with their
/// claims, and writes nothing.
#[tokio::test]
async fn arrays_of_another_shape_are_refused_and_write_nothing() {
    let (pool, p) = (pool().await, Principal::ed25519());
    credential(&pool, &p.thumb, "shape", 2, &[]).await;
    for (thumbs, jtis) in [("[0:0]={T}", "[0:0]={shape}"), ("{{T}}", "{{shape}}"), ("[2:2]={T}", "{shape}")] {
        let thumbs = thumbs.replace('T', &p.thumb);
        let err = sqlx::query(
            "SELECT * FROM schcp_claim_batch($1::text[], $2::text[], '{maple-street-auto/a}', \
             '{maple-street-auto}', ARRAY[$3::bigint], '{NULL}', '{NULL}', '{NULL}')",
        )
        .bind(&thumbs)
        .bind(jtis)
        .bind(now())
        .fetch_all(&pool)
        .await
        .unwrap_err();
        assert!(err.to_string().contains("one dimension, from index 1"), "{thumbs}: {err}");
    }
    assert_eq!(remaining(&pool, &p.thumb, "shape").await, Some(2));
    assert!(store::held_claims(&pool, &p.thumb, "shape").await.unwrap().is_empty());
}

/// Signed claims: the same nonce twice in one batch is a replay the second
/// time, and a nonce spent before is one too, as for single claims; a claim
/// id claimed signed becomes its host's.
#[tokio::test]
async fn a_nonce_twice_in_one_batch_is_a_replay_as_it_is_alone() {
    let (pool, p) = (pool().await, Principal::ed25519());
    let key = format!("{}-maple-key", p.thumb);
    for jti in ["one", "batch"] {
        credential(&pool, &p.thumb, jti, 5, &[&key]).await;
    }
    let ops = |jti: &str| -> Vec<QueuedClaim> {
        let q = |id: &str| queued(&p.thumb, jti, &format!("{MAPLE}/{id}"));
        vec![
            signed(q("a"), &key, &format!("{jti}-n1")),
            signed(q("b"), &key, &format!("{jti}-n1")),
            q("c"),
            signed(q("c"), &key, &format!("{jti}-n2")),
            signed(q("d"), &key, &format!("{jti}-n2")),
        ]
    };
    let single = one_by_one(&pool, &ops("one")).await;
    let batched: Vec<String> = store::claim_batch(&pool, &ops("batch")).await.unwrap().iter().map(said).collect();
    assert_eq!(batched, single);
    assert_eq!(
        batched,
        [
            "Claimed { remaining: 4 }",
            "replayed",
            "Claimed { remaining: 3 }",
            "AlreadyHeld { remaining: 3 }",
            "replayed"
        ]
    );
    // A whole batch replayed: every nonce was spent by the batch above.
    let again: Vec<String> = store::claim_batch(&pool, &ops("batch")[..2]).await.unwrap().iter().map(said).collect();
    assert_eq!(again, ["replayed", "replayed"]);
    let signed_ids: Vec<String> = sqlx::query_scalar(
        "SELECT claim_id FROM claims WHERE thumb = $1 AND jti = 'batch' AND signed ORDER BY claim_id",
    )
    .bind(&p.thumb)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(signed_ids, [format!("{MAPLE}/a"), format!("{MAPLE}/c")], "claimed signed, now or held already");
}
