//! My bookings: every booking the key app holds a verified receipt for (§5.3),
//! in the person's words, with what it rests on and which assistant may change
//! it (§3.3 management mandates). The window and the terminal show the same.

use super::{Records, RequestKind, Service, ServiceError};
use crate::store::bookings::{self as stored, BookingRecord, ManagerRecord};
use crate::store::credentials::{self, CredentialStatus, ListedCredential};
use crate::views::{BookingView, CredentialView, ManagerView};
use schcp::claims::{Booking, BookingStatus, MandateClaims, ReceiptClaims};
use schcp_consent::{inert, ConsentError};
use std::collections::HashMap;

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
        let (start, end) = times(&r.receipt.booking_id, b)?;
        // In the booking's own zone, as the consent text gave the offer's
        // time (the host signed both): the person reads the time they agreed
        // to. A zone this build does not know falls back to the person's.
        let words = BookingWords::of(&self.locale(), &b.event.time_zone, b)
            .or_else(|_| BookingWords::of(&self.locale(), self.zone(), b))
            .map_err(|e| corrupt_receipt(format!("booking {}: {e}", r.receipt.booking_id)))?;
        Ok(BookingView {
            what: self.title_words(&b.event.title),
            when: words.when,
            place: words.place,
            price: words.price,
            state: self.words(status_id(b.status)),
            upcoming: is_upcoming(b.status, start, end, now),
            start,
            host: self.host_words(&r),
            rests_on,
            managers: managers.iter().filter(|m| manages(m, &r)).map(|m| self.manager_view(m, now)).collect(),
            booking_id: r.receipt.booking_id,
            host_id: r.receipt.host,
        })
    }

    /// The booking's title as the host signed it, inert; one too long to
    /// leave the other bookings in view is named, not shown or cut (as the
    /// consent text bounds a name, `inert::MAX_FIELD_CHARS`).
    fn title_words(&self, title: &str) -> String {
        let chars = title.chars().count();
        if chars > inert::MAX_FIELD_CHARS {
            return self.words_with("bookings-title-too-long", [("chars", chars.into())]);
        }
        inert::inert(title)
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
            (None, _) => self.words_with("bookings-host-unverified", [("host", inert::inert(&r.receipt.host).into())]),
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
                let claims = self.signed_booking_mandate(&c)?;
                // A management mandate's own scope (§3.3): a mandate to read a
                // booking, or to make one change the person approved, is no
                // standing leave to cancel or move it.
                is_management_scope(&claims.scope).then_some((c, claims))
            })
            .unzip()
    }

    /// Credential `c` as the principal signed it, when it is a mandate
    /// limited to named bookings (`constraints.bookings`, §3.3): what it may
    /// do to which booking is read from its signature, never its row.
    pub(super) fn signed_booking_mandate(&self, c: &ListedCredential) -> Option<MandateClaims> {
        // Read unverified first: only a payload that names bookings is worth
        // a signature check.
        let parsed = schcp::jws::parse(&c.stored.compact).ok()?;
        parsed.payload.get("constraints")?.get("bookings")?;
        let payload = self.signed_credential(&c.jti, &c.stored.compact)?;
        let claims: MandateClaims = serde_json::from_value(payload).ok()?;
        claims.constraints.as_ref()?.bookings.as_ref()?;
        Some(claims)
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
        let mut listed = credentials::listing_readable(self.svc.store()).await?;
        self.svc.sealed_summaries(&mut listed).await?;
        let rests_on = self.svc.rests_on_words(&listed);
        let mut managers = self.managers(listed, now).await?;
        self.svc.sealed_agent_names(&mut managers).await?;
        let sealed: Vec<BookingRecord> =
            kept.into_iter().filter(|r| self.svc.inner.seal.receipt_holds(&r.fields(), r.seal.as_deref())).collect();
        let mut out = Vec::new();
        for (mut r, _) in latest_of_each(sealed) {
            let (domain, basis) =
                (r.host_domain.as_deref().unwrap_or_default(), r.host_basis.as_deref().unwrap_or_default());
            if !self.svc.binding_row_holds(
                &r.receipt.host,
                domain,
                basis,
                r.host_name.as_deref(),
                r.host_seal.as_deref(),
            ) {
                // A binding the key app did not seal names no host: the
                // booking reads as at an unverified host id.
                (r.host_domain, r.host_name) = (None, None);
            }
            let rests = r.receipt.mandate_jti.as_ref().and_then(|jti| rests_on.get(jti)).cloned();
            out.push(self.svc.booking_view(r, rests, &managers, now)?);
        }
        out.sort_by_key(|b| if b.upcoming { (0, b.start) } else { (1, -b.start) });
        Ok(out)
    }

    /// Every management mandate, once per booking and host it was signed
    /// for, revoked as the Credentials listing says: in hosted mode a
    /// revocation the hosted service does not hold, and could not be given
    /// at once, is not yet one, and the assistant is still said to manage the
    /// booking (`confirm_revocations`).
    async fn managers(self, listed: Vec<ListedCredential>, now: i64) -> Result<Vec<ManagerRecord>, ServiceError> {
        let (listed, signed) = self.svc.signed_managers(listed);
        let views = self.views(listed, None, now).await?;
        let mut out = Vec::new();
        for (claims, view) in signed.into_iter().zip(views) {
            let revoked = view.status == CredentialStatus::Revoked
                && view.publication != Some(crate::views::Publication::RevocationPending);
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

/// Whether `scope`, as signed, is a management mandate's: cancel and
/// reschedule, nothing else (§3.3 "Management mandates").
fn is_management_scope(scope: &[schcp::claims::Action]) -> bool {
    use schcp::claims::Action;
    scope.contains(&Action::Cancel)
        && scope.contains(&Action::Reschedule)
        && scope.iter().all(|a| matches!(a, Action::Cancel | Action::Reschedule))
}

/// The latest receipt of each booking among `sealed`, with its claims: the
/// one the host signed last (its `booking.sequence`, §5.7: each change adds
/// one), then the one verified last, then the one kept last. A row's place
/// in the table is the records' to change; what the host signed is not, so a
/// sealed receipt kept again as a newer row never stands for a later one.
fn latest_of_each(sealed: Vec<BookingRecord>) -> Vec<(BookingRecord, u32)> {
    let mut latest: HashMap<(String, String), (BookingRecord, u32)> = HashMap::new();
    for r in sealed {
        let sequence = receipt_of(&r).map(|c| c.booking.sequence).unwrap_or(0);
        let key = (r.receipt.host.clone(), r.receipt.booking_id.clone());
        let newer =
            |(was, seq): &(BookingRecord, u32)| (sequence, r.verified_at, r.id) > (*seq, was.verified_at, was.id);
        if latest.get(&key).is_none_or(newer) {
            latest.insert(key, (r, sequence));
        }
    }
    latest.into_values().collect()
}

/// A kept receipt that no longer reads as one.
fn corrupt_receipt(what: String) -> ServiceError {
    super::corrupt_as(crate::store::Stored::Receipt, what)
}

/// The receipt's claims. It was verified against the host's keys when it was
/// kept (§5.3); here it is only read.
fn receipt_of(r: &BookingRecord) -> Result<ReceiptClaims, ServiceError> {
    schcp::jws::parse(&r.receipt.compact)
        .ok()
        .and_then(|p| p.claims().ok())
        .ok_or_else(|| corrupt_receipt(format!("receipt of booking {}", r.receipt.booking_id)))
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
    m.host == r.receipt.host && m.booking_id == r.receipt.booking_id
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

    /// A host-signed title is shown inert, and one too long to leave the other
    /// bookings in view is named by its length, never shown or cut.
    #[tokio::test]
    async fn a_title_too_long_is_named_not_shown() {
        let (svc, _clock, _dir) = super::super::test_support::service_at(1_792_000_000).await;
        let at_bound = "a".repeat(inert::MAX_FIELD_CHARS);
        assert_eq!(svc.title_words(&at_bound), at_bound);
        assert_eq!(svc.title_words("Cleaning\nfor 0 CAD"), "Cleaning\u{FFFD}for 0 CAD");
        let long = format!("Cleaning{}", "\u{3164}".repeat(inert::MAX_FIELD_CHARS));
        assert_eq!(svc.title_words(&long), "A title too long to show (308 characters)");
    }

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

    #[test]
    fn only_a_management_mandates_own_scope_manages_a_booking() {
        use schcp::claims::Action::{Book, Cancel, Hold, Reschedule};
        assert!(is_management_scope(&[Cancel, Reschedule]));
        assert!(is_management_scope(&[Reschedule, Cancel]));
        // A read of the booking, one change the person approved, or a
        // mandate that may also book is not standing leave to change it.
        for other in [vec![Hold], vec![Reschedule], vec![Cancel], vec![Cancel, Reschedule, Book], vec![]] {
            assert!(!is_management_scope(&other), "{other:?}");
        }
    }
}
