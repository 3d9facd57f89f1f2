//! The agent API's replay memory (§3.2): bounded, shared by every request
//! handler, and aware of when this process began remembering.

use schcp::httpsig::{NonceMemory, SigError, NONCE_MEMORY_SECS};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;

/// The replay memory of §3.2: each (keyid, nonce) whose signature verified,
/// until `created + 301 s`.
///
/// Bound: because `created` is within 300 s of the clock, an entry lives at
/// most 601 s, so the map holds at most the verified requests of the last
/// ~10 minutes; and never more than `capacity` entries (each a 32-byte hash
/// of the pair plus its expiry: 82 bytes with the table's overhead, measured
/// by `benches/memory.rs`, so the default 2^17 entries hold at most about
/// 10 MiB, reached only under a sustained ~218 verified requests a second; a
/// person's agents make a few a minute). At capacity, after pruning, a new
/// request is refused (`SigError::Busy`) rather than a live nonce forgotten.
/// Expired entries are pruned on insert, amortized: a full sweep whenever the
/// map has doubled since the last one (and whenever it reaches capacity).
#[derive(Debug)]
pub struct NonceCache {
    inner: Mutex<NonceInner>,
    capacity: usize,
    /// When the memory began: the wall-clock second then and the monotonic
    /// instant, so a wall clock stepped later (time sync, a resumed VM) moves
    /// the bound with it. Signatures created earlier are refused. `None`: no
    /// such bound (a memory that outlives restarts, or a test).
    remembers_since: Option<(i64, std::time::Instant)>,
}

#[derive(Debug)]
struct NonceInner {
    /// SHA-256 of the pair → the last second it must be remembered.
    seen: HashMap<[u8; 32], i64>,
    sweep_at: usize,
}

impl Default for NonceCache {
    fn default() -> Self {
        NonceCache::new()
    }
}

impl NonceCache {
    pub const DEFAULT_CAPACITY: usize = 1 << 17;
    const MIN_SWEEP: usize = 1024;

    pub fn new() -> Self {
        NonceCache::with_capacity(Self::DEFAULT_CAPACITY)
    }

    pub fn with_capacity(capacity: usize) -> Self {
        NonceCache {
            inner: Mutex::new(NonceInner { seen: HashMap::new(), sweep_at: Self::MIN_SWEEP }),
            capacity: capacity.max(1),
            remembers_since: None,
        }
    }

    /// A memory that began at `since` (Unix seconds): signatures created before
    /// it are refused (`SigError::BeforeMemory`), since their nonces may have
    /// been spent with a memory now gone.
    pub fn remembering_since(mut self, since: i64) -> Self {
        self.remembers_since = Some((since, std::time::Instant::now()));
        self
    }

    /// Entries held, expired ones not yet swept included.
    pub fn len(&self) -> usize {
        self.lock().seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, NonceInner> {
        // Each operation leaves the map consistent, so a panic elsewhere while
        // holding the lock does not make it unsafe to keep using.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl NonceCache {
    /// Whether the pair is remembered and not yet expired at `now`.
    pub fn holds(&self, keyid: &str, nonce: &str, now: i64) -> bool {
        self.lock().seen.get(&pair_key(keyid, nonce)).is_some_and(|&exp| exp >= now)
    }
}

/// The replay memory as one request sees it: the nonce goes into `own`, the
/// memory of its class (paired agents, or unpaired keys), and is a replay if
/// either class's memory holds it, so a key paired or unpaired in between
/// cannot replay a request across the two. Strangers fill only the unpaired
/// memory; paired agents keep theirs.
pub struct SplitMemory<'a> {
    pub own: &'a NonceCache,
    pub other: &'a NonceCache,
}

impl NonceMemory for SplitMemory<'_> {
    fn began(&self, now: i64) -> Option<i64> {
        self.own.began(now)
    }

    fn remember(&self, keyid: &str, nonce: &str, until: i64, now: i64) -> Result<(), SigError> {
        if self.other.holds(keyid, nonce, now) {
            return Err(SigError::Replayed);
        }
        self.own.remember(keyid, nonce, until, now)
    }
}

/// The budget of requests from keys the person has not paired, per local user
/// (`agent_api::peer`), taken before such a request's signature is checked and
/// its nonce stored: a token bucket of `burst` refilled at `per_second`.
/// Strangers can then put at most that rate of nonces into the unpaired
/// memory, whatever keys they make. At most `MAX_USERS` users are tracked;
/// past that, users whose bucket is full again are forgotten, and if none is,
/// newcomers share one bucket.
#[derive(Debug)]
pub struct UnpairedBudget {
    per_second: f64,
    burst: f64,
    buckets: Mutex<HashMap<Option<u32>, (f64, std::time::Instant)>>,
}

impl UnpairedBudget {
    /// A pairing takes a handful of requests (ask, a long poll a minute, the
    /// proof); a flood test of forty fresh keys stays inside the burst.
    pub const DEFAULT_BURST: f64 = 120.0;
    pub const DEFAULT_PER_SECOND: f64 = 2.0;
    const MAX_USERS: usize = 4096;

    pub fn new(burst: f64, per_second: f64) -> Self {
        UnpairedBudget { per_second, burst, buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes one request from `uid`'s budget, or says in how many seconds one is back.
    pub fn take(&self, uid: Option<u32>, now: std::time::Instant) -> Result<(), u64> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let refilled = |(tokens, at): (f64, std::time::Instant)| {
            (tokens + now.saturating_duration_since(at).as_secs_f64() * self.per_second).min(self.burst)
        };
        let mut key = uid;
        if !buckets.contains_key(&key) && buckets.len() >= Self::MAX_USERS {
            buckets.retain(|_, b| refilled(*b) < self.burst);
            if buckets.len() >= Self::MAX_USERS {
                key = None;
            }
        }
        let bucket = buckets.entry(key).or_insert((self.burst, now));
        let tokens = refilled(*bucket);
        if tokens >= 1.0 {
            *bucket = (tokens - 1.0, now);
            Ok(())
        } else {
            *bucket = (tokens, now);
            Err(((1.0 - tokens) / self.per_second.max(f64::MIN_POSITIVE)).ceil().clamp(1.0, 3600.0) as u64)
        }
    }
}

impl Default for UnpairedBudget {
    fn default() -> Self {
        UnpairedBudget::new(Self::DEFAULT_BURST, Self::DEFAULT_PER_SECOND)
    }
}

/// A fixed-size key for the pair; the length prefix keeps (a, bc) and (ab, c) apart.
fn pair_key(keyid: &str, nonce: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update((keyid.len() as u64).to_be_bytes());
    h.update(keyid.as_bytes());
    h.update(nonce.as_bytes());
    h.finalize().into()
}

impl NonceMemory for NonceCache {
    /// The wall-clock second the memory began, as the clock `now` reads it:
    /// the start, moved by however much the wall clock was stepped since.
    fn began(&self, now: i64) -> Option<i64> {
        let (since, at) = self.remembers_since?;
        let elapsed = i64::try_from(at.elapsed().as_secs()).unwrap_or(i64::MAX);
        // Unstepped, `now - elapsed` is `since` or a second after it (the
        // fractions of the two readings); a step shows as a larger difference.
        let moved = now.saturating_sub(elapsed);
        Some(if moved.abs_diff(since) <= 1 { since } else { moved })
    }

    /// Remembers the pair until `until` (inclusive), or refuses it as a replay
    /// if it is already remembered and not yet expired.
    fn remember(&self, keyid: &str, nonce: &str, until: i64, now: i64) -> Result<(), SigError> {
        let k = pair_key(keyid, nonce);
        let mut g = self.lock();
        if g.seen.get(&k).is_some_and(|&exp| exp >= now) {
            return Err(SigError::Replayed);
        }
        if g.seen.len() >= g.sweep_at || g.seen.len() >= self.capacity {
            let mut earliest = i64::MAX;
            g.seen.retain(|_, exp| {
                let live = *exp >= now;
                if live {
                    earliest = earliest.min(*exp);
                }
                live
            });
            g.sweep_at = (g.seen.len() * 2).max(Self::MIN_SWEEP);
            if g.seen.len() >= self.capacity {
                let retry_after = (earliest.saturating_sub(now) + 1).clamp(1, NONCE_MEMORY_SECS * 2) as u64;
                return Err(SigError::Busy { retry_after });
            }
        }
        g.seen.insert(k, until);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::SigningKey;
    use schcp::httpsig::{sign_request, verify_request, RequestParts, VerifiedAgent};

    const NOW: i64 = 1_792_000_000;
    const URL: &str = "http://127.0.0.1:7411/v1/requests";
    const BODY: &[u8] = br#"{"kind":"mandate"}"#;

    fn nonce(i: u8) -> String {
        schcp::b64::encode([i; 16])
    }

    fn signed(method: &str, url: &str, body: &[u8], created: i64, n: &str) -> Vec<(String, Vec<u8>)> {
        sign_request(method, url, body, None, &SigningKey::from_bytes(&[7u8; 32]), created, n)
            .into_iter()
            .map(|(k, v)| (k, v.into_bytes()))
            .collect()
    }

    fn verify_at(
        method: &str,
        url: &str,
        body: &[u8],
        headers: Vec<(String, Vec<u8>)>,
        now: i64,
        nonces: &NonceCache,
    ) -> Result<VerifiedAgent, SigError> {
        verify_request(&RequestParts { method, target_uri: url, headers, body }, now, nonces)
    }

    /// A restarted key app cannot know which nonces its previous run spent, so a
    /// signature older than its memory is refused; one from its first second on
    /// is checked as usual, and the refusal spends no nonce.
    #[test]
    fn a_signature_older_than_the_replay_memory_is_refused() {
        let cache = NonceCache::new().remembering_since(NOW);
        let before = signed("POST", URL, BODY, NOW - 10, &nonce(1));
        assert_eq!(
            verify_at("POST", URL, BODY, before, NOW, &cache).unwrap_err(),
            SigError::BeforeMemory { created: NOW - 10, since: NOW }
        );
        assert!(cache.is_empty());
        let at_start = signed("POST", URL, BODY, NOW, &nonce(1));
        verify_at("POST", URL, BODY, at_start.clone(), NOW, &cache).unwrap();
        assert_eq!(verify_at("POST", URL, BODY, at_start, NOW, &cache).unwrap_err(), SigError::Replayed);
        // Without a start, the window alone bounds it.
        let before = signed("POST", URL, BODY, NOW - 10, &nonce(2));
        verify_at("POST", URL, BODY, before, NOW, &NonceCache::new()).unwrap();
    }

    /// A wall clock stepped back after the start (time sync, a resumed VM) moves
    /// the bound with it, so agents signing by the same clock are not locked out.

    #[test]
    fn the_memorys_start_follows_a_stepped_wall_clock() {
        let cache = NonceCache::new().remembering_since(NOW);
        assert_eq!(cache.began(NOW), Some(NOW));
        assert_eq!(cache.began(NOW + 1), Some(NOW), "a second's fraction is not a step");
        assert_eq!(cache.began(NOW - 120), Some(NOW - 120));
        let h = signed("POST", URL, BODY, NOW - 100, &nonce(3));
        verify_at("POST", URL, BODY, h, NOW - 100, &cache).unwrap();
        assert_eq!(NonceCache::new().began(NOW), None);
    }

    #[test]
    fn nonce_cache_prunes_and_is_bounded() {
        let cache = NonceCache::with_capacity(2000);
        for i in 0..1500u32 {
            cache.remember("k", &i.to_string(), NOW + 10, NOW).unwrap();
        }
        // Later, all of those have expired: the sweep on insert clears them.
        for i in 0..600u32 {
            cache.remember("k", &format!("late{i}"), NOW + 700, NOW + 100).unwrap();
        }
        assert!(cache.len() <= 1500, "expired entries were swept, len {}", cache.len());
        // Fill to capacity with live entries: the next one is refused, not a
        // live nonce forgotten.
        let mut i = 0;
        let err = loop {
            match cache.remember("k", &format!("fill{i}"), NOW + 700, NOW + 100) {
                Ok(()) => i += 1,
                Err(e) => break e,
            }
        };
        assert!(matches!(err, SigError::Busy { retry_after } if retry_after >= 1));
        assert_eq!(cache.len(), 2000);
        assert_eq!(cache.remember("k", "late0", NOW + 700, NOW + 100), Err(SigError::Replayed));
        // Once they expire there is room again.
        cache.remember("k", "after", NOW + 2000, NOW + 701).unwrap();
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn a_nonce_in_either_memory_is_a_replay_and_goes_into_its_own() {
        let (paired, unpaired) = (NonceCache::new(), NonceCache::new());
        let as_unpaired = SplitMemory { own: &unpaired, other: &paired };
        let as_paired = SplitMemory { own: &paired, other: &unpaired };
        as_unpaired.remember("k", "n1", NOW + 301, NOW).unwrap();
        assert!(paired.is_empty(), "a stranger's nonce stays out of the paired memory");
        // Paired since: the same request replayed is still a replay.
        assert_eq!(as_paired.remember("k", "n1", NOW + 301, NOW), Err(SigError::Replayed));
        as_paired.remember("k", "n2", NOW + 301, NOW).unwrap();
        assert_eq!(as_unpaired.remember("k", "n2", NOW + 301, NOW), Err(SigError::Replayed));
        assert_eq!((paired.len(), unpaired.len()), (1, 1));
        // Expired in the other memory: no longer a replay.
        as_paired.remember("k", "n1", NOW + 700, NOW + 302).unwrap();
    }

    #[test]
    fn the_unpaired_budget_is_per_user_and_refills() {
        let budget = UnpairedBudget::new(3.0, 1.0);
        let t0 = std::time::Instant::now();
        for _ in 0..3 {
            budget.take(Some(1000), t0).unwrap();
        }
        assert_eq!(budget.take(Some(1000), t0), Err(1));
        budget.take(Some(0), t0).expect("another user's budget is untouched");
        budget.take(None, t0).expect("an unknown peer has its own");
        budget.take(Some(1000), t0 + std::time::Duration::from_millis(1000)).unwrap();
        assert!(budget.take(Some(1000), t0 + std::time::Duration::from_millis(1000)).is_err());
    }

    #[test]
    fn nonce_cache_is_shared_across_threads() {
        let cache = std::sync::Arc::new(NonceCache::new());
        let wins: usize = (0..8)
            .map(|_| {
                let c = cache.clone();
                std::thread::spawn(move || c.remember("k", "same", NOW + 301, NOW).is_ok() as usize)
            })
            .map(|t| t.join().unwrap())
            .sum();
        assert_eq!(wins, 1, "exactly one of the racing copies passes");
    }
}
