//! Agent keys and their pairing with the person (docs/agent-api.md §4), as
//! the person's surfaces list them. The rules are `service::pairing`'s.

use super::{Store, StoreError};

/// A paired agent with the time and kind of its last request.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PairedAgentRow {
    pub jkt: String,
    /// As the agent gave it; shown only through `schcp_consent::inert`.
    pub name: String,
    pub fingerprint: String,
    /// When the person approved it (its request time for older records).
    pub paired_at: i64,
    pub last_request_at: Option<i64>,
    pub last_request_kind: Option<String>,
}

/// Every approved agent, in the order they asked to pair.
pub async fn paired(store: &Store) -> Result<Vec<PairedAgentRow>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT a.jkt, a.name, a.fingerprint, coalesce(a.decided_at, a.created_at) AS paired_at,
                (SELECT max(r.created_at) FROM requests r WHERE r.agent_jkt = a.jkt) AS last_request_at,
                (SELECT r.kind FROM requests r WHERE r.agent_jkt = a.jkt ORDER BY r.created_at DESC LIMIT 1)
                  AS last_request_kind
         FROM agents a WHERE a.status = 'approved' ORDER BY a.created_at",
    )
    .fetch_all(store.pool())
    .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_approved_agents_are_listed_with_their_latest_request() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("keyapp.db")).await.unwrap();
        for (jkt, status, created, decided) in
            [("a", "approved", 1, Some(5)), ("b", "declined", 2, Some(6)), ("c", "approved", 3, None)]
        {
            sqlx::query(
                "INSERT INTO agents (jkt, jwk, name, pairing_id, fingerprint, status, created_at, decided_at)
                         VALUES (?, '{}', ?, ?, 'f', ?, ?, ?)",
            )
            .bind(jkt)
            .bind(format!("Agent {jkt}"))
            .bind(format!("pr_{jkt}"))
            .bind(status)
            .bind(created)
            .bind(decided)
            .execute(store.pool())
            .await
            .unwrap();
        }
        for (id, kind, created) in [("r1", "rule", 10), ("r2", "mandate", 20)] {
            sqlx::query(
                "INSERT INTO requests (request_id, agent_jkt, kind, idempotency_key, body_sha256, status,
                                       consent_text, input, created_at, expires_at)
                 VALUES (?, 'a', ?, ?, 'h', 'pending', 't', '{}', ?, 100)",
            )
            .bind(id)
            .bind(kind)
            .bind(id)
            .bind(created)
            .execute(store.pool())
            .await
            .unwrap();
        }
        let listed = paired(&store).await.unwrap();
        let row = |jkt: &str, paired_at, last: Option<(i64, &str)>| PairedAgentRow {
            jkt: jkt.into(),
            name: format!("Agent {jkt}"),
            fingerprint: "f".into(),
            paired_at,
            last_request_at: last.map(|l| l.0),
            last_request_kind: last.map(|l| l.1.to_owned()),
        };
        assert_eq!(listed, [row("a", 5, Some((20, "mandate"))), row("c", 3, None)]);
    }
}
