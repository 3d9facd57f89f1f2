//! Open (root) mandates and management mandates in words (§3.3).
//!
//! An open mandate says what an agent may agree to without asking again, so every
//! constraint is said, and one the request leaves out is said plainly as no limit
//! ("any service", "any time", "no price limit"): §3.3 check 6 lets an absent
//! constraint allow everything, and the person must read that. A price ceiling is
//! a ceiling on what a host may state for each booking, never authority to pay
//! (§3.3, §8), hence "each booking up to CAD 100.00 all-in, paid to the host
//! directly".

use fluent_bundle::FluentValue;

use crate::claims::{Action, ConsentMode};
use crate::inert;
use crate::locale::Locale;
use crate::money::amount_text;
use crate::offer::{identity, place_words};
use crate::request::{BookingSummary, ManagementMandateRequest, MandateConstraints, MandateHost, OpenMandateRequest};
use crate::when::{numeric_date_words, parse_instant, range_words, Clock};
use crate::ConsentError;

/// The hosts a mandate names, each identified: "Maple Street Auto
/// (maplestreetauto.example) or Speedy Lube (speedylube.example)".
pub fn hosts_words(locale: &Locale, hosts: &[MandateHost]) -> Result<String, ConsentError> {
    if hosts.iter().any(|h| h.id == "*") {
        return locale.message("mandate-any-host", &[]);
    }
    let shown: Vec<String> = hosts
        .iter()
        .map(|h| identity(locale, h.name.as_deref(), &h.id, h.domain.as_ref()))
        .collect::<Result<_, _>>()?;
    locale.or_list(&shown)
}

/// The actions of a scope in words, in the spec's order (hold, book, cancel,
/// reschedule, delegate), whatever order the request listed them in.
pub fn actions_words(locale: &Locale, scope: &[Action]) -> Result<String, ConsentError> {
    let mut actions = scope.to_vec();
    actions.sort();
    actions.dedup();
    let words: Vec<String> =
        actions.iter().map(|a| locale.message(&format!("action-{}", a.as_str()), &[])).collect::<Result<_, _>>()?;
    locale.and_list(&words)
}

/// An open mandate request, in full.
///
/// Limits read as they bind (§3.3 check 6): `max_price` caps each booking's all-in
/// total, so it is said per booking and beside the number of bookings it may be
/// spent on; the text says in one line that the assistant then books without
/// asking again, the signed `consent.mode` in words, and a lifetime that ends
/// before the window it allows.
pub fn render_open_mandate(locale: &Locale, req: &OpenMandateRequest) -> Result<String, ConsentError> {
    let c = &req.constraints;
    let clock = Clock::zone_or_own("tz", req.tz.as_deref())?;
    let mut lines = vec![
        locale.message(
            "mandate-intro",
            &[
                ("agent", inert::quoted(locale, &req.agent_name)?.into()),
                ("hosts", hosts_words(locale, &req.hosts)?.into()),
            ],
        )?,
        locale.message("mandate-actions", &[("actions", actions_words(locale, &req.scope)?.into())])?,
    ];

    let own = |pick: fn(&MandateConstraints) -> bool| req.host_constraints.values().any(pick);

    let services = |c: &MandateConstraints| services_words(locale, c);
    lines.push(if own(|c| c.services.is_some()) {
        locale.message("mandate-services", &[("services", per_host(locale, req, services)?.into())])?
    } else {
        locale.message("mandate-services", &[("services", services(c)?.into())])?
    });

    let window = |c: &MandateConstraints| window_words(locale, c, clock);
    lines.push(if own(|c| c.window.is_some()) {
        locale.message("mandate-window", &[("window", per_host(locale, req, window)?.into())])?
    } else {
        locale.message("mandate-window", &[("window", window(c)?.into())])?
    });

    lines.push(price_line(locale, req, own(|c| c.max_price.is_some()), own(|c| c.max_bookings.is_some()))?);
    lines.push(bookings_line(locale, req, own(|c| c.max_bookings.is_some()))?);
    lines.extend(closing_lines(locale, req)?);
    Ok(lines.join("\n"))
}

/// The price limit: per booking, all-in (§3.3 check 6: "the offer's stated all-in
/// total ≤ max_price"), with the number of bookings beside it when one limit
/// binds both, so a person reads how much may be booked in all.
fn price_line(
    locale: &Locale,
    req: &OpenMandateRequest,
    own_price: bool,
    own_bookings: bool,
) -> Result<String, ConsentError> {
    if own_price {
        let price = |c: &MandateConstraints| match &c.max_price {
            None => locale.message("mandate-no-price-limit-value", &[]),
            Some(max) => locale.message("mandate-price-value", &amount_text(locale, "max_price", max)?.args()),
        };
        return locale.message("mandate-price-per-host", &[("values", per_host(locale, req, price)?.into())]);
    }
    let c = &req.constraints;
    // The count is beside the price only where it is one count: one host, or a
    // limit shared across the hosts (else it is said per host on its own line).
    let one_count = c.shared_limit || (req.hosts.len() == 1 && req.hosts[0].id != "*");
    match (&c.max_price, c.max_bookings.filter(|_| !own_bookings && one_count)) {
        (None, _) => locale.message("mandate-no-price-limit", &[]),
        (Some(max), None) => locale.message("mandate-price", &amount_text(locale, "max_price", max)?.args()),
        (Some(max), Some(n)) => {
            let text = amount_text(locale, "max_price", max)?;
            let [currency, amount] = text.args();
            locale.message("mandate-price-bookings", &[currency, amount, ("count", FluentValue::from(n))])
        }
    }
}

/// How many bookings, and whether the count is shared across the hosts (§3.3).
fn bookings_line(locale: &Locale, req: &OpenMandateRequest, own_bookings: bool) -> Result<String, ConsentError> {
    if own_bookings {
        // A host's own max_bookings counts that host's bookings alone (§3.4: each
        // host evaluates the shared constraints plus its own member).
        let bookings = |c: &MandateConstraints| match c.max_bookings {
            None => locale.message("mandate-bookings-unlimited-value", &[]),
            Some(n) => locale.message("mandate-bookings-value", &[("count", FluentValue::from(n))]),
        };
        return locale.message("mandate-bookings-per-host", &[("values", per_host(locale, req, bookings)?.into())]);
    }
    let c = &req.constraints;
    let named_hosts = req.hosts.iter().filter(|h| h.id != "*").count();
    match c.max_bookings {
        None => locale.message("mandate-bookings-unlimited", &[]),
        Some(n) => {
            let id = if named_hosts == 1 && !req.hosts.iter().any(|h| h.id == "*") {
                "mandate-bookings"
            } else if c.shared_limit {
                "mandate-bookings-shared"
            } else {
                "mandate-bookings-each"
            };
            locale.message(id, &[("count", FluentValue::from(n))])
        }
    }
}

/// What follows the limits: that the assistant acts on them without asking again
/// (§5.3 "MUST NOT say yes on the person's behalf, except under … limits they
/// signed"), the signed `consent.mode` in words, and until when, said as ending
/// early when the mandate expires before the window it allows is over.
fn closing_lines(locale: &Locale, req: &OpenMandateRequest) -> Result<Vec<String>, ConsentError> {
    let unasked = if req.scope.contains(&Action::Book) { "mandate-unasked-book" } else { "mandate-unasked" };
    let mut lines = vec![locale.message(unasked, &[])?];
    if let Some(mode) = req.consent_mode {
        let id = match mode {
            ConsentMode::HumanPresent => "mandate-mode-human-present",
            ConsentMode::HumanNotPresent => "mandate-mode-human-not-present",
        };
        lines.push(locale.message(id, &[])?);
    }
    let until = numeric_date_words(locale, "exp", req.exp, req.tz.as_deref())?;
    let window_end = std::iter::once(&req.constraints)
        .chain(req.host_constraints.values())
        .filter_map(|c| c.window.as_ref())
        .map(|w| parse_instant("window.not_after", &w.not_after).map(|t| t.timestamp()))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .max();
    let id = if window_end.is_some_and(|end| req.exp < end) { "mandate-ends-early" } else { "valid-until" };
    lines.push(locale.message(id, &[("until", until.into())])?);
    Ok(lines)
}

/// The services a mandate allows, or "any service".
pub(crate) fn services_words(locale: &Locale, c: &MandateConstraints) -> Result<String, ConsentError> {
    match &c.services {
        None => locale.message("mandate-any-service", &[]),
        Some(list) if list.is_empty() => locale.message("mandate-no-service", &[]),
        Some(list) => {
            let names: Vec<String> = list
                .iter()
                .map(|s| inert::name(locale, s.name.as_deref().unwrap_or(&s.id)))
                .collect::<Result<_, _>>()?;
            locale.and_list(&names)
        }
    }
}

/// The window a mandate allows, or "any time".
pub(crate) fn window_words(locale: &Locale, c: &MandateConstraints, clock: Clock) -> Result<String, ConsentError> {
    match &c.window {
        None => locale.message("mandate-any-time", &[]),
        Some(w) => range_words(
            locale,
            parse_instant("window.not_before", &w.not_before)?,
            Some(parse_instant("window.not_after", &w.not_after)?),
            clock,
        ),
    }
}

/// One constraint said host by host, for a constraint some host sets in its own
/// `host_constraints` member (§3.4): "at Maple Street Auto (maplestreetauto.example),
/// Synthetic oil change; at Speedy Lube (speedylube.example), any service".
/// A host that does not set it gets the shared value, which is then absent
/// (no constraint is set in both places), so it reads as no limit.
fn per_host(
    locale: &Locale,
    req: &OpenMandateRequest,
    words: impl Fn(&MandateConstraints) -> Result<String, ConsentError>,
) -> Result<String, ConsentError> {
    let mut parts = Vec::new();
    for host in &req.hosts {
        let value = match req.host_constraints.get(&host.id) {
            Some(own) => words(&merged(&req.constraints, own))?,
            None => words(&req.constraints)?,
        };
        let host = identity(locale, host.name.as_deref(), &host.id, host.domain.as_ref())?;
        parts.push(locale.message("mandate-per-host", &[("value", value.into()), ("host", host.into())])?);
    }
    Ok(parts.join(&locale.message("mandate-per-host-separator", &[])?))
}

/// What one host evaluates: the shared constraints, then its own over them.
fn merged(shared: &MandateConstraints, own: &MandateConstraints) -> MandateConstraints {
    MandateConstraints {
        services: own.services.clone().or_else(|| shared.services.clone()),
        window: own.window.clone().or_else(|| shared.window.clone()),
        max_price: own.max_price.clone().or_else(|| shared.max_price.clone()),
        max_bookings: own.max_bookings.or(shared.max_bookings),
        shared_limit: shared.shared_limit,
    }
}

/// A confirmed booking in one line: "Synthetic oil change with Maple Street Auto
/// (maplestreetauto.example), Thursday 15 October 2026, 1:00–1:45 p.m. Eastern time".
pub fn booking_words(locale: &Locale, b: &BookingSummary) -> Result<String, ConsentError> {
    let host = identity(locale, b.host_name.as_deref(), &b.iss, b.domain.as_ref())?;
    let service = inert::name(locale, &b.service_name)?;
    let what = match &b.resource_name {
        Some(resource) => locale.message(
            "offer-what-resource",
            &[("service", service.into()), ("resource", inert::name(locale, resource)?.into()), ("host", host.into())],
        )?,
        None => locale.message("offer-what", &[("service", service.into()), ("host", host.into())])?,
    };
    let clock = Clock::zone_or_own("tz", b.tz.as_deref())?;
    let start = parse_instant("start", &b.start)?;
    let end = b.end.as_deref().map(|e| parse_instant("end", e)).transpose()?;
    let mut clauses = vec![what, range_words(locale, start, end, clock)?];
    if let Some(place) = b.place.as_ref().map(|p| place_words(locale, p)).transpose()?.flatten() {
        clauses.push(locale.message("offer-place", &[("place", place.into())])?);
    }
    Ok(clauses.join(", "))
}

/// A management mandate (§3.3): which booking, which actions, until when. Only cancel
/// and reschedule: "A mandate that carries constraints.bookings MUST NOT authorize any
/// action except on the listed bookings. In particular it cannot place holds", and
/// renewal "carries no hold or book scope".
pub fn render_management_mandate(locale: &Locale, req: &ManagementMandateRequest) -> Result<String, ConsentError> {
    let mut actions = req.scope.clone();
    actions.sort();
    actions.dedup();
    let mut words = Vec::new();
    for action in &actions {
        match action {
            Action::Cancel => words.push(locale.message("action-booking-cancel", &[])?),
            Action::Reschedule => words.push(locale.message("action-booking-reschedule", &[])?),
            other => return Err(ConsentError::ManagementScope(*other)),
        }
    }
    let lines = [
        locale.message(
            "management-intro",
            &[
                ("agent", inert::quoted(locale, &req.agent_name)?.into()),
                ("booking", inert::name(locale, &req.booking.booking_id)?.into()),
                ("summary", booking_words(locale, &req.booking)?.into()),
            ],
        )?,
        locale.message("management-actions", &[("actions", locale.and_list(&words)?.into())])?,
        locale.message(
            "valid-until",
            &[("until", numeric_date_words(locale, "exp", req.exp, req.booking.tz.as_deref())?.into())],
        )?,
    ];
    Ok(lines.join("\n"))
}
