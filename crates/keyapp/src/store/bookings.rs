//! The person's bookings, as the key app knows them: the receipts it verified
//! and kept (§5.3), with where each host is bound. What each booking rests on
//! and which management mandates let an assistant change it (§3.3) the
//! service reads from the credentials as signed.

use super::receipts::ReceiptRecord;
use super::{Store, StoreError};

/// One kept receipt, with what the key app holds about its host.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct BookingRecord {
    /// The row's place in the table: a tie-break only, the records' to change.
    pub id: i64,
    /// The receipt as kept: its booking, the credential it names
    /// (`consent.mandate`, when the key app issued it) and the compact JWS,
    /// verified when it was kept.
    #[sqlx(flatten)]
    pub receipt: ReceiptRecord,
    pub verified_at: i64,
    /// The receipt row's seal: shown only while it holds (record_seal).
    pub seal: Option<String>,
    /// The domain the key app bound the host to (§2.2), when it is bound.
    pub host_domain: Option<String>,
    /// The host's name as the key app verified it there (migration 0021).
    pub host_name: Option<String>,
    /// The binding's basis and seal: its domain and name are shown only
    /// while it holds its seal (record_seal).
    pub host_basis: Option<String>,
    pub host_seal: Option<String>,
}

impl BookingRecord {
    /// The fields the receipt's seal covers.
    pub fn fields(&self) -> crate::record_seal::ReceiptFields<'_> {
        self.receipt.fields(self.verified_at)
    }
}

/// A management mandate over one booking, as its credential was signed.
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// Every kept receipt, the latest kept first, with its host's binding.
pub async fn receipts(store: &Store) -> Result<Vec<BookingRecord>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT r.id, r.host, r.booking_id, r.offer_sha256, r.mandate_jti, r.compact, r.verified_at, r.seal,
                b.domain AS host_domain, b.name AS host_name, b.basis AS host_basis, b.seal AS host_seal
         FROM receipts r
         LEFT JOIN host_bindings b ON b.host_id = r.host
         ORDER BY r.id DESC",
    )
    .fetch_all(store.pool())
    .await?)
}
