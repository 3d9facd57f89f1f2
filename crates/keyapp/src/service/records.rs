//! What the person can look back at, and under which mandate: credentials issued,
//! history, contacts, attestations; and the answers the person gives.

use super::corrupt;
use super::{Service, ServiceError};
use crate::kind::RequestKind;
use crate::store::credentials::CredentialStatus;
use crate::user_verification::Method;
use schcp::refusal::Reason;
use serde_json::{json, Value};

pub use crate::views::{Contact, CredentialView, HistoryEntry, MeetingView, Publication};

/// A credential with its held units and, for a contract or acceptance, its
/// meeting: id, revision, contract hash, members, and the meeting's latest
/// revision kept here (all NULL for other credentials).
type CredRow = (
    String,
    String,
    String,
    i64,
    Option<i64>,
    Option<i64>,
    i64,
    Option<String>,
    i64,
    Option<String>,
    Option<u32>,
    Option<String>,
    Option<String>,
    Option<u32>,
    Option<String>,
    Option<String>,
);

impl Service {
    pub async fn agent_name(&self, jkt: &str) -> Result<String, ServiceError> {
        let row: Option<(String,)> = sqlx::query_as("SELECT name FROM agents WHERE jkt = ?")
            .bind(jkt)
            .fetch_optional(self.store().pool())
            .await?;
        Ok(row.map(|(n,)| n).unwrap_or_default())
    }

    /// The agent's name as every surface lists it (terminal, window, tray,
    /// notification): inert, so a name stored before names were checked at
    /// pairing cannot reorder or hide what is around it either.
    pub async fn shown_agent_name(&self, jkt: &str) -> Result<String, ServiceError> {
        Ok(schcp_consent::inert::inert(&self.agent_name(jkt).await?))
    }

    /// The text shown for a pending pairing (`pr_…`) or request (`rq_…`).
    pub async fn consent_text(&self, id: &str) -> Result<String, ServiceError> {
        if id.starts_with("pr_") {
            let p = self.pairing(id).await?;
            return self
                .render(&schcp_consent::ConsentRequest::Pairing {
                    agent_name: p.agent_name,
                    fingerprint: p.fingerprint,
                })
                .await;
        }
        Ok(self.request(id).await?.consent_text)
    }

    /// Credentials issued (to one agent, or all), with their status now.
    pub async fn credentials(&self, agent_jkt: Option<&str>) -> Result<Vec<CredentialView>, ServiceError> {
        let now = self.now();
        // One snapshot: each credential with the status API's own count of held units.
        let rows: Vec<CredRow> = sqlx::query_as(
            "SELECT c.jti, c.kind, c.aud, c.exp, c.revoked_at, c.max_bookings, c.shared_limit, c.agent_jkt,
                    coalesce(n.held, 0), m.meeting_id, m.revision, m.contract_sha256, m.members,
                    (SELECT MAX(x.revision) FROM meeting_records x WHERE x.meeting_id = m.meeting_id),
                    CASE WHEN EXISTS (SELECT 1 FROM status_outbox o WHERE o.jti = c.jti AND o.op = 'register')
                         THEN c.status_url END,
                    (SELECT group_concat(o.op) FROM status_outbox o WHERE o.jti = c.jti AND o.acked_at IS NULL)
             FROM credentials c LEFT JOIN limit_counts n ON n.jti = c.jti
             LEFT JOIN meeting_records m ON m.jti = c.jti
             WHERE (?1 IS NULL OR (c.agent_jkt = ?1 AND c.kind IN ('mandate', 'closed_mandate', 'management_mandate', 'invitation')))
             ORDER BY c.created_at",
        )
        .bind(agent_jkt)
        .fetch_all(self.store().pool())
        .await?;
        // How each was confirmed: the person's listing only, never an agent's.
        let confirmations = match agent_jkt {
            None => crate::store::credentials::confirmations(self.store()).await?,
            Some(_) => Default::default(),
        };
        let mut out = Vec::with_capacity(rows.len());
        let mut lookups = tokio::task::JoinSet::new();
        for (
            jti,
            kind,
            aud,
            exp,
            revoked_at,
            max_bookings,
            shared,
            agent,
            held,
            m_id,
            m_rev,
            m_sha,
            m_members,
            latest,
            hosted_url,
            unpublished,
        ) in rows
        {
            let publication = Publication::of(unpublished.as_deref());
            // An agent receives a credential once the service knows it
            // (`request_for_agent`); its listing waits the same way.
            if agent_jkt.is_some() && publication == Some(Publication::RegistrationPending) {
                continue;
            }
            let meeting = match (m_id, m_rev, m_sha, m_members, latest) {
                (Some(meeting_id), Some(revision), Some(contract_sha256), Some(members), Some(latest)) => {
                    Some(MeetingView {
                        members: serde_json::from_str(&members).map_err(corrupt)?,
                        current: revision == latest,
                        meeting_id,
                        revision,
                        contract_sha256,
                    })
                }
                (None, None, None, None, None) => None,
                partial => return Err(corrupt(format!("{jti}: meeting record {partial:?}"))),
            };
            let mut remaining = crate::store::credentials::remaining(shared != 0, max_bookings, held)
                .map_err(|m| corrupt(format!("{jti}: max_bookings {m}")))?
                .map(i64::from);
            if let (Some(url), Some(_)) = (hosted_url, remaining) {
                // Hosted mode: hosts claim units at the service, so only its
                // count is true; it is read below, and unknown if it does not answer.
                remaining = None;
                let client = self.hosted_client()?.clone();
                let index = out.len();
                lookups.spawn(async move { (index, client.status(&url).await.and_then(|s| s.remaining)) });
            }
            let confirmed_by = confirmations.get(&jti).copied();
            let (kind, status) = (kind.parse().map_err(corrupt)?, CredentialStatus::of(revoked_at.is_some(), exp, now));
            out.push(CredentialView {
                publication,
                publication_note: publication.map(|p| crate::ui_words::text(self.language(), p.message_id())),
                revocable: CredentialView::can_revoke(kind, status),
                status,
                aud: serde_json::from_str(&aud).map_err(corrupt)?,
                kind,
                jti,
                exp,
                expires: self.instant_words(exp),
                remaining,
                meeting,
                confirmed_by: confirmed_by.map(|m| m.as_str().to_owned()),
                confirmed: confirmed_by.map(|m| self.confirmation_words(m)),
                agent_jkt: agent,
            });
        }
        while let Some(done) = lookups.join_next().await {
            if let Ok((index, remaining)) = done {
                out[index].remaining = remaining.map(i64::from);
            }
        }
        Ok(out)
    }

    /// Revokes a credential at once; recorded in history and reflected by the
    /// status API (§3.3 check 7).
    pub async fn revoke(&self, jti: &str) -> Result<(), ServiceError> {
        use crate::store::credentials::{revoke_and_publish, RevokeOutcome};
        let row: Option<(String, Option<String>, i64)> =
            sqlx::query_as("SELECT kind, status_url, exp FROM credentials WHERE jti = ?")
                .bind(jti)
                .fetch_optional(self.store().pool())
                .await?;
        let Some((kind, status_url, exp)) = row else { return Err(ServiceError::NotFound("credential")) };
        let kind: RequestKind = kind.parse().map_err(corrupt)?;
        // What the person is told is what hosts see. A credential no
        // status URL names (a rule is never published, §7.9) cannot be taken
        // back; saying "revoked" would tell the person something untrue.
        if !kind.revocable() || status_url.is_none() {
            let why = if kind.revocable() {
                "it names no status URL, so no host could learn of a revocation"
            } else {
                "it is never published, so nobody could learn of a revocation"
            };
            return Err(ServiceError::invalid(
                Reason::NotRevocable,
                format!(
                    "This {} cannot be revoked: {why}; it lapses on its own on {}.",
                    kind_words(kind),
                    self.instant_words(exp)
                ),
            ));
        }
        // Recorded here at once; in hosted mode the revocation is owed to the
        // service in the same transaction, and published until acknowledged.
        match revoke_and_publish(self.store(), jti, self.now()).await? {
            RevokeOutcome::UnknownMandate => Err(ServiceError::NotFound("credential")),
            outcome @ (RevokeOutcome::Revoked | RevokeOutcome::AlreadyRevoked) => {
                tracing::info!(jti, %kind, "credential revoked");
                self.notify();
                if outcome == RevokeOutcome::Revoked {
                    if let Err(e) = self.publish_due().await {
                        tracing::warn!(error = %e, "publishing the revocation failed; the publisher retries");
                    }
                    self.wake_publisher();
                }
                Ok(())
            }
        }
    }

    pub async fn history_entries(&self, limit: i64) -> Result<Vec<HistoryEntry>, ServiceError> {
        let rows: Vec<(i64, String, String, String, Option<String>)> =
            sqlx::query_as("SELECT at, event, subject, detail, confirmed_by FROM history ORDER BY id DESC LIMIT ?")
                .bind(limit)
                .fetch_all(self.store().pool())
                .await?;
        rows.into_iter()
            .map(|(at, event, subject, detail, confirmed_by)| {
                let method = confirmed_by
                    .map(|m| Method::parse(&m).ok_or_else(|| corrupt(format!("history confirmed_by {m:?}"))))
                    .transpose()?;
                Ok(HistoryEntry {
                    at,
                    when: self.instant_words(at),
                    event,
                    subject,
                    detail,
                    confirmed_by: method.map(|m| m.as_str().to_owned()),
                    confirmed: method.map(|m| self.confirmation_words(m)),
                })
            })
            .collect()
    }

    /// How a yes was confirmed, in the person's words.
    fn confirmation_words(&self, method: Method) -> String {
        crate::ui_words::text(self.language(), method.message_id())
    }

    /// The contacts as the consent renderer reads them: principal → name.
    pub(super) async fn consent_contacts(&self) -> Result<schcp_consent::Contacts, ServiceError> {
        Ok(self.contacts().await?.into_iter().map(|c| (c.principal, c.name)).collect())
    }

    /// The name of the agent paired with key `jkt`, if the person approved it.
    pub(super) async fn paired_agent_name(&self, jkt: &str) -> Result<Option<String>, ServiceError> {
        let row: Option<(String,)> = sqlx::query_as("SELECT name FROM agents WHERE jkt = ? AND status = 'approved'")
            .bind(jkt)
            .fetch_optional(self.store().pool())
            .await?;
        Ok(row.map(|(name,)| name))
    }

    pub async fn contacts(&self) -> Result<Vec<Contact>, ServiceError> {
        let rows: Vec<(String, String, Option<String>)> =
            sqlx::query_as("SELECT principal, name, relationship FROM contacts ORDER BY name")
                .fetch_all(self.store().pool())
                .await?;
        Ok(rows.into_iter().map(|(principal, name, relationship)| Contact { principal, name, relationship }).collect())
    }

    pub async fn add_contact(
        &self,
        principal: &str,
        name: &str,
        relationship: Option<&str>,
    ) -> Result<(), ServiceError> {
        if !principal.starts_with(schcp::jwk::PRINCIPAL_PREFIX) {
            return Err(ServiceError::invalid(
                Reason::BadPrincipal,
                format!("a principal starts with {}", schcp::jwk::PRINCIPAL_PREFIX),
            ));
        }
        if name.trim().is_empty() || name.chars().any(char::is_control) {
            return Err(ServiceError::invalid(Reason::BadName, "a contact's name is non-empty plain text"));
        }
        let now = self.now();
        let mut tx = self.store().pool().begin().await?;
        sqlx::query(
            "INSERT INTO contacts (principal, name, relationship) VALUES (?, ?, ?)
             ON CONFLICT (principal) DO UPDATE SET name = excluded.name, relationship = excluded.relationship",
        )
        .bind(principal)
        .bind(name)
        .bind(relationship)
        .execute(&mut *tx)
        .await?;
        Service::history(&mut tx, now, "contact_added", principal, name).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Stores an attestation about this principal (§7.5). Its signature is
    /// checked by each host against the attesters it trusts; here the shape,
    /// the subject and the expiry are.
    pub async fn add_attestation(&self, jws: &str) -> Result<Value, ServiceError> {
        let parsed = schcp::jws::parse(jws).map_err(|e| ServiceError::Verification(e.into()))?;
        parsed.expect_typ(schcp::jws::Typ::Attestation).map_err(|e| ServiceError::Verification(e.into()))?;
        schcp::schema::validate(schcp::schema::Def::Attestation, &parsed.payload)
            .map_err(|e| ServiceError::Verification(e.into()))?;
        let claims: schcp::claims::AttestationClaims =
            parsed.claims().map_err(|e| ServiceError::invalid(Reason::Malformed, e.to_string()))?;
        if claims.sub != self.principal() {
            return Err(ServiceError::invalid(Reason::WrongSubject, "the attestation is about another principal"));
        }
        let now = self.now();
        if claims.exp <= now {
            return Err(ServiceError::Verification(schcp::Error::Expired {
                what: "attestation",
                exp: claims.exp,
                now,
            }));
        }
        let mut tx = self.store().pool().begin().await?;
        sqlx::query("INSERT INTO attestations (iss, exp, compact) VALUES (?, ?, ?) ON CONFLICT (compact) DO NOTHING")
            .bind(&claims.iss)
            .bind(claims.exp)
            .bind(jws)
            .execute(&mut *tx)
            .await?;
        Service::history(&mut tx, now, "attestation_added", &claims.iss, "").await?;
        tx.commit().await?;
        Ok(json!({ "iss": claims.iss, "exp": claims.exp }))
    }
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
    }
}
