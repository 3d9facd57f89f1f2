//! The status address the person confirmed (migration 0017), and what the
//! outbox says of publishing to a hosted status service, for Settings. The
//! rules are `crate::status_address`'s and `service::status_setup`'s; this is
//! their SQL.

use super::{Store, StoreError};
use crate::status_address::StatusAddress;

/// The confirmed address and when and how the person confirmed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmed {
    pub address: StatusAddress,
    pub confirmed_at: i64,
    /// `polkit`, or `None` when "not now" changed nothing.
    pub confirmed_by: Option<String>,
    /// Migration 0027: the service believes the row only while it holds.
    pub seal: Option<String>,
}

impl Confirmed {
    /// The fields its seal covers (record_seal).
    pub fn fields(&self) -> crate::record_seal::StatusAddressFields<'_> {
        fields(&self.address, self.confirmed_at, self.confirmed_by.as_deref())
    }
}

/// The fields a confirmation's seal covers.
pub fn fields<'a>(
    address: &'a StatusAddress,
    confirmed_at: i64,
    confirmed_by: Option<&'a str>,
) -> crate::record_seal::StatusAddressFields<'a> {
    crate::record_seal::StatusAddressFields {
        hosted: address.hosted.as_deref(),
        public_base: &address.public_base,
        hosts_on_this_machine: address.hosts_on_this_machine,
        confirmed_at,
        confirmed_by,
    }
}

#[derive(sqlx::FromRow)]
struct Row {
    hosted: Option<String>,
    public_base: String,
    hosts_on_this_machine: bool,
    confirmed_at: i64,
    confirmed_by: Option<String>,
    seal: Option<String>,
}

/// The confirmed address as the records hold it, if the person has
/// confirmed or answered one; the service checks its seal.
pub async fn confirmed(store: &Store) -> Result<Option<Confirmed>, StoreError> {
    let row: Option<Row> = sqlx::query_as(
        "SELECT hosted, public_base, hosts_on_this_machine, confirmed_at, confirmed_by, seal
         FROM status_address WHERE id = 1",
    )
    .fetch_optional(store.pool())
    .await?;
    Ok(row.map(|r| Confirmed {
        address: StatusAddress {
            hosted: r.hosted,
            public_base: r.public_base,
            hosts_on_this_machine: r.hosts_on_this_machine,
        },
        confirmed_at: r.confirmed_at,
        confirmed_by: r.confirmed_by,
        seal: r.seal,
    }))
}

/// Keeps `address` as the confirmed one, replacing any before it, with
/// `seal` (the service's, over [`fields`]).
pub async fn confirm(
    store: &Store,
    address: &StatusAddress,
    now: i64,
    confirmed_by: Option<&str>,
    seal: &str,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO status_address (id, hosted, public_base, hosts_on_this_machine, confirmed_at, confirmed_by, seal)
         VALUES (1, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET hosted = excluded.hosted, public_base = excluded.public_base,
             hosts_on_this_machine = excluded.hosts_on_this_machine, confirmed_at = excluded.confirmed_at,
             confirmed_by = excluded.confirmed_by, seal = excluded.seal",
    )
    .bind(&address.hosted)
    .bind(&address.public_base)
    .bind(address.hosts_on_this_machine)
    .bind(now)
    .bind(confirmed_by)
    .bind(seal)
    .execute(store.pool())
    .await?;
    Ok(())
}

/// What the outbox says of publishing, over every status service it names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Publishing {
    /// When the service last acknowledged an update.
    pub last_acknowledged_at: Option<i64>,
    /// Updates neither acknowledged nor refused for good: waiting to go out.
    pub waiting: i64,
    /// The oldest waiting update that has failed: its attempts and last error.
    pub failing: Option<(i64, String)>,
    /// Updates refused for good, newest first: (jti, op, reason, refused_at).
    pub refused: Vec<(String, String, String, i64)>,
}

#[derive(sqlx::FromRow)]
struct Counts {
    last_acknowledged_at: Option<i64>,
    waiting: i64,
}

#[derive(sqlx::FromRow)]
struct Failing {
    attempts: i64,
    last_error: Option<String>,
}

#[derive(sqlx::FromRow)]
struct RefusedRow {
    jti: String,
    op: String,
    refusal: Option<String>,
    refused_at: i64,
}

/// At most this many refused updates are listed.
const MAX_REFUSED_LISTED: i64 = 20;

/// The outbox, summed up for Settings.
pub async fn publishing(store: &Store) -> Result<Publishing, StoreError> {
    let counts: Counts = sqlx::query_as(
        "SELECT max(acked_at) AS last_acknowledged_at,
                count(*) FILTER (WHERE acked_at IS NULL AND refused_at IS NULL) AS waiting
         FROM status_outbox",
    )
    .fetch_one(store.pool())
    .await?;
    let failing: Option<Failing> = sqlx::query_as(
        "SELECT attempts, last_error FROM status_outbox
         WHERE acked_at IS NULL AND refused_at IS NULL AND attempts > 0 ORDER BY id LIMIT 1",
    )
    .fetch_optional(store.pool())
    .await?;
    let refused: Vec<RefusedRow> = sqlx::query_as(
        "SELECT jti, op, refusal, refused_at FROM status_outbox
         WHERE refused_at IS NOT NULL ORDER BY refused_at DESC, id DESC LIMIT ?",
    )
    .bind(MAX_REFUSED_LISTED)
    .fetch_all(store.pool())
    .await?;
    Ok(Publishing {
        last_acknowledged_at: counts.last_acknowledged_at,
        waiting: counts.waiting,
        failing: failing.map(|f| (f.attempts, f.last_error.unwrap_or_default())),
        refused: refused.into_iter().map(|r| (r.jti, r.op, r.refusal.unwrap_or_default(), r.refused_at)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_confirmed_address_is_one_row_replaced_whole() {
        let (_dir, store) = crate::store::testing::store().await;
        assert_eq!(confirmed(&store).await.unwrap(), None);
        let hosted = StatusAddress {
            hosted: Some("https://status.example".into()),
            public_base: "http://127.0.0.1:7412".into(),
            hosts_on_this_machine: false,
        };
        confirm(&store, &hosted, 10, Some("polkit"), "s1").await.unwrap();
        confirm(&store, &StatusAddress::built_in(), 20, None, "s2").await.unwrap();
        let now = confirmed(&store).await.unwrap().unwrap();
        assert_eq!(
            (now.address, now.confirmed_at, now.confirmed_by, now.seal.as_deref()),
            (StatusAddress::built_in(), 20, None, Some("s2"))
        );
        let n: i64 = sqlx::query_scalar("SELECT count(*) FROM status_address").fetch_one(store.pool()).await.unwrap();
        assert_eq!(n, 1);
        // A second row cannot exist.
        let second = sqlx::query("INSERT INTO status_address VALUES (2, NULL, 'x', 0, 1, NULL, NULL)")
            .execute(store.pool())
            .await;
        assert!(second.is_err());
    }

    #[tokio::test]
    async fn an_empty_outbox_says_nothing_waits() {
        let (_dir, store) = crate::store::testing::store().await;
        assert_eq!(publishing(&store).await.unwrap(), Publishing::default());
    }
}
