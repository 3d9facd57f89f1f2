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

/// The signed contract (compact JWS) of the highest revision of `meeting_id`
/// the person organized here.
pub async fn latest_contract(store: &Store, meeting_id: &str) -> Result<Option<String>, StoreError> {
    let row: Option<(String,)> = sqlx::query_as(
        "SELECT c.compact FROM meeting_records m JOIN credentials c ON c.jti = m.jti
         WHERE m.meeting_id = ? AND c.kind = 'meeting_contract'
         ORDER BY m.revision DESC LIMIT 1",
    )
    .bind(meeting_id)
    .fetch_optional(store.pool())
    .await?;
    Ok(row.map(|(compact,)| compact))
}

/// The stored input (the contract, as JSON) of the acceptance of the highest
/// revision of `meeting_id` below `below` the person gave here as a member:
/// what a later revision is shown against (§5.12 "Revisions").
pub async fn latest_accepted_input(store: &Store, meeting_id: &str, below: u32) -> Result<Option<String>, StoreError> {
    let row: Option<(String,)> = sqlx::query_as(
        "SELECT r.input FROM meeting_records m JOIN credentials c ON c.jti = m.jti
         JOIN requests r ON r.request_id = c.request_id
         WHERE m.meeting_id = ? AND m.revision < ? AND c.kind = 'acceptance'
         ORDER BY m.revision DESC LIMIT 1",
    )
    .bind(meeting_id)
    .bind(below)
    .fetch_optional(store.pool())
    .await?;
    Ok(row.map(|(input,)| input))
}
