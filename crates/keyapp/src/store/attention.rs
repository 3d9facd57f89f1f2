//! A request's look-twice callouts (schcp_consent::attention; migration
//! 0006), computed from the verified typed request when it is created and
//! stored in the same transaction as the request.

use super::{Store, StoreError};

/// Stores a request's callouts (a JSON array of `{kind, detail}`) in the
/// transaction that stores the request.
pub async fn insert(conn: &mut sqlx::SqliteConnection, request_id: &str, items: &str) -> Result<(), StoreError> {
    sqlx::query("INSERT INTO request_attention (request_id, items) VALUES (?, ?)")
        .bind(request_id)
        .bind(items)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// A request's callouts (JSON), if it has any stored.
pub async fn items(store: &Store, request_id: &str) -> Result<Option<String>, StoreError> {
    let row: Option<(String,)> = sqlx::query_as("SELECT items FROM request_attention WHERE request_id = ?")
        .bind(request_id)
        .fetch_optional(store.pool())
        .await?;
    Ok(row.map(|(items,)| items))
}
