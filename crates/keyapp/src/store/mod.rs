//! Records in SQLite (DESIGN.md "Records"): one database under `data_dir`, WAL,
//! migrations in `crates/keyapp/migrations`. Every state change is one
//! transaction, so a crash at any point leaves nothing half made.

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use std::path::Path;
use std::time::Duration;

pub mod limits;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    #[error("database: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("database migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("stored record is corrupt: {0}")]
    Corrupt(String),
}

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// The key app's database.
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // FULL: an acknowledged write (a claimed unit, an issued credential)
            // survives a crash of the process and of the machine.
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        let pool = SqlitePoolOptions::new().max_connections(8).connect_with(options).await?;
        MIGRATOR.run(&pool).await?;
        Ok(Store { pool })
    }

    pub fn pool(&self) -> &SqlitePool {
        &self.pool
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
}
