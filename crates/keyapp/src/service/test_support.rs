//! A service for unit tests: a fresh database, a fixed principal key, and a
//! clock the test moves.

use super::Service;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// A service on a fresh database whose clock starts at `start`; the test
/// moves it through the returned counter. The directory lives as long as
/// its guard.
pub(crate) async fn service_at(start: i64) -> (Service, Arc<AtomicI64>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::store::Store::open(&dir.path().join("keyapp.db")).await.unwrap();
    let clock = Arc::new(AtomicI64::new(start));
    let c = Arc::clone(&clock);
    let service = Service::new(
        store,
        Arc::new(ed25519_dalek::SigningKey::from_bytes(&[1; 32])),
        None,
        crate::config::Config::default(),
        crate::discovery::DiscoveryClient::new(&Default::default()).unwrap(),
        schcp_consent::Language::English,
        Arc::new(move || c.load(Ordering::SeqCst)),
    )
    .unwrap();
    (service, clock, dir)
}

impl Service {
    /// Records credential `c` as the request pipeline does: sealed
    /// (record_seal), so the records screens and revocation read it as the
    /// key app's own.
    pub(crate) async fn record_sealed(
        &self,
        c: crate::store::credentials::CredentialRecord,
    ) -> Result<(), crate::store::credentials::RecordError> {
        let mut tx = self.store().pool().begin().await.map_err(crate::store::StoreError::from)?;
        self.record_sealed_in(&mut tx, &c).await?;
        tx.commit().await.map_err(crate::store::StoreError::from)?;
        Ok(())
    }
}
