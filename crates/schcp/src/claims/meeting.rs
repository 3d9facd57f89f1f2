//! Meetings of several people (§5.12): the organizer's contract and each member's
//! acceptance of it.

use serde::{Deserialize, Serialize};

use super::{de, wire, Place};
use crate::jwk::Jwk;
use crate::schema::{self, Def};

/// Who may answer for a member (§5.12, §7.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answers {
    /// The member's own person, never a rule.
    Person,
    /// The person, or a rule they signed (the default).
    #[default]
    PersonOrRule,
}

wire! {
    /// One member of a meeting (§5.12): a person, or a business (`business: true`,
    /// principal `urn:schcp:host:<host id>`) whose signed offer is its yes.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct Member {
        /// The member's principal: a person's key thumbprint URN, or a business's host principal.
        pub principal: String,
        /// The organizer's name for them, only ever shown in quotes to other members
        /// (§5.12 "What a member can trust").
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub name: String,
        /// Their calendar's host id.
        #[serde(deserialize_with = "de::string::<_, de::k::HostId>")]
        pub host: String,
        /// The calendar's own domain; `null` for a calendar kept by an operator.
        #[serde(deserialize_with = "de::nullable_string::<_, de::k::Hostname>")]
        pub domain: Option<String>,
        /// The service id from the host's discovery document.
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub service_id: String,
        /// The hash of that calendar's own signed offer for the time.
        #[serde(deserialize_with = "de::string::<_, de::k::B64Sha256>")]
        pub offer_sha256: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// `true` for a business, named by its host principal (§5.12 "Businesses").
        pub business: Option<bool>,
        /// Overrides the contract's `answers` for this member.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub answers: Option<Answers>,
    }
    check = Member::check;
}

impl Member {
    /// A business member, which answers by its offer (§5.12 "Businesses").
    pub fn is_business(&self) -> bool {
        self.business == Some(true)
    }

    fn check(&self) -> Result<(), &'static str> {
        let principal = serde_json::Value::String(self.principal.clone());
        if self.is_business() {
            if !schema::is_valid(Def::HostPrincipal, &principal) {
                return Err("a business member's principal is urn:schcp:host:<host id>");
            }
        } else if !schema::is_valid(Def::PrincipalId, &principal) {
            return Err("a member's principal is urn:schcp:principal:jwk-thumbprint:<thumbprint>");
        }
        Ok(())
    }
}

wire! {
    /// Someone who comes along and answers nothing (§5.12), e.g. a child.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[serde(deny_unknown_fields)]
    pub struct Attendee {
        /// Their name (someone who comes along and does not answer, §5.12).
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub name: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// How they relate to the person (e.g. `child`), as the person wrote it.
        pub relationship: Option<String>,
    }
}

wire! {
    /// Claims of a `schcp-meeting+jwt` (§5.12), signed by the organizer. Exactly one of
    /// `end` and `open_end`. Closed at every depth.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct MeetingContract {
        /// The protocol version, `0.4`.
        #[serde(deserialize_with = "de::string::<_, de::k::Version>")]
        pub v: String,
        /// The organizer.
        #[serde(deserialize_with = "de::string::<_, de::k::PrincipalId>")]
        pub iss: String,
        /// The signer's public key; `iss` is its principal (self-certifying).
        #[serde(deserialize_with = "de::ed25519_jwk")]
        pub principal_jwk: Jwk,
        /// When the organizer signed it; acceptances are no earlier than this less 60 s (§5.12).
        #[serde(deserialize_with = "de::numeric_date")]
        pub iat: i64,
        /// The deadline for everyone's answer.
        #[serde(deserialize_with = "de::numeric_date")]
        pub exp: i64,
        /// The meeting's id, the same across revisions (§5.12).
        #[serde(deserialize_with = "de::string::<_, de::k::Id>")]
        pub meeting_id: String,
        /// Starts at 1; each revision is higher.
        #[serde(deserialize_with = "de::positive")]
        pub revision: u32,
        /// The meeting's title, as the organizer wrote it.
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub title: String,
        /// The IANA zone the meeting is said in.
        #[serde(deserialize_with = "de::string::<_, de::k::TimeZone>")]
        pub tz: String,
        /// The start (RFC 3339 date-time with offset).
        #[serde(deserialize_with = "de::string::<_, de::k::DateTime>")]
        pub start: String,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::DateTime>"
        )]
        /// The end (RFC 3339); absent when open-ended (§4.2).
        pub end: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_true"
        )]
        /// `true` when it has no end (§4.2).
        pub open_end: Option<bool>,
        /// Where it happens.
        pub place: Place,
        /// At least two.
        pub members: Vec<Member>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        /// People who come along without answering.
        pub attendees: Option<Vec<Attendee>>,
        /// Absent means `person_or_rule`.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::present"
        )]
        pub answers: Option<Answers>,
        /// The text the organizer approved, generated from these claims.
        #[serde(deserialize_with = "de::string::<_, de::k::Text>")]
        pub statement: String,
    }
    check = MeetingContract::check;
}

impl MeetingContract {
    /// §4.2: `open_end: true`.
    pub fn is_open_ended(&self) -> bool {
        self.open_end == Some(true)
    }

    /// Who may answer for `member`: its own `answers`, else the contract's (§5.12).
    pub fn answers_for(&self, member: &Member) -> Answers {
        member.answers.or(self.answers).unwrap_or_default()
    }

    fn check(&self) -> Result<(), &'static str> {
        if self.members.len() < 2 {
            return Err("a meeting has at least two members");
        }
        if self.is_open_ended() == self.end.is_some() {
            return Err("a meeting contract has exactly one of end and open_end");
        }
        Ok(())
    }
}

/// How a member accepted (§5.12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AcceptedBy {
    /// The member's own key signed it.
    Person,
    /// Their calendar agent's key, under a rule they signed (carried in `rule`).
    Rule,
}

wire! {
    /// Claims of a `schcp-acceptance+jwt` (§5.12). Closed.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(deny_unknown_fields)]
    pub struct Acceptance {
        /// The member's principal.
        #[serde(deserialize_with = "de::string::<_, de::k::PrincipalId>")]
        pub iss: String,
        /// When it was given: terms − 60 ≤ iat ≤ now + 60 (§5.12).
        #[serde(deserialize_with = "de::numeric_date")]
        pub iat: i64,
        /// The contract's (or offer's) hash: what binds the acceptance to its terms.
        #[serde(deserialize_with = "de::string::<_, de::k::B64Sha256>")]
        pub terms_sha256: String,
        /// Informative only; a verifier does not compare it.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Id>"
        )]
        pub meeting_id: Option<String>,
        /// `person`, or `rule` by the member's calendar agent (§7.9).
        pub by: AcceptedBy,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::Text>"
        )]
        /// What the person read, for `by: person`.
        pub statement: Option<String>,
        /// The signing key: the member's own (`person`) or their agent's (`rule`).
        #[serde(deserialize_with = "de::ed25519_jwk")]
        pub jwk: Jwk,
        /// The compact `schcp-rule+jwt`, exactly when `by` is `rule`.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "de::opt_string::<_, de::k::CompactJws>"
        )]
        pub rule: Option<String>,
    }
    check = Acceptance::check;
}

impl Acceptance {
    fn check(&self) -> Result<(), &'static str> {
        if (self.by == AcceptedBy::Rule) != self.rule.is_some() {
            return Err("an acceptance carries a rule exactly when it is by rule");
        }
        Ok(())
    }
}
