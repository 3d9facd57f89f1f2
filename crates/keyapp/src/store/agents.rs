//! Paired agents' keys as issuance reads them.

use super::{Store, StoreError};

/// The public JWK (JSON) of the agent with key thumbprint `jkt`.
pub async fn jwk(store: &Store, jkt: &str) -> Result<Option<String>, StoreError> {
    let row: Option<(String,)> =
        sqlx::query_as("SELECT jwk FROM agents WHERE jkt = ?").bind(jkt).fetch_optional(store.pool()).await?;
    Ok(row.map(|(jwk,)| jwk))
}
