//! Attestations about the principal key (§7.5), kept as the person added them
//! for agents to present; each host checks the signature against the
//! attesters it trusts.

use super::{Store, StoreError};

/// An attestation as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct AttestationRow {
    pub iss: String,
    pub exp: i64,
    /// The signed attestation (compact JWS).
    pub compact: String,
}

const SELECT: &str = "SELECT iss, exp, compact FROM attestations";

/// Every attestation, in the order they were added.
pub async fn all(store: &Store) -> Result<Vec<AttestationRow>, StoreError> {
    Ok(sqlx::query_as(&format!("{SELECT} ORDER BY id")).fetch_all(store.pool()).await?)
}

/// The attestations unexpired at `now`, in the order they were added: what a
/// mandate may carry.
pub async fn unexpired(store: &Store, now: i64) -> Result<Vec<AttestationRow>, StoreError> {
    Ok(sqlx::query_as(&format!("{SELECT} WHERE exp > ? ORDER BY id")).bind(now).fetch_all(store.pool()).await?)
}
