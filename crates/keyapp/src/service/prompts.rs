//! What waits for the person's answer, and how the consent window shows it:
//! the pending pairings and requests, one prompt with everything the window
//! shows, its look-twice callouts, and a rule's label edited by the person
//! before signing (§7.9). The window and the terminal call the same functions.

use super::{fingerprint, RequestKind, RequestStatus, Service, ServiceError};
use crate::store;
use crate::views::{AttentionView, PendingItem, Prompt, PromptStatus};
use schcp::refusal::Reason;
use serde_json::Value;

/// Longest rule label the person may type (the agent's is held to the schema).
pub const MAX_LABEL: usize = 200;

impl Service {
    /// Pending pairings then pending requests, oldest first.
    pub async fn pending_items(&self) -> Result<Vec<PendingItem>, ServiceError> {
        let mut out = Vec::new();
        for p in self.pending_pairings().await? {
            let churn = self.churn_notice(&p).await?;
            let expires_at = p.created_at + super::pairing::PAIRING_TTL;
            out.push(PendingItem {
                churn,
                id: p.pairing_id,
                kind: "pairing".into(),
                summary: schcp_consent::summary(
                    &schcp_consent::ConsentRequest::Pairing {
                        agent_name: p.agent_name.clone(),
                        fingerprint: p.fingerprint.clone(),
                    },
                    &self.locale(),
                )
                .map_err(ServiceError::Consent)?,
                agent_name: schcp_consent::inert::inert(&p.agent_name),
                fingerprint: p.fingerprint,
                created_at: p.created_at,
                created: self.instant_words(p.created_at),
                expires_at,
                expires: self.instant_words(expires_at),
            });
        }
        for r in self.pending_requests().await? {
            out.push(PendingItem {
                agent_name: self.shown_agent_name(&r.agent_jkt).await?,
                fingerprint: fingerprint(&r.agent_jkt),
                kind: r.kind.as_str().to_owned(),
                summary: r.summary,
                created_at: r.created_at,
                created: self.instant_words(r.created_at),
                expires_at: r.expires_at_unix,
                expires: self.instant_words(r.expires_at_unix),
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
                status: PromptStatus::from(p.status).as_str().to_owned(),
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
        let attention = match store::attention::items(self.store(), id).await? {
            Some(items) => serde_json::from_str(&items).map_err(super::corrupt)?,
            None => Vec::new(),
        };
        Ok(Prompt {
            attention,
            agent_name: self.shown_agent_name(&r.agent_jkt).await?,
            fingerprint: fingerprint(&r.agent_jkt),
            status: PromptStatus::from(r.status).as_str().to_owned(),
            consent_text: r.consent_text,
            created_at: r.created_at,
            expires_at: r.expires_at_unix,
            kind: r.kind.as_str().to_owned(),
            id: r.request_id,
            label,
            churn: None,
        })
    }

    /// The callouts for a request about to be stored, in the consent language;
    /// computed before anything is stored, so a failure stores nothing.
    pub(super) fn attention_items(&self, req: &schcp_consent::ConsentRequest) -> Result<String, ServiceError> {
        let items: Vec<AttentionView> = schcp_consent::attention(req, &self.locale(), self.now())
            .map_err(ServiceError::Consent)?
            .into_iter()
            .map(|a| AttentionView { kind: a.kind.as_str().to_owned(), grade: a.grade().into(), detail: a.detail })
            .collect();
        Ok(serde_json::to_string(&items).expect("callouts serialize"))
    }

    /// A rule request's stored input and its current label.
    async fn rule_input(&self, id: &str) -> Result<(Value, String), ServiceError> {
        let input = store::requests::rule_input(self.store(), id).await?;
        let input = input.ok_or(ServiceError::NotFound("rule request"))?;
        let input: Value = serde_json::from_str(&input).map_err(super::corrupt)?;
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
        if !store::requests::reword_pending_rule(self.store(), id, &input.to_string(), &text).await? {
            return Err(self.moved_on(id).await);
        }
        self.notify();
        self.prompt(id).await
    }
}
