//! My bookings: every booking the key app holds a verified receipt for (§5.3),
//! in the person's words, with what it rests on and which assistant may change
//! it (§3.3 management mandates). The window and the terminal show the same.

use super::{Records, RequestKind, Service, ServiceError};
use crate::store::bookings::{self as stored, BookingRecord, ManagerRecord};
use crate::store::credentials::CredentialStatus;
use crate::views::{BookingView, CredentialView, ManagerView};
use schcp::claims::{BookingStatus, ReceiptClaims};
use schcp_consent::inert;

impl Service {
    fn booking_view(
        &self,
        r: BookingRecord,
        managers: &[ManagerRecord],
        now: i64,
    ) -> Result<BookingView, ServiceError> {
        // The receipt was verified against the host's keys when it was kept
        // (§5.3); here it is only read.
        let claims: ReceiptClaims =
            schcp::jws::parse(&r.compact).ok().and_then(|p| p.claims().ok()).ok_or_else(|| {
                super::corrupt_as(crate::store::Stored::Receipt, format!("receipt of booking {}", r.booking_id))
            })?;
        let b = &claims.booking;
        let locale = self.locale();
        let words = |e: schcp_consent::ConsentError| {
            super::corrupt_as(crate::store::Stored::Receipt, format!("booking {}: {e}", r.booking_id))
        };
        let start = chrono::DateTime::parse_from_rfc3339(&b.start)
            .map_err(|e| {
                super::corrupt_as(crate::store::Stored::Receipt, format!("booking {} start: {e}", r.booking_id))
            })?
            .timestamp();
        let end = b.end.as_deref().and_then(|e| chrono::DateTime::parse_from_rfc3339(e).ok()).map(|e| e.timestamp());
        let live = matches!(b.status, BookingStatus::PendingHost | BookingStatus::Tentative | BookingStatus::Confirmed);
        // The host by the name its verified document gave where it is bound
        // (§2.2), as the consent text showed it, with that domain beside it.
        let host = match (&r.host_domain, &r.host_name) {
            (Some(domain), Some(name)) => {
                self.words_with("host-named", [("name", inert::inert(name).into()), ("domain", domain.clone().into())])
            }
            (Some(domain), None) => domain.clone(),
            (None, _) => self.words_with("bookings-host-unverified", [("host", inert::inert(&r.host).into())]),
        };
        let rests_on = match (&r.mandate_summary, &r.mandate_kind) {
            (Some(summary), _) if !summary.is_empty() => Some(summary.clone()),
            (_, Some(kind)) => kind.parse::<RequestKind>().ok().map(|k| self.words(&format!("kind-{}", k.as_str()))),
            _ => None,
        };
        Ok(BookingView {
            what: inert::inert(&b.event.title),
            when: schcp_consent::slot_words(&locale, &b.start, b.end.as_deref(), Some(self.zone())).map_err(words)?,
            place: b
                .place
                .as_ref()
                .map(|p| schcp_consent::place_words(&locale, p))
                .transpose()
                .map_err(words)?
                .flatten(),
            price: b
                .total
                .as_ref()
                .or(b.price.as_ref())
                .map(|m| schcp_consent::money_words(&locale, "total", m))
                .transpose()
                .map_err(words)?,
            state: self.words(status_id(b.status)),
            upcoming: live && end.unwrap_or(start) > now,
            start,
            host,
            rests_on,
            managers: managers
                .iter()
                .filter(|m| m.host == r.host && m.booking_id == r.booking_id)
                .map(|m| self.manager_view(m, now))
                .collect(),
            booking_id: r.booking_id,
            host_id: r.host,
        })
    }

    fn manager_view(&self, m: &ManagerRecord, now: i64) -> ManagerView {
        let status = CredentialStatus::of(m.revoked, m.exp, now);
        let agent_name = m.agent_name.as_deref().map_or_else(|| self.words("history-an-assistant"), inert::inert);
        let expires = self.instant_words(m.exp);
        let sentence = match status {
            CredentialStatus::Active => self.words_with(
                "bookings-managed-by",
                [("agent", agent_name.clone().into()), ("until", expires.clone().into())],
            ),
            _ => self.words_with("bookings-manager-ended", [("agent", agent_name.clone().into())]),
        };
        ManagerView {
            jti: m.jti.clone(),
            agent_name,
            status,
            expires,
            revocable: CredentialView::can_revoke(RequestKind::ManagementMandate, status),
            sentence,
        }
    }
}

impl Records<'_> {
    /// The person's bookings: the upcoming first (soonest first), then the
    /// past (latest first).
    pub async fn bookings(self) -> Result<Vec<BookingView>, ServiceError> {
        let now = self.svc.now();
        let (records, managers) = stored::all(self.svc.store()).await?;
        let mut out =
            records.into_iter().map(|r| self.svc.booking_view(r, &managers, now)).collect::<Result<Vec<_>, _>>()?;
        out.sort_by_key(|b| if b.upcoming { (0, b.start) } else { (1, -b.start) });
        Ok(out)
    }
}

/// A booking's state as the window's catalogue names it.
fn status_id(s: BookingStatus) -> &'static str {
    match s {
        BookingStatus::PendingHost => "booking-state-pending_host",
        BookingStatus::Tentative => "booking-state-tentative",
        BookingStatus::Confirmed => "booking-state-confirmed",
        BookingStatus::Declined => "booking-state-declined",
        BookingStatus::Expired => "booking-state-expired",
        BookingStatus::Cancelled => "booking-state-cancelled",
        BookingStatus::Completed => "booking-state-completed",
        BookingStatus::NoShow => "booking-state-no_show",
    }
}
