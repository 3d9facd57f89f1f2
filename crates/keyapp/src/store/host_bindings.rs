//! Host ids bound to where they were verified (SchCP §2.2), the changes the
//! person may accept, and what each credential was issued against
//! (migration 0010). The rules are `crate::host_binding`'s; this is their SQL.

use super::{Store, StoreError, Stored};
use crate::host_binding::{Basis, HostBinding};
use serde::Serialize;

fn basis(s: &str) -> Result<Basis, StoreError> {
    Basis::parse(s).ok_or_else(|| StoreError::corrupt(Stored::HostBinding, format!("host binding basis {s:?}")))
}

fn thumbprints(json: &str) -> Result<Vec<String>, StoreError> {
    serde_json::from_str(json).map_err(|e| StoreError::corrupt(Stored::HostBinding, e.to_string()))
}

/// Where a host id was bound or verified: its domain, the basis, and (for a
/// credential's host) the discovery keys' thumbprints as JSON.
#[derive(sqlx::FromRow)]
struct PlaceRow {
    domain: String,
    basis: String,
    #[sqlx(default)]
    key_thumbprints: Option<String>,
    /// The host's name (migration 0021), for a binding only.
    #[sqlx(default)]
    name: Option<String>,
}

impl PlaceRow {
    /// The place as `host_id`'s binding.
    fn binding(self, host_id: &str) -> Result<HostBinding, StoreError> {
        Ok(HostBinding {
            host_id: host_id.to_owned(),
            basis: basis(&self.basis)?,
            key_thumbprints: self.key_thumbprints.as_deref().map_or(Ok(Vec::new()), thumbprints)?,
            domain: self.domain,
            name: self.name,
        })
    }
}

/// The binding of `host_id`, if the person has dealt with it. Its
/// `key_thumbprints` are empty: a binding is a place, not a set of keys.
pub async fn binding(store: &Store, host_id: &str) -> Result<Option<HostBinding>, StoreError> {
    let row: Option<PlaceRow> = sqlx::query_as("SELECT domain, basis, name FROM host_bindings WHERE host_id = ?")
        .bind(host_id)
        .fetch_optional(store.pool())
        .await?;
    row.map(|r| r.binding(host_id)).transpose()
}

/// Binds `b.host_id` to `b`'s place inside the caller's transaction, unless it
/// is bound already. Returns the binding in force afterwards, so the caller
/// can refuse when another place won in the meantime. The host's name, when
/// `b` has one, is the one kept from now on, but only at the bound place: a
/// document elsewhere never renames a host the person knows.
pub async fn bind(conn: &mut sqlx::SqliteConnection, b: &HostBinding, now: i64) -> Result<HostBinding, StoreError> {
    sqlx::query(
        "INSERT INTO host_bindings (host_id, domain, basis, bound_at, updated_at, name) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (host_id) DO UPDATE SET name = excluded.name
         WHERE excluded.name IS NOT NULL AND host_bindings.domain = excluded.domain
           AND host_bindings.basis = excluded.basis",
    )
    .bind(&b.host_id)
    .bind(&b.domain)
    .bind(b.basis.as_str())
    .bind(now)
    .bind(now)
    .bind(&b.name)
    .execute(&mut *conn)
    .await?;
    let row: PlaceRow = sqlx::query_as("SELECT domain, basis, name FROM host_bindings WHERE host_id = ?")
        .bind(&b.host_id)
        .fetch_one(&mut *conn)
        .await?;
    row.binding(&b.host_id)
}

/// Notes that `b.host_id` was met at `b`'s place, not its binding's, so the
/// person can see it and accept it if the host really moved. At most `max`
/// places per host id are kept: an agent with many look-alike domains cannot
/// fill the person's list.
pub async fn note_change(store: &Store, b: &HostBinding, now: i64, max: i64) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO host_domain_changes (host_id, domain, basis, seen_at)
         SELECT ?1, ?2, ?3, ?4
         WHERE (SELECT count(*) FROM host_domain_changes WHERE host_id = ?1) < ?5
            OR EXISTS (SELECT 1 FROM host_domain_changes WHERE host_id = ?1 AND domain = ?2 AND basis = ?3)
         ON CONFLICT (host_id, domain, basis) DO UPDATE SET seen_at = excluded.seen_at",
    )
    .bind(&b.host_id)
    .bind(&b.domain)
    .bind(b.basis.as_str())
    .bind(now)
    .bind(max)
    .execute(store.pool())
    .await?;
    Ok(())
}

/// A host id's binding and a place it was met at instead, as the person's
/// surfaces list them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, ts_rs::TS)]
pub struct DomainChange {
    pub host_id: String,
    pub bound_domain: String,
    pub bound_basis: Basis,
    pub domain: String,
    pub basis: Basis,
    pub seen_at: i64,
}

/// Every change met and not yet accepted, newest first.
pub async fn changes(store: &Store) -> Result<Vec<DomainChange>, StoreError> {
    #[derive(sqlx::FromRow)]
    struct Row {
        host_id: String,
        bound_domain: String,
        bound_basis: String,
        domain: String,
        basis: String,
        seen_at: i64,
    }
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT c.host_id, b.domain AS bound_domain, b.basis AS bound_basis, c.domain, c.basis, c.seen_at
         FROM host_domain_changes c JOIN host_bindings b ON b.host_id = c.host_id
         ORDER BY c.seen_at DESC, c.host_id",
    )
    .fetch_all(store.pool())
    .await?;
    rows.into_iter()
        .map(|r| {
            Ok(DomainChange {
                bound_basis: basis(&r.bound_basis)?,
                basis: basis(&r.basis)?,
                host_id: r.host_id,
                bound_domain: r.bound_domain,
                domain: r.domain,
                seen_at: r.seen_at,
            })
        })
        .collect()
}

/// The person accepts that `host_id` is now at `domain`: the binding moves
/// there, and the noted changes of that host are cleared. One transaction.
/// `false` when no such change was noted (nothing is changed then).
pub async fn accept_change(store: &Store, host_id: &str, domain: &str, now: i64) -> Result<bool, StoreError> {
    let mut tx = store.pool().begin_with("BEGIN IMMEDIATE").await?;
    let noted: Option<String> = sqlx::query_scalar(
        "SELECT basis FROM host_domain_changes WHERE host_id = ? AND domain = ? ORDER BY seen_at DESC",
    )
    .bind(host_id)
    .bind(domain)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(b) = noted else { return Ok(false) };
    sqlx::query("UPDATE host_bindings SET domain = ?, basis = ?, updated_at = ? WHERE host_id = ?")
        .bind(domain)
        .bind(&b)
        .bind(now)
        .bind(host_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM host_domain_changes WHERE host_id = ?").bind(host_id).execute(&mut *tx).await?;
    super::history::append(&mut tx, now, "host_domain_accepted", host_id, domain, None).await?;
    tx.commit().await?;
    Ok(true)
}

/// Records, inside the approval's transaction, the place and keys each of a
/// credential's hosts was verified with.
pub async fn record_credential_hosts(
    conn: &mut sqlx::SqliteConnection,
    jti: &str,
    hosts: &[HostBinding],
) -> Result<(), StoreError> {
    for h in hosts {
        let keys = serde_json::to_string(&h.key_thumbprints)
            .map_err(|e| StoreError::corrupt(Stored::HostBinding, e.to_string()))?;
        sqlx::query(
            "INSERT INTO credential_hosts (jti, host_id, domain, basis, key_thumbprints) VALUES (?, ?, ?, ?, ?)",
        )
        .bind(jti)
        .bind(&h.host_id)
        .bind(&h.domain)
        .bind(h.basis.as_str())
        .bind(keys)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// The place and keys a credential's host `host_id` was verified with at
/// issuance; `None` for a credential or host the records do not hold.
pub async fn credential_host(store: &Store, jti: &str, host_id: &str) -> Result<Option<HostBinding>, StoreError> {
    let row: Option<PlaceRow> =
        sqlx::query_as("SELECT domain, basis, key_thumbprints FROM credential_hosts WHERE jti = ? AND host_id = ?")
            .bind(jti)
            .bind(host_id)
            .fetch_optional(store.pool())
            .await?;
    row.map(|r| r.binding(host_id)).transpose()
}

/// The places the credentials for booking `booking_id` at `host_id` were
/// issued against (closed, management and invitation mandates name it).
pub async fn booking_places(store: &Store, host_id: &str, booking_id: &str) -> Result<Vec<HostBinding>, StoreError> {
    let rows: Vec<PlaceRow> = sqlx::query_as(
        "SELECT DISTINCT h.domain, h.basis FROM credential_hosts h JOIN credentials c ON c.jti = h.jti
         WHERE h.host_id = ? AND c.booking_id = ?",
    )
    .bind(host_id)
    .bind(booking_id)
    .fetch_all(store.pool())
    .await?;
    rows.into_iter().map(|r| r.binding(host_id)).collect()
}

/// Every aud host of a credential as it was verified at issuance.
pub async fn credential_hosts(store: &Store, jti: &str) -> Result<Vec<HostBinding>, StoreError> {
    #[derive(sqlx::FromRow)]
    struct Row {
        host_id: String,
        #[sqlx(flatten)]
        place: PlaceRow,
    }
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT host_id, domain, basis, key_thumbprints FROM credential_hosts WHERE jti = ? ORDER BY host_id",
    )
    .bind(jti)
    .fetch_all(store.pool())
    .await?;
    rows.into_iter().map(|r| r.place.binding(&r.host_id)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(domain: &str) -> HostBinding {
        HostBinding {
            host_id: "maple-street-auto".into(),
            domain: domain.into(),
            basis: Basis::OwnDomain,
            key_thumbprints: vec!["t1".into()],
            name: None,
        }
    }

    #[tokio::test]
    async fn a_host_is_renamed_only_by_a_document_at_its_bound_place() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("k.db")).await.unwrap();
        let mut conn = store.pool().acquire().await.unwrap();
        let named = |domain: &str, name: Option<&str>| HostBinding { name: name.map(str::to_owned), ..at(domain) };
        let won = bind(&mut conn, &named("maplestreetauto.example", Some("Maple Auto")), 1).await.unwrap();
        assert_eq!(won.name.as_deref(), Some("Maple Auto"));
        // The host renames itself where it stands: the new name is kept.
        let won = bind(&mut conn, &named("maplestreetauto.example", Some("Maple Street Auto")), 2).await.unwrap();
        assert_eq!(won.name.as_deref(), Some("Maple Street Auto"));
        // A document that gave no name leaves the known one.
        let won = bind(&mut conn, &named("maplestreetauto.example", None), 3).await.unwrap();
        assert_eq!(won.name.as_deref(), Some("Maple Street Auto"));
        // A look-alike elsewhere never renames it.
        let won = bind(&mut conn, &named("maple-street-auto.example", Some("Not Maple")), 4).await.unwrap();
        assert_eq!((won.domain.as_str(), won.name.as_deref()), ("maplestreetauto.example", Some("Maple Street Auto")));
        drop(conn);
        assert_eq!(
            binding(&store, "maple-street-auto").await.unwrap().unwrap().name.as_deref(),
            Some("Maple Street Auto")
        );
    }

    #[tokio::test]
    async fn the_first_binding_stays_until_the_person_accepts_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("k.db")).await.unwrap();
        assert_eq!(binding(&store, "maple-street-auto").await.unwrap(), None);
        let mut conn = store.pool().acquire().await.unwrap();
        let won = bind(&mut conn, &at("maplestreetauto.example"), 1).await.unwrap();
        assert_eq!(won.domain, "maplestreetauto.example");
        // A second place never replaces it.
        let won = bind(&mut conn, &at("maple-street-auto.example"), 2).await.unwrap();
        assert_eq!(won.domain, "maplestreetauto.example");
        drop(conn);
        // Accepting a change nobody met changes nothing.
        assert!(!accept_change(&store, "maple-street-auto", "maple-street-auto.example", 3).await.unwrap());
        note_change(&store, &at("maple-street-auto.example"), 4, 2).await.unwrap();
        note_change(&store, &at("maple-street-auto.example"), 5, 2).await.unwrap();
        note_change(&store, &at("maple-street.example"), 5, 2).await.unwrap();
        // Past the cap a new place is not noted; a noted one is still updated.
        note_change(&store, &at("maplestreet-auto.example"), 6, 2).await.unwrap();
        assert_eq!(changes(&store).await.unwrap().len(), 2);
        sqlx::query("DELETE FROM host_domain_changes WHERE domain = 'maple-street.example'")
            .execute(store.pool())
            .await
            .unwrap();
        let listed = changes(&store).await.unwrap();
        assert_eq!(listed.len(), 1, "{listed:?}");
        assert_eq!((listed[0].bound_domain.as_str(), listed[0].seen_at), ("maplestreetauto.example", 5));
        assert!(accept_change(&store, "maple-street-auto", "maple-street-auto.example", 6).await.unwrap());
        assert_eq!(binding(&store, "maple-street-auto").await.unwrap().unwrap().domain, "maple-street-auto.example");
        assert!(changes(&store).await.unwrap().is_empty());
    }
}
