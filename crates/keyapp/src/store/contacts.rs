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

impl ContactRow {
    /// The fields its seal covers (record_seal).
    pub fn fields(&self) -> crate::record_seal::ContactFields<'_> {
        crate::record_seal::ContactFields {
            principal: &self.principal,
            name: &self.name,
            relationship: self.relationship.as_deref(),
        }
    }
}

/// A contact with its seal, as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredContact {
    pub contact: ContactRow,
    pub seal: Option<String>,
}

/// Every contact row, by name, with its seal: the service keeps only those
/// whose seal holds. A row whose values are not text (another program wrote
/// bytes there) is left out, so it cannot make the others unreadable.
pub async fn all(store: &Store) -> Result<Vec<StoredContact>, StoreError> {
    #[derive(sqlx::FromRow)]
    struct Raw {
        principal: Vec<u8>,
        name: Vec<u8>,
        relationship: Option<Vec<u8>>,
        seal: Option<Vec<u8>>,
    }
    let rows: Vec<Raw> = sqlx::query_as(
        "SELECT CAST(principal AS BLOB) AS principal, CAST(name AS BLOB) AS name,
                CAST(relationship AS BLOB) AS relationship, CAST(seal AS BLOB) AS seal
         FROM contacts WHERE principal IS NOT NULL AND name IS NOT NULL ORDER BY name",
    )
    .fetch_all(store.pool())
    .await?;
    let text = |b: Vec<u8>| String::from_utf8(b).ok();
    Ok(rows
        .into_iter()
        .filter_map(|r| {
            let relationship = match r.relationship {
                Some(b) => Some(text(b)?),
                None => None,
            };
            let seal = match r.seal {
                Some(b) => Some(text(b)?),
                None => None,
            };
            Some(StoredContact {
                contact: ContactRow { principal: text(r.principal)?, name: text(r.name)?, relationship },
                seal,
            })
        })
        .collect())
}

/// Adds a contact, or renames and re-relates the one with its principal,
/// with the seal the service made for it.
pub async fn save(store: &Store, c: &ContactRow, seal: &str, now: i64) -> Result<(), StoreError> {
    let mut tx = store.begin().await?;
    sqlx::query(
        "INSERT INTO contacts (principal, name, relationship, seal) VALUES (?, ?, ?, ?)
         ON CONFLICT (principal) DO UPDATE
            SET name = excluded.name, relationship = excluded.relationship, seal = excluded.seal",
    )
    .bind(&c.principal)
    .bind(&c.name)
    .bind(&c.relationship)
    .bind(seal)
    .execute(&mut *tx)
    .await?;
    history::append(&mut tx, store.history_seal(), now, "contact_added", &c.principal, &c.name, None).await?;
    tx.commit().await?;
    Ok(())
}

/// Renames contact `was` (as the service read and checked it) to `name`,
/// sealed by `seal` (the service's, over the renamed row). Only that very
/// row is renamed: one changed in between (its relationship rewritten while
/// the OS asked the person) is left as it is. `false`: nothing written.
pub async fn rename(store: &Store, was: &StoredContact, name: &str, seal: &str, now: i64) -> Result<bool, StoreError> {
    let mut tx = store.begin().await?;
    let done = sqlx::query(
        "UPDATE contacts SET name = ?, seal = ?
         WHERE principal = ? AND seal IS ? AND relationship IS ? AND name = ?",
    )
    .bind(name)
    .bind(seal)
    .bind(&was.contact.principal)
    .bind(&was.seal)
    .bind(&was.contact.relationship)
    .bind(&was.contact.name)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() == 0 {
        return Ok(false);
    }
    history::append(&mut tx, store.history_seal(), now, "contact_renamed", &was.contact.principal, name, None).await?;
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
    history::append(&mut tx, store.history_seal(), now, "contact_removed", principal, "", None).await?;
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

    fn stored(contact: ContactRow, seal: &str) -> StoredContact {
        StoredContact { contact, seal: Some(seal.into()) }
    }

    async fn events(store: &Store) -> Vec<(String, String, String)> {
        history::latest(store, 10).await.unwrap().into_iter().map(|h| (h.event, h.subject, h.detail)).rev().collect()
    }

    #[tokio::test]
    async fn contacts_are_saved_listed_by_name_renamed_and_removed() {
        let (_dir, store) = testing::store().await;
        save(&store, &contact("urn:b", "Sam", None), "s1", 1).await.unwrap();
        save(&store, &contact("urn:a", "Noor", Some("sister")), "s2", 2).await.unwrap();
        assert_eq!(
            all(&store).await.unwrap(),
            [stored(contact("urn:a", "Noor", Some("sister")), "s2"), stored(contact("urn:b", "Sam", None), "s1")]
        );
        // Saving the same principal again replaces its name, relationship and seal.
        save(&store, &contact("urn:a", "Noor K.", None), "s3", 3).await.unwrap();
        // A rename replaces the very row read, with its new seal.
        let sam = stored(contact("urn:b", "Sam", None), "s1");
        assert!(rename(&store, &sam, "Samuel", "s4", 4).await.unwrap());
        assert!(!rename(&store, &sam, "Sammy", "s5", 4).await.unwrap(), "that row is no longer there");
        assert_eq!(
            all(&store).await.unwrap(),
            [stored(contact("urn:a", "Noor K.", None), "s3"), stored(contact("urn:b", "Samuel", None), "s4")]
        );
        assert!(remove(&store, "urn:a", 5).await.unwrap());
        assert_eq!(all(&store).await.unwrap(), [stored(contact("urn:b", "Samuel", None), "s4")]);
        // A row of bytes that are not text is left out, not an error for all.
        sqlx::query("INSERT INTO contacts (principal, name) VALUES ('urn:c', CAST(x'ff' AS TEXT))")
            .execute(store.pool())
            .await
            .unwrap();
        assert_eq!(all(&store).await.unwrap(), [stored(contact("urn:b", "Samuel", None), "s4")]);
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
        let nobody = stored(contact("urn:x", "Ellis", None), "s");
        assert!(!rename(&store, &nobody, "Ellis", "s2", 1).await.unwrap());
        assert!(!remove(&store, "urn:x", 2).await.unwrap());
        assert!(all(&store).await.unwrap().is_empty());
        assert!(events(&store).await.is_empty(), "no history for what did not happen");
    }
}
