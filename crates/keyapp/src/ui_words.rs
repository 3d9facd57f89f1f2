//! The few words of the person's surfaces the service itself supplies, in the
//! person's language: a credential's "revocation not yet published" (hosted mode),
//! from the window's own catalogue `locales/{en,fr}/ui.ftl`, which the terminal
//! and the desktop show alike; and why something the person did in a window
//! was refused (`refusal`), from `locales/{en,fr}/refusals.ftl`; and the
//! `schcp-keyapp` program's errors with their remedies, from
//! `locales/{en,fr}/cli.ftl`; and why the key app did not start
//! (`start_words`), from `locales/{en,fr}/start.ftl`.

use crate::service::{Missing, PairingStatus, RequestStatus, ServiceError};
use crate::store::{StoreError, Stored};
use crate::user_verification::{Refusal, Surface};
use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource};
use schcp::refusal::Reason;
use schcp_consent::Language;
use std::sync::OnceLock;

pub(crate) const EN: [&str; 4] = [
    include_str!("../../../locales/en/ui.ftl"),
    include_str!("../../../locales/en/refusals.ftl"),
    include_str!("../../../locales/en/cli.ftl"),
    include_str!("../../../locales/en/start.ftl"),
];
pub(crate) const FR: [&str; 4] = [
    include_str!("../../../locales/fr/ui.ftl"),
    include_str!("../../../locales/fr/refusals.ftl"),
    include_str!("../../../locales/fr/cli.ftl"),
    include_str!("../../../locales/fr/start.ftl"),
];

fn bundle(language: Language) -> &'static FluentBundle<FluentResource> {
    static EN_BUNDLE: OnceLock<FluentBundle<FluentResource>> = OnceLock::new();
    static FR_BUNDLE: OnceLock<FluentBundle<FluentResource>> = OnceLock::new();
    let (cell, sources) = match language {
        Language::French => (&FR_BUNDLE, FR),
        _ => (&EN_BUNDLE, EN),
    };
    cell.get_or_init(|| {
        let langid: unic_langid::LanguageIdentifier = language.tag().parse().expect("en and fr are language tags");
        let mut bundle = FluentBundle::new_concurrent(vec![langid]);
        bundle.set_use_isolating(false);
        for source in sources {
            let resource = FluentResource::try_new(source.to_owned())
                .unwrap_or_else(|(_, e)| panic!("locales/{}/*.ftl does not parse: {e:?}", language.tag()));
            bundle.add_resource(resource).expect("the catalogue's files share no message id");
        }
        bundle
    })
}

fn format(language: Language, id: &str, args: Option<&FluentArgs<'_>>) -> Option<String> {
    let bundle = bundle(language);
    let pattern = bundle.get_message(id)?.value()?;
    let mut errors = Vec::new();
    Some(bundle.format_pattern(pattern, args, &mut errors).into_owned())
}

/// Message `id` (no arguments) in `language`; the id itself if the catalogue
/// lacks it, which the tests below rule out for every id the service uses.
pub fn text(language: Language, id: &str) -> String {
    format(language, id, None).unwrap_or_else(|| id.to_owned())
}

/// Message `id` with `args` in `language` (the tray's and the notifications'
/// words); the id itself if the catalogue lacks it.
pub fn text_with(language: Language, id: &str, args: &FluentArgs<'_>) -> String {
    format(language, id, Some(args)).unwrap_or_else(|| id.to_owned())
}

/// An assistant's name as the person's surfaces show it beside their own words
/// (History, My bookings, the consent window's "From"): in the language's
/// quotation marks, inert, any quotation mark inside neutralised, so a name
/// such as `No assistant` or `Calendar” is done. Your dentist “Harbourview`
/// reads as a name, never as the key app's sentence.
pub fn assistant_name(language: Language, name: &str) -> String {
    quoted(language, name)
}

/// Any name a person reads beside the key app's own words (an assistant's,
/// a host's, a contact's, an attester's): in the language's quotation marks,
/// inert, any quotation mark inside neutralised.
pub fn quoted(language: Language, name: &str) -> String {
    let mut args = FluentArgs::new();
    args.set("name", schcp_consent::inert::inert_in_quotes(name));
    text_with(language, "assistant-quoted", &args)
}

/// An assistant as a sentence of the records names it: by its name, as
/// [`assistant_name`] shows it, or "an assistant" when the records kept none.
pub fn assistant_or_any(language: Language, name: Option<&str>) -> String {
    match name {
        Some(name) => assistant_name(language, name),
        None => text(language, "history-an-assistant"),
    }
}

/// How a refusal is worded for the person, decided by its reason alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    /// The catalogue's own sentence for the reason (`refusal-<reason>`).
    Own(&'static str),
    /// A protocol object (a contract, a booking, a host's document) that does
    /// not verify: the catalogue's sentence for the reason (`refusal-<reason>`),
    /// or, should a catalogue lack it, the plain `refusal-verification`, which
    /// names no code.
    Verification(&'static str),
    /// No words of its own: one plain sentence in every language
    /// (`refusal-other`), naming no code and quoting no developer's message.
    Other,
}

/// The words for each reason: one place, matched exhaustively, so a new
/// reason cannot reach a person before it is given words here (hence one
/// long function: an arm per reason, and no other logic).
pub fn words(reason: Reason) -> Words {
    use Reason as R;
    match reason {
        R::NotPending => Words::Own("refusal-not_pending"),
        R::NotFound => Words::Own("refusal-not_found"),
        R::Busy => Words::Own("refusal-busy"),
        R::BadLabel => Words::Own("refusal-bad_label"),
        R::NotARule => Words::Own("refusal-not_a_rule"),
        R::BadName => Words::Own("refusal-bad_name"),
        R::BadPrincipal => Words::Own("refusal-bad_principal"),
        R::NotRevocable => Words::Own("refusal-not_revocable"),
        R::WrongSubject => Words::Own("refusal-wrong_subject"),
        R::NotAnAttestation => Words::Own("refusal-not_an_attestation"),
        R::AttestationTooLarge => Words::Own("refusal-attestation_too_large"),
        R::UnknownAttester => Words::Own("refusal-unknown_attester"),
        R::AttestationForged => Words::Own("refusal-attestation_forged"),
        R::AttestationNotYetValid => Words::Own("refusal-attestation_not_yet_valid"),
        R::AttestationExpired => Words::Own("refusal-attestation_expired"),
        R::AttestationHeld => Words::Own("refusal-attestation_held"),
        R::NotAsking => Words::Own("refusal-not_asking"),
        R::UnknownLanguage => Words::Own("refusal-unknown_language"),
        R::UserNotVerified => Words::Own("refusal-user_not_verified"),
        R::VerificationCancelled => Words::Own("refusal-verification_cancelled"),
        R::VerificationTimedOut => Words::Own("refusal-verification_timed_out"),
        R::VerificationUnavailable => Words::Own("refusal-verification_unavailable"),
        R::VerificationUnderway => Words::Own("refusal-verification_underway"),
        R::TextTooLong => Words::Own("refusal-text_too_long"),
        R::StatusUnreachable => Words::Own("refusal-status_unreachable"),
        R::Malformed => Words::Verification("refusal-malformed"),
        R::DuplicateMember => Words::Verification("refusal-duplicate_member"),
        R::BadKey => Words::Verification("refusal-bad_key"),
        R::UnknownKid => Words::Verification("refusal-unknown_kid"),
        R::WrongTyp => Words::Verification("refusal-wrong_typ"),
        R::AlgMismatch => Words::Verification("refusal-alg_mismatch"),
        R::BadSignature => Words::Verification("refusal-bad_signature"),
        R::SchemaInvalid => Words::Verification("refusal-schema_invalid"),
        R::MoneyInvalid => Words::Verification("refusal-money_invalid"),
        R::DurationInvalid => Words::Verification("refusal-duration_invalid"),
        R::DateTimeInvalid => Words::Verification("refusal-date_time_invalid"),
        R::Expired => Words::Verification("refusal-expired"),
        R::IssuedInFuture => Words::Verification("refusal-issued_in_future"),
        R::WrongIssuer => Words::Verification("refusal-wrong_issuer"),
        R::UnknownTimeZone => Words::Verification("refusal-unknown_time_zone"),
        R::LinesDoNotSum => Words::Verification("refusal-lines_do_not_sum"),
        R::MixedCurrencies => Words::Verification("refusal-mixed_currencies"),
        R::BadSlot => Words::Verification("refusal-bad_slot"),
        R::ReceiptMismatch => Words::Verification("refusal-receipt_mismatch"),
        R::MandateInvalid => Words::Verification("refusal-mandate_invalid"),
        R::MandateExpired => Words::Verification("refusal-mandate_expired"),
        R::OutOfScope => Words::Verification("refusal-out_of_scope"),
        R::ConstraintNotMet => Words::Verification("refusal-constraint_not_met"),
        R::MeetingInvalid => Words::Verification("refusal-meeting_invalid"),
        R::AcceptanceInvalid => Words::Verification("refusal-acceptance_invalid"),
        R::PersonRequired => Words::Verification("refusal-person_required"),
        R::RuleInvalid => Words::Verification("refusal-rule_invalid"),
        R::HostIdConflict => Words::Verification("refusal-host_id_conflict"),
        R::DiscoveryUrlRefused => Words::Verification("refusal-discovery_url_refused"),
        R::DiscoveryFailed => Words::Verification("refusal-discovery_failed"),
        R::DiscoveryInvalid => Words::Verification("refusal-discovery_invalid"),
        R::TextNotInert => Words::Verification("refusal-text_not_inert"),
        R::AlreadyStarted => Words::Verification("refusal-already_started"),
        R::ContractMismatch => Words::Verification("refusal-contract_mismatch"),
        R::OwnContract => Words::Verification("refusal-own_contract"),
        R::NotAMember => Words::Verification("refusal-not_a_member"),
        R::BookingNotConfirmed => Words::Verification("refusal-booking_not_confirmed"),
        R::StaleReceipt => Words::Verification("refusal-stale_receipt"),
        R::ParticipantNotBooker => Words::Verification("refusal-participant_not_booker"),
        R::NotTentative => Words::Verification("refusal-not_tentative"),
        R::NotAParticipant => Words::Verification("refusal-not_a_participant"),
        R::DuplicateParticipant => Words::Verification("refusal-duplicate_participant"),
        R::NotInvited => Words::Verification("refusal-not_invited"),
        R::AlreadyAnswered => Words::Verification("refusal-already_answered"),
        R::NoDeadline => Words::Verification("refusal-no_deadline"),
        R::DeadlinePassed => Words::Verification("refusal-deadline_passed"),
        R::NoContract => Words::Verification("refusal-no_contract"),
        R::BookingMismatch => Words::Verification("refusal-booking_mismatch"),
        R::NotMyCalendar => Words::Verification("refusal-not_my_calendar"),
        R::BodyTooLarge
        | R::MalformedUpdate
        | R::BadPrincipalJwk
        | R::NamespaceMismatch
        | R::UpdateSignatureInvalid
        | R::UpdateIatOutOfWindow
        | R::ExpTooFar
        | R::InternalError
        | R::TooManyRequests
        | R::BadHost
        | R::MethodNotAllowed
        | R::BadContentType
        | R::UnsupportedMediaType
        | R::BodyTimeout
        | R::UnreadableBody
        | R::MalformedJson
        | R::UnknownMember
        | R::MissingMember
        | R::BadPath
        | R::BadQuery
        | R::Timeout
        | R::StoreUnavailable
        | R::StaleSignature
        | R::ReplayedNonce
        | R::UnknownMandate
        | R::BadClaimId
        | R::HostNotInAudience
        | R::NoSharedLimit
        | R::MandateRevoked
        | R::UnknownHostKey
        | R::SignedByOtherHost
        | R::ClaimSignedByHost
        | R::HostMismatch
        | R::SharedLimitReached
        | R::UpdateReplayed
        | R::RegistrationConflict
        | R::NamespaceFull
        | R::NamespaceNotAllowed
        | R::BrowserOrigin
        | R::AgentNotPaired
        | R::NotLoopback
        | R::BadWait
        | R::NonceNotBase64url
        | R::NonceLength
        | R::BadDiscoveryUrl
        | R::UnknownKind
        | R::BadIdempotencyKey
        | R::IdempotencyConflict
        | R::TooManyPending
        | R::Cooldown
        | R::TooManyPairings
        | R::PairingDeclined
        | R::BadAgentName
        | R::Unrenderable
        | R::BadConstraints
        | R::BadLifetime
        | R::BadHosts
        | R::BadScope
        | R::BadAlg
        | R::BadRule
        | R::WildcardAudience
        | R::TooLarge
        | R::KeyappNotRunning
        | R::KeyappImpostor
        | R::KeyappNotFound
        | R::BadId
        | R::Transport => Words::Other,
    }
}

/// The message id of a request's status, as a refusal names it.
pub fn request_status_id(status: RequestStatus) -> &'static str {
    match status {
        RequestStatus::Pending => "status-pending",
        RequestStatus::Approved => "status-approved",
        RequestStatus::Declined => "status-declined",
        RequestStatus::Expired => "status-expired",
        RequestStatus::Withdrawn => "status-withdrawn",
    }
}

/// The message id of a pairing's status, as a refusal names it.
pub fn pairing_status_id(status: PairingStatus) -> &'static str {
    match status {
        PairingStatus::Pending => "status-pending",
        PairingStatus::Approved => "status-approved",
        PairingStatus::Declined => "status-declined",
        PairingStatus::Expired => "status-expired",
        PairingStatus::Unpaired => "status-unpaired",
    }
}

/// The sentence for what the records do not hold, by what it is.
pub fn not_found_id(missing: Missing) -> &'static str {
    match missing {
        Missing::Request => "refusal-not_found-request",
        Missing::RuleRequest => "refusal-not_found-rule_request",
        Missing::Credential => "refusal-not_found-credential",
        Missing::Contact => "refusal-not_found-contact",
        Missing::HostDomainChange => "refusal-not_found-host_domain_change",
        Missing::Pairing => "refusal-not_found-pairing",
        Missing::PairedAgent => "refusal-not_found-paired_agent",
        Missing::ConfiguredStatusAddress => "refusal-not_found-configured_status_address",
    }
}

/// The words naming a record that cannot be read (`refusal-corrupt`).
pub fn stored_id(stored: Stored) -> &'static str {
    match stored {
        Stored::Request => "stored-request",
        Stored::Pairing => "stored-pairing",
        Stored::History => "stored-history",
        Stored::Credential => "stored-credential",
        Stored::BookingClaim => "stored-booking_claim",
        Stored::Meeting => "stored-meeting",
        Stored::Outbox => "stored-outbox",
        Stored::ManagementLink => "stored-management_link",
        Stored::HostBinding => "stored-host_binding",
        Stored::Attention => "stored-attention",
        Stored::Receipt => "stored-receipt",
        Stored::Database => "stored-database",
    }
}

/// Why `error` refused what the person did, as the person reads it in
/// `language`. The service's own message is written for agent developers and
/// in English; the person gets the catalogue's sentence for the refusal's
/// reason ([`words`]), and where it has none one plain sentence
/// (`refusal-other`), never a code or the developer's message.
pub fn refusal(language: Language, error: &ServiceError) -> String {
    let api = error.to_api();
    // Typed refusals whose data the wire does not carry have words of their own.
    match error {
        ServiceError::NotFound(missing) => return text(language, not_found_id(*missing)),
        ServiceError::Query(q) => return text(language, q.message_id()),
        ServiceError::Store(StoreError::Corrupt(c)) => {
            let mut args = FluentArgs::new();
            args.set("what", text(language, stored_id(c.what)));
            return text_with(language, "refusal-corrupt", &args);
        }
        ServiceError::Store(StoreError::Tampered(c)) => {
            let mut args = FluentArgs::new();
            args.set("what", text(language, stored_id(c.what)));
            return text_with(language, "refusal-tampered", &args);
        }
        // What the prompt on screen is for, and who asked for it: the person
        // who clicked Approve learns the prompt is not theirs
        // (user_verification::OnePrompt).
        ServiceError::NotVerified(Refusal::Underway { what, surface }) => {
            let mut args = FluentArgs::new();
            args.set("what", what.clone());
            let id = match (surface, what.is_empty()) {
                // A program is not told what the person approves in the window.
                (Surface::Window, true) => "refusal-verification-underway-window-unnamed",
                (Surface::Window, false) => "refusal-verification-underway-window",
                (Surface::Terminal, _) => "refusal-verification-underway-program",
            };
            return text_with(language, id, &args);
        }
        _ => {}
    }
    let status = match error {
        ServiceError::NotPending(status) => Some(text(language, request_status_id(*status))),
        ServiceError::PairingNotPending(status) => Some(text(language, pairing_status_id(*status))),
        _ => None,
    };
    worded(language, api.reason, &api.message, status)
}

/// A refusal as a surface that holds only its wire form (the control
/// socket's `{code, reason, message}`, which the terminal reads) words it:
/// by its reason alone, as [`refusal`] does. A `not_pending` refusal does
/// not carry its status on the wire; the terminal words that one itself.
pub fn wire_refusal(language: Language, reason: Reason, message: &str) -> String {
    worded(language, reason, message, None)
}

/// The one wording of a refusal: the catalogue's sentence for `reason`, with
/// the status it names where it is known.
fn worded(language: Language, reason: Reason, message: &str, status: Option<String>) -> String {
    let mut args = FluentArgs::new();
    args.set("reason", reason.as_str());
    args.set("message", message.to_owned());
    args.set("max", crate::service::MAX_LABEL);
    args.set("prefix", schcp::jwk::PRINCIPAL_PREFIX);
    if let Some(status) = status {
        args.set("status", status);
    }
    let id = match words(reason) {
        Words::Own(id) => id,
        Words::Verification(id) => {
            return format(language, id, Some(&args)).unwrap_or_else(|| text(language, "refusal-verification"));
        }
        // The service's message is written for agent developers; the person
        // reads a plain sentence in their language, never a code.
        Words::Other => "refusal-other",
    };
    // Every id above is in both catalogues (the tests below), so the service's
    // message is only a last resort.
    format(language, id, Some(&args)).unwrap_or_else(|| message.to_owned())
}

/// The message ids of one catalogue file, in order: the tests compare each
/// language's.
#[cfg(test)]
pub(crate) fn catalogue_ids(catalogue: &str) -> Vec<&str> {
    catalogue.lines().filter_map(|l| l.split_once(" = ")).map(|(id, _)| id).filter(|id| !id.starts_with('#')).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refusal with no words of its own reads as one plain sentence in
    /// each language: no reason code, no developer's message.
    #[test]
    fn a_refusal_without_words_of_its_own_names_no_code_and_quotes_no_message() {
        let others: Vec<Reason> = Reason::ALL.iter().copied().filter(|r| matches!(words(*r), Words::Other)).collect();
        assert!(others.contains(&Reason::BadAlg), "bad_alg has no words of its own");
        for reason in others {
            for language in [Language::English, Language::French] {
                let said = wire_refusal(language, reason, "developer text: alg must be EdDSA");
                assert!(!said.contains(reason.as_str()), "{language:?} {reason:?}: {said}");
                assert!(!said.contains("developer text"), "{language:?} {reason:?}: {said}");
                assert!(!said.contains('_') && !said.contains('{'), "{language:?} {reason:?}: {said}");
            }
        }
    }
    use crate::service::{AttestationRefusal, Publication};

    #[test]
    fn every_publication_state_has_words_in_english_and_french() {
        for p in [Publication::RegistrationPending, Publication::RevocationPending] {
            for l in [Language::English, Language::French] {
                let t = text(l, p.message_id());
                assert!(!t.is_empty() && t != p.message_id(), "{l:?} {p:?}");
            }
        }
        assert_eq!(text(Language::English, "credentials-revocation-unpublished"), "revocation not yet published");
        assert_eq!(text(Language::French, "credentials-revocation-unpublished"), "révocation pas encore publiée");
        assert_eq!(text(Language::English, "no-such-message"), "no-such-message");
    }

    use super::catalogue_ids as ids;

    #[test]
    fn the_refusal_catalogues_have_the_same_ids() {
        assert_eq!(ids(EN[1]), ids(FR[1]));
        assert!(ids(EN[1]).len() >= 10);
    }

    #[test]
    fn the_programs_catalogues_have_the_same_ids_and_every_error_its_remedy() {
        assert_eq!(ids(EN[2]), ids(FR[2]));
        for id in ids(EN[2]) {
            if let Some(what) = id.strip_prefix("cli-err-") {
                assert!(ids(EN[2]).contains(&format!("cli-rec-{what}").as_str()), "{id} has no remedy");
            }
        }
    }

    #[test]
    fn a_refusal_read_off_the_wire_is_worded_as_the_service_error_is() {
        let e = ServiceError::invalid(Reason::BadLabel, "a rule's label is 1 to 200 characters of plain text");
        for l in [Language::English, Language::French] {
            let api = e.to_api();
            assert_eq!(wire_refusal(l, api.reason, &api.message), refusal(l, &e));
        }
    }

    #[test]
    fn every_refusal_a_window_can_meet_is_worded_in_english_and_french() {
        let busy = ServiceError::Store(crate::store::testing::busy());
        let expired = schcp::Error::Expired { what: "attestation", exp: 1, now: 2 };
        let cases = [
            ServiceError::NotPending(RequestStatus::Expired),
            ServiceError::PairingNotPending(PairingStatus::Unpaired),
            ServiceError::NotFound(crate::service::Missing::Contact),
            busy,
            ServiceError::invalid(Reason::BadLabel, "a rule's label is 1 to 200 characters of plain text"),
            ServiceError::invalid(Reason::NotARule, "only a rule's label can be edited"),
            ServiceError::invalid(Reason::BadName, "a contact's name is non-empty plain text"),
            ServiceError::invalid(Reason::BadPrincipal, "a principal starts with urn:"),
            ServiceError::invalid(Reason::NotRevocable, "This rule cannot be revoked: it is never published"),
            ServiceError::invalid(Reason::WrongSubject, "the attestation is about another principal"),
            ServiceError::Verification(expired),
            ServiceError::Attestation(AttestationRefusal::Malformed("bad".into())),
            ServiceError::Attestation(AttestationRefusal::TooLarge { len: 5000, max: 4096 }),
            ServiceError::Attestation(AttestationRefusal::UnknownAttester("phonecheck.example".into())),
            ServiceError::Attestation(AttestationRefusal::Forged("phonecheck.example".into())),
            ServiceError::Attestation(AttestationRefusal::NotYetValid { iat: 2, now: 1 }),
            ServiceError::Attestation(AttestationRefusal::Expired { exp: 1, now: 2 }),
            ServiceError::Attestation(AttestationRefusal::AlreadyHeld),
        ];
        for e in &cases {
            let (en, fr) = (refusal(Language::English, e), refusal(Language::French, e));
            let service_words = e.to_api().message;
            for w in [&en, &fr] {
                assert!(!w.contains('{') && !w.contains(&service_words), "{e:?}: {w:?}");
                assert!(w.ends_with('.'), "{e:?}: one whole sentence, not {w:?}");
            }
            assert_ne!(en, fr, "{e:?}");
        }
        assert_eq!(
            refusal(Language::French, &ServiceError::NotPending(RequestStatus::Withdrawn)),
            "Cette demande n’attend plus de réponse : elle est retirée. Rien n’a été signé."
        );
        assert_eq!(
            refusal(Language::English, &cases[4]),
            "A rule’s label is 1 to 200 characters of plain text, on one line."
        );
        assert_eq!(
            refusal(Language::French, &cases[10]),
            "Ce qui a été envoyé a expiré ; rien n’a été modifié, et l’assistant peut redemander."
        );
    }

    /// A `snake_case` or `SHOUTING_CASE` word: a code, not a word of a sentence.
    fn codes(words: &str) -> Vec<&str> {
        words.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| w.contains('_')).collect()
    }

    #[test]
    fn a_protocol_object_that_does_not_verify_is_refused_in_words_without_a_code() {
        // Every reason the verification path can carry: the typed reasons
        // `words` sends there, as the service raises them (`Unacceptable`, as
        // a check of its own does) and as the terminal reads them off the wire.
        let reasons: Vec<Reason> =
            Reason::ALL.iter().copied().filter(|&r| matches!(words(r), Words::Verification(_))).collect();
        assert!(reasons.len() >= 40, "{reasons:?}");
        let mut seen = std::collections::HashSet::new();
        for reason in reasons {
            let Words::Verification(id) = words(reason) else { unreachable!() };
            assert_eq!(id, format!("refusal-{reason}"));
            let e = ServiceError::unacceptable(reason, format!("a check failed: {reason}"));
            for l in [Language::English, Language::French] {
                let w = refusal(l, &e);
                assert_eq!(w, wire_refusal(l, reason, &e.to_api().message), "{reason} {l:?}");
                assert!(codes(&w).is_empty() && !w.contains('{'), "{reason} {l:?}: {w}");
                assert!(!w.contains("a check failed") && w.ends_with('.'), "{reason} {l:?}: {w}");
                assert_ne!(w, text(l, "refusal-verification"), "{reason} {l:?} has no sentence of its own");
                assert!(seen.insert(w.clone()), "{reason} {l:?} shares its sentence: {w}");
            }
        }
        // The verification failures of the library's own checks reach the
        // person through the same words (schcp::Error's reasons).
        let signature = ServiceError::Verification(schcp::Error::Jws(schcp::jws::JwsError::BadSignature));
        assert_eq!(
            refusal(Language::English, &signature),
            "The signature on what was sent does not match it; it may have been altered, so nothing was changed."
        );
        // The fallback, should a catalogue lack a reason's sentence, names no code either.
        for l in [Language::English, Language::French] {
            let plain = text(l, "refusal-verification");
            assert!(codes(&plain).is_empty() && !plain.contains('{') && plain.ends_with('.'), "{l:?}: {plain}");
        }
        assert_eq!(codes("the reason_code and NOT_PERMITTED, not l’app"), ["reason_code", "NOT_PERMITTED"]);
    }

    fn worded(language: Language, id: &str) -> bool {
        format(language, id, None).is_some_and(|t| !t.is_empty())
    }

    #[test]
    fn every_reason_has_words_in_english_and_french() {
        for &reason in Reason::ALL {
            let id = match words(reason) {
                Words::Own(id) => id,
                Words::Verification(id) => id,
                Words::Other => "refusal-other",
            };
            for l in [Language::English, Language::French] {
                assert!(worded(l, id), "{l:?} has no {id} for {reason}");
            }
        }
        for status in RequestStatus::ALL {
            let id = request_status_id(status);
            assert!(worded(Language::English, id) && worded(Language::French, id), "{id}");
        }
        for status in PairingStatus::ALL {
            let id = pairing_status_id(status);
            assert!(worded(Language::English, id) && worded(Language::French, id), "{id}");
        }
    }

    #[test]
    fn what_is_not_found_is_named_in_both_languages_and_the_wire_keeps_its_words() {
        for missing in Missing::ALL {
            let e = ServiceError::NotFound(missing);
            assert_eq!(e.to_api().message, format!("no such {}", missing.as_str()));
            assert_eq!(e.code_and_reason(), (schcp::Code::NotFound, Reason::NotFound));
            let (en, fr) = (refusal(Language::English, &e), refusal(Language::French, &e));
            assert!(en.ends_with('.') && fr.ends_with('.') && en != fr, "{missing:?}: {en} / {fr}");
            assert!(!en.contains("refusal-") && !fr.contains("refusal-"), "{missing:?}");
        }
        assert_eq!(
            refusal(Language::English, &ServiceError::NotFound(Missing::Credential)),
            "This credential is not in your records."
        );
    }

    #[test]
    fn a_corrupt_record_is_named_for_the_person_and_its_detail_stays_on_the_wire() {
        for stored in Stored::ALL {
            let e = ServiceError::Store(StoreError::corrupt(stored, "pairing status \"paired\""));
            let api = e.to_api();
            // The wire is as it was before the record was typed.
            assert_eq!(api.message, "stored record is corrupt: pairing status \"paired\"");
            assert_eq!((api.code, api.reason), (schcp::Code::Internal, Reason::InternalError));
            for l in [Language::English, Language::French] {
                let w = refusal(l, &e);
                assert!(!w.contains("stored-") && !w.contains("paired") && w.ends_with('.'), "{stored:?} {l:?}: {w}");
            }
        }
        assert_eq!(
            refusal(Language::French, &ServiceError::Store(StoreError::corrupt(Stored::Meeting, "x"))),
            "Une partie de vos registres est illisible (un contrat de réunion) : rien n’a été modifié."
        );
    }

    #[test]
    fn a_refusal_that_is_not_pending_names_the_status_it_has() {
        // The wire says the status once, from the typed value: never "the
        // request is no longer pending, not pending".
        let e = ServiceError::NotPending(RequestStatus::Expired);
        assert_eq!(e.to_api().message, "the request is expired, not pending");
        assert_eq!(e.code_and_reason(), (schcp::Code::InvalidState, Reason::NotPending));
        assert_eq!(
            refusal(Language::French, &e),
            "Cette demande n’attend plus de réponse : elle est expirée. Rien n’a été signé."
        );
        // A pairing that was unpaired meanwhile is worded too, in both languages.
        let unpaired = ServiceError::PairingNotPending(PairingStatus::Unpaired);
        assert_eq!(unpaired.to_api().message, "the request is unpaired, not pending");
        for l in [Language::English, Language::French] {
            let w = refusal(l, &unpaired);
            assert!(!w.contains("status-") && !w.contains("unpaired,"), "{l:?}: {w}");
        }
        assert_eq!(
            refusal(Language::English, &unpaired),
            "This request is no longer waiting for an answer: it is unpaired. Nothing was signed."
        );
    }

    /// The prose of a Fluent source line, without what is not prose: a
    /// comment, the message or attribute id before ` = `, a variant key
    /// (`[one]`, `*[other]`), and every placeable (`{ $x }`, `{ $n ->`, `}`).
    fn prose(line: &str) -> String {
        let line = line.trim_start();
        if line.starts_with('#') {
            return String::new();
        }
        let line = match line.split_once(" =") {
            Some((id, rest)) if !id.contains(' ') && !id.contains('{') => rest,
            _ => line,
        };
        let line = line.trim_start().trim_start_matches('*');
        let line = match line.strip_prefix('[').and_then(|l| l.split_once(']')) {
            Some((_, rest)) => rest,
            None => line,
        };
        let (mut out, mut depth) = (String::new(), 0usize);
        for c in line.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                c if depth == 0 => out.push(c),
                _ => {}
            }
        }
        out
    }

    /// Every line of French prose in `source` holding a straight apostrophe.
    fn straight_apostrophes(source: &str) -> Vec<String> {
        source.lines().filter(|l| prose(l).contains('\'')).map(str::to_owned).collect()
    }

    #[test]
    fn french_prose_uses_the_typographic_apostrophe_only() {
        // French writes l’app, never l'app; the rule is checked on every
        // French catalogue, present and future.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../locales/fr");
        let mut files = 0;
        for entry in std::fs::read_dir(&dir).expect("locales/fr is readable") {
            let path = entry.expect("a directory entry").path();
            if path.extension().is_some_and(|e| e == "ftl") {
                let source = std::fs::read_to_string(&path).expect("an .ftl file is UTF-8");
                assert_eq!(straight_apostrophes(&source), Vec::<String>::new(), "{}", path.display());
                files += 1;
            }
        }
        assert!(files >= 4, "only {files} French catalogues found in {}", dir.display());
    }

    #[test]
    fn a_straight_apostrophe_in_french_prose_is_caught_and_fluent_syntax_is_not() {
        let bad = "ok = Tout va bien.\nbad = Lancez l'app de clé.\n";
        assert_eq!(straight_apostrophes(bad), ["bad = Lancez l'app de clé."]);
        let variant = "n = { $n ->\n    [one] l'une\n   *[other] { $n } d'entre elles\n}\n";
        assert_eq!(straight_apostrophes(variant), ["    [one] l'une", "   *[other] { $n } d'entre elles"]);
        let attribute = "m = Bien.\n    .title = C'est tout.\n";
        assert_eq!(straight_apostrophes(attribute), ["    .title = C'est tout."]);
        let not_prose = "# The person's words\n## A group's comment\nq = Il dit { \"'\" }.\n";
        assert!(straight_apostrophes(not_prose).is_empty());
        assert!(straight_apostrophes(FR[0]).is_empty() && straight_apostrophes(FR[1]).is_empty());
    }

    #[test]
    fn a_busy_refusal_says_to_try_again_and_not_that_the_request_is_gone() {
        let busy = ServiceError::Store(crate::store::testing::busy());
        assert_eq!(busy.code_and_reason(), (schcp::Code::Unavailable, Reason::Busy));
        assert_eq!(refusal(Language::English, &busy), "Your records are busy for a moment; try again.");
        assert!(!refusal(Language::French, &busy).contains("signé"));
    }

    /// Another prompt on screen: the refusal says what that prompt is for and
    /// who asked for it (the key app's window, or a terminal or another
    /// program), never "confirm", in both languages.
    #[test]
    fn a_prompt_underway_is_named_with_who_asked_for_it() {
        use crate::user_verification::{Refusal, Surface};
        let underway = |surface| {
            ServiceError::NotVerified(Refusal::Underway { what: "Pair “Cal” (code 7F3A)".into(), surface })
        };
        let by_program = refusal(Language::English, &underway(Surface::Terminal));
        assert!(by_program.contains("another program") && by_program.contains("cancel it"), "{by_program}");
        assert!(by_program.ends_with("That confirmation is for: Pair “Cal” (code 7F3A)"), "{by_program}");
        let by_window = refusal(Language::English, &underway(Surface::Window));
        assert!(by_window.contains("window") && !by_window.contains("another program"), "{by_window}");
        let unnamed = ServiceError::NotVerified(Refusal::Underway { what: String::new(), surface: Surface::Window });
        let unnamed = refusal(Language::English, &unnamed);
        assert!(unnamed.contains("window") && !unnamed.contains("is for"), "{unnamed}");
        let fr = refusal(Language::French, &underway(Surface::Terminal));
        assert!(fr.contains("autre programme") && fr.ends_with("Pair “Cal” (code 7F3A)"), "{fr}");
        // At the terminal, with only the wire's reason: the plain sentence.
        let plain = wire_refusal(Language::English, Reason::VerificationUnderway, "developer text");
        assert!(plain.contains("something else") && !plain.contains("developer"), "{plain}");
    }
}
