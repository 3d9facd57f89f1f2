//! The key app proving itself to a local agent (docs/agent-api.md §7,
//! `GET /v1/principal?nonce=…`): the principal key signs the fixed
//! `schcp-keyapp-proof+jwt` claims `schcp::keyapp_proof` builds, never
//! anything an agent wrote but its checked nonce.

use super::Service;
use schcp::keyapp_proof::{self, ProofError};

impl Service {
    /// The proof for the agent key `agent_jkt` (verified from its request
    /// signature) and its `nonce`, signed now.
    pub fn keyapp_proof(&self, agent_jkt: &str, nonce: &str) -> Result<String, ProofError> {
        keyapp_proof::sign(self.inner.key.as_ref(), agent_jkt, nonce, self.now())
    }
}
