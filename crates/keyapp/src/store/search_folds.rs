//! The folded copies of the texts the records' search looks in (migration
//! 0020, `crate::search_fold`): a request's summary, an assistant's name and a
//! history entry's detail. Each is written with its text; [`fill`] folds what
//! an older key app (or a restored older backup) wrote without one.

use super::{Store, StoreError};

/// Each searched text, as (table, column); its folded copy is `{column}_fold`.
/// Names of the key app's own schema, never a caller's input.
const FOLDED: [(&str, &str); 3] = [("requests", "summary"), ("agents", "name"), ("history", "detail")];

/// Folds every searched text stored without its folded copy, in one
/// transaction. Run on each open, after the migrations: a look through the
/// partial indexes when nothing is left, so only the first open after an
/// upgrade (or a restore of an older backup) writes anything.
pub(crate) async fn fill(store: &Store) -> Result<(), StoreError> {
    let unfolded: (i64,) = sqlx::query_as(
        "SELECT EXISTS (SELECT 1 FROM requests WHERE summary_fold IS NULL)
             OR EXISTS (SELECT 1 FROM agents WHERE name_fold IS NULL)
             OR EXISTS (SELECT 1 FROM history WHERE detail_fold IS NULL)",
    )
    .fetch_one(store.pool())
    .await?;
    if unfolded.0 == 0 {
        return Ok(());
    }
    let mut tx = store.begin_immediate().await?;
    for (table, column) in FOLDED {
        let unfolded: Vec<(i64, String)> =
            sqlx::query_as(&format!("SELECT rowid, {column} FROM {table} WHERE {column}_fold IS NULL"))
                .fetch_all(&mut *tx)
                .await?;
        for (row, text) in unfolded {
            sqlx::query(&format!("UPDATE {table} SET {column}_fold = ? WHERE rowid = ?"))
                .bind(crate::search_fold::fold(&text))
                .bind(row)
                .execute(&mut *tx)
                .await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{history, Store, MIGRATOR};
    use crate::record_query::{HistoryQuery, RecordSearch};
    use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};

    /// Records written before the folded copies existed are found, without
    /// case or accents, once the key app opens them again; and what it writes
    /// afterwards is folded as it is written.
    #[tokio::test]
    async fn records_from_before_the_folds_are_found_after_the_upgrade() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keyapp.db");
        let options = SqliteConnectOptions::new().filename(&path).create_if_missing(true);
        let pool = SqlitePoolOptions::new().max_connections(1).connect_with(options).await.unwrap();
        // The migration's number may change on a merge; its name does not.
        let folds = MIGRATOR.iter().find(|m| m.description == "search folds").expect("the folds' migration").version;
        let before = sqlx::migrate::Migrator {
            migrations: std::borrow::Cow::Owned(MIGRATOR.iter().filter(|m| m.version < folds).cloned().collect()),
            ignore_missing: false,
            locking: true,
            no_tx: false,
        };
        before.run(&pool).await.unwrap();
        for sql in [
            "INSERT INTO agents (jkt, jwk, name, pairing_id, fingerprint, status, created_at)
             VALUES ('j', '{}', 'Assistant ÉLODIE', 'pr_1', 'f', 'approved', 0)",
            "INSERT INTO requests (request_id, agent_jkt, kind, idempotency_key, body_sha256, status,
                                   consent_text, input, created_at, expires_at, summary)
             VALUES ('rq_1', 'j', 'rule', 'k', 'h', 'approved', 't', '{}', 1, 10, 'Fête de l’École')",
            "INSERT INTO history (at, event, subject, detail) VALUES (2, 'request_approved', 'rq_1', 'rule')",
            "INSERT INTO history (at, event, subject, detail) VALUES (3, 'contact_added', 'urn:x', 'Çağla Öztürk')",
        ] {
            sqlx::query(sql).execute(&pool).await.unwrap();
        }
        pool.close().await;

        let store = Store::open(&path).await.unwrap();
        let found = |text: &str| {
            let store = store.clone();
            let query = HistoryQuery::from(RecordSearch { text: Some(text.into()), ..Default::default() });
            async move {
                let (filter, _) = query.check().unwrap();
                let rows = history::search(&store, &filter, None, None).await.unwrap();
                // What the entries are about (a request has two: created, approved).
                let mut subjects: Vec<String> = rows.into_iter().map(|(_, r)| r.subject).collect();
                subjects.dedup();
                subjects
            }
        };
        for text in ["fete", "FÊTE", "Fête", "ecole", "élodie", "ELODIE"] {
            assert_eq!(found(text).await, ["rq_1"], "{text}");
        }
        assert_eq!(found("cagla ozturk").await, ["urn:x"]);
        assert!(found("fêtes").await.is_empty());
        let unfolded: (i64,) = sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM requests WHERE summary_fold IS NULL)
                  + (SELECT COUNT(*) FROM agents WHERE name_fold IS NULL)
                  + (SELECT COUNT(*) FROM history WHERE detail_fold IS NULL)",
        )
        .fetch_one(store.pool())
        .await
        .unwrap();
        assert_eq!(unfolded.0, 0);

        // Written now: folded with its text, found the same way.
        let mut tx = store.begin().await.unwrap();
        history::append(&mut tx, store.history_seal(), 4, "contact_renamed", "urn:y", "Zoë Ångström", None)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        assert_eq!(found("zoe angstrom").await, ["urn:y"]);
    }
}
