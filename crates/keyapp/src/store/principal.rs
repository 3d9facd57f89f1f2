//! The principal the records were made under (migration 0022).

use super::{Store, StoreError};

/// The principal the records were made under, if they name one yet (none
/// before the very first start).
pub async fn recorded(store: &Store) -> Result<Option<String>, StoreError> {
    Ok(sqlx::query_scalar("SELECT principal_id FROM principal WHERE id = 1").fetch_optional(store.pool()).await?)
}

/// Keeps `principal_id` as the records' principal if they have none yet, and
/// answers the one they were made under when it is another.
pub async fn pin(store: &Store, principal_id: &str) -> Result<Option<String>, StoreError> {
    sqlx::query("INSERT INTO principal (id, principal_id) VALUES (1, ?) ON CONFLICT (id) DO NOTHING")
        .bind(principal_id)
        .execute(store.pool())
        .await?;
    let recorded: String =
        sqlx::query_scalar("SELECT principal_id FROM principal WHERE id = 1").fetch_one(store.pool()).await?;
    Ok((recorded != principal_id).then_some(recorded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_first_principal_is_kept_and_another_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("k.db")).await.unwrap();
        assert_eq!(recorded(&store).await.unwrap(), None, "none before the first start");
        assert_eq!(pin(&store, "first").await.unwrap(), None, "kept");
        assert_eq!(recorded(&store).await.unwrap().as_deref(), Some("first"));
        assert_eq!(pin(&store, "first").await.unwrap(), None, "the same again");
        assert_eq!(pin(&store, "second").await.unwrap(), Some("first".to_owned()), "another is refused");
        assert_eq!(pin(&store, "first").await.unwrap(), None, "and the first stays");
    }
}
