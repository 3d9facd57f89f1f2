//! Date-times (§2.1 Formats) and NumericDates.
//!
//! Validators MUST assert the schema's `date-time` format: an RFC 3339 date-time with a
//! time-zone offset (§2.1), and an unparseable date is a schema failure, never a value
//! to compare. chrono's `DateTime::parse_from_rfc3339` is more lenient than that (it
//! takes a space for the `T` and a leap second at any minute), so this parser is
//! hand-written against the RFC 3339 §5.6 grammar and builds the chrono value only
//! from fields it has checked:
//!
//! ```text
//! YYYY-MM-DD ("T" / "t") hh:mm:ss [ "." 1*DIGIT ] ( "Z" / "z" / ("+" / "-") hh:mm )
//! ```
//!
//! Decisions, matching the `jsonschema` crate's `date-time` check so that a value the
//! schema accepts is one this module accepts:
//! - `t` and `z` are accepted, as RFC 3339 §5.6 allows; a space separator is refused
//!   (the ABNF has none).
//! - A leap second (`:60`) is accepted only where the time is 23:59 in UTC
//!   (RFC 3339 §5.7), without checking that the date had one. Its NumericDate is that
//!   of the second before, as POSIX time does.
//! - Any number of fractional digits is accepted; past nanoseconds they are dropped.
//! - `-00:00` (RFC 3339 §4.3, "offset unknown") is accepted as UTC.

use std::fmt;
use std::str::FromStr;

use chrono::{FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why a string is not an RFC 3339 date-time with an offset (§2.1 Formats), or a
/// NumericDate is unusable. Positions are byte offsets into the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DateTimeError {
    /// The input ends where more was required (`2026-10-1`).
    #[error("date-time ends early at byte {at}")]
    UnexpectedEnd {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// Something other than a digit where a digit is required.
    #[error("expected a digit at byte {at}")]
    ExpectedDigit {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A non-ASCII digit: `\d` is ASCII 0-9 only (§2.1 Strings).
    #[error("non-ASCII digit at byte {at}")]
    NonAsciiDigit {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A missing `-` or `:` separator.
    #[error("expected {expected:?} at byte {at}")]
    ExpectedSeparator {
        /// Byte offset in the input where it fails.
        at: usize,
        /// The separator expected there.
        expected: char,
    },
    /// A space between date and time: RFC 3339's grammar has `T` only.
    #[error("space at byte {at}: date and time are separated by T")]
    SpaceSeparator {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// Anything else where the `T` between date and time belongs.
    #[error("expected T at byte {at}")]
    ExpectedTimeSeparator {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A decimal point with no digits after it.
    #[error("decimal point at byte {at} has no digits after it")]
    EmptyFraction {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// No time-zone offset: a local time is not a date-time here (§2.1 Formats).
    #[error("no time-zone offset (Z or ±hh:mm) at byte {at}")]
    MissingOffset {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// Something other than `Z`, `+` or `-` where the offset belongs.
    #[error("expected a time-zone offset (Z or ±hh:mm) at byte {at}")]
    ExpectedOffset {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// Anything after the offset, a final newline included (§2.1 Strings).
    #[error("unexpected characters after the date-time at byte {at}")]
    TrailingCharacters {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A month outside 01-12.
    #[error("month {month} out of range")]
    MonthOutOfRange {
        /// The month as written.
        month: u32,
    },
    /// A day the month does not have (including 29 February outside leap years).
    #[error("{year:04}-{month:02} has no day {day}")]
    DayOutOfRange {
        /// The year as written.
        year: i32,
        /// The month as written.
        month: u32,
        /// The day as written.
        day: u32,
    },
    /// An hour outside 00-23.
    #[error("hour {hour} out of range")]
    HourOutOfRange {
        /// The hour as written.
        hour: u32,
    },
    /// A minute outside 00-59.
    #[error("minute {minute} out of range")]
    MinuteOutOfRange {
        /// The minute as written.
        minute: u32,
    },
    /// A second outside 00-60.
    #[error("second {second} out of range")]
    SecondOutOfRange {
        /// The second as written.
        second: u32,
    },
    /// Second 60 where the time is not 23:59 in UTC (RFC 3339 §5.7).
    #[error("a leap second is allowed only at 23:59:60 UTC")]
    LeapSecondNotAtEndOfUtcDay,
    /// An offset hour outside 00-23 (`+24:00`).
    #[error("offset hour {hour} out of range")]
    OffsetHourOutOfRange {
        /// The hour as written.
        hour: u32,
    },
    /// An offset minute outside 00-59.
    #[error("offset minute {minute} out of range")]
    OffsetMinuteOutOfRange {
        /// The minute as written.
        minute: u32,
    },
    /// A valid date-time chrono cannot represent.
    #[error("date-time out of range")]
    OutOfRange,
    /// A NumericDate with a fraction (1792000000.0 is an integer; 1792000000.5 is not).
    #[error("a NumericDate is an integer number of seconds")]
    NumericDateNotInteger,
    /// A NumericDate outside what an i64 or chrono holds.
    #[error("NumericDate out of range")]
    NumericDateOutOfRange,
}

/// Parses an RFC 3339 date-time with a time-zone offset, strictly (§2.1 Formats).
// Long by design: one pass over RFC 3339's grammar, field after field, at one position.
pub fn parse_date_time(input: &str) -> Result<chrono::DateTime<FixedOffset>, DateTimeError> {
    let mut cursor = Cursor { input, at: 0 };

    let year = cursor.digits(4)?;
    cursor.separator('-')?;
    let month = cursor.digits(2)?;
    cursor.separator('-')?;
    let day = cursor.digits(2)?;
    match cursor.peek() {
        Some(b'T' | b't') => cursor.at += 1,
        Some(b' ') => return Err(DateTimeError::SpaceSeparator { at: cursor.at }),
        Some(_) => return Err(DateTimeError::ExpectedTimeSeparator { at: cursor.at }),
        None => return Err(DateTimeError::UnexpectedEnd { at: cursor.at }),
    }
    let hour = cursor.digits(2)?;
    cursor.separator(':')?;
    let minute = cursor.digits(2)?;
    cursor.separator(':')?;
    let second = cursor.digits(2)?;

    let mut nanos = 0u32;
    if cursor.peek() == Some(b'.') {
        let point = cursor.at;
        cursor.at += 1;
        let mut count = 0usize;
        while let Some(d @ b'0'..=b'9') = cursor.peek() {
            // Past nanoseconds the digits are dropped: chrono holds no finer.
            if count < 9 {
                nanos = nanos * 10 + u32::from(d - b'0');
            }
            count += 1;
            cursor.at += 1;
        }
        if count == 0 {
            return Err(cursor.refuse(DateTimeError::EmptyFraction { at: point }));
        }
        if count < 9 {
            nanos *= 10u32.pow((9 - count) as u32);
        }
    }

    // The offset in minutes east of UTC.
    let offset_minutes: i32 = match cursor.peek() {
        Some(b'Z' | b'z') => {
            cursor.at += 1;
            0
        }
        Some(sign @ (b'+' | b'-')) => {
            cursor.at += 1;
            let offset_hour = cursor.digits(2)?;
            cursor.separator(':')?;
            let offset_minute = cursor.digits(2)?;
            if offset_hour > 23 {
                return Err(DateTimeError::OffsetHourOutOfRange { hour: offset_hour });
            }
            if offset_minute > 59 {
                return Err(DateTimeError::OffsetMinuteOutOfRange { minute: offset_minute });
            }
            // Both bounded above, so the cast and arithmetic cannot overflow.
            let magnitude = (offset_hour * 60 + offset_minute) as i32;
            if sign == b'-' {
                -magnitude
            } else {
                magnitude
            }
        }
        Some(_) => {
            let at = cursor.at;
            return Err(cursor.refuse(DateTimeError::ExpectedOffset { at }));
        }
        None => return Err(DateTimeError::MissingOffset { at: cursor.at }),
    };
    if cursor.at < input.len() {
        return Err(DateTimeError::TrailingCharacters { at: cursor.at });
    }

    if !(1..=12).contains(&month) {
        return Err(DateTimeError::MonthOutOfRange { month });
    }
    // Four digits: the year is at most 9999, so it fits an i32.
    let year = year as i32;
    let date = NaiveDate::from_ymd_opt(year, month, day).ok_or(DateTimeError::DayOutOfRange { year, month, day })?;
    if hour > 23 {
        return Err(DateTimeError::HourOutOfRange { hour });
    }
    if minute > 59 {
        return Err(DateTimeError::MinuteOutOfRange { minute });
    }
    let time = match second {
        0..=59 => NaiveTime::from_hms_nano_opt(hour, minute, second, nanos),
        60 => {
            let local_minutes = (hour * 60 + minute) as i32;
            if (local_minutes - offset_minutes).rem_euclid(24 * 60) != 23 * 60 + 59 {
                return Err(DateTimeError::LeapSecondNotAtEndOfUtcDay);
            }
            // chrono writes a leap second as second 59 plus a second of nanoseconds.
            NaiveTime::from_hms_nano_opt(hour, minute, 59, 1_000_000_000 + nanos)
        }
        _ => return Err(DateTimeError::SecondOutOfRange { second }),
    }
    .ok_or(DateTimeError::OutOfRange)?;

    let offset = FixedOffset::east_opt(offset_minutes * 60).ok_or(DateTimeError::OutOfRange)?;
    offset.from_local_datetime(&NaiveDateTime::new(date, time)).single().ok_or(DateTimeError::OutOfRange)
}

/// A NumericDate (RFC 7519 §2): seconds since 1970-01-01T00:00:00Z, leap seconds not
/// counted, any fraction of a second dropped.
pub fn to_numeric_date<Tz: TimeZone>(date_time: &chrono::DateTime<Tz>) -> i64 {
    date_time.timestamp()
}

/// The instant a NumericDate names.
pub fn from_numeric_date(seconds: i64) -> Result<chrono::DateTime<Utc>, DateTimeError> {
    chrono::DateTime::from_timestamp(seconds, 0).ok_or(DateTimeError::NumericDateOutOfRange)
}

/// Reads a NumericDate claim from a JSON number. Numbers follow JSON Schema (§2.1
/// Strings): `1792000000.0` is the integer 1792000000, while a real fraction is refused.
pub fn numeric_date_from_json(number: &serde_json::Number) -> Result<i64, DateTimeError> {
    if let Some(seconds) = number.as_i64() {
        return Ok(seconds);
    }
    if number.is_u64() {
        return Err(DateTimeError::NumericDateOutOfRange);
    }
    let Some(value) = number.as_f64() else {
        return Err(DateTimeError::NumericDateOutOfRange);
    };
    if value.fract() != 0.0 {
        return Err(DateTimeError::NumericDateNotInteger);
    }
    // -2^63 is exact in f64 and 2^63 is the first value past i64::MAX.
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    if !(-TWO_POW_63..TWO_POW_63).contains(&value) {
        return Err(DateTimeError::NumericDateOutOfRange);
    }
    // In range and integral (checked above), so the conversion is exact.
    Ok(value as i64)
}

/// A date-time as it was written, with the instant it names.
///
/// It deserializes through the strict parser and serializes the original text
/// unchanged, so a document read and written again says what its author wrote.
/// Equality is of the text; compare instants with [`DateTime::value`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DateTime {
    text: String,
    value: chrono::DateTime<FixedOffset>,
}

impl DateTime {
    /// Parses strictly with [`parse_date_time`], keeping the text.
    pub fn parse(input: &str) -> Result<DateTime, DateTimeError> {
        let value = parse_date_time(input)?;
        Ok(DateTime { text: input.to_owned(), value })
    }

    /// The text exactly as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The instant, with the offset it was written in.
    #[must_use]
    pub fn value(&self) -> chrono::DateTime<FixedOffset> {
        self.value
    }

    /// The instant in UTC.
    #[must_use]
    pub fn to_utc(&self) -> chrono::DateTime<Utc> {
        self.value.with_timezone(&Utc)
    }

    /// The instant as a NumericDate (see [`to_numeric_date`]).
    #[must_use]
    pub fn to_numeric_date(&self) -> i64 {
        to_numeric_date(&self.value)
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for DateTime {
    type Err = DateTimeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DateTime::parse(s)
    }
}

impl Serialize for DateTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for DateTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl Visitor<'_> for TextVisitor {
            type Value = DateTime;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an RFC 3339 date-time with a time-zone offset (§2.1)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DateTime, E> {
                DateTime::parse(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(TextVisitor)
    }
}

/// Reads the fixed-width fields. Every byte it consumes is ASCII, so `at` is always a
/// character boundary.
struct Cursor<'a> {
    input: &'a str,
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.input.as_bytes().get(self.at).copied()
    }

    /// `error`, unless the character at the cursor is a non-ASCII digit, which gets its
    /// own error (§2.1 Strings).
    fn refuse(&self, error: DateTimeError) -> DateTimeError {
        let here = self.input.get(self.at..).and_then(|rest| rest.chars().next());
        match here {
            Some(c) if !c.is_ascii() && c.is_numeric() => DateTimeError::NonAsciiDigit { at: self.at },
            _ => error,
        }
    }

    /// Exactly `count` ASCII digits (at most 4, so the value fits a u32).
    fn digits(&mut self, count: usize) -> Result<u32, DateTimeError> {
        let mut value = 0u32;
        for _ in 0..count {
            match self.peek() {
                Some(d @ b'0'..=b'9') => value = value * 10 + u32::from(d - b'0'),
                Some(_) => return Err(self.refuse(DateTimeError::ExpectedDigit { at: self.at })),
                None => return Err(DateTimeError::UnexpectedEnd { at: self.at }),
            }
            self.at += 1;
        }
        Ok(value)
    }

    fn separator(&mut self, expected: char) -> Result<(), DateTimeError> {
        match self.peek() {
            Some(b) if char::from(b) == expected => {
                self.at += 1;
                Ok(())
            }
            Some(_) => Err(self.refuse(DateTimeError::ExpectedSeparator { at: self.at, expected })),
            None => Err(DateTimeError::UnexpectedEnd { at: self.at }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ok(s: &str) -> chrono::DateTime<FixedOffset> {
        match parse_date_time(s) {
            Ok(v) => v,
            Err(e) => panic!("{s:?} should parse: {e}"),
        }
    }

    fn err(s: &str) -> DateTimeError {
        match parse_date_time(s) {
            Ok(v) => panic!("{s:?} should be refused, parsed as {v}"),
            Err(e) => e,
        }
    }

    #[test]
    fn valid_date_times() {
        let v = ok("2026-10-15T13:00:00Z");
        assert_eq!(v.to_rfc3339(), "2026-10-15T13:00:00+00:00");
        let v = ok("2026-10-15T13:00:00-04:00");
        assert_eq!(v.offset().local_minus_utc(), -4 * 3600);
        assert_eq!(v, ok("2026-10-15T17:00:00Z"), "same instant");
        assert_eq!(ok("2026-10-15T13:00:00+05:30").offset().local_minus_utc(), 19_800);
        assert_eq!(ok("0000-01-01T00:00:00Z").timestamp(), -62_167_219_200);
        assert_eq!(ok("9999-12-31T23:59:59+23:59").to_rfc3339(), "9999-12-31T23:59:59+23:59");
    }

    // RFC 3339 §5.6 allows t and z in lower case, as JSON Schema's date-time does.
    #[test]
    fn lower_case_t_and_z() {
        assert_eq!(ok("2026-10-15t13:00:00z"), ok("2026-10-15T13:00:00Z"));
    }

    // §2.1 Formats: "a time-zone offset (Z or ±hh:mm)".
    #[test]
    fn offset_required() {
        assert_eq!(err("2026-10-15T13:00:00"), DateTimeError::MissingOffset { at: 19 });
        assert_eq!(err("2026-10-15T13:00:00.5"), DateTimeError::MissingOffset { at: 21 });
        assert_eq!(err("2026-10-15T13:00:00 Z"), DateTimeError::ExpectedOffset { at: 19 });
        assert_eq!(err("2026-10-15T13:00:00+0400"), DateTimeError::ExpectedSeparator { at: 22, expected: ':' });
        assert_eq!(err("2026-10-15T13:00:00+04"), DateTimeError::UnexpectedEnd { at: 22 });
        assert_eq!(err("2026-10-15T13:00:00+04:0"), DateTimeError::UnexpectedEnd { at: 24 });
        assert_eq!(err("2026-10-15T13:00:00UTC"), DateTimeError::ExpectedOffset { at: 19 });
    }

    #[test]
    fn offset_in_range() {
        assert_eq!(err("2026-10-15T13:00:00+24:00"), DateTimeError::OffsetHourOutOfRange { hour: 24 });
        assert_eq!(err("2026-10-15T13:00:00-04:60"), DateTimeError::OffsetMinuteOutOfRange { minute: 60 });
        assert_eq!(ok("2026-10-15T13:00:00+23:59").offset().local_minus_utc(), 86_340);
        assert_eq!(ok("2026-10-15T13:00:00-00:00"), ok("2026-10-15T13:00:00Z"));
    }

    #[test]
    fn calendar_values() {
        assert_eq!(err("2026-13-45T00:00:00Z"), DateTimeError::MonthOutOfRange { month: 13 });
        assert_eq!(err("2026-00-01T00:00:00Z"), DateTimeError::MonthOutOfRange { month: 0 });
        assert_eq!(err("2026-10-32T00:00:00Z"), DateTimeError::DayOutOfRange { year: 2026, month: 10, day: 32 });
        assert_eq!(err("2026-10-00T00:00:00Z"), DateTimeError::DayOutOfRange { year: 2026, month: 10, day: 0 });
        assert_eq!(err("2026-04-31T00:00:00Z"), DateTimeError::DayOutOfRange { year: 2026, month: 4, day: 31 });
        // Leap years: 2028 is one, 2026 and 1900 are not, 2000 is.
        assert_eq!(err("2026-02-29T00:00:00Z"), DateTimeError::DayOutOfRange { year: 2026, month: 2, day: 29 });
        assert_eq!(err("1900-02-29T00:00:00Z"), DateTimeError::DayOutOfRange { year: 1900, month: 2, day: 29 });
        ok("2028-02-29T00:00:00Z");
        ok("2000-02-29T00:00:00Z");
        ok("2026-12-31T00:00:00Z");
    }

    #[test]
    fn time_values() {
        assert_eq!(err("2026-10-15T24:00:00Z"), DateTimeError::HourOutOfRange { hour: 24 });
        assert_eq!(err("2026-10-15T13:60:00Z"), DateTimeError::MinuteOutOfRange { minute: 60 });
        assert_eq!(err("2026-10-15T13:00:61Z"), DateTimeError::SecondOutOfRange { second: 61 });
        ok("2026-10-15T23:59:59Z");
        ok("2026-10-15T00:00:00Z");
    }

    // RFC 3339 §5.7, as JSON Schema's date-time: second 60 only at 23:59 UTC.
    #[test]
    fn leap_second_only_at_the_end_of_the_utc_day() {
        let leap = ok("2016-12-31T23:59:60Z");
        assert_eq!(leap.timestamp(), ok("2016-12-31T23:59:59Z").timestamp());
        assert!(leap > ok("2016-12-31T23:59:59.999Z"));
        assert!(leap < ok("2017-01-01T00:00:00Z"));
        assert_eq!(ok("2016-12-31T15:59:60.5-08:00").with_timezone(&Utc), leap + chrono::TimeDelta::milliseconds(500));
        ok("2017-01-01T05:29:60+05:30");
        assert_eq!(err("2016-12-31T13:00:60Z"), DateTimeError::LeapSecondNotAtEndOfUtcDay);
        assert_eq!(err("2016-12-31T23:58:60Z"), DateTimeError::LeapSecondNotAtEndOfUtcDay);
        assert_eq!(err("2016-12-31T23:59:60+01:00"), DateTimeError::LeapSecondNotAtEndOfUtcDay);
        // chrono alone accepts a leap second at any minute.
        assert!(chrono::DateTime::parse_from_rfc3339("2016-12-31T13:00:60Z").is_ok());
    }

    #[test]
    fn fractional_seconds() {
        let v = ok("2026-10-15T13:00:00.5-04:00");
        assert_eq!(v.timestamp_subsec_nanos(), 500_000_000);
        assert_eq!(ok("2026-10-15T13:00:00.123456789Z").timestamp_subsec_nanos(), 123_456_789);
        assert_eq!(
            ok("2026-10-15T13:00:00.1234567899999Z").timestamp_subsec_nanos(),
            123_456_789,
            "digits past nanoseconds are dropped"
        );
        assert_eq!(err("2026-10-15T13:00:00.Z"), DateTimeError::EmptyFraction { at: 19 });
        assert_eq!(err("2026-10-15T13:00:00,5Z"), DateTimeError::ExpectedOffset { at: 19 });
    }

    #[test]
    fn separators() {
        assert_eq!(err("2026-10-15 13:00:00Z"), DateTimeError::SpaceSeparator { at: 10 });
        assert_eq!(err("2026-10-15_13:00:00Z"), DateTimeError::ExpectedTimeSeparator { at: 10 });
        assert_eq!(err("2026-10-15"), DateTimeError::UnexpectedEnd { at: 10 });
        assert_eq!(err("2026/10/15T13:00:00Z"), DateTimeError::ExpectedSeparator { at: 4, expected: '-' });
        assert_eq!(err("2026-10-15T13.00.00Z"), DateTimeError::ExpectedSeparator { at: 13, expected: ':' });
        // chrono alone accepts the space.
        assert!(chrono::DateTime::parse_from_rfc3339("2026-10-15 13:00:00Z").is_ok());
    }

    #[test]
    fn fixed_width_fields() {
        assert_eq!(err("2026-1-15T13:00:00Z"), DateTimeError::ExpectedDigit { at: 6 });
        assert_eq!(err("26-10-15T13:00:00Z"), DateTimeError::ExpectedDigit { at: 2 });
        assert_eq!(err("02026-10-15T13:00:00Z"), DateTimeError::ExpectedSeparator { at: 4, expected: '-' });
        assert_eq!(err("+2026-10-15T13:00:00Z"), DateTimeError::ExpectedDigit { at: 0 });
        assert_eq!(err("2026-10-15T13:00Z"), DateTimeError::ExpectedSeparator { at: 16, expected: ':' });
        assert_eq!(err(""), DateTimeError::UnexpectedEnd { at: 0 });
    }

    // §2.1 Strings: "\d matches the ASCII digits 0–9 only".
    #[test]
    fn ascii_digits_only() {
        assert_eq!(err("٢٠٢٦-10-15T13:00:00Z"), DateTimeError::NonAsciiDigit { at: 0 });
        assert_eq!(err("2026-1٠-15T13:00:00Z"), DateTimeError::NonAsciiDigit { at: 6 });
        assert_eq!(err("2026-10-15T13:00:00+0٤:00"), DateTimeError::NonAsciiDigit { at: 21 });
        assert_eq!(err("2026-10-15T13:00:00.٥Z"), DateTimeError::NonAsciiDigit { at: 20 });
        assert_eq!(err("2026-10-15T13:00:00.5٥Z"), DateTimeError::NonAsciiDigit { at: 21 });
        assert_eq!(err("2026-10-15T13:00:0５Z"), DateTimeError::NonAsciiDigit { at: 18 });
    }

    // §2.1 Strings: "$ matches only at the very end".
    #[test]
    fn nothing_after_the_offset() {
        assert_eq!(err("2026-10-15T13:00:00Z\n"), DateTimeError::TrailingCharacters { at: 20 });
        assert_eq!(err("2026-10-15T13:00:00Z "), DateTimeError::TrailingCharacters { at: 20 });
        assert_eq!(err("2026-10-15T13:00:00+04:00\n"), DateTimeError::TrailingCharacters { at: 25 });
        assert_eq!(err("2026-10-15T13:00:00+04:00:00"), DateTimeError::TrailingCharacters { at: 25 });
        assert_eq!(err("2026-10-15T13:00:00ZZ"), DateTimeError::TrailingCharacters { at: 20 });
        assert_eq!(err(" 2026-10-15T13:00:00Z"), DateTimeError::ExpectedDigit { at: 0 });
    }

    #[test]
    fn numeric_dates() {
        let v = ok("2026-10-15T13:00:00-04:00");
        assert_eq!(to_numeric_date(&v), 1_792_083_600, "17:00 UTC");
        assert_eq!(to_numeric_date(&ok("1970-01-01T00:00:00Z")), 0);
        assert_eq!(to_numeric_date(&ok("1970-01-01T00:00:00.999Z")), 0);
        assert_eq!(to_numeric_date(&ok("1969-12-31T23:59:59Z")), -1);
        assert_eq!(
            from_numeric_date(1_792_000_000).map(|d| d.to_rfc3339()).as_deref(),
            Ok("2026-10-14T17:46:40+00:00")
        );
        assert_eq!(from_numeric_date(0).map(|d| to_numeric_date(&d)), Ok(0));
        assert_eq!(from_numeric_date(i64::MAX), Err(DateTimeError::NumericDateOutOfRange));
    }

    // §2.1 Strings: "1792000000.0 is an integer".
    #[test]
    fn numeric_date_from_json_numbers() {
        let n = |s: &str| serde_json::from_str::<serde_json::Number>(s).expect("a number");
        assert_eq!(numeric_date_from_json(&n("1792000000")), Ok(1_792_000_000));
        assert_eq!(numeric_date_from_json(&n("1792000000.0")), Ok(1_792_000_000));
        assert_eq!(numeric_date_from_json(&n("1.792e9")), Ok(1_792_000_000));
        assert_eq!(numeric_date_from_json(&n("-1")), Ok(-1));
        assert_eq!(numeric_date_from_json(&n("1792000000.5")), Err(DateTimeError::NumericDateNotInteger));
        assert_eq!(numeric_date_from_json(&n("18446744073709551615")), Err(DateTimeError::NumericDateOutOfRange));
        assert_eq!(numeric_date_from_json(&n("1e300")), Err(DateTimeError::NumericDateOutOfRange));
        assert_eq!(numeric_date_from_json(&n("9223372036854775808.0")), Err(DateTimeError::NumericDateOutOfRange));
    }

    #[test]
    fn newtype_keeps_the_text() {
        let text = "2026-10-15t13:00:00.50-04:00";
        let d = DateTime::parse(text).expect("valid");
        assert_eq!(d.as_str(), text);
        assert_eq!(d.to_string(), text);
        assert_eq!(d.value(), ok("2026-10-15T17:00:00.5Z"));
        assert_eq!(d.to_utc().to_rfc3339(), "2026-10-15T17:00:00.500+00:00");
        assert_eq!(d.to_numeric_date(), to_numeric_date(&d.value()));
        let json = format!("\"{text}\"");
        let back: DateTime = serde_json::from_str(&json).expect("valid");
        assert_eq!(back, d);
        assert_eq!(serde_json::to_string(&back).ok(), Some(json));
        assert!(serde_json::from_str::<DateTime>(r#""2026-10-15 13:00:00Z""#).is_err());
        assert!(serde_json::from_str::<DateTime>(r#""2026-10-15T13:00:00""#).is_err());
        assert!(serde_json::from_str::<DateTime>("1792000000").is_err());
        // Same instant, different text: not equal as texts, equal as instants.
        let utc = DateTime::parse("2026-10-15T17:00:00.5Z").expect("valid");
        assert_ne!(utc, d);
        assert_eq!(utc.value(), d.value());
    }

    proptest! {
        #[test]
        fn agrees_with_chrono_on_what_both_accept(
            y in 0u32..=9999, mo in 1u32..=12, d in 1u32..=31, h in 0u32..24, mi in 0u32..60,
            s in 0u32..60, frac in proptest::option::of(0u32..1_000_000_000),
            off in proptest::option::of((any::<bool>(), 0u32..24, 0u32..60)),
        ) {
            let frac = frac.map(|f| format!(".{f:09}")).unwrap_or_default();
            let off = match off {
                None => "Z".to_owned(),
                Some((neg, oh, om)) => format!("{}{oh:02}:{om:02}", if neg { '-' } else { '+' }),
            };
            let text = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{frac}{off}");
            let ours = parse_date_time(&text).ok();
            let chrono = chrono::DateTime::parse_from_rfc3339(&text).ok();
            prop_assert_eq!(ours, chrono, "{}", text);
            // Where both accept, the calendar is the only reason to refuse.
            prop_assert_eq!(ours.is_some(), NaiveDate::from_ymd_opt(y as i32, mo, d).is_some());
        }

        #[test]
        fn parse_never_panics(s in "\\PC*") {
            let _ = parse_date_time(&s);
        }

        #[test]
        fn parse_never_panics_on_date_like_text(s in "[0-9Tt:Zz+\\-. ٠-٩]{0,32}") {
            if let Ok(v) = parse_date_time(&s) {
                prop_assert!(chrono::DateTime::parse_from_rfc3339(&s).is_ok(), "{} = {}", s, v);
            }
        }
    }
}
