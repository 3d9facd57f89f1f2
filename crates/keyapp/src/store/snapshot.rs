//! The records as one file, for the encrypted backup (`recovery::backup`) and
//! back (`recovery::restore`): a consistent copy taken while the key app
//! writes, the schema version a copy was made at, and what a restore changes
//! in it before it becomes the new computer's records.

use super::{Store, StoreError, MIGRATOR};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection as _};
use std::path::Path;

/// The schema version this build writes: its newest migration.
pub fn current_schema_version() -> i64 {
    MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0)
}

/// Writes a consistent copy of the whole database to `path` (a file that does
/// not exist yet). `VACUUM INTO` reads inside one read transaction, so writes
/// that commit meanwhile are either wholly in the copy or wholly not, and it
/// blocks no writer (WAL).
pub async fn copy_into(store: &Store, path: &Path) -> Result<(), StoreError> {
    let target = path.to_str().ok_or_else(|| StoreError::Io {
        path: path.to_owned(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a UTF-8 path"),
    })?;
    sqlx::query("VACUUM INTO ?").bind(target).execute(store.pool()).await?;
    Ok(())
}

/// The schema version of the database file at `path`, read without changing
/// it (no migration runs): the newest migration applied there. A file that is
/// not a key app database is `Corrupt`.
pub async fn schema_version_of(path: &Path) -> Result<i64, StoreError> {
    // Not read-only: SQLite cannot open a WAL database read-only once its
    // `-shm` file is gone, and nothing here writes.
    let mut conn = SqliteConnectOptions::new().filename(path).connect().await?;
    let version: Result<Option<i64>, sqlx::Error> =
        sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations WHERE success = 1").fetch_one(&mut conn).await;
    conn.close().await?;
    match version {
        Ok(Some(v)) => Ok(v),
        Ok(None) => Err(super::corrupt(super::Stored::Database, "no migration was ever applied to it")),
        Err(sqlx::Error::Database(_)) => Err(super::corrupt(super::Stored::Database, "it is not a key app database")),
        Err(e) => Err(e.into()),
    }
}

/// SQLite's own check of every page and index: `true` when it finds nothing.
pub async fn is_intact(store: &Store) -> Result<bool, StoreError> {
    let found: Vec<String> = sqlx::query_scalar("PRAGMA integrity_check").fetch_all(store.pool()).await?;
    Ok(found == ["ok"])
}

/// What a restore changed in the records it brought back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Paused {
    /// Agents that were paired and are to be confirmed again.
    pub pairings: u64,
    /// Requests that were waiting for an answer, now withdrawn.
    pub requests: u64,
}

/// A restored computer's pairings are paused: each agent's key lived on the
/// old computer, so none is trusted until the person confirms it again (a new
/// pairing). Approved and pending pairings become `unpaired`, waiting
/// requests `withdrawn`, at `now`; one transaction.
pub async fn pause_pairings(store: &Store, now: i64) -> Result<Paused, StoreError> {
    let mut tx = store.begin_immediate().await?;
    let requests = sqlx::query("UPDATE requests SET status = 'withdrawn', decided_at = ? WHERE status = 'pending'")
        .bind(now)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    let pairings =
        sqlx::query("UPDATE agents SET status = 'unpaired', decided_at = ? WHERE status IN ('approved', 'pending')")
            .bind(now)
            .execute(&mut *tx)
            .await?
            .rows_affected();
    tx.commit().await?;
    Ok(Paused { pairings, requests })
}

/// Folds the write-ahead log into the database file and closes it, so the
/// one file can be moved into place on its own.
pub async fn close_for_move(store: Store) -> Result<(), StoreError> {
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(store.pool()).await?;
    store.pool().close().await;
    Ok(())
}

/// A database whose schema stops before migration `below` (a backup made by
/// an older key app), for tests.
#[cfg(test)]
pub(crate) async fn older_database(path: &Path, below: i64) {
    let options = SqliteConnectOptions::new().filename(path).create_if_missing(true);
    let mut conn = options.connect().await.unwrap();
    let before = sqlx::migrate::Migrator {
        migrations: std::borrow::Cow::Owned(MIGRATOR.iter().filter(|m| m.version < below).cloned().collect()),
        ignore_missing: false,
        locking: true,
        no_tx: false,
    };
    before.run(&mut conn).await.unwrap();
    conn.close().await.unwrap();
}

/// The database at `path` as it is, without migrating it, for tests.
#[cfg(test)]
pub(crate) async fn open_as_is(path: &Path) -> Store {
    let options = SqliteConnectOptions::new().filename(path);
    Store {
        pool: sqlx::sqlite::SqlitePoolOptions::new().connect_with(options).await.unwrap(),
        history_seal: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_copy_has_the_records_and_the_schema_version() {
        let (dir, store) = super::super::testing::store().await;
        sqlx::query("INSERT INTO contacts (principal, name) VALUES ('urn:x', 'Ellis')")
            .execute(store.pool())
            .await
            .unwrap();
        let copy = dir.path().join("copy.db");
        copy_into(&store, &copy).await.unwrap();
        assert_eq!(schema_version_of(&copy).await.unwrap(), current_schema_version());
        let back = Store::open(&copy).await.unwrap();
        let name: String = sqlx::query_scalar("SELECT name FROM contacts").fetch_one(back.pool()).await.unwrap();
        assert_eq!(name, "Ellis");
        assert!(is_intact(&back).await.unwrap());
        // A copy is never written over an existing file.
        assert!(copy_into(&store, &copy).await.is_err());
    }

    #[tokio::test]
    async fn a_file_that_is_not_a_key_app_database_has_no_schema_version() {
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("other.db");
        let mut conn = SqliteConnectOptions::new().filename(&other).create_if_missing(true).connect().await.unwrap();
        sqlx::query("CREATE TABLE t (x)").execute(&mut conn).await.unwrap();
        conn.close().await.unwrap();
        assert!(matches!(schema_version_of(&other).await, Err(StoreError::Corrupt(_))));
        let older = dir.path().join("older.db");
        older_database(&older, 9).await;
        assert_eq!(schema_version_of(&older).await.unwrap(), 8);
    }

    #[tokio::test]
    async fn pausing_unpairs_every_agent_and_withdraws_what_waited() {
        let (_dir, store) = super::super::testing::store().await;
        for (jkt, status) in [("a", "approved"), ("b", "pending"), ("c", "declined")] {
            sqlx::query(
                "INSERT INTO agents (jkt, jwk, name, pairing_id, fingerprint, status, created_at)
                 VALUES (?, '{}', 'A', ?, 'f', ?, 0)",
            )
            .bind(jkt)
            .bind(format!("pr_{jkt}"))
            .bind(status)
            .execute(store.pool())
            .await
            .unwrap();
        }
        let paused = pause_pairings(&store, 77).await.unwrap();
        assert_eq!(paused, Paused { pairings: 2, requests: 0 });
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT jkt, status FROM agents ORDER BY jkt").fetch_all(store.pool()).await.unwrap();
        assert_eq!(
            rows,
            [("a".into(), "unpaired".into()), ("b".into(), "unpaired".into()), ("c".into(), "declined".into())]
        );
    }
}
