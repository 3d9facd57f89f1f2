//! Where a management mandate stands in its chain (§3.3 "Management
//! mandates", "Renewal"; migration 0010): the root it was issued under without
//! a prompt, its booking, and the receipt's sequence it was issued on.

use super::{StoreError, Stored};
use crate::store::Store;

/// A management mandate's link, written in the approval's transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagementLink {
    pub jti: String,
    /// The root mandate it rests on; `None` when the person approved it.
    pub root_jti: Option<String>,
    pub host_id: String,
    pub booking_id: String,
    /// The receipt's `booking.sequence` (§5.7: each change adds one).
    pub sequence: u32,
    /// The receipt's retention (§5.3), which a renewal's receipt must repeat.
    pub retention: String,
}

/// The management mandate in force for a booking: the latest one not revoked
/// and not expired at `now`, with the agent it was issued to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrentManagement {
    pub link: ManagementLink,
    pub agent_jkt: Option<String>,
    pub exp: i64,
}

pub async fn insert(conn: &mut sqlx::SqliteConnection, link: &ManagementLink) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO management_links (jti, root_jti, host_id, booking_id, sequence, retention)
         VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(&link.jti)
    .bind(&link.root_jti)
    .bind(&link.host_id)
    .bind(&link.booking_id)
    .bind(link.sequence)
    .bind(&link.retention)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Why a management mandate's link is not recorded: what its request read
/// when it was made changed before the approval's commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Superseded {
    /// A management mandate for the booking was recorded on this receipt's
    /// sequence or a newer one meanwhile (a twin of the request): a replay.
    #[error("a management mandate for this booking was already issued on this receipt or a newer one")]
    Sequence,
    /// The root a silent one rests on was revoked, or expired, meanwhile.
    #[error("the root mandate it would rest on was revoked or has expired")]
    RootGone,
    /// The management mandate a silent renewal replaces was revoked meanwhile.
    #[error("the management mandate it would renew was revoked")]
    ReplacedGone,
}

/// Records a management mandate's link in the approval's transaction. A
/// renewal replaces the previous management mandate (§3.3 "Renewal"), which is
/// revoked in the same commit, and owed to the hosted status service where it
/// was registered there.
///
/// What the request's checks read is read again here, in the transaction
/// (called after its first write, so no other writer commits in between):
/// a twin request on the same receipt, or a revocation of the root or of the
/// mandate renewed, committed since those checks, leaves nothing recorded. A
/// silent management mandate can then never outlive a root the person
/// revoked, nor be had twice for one receipt.
pub async fn record(
    conn: &mut sqlx::SqliteConnection,
    history_seal: Option<&crate::record_seal::RecordSeal>,
    link: &ManagementLink,
    replaces: Option<&str>,
    now: i64,
) -> Result<Result<(), Superseded>, StoreError> {
    let newer: Option<i64> = sqlx::query_scalar(
        "SELECT 1 FROM management_links WHERE host_id = ? AND booking_id = ? AND sequence >= ? LIMIT 1",
    )
    .bind(&link.host_id)
    .bind(&link.booking_id)
    .bind(link.sequence)
    .fetch_optional(&mut *conn)
    .await?;
    if newer.is_some() {
        return Ok(Err(Superseded::Sequence));
    }
    if let Some(root) = &link.root_jti {
        if !in_force(conn, root, Some(now)).await? {
            return Ok(Err(Superseded::RootGone));
        }
        if let Some(old) = replaces {
            if !in_force(conn, old, None).await? {
                return Ok(Err(Superseded::ReplacedGone));
            }
        }
    }
    insert(conn, link).await?;
    if let Some(old) = replaces {
        super::credentials::revoke_in(conn, history_seal, old, now, true).await?;
    }
    Ok(Ok(()))
}

/// Whether credential `jti` is not revoked (and, given `now`, not expired).
async fn in_force(conn: &mut sqlx::SqliteConnection, jti: &str, now: Option<i64>) -> Result<bool, StoreError> {
    let found: Option<i64> =
        sqlx::query_scalar("SELECT 1 FROM credentials WHERE jti = ? AND revoked_at IS NULL AND (? IS NULL OR exp > ?)")
            .bind(jti)
            .bind(now)
            .bind(now)
            .fetch_optional(&mut *conn)
            .await?;
    Ok(found.is_some())
}

/// The management mandates still in force that were issued under `root`.
pub async fn issued_under(conn: &mut sqlx::SqliteConnection, root: &str) -> Result<Vec<String>, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT l.jti FROM management_links l JOIN credentials c ON c.jti = l.jti
         WHERE l.root_jti = ? AND c.revoked_at IS NULL ORDER BY l.jti",
    )
    .bind(root)
    .fetch_all(&mut *conn)
    .await?)
}

#[derive(sqlx::FromRow)]
struct CurrentRow {
    jti: String,
    root_jti: Option<String>,
    host_id: String,
    booking_id: String,
    sequence: i64,
    retention: String,
    agent_jkt: Option<String>,
    exp: i64,
}

impl TryFrom<CurrentRow> for CurrentManagement {
    type Error = StoreError;

    fn try_from(r: CurrentRow) -> Result<CurrentManagement, StoreError> {
        let sequence = u32::try_from(r.sequence)
            .map_err(|_| StoreError::corrupt(Stored::ManagementLink, format!("sequence {}", r.sequence)))?;
        Ok(CurrentManagement {
            link: ManagementLink {
                jti: r.jti,
                root_jti: r.root_jti,
                host_id: r.host_id,
                booking_id: r.booking_id,
                sequence,
                retention: r.retention,
            },
            agent_jkt: r.agent_jkt,
            exp: r.exp,
        })
    }
}

/// The booking's management mandate in force at `now`, if any.
pub async fn current(
    store: &Store,
    host_id: &str,
    booking_id: &str,
    now: i64,
) -> Result<Option<CurrentManagement>, StoreError> {
    let row: Option<CurrentRow> = sqlx::query_as(
        "SELECT l.jti, l.root_jti, l.host_id, l.booking_id, l.sequence, l.retention, c.agent_jkt, c.exp
         FROM management_links l JOIN credentials c ON c.jti = l.jti
         WHERE l.host_id = ? AND l.booking_id = ? AND c.revoked_at IS NULL AND c.exp > ?
         ORDER BY l.sequence DESC, c.iat DESC LIMIT 1",
    )
    .bind(host_id)
    .bind(booking_id)
    .bind(now)
    .fetch_optional(store.pool())
    .await?;
    row.map(CurrentManagement::try_from).transpose()
}

/// The highest receipt sequence any management mandate for the booking was
/// issued on, revoked or not: a receipt not newer is a replay.
pub async fn latest_sequence(store: &Store, host_id: &str, booking_id: &str) -> Result<Option<u32>, StoreError> {
    let max: Option<i64> =
        sqlx::query_scalar("SELECT max(sequence) FROM management_links WHERE host_id = ? AND booking_id = ?")
            .bind(host_id)
            .bind(booking_id)
            .fetch_one(store.pool())
            .await?;
    Ok(max.and_then(|m| u32::try_from(m).ok()))
}

/// A root mandate as the records hold it, for deciding whether a receipt that
/// cites it may have a management mandate without a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootRecord {
    pub jti: String,
    pub agent_jkt: Option<String>,
    pub scope: Vec<schcp::claims::Action>,
    pub aud: Vec<String>,
    pub exp: i64,
    /// The signed mandate, whose constraints the management mandate keeps.
    pub compact: String,
}

/// The root mandate `jti` (kind `mandate`), in force at `now`; `None` for any
/// other credential, a revoked one or an expired one.
pub async fn live_root(store: &Store, jti: &str, now: i64) -> Result<Option<RootRecord>, StoreError> {
    #[derive(sqlx::FromRow)]
    struct Row {
        agent_jkt: Option<String>,
        scope: String,
        aud: String,
        exp: i64,
        compact: String,
    }
    let row: Option<Row> = sqlx::query_as(
        "SELECT agent_jkt, scope, aud, exp, compact FROM credentials
         WHERE jti = ? AND kind = 'mandate' AND revoked_at IS NULL AND exp > ?",
    )
    .bind(jti)
    .bind(now)
    .fetch_optional(store.pool())
    .await?;
    let corrupt = |e: serde_json::Error| StoreError::corrupt(Stored::ManagementLink, format!("{jti}: {e}"));
    row.map(|r| {
        Ok(RootRecord {
            jti: jti.to_owned(),
            agent_jkt: r.agent_jkt,
            scope: serde_json::from_str(&r.scope).map_err(corrupt)?,
            aud: serde_json::from_str(&r.aud).map_err(corrupt)?,
            exp: r.exp,
            compact: r.compact,
        })
    })
    .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kind::RequestKind;
    use crate::store::credentials::{self, CredentialRecord, RevokeOutcome};

    const NOW: i64 = 1_792_000_000;
    const BASE: &str = "https://status.example";

    fn record(jti: &str, kind: RequestKind) -> CredentialRecord {
        CredentialRecord {
            jti: jti.into(),
            kind,
            agent_jkt: Some("agent".into()),
            request_id: None,
            aud: vec!["maple-street-auto".into()],
            scope: vec![],
            iat: NOW,
            exp: NOW + 3600,
            compact: "x.y.z".into(),
            status_url: Some(format!("{BASE}/status/T/{jti}")),
            max_bookings: None,
            shared_limit: false,
            booking_id: (kind == RequestKind::ManagementMandate).then(|| "b_1".into()),
            host_keys: Default::default(),
        }
    }

    fn link(jti: &str, root: Option<&str>, sequence: u32) -> ManagementLink {
        ManagementLink {
            jti: jti.into(),
            root_jti: root.map(str::to_owned),
            host_id: "maple-street-auto".into(),
            booking_id: "b_1".into(),
            sequence,
            retention: "P365D".into(),
        }
    }

    async fn revoked(store: &Store, jti: &str) -> bool {
        let (r,): (Option<i64>,) = sqlx::query_as("SELECT revoked_at FROM credentials WHERE jti = ?")
            .bind(jti)
            .fetch_one(store.pool())
            .await
            .unwrap();
        r.is_some()
    }

    async fn owed_revocations(store: &Store) -> Vec<String> {
        let rows: Vec<(String,)> = sqlx::query_as("SELECT jti FROM status_outbox WHERE op = 'revoke' ORDER BY jti")
            .fetch_all(store.pool())
            .await
            .unwrap();
        rows.into_iter().map(|(j,)| j).collect()
    }

    /// The root, a management mandate issued under it, and one the person
    /// approved (no root), each registered with the hosted status service.
    async fn chain() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("k.db")).await.unwrap();
        let mut tx = store.pool().begin().await.unwrap();
        for (jti, kind) in [
            ("m-root", RequestKind::Mandate),
            ("m-silent", RequestKind::ManagementMandate),
            ("m-asked", RequestKind::ManagementMandate),
        ] {
            credentials::insert(&mut tx, &record(jti, kind)).await.unwrap();
            crate::store::outbox::enqueue_register(&mut tx, jti, BASE, NOW).await.unwrap();
        }
        insert(&mut tx, &link("m-silent", Some("m-root"), 0)).await.unwrap();
        insert(&mut tx, &link("m-asked", None, 1)).await.unwrap();
        tx.commit().await.unwrap();
        (dir, store)
    }

    #[tokio::test]
    async fn revoking_a_root_revokes_what_was_issued_under_it_and_publishes_both() {
        let (_dir, store) = chain().await;
        assert_eq!(credentials::revoke_and_publish(&store, "m-root", NOW + 1).await.unwrap(), RevokeOutcome::Revoked);
        assert!(revoked(&store, "m-root").await && revoked(&store, "m-silent").await);
        assert!(!revoked(&store, "m-asked").await, "one the person approved rests on no root");
        assert_eq!(owed_revocations(&store).await, vec!["m-root".to_owned(), "m-silent".to_owned()]);
        // Revoking a management mandate alone leaves its root alone.
        let (_dir, store) = chain().await;
        credentials::revoke(&store, "m-silent", NOW + 1).await.unwrap();
        assert!(!revoked(&store, "m-root").await);
    }

    #[tokio::test]
    async fn the_booking_s_current_mandate_and_a_renewal_that_replaces_it() {
        let (_dir, store) = chain().await;
        let now_in_force = current(&store, "maple-street-auto", "b_1", NOW).await.unwrap().unwrap();
        assert_eq!(now_in_force.link.jti, "m-asked", "the latest sequence");
        assert_eq!(latest_sequence(&store, "maple-street-auto", "b_1").await.unwrap(), Some(1));
        assert_eq!(latest_sequence(&store, "maple-street-auto", "b_other").await.unwrap(), None);
        let mut tx = store.pool().begin().await.unwrap();
        credentials::insert(&mut tx, &record("m-renewed", RequestKind::ManagementMandate)).await.unwrap();
        record_link(&mut tx, &link("m-renewed", None, 2), Some("m-asked")).await;
        tx.commit().await.unwrap();
        assert!(revoked(&store, "m-asked").await, "the renewal replaces it");
        assert_eq!(current(&store, "maple-street-auto", "b_1", NOW).await.unwrap().unwrap().link.jti, "m-renewed");
        // Past its exp, nothing is in force.
        assert_eq!(current(&store, "maple-street-auto", "b_1", NOW + 3600).await.unwrap(), None);
    }

    async fn record_link(tx: &mut sqlx::SqliteConnection, l: &ManagementLink, replaces: Option<&str>) {
        super::record(tx, None, l, replaces, NOW + 1).await.unwrap().unwrap();
    }

    /// What a silent management mandate rests on is read again in the
    /// approval's transaction: a root revoked, or a mandate renewed revoked,
    /// since the request's checks, or a twin on the same receipt recorded
    /// first, and nothing is recorded.
    #[tokio::test]
    async fn a_link_whose_root_or_renewed_mandate_went_meanwhile_is_not_recorded() {
        let (_dir, store) = chain().await;
        let attempt = |l: ManagementLink, replaces: Option<&'static str>| {
            let store = store.clone();
            async move {
                let mut tx = store.pool().begin().await.unwrap();
                credentials::insert(&mut tx, &record(&l.jti, RequestKind::ManagementMandate)).await.unwrap();
                let r = super::record(&mut tx, store.history_seal(), &l, replaces, NOW + 1).await.unwrap();
                if r.is_ok() {
                    tx.commit().await.unwrap();
                }
                r
            }
        };
        // A twin on a sequence already recorded (m-asked is on 1).
        assert_eq!(attempt(link("m-twin", None, 1), None).await, Err(Superseded::Sequence));
        // The renewal's mandate revoked by the person since the request's checks.
        credentials::revoke(&store, "m-asked", NOW + 1).await.unwrap();
        assert_eq!(attempt(link("m-renew", Some("m-root"), 2), Some("m-asked")).await, Err(Superseded::ReplacedGone));
        // The root revoked since: nothing under it is recorded any more.
        credentials::revoke(&store, "m-root", NOW + 1).await.unwrap();
        assert_eq!(attempt(link("m-late", Some("m-root"), 3), None).await, Err(Superseded::RootGone));
        assert_eq!(latest_sequence(&store, "maple-street-auto", "b_1").await.unwrap(), Some(1), "nothing recorded");
        // One the person approves rests on no root, and is recorded.
        assert_eq!(attempt(link("m-yes", None, 4), None).await, Ok(()));
        assert_eq!(latest_sequence(&store, "maple-street-auto", "b_1").await.unwrap(), Some(4));
    }
}
