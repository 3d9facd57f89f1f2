//! Who and what the person keeps besides requests: the paired agents with
//! their last request, contacts renamed and removed, the stored attestations,
//! the settings, and the history the surfaces list. Each is a plain service
//! function the window and the terminal call alike.

use super::{Missing, Origin, Records, Service, ServiceError};
use crate::store;
use crate::views::{AgentView, AttestationView, HistoryEntry};

impl Service {
    fn cooldown_words(&self, until: i64) -> String {
        // Said to the minute, rounded up: never earlier than it ends.
        self.words_with("agents-cooldown", [("until", self.instant_words(until + 59).into())])
    }
}

impl Records<'_> {
    /// The first page of History with no filter, at its largest: what the
    /// control socket's `history` answers. Every surface pages further with
    /// `history_page`.
    pub async fn recent_history(self) -> Result<Vec<HistoryEntry>, ServiceError> {
        let query = crate::record_query::HistoryQuery::from(crate::record_query::RecordSearch {
            limit: Some(crate::record_query::MAX_PAGE),
            ..Default::default()
        });
        Ok(self.history_page(&query).await?.items)
    }
}

/// Whom the key app knows (agents, contacts, attestations, hosts' domains): `Service::directory`.
#[derive(Clone, Copy)]
pub struct Directory<'a> {
    pub(super) svc: &'a Service,
}

impl Directory<'_> {
    /// Paired agents, with their last request, any cooldown, and what
    /// unpairing could take back.
    pub async fn agents(self) -> Result<Vec<AgentView>, ServiceError> {
        let mut out = Vec::new();
        for a in store::pairings::paired(self.svc.store()).await? {
            if !self.svc.inner.seal.pairing_holds(&a.fields(), a.seal.as_deref()) {
                continue;
            }
            let cooldown =
                self.svc.requests().cooldown_until(&a.jkt).await?.map(|until| self.svc.cooldown_words(until));
            out.push(AgentView {
                last_request: a.last_request_at.map(|at| self.svc.instant_words(at)),
                holds: self.svc.pairings().agent_holds(&a.jkt).await?,
                fingerprint: super::pairing::fingerprint(&a.jkt),
                jkt: a.jkt,
                name: schcp_consent::inert::inert(&a.name),
                paired_at: a.paired_at,
                last_request_at: a.last_request_at,
                last_request_kind: a.last_request_kind,
                cooldown,
            });
        }
        Ok(out)
    }

    /// Renames a contact, once the OS confirms the person for `origin` (a
    /// name is as strong as a yes: `add_contact`); the consent texts already
    /// shown keep the name they showed.
    pub async fn rename_contact(self, principal: &str, name: &str, origin: Origin<'_>) -> Result<(), ServiceError> {
        super::records::check_contact_name(name)?;
        let Some(was) = self.sealed_contacts().await?.into_iter().find(|c| c.contact.principal == principal) else {
            return Err(ServiceError::NotFound(Missing::Contact));
        };
        self.confirm_contact(name, principal, origin).await?;
        // The row read and checked, renamed: its relationship as sealed.
        let renamed = store::contacts::ContactRow { name: name.to_owned(), ..was.contact.clone() };
        let seal = self.svc.inner.seal.contact(&renamed.fields());
        if !store::contacts::rename(self.svc.store(), &was, name, &seal, self.svc.now()).await? {
            return Err(ServiceError::NotFound(Missing::Contact));
        }
        self.svc.notify();
        Ok(())
    }

    pub async fn remove_contact(self, principal: &str) -> Result<(), ServiceError> {
        if !store::contacts::remove(self.svc.store(), principal, self.svc.now()).await? {
            return Err(ServiceError::NotFound(Missing::Contact));
        }
        self.svc.notify();
        Ok(())
    }

    pub async fn attestations(self) -> Result<Vec<AttestationView>, ServiceError> {
        Ok(store::attestations::all(self.svc.store())
            .await?
            .into_iter()
            .map(|a| AttestationView {
                expires: self.svc.instant_words(a.exp),
                iss: a.iss,
                exp: a.exp,
                compact: a.compact,
            })
            .collect())
    }
}
