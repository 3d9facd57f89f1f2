//! What happened, for the person to look back at (`schcp-keyapp history`, the
//! window's History): one row per event, written inside the transaction of the
//! state change it tells of, so the history never claims what did not happen.

use super::{Connection, Store, StoreError};
use crate::record_query::{Filter, HistoryCursor};
use crate::record_seal::{HistoryFields, RecordSeal};
use crate::user_verification::Method;

/// One history entry as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryRecord {
    /// The row's id and seal (record_seal): the entry is shown only while
    /// the seal holds for its fields.
    pub id: i64,
    pub seal: Option<String>,
    pub at: i64,
    pub event: String,
    pub subject: String,
    pub detail: String,
    /// How the OS confirmed the person's yes, on an approval's entries.
    pub confirmed_by: Option<Method>,
    /// What the entry is about, in one line: the request's summary, for an
    /// entry about a request or a credential issued from one.
    pub summary: Option<String>,
    /// The request `summary` was read from: shown only while its row holds
    /// its seal (record_seal).
    pub summary_of: Option<String>,
    /// The assistant the entry is about, by the name it paired under, and
    /// its key: the name is shown only while that key's row holds its seal
    /// (record_seal).
    pub agent_name: Option<String>,
    pub agent_jkt: Option<String>,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: i64,
    seal: Option<String>,
    at: i64,
    event: String,
    subject: String,
    detail: String,
    confirmed_by: Option<String>,
    summary: Option<String>,
    summary_of: Option<String>,
    agent_jkt: Option<String>,
    agent_name: Option<String>,
}

impl TryFrom<Row> for HistoryRecord {
    type Error = StoreError;

    fn try_from(r: Row) -> Result<HistoryRecord, StoreError> {
        // A confirmation the key app never writes is no entry of its own:
        // read without it, and without its seal, so it vouches for nothing
        // instead of keeping the person from their whole history.
        let (confirmed_by, seal) = match r.confirmed_by.as_deref().map(Method::parse) {
            None => (None, r.seal),
            Some(Some(m)) => (Some(m), r.seal),
            Some(None) => (None, None),
        };
        Ok(HistoryRecord {
            id: r.id,
            seal,
            at: r.at,
            event: r.event,
            subject: r.subject,
            detail: r.detail,
            confirmed_by,
            // A request stored before summaries were kept has ''.
            summary: r.summary.filter(|s| !s.is_empty()),
            summary_of: r.summary_of,
            agent_name: r.agent_name,
            agent_jkt: r.agent_jkt,
        })
    }
}

impl HistoryRecord {
    /// The fields its seal covers.
    pub fn fields(&self) -> HistoryFields<'_> {
        HistoryFields {
            id: self.id,
            at: self.at,
            event: &self.event,
            subject: &self.subject,
            detail: &self.detail,
            confirmed_by: self.confirmed_by.map(Method::as_str),
        }
    }
}

/// Appends an entry inside the caller's transaction; `confirmed_by` says how
/// the person's yes was confirmed (`None`: no person was asked, or no yes).
/// Sealed with `seal` (record_seal), over the row id it was given: the
/// store's [`super::Store::history_seal`], which the caller passes on.
pub async fn append(
    conn: &mut Connection,
    seal: Option<&RecordSeal>,
    at: i64,
    event: &str,
    subject: &str,
    detail: &str,
    confirmed_by: Option<Method>,
) -> Result<(), StoreError> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO history (at, event, subject, detail, detail_fold, confirmed_by) VALUES (?, ?, ?, ?, ?, ?)
         RETURNING id",
    )
    .bind(at)
    .bind(event)
    .bind(subject)
    .bind(detail)
    .bind(crate::search_fold::fold(detail))
    .bind(confirmed_by.map(Method::as_str))
    .fetch_one(&mut *conn)
    .await?;
    if let Some(seal) = seal {
        let fields = HistoryFields { id, at, event, subject, detail, confirmed_by: confirmed_by.map(Method::as_str) };
        sqlx::query("UPDATE history SET seal = ? WHERE id = ?")
            .bind(seal.history(&fields))
            .bind(id)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// The latest `limit` entries, newest first.
pub async fn latest(store: &Store, limit: i64) -> Result<Vec<HistoryRecord>, StoreError> {
    // An entry's subject is a request id, a credential's jti, a pairing id or
    // an agent's key thumbprint, by event: each join finds what it names.
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT h.id, h.seal, h.at, h.event, h.subject, h.detail, h.confirmed_by,
                COALESCE(r.summary, rc.summary) AS summary,
                CASE WHEN r.summary IS NOT NULL THEN r.request_id ELSE rc.request_id END AS summary_of,
                COALESCE(ar.name, ap.name, aj.name) AS agent_name,
                COALESCE(ar.jkt, ap.jkt, aj.jkt) AS agent_jkt
         FROM history h
         LEFT JOIN requests r ON r.request_id = h.subject
         LEFT JOIN credentials c ON c.jti = h.subject
         LEFT JOIN requests rc ON rc.request_id = c.request_id
         LEFT JOIN agents ar ON ar.jkt = COALESCE(r.agent_jkt, rc.agent_jkt, c.agent_jkt)
         LEFT JOIN agents ap ON ap.pairing_id = h.subject
         LEFT JOIN agents aj ON aj.jkt = h.subject
         ORDER BY h.id DESC LIMIT ?",
    )
    .bind(limit)
    .fetch_all(store.pool())
    .await?;
    rows.into_iter().map(HistoryRecord::try_from).collect()
}

/// The entries `filter` finds, newest first, after `cursor` (the id of the
/// last entry of the page before), at most `filter.limit + 1` of them: the
/// one past the page says that there is a next. `events`, when given, are
/// the events kept (an answer's, `record_query::HistoryAnswer::events`).
/// Keyset paging on the entry's id, so an entry written while the person
/// pages comes before the first page and never shifts the others.
// Long by design: one SQL statement built clause by clause, each beside its binding.
pub async fn search(
    store: &Store,
    filter: &Filter,
    events: Option<&[&str]>,
    cursor: Option<HistoryCursor>,
) -> Result<Vec<(i64, HistoryRecord)>, StoreError> {
    let events = events.map(|e| serde_json::to_string(e).expect("event names serialize"));
    // Every value is a bound parameter; the text is a LIKE pattern whose
    // wildcards `record_query` escaped, folded (`search_fold`) as the
    // `*_fold` copies it is matched against (search_folds; a row not folded
    // yet is matched as stored). A request's hosts are the bindings it
    // was shown with (migration 0010), a credential's its `aud`; a host
    // matches by id or by the domain it was verified at.
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT h.id, h.seal, h.at, h.event, h.subject, h.detail, h.confirmed_by,
                COALESCE(r.summary, rc.summary) AS summary,
                CASE WHEN r.summary IS NOT NULL THEN r.request_id ELSE rc.request_id END AS summary_of,
                COALESCE(ar.name, ap.name, aj.name) AS agent_name,
                COALESCE(ar.jkt, ap.jkt, aj.jkt) AS agent_jkt
         FROM history h
         LEFT JOIN requests r ON r.request_id = h.subject
         LEFT JOIN credentials c ON c.jti = h.subject
         LEFT JOIN requests rc ON rc.request_id = c.request_id
         LEFT JOIN agents ar ON ar.jkt = COALESCE(r.agent_jkt, rc.agent_jkt, c.agent_jkt)
         LEFT JOIN agents ap ON ap.pairing_id = h.subject
         LEFT JOIN agents aj ON aj.jkt = h.subject
         WHERE (?1 IS NULL OR h.id < ?1)
           AND (?2 IS NULL OR h.at >= ?2)
           AND (?3 IS NULL OR h.at < ?3)
           AND (?4 IS NULL OR h.event IN (SELECT value FROM json_each(?4)))
           AND (?5 IS NULL OR COALESCE(ar.jkt, ap.jkt, aj.jkt) = ?5
                OR COALESCE(ar.fingerprint, ap.fingerprint, aj.fingerprint) = ?5
                OR COALESCE(ar.name, ap.name, aj.name) = ?5 COLLATE NOCASE)
           AND (?6 IS NULL
                OR EXISTS (SELECT 1 FROM json_each(COALESCE(r.hosts, rc.hosts, '[]')) j
                           WHERE j.value->>'host_id' = ?6 OR j.value->>'domain' = ?6 COLLATE NOCASE)
                OR EXISTS (SELECT 1 FROM json_each(COALESCE(c.aud, '[]')) j WHERE j.value = ?6)
                OR EXISTS (SELECT 1 FROM credential_hosts ch
                           WHERE ch.jti = c.jti AND (ch.host_id = ?6 OR ch.domain = ?6 COLLATE NOCASE))
                OR (h.event = 'host_domain_accepted' AND h.subject = ?6))
           AND (?7 IS NULL
                OR COALESCE(r.summary_fold, r.summary, rc.summary_fold, rc.summary, '') LIKE ?7 ESCAPE '\\'
                OR COALESCE(ar.name_fold, ar.name, ap.name_fold, ap.name, aj.name_fold, aj.name, '') LIKE ?7 ESCAPE '\\'
                OR (h.event IN ('contact_added', 'contact_renamed', 'contact_removed', 'pairing_requested',
                                'host_domain_accepted', 'attestation_added')
                    AND COALESCE(h.detail_fold, h.detail) LIKE ?7 ESCAPE '\\')
                OR EXISTS (SELECT 1 FROM json_each(COALESCE(r.hosts, rc.hosts, '[]')) j
                           WHERE j.value->>'domain' LIKE ?7 ESCAPE '\\' OR j.value->>'host_id' LIKE ?7 ESCAPE '\\'))
         ORDER BY h.id DESC LIMIT ?8",
    )
    .bind(cursor.map(|c| c.0))
    .bind(filter.since)
    .bind(filter.until)
    .bind(events)
    .bind(&filter.agent)
    .bind(&filter.host)
    .bind(&filter.pattern)
    .bind(filter.limit + 1)
    .fetch_all(store.pool())
    .await?;
    rows.into_iter().map(|r| Ok((r.id, HistoryRecord::try_from(r)?))).collect()
}

/// A host a search can be narrowed to: its id (the filter's value), the
/// domain it is bound to and its name there, when the records know it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct HostChoice {
    pub host_id: String,
    pub domain: String,
    pub name: Option<String>,
    /// The binding's basis and seal (record_seal): a host is offered only
    /// from a binding the key app sealed.
    pub basis: String,
    pub seal: Option<String>,
}

/// What the person can narrow a search to: every host the key app verified,
/// by name, and every assistant ever paired (key thumbprint, name).
pub async fn filter_choices(store: &Store) -> Result<(Vec<HostChoice>, Vec<(String, String)>), StoreError> {
    let hosts = sqlx::query_as(
        "SELECT host_id, domain, name, basis, seal FROM host_bindings ORDER BY COALESCE(name, domain) COLLATE NOCASE, host_id",
    )
    .fetch_all(store.pool())
    .await?;
    let agents = sqlx::query_as(
        "SELECT jkt, name FROM agents WHERE status IN ('approved', 'unpaired') ORDER BY name COLLATE NOCASE, jkt",
    )
    .fetch_all(store.pool())
    .await?;
    Ok((hosts, agents))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::testing;

    #[tokio::test]
    async fn entries_come_back_newest_first_with_how_a_yes_was_confirmed_each_sealed() {
        let (_dir, store) = testing::store().await;
        let key = ed25519_dalek::SigningKey::from_bytes(&[7; 32]);
        store.seal_history_with(RecordSeal::of(&key).unwrap());
        let mut tx = store.begin().await.unwrap();
        let seal = store.history_seal();
        append(&mut tx, seal, 10, "pairing_requested", "pr_1", "Calendar", None).await.unwrap();
        append(&mut tx, seal, 11, "pairing_approved", "pr_1", "", Some(Method::Polkit)).await.unwrap();
        append(&mut tx, seal, 12, "agent_unpaired", "jkt", "", None).await.unwrap();
        tx.commit().await.unwrap();
        let mut got = latest(&store, 2).await.unwrap();
        // Each sealed over what it says and where it is, as written.
        let check = RecordSeal::of(&key).unwrap();
        for h in &mut got {
            assert!(check.history_holds(&h.fields(), h.seal.as_deref()), "{h:?}");
            h.seal = None;
        }
        assert_eq!(
            got,
            [
                HistoryRecord {
                    id: 3,
                    seal: None,
                    at: 12,
                    event: "agent_unpaired".into(),
                    subject: "jkt".into(),
                    detail: String::new(),
                    confirmed_by: None,
                    summary: None,
                    summary_of: None,
                    agent_name: None,
                    agent_jkt: None,
                },
                HistoryRecord {
                    id: 2,
                    seal: None,
                    at: 11,
                    event: "pairing_approved".into(),
                    subject: "pr_1".into(),
                    detail: String::new(),
                    confirmed_by: Some(Method::Polkit),
                    summary: None,
                    summary_of: None,
                    agent_name: None,
                    agent_jkt: None,
                },
            ]
        );
        assert_eq!(latest(&store, 10).await.unwrap().len(), 3);
    }

    #[tokio::test]
    async fn an_entry_rolled_back_with_its_change_is_not_in_the_history() {
        let (_dir, store) = testing::store().await;
        let mut tx = store.begin().await.unwrap();
        append(&mut tx, None, 10, "contact_added", "urn:x", "Ellis", None).await.unwrap();
        tx.rollback().await.unwrap();
        assert!(latest(&store, 10).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn an_unknown_confirmation_method_reads_as_an_entry_without_its_seal_beside_the_others() {
        let (_dir, store) = testing::store().await;
        let mut tx = store.begin().await.unwrap();
        append(&mut tx, None, 1, "contact_added", "urn:x", "Ellis", None).await.unwrap();
        tx.commit().await.unwrap();
        testing::write_unchecked(
            &store,
            "INSERT INTO history (at, event, subject, detail, confirmed_by, seal)
             VALUES (2, 'request_approved', 'rq_1', 'mandate', 'fingerprint-reader', 'a seal')",
        )
        .await;
        let got = latest(&store, 10).await.unwrap();
        assert_eq!(got.len(), 2, "one such row does not take the history down: {got:?}");
        assert_eq!((got[0].confirmed_by, got[0].seal.as_deref()), (None, None), "{got:?}");
        assert_eq!(got[1].event, "contact_added");
    }
}
