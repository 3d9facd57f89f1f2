//! The crate's one error type, and the §9.2 code and reason each failure maps to.
//!
//! Every refusal maps to one SchCP code and reason here, in one place, so an
//! HTTP edge never invents a string.

use crate::claims::Action;
use crate::datetime::DateTimeError;
use crate::duration::DurationError;
use crate::json::JsonError;
use crate::jwk::JwkError;
use crate::jws::JwsError;
use crate::money::{Amount, MoneyError};
use crate::refusal::{Code, Reason};
use crate::schema::SchemaError;
use crate::sdjwt::SdJwtError;

/// A §9.2 code (the class) and a registered reason under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    /// The §9.2 class, e.g. `MANDATE_INVALID`, or `VERIFICATION_FAILED` for a
    /// credential or offer the key app refuses to show or sign over
    /// (docs/agent-api.md: 422; the spec registers no class for it).
    pub code: Code,
    /// The registered reason under the class, e.g. `mandate_expired`.
    pub reason: Reason,
}

/// Why a SchCP object was refused: one variant per failure, each mapped to one
/// §9.2 code and reason by [`Error::reason`].
///
/// The failures of one object kind carry a typed check ([`MandateCheck`],
/// [`MeetingCheck`], …) saying which rule failed, so callers and tests match on
/// the value, never on the message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not the JSON §3.1 allows.
    #[error(transparent)]
    Json(#[from] JsonError),
    /// A JWK is unusable (§3.2, §3.4).
    #[error(transparent)]
    Jwk(#[from] JwkError),
    /// A compact JWS is malformed, of the wrong typ or alg, or its signature fails (§3.4).
    #[error(transparent)]
    Jws(#[from] JwsError),
    /// An SD-JWT VC presentation fails its envelope checks (§3.4).
    #[error(transparent)]
    SdJwt(#[from] SdJwtError),
    /// The value does not validate against its closed schema (§5.2 "Claims are closed").
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// An amount or currency is not the §2.1 form.
    #[error(transparent)]
    Money(#[from] MoneyError),
    /// A duration or retention is not the §2.1 form.
    #[error(transparent)]
    Duration(#[from] DurationError),
    /// A date-time is not the §2.1 form.
    #[error(transparent)]
    DateTime(#[from] DateTimeError),

    /// The object's exp has passed.
    #[error("{what} expired at {exp} (now {now})")]
    Expired {
        /// What expired ("offer", "booking", …), for the message.
        what: &'static str,
        /// Its exp (NumericDate).
        exp: i64,
        /// The time it was checked at.
        now: i64,
    },
    /// The object's iat is more than 60 s ahead of now (§3.3 check 3, §5.2).
    #[error("{what} is issued at {iat}, more than 60 s after now ({now})")]
    IssuedInFuture {
        /// What was issued ("offer", …), for the message.
        what: &'static str,
        /// Its iat (NumericDate).
        iat: i64,
        /// The time it was checked at.
        now: i64,
    },
    /// A host-signed object's iss is not the host it was discovered as (§2.1).
    #[error("{what}: iss {found:?} is not {expected:?}")]
    WrongIssuer {
        /// What was signed ("offer", "receipt"), for the message.
        what: &'static str,
        /// The host id from discovery.
        expected: String,
        /// The iss the object carries.
        found: String,
    },
    /// A zone name that is not in the IANA time zone database.
    #[error("unknown time zone {0:?}")]
    UnknownTimeZone(String),

    /// §5.2 "The all-in total": the lines do not sum exactly to the total.
    #[error("lines sum to {sum} but total is {total} (§5.2)")]
    LinesDoNotSum {
        /// What the lines add up to.
        sum: Amount,
        /// The total the offer states.
        total: Amount,
    },
    /// §2.1: an offer's money is in one currency; this part is in another.
    #[error("{0} is not in the total's currency (§2.1: one currency)")]
    MixedCurrencies(PricePart),
    /// §4.2: the slot's times do not make a slot.
    #[error("slot: {0}")]
    BadSlot(SlotCheck),

    /// §5.3: a receipt that does not match the agreement it is evidence of.
    #[error("receipt: {0} (§5.3)")]
    ReceiptMismatch(ReceiptCheck),

    /// §3.3 check 3: a link of the mandate chain has expired.
    #[error("mandate expired at {exp} (now {now}) (§3.3 check 3)")]
    MandateExpired {
        /// The link's exp.
        exp: i64,
        /// The time it was checked at.
        now: i64,
    },
    /// §3.3 checks 1–4 and §3.4: the mandate (chain) is not one this host may rely on.
    #[error("mandate invalid: {0}")]
    MandateInvalid(MandateCheck),
    /// §3.3 check 5: the action is not in a link's scope.
    #[error("action {} is not in the scope of mandate {jti} (§3.3 check 5)", action.as_str())]
    MandateScope {
        /// The action asked for.
        action: Action,
        /// The jti of the link whose scope lacks it.
        jti: String,
    },
    /// §3.3 check 6: the action breaks a link's constraints.
    #[error("action outside the mandate's constraints: {check} ({jti}) (§3.3 check 6)")]
    MandateLimit {
        /// The constraint it breaks.
        check: LimitCheck,
        /// The jti of the link whose constraint it is.
        jti: String,
    },

    /// §5.12: a meeting contract that is not valid.
    #[error("meeting contract invalid: {0} (§5.12)")]
    MeetingInvalid(MeetingCheck),
    /// §5.12: an acceptance that is not valid for this member of this contract.
    #[error("acceptance invalid: {0} (§5.12)")]
    AcceptanceInvalid(AcceptanceCheck),
    /// §7.9: the contract asks this member to answer in person, not by rule.
    #[error("this member must answer in person, not by rule (§7.9)")]
    PersonRequired,
    /// §7.9: a rule that is not valid.
    #[error("rule invalid: {0} (§7.9)")]
    RuleInvalid(RuleCheck),
    /// §2.2: a host id already verified at another domain (or by another rule)
    /// claimed at this one. Only the person can accept a host's move.
    #[error("host id {host_id:?} is bound to {pinned}; this document is at {found} (§2.2)")]
    HostIdConflict {
        /// The host id both documents claim.
        host_id: String,
        /// Where the key app first verified the host id.
        pinned: String,
        /// Where the document of this request is.
        found: String,
    },

    /// §5.3 "The consent trust boundary": a host or agent string, or the whole text
    /// the person would read, is longer than the key app shows (names, places and
    /// services bury the terms after them). Refused, never truncated.
    #[error("{what} has {chars} characters; at most {max} are shown, and nothing is truncated")]
    TextTooLong {
        /// What is too long ("a name, place or service", "the consent text", "agent_name").
        what: &'static str,
        /// Its length, in characters.
        chars: usize,
        /// The bound it exceeds.
        max: usize,
    },
}

/// Which part of an offer's price is not in the total's currency (§2.1, §5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PricePart {
    /// The offer's `price`.
    #[error("the price")]
    Price,
    /// The line at this index of `lines`.
    #[error("line {0}")]
    Line(usize),
}

/// Why a slot's times do not make a slot (§4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SlotCheck {
    /// The end is not after the start.
    #[error("the end is not after the start")]
    EndNotAfterStart,
    /// An open-ended booking's start plus the time its event sets aside overflows the calendar (§4.2).
    #[error("the booking's set-aside time runs past the calendar")]
    SetAsideOverflows,
}

/// How a receipt disagrees with what its agent knows (§5.3 "A receipt is evidence of the agreement").
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReceiptCheck {
    /// Its offer_sha256 is not its booking's.
    #[error("its offer_sha256 differs from its booking's")]
    OfferHashDiffersFromBooking,
    /// It names another offer than the one accepted.
    #[error("it names another offer than the one accepted")]
    AnotherOffer,
    /// It names another mandate than the one used.
    #[error("it names another mandate than the one used")]
    AnotherMandate,
    /// Its retention is not the contract's.
    #[error("its retention differs from the contract's")]
    AnotherRetention,
    /// It is a receipt for another booking.
    #[error("it is a receipt for another booking")]
    AnotherBooking,
    /// §5.7: it shows a move waiting on the host (`awaiting_host`) whose
    /// `expires_at` is after the booking's start.
    #[error("it shows a move waiting on the host past the booking's start (§5.7)")]
    MoveWaitsPastStart,
    /// §5.7: the move it shows waiting on the host is not the change offer accepted.
    #[error("the move it shows waiting on the host is not the change offer accepted (§5.7)")]
    MoveNotAccepted,
    /// §5.7: the change offer's `prev` is not the contract the receipt says the
    /// booking stands on, so the change does not extend the booking's hash chain.
    #[error("the change offer's prev is not the booking's current contract (§5.7 hash chain)")]
    PrevNotCurrentContract,
}

/// Which of §3.3 checks 1–4 (and the §3.4 SD-JWT profile's) a mandate fails; the
/// §9.2 reason of each is `mandate_invalid`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MandateCheck {
    /// A check shared with other objects failed (JSON, JWS typ or signature, key,
    /// schema, SD-JWT envelope, money or date-time in the constraints); the inner
    /// error says which. It is wrapped so the §9.2 reason stays `mandate_invalid`.
    #[error("{0}")]
    Underlying(Box<Error>),
    /// §3.3 Attenuation: the chain is longer than a root and one child.
    #[error("chains are limited to a root and one child (§3.3 Attenuation)")]
    ChainTooLong,
    /// §3.3 check 4 (§3.4: cnf.jwk): the leaf is bound to another key than the request's.
    #[error("the mandate is bound (cnf) to another key than the one that signed the request (§3.3 check 4)")]
    NotBoundToRequestKey,
    /// §3.3 check 1: a root mandate carries no principal_jwk.
    #[error("a root mandate carries principal_jwk (§3.3 check 1)")]
    RootWithoutPrincipalJwk,
    /// A root mandate carries an issuer_jwk.
    #[error("a root mandate carries no issuer_jwk (§3.3)")]
    RootWithIssuerJwk,
    /// §3.3 check 1: iss is not the principal of principal_jwk.
    #[error("iss is not the thumbprint of principal_jwk (§3.3 check 1)")]
    IssuerNotPrincipal,
    /// §3.3 Attenuation: a child mandate carries no issuer_jwk.
    #[error("a child mandate carries issuer_jwk (§3.3 Attenuation)")]
    ChildWithoutIssuerJwk,
    /// A child mandate carries principal_jwk.
    #[error("a child mandate carries issuer_jwk instead of principal_jwk (§3.3 Attenuation)")]
    ChildWithPrincipalJwk,
    /// §3.3 Attenuation: the child is not signed by the key its parent's cnf.jkt names.
    #[error("the child is not signed by the key its parent's cnf.jkt names (§3.3 Attenuation)")]
    ChildNotSignedByParentAgent,
    /// §3.3 Attenuation: the parent's scope does not include delegate.
    #[error("the parent's scope does not include delegate (§3.3 Attenuation)")]
    ParentCannotDelegate,
    /// §3.3 Attenuation: the child's scope is not a subset of its parent's.
    #[error("the child's scope is not a subset of its parent's (§3.3 Attenuation)")]
    ChildScopeWider,
    /// §3.3 Attenuation: a child's iss or sub differs from its parent's.
    #[error("a child's iss and sub are its parent's (§3.3 Attenuation)")]
    ChildChangesPrincipal,
    /// §3.3 Attenuation: the child expires after its parent.
    #[error("a child expires no later than its parent (§3.3 Attenuation)")]
    ChildOutlivesParent,
    /// §3.3 "Ids are per link": two links share a jti.
    #[error("links of a chain do not share a jti (§3.3 Ids are per link)")]
    SharedJti,
    /// §3.3 check 2: no aud element names this host.
    #[error("aud does not name {host} (§3.3 check 2)")]
    AudienceOmitsHost {
        /// The host that checked.
        host: String,
    },
    /// §3.4: this host's aud element is not disclosed in the presentation.
    #[error("this host's aud element is not disclosed (§3.3 check 2, §3.4)")]
    AudienceNotDisclosed,
    /// §3.3 check 2, §3.4: aud holds the wildcard "*", which the key app never
    /// issues and an SD-JWT mandate never holds.
    #[error("aud holds the wildcard \"*\" (§3.3 check 2, §3.4)")]
    WildcardAudience,
    /// §3.3 check 3: iat is more than 60 s ahead of now.
    #[error("iat {iat} is more than 60 s after now ({now}) (§3.3 check 3)")]
    IssuedInFuture {
        /// The link's iat.
        iat: i64,
        /// The time it was checked at.
        now: i64,
    },
    /// §3.4: an SD-JWT mandate names no host.
    #[error("an SD-JWT mandate names at least one host (§3.4)")]
    NoHost,
    /// §3.4: a closed SD-JWT mandate names more than one host.
    #[error("a closed mandate names exactly one host (§3.4)")]
    ClosedForSeveralHosts,
    /// §3.4: this host's host_constraints member is not disclosed (withholding fails closed).
    #[error("this host's host_constraints member is not disclosed (§3.4)")]
    HostConstraintsNotDisclosed,
    /// §3.4: a constraint is set both in the shared constraints and in a host's own.
    #[error("constraint {constraint:?} is set both shared and for {host} (§3.4)")]
    ConstraintSetTwice {
        /// The constraint's name.
        constraint: String,
        /// The host whose own constraints repeat it.
        host: String,
    },
    /// §3.4: a claim the evaluated mandate needs is missing after disclosure.
    #[error("claim {0} is missing (§3.4)")]
    MissingClaim(&'static str),
    /// §3.4: a claim is not of the type §3.3 gives it.
    #[error("claim {0} is not of its §3.3 type")]
    MistypedClaim(&'static str),
}

/// Which constraint of a mandate link an action breaks (§3.3 check 6); the §9.2
/// reason of each is `constraint_not_met`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LimitCheck {
    /// §3.3 Management mandates: the action is a hold, or on a booking the mandate does not list.
    #[error("the mandate covers only its listed bookings, and never a hold")]
    NotAListedBooking,
    /// §5.3 Closed mandates: the action accepts another offer than the one the mandate names.
    #[error("a closed mandate accepts only the offer it names (§5.3)")]
    NotTheNamedOffer,
    /// The service is not in constraints.services.
    #[error("service not in constraints.services")]
    ServiceNotListed,
    /// The slot is not inside constraints.window (bounds inclusive).
    #[error("slot outside constraints.window")]
    OutsideWindow,
    /// The total is above constraints.max_price, or in another currency (§2.1).
    #[error("total above constraints.max_price")]
    AboveMaxPrice,
    /// constraints.max_bookings active bookings are already made under this link.
    #[error("max_bookings reached ({max})")]
    MaxBookingsReached {
        /// The link's max_bookings.
        max: u32,
    },
}

/// Which §5.12 rule a meeting contract fails; the §9.2 reason of each is `meeting_invalid`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MeetingCheck {
    /// A check shared with other objects failed (JSON, JWS typ or signature, key,
    /// schema, date-time, zone); the inner error says which. It is wrapped so the
    /// §9.2 reason stays `meeting_invalid`.
    #[error("{0}")]
    Underlying(Box<Error>),
    /// iss is not the principal of principal_jwk.
    #[error("iss is not the principal of principal_jwk")]
    IssuerNotPrincipal,
    /// The contract's deadline (exp) has passed.
    #[error("the contract's deadline (exp {exp}) has passed (now {now})")]
    Expired {
        /// The contract's exp.
        exp: i64,
        /// The time it was checked at.
        now: i64,
    },
    /// The end is not after the start.
    #[error("the end is not after the start")]
    EndNotAfterStart,
    /// §5.12 "Members": two members are the same principal.
    #[error("members are distinct principals ({principal} is named twice)")]
    RepeatedPrincipal {
        /// The principal named twice.
        principal: String,
    },
    /// §5.12 "Members": two members share a calendar.
    #[error("each member has a calendar of their own ({host} is named twice)")]
    SharedCalendar {
        /// The host named twice.
        host: String,
    },
    /// §5.12 "Businesses": a member is marked business but not named by its host principal, or the reverse.
    #[error("a business member is named urn:schcp:host:<its host id> ({principal} is not)")]
    BusinessNaming {
        /// The member's principal.
        principal: String,
    },
    /// §5.12 "Members": the organizer (iss) is not one of the members.
    #[error("the organizer (iss) is one of the members")]
    OrganizerNotMember,
    /// §5.12 "Members": the organizer is marked business.
    #[error("the organizer is always a person")]
    OrganizerIsBusiness,
    /// §5.12 "Members": no member other than the organizer is a person.
    #[error("at least one other member is a person")]
    NoOtherPerson,
}

/// Which §5.12 rule an acceptance fails; the §9.2 reason of each is `acceptance_invalid`
/// (a member who must answer in person is [`Error::PersonRequired`] instead).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AcceptanceCheck {
    /// A check shared with other objects failed (JSON, JWS typ or signature, key,
    /// schema, or the rule's own [`Error::RuleInvalid`]); the inner error says
    /// which. It is wrapped so the §9.2 reason stays `acceptance_invalid`.
    #[error("{0}")]
    Underlying(Box<Error>),
    /// The principal is not a member of this contract.
    #[error("not a member of this contract")]
    NotMember,
    /// A business answers by its offer and sends no acceptance.
    #[error("a business answers by its offer and sends no acceptance")]
    BusinessMember,
    /// The organizer's signature on the contract is their yes.
    #[error("the organizer's signature on the contract is their yes")]
    OrganizerMember,
    /// iss is not the member's principal.
    #[error("iss is not the member's principal")]
    IssuerNotMember,
    /// terms_sha256 is not the contract's current hash.
    #[error("terms_sha256 is not the contract's current hash")]
    OtherTerms,
    /// iat is outside terms − 60 ≤ iat ≤ now + 60.
    #[error("iat {iat} outside terms − 60 ≤ iat ≤ now + 60 (terms {terms}, now {now})")]
    IatOutOfRange {
        /// The acceptance's iat.
        iat: i64,
        /// The contract's iat.
        terms: i64,
        /// The time it was checked at.
        now: i64,
    },
    /// by: "person" with a rule.
    #[error("a person's acceptance carries no rule")]
    PersonWithRule,
    /// by: "person" but jwk is not the member's own key.
    #[error("by person: jwk is the member's own key")]
    PersonKeyNotOwn,
    /// by: "rule" without a rule.
    #[error("by rule: rule is required")]
    RuleMissing,
    /// §7.9: the rule is signed by someone else than the member.
    #[error("the rule is not signed by the same person")]
    RuleByOtherPerson,
    /// §7.9: the rule's cnf does not name jwk as the agent key.
    #[error("the rule does not name jwk as the agent key")]
    RuleForOtherKey,
    /// §7.9: the rule was not in force at the acceptance's iat.
    #[error("the rule was not in force at the acceptance's iat")]
    RuleNotInForce,
    /// §7.9: the rule does not cover this service, weekday or organizer.
    #[error("the rule does not cover this service, weekday or organizer")]
    RuleDoesNotCover,
}

/// Which §7.9 rule a rule fails; the §9.2 reason of each is `rule_invalid`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleCheck {
    /// A check shared with other objects failed (JSON, JWS typ or signature, key,
    /// schema, zone); the inner error says which. It is wrapped so the §9.2
    /// reason stays `rule_invalid`.
    #[error("{0}")]
    Underlying(Box<Error>),
    /// iss is not the principal of principal_jwk.
    #[error("iss is not the principal of principal_jwk")]
    IssuerNotPrincipal,
    /// weekdays are read in tz, which is then required.
    #[error("weekdays are read in tz, which is then required")]
    WeekdaysWithoutZone,
    /// exp is not after iat.
    #[error("a rule expires after it is issued")]
    ExpiresBeforeIssued,
}

impl Error {
    /// The §9.2 code and reason for this failure.
    pub fn reason(&self) -> Refusal {
        let v = |reason| Refusal { code: Code::VerificationFailed, reason };
        match self {
            Error::Json(JsonError::DuplicateMember(_)) => v(Reason::DuplicateMember),
            Error::Json(_) => v(Reason::Malformed),
            Error::Jwk(_) => v(Reason::BadKey),
            Error::Jws(e) => v(match e {
                JwsError::UnknownKid(_) | JwsError::MissingKid | JwsError::AmbiguousKid(_) => Reason::UnknownKid,
                JwsError::WrongTyp { .. } => Reason::WrongTyp,
                JwsError::AlgNone | JwsError::AlgMismatch { .. } => Reason::AlgMismatch,
                JwsError::BadSignature => Reason::BadSignature,
                JwsError::BadJson { source: JsonError::DuplicateMember(_), .. } => Reason::DuplicateMember,
                JwsError::BadKey(_) => Reason::BadKey,
                _ => Reason::Malformed,
            }),
            Error::SdJwt(_) => Refusal { code: Code::MandateInvalid, reason: Reason::MandateInvalid },
            Error::Schema(_) => v(Reason::SchemaInvalid),
            Error::Money(_) => v(Reason::MoneyInvalid),
            Error::Duration(_) => v(Reason::DurationInvalid),
            Error::DateTime(_) => v(Reason::DateTimeInvalid),
            Error::Expired { .. } => v(Reason::Expired),
            Error::IssuedInFuture { .. } => v(Reason::IssuedInFuture),
            Error::WrongIssuer { .. } => v(Reason::WrongIssuer),
            Error::UnknownTimeZone(_) => v(Reason::UnknownTimeZone),
            Error::LinesDoNotSum { .. } => v(Reason::LinesDoNotSum),
            Error::MixedCurrencies(_) => v(Reason::MixedCurrencies),
            Error::BadSlot(_) => v(Reason::BadSlot),
            Error::ReceiptMismatch(_) => v(Reason::ReceiptMismatch),
            Error::MandateExpired { .. } => Refusal { code: Code::MandateInvalid, reason: Reason::MandateExpired },
            Error::MandateInvalid(_) => Refusal { code: Code::MandateInvalid, reason: Reason::MandateInvalid },
            Error::MandateScope { .. } => Refusal { code: Code::MandateScope, reason: Reason::OutOfScope },
            Error::MandateLimit { .. } => Refusal { code: Code::MandateLimit, reason: Reason::ConstraintNotMet },
            Error::MeetingInvalid(_) => Refusal { code: Code::InvalidRequest, reason: Reason::MeetingInvalid },
            Error::AcceptanceInvalid(_) => Refusal { code: Code::InvalidRequest, reason: Reason::AcceptanceInvalid },
            Error::PersonRequired => Refusal { code: Code::InvalidRequest, reason: Reason::PersonRequired },
            Error::RuleInvalid(_) => v(Reason::RuleInvalid),
            Error::HostIdConflict { .. } => v(Reason::HostIdConflict),
            Error::TextTooLong { .. } => v(Reason::TextTooLong),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrapped(e: Error) -> Box<Error> {
        Box::new(e)
    }

    #[test]
    fn mandate_failures_map_to_the_spec_reasons() {
        // §3.3 check 3: a passed exp is mandate_expired, everything else mandate_invalid.
        assert_eq!(Error::MandateExpired { exp: 1, now: 2 }.reason().reason, "mandate_expired");
        let invalid = Error::MandateInvalid(MandateCheck::WildcardAudience);
        assert_eq!(invalid.reason(), Refusal { code: Code::MandateInvalid, reason: Reason::MandateInvalid });
        let scope = Error::MandateScope { action: Action::Cancel, jti: "m".into() };
        assert_eq!(scope.reason(), Refusal { code: Code::MandateScope, reason: Reason::OutOfScope });
        let limit = Error::MandateLimit { check: LimitCheck::AboveMaxPrice, jti: "m".into() };
        assert_eq!(limit.reason(), Refusal { code: Code::MandateLimit, reason: Reason::ConstraintNotMet });
    }

    #[test]
    fn a_wrapped_failure_keeps_the_reason_of_the_object_it_wraps_into() {
        // A bad signature on a mandate is mandate_invalid (§3.3), not bad_signature.
        let sig = || wrapped(Error::Jws(JwsError::BadSignature));
        assert_eq!(Error::MandateInvalid(MandateCheck::Underlying(sig())).reason().reason, "mandate_invalid");
        assert_eq!(Error::MeetingInvalid(MeetingCheck::Underlying(sig())).reason().reason, "meeting_invalid");
        assert_eq!(Error::AcceptanceInvalid(AcceptanceCheck::Underlying(sig())).reason().reason, "acceptance_invalid");
        assert_eq!(Error::RuleInvalid(RuleCheck::Underlying(sig())).reason().reason, "rule_invalid");
        // The message is the inner one, once: no "caused by" chain repeats it.
        let e = Error::RuleInvalid(RuleCheck::Underlying(sig()));
        assert_eq!(e.to_string(), "rule invalid: the signature does not verify (§7.9)");
        assert!(std::error::Error::source(&e).is_none());
    }

    #[test]
    fn meeting_failures_map_to_invalid_request() {
        assert_eq!(
            Error::MeetingInvalid(MeetingCheck::NoOtherPerson).reason(),
            Refusal { code: Code::InvalidRequest, reason: Reason::MeetingInvalid }
        );
        assert_eq!(Error::PersonRequired.reason().reason, "person_required");
        let conflict =
            Error::HostIdConflict { host_id: "h".into(), pinned: "a.example".into(), found: "b.example".into() };
        assert_eq!(conflict.reason(), Refusal { code: Code::VerificationFailed, reason: Reason::HostIdConflict });
        assert_eq!(
            Error::AcceptanceInvalid(AcceptanceCheck::NotMember).reason(),
            Refusal { code: Code::InvalidRequest, reason: Reason::AcceptanceInvalid }
        );
    }

    #[test]
    fn offer_and_receipt_failures_are_verification_failed() {
        let cad = |a| Amount::parse(a, "CAD").unwrap();
        let cases = [
            (Error::RuleInvalid(RuleCheck::WeekdaysWithoutZone), Reason::RuleInvalid),
            (Error::LinesDoNotSum { sum: cad("1.00"), total: cad("2.00") }, Reason::LinesDoNotSum),
            (Error::MixedCurrencies(PricePart::Line(0)), Reason::MixedCurrencies),
            (Error::BadSlot(SlotCheck::EndNotAfterStart), Reason::BadSlot),
            (Error::ReceiptMismatch(ReceiptCheck::AnotherMandate), Reason::ReceiptMismatch),
            (Error::UnknownTimeZone("Mars/Olympus".into()), Reason::UnknownTimeZone),
        ];
        for (e, reason) in cases {
            assert_eq!(e.reason(), Refusal { code: Code::VerificationFailed, reason }, "{e}");
        }
    }

    #[test]
    fn messages_say_the_check_and_its_values() {
        let e = Error::MandateLimit { check: LimitCheck::MaxBookingsReached { max: 1 }, jti: "m-child".into() };
        assert_eq!(
            e.to_string(),
            "action outside the mandate's constraints: max_bookings reached (1) (m-child) (§3.3 check 6)"
        );
        let e = Error::MandateScope { action: Action::Cancel, jti: "m-root".into() };
        assert_eq!(e.to_string(), "action cancel is not in the scope of mandate m-root (§3.3 check 5)");
        let e = Error::MandateInvalid(MandateCheck::AudienceOmitsHost { host: "maple-street-auto".into() });
        assert_eq!(e.to_string(), "mandate invalid: aud does not name maple-street-auto (§3.3 check 2)");
    }

    #[test]
    fn text_past_its_bound_is_text_too_long() {
        let e = Error::TextTooLong { what: "a name, place or service", chars: 20_000, max: 300 };
        assert_eq!(e.reason(), Refusal { code: Code::VerificationFailed, reason: Reason::TextTooLong });
        assert!(e.to_string().contains("20000 characters"), "{e}");
    }

    #[test]
    fn signature_failures_are_specific() {
        assert_eq!(Error::Jws(JwsError::UnknownKid("k".into())).reason().reason, "unknown_kid");
        assert_eq!(Error::Jws(JwsError::AlgNone).reason().reason, "alg_mismatch");
        assert_eq!(Error::Jws(JwsError::BadSignature).reason().reason, "bad_signature");
    }
}
