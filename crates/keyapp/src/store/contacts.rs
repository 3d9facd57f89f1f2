//! The person's contacts (§5.12): principal → the name they know them by,
//! which consent texts use for the people they name. Each change is one
//! transaction with its history entry.

use super::{Store, StoreError};

/// Appends a contact change to the history, inside its transaction.
async fn noted(
    conn: &mut sqlx::SqliteConnection,
    at: i64,
    event: &str,
    principal: &str,
    detail: &str,
) -> Result<(), StoreError> {
    sqlx::query("INSERT INTO history (at, event, subject, detail) VALUES (?, ?, ?, ?)")
        .bind(at)
        .bind(event)
        .bind(principal)
        .bind(detail)
        .execute(conn)
        .await?;
    Ok(())
}

/// Renames contact `principal`. `false`: no such contact, nothing written.
pub async fn rename(store: &Store, principal: &str, name: &str, now: i64) -> Result<bool, StoreError> {
    let mut tx = store.pool().begin().await?;
    let done = sqlx::query("UPDATE contacts SET name = ? WHERE principal = ?")
        .bind(name)
        .bind(principal)
        .execute(&mut *tx)
        .await?;
    if done.rows_affected() == 0 {
        return Ok(false);
    }
    noted(&mut tx, now, "contact_renamed", principal, name).await?;
    tx.commit().await?;
    Ok(true)
}

/// Removes contact `principal`. `false`: no such contact, nothing written.
pub async fn remove(store: &Store, principal: &str, now: i64) -> Result<bool, StoreError> {
    let mut tx = store.pool().begin().await?;
    let done = sqlx::query("DELETE FROM contacts WHERE principal = ?").bind(principal).execute(&mut *tx).await?;
    if done.rows_affected() == 0 {
        return Ok(false);
    }
    noted(&mut tx, now, "contact_removed", principal, "").await?;
    tx.commit().await?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("keyapp.db")).await.unwrap();
        (dir, store)
    }

    async fn contacts(store: &Store) -> Vec<(String, String)> {
        sqlx::query_as("SELECT principal, name FROM contacts ORDER BY principal").fetch_all(store.pool()).await.unwrap()
    }

    async fn events(store: &Store) -> Vec<(String, String, String)> {
        sqlx::query_as("SELECT event, subject, detail FROM history ORDER BY id").fetch_all(store.pool()).await.unwrap()
    }

    #[tokio::test]
    async fn a_contact_is_renamed_then_removed_each_with_its_history() {
        let (_dir, store) = store().await;
        sqlx::query("INSERT INTO contacts (principal, name) VALUES ('urn:a', 'Noor')")
            .execute(store.pool())
            .await
            .unwrap();
        assert!(rename(&store, "urn:a", "Noor K.", 1).await.unwrap());
        assert_eq!(contacts(&store).await, [("urn:a".to_owned(), "Noor K.".to_owned())]);
        assert!(remove(&store, "urn:a", 2).await.unwrap());
        assert!(contacts(&store).await.is_empty());
        let s = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
        assert_eq!(events(&store).await, [s("contact_renamed", "urn:a", "Noor K."), s("contact_removed", "urn:a", "")]);
    }

    #[tokio::test]
    async fn renaming_or_removing_a_contact_nobody_saved_changes_nothing() {
        let (_dir, store) = store().await;
        assert!(!rename(&store, "urn:x", "Ellis", 1).await.unwrap());
        assert!(!remove(&store, "urn:x", 2).await.unwrap());
        assert!(contacts(&store).await.is_empty());
        assert!(events(&store).await.is_empty(), "no history for what did not happen");
    }
}
