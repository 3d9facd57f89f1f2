//! The hosts the person has dealt with (SchCP §2.2): each host id bound to
//! where the person first said yes to it, a look-alike refused, and a real
//! move accepted by the person on their own surfaces only.

use super::{Directory, Missing, Origin, Service, ServiceError};
use crate::discovery::DiscoveredHost;
use crate::host_binding::{binding_of, standing, Basis, HostBinding, Standing};
use crate::store::host_bindings;
use schcp::refusal::Reason;

/// At most this many other places are noted per host id for the person to
/// look at; past it a conflict is still refused, but not noted again.
pub const MAX_NOTED_CHANGES: i64 = 8;

pub use crate::views::HostChangeView;

/// A request's host as the key app placed it.
#[derive(Debug, Clone)]
pub(super) struct Placed {
    pub(super) binding: HostBinding,
    /// No binding yet: the consent text says the person has not dealt with it.
    pub(super) new: bool,
}

/// The refusal of a host id met at another place than its binding's
/// (`host_id_conflict`, 422, the pinned domain in `details`).
pub(super) fn conflict(pinned: &HostBinding, found: &HostBinding) -> ServiceError {
    ServiceError::Verification(schcp::Error::HostIdConflict {
        host_id: found.host_id.clone(),
        pinned: pinned.domain.clone(),
        found: found.domain.clone(),
    })
}

/// Binds each of a request's hosts in the approval's transaction (§2.2: at the
/// person's first yes); refused when another place won in the meantime.
pub(super) async fn bind_all(
    tx: &mut crate::store::Connection,
    hosts: &[HostBinding],
    now: i64,
) -> Result<(), ServiceError> {
    for h in hosts {
        let bound = host_bindings::bind(tx, h, now).await?;
        if !bound.same_place(h) {
            return Err(conflict(&bound, h));
        }
    }
    Ok(())
}

impl Service {
    /// Refuses to sign for a request whose host id was bound elsewhere since it
    /// was shown (§2.2).
    pub(super) async fn still_bindable(&self, hosts: &[HostBinding]) -> Result<(), ServiceError> {
        for h in hosts {
            if let Some(pinned) = host_bindings::binding(self.store(), &h.host_id).await? {
                if !pinned.same_place(h) {
                    return Err(conflict(&pinned, h));
                }
            }
        }
        Ok(())
    }

    /// §2.2: where `host`'s verified document puts its host id, and whether the
    /// person has dealt with it. A host id bound elsewhere is refused, and the
    /// place it was met at is noted for the person, who alone can accept it.
    pub(super) async fn place(&self, host: &DiscoveredHost) -> Result<Placed, ServiceError> {
        // §2.2 rule 2: both sides claim the relationship, or it is operator-trust.
        let listed = self.inner.discovery.operator_lists(host).await?;
        let binding = binding_of(host, listed)
            .map_err(|e| ServiceError::unacceptable(Reason::DiscoveryInvalid, e.to_string()))?;
        let pinned = host_bindings::binding(self.store(), &binding.host_id).await?;
        match standing(&binding, pinned.as_ref()) {
            Standing::New => Ok(Placed { binding, new: true }),
            Standing::Known => Ok(Placed { binding, new: false }),
            Standing::Conflict { pinned } => {
                host_bindings::note_change(self.store(), &binding, self.now(), MAX_NOTED_CHANGES).await?;
                tracing::warn!(host_id = ?binding.host_id, pinned = ?pinned.domain, found = ?binding.domain,
                               "host id claimed at another domain; refused");
                self.notify();
                Err(conflict(&pinned, &binding))
            }
        }
    }

    /// §2.2 for a credential a request cites: the host must be at the place
    /// and, with `signing_key`, sign with a key the credential was issued
    /// against. `Ok(false)` when the records hold no such credential host.
    pub(super) async fn at_credential_place(
        &self,
        jti: &str,
        found: &HostBinding,
        signing_key: Option<&str>,
    ) -> Result<bool, ServiceError> {
        let Some(issued) = host_bindings::credential_host(self.store(), jti, &found.host_id).await? else {
            return Ok(false);
        };
        if !issued.same_place(found) {
            return Err(conflict(&issued, found));
        }
        Ok(signing_key.is_none_or(|k| issued.key_thumbprints.iter().any(|t| t == k)))
    }

    /// §2.2 for a booking a request cites (a change offer's, an invitation's):
    /// every credential issued for it was issued at this same place.
    pub(super) async fn at_booking_place(&self, booking_id: &str, found: &HostBinding) -> Result<(), ServiceError> {
        for issued in host_bindings::booking_places(self.store(), &found.host_id, booking_id).await? {
            if !issued.same_place(found) {
                return Err(conflict(&issued, found));
            }
        }
        Ok(())
    }
}

impl Directory<'_> {
    /// The host ids met at another place than their binding, for the person,
    /// each in their language (locales/*/ui.ftl `host-change`).
    pub async fn host_domain_changes(self) -> Result<Vec<HostChangeView>, ServiceError> {
        let language = self.svc.language();
        Ok(host_bindings::changes(self.svc.store())
            .await?
            .into_iter()
            .map(|c| {
                let mut args = fluent_bundle::FluentArgs::new();
                args.set("host", c.host_id.clone());
                args.set("bound", c.bound_domain.clone());
                args.set("domain", c.domain.clone());
                args.set("seen", self.svc.instant_words(c.seen_at));
                let id = match c.basis {
                    Basis::OperatorTrust => "host-change-operator-trust",
                    _ => "host-change",
                };
                HostChangeView { words: crate::ui_words::text_with(language, id, &args), change: c }
            })
            .collect())
    }

    /// The person accepts that `host_id` now lives at `domain` (a move the host
    /// really made), once the OS has confirmed the person for `origin`: a new
    /// domain for a host id is as strong as a yes, so it asks as one does.
    /// Only the person's surfaces call this: the window and the control
    /// socket; no agent request can.
    pub async fn accept_host_domain(self, host_id: &str, domain: &str, origin: Origin<'_>) -> Result<(), ServiceError> {
        self.svc.confirm(&*origin.asker()?, format!("{host_id} now at {domain}")).await?;
        if !host_bindings::accept_change(self.svc.store(), host_id, domain, self.svc.now()).await? {
            return Err(ServiceError::NotFound(Missing::HostDomainChange));
        }
        tracing::info!(host_id = ?host_id, domain = ?domain, "the person accepted a host's new domain");
        self.svc.notify();
        Ok(())
    }
}
