//! What the schcp-status tests share: the database (a real PostgreSQL, from
//! `DATABASE_URL`; scripts/with-postgres starts a throwaway one), principals
//! that sign updates, in-process and spawned servers, and HTTP helpers (those
//! the key app's suites use too are testkit's).
#![allow(dead_code)]

use ed25519_dalek::SigningKey;
use reqwest::{Client, StatusCode};
use schcp::jws::Signer;
use schcp::status_update::{self, Operation, Registration};
use schcp_status::service::{self, ServiceState};
use schcp_status::store::{self, DbOptions, MIGRATOR};
use sqlx::PgPool;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use testkit::status_process::StatusProcess;
use tokio::net::TcpListener;

#[allow(unused_imports)] // each test binary uses its own subset
pub(crate) use testkit::{
    now,
    status::{answer, client},
};

/// The database under test. Missing `DATABASE_URL` is a failure, never a skip:
/// these tests are the proof that the claim is exact on PostgreSQL.
pub(crate) fn database_url() -> String {
    match std::env::var("DATABASE_URL") {
        Ok(u) if !u.is_empty() => u,
        _ => panic!(
            "DATABASE_URL is not set: the schcp-status tests need a real PostgreSQL. \
             Run them under scripts/with-postgres (scripts/test does), e.g. \
             `scripts/with-postgres cargo test -p schcp-status`"
        ),
    }
}

/// A pool on the test database, migrated (concurrent runs are serialised by
/// sqlx's advisory lock).
pub(crate) async fn pool() -> PgPool {
    let pool = store::connect(&database_url(), &DbOptions { pool_size: 8, ..DbOptions::default() }).await.unwrap();
    MIGRATOR.run(&pool).await.unwrap();
    pool
}

/// A principal with its own namespace: every test gets a fresh key, so tests
/// sharing one database never see each other's rows.
pub(crate) struct Principal {
    pub(crate) key: Box<dyn Signer + Send + Sync>,
    pub(crate) thumb: String,
}

static UPDATES: AtomicU64 = AtomicU64::new(0);

impl Principal {
    pub(crate) fn ed25519() -> Principal {
        Principal::from(Box::new(SigningKey::generate(&mut rand_core::OsRng)))
    }

    pub(crate) fn es256() -> Principal {
        Principal::from(Box::new(p256::ecdsa::SigningKey::random(&mut rand_core::OsRng)))
    }

    fn from(key: Box<dyn Signer + Send + Sync>) -> Principal {
        let thumb = key.public_key().to_jwk().thumbprint().unwrap();
        Principal { key, thumb }
    }

    /// A fresh update jti each call.
    pub(crate) fn update_jti() -> String {
        format!("u-{}-{}", std::process::id(), UPDATES.fetch_add(1, Ordering::Relaxed))
    }

    pub(crate) fn update(&self, op: &Operation) -> String {
        self.update_at(now(), &Principal::update_jti(), op)
    }

    pub(crate) fn update_at(&self, iat: i64, jti: &str, op: &Operation) -> String {
        status_update::sign(self.key.as_ref(), iat, jti, op).unwrap()
    }
}

pub(crate) fn registration(jti: &str, aud: &[&str], max: Option<u32>, shared: bool, exp: i64) -> Operation {
    Operation::Register(Registration {
        jti: jti.into(),
        exp,
        aud: aud.iter().map(|s| s.to_string()).collect(),
        max_bookings: max,
        shared_limit: shared,
        host_keys: Default::default(),
    })
}

pub(crate) fn revocation(jti: &str) -> Operation {
    Operation::Revoke { jti: jti.into() }
}

/// Every credential of the namespace registered at or before `before`.
pub(crate) fn revoke_all(before: i64) -> Operation {
    Operation::RevokeAll { before }
}

/// schcp-status served in this process on a loopback port.
pub(crate) struct InProcess {
    pub(crate) addr: SocketAddr,
    pub(crate) pool: PgPool,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Drop for InProcess {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl InProcess {
    /// The service with its rate limit off: the suites are one client address.
    pub(crate) async fn unlimited() -> InProcess {
        Self::start(keyapp::status_api::StatusOptions { rate_limit: None, ..Default::default() }).await
    }

    /// Publishes `compact` as `p` and expects a refusal with this status and
    /// reason, the namespace's rows unchanged.
    pub(crate) async fn refuses(&self, p: &Principal, compact: String, want: (StatusCode, &str)) {
        let before = snapshot(&self.pool, &p.thumb).await;
        let (st, _, reason) = refusal(publish(&client(), &self.base(), &p.thumb, compact).await).await;
        assert_eq!((st, reason.as_str()), want);
        assert_eq!(snapshot(&self.pool, &p.thumb).await, before, "a refusal wrote something");
    }

    pub(crate) async fn start(options: keyapp::status_api::StatusOptions) -> InProcess {
        Self::start_with(options, Default::default()).await
    }

    /// The same, with `policy` deciding who may publish and how much.
    pub(crate) async fn start_with(
        options: keyapp::status_api::StatusOptions,
        policy: schcp_status::service::NamespacePolicy,
    ) -> InProcess {
        let pool = pool().await;
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state = ServiceState::new(pool.clone(), options).with_namespaces(policy);
        let task = tokio::spawn(service::serve(listener, state));
        InProcess { addr, pool, task }
    }

    pub(crate) fn base(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// Starts a `schcp-status serve` process (the real binary) with the rate limit
/// off (the storm is one client address) and `pool_size` connections.
pub(crate) fn spawn(pool_size: u32) -> StatusProcess {
    let config = format!("rate_per_second = 0\npool_size = {pool_size}\n");
    StatusProcess::spawn(Path::new(env!("CARGO_BIN_EXE_schcp-status")), &database_url(), "127.0.0.1:0", Some(&config))
}

/// A refusal's status, code and reason, after checking the §9 shape.
pub(crate) async fn refusal(r: reqwest::Response) -> (StatusCode, String, String) {
    let (status, code, reason, _) = testkit::status::refusal(r).await;
    (status, code, reason)
}

/// Publishes an update to `base`.
pub(crate) async fn publish(c: &Client, base: &str, thumb: &str, compact: String) -> reqwest::Response {
    c.post(format!("{base}/status/{thumb}"))
        .header("content-type", "application/jose")
        .body(compact)
        .send()
        .await
        .unwrap()
}

/// Everything the database holds in one namespace, as text: what "nothing
/// written" compares.
pub(crate) async fn snapshot(pool: &PgPool, thumb: &str) -> Vec<String> {
    let mut rows: Vec<String> = sqlx::query_scalar(
        "SELECT 'c ' || row_to_json(c)::text FROM credentials c WHERE thumb = $1
         UNION ALL SELECT 'h ' || row_to_json(h)::text FROM claims h WHERE thumb = $1
         UNION ALL SELECT 's ' || row_to_json(s)::text FROM seen_updates s WHERE thumb = $1
         UNION ALL SELECT 'r ' || row_to_json(r)::text FROM namespace_revocations r WHERE thumb = $1",
    )
    .bind(thumb)
    .fetch_all(pool)
    .await
    .unwrap();
    rows.sort();
    rows
}
