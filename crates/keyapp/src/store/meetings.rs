//! What each meeting contract and acceptance is about (§5.12; migration
//! 0007): its meeting, revision, contract hash and members, beside its
//! credential record.

use super::{Store, StoreError, Stored};

/// A meeting contract's or acceptance's meeting, kept beside its record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeetingRecord {
    pub jti: String,
    pub meeting_id: String,
    pub revision: u32,
    pub contract_sha256: String,
    /// The members by the names the contract gives them.
    pub members: Vec<String>,
}

/// Keeps a meeting record in the approval's transaction, after its credential.
pub async fn insert(conn: &mut sqlx::SqliteConnection, m: &MeetingRecord) -> Result<(), StoreError> {
    let members = serde_json::to_string(&m.members).map_err(|e| StoreError::corrupt(Stored::Meeting, e.to_string()))?;
    sqlx::query(
        "INSERT INTO meeting_records (jti, meeting_id, revision, contract_sha256, members) VALUES (?, ?, ?, ?, ?)",
    )
    .bind(&m.jti)
    .bind(&m.meeting_id)
    .bind(m.revision)
    .bind(&m.contract_sha256)
    .bind(members)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// The signed contracts (compact JWS) the records say the person organized
/// as `meeting_id`, the highest revision first. The service believes one
/// only once it verifies under the principal's key: the person's programs
/// can write these rows.
pub async fn contracts(store: &Store, meeting_id: &str) -> Result<Vec<String>, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT CAST(c.compact AS TEXT) FROM meeting_records m JOIN credentials c ON c.jti = m.jti
         WHERE m.meeting_id = ? AND c.kind = 'meeting_contract'
         ORDER BY m.revision DESC",
    )
    .bind(meeting_id)
    .fetch_all(store.pool())
    .await?)
}

/// The acceptances the records say the person gave here as a member of
/// `meeting_id`, below revision `below`, the highest first: each one's signed
/// acceptance (compact JWS) and its request's stored input (the contract, as
/// JSON). What a later revision is shown against (§5.12 "Revisions"), once
/// the service has checked both signatures: the person's programs can write
/// these rows.
pub async fn acceptances(store: &Store, meeting_id: &str, below: u32) -> Result<Vec<(String, String)>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT CAST(c.compact AS TEXT), CAST(r.input AS TEXT)
         FROM meeting_records m JOIN credentials c ON c.jti = m.jti
         JOIN requests r ON r.request_id = c.request_id
         WHERE m.meeting_id = ? AND m.revision < ? AND c.kind = 'acceptance'
         ORDER BY m.revision DESC",
    )
    .bind(meeting_id)
    .bind(below)
    .fetch_all(store.pool())
    .await?)
}
