//! What an agent may ask the key app for (docs/agent-api.md §6), typed per
//! kind, and what comes back (§5).
//!
//! Each kind is one variant of [`NewRequest`] around one input struct, and one
//! variant of [`Credential`] around its result: adding a kind is adding one of
//! each (and its arm in [`Credential::from_result`]). Every input is closed
//! (`deny_unknown_fields`): nothing the key app computes itself (`consent_text`,
//! `offer_sha256`, `cnf`, …) can be written into a request through these types.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

#[cfg(feature = "schemars")]
use schemars::JsonSchema;

/// One request for the person's yes: the body of `POST /v1/requests` without
/// its `idempotency_key`, which [`crate::AgentClient::request`] adds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NewRequest {
    /// A root mandate (§3.3), or an SD-JWT VC mandate (§3.4).
    Mandate(MandateRequest),
    /// A closed mandate over exactly one host-signed offer (§5.3, §5.7).
    ClosedMandate(ClosedMandateRequest),
    /// A management mandate for one booking, from its receipt (§3.3).
    ManagementMandate(ManagementMandateRequest),
    /// A meeting contract, as the organizer (§5.12).
    MeetingContract(MeetingContractRequest),
    /// An acceptance of someone else's meeting contract (§5.12).
    Acceptance(AcceptanceRequest),
    /// A standing rule for one calendar agent (§7.9).
    Rule(RuleRequest),
    /// An answer to someone else's booking that names this person (§5.10).
    Invitation(InvitationRequest),
    /// The person's own yes to a booking on their own calendar (§7.7, §7.9).
    BookingAcceptance(BookingAcceptanceRequest),
    /// A credential to read one booking and nothing else (§5.5, §5.10).
    BookingRead(BookingReadRequest),
}

impl NewRequest {
    /// The wire name of the kind.
    pub fn kind(&self) -> RequestKind {
        match self {
            NewRequest::Mandate(_) => RequestKind::Mandate,
            NewRequest::ClosedMandate(_) => RequestKind::ClosedMandate,
            NewRequest::ManagementMandate(_) => RequestKind::ManagementMandate,
            NewRequest::MeetingContract(_) => RequestKind::MeetingContract,
            NewRequest::Acceptance(_) => RequestKind::Acceptance,
            NewRequest::Rule(_) => RequestKind::Rule,
            NewRequest::Invitation(_) => RequestKind::Invitation,
            NewRequest::BookingAcceptance(_) => RequestKind::BookingAcceptance,
            NewRequest::BookingRead(_) => RequestKind::BookingRead,
        }
    }

    /// The JSON body with `idempotency_key` added.
    pub fn body(&self, idempotency_key: &str) -> Value {
        let mut v = serde_json::to_value(self).expect("a typed request serializes");
        if let Value::Object(m) = &mut v {
            m.insert("idempotency_key".into(), Value::String(idempotency_key.to_owned()));
        }
        v
    }
}

/// The kinds of request (docs/agent-api.md §6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RequestKind {
    /// `mandate`.
    Mandate,
    /// `closed_mandate`.
    ClosedMandate,
    /// `management_mandate`.
    ManagementMandate,
    /// `meeting_contract`.
    MeetingContract,
    /// `acceptance`.
    Acceptance,
    /// `rule`.
    Rule,
    /// `invitation`.
    Invitation,
    /// `booking_acceptance`.
    BookingAcceptance,
    /// `booking_read`.
    BookingRead,
    /// A kind this client does not know (a newer key app).
    #[serde(untagged)]
    Other(String),
}

/// A host a root mandate is for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HostRef {
    /// The host's id, as its discovery document names it (never `*`).
    pub id: String,
    /// The https URL of the host's discovery document (`/.well-known/scheduling.json`).
    pub discovery: String,
}

/// What a mandate allows (§3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Hold a slot.
    Hold,
    /// Book it.
    Book,
    /// Cancel a booking.
    Cancel,
    /// Move a booking.
    Reschedule,
}

/// An amount of money.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Money {
    /// A decimal string, e.g. `"100.00"`.
    pub amount: String,
    /// The ISO 4217 code, e.g. `"CAD"`.
    pub currency: String,
}

/// When bookings may be.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Window {
    /// The earliest start, RFC 3339.
    pub not_before: String,
    /// The latest end, RFC 3339.
    pub not_after: String,
}

/// The limits an agent may ask a mandate to carry. `offer_sha256` and
/// `bookings` are not here: they come only from a verified offer or receipt.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Constraints {
    /// Service ids the mandate covers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub services: Option<Vec<String>>,
    /// When bookings may be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
    /// The most one booking may cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_price: Option<Money>,
    /// How many bookings at most.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bookings: Option<u32>,
    /// One count of `max_bookings` across every host, kept by the key app's status API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_limit: Option<bool>,
}

/// Whether the person approves each action or set limits in advance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ConsentMode {
    /// The person approved this very action.
    HumanPresent,
    /// The agent acts within limits the person set earlier.
    HumanNotPresent,
}

/// The form of a root mandate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
pub enum MandateFormat {
    /// A compact JWS (the default).
    #[serde(rename = "jws")]
    Jws,
    /// An SD-JWT VC, each host shown only its own part (§3.4).
    #[serde(rename = "dc+sd-jwt")]
    SdJwt,
}

/// `mandate`: a root mandate over one or more hosts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MandateRequest {
    /// 1 to 10 hosts, each once.
    pub hosts: Vec<HostRef>,
    /// What the mandate allows: some of `hold`, `book`, `cancel`, `reschedule`.
    pub scope: Vec<Action>,
    /// Limits on what may be booked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<Constraints>,
    /// ISO 8601 duration, e.g. `P7D` (1 day by default, at most 30 days).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime: Option<String>,
    /// `human_present` or `human_not_present`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consent_mode: Option<ConsentMode>,
    /// `jws` (default) or `dc+sd-jwt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<MandateFormat>,
    /// With `dc+sd-jwt` only: per host id, the constraints only that host is shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_constraints: Option<BTreeMap<String, Constraints>>,
    /// With `dc+sd-jwt` only: `EdDSA` (default) or `ES256`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alg: Option<String>,
}

/// `closed_mandate`: a yes to exactly one offer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ClosedMandateRequest {
    /// The host-signed booking or change offer (a compact JWS), exactly as received.
    pub offer: String,
    /// The https URL of the discovery document where the host was found.
    pub discovery: String,
}

/// `management_mandate`: cancel or move one booking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ManagementMandateRequest {
    /// The host-signed receipt of the booking (a compact JWS).
    pub receipt: String,
    /// The https URL of the host's discovery document.
    pub discovery: String,
}

/// Who answers for a member of a meeting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Answers {
    /// The member's own person, never a rule.
    Person,
    /// The person, or a rule they signed.
    PersonOrRule,
}

/// A place.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Place {
    /// Its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Street address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street: Option<String>,
    /// City or town.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locality: Option<String>,
    /// Region or province.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Postal code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2 country code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
}

/// Someone who comes along and does not answer (e.g. a child).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Attendee {
    /// Their name.
    pub name: String,
    /// How they relate to the person, e.g. `child`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relationship: Option<String>,
}

/// The terms of a meeting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Meeting {
    /// Its title.
    pub title: String,
    /// IANA time zone, e.g. `America/Toronto`.
    pub tz: String,
    /// Start, RFC 3339.
    pub start: String,
    /// End, RFC 3339 (or `open_end`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    /// True for a meeting without a set end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_end: Option<bool>,
    /// Where.
    pub place: Place,
    /// Who comes along without answering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attendees: Option<Vec<Attendee>>,
    /// Who answers for members by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<Answers>,
    /// Unix time (seconds): the deadline for everyone's answer, before the start.
    pub exp: i64,
    /// For a revision only: the meeting's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meeting_id: Option<String>,
    /// For a revision only: 2 or more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<u32>,
}

/// One member of a meeting and the offer their calendar (or business) signed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Member {
    /// Their name.
    pub name: String,
    /// The host id of their calendar or business.
    pub host: String,
    /// The https URL of that host's discovery document.
    pub discovery: String,
    /// The offer it signed for this meeting (compact JWS).
    pub offer: String,
    /// True for a business (shown by the name it signed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub business: Option<bool>,
    /// Who answers for this member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<Answers>,
}

/// `meeting_contract`: organize a meeting of several people.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MeetingContractRequest {
    /// The meeting's terms.
    pub meeting: Meeting,
    /// 2 to 20 members, one of them the person's own calendar.
    pub members: Vec<Member>,
}

/// `acceptance`: accept a meeting someone else organized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AcceptanceRequest {
    /// The organizer's signed meeting contract (compact JWS).
    pub contract: String,
}

/// A day of the week.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum Weekday {
    Mon,
    Tue,
    Wed,
    Thu,
    Fri,
    Sat,
    Sun,
}

/// `rule`: a standing yes for one calendar agent (§7.9).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RuleRequest {
    /// The RFC 7638 thumbprint of the calendar agent key the rule is for.
    pub agent_jkt: String,
    /// The person's own name for the rule.
    pub label: String,
    /// Service ids the rule covers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub services: Option<Vec<String>>,
    /// Days of the week, read in `tz`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weekdays: Option<Vec<Weekday>>,
    /// IANA time zone for `weekdays`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tz: Option<String>,
    /// Principal ids of the organizers the rule accepts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organizers: Option<Vec<String>>,
    /// ISO 8601 duration (30 days by default, at most 180).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime: Option<String>,
}

/// `invitation`: accept a booking someone else made that names this person
/// as an invitee (§5.10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct InvitationRequest {
    /// The host's `GET /bookings/{id}` response exactly as it was served: an object with `booking`, `receipt` (the
    /// host-signed receipt, a compact JWS) and `offer` (the booking's contract, a compact JWS). Pass it unchanged:
    /// the key app checks every part of it against the host's keys.
    pub booking: Map<String, Value>,
    /// The https URL of the host's discovery document.
    pub discovery: String,
}

/// `booking_acceptance`: the person's own yes to a booking someone made on
/// their own calendar (a host of kind `person` they own) that waits for them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BookingAcceptanceRequest {
    /// The booking's offer as the calendar signed it (a compact JWS), exactly as received.
    pub offer: String,
    /// The https URL of the calendar's discovery document.
    pub discovery: String,
}

/// `booking_read`: a credential that lets this agent read one booking at one
/// host and do nothing else (for an invitee's agent, before it answers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BookingReadRequest {
    /// The host's id, as its discovery document names it.
    pub host: String,
    /// The https URL of the host's discovery document.
    pub discovery: String,
    /// The booking to read (1 to 128 of `A-Z a-z 0-9 _ -`).
    pub booking_id: String,
    /// ISO 8601 duration (an hour by default, at most a day).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime: Option<String>,
}

/// Where a request stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RequestStatus {
    /// The person has not answered yet.
    Pending,
    /// The person said yes; the result is there.
    Approved,
    /// The person said no.
    Declined,
    /// Nobody answered in time.
    Expired,
    /// The agent withdrew it.
    Withdrawn,
}

impl RequestStatus {
    /// The wire spelling.
    pub fn as_str(&self) -> &'static str {
        match self {
            RequestStatus::Pending => "pending",
            RequestStatus::Approved => "approved",
            RequestStatus::Declined => "declined",
            RequestStatus::Expired => "expired",
            RequestStatus::Withdrawn => "withdrawn",
        }
    }
}

/// A request as the key app reports it (`POST /v1/requests`, `GET /v1/requests/{id}`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Request {
    /// `rq_…`.
    pub request_id: String,
    /// Its kind.
    pub kind: RequestKind,
    /// Where it stands.
    pub status: RequestStatus,
    /// Exactly what the person is shown.
    pub consent_text: String,
    /// When an unanswered request expires (RFC 3339), where the key app says.
    #[serde(default)]
    pub expires_at: Option<String>,
    /// What was issued: when `status` is `approved` (a no signs nothing).
    #[serde(default)]
    pub result: Option<Value>,
}

impl Request {
    /// The issued credential, typed by kind, when approved.
    pub fn credential(&self) -> Option<Result<Credential, serde_json::Error>> {
        self.result.as_ref().map(|r| Credential::from_result(&self.kind, r))
    }
}

/// The result of an approved `mandate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MandateResult {
    /// The mandate (compact JWS, or the SD-JWT VC).
    pub mandate: String,
    /// Its id.
    pub jti: String,
    /// Its expiry (Unix time).
    pub exp: i64,
    /// Its status URL (§3.3).
    pub status: String,
    /// For `dc+sd-jwt`: per host id, the issuer JWT with that host's disclosures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presentations: Option<BTreeMap<String, String>>,
}

/// The result of an approved `closed_mandate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClosedMandateResult {
    /// The mandate (compact JWS).
    pub mandate: String,
    /// Its id.
    pub jti: String,
    /// Its expiry (Unix time).
    pub exp: i64,
    /// The hash of the offer it is bound to.
    pub offer_sha256: String,
}

/// The result of an approved `management_mandate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManagementMandateResult {
    /// The mandate (compact JWS).
    pub mandate: String,
    /// Its id.
    pub jti: String,
    /// Its expiry (Unix time).
    pub exp: i64,
    /// The booking it manages.
    pub booking_id: String,
}

/// The result of an approved `meeting_contract`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeetingContractResult {
    /// The signed contract (compact JWS).
    pub contract: String,
    /// Its hash.
    pub contract_sha256: String,
    /// The meeting's id.
    pub meeting_id: String,
    /// Its revision.
    pub revision: u32,
}

/// The result of an approved `acceptance`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcceptanceResult {
    /// The signed acceptance (compact JWS).
    pub acceptance: String,
    /// The hash of the contract accepted.
    pub contract_sha256: String,
}

/// The result of an approved `rule`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleResult {
    /// The signed rule (compact JWS).
    pub rule: String,
    /// Its id.
    pub jti: String,
    /// Its expiry (Unix time).
    pub exp: i64,
}

/// The result of an approved `invitation`: a closed mandate for this agent to
/// accept the booking's current contract (`POST /bookings/{id}/respond`, §5.10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvitationResult {
    /// The mandate (compact JWS).
    pub mandate: String,
    /// Its id.
    pub jti: String,
    /// Its expiry (Unix time): no later than the booking's `confirm_by`.
    pub exp: i64,
    /// The hash of the contract it accepts, to send as `offer_sha256`.
    pub offer_sha256: String,
    /// The booking it answers.
    pub booking_id: String,
}

/// The result of an approved `booking_acceptance`: the person's signed yes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BookingAcceptanceResult {
    /// The acceptance (`schcp-acceptance+jwt`, compact JWS).
    pub acceptance: String,
    /// The hash of the offer it accepts.
    pub offer_sha256: String,
}

/// The result of an approved `booking_read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BookingReadResult {
    /// The mandate (compact JWS): reads that booking at that host, nothing else.
    pub mandate: String,
    /// Its id.
    pub jti: String,
    /// Its expiry (Unix time).
    pub exp: i64,
    /// The booking it reads.
    pub booking_id: String,
}

/// What an approved request issued, by kind.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Credential {
    /// See [`MandateResult`].
    Mandate(MandateResult),
    /// See [`ClosedMandateResult`].
    ClosedMandate(ClosedMandateResult),
    /// See [`ManagementMandateResult`].
    ManagementMandate(ManagementMandateResult),
    /// See [`MeetingContractResult`].
    MeetingContract(MeetingContractResult),
    /// See [`AcceptanceResult`].
    Acceptance(AcceptanceResult),
    /// See [`RuleResult`].
    Rule(RuleResult),
    /// See [`InvitationResult`].
    Invitation(InvitationResult),
    /// See [`BookingAcceptanceResult`].
    BookingAcceptance(BookingAcceptanceResult),
    /// See [`BookingReadResult`].
    BookingRead(BookingReadResult),
    /// A kind this client does not know: the result as it came.
    Other(Value),
}

impl Credential {
    /// Reads `result` as the result of `kind`.
    pub fn from_result(kind: &RequestKind, result: &Value) -> Result<Credential, serde_json::Error> {
        let r = result.clone();
        Ok(match kind {
            RequestKind::Mandate => Credential::Mandate(serde_json::from_value(r)?),
            RequestKind::ClosedMandate => Credential::ClosedMandate(serde_json::from_value(r)?),
            RequestKind::ManagementMandate => Credential::ManagementMandate(serde_json::from_value(r)?),
            RequestKind::MeetingContract => Credential::MeetingContract(serde_json::from_value(r)?),
            RequestKind::Acceptance => Credential::Acceptance(serde_json::from_value(r)?),
            RequestKind::Rule => Credential::Rule(serde_json::from_value(r)?),
            RequestKind::Invitation => Credential::Invitation(serde_json::from_value(r)?),
            RequestKind::BookingAcceptance => Credential::BookingAcceptance(serde_json::from_value(r)?),
            RequestKind::BookingRead => Credential::BookingRead(serde_json::from_value(r)?),
            RequestKind::Other(_) => Credential::Other(r),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_body_carries_its_kind_and_idempotency_key() {
        let r =
            NewRequest::ClosedMandate(ClosedMandateRequest { offer: "eyJ.a.b".into(), discovery: "https://h/".into() });
        assert_eq!(
            r.body("k1"),
            json!({"kind": "closed_mandate", "offer": "eyJ.a.b", "discovery": "https://h/", "idempotency_key": "k1"})
        );
        assert_eq!(r.kind(), RequestKind::ClosedMandate);
    }

    #[test]
    fn fields_the_key_app_computes_are_refused_by_the_types() {
        // §5.3: the key app alone puts offer_sha256 and cnf into what it signs.
        let with_hash = json!({"kind": "closed_mandate", "offer": "x", "discovery": "https://h/", "offer_sha256": "y"});
        assert!(serde_json::from_value::<NewRequest>(with_hash).is_err());
        let with_text = json!({"kind": "closed_mandate", "offer": "x", "discovery": "https://h/", "consent_text": "y"});
        assert!(serde_json::from_value::<NewRequest>(with_text).is_err());
        let constraints = json!({"max_bookings": 1, "offer_sha256": "y"});
        assert!(serde_json::from_value::<Constraints>(constraints).is_err());
        let plain = json!({"kind": "closed_mandate", "offer": "x", "discovery": "https://h/"});
        assert!(serde_json::from_value::<NewRequest>(plain).is_ok());
    }

    #[test]
    fn a_mandate_serializes_as_the_api_spells_it() {
        let r = NewRequest::Mandate(MandateRequest {
            hosts: vec![HostRef { id: "maple-street-auto".into(), discovery: "https://m/".into() }],
            scope: vec![Action::Hold, Action::Book],
            constraints: Some(Constraints { max_bookings: Some(2), shared_limit: Some(true), ..Default::default() }),
            lifetime: Some("P7D".into()),
            consent_mode: Some(ConsentMode::HumanNotPresent),
            format: Some(MandateFormat::SdJwt),
            host_constraints: None,
            alg: None,
        });
        assert_eq!(
            r.body("m"),
            json!({"kind": "mandate", "idempotency_key": "m",
                   "hosts": [{"id": "maple-street-auto", "discovery": "https://m/"}], "scope": ["hold", "book"],
                   "constraints": {"max_bookings": 2, "shared_limit": true}, "lifetime": "P7D",
                   "consent_mode": "human_not_present", "format": "dc+sd-jwt"})
        );
    }

    #[test]
    fn results_are_typed_by_kind_and_unknown_kinds_kept() {
        let res = json!({"mandate": "eyJ", "jti": "m-1", "exp": 5, "offer_sha256": "h"});
        let c = Credential::from_result(&RequestKind::ClosedMandate, &res).unwrap();
        assert!(matches!(c, Credential::ClosedMandate(ClosedMandateResult { ref jti, .. }) if jti == "m-1"));
        assert!(Credential::from_result(&RequestKind::Rule, &res).is_err());
        let kind: RequestKind = serde_json::from_value(json!("reservation")).unwrap();
        assert_eq!(kind, RequestKind::Other("reservation".into()));
        assert_eq!(Credential::from_result(&kind, &res).unwrap(), Credential::Other(res.clone()));
        // An invitation's result names its booking; a closed mandate's does not.
        assert!(Credential::from_result(&RequestKind::Invitation, &res).is_err());
        let inv = json!({"mandate": "eyJ", "jti": "m-2", "exp": 5, "offer_sha256": "h", "booking_id": "b_7"});
        let c = Credential::from_result(&RequestKind::Invitation, &inv).unwrap();
        assert!(matches!(c, Credential::Invitation(InvitationResult { ref booking_id, .. }) if booking_id == "b_7"));
    }

    #[test]
    fn booking_acceptance_and_booking_read_are_typed_both_ways() {
        let own = NewRequest::BookingAcceptance(BookingAcceptanceRequest {
            offer: "eyJ.o.s".into(),
            discovery: "https://calendars.example/m/ellis/scheduling.json".into(),
        });
        assert_eq!(
            own.body("own-1"),
            json!({"kind": "booking_acceptance", "idempotency_key": "own-1", "offer": "eyJ.o.s",
                   "discovery": "https://calendars.example/m/ellis/scheduling.json"})
        );
        let read = NewRequest::BookingRead(BookingReadRequest {
            host: "maple-street-auto".into(),
            discovery: "https://m/".into(),
            booking_id: "b_7".into(),
            lifetime: None,
        });
        assert_eq!(
            read.body("read-1"),
            json!({"kind": "booking_read", "idempotency_key": "read-1", "host": "maple-street-auto",
                   "discovery": "https://m/", "booking_id": "b_7"})
        );
        assert_eq!(read.kind(), RequestKind::BookingRead);
        // Nothing the key app computes, and nothing wider than one booking.
        for bad in [
            json!({"kind": "booking_read", "host": "h", "discovery": "d", "booking_id": "b", "scope": ["book"]}),
            json!({"kind": "booking_acceptance", "offer": "o", "discovery": "d", "by": "rule"}),
            json!({"kind": "booking_read", "host": "h", "discovery": "d"}),
        ] {
            assert!(serde_json::from_value::<NewRequest>(bad.clone()).is_err(), "{bad}");
        }
        let kind: RequestKind = serde_json::from_value(json!("booking_acceptance")).unwrap();
        let c = Credential::from_result(&kind, &json!({"acceptance": "eyJ.a.s", "offer_sha256": "h"})).unwrap();
        assert!(
            matches!(c, Credential::BookingAcceptance(BookingAcceptanceResult { ref offer_sha256, .. }) if offer_sha256 == "h")
        );
        let kind: RequestKind = serde_json::from_value(json!("booking_read")).unwrap();
        let r = json!({"mandate": "eyJ", "jti": "m-3", "exp": 5, "booking_id": "b_7"});
        assert!(matches!(Credential::from_result(&kind, &r).unwrap(), Credential::BookingRead(_)));
        assert!(Credential::from_result(&kind, &json!({"acceptance": "x", "offer_sha256": "h"})).is_err());
        // An invitation's result is the yes's mandate; a declined one has none.
        let yes = json!({"mandate": "eyJ", "jti": "m-4", "exp": 5, "offer_sha256": "h", "booking_id": "b_7"});
        let c = Credential::from_result(&RequestKind::Invitation, &yes).unwrap();
        assert!(matches!(c, Credential::Invitation(InvitationResult { ref booking_id, .. }) if booking_id == "b_7"));
    }

    #[test]
    fn an_invitation_carries_the_booking_as_served_and_nothing_else() {
        let booking = json!({"booking": {"booking_id": "b_7", "status": "tentative"}, "receipt": "eyJ.r.s",
                             "offer": "eyJ.o.s"});
        let body = json!({"kind": "invitation", "booking": booking, "discovery": "https://h/"});
        let r: NewRequest = serde_json::from_value(body.clone()).unwrap();
        assert_eq!(r.kind(), RequestKind::Invitation);
        let mut with_key = body.clone();
        with_key["idempotency_key"] = json!("inv-1");
        assert_eq!(r.body("inv-1"), with_key, "the served response is passed on unchanged");
        // §5.3: nothing the key app computes comes from the agent.
        let mut with_hash = body.clone();
        with_hash["offer_sha256"] = json!("y");
        assert!(serde_json::from_value::<NewRequest>(with_hash).is_err());
        let not_an_object = json!({"kind": "invitation", "booking": "eyJ.r.s", "discovery": "https://h/"});
        assert!(serde_json::from_value::<NewRequest>(not_an_object).is_err());
    }
}
