//! What every surface shows: one typed view per thing the person (the window,
//! the control socket and the terminal it serves) or an agent is shown. The
//! service builds them; the surfaces only carry them, so the same item has the
//! same fields, limits and words on every surface. Every rule a surface acts on
//! (whether a credential can be revoked, a date in words) is a field here,
//! decided by the service, never re-derived by a surface.
//!
//! The window's TypeScript types are generated from these (ts-rs, honouring
//! the serde attributes): `ui/src/bindings.ts`, checked by src-tauri's
//! `bindings` test, which says how to regenerate it.

use crate::kind::RequestKind;
use crate::service::{PairingStatus, RequestStatus};
use crate::store::credentials::CredentialStatus;
use crate::store::host_bindings::DomainChange;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// A pending pairing or request, as the Requests screen and `schcp-keyapp
/// pending` list it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct PendingItem {
    pub id: String,
    /// `pairing`, or the request kind.
    pub kind: String,
    /// What is asked, in one line: "Synthetic oil change with Maple Street
    /// Auto …" (`schcp_consent::summary`), in the consent language.
    pub summary: String,
    pub agent_name: String,
    pub fingerprint: String,
    pub created_at: i64,
    /// `created_at` in words, in the person's language and time zone.
    pub created: String,
    pub expires_at: i64,
    /// `expires_at` in words, in the person's language and time zone.
    pub expires: String,
    /// Beside a pairing whose local user's earlier pairings keep being declined
    /// or going unanswered: the sentence telling the person (`churn_notice`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub churn: Option<String>,
}

/// Everything the consent window shows for one pairing or request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct Prompt {
    pub id: String,
    pub kind: String,
    /// A [`PromptStatus`]: the window answers only a pending one.
    #[ts(as = "PromptStatus")]
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
    /// The money and premises of the offer the request is about, from its
    /// verified claims (`schcp_consent::offer_terms`); none for a pairing,
    /// a mandate, a meeting or a rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terms: Option<OfferTermsView>,
}

/// What the consent window waits for, in one answer: the change counter and,
/// as the service has them after that change, the pending pairings and
/// requests with the oldest one's prompt, so a window with nothing on screen
/// shows a new request without asking again (`Requests::wait_pending`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct PendingChange {
    /// The change counter to wait past next.
    pub seen: u64,
    /// Every pending pairing and request, oldest first.
    pub pending: Vec<PendingItem>,
    /// The first of `pending`, as `Requests::prompt` shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oldest: Option<Prompt>,
}

/// The offer's price lines and the host's address (§5.2), in the consent
/// language, computed from the verified claims when the request is created and
/// stored with it, so the window lays them out without reading the text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct OfferTermsView {
    /// The host's name.
    pub host: String,
    /// The host's one-line address as it signed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// Every line of the total, in the signed order.
    pub lines: Vec<PriceLineView>,
    /// The all-in total in words, when a price is stated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<String>,
}

/// One line of an offer's total: `kind` is §5.2's (`service`, `fee`,
/// `surcharge`, `tax`); `label` the host's, inert; `amount` in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct PriceLineView {
    pub kind: String,
    pub label: String,
    pub amount: String,
}

impl From<schcp_consent::OfferTerms> for OfferTermsView {
    fn from(t: schcp_consent::OfferTerms) -> Self {
        let line = |l: schcp_consent::PriceLineWords| PriceLineView {
            kind: serde_json::to_value(l.kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
            label: l.label,
            amount: l.amount,
        };
        OfferTermsView {
            host: t.host,
            address: t.address,
            lines: t.lines.into_iter().map(line).collect(),
            total: t.total,
        }
    }
}

/// Where a prompt stands: a request's status, or a pairing's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum PromptStatus {
    Pending,
    Approved,
    Declined,
    Expired,
    Withdrawn,
    Unpaired,
}

impl PromptStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            PromptStatus::Pending => "pending",
            PromptStatus::Approved => "approved",
            PromptStatus::Declined => "declined",
            PromptStatus::Expired => "expired",
            PromptStatus::Withdrawn => "withdrawn",
            PromptStatus::Unpaired => "unpaired",
        }
    }
}

impl From<RequestStatus> for PromptStatus {
    fn from(s: RequestStatus) -> Self {
        match s {
            RequestStatus::Pending => PromptStatus::Pending,
            RequestStatus::Approved => PromptStatus::Approved,
            RequestStatus::Declined => PromptStatus::Declined,
            RequestStatus::Expired => PromptStatus::Expired,
            RequestStatus::Withdrawn => PromptStatus::Withdrawn,
        }
    }
}

impl From<PairingStatus> for PromptStatus {
    fn from(s: PairingStatus) -> Self {
        match s {
            PairingStatus::Pending => PromptStatus::Pending,
            PairingStatus::Approved => PromptStatus::Approved,
            PairingStatus::Declined => PromptStatus::Declined,
            PairingStatus::Expired => PromptStatus::Expired,
            PairingStatus::Unpaired => PromptStatus::Unpaired,
        }
    }
}

/// How much a callout weighs (`schcp_consent::attention::Grade`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum AttentionGrade {
    Grave,
    Caution,
    #[default]
    Notice,
}

impl From<schcp_consent::attention::Grade> for AttentionGrade {
    fn from(g: schcp_consent::attention::Grade) -> Self {
        match g {
            schcp_consent::attention::Grade::Grave => AttentionGrade::Grave,
            schcp_consent::attention::Grade::Caution => AttentionGrade::Caution,
            schcp_consent::attention::Grade::Notice => AttentionGrade::Notice,
        }
    }
}

/// One look-twice callout (`schcp_consent::AttentionKind::as_str`: `wide_mandate`,
/// `unverified_identity`, `price`, …), its grade, and its detail in the consent
/// language. Stored with the request, gravest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct AttentionView {
    pub kind: String,
    /// Callouts stored before grades existed read as notices.
    #[serde(default)]
    pub grade: AttentionGrade,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A request as agents and surfaces see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestView {
    pub request_id: String,
    pub kind: RequestKind,
    pub status: RequestStatus,
    pub consent_text: String,
    pub expires_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(skip)]
    pub agent_jkt: String,
    #[serde(skip)]
    pub created_at: i64,
    /// `expires_at` as a NumericDate, for surfaces that tell it in words.
    #[serde(skip)]
    pub expires_at_unix: i64,
    /// What is asked, in one line, for the person's lists ('' before it was kept).
    #[serde(skip)]
    pub summary: String,
}

/// A paired agent with the time and kind of its last request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct AgentView {
    pub jkt: String,
    pub name: String,
    pub fingerprint: String,
    pub paired_at: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_request_at: Option<i64>,
    /// `last_request_at` in words, in the person's language and time zone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_request: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_request_kind: Option<String>,
    /// While the agent may not ask (its last two requests declined or left
    /// unanswered): until when, in words; the person may let it ask again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cooldown: Option<String>,
    /// What unpairing it could take back.
    pub holds: HoldsView,
}

/// The credentials a paired agent holds, as unpairing asks about them (§3.3
/// check 7): how many a revocation reaches, and the others named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct HoldsView {
    /// How many it holds that revoking reaches the hosts of.
    pub revocable: u32,
    /// "Also revoke the N credentials it holds?", when it holds any revocable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// Each credential it holds that cannot be revoked, in a sentence saying
    /// so and when it lapses.
    pub not_revocable: Vec<String>,
}

/// What unpairing did, in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct UnpairedView {
    /// The credentials revoked with it (their ids).
    pub revoked: Vec<String>,
    /// "Unpaired. 2 credentials were revoked."
    pub words: String,
    /// Each credential it still holds, in a sentence: that it cannot be
    /// revoked, or (when the person chose not to) that it stays in force.
    pub kept: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct AttestationView {
    pub iss: String,
    pub exp: i64,
    /// `exp` in words, in the person's language and time zone.
    pub expires: String,
    pub compact: String,
}

/// The Settings screen's facts.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Settings {
    pub principal: String,
    #[ts(type = "Record<string, string>")]
    pub jwk: schcp::jwk::Jwk,
    pub status_public_base: String,
    /// Whether hosts can check the person's credentials at that address.
    pub hosts_can_check: HostsCanCheck,
    /// A [`KeystoreKind`]; the window says it in words.
    #[ts(as = "KeystoreKind")]
    pub keystore: &'static str,
    /// The language consent text is rendered in (`en`, `fr`).
    pub consent_language: String,
}

/// Whether hosts can read the status base (`status_reach`), as Settings says
/// it: each value names its words, `settings-status-{value}` in ui.ftl.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum HostsCanCheck {
    /// Any host can (https, a public name or address).
    Reachable,
    /// Only hosts on this machine can (`hosts_on_this_machine`).
    ThisMachine,
    /// No host can: credentials cannot be withdrawn before they expire.
    Unreachable,
}

impl From<&crate::status_reach::StatusReach> for HostsCanCheck {
    fn from(reach: &crate::status_reach::StatusReach) -> HostsCanCheck {
        use crate::status_reach::StatusReach;
        match reach {
            StatusReach::Public => HostsCanCheck::Reachable,
            StatusReach::ThisMachine => HostsCanCheck::ThisMachine,
            StatusReach::Unreachable(_) => HostsCanCheck::Unreachable,
        }
    }
}

/// Where the principal key is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum KeystoreKind {
    /// The OS keychain.
    Os,
    /// A passphrase-encrypted file.
    File,
}

impl KeystoreKind {
    pub fn as_str(self) -> &'static str {
        match self {
            KeystoreKind::Os => "os",
            KeystoreKind::File => "file",
        }
    }
}

/// A credential the key app issued, as the person's surfaces list it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, TS)]
#[ts(optional_fields)]
pub struct CredentialView {
    pub jti: String,
    pub kind: RequestKind,
    /// What it allows, in one line: the summary of the request the person
    /// approved for it (`schcp_consent::summary`), when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    pub aud: Vec<String>,
    pub exp: i64,
    /// `exp` in words, in the person's language and time zone.
    pub expires: String,
    #[serde(deserialize_with = "credential_status::deserialize")]
    #[ts(as = "credential_status::Name")]
    pub status: CredentialStatus,
    /// Whether the person can take it back now ([`CredentialView::can_revoke`]):
    /// the surfaces offer Revoke on exactly these.
    pub revocable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remaining: Option<i64>,
    /// Hosted mode (docs/hosted-status.md): what the status service has not yet acknowledged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publication: Option<Publication>,
    /// `publication` in words, in the person's language (ui.ftl of each locale).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publication_note: Option<String>,
    /// For a meeting contract or an acceptance: the meeting it is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meeting: Option<MeetingView>,
    /// How the OS confirmed the person's yes to it (`"polkit"`), on the
    /// person's own listing only; none where no person was asked (§3.3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirmed_by: Option<String>,
    /// `confirmed_by` in the person's words (ui.ftl of each locale).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirmed: Option<String>,
    /// Set when the record of what it allows was changed by another program
    /// (record_seal): why no summary is shown, in the person's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<String>,
    #[serde(skip)]
    pub agent_jkt: Option<String>,
}

impl CredentialView {
    /// Whether the person can revoke a credential of `kind` in `status`: a
    /// kind hosts read at a status URL (`RequestKind::revocable`, §3.3 check 7)
    /// that is still active. `Service::revoke` refuses the other kinds.
    pub fn can_revoke(kind: RequestKind, status: CredentialStatus) -> bool {
        kind.revocable() && status == CredentialStatus::Active
    }
}

/// One of the person's bookings, from its latest verified receipt (§5.3), in
/// the person's words: My bookings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct BookingView {
    /// The host's booking id (shown only under Details).
    pub booking_id: String,
    /// The host id (shown only under Details).
    pub host_id: String,
    /// The booked service, as the host's receipt names it.
    pub what: String,
    /// Its time, in the person's language, in the booking's own zone (as the
    /// consent text gave the offer's).
    pub when: String,
    /// The host: its name beside the domain the key app verified it at
    /// (§2.2), that domain alone where no name is known, or its id marked
    /// unverified.
    pub host: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<String>,
    /// The booking's state in words (confirmed, cancelled, …).
    pub state: String,
    /// Still to come (pending, tentative or confirmed, and not yet over).
    pub upcoming: bool,
    /// The start, as a NumericDate, for ordering.
    pub start: i64,
    /// What the person approved that it rests on, in one line, when the key
    /// app issued the credential the receipt names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rests_on: Option<String>,
    /// The management mandates that let an assistant change it (§3.3).
    pub managers: Vec<ManagerView>,
}

/// A management mandate over one booking, on My bookings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ManagerView {
    pub jti: String,
    /// The assistant it lets change the booking, by the name it paired under.
    pub agent_name: String,
    #[serde(deserialize_with = "credential_status::deserialize")]
    #[ts(as = "credential_status::Name")]
    pub status: CredentialStatus,
    /// Its expiry, in words.
    pub expires: String,
    /// Whether the person can take it back now.
    pub revocable: bool,
    /// Who may change the booking and until when, or that it no longer can,
    /// in one sentence.
    pub sentence: String,
}

/// The status API's [`CredentialStatus`] on the person's surfaces: read back
/// by the terminal, and named for the window's types (status-edge, where the
/// enum lives, serializes it but does neither).
mod credential_status {
    use super::CredentialStatus;
    use serde::{Deserialize, Deserializer, Serialize};

    // The same names, one for one: the matches below stop compiling when
    // status-edge adds a status.
    /// Whether hosts are told a credential holds: `GET /status/{jti}`'s word.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
    #[serde(rename_all = "lowercase")]
    #[ts(rename = "CredentialStatus")]
    pub(super) enum Name {
        Active,
        Revoked,
        Expired,
    }

    impl From<CredentialStatus> for Name {
        fn from(s: CredentialStatus) -> Self {
            match s {
                CredentialStatus::Active => Name::Active,
                CredentialStatus::Revoked => Name::Revoked,
                CredentialStatus::Expired => Name::Expired,
            }
        }
    }

    impl From<Name> for CredentialStatus {
        fn from(s: Name) -> Self {
            match s {
                Name::Active => CredentialStatus::Active,
                Name::Revoked => CredentialStatus::Revoked,
                Name::Expired => CredentialStatus::Expired,
            }
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<CredentialStatus, D::Error> {
        Name::deserialize(d).map(CredentialStatus::from)
    }
}

/// What the hosted status service still lacks about a credential.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, TS)]
#[serde(rename_all = "snake_case")]
pub enum Publication {
    /// Issued, not yet registered: the agent has not received it.
    RegistrationPending,
    /// Revoked here, hosts are not told yet: the service still answers "active".
    RevocationPending,
    /// The service refused to register it for good: hosts cannot check it,
    /// and the agent never received it.
    RegistrationRefused,
    /// Revoked here, but the service refused the revocation for good: hosts
    /// may read it as active until it expires.
    RevocationRefused,
}

impl Publication {
    /// Its message id in each locale's ui.ftl.
    pub fn message_id(self) -> &'static str {
        match self {
            Publication::RegistrationPending => "credentials-registration-unpublished",
            Publication::RevocationPending => "credentials-revocation-unpublished",
            Publication::RegistrationRefused => "credentials-registration-refused",
            Publication::RevocationRefused => "credentials-revocation-refused",
        }
    }

    /// From the outbox's ops for one credential: what the service refused for
    /// good says more than what it has yet to take, since it will never change.
    pub(crate) fn of(
        unpublished: &[crate::store::outbox::Op],
        refused: Option<crate::store::outbox::Op>,
    ) -> Option<Publication> {
        use crate::store::outbox::Op;
        match refused {
            Some(Op::Register) => return Some(Publication::RegistrationRefused),
            Some(Op::Revoke) => return Some(Publication::RevocationRefused),
            None => {}
        }
        if unpublished.contains(&Op::Register) {
            Some(Publication::RegistrationPending)
        } else if unpublished.contains(&Op::Revoke) {
            Some(Publication::RevocationPending)
        } else {
            None
        }
    }

    /// Whether the agent has the credential: not until the service registered it.
    pub fn withheld_from_agent(self) -> bool {
        matches!(self, Publication::RegistrationPending | Publication::RegistrationRefused)
    }
}

/// The meeting a contract or acceptance record is about (§5.12).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, TS)]
pub struct MeetingView {
    pub meeting_id: String,
    pub revision: u32,
    pub contract_sha256: String,
    /// The members by the names the contract gives them.
    pub members: Vec<String>,
    /// Whether this is the meeting's latest revision kept here; an earlier one
    /// was replaced by a revision the organizer signed (§5.12).
    pub current: bool,
}

/// A credential as its agent lists it (`GET /v1/mandates`, docs/agent-api.md
/// §7): only what hosts could learn too. Dates in words and the hosted
/// service's publication state are the person's alone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MandateView {
    pub jti: String,
    pub kind: RequestKind,
    pub aud: Vec<String>,
    pub exp: i64,
    pub status: CredentialStatus,
    /// Units left of a shared booking limit (mandates with `shared_limit` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remaining: Option<i64>,
}

impl From<CredentialView> for MandateView {
    fn from(c: CredentialView) -> Self {
        MandateView { jti: c.jti, kind: c.kind, aud: c.aud, exp: c.exp, status: c.status, remaining: c.remaining }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, TS)]
#[ts(optional_fields)]
pub struct HistoryEntry {
    pub at: i64,
    /// `at` in words, in the person's language and time zone.
    pub when: String,
    /// What happened, in one sentence in the person's language
    /// (`history_words::sentence`); the fields below are its details.
    pub sentence: String,
    pub event: String,
    pub subject: String,
    pub detail: String,
    /// How the OS confirmed the person's yes (`"polkit"`), on an approval's entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirmed_by: Option<String>,
    /// `confirmed_by` in the person's words (ui.ftl of each locale).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirmed: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, TS)]
#[ts(optional_fields)]
pub struct Contact {
    pub principal: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relationship: Option<String>,
}

/// A host id met at another place than its binding (§2.2), as the person's
/// surfaces show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct HostChangeView {
    #[serde(flatten)]
    pub change: DomainChange,
    /// The change in the person's words.
    pub words: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_credential_status_reads_back_as_it_was_written() {
        for status in [CredentialStatus::Active, CredentialStatus::Revoked, CredentialStatus::Expired] {
            let wire = serde_json::to_value(status).unwrap();
            assert_eq!(wire, serde_json::to_value(credential_status::Name::from(status)).unwrap());
            let back = credential_status::deserialize(wire).unwrap();
            assert_eq!(back, status);
        }
        assert!(credential_status::deserialize(serde_json::json!("lapsed")).is_err());
    }

    #[test]
    fn prompt_statuses_are_the_requests_and_the_pairings() {
        for s in RequestStatus::ALL {
            assert_eq!(PromptStatus::from(s).as_str(), s.as_str());
            assert_eq!(serde_json::to_value(PromptStatus::from(s)).unwrap(), serde_json::to_value(s).unwrap());
        }
        for s in PairingStatus::ALL {
            assert_eq!(PromptStatus::from(s).as_str(), s.as_str());
            assert_eq!(serde_json::to_value(PromptStatus::from(s)).unwrap(), serde_json::to_value(s).unwrap());
        }
    }

    #[test]
    fn only_an_active_credential_of_a_revocable_kind_can_be_revoked() {
        for kind in RequestKind::ALL {
            assert!(!CredentialView::can_revoke(kind, CredentialStatus::Revoked), "{kind}");
            assert!(!CredentialView::can_revoke(kind, CredentialStatus::Expired), "{kind}");
            assert_eq!(CredentialView::can_revoke(kind, CredentialStatus::Active), kind.revocable(), "{kind}");
        }
        assert!(!CredentialView::can_revoke(RequestKind::MeetingContract, CredentialStatus::Active));
        assert!(!CredentialView::can_revoke(RequestKind::Acceptance, CredentialStatus::Active));
        assert!(CredentialView::can_revoke(RequestKind::Mandate, CredentialStatus::Active));
    }

    #[test]
    fn the_agents_listing_has_exactly_the_documented_fields() {
        let view = CredentialView {
            jti: "m-1".into(),
            kind: RequestKind::Mandate,
            summary: Some("Permission to act at Maple Street Auto".into()),
            aud: vec!["maple-street-auto".into()],
            exp: 10,
            expires: "in words".into(),
            status: CredentialStatus::Active,
            revocable: true,
            remaining: Some(1),
            publication: Some(Publication::RevocationPending),
            publication_note: Some("not yet published".into()),
            meeting: None,
            confirmed_by: Some("polkit".into()),
            confirmed: Some("confirmed".into()),
            changed: None,
            agent_jkt: Some("j".into()),
        };
        let listed = serde_json::to_value(MandateView::from(view.clone())).unwrap();
        assert_eq!(
            listed,
            serde_json::json!({"jti": "m-1", "kind": "mandate", "aud": ["maple-street-auto"], "exp": 10,
                               "status": "active", "remaining": 1})
        );
        let without = MandateView::from(CredentialView { remaining: None, ..view });
        assert!(serde_json::to_value(without).unwrap().get("remaining").is_none());
    }

    #[test]
    fn a_credential_view_reads_back_as_the_terminal_receives_it() {
        let view = CredentialView {
            jti: "mc-1".into(),
            kind: RequestKind::MeetingContract,
            summary: Some("Meeting “Playdate”".into()),
            aud: vec![],
            exp: 10,
            expires: "in words".into(),
            status: CredentialStatus::Expired,
            revocable: false,
            remaining: None,
            publication: None,
            publication_note: None,
            meeting: Some(MeetingView {
                meeting_id: "mt".into(),
                revision: 2,
                contract_sha256: "h".into(),
                members: vec!["Noor".into()],
                current: true,
            }),
            confirmed_by: None,
            confirmed: None,
            changed: None,
            agent_jkt: None,
        };
        let wire = serde_json::to_string(&view).unwrap();
        assert_eq!(serde_json::from_str::<CredentialView>(&wire).unwrap(), view);
    }
}

/// Where hosts check the person's credentials (SchCP §3.3 "Status URLs"), as
/// Settings and the window's first run show it (`service::status_setup`).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(optional_fields)]
pub struct StatusSetupView {
    /// Whether the person has answered setup; the window's first run asks until then.
    pub answered: bool,
    /// The address in force, as setup's three answers name it.
    pub choice: crate::status_address::ChoiceKind,
    /// The base the status URLs of new credentials start with.
    pub base: String,
    pub hosts_can_check: HostsCanCheck,
    /// The choice in words, with what it means for hosts.
    pub words: String,
    /// An address the config asks for that the person has not confirmed: not
    /// in force until they confirm it to the OS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested: Option<RequestedStatusView>,
    /// Whether what the key app publishes reached the hosted status service.
    pub publication: PublicationState,
    /// `publication`, with what waits to be published, in words.
    pub publication_words: String,
    /// Updates waiting to be published.
    pub waiting: i64,
    /// Registrations and revocations the status service refused for good.
    pub refused: Vec<RefusedPublicationView>,
}

/// A status address the config asks for, not yet confirmed.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RequestedStatusView {
    pub base: String,
    /// What it is and that it is not in force, in words.
    pub words: String,
}

/// How publishing to a hosted status service stands; each value names its
/// words, `status-publication-{value}` in ui.ftl.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum PublicationState {
    /// Nothing was ever published (no hosted service, or nothing issued yet).
    Nothing,
    /// The last update reached the service, and none is failing.
    Reached,
    /// An update failed and is retried.
    Failing,
}

/// An update the status service refused for good.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RefusedPublicationView {
    pub jti: String,
    /// The service's §9 reason (`namespace_full`, `namespace_not_allowed`).
    pub reason: String,
    /// What was refused, when and why, in words.
    pub words: String,
}
