//! The `management_mandate` kind (§3.3 "Management mandates", "Renewal"): a
//! mandate to cancel or reschedule one booking, issued on a verified receipt.
//!
//! Issued without a prompt only when it grants nothing the person had not
//! already granted (§3.3 "Renewal never widens authority"): the receipt cites a
//! root mandate this key app issued to the same agent, with cancel and
//! reschedule in scope, for this host at the same domain and keys (§2.2), and
//! the booking is confirmed and fits the root's services, window and
//! max_price. The mandate then carries those constraints, lives no longer than
//! the root (the "Valid until" the person read), and is revoked with the
//! root. A receipt of a moved booking renews it: same booking, newer sequence,
//! same narrow scope, and the previous one is revoked.

use super::hosts::Placed;
use super::issued::{booking_mandate_record, receipt_record, Issued};
use super::kind::{verified_domain, Context, Kind, Prepared};
use super::{Service, ServiceError};
use crate::discovery::DiscoveredHost;
use crate::kind::RequestKind;
use crate::store::management_links::{self, CurrentManagement, ManagementLink};
use schcp::claims::{Action, Booking, BookingStatus, Consent, Constraints, MandateClaims};
use schcp::issue::{self, ManagementTerms};
use schcp::jwk::Jwk;
use schcp::refusal::Reason;
use schcp::verify::{ActionCheck, ChainContext, HostKeys, ReceiptExpectations, VerifiedReceipt};
use schcp_consent::{BookingSummary, ConsentRequest, ManagementMandateRequest};
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ManagementBody {
    receipt: String,
    discovery: String,
}

#[derive(Serialize)]
pub(super) struct ManagementResult {
    mandate: String,
    jti: String,
    exp: i64,
    booking_id: String,
}

/// What `issue` builds the mandate from: the host's signed receipt, the keys
/// it was verified with, and the terms and chain decided when it was shown.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct StoredManagement {
    receipt: String,
    host_id: String,
    keys: Vec<Jwk>,
    /// Absent in requests stored before the terms existed: the person's own.
    #[serde(default)]
    constraints: Option<Constraints>,
    #[serde(default)]
    not_after: Option<i64>,
    #[serde(default)]
    root_jti: Option<String>,
    #[serde(default)]
    replaces: Option<String>,
    #[serde(default)]
    mandate: Option<String>,
    #[serde(default)]
    retention: Option<String>,
}

/// The root a management mandate's stored input says it was issued under
/// without a prompt, if any; `None` for an input that does not read as one.
pub(super) fn root_of(input: &str) -> Option<String> {
    serde_json::from_str::<StoredManagement>(input).ok()?.root_jti
}

impl StoredManagement {
    /// What is kept of a verified receipt and the chain decided for it; the
    /// root is kept only when it is what lets the mandate go without a prompt.
    fn of(
        receipt: String,
        host: &DiscoveredHost,
        terms: ManagementTerms,
        chain: Chain,
        auto: bool,
    ) -> StoredManagement {
        StoredManagement {
            receipt,
            host_id: host.host_id.clone(),
            keys: host.keys.clone(),
            constraints: Some(terms.constraints),
            not_after: Some(terms.not_after),
            root_jti: chain.root.as_ref().filter(|_| auto).map(|r| r.jti.clone()),
            replaces: chain.replaces,
            mandate: chain.mandate,
            retention: chain.retention,
        }
    }

    fn terms(&self, iat: i64, booking: &schcp::claims::Booking) -> ManagementTerms {
        match (&self.constraints, self.not_after) {
            (Some(c), Some(not_after)) => ManagementTerms { constraints: c.clone(), not_after },
            _ => ManagementTerms::approved(iat, booking),
        }
    }

    fn expectations(&self) -> ReceiptExpectations<'_> {
        ReceiptExpectations {
            mandate: self.mandate.as_deref(),
            retention: self.retention.as_deref(),
            ..Default::default()
        }
    }
}

/// Where the mandate stands in its chain, decided from the records.
#[derive(Default)]
struct Chain {
    /// The verified root it rests on, when it is issued without a prompt.
    root: Option<MandateClaims>,
    /// The management mandate it renews (§3.3 "Renewal"), revoked at issuance.
    replaces: Option<String>,
    /// What the receipt must say (§5.3): the mandate it cites and the retention.
    mandate: Option<String>,
    retention: Option<String>,
}

pub(super) struct ManagementMandate;

impl Kind for ManagementMandate {
    const KIND: RequestKind = RequestKind::ManagementMandate;
    type Body = ManagementBody;
    type Input = StoredManagement;
    type Output = ManagementResult;

    async fn prepare(ctx: &Context<'_>, b: ManagementBody) -> Result<Prepared<StoredManagement>, ServiceError> {
        let now = ctx.now;
        let (first, host) =
            ctx.discovery.verify_receipt(&b.discovery, &b.receipt, ReceiptExpectations::default()).await?;
        let placed = ctx.records.place(&host).await?;
        check_booking_live(&first.claims.booking)?;
        check_awaiting_move(&first.claims.booking)?;
        named_only_as_guest(&first.claims.booking, ctx.principal.id)?;
        let chain = chain_for(ctx, &host, &placed, &first).await?;
        // §5.3: the receipt names the mandate it cites and the contract's retention,
        // as the records know them.
        let expect = ReceiptExpectations {
            mandate: chain.mandate.as_deref(),
            retention: chain.retention.as_deref(),
            booking_id: Some(&first.claims.booking.booking_id),
            offer_sha256: None,
        };
        let receipt = schcp::verify::verify_receipt(&b.receipt, host.host_keys(), expect)?;
        let terms = match &chain.root {
            Some(root) => ManagementTerms::under_root(root),
            None => ManagementTerms::approved(now, &receipt.claims.booking),
        };
        let exp = issue::management_expiry(&receipt, now, &terms)?;
        if exp <= now {
            return Err(ServiceError::Verification(schcp::Error::Expired { what: "booking", exp, now }));
        }
        let mandate = ManagementMandateRequest {
            agent_name: ctx.records.agent_name(ctx.agent_jkt).await?,
            booking: summary(&receipt, &host, placed.new),
            scope: vec![Action::Cancel, Action::Reschedule],
            exp,
        };
        let (consent, auto_approve) = match reconfirm_by(&receipt.claims.booking, ctx.principal.id, now) {
            // §5.10: the booker reconfirms with respond, "a management mandate will
            // do"; the person is told it reconfirms, and by when, and is always asked.
            Some(confirm_by) => (ConsentRequest::Reconfirmation { mandate, confirm_by }, false),
            None => (ConsentRequest::ManagementMandate(mandate), chain.root.is_some()),
        };
        let input = StoredManagement::of(b.receipt, &host, terms, chain, auto_approve);
        Ok(Prepared { consent, input, not_after: None, auto_approve, hosts: vec![placed.binding] })
    }

    async fn issue(
        ctx: &Context<'_>,
        stored: StoredManagement,
        statement: &str,
    ) -> Result<Issued<ManagementResult>, ServiceError> {
        let now = ctx.now;
        let keys = HostKeys { host_id: &stored.host_id, keys: &stored.keys };
        let receipt = schcp::verify::verify_receipt(&stored.receipt, keys, stored.expectations())?;
        let jti = Service::new_id("m-");
        let issued = issue::management_mandate(
            &receipt,
            &stored.terms(now, &receipt.claims.booking),
            ctx.principal.pseudonym(),
            jti.clone(),
            now,
            ctx.agent_jkt.to_owned(),
            Consent { mode: None, statement: statement.to_owned() },
            // Every credential the person can take back names where hosts check it
            // (§3.3 check 7): a yes can be withdrawn until the booking is made.
            Some(ctx.status_url(&jti)),
            ctx.principal.key,
        )?;
        let booking = &receipt.claims.booking;
        let booking_id = booking.booking_id.clone();
        let link = ManagementLink {
            jti: jti.clone(),
            root_jti: stored.root_jti.clone(),
            host_id: stored.host_id.clone(),
            booking_id: booking_id.clone(),
            sequence: booking.sequence,
            retention: receipt.claims.retention.clone(),
        };
        let kind = Self::KIND;
        let record = booking_mandate_record(kind, ctx.agent_jkt, &issued, Some(booking_id.clone()));
        let result = ManagementResult { mandate: issued.compact, jti, exp: issued.claims.exp, booking_id };
        Ok(Issued {
            receipt: Some(receipt_record(&receipt)),
            management: Some((link, stored.replaces)),
            ..Issued::one(result, record)
        })
    }
}

/// The receipt's booking in words. The receipt's offer is not at hand, so it
/// is described from its signed event and the host's discovery document.
fn summary(receipt: &VerifiedReceipt, host: &DiscoveredHost, new_host: bool) -> BookingSummary {
    let booking = &receipt.claims.booking;
    BookingSummary {
        booking_id: booking.booking_id.clone(),
        iss: receipt.claims.iss.clone(),
        host_name: Some(host.name.clone()),
        tz: Some(host.tz.clone()),
        domain: verified_domain(&host.domain),
        new_host,
        service_name: booking.event.title.clone(),
        resource_name: None,
        start: booking.start.clone(),
        end: booking.end.clone(),
        place: booking.place.clone(),
    }
}

/// §3.3: nothing to manage on a booking that will not happen.
fn check_booking_live(booking: &Booking) -> Result<(), ServiceError> {
    if matches!(
        booking.status,
        BookingStatus::Cancelled | BookingStatus::Declined | BookingStatus::Expired | BookingStatus::Completed
    ) {
        return Err(ServiceError::unacceptable(
            Reason::BookingNotConfirmed,
            "the receipt's booking is cancelled, declined, expired or over; there is nothing to manage (§3.3)",
        ));
    }
    Ok(())
}

/// §5.7: a receipt whose move waits on the host (`awaiting_host`) past the
/// booking's start is refused: the held new time is "never past the
/// booking's own start".
fn check_awaiting_move(booking: &Booking) -> Result<(), ServiceError> {
    if let Some(p) = booking.proposal.as_ref().filter(|p| p.awaiting_host == Some(true)) {
        let at = |s: &str| schcp::datetime::parse_date_time(s).map(|t| t.timestamp()).map_err(schcp::Error::from);
        if at(&p.expires_at)? > at(&booking.start)? {
            return Err(ServiceError::unacceptable(
                Reason::BookingNotConfirmed,
                "the receipt shows a move waiting on the host past the booking's start (§5.7)",
            ));
        }
    }
    Ok(())
}

/// Decides renewal and the no-prompt path from the records (see the module
/// documentation). A receipt not newer than one a management mandate for the
/// same booking was issued on is a replay, refused (`stale_receipt`): read
/// before and again after the chain is decided, since a twin of this receipt
/// recorded meanwhile (the same receipt sent in several requests at once) may
/// have left its root covering nothing more, which would send this one to the
/// person; a replay is refused, never put in the person's window.
async fn chain_for(
    ctx: &Context<'_>,
    host: &DiscoveredHost,
    placed: &Placed,
    receipt: &VerifiedReceipt,
) -> Result<Chain, ServiceError> {
    not_stale(ctx, receipt).await?;
    let chain = decide_chain(ctx, host, placed, receipt).await?;
    not_stale(ctx, receipt).await?;
    Ok(chain)
}

/// §3.3 "Renewal": refused when a management mandate for the receipt's
/// booking was issued on this sequence or a newer one.
async fn not_stale(ctx: &Context<'_>, receipt: &VerifiedReceipt) -> Result<(), ServiceError> {
    let booking = &receipt.claims.booking;
    let (host_id, booking_id) = (&receipt.claims.iss, &booking.booking_id);
    if let Some(seen) = management_links::latest_sequence(ctx.store, host_id, booking_id).await? {
        if booking.sequence <= seen {
            return Err(ServiceError::unacceptable(
                Reason::StaleReceipt,
                format!(
                    "a management mandate for booking {booking_id} was issued on its sequence {seen}; \
                     a renewal needs the moved booking's newer receipt (§3.3 \"Renewal\")"
                ),
            ));
        }
    }
    Ok(())
}

/// The chain a receipt not seen stale gets: a renewal of the mandate in
/// force, or a first one, silent only under a root that covers it.
async fn decide_chain(
    ctx: &Context<'_>,
    host: &DiscoveredHost,
    placed: &Placed,
    receipt: &VerifiedReceipt,
) -> Result<Chain, ServiceError> {
    let (agent_jkt, now) = (ctx.agent_jkt, ctx.now);
    let booking = &receipt.claims.booking;
    let (host_id, booking_id) = (&receipt.claims.iss, &booking.booking_id);
    let cited = receipt.claims.consent.as_ref().map(|c| c.mandate.clone());
    let current = management_links::current(ctx.store, host_id, booking_id, now)
        .await?
        .filter(|c| c.agent_jkt.as_deref() == Some(agent_jkt));
    let confirmed = booking.status == BookingStatus::Confirmed;
    let Some(current) = current else {
        // A first management mandate: silent only under a root that covers it.
        let root = match (&cited, confirmed) {
            (Some(jti), true) => root_covering(ctx, jti, host, placed, receipt).await?,
            _ => None,
        };
        // §5.3: a receipt under that root states the host's published retention.
        let retention = root.as_ref().map(|_| host.document.policies.retention.clone());
        return Ok(Chain { mandate: root.as_ref().map(|r| r.jti.clone()), retention, root, replaces: None });
    };
    renewal(ctx, host, placed, receipt, current, cited, confirmed).await
}

/// §3.3 "Renewal": the moved booking's receipt, for the same booking id and a
/// newer sequence (checked by `chain_for`), replaces the management mandate in
/// force. Silent when the move was made under that mandate and its root still
/// covers the moved booking; otherwise the person is asked.
async fn renewal(
    ctx: &Context<'_>,
    host: &DiscoveredHost,
    placed: &Placed,
    receipt: &VerifiedReceipt,
    current: CurrentManagement,
    cited: Option<String>,
    confirmed: bool,
) -> Result<Chain, ServiceError> {
    let link = current.link;
    let under_current = cited.as_deref() == Some(link.jti.as_str());
    let root = match (&link.root_jti, under_current && confirmed) {
        // The link says which root the mandate in force rests on; it is a
        // record the person's programs can write, so it counts only as the
        // sealed records say it (a planted link would make any credential
        // "the mandate in force" under any root).
        (Some(root), true) => match ctx.records.rests_on(&link.jti, root).await? {
            true => root_covering(ctx, root, host, placed, receipt).await?,
            false => None,
        },
        _ => None,
    };
    Ok(Chain {
        root,
        replaces: Some(link.jti.clone()),
        // The move was accepted under the current mandate, or the person signs.
        mandate: under_current.then(|| link.jti.clone()),
        retention: Some(link.retention),
    })
}

/// The root mandate `jti` verified, when it covers a management mandate for
/// the receipt's booking without a prompt: issued by this key app to the same
/// agent, in force, cancel and reschedule in scope, naming the host, issued at
/// the place and with the keys this receipt was verified with (§2.2), and the
/// booking within its services, window and max_price (§3.3 check 6).
async fn root_covering(
    ctx: &Context<'_>,
    jti: &str,
    host: &DiscoveredHost,
    placed: &Placed,
    receipt: &VerifiedReceipt,
) -> Result<Option<MandateClaims>, ServiceError> {
    let (agent_jkt, now) = (ctx.agent_jkt, ctx.now);
    let Some(root) = management_links::live_root(ctx.store, jti, now).await? else { return Ok(None) };
    let host_id = host.host_id.as_str();
    let granted = root.agent_jkt.as_deref() == Some(agent_jkt)
        && root.scope.contains(&Action::Cancel)
        && root.scope.contains(&Action::Reschedule)
        && root.aud.iter().any(|h| h == host_id);
    if !granted {
        return Ok(None);
    }
    let key = signing_key(&receipt.compact, &host.keys);
    // A look-alike or moved host gets nothing without the person (§2.2).
    if !ctx.records.at_credential_place(jti, &placed.binding, Some(key.as_deref().unwrap_or_default())).await? {
        return Ok(None);
    }
    let chain_ctx = ChainContext { host_id, request_jkt: agent_jkt, now, allow_wildcard: false };
    let Ok(chain) = schcp::verify::verify_mandate_chain(&root.compact, &chain_ctx) else { return Ok(None) };
    // Issued by this key app means signed by this principal: the chain's
    // check only shows the root is self-consistent (its iss is its own key's
    // thumbprint, §3.3 check 1), and the records it is read from can be written
    // by the person's programs, so a root another key signed covers nothing.
    if chain.root.claims.iss != ctx.principal.id {
        return Ok(None);
    }
    // The root the receipt cites, not another the row was made to hold: a
    // compact replaced in the records is another root's terms.
    if chain.child.is_some() || chain.root.claims.jti != jti {
        return Ok(None);
    }
    // Its row says it is not revoked; where hosts check it must say so too.
    if !ctx.records.root_stands(&root.jti, &root.compact).await? {
        return Ok(None);
    }
    // The scope as signed, not only as the records say it: `check_action`
    // checks cancel in the signed root; reschedule is checked here.
    if !chain.root.claims.scope.contains(&Action::Reschedule) {
        return Ok(None);
    }
    let Some(action) = cancel_of(&receipt.claims.booking) else { return Ok(None) };
    Ok(schcp::verify::check_action(&chain, &action).is_ok().then_some(chain.root.claims))
}

/// The RFC 7638 thumbprint of the discovery key that signed `compact`.
fn signing_key(compact: &str, keys: &[Jwk]) -> Option<String> {
    let kid = schcp::jws::parse(compact).ok()?.header.kid?;
    keys.iter().find(|k| k.kid.as_deref() == Some(kid.as_str()))?.thumbprint().ok()
}

/// Cancelling the booking, as a host checks it against a mandate (§3.3 check
/// 6): its service, its slot and its total. `None` when a value is unreadable.
fn cancel_of(b: &Booking) -> Option<ActionCheck<'_>> {
    let at = |s: &str| schcp::datetime::parse_date_time(s).ok();
    let total = match &b.total {
        Some(t) => Some(schcp::money::Amount::parse(&t.amount, &t.currency).ok()?),
        None => None,
    };
    Some(ActionCheck {
        scope: Action::Cancel,
        service_id: Some(&b.service_id),
        start: Some(at(&b.start)?),
        end: match &b.end {
            Some(e) => Some(at(e)?),
            None => None,
        },
        total,
        booking_id: Some(&b.booking_id),
        offer_sha256: None,
        active_bookings: [0, 0],
    })
}

/// §5.10: a participant answers with `respond`, which takes a mandate of any
/// scope. A management mandate ("manage my booking") over a booking that names
/// this person only as an invitee or attendee would therefore accept (or
/// decline) someone else's booking without the invitation's text: its
/// contract, price and deadline. Such a booking is answered with the
/// `invitation` kind instead.
fn named_only_as_guest(booking: &Booking, me: &str) -> Result<(), ServiceError> {
    use schcp::claims::ParticipantRole;
    let mine: Vec<_> =
        booking.participants.as_deref().unwrap_or_default().iter().filter(|p| p.who.as_deref() == Some(me)).collect();
    if !mine.is_empty() && mine.iter().all(|p| p.role != ParticipantRole::Booker) {
        return Err(ServiceError::unacceptable(
            Reason::ParticipantNotBooker,
            "this booking names the person as a guest, not its booker; ask with the invitation kind",
        ));
    }
    Ok(())
}

/// The booker's reconfirmation deadline, when the booking's terms name this
/// person as `booker` with a `confirm_by` still ahead and their answer pending
/// (§5.10 "Reconfirmation reuses the mechanism").
fn reconfirm_by(booking: &Booking, me: &str, now: i64) -> Option<String> {
    use schcp::claims::{ParticipantRole, ParticipantStatus};
    booking.participants.as_deref().unwrap_or_default().iter().find_map(|p| {
        let mine = p.role == ParticipantRole::Booker && p.who.as_deref() == Some(me);
        let pending = matches!(p.status, None | Some(ParticipantStatus::Pending));
        let by = p.confirm_by.as_deref()?;
        let ahead = schcp::datetime::parse_date_time(by).is_ok_and(|t| t.timestamp() > now);
        (mine && pending && ahead).then(|| by.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::kind::testing::{all_malformed, parse, refusal, round_trips};

    fn booking(status: &str, awaiting_until: Option<&str>) -> Booking {
        let mut b = serde_json::json!({
            "booking_id": "b_1", "status": status, "sequence": 0, "service_id": "oil-change",
            "start": "2026-10-15T13:00:00-04:00", "end": "2026-10-15T13:45:00-04:00",
            "offer_sha256": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "event": {"@type": "Event", "uid": "b_1@h.example", "start": "2026-10-15T13:00:00",
                      "timeZone": "America/Toronto", "duration": "PT45M", "title": "Oil change",
                      "sequence": 0, "updated": "2026-10-13T13:00:00Z", "status": "confirmed"}
        });
        if let Some(expires_at) = awaiting_until {
            b["proposal"] = serde_json::json!({"proposal_id": "p_1", "start": "2026-10-15T14:00:00-04:00",
                "end": "2026-10-15T14:45:00-04:00", "expires_at": expires_at, "by": "guest", "offer": "o.f.f",
                "awaiting_host": true, "consent": {"approved": "limits", "mandate": "m-1"}});
        }
        serde_json::from_value(b).unwrap()
    }

    fn reason(r: Result<(), ServiceError>) -> Reason {
        r.expect_err("refused").to_api().reason
    }

    /// §3.3: a booking that will not happen has nothing to manage.
    #[test]
    fn only_a_live_booking_is_managed() {
        for live in ["confirmed", "tentative", "pending_host"] {
            assert!(check_booking_live(&booking(live, None)).is_ok(), "{live}");
        }
        for over in ["cancelled", "declined", "expired", "completed"] {
            assert_eq!(reason(check_booking_live(&booking(over, None))), Reason::BookingNotConfirmed, "{over}");
        }
    }

    /// §5.7: the held new time is "never past the booking's own start".
    #[test]
    fn a_move_awaiting_the_host_past_the_start_is_refused() {
        assert!(check_awaiting_move(&booking("confirmed", None)).is_ok());
        assert!(check_awaiting_move(&booking("confirmed", Some("2026-10-15T17:00:00Z"))).is_ok(), "at the start");
        let late = booking("confirmed", Some("2026-10-15T17:00:01Z"));
        assert_eq!(reason(check_awaiting_move(&late)), Reason::BookingNotConfirmed);
    }

    #[test]
    fn the_body_is_a_receipt_and_its_discovery_url() {
        let ok = parse::<ManagementMandate>(
            r#"{"kind":"management_mandate","idempotency_key":"k","receipt":"r.e.c","discovery":"d"}"#,
        )
        .unwrap();
        assert_eq!((ok.receipt.as_str(), ok.discovery.as_str()), ("r.e.c", "d"));
        all_malformed::<ManagementMandate>(&[
            r#"{"kind":"management_mandate","idempotency_key":"k","receipt":"r.e.c"}"#,
            r#"{"kind":"management_mandate","idempotency_key":"k","receipt":null,"discovery":"d"}"#,
            r#"{"kind":"management_mandate","idempotency_key":"k","receipt":"r","discovery":"d","scope":["cancel"]}"#,
            r#"{"kind":"management_mandate","idempotency_key":"k","receipt":"r","discovery":"d","discovery":"e"}"#,
        ]);
    }

    #[tokio::test]
    async fn the_input_round_trips_and_an_input_without_terms_is_the_persons_own() {
        let bed = Bed::new().await;
        let (_, offer) = future_offer(&bed.host, 5);
        let booking = bed.host.receipt_claims(&offer, "m-x", Approved::Offer, now()).unwrap().booking;
        let stored = StoredManagement {
            receipt: "r.e.c".into(),
            host_id: "h".into(),
            keys: Vec::new(),
            constraints: Some(Constraints::default()),
            not_after: Some(99),
            root_jti: Some("m-root".into()),
            replaces: Some("m-old".into()),
            mandate: Some("m-root".into()),
            retention: Some("P30D".into()),
        };
        round_trips(&stored);
        assert_eq!(stored.terms(5, &booking).not_after, 99);
        assert_eq!(stored.expectations().mandate, Some("m-root"));
        // Stored before the terms were kept: the terms of a mandate the person approved.
        let old: StoredManagement =
            serde_json::from_value(serde_json::json!({"receipt": "r.e.c", "host_id": "h", "keys": []})).unwrap();
        let terms = old.terms(5, &booking);
        assert_eq!(terms, ManagementTerms::approved(5, &booking));
        // The booking's service, at no higher total than it has.
        assert_eq!(terms.constraints.services, Some(vec![booking.service_id.clone()]));
        assert_eq!(terms.constraints.max_price, booking.total.clone().or(booking.price.clone()));
        assert!(terms.constraints.max_price.is_some(), "the test host's bookings are priced");
        assert_eq!(old.expectations().mandate, None);
    }

    use crate::service::kind::testing::{future_offer, now, Bed};
    use schcp::claims::Approved;
    use schcp::verify::{verify_mandate_chain, ChainContext};

    fn body(bed: &Bed, receipt: &str) -> ManagementBody {
        ManagementBody { receipt: receipt.to_owned(), discovery: bed.host.discovery_url() }
    }

    /// §3.3: a receipt that cites no root this key app issued to the agent is
    /// shown to the person, with the booking from the signed receipt and the
    /// agent by the name it was paired under; never issued without a prompt.
    #[tokio::test]
    async fn a_receipt_under_no_root_of_ours_is_shown_and_asked() {
        let bed = Bed::new().await;
        let (_, offer) = future_offer(&bed.host, 5);
        let receipt = bed.host.receipt(&offer, "m-not-ours", Approved::Offer, now()).unwrap();
        let p = ManagementMandate::prepare(&bed.ctx(now()), body(&bed, &receipt)).await.unwrap();
        let ConsentRequest::ManagementMandate(m) = &p.consent else { panic!("not a management mandate") };
        assert_eq!(m.agent_name, "Calendar helper");
        assert_eq!(m.scope, [Action::Cancel, Action::Reschedule]);
        assert_eq!(m.booking.iss, bed.host.host_id());
        assert!(m.exp > now());
        assert!(!p.auto_approve, "no root covers it, so the person is asked");
        assert_eq!((p.input.root_jti.as_deref(), p.input.replaces.as_deref()), (None, None));
        assert_eq!(p.input.keys, bed.host.keys(), "kept with the keys it verified with");
        assert_eq!(p.hosts.len(), 1);
        let calls = bed.records.calls();
        assert_eq!(calls[0], format!("place {}", bed.host.host_id()));
        assert!(calls.contains(&format!("agent_name {}", bed.agent_jkt)), "{calls:?}");
    }

    /// §3.3: nothing to manage on a booking that will not happen.
    #[tokio::test]
    async fn a_cancelled_booking_is_refused() {
        let bed = Bed::new().await;
        let (_, offer) = future_offer(&bed.host, 5);
        let mut claims = bed.host.receipt_claims(&offer, "m-x", Approved::Offer, now()).unwrap();
        claims.booking.status = BookingStatus::Cancelled;
        let receipt = bed.host.sign_receipt(&claims).unwrap();
        let r = ManagementMandate::prepare(&bed.ctx(now()), body(&bed, &receipt)).await;
        assert_eq!(refusal(r), Reason::BookingNotConfirmed);
        assert!(!bed.records.calls().iter().any(|c| c.starts_with("agent_name")), "refused before it is described");
    }

    /// A receipt whose bytes changed after the host signed them is refused.
    #[tokio::test]
    async fn a_tampered_receipt_is_refused() {
        let bed = Bed::new().await;
        let (_, offer) = future_offer(&bed.host, 5);
        let receipt = bed.host.receipt(&offer, "m-x", Approved::Offer, now()).unwrap();
        let mut parts: Vec<String> = receipt.split('.').map(str::to_owned).collect();
        let mut payload: serde_json::Value = serde_json::from_slice(&schcp::b64::decode(&parts[1]).unwrap()).unwrap();
        payload["booking"]["booking_id"] = serde_json::json!("b_someone_else");
        parts[1] = schcp::b64::encode(payload.to_string());
        let r = ManagementMandate::prepare(&bed.ctx(now()), body(&bed, &parts.join("."))).await;
        assert_eq!(refusal(r), Reason::BadSignature);
        assert!(bed.records.calls().is_empty());
    }

    /// The mandate manages the receipt's booking only, for the requesting
    /// agent, and keeps the receipt and the booking's place in its chain.
    #[tokio::test]
    async fn the_mandate_manages_the_receipts_booking_and_keeps_its_chain() {
        let bed = Bed::new().await;
        let (_, offer) = future_offer(&bed.host, 5);
        let receipt = bed.host.receipt(&offer, "m-not-ours", Approved::Offer, now()).unwrap();
        let at = now();
        let p = ManagementMandate::prepare(&bed.ctx(at), body(&bed, &receipt)).await.unwrap();
        let issued = ManagementMandate::issue(&bed.ctx(at), p.input, "Manage the oil change.").await.unwrap();
        let r = &issued.result;
        let chain = verify_mandate_chain(
            &r.mandate,
            &ChainContext { host_id: bed.host.host_id(), request_jkt: &bed.agent_jkt, now: at, allow_wildcard: false },
        )
        .expect("the issued mandate passes a host's checks");
        let claims = &chain.root.claims;
        assert_eq!(claims.scope, [Action::Cancel, Action::Reschedule]);
        assert_eq!(claims.status.as_deref(), Some(format!("https://keyapp.example/status/{}", r.jti).as_str()));
        let Some((link, replaces)) = &issued.management else { panic!("no chain kept") };
        assert_eq!((link.jti.as_str(), link.booking_id.as_str()), (r.jti.as_str(), r.booking_id.as_str()));
        assert_eq!((link.host_id.as_str(), link.sequence, link.root_jti.as_deref()), (bed.host.host_id(), 0, None));
        assert_eq!(replaces, &None);
        assert!(issued.receipt.is_some(), "the verified receipt is kept");
        let [record] = issued.credentials.as_slice() else { panic!("one credential") };
        assert_eq!(record.kind, RequestKind::ManagementMandate);
        assert_eq!(record.booking_id.as_deref(), Some(r.booking_id.as_str()));
    }
}
