//! What the person is asked to approve: a typed request, built by the service from
//! verified claims and what the key app itself knows, rendered by [`crate::render`].
//!
//! Surfaces never build text, so every one says the same words: the desktop window, the terminal and the
//! agent API's `consent_text` all show what `render` returns for one of these.

use std::collections::BTreeMap;

use crate::claims::{
    Action, ConsentMode, MeetingContract, Money, OfferClaims, Participant, Place, ReceiptClaims, RuleClaims, Window,
};
use crate::domain::VerifiedDomain;
pub use schcp::verify::ProposedChange;

/// An offer whose signature, `kid` and closed schema the key app has verified (§5.2),
/// with the domain the key app itself discovered the host at (§2.2), if it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifiedOffer {
    /// The verified offer's claims.
    pub claims: OfferClaims,
    /// The host's own domain as discovered by the key app, never `host.domain` (§5.2).
    pub discovered: Option<VerifiedDomain>,
    /// The key app has not dealt with this host id before (§2.2: it binds a host
    /// id where the person first said yes to it): the text says so in one line.
    pub new_host: bool,
}

/// The person's contacts: principal id → the name the person knows them by.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contacts {
    by_principal: BTreeMap<String, String>,
}

impl Contacts {
    /// No contacts.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or renames a contact.
    pub fn insert(&mut self, principal: impl Into<String>, name: impl Into<String>) {
        self.by_principal.insert(principal.into(), name.into());
    }

    /// The person's own name for `principal`, if it is one of their contacts.
    pub fn name_of(&self, principal: &str) -> Option<&str> {
        self.by_principal.get(principal).map(String::as_str)
    }
}

impl<P: Into<String>, N: Into<String>> FromIterator<(P, N)> for Contacts {
    fn from_iter<I: IntoIterator<Item = (P, N)>>(iter: I) -> Self {
        let mut contacts = Contacts::new();
        for (p, n) in iter {
            contacts.insert(p, n);
        }
        contacts
    }
}

/// A host an open mandate names (`aud`), as the key app discovered it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MandateHost {
    /// The host id; `"*"` is any host (§3.3 check 2).
    pub id: String,
    /// `host.name` from the discovery document the key app fetched.
    pub name: Option<String>,
    /// The domain the key app discovered the host at.
    pub domain: Option<VerifiedDomain>,
    /// The key app has not dealt with this host id before (§2.2).
    pub new_host: bool,
}

/// A service an open mandate allows: its id and, when the key app read it from the
/// host's discovery document, its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceLabel {
    /// The service id (§3.3 `constraints.services`).
    pub id: String,
    /// Its name from the host's discovery document, when read.
    pub name: Option<String>,
}

/// An open mandate's constraints (§3.3). A constraint left out does not narrow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MandateConstraints {
    /// None: any service.
    pub services: Option<Vec<ServiceLabel>>,
    /// None: any time.
    pub window: Option<Window>,
    /// None: no price limit.
    pub max_price: Option<Money>,
    /// None: no limit on the number of bookings.
    pub max_bookings: Option<u32>,
    /// `shared_limit: true`: `max_bookings` is one limit across every host.
    pub shared_limit: bool,
}

/// An agent's request for a root (open) mandate (§3.3, docs/agent-api.md kind `mandate`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenMandateRequest {
    /// The name the agent paired under.
    pub agent_name: String,
    /// The hosts the mandate is for (its `aud`).
    pub hosts: Vec<MandateHost>,
    /// The actions it allows (§3.3 `scope`).
    pub scope: Vec<Action>,
    /// Its shared constraints.
    pub constraints: MandateConstraints,
    /// NumericDate the mandate expires at.
    pub exp: i64,
    /// The IANA zone to show times in: the hosts' zone when they share one. None (the
    /// hosts' zones differ) shows both ends of the window at its start's offset, and
    /// `exp` in UTC.
    pub tz: Option<String>,
    /// An SD-JWT mandate's own constraints of each host, by host id (§3.4
    /// `host_constraints`): each host evaluates the shared constraints plus its own,
    /// and no constraint is set in both places. Empty for a JWS mandate.
    pub host_constraints: BTreeMap<String, MandateConstraints>,
    /// The signed `consent.mode` the agent chose (§3.3, §5.3), said in words; none
    /// when the mandate states none.
    pub consent_mode: Option<ConsentMode>,
}

/// A confirmed booking as the key app read it from a verified receipt (§5.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookingSummary {
    /// The host's booking id.
    pub booking_id: String,
    /// The host id (the receipt's `iss`).
    pub iss: String,
    /// The host's name from the receipt or discovery, when it has one (host-supplied, shown inert).
    pub host_name: Option<String>,
    /// The host's IANA zone; None shows times at their own offset.
    pub tz: Option<String>,
    /// The domain the key app itself discovered the host at (§2.2).
    pub domain: Option<VerifiedDomain>,
    /// The key app has not dealt with this host id before (§2.2).
    pub new_host: bool,
    /// The booked service's name.
    pub service_name: String,
    /// The resource booked (a chair, a bay), when the host names one.
    pub resource_name: Option<String>,
    /// The booking's start (RFC 3339).
    pub start: String,
    /// None for an open-ended booking (§4.2).
    pub end: Option<String>,
    /// Where, when not at the host's (§5.2 `place`).
    pub place: Option<Place>,
}

/// A management mandate for one booking (§3.3 "Management mandates", "Renewal").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManagementMandateRequest {
    /// The name the agent paired under.
    pub agent_name: String,
    /// The booking the mandate manages.
    pub booking: BookingSummary,
    /// Only `cancel` and `reschedule` are allowed.
    pub scope: Vec<Action>,
    /// NumericDate the mandate expires at (the booking's end + 1 hour).
    pub exp: i64,
}

/// A meeting contract the person's key app signs as organizer (§5.12).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeetingContractRequest {
    /// The contract's claims, as the organizer's key app will sign them.
    pub contract: MeetingContract,
    /// Domains the key app itself discovered members' calendars at, by host id.
    pub domains: BTreeMap<String, VerifiedDomain>,
    /// The members' verified offers the contract names (by `offer_sha256`), in member
    /// order. Their terms beyond the statement (a business's price, each calendar's
    /// reconfirmation, approval deadline and retention) commit the organizer too
    /// (§5.3), so [`crate::render`] shows them after the statement.
    pub offers: Vec<VerifiedOffer>,
    /// For a revision (§5.12): the statement of the contract it replaces, as the
    /// person approved it here, so the text says this changes an agreed meeting.
    pub replaces: Option<String>,
}

/// A meeting contract the person accepts as a member (§5.12 "Acceptances").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcceptanceRequest {
    /// The verified contract's claims.
    pub contract: MeetingContract,
    /// The accepting person's own principal.
    pub me: String,
    /// Domains the key app itself discovered members' calendars at, by host id.
    pub domains: BTreeMap<String, VerifiedDomain>,
    /// For a revision (§5.12 "Revisions"): the revision it replaces, as this
    /// person knows it. None for a first revision.
    pub replaces: Option<ReplacedRevision>,
}

/// What a member knows of the revision a new one replaces (§5.12 "Revisions").
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)] // one per prompt; see `ConsentRequest`
pub enum ReplacedRevision {
    /// The latest revision this person accepted here: the text says what changed since.
    Accepted(MeetingContract),
    /// This person accepted no earlier revision here: the text says which one this replaces.
    NotAccepted {
        /// The revision just before the new one.
        revision: u32,
    },
}

/// The terms a booking stands on now, as the key app verified them: what a
/// change offer is shown "from" (§5.7).
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)] // one per prompt; see `ConsentRequest`
pub enum CurrentTerms {
    /// The contract offer the person approved here (every term, the resource included).
    Offer(VerifiedOffer),
    /// The booking as the host's verified receipt states it (§5.3): its time, place,
    /// party, price, reconfirmation and the contract's retention. A receipt names
    /// no resource.
    Receipt(ReceiptClaims),
}

/// A booking someone else made that names this person as a required participant
/// (§5.10), as the key app verified it: the booking's current contract, signed by the
/// host, and the booking's own words from the host-signed receipt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvitationRequest {
    /// The booking's current contract (the offer the receipt names), verified.
    pub contract: VerifiedOffer,
    /// The participant the booking names as its booker (`role: "booker"`), when it names one.
    pub booker: Option<Participant>,
    /// This person as the booking names them: `role: "invitee"` with `confirm_by`.
    pub me: Participant,
    /// The contract this person accepted before the booking changed (§5.10 "Changes
    /// re-ask"), as the key app verified it then; the text says what changes.
    pub replaces: Option<VerifiedOffer>,
}

/// A narrow read credential: a mandate that lets the agent read one booking at one
/// host (`GET /bookings/{id}`, §5.5), such as one the person is invited to (§5.10),
/// and nothing else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookingReadRequest {
    /// The name the agent paired under.
    pub agent_name: String,
    /// The host, as the key app discovered it.
    pub host: MandateHost,
    /// The host's booking id (agent-supplied, shown inert).
    pub booking_id: String,
    /// NumericDate the mandate expires at.
    pub exp: i64,
    /// The host's IANA zone, to show the expiry in.
    pub tz: Option<String>,
}

/// The agent key a rule lets answer (§7.9 `cnf.jkt`), as the key app knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentKey {
    /// The paired agent's name, when the key is one the person paired.
    pub name: Option<String>,
    /// The key's short fingerprint, as shown at pairing (docs/agent-api.md "Pairing").
    pub fingerprint: String,
}

/// A rule the person signs for their calendar agent (§7.9).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleRequest {
    /// The rule's claims, as the key app will sign them.
    pub rule: RuleClaims,
    /// The agent key the rule lets answer.
    pub agent: AgentKey,
}

/// Everything a person can be asked to approve on the key app's screen.
///
/// One is built per prompt and rendered a handful of times, so variant sizes do not
/// matter and plain values read better than boxes.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[allow(clippy::large_enum_variant)]
pub enum ConsentRequest {
    /// A closed mandate over one booking offer (§5.2, §5.3).
    BookingOffer(VerifiedOffer),
    /// A closed mandate over a change offer (§5.7), shown against the booking's current
    /// terms when the key app has them.
    ChangeOffer {
        /// The booking's current terms, when the key app holds them (§5.7 "from … to …").
        current: Option<CurrentTerms>,
        /// The proposed change offer.
        proposed: VerifiedOffer,
        /// Who proposes it: the guest, or the host (§5.8), whose proposal on a booking
        /// it has not yet approved is its counter (§5.11).
        by: ProposedChange,
    },
    /// A root mandate (§3.3).
    OpenMandate(OpenMandateRequest),
    /// A management mandate (§3.3).
    ManagementMandate(ManagementMandateRequest),
    /// A meeting contract, as its organizer (§5.12).
    MeetingContract(MeetingContractRequest),
    /// An acceptance of a meeting contract, as a member (§5.12).
    Acceptance(AcceptanceRequest),
    /// A rule (§7.9).
    Rule(RuleRequest),
    /// An invitation to someone else's booking, as a required participant (§5.10).
    Invitation(InvitationRequest),
    /// A mandate to read one booking at one host, and nothing else (§5.5, §5.10).
    BookingRead(BookingReadRequest),
    /// The person's own yes to a booking on their own calendar (§7.7, §7.9), signed as
    /// an acceptance of the booking's offer hash.
    OwnBooking(VerifiedOffer),
    /// A management mandate that also answers the booker's reconfirmation (§5.10
    /// "Reconfirmation reuses the mechanism").
    Reconfirmation {
        /// The management mandate asked for.
        mandate: ManagementMandateRequest,
        /// The booker's `confirm_by` (RFC 3339), from the booking's terms.
        confirm_by: String,
    },
    /// Pairing a new agent (docs/agent-api.md "Pairing").
    Pairing {
        /// The name the agent gave for itself (host-supplied text, shown inert).
        agent_name: String,
        /// The agent key's fingerprint, as the person compares it (docs/agent-api.md pairing).
        fingerprint: String,
    },
}
