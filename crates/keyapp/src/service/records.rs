//! What the person can look back at, and under which mandate: credentials issued,
//! history, contacts, attestations; and the answers the person gives.

use super::{Directory, Missing, Origin, Requests, Service, ServiceError};
use crate::kind::RequestKind;
use crate::store::contacts::{self, ContactRow};
use crate::store::credentials::{self, CredentialStatus, ListedCredential, MeetingRecord};
use crate::store::pairings::{self, PairingStatus};
use crate::store::{history, history::HistoryRecord};
use crate::user_verification::Method;
use schcp::refusal::Reason;
use std::collections::HashMap;

pub use crate::views::{Contact, CredentialView, HistoryEntry, MeetingView, Publication};

impl From<MeetingRecord> for MeetingView {
    fn from(m: MeetingRecord) -> MeetingView {
        MeetingView {
            meeting_id: m.meeting_id,
            revision: m.revision,
            contract_sha256: m.contract_sha256,
            members: m.members,
            current: m.current,
        }
    }
}

impl From<ContactRow> for Contact {
    fn from(c: ContactRow) -> Contact {
        Contact { principal: c.principal, name: c.name, relationship: c.relationship }
    }
}

impl Service {
    pub(super) fn credential_view(
        &self,
        c: ListedCredential,
        publication: Option<Publication>,
        confirmed_by: Option<Method>,
        changed: bool,
        now: i64,
    ) -> CredentialView {
        // Hosted mode: hosts claim units at the service, so only its count is
        // true (`hosted_remaining`); the key app's own is not shown.
        let remaining = if c.hosted_status_url.is_some() { None } else { c.remaining.map(i64::from) };
        let status = CredentialStatus::of(c.revoked, c.exp, now);
        CredentialView {
            publication,
            publication_note: publication.map(|p| self.publication_words(p, c.refused.map(|(_, why)| why))),
            status,
            // A record another program changed may have been made to read as
            // one that cannot be taken back: what decides is the credential as
            // signed, whether it names a status URL hosts read.
            revocable: CredentialView::can_revoke(c.kind, status)
                || (changed && status == CredentialStatus::Active && self.signed_status_url(&c.jti, &c.stored.compact)),
            aud: c.aud,
            kind: c.kind,
            summary: c.summary,
            jti: c.jti,
            exp: c.exp,
            expires: self.instant_words(c.exp),
            remaining,
            meeting: c.meeting.map(MeetingView::from),
            confirmed_by: confirmed_by.map(|m| m.as_str().to_owned()),
            confirmed: confirmed_by.map(|m| self.confirmation_words(m)),
            changed: changed.then(|| self.words("credential-changed")),
            agent_jkt: c.agent_jkt,
        }
    }

    /// What the status service lacks, in the person's words; a refusal for
    /// good says why (`namespace_full`: no room for more of their credentials).
    pub(super) fn publication_words(&self, p: Publication, why: Option<Reason>) -> String {
        self.words_with(p.message_id(), [("why", why.map_or("other", Reason::as_str).into())])
    }

    /// Fills in, for each `(index into out, status URL)`, what the hosted
    /// status service says remains; unknown if it does not answer.
    pub(super) async fn hosted_remaining(
        &self,
        out: &mut [CredentialView],
        lookups: Vec<(usize, String)>,
    ) -> Result<(), ServiceError> {
        if lookups.is_empty() {
            return Ok(());
        }
        let client = self.hosted_client()?;
        let mut running = tokio::task::JoinSet::new();
        for (index, url) in lookups {
            let client = client.clone();
            running.spawn(async move { (index, client.status(&url).await.and_then(|s| s.remaining)) });
        }
        while let Some(done) = running.join_next().await {
            if let Ok((index, remaining)) = done {
                out[index].remaining = remaining.map(i64::from);
            }
        }
        Ok(())
    }

    /// The refusal of a credential that cannot be taken back: a kind never
    /// published, or one whose credential names no status URL.
    fn not_revocable(&self, kind: RequestKind, exp: i64) -> ServiceError {
        let why = if kind.revocable() {
            "it names no status URL, so no host could learn of a revocation"
        } else {
            "it is never published, so nobody could learn of a revocation"
        };
        ServiceError::invalid(
            Reason::NotRevocable,
            format!(
                "This {} cannot be revoked: {why}; it lapses on its own on {}.",
                kind_words(kind),
                self.instant_words(exp)
            ),
        )
    }

    /// An entry in the person's words; one whose row does not hold its seal
    /// (record_seal: written outside the key app, or changed since) says only
    /// that, with nothing of what the row claims but its place and time.
    pub(super) fn history_entry(&self, h: HistoryRecord) -> HistoryEntry {
        if !self.inner.seal.history_holds(&h.fields(), h.seal.as_deref()) {
            return HistoryEntry {
                sentence: self.words("history-unverified"),
                when: self.instant_words(h.at),
                at: h.at,
                event: String::new(),
                subject: String::new(),
                detail: String::new(),
                confirmed_by: None,
                confirmed: None,
            };
        }
        HistoryEntry {
            sentence: crate::history_words::sentence(self.language(), &h),
            when: self.instant_words(h.at),
            at: h.at,
            event: h.event,
            subject: h.subject,
            detail: h.detail,
            confirmed_by: h.confirmed_by.map(|m| m.as_str().to_owned()),
            confirmed: h.confirmed_by.map(|m| self.confirmation_words(m)),
        }
    }

    /// How a yes was confirmed, in the person's words.
    fn confirmation_words(&self, method: Method) -> String {
        crate::ui_words::text(self.language(), method.message_id())
    }

    /// The contacts as the consent renderer reads them: principal → name.
    pub(super) async fn consent_contacts(&self) -> Result<schcp_consent::Contacts, ServiceError> {
        Ok(self.directory().contacts().await?.into_iter().map(|c| (c.principal, c.name)).collect())
    }

    /// The name of the agent paired with key `jkt`, if the person approved it.
    pub(super) async fn paired_agent_name(&self, jkt: &str) -> Result<Option<String>, ServiceError> {
        Ok(self.paired_agent(jkt).await?.map(|a| a.name))
    }

    /// Key `jkt`'s row, if the key app wrote it as it stands (record_seal).
    /// The person's programs can write the records: a row added there, renamed
    /// or set to approved without the person's yes is no agent the key app
    /// knows, so it is neither paired nor named.
    pub(super) async fn sealed_agent(&self, jkt: &str) -> Result<Option<pairings::AgentRecord>, ServiceError> {
        Ok(pairings::by_key(self.store(), jkt).await?.filter(|a| self.agent_holds(a)))
    }

    /// The management mandates the key app issued without a prompt under root
    /// `root`, found from the sealed records: the sealed requests whose input
    /// says they rested on it, and every credential the records say was
    /// issued for one of them (by its `request_id` or the request's result).
    /// The links the records keep for this can be removed by the person's
    /// programs; revoking a root must still take these with it (§3.3
    /// "Renewal never widens authority"). Revoking only narrows, so a
    /// credential's own row need not hold its seal to be taken. Best effort:
    /// a records error leaves the links alone to decide, and never keeps the
    /// person from revoking.
    pub(super) async fn issued_under(&self, root: &str) -> Vec<String> {
        match self.sealed_children(root).await {
            Ok(children) => children,
            Err(e) => {
                tracing::warn!(root, error = %e, "the sealed records of what a root covered could not be read");
                Vec::new()
            }
        }
    }

    async fn sealed_children(&self, root: &str) -> Result<Vec<String>, ServiceError> {
        let kind = RequestKind::ManagementMandate.as_str();
        let rested: Vec<String> = crate::store::requests::sealed_naming(self.store(), kind, root)
            .await?
            .into_iter()
            .filter(|r| self.request_sealed(r))
            .filter(|r| super::management_mandate::root_of(&r.input).as_deref() == Some(root))
            .map(|r| r.request_id)
            .collect();
        let ids: Vec<&str> = rested.iter().map(String::as_str).collect();
        Ok(credentials::issued_for(self.store(), &ids).await?.into_iter().map(|(jti, _)| jti).collect())
    }

    /// Whether credential `jti` is a management mandate signed without a
    /// prompt under root `root`, by its sealed records alone: its own row
    /// holds its seal and names its request, whose sealed input names the
    /// root. Unlike [`Service::issued_under`], which narrows, this decides
    /// what is signed without the person, so nothing unsealed counts.
    pub(super) async fn signed_under_root(&self, jti: &str, root: &str) -> Result<bool, ServiceError> {
        let Some(c) = credentials::stored(self.store(), jti).await? else { return Ok(false) };
        if !self.credential_sealed(&c) || c.kind != RequestKind::ManagementMandate.as_str() {
            return Ok(false);
        }
        let Some(request) = c.request_id.as_deref() else { return Ok(false) };
        let rows = crate::store::requests::sealed_many(self.store(), &[request]).await?;
        Ok(rows
            .iter()
            .any(|r| self.request_sealed(r) && super::management_mandate::root_of(&r.input).as_deref() == Some(root)))
    }

    /// Every agent key whose row holds its seal, with the name it paired
    /// under: the names the records screens may show.
    pub(super) async fn sealed_agent_name_map(&self) -> Result<HashMap<String, String>, ServiceError> {
        let all = pairings::all(self.store()).await?;
        Ok(all.into_iter().filter(|a| self.agent_holds(a)).map(|a| (a.jkt, a.name)).collect())
    }

    /// Puts on each record the name its agent's sealed row gives, or none:
    /// the records' joins read names as the table stands, and a row another
    /// program wrote or renamed names no one (record_seal).
    pub(super) async fn sealed_agent_names<T: NamesAgent>(&self, rows: &mut [T]) -> Result<(), ServiceError> {
        if rows.iter_mut().all(|r| r.agent().0.is_none()) {
            return Ok(());
        }
        let named = self.sealed_agent_name_map().await?;
        for r in rows {
            let (jkt, name) = r.agent();
            *name = jkt.and_then(|j| named.get(j)).cloned();
        }
        Ok(())
    }

    /// Sets on each history entry the request it is about, that request's
    /// summary and the assistant it names, from sealed rows only
    /// (record_seal), then that assistant's sealed name. An entry about a
    /// request names it by its subject; one about a credential, by the
    /// request the credential's sealed row names, and its assistant by that
    /// row. The history's joins follow the rows as they stand: a credential
    /// pointed at another request, a row renamed to the entry's subject, or a
    /// request given another assistant's key would otherwise lend a sealed
    /// entry words and a name it was not written with.
    pub(super) async fn sealed_history(&self, rows: &mut [history::HistoryRecord]) -> Result<(), ServiceError> {
        let jtis: Vec<&str> = rows
            .iter()
            .filter(|h| HistoryAbout::of(&h.event) == HistoryAbout::Credential)
            .map(|h| h.subject.as_str())
            .collect();
        let credentials: HashMap<String, crate::store::credentials::StoredCredential> =
            crate::store::credentials::stored_many(self.store(), &jtis)
                .await?
                .into_iter()
                .filter(|c| self.credential_sealed(c))
                .map(|c| (c.jti.clone(), c))
                .collect();
        let about: Vec<Option<String>> = rows
            .iter()
            .map(|h| match HistoryAbout::of(&h.event) {
                HistoryAbout::Request => Some(h.subject.clone()),
                HistoryAbout::Credential => credentials.get(&h.subject).and_then(|c| c.request_id.clone()),
                HistoryAbout::Other => None,
            })
            .collect();
        let mut ids: Vec<&str> = about.iter().flatten().map(String::as_str).collect();
        ids.sort_unstable();
        ids.dedup();
        let requests: HashMap<String, crate::store::requests::SealedRow> =
            crate::store::requests::sealed_many(self.store(), &ids)
                .await?
                .into_iter()
                .filter(|r| self.request_sealed(r))
                .map(|r| (r.request_id.clone(), r))
                .collect();
        for (h, about) in rows.iter_mut().zip(about) {
            let request = about.as_deref().and_then(|id| requests.get(id));
            // A request stored before summaries were kept has ''.
            h.summary = request.map(|r| r.summary.clone()).filter(|s| !s.is_empty());
            h.summary_of = request.map(|r| r.request_id.clone());
            match HistoryAbout::of(&h.event) {
                HistoryAbout::Request => h.agent_jkt = request.map(|r| r.agent_jkt.clone()),
                HistoryAbout::Credential => {
                    h.agent_jkt = credentials.get(&h.subject).and_then(|c| c.agent_jkt.clone());
                }
                // A pairing's or an agent's entry names the key by its subject.
                HistoryAbout::Other => {}
            }
        }
        self.sealed_agent_names(rows).await
    }

    /// Whether the key app sealed agent row `a` as it stands.
    pub(super) fn agent_holds(&self, a: &pairings::AgentRecord) -> bool {
        self.inner.seal.pairing_holds(&a.fields(), a.seal.as_deref())
    }

    /// Key `jkt`'s row, if the person approved its pairing and it is paired now.
    pub(super) async fn paired_agent(&self, jkt: &str) -> Result<Option<pairings::AgentRecord>, ServiceError> {
        Ok(self.sealed_agent(jkt).await?.filter(|a| a.status == PairingStatus::Approved))
    }
}

/// What a history entry's subject is, by its event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HistoryAbout {
    /// A request id: its asking, answer, expiry or withdrawal.
    Request,
    /// A credential's jti: its issuance or revocation.
    Credential,
    /// A pairing, an agent's key, a contact, a host or an attestation.
    Other,
}

impl HistoryAbout {
    fn of(event: &str) -> HistoryAbout {
        match event {
            "request_created" | "request_approved" | "request_declined" | "request_expired" | "request_withdrawn" => {
                HistoryAbout::Request
            }
            "credential_issued" | "revoked" => HistoryAbout::Credential,
            _ => HistoryAbout::Other,
        }
    }
}

/// A record that names an assistant: its key and the name read with it.
pub(super) trait NamesAgent {
    fn agent(&mut self) -> (Option<&str>, &mut Option<String>);
}

impl NamesAgent for crate::store::history::HistoryRecord {
    fn agent(&mut self) -> (Option<&str>, &mut Option<String>) {
        (self.agent_jkt.as_deref(), &mut self.agent_name)
    }
}

impl NamesAgent for crate::store::bookings::ManagerRecord {
    fn agent(&mut self) -> (Option<&str>, &mut Option<String>) {
        (self.agent_jkt.as_deref(), &mut self.agent_name)
    }
}

/// The person's records of what was issued and done: `Service::records`.
#[derive(Clone, Copy)]
pub struct Records<'a> {
    pub(super) svc: &'a Service,
}

impl<'a> Records<'a> {
    /// The store the records live in (SQLite, `store`).
    pub fn store(self) -> &'a crate::store::Store {
        self.svc.store()
    }

    /// Credentials issued (to one agent, or all), with their status now.
    pub async fn credentials(self, agent_jkt: Option<&str>) -> Result<Vec<CredentialView>, ServiceError> {
        // One snapshot: each credential with the status API's own count of held units.
        let listed = credentials::listing(self.svc.store(), agent_jkt).await?;
        self.views(listed, agent_jkt, self.svc.now()).await
    }

    /// Listed credentials as the person's surfaces (`agent_jkt` `None`) or
    /// agent `agent_jkt` see them: their status now, and what remains of each
    /// shared limit at `now`. The person's also say how each yes was confirmed, what
    /// each allows as that yes recorded it, and "revoked" only where the
    /// hosted service says so too.
    pub(super) async fn views(
        self,
        mut listed: Vec<credentials::ListedCredential>,
        agent_jkt: Option<&str>,
        now: i64,
    ) -> Result<Vec<CredentialView>, ServiceError> {
        let (confirmations, changed) = match agent_jkt {
            None => {
                (credentials::confirmations(self.svc.store()).await?, self.svc.sealed_summaries(&mut listed).await?)
            }
            Some(_) => (Default::default(), vec![false; listed.len()]),
        };
        let mut out = Vec::with_capacity(listed.len());
        let mut hosted = Vec::new();
        let mut revocations = Vec::new();
        for (c, changed) in listed.into_iter().zip(changed) {
            let publication = Publication::of(&c.unpublished, c.refused.map(|(op, _)| op));
            // An agent receives a credential once the service knows it
            // (`request_for_agent`); its listing waits the same way.
            if agent_jkt.is_some() && publication.is_some_and(Publication::withheld_from_agent) {
                continue;
            }
            if let (Some(url), Some(_)) = (&c.hosted_status_url, c.remaining) {
                hosted.push((out.len(), url.clone()));
            }
            if agent_jkt.is_none() {
                revocations.extend(self.svc.revocation_check(out.len(), &c, now));
            }
            let confirmed_by = confirmations.get(&c.jti).copied();
            out.push(self.svc.credential_view(c, publication, confirmed_by, changed, now));
        }
        self.svc.hosted_remaining(&mut out, hosted).await?;
        self.svc.confirm_revocations(&mut out, revocations).await?;
        Ok(out)
    }

    /// After the person's no to an invitation to `booking` at `host`: revokes
    /// every read credential of theirs that names that booking there, as the
    /// principal signed it (scope `hold`, `constraints.bookings` that booking
    /// alone). §5.10 lets `respond` be signed under a mandate of any scope, so
    /// a read credential the assistant asked for to show the invitation could
    /// otherwise still accept it after the no, at a host that follows §5.10
    /// as written (docs/decisions.md "An invitation's no"). Best effort: the
    /// no stands whatever fails here, and each failure is logged.
    pub async fn revoke_reads_of(self, host: &str, booking: &str) {
        let listed = match credentials::listing_readable(self.svc.store()).await {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!(error = %e, "the read credentials of a declined invitation could not be listed");
                return;
            }
        };
        for c in listed.iter().filter(|c| !c.revoked) {
            let Some(claims) = self.svc.signed_booking_mandate(c) else { continue };
            let only_this =
                claims.constraints.as_ref().and_then(|k| k.bookings.as_deref()) == Some(&[booking.to_owned()][..]);
            let reads = claims.scope == [schcp::claims::Action::Hold];
            if only_this && reads && claims.aud.hosts().iter().any(|h| h == host) {
                match self.revoke(&c.jti).await {
                    Ok(()) => tracing::info!(jti = %c.jti, "a declined invitation's read credential revoked"),
                    Err(e) => {
                        tracing::warn!(jti = %c.jti, error = %e, "a declined invitation's read credential was not revoked")
                    }
                }
            }
        }
    }

    /// Revokes a credential at once; recorded in history and reflected by the
    /// status API (§3.3 check 7).
    pub async fn revoke(self, jti: &str) -> Result<(), ServiceError> {
        use crate::store::credentials::{revoke_tree_and_publish, RevokeOutcome};
        let Some(c) = credentials::revocability(self.svc.store(), jti).await? else {
            return Err(ServiceError::NotFound(Missing::Credential));
        };
        let kind = c.kind;
        // What the person is told is what hosts see. A credential no
        // status URL names (a rule is never published, §7.9) cannot be taken
        // back; saying "revoked" would tell the person something untrue.
        if !kind.revocable() || c.status_url.is_none() {
            // Unless that is not what the key app wrote: a row whose seal
            // fails may have been made to read as one that cannot be taken
            // back (its status URL removed, its kind relabelled) to keep the
            // person from revoking it.
            // What decides then is the credential as signed: whether it names
            // a status URL hosts read.
            let stored = credentials::stored(self.svc.store(), jti).await?;
            let taken_back =
                stored.is_some_and(|r| !self.svc.credential_sealed(&r) && self.svc.signed_status_url(jti, &r.compact));
            if !taken_back {
                return Err(self.svc.not_revocable(kind, c.exp));
            }
            tracing::warn!(jti, "a credential's record does not hold its seal: revoked as the person asked");
        }
        // Recorded here at once; in hosted mode the revocation is owed to the
        // service in the same transaction, and published until acknowledged.
        let children = self.svc.issued_under(jti).await;
        match revoke_tree_and_publish(self.svc.store(), jti, &children, self.svc.now()).await? {
            RevokeOutcome::UnknownMandate => Err(ServiceError::NotFound(Missing::Credential)),
            outcome @ (RevokeOutcome::Revoked | RevokeOutcome::AlreadyRevoked) => {
                tracing::info!(jti, %kind, "credential revoked");
                self.svc.notify();
                if outcome == RevokeOutcome::Revoked {
                    if let Err(e) = self.svc.publish_due().await {
                        tracing::warn!(error = %e, "publishing the revocation failed; the publisher retries");
                    }
                    self.svc.wake_publisher();
                }
                Ok(())
            }
        }
    }

    pub async fn history_entries(self, limit: i64) -> Result<Vec<HistoryEntry>, ServiceError> {
        let mut latest = history::latest(self.svc.store(), limit).await?;
        self.svc.sealed_history(&mut latest).await?;
        Ok(latest.into_iter().map(|h| self.svc.history_entry(h)).collect())
    }
}

impl Requests<'_> {
    /// The text shown for a pending pairing (`pr_…`) or request (`rq_…`).
    pub async fn consent_text(self, id: &str) -> Result<String, ServiceError> {
        if id.starts_with("pr_") {
            let p = self.svc.pairings().pairing(id).await?;
            return self
                .svc
                .render(&schcp_consent::ConsentRequest::Pairing {
                    agent_name: p.agent_name,
                    fingerprint: p.fingerprint,
                })
                .await;
        }
        Ok(self.request(id).await?.consent_text)
    }
}

impl Directory<'_> {
    pub async fn agent_name(self, jkt: &str) -> Result<String, ServiceError> {
        Ok(self.svc.sealed_agent(jkt).await?.map(|a| a.name).unwrap_or_default())
    }

    /// The agent's name as the pending list gives it (the Requests screen, the
    /// terminal, notifications): inert, so a name stored before names were
    /// checked at pairing cannot reorder or hide what is around it, with its
    /// quotation marks neutralised for the surfaces that quote it.
    pub async fn shown_agent_name(self, jkt: &str) -> Result<String, ServiceError> {
        Ok(schcp_consent::inert::inert_in_quotes(&self.agent_name(jkt).await?))
    }

    /// The person's contacts: the rows the key app wrote once the OS
    /// confirmed the person (record_seal). A row another program wrote or
    /// changed (its own key named "Mum") is no contact: not listed, and never
    /// a name in a consent text.
    pub async fn contacts(self) -> Result<Vec<Contact>, ServiceError> {
        Ok(self.sealed_contacts().await?.into_iter().map(|r| Contact::from(r.contact)).collect())
    }

    /// The contacts' rows whose seals hold, with those seals.
    pub(super) async fn sealed_contacts(self) -> Result<Vec<contacts::StoredContact>, ServiceError> {
        let rows = contacts::all(self.svc.store()).await?;
        let total = rows.len();
        let sealed: Vec<contacts::StoredContact> = rows
            .into_iter()
            .filter(|r| self.svc.inner.seal.contact_holds(&r.contact.fields(), r.seal.as_deref()))
            .collect();
        if sealed.len() < total {
            tracing::warn!(
                unsealed = total - sealed.len(),
                "contacts' records do not hold their seals: they were written or changed outside the key app"
            );
        }
        Ok(sealed)
    }

    /// Keeps `name` for `principal`, once the OS confirms the person for
    /// `origin`. The consent text names a member, a booker or a rule's
    /// people by the person's own contact names (SchCP §5.12 "What a member
    /// can trust"), so a contact is as strong as a yes: a process of the
    /// person's that could add one unconfirmed could name its own key "Mum"
    /// and be shown as her.
    pub async fn add_contact(
        self,
        principal: &str,
        name: &str,
        relationship: Option<&str>,
        origin: Origin<'_>,
    ) -> Result<(), ServiceError> {
        if !principal.starts_with(schcp::jwk::PRINCIPAL_PREFIX) {
            return Err(ServiceError::invalid(
                Reason::BadPrincipal,
                format!("a principal starts with {}", schcp::jwk::PRINCIPAL_PREFIX),
            ));
        }
        check_contact_name(name)?;
        self.confirm_contact(name, principal, origin).await?;
        let contact = ContactRow {
            principal: principal.to_owned(),
            name: name.to_owned(),
            relationship: relationship.map(str::to_owned),
        };
        let seal = self.svc.inner.seal.contact(&contact.fields());
        contacts::save(self.svc.store(), &contact, &seal, self.svc.now()).await?;
        Ok(())
    }

    /// The OS's confirmation that the person names `principal` `name`.
    pub(super) async fn confirm_contact(
        self,
        name: &str,
        principal: &str,
        origin: Origin<'_>,
    ) -> Result<(), ServiceError> {
        let summary = self.svc.words_with(
            "verification-contact-summary",
            [("name", crate::ui_words::quoted(self.svc.language(), name).into())],
        );
        self.svc.confirm(&*origin.asker()?, summary).await?;
        tracing::info!(principal = ?principal, "the OS confirmed the person's name for a contact");
        Ok(())
    }
}

/// A contact's name is non-empty plain text of at most `MAX_LABEL` characters;
/// the consent text shows it inert (`schcp_consent::inert`), as any supplied name.
pub(super) fn check_contact_name(name: &str) -> Result<(), ServiceError> {
    if name.trim().is_empty() || name.chars().any(char::is_control) || name.chars().count() > super::MAX_LABEL {
        let why = format!("a contact's name is 1 to {} characters of plain text", super::MAX_LABEL);
        return Err(ServiceError::invalid(Reason::BadName, why));
    }
    Ok(())
}

/// A credential kind as a refusal names it.
fn kind_words(kind: RequestKind) -> &'static str {
    match kind {
        RequestKind::Mandate => "mandate",
        RequestKind::ClosedMandate => "closed mandate",
        RequestKind::ManagementMandate => "management mandate",
        RequestKind::MeetingContract => "meeting contract",
        RequestKind::Acceptance => "acceptance",
        RequestKind::Rule => "rule",
        RequestKind::Invitation => "invitation",
        RequestKind::BookingAcceptance => "acceptance of a booking",
        RequestKind::BookingRead => "read mandate",
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::service_at;
    use super::*;
    use crate::store::credentials::CredentialRecord;
    use crate::store::outbox;
    use crate::store::outbox::Op;

    const T0: i64 = 1_792_000_000;

    /// A credential of `kind` issued to `agent` at `T0 + n`, with or without a status URL.
    fn issued(n: i64, jti: &str, kind: RequestKind, agent: &str, status_url: bool) -> CredentialRecord {
        let mut c = crate::store::testing::credential(n, jti, kind, agent);
        if !status_url {
            c.status_url = None;
        }
        c
    }

    fn principal(tail: &str) -> String {
        format!("{}{tail}", schcp::jwk::PRINCIPAL_PREFIX)
    }

    fn reason(r: Result<(), ServiceError>) -> Reason {
        r.expect_err("refused").to_api().reason
    }

    async fn events(svc: &Service) -> Vec<(String, String, String)> {
        let entries = svc.records().history_entries(50).await.unwrap();
        entries.into_iter().map(|h| (h.event, h.subject, h.detail)).collect()
    }

    #[tokio::test]
    async fn a_contact_is_checked_then_kept_with_its_history_entry() {
        let (svc, _clock, _dir) = service_at(T0).await;
        assert_eq!(
            reason(svc.directory().add_contact("ellis", "Ellis", None, Origin::ThisProcess).await),
            Reason::BadPrincipal
        );
        assert_eq!(
            reason(svc.directory().add_contact(&principal("e"), "  ", None, Origin::ThisProcess).await),
            Reason::BadName
        );
        assert_eq!(
            reason(svc.directory().add_contact(&principal("e"), "El\nlis", None, Origin::ThisProcess).await),
            Reason::BadName
        );
        assert!(svc.directory().contacts().await.unwrap().is_empty(), "a refused contact is not kept");
        assert!(events(&svc).await.is_empty());

        svc.directory().add_contact(&principal("e"), "Ellis", Some("colleague"), Origin::ThisProcess).await.unwrap();
        let ellis = Contact { principal: principal("e"), name: "Ellis".into(), relationship: Some("colleague".into()) };
        assert_eq!(svc.directory().contacts().await.unwrap(), [ellis]);
        assert_eq!(svc.consent_contacts().await.unwrap().name_of(&principal("e")), Some("Ellis"));
        let entries = svc.records().history_entries(10).await.unwrap();
        assert_eq!((entries[0].event.as_str(), entries[0].detail.as_str()), ("contact_added", "Ellis"));
        assert_eq!((entries[0].at, entries[0].when.is_empty()), (T0, false));
    }

    /// The assistant, running as the person, writes the contacts table
    /// itself: it renames a contact, or adds its own key under a name the
    /// person trusts, with no OS confirmation. Neither is a contact: neither
    /// is listed nor names anyone in a consent text. Put back as the key app
    /// wrote it, the contact is one again; the person's own rename, confirmed,
    /// is sealed anew.
    #[tokio::test]
    async fn a_contact_written_outside_the_key_app_names_no_one() {
        let (svc, _clock, _dir) = service_at(T0).await;
        svc.directory().add_contact(&principal("n"), "Noor", Some("sister"), Origin::ThisProcess).await.unwrap();
        let pool = svc.store().pool();
        sqlx::query("UPDATE contacts SET name = 'Mum'").execute(pool).await.unwrap();
        sqlx::query("INSERT INTO contacts (principal, name) VALUES (?, 'Dr. Patel')")
            .bind(principal("assistant"))
            .execute(pool)
            .await
            .unwrap();
        // A seal copied from Noor's row does not make the assistant's one.
        sqlx::query(
            "UPDATE contacts SET seal = (SELECT seal FROM contacts WHERE name = 'Mum') WHERE name = 'Dr. Patel'",
        )
        .execute(pool)
        .await
        .unwrap();
        assert!(svc.directory().contacts().await.unwrap().is_empty());
        let words = svc.consent_contacts().await.unwrap();
        assert_eq!(words.name_of(&principal("n")), None, "the renamed row names no one");
        assert_eq!(words.name_of(&principal("assistant")), None, "the added row names no one");
        assert!(matches!(
            svc.directory().rename_contact(&principal("assistant"), "Dr. Patel", Origin::ThisProcess).await,
            Err(ServiceError::NotFound(Missing::Contact))
        ));

        sqlx::query("UPDATE contacts SET name = 'Noor' WHERE name = 'Mum'").execute(pool).await.unwrap();
        assert_eq!(svc.consent_contacts().await.unwrap().name_of(&principal("n")), Some("Noor"));
        svc.directory().rename_contact(&principal("n"), "Noor H.", Origin::ThisProcess).await.unwrap();
        let noor = Contact { principal: principal("n"), name: "Noor H.".into(), relationship: Some("sister".into()) };
        assert_eq!(svc.directory().contacts().await.unwrap(), [noor]);
    }

    #[tokio::test]
    async fn only_a_credential_hosts_can_learn_of_is_revoked() {
        let (svc, _clock, _dir) = service_at(T0).await;
        assert!(matches!(svc.records().revoke("m-nobody").await, Err(ServiceError::NotFound(Missing::Credential))));
        svc.record_sealed(issued(0, "r1", RequestKind::Rule, "a", false)).await.unwrap();
        svc.record_sealed(issued(1, "m1", RequestKind::Mandate, "a", false)).await.unwrap();
        svc.record_sealed(issued(2, "m2", RequestKind::Mandate, "a", true)).await.unwrap();

        let rule = svc.records().revoke("r1").await.expect_err("a rule is never published");
        assert_eq!(rule.to_api().reason, Reason::NotRevocable);
        assert!(rule.to_string().starts_with("This rule cannot be revoked: it is never published"), "{rule}");
        let unnamed = svc.records().revoke("m1").await.expect_err("no status URL");
        assert!(unnamed.to_string().contains("names no status URL"), "{unnamed}");
        assert!(events(&svc).await.is_empty(), "a refused revocation is not in the history");
        // A record another program changed is judged by the credential as
        // signed: this one's claims (none the principal signed) name no status
        // URL, so it is refused all the same, never shown "revoked".
        sqlx::query("UPDATE credentials SET seal = NULL WHERE jti IN ('r1', 'm1')")
            .execute(svc.store().pool())
            .await
            .unwrap();
        for jti in ["r1", "m1"] {
            assert_eq!(svc.records().revoke(jti).await.unwrap_err().to_api().reason, Reason::NotRevocable, "{jti}");
        }
        assert!(events(&svc).await.is_empty());

        svc.records().revoke("m2").await.unwrap();
        svc.records().revoke("m2").await.unwrap();
        let status: Vec<_> =
            svc.records().credentials(None).await.unwrap().into_iter().map(|c| (c.jti, c.status)).collect();
        assert_eq!(
            status,
            [
                ("r1".to_owned(), CredentialStatus::Active),
                ("m1".to_owned(), CredentialStatus::Active),
                ("m2".to_owned(), CredentialStatus::Revoked),
            ]
        );
        assert_eq!(events(&svc).await, [("revoked".to_owned(), "m2".to_owned(), "mandate".to_owned())], "once");
    }

    #[tokio::test]
    async fn an_agent_lists_only_the_mandates_it_was_handed() {
        let (svc, _clock, _dir) = service_at(T0).await;
        let mut tx = svc.store().begin().await.unwrap();
        for (n, jti, kind, agent) in [
            (0, "m1", RequestKind::Mandate, "a"),
            (1, "m2", RequestKind::Mandate, "a"),
            (2, "r1", RequestKind::Rule, "a"),
            (3, "m3", RequestKind::Mandate, "b"),
        ] {
            credentials::insert(&mut tx, &issued(n, jti, kind, agent, true)).await.unwrap();
        }
        // m2 is owed to the hosted status service, which has not yet acknowledged it.
        outbox::enqueue_register(&mut tx, "m2", "https://status.example", T0).await.unwrap();
        credentials::record_confirmation(&mut tx, "m1", Method::Polkit).await.unwrap();
        tx.commit().await.unwrap();

        let theirs = svc.records().credentials(Some("a")).await.unwrap();
        assert_eq!(theirs.iter().map(|c| c.jti.as_str()).collect::<Vec<_>>(), ["m1"]);
        assert_eq!(theirs[0].confirmed_by, None, "how the person confirmed is theirs alone");

        let all = svc.records().credentials(None).await.unwrap();
        assert_eq!(all.iter().map(|c| c.jti.as_str()).collect::<Vec<_>>(), ["m1", "m2", "r1", "m3"]);
        assert_eq!((all[0].confirmed_by.as_deref(), all[0].confirmed.is_some()), (Some("polkit"), true));
        assert_eq!(all[1].publication, Some(Publication::RegistrationPending));
        assert!(all[1].publication_note.is_some());
        assert_eq!((all[1].remaining, all[1].agent_jkt.as_deref()), (None, Some("a")));
        assert_eq!((all[2].kind, all[2].aud.len(), all[2].meeting.is_none()), (RequestKind::Rule, 0, true));
    }

    #[test]
    fn what_the_hosted_service_still_lacks_registration_first() {
        assert_eq!(Publication::of(&[], None), None);
        assert_eq!(Publication::of(&[Op::Revoke], None), Some(Publication::RevocationPending));
        assert_eq!(Publication::of(&[Op::Revoke, Op::Register], None), Some(Publication::RegistrationPending));
        // Refused for good says more than pending, and never changes.
        assert_eq!(Publication::of(&[], Some(Op::Register)), Some(Publication::RegistrationRefused));
        assert_eq!(Publication::of(&[Op::Revoke], Some(Op::Revoke)), Some(Publication::RevocationRefused));
        assert!(Publication::RegistrationRefused.withheld_from_agent());
        assert!(Publication::RegistrationPending.withheld_from_agent());
        assert!(!Publication::RevocationRefused.withheld_from_agent());
    }
}
