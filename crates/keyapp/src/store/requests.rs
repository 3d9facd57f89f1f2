//! Requests as the person's edits reach them before an answer: a rule's
//! label, which the person may reword before signing (§7.9).

use super::{Store, StoreError};

/// The stored verified input (JSON) of rule request `request_id`, whatever its status.
pub async fn rule_input(store: &Store, request_id: &str) -> Result<Option<String>, StoreError> {
    let row: Option<(String,)> = sqlx::query_as("SELECT input FROM requests WHERE request_id = ? AND kind = 'rule'")
        .bind(request_id)
        .fetch_optional(store.pool())
        .await?;
    Ok(row.map(|(input,)| input))
}

/// Replaces a pending rule's input and its consent text together. `false`:
/// it is no longer pending (or no rule), and nothing was written.
pub async fn reword_pending_rule(
    store: &Store,
    request_id: &str,
    input: &str,
    consent_text: &str,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE requests SET input = ?, consent_text = ? WHERE request_id = ? AND status = 'pending' AND kind = 'rule'",
    )
    .bind(input)
    .bind(consent_text)
    .bind(request_id)
    .execute(store.pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn request(store: &Store, id: &str, kind: &str, status: &str) {
        sqlx::query(
            "INSERT INTO requests (request_id, agent_jkt, kind, idempotency_key, body_sha256, status,
                                   consent_text, input, created_at, expires_at)
             VALUES (?, 'j', ?, ?, 'h', ?, 'old text', '{\"rule\":{}}', 1, 100)",
        )
        .bind(id)
        .bind(kind)
        .bind(id)
        .bind(status)
        .execute(store.pool())
        .await
        .unwrap();
    }

    #[tokio::test]
    async fn only_a_pending_rule_is_reworded() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("keyapp.db")).await.unwrap();
        sqlx::query(
            "INSERT INTO agents (jkt, jwk, name, pairing_id, fingerprint, status, created_at)
                     VALUES ('j', '{}', 'A', 'pr_1', 'f', 'approved', 0)",
        )
        .execute(store.pool())
        .await
        .unwrap();
        request(&store, "rq_rule", "rule", "pending").await;
        request(&store, "rq_done", "rule", "approved").await;
        request(&store, "rq_mandate", "mandate", "pending").await;
        assert_eq!(rule_input(&store, "rq_rule").await.unwrap().as_deref(), Some("{\"rule\":{}}"));
        assert_eq!(rule_input(&store, "rq_mandate").await.unwrap(), None);
        assert_eq!(rule_input(&store, "rq_none").await.unwrap(), None);

        assert!(reword_pending_rule(&store, "rq_rule", "{\"rule\":{\"label\":\"x\"}}", "new text").await.unwrap());
        assert_eq!(rule_input(&store, "rq_rule").await.unwrap().as_deref(), Some("{\"rule\":{\"label\":\"x\"}}"));
        for id in ["rq_done", "rq_mandate", "rq_none"] {
            assert!(!reword_pending_rule(&store, id, "{}", "new text").await.unwrap(), "{id}");
        }
        let texts: Vec<(String,)> = sqlx::query_as("SELECT consent_text FROM requests ORDER BY request_id")
            .fetch_all(store.pool())
            .await
            .unwrap();
        let texts: Vec<_> = texts.into_iter().map(|(t,)| t).collect();
        assert_eq!(texts, ["old text", "old text", "new text"], "done, mandate, rule");
    }
}
