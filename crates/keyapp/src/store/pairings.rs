//! Agent keys and their pairing with the person (docs/agent-api.md §4): one
//! row per key, its status, and the local user whose process asked. The rules
//! (bounds, cooldowns, expiry) are `service::pairing`'s; this is their SQL.

use super::{corrupt, history, Connection, Store, StoreError, Stored};
use crate::user_verification::Method;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PairingStatus {
    Pending,
    Approved,
    Declined,
    Expired,
    Unpaired,
}

impl std::fmt::Display for PairingStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PairingStatus {
    pub const ALL: [PairingStatus; 5] = [
        PairingStatus::Pending,
        PairingStatus::Approved,
        PairingStatus::Declined,
        PairingStatus::Expired,
        PairingStatus::Unpaired,
    ];

    /// A status as stored; anything the key app does not write is a corrupt
    /// record, never taken for `pending` (which the person could then approve).
    pub fn parse(s: &str) -> Result<PairingStatus, StoreError> {
        PairingStatus::ALL
            .into_iter()
            .find(|st| st.as_str() == s)
            .ok_or_else(|| corrupt(Stored::Pairing, format!("pairing status {s:?}")))
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PairingStatus::Pending => "pending",
            PairingStatus::Approved => "approved",
            PairingStatus::Declined => "declined",
            PairingStatus::Expired => "expired",
            PairingStatus::Unpaired => "unpaired",
        }
    }
}

/// An agent key's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRecord {
    /// The key's RFC 7638 thumbprint.
    pub jkt: String,
    pub name: String,
    pub pairing_id: String,
    pub status: PairingStatus,
    pub created_at: i64,
    /// When the person answered, or the pairing expired or was unpaired.
    pub decided_at: Option<i64>,
    /// The local user whose process asked, when known.
    pub peer_uid: Option<u32>,
    /// The agent's public JWK (JSON), as stored.
    pub jwk: String,
    /// Migration 0028: the service believes the row only while it holds.
    pub seal: Option<String>,
}

impl AgentRecord {
    /// The fields its seal covers (record_seal). An approved key, and one
    /// unpaired since, carries the seal of the person's yes; a pending,
    /// declined or expired one the seal it was added with.
    pub fn fields(&self) -> crate::record_seal::PairingFields<'_> {
        crate::record_seal::PairingFields {
            jkt: &self.jkt,
            jwk: &self.jwk,
            name: &self.name,
            pairing_id: &self.pairing_id,
            approved: matches!(self.status, PairingStatus::Approved | PairingStatus::Unpaired),
        }
    }
}

#[derive(sqlx::FromRow)]
struct Row {
    jkt: String,
    jwk: String,
    seal: Option<String>,
    name: String,
    pairing_id: String,
    status: String,
    created_at: i64,
    decided_at: Option<i64>,
    peer_uid: Option<i64>,
}

impl TryFrom<Row> for AgentRecord {
    type Error = StoreError;

    fn try_from(r: Row) -> Result<AgentRecord, StoreError> {
        Ok(AgentRecord {
            status: PairingStatus::parse(&r.status)?,
            peer_uid: r
                .peer_uid
                .map(|u| u32::try_from(u).map_err(|_| corrupt(Stored::Pairing, format!("peer_uid {u}"))))
                .transpose()?,
            jkt: r.jkt,
            jwk: r.jwk,
            seal: r.seal,
            name: r.name,
            pairing_id: r.pairing_id,
            created_at: r.created_at,
            decided_at: r.decided_at,
        })
    }
}

const SELECT: &str = "SELECT jkt, jwk, seal, name, pairing_id, status, created_at, decided_at, peer_uid FROM agents";

fn records(rows: Vec<Row>) -> Result<Vec<AgentRecord>, StoreError> {
    rows.into_iter().map(AgentRecord::try_from).collect()
}

/// The key `jkt`'s row, inside the caller's transaction.
pub async fn by_jkt(conn: &mut Connection, jkt: &str) -> Result<Option<AgentRecord>, StoreError> {
    let row: Option<Row> = sqlx::query_as(&format!("{SELECT} WHERE jkt = ?")).bind(jkt).fetch_optional(conn).await?;
    row.map(AgentRecord::try_from).transpose()
}

/// The pairing `pairing_id`; with `jkt`, only when it is that key's.
pub async fn by_pairing_id(
    store: &Store,
    pairing_id: &str,
    jkt: Option<&str>,
) -> Result<Option<AgentRecord>, StoreError> {
    let row: Option<Row> = sqlx::query_as(&format!("{SELECT} WHERE pairing_id = ?1 AND (?2 IS NULL OR jkt = ?2)"))
        .bind(pairing_id)
        .bind(jkt)
        .fetch_optional(store.pool())
        .await?;
    row.map(AgentRecord::try_from).transpose()
}

/// Every key in `status`, oldest first.
pub async fn with_status(store: &Store, status: PairingStatus) -> Result<Vec<AgentRecord>, StoreError> {
    let rows: Vec<Row> = sqlx::query_as(&format!("{SELECT} WHERE status = ? ORDER BY created_at"))
        .bind(status.as_str())
        .fetch_all(store.pool())
        .await?;
    records(rows)
}

/// Every agent key's row, oldest first.
pub async fn all(store: &Store) -> Result<Vec<AgentRecord>, StoreError> {
    let rows: Vec<Row> = sqlx::query_as(&format!("{SELECT} ORDER BY created_at")).fetch_all(store.pool()).await?;
    records(rows)
}

/// The key `jkt`'s row.
pub async fn by_key(store: &Store, jkt: &str) -> Result<Option<AgentRecord>, StoreError> {
    by_jkt(&mut *store.pool().acquire().await?, jkt).await
}

/// A pairing to add, pending the person's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPairing<'a> {
    pub jkt: &'a str,
    /// The agent's public JWK (JSON).
    pub jwk: &'a str,
    pub name: &'a str,
    pub pairing_id: &'a str,
    pub fingerprint: &'a str,
    pub created_at: i64,
    pub peer_uid: Option<u32>,
    /// The service's seal over it, pending (record_seal).
    pub seal: &'a str,
}

/// How many pairings may wait for the person at once: from one local user,
/// and from all together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingBounds {
    pub per_user: i64,
    pub all: i64,
}

/// Adds (or asks again for) a pending pairing inside the caller's transaction,
/// with its history entry, unless it would pass `bounds`: the bound is checked
/// in the statement that adds it, so two requests at once cannot both pass it.
/// `false`: refused, nothing written.
pub async fn add_pending(
    conn: &mut Connection,
    history_seal: Option<&crate::record_seal::RecordSeal>,
    p: &NewPairing<'_>,
    bounds: PendingBounds,
) -> Result<bool, StoreError> {
    let uid = p.peer_uid.map(i64::from);
    let done = sqlx::query(
        "INSERT INTO agents (jkt, jwk, name, name_fold, pairing_id, fingerprint, status, created_at, peer_uid, seal)
         SELECT ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?
         WHERE (SELECT COUNT(*) FROM agents WHERE status = 'pending' AND peer_uid IS ?) < ?
           AND (SELECT COUNT(*) FROM agents WHERE status = 'pending') < ?
         ON CONFLICT (jkt) DO UPDATE SET name = excluded.name, name_fold = excluded.name_fold, pairing_id = excluded.pairing_id,
           status = 'pending', created_at = excluded.created_at, decided_at = NULL,
           peer_uid = excluded.peer_uid, jwk = excluded.jwk, fingerprint = excluded.fingerprint,
           seal = excluded.seal",
    )
    .bind(p.jkt)
    .bind(p.jwk)
    .bind(p.name)
    .bind(crate::search_fold::fold(p.name))
    .bind(p.pairing_id)
    .bind(p.fingerprint)
    .bind(p.created_at)
    .bind(uid)
    .bind(p.seal)
    .bind(uid)
    .bind(bounds.per_user)
    .bind(bounds.all)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() == 0 {
        return Ok(false);
    }
    history::append(conn, history_seal, p.created_at, "pairing_requested", p.pairing_id, p.name, None).await?;
    Ok(true)
}

/// The pairings waiting for the person: how many are local user `peer_uid`'s,
/// the oldest of theirs, and the oldest of all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::FromRow)]
pub struct PendingLoad {
    pub mine: i64,
    pub oldest_mine: Option<i64>,
    pub oldest_all: Option<i64>,
}

pub async fn pending_load(conn: &mut Connection, peer_uid: Option<u32>) -> Result<PendingLoad, StoreError> {
    let uid = peer_uid.map(i64::from);
    Ok(sqlx::query_as(
        "SELECT COALESCE(SUM(peer_uid IS ?1), 0) AS mine,
                MIN(CASE WHEN peer_uid IS ?1 THEN created_at END) AS oldest_mine,
                MIN(created_at) AS oldest_all
         FROM agents WHERE status = 'pending'",
    )
    .bind(uid)
    .fetch_one(conn)
    .await?)
}

/// How many pairings from local user `peer_uid` were declined or expired at
/// or after `since`.
pub async fn churned(store: &Store, peer_uid: Option<u32>, since: i64) -> Result<i64, StoreError> {
    let (n,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM agents
         WHERE peer_uid IS ? AND status IN ('declined', 'expired') AND decided_at >= ?",
    )
    .bind(peer_uid.map(i64::from))
    .bind(since)
    .fetch_one(store.pool())
    .await?;
    Ok(n)
}

/// A pairing's seal as the service read it, and the one it carries from
/// now on (the person's yes).
#[derive(Debug, Clone, Copy)]
pub struct Reseal<'a> {
    pub was: &'a str,
    pub now: &'a str,
}

/// Settles pending pairing `pairing_id` as `to` (approved or declined), with
/// its history entry, in one transaction; with `reseal`, only if its seal is
/// still the one the service checked, and it then carries the new one.
/// `false`: it was not pending (or not that row), and nothing was written.
pub async fn settle(
    store: &Store,
    pairing_id: &str,
    to: PairingStatus,
    now: i64,
    confirmed_by: Option<Method>,
    reseal: Option<Reseal<'_>>,
) -> Result<bool, StoreError> {
    let mut tx = store.begin().await?;
    let done = sqlx::query(
        "UPDATE agents SET status = ?1, decided_at = ?2, seal = coalesce(?4, seal)
         WHERE pairing_id = ?3 AND status = 'pending' AND (?5 IS NULL OR seal = ?5)",
    )
    .bind(to.as_str())
    .bind(now)
    .bind(pairing_id)
    .bind(reseal.map(|r| r.now))
    .bind(reseal.map(|r| r.was))
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() == 0 {
        return Ok(false);
    }
    history::append(
        &mut tx,
        store.history_seal(),
        now,
        &format!("pairing_{}", to.as_str()),
        pairing_id,
        "",
        confirmed_by,
    )
    .await?;
    tx.commit().await?;
    Ok(true)
}

/// What unpairing wrote besides the pairing itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unpaired {
    /// The credentials revoked with it, management mandates issued under them
    /// included.
    pub revoked: Vec<String>,
    /// The credentials it still holds that no revocation could reach (a rule,
    /// a contract, one without a status URL): each lapses on its own.
    pub kept: Vec<super::agents::HeldCredential>,
}

/// Unpairs approved key `jkt` and withdraws its pending requests, with the
/// history entry, in one transaction; with `revoke`, every credential it holds
/// that a status URL names is revoked in that same transaction (each owed to
/// the hosted status service where it was registered there, §3.3 check 7).
/// `None`: it was not paired, and nothing was written.
pub async fn unpair(store: &Store, jkt: &str, now: i64, revoke: bool) -> Result<Option<Unpaired>, StoreError> {
    let mut tx = store.begin_immediate().await?;
    let done =
        sqlx::query("UPDATE agents SET status = 'unpaired', decided_at = ? WHERE jkt = ? AND status = 'approved'")
            .bind(now)
            .bind(jkt)
            .execute(&mut *tx)
            .await?;
    if done.rows_affected() == 0 {
        return Ok(None);
    }
    sqlx::query("UPDATE requests SET status = 'withdrawn', decided_at = ? WHERE agent_jkt = ? AND status = 'pending'")
        .bind(now)
        .bind(jkt)
        .execute(&mut *tx)
        .await?;
    history::append(&mut tx, store.history_seal(), now, "agent_unpaired", jkt, "", None).await?;
    // Read inside the transaction: a credential issued after the person was
    // asked is one the agent holds too, and goes with the others.
    let held = super::agents::held(&mut tx, jkt, now).await?;
    let (revocable, kept): (Vec<_>, Vec<_>) = held.into_iter().partition(|c| c.revocable());
    let mut out = Unpaired { revoked: Vec::new(), kept };
    if !revoke {
        out.kept.extend(revocable);
        tx.commit().await?;
        return Ok(Some(out));
    }
    for c in revocable {
        // §3.3 "Renewal never widens authority": management mandates issued
        // under a root go with it, as a revocation of the root alone does.
        let mut tree = vec![c.jti.clone()];
        tree.extend(super::management_links::issued_under(&mut tx, &c.jti).await?);
        for jti in tree {
            if super::credentials::revoke_in(&mut tx, store.history_seal(), &jti, now, true).await?
                == super::credentials::RevokeOutcome::Revoked
            {
                out.revoked.push(jti);
            }
        }
    }
    tx.commit().await?;
    Ok(Some(out))
}

/// Pending pairings created `ttl` seconds or more before `now` expire.
/// Returns how many did.
pub async fn expire(store: &Store, now: i64, ttl: i64) -> Result<u64, StoreError> {
    // A read first: the common case has nothing to expire, and a read takes no write lock.
    let due: Option<(i64,)> =
        sqlx::query_as("SELECT 1 FROM agents WHERE status = 'pending' AND created_at + ? <= ? LIMIT 1")
            .bind(ttl)
            .bind(now)
            .fetch_optional(store.pool())
            .await?;
    if due.is_none() {
        return Ok(0);
    }
    let done = sqlx::query(
        "UPDATE agents SET status = 'expired', decided_at = ? WHERE status = 'pending' AND created_at + ? <= ?",
    )
    .bind(now)
    .bind(ttl)
    .bind(now)
    .execute(store.pool())
    .await?;
    Ok(done.rows_affected())
}

/// Pending pairings `pairing_ids` expire now, whatever their age: the
/// service found they are not rows it wrote (record_seal), and a pending row
/// counts against the bounds on pairings waiting for the person. Returns how
/// many did.
pub async fn expire_these(store: &Store, pairing_ids: &[String], now: i64) -> Result<u64, StoreError> {
    let ids = serde_json::to_string(pairing_ids).map_err(|e| corrupt(Stored::Pairing, e.to_string()))?;
    let done = sqlx::query(
        "UPDATE agents SET status = 'expired', decided_at = ?
         WHERE status = 'pending' AND pairing_id IN (SELECT value FROM json_each(?))",
    )
    .bind(now)
    .bind(ids)
    .execute(store.pool())
    .await?;
    Ok(done.rows_affected())
}

/// A paired agent with the time and kind of its last request.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PairedAgentRow {
    pub jkt: String,
    pub jwk: String,
    pub pairing_id: String,
    pub seal: Option<String>,
    /// As the agent gave it; shown only through `schcp_consent::inert`.
    pub name: String,
    /// When the person approved it (its request time for older records).
    pub paired_at: i64,
    pub last_request_at: Option<i64>,
    pub last_request_kind: Option<String>,
}

impl PairedAgentRow {
    /// The fields its seal covers (record_seal): an approved key's, with the
    /// person's yes.
    pub fn fields(&self) -> crate::record_seal::PairingFields<'_> {
        crate::record_seal::PairingFields {
            jkt: &self.jkt,
            jwk: &self.jwk,
            name: &self.name,
            pairing_id: &self.pairing_id,
            approved: true,
        }
    }
}

/// Every approved agent, in the order they asked to pair.
pub async fn paired(store: &Store) -> Result<Vec<PairedAgentRow>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT a.jkt, a.jwk, a.pairing_id, a.seal, a.name, coalesce(a.decided_at, a.created_at) AS paired_at,
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
    use crate::store::testing;

    const BOUNDS: PendingBounds = PendingBounds { per_user: 2, all: 3 };

    fn asked<'a>(jkt: &'a str, pairing_id: &'a str, at: i64, peer_uid: Option<u32>) -> NewPairing<'a> {
        NewPairing {
            jkt,
            jwk: "{}",
            name: "Calendar",
            pairing_id,
            fingerprint: "AAAA-BBBB-CCCC",
            created_at: at,
            peer_uid,
            seal: "pending seal",
        }
    }

    async fn add(store: &Store, p: NewPairing<'_>) -> bool {
        let mut tx = store.begin_immediate().await.unwrap();
        let added = add_pending(&mut tx, store.history_seal(), &p, BOUNDS).await.unwrap();
        tx.commit().await.unwrap();
        added
    }

    #[test]
    fn a_stored_pairing_status_is_one_the_key_app_writes_or_an_error() {
        for st in PairingStatus::ALL {
            assert_eq!(PairingStatus::parse(st.as_str()).unwrap(), st);
        }
        for bad in ["", "Pending", "approved ", "paired"] {
            assert!(matches!(PairingStatus::parse(bad), Err(StoreError::Corrupt(_))), "{bad:?}");
        }
    }

    #[tokio::test]
    async fn a_pairing_is_added_read_back_and_bounded_per_user_and_in_all() {
        let (_dir, store) = testing::store().await;
        assert!(add(&store, asked("k1", "pr_1", 10, Some(1000))).await);
        assert!(add(&store, asked("k2", "pr_2", 11, Some(1000))).await);
        assert!(!add(&store, asked("k3", "pr_3", 12, Some(1000))).await, "user 1000's bound");
        assert!(add(&store, asked("k4", "pr_4", 13, None)).await);
        assert!(!add(&store, asked("k5", "pr_5", 14, Some(0))).await, "the bound of all");
        let entries = history::latest(&store, 10).await.unwrap();
        assert_eq!(entries.len(), 3, "one entry per pairing added, none for a refused one: {entries:?}");
        assert_eq!((entries[0].event.as_str(), entries[0].subject.as_str()), ("pairing_requested", "pr_4"));
        let mut conn = store.pool().acquire().await.unwrap();
        assert!(by_jkt(&mut conn, "k3").await.unwrap().is_none(), "a refused one left nothing");
        let load = pending_load(&mut conn, Some(1000)).await.unwrap();
        assert_eq!(load, PendingLoad { mine: 2, oldest_mine: Some(10), oldest_all: Some(10) });
        let load = pending_load(&mut conn, Some(7)).await.unwrap();
        assert_eq!(load, PendingLoad { mine: 0, oldest_mine: None, oldest_all: Some(10) });
        let k1 = by_jkt(&mut conn, "k1").await.unwrap().unwrap();
        drop(conn);
        assert_eq!(
            k1,
            AgentRecord {
                jkt: "k1".into(),
                name: "Calendar".into(),
                pairing_id: "pr_1".into(),
                status: PairingStatus::Pending,
                created_at: 10,
                decided_at: None,
                peer_uid: Some(1000),
                jwk: "{}".into(),
                seal: Some("pending seal".into()),
            }
        );
        assert_eq!(by_pairing_id(&store, "pr_1", None).await.unwrap(), Some(k1.clone()));
        assert_eq!(by_pairing_id(&store, "pr_1", Some("k1")).await.unwrap(), Some(k1));
        assert_eq!(by_pairing_id(&store, "pr_1", Some("k2")).await.unwrap(), None, "another key's");
        let pending: Vec<_> =
            with_status(&store, PairingStatus::Pending).await.unwrap().into_iter().map(|a| a.jkt).collect();
        assert_eq!(pending, ["k1", "k2", "k4"]);
        assert_eq!(by_key(&store, "k4").await.unwrap().map(|a| a.name).as_deref(), Some("Calendar"));
        assert_eq!(by_key(&store, "nobody").await.unwrap(), None);
    }

    #[tokio::test]
    async fn settling_unpairing_and_expiring_write_their_history_once() {
        let (_dir, store) = testing::store().await;
        for (k, id, at, uid) in [("k1", "pr_1", 10, Some(1000)), ("k2", "pr_2", 20, None), ("k3", "pr_3", 30, None)] {
            assert!(add(&store, asked(k, id, at, uid)).await);
        }
        // A yes settles only the row as the service read it (its seal then),
        // and leaves the new seal on it.
        let stale = Some(Reseal { was: "another seal", now: "approved seal" });
        assert!(!settle(&store, "pr_1", PairingStatus::Approved, 40, Some(Method::Polkit), stale).await.unwrap());
        let yes = Some(Reseal { was: "pending seal", now: "approved seal" });
        assert!(settle(&store, "pr_1", PairingStatus::Approved, 40, Some(Method::Polkit), yes).await.unwrap());
        assert!(!settle(&store, "pr_1", PairingStatus::Declined, 41, None, None).await.unwrap(), "no longer pending");
        assert!(settle(&store, "pr_2", PairingStatus::Declined, 42, None, None).await.unwrap());
        let k1 = by_key(&store, "k1").await.unwrap().unwrap();
        assert_eq!((k1.status, k1.seal.as_deref()), (PairingStatus::Approved, Some("approved seal")));
        let k2 = by_key(&store, "k2").await.unwrap().unwrap();
        assert_eq!((k2.status, k2.seal.as_deref()), (PairingStatus::Declined, Some("pending seal")));
        // Only k3 is still pending; at 30 + 600 it expires.
        assert_eq!(expire(&store, 629, 600).await.unwrap(), 0);
        assert_eq!(expire(&store, 630, 600).await.unwrap(), 1);
        assert_eq!(churned(&store, None, 42).await.unwrap(), 2, "declined at 42, expired at 630");
        assert_eq!(churned(&store, None, 43).await.unwrap(), 1);
        assert_eq!(churned(&store, Some(1000), 0).await.unwrap(), 0);
        assert!(unpair(&store, "k2", 700, true).await.unwrap().is_none(), "a declined key is not paired");
        for (id, status) in [("rq_1", "pending"), ("rq_2", "approved")] {
            sqlx::query(
                "INSERT INTO requests (request_id, agent_jkt, kind, idempotency_key, body_sha256, status,
                                       consent_text, input, created_at, expires_at)
                 VALUES (?1, 'k1', 'rule', ?1, 'h', ?2, 't', '{}', 50, 5000)",
            )
            .bind(id)
            .bind(status)
            .execute(store.pool())
            .await
            .unwrap();
        }
        assert_eq!(unpair(&store, "k1", 700, true).await.unwrap(), Some(Unpaired::default()), "it held nothing");
        let requests: Vec<(String, String, Option<i64>)> =
            sqlx::query_as("SELECT request_id, status, decided_at FROM requests ORDER BY request_id")
                .fetch_all(store.pool())
                .await
                .unwrap();
        assert_eq!(
            requests,
            [("rq_1".into(), "withdrawn".into(), Some(700)), ("rq_2".into(), "approved".into(), None)],
            "its pending requests are withdrawn with it"
        );
        assert!(unpair(&store, "k1", 701, true).await.unwrap().is_none(), "unpaired once");
        // The requests' own entries (a trigger writes them) aside.
        let events: Vec<_> = history::latest(&store, 5)
            .await
            .unwrap()
            .into_iter()
            .filter(|h| h.event != "request_created")
            .take(3)
            .map(|h| (h.event, h.subject, h.confirmed_by))
            .collect();
        assert_eq!(
            events,
            [
                ("agent_unpaired".to_owned(), "k1".to_owned(), None),
                ("pairing_declined".to_owned(), "pr_2".to_owned(), None),
                ("pairing_approved".to_owned(), "pr_1".to_owned(), Some(Method::Polkit)),
            ]
        );
    }

    #[tokio::test]
    async fn an_unknown_stored_status_is_a_corrupt_record_never_a_pending_one() {
        let (_dir, store) = testing::store().await;
        testing::write_unchecked(
            &store,
            "INSERT INTO agents (jkt, jwk, name, pairing_id, fingerprint, status, created_at)
             VALUES ('k1', '{}', 'Calendar', 'pr_1', 'F', 'paired', 1)",
        )
        .await;
        let corrupt =
            |r: Result<_, StoreError>| matches!(r, Err(StoreError::Corrupt(c)) if c.detail.contains("paired"));
        assert!(corrupt(by_pairing_id(&store, "pr_1", None).await.map(drop)));
        let mut conn = store.pool().acquire().await.unwrap();
        assert!(corrupt(by_jkt(&mut conn, "k1").await.map(drop)));
        drop(conn);
        // Listings by a status the key app writes never meet it.
        assert!(with_status(&store, PairingStatus::Pending).await.unwrap().is_empty());
        // Nor can it be settled as if it were pending.
        assert!(!settle(&store, "pr_1", PairingStatus::Approved, 2, None, None).await.unwrap());
    }

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
            jwk: "{}".into(),
            pairing_id: format!("pr_{jkt}"),
            seal: None,
            name: format!("Agent {jkt}"),
            paired_at,
            last_request_at: last.map(|l| l.0),
            last_request_kind: last.map(|l| l.1.to_owned()),
        };
        assert_eq!(listed, [row("a", 5, Some((20, "mandate"))), row("c", 3, None)]);
    }
}
