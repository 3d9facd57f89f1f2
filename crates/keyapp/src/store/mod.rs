//! Records in SQLite: one database under `data_dir`, WAL,
//! migrations in `crates/keyapp/migrations`. Every state change is one
//! transaction, so a crash at any point leaves nothing half made.

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use std::path::Path;
use std::time::Duration;

pub mod agents;
pub mod attention;
pub mod attestations;
pub mod booking_claims;
pub mod bookings;
/// The booking-claim ledger's former path, for callers outside the workspace.
#[doc(hidden)]
pub use booking_claims as claims;
pub mod auto_backup;
pub mod contacts;
pub mod credentials;
pub mod history;
pub mod host_bindings;
pub mod management_links;
pub mod meetings;
pub mod outbox;
pub mod pairings;
pub mod principal;
pub mod receipts;
pub mod requests;
pub mod search_folds;
pub mod snapshot;
pub mod status_address;

/// A connection inside a caller's transaction: store functions that write one
/// part of a larger state change take one, so the whole change commits or
/// none of it does.
pub type Connection = sqlx::SqliteConnection;

/// A transaction a caller holds across several store calls ([`Store::begin`]).
pub type Transaction = sqlx::Transaction<'static, sqlx::Sqlite>;

/// Why the records could not be read or written. A busy database is told
/// apart from a broken one: the first is worth a retry, the second is not.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Another writer held the database past the busy timeout (SQLITE_BUSY,
    /// SQLITE_LOCKED); nothing was written, and the same call may succeed later.
    #[error("the database is busy; try again")]
    Busy(#[source] sqlx::Error),
    #[error("database: {0}")]
    Sql(#[source] sqlx::Error),
    #[error("database migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A stored value is not one the key app writes (a status, a kind, JSON).
    #[error("stored record is corrupt: {0}")]
    Corrupt(Corruption),
    /// A sealed record (`record_seal`) whose seal does not hold: written or
    /// changed outside the key app. Refused, never shown or signed from.
    #[error("stored record was written or changed outside the key app: {0}")]
    Tampered(Corruption),
    #[error("{path}: {source}")]
    Io { path: std::path::PathBuf, source: std::io::Error },
}

/// Which of the person's records holds a value the key app did not write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stored {
    /// An agent's request: its status, kind, stored input or result.
    Request,
    /// A pairing: its status or the peer it was made from.
    Pairing,
    /// A history entry.
    History,
    /// An issued credential.
    Credential,
    /// The shared booking limit's claims (SchCP §3.3).
    BookingClaim,
    /// A meeting contract's record (SchCP §5.12).
    Meeting,
    /// The hosted status service's outbox.
    Outbox,
    /// A management mandate's link to its booking (SchCP §3.3 "Renewal").
    ManagementLink,
    /// Where a host id was verified (SchCP §2.2).
    HostBinding,
    /// The callouts shown beside a request's consent text.
    Attention,
    /// A host-signed receipt the key app verified and kept (SchCP §5.3).
    Receipt,
    /// The records' database as a whole (a backup's, or one being restored).
    Database,
}

impl Stored {
    /// Every record, for the tests that each has words.
    pub const ALL: [Stored; 12] = [
        Stored::Request,
        Stored::Pairing,
        Stored::History,
        Stored::Credential,
        Stored::BookingClaim,
        Stored::Meeting,
        Stored::Outbox,
        Stored::ManagementLink,
        Stored::HostBinding,
        Stored::Attention,
        Stored::Receipt,
        Stored::Database,
    ];
}

/// A stored value the key app cannot read back (or could not write): which
/// record, and what about it, for the log and the agent's `internal_error`
/// message (which says `detail` alone, as before records were typed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{detail}")]
pub struct Corruption {
    pub what: Stored,
    pub detail: String,
}

impl StoreError {
    /// A value of record `what` that is not one the key app writes.
    pub fn corrupt(what: Stored, detail: impl std::fmt::Display) -> StoreError {
        StoreError::Corrupt(Corruption { what, detail: detail.to_string() })
    }

    /// A sealed record of `what` whose seal does not hold.
    pub fn tampered(what: Stored, detail: impl std::fmt::Display) -> StoreError {
        StoreError::Tampered(Corruption { what, detail: detail.to_string() })
    }

    /// Whether a value read could not be decoded as the type the key app
    /// writes (another program wrote it), as opposed to the database failing.
    pub fn is_unreadable_value(&self) -> bool {
        matches!(self, StoreError::Sql(sqlx::Error::ColumnDecode { .. } | sqlx::Error::Decode(_)))
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        // SQLite's primary result codes 5 (BUSY) and 6 (LOCKED); extended codes
        // keep the primary code in their low byte.
        let busy = matches!(&e, sqlx::Error::Database(d)
            if d.code().and_then(|c| c.parse::<i64>().ok()).is_some_and(|c| matches!(c & 0xff, 5 | 6)))
            || matches!(e, sqlx::Error::PoolTimedOut);
        if busy {
            StoreError::Busy(e)
        } else {
            StoreError::Sql(e)
        }
    }
}

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// The key app's database.
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
    history_seal: HistorySeal,
}

/// The seal history entries are written with (record_seal), once the
/// service that owns the store has made it from the principal's key: every
/// entry is written inside the transaction of the change it tells of, from
/// many places of the store, so the store seals it as it writes it. Until
/// set (a store opened on its own), entries are written without one.
#[derive(Clone, Default)]
struct HistorySeal(std::sync::Arc<std::sync::OnceLock<crate::record_seal::RecordSeal>>);

impl std::fmt::Debug for HistorySeal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() { "HistorySeal(set)" } else { "HistorySeal(unset)" })
    }
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// The file is made 0600 before SQLite opens it, so its `-wal` and `-shm`
    /// files (SQLite gives them the database's mode) are 0600 too: they hold the
    /// person's history, contacts and credentials.
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        crate::private_files::ensure_file(path).map_err(|source| StoreError::Io { path: path.to_owned(), source })?;
        for suffix in ["-wal", "-shm"] {
            let mut side = path.as_os_str().to_owned();
            side.push(suffix);
            match crate::private_files::restrict(Path::new(&side)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(StoreError::Io { path: side.into(), source: e })
                }
                _ => {}
            }
        }
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // FULL: an acknowledged write (a claimed unit, an issued credential)
            // survives a crash of the process and of the machine.
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        // No ping before a pooled connection is handed out: a connection to a local
        // file cannot go stale as a server's can, and the ping is one more round
        // trip to sqlx's worker thread before every read (docs/benchmarks.md).
        let pool = SqlitePoolOptions::new().max_connections(8).test_before_acquire(false).connect_with(options).await?;
        MIGRATOR.run(&pool).await?;
        let store = Store { pool, history_seal: HistorySeal::default() };
        search_folds::fill(&store).await?;
        Ok(store)
    }

    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// Seals every history entry written from now on with `seal`; the first
    /// seal given stays.
    pub fn seal_history_with(&self, seal: crate::record_seal::RecordSeal) {
        let _ = self.history_seal.0.set(seal);
    }

    /// The seal history entries are written with, once set.
    pub fn history_seal(&self) -> Option<&crate::record_seal::RecordSeal> {
        self.history_seal.0.get()
    }

    /// A transaction for a state change that only writes.
    pub async fn begin(&self) -> Result<Transaction, StoreError> {
        Ok(self.pool.begin().await?)
    }

    /// A transaction for a state change that reads, then writes: IMMEDIATE
    /// takes the write lock at once, where a deferred one would meet another
    /// writer at its upgrade with SQLITE_BUSY, past the busy timeout.
    pub async fn begin_immediate(&self) -> Result<Transaction, StoreError> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }
}

/// A stored value of record `what` that is not one the key app writes.
pub(crate) fn corrupt(what: Stored, detail: impl std::fmt::Display) -> StoreError {
    StoreError::corrupt(what, detail)
}

#[cfg(test)]
pub(crate) mod testing {
    //! A fresh database for unit tests, and a way to store what the key app
    //! never writes.

    use super::Store;

    /// A fresh database in a temporary directory (kept while the guard lives).
    pub(crate) async fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("keyapp.db")).await.unwrap();
        (dir, store)
    }

    /// Runs `sql` with the schema's CHECK constraints off: a record as a bug,
    /// an older build or a hand edit could leave it.
    pub(crate) async fn write_unchecked(store: &Store, sql: &str) {
        let mut conn = store.pool().acquire().await.unwrap();
        sqlx::query("PRAGMA ignore_check_constraints = ON").execute(&mut *conn).await.unwrap();
        sqlx::query(sql).execute(&mut *conn).await.unwrap();
        sqlx::query("PRAGMA ignore_check_constraints = OFF").execute(&mut *conn).await.unwrap();
    }

    /// An agent paired at time 0 with pairing id `pr_{jkt}`, written without
    /// the history entries a pairing adds, for tests that count those.
    pub(crate) async fn paired_agent(store: &Store, jkt: &str, name: &str, fingerprint: &str) {
        sqlx::query(
            "INSERT INTO agents (jkt, jwk, name, pairing_id, fingerprint, status, created_at)
             VALUES (?, '{}', ?, ?, ?, 'approved', 0)",
        )
        .bind(jkt)
        .bind(name)
        .bind(format!("pr_{jkt}"))
        .bind(fingerprint)
        .execute(store.pool())
        .await
        .unwrap();
    }

    /// A contact written straight into any connection or open transaction:
    /// the records a backup or a restore is tested with.
    pub(crate) async fn contact<'e>(conn: impl sqlx::SqliteExecutor<'e>, principal: &str, name: &str) {
        sqlx::query("INSERT INTO contacts (principal, name) VALUES (?, ?)")
            .bind(principal)
            .bind(name)
            .execute(conn)
            .await
            .unwrap();
    }

    /// The contacts' names, as stored.
    pub(crate) async fn contact_names(store: &Store) -> Vec<String> {
        sqlx::query_scalar("SELECT name FROM contacts ORDER BY principal").fetch_all(store.pool()).await.unwrap()
    }

    /// How many contacts' principals begin with `prefix`.
    pub(crate) async fn contacts_prefixed(store: &Store, prefix: &str) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM contacts WHERE substr(principal, 1, length(?1)) = ?1")
            .bind(prefix)
            .fetch_one(store.pool())
            .await
            .unwrap()
    }

    /// The agents' statuses, as stored.
    pub(crate) async fn agent_statuses(store: &Store) -> Vec<String> {
        sqlx::query_scalar("SELECT status FROM agents ORDER BY jkt").fetch_all(store.pool()).await.unwrap()
    }

    /// Marks the records as migrated by a newer key app, to schema `version`.
    pub(crate) async fn migrated_by_newer(store: &Store, version: i64) {
        sqlx::query(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
             VALUES (?, 'from a newer key app', 1, X'00', 0)",
        )
        .bind(version)
        .execute(store.pool())
        .await
        .unwrap();
    }

    /// A credential of `kind` issued to `agent` at `1_792_000_000 + n`, valid an
    /// hour from then, with a status URL and no shared limit.
    pub(crate) fn credential(
        n: i64,
        jti: &str,
        kind: crate::kind::RequestKind,
        agent: &str,
    ) -> super::credentials::CredentialRecord {
        const T0: i64 = 1_792_000_000;
        super::credentials::CredentialRecord {
            jti: jti.into(),
            kind,
            agent_jkt: Some(agent.into()),
            request_id: None,
            aud: if kind.has_audience() { vec!["maple-street-auto".into()] } else { Vec::new() },
            scope: vec![],
            iat: T0 + n,
            exp: T0 + 3600,
            compact: "x.y.z".into(),
            status_url: Some(format!("https://status.example/status/T/{jti}")),
            max_bookings: None,
            shared_limit: false,
            booking_id: None,
            host_keys: Default::default(),
        }
    }

    /// A busy database's error, as a refusal's tests need one.
    pub(crate) fn busy() -> super::StoreError {
        super::StoreError::Busy(sqlx::Error::PoolTimedOut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn opens_migrates_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keyapp.db");
        let store = Store::open(&path).await.unwrap();
        sqlx::query("INSERT INTO contacts (principal, name) VALUES ('urn:x', 'Ellis')")
            .execute(store.pool())
            .await
            .unwrap();
        drop(store);
        let again = Store::open(&path).await.unwrap();
        let (name,): (String,) = sqlx::query_as("SELECT name FROM contacts WHERE principal = 'urn:x'")
            .fetch_one(again.pool())
            .await
            .unwrap();
        assert_eq!(name, "Ellis");
        let (mode,): (String,) = sqlx::query_as("PRAGMA journal_mode").fetch_one(again.pool()).await.unwrap();
        assert_eq!(mode, "wal");
    }

    /// Records at `path` as the migrations before `version` left them: what
    /// an older key app wrote, for a migration's test to fill and reopen.
    async fn migrated_below(path: &std::path::Path, version: i64) -> sqlx::SqlitePool {
        let options = SqliteConnectOptions::new().filename(path).create_if_missing(true);
        let pool = SqlitePoolOptions::new().max_connections(1).connect_with(options).await.unwrap();
        let before = sqlx::migrate::Migrator {
            migrations: std::borrow::Cow::Owned(MIGRATOR.iter().filter(|m| m.version < version).cloned().collect()),
            ignore_missing: false,
            locking: true,
            no_tx: false,
        };
        before.run(&pool).await.unwrap();
        pool
    }

    #[tokio::test]
    async fn requests_answered_before_decision_seq_are_numbered_in_the_order_they_were_read() {
        // Migration 0009 on a database of migration 0007: answered requests get
        // decision_seq by (decided_at, created_at), pending ones none; every
        // later decision, one by one or in a batch, takes the next number.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keyapp.db");
        let pool = migrated_below(&path, 9).await;
        sqlx::query("INSERT INTO agents VALUES ('j', '{}', 'A', 'pr_1', 'f', 'approved', 0, 0)")
            .execute(&pool)
            .await
            .unwrap();
        for (id, status, created, decided) in
            [("a", "declined", 1, Some(5)), ("b", "approved", 2, Some(5)), ("c", "expired", 0, Some(3))]
                .into_iter()
                .chain([("d", "pending", 4, None), ("e", "pending", 6, None), ("f", "pending", 7, None)])
        {
            sqlx::query(
                "INSERT INTO requests (request_id, agent_jkt, kind, idempotency_key, body_sha256, status,
                                       consent_text, input, created_at, expires_at, decided_at)
                 VALUES (?, 'j', 'rule', ?, 'h', ?, 't', '{}', ?, 10, ?)",
            )
            .bind(id)
            .bind(id)
            .bind(status)
            .bind(created)
            .bind(decided)
            .execute(&pool)
            .await
            .unwrap();
        }
        pool.close().await;
        let store = Store::open(&path).await.unwrap();
        let seqs = |store: Store| async move {
            let rows: Vec<(String, Option<i64>)> =
                sqlx::query_as("SELECT request_id, decision_seq FROM requests ORDER BY request_id")
                    .fetch_all(store.pool())
                    .await
                    .unwrap();
            rows
        };
        let some = |v: &[(&str, Option<i64>)]| v.iter().map(|(i, s)| (i.to_string(), *s)).collect::<Vec<_>>();
        assert_eq!(
            seqs(store.clone()).await,
            some(&[("a", Some(2)), ("b", Some(3)), ("c", Some(1)), ("d", None), ("e", None), ("f", None)])
        );
        sqlx::query("UPDATE requests SET status = 'declined', decided_at = 5 WHERE request_id = 'f'")
            .execute(store.pool())
            .await
            .unwrap();
        sqlx::query("UPDATE requests SET status = 'expired', decided_at = expires_at WHERE status = 'pending'")
            .execute(store.pool())
            .await
            .unwrap();
        let after = seqs(store.clone()).await;
        assert_eq!(after[5], ("f".to_string(), Some(4)));
        let mut batch: Vec<i64> = after[3..5].iter().map(|(_, s)| s.unwrap()).collect();
        batch.sort();
        assert_eq!(batch, [5, 6], "a batch of decisions is numbered one by one: {after:?}");
        // A request that stays pending, or is written again, keeps its number.
        sqlx::query("UPDATE requests SET result = '{}' WHERE request_id = 'a'").execute(store.pool()).await.unwrap();
        assert_eq!(seqs(store).await[0], ("a".to_string(), Some(2)));
    }

    #[tokio::test]
    async fn migration_0021_names_bound_hosts_from_the_terms_their_requests_kept() {
        // Records of migration 0020: three bound hosts. Maple's newest request
        // at its bound place kept the name; an older one and one elsewhere (a
        // look-alike, never accepted) kept others. Smile's only request kept
        // no terms; Elm's kept its id (no name) and a request naming two hosts.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keyapp.db");
        let pool = migrated_below(&path, 21).await;
        sqlx::query(
            "INSERT INTO agents (jkt, jwk, name, pairing_id, fingerprint, status, created_at)
             VALUES ('j', '{}', 'A', 'pr_1', 'f', 'approved', 0)",
        )
        .execute(&pool)
        .await
        .unwrap();
        for (host, domain) in
            [("maple", "maple.example"), ("smile", "smile.example"), ("elm", "elm.example"), ("oak", "oak.example")]
        {
            sqlx::query("INSERT INTO host_bindings VALUES (?, ?, 'own_domain', 0, 0)")
                .bind(host)
                .bind(domain)
                .execute(&pool)
                .await
                .unwrap();
        }
        let place = |host: &str, domain: &str| {
            format!(r#"{{"host_id":"{host}","domain":"{domain}","basis":"own_domain","key_thumbprints":[]}}"#)
        };
        let rows = [
            ("r1", 1, format!("[{}]", place("maple", "maple.example")), Some(r#"{"host":"Maple (old)","lines":[]}"#)),
            (
                "r2",
                3,
                format!("[{}]", place("maple", "maple.example")),
                Some(r#"{"host":"Maple Street Auto","lines":[]}"#),
            ),
            ("r3", 4, format!("[{}]", place("maple", "mapel.example")), Some(r#"{"host":"Look-alike","lines":[]}"#)),
            ("r4", 2, format!("[{}]", place("smile", "smile.example")), None),
            ("r5", 2, format!("[{}]", place("elm", "elm.example")), Some(r#"{"host":"elm","lines":[]}"#)),
            (
                "r6",
                5,
                format!("[{},{}]", place("elm", "elm.example"), place("oak", "oak.example")),
                Some(r#"{"host":"Two hosts","lines":[]}"#),
            ),
        ];
        for (id, created, hosts, terms) in rows {
            sqlx::query(
                "INSERT INTO requests (request_id, agent_jkt, kind, idempotency_key, body_sha256, status,
                                       consent_text, input, created_at, expires_at, hosts, terms)
                 VALUES (?, 'j', 'closed_mandate', ?, 'h', 'approved', 't', '{}', ?, 10, ?, ?)",
            )
            .bind(id)
            .bind(id)
            .bind(created)
            .bind(hosts)
            .bind(terms)
            .execute(&pool)
            .await
            .unwrap();
        }
        pool.close().await;
        let store = Store::open(&path).await.unwrap();
        let names: Vec<(String, Option<String>)> =
            sqlx::query_as("SELECT host_id, name FROM host_bindings ORDER BY host_id")
                .fetch_all(store.pool())
                .await
                .unwrap();
        let want = |v: &[(&str, Option<&str>)]| {
            v.iter().map(|(h, n)| (h.to_string(), n.map(str::to_owned))).collect::<Vec<_>>()
        };
        assert_eq!(names, want(&[("elm", None), ("maple", Some("Maple Street Auto")), ("oak", None), ("smile", None)]));
    }

    #[tokio::test]
    async fn a_busy_database_is_told_apart_from_other_failures() {
        use sqlx::Connection;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keyapp.db");
        let store = Store::open(&path).await.unwrap();
        let mut holder = store.pool().acquire().await.unwrap();
        sqlx::query("BEGIN IMMEDIATE").execute(&mut *holder).await.unwrap();
        // A second writer that will not wait: SQLITE_BUSY at once.
        let options = SqliteConnectOptions::new().filename(&path).busy_timeout(Duration::ZERO);
        let mut other = sqlx::SqliteConnection::connect_with(&options).await.unwrap();
        let busy = sqlx::query("BEGIN IMMEDIATE").execute(&mut other).await.unwrap_err();
        assert!(matches!(StoreError::from(busy), StoreError::Busy(_)));
        sqlx::query("ROLLBACK").execute(&mut *holder).await.unwrap();

        sqlx::query("INSERT INTO contacts (principal, name) VALUES ('urn:x', 'Ellis')")
            .execute(store.pool())
            .await
            .unwrap();
        let duplicate = sqlx::query("INSERT INTO contacts (principal, name) VALUES ('urn:x', 'Ellis')")
            .execute(store.pool())
            .await
            .unwrap_err();
        assert!(matches!(StoreError::from(duplicate), StoreError::Sql(_)));
    }

    fn mode(p: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[tokio::test]
    async fn the_database_and_its_wal_files_are_the_owners_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keyapp.db");
        let side = |s: &str| dir.path().join(format!("keyapp.db{s}"));
        let store = Store::open(&path).await.unwrap();
        sqlx::query("INSERT INTO contacts (principal, name) VALUES ('urn:x', 'Ellis')")
            .execute(store.pool())
            .await
            .unwrap();
        assert!(side("-wal").exists() && side("-shm").exists(), "SQLite made its WAL files");
        assert_eq!((mode(&path), mode(&side("-wal")), mode(&side("-shm"))), (0o600, 0o600, 0o600));
        drop(store);
        // Left 0644 by an older version: tightened on open.
        for p in [path.clone(), side("-wal"), side("-shm")] {
            if p.exists() {
                std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
            }
        }
        let again = Store::open(&path).await.unwrap();
        sqlx::query("INSERT INTO contacts (principal, name) VALUES ('urn:y', 'Sam')")
            .execute(again.pool())
            .await
            .unwrap();
        assert_eq!((mode(&path), mode(&side("-wal")), mode(&side("-shm"))), (0o600, 0o600, 0o600));
    }
}
