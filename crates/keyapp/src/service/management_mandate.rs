//! The `management_mandate` kind (§3.3 "Management mandates", "Renewal"): a
//! mandate to cancel or reschedule one confirmed booking, issued on a verified
//! receipt.

use super::pipeline::{
    body, booking_mandate_record, corrupt, pseudonym, verified_domain, Issued, Prepared, ReceiptRecord,
};
use super::{Requester, Service, ServiceError};
use crate::kind::RequestKind;
use schcp::claims::{Action, Consent};
use schcp::issue;
use schcp::jwk::Jwk;
use schcp::verify::{HostKeys, ReceiptExpectations};
use schcp_consent::{BookingSummary, ConsentRequest, ManagementMandateRequest};
use serde::Deserialize;
use serde_json::{json, Map, Value};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ManagementBody {
    receipt: String,
    discovery: String,
}

pub(super) async fn prepare(
    svc: &Service,
    agent: &Requester,
    obj: &Map<String, Value>,
) -> Result<Prepared, ServiceError> {
    let b: ManagementBody = body(obj)?;
    let (receipt, host) =
        svc.inner.discovery.verify_receipt(&b.discovery, &b.receipt, ReceiptExpectations::default()).await?;
    let now = svc.now();
    let exp = issue::management_expiry(&receipt)?;
    if exp <= now {
        return Err(ServiceError::Verification(schcp::Error::Expired { what: "booking", exp, now }));
    }
    let booking = &receipt.claims.booking;
    named_only_as_guest(booking, svc.principal())?;
    // The receipt's offer is not at hand, so the booking is described from its
    // signed event and the host's discovery document.
    let summary = BookingSummary {
        booking_id: booking.booking_id.clone(),
        iss: receipt.claims.iss.clone(),
        host_name: Some(host.name.clone()),
        tz: Some(host.tz.clone()),
        domain: verified_domain(&host.domain),
        service_name: booking.event.title.clone(),
        resource_name: None,
        start: booking.start.clone(),
        end: booking.end.clone(),
        place: booking.place.clone(),
    };
    let mandate = ManagementMandateRequest {
        agent_name: svc.agent_name(&agent.jkt).await?,
        booking: summary,
        scope: vec![Action::Cancel, Action::Reschedule],
        exp,
    };
    let (consent, auto_approve) = match reconfirm_by(booking, svc.principal(), now) {
        // §5.10: the booker reconfirms with respond, "a management mandate will
        // do"; the person is told it reconfirms, and by when, and is always asked.
        Some(confirm_by) => (ConsentRequest::Reconfirmation { mandate, confirm_by }, false),
        None => {
            let auto_approve = match &receipt.claims.consent {
                Some(c) => root_covers_management(svc, &agent.jkt, &c.mandate, &host.host_id, now).await?,
                None => false,
            };
            (ConsentRequest::ManagementMandate(mandate), auto_approve)
        }
    };
    let input = json!({ "receipt": b.receipt, "host_id": host.host_id, "keys": host.keys });
    Ok(Prepared { consent, input, not_after: None, auto_approve })
}

/// §5.10: a participant answers with `respond`, which takes a mandate of any
/// scope. A management mandate ("manage my booking") over a booking that names
/// this person only as an invitee or attendee would therefore accept (or
/// decline) someone else's booking without the invitation's text: its
/// contract, price and deadline. Such a booking is answered with the
/// `invitation` kind instead.
fn named_only_as_guest(booking: &schcp::claims::Booking, me: &str) -> Result<(), ServiceError> {
    use schcp::claims::ParticipantRole;
    let mine: Vec<_> =
        booking.participants.as_deref().unwrap_or_default().iter().filter(|p| p.who.as_deref() == Some(me)).collect();
    if !mine.is_empty() && mine.iter().all(|p| p.role != ParticipantRole::Booker) {
        return Err(ServiceError::unacceptable(
            "participant_not_booker",
            "this booking names the person as a guest, not its booker; ask with the invitation kind",
        ));
    }
    Ok(())
}

/// The booker's reconfirmation deadline, when the booking's terms name this
/// person as `booker` with a `confirm_by` still ahead and their answer pending
/// (§5.10 "Reconfirmation reuses the mechanism").
fn reconfirm_by(booking: &schcp::claims::Booking, me: &str, now: i64) -> Option<String> {
    use schcp::claims::{ParticipantRole, ParticipantStatus};
    booking.participants.as_deref().unwrap_or_default().iter().find_map(|p| {
        let mine = p.role == ParticipantRole::Booker && p.who.as_deref() == Some(me);
        let pending = matches!(p.status, None | Some(ParticipantStatus::Pending));
        let by = p.confirm_by.as_deref()?;
        let ahead = schcp::datetime::parse_date_time(by).is_ok_and(|t| t.timestamp() > now);
        (mine && pending && ahead).then(|| by.to_owned())
    })
}

/// §3.3 / docs/agent-api.md: no prompt when the receipt's mandate is a root mandate this
/// key app issued to the same agent with both cancel and reschedule in scope,
/// so the management mandate grants nothing the person had not already granted.
/// The root must still be in force and name the host that signed the receipt:
/// a host that learnt another host's root jti cannot cite it for its own
/// bookings and skip the person (§3.3 steps 1 and 7).
async fn root_covers_management(
    svc: &Service,
    agent_jkt: &str,
    jti: &str,
    host_id: &str,
    now: i64,
) -> Result<bool, ServiceError> {
    let row: Option<(String, String)> = sqlx::query_as(
        "SELECT scope, aud FROM credentials
         WHERE jti = ? AND agent_jkt = ? AND kind = 'mandate' AND revoked_at IS NULL AND exp > ?",
    )
    .bind(jti)
    .bind(agent_jkt)
    .bind(now)
    .fetch_optional(svc.store().pool())
    .await?;
    let Some((scope, aud)) = row else { return Ok(false) };
    let scope: Vec<Action> = serde_json::from_str(&scope).map_err(corrupt)?;
    let aud: Vec<String> = serde_json::from_str(&aud).map_err(corrupt)?;
    Ok(scope.contains(&Action::Cancel) && scope.contains(&Action::Reschedule) && aud.iter().any(|h| h == host_id))
}

#[derive(Deserialize)]
struct HostInput {
    host_id: String,
    keys: Vec<Jwk>,
}

pub(super) async fn issue(
    svc: &Service,
    agent_jkt: &str,
    input: &Value,
    statement: &str,
    now: i64,
) -> Result<Issued, ServiceError> {
    let h: HostInput = serde_json::from_value(input.clone()).map_err(corrupt)?;
    let compact = input["receipt"].as_str().ok_or_else(|| corrupt("no receipt"))?;
    let receipt = schcp::verify::verify_receipt(
        compact,
        HostKeys { host_id: &h.host_id, keys: &h.keys },
        ReceiptExpectations::default(),
    )?;
    let jti = Service::new_id("m-");
    // Every credential the person can take back names where hosts check it
    // (§3.3 check 7): a yes can be withdrawn until the booking is made.
    let status_url = svc.config().status_url(&svc.principal_thumbprint(), &jti);
    let issued = issue::management_mandate(
        &receipt,
        pseudonym(svc.principal()),
        jti.clone(),
        now,
        agent_jkt.to_owned(),
        Consent { mode: None, statement: statement.to_owned() },
        Some(status_url),
        svc.inner.key.as_ref(),
    )?;
    let booking_id = receipt.claims.booking.booking_id.clone();
    let result = json!({ "mandate": issued.compact, "jti": jti, "exp": issued.claims.exp, "booking_id": booking_id });
    Ok(Issued {
        result,
        credentials: vec![booking_mandate_record(RequestKind::ManagementMandate, agent_jkt, &issued, Some(booking_id))],
        receipt: Some(ReceiptRecord::of(&receipt)),
        meeting: None,
    })
}
