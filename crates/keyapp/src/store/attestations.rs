//! Attestations about the principal key (§7.5), as a mandate carries them.

use super::{Store, StoreError};

/// An attestation as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct AttestationRow {
    pub iss: String,
    pub exp: i64,
    /// The signed attestation (compact JWS).
    pub compact: String,
}

/// The attestations unexpired at `now`, in the order they were added.
pub async fn unexpired(store: &Store, now: i64) -> Result<Vec<AttestationRow>, StoreError> {
    Ok(sqlx::query_as("SELECT iss, exp, compact FROM attestations WHERE exp > ? ORDER BY id")
        .bind(now)
        .fetch_all(store.pool())
        .await?)
}
