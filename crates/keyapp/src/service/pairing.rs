//! Pairing (docs/agent-api.md §4): an agent key may do nothing but ask to pair
//! until the person approves it, comparing the fingerprint the agent shows with
//! the one the key app shows.

use super::{Service, ServiceError};
use schcp::jwk::Jwk;
use serde::Serialize;

/// How long a pairing request waits for the person.
pub const PAIRING_TTL: i64 = 600;
/// Agent names are shown to the person; a long one could push the fingerprint
/// off the screen.
pub const MAX_AGENT_NAME: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PairingStatus {
    Pending,
    Approved,
    Declined,
    Expired,
    Unpaired,
}

impl PairingStatus {
    fn parse(s: &str) -> PairingStatus {
        match s {
            "approved" => PairingStatus::Approved,
            "declined" => PairingStatus::Declined,
            "expired" => PairingStatus::Expired,
            "unpaired" => PairingStatus::Unpaired,
            _ => PairingStatus::Pending,
        }
    }
    fn as_str(self) -> &'static str {
        match self {
            PairingStatus::Pending => "pending",
            PairingStatus::Approved => "approved",
            PairingStatus::Declined => "declined",
            PairingStatus::Expired => "expired",
            PairingStatus::Unpaired => "unpaired",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pairing {
    pub pairing_id: String,
    pub status: PairingStatus,
    pub fingerprint: String,
    #[serde(skip)]
    pub agent_jkt: String,
    #[serde(skip)]
    pub agent_name: String,
    #[serde(skip)]
    pub created_at: i64,
}

/// A short code both sides derive from the agent key's thumbprint: the first
/// 60 bits in Crockford base32, as `XXXX-XXXX-XXXX` (three groups a person
/// compares one at a time; an attacker would need ~2^60 key generations to
/// match a given code).
pub fn fingerprint(jkt: &str) -> String {
    const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let digest = schcp::b64::decode(jkt).unwrap_or_else(|_| {
        use sha2::Digest;
        sha2::Sha256::digest(jkt.as_bytes()).to_vec()
    });
    let mut bits: u64 = 0;
    for b in digest.iter().take(8) {
        bits = (bits << 8) | u64::from(*b);
    }
    // Fewer bits would let someone who knows an agent's key grind another whose
    // code the person could not tell apart (2^40 keys is hours on one GPU).
    let chars: String = (0..12).map(|i| ALPHABET[((bits >> (59 - i * 5)) & 31) as usize] as char).collect();
    format!("{}-{}-{}", &chars[..4], &chars[4..8], &chars[8..])
}

fn check_name(name: &str) -> Result<(), ServiceError> {
    if name.trim().is_empty() {
        return Err(ServiceError::invalid("bad_agent_name", "agent_name is empty"));
    }
    if name.chars().count() > MAX_AGENT_NAME {
        return Err(ServiceError::invalid(
            "bad_agent_name",
            format!("agent_name is longer than {MAX_AGENT_NAME} characters"),
        ));
    }
    if name.chars().any(|c| c.is_control()) {
        return Err(ServiceError::invalid("bad_agent_name", "agent_name contains control characters"));
    }
    Ok(())
}

type Row = (String, String, String, String, i64, String);

fn from_row((jkt, name, pairing_id, status, created_at, fingerprint): Row) -> Pairing {
    Pairing {
        pairing_id,
        status: PairingStatus::parse(&status),
        fingerprint,
        agent_jkt: jkt,
        agent_name: name,
        created_at,
    }
}

const SELECT: &str = "SELECT jkt, name, pairing_id, status, created_at, fingerprint FROM agents";

impl Service {
    /// `POST /v1/pairings`. An approved agent gets its pairing back; a pending one
    /// the same pending pairing; a declined, expired or unpaired one a new attempt.
    pub async fn request_pairing(&self, jwk: &Jwk, agent_name: &str) -> Result<Pairing, ServiceError> {
        check_name(agent_name)?;
        let jkt = jwk.thumbprint().map_err(|e| ServiceError::Verification(e.into()))?;
        let now = self.now();
        self.expire_pairings(now).await?;
        let mut tx = self.store().pool().begin().await?;
        let existing: Option<Row> =
            sqlx::query_as(&format!("{SELECT} WHERE jkt = ?")).bind(&jkt).fetch_optional(&mut *tx).await?;
        if let Some(row) = existing {
            let p = from_row(row);
            if matches!(p.status, PairingStatus::Approved | PairingStatus::Pending) {
                return Ok(p);
            }
        }
        let pairing_id = Service::new_id("pr_");
        let fp = fingerprint(&jkt);
        let jwk_json = serde_json::to_string(jwk).expect("a JWK serializes");
        sqlx::query(
            "INSERT INTO agents (jkt, jwk, name, pairing_id, fingerprint, status, created_at) VALUES (?, ?, ?, ?, ?, 'pending', ?)
             ON CONFLICT (jkt) DO UPDATE SET name = excluded.name, pairing_id = excluded.pairing_id,
               status = 'pending', created_at = excluded.created_at, decided_at = NULL",
        )
        .bind(&jkt)
        .bind(&jwk_json)
        .bind(agent_name)
        .bind(&pairing_id)
        .bind(&fp)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        Service::history(&mut tx, now, "pairing_requested", &pairing_id, agent_name).await?;
        tx.commit().await?;
        self.notify();
        Ok(Pairing {
            pairing_id,
            status: PairingStatus::Pending,
            fingerprint: fp,
            agent_jkt: jkt,
            agent_name: agent_name.to_owned(),
            created_at: now,
        })
    }

    /// A pairing as its own agent sees it; another agent's is "not found".
    pub async fn pairing_for_agent(&self, jkt: &str, pairing_id: &str) -> Result<Pairing, ServiceError> {
        self.expire_pairings(self.now()).await?;
        let row: Option<Row> = sqlx::query_as(&format!("{SELECT} WHERE pairing_id = ? AND jkt = ?"))
            .bind(pairing_id)
            .bind(jkt)
            .fetch_optional(self.store().pool())
            .await?;
        row.map(from_row).ok_or(ServiceError::NotFound("pairing"))
    }

    pub async fn pairing(&self, pairing_id: &str) -> Result<Pairing, ServiceError> {
        self.expire_pairings(self.now()).await?;
        let row: Option<Row> = sqlx::query_as(&format!("{SELECT} WHERE pairing_id = ?"))
            .bind(pairing_id)
            .fetch_optional(self.store().pool())
            .await?;
        row.map(from_row).ok_or(ServiceError::NotFound("pairing"))
    }

    pub async fn pending_pairings(&self) -> Result<Vec<Pairing>, ServiceError> {
        self.expire_pairings(self.now()).await?;
        let rows: Vec<Row> = sqlx::query_as(&format!("{SELECT} WHERE status = 'pending' ORDER BY created_at"))
            .fetch_all(self.store().pool())
            .await?;
        Ok(rows.into_iter().map(from_row).collect())
    }

    pub async fn paired_agents(&self) -> Result<Vec<Pairing>, ServiceError> {
        let rows: Vec<Row> = sqlx::query_as(&format!("{SELECT} WHERE status = 'approved' ORDER BY created_at"))
            .fetch_all(self.store().pool())
            .await?;
        Ok(rows.into_iter().map(from_row).collect())
    }

    pub async fn is_paired(&self, jkt: &str) -> Result<bool, ServiceError> {
        let row: Option<(String,)> = sqlx::query_as("SELECT status FROM agents WHERE jkt = ?")
            .bind(jkt)
            .fetch_optional(self.store().pool())
            .await?;
        Ok(row.is_some_and(|(s,)| s == "approved"))
    }

    /// The person's answer to a pending pairing.
    pub async fn answer_pairing(&self, pairing_id: &str, approve: bool) -> Result<Pairing, ServiceError> {
        let now = self.now();
        self.expire_pairings(now).await?;
        let status = if approve { PairingStatus::Approved } else { PairingStatus::Declined };
        let mut tx = self.store().pool().begin().await?;
        let done =
            sqlx::query("UPDATE agents SET status = ?, decided_at = ? WHERE pairing_id = ? AND status = 'pending'")
                .bind(status.as_str())
                .bind(now)
                .bind(pairing_id)
                .execute(&mut *tx)
                .await?;
        if done.rows_affected() == 0 {
            drop(tx);
            let p = self.pairing(pairing_id).await?;
            return Err(ServiceError::NotPending(p.status.as_str().into()));
        }
        Service::history(&mut tx, now, if approve { "pairing_approved" } else { "pairing_declined" }, pairing_id, "")
            .await?;
        tx.commit().await?;
        self.notify();
        self.pairing(pairing_id).await
    }

    /// Unpairs an agent; its pending requests are withdrawn in the same transaction.
    pub async fn unpair(&self, jkt: &str) -> Result<(), ServiceError> {
        let now = self.now();
        let mut tx = self.store().pool().begin().await?;
        let done =
            sqlx::query("UPDATE agents SET status = 'unpaired', decided_at = ? WHERE jkt = ? AND status = 'approved'")
                .bind(now)
                .bind(jkt)
                .execute(&mut *tx)
                .await?;
        if done.rows_affected() == 0 {
            return Err(ServiceError::NotFound("paired agent"));
        }
        sqlx::query(
            "UPDATE requests SET status = 'withdrawn', decided_at = ? WHERE agent_jkt = ? AND status = 'pending'",
        )
        .bind(now)
        .bind(jkt)
        .execute(&mut *tx)
        .await?;
        Service::history(&mut tx, now, "agent_unpaired", jkt, "").await?;
        tx.commit().await?;
        self.notify();
        Ok(())
    }

    async fn expire_pairings(&self, now: i64) -> Result<(), ServiceError> {
        let done = sqlx::query(
            "UPDATE agents SET status = 'expired', decided_at = ? WHERE status = 'pending' AND created_at + ? <= ?",
        )
        .bind(now)
        .bind(PAIRING_TTL)
        .bind(now)
        .execute(self.store().pool())
        .await?;
        if done.rows_affected() > 0 {
            self.notify();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_is_short_stable_and_key_specific() {
        let a = fingerprint("kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
        assert_eq!(a, fingerprint("kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"));
        assert_eq!(a.len(), 14);
        assert_eq!((&a[4..5], &a[9..10]), ("-", "-"));
        assert_ne!(a, fingerprint("47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU"));
        // The top 60 bits of the thumbprint, in Crockford base32: all-zero
        // bits give all zeros, and the 61st bit does not show.
        let zero = schcp::b64::encode([0u8; 32]);
        assert_eq!(fingerprint(&zero), "0000-0000-0000");
        let mut low = [0u8; 32];
        low[7] = 0x0f;
        assert_eq!(fingerprint(&schcp::b64::encode(low)), "0000-0000-0000");
        low[7] = 0x10;
        assert_eq!(fingerprint(&schcp::b64::encode(low)), "0000-0000-0001");
        let mut high = [0u8; 32];
        high[0] = 0xf8;
        assert_eq!(fingerprint(&schcp::b64::encode(high)), "Z000-0000-0000");
    }

    #[test]
    fn agent_names_are_checked() {
        assert!(check_name("Calendar Assistant").is_ok());
        assert!(check_name("  ").is_err());
        assert!(check_name("a\u{7}b").is_err());
        assert!(check_name(&"x".repeat(65)).is_err());
    }
}
