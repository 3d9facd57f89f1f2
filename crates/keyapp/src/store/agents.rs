//! Paired agents' keys as issuance reads them.

use super::{Store, StoreError};

/// The public JWK (JSON) of the agent with key thumbprint `jkt`.
pub async fn jwk(store: &Store, jkt: &str) -> Result<Option<String>, StoreError> {
    let row: Option<(String,)> =
        sqlx::query_as("SELECT jwk FROM agents WHERE jkt = ?").bind(jkt).fetch_optional(store.pool()).await?;
    Ok(row.map(|(jwk,)| jwk))
}

/// A credential an agent holds: issued at its request, neither revoked nor
/// expired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldCredential {
    pub jti: String,
    pub kind: crate::kind::RequestKind,
    pub exp: i64,
    /// The status URL hosts check it at (§3.3 check 7); `None`: nobody could
    /// learn of a revocation.
    pub status_url: Option<String>,
}

impl HeldCredential {
    /// Whether revoking it reaches the hosts: a kind hosts check, with a status
    /// URL they read (§3.3 check 7; a rule is never published, §7.9).
    pub fn revocable(&self) -> bool {
        self.kind.revocable() && self.status_url.is_some()
    }
}

/// The credentials agent `jkt` holds at `now`, oldest first, inside the
/// caller's transaction (or on any connection).
pub async fn held(conn: &mut super::Connection, jkt: &str, now: i64) -> Result<Vec<HeldCredential>, StoreError> {
    let rows: Vec<(String, String, i64, Option<String>)> = sqlx::query_as(
        "SELECT jti, kind, exp, status_url FROM credentials
         WHERE agent_jkt = ? AND revoked_at IS NULL AND exp > ? ORDER BY created_at, jti",
    )
    .bind(jkt)
    .bind(now)
    .fetch_all(&mut *conn)
    .await?;
    rows.into_iter()
        .map(|(jti, kind, exp, status_url)| {
            let kind =
                kind.parse().map_err(|e| super::corrupt(super::Stored::Credential, format!("{jti}: kind: {e}")))?;
            Ok(HeldCredential { jti, kind, exp, status_url })
        })
        .collect()
}

/// [`held`] on a connection of the store's own.
pub async fn held_now(store: &Store, jkt: &str, now: i64) -> Result<Vec<HeldCredential>, StoreError> {
    let mut conn = store.pool().acquire().await?;
    held(&mut conn, jkt, now).await
}
