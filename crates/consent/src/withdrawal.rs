//! "Hosts cannot check with this key app, so I cannot withdraw this before it
//! expires.": one line at the end of a credential's text when the hosts it is
//! for cannot read its status URL.
//!
//! A credential is withdrawn by revoking it, and a host learns of that only by
//! fetching the credential's status URL (§3.3 "Status URLs"). Hosts fetch under
//! §5.8's outbound policy, so a status URL on a loopback or private address, or
//! over plain http, is one no host reads: a revocation there reaches nobody,
//! and the credential stays good until it expires. What the person is told is
//! what hosts will see, so the text says so. Only credentials that carry a
//! status URL get the line (mandates of every kind, and the mandate an
//! invitation's answer is); meeting contracts, acceptances and rules have none
//! and are never revocable, whatever the key app's status address, so a line
//! on them would suggest that elsewhere they could be.

use crate::locale::Locale;
use crate::request::ConsentRequest;
use crate::ConsentError;

/// Whether a credential the person signs can be withdrawn before it expires:
/// whether the hosts it is for can read its status URL. The key app decides
/// it from its configured status address; the text only says it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Withdrawal {
    /// Hosts read the credential's status: revoking it reaches them. The text
    /// says nothing of it.
    #[default]
    ReachesHosts,
    /// Hosts cannot read its status: the text says, in one line, that it
    /// cannot be withdrawn before it expires.
    NotBeforeExpiry,
}

/// What a consent request asks the person to sign. Whether it carries a
/// status URL is decided here ([`Signs::carries_status`]) and nowhere else:
/// the text's withdrawal line and the key app's Revoke (its request kinds
/// map to these) both read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Signs {
    /// A mandate of any kind, named at a status URL hosts read (§3.3 check 7);
    /// the answer to an invitation is one (§5.10).
    Mandate,
    /// A meeting contract, read by the members' calendars (§5.12).
    MeetingContract,
    /// An acceptance of a meeting contract (§5.12).
    Acceptance,
    /// A rule, kept by the person's calendar and never published (§7.9).
    Rule,
}

impl Signs {
    /// Every thing a person can be asked to sign.
    pub const ALL: [Signs; 4] = [Signs::Mandate, Signs::MeetingContract, Signs::Acceptance, Signs::Rule];

    /// Whether it carries a status URL (§3.3), and so could be withdrawn
    /// before it expires where hosts can read it. Contracts, acceptances and
    /// rules are read from the members' and the person's calendars, never
    /// from a status URL, so nobody could learn of a withdrawal.
    pub fn carries_status(self) -> bool {
        match self {
            Signs::Mandate => true,
            Signs::MeetingContract | Signs::Acceptance | Signs::Rule => false,
        }
    }
}

/// What `req` asks the person to sign; nothing for a pairing, which signs
/// nothing.
pub fn signs(req: &ConsentRequest) -> Option<Signs> {
    match req {
        ConsentRequest::BookingOffer(_)
        | ConsentRequest::ChangeOffer { .. }
        | ConsentRequest::OpenMandate(_)
        | ConsentRequest::ManagementMandate(_)
        | ConsentRequest::Reconfirmation { .. }
        | ConsentRequest::Invitation(_)
        | ConsentRequest::BookingRead(_) => Some(Signs::Mandate),
        ConsentRequest::MeetingContract(_) => Some(Signs::MeetingContract),
        // The person's own yes to a booking on their calendar is an
        // acceptance (§7.9), kept by the calendar like a member's.
        ConsentRequest::Acceptance(_) | ConsentRequest::OwnBooking(_) => Some(Signs::Acceptance),
        ConsentRequest::Rule(_) => Some(Signs::Rule),
        ConsentRequest::Pairing { .. } => None,
    }
}

/// Whether what `req` asks the person to sign carries a status URL (§3.3),
/// and so could be withdrawn before it expires where hosts can read it.
pub fn carries_status(req: &ConsentRequest) -> bool {
    signs(req).is_some_and(Signs::carries_status)
}

/// `text` with the line last, when `withdrawal` says hosts cannot read the
/// status of what `req` signs; `text` unchanged otherwise.
pub(crate) fn with_withdrawal(
    locale: &Locale,
    req: &ConsentRequest,
    withdrawal: Withdrawal,
    text: String,
) -> Result<String, ConsentError> {
    if withdrawal == Withdrawal::ReachesHosts || !carries_status(req) {
        return Ok(text);
    }
    let line = locale.message("not-withdrawable", &[])?;
    Ok(format!("{text}\n{line}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_mandate_carries_a_status_url() {
        let carrying: Vec<Signs> = Signs::ALL.into_iter().filter(|s| s.carries_status()).collect();
        assert_eq!(carrying, [Signs::Mandate]);
    }
}
