//! Host-signed receipts the key app verified (§5.3), kept so the person can
//! look back at what was booked under which mandate.

use super::StoreError;

/// A verified receipt as it is kept.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ReceiptRecord {
    pub host: String,
    pub booking_id: String,
    pub offer_sha256: Option<String>,
    pub mandate_jti: Option<String>,
    pub compact: String,
}

impl ReceiptRecord {
    /// The fields its seal covers, kept as verified at `verified_at`.
    pub fn fields(&self, verified_at: i64) -> crate::record_seal::ReceiptFields<'_> {
        crate::record_seal::ReceiptFields {
            host: &self.host,
            booking_id: &self.booking_id,
            offer_sha256: self.offer_sha256.as_deref(),
            mandate_jti: self.mandate_jti.as_deref(),
            compact: &self.compact,
            verified_at,
        }
    }
}

/// Keeps a receipt verified at `now` in the transaction of the approval that
/// rests on it, with its `seal` (record_seal).
pub async fn insert(
    conn: &mut sqlx::SqliteConnection,
    r: &ReceiptRecord,
    now: i64,
    seal: &str,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO receipts (host, booking_id, offer_sha256, mandate_jti, compact, verified_at, seal)
         VALUES (?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&r.host)
    .bind(&r.booking_id)
    .bind(&r.offer_sha256)
    .bind(&r.mandate_jti)
    .bind(&r.compact)
    .bind(now)
    .bind(seal)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Whether a verified receipt ties contract `offer_sha256` of `host` to a
/// booking other than `booking_id`.
pub async fn ties_offer_elsewhere(
    store: &super::Store,
    host: &str,
    offer_sha256: &str,
    booking_id: &str,
) -> Result<bool, StoreError> {
    let row: Option<(i64,)> =
        sqlx::query_as("SELECT 1 FROM receipts WHERE host = ? AND offer_sha256 = ? AND booking_id <> ? LIMIT 1")
            .bind(host)
            .bind(offer_sha256)
            .bind(booking_id)
            .fetch_optional(store.pool())
            .await?;
    Ok(row.is_some())
}

/// The receipt of booking `booking_id` at `host` verified here last (§5.7: what
/// a change offer for the booking is shown "from").
pub async fn latest_for_booking(
    store: &super::Store,
    host: &str,
    booking_id: &str,
) -> Result<Option<String>, StoreError> {
    let row: Option<(String,)> = sqlx::query_as(
        "SELECT compact FROM receipts WHERE host = ? AND booking_id = ? ORDER BY verified_at DESC, id DESC LIMIT 1",
    )
    .bind(host)
    .bind(booking_id)
    .fetch_optional(store.pool())
    .await?;
    Ok(row.map(|(compact,)| compact))
}
