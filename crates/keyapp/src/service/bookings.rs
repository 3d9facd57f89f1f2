//! My bookings: every booking the key app holds a verified receipt for (§5.3),
//! in the person's words, with what it rests on and which assistant may change
//! it (§3.3 management mandates). The window and the terminal show the same.

use super::{Records, RequestKind, Service, ServiceError};
use crate::store::bookings::{self as stored, BookingRecord, ManagerRecord};
use crate::store::credentials::{self, CredentialStatus, ListedCredential};
use crate::views::{BookingView, CredentialView, ManagerView};
use schcp::claims::{Booking, BookingStatus, MandateClaims, ReceiptClaims};
use schcp_consent::{inert, ConsentError};
use std::collections::{HashMap, HashSet};

impl Service {
    fn booking_view(
        &self,
        r: BookingRecord,
        rests_on: Option<String>,
        managers: &[ManagerRecord],
        now: i64,
    ) -> Result<BookingView, ServiceError> {
        let claims = receipt_of(&r)?;
        let b = &claims.booking;
        let (start, end) = times(&r.booking_id, b)?;
        // In the booking's own zone, as the consent text gave the offer's
        // time (the host signed both): the person reads the time they agreed
        // to. A zone this build does not know falls back to the person's.
        let words = BookingWords::of(&self.locale(), &b.event.time_zone, b)
            .or_else(|_| BookingWords::of(&self.locale(), self.zone(), b))
            .map_err(|e| corrupt_receipt(format!("booking {}: {e}", r.booking_id)))?;
        Ok(BookingView {
            what: inert::inert(&b.event.title),
            when: words.when,
            place: words.place,
            price: words.price,
            state: self.words(status_id(b.status)),
            upcoming: is_upcoming(b.status, start, end, now),
            start,
            host: self.host_words(&r),
            rests_on,
            managers: managers.iter().filter(|m| manages(m, &r)).map(|m| self.manager_view(m, now)).collect(),
            booking_id: r.booking_id,
            host_id: r.host,
        })
    }

    /// The host as the person knows it: its verified domain, else its id
    /// said to be unverified.
    /// The host by the name its verified document gave where it is bound
    /// (§2.2), as the consent text showed it, with that domain beside it.
    fn host_words(&self, r: &BookingRecord) -> String {
        match (&r.host_domain, &r.host_name) {
            (Some(domain), Some(name)) => {
                self.words_with("host-named", [("name", inert::inert(name).into()), ("domain", domain.clone().into())])
            }
            (Some(domain), None) => domain.clone(),
            (None, _) => self.words_with("bookings-host-unverified", [("host", inert::inert(&r.host).into())]),
        }
    }

    /// What a booking under each credential rests on, by its jti: the
    /// summary of the request it was approved for, else the name of its
    /// kind; only for a credential whose row holds its seal (record_seal),
    /// and each summary from its request's sealed row (`sealed_summaries`).
    fn rests_on_words(&self, listed: &[ListedCredential]) -> HashMap<String, String> {
        listed
            .iter()
            .filter(|c| self.credential_sealed(&c.stored))
            .map(|c| {
                let words = match &c.summary {
                    Some(summary) if !summary.is_empty() => summary.clone(),
                    _ => self.words(&format!("kind-{}", c.kind.as_str())),
                };
                (c.jti.clone(), words)
            })
            .collect()
    }

    /// The credentials that limit an assistant to named bookings (§3.3
    /// "Management mandates": `constraints.bookings`), with those bookings
    /// and hosts as the principal signed them. The row's own columns
    /// (kind, booking, hosts, expiry, agent) are the person's programs' to
    /// write; what was signed is not, so a management mandate is neither
    /// moved to another booking nor hidden from its own by a changed row.
    fn signed_managers(&self, listed: Vec<ListedCredential>) -> (Vec<ListedCredential>, Vec<MandateClaims>) {
        listed
            .into_iter()
            .filter_map(|c| {
                // Read unverified first: only a payload that names bookings
                // is worth a signature check.
                let parsed = schcp::jws::parse(&c.stored.compact).ok()?;
                parsed.payload.get("constraints")?.get("bookings")?;
                let payload = self.signed_credential(&c.jti, &c.stored.compact)?;
                let claims: MandateClaims = serde_json::from_value(payload).ok()?;
                claims.constraints.as_ref()?.bookings.as_ref()?;
                Some((c, claims))
            })
            .unzip()
    }

    fn manager_view(&self, m: &ManagerRecord, now: i64) -> ManagerView {
        let status = CredentialStatus::of(m.revoked, m.exp, now);
        let agent_name = crate::ui_words::assistant_or_any(self.language(), m.agent_name.as_deref());
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
    /// past (latest first). Each from the latest receipt of its booking that
    /// holds its seal (record_seal): a receipt row the key app did not keep
    /// as verified is no booking, and it never hides the one the key app kept.
    pub async fn bookings(self) -> Result<Vec<BookingView>, ServiceError> {
        let now = self.svc.now();
        let kept = stored::receipts(self.svc.store()).await?;
        let mut listed = credentials::listing(self.svc.store(), None).await?;
        self.svc.sealed_summaries(&mut listed).await?;
        let rests_on = self.svc.rests_on_words(&listed);
        let mut managers = self.managers(listed, now).await?;
        self.svc.sealed_agent_names(&mut managers).await?;
        let mut seen = HashSet::new();
        let mut withheld = 0usize;
        let mut out = Vec::new();
        for mut r in kept {
            if !self.svc.inner.seal.receipt_holds(&r.fields(), r.seal.as_deref()) {
                withheld += 1;
                continue;
            }
            if !seen.insert((r.host.clone(), r.booking_id.clone())) {
                continue;
            }
            let (domain, basis) =
                (r.host_domain.as_deref().unwrap_or_default(), r.host_basis.as_deref().unwrap_or_default());
            if !self.svc.binding_row_holds(&r.host, domain, basis, r.host_name.as_deref(), r.host_seal.as_deref()) {
                // A binding the key app did not seal names no host: the
                // booking reads as at an unverified host id.
                (r.host_domain, r.host_name) = (None, None);
            }
            let rests = r.mandate_jti.as_ref().and_then(|jti| rests_on.get(jti)).cloned();
            out.push(self.svc.booking_view(r, rests, &managers, now)?);
        }
        if withheld > 0 {
            tracing::warn!(rows = withheld, "receipts do not hold their seals: not shown as bookings");
        }
        out.sort_by_key(|b| if b.upcoming { (0, b.start) } else { (1, -b.start) });
        Ok(out)
    }

    /// Every management mandate, once per booking and host it was signed
    /// for, revoked as the Credentials listing says (which, in hosted mode,
    /// makes sure the hosted service holds each revocation it shows).
    async fn managers(self, listed: Vec<ListedCredential>, now: i64) -> Result<Vec<ManagerRecord>, ServiceError> {
        let (listed, signed) = self.svc.signed_managers(listed);
        let revoked: Vec<bool> = listed.iter().map(|c| c.revoked).collect();
        self.views(listed, None, now).await?;
        let mut out = Vec::new();
        for (claims, revoked) in signed.into_iter().zip(revoked) {
            let bookings = claims.constraints.as_ref().and_then(|c| c.bookings.as_ref()).cloned().unwrap_or_default();
            for host in claims.aud.hosts() {
                for booking_id in &bookings {
                    out.push(ManagerRecord {
                        host: host.clone(),
                        booking_id: booking_id.clone(),
                        jti: claims.jti.clone(),
                        exp: claims.exp,
                        revoked,
                        agent_name: None,
                        agent_jkt: Some(claims.cnf.jkt.clone()),
                    });
                }
            }
        }
        Ok(out)
    }
}

/// A kept receipt that no longer reads as one.
fn corrupt_receipt(what: String) -> ServiceError {
    super::corrupt_as(crate::store::Stored::Receipt, what)
}

/// The receipt's claims. It was verified against the host's keys when it was
/// kept (§5.3); here it is only read.
fn receipt_of(r: &BookingRecord) -> Result<ReceiptClaims, ServiceError> {
    schcp::jws::parse(&r.compact)
        .ok()
        .and_then(|p| p.claims().ok())
        .ok_or_else(|| corrupt_receipt(format!("receipt of booking {}", r.booking_id)))
}

/// The booking's start and, when it states one, its end (seconds since the
/// epoch). An end that does not read is taken as none.
fn times(booking_id: &str, b: &Booking) -> Result<(i64, Option<i64>), ServiceError> {
    let start = chrono::DateTime::parse_from_rfc3339(&b.start)
        .map_err(|e| corrupt_receipt(format!("booking {booking_id} start: {e}")))?
        .timestamp();
    let end = b.end.as_deref().and_then(|e| chrono::DateTime::parse_from_rfc3339(e).ok()).map(|e| e.timestamp());
    Ok((start, end))
}

/// Whether the booking is still to come: live, and not yet over (or, when
/// open-ended, not yet begun).
fn is_upcoming(status: BookingStatus, start: i64, end: Option<i64>, now: i64) -> bool {
    let live = matches!(status, BookingStatus::PendingHost | BookingStatus::Tentative | BookingStatus::Confirmed);
    live && end.unwrap_or(start) > now
}

/// Whether `m` manages the booking `r`.
fn manages(m: &ManagerRecord, r: &BookingRecord) -> bool {
    m.host == r.host && m.booking_id == r.booking_id
}

/// The booking's when, where and price, in the person's language, its time in
/// the zone given.
struct BookingWords {
    when: String,
    place: Option<String>,
    price: Option<String>,
}

impl BookingWords {
    fn of(locale: &schcp_consent::Locale, zone: &str, b: &Booking) -> Result<BookingWords, ConsentError> {
        let when = schcp_consent::slot_words(locale, &b.start, b.end.as_deref(), Some(zone))?;
        let place = b.place.as_ref().map(|p| schcp_consent::place_words(locale, p)).transpose()?.flatten();
        let price = b.total.as_ref().or(b.price.as_ref());
        let price = price.map(|m| schcp_consent::money_words(locale, "total", m)).transpose()?;
        Ok(BookingWords { when, place, price })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_booking_is_upcoming_while_live_and_not_over() {
        for live in [BookingStatus::PendingHost, BookingStatus::Tentative, BookingStatus::Confirmed] {
            assert!(is_upcoming(live, 100, Some(200), 150), "{live:?}");
            assert!(!is_upcoming(live, 100, Some(200), 200), "{live:?} is over at its end");
            // Open-ended: upcoming until it begins.
            assert!(is_upcoming(live, 100, None, 99) && !is_upcoming(live, 100, None, 100), "{live:?}");
        }
        for over in
            [BookingStatus::Declined, BookingStatus::Expired, BookingStatus::Cancelled, BookingStatus::Completed]
        {
            assert!(!is_upcoming(over, 100, Some(200), 0), "{over:?}");
        }
    }
}
