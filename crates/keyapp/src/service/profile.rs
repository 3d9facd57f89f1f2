//! Who the key app is and how it speaks to the person: its principal (the
//! id, the public JWK, the hosted status namespace), the configuration in
//! force, the consent language, the Settings the surfaces show, and the
//! proof of itself it gives a local agent (docs/agent-api.md §7,
//! `GET /v1/principal?nonce=…`): the principal key signs the fixed
//! `schcp-keyapp-proof+jwt` claims `schcp::keyapp_proof` builds, never
//! anything an agent wrote but its checked nonce.

use super::{Service, ServiceError};
use crate::config::Config;
use crate::views::{KeystoreKind, Settings};
use schcp::keyapp_proof::{self, ProofError};
use schcp_consent::Language;
use std::sync::Arc;

/// The key app's own identity and settings: `Service::profile`.
#[derive(Clone, Copy)]
pub struct Profile<'a> {
    pub(super) svc: &'a Service,
}

impl<'a> Profile<'a> {
    /// The principal id (`urn:schcp:principal:jwk-thumbprint:…`, self-certifying,
    /// SchCP §3.3) every credential is issued under.
    pub fn principal(self) -> &'a str {
        self.svc.principal()
    }

    /// The principal's RFC 7638 thumbprint: the hosted status service's namespace
    /// for this key app's credentials (docs/hosted-status.md).
    pub fn principal_thumbprint(self) -> String {
        let principal = self.svc.principal();
        principal.strip_prefix(schcp::jwk::PRINCIPAL_PREFIX).unwrap_or(principal).to_owned()
    }

    pub fn principal_jwk(self) -> schcp::jwk::Jwk {
        self.svc.inner.key.public_key().to_jwk()
    }

    /// The configuration in force now: a snapshot, since the status address
    /// can change while the service runs (`status_setup`).
    pub fn config(self) -> Arc<Config> {
        self.svc.config()
    }

    /// The consent language the person reads.
    pub fn language(self) -> Language {
        self.svc.language()
    }

    /// Switches the consent language at run time (the desktop's Settings):
    /// pairings and requests shown from now on are rendered in it. A request
    /// already pending keeps the text it was created with: the agent holds that
    /// text, its first line is what a credential's `consent.statement` says, and
    /// the typed request it came from is not kept (docs/decisions.md "A language
    /// switch and a pending request").
    pub fn set_language(self, language: Language) -> Result<(), ServiceError> {
        let locale = schcp_consent::Locale::new(language).map_err(ServiceError::Consent)?;
        *self.svc.inner.locale.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(locale);
        Ok(())
    }

    pub fn settings(self) -> Settings {
        let keystore = match self.svc.config().keystore.backend {
            crate::config::KeystoreBackend::File => KeystoreKind::File,
            // app::start settles `auto` to the backend that holds the key.
            _ => KeystoreKind::Os,
        };
        Settings {
            principal: self.svc.principal().to_owned(),
            jwk: self.principal_jwk(),
            status_public_base: self.svc.config().status_api.public_base.clone(),
            hosts_can_check: (&self.svc.config().status_reach()).into(),
            keystore: keystore.as_str(),
            consent_language: self.svc.language().tag().to_owned(),
        }
    }

    /// The proof for the agent key `agent_jkt` (verified from its request
    /// signature) and its `nonce`, signed now.
    pub fn keyapp_proof(self, agent_jkt: &str, nonce: &str) -> Result<String, ProofError> {
        keyapp_proof::sign(self.svc.inner.key.as_ref(), agent_jkt, nonce, self.svc.now())
    }
}
