//! Rules (§7.9) and pairings (docs/agent-api.md "Pairing") in words.
//!
//! A rule lets one agent key say yes for the person. The person reads their own label
//! (always in quotes: it is their words, and it is what hosts will show), what the
//! rule covers (services, weekdays read in its zone, organizers by the person's own
//! contact names; an absent field does not narrow, so it is said as "any"), which
//! agent key may answer by it, and until when, which it cannot be withdrawn
//! before.

use chrono::Weekday;

use crate::claims::Weekday as RuleWeekday;
use crate::inert;
use crate::locale::Locale;
use crate::request::{Contacts, RuleRequest};
use crate::when::{numeric_date_words, weekday_name, Clock};
use crate::ConsentError;

fn weekday(day: RuleWeekday) -> Weekday {
    match day {
        RuleWeekday::Mon => Weekday::Mon,
        RuleWeekday::Tue => Weekday::Tue,
        RuleWeekday::Wed => Weekday::Wed,
        RuleWeekday::Thu => Weekday::Thu,
        RuleWeekday::Fri => Weekday::Fri,
        RuleWeekday::Sat => Weekday::Sat,
        RuleWeekday::Sun => Weekday::Sun,
    }
}

/// A zone's generic name on its own ("Eastern time"), as at `at` (a NumericDate).
fn zone_name(locale: &Locale, tz: &str, at: i64) -> Result<String, ConsentError> {
    let clock = Clock::zone("tz", tz)?;
    crate::when::zone_name_at(locale, crate::when::numeric_date("iat", at)?, clock)
}

/// A rule, in full.
pub fn render_rule(locale: &Locale, req: &RuleRequest, contacts: &Contacts) -> Result<String, ConsentError> {
    let rule = &req.rule;
    let mut lines = vec![locale.message("rule-intro", &[("label", inert::quoted(locale, &rule.label)?.into())])?];

    lines.push(match &rule.services {
        None => locale.message("rule-any-service", &[])?,
        Some(services) => {
            let names: Vec<String> = services.iter().map(|s| inert::name(locale, s)).collect::<Result<_, _>>()?;
            locale.message("rule-services", &[("services", locale.and_list(&names)?.into())])?
        }
    });

    lines.push(match &rule.weekdays {
        None => locale.message("rule-any-day", &[])?,
        Some(days) => {
            let tz = rule.tz.as_deref().ok_or(ConsentError::RuleWeekdaysWithoutZone)?;
            let mut parsed: Vec<Weekday> = days.iter().map(|d| weekday(*d)).collect();
            parsed.sort_by_key(|d| d.num_days_from_monday());
            parsed.dedup();
            let names: Vec<String> = parsed.into_iter().map(|d| weekday_name(locale, d)).collect::<Result<_, _>>()?;
            locale.message(
                "rule-days",
                &[("days", locale.and_list(&names)?.into()), ("zone", zone_name(locale, tz, rule.iat)?.into())],
            )?
        }
    });

    lines.push(match &rule.organizers {
        None => locale.message("rule-any-organizer", &[])?,
        Some(organizers) => {
            let names: Vec<String> = organizers
                .iter()
                .map(|p| match contacts.name_of(p) {
                    Some(name) => inert::name(locale, name),
                    None => locale.message("organizer-unknown", &[("principal", inert::name(locale, p)?.into())]),
                })
                .collect::<Result<_, _>>()?;
            locale.message("rule-organizers", &[("organizers", locale.or_list(&names)?.into())])?
        }
    });

    let fingerprint = inert::name(locale, &req.agent.fingerprint)?;
    lines.push(match &req.agent.name {
        Some(name) => locale.message(
            "rule-agent",
            &[("agent", inert::quoted(locale, name)?.into()), ("fingerprint", fingerprint.into())],
        )?,
        None => locale.message("rule-agent-unknown", &[("fingerprint", fingerprint.into())])?,
    });

    // A rule has no status URL: the person's calendar keeps it and no host
    // checks it with this key app (§7.9), so it cannot be withdrawn. Its last
    // line says so in the words of the line a credential hosts cannot check
    // gets (`withdrawal`), which a rule never also gets.
    let until = numeric_date_words(locale, "exp", rule.exp, rule.tz.as_deref())?;
    lines.push(locale.message("rule-until", &[("until", until.into())])?);
    Ok(lines.join("\n"))
}

/// Pairing a new agent: its name and the fingerprint it shows (docs/agent-api.md "Pairing").
pub fn render_pairing(locale: &Locale, agent_name: &str, fingerprint: &str) -> Result<String, ConsentError> {
    Ok([
        locale.message(
            "pairing",
            &[
                ("agent", inert::quoted(locale, agent_name)?.into()),
                ("fingerprint", inert::name(locale, fingerprint)?.into()),
            ],
        )?,
        locale.message("pairing-effect", &[])?,
    ]
    .join("\n"))
}
