//! The person's bookings, as the key app knows them: the latest verified
//! receipt of each booking (§5.3), where its host is bound, what it rests on,
//! and the management mandates that let an assistant change it (§3.3).

use super::{Store, StoreError};

/// One booking: its latest receipt and what the key app holds about it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct BookingRecord {
    pub host: String,
    pub booking_id: String,
    /// The latest verified receipt (compact JWS), verified when it was kept.
    pub compact: String,
    pub verified_at: i64,
    /// The domain the key app bound the host to (§2.2), when it is bound.
    pub host_domain: Option<String>,
    /// The host's name as the key app verified it there (migration 0021).
    pub host_name: Option<String>,
    /// The binding's basis and seal: its domain and name are shown only
    /// while it holds its seal (record_seal).
    pub host_basis: Option<String>,
    pub host_seal: Option<String>,
    /// The credential the receipt names (`consent.mandate`), when the key app issued it.
    pub mandate_jti: Option<String>,
    pub mandate_kind: Option<String>,
    /// The one-line summary of the request that credential was approved for.
    pub mandate_summary: Option<String>,
    /// That request: its summary is shown only while its row holds its seal
    /// (record_seal).
    pub mandate_request: Option<String>,
}

/// A management mandate over one booking (`management_links`).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ManagerRecord {
    pub host: String,
    pub booking_id: String,
    pub jti: String,
    pub exp: i64,
    pub revoked: bool,
    /// The assistant it was issued to, by the name it paired under, and its
    /// key (the name is shown only while that key's row holds its seal).
    pub agent_name: Option<String>,
    pub agent_jkt: Option<String>,
}

/// Every booking with a verified receipt, the latest first, as one snapshot.
pub async fn all(store: &Store) -> Result<(Vec<BookingRecord>, Vec<ManagerRecord>), StoreError> {
    let mut tx = store.pool().begin().await?;
    let bookings: Vec<BookingRecord> = sqlx::query_as(
        "SELECT r.host, r.booking_id, r.compact, r.verified_at, b.domain AS host_domain, b.name AS host_name,
                b.basis AS host_basis, b.seal AS host_seal,
                r.mandate_jti, mc.kind AS mandate_kind, mr.summary AS mandate_summary,
                mr.request_id AS mandate_request
         FROM receipts r
         LEFT JOIN host_bindings b ON b.host_id = r.host
         LEFT JOIN credentials mc ON mc.jti = r.mandate_jti
         LEFT JOIN requests mr ON mr.request_id = mc.request_id
         WHERE r.id = (SELECT MAX(x.id) FROM receipts x WHERE x.host = r.host AND x.booking_id = r.booking_id)
         ORDER BY r.id DESC",
    )
    .fetch_all(&mut *tx)
    .await?;
    let managers: Vec<ManagerRecord> = sqlx::query_as(
        "SELECT l.host_id AS host, l.booking_id, c.jti, c.exp, c.revoked_at IS NOT NULL AS revoked,
                a.name AS agent_name, c.agent_jkt
         FROM management_links l JOIN credentials c ON c.jti = l.jti
         LEFT JOIN agents a ON a.jkt = c.agent_jkt
         ORDER BY c.created_at",
    )
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok((bookings, managers))
}
