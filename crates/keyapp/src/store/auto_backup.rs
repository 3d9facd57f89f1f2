//! The daily backup chosen in the window (migration 0019), kept in the
//! records when there is no config file to write it to (recovery::custody).

use super::{Store, StoreError};
use crate::recovery::schedule::AutoBackup;
use std::path::PathBuf;

/// The choice kept, if the person made one.
pub async fn chosen(store: &Store) -> Result<Option<AutoBackup>, StoreError> {
    let row: Option<(Option<String>, i64)> =
        sqlx::query_as("SELECT folder, keep FROM auto_backup WHERE id = 1").fetch_optional(store.pool()).await?;
    Ok(row.map(|(folder, keep)| AutoBackup {
        folder: folder.map(PathBuf::from),
        keep: usize::try_from(keep).unwrap_or(1).max(1),
    }))
}

/// Keeps `choice`, replacing any before it.
pub async fn choose(store: &Store, choice: &AutoBackup) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO auto_backup (id, folder, keep) VALUES (1, ?, ?)
         ON CONFLICT (id) DO UPDATE SET folder = excluded.folder, keep = excluded.keep",
    )
    .bind(choice.folder.as_deref().map(|p| p.to_string_lossy().into_owned()))
    .bind(i64::try_from(choice.keep).unwrap_or(i64::MAX))
    .execute(store.pool())
    .await?;
    Ok(())
}
