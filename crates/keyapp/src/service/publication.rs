//! Publishing to a hosted status service (docs/hosted-status.md): the
//! outbox (`store::outbox`) drained in order, each row turned into one update
//! the key app builds itself from the credential's own record and signs with
//! the principal key, and acknowledged only when the service says it recorded it.
//! There is no path that signs bytes a caller supplies.
//!
//! Who drains it: `Requests::approve` and `revoke` at once (so the usual case is
//! published before they return), and the publisher task `app::start` runs
//! beside the expiry sweeper, which retries with backoff until acknowledged.

use super::{HostedFailure, Service, ServiceError, Status};
use crate::hosted::{HostedClient, PublishError};
use crate::store::outbox::{self, Due, Op};
use crate::store::{StoreError, Stored};
use schcp::status_update::{self, Operation, Registration};
use std::future::Future;
use std::pin::Pin;

/// Rows taken per round.
const BATCH: i64 = 32;
/// The publisher task looks at the outbox at least this often (seconds), and
/// at once when an approval or a revocation adds a row.
pub const PUBLISHER_IDLE: u64 = 5;

/// The service's answer to one update: its HTTP status, or why there was none.
pub(super) type Posted<'a> = Pin<Box<dyn Future<Output = Result<u16, PublishError>> + Send + 'a>>;

/// Where a round's updates go: the hosted status service's client, or a
/// unit test's fake.
pub(super) trait UpdateSink: Send + Sync {
    /// Posts one signed update for namespace `thumb` to the service at `base`.
    fn post_update<'a>(&'a self, base: &'a str, thumb: &'a str, jws: &'a str) -> Posted<'a>;
}

impl UpdateSink for HostedClient {
    fn post_update<'a>(&'a self, base: &'a str, thumb: &'a str, jws: &'a str) -> Posted<'a> {
        Box::pin(HostedClient::post_update(self, base, thumb, jws))
    }
}

/// What one round did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Round {
    /// Rows the service acknowledged.
    pub acknowledged: usize,
    /// Rows that failed and were pushed back.
    pub failed: usize,
    /// Rows the service refused for good (`outbox::terminal`): not retried.
    pub refused: usize,
}

/// The service's refusal of an update, when no retry could change it.
fn terminal_refusal(e: &PublishError) -> Option<schcp::refusal::Reason> {
    match e {
        PublishError::Refused { reason: Some(reason), .. } => {
            reason.parse::<schcp::refusal::Reason>().ok().filter(|r| outbox::terminal(*r))
        }
        _ => None,
    }
}

impl Service {
    pub(super) fn hosted_client(&self) -> Result<&HostedClient, ServiceError> {
        if let Some(c) = self.inner.hosted.get() {
            return Ok(c);
        }
        let c = HostedClient::new().map_err(|e| ServiceError::Hosted(HostedFailure::Client(e)))?;
        Ok(self.inner.hosted.get_or_init(|| c))
    }

    /// Publishes every due outbox row, oldest first; one at a time per key app
    /// (a second caller waits, then finds the rows already acknowledged). A
    /// row's failure pushes that row back, and every later row of the same
    /// credential waits behind it (`outbox::due` returns at most one row per
    /// credential). A service that does not answer ends the round: the other
    /// rows would only wait out the same timeout.
    pub(super) async fn publish_due(&self) -> Result<Round, ServiceError> {
        self.publish_due_to(|| Ok(self.hosted_client()? as &dyn UpdateSink)).await
    }

    /// [`Service::publish_due`], its updates sent to the sink `sink` gives,
    /// asked for only when there is an update to send.
    async fn publish_due_to<'s>(
        &'s self,
        sink: impl Fn() -> Result<&'s dyn UpdateSink, ServiceError>,
    ) -> Result<Round, ServiceError> {
        let _one = self.inner.publishing.lock().await;
        let mut round = Round::default();
        let rows = outbox::due(self.store(), self.now(), BATCH).await?;
        if rows.is_empty() {
            return Ok(round);
        }
        let thumb = self.profile().principal_thumbprint();
        for row in rows {
            let sent = match self.update_jws(&row) {
                Ok(jws) => sink()?.post_update(&row.base, &thumb, &jws).await.map(|_| ()),
                Err(e) => Err(PublishError::Refused { status: 0, reason: None, message: e.to_string() }),
            };
            let now = self.now();
            // A refusal no retry can change is kept, not retried.
            let sent = sent.map_err(|e| (terminal_refusal(&e), e));
            match sent {
                Ok(()) => {
                    outbox::acknowledge(self.store(), row.id, now).await?;
                    tracing::info!(jti = %row.jti, op = row.op.as_str(), "published to the status service");
                    round.acknowledged += 1;
                }
                Err((Some(reason), e)) => {
                    outbox::refused(self.store(), row.id, now, reason, &e.to_string()).await?;
                    tracing::warn!(jti = %row.jti, op = row.op.as_str(), %reason, error = %e,
                        "the status service refused this for good; not retried");
                    round.refused += 1;
                }
                Err((None, e)) => {
                    outbox::failed(self.store(), row.id, now, &e.to_string()).await?;
                    tracing::warn!(jti = %row.jti, op = row.op.as_str(), attempts = row.attempts + 1, error = %e,
                        "publishing to the status service failed; will retry");
                    round.failed += 1;
                    if matches!(e, PublishError::Unreachable { .. }) {
                        break;
                    }
                }
            }
        }
        if round.acknowledged > 0 || round.refused > 0 {
            // A request whose credential is now registered can be delivered;
            // a mandate's "not yet published" is gone. One refused for good is
            // answered: its agent stops waiting (`request_for_agent`).
            self.notify();
        }
        Ok(round)
    }

    /// Asks the publisher task to look at the outbox now.
    pub(super) fn wake_publisher(&self) {
        self.inner.publish_now.notify_one();
    }

    /// The update for an outbox row, signed by the principal key. Everything in
    /// it comes from the records: the credential's row, the clock, a fresh jti.
    ///
    /// A registration tells the service which hosts may claim the person's
    /// bookings, how many, until when and with which keys; the key app signs
    /// it without asking the person again. So it is signed only from the row
    /// as the key app wrote it at the person's yes: one whose seal does not
    /// hold (another program raised its limit, added a host or a key, or wrote
    /// it) is never signed, and waits, unpublished (record_seal). A
    /// revocation only narrows what the person allowed and needs no seal.
    fn update_jws(&self, row: &Due) -> Result<String, ServiceError> {
        if row.op == Op::Register && !self.credential_sealed(&row.credential) {
            tracing::warn!(jti = %row.jti, "a credential's record does not hold its seal: its registration is not signed");
            let why = format!("{}: its record was written or changed outside the key app; not signed", row.jti);
            return Err(ServiceError::Store(StoreError::tampered(Stored::Credential, why)));
        }
        let op = match row.op {
            Op::Register => Operation::Register(Registration {
                jti: row.jti.clone(),
                exp: row.exp,
                aud: row.aud.clone(),
                max_bookings: row.max_bookings,
                shared_limit: row.shared_limit,
                host_keys: row.host_keys.clone(),
            }),
            Op::Revoke => Operation::Revoke { jti: row.jti.clone() },
        };
        // A fresh update jti and iat per attempt: a retry is a new update,
        // never a replay, and never outside the service's iat window.
        let update_jti = Service::new_id("u-");
        status_update::sign(self.inner.key.as_ref(), self.now(), &update_jti, &op)
            .map_err(|e| ServiceError::Hosted(HostedFailure::Sign(e)))
    }
}

/// A credential revoked here whose revocation the hosted status service
/// should hold: its index in a listing, its jti and the status URL the
/// principal signed into it.
pub(super) struct RevocationCheck {
    pub index: usize,
    pub jti: String,
    pub status_url: String,
}

impl Service {
    /// The check owed for a listed credential: one revoked here and not
    /// refused for good by the service, whose credential, as the principal
    /// signed it, is unexpired and names a status URL at the configured
    /// hosted service. Its expiry and status URL are read from the signed
    /// credential, not from its row, whose columns the assistant can write
    /// (an expiry in the past, a URL at a server of its own). One whose
    /// signed credential cannot be read back (replaced in the row) is asked
    /// about at the address every hosted credential's status has.
    pub(super) fn revocation_check(
        &self,
        index: usize,
        c: &crate::store::credentials::ListedCredential,
        now: i64,
    ) -> Option<RevocationCheck> {
        if !c.revoked || matches!(c.refused, Some((Op::Revoke, _))) {
            return None;
        }
        let base = self.config().hosted_base()?.to_owned();
        let status_url = match self.signed_credential(&c.jti, &c.stored.compact) {
            Some(claims) => {
                if claims.get("exp").and_then(serde_json::Value::as_i64).is_some_and(|exp| exp <= now) {
                    return None;
                }
                claims.get("status")?.as_str()?.to_owned()
            }
            None => format!("{base}/status/{}/{}", self.profile().principal_thumbprint(), c.jti),
        };
        status_url.starts_with(&format!("{base}/status/")).then(|| RevocationCheck {
            index,
            jti: c.jti.clone(),
            status_url,
        })
    }

    /// Whether root mandate `jti` still stands where hosts check it, before
    /// the key app signs under it without asking the person. Its row says
    /// whether the person revoked it, and the person's programs can write
    /// that row: a root revoked and marked active again there would cover
    /// bookings again. When the root, as the principal signed it, names a
    /// status URL at the configured hosted service, that service, which keeps
    /// a revocation for good, must answer "active"; a "revoked", or no
    /// answer, and the person is asked instead. Without a hosted service
    /// there is no record beyond the row to ask (docs/threat-model.md).
    pub(super) async fn root_stands(&self, jti: &str, compact: &str) -> Result<bool, ServiceError> {
        let Some(base) = self.config().hosted_base().map(str::to_owned) else { return Ok(true) };
        let Some(claims) = self.signed_credential(jti, compact) else { return Ok(false) };
        let Some(url) = claims.get("status").and_then(serde_json::Value::as_str) else { return Ok(true) };
        if !url.starts_with(&format!("{base}/status/")) {
            return Ok(true);
        }
        let answer = self.hosted_client()?.status(url).await;
        let stands = answer.as_ref().is_some_and(|s| s.status == "active");
        if !stands {
            tracing::warn!(jti, answer = ?answer.map(|s| s.status), "the hosted service does not say the root stands: the person is asked");
        }
        Ok(stands)
    }

    /// Whether credential `jti`, as the principal signed it, names a status
    /// URL: one hosts can learn a revocation of.
    pub(super) fn signed_status_url(&self, jti: &str, compact: &str) -> bool {
        self.signed_credential(jti, compact).is_some_and(|c| c.get("status").is_some_and(serde_json::Value::is_string))
    }

    /// The claims of credential `jti`, if `compact` is that credential as
    /// this principal signed it.
    pub(super) fn signed_credential(&self, jti: &str, compact: &str) -> Option<serde_json::Value> {
        let parsed = schcp::jws::parse(compact).ok()?;
        let mut keys = std::iter::once(&self.inner.key).chain(self.inner.es256.as_ref());
        if !keys.any(|k| parsed.verify_signature(&k.public_key()).is_ok()) {
            return None;
        }
        (parsed.payload.get("jti")?.as_str()? == jti).then_some(parsed.payload)
    }

    /// Asks the hosted status service whether it holds each revocation the
    /// person's listing shows (`revocation_check`), all at once. The outbox
    /// row that would have published one can be removed, or marked
    /// acknowledged by another program (a trigger does it as the key app
    /// writes it), and the person would read "revoked" while hosts read
    /// "active". Where the service answers that it is not revoked, the
    /// revocation is signed again (it only narrows) and posted at once; if
    /// that post is not taken, it is owed again in the outbox and the person
    /// reads "revocation not yet published". A service that does not answer
    /// changes nothing here. Each ask waits at most `hosted::STATUS_TIMEOUT`,
    /// each post `hosted::UPDATE_TIMEOUT`.
    pub(super) async fn confirm_revocations(
        &self,
        out: &mut [crate::views::CredentialView],
        checks: Vec<RevocationCheck>,
    ) -> Result<(), ServiceError> {
        let Some(base) = self.config().hosted_base().map(str::to_owned) else { return Ok(()) };
        if checks.is_empty() {
            return Ok(());
        }
        let client = self.hosted_client()?;
        let thumb = self.profile().principal_thumbprint();
        let now = self.now();
        let mut asking = tokio::task::JoinSet::new();
        for check in checks {
            let (client, key, base, thumb) = (client.clone(), self.inner.key.clone(), base.clone(), thumb.clone());
            asking.spawn(async move {
                let held = match client.status(&check.status_url).await {
                    None => return (check, None),
                    Some(status) => status.status == "revoked",
                };
                if held {
                    return (check, Some(true));
                }
                let op = Operation::Revoke { jti: check.jti.clone() };
                let sent = match status_update::sign(key.as_ref(), now, &Service::new_id("u-"), &op) {
                    Ok(jws) => client.post_update(&base, &thumb, &jws).await.is_ok(),
                    Err(_) => false,
                };
                (check, Some(sent))
            });
        }
        let mut owed = false;
        while let Some(done) = asking.join_next().await {
            let Ok((check, Some(held_or_sent))) = done else { continue };
            if held_or_sent {
                continue;
            }
            tracing::warn!(jti = %check.jti, "the status service does not hold a revocation made here, and did not take it");
            let pending = crate::views::Publication::RevocationPending;
            out[check.index].publication = Some(pending);
            out[check.index].publication_note = Some(self.publication_words(pending, None));
            // Owed again for the publisher; a records error does not keep
            // the person from reading the listing, which already says it.
            if let Err(e) = outbox::owe_revoke_again(self.store(), &check.jti, &base, now).await {
                tracing::warn!(jti = %check.jti, error = %e, "the revocation could not be owed again");
            }
            owed = true;
        }
        if owed {
            self.wake_publisher();
        }
        Ok(())
    }
}

impl Status<'_> {
    /// The publisher task (`app::start`): publishes what is due, then sleeps
    /// until the next row falls due, something is added, or `PUBLISHER_IDLE`
    /// passes. A failed round (the records busy) is retried the same way.
    pub async fn run_publisher(self) {
        loop {
            if let Err(e) = self.svc.publish_due().await {
                tracing::warn!(error = %e, "publishing round failed; retrying");
            }
            let next = outbox::next_due_at(self.svc.store()).await.ok().flatten();
            let wait =
                next.map_or(PUBLISHER_IDLE, |at| u64::try_from(at - self.svc.now()).unwrap_or(0).min(PUBLISHER_IDLE));
            let wait = std::time::Duration::from_secs(wait.max(1));
            let _ = tokio::time::timeout(wait, self.svc.inner.publish_now.notified()).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::service_at;
    use super::*;
    use schcp::refusal::Reason;

    const T0: i64 = 1_792_000_000;

    /// The outbox row of a shared-limit mandate `m-1` for one host, its
    /// credential's row sealed by `svc` as the pipeline seals it.
    fn due(svc: &Service, op: Op) -> Due {
        let host_keys: status_edge::HostKeys =
            [("maple-street-auto".to_owned(), vec!["k".repeat(43)])].into_iter().collect();
        let mut credential = crate::store::credentials::StoredCredential {
            jti: "m-1".into(),
            kind: "mandate".into(),
            agent_jkt: Some("agent".into()),
            request_id: Some("rq_1".into()),
            aud: r#"["maple-street-auto"]"#.into(),
            scope: r#"["hold","book"]"#.into(),
            iat: T0,
            exp: T0 + 3600,
            compact: "x.y.z".into(),
            status_url: Some("https://status.example/status/T/m-1".into()),
            max_bookings: Some(2),
            shared_limit: true,
            booking_id: None,
            host_keys: serde_json::to_string(&host_keys).unwrap(),
            seal: None,
        };
        credential.seal = Some(svc.inner.seal.credential(&credential.fields()));
        Due {
            id: 1,
            jti: "m-1".into(),
            op,
            base: "https://status.example".into(),
            attempts: 0,
            exp: T0 + 3600,
            aud: vec!["maple-street-auto".into()],
            max_bookings: Some(2),
            shared_limit: true,
            host_keys,
            credential,
        }
    }

    /// Everything in an update comes from the credential's record; it is
    /// signed by the principal key for its own namespace, and each attempt is
    /// a new update, never a replay of the last.
    #[tokio::test]
    async fn an_update_is_the_records_own_signed_by_the_principal() {
        let (svc, _clock, _dir) = service_at(T0).await;
        let thumb = svc.profile().principal_thumbprint();
        let first = status_update::verify(&svc.update_jws(&due(&svc, Op::Register)).unwrap(), &thumb, T0).unwrap();
        let row = due(&svc, Op::Register);
        let registration = Registration {
            jti: row.jti,
            exp: row.exp,
            aud: row.aud,
            max_bookings: row.max_bookings,
            shared_limit: row.shared_limit,
            host_keys: row.host_keys,
        };
        assert_eq!((first.thumb.as_str(), first.iat), (thumb.as_str(), T0));
        assert_eq!(first.op, Operation::Register(registration));
        let again = status_update::verify(&svc.update_jws(&due(&svc, Op::Register)).unwrap(), &thumb, T0).unwrap();
        assert_ne!(again.update_jti, first.update_jti, "a retry is a new update");
        let revoke = status_update::verify(&svc.update_jws(&due(&svc, Op::Revoke)).unwrap(), &thumb, T0).unwrap();
        assert_eq!(revoke.op, Operation::Revoke { jti: "m-1".into() });
        // Another principal's namespace does not take it.
        let other = "A".repeat(43);
        assert!(status_update::verify(&svc.update_jws(&due(&svc, Op::Revoke)).unwrap(), &other, T0).is_err());
    }

    /// A fake status service: answers each post with the next scripted
    /// answer, and keeps the updates it was sent.
    struct FakeService {
        answers: std::sync::Mutex<std::collections::VecDeque<Result<u16, PublishError>>>,
        posted: std::sync::Mutex<Vec<(String, String)>>,
    }

    impl FakeService {
        fn answering(answers: Vec<Result<u16, PublishError>>) -> FakeService {
            FakeService { answers: std::sync::Mutex::new(answers.into()), posted: Default::default() }
        }
        /// The jti of each update posted, in order, checked as the service checks it.
        fn posted_jtis(&self, thumb: &str) -> Vec<String> {
            let posted = self.posted.lock().unwrap();
            posted
                .iter()
                .map(|(base, jws)| {
                    assert_eq!(base, "https://status.example", "the row's own service");
                    match status_update::verify(jws, thumb, T0).unwrap().op {
                        Operation::Register(r) => r.jti,
                        Operation::Revoke { jti } => jti,
                        Operation::RevokeAll { .. } => panic!("the outbox never sends a revoke_all"),
                    }
                })
                .collect()
        }
    }

    impl UpdateSink for FakeService {
        fn post_update<'a>(&'a self, base: &'a str, thumb: &'a str, jws: &'a str) -> Posted<'a> {
            assert_eq!(thumb.len(), 43, "the principal's namespace");
            self.posted.lock().unwrap().push((base.to_owned(), jws.to_owned()));
            let answer = self.answers.lock().unwrap().pop_front().expect("a scripted answer");
            Box::pin(async move { answer })
        }
    }

    /// Credentials `jtis`, each owing its registration, as the pipeline records them.
    async fn owed(svc: &Service, jtis: &[&str]) {
        for (n, jti) in jtis.iter().enumerate() {
            let mut tx = svc.store().pool().begin().await.unwrap();
            let c = crate::store::testing::credential(n as i64, jti, crate::kind::RequestKind::Mandate, "agent");
            svc.record_sealed_in(&mut tx, &c).await.unwrap();
            outbox::enqueue_register(&mut tx, jti, "https://status.example", T0).await.unwrap();
            tx.commit().await.unwrap();
        }
    }

    async fn due_jtis(svc: &Service, at: i64) -> Vec<String> {
        outbox::due(svc.store(), at, 10).await.unwrap().into_iter().map(|d| d.jti).collect()
    }

    fn refused(status: u16, reason: Option<&str>) -> Result<u16, PublishError> {
        Err(PublishError::Refused { status, reason: reason.map(str::to_owned), message: "no".into() })
    }

    /// A round sends every due row in order: one acknowledged is done, one
    /// refused for good is never sent again, one that failed waits its backoff.
    #[tokio::test]
    async fn a_round_acknowledges_keeps_refusals_and_retries_failures() {
        let (svc, clock, _dir) = service_at(T0).await;
        owed(&svc, &["m-1", "m-2", "m-3"]).await;
        let fake = FakeService::answering(vec![Ok(201), refused(403, Some("namespace_full")), refused(500, None)]);
        let round = svc.publish_due_to(|| Ok(&fake as &dyn UpdateSink)).await.unwrap();
        assert_eq!(round, Round { acknowledged: 1, failed: 1, refused: 1 });
        assert_eq!(fake.posted_jtis(&svc.profile().principal_thumbprint()), ["m-1", "m-2", "m-3"]);
        assert!(due_jtis(&svc, T0).await.is_empty(), "nothing is due again at once");
        assert_eq!(due_jtis(&svc, T0 + outbox::backoff(1)).await, ["m-3"], "only the failure, after its backoff");
        // The next round sends only that one.
        clock.store(T0 + outbox::backoff(1), std::sync::atomic::Ordering::SeqCst);
        let fake = FakeService::answering(vec![Ok(200)]);
        let round = svc.publish_due_to(|| Ok(&fake as &dyn UpdateSink)).await.unwrap();
        assert_eq!(round, Round { acknowledged: 1, failed: 0, refused: 0 });
        assert_eq!(fake.posted.lock().unwrap().len(), 1);
        assert!(due_jtis(&svc, T0 + 86_400).await.is_empty());
    }

    /// A service that does not answer ends the round: the other rows would
    /// only wait out the same timeout. An empty outbox asks for no client.
    #[tokio::test]
    async fn an_unreachable_service_ends_the_round_and_an_empty_outbox_sends_nothing() {
        let (svc, _clock, _dir) = service_at(T0).await;
        let never = || -> Result<&dyn UpdateSink, ServiceError> { panic!("no client is needed") };
        assert_eq!(svc.publish_due_to(never).await.unwrap(), Round::default());
        owed(&svc, &["m-1", "m-2"]).await;
        let down = PublishError::Unreachable { url: "https://status.example".into(), reason: "timeout".into() };
        let fake = FakeService::answering(vec![Err(down)]);
        let round = svc.publish_due_to(|| Ok(&fake as &dyn UpdateSink)).await.unwrap();
        assert_eq!(round, Round { acknowledged: 0, failed: 1, refused: 0 });
        assert_eq!(fake.posted.lock().unwrap().len(), 1, "the second row was not tried");
        assert_eq!(due_jtis(&svc, T0).await, ["m-2"], "and is still due");
    }

    /// Another program (the assistant, as the person) changes a credential's
    /// row while its registration is owed: whichever field it changes, the
    /// key app signs nothing and keeps the row owed; put back, the row's seal
    /// holds again and the registration as issued goes out. A revocation,
    /// which only narrows, is signed whatever the row says.
    #[tokio::test]
    async fn nothing_is_signed_from_a_credential_row_changed_after_it_was_issued() {
        let (svc, clock, _dir) = service_at(T0).await;
        let mut tx = svc.store().pool().begin().await.unwrap();
        let mut c = crate::store::testing::credential(0, "m-1", crate::kind::RequestKind::Mandate, "agent");
        (c.max_bookings, c.shared_limit) = (Some(2), true);
        c.host_keys = [("maple-street-auto".to_owned(), vec!["k".repeat(43)])].into_iter().collect();
        svc.record_sealed_in(&mut tx, &c).await.unwrap();
        outbox::enqueue_register(&mut tx, "m-1", "https://status.example", T0).await.unwrap();
        tx.commit().await.unwrap();
        let issued = outbox::due(svc.store(), T0, 10).await.unwrap().remove(0);

        let changes = [
            "max_bookings = 1000",
            "shared_limit = 0, max_bookings = NULL",
            "aud = '[\"maple-street-auto\",\"assistants-host\"]'",
            "exp = exp + 86400",
            "host_keys = '{\"maple-street-auto\":[\"kkk\",\"assistant\"]}'",
            "jti = jti",
            "seal = NULL",
        ];
        let mut at = T0;
        for (n, change) in changes.iter().enumerate() {
            let pool = svc.store().pool();
            sqlx::query(&format!("UPDATE credentials SET {change} WHERE jti = 'm-1'")).execute(pool).await.unwrap();
            if *change == "jti = jti" {
                // A write of the same values changes nothing the seal covers.
                let fake = FakeService::answering(vec![Err(PublishError::Unreachable {
                    url: "https://status.example".into(),
                    reason: "down".into(),
                })]);
                assert_eq!(svc.publish_due_to(|| Ok(&fake as &dyn UpdateSink)).await.unwrap().failed, 1);
                assert_eq!(fake.posted.lock().unwrap().len(), 1, "the unchanged row is signed and sent");
            } else {
                // No scripted answer: a post would panic the fake.
                let fake = FakeService::answering(vec![]);
                let round = svc.publish_due_to(|| Ok(&fake as &dyn UpdateSink)).await.unwrap();
                assert_eq!(round, Round { acknowledged: 0, failed: 1, refused: 0 }, "{change}");
                let owed = outbox::due(svc.store(), at + outbox::MAX_BACKOFF, 10).await.unwrap();
                assert_eq!(owed.len(), 1, "still owed after {change}");
            }
            // Put back as the key app wrote it.
            let r = &issued.credential;
            sqlx::query(
                "UPDATE credentials SET max_bookings = ?, shared_limit = ?, aud = ?, exp = ?, host_keys = ?, seal = ?
                 WHERE jti = 'm-1'",
            )
            .bind(r.max_bookings)
            .bind(r.shared_limit)
            .bind(&r.aud)
            .bind(r.exp)
            .bind(&r.host_keys)
            .bind(&r.seal)
            .execute(pool)
            .await
            .unwrap();
            at += outbox::MAX_BACKOFF;
            clock.store(at, std::sync::atomic::Ordering::SeqCst);
            assert_eq!(due_jtis(&svc, at).await, ["m-1"], "due again after change {n}");
        }
        let fake = FakeService::answering(vec![Ok(201)]);
        let round = svc.publish_due_to(|| Ok(&fake as &dyn UpdateSink)).await.unwrap();
        assert_eq!(round.acknowledged, 1);
        let (_, jws) = fake.posted.lock().unwrap()[0].clone();
        let update = status_update::verify(&jws, &svc.profile().principal_thumbprint(), at).unwrap();
        let Operation::Register(registered) = update.op else { panic!("a registration") };
        assert_eq!((registered.max_bookings, registered.shared_limit), (Some(2), true));
        assert_eq!(registered.aud, ["maple-street-auto"]);
        assert_eq!(registered.exp, T0 + 3600);
        assert_eq!(registered.host_keys, issued.host_keys);

        // A revocation of a row changed since is still signed: it only narrows.
        let mut revocation = due(&svc, Op::Revoke);
        revocation.credential.max_bookings = Some(1000);
        let thumb = svc.profile().principal_thumbprint();
        let revoke = status_update::verify(&svc.update_jws(&revocation).unwrap(), &thumb, at);
        assert_eq!(revoke.unwrap().op, Operation::Revoke { jti: "m-1".into() });
        let mut register = revocation;
        register.op = Op::Register;
        assert!(matches!(svc.update_jws(&register), Err(ServiceError::Store(crate::store::StoreError::Tampered(_)))));
    }

    /// Only a refusal no retry could change stops the retries: anything
    /// else, or a reason the key app does not know, is tried again.
    #[test]
    fn only_a_refusal_no_retry_can_change_is_kept() {
        let refused = |reason: Option<&str>| PublishError::Refused {
            status: 403,
            reason: reason.map(str::to_owned),
            message: "refused".into(),
        };
        assert_eq!(terminal_refusal(&refused(Some("namespace_full"))), Some(Reason::NamespaceFull));
        assert_eq!(terminal_refusal(&refused(Some("namespace_not_allowed"))), Some(Reason::NamespaceNotAllowed));
        for retried in [Some("too_many_requests"), Some("no_such_reason"), None] {
            assert_eq!(terminal_refusal(&refused(retried)), None, "{retried:?}");
        }
        let unreachable = PublishError::Unreachable { url: "https://status.example".into(), reason: "timeout".into() };
        assert_eq!(terminal_refusal(&unreachable), None);
    }
}
