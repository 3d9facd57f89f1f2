//! A lost computer's switch: "revoke everything the old computer issued",
//! from the key app restored on a new one (docs/hosted-status.md "Revoking
//! everything"). The person's yes is confirmed by the OS exactly as an
//! approval is (`user_verification`); then every credential in force in the
//! records is revoked in one transaction, and every hosted status service the
//! records name gets ONE update signed by the principal key: revoke every
//! credential registered in this namespace up to now. That reaches the
//! credentials the old computer issued after the last backup too, which the
//! records never held. What neither reaches is said in words.

use super::{Origin, Records, Service, ServiceError};
use crate::store::{credentials, outbox};
use crate::ui_words::{text, text_with};
use fluent_bundle::FluentArgs;
use schcp::status_update::{self, Operation};
use schcp_consent::Language;

/// What one hosted status service answered.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ServiceReach {
    /// It revoked these now (its answer's list): hosts read `revoked` at once.
    Revoked {
        base: String,
        revoked: Vec<String>,
        /// Of those, the ones the records did not hold: issued after the
        /// backup the records came from.
        not_in_records: Vec<String>,
    },
    /// No answer, or a refusal. The records' own revocations stay owed
    /// there (the outbox retries them); what the records never held is
    /// reached only by running the switch again.
    NotReached { base: String, detail: String },
}

/// What the switch did, and what it could not reach, with the person's words.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RevokedEverything {
    /// When (NumericDate): the instant the signed updates reach back from.
    pub at: i64,
    /// The credentials in force in the records, revoked now.
    pub in_records: Vec<String>,
    /// One per hosted status service the records or the configuration name.
    pub services: Vec<ServiceReach>,
    /// Revoked in the records, but only the old computer's own status API
    /// answered hosts for them: hosts read `revoked` only if its address now
    /// reaches this computer.
    pub served_by_old_computer: Vec<String>,
    /// In force and never checked by hosts (a rule, §7.9): nothing can take
    /// them back; they end on their own.
    pub not_revocable: Vec<String>,
    /// What happened, one sentence a line, in the person's language.
    pub words: Vec<String>,
}

impl Service {
    /// One signed revoke-all at `base`, reaching back from `at`.
    async fn revoke_all_at(&self, base: &str, at: i64, revoked: &[credentials::SwitchedOff]) -> ServiceReach {
        let thumb = self.profile().principal_thumbprint();
        let signed = status_update::sign(
            self.inner.key.as_ref(),
            at,
            &Service::new_id("u-"),
            &Operation::RevokeAll { before: at },
        );
        let jws = match signed {
            Ok(jws) => jws,
            Err(e) => return ServiceReach::NotReached { base: base.to_owned(), detail: e.to_string() },
        };
        let client = match self.hosted_client() {
            Ok(c) => c,
            Err(e) => return ServiceReach::NotReached { base: base.to_owned(), detail: e.to_string() },
        };
        match client.post_revoke_all(base, &thumb, &jws).await {
            Ok(listed) => {
                // The revocations the one update carried are not sent again.
                if let Err(e) = outbox::covered_by_revoke_all(self.store(), base, &listed, self.now()).await {
                    tracing::warn!(error = %e, "the outbox could not be updated; its rows go out one by one");
                }
                let not_in_records = listed.iter().filter(|j| !revoked.iter().any(|c| &c.jti == *j)).cloned().collect();
                tracing::info!(base, revoked = listed.len(), "the status service revoked everything registered");
                ServiceReach::Revoked { base: base.to_owned(), revoked: listed, not_in_records }
            }
            Err(e) => {
                tracing::warn!(base, error = %e, "the revoke-all update did not reach the status service");
                ServiceReach::NotReached { base: base.to_owned(), detail: e.to_string() }
            }
        }
    }

    /// The person's words for what the switch did and could not do.
    fn switch_words(
        &self,
        language: Language,
        done: &RevokedEverything,
        served_here: &[&credentials::SwitchedOff],
        kept: &[(String, crate::kind::RequestKind, i64)],
    ) -> Vec<String> {
        let counted = |id: &str, n: usize, base: Option<&str>| {
            let mut args = FluentArgs::new();
            args.set("count", n);
            if let Some(base) = base {
                args.set("base", base.to_owned());
            }
            text_with(language, id, &args)
        };
        let item = |kind: crate::kind::RequestKind, aud: &[String], exp: i64| {
            let mut args = FluentArgs::new();
            args.set("kind", text(language, &format!("kind-{}", kind.as_str())));
            args.set("end", self.instant_words(exp));
            if aud.is_empty() {
                return text_with(language, "revoke-everything-item", &args);
            }
            args.set("hosts", aud.join(", "));
            text_with(language, "revoke-everything-item-hosts", &args)
        };
        let mut lines = vec![counted("revoke-everything-records", done.in_records.len(), None)];
        for reach in &done.services {
            match reach {
                ServiceReach::Revoked { base, revoked, not_in_records } => {
                    lines.push(counted("revoke-everything-service-done", revoked.len(), Some(base)));
                    if !not_in_records.is_empty() {
                        lines.push(counted("revoke-everything-service-unknown", not_in_records.len(), None));
                    }
                }
                ServiceReach::NotReached { base, .. } => {
                    lines.push(counted("revoke-everything-service-unreached", 0, Some(base)));
                }
            }
        }
        if done.services.is_empty() {
            lines.push(text(language, "revoke-everything-no-service"));
        }
        if !served_here.is_empty() {
            lines.push(counted("revoke-everything-served-here", served_here.len(), None));
            lines.extend(served_here.iter().map(|c| item(c.kind, &c.aud, c.exp)));
        }
        if !kept.is_empty() {
            lines.push(counted("revoke-everything-not-revocable", kept.len(), None));
            lines.extend(kept.iter().map(|(_, kind, exp)| item(*kind, &[], *exp)));
        }
        lines
    }
}

impl Records<'_> {
    /// "Revoke everything the old computer issued", asked from `origin` (the
    /// window's process, or a terminal's, through the control socket): the
    /// OS confirms the person first, or nothing is revoked.
    pub async fn revoke_everything(self, origin: Origin<'_>) -> Result<RevokedEverything, ServiceError> {
        let asker = origin.asker()?;
        let language = self.svc.language();
        self.svc.confirm(&asker, text(language, "verification-revoke-everything-summary")).await?;
        let at = self.svc.now();
        let (revoked, kept) = credentials::revoke_everything(self.svc.store(), at).await?;
        tracing::warn!(revoked = revoked.len(), "the person revoked everything issued under this key");
        self.svc.notify();

        let mut bases = outbox::registered_bases(self.svc.store()).await?;
        if let Some(hosted) = &self.svc.config().status_api.hosted {
            if !bases.contains(hosted) {
                bases.push(hosted.clone());
            }
        }
        let mut services = Vec::new();
        for base in bases {
            services.push(self.svc.revoke_all_at(&base, at, &revoked).await);
        }
        // Whatever the one update did not carry goes out one by one.
        if let Err(e) = self.svc.publish_due().await {
            tracing::warn!(error = %e, "publishing the revocations failed; the publisher retries");
        }
        self.svc.wake_publisher();

        let served_here: Vec<&credentials::SwitchedOff> = revoked.iter().filter(|c| c.hosted_base.is_none()).collect();
        let mut done = RevokedEverything {
            at,
            in_records: revoked.iter().map(|c| c.jti.clone()).collect(),
            served_by_old_computer: served_here.iter().map(|c| c.jti.clone()).collect(),
            not_revocable: kept.iter().map(|(jti, _, _)| jti.clone()).collect(),
            services,
            words: Vec::new(),
        };
        done.words = self.svc.switch_words(language, &done, &served_here, &kept);
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::service_at;
    use super::*;
    use crate::kind::RequestKind;
    use crate::store::testing;
    use crate::user_verification::{Approval, Asker, Method, Refusal, Surface, UserVerifier, VerdictFuture};
    use std::sync::Arc;

    const T0: i64 = 1_792_000_000;

    struct Says(Result<Method, Refusal>);
    impl UserVerifier for Says {
        fn verify<'a>(&'a self, _: &'a Approval) -> VerdictFuture<'a> {
            let verdict = self.0.clone();
            Box::pin(async move { verdict })
        }
    }

    async fn revoked(svc: &Service, jti: &str) -> bool {
        let listed = credentials::listing(svc.store(), None).await.unwrap();
        listed.into_iter().find(|c| c.jti == jti).expect("a credential in the records").revoked
    }

    /// Without a hosted status service: the OS's refusal revokes nothing; its
    /// yes revokes what the records hold, and the person is told, in their
    /// language, which credentials only the old computer answered for, that
    /// those issued after the backup cannot be found, and what no one can
    /// take back.
    #[tokio::test]
    async fn without_a_status_service_the_person_is_told_what_cannot_be_reached() {
        let (svc, _clock, _dir) = service_at(T0).await;
        for c in [
            testing::credential(1, "m-1", RequestKind::Mandate, "a"),
            testing::credential(2, "r-1", RequestKind::Rule, "a"),
        ] {
            svc.record_sealed(c).await.unwrap();
        }
        let asker = Asker::this_process(Surface::Window).unwrap();
        let refusing = svc.clone().with_user_verifier(Arc::new(Says(Err(Refusal::NotAuthorized))));
        let err = refusing.records().revoke_everything(super::Origin::Peer(&asker)).await.unwrap_err();
        assert!(matches!(err, ServiceError::NotVerified(Refusal::NotAuthorized)), "{err:?}");
        assert!(!revoked(&svc, "m-1").await, "nothing without the OS's yes");

        let svc = svc.with_user_verifier(Arc::new(Says(Ok(Method::Polkit))));
        svc.profile().set_language(Language::French).unwrap();
        let done = svc.records().revoke_everything(super::Origin::Peer(&asker)).await.unwrap();
        assert_eq!(done.in_records, ["m-1"]);
        assert!(done.services.is_empty());
        assert_eq!(done.served_by_old_computer, ["m-1"]);
        assert_eq!(done.not_revocable, ["r-1"]);
        assert!(revoked(&svc, "m-1").await && !revoked(&svc, "r-1").await);
        let words = done.words.join("\n");
        assert!(words.starts_with("La seule autorisation en vigueur dans vos données est révoquée."), "{words}");
        assert!(words.contains("Aucun service de statut ne détient vos autorisations"), "{words}");
        assert!(words.contains("à l’adresse propre de votre ancien ordinateur"), "{words}");
        assert!(words.contains("• Mandat pour maple-street-auto, fin :"), "{words}");
        assert!(words.contains("ne peut pas être reprise"), "{words}");
        // No id reaches the person.
        assert!(!words.contains("m-1") && !words.contains("r-1"), "{words}");
        // Run again: nothing more to revoke, and it says so.
        let again = svc.records().revoke_everything(super::Origin::Peer(&asker)).await.unwrap();
        assert!(again.in_records.is_empty());
        assert!(again.words[0].starts_with("Vos données ne contenaient aucune autorisation encore en vigueur."));
    }
}
