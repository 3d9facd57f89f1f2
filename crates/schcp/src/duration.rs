//! Durations and retentions (§2.1).
//!
//! SchCP durations are ISO 8601 durations restricted to weeks, days, hours, minutes
//! and seconds, because years and months have no fixed length (§2.1). The grammar is
//! `P[nW][nD][T[nH][nM][n[.n]S]]`. A week is 7 days and a day 86 400 s, so `P1W`,
//! `P7D` and `PT168H` are the same [`Duration`].
//!
//! The parser is hand-written rather than a regular expression so that every
//! refusal names its rule, and so that hostile input (huge numbers, long strings,
//! non-ASCII) is refused with an error instead of overflowing or panicking.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

const SECONDS_PER_MINUTE: u64 = 60;
const SECONDS_PER_HOUR: u64 = 3_600;
const SECONDS_PER_DAY: u64 = 86_400;
const DAYS_PER_WEEK: u64 = 7;
const SECONDS_PER_WEEK: u64 = DAYS_PER_WEEK * SECONDS_PER_DAY;
const NANOS_PER_SECOND: u32 = 1_000_000_000;
/// Nanosecond resolution: more fractional digits than this could not be held exactly.
const MAX_FRACTION_DIGITS: usize = 9;

/// Why a string is not a SchCP duration or retention (§2.1). Positions are byte
/// offsets into the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DurationError {
    /// The string is empty.
    #[error("empty duration")]
    Empty,
    /// The string does not start with the designator `P`.
    #[error("a duration starts with P")]
    MissingPeriodDesignator,
    /// `P` alone: a duration has at least one part (§2.1).
    #[error("a duration has at least one part")]
    NoComponent,
    /// A `T` with no hour, minute or second after it (`PT`, `P1DT`): a T comes only
    /// before a time part (§2.1).
    #[error("T at byte {at} is not followed by a time part")]
    EmptyTimePart {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A designator letter or decimal point with no digits before it (`PD`, `PT.5S`).
    #[error("no number before byte {at}")]
    MissingNumber {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// Digits not followed by a designator letter (`P1`).
    #[error("number ending at byte {at} has no designator")]
    MissingDesignator {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A decimal point with no digits after it (`PT1.S`).
    #[error("decimal point at byte {at} has no digits after it")]
    EmptyFraction {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// More than nine fractional digits: finer than a nanosecond.
    #[error("more than 9 fractional digits at byte {at}")]
    TooManyFractionDigits {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A fraction on weeks, days, hours or minutes: a decimal point is allowed only in
    /// seconds (§2.1).
    #[error("a fraction is allowed only in seconds (designator at byte {at})")]
    FractionNotInSeconds {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A comma as decimal separator: the decimal point is never a comma (§2.1).
    #[error("comma at byte {at}: the decimal separator is a point")]
    Comma {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A `+` or `-`: durations have no sign (§2.1).
    #[error("sign at byte {at}: durations have no sign")]
    Sign {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A year (`Y`) or month (`M` before `T`) part: their length varies (§2.1).
    #[error("years and months are not allowed (byte {at})")]
    YearOrMonth {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// An hour or second part before `T` (`P1H`).
    #[error("time part at byte {at} is not after T")]
    TimePartWithoutT {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A week or day part after `T` (`PT1D`).
    #[error("date part at byte {at} is after T")]
    DatePartAfterT {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A part repeated or out of the order W, D, T, H, M, S.
    #[error("part at byte {at} is repeated or out of order")]
    OutOfOrder {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A lower-case letter: designators are upper case (§2.1).
    #[error("lower-case letter at byte {at}: designators are upper case")]
    LowerCase {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A non-ASCII digit: digits are ASCII 0-9 only (§2.1 Strings).
    #[error("non-ASCII digit at byte {at}")]
    NonAsciiDigit {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// Any other character, including whitespace before or after the duration
    /// (`"PT1H\n"` is not a duration, §2.1 Strings).
    #[error("unexpected character {found:?} at byte {at}")]
    UnexpectedChar {
        /// Byte offset in the input where it fails.
        at: usize,
        /// The character found.
        found: char,
    },
    /// The length does not fit in 2^64 - 1 seconds.
    #[error("duration too long")]
    Overflow,
    /// A `T` part in a retention, which is in weeks or days only (§2.1).
    #[error("a retention is in weeks or days only (T at byte {at})")]
    RetentionTimePart {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// The length does not fit in a `chrono::TimeDelta`.
    #[error("duration too long for a chrono TimeDelta")]
    OutOfTimeDeltaRange,
}

/// An exact, non-negative length of time (§2.1), to the nanosecond.
///
/// Equality and order are by length, so `P1W == P7D == PT168H`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration {
    // Field order matters: the derived `Ord` compares seconds first.
    secs: u64,
    nanos: u32,
}

impl Duration {
    /// The zero length, written `PT0S`.
    pub const ZERO: Duration = Duration { secs: 0, nanos: 0 };

    /// Parses `P[nW][nD][T[nH][nM][n[.n]S]]` exactly (§2.1).
    pub fn parse(input: &str) -> Result<Duration, DurationError> {
        scan(input).map(|scanned| scanned.length)
    }

    /// A length of whole seconds.
    #[must_use]
    pub const fn from_seconds(secs: u64) -> Duration {
        Duration { secs, nanos: 0 }
    }

    /// Whole seconds, the fraction dropped.
    #[must_use]
    pub const fn as_seconds(&self) -> u64 {
        self.secs
    }

    /// The fraction of a second, in nanoseconds (0..1e9).
    #[must_use]
    pub const fn subsec_nanos(&self) -> u32 {
        self.nanos
    }

    /// The same length as a `chrono::TimeDelta`, which holds less than 2^63 ms.
    pub fn to_time_delta(&self) -> Result<chrono::TimeDelta, DurationError> {
        let secs = i64::try_from(self.secs).map_err(|_| DurationError::OutOfTimeDeltaRange)?;
        chrono::TimeDelta::new(secs, self.nanos).ok_or(DurationError::OutOfTimeDeltaRange)
    }

    /// The sum of two lengths, or `None` past 2^64 - 1 seconds.
    #[must_use]
    pub fn checked_add(self, other: Duration) -> Option<Duration> {
        let mut secs = self.secs.checked_add(other.secs)?;
        let mut nanos = self.nanos + other.nanos; // both < 1e9: no overflow in u32
        if nanos >= NANOS_PER_SECOND {
            nanos -= NANOS_PER_SECOND;
            secs = secs.checked_add(1)?;
        }
        Some(Duration { secs, nanos })
    }

    /// The form an implementation writes for a length it computed (§2.1): days, hours,
    /// minutes and seconds, never weeks, zero parts left out, zero as `PT0S`.
    #[must_use]
    pub fn to_canonical(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Duration::ZERO {
            return f.write_str("PT0S");
        }
        let days = self.secs / SECONDS_PER_DAY;
        let rest = self.secs % SECONDS_PER_DAY;
        let hours = rest / SECONDS_PER_HOUR;
        let minutes = rest % SECONDS_PER_HOUR / SECONDS_PER_MINUTE;
        let seconds = rest % SECONDS_PER_MINUTE;
        f.write_str("P")?;
        if days > 0 {
            write!(f, "{days}D")?;
        }
        if rest == 0 && self.nanos == 0 {
            return Ok(());
        }
        f.write_str("T")?;
        if hours > 0 {
            write!(f, "{hours}H")?;
        }
        if minutes > 0 {
            write!(f, "{minutes}M")?;
        }
        if seconds > 0 || self.nanos > 0 {
            write!(f, "{seconds}")?;
            if self.nanos > 0 {
                let digits = format!("{:09}", self.nanos);
                write!(f, ".{}", digits.trim_end_matches('0'))?;
            }
            f.write_str("S")?;
        }
        Ok(())
    }
}

impl FromStr for Duration {
    type Err = DurationError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Duration::parse(s)
    }
}

/// Writes the canonical form: what an implementation writes is a length it computed.
impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(ParseVisitor::<Duration>::new("an ISO 8601 duration (§2.1)"))
    }
}

/// A duration's parts as written, each `None` where left out, so that it can be said
/// in the parts the host signed ("PT24H" is 24 hours, not 1 day) while [`Duration`]
/// holds only the length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Parts {
    /// Weeks (`W`), as written.
    pub weeks: Option<u64>,
    /// Days (`D`), as written.
    pub days: Option<u64>,
    /// Hours (`H`), as written.
    pub hours: Option<u64>,
    /// Minutes (`M` after `T`), as written.
    pub minutes: Option<u64>,
    /// Whole seconds.
    pub seconds: Option<u64>,
    /// The fraction of the seconds part in nanoseconds, 0 without one.
    pub nanos: u32,
}

impl Parts {
    /// Parses a duration (§2.1) exactly as [`Duration::parse`] does, keeping its parts.
    pub fn parse(input: &str) -> Result<Parts, DurationError> {
        scan(input).map(|scanned| scanned.parts)
    }
}

/// How long a host keeps a booking's records (§2.1 `policies.retention`): whole days,
/// written `P<n>W`, `P<n>D` or `P<n>W<n>D`. `P0D` means not past the booking's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Retention {
    /// Invariant: `days * 86 400` fits in a u64, so [`Retention::to_duration`] cannot fail.
    days: u64,
}

impl Retention {
    /// Parses a retention: a duration in weeks or days only (§2.1, the Retention schema).
    pub fn parse(input: &str) -> Result<Retention, DurationError> {
        let scanned = scan(input)?;
        if let Some(at) = scanned.time_designator_at {
            return Err(DurationError::RetentionTimePart { at });
        }
        // No T part means whole days: the scan refuses fractions outside seconds.
        Ok(Retention { days: scanned.length.secs / SECONDS_PER_DAY })
    }

    /// A retention of whole days, or `None` if the length would not fit a [`Duration`].
    #[must_use]
    pub fn from_days(days: u64) -> Option<Retention> {
        days.checked_mul(SECONDS_PER_DAY)?;
        Some(Retention { days })
    }

    /// The number of days (a week counts 7).
    #[must_use]
    pub const fn days(&self) -> u64 {
        self.days
    }

    /// The same length as a [`Duration`].
    #[must_use]
    pub const fn to_duration(&self) -> Duration {
        Duration::from_seconds(self.days * SECONDS_PER_DAY)
    }

    /// The canonical form `P<n>D`: computed lengths are written in days, never weeks (§2.1).
    #[must_use]
    pub fn to_canonical(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Retention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "P{}D", self.days)
    }
}

impl FromStr for Retention {
    type Err = DurationError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Retention::parse(s)
    }
}

impl Serialize for Retention {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Retention {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(ParseVisitor::<Retention>::new("a retention in weeks or days (§2.1)"))
    }
}

/// Deserializes any `FromStr<Err = DurationError>` type from a string, borrowed or not.
struct ParseVisitor<T> {
    expecting: &'static str,
    marker: std::marker::PhantomData<T>,
}

impl<T> ParseVisitor<T> {
    fn new(expecting: &'static str) -> Self {
        ParseVisitor { expecting, marker: std::marker::PhantomData }
    }
}

impl<T: FromStr<Err = DurationError>> Visitor<'_> for ParseVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        v.parse().map_err(E::custom)
    }
}

/// What a scan found: the length, and where its `T` was (a retention refuses one).
struct Scanned {
    length: Duration,
    parts: Parts,
    time_designator_at: Option<usize>,
}

/// A designator's place in the fixed order W, D, (T), H, M, S; each appears at most once.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Part {
    Weeks,
    Days,
    Hours,
    Minutes,
    Seconds,
}

impl Part {
    fn seconds(self) -> u64 {
        match self {
            Part::Weeks => SECONDS_PER_WEEK,
            Part::Days => SECONDS_PER_DAY,
            Part::Hours => SECONDS_PER_HOUR,
            Part::Minutes => SECONDS_PER_MINUTE,
            Part::Seconds => 1,
        }
    }
}

/// Names the rule a character breaks where no designator or digit is allowed.
fn refuse_char(at: usize, c: char) -> DurationError {
    match c {
        '+' | '-' => DurationError::Sign { at },
        ',' => DurationError::Comma { at },
        c if c.is_ascii_lowercase() => DurationError::LowerCase { at },
        c if c.is_numeric() => DurationError::NonAsciiDigit { at },
        found => DurationError::UnexpectedChar { at, found },
    }
}

// Long by design: one pass over the ISO 8601 duration grammar, a branch per rule, at one position.
fn scan(input: &str) -> Result<Scanned, DurationError> {
    let bytes = input.as_bytes();
    let char_at = |i: usize| input.get(i..).and_then(|rest| rest.chars().next());
    match char_at(0) {
        None => return Err(DurationError::Empty),
        Some('P') => {}
        Some(c) if c.is_ascii_digit() || c.is_ascii_uppercase() => return Err(DurationError::MissingPeriodDesignator),
        Some(c) => return Err(refuse_char(0, c)),
    }

    let mut i = 1;
    let mut total = Duration::ZERO;
    let mut last_part: Option<Part> = None;
    let mut time_designator_at: Option<usize> = None;
    let mut time_parts = 0usize;
    let mut parts = Parts::default();

    while i < bytes.len() {
        let b = bytes[i];
        if b == b'T' {
            if time_designator_at.is_some() {
                return Err(DurationError::OutOfOrder { at: i });
            }
            time_designator_at = Some(i);
            i += 1;
            continue;
        }
        if !b.is_ascii_digit() {
            return Err(match b {
                b'W' | b'D' | b'H' | b'M' | b'S' | b'Y' | b'.' => DurationError::MissingNumber { at: i },
                _ => refuse_char(i, char_at(i).unwrap_or('\u{FFFD}')),
            });
        }

        // Integer digits, accumulated with checked arithmetic: the input is hostile.
        let mut whole: u64 = 0;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            whole = whole
                .checked_mul(10)
                .and_then(|w| w.checked_add(u64::from(bytes[i] - b'0')))
                .ok_or(DurationError::Overflow)?;
            i += 1;
        }

        // An optional fraction; whether it is allowed depends on the designator after it.
        let mut nanos: u32 = 0;
        let mut fraction = false;
        if i < bytes.len() && bytes[i] == b',' {
            return Err(DurationError::Comma { at: i });
        }
        if i < bytes.len() && bytes[i] == b'.' {
            let point = i;
            fraction = true;
            i += 1;
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                if i - start == MAX_FRACTION_DIGITS {
                    return Err(DurationError::TooManyFractionDigits { at: i });
                }
                nanos = nanos * 10 + u32::from(bytes[i] - b'0');
                i += 1;
            }
            let digits = i - start;
            if digits == 0 {
                return Err(DurationError::EmptyFraction { at: point });
            }
            // Scale to nanoseconds: "5" after the point is 500 000 000 ns.
            nanos *= 10u32.pow((MAX_FRACTION_DIGITS - digits) as u32);
        }

        let at = i;
        let Some(designator) = char_at(at) else {
            return Err(DurationError::MissingDesignator { at });
        };
        let in_time = time_designator_at.is_some();
        let part = match (designator, in_time) {
            ('W', false) => Part::Weeks,
            ('D', false) => Part::Days,
            ('H', true) => Part::Hours,
            ('M', true) => Part::Minutes,
            ('S', true) => Part::Seconds,
            ('Y', _) | ('M', false) => return Err(DurationError::YearOrMonth { at }),
            ('H' | 'S', false) => return Err(DurationError::TimePartWithoutT { at }),
            ('W' | 'D', true) => return Err(DurationError::DatePartAfterT { at }),
            (c, _) => return Err(refuse_char(at, c)),
        };
        if last_part.is_some_and(|last| last >= part) {
            return Err(DurationError::OutOfOrder { at });
        }
        if fraction && part != Part::Seconds {
            return Err(DurationError::FractionNotInSeconds { at });
        }
        last_part = Some(part);
        if in_time {
            time_parts += 1;
        }
        *match part {
            Part::Weeks => &mut parts.weeks,
            Part::Days => &mut parts.days,
            Part::Hours => &mut parts.hours,
            Part::Minutes => &mut parts.minutes,
            Part::Seconds => &mut parts.seconds,
        } = Some(whole);
        parts.nanos = nanos;

        let secs = whole.checked_mul(part.seconds()).ok_or(DurationError::Overflow)?;
        total = total.checked_add(Duration { secs, nanos }).ok_or(DurationError::Overflow)?;
        i += 1; // designators are ASCII: one byte
    }

    if let Some(at) = time_designator_at {
        if time_parts == 0 {
            return Err(DurationError::EmptyTimePart { at });
        }
    }
    if last_part.is_none() {
        return Err(DurationError::NoComponent);
    }
    Ok(Scanned { length: total, parts, time_designator_at })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn p(s: &str) -> Duration {
        match Duration::parse(s) {
            Ok(d) => d,
            Err(e) => panic!("{s:?} should parse: {e}"),
        }
    }

    fn err(s: &str) -> DurationError {
        match Duration::parse(s) {
            Ok(d) => panic!("{s:?} should be refused, parsed as {d:?}"),
            Err(e) => e,
        }
    }

    // §2.1: "equivalent forms (P1W, P7D, PT168H) are the same length".
    #[test]
    fn spec_equivalent_forms_have_the_same_length() {
        assert_eq!(p("P1W"), p("P7D"));
        assert_eq!(p("P7D"), p("PT168H"));
        assert_eq!(p("P1W").as_seconds(), 604_800);
    }

    // §2.1: "604 800 s is P7D, 90 061 s is P1DT1H1M1S".
    #[test]
    fn spec_canonical_examples() {
        assert_eq!(Duration::from_seconds(604_800).to_canonical(), "P7D");
        assert_eq!(Duration::from_seconds(90_061).to_canonical(), "P1DT1H1M1S");
        assert_eq!(Duration::ZERO.to_canonical(), "PT0S");
        assert_eq!(p("PT0S"), Duration::ZERO);
        assert_eq!(p("P0D"), Duration::ZERO);
    }

    #[test]
    fn canonical_never_writes_weeks_and_leaves_out_zero_parts() {
        assert_eq!(p("P2W3D").to_canonical(), "P17D");
        assert_eq!(p("PT1H").to_canonical(), "PT1H");
        assert_eq!(p("PT60M").to_canonical(), "PT1H");
        assert_eq!(p("PT3601S").to_canonical(), "PT1H1S");
        assert_eq!(p("P1DT0H0M0S").to_canonical(), "P1D");
        assert_eq!(p("PT86400S").to_canonical(), "P1D");
    }

    #[test]
    fn canonical_fraction_has_no_trailing_zeros() {
        assert_eq!(p("PT1.250S").to_canonical(), "PT1.25S");
        assert_eq!(p("PT0.5S").to_canonical(), "PT0.5S");
        assert_eq!(p("PT1.000000001S").to_canonical(), "PT1.000000001S");
        assert_eq!(p("PT1.0S").to_canonical(), "PT1S");
    }

    #[test]
    fn every_part_and_their_combinations() {
        assert_eq!(p("P1W2D").as_seconds(), 9 * 86_400);
        assert_eq!(p("P2W3D").as_seconds(), 17 * 86_400);
        assert_eq!(p("PT45M").as_seconds(), 2_700);
        assert_eq!(p("PT1M").as_seconds(), 60, "PT1M is one minute");
        assert_eq!(p("PT30S").as_seconds(), 30);
        assert_eq!(p("P1W1DT1H1M1S").as_seconds(), 604_800 + 86_400 + 3_600 + 60 + 1);
        assert_eq!(p("PT007H").as_seconds(), 7 * 3_600, "leading zeros are digits");
    }

    #[test]
    fn decimal_point_in_seconds() {
        let d = p("PT1.25S");
        assert_eq!((d.as_seconds(), d.subsec_nanos()), (1, 250_000_000));
        assert_eq!(p("PT1.5S").subsec_nanos(), 500_000_000);
        assert_eq!(p("PT0.123456789S").subsec_nanos(), 123_456_789);
        assert_eq!(err("PT0.1234567891S"), DurationError::TooManyFractionDigits { at: 13 });
    }

    #[test]
    fn fraction_only_in_seconds() {
        assert_eq!(err("P1.5D"), DurationError::FractionNotInSeconds { at: 4 });
        assert_eq!(err("P1.5W"), DurationError::FractionNotInSeconds { at: 4 });
        assert_eq!(err("PT1.5H"), DurationError::FractionNotInSeconds { at: 5 });
        assert_eq!(err("PT1.5M"), DurationError::FractionNotInSeconds { at: 5 });
    }

    #[test]
    fn decimal_point_never_a_comma() {
        assert_eq!(err("PT1,5S"), DurationError::Comma { at: 3 });
    }

    #[test]
    fn digits_required_on_both_sides_of_the_point() {
        assert_eq!(err("PT1.S"), DurationError::EmptyFraction { at: 3 });
        assert_eq!(err("PT.5S"), DurationError::MissingNumber { at: 2 });
    }

    #[test]
    fn at_least_one_part() {
        assert_eq!(err(""), DurationError::Empty);
        assert_eq!(err("P"), DurationError::NoComponent);
    }

    #[test]
    fn t_only_before_a_time_part() {
        assert_eq!(err("PT"), DurationError::EmptyTimePart { at: 1 });
        assert_eq!(err("P1DT"), DurationError::EmptyTimePart { at: 3 });
        assert_eq!(err("P1H"), DurationError::TimePartWithoutT { at: 2 });
        assert_eq!(err("P1S"), DurationError::TimePartWithoutT { at: 2 });
        assert_eq!(err("PT1D"), DurationError::DatePartAfterT { at: 3 });
        assert_eq!(err("PT1W"), DurationError::DatePartAfterT { at: 3 });
        assert_eq!(err("PT1HT1M"), DurationError::OutOfOrder { at: 4 });
    }

    #[test]
    fn no_years_or_months() {
        assert_eq!(err("P1Y"), DurationError::YearOrMonth { at: 2 });
        assert_eq!(err("P1M"), DurationError::YearOrMonth { at: 2 });
        assert_eq!(err("PT1Y"), DurationError::YearOrMonth { at: 3 });
        assert_eq!(err("P1Y2M3D"), DurationError::YearOrMonth { at: 2 });
    }

    #[test]
    fn no_sign() {
        assert_eq!(err("P-1D"), DurationError::Sign { at: 1 });
        assert_eq!(err("+P1D"), DurationError::Sign { at: 0 });
        assert_eq!(err("-P1D"), DurationError::Sign { at: 0 });
        assert_eq!(err("PT+1H"), DurationError::Sign { at: 2 });
    }

    #[test]
    fn upper_case_only() {
        assert_eq!(err("pt1h"), DurationError::LowerCase { at: 0 });
        assert_eq!(err("Pt1H"), DurationError::LowerCase { at: 1 });
        assert_eq!(err("PT1h"), DurationError::LowerCase { at: 3 });
        assert_eq!(err("p1D"), DurationError::LowerCase { at: 0 });
    }

    #[test]
    fn must_start_with_p() {
        assert_eq!(err("T1H"), DurationError::MissingPeriodDesignator);
        assert_eq!(err("1D"), DurationError::MissingPeriodDesignator);
    }

    // §2.1 Strings: "$ matches only at the very end, so "PT1H\n" is not a duration".
    #[test]
    fn nothing_before_or_after() {
        assert_eq!(err("PT1H\n"), DurationError::UnexpectedChar { at: 4, found: '\n' });
        assert_eq!(err("PT1H "), DurationError::UnexpectedChar { at: 4, found: ' ' });
        assert_eq!(err(" PT1H"), DurationError::UnexpectedChar { at: 0, found: ' ' });
        assert_eq!(err("PT1H\0"), DurationError::UnexpectedChar { at: 4, found: '\0' });
        assert_eq!(err("P1DX"), DurationError::UnexpectedChar { at: 3, found: 'X' });
    }

    // §2.1 Strings: "\d matches the ASCII digits 0–9 only".
    #[test]
    fn ascii_digits_only() {
        assert_eq!(err("PT١H"), DurationError::NonAsciiDigit { at: 2 });
        assert_eq!(err("P１D"), DurationError::NonAsciiDigit { at: 1 });
        assert_eq!(err("PT1١H"), DurationError::NonAsciiDigit { at: 3 });
        assert_eq!(err("PT1.١S"), DurationError::EmptyFraction { at: 3 }, "a non-ASCII digit is not a fraction digit");
    }

    #[test]
    fn designator_without_number_or_number_without_designator() {
        assert_eq!(err("PD"), DurationError::MissingNumber { at: 1 });
        assert_eq!(err("PTH"), DurationError::MissingNumber { at: 2 });
        assert_eq!(err("P1"), DurationError::MissingDesignator { at: 2 });
        assert_eq!(err("PT1"), DurationError::MissingDesignator { at: 3 });
        assert_eq!(err("PT1.5"), DurationError::MissingDesignator { at: 5 });
    }

    #[test]
    fn parts_in_order_and_once() {
        assert_eq!(err("P1D2W"), DurationError::OutOfOrder { at: 4 });
        assert_eq!(err("P1D1D"), DurationError::OutOfOrder { at: 4 });
        assert_eq!(err("PT1S1H"), DurationError::OutOfOrder { at: 5 });
        assert_eq!(err("PT1M1M"), DurationError::OutOfOrder { at: 5 });
        assert_eq!(err("PTT1H"), DurationError::OutOfOrder { at: 2 });
    }

    #[test]
    fn huge_numbers_are_an_error_not_a_panic() {
        let max = u64::MAX;
        assert_eq!(p(&format!("PT{max}S")).as_seconds(), max);
        assert_eq!(err(&format!("PT{max}0S")), DurationError::Overflow);
        assert_eq!(err(&format!("P{max}W")), DurationError::Overflow);
        assert_eq!(err(&format!("P{max}D")), DurationError::Overflow);
        assert_eq!(err(&format!("PT{max}S1S")), DurationError::OutOfOrder { at: 24 });
        assert_eq!(err(&format!("P1DT{max}S")), DurationError::Overflow);
        assert_eq!(err(&"9".repeat(10_000)), DurationError::MissingPeriodDesignator);
        assert_eq!(err(&format!("P{}D", "9".repeat(10_000))), DurationError::Overflow);
        // Leading zeros never overflow.
        assert_eq!(p(&format!("PT{}1S", "0".repeat(10_000))).as_seconds(), 1);
    }

    #[test]
    fn time_delta_conversion() {
        assert_eq!(p("PT1.5S").to_time_delta(), Ok(chrono::TimeDelta::milliseconds(1_500)));
        assert_eq!(p("P1W").to_time_delta(), Ok(chrono::TimeDelta::days(7)));
        assert_eq!(Duration::from_seconds(u64::MAX).to_time_delta(), Err(DurationError::OutOfTimeDeltaRange));
        assert_eq!(Duration::from_seconds(i64::MAX as u64).to_time_delta(), Err(DurationError::OutOfTimeDeltaRange));
    }

    #[test]
    fn checked_add_carries_nanoseconds() {
        let sum = p("PT0.75S").checked_add(p("PT0.5S"));
        assert_eq!(sum, Some(p("PT1.25S")));
        assert_eq!(Duration::from_seconds(u64::MAX).checked_add(p("PT0.5S")), Some(p(&format!("PT{}.5S", u64::MAX))));
        assert_eq!(p(&format!("PT{}.5S", u64::MAX)).checked_add(p("PT0.5S")), None);
    }

    #[test]
    fn order_is_by_length() {
        assert!(p("PT59M") < p("PT1H"));
        assert!(p("PT1H") < p("PT1H0.000000001S"));
        assert!(p("P1D") > p("PT23H59M59.999999999S"));
    }

    #[test]
    fn serde_reads_any_form_and_writes_canonical() {
        let d: Duration = serde_json::from_str(r#""P1W""#).expect("P1W is a duration");
        assert_eq!(d, Duration::from_seconds(604_800));
        assert_eq!(serde_json::to_string(&d).ok().as_deref(), Some(r#""P7D""#));
        assert!(serde_json::from_str::<Duration>(r#""PT1H\n""#).is_err());
        assert!(serde_json::from_str::<Duration>("3600").is_err());
        // An owned string (from a Value) deserializes too.
        let v = serde_json::json!({ "d": "PT45M" });
        #[derive(Deserialize)]
        struct Service {
            d: Duration,
        }
        let s: Service = serde_json::from_value(v).expect("owned strings deserialize");
        assert_eq!(s.d.as_seconds(), 2_700);
    }

    #[test]
    fn parts_as_written() {
        let parts = Parts::parse("P1DT12H").expect("valid");
        assert_eq!(parts, Parts { days: Some(1), hours: Some(12), ..Parts::default() });
        let parts = Parts::parse("PT24H0M1.5S").expect("valid");
        assert_eq!(
            parts,
            Parts { hours: Some(24), minutes: Some(0), seconds: Some(1), nanos: 500_000_000, ..Parts::default() }
        );
        assert_eq!(Parts::parse("P2W").map(|p| p.weeks), Ok(Some(2)));
        assert_eq!(Parts::parse("P1M"), Err(DurationError::YearOrMonth { at: 2 }));
        assert_eq!(
            Parts::parse(&format!("P1DT{}S", u64::MAX)),
            Err(DurationError::Overflow),
            "the same rules as Duration::parse"
        );
    }

    // §2.1: "A retention (below) is in weeks or days only".
    #[test]
    fn retention_in_weeks_or_days() {
        let r = |s: &str| Retention::parse(s).map(|r| r.days());
        assert_eq!(r("P365D"), Ok(365));
        assert_eq!(r("P0D"), Ok(0));
        assert_eq!(r("P2W"), Ok(14));
        assert_eq!(r("P1W3D"), Ok(10));
        assert_eq!(r("PT24H"), Err(DurationError::RetentionTimePart { at: 1 }));
        assert_eq!(r("P1DT1H"), Err(DurationError::RetentionTimePart { at: 3 }));
        assert_eq!(r("P1M"), Err(DurationError::YearOrMonth { at: 2 }));
        assert_eq!(r("P1Y"), Err(DurationError::YearOrMonth { at: 2 }));
        assert_eq!(r("P"), Err(DurationError::NoComponent));
        assert_eq!(r("P1.5D"), Err(DurationError::FractionNotInSeconds { at: 4 }));
        assert_eq!(r("P365D\n"), Err(DurationError::UnexpectedChar { at: 5, found: '\n' }));
        let too_many_days = u64::MAX / 86_400 + 1;
        assert_eq!(r(&format!("P{too_many_days}D")), Err(DurationError::Overflow));
    }

    #[test]
    fn retention_canonical_and_serde() {
        let r = Retention::parse("P1W3D").expect("valid retention");
        assert_eq!(r.to_canonical(), "P10D");
        assert_eq!(r.to_duration(), p("P10D"));
        assert_eq!(Retention::from_days(365).map(|r| r.to_string()).as_deref(), Some("P365D"));
        assert_eq!(Retention::from_days(u64::MAX), None);
        let max = Retention::from_days(u64::MAX / 86_400).expect("fits");
        assert_eq!(max.to_duration().as_seconds() / 86_400, u64::MAX / 86_400);
        let back: Retention = serde_json::from_str(r#""P52W""#).expect("valid");
        assert_eq!(back.days(), 364);
        assert_eq!(serde_json::to_string(&back).ok().as_deref(), Some(r#""P364D""#));
        assert!(serde_json::from_str::<Retention>(r#""PT1H""#).is_err());
    }

    fn any_duration() -> impl Strategy<Value = Duration> {
        prop_oneof![
            (any::<u64>(), 0u32..NANOS_PER_SECOND).prop_map(|(secs, nanos)| Duration { secs, nanos }),
            (0u64..10_000_000, 0u32..4)
                .prop_map(|(secs, n)| Duration { secs, nanos: [0, 500_000_000, 1, 120_000_000][n as usize] }),
        ]
    }

    proptest! {
        #[test]
        fn canonical_round_trips(d in any_duration()) {
            let text = d.to_canonical();
            let back = Duration::parse(&text);
            prop_assert_eq!(back.clone(), Ok(d), "{}", text);
            // The canonical writer is a fixed point.
            prop_assert_eq!(back.map(|b| b.to_canonical()), Ok(text));
        }

        #[test]
        fn any_form_reparses_to_the_same_length(
            w in 0u64..1_000, dd in 0u64..1_000, h in 0u64..1_000,
            m in 0u64..1_000, s in 0u64..1_000,
        ) {
            let text = format!("P{w}W{dd}DT{h}H{m}M{s}S");
            let d = Duration::parse(&text);
            let secs = w * 604_800 + dd * 86_400 + h * 3_600 + m * 60 + s;
            prop_assert_eq!(d, Ok(Duration::from_seconds(secs)));
        }

        #[test]
        fn parse_never_panics(s in "\\PC*") {
            let _ = Duration::parse(&s);
            let _ = Retention::parse(&s);
        }

        #[test]
        fn parse_never_panics_on_duration_like_text(s in "[PTWDHMSY0-9.,+\\- ]{0,40}") {
            if let Ok(d) = Duration::parse(&s) {
                // Whatever parses writes back as something that parses to the same length.
                prop_assert_eq!(Duration::parse(&d.to_canonical()), Ok(d));
            }
        }
    }
}
