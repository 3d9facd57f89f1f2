//! A request's look-twice callouts (schcp_consent::attention; migration
//! 0006), computed from the verified typed request when it is created and
//! stored in the same transaction as the request, and read back with it,
//! under its seal (`requests::sealed`).

use super::StoreError;

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
