//! What the desktop screens need beyond the control socket's commands: one
//! prompt with everything the consent window shows, the paired agents with
//! their last request, contact rename and removal, the stored attestations, the
//! settings in words, and a rule's label edited by the person before signing
//! (§7.9). Each is a plain service function, so the terminal could use it too.

use super::{fingerprint, RequestKind, RequestStatus, Service, ServiceError};
use schcp::refusal::Reason;
use serde::Serialize;
use serde_json::Value;

/// Longest rule label the person may type (the agent's is held to the schema).
pub const MAX_LABEL: usize = 200;

/// A pending pairing or request, as the Requests screen lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PendingItem {
    pub id: String,
    /// `pairing`, or the request kind.
    pub kind: String,
    pub agent_name: String,
    pub fingerprint: String,
    pub created_at: i64,
    pub expires_at: i64,
    /// Beside a pairing whose local user's earlier pairings keep being declined
    /// or going unanswered: the sentence telling the person (`churn_notice`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub churn: Option<String>,
}

/// Everything the consent window shows for one pairing or request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prompt {
    pub id: String,
    pub kind: String,
    /// `pending`, `approved`, `declined`, `expired`, `withdrawn` (or `unpaired`
    /// for a pairing): the window answers only a pending one.
    pub status: String,
    pub agent_name: String,
    pub fingerprint: String,
    /// Exactly the text the service stored (requests) or renders (pairings).
    pub consent_text: String,
    pub created_at: i64,
    pub expires_at: i64,
    /// A rule's label (§7.9), which the person may edit before signing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// What to look at twice (schcp_consent::attention), each also in the text.
    pub attention: Vec<AttentionView>,
    /// A pairing whose local user's earlier pairings keep being declined or
    /// going unanswered: the sentence telling the person (`churn_notice`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub churn: Option<String>,
}

/// One look-twice callout: `unverified_identity`, `price`, `place_away`,
/// `reconfirmation` or `retention`, with its detail in the consent language.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, Serialize)]
pub struct AttentionView {
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A paired agent with the time and kind of its last request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentView {
    pub jkt: String,
    pub name: String,
    pub fingerprint: String,
    pub paired_at: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_request_at: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_request_kind: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttestationView {
    pub iss: String,
    pub exp: i64,
    pub compact: String,
}

/// The Settings screen's facts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Settings {
    pub principal: String,
    pub jwk: schcp::jwk::Jwk,
    pub status_public_base: String,
    /// Whether hosts can check the person's credentials at the status base
    /// (`status_reach`); its words are `StatusReach::message_id` in ui.ftl.
    pub status_reach: crate::status_reach::StatusReach,
    /// `os` or `file`; the window says it in words.
    pub keystore: &'static str,
    /// The language consent text is rendered in (`en`, `fr`).
    pub consent_language: String,
}

/// jkt, name, fingerprint, paired at, last request at, last request kind.
type AgentRow = (String, String, String, i64, Option<i64>, Option<String>);

impl Service {
    /// Pending pairings then pending requests, oldest first.
    pub async fn pending_items(&self) -> Result<Vec<PendingItem>, ServiceError> {
        let mut out = Vec::new();
        for p in self.pending_pairings().await? {
            let churn = self.churn_notice(&p).await?;
            out.push(PendingItem {
                churn,
                id: p.pairing_id,
                kind: "pairing".into(),
                agent_name: schcp_consent::inert::inert(&p.agent_name),
                fingerprint: p.fingerprint,
                created_at: p.created_at,
                expires_at: p.created_at + super::pairing::PAIRING_TTL,
            });
        }
        for r in self.pending_requests().await? {
            out.push(PendingItem {
                agent_name: self.shown_agent_name(&r.agent_jkt).await?,
                fingerprint: fingerprint(&r.agent_jkt),
                kind: r.kind.as_str().to_owned(),
                created_at: r.created_at,
                expires_at: expires_epoch(&r.expires_at),
                churn: None,
                id: r.request_id,
            });
        }
        Ok(out)
    }

    /// The consent window's content for `id` (`pr_…` or `rq_…`), whatever its status.
    pub async fn prompt(&self, id: &str) -> Result<Prompt, ServiceError> {
        if id.starts_with("pr_") {
            let p = self.pairing(id).await?;
            let consent_text = self.consent_text(id).await?;
            let churn = self.churn_notice(&p).await?;
            return Ok(Prompt {
                churn,
                id: p.pairing_id,
                kind: "pairing".into(),
                status: serde_json::to_value(p.status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                agent_name: schcp_consent::inert::inert(&p.agent_name),
                fingerprint: p.fingerprint,
                consent_text,
                created_at: p.created_at,
                expires_at: p.created_at + super::pairing::PAIRING_TTL,
                label: None,
                attention: Vec::new(),
            });
        }
        let r = self.request(id).await?;
        let label = if r.kind == RequestKind::Rule { Some(self.rule_input(id).await?.1) } else { None };
        let attention: Option<(String,)> = sqlx::query_as("SELECT items FROM request_attention WHERE request_id = ?")
            .bind(id)
            .fetch_optional(self.store().pool())
            .await?;
        let attention = match attention {
            Some((items,)) => serde_json::from_str(&items).map_err(super::pipeline::corrupt)?,
            None => Vec::new(),
        };
        Ok(Prompt {
            attention,
            agent_name: self.shown_agent_name(&r.agent_jkt).await?,
            fingerprint: fingerprint(&r.agent_jkt),
            status: r.status.as_str().to_owned(),
            consent_text: r.consent_text,
            created_at: r.created_at,
            expires_at: expires_epoch(&r.expires_at),
            kind: r.kind.as_str().to_owned(),
            id: r.request_id,
            label,
            churn: None,
        })
    }

    /// The callouts for a request about to be stored, in the consent language;
    /// computed before anything is stored, so a failure stores nothing.
    pub(super) fn attention_items(&self, req: &schcp_consent::ConsentRequest) -> Result<String, ServiceError> {
        let items: Vec<AttentionView> = schcp_consent::attention(req, &self.locale())
            .map_err(ServiceError::Consent)?
            .into_iter()
            .map(|a| AttentionView { kind: a.kind.as_str().to_owned(), detail: a.detail })
            .collect();
        Ok(serde_json::to_string(&items).expect("callouts serialize"))
    }

    pub(super) async fn record_attention(&self, request_id: &str, items: &str) -> Result<(), ServiceError> {
        sqlx::query("INSERT INTO request_attention (request_id, items) VALUES (?, ?) ON CONFLICT DO NOTHING")
            .bind(request_id)
            .bind(items)
            .execute(self.store().pool())
            .await?;
        Ok(())
    }

    /// A pending rule's stored input and its current label.
    async fn rule_input(&self, id: &str) -> Result<(Value, String), ServiceError> {
        let row: Option<(String,)> =
            sqlx::query_as("SELECT input FROM requests WHERE request_id = ? AND kind = 'rule'")
                .bind(id)
                .fetch_optional(self.store().pool())
                .await?;
        let (input,) = row.ok_or(ServiceError::NotFound("rule request"))?;
        let input: Value = serde_json::from_str(&input).map_err(super::pipeline::corrupt)?;
        let label = input["rule"]["label"].as_str().unwrap_or_default().to_owned();
        Ok((input, label))
    }

    /// §7.9: the label is the person's words for their own rule. The edited
    /// label replaces the agent's in the stored input the rule is signed from,
    /// and the consent text is rendered again from it, so what the person
    /// approves, what is signed and what history keeps all carry the new label.
    pub async fn relabel_rule(&self, id: &str, label: &str) -> Result<Prompt, ServiceError> {
        let label = label.trim();
        if label.is_empty() || label.chars().count() > MAX_LABEL || label.chars().any(char::is_control) {
            return Err(ServiceError::invalid(
                Reason::BadLabel,
                format!("a rule's label is 1 to {MAX_LABEL} characters of plain text"),
            ));
        }
        let current = self.request(id).await?;
        if current.kind != RequestKind::Rule {
            return Err(ServiceError::invalid(Reason::NotARule, "only a rule's label can be edited"));
        }
        if current.status != RequestStatus::Pending {
            return Err(ServiceError::NotPending(current.status));
        }
        let (mut input, _) = self.rule_input(id).await?;
        input["rule"]["label"] = Value::String(label.to_owned());
        schcp::schema::validate(schcp::schema::Def::Rule, &input["rule"])
            .map_err(|e| ServiceError::invalid(Reason::BadLabel, e.to_string()))?;
        let rule: schcp::claims::RuleClaims = serde_json::from_value(input["rule"].clone())
            .map_err(|e| ServiceError::invalid(Reason::BadLabel, e.to_string()))?;
        let agent = schcp_consent::AgentKey {
            name: self.paired_agent_name(&rule.cnf.jkt).await?,
            fingerprint: fingerprint(&rule.cnf.jkt),
        };
        let text =
            self.render(&schcp_consent::ConsentRequest::Rule(schcp_consent::RuleRequest { rule, agent })).await?;
        let done = sqlx::query(
            "UPDATE requests SET input = ?, consent_text = ? WHERE request_id = ? AND status = 'pending' AND kind = 'rule'",
        )
        .bind(input.to_string())
        .bind(&text)
        .bind(id)
        .execute(self.store().pool())
        .await?;
        if done.rows_affected() == 0 {
            return Err(self.moved_on(id).await);
        }
        self.notify();
        self.prompt(id).await
    }

    /// Paired agents, with their last request.
    pub async fn agents(&self) -> Result<Vec<AgentView>, ServiceError> {
        let rows: Vec<AgentRow> = sqlx::query_as(
            "SELECT a.jkt, a.name, a.fingerprint, coalesce(a.decided_at, a.created_at),
                    (SELECT max(r.created_at) FROM requests r WHERE r.agent_jkt = a.jkt),
                    (SELECT r.kind FROM requests r WHERE r.agent_jkt = a.jkt ORDER BY r.created_at DESC LIMIT 1)
             FROM agents a WHERE a.status = 'approved' ORDER BY a.created_at",
        )
        .fetch_all(self.store().pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|(jkt, name, fingerprint, paired_at, last_request_at, last_request_kind)| AgentView {
                jkt,
                name: schcp_consent::inert::inert(&name),
                fingerprint,
                paired_at,
                last_request_at,
                last_request_kind,
            })
            .collect())
    }

    /// Renames a contact; the consent texts already shown keep the name they showed.
    pub async fn rename_contact(&self, principal: &str, name: &str) -> Result<(), ServiceError> {
        if name.trim().is_empty() || name.chars().any(char::is_control) {
            return Err(ServiceError::invalid(Reason::BadName, "a contact's name is non-empty plain text"));
        }
        let now = self.now();
        let mut tx = self.store().pool().begin().await?;
        let done = sqlx::query("UPDATE contacts SET name = ? WHERE principal = ?")
            .bind(name)
            .bind(principal)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(ServiceError::NotFound("contact"));
        }
        Service::history(&mut tx, now, "contact_renamed", principal, name).await?;
        tx.commit().await?;
        self.notify();
        Ok(())
    }

    pub async fn remove_contact(&self, principal: &str) -> Result<(), ServiceError> {
        let now = self.now();
        let mut tx = self.store().pool().begin().await?;
        let done = sqlx::query("DELETE FROM contacts WHERE principal = ?").bind(principal).execute(&mut *tx).await?;
        if done.rows_affected() == 0 {
            return Err(ServiceError::NotFound("contact"));
        }
        Service::history(&mut tx, now, "contact_removed", principal, "").await?;
        tx.commit().await?;
        self.notify();
        Ok(())
    }

    pub async fn attestations(&self) -> Result<Vec<AttestationView>, ServiceError> {
        let rows: Vec<(String, i64, String)> = sqlx::query_as("SELECT iss, exp, compact FROM attestations ORDER BY id")
            .fetch_all(self.store().pool())
            .await?;
        Ok(rows.into_iter().map(|(iss, exp, compact)| AttestationView { iss, exp, compact }).collect())
    }

    pub fn settings(&self) -> Settings {
        Settings {
            principal: self.principal().to_owned(),
            jwk: self.principal_jwk(),
            status_public_base: self.config().status_api.public_base.clone(),
            status_reach: self.config().status_reach(),
            keystore: match self.config().keystore.backend {
                crate::config::KeystoreBackend::File => "file",
                // app::start settles `auto` to the backend that holds the key.
                _ => "os",
            },
            consent_language: self.language().tag().to_owned(),
        }
    }
}

/// The views carry RFC 3339; the window counts down in seconds.
fn expires_epoch(rfc3339: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(rfc3339).map(|d| d.timestamp()).unwrap_or_default()
}
