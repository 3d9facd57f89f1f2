//! Attestations about the principal key (§7.5), kept as the person added them
//! for agents to present; each host checks the signature against the
//! attesters it trusts.

use super::{history, Store, StoreError};

/// An attestation as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct AttestationRow {
    pub iss: String,
    pub exp: i64,
    /// The signed attestation (compact JWS).
    pub compact: String,
}

/// Keeps an attestation, with its history entry, in one transaction.
/// `false` when the same attestation is already kept: nothing is written,
/// not even an entry.
pub async fn add(store: &Store, a: &AttestationRow, now: i64) -> Result<bool, StoreError> {
    let mut tx = store.begin().await?;
    let inserted =
        sqlx::query("INSERT INTO attestations (iss, exp, compact) VALUES (?, ?, ?) ON CONFLICT (compact) DO NOTHING")
            .bind(&a.iss)
            .bind(a.exp)
            .bind(&a.compact)
            .execute(&mut *tx)
            .await?;
    if inserted.rows_affected() == 0 {
        return Ok(false);
    }
    history::append(&mut tx, store.history_seal(), now, "attestation_added", &a.iss, "", None).await?;
    tx.commit().await?;
    Ok(true)
}

/// Every attestation, in the order they were added.
pub async fn all(store: &Store) -> Result<Vec<AttestationRow>, StoreError> {
    Ok(sqlx::query_as("SELECT iss, exp, compact FROM attestations ORDER BY id").fetch_all(store.pool()).await?)
}

/// The attestations unexpired at `now`, in the order they were added: what a
/// mandate may carry.
pub async fn unexpired(store: &Store, now: i64) -> Result<Vec<AttestationRow>, StoreError> {
    Ok(sqlx::query_as("SELECT iss, exp, compact FROM attestations WHERE exp > ? ORDER BY id")
        .bind(now)
        .fetch_all(store.pool())
        .await?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::testing;

    fn attestation(iss: &str, compact: &str) -> AttestationRow {
        AttestationRow { iss: iss.into(), exp: 100, compact: compact.into() }
    }

    #[tokio::test]
    async fn attestations_are_kept_once_in_the_order_added() {
        let (_dir, store) = testing::store().await;
        assert!(add(&store, &attestation("urn:b", "b.b.b"), 1).await.unwrap());
        assert!(add(&store, &attestation("urn:a", "a.a.a"), 2).await.unwrap());
        assert!(!add(&store, &attestation("urn:b", "b.b.b"), 3).await.unwrap(), "kept already");
        assert_eq!(all(&store).await.unwrap(), [attestation("urn:b", "b.b.b"), attestation("urn:a", "a.a.a")]);
        // The one added again wrote no entry either.
        let events: Vec<_> = history::latest(&store, 10).await.unwrap().into_iter().map(|h| h.subject).collect();
        assert_eq!(events, ["urn:a", "urn:b"]);
    }
}
