//! What waits for the person's answer, and how the consent window shows it:
//! the pending pairings and requests, one prompt with everything the window
//! shows, its look-twice callouts, and a rule's label edited by the person
//! before signing (§7.9). The window and the terminal call the same functions.

use super::kind::{store_input, stored_input, Kind};
use super::rule::Rule;
use super::{corrupt_as, fingerprint, Missing, RequestKind, RequestStatus, Requests, Service, ServiceError};
use crate::store::{self, Stored};
use crate::views::{AttentionView, OfferTermsView, PendingChange, PendingItem, Prompt, PromptStatus};
use schcp::claims::RuleClaims;
use schcp::refusal::Reason;
use serde::{Deserialize, Serialize};

/// Longest rule label the person may type (the agent's is held to the schema).
pub const MAX_LABEL: usize = 200;

impl Service {
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

    /// The price lines and host's address of the offer a request about to be
    /// stored is about (JSON), in the consent language; `None` for a request
    /// with no single offer.
    pub(super) fn terms_json(&self, req: &schcp_consent::ConsentRequest) -> Result<Option<String>, ServiceError> {
        let terms = schcp_consent::offer_terms(req, &self.locale()).map_err(ServiceError::Consent)?;
        Ok(terms.map(|t| serde_json::to_string(&OfferTermsView::from(t)).expect("terms serialize")))
    }

    /// A rule request's sealed input, read as the rule kind's own `Input`,
    /// and its current label.
    fn rule_input(row: &store::requests::SealedRow) -> Result<(RuleDraft, String), ServiceError> {
        if row.kind != RequestKind::Rule.as_str() {
            return Err(ServiceError::NotFound(Missing::RuleRequest));
        }
        let draft = RuleDraft::read(&row.input)?;
        let label = draft.rule.label.clone();
        Ok((draft, label))
    }
}

impl Requests<'_> {
    /// Pending pairings then pending requests, oldest first.
    pub async fn pending_items(self) -> Result<Vec<PendingItem>, ServiceError> {
        let mut out = Vec::new();
        for p in self.svc.pairings().pending_pairings().await? {
            let churn = self.svc.pairings().churn_notice(&p).await?;
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
                    &self.svc.locale(),
                )
                .map_err(ServiceError::Consent)?,
                agent_name: schcp_consent::inert::inert_in_quotes(&p.agent_name),
                fingerprint: p.fingerprint,
                created_at: p.created_at,
                created: self.svc.instant_words(p.created_at),
                expires_at,
                expires: self.svc.instant_words(expires_at),
            });
        }
        self.svc.expire_requests(self.svc.now()).await?;
        for rowid in store::requests::pending_rowids(self.svc.store()).await? {
            // Only rows the key app sealed are listed (record_seal), each from
            // its own sealed read. One written or changed outside it, or whose
            // values cannot even be read, is neither announced nor put in the
            // window, nor keeps the window from the next one; it is withdrawn,
            // so it no longer counts against its agent's pending requests or
            // waits for an answer no one can give.
            let r = match store::requests::pending_sealed_at(self.svc.store(), rowid).await {
                Ok(Some(r)) if self.svc.request_sealed(&r) => Some(r),
                Ok(None) => continue,
                Ok(Some(_)) => None,
                Err(e) if e.is_unreadable_value() => None,
                Err(e) => return Err(e.into()),
            };
            let Some(r) = r else {
                tracing::warn!(rowid, "a pending request's record does not hold its seal: withdrawn, never shown");
                if store::requests::withdraw_unsealed(self.svc.store(), rowid, self.svc.now()).await? {
                    self.svc.notify();
                }
                continue;
            };
            let kind: RequestKind = r.kind.parse().map_err(super::corrupt)?;
            out.push(PendingItem {
                agent_name: self.svc.directory().shown_agent_name(&r.agent_jkt).await?,
                fingerprint: fingerprint(&r.agent_jkt),
                kind: kind.as_str().to_owned(),
                summary: r.summary,
                created_at: r.created_at,
                created: self.svc.instant_words(r.created_at),
                expires_at: r.expires_at,
                expires: self.svc.instant_words(r.expires_at),
                churn: None,
                id: r.request_id,
            });
        }
        Ok(out)
    }

    /// Waits until the records change past `seen` (none: answers at once), or
    /// `timeout` passes, then answers with the counter, the pending list and
    /// the oldest one's prompt: the window learns of a new request and has
    /// its text in one answer, with no further look. The counter is read
    /// before the list, so a change made while the list is read wakes the next
    /// wait at once. A request that stops waiting between the two reads is
    /// shown with its status then, as `prompt` shows it.
    pub async fn wait_pending(
        self,
        seen: Option<u64>,
        timeout: std::time::Duration,
    ) -> Result<PendingChange, ServiceError> {
        let seen = self.svc.changes().wait_past(seen.unwrap_or(u64::MAX), timeout).await;
        let pending = self.pending_items().await?;
        let oldest = match pending.first() {
            Some(first) => Some(self.prompt(&first.id).await?),
            None => None,
        };
        Ok(PendingChange { seen, pending, oldest })
    }

    /// The consent window's content for `id` (`pr_…` or `rq_…`), whatever its status.
    pub async fn prompt(self, id: &str) -> Result<Prompt, ServiceError> {
        if id.starts_with("pr_") {
            let p = self.svc.pairings().pairing(id).await?;
            let consent_text = self.consent_text(id).await?;
            let churn = self.svc.pairings().churn_notice(&p).await?;
            return Ok(Prompt {
                churn,
                id: p.pairing_id,
                kind: "pairing".into(),
                status: PromptStatus::from(p.status).as_str().to_owned(),
                agent_name: crate::ui_words::assistant_name(self.svc.language(), &p.agent_name),
                fingerprint: p.fingerprint,
                consent_text,
                created_at: p.created_at,
                expires_at: p.created_at + super::pairing::PAIRING_TTL,
                label: None,
                attention: Vec::new(),
                terms: None,
            });
        }
        // What the window shows comes from the sealed row alone (record_seal),
        // in one read: the text, callouts and terms the key app rendered, and
        // the agent, kind and times it stored them with.
        self.svc.expire_requests(self.svc.now()).await?;
        let sealed = self.svc.sealed_request(id).await?;
        let kind: RequestKind = sealed.kind.parse().map_err(super::corrupt)?;
        let status = RequestStatus::parse(&sealed.status)?;
        // The agent's label goes into the window's edit box, beside the consent
        // text's quoted copy: shown inert there too.
        let label = if kind == RequestKind::Rule {
            Some(schcp_consent::inert::inert(&Service::rule_input(&sealed)?.1))
        } else {
            None
        };
        let attention = match &sealed.attention {
            Some(items) => serde_json::from_str(items).map_err(|e| corrupt_as(Stored::Attention, e))?,
            None => Vec::new(),
        };
        let terms = match &sealed.terms {
            Some(terms) => Some(serde_json::from_str(terms).map_err(|e| corrupt_as(Stored::Request, e))?),
            None => None,
        };
        Ok(Prompt {
            terms,
            attention,
            agent_name: crate::ui_words::assistant_name(
                self.svc.language(),
                &self.svc.directory().agent_name(&sealed.agent_jkt).await?,
            ),
            fingerprint: fingerprint(&sealed.agent_jkt),
            status: PromptStatus::from(status).as_str().to_owned(),
            consent_text: sealed.consent_text,
            created_at: sealed.created_at,
            expires_at: sealed.expires_at,
            kind: kind.as_str().to_owned(),
            id: sealed.request_id,
            label,
            churn: None,
        })
    }

    /// §7.9: the label is the person's words for their own rule. The edited
    /// label replaces the agent's in the stored input the rule is signed from,
    /// and the consent text is rendered again from it, so what the person
    /// approves, what is signed and what history keeps all carry the new label.
    pub async fn relabel_rule(self, id: &str, label: &str) -> Result<Prompt, ServiceError> {
        let label = label.trim();
        // Hidden characters (controls, bidi overrides, zero-width) as at pairing:
        // the label is the person's own words, shown in the edit box as typed.
        if label.is_empty() || label.chars().count() > MAX_LABEL || schcp_consent::inert::first_hidden(label).is_some()
        {
            return Err(ServiceError::invalid(
                Reason::BadLabel,
                format!("a rule's label is 1 to {MAX_LABEL} characters of plain text"),
            ));
        }
        // One read: its kind, its status, then its seal (record_seal).
        self.svc.expire_requests(self.svc.now()).await?;
        let row = self.svc.request_row(id).await?;
        let kind: RequestKind = row.kind.parse().map_err(super::corrupt)?;
        if kind != RequestKind::Rule {
            return Err(ServiceError::invalid(Reason::NotARule, "only a rule's label can be edited"));
        }
        let status = RequestStatus::parse(&row.status)?;
        if status != RequestStatus::Pending {
            return Err(ServiceError::NotPending(status));
        }
        let sealed = self.svc.refuse_unsealed(row)?;
        let (mut draft, _) = Service::rule_input(&sealed)?;
        draft.rule.label = label.to_owned();
        // The edited rule is still one the schema accepts (§7.9), as the
        // agent's was when the request was made.
        let as_signed = serde_json::to_value(&draft.rule).map_err(super::corrupt)?;
        schcp::schema::validate(schcp::schema::Def::Rule, &as_signed)
            .map_err(|e| ServiceError::invalid(Reason::BadLabel, e.to_string()))?;
        let input = draft.write()?;
        let rule = draft.rule;
        let agent = schcp_consent::AgentKey {
            name: self.svc.paired_agent_name(&rule.cnf.jkt).await?,
            fingerprint: fingerprint(&rule.cnf.jkt),
        };
        let text =
            self.svc.render(&schcp_consent::ConsentRequest::Rule(schcp_consent::RuleRequest { rule, agent })).await?;
        let seal = self.svc.seal_request(&crate::record_seal::RequestFields {
            input: &input,
            consent_text: &text,
            ..sealed.fields()
        });
        let was = sealed.seal.as_deref().unwrap_or_default();
        if !store::requests::reword_pending_rule(self.svc.store(), id, &input, &text, was, &seal).await? {
            return Err(self.svc.moved_on(id).await);
        }
        self.svc.supersede(was);
        self.svc.notify();
        self.prompt(id).await
    }
}

/// A pending rule's stored input, as the person may edit it: read and
/// written only through the rule kind's own `Input` (`<Rule as Kind>::Input`),
/// so an input that kind would not read is refused here too, and what is
/// written back is one it reads. Its one member is the rule's claims, whose
/// label the person edits (the kind keeps its field private to itself).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleDraft {
    rule: RuleClaims,
}

impl RuleDraft {
    /// The stored input, checked as the rule kind's `Input` first.
    fn read(stored: &str) -> Result<RuleDraft, ServiceError> {
        stored_input::<<Rule as Kind>::Input>(stored)?;
        stored_input(stored)
    }

    /// The input to store, checked as the rule kind's `Input` before it is.
    fn write(&self) -> Result<String, ServiceError> {
        let stored = store_input(self)?;
        let typed: <Rule as Kind>::Input = stored_input(&stored)?;
        store_input(&typed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored_rule(label: &str) -> String {
        let key = ed25519_dalek::SigningKey::from_bytes(&[4; 32]);
        let jwk = schcp::jwk::Jwk::ed25519(&key.verifying_key());
        let agent = schcp::jwk::Jwk::ed25519(&ed25519_dalek::SigningKey::from_bytes(&[5; 32]).verifying_key());
        serde_json::json!({"rule": {
            "iss": jwk.principal_id().unwrap(), "principal_jwk": jwk, "iat": 1_796_000_000,
            "exp": 1_796_086_400, "jti": "r-1", "cnf": {"jkt": agent.thumbprint().unwrap()},
            "label": label, "weekdays": ["sat"], "tz": "America/Toronto",
        }})
        .to_string()
    }

    #[test]
    fn a_rule_draft_is_the_rule_kinds_input_and_its_label_is_typed() {
        let stored = stored_rule("Playdates");
        let mut draft = RuleDraft::read(&stored).unwrap();
        assert_eq!(draft.rule.label, "Playdates");
        draft.rule.label = "Saturday playdates".into();
        let written = draft.write().unwrap();
        // What is written back is what the rule kind reads, with the new label.
        let typed: <Rule as Kind>::Input = stored_input(&written).unwrap();
        assert_eq!(store_input(&typed).unwrap(), written);
        assert_eq!(RuleDraft::read(&written).unwrap().rule.label, "Saturday playdates");
        assert_eq!(RuleDraft::read(&written).unwrap().rule.jti, "r-1", "nothing else changed");
    }

    #[test]
    fn an_input_the_rule_kind_would_not_read_is_corrupt() {
        let extra = stored_rule("Playdates").replacen("{\"rule\"", "{\"more\": 1, \"rule\"", 1);
        for bad in ["", "{}", "{\"rule\": {\"label\": \"x\"}}", extra.as_str()] {
            assert!(
                matches!(
                    RuleDraft::read(bad),
                    Err(ServiceError::Store(crate::store::StoreError::Corrupt(crate::store::Corruption {
                        what: Stored::Request,
                        ..
                    })))
                ),
                "{bad}"
            );
        }
    }
}
