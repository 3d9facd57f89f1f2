//! The person's contacts (§5.12): principal → the name they know them by,
//! which consent texts use for the people they name. Each change is one
//! transaction with its history entry.

use super::{history, Store, StoreError};

/// A contact as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ContactRow {
    pub principal: String,
    pub name: String,
    pub relationship: Option<String>,
}

/// Every contact, by name.
pub async fn all(store: &Store) -> Result<Vec<ContactRow>, StoreError> {
    Ok(sqlx::query_as("SELECT principal, name, relationship FROM contacts ORDER BY name")
        .fetch_all(store.pool())
        .await?)
}

/// Adds a contact, or renames and re-relates the one with its principal.
pub async fn save(store: &Store, c: &ContactRow, now: i64) -> Result<(), StoreError> {
    let mut tx = store.begin().await?;
    sqlx::query(
        "INSERT INTO contacts (principal, name, relationship) VALUES (?, ?, ?)
         ON CONFLICT (principal) DO UPDATE SET name = excluded.name, relationship = excluded.relationship",
    )
    .bind(&c.principal)
    .bind(&c.name)
    .bind(&c.relationship)
    .execute(&mut *tx)
    .await?;
    history::append(&mut tx, now, "contact_added", &c.principal, &c.name, None).await?;
    tx.commit().await?;
    Ok(())
}

/// Renames contact `principal`. `false`: no such contact, nothing written.
pub async fn rename(store: &Store, principal: &str, name: &str, now: i64) -> Result<bool, StoreError> {
    let mut tx = store.begin().await?;
    let done = sqlx::query("UPDATE contacts SET name = ? WHERE principal = ?")
        .bind(name)
        .bind(principal)
        .execute(&mut *tx)
        .await?;
    if done.rows_affected() == 0 {
        return Ok(false);
    }
    history::append(&mut tx, now, "contact_renamed", principal, name, None).await?;
    tx.commit().await?;
    Ok(true)
}

/// Removes contact `principal`. `false`: no such contact, nothing written.
pub async fn remove(store: &Store, principal: &str, now: i64) -> Result<bool, StoreError> {
    let mut tx = store.begin().await?;
    let done = sqlx::query("DELETE FROM contacts WHERE principal = ?").bind(principal).execute(&mut *tx).await?;
    if done.rows_affected() == 0 {
        return Ok(false);
    }
    history::append(&mut tx, now, "contact_removed", principal, "", None).await?;
    tx.commit().await?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::testing;

    fn contact(principal: &str, name: &str, relationship: Option<&str>) -> ContactRow {
        ContactRow { principal: principal.into(), name: name.into(), relationship: relationship.map(str::to_owned) }
    }

    async fn events(store: &Store) -> Vec<(String, String, String)> {
        history::latest(store, 10).await.unwrap().into_iter().map(|h| (h.event, h.subject, h.detail)).rev().collect()
    }

    #[tokio::test]
    async fn contacts_are_saved_listed_by_name_renamed_and_removed() {
        let (_dir, store) = testing::store().await;
        save(&store, &contact("urn:b", "Sam", None), 1).await.unwrap();
        save(&store, &contact("urn:a", "Noor", Some("sister")), 2).await.unwrap();
        assert_eq!(
            all(&store).await.unwrap(),
            [contact("urn:a", "Noor", Some("sister")), contact("urn:b", "Sam", None)]
        );
        // Saving the same principal again replaces its name and relationship.
        save(&store, &contact("urn:a", "Noor K.", None), 3).await.unwrap();
        assert!(rename(&store, "urn:b", "Samuel", 4).await.unwrap());
        assert_eq!(all(&store).await.unwrap(), [contact("urn:a", "Noor K.", None), contact("urn:b", "Samuel", None)]);
        assert!(remove(&store, "urn:a", 5).await.unwrap());
        assert_eq!(all(&store).await.unwrap(), [contact("urn:b", "Samuel", None)]);
        let s = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
        assert_eq!(
            events(&store).await,
            [
                s("contact_added", "urn:b", "Sam"),
                s("contact_added", "urn:a", "Noor"),
                s("contact_added", "urn:a", "Noor K."),
                s("contact_renamed", "urn:b", "Samuel"),
                s("contact_removed", "urn:a", ""),
            ]
        );
    }

    #[tokio::test]
    async fn renaming_or_removing_a_contact_nobody_saved_changes_nothing() {
        let (_dir, store) = testing::store().await;
        assert!(!rename(&store, "urn:x", "Ellis", 1).await.unwrap());
        assert!(!remove(&store, "urn:x", 2).await.unwrap());
        assert!(all(&store).await.unwrap().is_empty());
        assert!(events(&store).await.is_empty(), "no history for what did not happen");
    }
}
