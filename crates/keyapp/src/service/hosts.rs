//! The hosts the person has dealt with (SchCP §2.2): each host id bound to
//! where the person first said yes to it, a look-alike refused, and a real
//! move accepted by the person on their own surfaces only.

use super::{Directory, Missing, Origin, Service, ServiceError};
use crate::discovery::DiscoveredHost;
use crate::host_binding::{binding_of, standing, Basis, HostBinding, Standing};
use crate::record_seal::PlaceRecord;
use crate::store::host_bindings::{self, Move, StoredPlace};
use crate::store::{StoreError, Stored};
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

impl Service {
    /// Whether the key app sealed `p` as the host record `record` (record_seal).
    fn place_holds(&self, p: &StoredPlace, record: PlaceRecord) -> bool {
        self.inner.seal.place_holds(&p.fields(record), p.seal.as_deref())
    }

    /// The seal of `b` as the host record `record` (a credential's host with
    /// its credential and its keys' JSON as stored).
    fn place_seal(&self, record: PlaceRecord, b: &HostBinding, jti: Option<&str>, keys: Option<&str>) -> String {
        self.inner.seal.place(&host_bindings::fields(record, b, jti, keys))
    }

    /// Whether a binding read as columns of another query is one the key app
    /// sealed; a basis that does not parse is not.
    pub(super) fn binding_row_holds(
        &self,
        host_id: &str,
        domain: &str,
        basis: &str,
        name: Option<&str>,
        seal: Option<&str>,
    ) -> bool {
        let fields = crate::record_seal::PlaceFields {
            record: PlaceRecord::Binding,
            host_id,
            domain,
            basis,
            name,
            jti: None,
            key_thumbprints: None,
        };
        Basis::parse(basis).is_some() && self.inner.seal.place_holds(&fields, seal)
    }

    /// `host_id`'s binding, if the key app made it. The person's programs can
    /// write the records, and a binding they wrote (a look-alike's domain,
    /// another name) binds nothing: the host reads as one the person has not
    /// dealt with, as after the row was deleted, and is bound again at the
    /// next yes.
    pub(crate) async fn sealed_binding(&self, host_id: &str) -> Result<Option<HostBinding>, ServiceError> {
        let stored = host_bindings::binding(self.store(), host_id).await?;
        Ok(stored.filter(|p| self.place_holds(p, PlaceRecord::Binding)).map(|p| p.binding))
    }

    /// Binds each of a request's hosts in the approval's transaction (§2.2: at
    /// the person's first yes), each row sealed; refused when another place
    /// won in the meantime. A binding the key app did not seal is replaced.
    pub(super) async fn bind_all(
        &self,
        tx: &mut crate::store::Connection,
        hosts: &[HostBinding],
        now: i64,
    ) -> Result<(), ServiceError> {
        for h in hosts {
            if let Some(found) = host_bindings::binding_in(tx, &h.host_id).await? {
                if !self.place_holds(&found, PlaceRecord::Binding) {
                    tracing::warn!(host_id = ?h.host_id, domain = ?found.binding.domain,
                                   "a host binding the key app did not write is replaced at the person's yes");
                    host_bindings::forget(tx, &h.host_id).await?;
                } else if !found.binding.same_place(h) {
                    return Err(conflict(&found.binding, h));
                }
            }
            let seal = self.place_seal(PlaceRecord::Binding, h, None, None);
            let bound = host_bindings::bind(tx, h, &seal, now).await?;
            if !self.place_holds(&bound, PlaceRecord::Binding) {
                // Something changed the row as it was written (a trigger).
                return Err(
                    StoreError::tampered(Stored::HostBinding, "the binding was changed as it was written").into()
                );
            }
            if !bound.binding.same_place(h) {
                return Err(conflict(&bound.binding, h));
            }
        }
        Ok(())
    }

    /// Records what each of a credential's hosts was verified with, sealed,
    /// in the approval's transaction (§2.2).
    pub(super) async fn record_credential_hosts(
        &self,
        tx: &mut crate::store::Connection,
        jti: &str,
        hosts: &[HostBinding],
    ) -> Result<(), ServiceError> {
        let mut sealed = Vec::with_capacity(hosts.len());
        for h in hosts {
            let keys = host_bindings::keys_json(&h.key_thumbprints)?;
            sealed.push((h.clone(), self.place_seal(PlaceRecord::CredentialHost, h, Some(jti), Some(&keys))));
        }
        host_bindings::record_credential_hosts(tx, jti, &sealed).await?;
        Ok(())
    }

    /// Refuses to sign for a request whose host id was bound elsewhere since it
    /// was shown (§2.2).
    pub(super) async fn still_bindable(&self, hosts: &[HostBinding]) -> Result<(), ServiceError> {
        for h in hosts {
            if let Some(pinned) = self.sealed_binding(&h.host_id).await? {
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
        let pinned = self.sealed_binding(&binding.host_id).await?;
        match standing(&binding, pinned.as_ref()) {
            Standing::New => Ok(Placed { binding, new: true }),
            Standing::Known => Ok(Placed { binding, new: false }),
            Standing::Conflict { pinned } => {
                let seal = self.place_seal(PlaceRecord::Change, &binding, None, None);
                host_bindings::note_change(self.store(), &binding, &seal, self.now(), MAX_NOTED_CHANGES).await?;
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
        // Only a row the key app sealed as it issued the credential: one the
        // person's programs wrote could name their own domain and key.
        let issued = host_bindings::credential_host(self.store(), jti, &found.host_id).await?;
        let Some(issued) = issued.filter(|p| self.place_holds(p, PlaceRecord::CredentialHost)).map(|p| p.binding)
        else {
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
            if !self.place_holds(&issued, PlaceRecord::CredentialHost) {
                continue;
            }
            if !issued.binding.same_place(found) {
                return Err(conflict(&issued.binding, found));
            }
        }
        Ok(())
    }
}

impl Directory<'_> {
    /// The places noted against a binding, each kept only if the key app
    /// sealed both it and the binding: a row the person's programs wrote
    /// would ask the person to accept a move no host made.
    async fn sealed_changes(&self) -> Result<Vec<host_bindings::NotedChange>, ServiceError> {
        let svc = self.svc;
        Ok(host_bindings::changes(svc.store())
            .await?
            .into_iter()
            .filter(|c| {
                svc.place_holds(&c.bound, PlaceRecord::Binding)
                    && svc.inner.seal.place_holds(
                        &host_bindings::fields(PlaceRecord::Change, &c.place(), None, None),
                        c.seal.as_deref(),
                    )
            })
            .collect())
    }

    /// The host ids met at another place than their binding, for the person,
    /// each in their language (locales/*/ui.ftl `host-change`).
    pub async fn host_domain_changes(self) -> Result<Vec<HostChangeView>, ServiceError> {
        let language = self.svc.language();
        Ok(self
            .sealed_changes()
            .await?
            .into_iter()
            .map(|c| {
                let c = c.change;
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
        // The newest place noted for it, as the person was shown it: looked up
        // first, so the line confirmed (and any refusal naming it) is the
        // sealed record's, never the caller's own words.
        let noted =
            self.sealed_changes().await?.into_iter().find(|c| c.change.host_id == host_id && c.change.domain == domain);
        let Some(noted) = noted else { return Err(ServiceError::NotFound(Missing::HostDomainChange)) };
        let language = self.svc.language();
        let host = noted.bound.binding.name.as_deref().unwrap_or(&noted.change.host_id);
        let summary = self.svc.words_with(
            "verification-host-move-summary",
            [
                ("host", crate::ui_words::quoted(language, host).into()),
                ("domain", schcp_consent::inert::inert(&noted.change.domain).into()),
            ],
        );
        self.svc.confirm(&*origin.asker()?, summary).await?;
        let moved = HostBinding { name: noted.bound.binding.name.clone(), ..noted.place() };
        let seal = self.svc.place_seal(PlaceRecord::Binding, &moved, None, None);
        let m = Move {
            host_id,
            domain,
            basis: noted.change.basis,
            name: moved.name.as_deref(),
            change_seal: noted.seal.as_deref().unwrap_or_default(),
            was_seal: noted.bound.seal.as_deref().unwrap_or_default(),
            seal: &seal,
        };
        if !host_bindings::accept_change(self.svc.store(), &m, self.svc.now()).await? {
            return Err(ServiceError::NotFound(Missing::HostDomainChange));
        }
        tracing::info!(host_id = ?host_id, domain = ?domain, "the person accepted a host's new domain");
        self.svc.notify();
        Ok(())
    }
}
