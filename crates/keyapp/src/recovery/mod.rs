//! Never lose who you are: the recovery kit (the principal key in 24 words),
//! the encrypted backup of the records, and the restore on a new computer.
//!
//! The kit is the key in another form, so it is handed out in one place only,
//! [`reveal`], after the OS confirmed the person for showing it (its own
//! prompt, `user_verification::Purpose::ShowRecoveryKit`). No agent API route, MCP tool or control-socket
//! command reaches it (tests/recovery.rs proves it): a terminal gets it from
//! `schcp-keyapp recovery-phrase`, which opens the keystore itself.

pub mod backup;
pub mod custody;
mod kit;
pub mod page;
pub mod restore;
pub mod schedule;

pub use kit::{KitKind, PhraseError, RecoveryKit, KIT_LEN, WORDS};

use crate::keystore::PrincipalKey;
use crate::user_verification::{Approval, Asker, Method, Purpose, Refusal, UserVerifier};

/// Hands out the principal's recovery kit once the OS confirmed the person
/// (`summary` is what its prompt names). A refusal hands out nothing.
pub async fn reveal(
    key: &PrincipalKey,
    verifier: &dyn UserVerifier,
    asker: Asker,
    summary: String,
) -> Result<(RecoveryKit, Method), Refusal> {
    let method = verifier.verify(&Approval { asker, summary, about: None, purpose: Purpose::ShowRecoveryKit }).await?;
    tracing::info!(method = method.as_str(), "the OS confirmed the person; the recovery kit is shown");
    Ok((key.kit().clone(), method))
}

/// Why a lost computer's switch from the phrase alone did not reach its
/// status service; nothing was revoked there.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PhraseSwitchError {
    /// The OS did not confirm the person.
    #[error("the OS did not confirm the person: {0}")]
    NotVerified(Refusal),
    /// The update could not be signed, or the client made.
    #[error("the update could not be made: {0}")]
    Build(String),
    /// The status service did not take it.
    #[error(transparent)]
    NotReached(#[from] crate::hosted::PublishError),
}

/// A lost computer's switch from the recovery kit alone, with no records:
/// once the OS confirmed the person, one update signed by the key the kit
/// derives revokes, at the hosted status service at `base`, every credential
/// registered under it up to `now` (docs/hosted-status.md "Revoking
/// everything"). Returns the credentials it revoked. The key lives in this
/// call only; nothing is written on this computer.
pub async fn revoke_all_with_kit(
    kit: &RecoveryKit,
    base: &str,
    verifier: &dyn UserVerifier,
    asker: Asker,
    summary: String,
    now: i64,
) -> Result<Vec<String>, PhraseSwitchError> {
    verifier
        .verify(&Approval { asker, summary, about: None, purpose: Purpose::Approve })
        .await
        .map_err(PhraseSwitchError::NotVerified)?;
    let key = ed25519_dalek::SigningKey::from_bytes(&kit.ed25519_seed());
    let thumb = schcp::jws::Signer::public_key(&key)
        .to_jwk()
        .thumbprint()
        .map_err(|e| PhraseSwitchError::Build(e.to_string()))?;
    let mut id = [0u8; 16];
    rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut id);
    let update_jti = format!("u-{}", schcp::b64::encode(id));
    let jws =
        schcp::status_update::sign(&key, now, &update_jti, &schcp::status_update::Operation::RevokeAll { before: now })
            .map_err(|e| PhraseSwitchError::Build(e.to_string()))?;
    let client = crate::hosted::HostedClient::new().map_err(|e| PhraseSwitchError::Build(e.to_string()))?;
    let revoked = client.post_revoke_all(base, &thumb, &jws).await?;
    tracing::warn!(base, revoked = revoked.len(), "revoked everything registered under this key, from the kit alone");
    Ok(revoked)
}

/// Two distinct word positions (0-based, ascending) the person is asked to
/// type back after writing the phrase down, so a kit never read is caught.
pub fn confirmation_positions(rng: &mut impl rand_core::RngCore) -> [usize; 2] {
    let first = (rng.next_u32() as usize) % WORDS;
    // Another position: an offset of 1..WORDS from the first, wrapping.
    let second = (first + 1 + (rng.next_u32() as usize) % (WORDS - 1)) % WORDS;
    [first.min(second), first.max(second)]
}

/// Whether the words typed at `positions` are the kit's (case and spaces
/// around them do not matter). Positions outside the phrase are never right.
pub fn confirm_words(kit: &RecoveryKit, answers: &[(usize, &str)]) -> bool {
    let words = kit.words();
    !answers.is_empty()
        && answers
            .iter()
            .all(|(position, typed)| words.get(*position).is_some_and(|w| w.eq_ignore_ascii_case(typed.trim())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::user_verification::{Surface, VerdictFuture};

    struct Says(Result<Method, Refusal>);
    impl UserVerifier for Says {
        fn verify<'a>(&'a self, _: &'a Approval) -> VerdictFuture<'a> {
            let verdict = self.0.clone();
            Box::pin(async move { verdict })
        }
    }

    #[tokio::test]
    async fn the_kit_is_revealed_only_after_the_os_said_yes() {
        let dir = tempfile::tempdir().unwrap();
        let key = crate::keystore::open(
            crate::config::KeystoreBackend::File,
            dir.path(),
            crate::keystore::PassphraseSource::Fixed("pw".into()),
        )
        .await
        .unwrap();
        let asker = Asker::this_process(Surface::Terminal).unwrap();
        for refusal in [Refusal::NotAuthorized, Refusal::Cancelled, Refusal::TimedOut] {
            let got = reveal(&key, &Says(Err(refusal.clone())), asker.clone(), "Show".into()).await;
            assert_eq!(got.unwrap_err(), refusal);
        }
        let (kit, method) = reveal(&key, &Says(Ok(Method::Polkit)), asker, "Show".into()).await.unwrap();
        assert_eq!(method, Method::Polkit);
        // A new key is made from a phrase, and the phrase makes that key.
        assert_eq!(kit.kind(), KitKind::Phrase);
        assert_eq!(kit.principal_id(), key.principal_id());
    }

    #[test]
    fn two_distinct_positions_and_only_the_right_words_confirm() {
        let kit = RecoveryKit::generate(&mut rand_core::OsRng);
        let words = kit.words();
        for _ in 0..200 {
            let [a, b] = confirmation_positions(&mut rand_core::OsRng);
            assert!(a < b && b < WORDS, "{a} {b}");
        }
        assert!(confirm_words(&kit, &[(0, &words[0]), (23, &format!(" {} ", words[23].to_uppercase()))]));
        let wrong = if words[0] == "zoo" { "abandon" } else { "zoo" };
        assert!(!confirm_words(&kit, &[(0, wrong), (23, &words[23])]));
        assert!(!confirm_words(&kit, &[(24, "abandon")]));
        assert!(!confirm_words(&kit, &[]));
    }
}
