//! Pairing (docs/agent-api.md §4): an agent key may do nothing but ask to pair
//! until the person approves it, comparing the fingerprint the agent shows with
//! the one the key app shows.

use super::{Missing, Service, ServiceError};
use crate::store::agents::HeldCredential;
pub use crate::store::pairings::PairingStatus;
use crate::store::pairings::{self, AgentRecord, NewPairing, PendingBounds};
use crate::user_verification::Method;
use crate::views::{HoldsView, UnpairedView};
use schcp::jwk::Jwk;
use schcp::refusal::Reason;
use serde::Serialize;

/// How long a pairing request waits for the person; unanswered, it expires.
pub const PAIRING_TTL: i64 = 600;
/// Pairings waiting for the person at once from one local user's processes
/// (`agent_api::peer`): any local process can make a fresh key, so a per-key cap
/// would not stop a flood of prompts; past this bound new ones from that user are
/// refused (429). Per user, so one user's look-alike pairings cannot lock out
/// another's (a process whose user is not known counts as one more user).
pub const MAX_PENDING_PAIRINGS: i64 = 3;
/// Pairings waiting for the person at once from all local users together: a
/// bound on what the person is shown even on a machine of many users.
pub const MAX_PENDING_PAIRINGS_ALL: i64 = 12;
/// The window over which pairings from one user that were declined or went
/// unanswered are counted, and from how many on the person is told that this
/// user's prompts are being churned.
pub const CHURN_WINDOW: i64 = 1800;
pub const CHURN_NOTICE_FROM: i64 = 3;
/// How long a key the person declined is refused at once, without a new prompt.
pub const DECLINED_COOLDOWN: i64 = 600;
/// Agent names are shown to the person; a long one could push the fingerprint
/// off the screen.
pub const MAX_AGENT_NAME: usize = 64;

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
    /// The local user whose process asked, when known.
    #[serde(skip)]
    pub peer_uid: Option<u32>,
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

/// A declined key is refused until `DECLINED_COOLDOWN` has passed since the no.
fn declined_cooldown(decided_at: Option<i64>, now: i64) -> Result<(), ServiceError> {
    let Some(decided_at) = decided_at else { return Ok(()) };
    let left = decided_at + DECLINED_COOLDOWN - now;
    if left > 0 {
        return Err(ServiceError::TooMany {
            reason: Reason::PairingDeclined,
            message: format!("the person declined this agent key; it may ask again in {left} s"),
            retry_after: Some(left as u64),
        });
    }
    Ok(())
}

/// The 429 for a pairing past `MAX_PENDING_PAIRINGS` (this user's) or
/// `MAX_PENDING_PAIRINGS_ALL`: retry when the oldest pending one in the way
/// expires, if the person has not answered it by then.
fn too_many_pairings(load: pairings::PendingLoad, now: i64) -> ServiceError {
    // The oldest of this user's, if theirs are what is in the way, else of all.
    let oldest = if load.mine >= MAX_PENDING_PAIRINGS { load.oldest_mine } else { load.oldest_all };
    let retry = oldest.map_or(1, |t| (t + PAIRING_TTL - now).max(1));
    ServiceError::TooMany {
        reason: Reason::TooManyPairings,
        message: format!(
            "{MAX_PENDING_PAIRINGS} pairing requests from this local user (or {MAX_PENDING_PAIRINGS_ALL} from all) are already waiting for the person; try again once they are answered"
        ),
        retry_after: Some(retry as u64),
    }
}

/// An agent's name is shown on every surface (terminal, window, tray,
/// notification), so it must be plain text a person can read as it is: the
/// inert-text rule host strings follow (schcp_consent::inert), but as a refusal
/// here, where it enters, rather than a replacement later. Nothing is stored
/// for a refused name.
fn check_name(name: &str) -> Result<(), ServiceError> {
    if name.trim().is_empty() {
        return Err(ServiceError::invalid(Reason::BadAgentName, "agent_name is empty"));
    }
    let chars = name.chars().count();
    if chars > MAX_AGENT_NAME {
        return Err(ServiceError::Verification(schcp::Error::TextTooLong {
            what: "agent_name",
            chars,
            max: MAX_AGENT_NAME,
        }));
    }
    if let Some(c) = schcp_consent::inert::first_hidden(name) {
        return Err(ServiceError::unacceptable(
            Reason::TextNotInert,
            format!(
                "agent_name contains U+{:04X}, a control, bidirectional, zero-width or other invisible character",
                u32::from(c)
            ),
        ));
    }
    Ok(())
}

impl From<AgentRecord> for Pairing {
    fn from(a: AgentRecord) -> Pairing {
        Pairing {
            pairing_id: a.pairing_id,
            status: a.status,
            // From the key itself, never the stored column: it is the code the
            // person compares, and the person's programs can write the records.
            fingerprint: fingerprint(&a.jkt),
            agent_jkt: a.jkt,
            agent_name: a.name,
            created_at: a.created_at,
            peer_uid: a.peer_uid,
        }
    }
}

const BOUNDS: PendingBounds = PendingBounds { per_user: MAX_PENDING_PAIRINGS, all: MAX_PENDING_PAIRINGS_ALL };

impl Service {
    async fn find_pairing(&self, pairing_id: &str, jkt: Option<&str>) -> Result<Pairing, ServiceError> {
        self.expire_pairings(self.now()).await?;
        let found = pairings::by_pairing_id(self.store(), pairing_id, jkt).await?;
        // A row the key app did not write as it stands is no pairing (record_seal).
        found.filter(|a| self.agent_holds(a)).map(Pairing::from).ok_or(ServiceError::NotFound(Missing::Pairing))
    }

    async fn pairings_in(&self, status: PairingStatus) -> Result<Vec<Pairing>, ServiceError> {
        let rows = pairings::with_status(self.store(), status).await?;
        Ok(rows.into_iter().filter(|a| self.agent_holds(a)).map(Pairing::from).collect())
    }

    /// Settles a pending pairing with the person's answer; a yes only after the
    /// OS confirmed the person (`Pairings::approve`), with how.
    pub(super) async fn settle_pairing(
        &self,
        pairing_id: &str,
        approve: bool,
        confirmed_by: Option<Method>,
    ) -> Result<Pairing, ServiceError> {
        let now = self.now();
        self.expire_pairings(now).await?;
        let to = if approve { PairingStatus::Approved } else { PairingStatus::Declined };
        // The yes is sealed onto the row as the key app checked it: a name
        // changed since it was shown is not the one approved.
        let found = pairings::by_pairing_id(self.store(), pairing_id, None).await?;
        let found = found.filter(|a| self.agent_holds(a)).ok_or(ServiceError::NotFound(Missing::Pairing))?;
        let approved_seal = approve
            .then(|| self.inner.seal.pairing(&crate::record_seal::PairingFields { approved: true, ..found.fields() }));
        let reseal = approved_seal
            .as_deref()
            .map(|now| pairings::Reseal { was: found.seal.as_deref().unwrap_or_default(), now });
        if !pairings::settle(self.store(), pairing_id, to, now, confirmed_by, reseal).await? {
            let p = self.pairings().pairing(pairing_id).await?;
            return Err(ServiceError::PairingNotPending(p.status));
        }
        tracing::info!(pairing_id, approved = approve, "pairing answered");
        self.notify();
        self.pairings().pairing(pairing_id).await
    }

    /// Message `id` with `$count`, in the person's language.
    fn counted(&self, id: &str, count: u32) -> String {
        self.words_with(id, [("count", count.into())])
    }

    /// One credential an unpaired agent keeps, in a sentence: that it cannot
    /// be revoked, or (not revoked when asked) that it stays in force, and
    /// until when.
    fn kept_words(&self, c: &HeldCredential) -> String {
        let id = if c.revocable() { "agents-unpair-kept" } else { "agents-unpair-not-revocable" };
        let kind = self.words(&format!("kind-{}", c.kind));
        self.words_with(id, [("kind", kind.into()), ("until", self.instant_words(c.exp).into())])
    }

    /// Pairing requests unanswered for `PAIRING_TTL` expire: dropped from what the
    /// person is shown (the app's sweeper calls this every few seconds, so a stale
    /// prompt does not wait for someone to list them).
    pub(super) async fn expire_pairings(&self, now: i64) -> Result<(), ServiceError> {
        let mut expired = pairings::expire(self.store(), now, PAIRING_TTL).await?;
        // A pending row the key app did not write (record_seal) is never shown,
        // but it would count against the bounds on pairings waiting, and a
        // far-off creation time would keep it there: it expires at once.
        let unsealed: Vec<String> = pairings::with_status(self.store(), PairingStatus::Pending)
            .await?
            .into_iter()
            .filter(|a| !self.agent_holds(a))
            .map(|a| a.pairing_id)
            .collect();
        if !unsealed.is_empty() {
            tracing::warn!(count = unsealed.len(), "pending pairings the key app did not write expire");
            expired += pairings::expire_these(self.store(), &unsealed, now).await?;
        }
        if expired > 0 {
            self.notify();
        }
        Ok(())
    }
}

/// Agents' pairings with this key app (docs/agent-api.md §4): `Service::pairings`.
#[derive(Clone, Copy)]
pub struct Pairings<'a> {
    pub(super) svc: &'a Service,
}

impl Pairings<'_> {
    /// `POST /v1/pairings`. An approved agent gets its pairing back; a pending one
    /// the same pending pairing; a declined, expired or unpaired one a new attempt.
    pub async fn request_pairing(self, jwk: &Jwk, agent_name: &str) -> Result<Pairing, ServiceError> {
        self.request_pairing_from(jwk, agent_name, None).await
    }

    /// `POST /v1/pairings` from a process of local user `peer_uid` (`None`: not
    /// known), whose pending pairings are bounded apart from other users'.
    pub async fn request_pairing_from(
        self,
        jwk: &Jwk,
        agent_name: &str,
        peer_uid: Option<u32>,
    ) -> Result<Pairing, ServiceError> {
        check_name(agent_name)?;
        let jkt = jwk.thumbprint().map_err(|e| ServiceError::Verification(e.into()))?;
        let now = self.svc.now();
        self.svc.expire_pairings(now).await?;
        // Read, then write: IMMEDIATE (a flood of pairings waits its turn).
        let mut tx = self.svc.store().begin_immediate().await?;
        // A row the key app did not write as it stands says nothing of this
        // key: it asks anew, as if there were none.
        let existing = pairings::by_jkt(&mut tx, &jkt).await?.filter(|a| self.svc.agent_holds(a));
        if let Some(existing) = existing {
            let answer = match existing.status {
                PairingStatus::Approved | PairingStatus::Pending => Some(Ok(Pairing::from(existing))),
                PairingStatus::Declined => declined_cooldown(existing.decided_at, now).err().map(Err),
                PairingStatus::Expired | PairingStatus::Unpaired => None,
            };
            if let Some(answer) = answer {
                tx.rollback().await?;
                return answer;
            }
        }
        let pairing = Pairing {
            pairing_id: Service::new_id("pr_"),
            status: PairingStatus::Pending,
            fingerprint: fingerprint(&jkt),
            agent_jkt: jkt,
            agent_name: agent_name.to_owned(),
            created_at: now,
            peer_uid,
        };
        let jwk_json = serde_json::to_string(jwk).expect("a JWK serializes");
        let seal = self.svc.inner.seal.pairing(&crate::record_seal::PairingFields {
            jkt: &pairing.agent_jkt,
            jwk: &jwk_json,
            name: agent_name,
            pairing_id: &pairing.pairing_id,
            approved: false,
        });
        let new = NewPairing {
            jkt: &pairing.agent_jkt,
            jwk: &jwk_json,
            name: agent_name,
            pairing_id: &pairing.pairing_id,
            fingerprint: &pairing.fingerprint,
            created_at: now,
            peer_uid,
            seal: &seal,
        };
        if !pairings::add_pending(&mut tx, self.svc.store().history_seal(), &new, BOUNDS).await? {
            let load = pairings::pending_load(&mut tx, peer_uid).await?;
            // Now, not when the connection is next used: it holds the write lock.
            tx.rollback().await?;
            return Err(too_many_pairings(load, now));
        }
        tx.commit().await?;
        self.svc.notify();
        Ok(pairing)
    }

    /// How many pairings from local user `peer_uid` were declined or went
    /// unanswered in the last `CHURN_WINDOW` seconds.
    pub async fn churned_pairings(self, peer_uid: Option<u32>) -> Result<i64, ServiceError> {
        Ok(pairings::churned(self.svc.store(), peer_uid, self.svc.now() - CHURN_WINDOW).await?)
    }

    /// The sentence the person reads beside a pending pairing whose user's
    /// earlier pairings keep being declined or going unanswered: someone may be
    /// wearing them down with look-alike prompts. `None` below `CHURN_NOTICE_FROM`.
    pub async fn churn_notice(self, pairing: &Pairing) -> Result<Option<String>, ServiceError> {
        let n = self.churned_pairings(pairing.peer_uid).await?;
        if n < CHURN_NOTICE_FROM {
            return Ok(None);
        }
        Ok(Some(self.svc.words_with("pairing-churn", [("count", n.into()), ("minutes", (CHURN_WINDOW / 60).into())])))
    }

    /// A pairing as its own agent sees it; another agent's is "not found".
    pub async fn pairing_for_agent(self, jkt: &str, pairing_id: &str) -> Result<Pairing, ServiceError> {
        self.svc.find_pairing(pairing_id, Some(jkt)).await
    }

    pub async fn pairing(self, pairing_id: &str) -> Result<Pairing, ServiceError> {
        self.svc.find_pairing(pairing_id, None).await
    }

    pub async fn pending_pairings(self) -> Result<Vec<Pairing>, ServiceError> {
        self.svc.expire_pairings(self.svc.now()).await?;
        self.svc.pairings_in(PairingStatus::Pending).await
    }

    pub async fn paired_agents(self) -> Result<Vec<Pairing>, ServiceError> {
        self.svc.pairings_in(PairingStatus::Approved).await
    }

    pub async fn is_paired(self, jkt: &str) -> Result<bool, ServiceError> {
        Ok(self.svc.paired_agent(jkt).await?.is_some())
    }

    /// Unpairs an agent; its pending requests are withdrawn in the same
    /// transaction, and the credentials it holds stay in force.
    pub async fn unpair(self, jkt: &str) -> Result<(), ServiceError> {
        self.unpair_revoking(jkt, false).await.map(|_| ())
    }

    /// What unpairing agent `jkt` could take back, in words: the question both
    /// surfaces ask, and the credentials no revocation reaches.
    pub async fn agent_holds(self, jkt: &str) -> Result<HoldsView, ServiceError> {
        let held = crate::store::agents::held_now(self.svc.store(), jkt, self.svc.now()).await?;
        let (revocable, kept): (Vec<_>, Vec<_>) = held.into_iter().partition(|c| c.revocable());
        let count = u32::try_from(revocable.len()).unwrap_or(u32::MAX);
        let question = (count > 0).then(|| self.svc.counted("agents-unpair-revoke-question", count));
        Ok(HoldsView {
            revocable: count,
            question,
            not_revocable: kept.iter().map(|c| self.svc.kept_words(c)).collect(),
        })
    }

    /// Unpairs an agent, its pending requests withdrawn; with `revoke`, every
    /// credential it holds that hosts check at a status URL is revoked in the
    /// same transaction (§3.3 check 7), and the others are named: nothing
    /// could reach the hosts that read them, so each lapses on its own.
    pub async fn unpair_revoking(self, jkt: &str, revoke: bool) -> Result<UnpairedView, ServiceError> {
        let Some(done) = pairings::unpair(self.svc.store(), jkt, self.svc.now(), revoke).await? else {
            return Err(ServiceError::NotFound(Missing::PairedAgent));
        };
        tracing::info!(revoked = done.revoked.len(), "agent unpaired");
        self.svc.notify();
        if !done.revoked.is_empty() {
            // As `revoke` does: published now if it can be, else by the publisher.
            if let Err(e) = self.svc.publish_due().await {
                tracing::warn!(error = %e, "publishing the revocations failed; the publisher retries");
            }
            self.svc.wake_publisher();
        }
        let count = u32::try_from(done.revoked.len()).unwrap_or(u32::MAX);
        Ok(UnpairedView {
            words: self.svc.counted("agents-unpaired", count),
            kept: done.kept.iter().map(|c| self.svc.kept_words(c)).collect(),
            revoked: done.revoked,
        })
    }

    /// The key thumbprint of the paired agent `id` names: its thumbprint, or
    /// the fingerprint the person compared when pairing it (case aside).
    pub async fn paired_agent_key(self, id: &str) -> Result<String, ServiceError> {
        let id = id.trim();
        self.paired_agents()
            .await?
            .into_iter()
            .find(|p| p.agent_jkt == id || p.fingerprint.eq_ignore_ascii_case(id))
            .map(|p| p.agent_jkt)
            .ok_or(ServiceError::NotFound(Missing::PairedAgent))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::service_at;
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

    /// Every agent key the records hold, whatever its status.
    async fn agents(svc: &Service) -> usize {
        let mut n = 0;
        for status in PairingStatus::ALL {
            n += pairings::with_status(svc.store(), status).await.unwrap().len();
        }
        n
    }

    fn agent_jwk(seed: u8) -> Jwk {
        Jwk::ed25519(&ed25519_dalek::SigningKey::from_bytes(&[seed; 32]).verifying_key())
    }

    fn refusal(r: Result<Pairing, ServiceError>) -> (&'static str, u64) {
        match r {
            Err(ServiceError::TooMany { reason, retry_after, .. }) => (reason.as_str(), retry_after.unwrap()),
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_flood_of_fresh_keys_leaves_at_most_the_bound_pending() {
        use std::sync::atomic::Ordering;
        const T0: i64 = 1_792_000_000;
        let (svc, clock, _dir) = service_at(T0).await;
        let mut accepted = Vec::new();
        for seed in 10..50u8 {
            match svc.pairings().request_pairing(&agent_jwk(seed), "Flood").await {
                Ok(p) => accepted.push(p),
                Err(e) => assert_eq!(refusal(Err(e)), ("too_many_pairings", PAIRING_TTL as u64)),
            }
        }
        assert_eq!(accepted.len(), MAX_PENDING_PAIRINGS as usize);
        assert_eq!(svc.pairings().pending_pairings().await.unwrap().len(), MAX_PENDING_PAIRINGS as usize);
        // The refused ones left nothing behind.
        assert_eq!(agents(&svc).await, MAX_PENDING_PAIRINGS as usize);
        // A key already waiting gets its own pairing back, bound or not.
        assert_eq!(svc.pairings().request_pairing(&agent_jwk(10), "Flood").await.unwrap(), accepted[0]);

        // The person answers two: two new keys may ask, not a third.
        svc.pairings().approve(&accepted[0].pairing_id, crate::service::Origin::ThisProcess).await.unwrap();
        svc.pairings().decline(&accepted[1].pairing_id).await.unwrap();
        svc.pairings().request_pairing(&agent_jwk(60), "New").await.unwrap();
        clock.store(T0 + 100, Ordering::SeqCst);
        svc.pairings().request_pairing(&agent_jwk(61), "New").await.unwrap();
        // Retry when the oldest pending one (accepted[2], asked at T0) expires.
        assert_eq!(refusal(svc.pairings().request_pairing(&agent_jwk(62), "New").await), ("too_many_pairings", 500));

        // Unanswered past PAIRING_TTL, a pairing expires and frees its place.
        clock.store(T0 + PAIRING_TTL - 1, Ordering::SeqCst);
        assert_eq!(refusal(svc.pairings().request_pairing(&agent_jwk(62), "New").await).0, "too_many_pairings");
        clock.store(T0 + PAIRING_TTL, Ordering::SeqCst);
        // The sweeper's call drops the two asked at T0; the one asked at T0 + 100 waits on.
        svc.expire_pairings(svc.now()).await.unwrap();
        assert_eq!(pairings::with_status(svc.store(), PairingStatus::Pending).await.unwrap().len(), 1);
        let p = svc.pairings().request_pairing(&agent_jwk(62), "New").await.unwrap();
        assert_eq!(p.status, PairingStatus::Pending);
        assert_eq!(svc.pairings().pairing(&accepted[2].pairing_id).await.unwrap().status, PairingStatus::Expired);
    }

    #[tokio::test]
    async fn a_declined_key_is_refused_at_once_until_the_cooldown_passes() {
        use std::sync::atomic::Ordering;
        const T0: i64 = 1_792_000_000;
        let (svc, clock, _dir) = service_at(T0).await;
        let p = svc.pairings().request_pairing(&agent_jwk(5), "Pest").await.unwrap();
        svc.pairings().decline(&p.pairing_id).await.unwrap();
        clock.store(T0 + 60, Ordering::SeqCst);
        assert_eq!(
            refusal(svc.pairings().request_pairing(&agent_jwk(5), "Pest").await),
            ("pairing_declined", (DECLINED_COOLDOWN - 60) as u64)
        );
        assert!(svc.pairings().pending_pairings().await.unwrap().is_empty(), "no prompt was raised");
        clock.store(T0 + DECLINED_COOLDOWN - 1, Ordering::SeqCst);
        assert_eq!(refusal(svc.pairings().request_pairing(&agent_jwk(5), "Pest").await), ("pairing_declined", 1));
        clock.store(T0 + DECLINED_COOLDOWN, Ordering::SeqCst);
        let again = svc.pairings().request_pairing(&agent_jwk(5), "Pest").await.unwrap();
        assert_eq!(again.status, PairingStatus::Pending);
        assert_ne!(again.pairing_id, p.pairing_id);
        // Another key is never held back by this one's no.
        svc.pairings().request_pairing(&agent_jwk(6), "Other").await.unwrap();
    }

    #[tokio::test]
    async fn pending_pairings_are_bounded_per_local_user() {
        const T0: i64 = 1_792_000_000;
        let (svc, _clock, _dir) = service_at(T0).await;
        let ask = |seed: u8, uid: Option<u32>| {
            let svc = svc.clone();
            async move { svc.pairings().request_pairing_from(&agent_jwk(seed), "Claude Desktop", uid).await }
        };
        for seed in 10..13 {
            ask(seed, Some(1000)).await.unwrap();
        }
        // This user's look-alikes are refused, retry when its oldest expires.
        assert_eq!(refusal(ask(13, Some(1000)).await), ("too_many_pairings", PAIRING_TTL as u64));
        // Another user, and a process whose user is not known, each still get theirs.
        let theirs = ask(20, Some(0)).await.unwrap();
        assert_eq!(theirs.peer_uid, Some(0));
        ask(30, None).await.unwrap();
        assert_eq!(svc.pairings().pending_pairings().await.unwrap().len(), 5);
        // All users together are bounded too.
        let mut uid = 2000;
        let refused = loop {
            match ask(40 + (uid - 2000) as u8, Some(uid)).await {
                Ok(_) => uid += 1,
                Err(e) => break e,
            }
        };
        assert_eq!(refusal(Err(refused)).0, "too_many_pairings");
        assert_eq!(svc.pairings().pending_pairings().await.unwrap().len(), MAX_PENDING_PAIRINGS_ALL as usize);
        // The refused ones left no record.
        assert_eq!(agents(&svc).await, MAX_PENDING_PAIRINGS_ALL as usize);
    }

    #[tokio::test]
    async fn the_person_is_told_when_one_users_pairings_keep_being_declined_or_expiring() {
        use std::sync::atomic::Ordering;
        const T0: i64 = 1_792_000_000;
        let (svc, clock, _dir) = service_at(T0).await;
        // Two declined and one left to expire, from user 1000.
        for seed in 10..12 {
            let p = svc.pairings().request_pairing_from(&agent_jwk(seed), "Claude Desktop", Some(1000)).await.unwrap();
            svc.pairings().decline(&p.pairing_id).await.unwrap();
        }
        svc.pairings().request_pairing_from(&agent_jwk(12), "Claude Desktop", Some(1000)).await.unwrap();
        let before = svc.pairings().request_pairing_from(&agent_jwk(13), "Claude Desktop", Some(1000)).await.unwrap();
        assert_eq!(svc.pairings().churn_notice(&before).await.unwrap(), None, "two are not yet churn");
        clock.store(T0 + PAIRING_TTL, Ordering::SeqCst);
        svc.expire_pairings(svc.now()).await.unwrap();
        assert_eq!(svc.pairings().churned_pairings(Some(1000)).await.unwrap(), 4);
        let next = svc.pairings().request_pairing_from(&agent_jwk(14), "Claude Desktop", Some(1000)).await.unwrap();
        let notice = svc.pairings().churn_notice(&next).await.unwrap().expect("the person is told");
        assert!(notice.starts_with("4 other pairing requests") && notice.contains("30 minutes"), "{notice}");
        let items = svc.requests().pending_items().await.unwrap();
        assert_eq!(items.iter().find(|i| i.id == next.pairing_id).unwrap().churn.as_deref(), Some(notice.as_str()));
        // The consent window's prompt carries it too, beside the code to compare.
        assert_eq!(svc.requests().prompt(&next.pairing_id).await.unwrap().churn.as_deref(), Some(notice.as_str()));
        assert_eq!(svc.requests().prompt(&before.pairing_id).await.unwrap().churn.as_deref(), Some(notice.as_str()));
        // Another user's prompt carries no notice.
        let other = svc.pairings().request_pairing_from(&agent_jwk(20), "Claude Desktop", Some(0)).await.unwrap();
        assert_eq!(svc.pairings().churn_notice(&other).await.unwrap(), None);
        // Outside the window, the old ones no longer count.
        clock.store(T0 + PAIRING_TTL + CHURN_WINDOW + 1, Ordering::SeqCst);
        assert_eq!(svc.pairings().churned_pairings(Some(1000)).await.unwrap(), 0);
    }

    #[tokio::test]
    async fn a_pairing_is_answered_once_and_seen_only_by_its_own_agent() {
        const T0: i64 = 1_792_000_000;
        let (svc, _clock, _dir) = service_at(T0).await;
        let p = svc.pairings().request_pairing(&agent_jwk(5), "Calendar").await.unwrap();
        assert_eq!(svc.pairings().pairing_for_agent(&p.agent_jkt, &p.pairing_id).await.unwrap(), p);
        let other = agent_jwk(6).thumbprint().unwrap();
        assert!(matches!(
            svc.pairings().pairing_for_agent(&other, &p.pairing_id).await,
            Err(ServiceError::NotFound(Missing::Pairing))
        ));
        assert!(matches!(
            svc.settle_pairing("pr_nobody", false, None).await,
            Err(ServiceError::NotFound(Missing::Pairing))
        ));

        let declined = svc.settle_pairing(&p.pairing_id, false, None).await.unwrap();
        assert_eq!(declined.status, PairingStatus::Declined);
        let again = svc.settle_pairing(&p.pairing_id, true, Some(Method::Polkit)).await;
        assert!(matches!(again, Err(ServiceError::PairingNotPending(PairingStatus::Declined))), "{again:?}");
        assert!(!svc.pairings().is_paired(&p.agent_jkt).await.unwrap());
        let events: Vec<_> = svc.records().history_entries(10).await.unwrap().into_iter().map(|h| h.event).collect();
        assert_eq!(events, ["pairing_declined", "pairing_requested"], "the second answer wrote nothing");
    }

    #[tokio::test]
    async fn an_agent_row_written_outside_the_key_app_pairs_no_one_and_names_no_one() {
        const T0: i64 = 1_792_000_000;
        let (svc, _clock, _dir) = service_at(T0).await;
        let write = |sql: &'static str, a: String, b: String| {
            let pool = svc.store().pool().clone();
            async move {
                let done = sqlx::query(sql).bind(a).bind(b).execute(&pool).await.unwrap();
                assert_eq!(done.rows_affected(), 1, "{sql}");
            }
        };
        // A second key of the assistant's, added as approved under the name of
        // an assistant the person trusts.
        let theirs = agent_jwk(7);
        let jkt = theirs.thumbprint().unwrap();
        write(
            "INSERT INTO agents (jkt, jwk, name, pairing_id, fingerprint, status, created_at)
             VALUES (?, ?, 'Family Calendar', 'pr_forged', 'f', 'approved', 0)",
            jkt.clone(),
            serde_json::to_string(&theirs).unwrap(),
        )
        .await;
        assert!(!svc.pairings().is_paired(&jkt).await.unwrap());
        assert!(svc.pairings().paired_agents().await.unwrap().is_empty());
        assert!(svc.directory().agents().await.unwrap().is_empty());
        assert_eq!(svc.directory().agent_name(&jkt).await.unwrap(), "", "names no one");
        assert!(matches!(svc.pairings().pairing("pr_forged").await, Err(ServiceError::NotFound(Missing::Pairing))));
        // Asking to pair through the key app, it is asked as a new key.
        let asked = svc.pairings().request_pairing(&theirs, "Family Calendar").await.unwrap();
        assert_eq!(asked.status, PairingStatus::Pending);
        // The code the person compares is the key's own, whatever the row says.
        write("UPDATE agents SET fingerprint = ? WHERE jkt = ?", "AAAA-BBBB-CCCC".into(), jkt.clone()).await;
        let shown = svc.pairings().pending_pairings().await.unwrap();
        assert_eq!(shown.len(), 1);
        assert_eq!(shown[0].fingerprint, fingerprint(&jkt));
        assert_ne!(shown[0].fingerprint, "AAAA-BBBB-CCCC");

        // A pending pairing set to approved in the table, without the person's yes.
        write(
            "UPDATE agents SET status = 'approved' WHERE pairing_id = ? AND jkt = ?",
            asked.pairing_id.clone(),
            jkt.clone(),
        )
        .await;
        assert!(!svc.pairings().is_paired(&jkt).await.unwrap(), "the seal of a yes is the key app's to write");

        // A pending pairing renamed before the person's yes: the yes is not
        // given to a name the person was not shown.
        let notes = svc.pairings().request_pairing(&agent_jwk(8), "Notes").await.unwrap();
        write("UPDATE agents SET name = ? WHERE pairing_id = ?", "Your Bank".into(), notes.pairing_id.clone()).await;
        assert!(svc.pairings().pending_pairings().await.unwrap().iter().all(|p| p.pairing_id != notes.pairing_id));
        let yes = svc.settle_pairing(&notes.pairing_id, true, Some(Method::Polkit)).await;
        assert!(matches!(yes, Err(ServiceError::NotFound(Missing::Pairing))), "{yes:?}");
        // Nor does it hold a place among the pairings waiting: it expired.
        let status: String = sqlx::query_scalar("SELECT status FROM agents WHERE pairing_id = ?")
            .bind(&notes.pairing_id)
            .fetch_one(svc.store().pool())
            .await
            .unwrap();
        assert_eq!(status, "expired");

        // A paired agent renamed in the table is no longer paired, nor named.
        let cal = svc.pairings().request_pairing(&agent_jwk(9), "Calendar").await.unwrap();
        svc.settle_pairing(&cal.pairing_id, true, Some(Method::Polkit)).await.unwrap();
        assert!(svc.pairings().is_paired(&cal.agent_jkt).await.unwrap(), "control: the person's yes pairs it");
        assert_eq!(svc.directory().agent_name(&cal.agent_jkt).await.unwrap(), "Calendar");
        assert_eq!(svc.directory().agents().await.unwrap().len(), 1);
        write("UPDATE agents SET name = ? WHERE jkt = ?", "Family Calendar".into(), cal.agent_jkt.clone()).await;
        assert!(!svc.pairings().is_paired(&cal.agent_jkt).await.unwrap());
        assert_eq!(svc.paired_agent_name(&cal.agent_jkt).await.unwrap(), None);
        assert_eq!(svc.directory().agent_name(&cal.agent_jkt).await.unwrap(), "");
        assert!(svc.directory().agents().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_paired_agent_is_unpaired_once() {
        const T0: i64 = 1_792_000_000;
        let (svc, _clock, _dir) = service_at(T0).await;
        let p = svc.pairings().request_pairing(&agent_jwk(5), "Calendar").await.unwrap();
        assert!(
            matches!(svc.pairings().unpair(&p.agent_jkt).await, Err(ServiceError::NotFound(Missing::PairedAgent))),
            "pending"
        );
        svc.settle_pairing(&p.pairing_id, true, Some(Method::Polkit)).await.unwrap();
        assert!(svc.pairings().is_paired(&p.agent_jkt).await.unwrap());
        assert_eq!(svc.pairings().paired_agents().await.unwrap().len(), 1);
        assert_eq!(svc.paired_agent_name(&p.agent_jkt).await.unwrap().as_deref(), Some("Calendar"));
        // An approved agent asking again gets its pairing back, unchanged.
        let back = svc.pairings().request_pairing(&agent_jwk(5), "Renamed").await.unwrap();
        assert_eq!((back.pairing_id.as_str(), back.status), (p.pairing_id.as_str(), PairingStatus::Approved));

        svc.pairings().unpair(&p.agent_jkt).await.unwrap();
        assert!(!svc.pairings().is_paired(&p.agent_jkt).await.unwrap());
        assert_eq!(svc.paired_agent_name(&p.agent_jkt).await.unwrap(), None);
        assert_eq!(
            svc.directory().agent_name(&p.agent_jkt).await.unwrap(),
            "Calendar",
            "its name stays in the records"
        );
        assert!(matches!(svc.pairings().unpair(&p.agent_jkt).await, Err(ServiceError::NotFound(Missing::PairedAgent))));
        let entries = svc.records().history_entries(10).await.unwrap();
        let events: Vec<_> = entries.iter().map(|h| (h.event.as_str(), h.confirmed_by.as_deref())).collect();
        assert_eq!(
            events,
            [("agent_unpaired", None), ("pairing_approved", Some("polkit")), ("pairing_requested", None)]
        );
        // Unpaired, it may ask again: a new pairing, pending.
        let anew = svc.pairings().request_pairing(&agent_jwk(5), "Calendar").await.unwrap();
        assert_eq!(anew.status, PairingStatus::Pending);
        assert_ne!(anew.pairing_id, p.pairing_id);
    }

    #[tokio::test]
    async fn unpairing_with_a_yes_revokes_in_one_go_what_a_status_url_names() {
        use crate::kind::RequestKind;
        use crate::store::credentials::CredentialStatus;
        const T0: i64 = 1_792_000_000;
        let (svc, _clock, _dir) = service_at(T0).await;
        let p = svc.pairings().request_pairing(&agent_jwk(7), "Calendar").await.unwrap();
        svc.settle_pairing(&p.pairing_id, true, Some(Method::Polkit)).await.unwrap();
        let other = agent_jwk(8).thumbprint().unwrap();
        let record = |n, jti: &str, kind, agent: &str, status: bool| {
            let mut c = crate::store::testing::credential(n, jti, kind, agent);
            if !status {
                c.status_url = None;
            }
            c
        };
        let me = p.agent_jkt.as_str();
        for c in [
            record(0, "m1", RequestKind::Mandate, me, true),
            record(1, "c1", RequestKind::ClosedMandate, me, true),
            record(2, "m-bare", RequestKind::Mandate, me, false),
            record(3, "r1", RequestKind::Rule, me, true),
            record(4, "m-other", RequestKind::Mandate, &other, true),
        ] {
            svc.record_sealed(c).await.unwrap();
        }
        // One already revoked is not held, and not counted.
        svc.record_sealed(record(5, "m-gone", RequestKind::Mandate, me, true)).await.unwrap();
        svc.records().revoke("m-gone").await.unwrap();

        let holds = svc.pairings().agent_holds(me).await.unwrap();
        assert_eq!(holds.revocable, 2);
        assert_eq!(holds.question.as_deref(), Some("Also revoke the 2 credentials it holds?"));
        assert_eq!(holds.not_revocable.len(), 2, "{holds:?}");
        assert!(holds.not_revocable[0].starts_with("Mandate: cannot be revoked, because no host checks it"));
        assert!(holds.not_revocable[1].starts_with("Rule: cannot be revoked"), "{holds:?}");
        let listed = svc.directory().agents().await.unwrap();
        assert_eq!(listed[0].holds, holds, "the window's list carries the same question");
        // The agent named by its fingerprint, in any case.
        assert_eq!(svc.pairings().paired_agent_key(&p.fingerprint.to_lowercase()).await.unwrap(), me);
        assert!(matches!(
            svc.pairings().paired_agent_key(&other).await,
            Err(ServiceError::NotFound(Missing::PairedAgent))
        ));

        let done = svc.pairings().unpair_revoking(me, true).await.unwrap();
        assert_eq!(done.revoked, ["m1", "c1"]);
        assert_eq!(done.words, "Unpaired. 2 credentials were revoked.");
        assert_eq!(done.kept, holds.not_revocable, "what no revocation reaches is named");
        let status: Vec<_> =
            svc.records().credentials(None).await.unwrap().into_iter().map(|c| (c.jti, c.status)).collect::<Vec<_>>();
        let of = |jti: &str| status.iter().find(|(j, _)| j == jti).unwrap().1;
        assert_eq!(of("m1"), CredentialStatus::Revoked);
        assert_eq!(of("c1"), CredentialStatus::Revoked);
        assert_eq!(of("m-bare"), CredentialStatus::Active);
        assert_eq!(of("r1"), CredentialStatus::Active);
        assert_eq!(of("m-other"), CredentialStatus::Active, "another agent's stays");
        let events: Vec<_> = svc
            .records()
            .history_entries(3)
            .await
            .unwrap()
            .into_iter()
            .map(|h| (h.event, h.subject))
            .collect::<Vec<_>>();
        let events: Vec<_> = events.iter().map(|(e, s)| (e.as_str(), s.as_str())).collect();
        assert_eq!(events, [("revoked", "c1"), ("revoked", "m1"), ("agent_unpaired", me)]);
        // Not paired any more: refused, and nothing else is written.
        let before = svc.records().history_entries(50).await.unwrap().len();
        assert!(matches!(
            svc.pairings().unpair_revoking(me, true).await,
            Err(ServiceError::NotFound(Missing::PairedAgent))
        ));
        assert_eq!(svc.records().history_entries(50).await.unwrap().len(), before);
    }

    #[tokio::test]
    async fn unpairing_without_a_yes_leaves_every_credential_in_force_and_says_so() {
        use crate::kind::RequestKind;
        const T0: i64 = 1_792_000_000;
        let (svc, _clock, _dir) = service_at(T0).await;
        let p = svc.pairings().request_pairing(&agent_jwk(7), "Calendar").await.unwrap();
        svc.settle_pairing(&p.pairing_id, true, Some(Method::Polkit)).await.unwrap();
        let me = p.agent_jkt.as_str();
        svc.record_sealed(crate::store::testing::credential(0, "m1", RequestKind::Mandate, me)).await.unwrap();
        let holds = svc.pairings().agent_holds(me).await.unwrap();
        assert_eq!((holds.revocable, holds.question.as_deref()), (1, Some("Also revoke the credential it holds?")));
        let done = svc.pairings().unpair_revoking(me, false).await.unwrap();
        assert!(done.revoked.is_empty());
        assert_eq!(done.words, "Unpaired. Nothing was revoked.");
        assert_eq!(done.kept.len(), 1);
        assert!(done.kept[0].starts_with("Mandate: not revoked, in force until"), "{done:?}");
        let revoked = crate::store::credentials::CredentialStatus::Revoked;
        assert!(svc.records().credentials(None).await.unwrap().iter().all(|c| c.status != revoked));
        // An agent holding nothing is asked nothing.
        let q = svc.pairings().request_pairing(&agent_jwk(9), "Other").await.unwrap();
        svc.settle_pairing(&q.pairing_id, true, Some(Method::Polkit)).await.unwrap();
        let none = svc.pairings().agent_holds(&q.agent_jkt).await.unwrap();
        assert_eq!((none.revocable, none.question, none.not_revocable.len()), (0, None, 0));
    }

    fn reason(r: Result<(), ServiceError>) -> Reason {
        r.expect_err("refused").to_api().reason
    }

    #[test]
    fn agent_names_are_checked() {
        assert!(check_name("Calendar Assistant").is_ok());
        assert!(check_name("Noor’s שלום assistant").is_ok());
        assert!(check_name(&"x".repeat(MAX_AGENT_NAME)).is_ok());
        assert_eq!(reason(check_name("  ")), "bad_agent_name");
        let long = check_name(&"x".repeat(MAX_AGENT_NAME + 1)).expect_err("too long").to_api();
        assert_eq!((long.status.as_u16(), long.reason), (422, Reason::TextTooLong));
        // Every class of character rule 1 of the inert text replaces.
        for (class, name) in [
            ("C0 control", "Cal\u{7}endar"),
            ("newline", "Calendar\nApproved: yes"),
            ("C1 control", "Cal\u{85}endar"),
            ("DEL", "Cal\u{7F}endar"),
            ("bidi override", "Calendar \u{202E}tnatsissA"),
            ("bidi embedding", "Cal\u{202B}endar"),
            ("bidi isolate", "Cal\u{2067}endar\u{2069}"),
            ("bidi mark", "Cal\u{200F}endar"),
            ("zero-width space", "Cal\u{200B}endar"),
            ("zero-width joiner", "Cal\u{200D}endar"),
            ("byte-order mark", "\u{FEFF}Calendar"),
            ("line separator", "Cal\u{2028}endar"),
            ("private use", "Cal\u{E000}endar"),
        ] {
            let e = check_name(name).expect_err(class).to_api();
            assert_eq!((e.status.as_u16(), e.reason), (422, Reason::TextNotInert), "{class}");
        }
    }
}
