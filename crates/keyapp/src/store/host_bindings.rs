//! Host ids bound to where they were verified (SchCP §2.2), the changes the
//! person may accept, and what each credential was issued against
//! (migration 0010). The rules are `crate::host_binding`'s; this is their SQL.

use super::{Store, StoreError, Stored};
use crate::host_binding::{Basis, HostBinding};
use crate::record_seal::{PlaceFields, PlaceRecord};
use serde::Serialize;

fn basis(s: &str) -> Result<Basis, StoreError> {
    Basis::parse(s).ok_or_else(|| StoreError::corrupt(Stored::HostBinding, format!("host binding basis {s:?}")))
}

fn thumbprints(json: &str) -> Result<Vec<String>, StoreError> {
    serde_json::from_str(json).map_err(|e| StoreError::corrupt(Stored::HostBinding, e.to_string()))
}

/// A credential host's key thumbprints as they are stored and sealed.
pub fn keys_json(thumbprints: &[String]) -> Result<String, StoreError> {
    serde_json::to_string(thumbprints).map_err(|e| StoreError::corrupt(Stored::HostBinding, e.to_string()))
}

/// The fields a host record's seal covers (record_seal): `b`'s place, its
/// name for a binding, and for a credential's host the credential and the
/// keys' JSON as stored.
pub fn fields<'a>(
    record: PlaceRecord,
    b: &'a HostBinding,
    jti: Option<&'a str>,
    keys: Option<&'a str>,
) -> PlaceFields<'a> {
    PlaceFields {
        record,
        host_id: &b.host_id,
        domain: &b.domain,
        basis: b.basis.as_str(),
        name: if record == PlaceRecord::Binding { b.name.as_deref() } else { None },
        jti,
        key_thumbprints: keys,
    }
}

/// A host record as stored, with its seal, which the service checks before
/// it believes it: the person's programs can write these tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPlace {
    pub binding: HostBinding,
    /// The credential, for a credential's host.
    pub jti: Option<String>,
    /// The key thumbprints' JSON as stored, for a credential's host.
    pub keys: Option<String>,
    pub seal: Option<String>,
}

impl StoredPlace {
    /// The fields its seal covers, read as the record `record`.
    pub fn fields(&self, record: PlaceRecord) -> PlaceFields<'_> {
        fields(record, &self.binding, self.jti.as_deref(), self.keys.as_deref())
    }
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
    #[sqlx(default)]
    jti: Option<String>,
    /// Migration 0026.
    #[sqlx(default)]
    seal: Option<String>,
}

impl PlaceRow {
    /// The place as `host_id`'s record.
    fn stored(self, host_id: &str) -> Result<StoredPlace, StoreError> {
        Ok(StoredPlace {
            binding: HostBinding {
                host_id: host_id.to_owned(),
                basis: basis(&self.basis)?,
                key_thumbprints: self.key_thumbprints.as_deref().map_or(Ok(Vec::new()), thumbprints)?,
                domain: self.domain,
                name: self.name,
            },
            jti: self.jti,
            keys: self.key_thumbprints,
            seal: self.seal,
        })
    }
}

/// The binding of `host_id`, if the records hold one. Its `key_thumbprints`
/// are empty: a binding is a place, not a set of keys.
pub async fn binding(store: &Store, host_id: &str) -> Result<Option<StoredPlace>, StoreError> {
    binding_in(&mut *store.pool().acquire().await?, host_id).await
}

/// The same, inside the caller's transaction.
pub async fn binding_in(conn: &mut sqlx::SqliteConnection, host_id: &str) -> Result<Option<StoredPlace>, StoreError> {
    let row: Option<PlaceRow> = sqlx::query_as("SELECT domain, basis, name, seal FROM host_bindings WHERE host_id = ?")
        .bind(host_id)
        .fetch_optional(&mut *conn)
        .await?;
    row.map(|r| r.stored(host_id)).transpose()
}

/// Removes `host_id`'s binding and the places noted against it, inside the
/// caller's transaction: the service found a binding it did not seal, which
/// binds nothing, before binding the host where the person said yes.
pub async fn forget(conn: &mut sqlx::SqliteConnection, host_id: &str) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM host_domain_changes WHERE host_id = ?").bind(host_id).execute(&mut *conn).await?;
    sqlx::query("DELETE FROM host_bindings WHERE host_id = ?").bind(host_id).execute(&mut *conn).await?;
    Ok(())
}

/// Binds `b.host_id` to `b`'s place inside the caller's transaction, unless it
/// is bound already, with `seal` (the service's, over `b`'s binding fields).
/// Returns the binding in force afterwards, so the caller can refuse when
/// another place won in the meantime. The host's name, when `b` has one, is
/// the one kept from now on, but only at the bound place: a document
/// elsewhere never renames a host the person knows.
pub async fn bind(
    conn: &mut sqlx::SqliteConnection,
    b: &HostBinding,
    seal: &str,
    now: i64,
) -> Result<StoredPlace, StoreError> {
    sqlx::query(
        "INSERT INTO host_bindings (host_id, domain, basis, bound_at, updated_at, name, seal) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (host_id) DO UPDATE SET name = excluded.name, seal = excluded.seal
         WHERE excluded.name IS NOT NULL AND host_bindings.domain = excluded.domain
           AND host_bindings.basis = excluded.basis",
    )
    .bind(&b.host_id)
    .bind(&b.domain)
    .bind(b.basis.as_str())
    .bind(now)
    .bind(now)
    .bind(&b.name)
    .bind(seal)
    .execute(&mut *conn)
    .await?;
    binding_in(conn, &b.host_id)
        .await?
        .ok_or_else(|| StoreError::tampered(Stored::HostBinding, "the binding just written is gone"))
}

/// Notes that `b.host_id` was met at `b`'s place, not its binding's, so the
/// person can see it and accept it if the host really moved. At most `max`
/// places per host id are kept: an agent with many look-alike domains cannot
/// fill the person's list.
pub async fn note_change(store: &Store, b: &HostBinding, seal: &str, now: i64, max: i64) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO host_domain_changes (host_id, domain, basis, seen_at, seal)
         SELECT ?1, ?2, ?3, ?4, ?6
         WHERE (SELECT count(*) FROM host_domain_changes WHERE host_id = ?1) < ?5
            OR EXISTS (SELECT 1 FROM host_domain_changes WHERE host_id = ?1 AND domain = ?2 AND basis = ?3)
         ON CONFLICT (host_id, domain, basis) DO UPDATE SET seen_at = excluded.seen_at, seal = excluded.seal",
    )
    .bind(&b.host_id)
    .bind(&b.domain)
    .bind(b.basis.as_str())
    .bind(now)
    .bind(max)
    .bind(seal)
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

/// A noted change as stored: the place met and the binding it differs from,
/// each with its seal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotedChange {
    pub change: DomainChange,
    pub seal: Option<String>,
    pub bound: StoredPlace,
}

impl NotedChange {
    /// The place met, as a binding would read it.
    pub fn place(&self) -> HostBinding {
        HostBinding {
            host_id: self.change.host_id.clone(),
            domain: self.change.domain.clone(),
            basis: self.change.basis,
            key_thumbprints: Vec::new(),
            name: None,
        }
    }
}

/// Every change met and not yet accepted, newest first.
pub async fn changes(store: &Store) -> Result<Vec<NotedChange>, StoreError> {
    #[derive(sqlx::FromRow)]
    struct Row {
        host_id: String,
        bound_domain: String,
        bound_basis: String,
        bound_name: Option<String>,
        bound_seal: Option<String>,
        domain: String,
        basis: String,
        seen_at: i64,
        seal: Option<String>,
    }
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT c.host_id, b.domain AS bound_domain, b.basis AS bound_basis, b.name AS bound_name,
                b.seal AS bound_seal, c.domain, c.basis, c.seen_at, c.seal
         FROM host_domain_changes c JOIN host_bindings b ON b.host_id = c.host_id
         ORDER BY c.seen_at DESC, c.host_id",
    )
    .fetch_all(store.pool())
    .await?;
    rows.into_iter()
        .map(|r| {
            let bound = PlaceRow {
                domain: r.bound_domain.clone(),
                basis: r.bound_basis.clone(),
                key_thumbprints: None,
                name: r.bound_name,
                jti: None,
                seal: r.bound_seal,
            }
            .stored(&r.host_id)?;
            Ok(NotedChange {
                change: DomainChange {
                    bound_basis: basis(&r.bound_basis)?,
                    basis: basis(&r.basis)?,
                    host_id: r.host_id,
                    bound_domain: r.bound_domain,
                    domain: r.domain,
                    seen_at: r.seen_at,
                },
                seal: r.seal,
                bound,
            })
        })
        .collect()
}

/// A move the person accepted, as the service checked it: the noted change
/// and the binding it replaces, each by the seal it was read with, and the
/// new binding's seal.
#[derive(Debug, Clone, Copy)]
pub struct Move<'a> {
    pub host_id: &'a str,
    pub domain: &'a str,
    pub basis: Basis,
    pub name: Option<&'a str>,
    pub change_seal: &'a str,
    pub was_seal: &'a str,
    pub seal: &'a str,
}

/// The person accepts that `m.host_id` is now at `m.domain`: the binding
/// moves there, and the noted changes of that host are cleared. One
/// transaction, and only if the change and the binding are still the rows
/// the service checked. `false` otherwise (nothing is changed then).
pub async fn accept_change(store: &Store, m: &Move<'_>, now: i64) -> Result<bool, StoreError> {
    let mut tx = store.pool().begin_with("BEGIN IMMEDIATE").await?;
    let noted: Option<i64> = sqlx::query_scalar(
        "SELECT 1 FROM host_domain_changes WHERE host_id = ? AND domain = ? AND basis = ? AND seal = ?",
    )
    .bind(m.host_id)
    .bind(m.domain)
    .bind(m.basis.as_str())
    .bind(m.change_seal)
    .fetch_optional(&mut *tx)
    .await?;
    if noted.is_none() {
        return Ok(false);
    }
    let moved = sqlx::query(
        "UPDATE host_bindings SET domain = ?, basis = ?, name = ?, seal = ?, updated_at = ?
         WHERE host_id = ? AND seal = ?",
    )
    .bind(m.domain)
    .bind(m.basis.as_str())
    .bind(m.name)
    .bind(m.seal)
    .bind(now)
    .bind(m.host_id)
    .bind(m.was_seal)
    .execute(&mut *tx)
    .await?;
    if moved.rows_affected() != 1 {
        return Ok(false);
    }
    sqlx::query("DELETE FROM host_domain_changes WHERE host_id = ?").bind(m.host_id).execute(&mut *tx).await?;
    super::history::append(&mut tx, store.history_seal(), now, "host_domain_accepted", m.host_id, m.domain, None)
        .await?;
    tx.commit().await?;
    Ok(true)
}

/// Records, inside the approval's transaction, the place and keys each of a
/// credential's hosts was verified with, each with its seal.
pub async fn record_credential_hosts(
    conn: &mut sqlx::SqliteConnection,
    jti: &str,
    hosts: &[(HostBinding, String)],
) -> Result<(), StoreError> {
    for (h, seal) in hosts {
        sqlx::query(
            "INSERT INTO credential_hosts (jti, host_id, domain, basis, key_thumbprints, seal) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(jti)
        .bind(&h.host_id)
        .bind(&h.domain)
        .bind(h.basis.as_str())
        .bind(keys_json(&h.key_thumbprints)?)
        .bind(seal)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// The place and keys a credential's host `host_id` was verified with at
/// issuance; `None` for a credential or host the records do not hold.
pub async fn credential_host(store: &Store, jti: &str, host_id: &str) -> Result<Option<StoredPlace>, StoreError> {
    let row: Option<PlaceRow> = sqlx::query_as(
        "SELECT jti, domain, basis, key_thumbprints, seal FROM credential_hosts WHERE jti = ? AND host_id = ?",
    )
    .bind(jti)
    .bind(host_id)
    .fetch_optional(store.pool())
    .await?;
    row.map(|r| r.stored(host_id)).transpose()
}

/// The places the credentials for booking `booking_id` at `host_id` were
/// issued against (closed, management and invitation mandates name it), one
/// per credential.
pub async fn booking_places(store: &Store, host_id: &str, booking_id: &str) -> Result<Vec<StoredPlace>, StoreError> {
    let rows: Vec<PlaceRow> = sqlx::query_as(
        "SELECT h.jti, h.domain, h.basis, h.key_thumbprints, h.seal
         FROM credential_hosts h JOIN credentials c ON c.jti = h.jti
         WHERE h.host_id = ? AND c.booking_id = ?",
    )
    .bind(host_id)
    .bind(booking_id)
    .fetch_all(store.pool())
    .await?;
    rows.into_iter().map(|r| r.stored(host_id)).collect()
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
        let won = bind(&mut conn, &named("maplestreetauto.example", Some("Maple Auto")), "s1", 1).await.unwrap();
        assert_eq!((won.binding.name.as_deref(), won.seal.as_deref()), (Some("Maple Auto"), Some("s1")));
        // The host renames itself where it stands: the new name is kept, with its seal.
        let won = bind(&mut conn, &named("maplestreetauto.example", Some("Maple Street Auto")), "s2", 2).await.unwrap();
        assert_eq!((won.binding.name.as_deref(), won.seal.as_deref()), (Some("Maple Street Auto"), Some("s2")));
        // A document that gave no name leaves the known one, and its seal.
        let won = bind(&mut conn, &named("maplestreetauto.example", None), "s3", 3).await.unwrap();
        assert_eq!((won.binding.name.as_deref(), won.seal.as_deref()), (Some("Maple Street Auto"), Some("s2")));
        // A look-alike elsewhere never renames it.
        let won = bind(&mut conn, &named("maple-street-auto.example", Some("Not Maple")), "s4", 4).await.unwrap();
        assert_eq!(
            (won.binding.domain.as_str(), won.binding.name.as_deref(), won.seal.as_deref()),
            ("maplestreetauto.example", Some("Maple Street Auto"), Some("s2"))
        );
        drop(conn);
        assert_eq!(
            binding(&store, "maple-street-auto").await.unwrap().unwrap().binding.name.as_deref(),
            Some("Maple Street Auto")
        );
    }

    #[tokio::test]
    async fn the_first_binding_stays_until_the_person_accepts_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("k.db")).await.unwrap();
        assert_eq!(binding(&store, "maple-street-auto").await.unwrap(), None);
        let mut conn = store.pool().acquire().await.unwrap();
        let won = bind(&mut conn, &at("maplestreetauto.example"), "b1", 1).await.unwrap();
        assert_eq!(won.binding.domain, "maplestreetauto.example");
        // A second place never replaces it.
        let won = bind(&mut conn, &at("maple-street-auto.example"), "b2", 2).await.unwrap();
        assert_eq!((won.binding.domain.as_str(), won.seal.as_deref()), ("maplestreetauto.example", Some("b1")));
        drop(conn);
        let to = |domain, change_seal, was_seal| Move {
            host_id: "maple-street-auto",
            domain,
            basis: Basis::OwnDomain,
            name: None,
            change_seal,
            was_seal,
            seal: "b3",
        };
        // Accepting a change nobody met changes nothing.
        assert!(!accept_change(&store, &to("maple-street-auto.example", "c1", "b1"), 3).await.unwrap());
        note_change(&store, &at("maple-street-auto.example"), "c0", 4, 2).await.unwrap();
        note_change(&store, &at("maple-street-auto.example"), "c1", 5, 2).await.unwrap();
        note_change(&store, &at("maple-street.example"), "c2", 5, 2).await.unwrap();
        // Past the cap a new place is not noted; a noted one is still updated.
        note_change(&store, &at("maplestreet-auto.example"), "c3", 6, 2).await.unwrap();
        assert_eq!(changes(&store).await.unwrap().len(), 2);
        sqlx::query("DELETE FROM host_domain_changes WHERE domain = 'maple-street.example'")
            .execute(store.pool())
            .await
            .unwrap();
        let listed = changes(&store).await.unwrap();
        assert_eq!(listed.len(), 1, "{listed:?}");
        let c = &listed[0];
        assert_eq!(
            (c.change.bound_domain.as_str(), c.change.seen_at, c.seal.as_deref()),
            ("maplestreetauto.example", 5, Some("c1"))
        );
        assert_eq!(c.bound.seal.as_deref(), Some("b1"));
        // Only the rows the service checked are moved: a change or a binding
        // rewritten since (another seal) is not.
        assert!(!accept_change(&store, &to("maple-street-auto.example", "c0", "b1"), 6).await.unwrap());
        assert!(!accept_change(&store, &to("maple-street-auto.example", "c1", "b2"), 6).await.unwrap());
        assert_eq!(changes(&store).await.unwrap().len(), 1, "a refused move changed nothing");
        assert!(accept_change(&store, &to("maple-street-auto.example", "c1", "b1"), 6).await.unwrap());
        let moved = binding(&store, "maple-street-auto").await.unwrap().unwrap();
        assert_eq!((moved.binding.domain.as_str(), moved.seal.as_deref()), ("maple-street-auto.example", Some("b3")));
        assert!(changes(&store).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn forgetting_a_binding_removes_its_noted_places_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("k.db")).await.unwrap();
        let mut conn = store.pool().acquire().await.unwrap();
        bind(&mut conn, &at("maplestreetauto.example"), "b1", 1).await.unwrap();
        drop(conn);
        note_change(&store, &at("maple-street-auto.example"), "c1", 2, 8).await.unwrap();
        let mut tx = store.begin().await.unwrap();
        forget(&mut tx, "maple-street-auto").await.unwrap();
        let won = bind(&mut tx, &at("maple-street-auto.example"), "b2", 3).await.unwrap();
        tx.commit().await.unwrap();
        assert_eq!((won.binding.domain.as_str(), won.seal.as_deref()), ("maple-street-auto.example", Some("b2")));
        assert!(changes(&store).await.unwrap().is_empty());
    }
}
