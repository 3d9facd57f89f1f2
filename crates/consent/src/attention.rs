//! What the person should look at twice, graded by risk, from the typed request
//! rather than from the rendered text: the consent window calls these out beside
//! the text, the gravest first.
//!
//! Two rules keep the callouts honest:
//! - they point at terms the text already carries (§5.2, §5.3), so they add no
//!   term the text does not say;
//! - a callout's detail is a value (a price, a date, a place, a host), never a
//!   whole line of the text: a window that repeats the text's own line teaches
//!   the person to skip the callouts.
//!
//! A root mandate (§3.3) that leaves a limit out allows everything that limit
//! would have stopped (§3.3 check 6), so it is the riskiest request a person can
//! see; it gets a one-line heading saying what the assistant could then do.

use fluent_bundle::FluentValue;

use crate::claims::Action;
use crate::error::ConsentError;
use crate::first_dealing::new_hosts;
use crate::locale::Locale;
use crate::mandate::{actions_words, hosts_words, services_words, window_words};
use crate::money::{amount_text, money_words};
use crate::offer::{clock, host_identity, place_words, reconfirm_due};
use crate::request::{ConsentRequest, ManagementMandateRequest, OpenMandateRequest, VerifiedOffer};
use crate::when::{instant_words, numeric_date_words, parse_instant, Clock};
use crate::{inert, retention_words};

/// How much a callout weighs: the window shows the gravest first and styles
/// each grade apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Grade {
    /// The request allows more than most people would mean to give, or its
    /// host cannot be told apart from an impostor.
    Grave,
    /// A term with a cost or a consequence the person should weigh.
    Caution,
    /// A term worth knowing that asks nothing of the person.
    Notice,
}

impl Grade {
    /// A stable name for surfaces (`grave`, `caution`, `notice`).
    pub fn as_str(self) -> &'static str {
        match self {
            Grade::Grave => "grave",
            Grade::Caution => "caution",
            Grade::Notice => "notice",
        }
    }
}

/// The kinds of callout, each with the spec's reason, in the order shown
/// within a grade.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AttentionKind {
    /// §3.3 check 6: a root mandate without a service, time, price or booking
    /// limit, or for any host: the detail says in one line what it allows.
    WideMandate,
    /// §3.3 "Attenuation": the assistant may pass the mandate on.
    Delegate,
    /// §5.3: the host's name is only its own claim (no discovered domain).
    UnverifiedIdentity,
    /// §3.3 `aud`: one mandate for several hosts.
    SeveralHosts,
    /// §3.3 `exp`: a mandate that lasts more than a day.
    LongLived,
    /// §3.3 `shared_limit`: one count of bookings, checked with the key app.
    SharedLimit,
    /// §2.2: a host the key app has not dealt with before.
    NewHost,
    /// §5.2: a stated price, paid to the host directly.
    Price,
    /// §5.2 "Place": the meeting place is not the host's own address.
    PlaceAway,
    /// §5.10: the person must reconfirm, and silence has a consequence.
    Reconfirmation,
    /// §5.10: an invitee must answer by a deadline, and the booking's default applies
    /// if they decline or stay silent.
    AnswerBy,
    /// §3.3 check 6: an open mandate's `max_price`, a ceiling on each booking's
    /// all-in total (never a price, and never authority to pay, §8).
    PriceLimit,
    /// §5.2: how long the host keeps the person's data.
    Retention,
}

impl AttentionKind {
    /// A stable name for surfaces (`unverified_identity`, `price`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            AttentionKind::WideMandate => "wide_mandate",
            AttentionKind::Delegate => "delegate",
            AttentionKind::UnverifiedIdentity => "unverified_identity",
            AttentionKind::SeveralHosts => "several_hosts",
            AttentionKind::LongLived => "long_lived",
            AttentionKind::SharedLimit => "shared_limit",
            AttentionKind::NewHost => "new_host",
            AttentionKind::Price => "price",
            AttentionKind::PlaceAway => "place_away",
            AttentionKind::Reconfirmation => "reconfirmation",
            AttentionKind::AnswerBy => "answer_by",
            AttentionKind::PriceLimit => "price_limit",
            AttentionKind::Retention => "retention",
        }
    }

    /// How much this kind weighs.
    pub fn grade(self) -> Grade {
        use AttentionKind::*;
        match self {
            WideMandate | Delegate | UnverifiedIdentity => Grade::Grave,
            SeveralHosts | LongLived | SharedLimit | NewHost | Price | PlaceAway | Reconfirmation | AnswerBy => {
                Grade::Caution
            }
            PriceLimit | Retention => Grade::Notice,
        }
    }
}

/// One callout: its kind and the value it points at, in the locale's words
/// (inert, as in the text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attention {
    /// What to look at twice.
    pub kind: AttentionKind,
    /// The value in the locale's words (the price, the place, the date), when there is one.
    pub detail: Option<String>,
}

impl Attention {
    /// How much it weighs.
    pub fn grade(&self) -> Grade {
        self.kind.grade()
    }
}

/// A mandate that lasts longer than this is called out (§3.3 `exp`): a day
/// covers "book me something this afternoon"; more is standing authority.
pub const LONG_LIVED_SECS: i64 = 24 * 60 * 60;

/// The callouts for `req` at `now` (NumericDate), gravest first.
pub fn attention(req: &ConsentRequest, locale: &Locale, now: i64) -> Result<Vec<Attention>, ConsentError> {
    let mut out = Vec::new();
    match req {
        ConsentRequest::BookingOffer(o) | ConsentRequest::OwnBooking(o) => offer(locale, o, &mut out)?,
        ConsentRequest::ChangeOffer { proposed, .. } => offer(locale, proposed, &mut out)?,
        ConsentRequest::MeetingContract(r) => {
            for o in &r.offers {
                offer(locale, o, &mut out)?;
            }
        }
        ConsentRequest::OpenMandate(r) => open_mandate(locale, r, now, &mut out)?,
        ConsentRequest::Invitation(r) => {
            offer(locale, &r.contract, &mut out)?;
            // The offer's reconfirmation is the booker's to give, not this person's.
            out.retain(|a| a.kind != AttentionKind::Reconfirmation);
            let at = r.me.confirm_by.as_deref().ok_or(ConsentError::NotInvited)?;
            let deadline = instant_words(locale, parse_instant("confirm_by", at)?, clock(&r.contract.claims)?)?;
            out.push(Attention { kind: AttentionKind::AnswerBy, detail: Some(deadline) });
        }
        ConsentRequest::Reconfirmation { mandate, confirm_by } => {
            management(locale, mandate, &mut out)?;
            let words = crate::invitation::reconfirm_by_words(locale, mandate, confirm_by)?;
            out.push(Attention { kind: AttentionKind::Reconfirmation, detail: Some(words) });
        }
        ConsentRequest::ManagementMandate(r) => management(locale, r, &mut out)?,
        _ => {}
    }
    let fresh = new_hosts(locale, req)?;
    if !fresh.is_empty() {
        out.push(Attention { kind: AttentionKind::NewHost, detail: Some(locale.and_list(&fresh)?) });
    }
    out.sort_by_key(|a| (a.grade(), a.kind));
    out.dedup();
    Ok(out)
}

fn open_mandate(
    locale: &Locale,
    r: &OpenMandateRequest,
    now: i64,
    out: &mut Vec<Attention>,
) -> Result<(), ConsentError> {
    if let Some(heading) = wide_heading(locale, r)? {
        out.push(Attention { kind: AttentionKind::WideMandate, detail: Some(heading) });
    }
    if r.scope.contains(&Action::Delegate) {
        out.push(Attention { kind: AttentionKind::Delegate, detail: None });
    }
    for h in r.hosts.iter().filter(|h| h.domain.is_none() && h.id != "*") {
        let name = h.name.as_deref().unwrap_or(&h.id);
        out.push(Attention { kind: AttentionKind::UnverifiedIdentity, detail: Some(inert::name(locale, name)?) });
    }
    if r.hosts.len() > 1 {
        out.push(Attention { kind: AttentionKind::SeveralHosts, detail: Some(hosts_words(locale, &r.hosts)?) });
    }
    if r.exp - now > LONG_LIVED_SECS {
        let until = numeric_date_words(locale, "exp", r.exp, r.tz.as_deref())?;
        out.push(Attention { kind: AttentionKind::LongLived, detail: Some(until) });
    }
    if r.constraints.shared_limit {
        out.push(Attention { kind: AttentionKind::SharedLimit, detail: None });
    }
    // A ceiling is never called a price: it limits each booking's all-in total.
    let caps = std::iter::once(&r.constraints).chain(r.host_constraints.values());
    for max in caps.filter_map(|c| c.max_price.as_ref()) {
        let text = amount_text(locale, "max_price", max)?;
        out.push(Attention {
            kind: AttentionKind::PriceLimit,
            detail: Some(locale.message("mandate-price-value", &text.args())?),
        });
    }
    Ok(())
}

/// What a root mandate lets the assistant do, in one line, when it leaves any
/// limit out: "“Example Agent” could book appointments at Maple Street Auto
/// (maplestreetauto.example): any service, at any time, at any price and as many
/// bookings as it likes, until …". None when every limit is set.
///
/// A limit set only in some host's own constraints (§3.4) still leaves the
/// others open, so only the shared constraints decide "any".
pub fn wide_heading(locale: &Locale, r: &OpenMandateRequest) -> Result<Option<String>, ConsentError> {
    let c = &r.constraints;
    let any_host = r.hosts.iter().any(|h| h.id == "*");
    let open = |own: fn(&crate::request::MandateConstraints) -> bool| {
        !own(c)
            && (r.host_constraints.is_empty()
                || r.hosts.iter().any(|h| !r.host_constraints.get(&h.id).is_some_and(own)))
    };
    let no_services = open(|c| c.services.is_some());
    let no_window = open(|c| c.window.is_some());
    let no_price = open(|c| c.max_price.is_some());
    let no_count = open(|c| c.max_bookings.is_some());
    if !(any_host || no_services || no_window || no_price || no_count) {
        return Ok(None);
    }
    let clock = Clock::zone_or_own("tz", r.tz.as_deref())?;
    // Each limit: open ("any …"), the shared one, or each host's own.
    let per_host = || locale.message("wide-per-host", &[]);
    let limits = vec![
        match (no_services, &c.services) {
            (true, _) => locale.message("wide-any-service", &[])?,
            (false, Some(_)) => locale.message("wide-only", &[("what", services_words(locale, c)?.into())])?,
            (false, None) => per_host()?,
        },
        match (no_window, &c.window) {
            (true, _) => locale.message("wide-any-time", &[])?,
            (false, Some(_)) => locale.message("wide-only", &[("what", window_words(locale, c, clock)?.into())])?,
            (false, None) => per_host()?,
        },
        match (no_price, &c.max_price) {
            (true, _) => locale.message("wide-any-price", &[])?,
            (false, Some(max)) => {
                locale.message("wide-price", &[("price", money_words(locale, "max_price", max)?.into())])?
            }
            (false, None) => per_host()?,
        },
        match (no_count, c.max_bookings) {
            (true, _) => locale.message("wide-any-bookings", &[])?,
            (false, Some(n)) => locale.message("wide-bookings", &[("count", FluentValue::from(n))])?,
            (false, None) => per_host()?,
        },
    ];
    let heading = locale.message(
        "wide-heading",
        &[
            ("agent", inert::quoted(locale, &r.agent_name)?.into()),
            ("actions", actions_words(locale, &r.scope)?.into()),
            ("hosts", hosts_words(locale, &r.hosts)?.into()),
            ("limits", locale.and_list(&limits)?.into()),
            ("until", numeric_date_words(locale, "exp", r.exp, r.tz.as_deref())?.into()),
        ],
    )?;
    Ok(Some(heading))
}

fn management(locale: &Locale, r: &ManagementMandateRequest, out: &mut Vec<Attention>) -> Result<(), ConsentError> {
    if r.booking.domain.is_none() {
        let name = r.booking.host_name.as_deref().unwrap_or(&r.booking.iss);
        out.push(Attention { kind: AttentionKind::UnverifiedIdentity, detail: Some(inert::name(locale, name)?) });
    }
    Ok(())
}

fn offer(locale: &Locale, o: &VerifiedOffer, out: &mut Vec<Attention>) -> Result<(), ConsentError> {
    let c = &o.claims;
    if o.discovered.is_none() {
        out.push(Attention { kind: AttentionKind::UnverifiedIdentity, detail: Some(host_identity(locale, o)?) });
    }
    if let Some(total) = c.total.as_ref().or(c.price.as_ref()) {
        out.push(Attention { kind: AttentionKind::Price, detail: Some(money_words(locale, "total", total)?) });
    }
    if let Some(place) = &c.place {
        let shown = place_words(locale, place)?;
        let host_address = c.host.as_ref().and_then(|h| h.address.as_deref());
        // Away unless the place named is exactly the host's own signed address.
        if shown.is_some() && shown.as_deref() != host_address {
            out.push(Attention { kind: AttentionKind::PlaceAway, detail: shown });
        }
    }
    if let Some(due) = reconfirm_due(c)? {
        out.push(Attention {
            kind: AttentionKind::Reconfirmation,
            detail: Some(instant_words(locale, due, clock(c)?)?),
        });
    }
    // Data the host does not keep asks nothing of the person.
    if let Some(period) = retention_words(locale, &c.retention)? {
        out.push(Attention { kind: AttentionKind::Retention, detail: Some(period) });
    }
    Ok(())
}
