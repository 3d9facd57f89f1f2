//! Durations in words: a reconfirmation's `before` (§5.10) and a retention (§2.1, §5.2).
//!
//! Parsing is `schcp::duration`'s (one definition of the §2.1 grammar); the wording is
//! this module's:
//! * a duration is said in the parts it was written in ("PT24H" is "24 hours", not
//!   "1 day"; "P1DT12H" is "1 day and 12 hours"): that is what the host signed;
//! * a retention (weeks or days only) is said in years when it is a whole number of
//!   365-day years (P365D = "1 year", as the spec renders it; P730D = "2 years"), in
//!   weeks when written in weeks alone (P2W = "2 weeks"), and otherwise in days
//!   (P30D = "30 days", P1W3D = "10 days"). Never months: their length varies (§2.1).
//! * A zero retention (P0D, P0W) is "not kept past the booking" (§2.1: "P0D for not
//!   past its end"), in its own sentence.

use fluent_bundle::FluentValue;
use icu::decimal::input::Decimal;
use schcp::duration::{Duration, Parts, Retention};

use crate::locale::{normalise_spaces, Locale};
use crate::ConsentError;

fn bad(field: &'static str, value: &str) -> ConsentError {
    ConsentError::BadDuration { field, value: value.to_owned() }
}

/// The length of a duration, for deadline arithmetic (a day is 86 400 s, §2.1).
pub(crate) fn duration_delta(field: &'static str, s: &str) -> Result<chrono::TimeDelta, ConsentError> {
    Duration::parse(s).and_then(|d| d.to_time_delta()).map_err(|_| bad(field, s))
}

/// One part in words: "24 hours", "1 day", "1.5 seconds".
fn unit_words(locale: &Locale, id: &str, whole: u64, fraction: &str) -> Result<String, ConsentError> {
    let written = if fraction.is_empty() { whole.to_string() } else { format!("{whole}.{fraction}") };
    let shown = Decimal::try_from_str(&written)
        .map(|d| normalise_spaces(&locale.icu.decimal.format_to_string(&d)))
        .unwrap_or(written);
    // A number with a fraction is never "one" in English; in French 1.5 is (CLDR:
    // i = 0,1), which a value between whole and whole + 1 selects too.
    let count = if fraction.is_empty() { FluentValue::from(whole) } else { FluentValue::from(whole as f64 + 0.5) };
    locale.message(id, &[("count", count), ("shown", FluentValue::from(shown))])
}

/// A duration in words, or None when it is zero.
pub fn duration_words(locale: &Locale, field: &'static str, s: &str) -> Result<Option<String>, ConsentError> {
    let length = Duration::parse(s).map_err(|_| bad(field, s))?;
    if length == Duration::ZERO {
        return Ok(None);
    }
    let parts = Parts::parse(s).map_err(|_| bad(field, s))?;
    let mut words = Vec::new();
    for (id, n) in [
        ("unit-week", parts.weeks),
        ("unit-day", parts.days),
        ("unit-hour", parts.hours),
        ("unit-minute", parts.minutes),
    ] {
        if let Some(n) = n.filter(|n| *n > 0) {
            words.push(unit_words(locale, id, n, "")?);
        }
    }
    let seconds = parts.seconds.unwrap_or(0);
    if seconds > 0 || parts.nanos > 0 {
        let fraction = if parts.nanos > 0 {
            format!("{:09}", parts.nanos).trim_end_matches('0').to_owned()
        } else {
            String::new()
        };
        words.push(unit_words(locale, "unit-second", seconds, &fraction)?);
    }
    locale.and_list(&words).map(Some)
}

/// A retention period in words ("1 year", "30 days", "2 weeks"), or None for zero:
/// the records are not kept past the booking.
pub fn retention_words(locale: &Locale, retention: &str) -> Result<Option<String>, ConsentError> {
    let days = Retention::parse(retention).map_err(|_| bad("retention", retention))?.days();
    if days == 0 {
        return Ok(None);
    }
    let parts = Parts::parse(retention).map_err(|_| bad("retention", retention))?;
    let words = match (days % 365, parts.days.unwrap_or(0), parts.weeks) {
        (0, _, _) => unit_words(locale, "unit-year", days / 365, "")?,
        (_, 0, Some(weeks)) => unit_words(locale, "unit-week", weeks, "")?,
        _ => unit_words(locale, "unit-day", days, "")?,
    };
    Ok(Some(words))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Language;

    #[test]
    fn durations_in_the_parts_written() {
        let en = Locale::new(Language::English).unwrap();
        let words = |s| duration_words(&en, "f", s).unwrap();
        assert_eq!(words("PT24H").as_deref(), Some("24 hours"));
        assert_eq!(words("P1D").as_deref(), Some("1 day"));
        assert_eq!(words("P1DT12H").as_deref(), Some("1 day and 12 hours"));
        assert_eq!(words("P1W2DT3H4M5S").as_deref(), Some("1 week, 2 days, 3 hours, 4 minutes and 5 seconds"));
        assert_eq!(words("PT1.50S").as_deref(), Some("1.5 seconds"));
        assert_eq!(words("PT0S"), None);
        assert_eq!(words("P0DT0H"), None);
        assert!(duration_words(&en, "f", "P1Y").is_err());
        let fr = Locale::new(Language::French).unwrap();
        assert_eq!(duration_words(&fr, "f", "PT1.5S").unwrap().as_deref(), Some("1,5 seconde"));
    }

    #[test]
    fn retention_refuses_time_parts() {
        let en = Locale::new(Language::English).unwrap();
        assert!(retention_words(&en, "PT24H").is_err());
        assert!(retention_words(&en, "P1DT1H").is_err());
    }
}
