//! Attestations the person holds (§7.5), as a mandate carries them.

use super::{Store, StoreError};

/// An attestation as a mandate carries it: its issuer and compact JWS.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct HeldAttestation {
    pub iss: String,
    pub compact: String,
}

/// The attestations unexpired at `now`, in the order they were added.
pub async fn unexpired(store: &Store, now: i64) -> Result<Vec<HeldAttestation>, StoreError> {
    Ok(sqlx::query_as("SELECT iss, compact FROM attestations WHERE exp > ? ORDER BY id")
        .bind(now)
        .fetch_all(store.pool())
        .await?)
}
