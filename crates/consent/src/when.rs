//! Times in words, in the host's zone (§5.2: "render the slot as a local date and time
//! in words in host.tz").
//!
//! chrono-tz turns an instant into the wall clock of an IANA zone (the offset
//! arithmetic); ICU4X's CLDR data names the weekday, month, day period and zone. The
//! spec's English renderings ("Thursday 15 October 2026", "8:00–9:00 a.m. Pacific time")
//! put the day before the month without commas, which is no CLDR `en-CA` date pattern,
//! so the date is composed from CLDR's own fields (weekday, day, month, year, taken
//! from a full CLDR date by their parts) in the order of the Fluent message `date`.
//!
//! Decisions, each tied to a spec rendering:
//! * a range on one day shares its day period: "8:00–9:00 a.m." (CLDR's "a.m."/"p.m."
//!   for `en-CA`); a range across noon keeps both: "11:30 a.m.–12:15 p.m.";
//! * an open-ended booking is "from 12:00 p.m. Eastern time, open-ended" (§4.2);
//! * the zone is CLDR's generic long name ("Pacific Time"); English lower-cases its
//!   final "Time", as every spec rendering does ("Pacific time"), except for
//!   "Coordinated Universal Time", a proper name;
//! * with no zone (an offer without `host`, §5.2) the time is shown at the offset the
//!   slot itself carries, named by CLDR's localized offset format ("GMT-04:00");
//! * seconds are shown only when a time has them.

use std::fmt;

use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, NaiveTime, Offset, TimeZone as _, Timelike, Utc};
use chrono_tz::Tz;
use fluent_bundle::FluentValue;
use icu::datetime::input::{Date, DateTime as IcuDateTime, Time, TimeZone, UtcOffset};
use icu::datetime::parts;
use writeable::{Part, PartsWrite, Writeable};

use crate::locale::{normalise_spaces, Language, Locale};
use crate::ConsentError;

/// Which clock a time is shown on.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Clock<'a> {
    /// An IANA zone, shown with its generic name.
    Zone { name: &'a str, tz: Tz },
    /// The offset the time itself was written with, shown as a UTC offset.
    OwnOffset,
}

impl<'a> Clock<'a> {
    /// The clock of an IANA zone name, refused when the key app does not know it.
    pub(crate) fn zone(field: &'static str, name: &'a str) -> Result<Self, ConsentError> {
        let tz: Tz = name.parse().map_err(|_| ConsentError::UnknownTimeZone { field, value: name.to_owned() })?;
        Ok(Clock::Zone { name, tz })
    }

    /// The zone's clock when there is one, else the time's own offset.
    pub(crate) fn zone_or_own(field: &'static str, name: Option<&'a str>) -> Result<Self, ConsentError> {
        match name {
            Some(name) => Self::zone(field, name),
            None => Ok(Clock::OwnOffset),
        }
    }
}

/// An instant read off a clock: local date, local time and the offset in force.
#[derive(Clone, Copy, Debug)]
struct Wall {
    date: NaiveDate,
    time: NaiveTime,
    offset_seconds: i32,
}

fn wall(instant: DateTime<FixedOffset>, clock: Clock<'_>) -> Wall {
    let local = match clock {
        Clock::Zone { tz, .. } => instant.with_timezone(&tz).fixed_offset(),
        Clock::OwnOffset => instant,
    };
    Wall { date: local.date_naive(), time: local.time(), offset_seconds: local.offset().fix().local_minus_utc() }
}

/// Parses an RFC 3339 date-time with an offset, with `schcp`'s strict parser (§2.1 "Formats").
pub(crate) fn parse_instant(field: &'static str, value: &str) -> Result<DateTime<FixedOffset>, ConsentError> {
    schcp::datetime::parse_date_time(value).map_err(|_| ConsentError::BadDateTime { field, value: value.to_owned() })
}

/// A NumericDate (seconds since the epoch, UTC).
pub(crate) fn numeric_date(field: &'static str, value: i64) -> Result<DateTime<FixedOffset>, ConsentError> {
    Utc.timestamp_opt(value, 0).single().map(|t| t.fixed_offset()).ok_or(ConsentError::BadNumericDate { field, value })
}

/// Collects a formatted value together with the spans of its parts.
#[derive(Default)]
struct PartsSink {
    text: String,
    parts: Vec<(usize, usize, Part)>,
}

impl fmt::Write for PartsSink {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.text.push_str(s);
        Ok(())
    }
}

impl PartsWrite for PartsSink {
    type SubPartsWrite = Self;

    fn with_part(&mut self, part: Part, mut f: impl FnMut(&mut Self::SubPartsWrite) -> fmt::Result) -> fmt::Result {
        let start = self.text.len();
        f(self)?;
        self.parts.push((start, self.text.len(), part));
        Ok(())
    }
}

impl PartsSink {
    fn of(value: &impl Writeable) -> Self {
        let mut sink = PartsSink::default();
        // Writing into a String cannot fail.
        let _ = value.write_to_parts(&mut sink);
        sink
    }

    fn span(&self, part: Part) -> Option<(usize, usize)> {
        self.parts.iter().find(|(_, _, p)| *p == part).map(|(start, end, _)| (*start, *end))
    }

    fn part(&self, part: Part) -> Option<&str> {
        self.span(part).map(|(start, end)| &self.text[start..end])
    }
}

fn icu_date(date: NaiveDate) -> Result<Date<icu::calendar::Iso>, ConsentError> {
    let month = u8::try_from(date.month()).unwrap_or(0);
    let day = u8::try_from(date.day()).unwrap_or(0);
    Date::try_new_iso(date.year(), month, day)
        .map_err(|e| ConsentError::Icu { what: "dates", detail: format!("{e:?}") })
}

fn icu_time(time: NaiveTime) -> Result<Time, ConsentError> {
    let h = u8::try_from(time.hour()).unwrap_or(99);
    let m = u8::try_from(time.minute()).unwrap_or(99);
    let s = u8::try_from(time.second()).unwrap_or(99);
    Time::try_new(h, m, s, 0).map_err(|e| ConsentError::Icu { what: "times", detail: format!("{e:?}") })
}

/// A local date in words: "Thursday 15 October 2026", "jeudi 15 octobre 2026".
pub fn date_words(locale: &Locale, date: NaiveDate) -> Result<String, ConsentError> {
    let formatted = locale.icu.date.format(&icu_date(date)?);
    let sink = PartsSink::of(&formatted);
    let missing = || ConsentError::Icu {
        what: "dates",
        detail: format!("CLDR date {:?} lacks a weekday, day, month or year", sink.text),
    };
    let weekday = sink.part(parts::WEEKDAY).ok_or_else(missing)?;
    let day = sink.part(parts::DAY).ok_or_else(missing)?;
    let month = sink.part(parts::MONTH).ok_or_else(missing)?;
    let year = sink.part(parts::YEAR).ok_or_else(missing)?;
    locale.message(
        "date",
        &[
            ("weekday", FluentValue::from(weekday)),
            ("day", FluentValue::from(day)),
            ("month", FluentValue::from(month)),
            ("year", FluentValue::from(year)),
        ],
    )
}

/// A weekday's name, standalone ("Saturday", "samedi"), from CLDR.
pub(crate) fn weekday_name(locale: &Locale, weekday: chrono::Weekday) -> Result<String, ConsentError> {
    // Monday 12 October 2026, plus the weekday's distance from Monday.
    let monday = NaiveDate::from_ymd_opt(2026, 10, 12).unwrap_or_default();
    let date = monday + chrono::Days::new(u64::from(weekday.num_days_from_monday()));
    let formatted = locale.icu.weekday.format(&icu_date(date)?);
    Ok(normalise_spaces(&formatted.to_string()))
}

/// A local time, and the same time without its day period when it has one.
struct TimeText {
    full: String,
    bare: Option<(String, String)>,
}

fn time_text(locale: &Locale, time: NaiveTime) -> Result<TimeText, ConsentError> {
    let icu = icu_time(time)?;
    let formatter = if time.second() == 0 { &locale.icu.time_hm } else { &locale.icu.time_hms };
    let sink = PartsSink::of(&formatter.format(&icu));
    let full = normalise_spaces(&sink.text);
    let bare = sink.span(parts::DAY_PERIOD).map(|(start, end)| {
        let before = sink.text[..start].trim_end_matches(|c: char| c.is_whitespace());
        let after = sink.text[end..].trim_start_matches(|c: char| c.is_whitespace());
        let bare = if after.is_empty() { before.to_owned() } else { format!("{before} {after}") };
        (normalise_spaces(&bare), sink.text[start..end].to_owned())
    });
    Ok(TimeText { full, bare })
}

/// The name of the clock a wall time was read off: "Pacific time", "GMT-04:00".
fn zone_words(locale: &Locale, wall: &Wall, clock: Clock<'_>) -> Result<String, ConsentError> {
    let offset = UtcOffset::try_from_seconds(wall.offset_seconds)
        .map_err(|e| ConsentError::Icu { what: "UTC offsets", detail: format!("{e:?}") })?;
    let id = match clock {
        Clock::Zone { name, .. } => TimeZone::from_iana_id(name),
        Clock::OwnOffset => TimeZone::UNKNOWN,
    };
    let at = IcuDateTime { date: icu_date(wall.date)?, time: icu_time(wall.time)? };
    let info = id.with_offset(Some(offset)).at_date_time(at);
    let name = if id.is_unknown() {
        locale.icu.zone_offset.format(&info).to_string()
    } else {
        locale.icu.zone_generic.format(&info).to_string()
    };
    let name = normalise_spaces(&name);
    let proper_name = matches!(id.as_str(), "utc" | "gmt");
    match (locale.language(), name.strip_suffix(" Time")) {
        (Language::English, Some(stem)) if !proper_name => Ok(format!("{stem} time")),
        _ => Ok(name),
    }
}

/// A slot in words (§5.2, §4.2): "Thursday 15 October 2026, 8:00–9:00 a.m. Pacific
/// time"; with no end, "Saturday 17 October 2026 from 12:00 p.m. Eastern time,
/// open-ended".
///
/// `tz` is the IANA zone to show it in (`host.tz`, a contract's `tz`); without one the
/// slot is shown at its own UTC offset.
pub fn slot_words(locale: &Locale, start: &str, end: Option<&str>, tz: Option<&str>) -> Result<String, ConsentError> {
    let clock = Clock::zone_or_own("tz", tz)?;
    let start_at = parse_instant("start", start)?;
    let end_at = end.map(|end| parse_instant("end", end)).transpose()?;
    range_words(locale, start_at, end_at, clock)
}

pub(crate) fn range_words(
    locale: &Locale,
    start_at: DateTime<FixedOffset>,
    end_at: Option<DateTime<FixedOffset>>,
    clock: Clock<'_>,
) -> Result<String, ConsentError> {
    let from = wall(start_at, clock);
    let date = date_words(locale, from.date)?;
    let zone = zone_words(locale, &from, clock)?;
    let start_text = time_text(locale, from.time)?;
    let Some(end_at) = end_at else {
        return locale
            .message("slot-open", &[("date", date.into()), ("start", start_text.full.into()), ("zone", zone.into())]);
    };
    if end_at <= start_at {
        return Err(ConsentError::EndBeforeStart { start: start_at.to_rfc3339(), end: end_at.to_rfc3339() });
    }
    // One zone is named for the range, the start's: read off its own offset, the
    // end is read on the start's too, whatever offset it was written with, so
    // "12:00–5:00 p.m. GMT-04:00" cannot stand for an end eight hours later
    // written at -12:00.
    let end_at = match clock {
        Clock::OwnOffset => end_at.with_timezone(start_at.offset()),
        Clock::Zone { .. } => end_at,
    };
    let to = wall(end_at, clock);
    let end_text = time_text(locale, to.time)?;
    if to.date == from.date {
        // One day period for both ends when they share it: "8:00–9:00 a.m.".
        let start_shown = match (&start_text.bare, &end_text.bare) {
            (Some((bare, period)), Some((_, end_period))) if period == end_period => bare.clone(),
            _ => start_text.full,
        };
        locale.message(
            "slot-fixed",
            &[
                ("date", date.into()),
                ("start", start_shown.into()),
                ("end", end_text.full.into()),
                ("zone", zone.into()),
            ],
        )
    } else {
        locale.message(
            "slot-span",
            &[
                ("date", date.into()),
                ("start", start_text.full.into()),
                ("end_date", date_words(locale, to.date)?.into()),
                ("end", end_text.full.into()),
                ("zone", zone.into()),
            ],
        )
    }
}

/// One instant in words: "Wednesday 14 October 2026, 8:00 a.m. Pacific time".
pub(crate) fn instant_words(
    locale: &Locale,
    at: DateTime<FixedOffset>,
    clock: Clock<'_>,
) -> Result<String, ConsentError> {
    let wall = wall(at, clock);
    locale.message(
        "instant",
        &[
            ("date", date_words(locale, wall.date)?.into()),
            ("time", time_text(locale, wall.time)?.full.into()),
            ("zone", zone_words(locale, &wall, clock)?.into()),
        ],
    )
}

/// A NumericDate (`exp`) in words, in `tz` when given, else in UTC.
pub fn numeric_date_words(
    locale: &Locale,
    field: &'static str,
    value: i64,
    tz: Option<&str>,
) -> Result<String, ConsentError> {
    let clock = Clock::zone(field, tz.unwrap_or("Etc/UTC"))?;
    instant_words(locale, numeric_date(field, value)?, clock)
}

/// The name of a zone at an instant, alone: "Eastern time".
pub(crate) fn zone_name_at(
    locale: &Locale,
    at: DateTime<FixedOffset>,
    clock: Clock<'_>,
) -> Result<String, ConsentError> {
    zone_words(locale, &wall(at, clock), clock)
}
