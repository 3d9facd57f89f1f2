//! What happened, for the person to look back at (`schcp-keyapp history`, the
//! window's History): one row per event, written inside the transaction of the
//! state change it tells of, so the history never claims what did not happen.

use super::{corrupt, Connection, Store, StoreError, Stored};
use crate::user_verification::Method;

/// One history entry as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryRecord {
    pub at: i64,
    pub event: String,
    pub subject: String,
    pub detail: String,
    /// How the OS confirmed the person's yes, on an approval's entries.
    pub confirmed_by: Option<Method>,
}

#[derive(sqlx::FromRow)]
struct Row {
    at: i64,
    event: String,
    subject: String,
    detail: String,
    confirmed_by: Option<String>,
}

impl TryFrom<Row> for HistoryRecord {
    type Error = StoreError;

    fn try_from(r: Row) -> Result<HistoryRecord, StoreError> {
        let confirmed_by = r
            .confirmed_by
            .map(|m| Method::parse(&m).ok_or_else(|| corrupt(Stored::History, format!("history confirmed_by {m:?}"))))
            .transpose()?;
        Ok(HistoryRecord { at: r.at, event: r.event, subject: r.subject, detail: r.detail, confirmed_by })
    }
}

/// Appends an entry inside the caller's transaction; `confirmed_by` says how
/// the person's yes was confirmed (`None`: no person was asked, or no yes).
pub async fn append(
    conn: &mut Connection,
    at: i64,
    event: &str,
    subject: &str,
    detail: &str,
    confirmed_by: Option<Method>,
) -> Result<(), StoreError> {
    sqlx::query("INSERT INTO history (at, event, subject, detail, confirmed_by) VALUES (?, ?, ?, ?, ?)")
        .bind(at)
        .bind(event)
        .bind(subject)
        .bind(detail)
        .bind(confirmed_by.map(Method::as_str))
        .execute(conn)
        .await?;
    Ok(())
}

/// The latest `limit` entries, newest first.
pub async fn latest(store: &Store, limit: i64) -> Result<Vec<HistoryRecord>, StoreError> {
    let rows: Vec<Row> =
        sqlx::query_as("SELECT at, event, subject, detail, confirmed_by FROM history ORDER BY id DESC LIMIT ?")
            .bind(limit)
            .fetch_all(store.pool())
            .await?;
    rows.into_iter().map(HistoryRecord::try_from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::testing;

    #[tokio::test]
    async fn entries_come_back_newest_first_with_how_a_yes_was_confirmed() {
        let (_dir, store) = testing::store().await;
        let mut tx = store.begin().await.unwrap();
        append(&mut tx, 10, "pairing_requested", "pr_1", "Calendar", None).await.unwrap();
        append(&mut tx, 11, "pairing_approved", "pr_1", "", Some(Method::Polkit)).await.unwrap();
        append(&mut tx, 12, "agent_unpaired", "jkt", "", None).await.unwrap();
        tx.commit().await.unwrap();
        let got = latest(&store, 2).await.unwrap();
        assert_eq!(
            got,
            [
                HistoryRecord {
                    at: 12,
                    event: "agent_unpaired".into(),
                    subject: "jkt".into(),
                    detail: String::new(),
                    confirmed_by: None
                },
                HistoryRecord {
                    at: 11,
                    event: "pairing_approved".into(),
                    subject: "pr_1".into(),
                    detail: String::new(),
                    confirmed_by: Some(Method::Polkit)
                },
            ]
        );
        assert_eq!(latest(&store, 10).await.unwrap().len(), 3);
    }

    #[tokio::test]
    async fn an_entry_rolled_back_with_its_change_is_not_in_the_history() {
        let (_dir, store) = testing::store().await;
        let mut tx = store.begin().await.unwrap();
        append(&mut tx, 10, "contact_added", "urn:x", "Ellis", None).await.unwrap();
        tx.rollback().await.unwrap();
        assert!(latest(&store, 10).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn an_unknown_confirmation_method_is_a_corrupt_record() {
        let (_dir, store) = testing::store().await;
        testing::write_unchecked(
            &store,
            "INSERT INTO history (at, event, subject, detail, confirmed_by)
             VALUES (1, 'request_approved', 'rq_1', 'mandate', 'fingerprint-reader')",
        )
        .await;
        let e = latest(&store, 10).await.unwrap_err();
        assert!(matches!(&e, StoreError::Corrupt(c) if c.detail.contains("fingerprint-reader")), "{e:?}");
    }
}
