//! The service built directly, without listeners or a keychain: its records in
//! a folder of the test's, the principal key `[7; 32]`, English, and a clock
//! the test chooses (one it moves, for expiry and cooldowns).

use ed25519_dalek::SigningKey;
use keyapp::config::Config;
use keyapp::discovery::DiscoveryClient;
use keyapp::service::{Clock, Service};
use keyapp::store::Store;
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// A moment the tests of a moved clock start from (well after any real key).
pub const T0: i64 = 1_800_000_000;

/// A clock at `start` that the test moves, and the service's view of it.
pub fn movable_clock(start: i64) -> (Arc<AtomicI64>, Clock) {
    let at = Arc::new(AtomicI64::new(start));
    let read = at.clone();
    (at, Arc::new(move || read.load(Ordering::SeqCst)))
}

/// The service over records in `dir/keyapp.db`, on `clock`.
pub async fn open(dir: &Path, clock: Clock) -> Service {
    let store = Store::open(&dir.join("keyapp.db")).await.unwrap();
    let mut config = Config::default();
    // The tests' hosts are on this machine: its loopback status base is theirs.
    config.status_api.hosts_on_this_machine = true;
    let discovery = DiscoveryClient::new(&config.discovery).unwrap();
    Service::new(
        store,
        Arc::new(SigningKey::from_bytes(&[7; 32])),
        None,
        config,
        discovery,
        schcp_consent::Language::English,
        clock,
    )
    .unwrap()
}
