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

/// Whether what `req` asks the person to sign carries a status URL (§3.3),
/// and so could be withdrawn before it expires where hosts can read it.
pub fn carries_status(req: &ConsentRequest) -> bool {
    match req {
        ConsentRequest::BookingOffer(_)
        | ConsentRequest::ChangeOffer { .. }
        | ConsentRequest::OpenMandate(_)
        | ConsentRequest::ManagementMandate(_)
        | ConsentRequest::Reconfirmation { .. }
        | ConsentRequest::Invitation(_)
        | ConsentRequest::BookingRead(_) => true,
        ConsentRequest::MeetingContract(_)
        | ConsentRequest::Acceptance(_)
        | ConsentRequest::OwnBooking(_)
        | ConsentRequest::Rule(_)
        | ConsentRequest::Pairing { .. } => false,
    }
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
