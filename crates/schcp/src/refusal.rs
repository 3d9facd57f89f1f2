//! SchCP §9.2 refusals as types: the [`Code`] (the class) and the registered
//! [`Reason`] under it. Every surface that emits or branches on a refusal uses
//! these, so a code or reason is spelled once, here, and the wire spelling of
//! each is fixed by the tables below (SchCP §9.2: "reason is a registered
//! value under it that an agent can act on").

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A wire spelling that is not a registered code or reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a registered {1}")]
pub struct Unregistered(pub String, pub &'static str);

macro_rules! registry {
    (
        $(#[$meta:meta])* $name:ident, $what:literal,
        { $( $variant:ident = $wire:literal $(=> $status:expr)? ),* $(,)? }
    ) => {
        $(#[$meta])*
        // Not non_exhaustive: a surface that words every reason matches them
        // all, so a new reason cannot reach a person without words.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)] // each variant is documented by its wire spelling beside it
        pub enum $name { $( $variant, )* }

        impl $name {
            /// Every registered value, in the order of the table.
            pub const ALL: &'static [$name] = &[ $( $name::$variant, )* ];

            /// The wire spelling.
            pub const fn as_str(self) -> &'static str {
                match self { $( $name::$variant => $wire, )* }
            }
        }

        impl std::str::FromStr for $name {
            type Err = Unregistered;
            fn from_str(s: &str) -> Result<$name, Unregistered> {
                match s {
                    $( $wire => Ok($name::$variant), )*
                    other => Err(Unregistered(other.to_owned(), $what)),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl From<$name> for String {
            fn from(v: $name) -> String {
                v.as_str().to_owned()
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

registry! {
    /// The class of a refusal (SchCP §9.2 `code`). The protocol's own codes
    /// come first, then the ones the key app and status services add for
    /// what the protocol has no class for (docs/agent-api.md §2).
    Code, "code", {
        InvalidRequest = "INVALID_REQUEST",
        BadSignature = "BAD_SIGNATURE",
        MandateInvalid = "MANDATE_INVALID",
        MandateScope = "MANDATE_SCOPE",
        MandateLimit = "MANDATE_LIMIT",
        NotPermitted = "NOT_PERMITTED",
        NotEligible = "NOT_ELIGIBLE",
        OfferApprovalRequired = "OFFER_APPROVAL_REQUIRED",
        NotFound = "NOT_FOUND",
        IdempotencyConflict = "IDEMPOTENCY_CONFLICT",
        InvalidState = "INVALID_STATE",
        SlotUnavailable = "SLOT_UNAVAILABLE",
        StaleSequence = "STALE_SEQUENCE",
        ContractMismatch = "CONTRACT_MISMATCH",
        OutsideBookingWindow = "OUTSIDE_BOOKING_WINDOW",
        OutOfServiceArea = "OUT_OF_SERVICE_AREA",
        DataNotAccepted = "DATA_NOT_ACCEPTED",
        HoldLimit = "HOLD_LIMIT",
        Declined = "DECLINED",
        Expired = "EXPIRED",
        Unsupported = "UNSUPPORTED",
        // Not the protocol's: the key app's and the status services' own.
        VerificationFailed = "VERIFICATION_FAILED",
        RateLimited = "RATE_LIMITED",
        Conflict = "CONFLICT",
        Unavailable = "UNAVAILABLE",
        Internal = "INTERNAL",
    }
}

impl Code {
    /// The HTTP status SchCP gives the code (§9.2 and the sections that
    /// refuse with it), or the one docs/agent-api.md gives the key app's own.
    /// `DECLINED` and `EXPIRED` have none: they are the refusal on a booking
    /// a host declined or let lapse, never an HTTP answer. An edge may answer
    /// a code with a more specific status (413, 415 and 421 are
    /// `INVALID_REQUEST`), which it decides where it builds the refusal.
    pub const fn status(self) -> Option<u16> {
        Some(match self {
            Code::InvalidRequest => 400,
            Code::BadSignature | Code::MandateInvalid => 401,
            Code::MandateScope
            | Code::MandateLimit
            | Code::NotPermitted
            | Code::NotEligible
            | Code::OfferApprovalRequired => 403,
            Code::NotFound => 404,
            Code::IdempotencyConflict
            | Code::InvalidState
            | Code::SlotUnavailable
            | Code::StaleSequence
            | Code::ContractMismatch
            | Code::Conflict => 409,
            Code::OutsideBookingWindow | Code::OutOfServiceArea | Code::DataNotAccepted | Code::VerificationFailed => {
                422
            }
            Code::HoldLimit | Code::RateLimited => 429,
            Code::Internal => 500,
            Code::Unsupported => 501,
            Code::Unavailable => 503,
            Code::Declined | Code::Expired => return None,
        })
    }
}

registry! {
    /// A registered reason (SchCP §9.2 `reason`): what an agent can act on.
    /// Grouped by who sends it; the wire spelling is the one beside each.
    Reason, "reason", {
        // A protocol object that fails verification (`schcp::Error::reason`).
        Malformed = "malformed",
        DuplicateMember = "duplicate_member",
        BadKey = "bad_key",
        UnknownKid = "unknown_kid",
        WrongTyp = "wrong_typ",
        AlgMismatch = "alg_mismatch",
        BadSignature = "bad_signature",
        SchemaInvalid = "schema_invalid",
        MoneyInvalid = "money_invalid",
        DurationInvalid = "duration_invalid",
        DateTimeInvalid = "date_time_invalid",
        Expired = "expired",
        IssuedInFuture = "issued_in_future",
        WrongIssuer = "wrong_issuer",
        UnknownTimeZone = "unknown_time_zone",
        LinesDoNotSum = "lines_do_not_sum",
        MixedCurrencies = "mixed_currencies",
        BadSlot = "bad_slot",
        ReceiptMismatch = "receipt_mismatch",
        MandateInvalid = "mandate_invalid",
        MandateExpired = "mandate_expired",
        OutOfScope = "out_of_scope",
        ConstraintNotMet = "constraint_not_met",
        MeetingInvalid = "meeting_invalid",
        AcceptanceInvalid = "acceptance_invalid",
        PersonRequired = "person_required",
        RuleInvalid = "rule_invalid",
        HostIdConflict = "host_id_conflict",
        TextTooLong = "text_too_long",
        // A signed status update (`schcp::status_update::UpdateCheck::reason`).
        BodyTooLarge = "body_too_large",
        MalformedUpdate = "malformed_update",
        BadPrincipalJwk = "bad_principal_jwk",
        NamespaceMismatch = "namespace_mismatch",
        UpdateSignatureInvalid = "update_signature_invalid",
        UpdateIatOutOfWindow = "update_iat_out_of_window",
        ExpTooFar = "exp_too_far",
        // Any HTTP edge: the request as HTTP.
        NotFound = "not_found",
        InternalError = "internal_error",
        TooManyRequests = "too_many_requests",
        BadHost = "bad_host",
        MethodNotAllowed = "method_not_allowed",
        BadContentType = "bad_content_type",
        UnsupportedMediaType = "unsupported_media_type",
        BodyTimeout = "body_timeout",
        UnreadableBody = "unreadable_body",
        MalformedJson = "malformed_json",
        UnknownMember = "unknown_member",
        MissingMember = "missing_member",
        BadPath = "bad_path",
        BadQuery = "bad_query",
        Timeout = "timeout",
        StoreUnavailable = "store_unavailable",
        // The request signature (§3.2).
        StaleSignature = "stale_signature",
        ReplayedNonce = "replayed_nonce",
        // The status API's booking-limit claims (§3.3 "One consent, several hosts").
        UnknownMandate = "unknown_mandate",
        BadClaimId = "bad_claim_id",
        HostNotInAudience = "host_not_in_audience",
        NoSharedLimit = "no_shared_limit",
        MandateRevoked = "mandate_revoked",
        UnknownHostKey = "unknown_host_key",
        SignedByOtherHost = "signed_by_other_host",
        ClaimSignedByHost = "claim_signed_by_host",
        HostMismatch = "host_mismatch",
        SharedLimitReached = "shared_limit_reached",
        // A hosted status service's registrations.
        UpdateReplayed = "update_replayed",
        RegistrationConflict = "registration_conflict",
        NamespaceFull = "namespace_full",
        NamespaceNotAllowed = "namespace_not_allowed",
        // The key app's agent API: who may ask.
        BrowserOrigin = "browser_origin",
        AgentNotPaired = "agent_not_paired",
        NotLoopback = "not_loopback",
        BadWait = "bad_wait",
        NonceNotBase64url = "nonce_not_base64url",
        NonceLength = "nonce_length",
        // Discovery (§2.1).
        BadDiscoveryUrl = "bad_discovery_url",
        DiscoveryUrlRefused = "discovery_url_refused",
        DiscoveryFailed = "discovery_failed",
        DiscoveryInvalid = "discovery_invalid",
        // The key app's requests and pairings.
        UnknownKind = "unknown_kind",
        BadIdempotencyKey = "bad_idempotency_key",
        IdempotencyConflict = "idempotency_conflict",
        TooManyPending = "too_many_pending",
        Cooldown = "cooldown",
        TooManyPairings = "too_many_pairings",
        PairingDeclined = "pairing_declined",
        BadAgentName = "bad_agent_name",
        TextNotInert = "text_not_inert",
        NotPending = "not_pending",
        Busy = "busy",
        Unrenderable = "unrenderable",
        // What a request asks for.
        BadConstraints = "bad_constraints",
        StatusUnreachable = "status_unreachable",
        BadLifetime = "bad_lifetime",
        BadHosts = "bad_hosts",
        BadScope = "bad_scope",
        BadAlg = "bad_alg",
        BadRule = "bad_rule",
        WildcardAudience = "wildcard_audience",
        AlreadyStarted = "already_started",
        ContractMismatch = "contract_mismatch",
        OwnContract = "own_contract",
        NotAMember = "not_a_member",
        BookingNotConfirmed = "booking_not_confirmed",
        StaleReceipt = "stale_receipt",
        ParticipantNotBooker = "participant_not_booker",
        NotTentative = "not_tentative",
        NotAParticipant = "not_a_participant",
        DuplicateParticipant = "duplicate_participant",
        NotInvited = "not_invited",
        AlreadyAnswered = "already_answered",
        NoDeadline = "no_deadline",
        DeadlinePassed = "deadline_passed",
        NoContract = "no_contract",
        BookingMismatch = "booking_mismatch",
        NotMyCalendar = "not_my_calendar",
        // What the person does in a window or at the terminal.
        BadLabel = "bad_label",
        NotARule = "not_a_rule",
        BadName = "bad_name",
        BadPrincipal = "bad_principal",
        NotRevocable = "not_revocable",
        WrongSubject = "wrong_subject",
        NotAsking = "not_asking",
        UnknownLanguage = "unknown_language",
        TooLarge = "too_large",
        // An attestation the person adds (§7.5).
        NotAnAttestation = "not_an_attestation",
        AttestationTooLarge = "attestation_too_large",
        UnknownAttester = "unknown_attester",
        AttestationForged = "attestation_forged",
        AttestationNotYetValid = "attestation_not_yet_valid",
        AttestationExpired = "attestation_expired",
        AttestationHeld = "attestation_held",
        // The OS did not confirm the person (user verification).
        UserNotVerified = "user_not_verified",
        VerificationCancelled = "verification_cancelled",
        VerificationTimedOut = "verification_timed_out",
        VerificationUnavailable = "verification_unavailable",
        VerificationUnderway = "verification_underway",
        // An agent's own client (the MCP server) when the key app cannot be asked.
        KeyappNotRunning = "keyapp_not_running",
        KeyappImpostor = "keyapp_impostor",
        KeyappNotFound = "keyapp_not_found",
        BadId = "bad_id",
        Transport = "transport",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_and_reason_reads_back_from_its_wire_spelling() {
        for c in Code::ALL {
            assert_eq!(c.as_str().parse::<Code>(), Ok(*c));
            assert_eq!(serde_json::to_value(c).unwrap(), serde_json::json!(c.as_str()));
        }
        for r in Reason::ALL {
            assert_eq!(r.as_str().parse::<Reason>(), Ok(*r));
            let back: Reason = serde_json::from_value(serde_json::json!(r.as_str())).unwrap();
            assert_eq!(back, *r);
        }
        assert_eq!(
            Code::ALL.len(),
            Code::ALL.iter().map(|c| c.as_str()).collect::<std::collections::BTreeSet<_>>().len()
        );
        assert_eq!(
            Reason::ALL.len(),
            Reason::ALL.iter().map(|r| r.as_str()).collect::<std::collections::BTreeSet<_>>().len()
        );
    }

    #[test]
    fn a_spelling_that_is_not_registered_is_refused() {
        assert_eq!("not_pending".parse(), Ok(Reason::NotPending));
        assert_eq!("no longer pending".parse::<Reason>(), Err(Unregistered("no longer pending".into(), "reason")));
        assert!("invalid_request".parse::<Code>().is_err(), "codes are upper case");
        assert!(serde_json::from_value::<Code>(serde_json::json!("NOPE")).is_err());
    }

    #[test]
    fn codes_have_the_status_the_spec_gives_them() {
        // SchCP §9.2 and the sections that refuse: 400 INVALID_REQUEST, 401
        // MANDATE_INVALID, 403 MANDATE_LIMIT, 409 CONTRACT_MISMATCH, 422
        // OUTSIDE_BOOKING_WINDOW, 429 HOLD_LIMIT, 501 UNSUPPORTED.
        for (code, status) in [
            (Code::InvalidRequest, 400),
            (Code::BadSignature, 401),
            (Code::MandateInvalid, 401),
            (Code::MandateLimit, 403),
            (Code::NotPermitted, 403),
            (Code::NotEligible, 403),
            (Code::OfferApprovalRequired, 403),
            (Code::ContractMismatch, 409),
            (Code::SlotUnavailable, 409),
            (Code::InvalidState, 409),
            (Code::StaleSequence, 409),
            (Code::OutsideBookingWindow, 422),
            (Code::OutOfServiceArea, 422),
            (Code::DataNotAccepted, 422),
            (Code::HoldLimit, 429),
            (Code::Unsupported, 501),
            (Code::VerificationFailed, 422),
            (Code::Unavailable, 503),
        ] {
            assert_eq!(code.status(), Some(status), "{code}");
        }
        assert_eq!(Code::Declined.status(), None, "a booking's refusal, never an HTTP answer");
        assert_eq!(Code::Expired.status(), None);
    }
}
