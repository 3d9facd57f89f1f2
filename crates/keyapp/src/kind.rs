//! The request kinds of the agent API (docs/agent-api.md "The kinds"), and the
//! one place their names are mapped to and from the wire and the database.
//!
//! A credential's kind is the kind of the request that issued it, so the
//! records and the status API use the same enum.

use schcp_consent::Signs;
use serde::{Deserialize, Serialize};

/// What an agent asks the person for; each is verified, shown and issued by
/// its own module of `service`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum RequestKind {
    /// A root mandate, compact JWS (§3.3) or SD-JWT VC (§3.4).
    Mandate,
    /// A closed mandate over one exact, verified offer or change offer (§5.3).
    ClosedMandate,
    /// A management mandate for a confirmed booking (§3.3 "Management mandates").
    ManagementMandate,
    /// A meeting contract signed as its organizer (§5.12).
    MeetingContract,
    /// An acceptance of another person's meeting contract (§5.12).
    Acceptance,
    /// A rule that lets the person's calendar agent answer for them (§7.9).
    Rule,
    /// A yes to someone else's booking that names the person as a required
    /// participant: a closed mandate for `respond` (§5.10).
    Invitation,
    /// The person's own yes to a booking on their own calendar (§7.7, §7.9):
    /// an acceptance of the booking's offer hash, by person.
    BookingAcceptance,
    /// A mandate to read one booking at one host and nothing else (§5.5),
    /// such as one the person is invited to (§5.10).
    BookingRead,
}

/// A kind name that is none of [`RequestKind`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown kind {0:?}")]
pub struct UnknownKind(pub String);

impl RequestKind {
    /// Every kind, in the order the documentation lists them.
    pub const ALL: [RequestKind; 9] = [
        RequestKind::Mandate,
        RequestKind::ClosedMandate,
        RequestKind::ManagementMandate,
        RequestKind::MeetingContract,
        RequestKind::Acceptance,
        RequestKind::Rule,
        RequestKind::Invitation,
        RequestKind::BookingAcceptance,
        RequestKind::BookingRead,
    ];

    /// The name on the wire and in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestKind::Mandate => "mandate",
            RequestKind::ClosedMandate => "closed_mandate",
            RequestKind::ManagementMandate => "management_mandate",
            RequestKind::MeetingContract => "meeting_contract",
            RequestKind::Acceptance => "acceptance",
            RequestKind::Rule => "rule",
            RequestKind::Invitation => "invitation",
            RequestKind::BookingAcceptance => "booking_acceptance",
            RequestKind::BookingRead => "booking_read",
        }
    }

    /// What a request of this kind asks the person to sign, as the consent
    /// text knows it: an invitation's answer is a closed mandate (§5.10).
    pub fn signs(self) -> Signs {
        match self {
            RequestKind::Mandate
            | RequestKind::ClosedMandate
            | RequestKind::ManagementMandate
            | RequestKind::Invitation
            | RequestKind::BookingRead => Signs::Mandate,
            RequestKind::MeetingContract => Signs::MeetingContract,
            RequestKind::Acceptance | RequestKind::BookingAcceptance => Signs::Acceptance,
            RequestKind::Rule => Signs::Rule,
        }
    }

    /// Whether the person can take a credential of this kind back: whether
    /// what it signs carries a status URL hosts read (§3.3 check 7), decided
    /// once, by `schcp_consent::Signs::carries_status`, which the consent
    /// text's withdrawal line reads too. A rule is never published (§7.9
    /// "Rules are kept by the person's calendar"), and a contract or an
    /// acceptance is read by the members' calendars, never from here
    /// (§5.12), so nobody could learn of a revocation.
    pub fn revocable(self) -> bool {
        self.signs().carries_status()
    }

    /// Whether its credential names hosts in `aud`: a mandate does (§5.2,
    /// §5.3, §5.10); a rule names an agent key instead (§7.9), and contracts
    /// and acceptances name members.
    pub fn has_audience(self) -> bool {
        self.signs() == Signs::Mandate
    }
}

impl std::str::FromStr for RequestKind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, UnknownKind> {
        RequestKind::ALL.into_iter().find(|k| k.as_str() == s).ok_or_else(|| UnknownKind(s.to_owned()))
    }
}

impl std::fmt::Display for RequestKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_match_serde() {
        for k in RequestKind::ALL {
            assert_eq!(k.as_str().parse::<RequestKind>(), Ok(k));
            assert_eq!(serde_json::to_value(k).unwrap(), serde_json::Value::String(k.as_str().into()));
        }
    }

    #[test]
    fn unknown_and_near_miss_names_are_refused() {
        for bad in ["", "Mandate", "mandate ", "closed-mandate", "pairing", "sign"] {
            assert_eq!(bad.parse::<RequestKind>(), Err(UnknownKind(bad.into())));
        }
    }

    #[test]
    fn only_mandates_are_revocable() {
        let not: Vec<_> = RequestKind::ALL.into_iter().filter(|k| !k.revocable()).collect();
        assert_eq!(
            not,
            [RequestKind::MeetingContract, RequestKind::Acceptance, RequestKind::Rule, RequestKind::BookingAcceptance]
        );
    }

    /// One concept: a kind is revocable exactly when the consent text of what
    /// it signs could carry the withdrawal line, and every signed thing is
    /// some kind's.
    #[test]
    fn revocable_is_the_consent_texts_carries_status() {
        for k in RequestKind::ALL {
            assert_eq!(k.revocable(), k.signs().carries_status(), "{k}");
            assert_eq!(k.has_audience(), k.revocable(), "{k}: a revocable credential names the hosts that check it");
        }
        for s in Signs::ALL {
            assert!(RequestKind::ALL.iter().any(|k| k.signs() == s), "{s:?} is no kind's");
        }
    }
}
