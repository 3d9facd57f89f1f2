//! Money (§2.1): exact decimal amounts in ISO 4217 currencies, and percentages.
//!
//! Money is a decimal string plus an ISO 4217 code, never a float (§2.1). Every amount
//! is held as a whole number of its currency's minor unit (cents for CAD), and every
//! operation is exact integer arithmetic. SchCP never moves money (§8) and an amount is
//! never negative, so minor units are a `u64`.
//!
//! Amounts in different currencies are never added or compared (§2.1): [`Amount`] has
//! no `PartialOrd`, and [`Amount::checked_add`] and [`Amount::fits_within`] refuse a
//! currency mismatch.

use std::borrow::Borrow;
use std::fmt;
use std::str::FromStr;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why an amount, currency or percentage is refused, or an operation on them failed
/// (§2.1). Positions are byte offsets into the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MoneyError {
    /// A currency code that is not three ASCII upper-case letters.
    #[error("a currency is an ISO 4217 code of three upper-case letters")]
    MalformedCurrency,
    /// Three letters that are not an active ISO 4217 code.
    #[error("unknown currency {code}")]
    UnknownCurrency {
        /// The code as written.
        code: String,
    },
    /// An ISO 4217 code with no minor unit (XXX, XTS, gold, SDR…): no amount in it
    /// can be written (§2.1 "no more decimals than its currency's minor unit").
    #[error("currency {code} has no minor unit")]
    NoMinorUnit {
        /// The code as written.
        code: &'static str,
    },
    /// The amount string is empty.
    #[error("empty amount")]
    EmptyAmount,
    /// A `+` or `-`: amounts are never negative and carry no sign.
    #[error("sign at byte {at}: an amount has no sign")]
    Sign {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// An exponent (`1e3`): an amount is a plain decimal.
    #[error("exponent at byte {at}: an amount is a plain decimal")]
    Exponent {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A non-ASCII digit: `\d` is ASCII 0-9 only (§2.1 Strings).
    #[error("non-ASCII digit at byte {at}")]
    NonAsciiDigit {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// Any other character, including whitespace before or after the amount and a
    /// comma as a decimal or thousands separator.
    #[error("unexpected character {found:?} at byte {at}")]
    UnexpectedChar {
        /// Byte offset in the input where it fails.
        at: usize,
        /// The character found.
        found: char,
    },
    /// No digits before the decimal point (`.5`).
    #[error("no digits before the decimal point")]
    MissingIntegerPart,
    /// No digits after the decimal point (`5.`).
    #[error("no digits after the decimal point at byte {at}")]
    MissingFraction {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A leading zero before another digit (`079.00`, `00.50`); `0.50` is fine.
    #[error("leading zero in amount")]
    LeadingZero,
    /// More decimals than the currency's minor unit (79.001 CAD, 125.0 JPY; §2.1).
    #[error("{decimals} decimals, but {currency} has {minor_units}")]
    TooManyDecimals {
        /// Decimals the amount is written with.
        decimals: usize,
        /// The currency's ISO 4217 code.
        currency: &'static str,
        /// Decimals its minor unit allows.
        minor_units: u8,
    },
    /// The amount, a sum or a percentage of an amount does not fit in 2^64 - 1 minor units.
    #[error("amount too large")]
    Overflow,
    /// An addition or comparison across currencies, which SchCP never does (§2.1).
    /// A total in another currency than a mandate's `max_price` does not fit it
    /// (`MANDATE_LIMIT`), and an offer line in another currency makes the offer invalid.
    #[error("currency mismatch: {expected} and {found}")]
    CurrencyMismatch {
        /// The first currency.
        expected: Currency,
        /// The character found.
        found: Currency,
    },
    /// The percentage literal is empty.
    #[error("empty percentage")]
    EmptyPercent,
    /// A negative percentage.
    #[error("a percentage is not negative")]
    NegativePercent,
    /// The percentage is not a JSON number literal.
    #[error("malformed percentage at byte {at}")]
    MalformedPercent {
        /// Byte offset in the input where it fails.
        at: usize,
    },
    /// A percentage too large to apply exactly.
    #[error("percentage too large")]
    PercentTooLarge,
    /// A percentage with more significant digits, or finer, than can be applied exactly.
    #[error("percentage too precise")]
    PercentTooPrecise,
}

/// An active ISO 4217 currency with a minor unit (§2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Currency {
    code: &'static str,
    minor_units: u8,
}

impl Currency {
    /// Looks up an alphabetic ISO 4217 code. Codes are upper case: `cad` is refused.
    pub fn parse(code: &str) -> Result<Currency, MoneyError> {
        if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(MoneyError::MalformedCurrency);
        }
        match ISO_4217.binary_search_by(|(c, _)| (*c).cmp(code)) {
            Ok(index) => match ISO_4217[index] {
                (code, Some(minor_units)) => Ok(Currency { code, minor_units }),
                (code, None) => Err(MoneyError::NoMinorUnit { code }),
            },
            Err(_) => Err(MoneyError::UnknownCurrency { code: code.to_owned() }),
        }
    }

    /// The alphabetic code, such as `CAD`.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        self.code
    }

    /// The number of decimals of the minor unit: 2 for CAD, 0 for JPY, 3 for BHD.
    #[must_use]
    pub const fn minor_units(&self) -> u8 {
        self.minor_units
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code)
    }
}

impl FromStr for Currency {
    type Err = MoneyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Currency::parse(s)
    }
}

impl Serialize for Currency {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code)
    }
}

impl<'de> Deserialize<'de> for Currency {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CodeVisitor;
        impl Visitor<'_> for CodeVisitor {
            type Value = Currency;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an ISO 4217 currency code")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Currency, E> {
                Currency::parse(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(CodeVisitor)
    }
}

/// A non-negative amount of money, exact, in whole minor units of its currency (§2.1).
///
/// Equality holds only within one currency; there is deliberately no ordering, since
/// amounts in different currencies are never compared (use [`Amount::fits_within`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Amount {
    minor: u64,
    currency: Currency,
}

impl Amount {
    /// Parses a decimal amount string and its currency code, as a `Money` object
    /// carries them (§2.1): ASCII digits, an optional point followed by at most the
    /// currency's minor-unit decimals, no sign, exponent, whitespace or leading zero.
    pub fn parse(amount: &str, currency: &str) -> Result<Amount, MoneyError> {
        let currency = Currency::parse(currency)?;
        let bytes = amount.as_bytes();
        if bytes.is_empty() {
            return Err(MoneyError::EmptyAmount);
        }

        let mut i = 0;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let integer = &bytes[..i];
        if integer.is_empty() {
            return Err(match bytes[0] {
                b'.' => MoneyError::MissingIntegerPart,
                _ => refuse_amount_char(amount, 0),
            });
        }
        // `0.50` is canonical; `00.50` and `079.00` are refused, so that one amount
        // has one spelling apart from its number of decimals.
        if integer.len() > 1 && integer[0] == b'0' {
            return Err(MoneyError::LeadingZero);
        }

        let mut fraction: &[u8] = &[];
        if i < bytes.len() && bytes[i] == b'.' {
            let point = i;
            i += 1;
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            fraction = &bytes[start..i];
            if fraction.is_empty() {
                return Err(MoneyError::MissingFraction { at: point });
            }
        }
        if i < bytes.len() {
            return Err(refuse_amount_char(amount, i));
        }

        let minor_units = currency.minor_units;
        if fraction.len() > usize::from(minor_units) {
            return Err(MoneyError::TooManyDecimals { decimals: fraction.len(), currency: currency.code, minor_units });
        }
        // Fewer decimals than the minor unit are allowed (79 is 79.00 CAD): pad them.
        let padding = u32::from(minor_units) - fraction.len() as u32;
        let minor = digits_value(integer)
            .and_then(|whole| whole.checked_mul(pow10(u32::from(minor_units))?))
            .and_then(|whole| {
                let cents = digits_value(fraction)?.checked_mul(pow10(padding)?)?;
                whole.checked_add(cents)
            })
            .ok_or(MoneyError::Overflow)?;
        Ok(Amount { minor, currency })
    }

    /// An amount of `minor` minor units (1027 CAD minor units is 10.27 CAD).
    #[must_use]
    pub const fn from_minor(minor: u64, currency: Currency) -> Amount {
        Amount { minor, currency }
    }

    /// Zero in a currency: the start of a sum.
    #[must_use]
    pub const fn zero(currency: Currency) -> Amount {
        Amount { minor: 0, currency }
    }

    /// The amount in whole minor units.
    #[must_use]
    pub const fn minor(&self) -> u64 {
        self.minor
    }

    /// The amount's currency.
    #[must_use]
    pub const fn currency(&self) -> Currency {
        self.currency
    }

    /// The canonical amount string, with exactly the minor unit's decimals, which
    /// hosts SHOULD send (§2.1): 79 CAD is `79.00`, 125 JPY is `125`.
    #[must_use]
    pub fn to_canonical_string(&self) -> String {
        let minor_units = u32::from(self.currency.minor_units);
        // Minor units are at most 4 in ISO 4217, so the power always fits.
        let Some(scale) = pow10(minor_units).filter(|_| minor_units > 0) else {
            return self.minor.to_string();
        };
        format!("{}.{:0width$}", self.minor / scale, self.minor % scale, width = minor_units as usize)
    }

    /// The sum of two amounts in the same currency (§2.1: amounts in different
    /// currencies are never added).
    pub fn checked_add(&self, other: &Amount) -> Result<Amount, MoneyError> {
        self.same_currency(other)?;
        let minor = self.minor.checked_add(other.minor).ok_or(MoneyError::Overflow)?;
        Ok(Amount { minor, ..*self })
    }

    /// The exact sum of amounts that must all be in `currency`, such as an offer's
    /// lines in its total's currency (§2.1). An empty sum is zero.
    pub fn sum<I>(currency: Currency, amounts: I) -> Result<Amount, MoneyError>
    where
        I: IntoIterator,
        I::Item: Borrow<Amount>,
    {
        amounts.into_iter().try_fold(Amount::zero(currency), |total, amount| total.checked_add(amount.borrow()))
    }

    /// Whether this amount is at most `max`, such as a total against a mandate's
    /// `max_price`. A different currency is an error, never a comparison (§2.1); the
    /// caller refuses it as not fitting (`MANDATE_LIMIT`).
    pub fn fits_within(&self, max: &Amount) -> Result<bool, MoneyError> {
        max.same_currency(self)?;
        Ok(self.minor <= max.minor)
    }

    /// `percent` of this amount, computed exactly and rounded half up to a whole minor
    /// unit (§2.1): 13 % of 79.00 CAD is 10.27 CAD.
    pub fn percent(&self, percent: &Percent) -> Result<Amount, MoneyError> {
        // value × mantissa / (100 × 10^scale). Both factors are below 2^64, so the
        // product fits in a u128, and scale ≤ MAX_PERCENT_SCALE keeps the divisor in one.
        let numerator = u128::from(self.minor) * u128::from(percent.mantissa);
        let denominator = 100 * 10u128.pow(percent.scale);
        let quotient = numerator / denominator;
        let remainder = numerator % denominator;
        // Half up: a remainder of at least half the divisor rounds away from zero.
        // remainder < denominator ≤ 10^38, so doubling it cannot overflow a u128.
        let rounded = if remainder * 2 >= denominator { quotient + 1 } else { quotient };
        let minor = u64::try_from(rounded).map_err(|_| MoneyError::Overflow)?;
        Ok(Amount { minor, ..*self })
    }

    fn same_currency(&self, other: &Amount) -> Result<(), MoneyError> {
        if self.currency == other.currency {
            Ok(())
        } else {
            Err(MoneyError::CurrencyMismatch { expected: self.currency, found: other.currency })
        }
    }
}

/// For logs and debugging (`79.00 CAD`), not text a person reads: that is rendered
/// from locale files.
impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.to_canonical_string(), self.currency)
    }
}

/// The largest scale a percentage may have: `100 × 10^36` still fits in a u128.
const MAX_PERCENT_SCALE: u32 = 36;

/// A percentage, exactly the decimal its JSON number is written as (§2.1): `12.5` is
/// 125/1000 per cent, never a binary float. Held as `mantissa / 10^scale` per cent,
/// normalized (no trailing zeros in the mantissa unless the scale is 0), so equal
/// values are equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Percent {
    mantissa: u64,
    scale: u32,
}

impl Percent {
    /// Zero per cent.
    pub const ZERO: Percent = Percent { mantissa: 0, scale: 0 };

    /// Parses the literal text of a JSON number (RFC 8259 §6): `13`, `12.5`, `1.25e1`.
    /// A negative number is refused, and so is one with more than 19 significant
    /// digits or finer than 10^-36 per cent, which could not be applied exactly.
    // Long by design: one pass over a JSON number's grammar, at one position.
    pub fn parse(literal: &str) -> Result<Percent, MoneyError> {
        let bytes = literal.as_bytes();
        let digit_run = |from: usize| {
            let mut end = from;
            while end < bytes.len() && bytes[end].is_ascii_digit() {
                end += 1;
            }
            end
        };
        match bytes.first() {
            None => return Err(MoneyError::EmptyPercent),
            Some(b'-') => return Err(MoneyError::NegativePercent),
            Some(_) => {}
        }

        let int_end = digit_run(0);
        // JSON: an integer part is `0` or starts with 1-9.
        if int_end == 0 || (int_end > 1 && bytes[0] == b'0') {
            return Err(MoneyError::MalformedPercent { at: 0 });
        }
        let mut i = int_end;
        let mut frac = (i, i);
        if bytes.get(i) == Some(&b'.') {
            let end = digit_run(i + 1);
            if end == i + 1 {
                return Err(MoneyError::MalformedPercent { at: i + 1 });
            }
            frac = (i + 1, end);
            i = end;
        }
        // The exponent, kept as a sign and its digits: it may be any length.
        let mut exponent: Option<(bool, &[u8])> = None;
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            i += 1;
            let negative = match bytes.get(i) {
                Some(b'-') => {
                    i += 1;
                    true
                }
                Some(b'+') => {
                    i += 1;
                    false
                }
                _ => false,
            };
            let end = digit_run(i);
            if end == i {
                return Err(MoneyError::MalformedPercent { at: i });
            }
            exponent = Some((negative, &bytes[i..end]));
            i = end;
        }
        if i < bytes.len() {
            return Err(MoneyError::MalformedPercent { at: i });
        }

        // Significant digits: integer then fraction digits, without leading zeros or
        // trailing zeros (each trailing zero dropped lowers the scale by one).
        let digits: Vec<u8> =
            bytes[..int_end].iter().chain(&bytes[frac.0..frac.1]).copied().skip_while(|&d| d == b'0').collect();
        let significant = digits.len() - digits.iter().rev().take_while(|&&d| d == b'0').count();
        if significant == 0 {
            return Ok(Percent::ZERO);
        }
        let trailing_zeros = (digits.len() - significant) as i128;
        let exponent = match exponent {
            None => 0i128,
            Some((negative, digits)) => match digits_value(digits) {
                Some(e) if negative => -i128::from(e),
                Some(e) => i128::from(e),
                // An exponent beyond 2^64 is absurd either way; name which way.
                None if negative => return Err(MoneyError::PercentTooPrecise),
                None => return Err(MoneyError::PercentTooLarge),
            },
        };
        let scale = (frac.1 - frac.0) as i128 - exponent - trailing_zeros;
        let mantissa = digits_value(&digits[..significant]);
        if scale > 0 {
            let scale =
                u32::try_from(scale).ok().filter(|&s| s <= MAX_PERCENT_SCALE).ok_or(MoneyError::PercentTooPrecise)?;
            let mantissa = mantissa.ok_or(MoneyError::PercentTooPrecise)?;
            Ok(Percent { mantissa, scale })
        } else {
            let mantissa = u32::try_from(-scale)
                .ok()
                .and_then(pow10)
                .zip(mantissa)
                .and_then(|(power, mantissa)| mantissa.checked_mul(power))
                .ok_or(MoneyError::PercentTooLarge)?;
            Ok(Percent { mantissa, scale: 0 })
        }
    }

    /// Reads a percentage from a parsed JSON number through its text. Without
    /// serde_json's `arbitrary_precision`, a number was held as an f64, whose shortest
    /// text is the literal for any literal of up to 15 significant digits; for more,
    /// pass the literal's text to [`Percent::parse`].
    pub fn from_json_number(number: &serde_json::Number) -> Result<Percent, MoneyError> {
        Percent::parse(&number.to_string())
    }
}

/// Writes the exact decimal, without exponent or trailing zeros (`12.5`).
impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.mantissa.to_string();
        let scale = self.scale as usize;
        if scale == 0 {
            return f.write_str(&digits);
        }
        if digits.len() > scale {
            let (whole, fraction) = digits.split_at(digits.len() - scale);
            write!(f, "{whole}.{fraction}")
        } else {
            write!(f, "0.{digits:0>scale$}")
        }
    }
}

impl FromStr for Percent {
    type Err = MoneyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Percent::parse(s)
    }
}

/// Reads a JSON number, as a tax rule's or surcharge's percent is written (§2.1).
impl<'de> Deserialize<'de> for Percent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = serde_json::Number::deserialize(deserializer)?;
        Percent::from_json_number(&number).map_err(de::Error::custom)
    }
}

/// Names the rule a character breaks in an amount string.
fn refuse_amount_char(amount: &str, at: usize) -> MoneyError {
    // Every byte before `at` is ASCII, so `at` is a character boundary.
    match amount.get(at..).and_then(|rest| rest.chars().next()) {
        Some('+' | '-') => MoneyError::Sign { at },
        Some('e' | 'E') => MoneyError::Exponent { at },
        Some(c) if c.is_numeric() => MoneyError::NonAsciiDigit { at },
        Some(found) => MoneyError::UnexpectedChar { at, found },
        None => MoneyError::EmptyAmount,
    }
}

/// The value of a run of ASCII digits, or `None` past `u64::MAX`. Empty is zero.
fn digits_value(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |value, &d| value.checked_mul(10)?.checked_add(u64::from(d - b'0')))
}

/// 10^exp, or `None` past `u64::MAX`.
fn pow10(exp: u32) -> Option<u64> {
    10u64.checked_pow(exp)
}

/// Active ISO 4217 alphabetic codes and their minor units (`None`: "N.A." in the
/// standard), sorted by code for binary search. From ISO 4217 list one as published
/// in January 2026; withdrawn codes (ANG, BGN, HRK, SLL, ZWL, …) are not here.
#[rustfmt::skip]
static ISO_4217: &[(&str, Option<u8>)] = &[
    ("AED", Some(2)), ("AFN", Some(2)), ("ALL", Some(2)), ("AMD", Some(2)),
    ("AOA", Some(2)), ("ARS", Some(2)), ("AUD", Some(2)), ("AWG", Some(2)),
    ("AZN", Some(2)), ("BAM", Some(2)), ("BBD", Some(2)), ("BDT", Some(2)),
    ("BHD", Some(3)), ("BIF", Some(0)), ("BMD", Some(2)), ("BND", Some(2)),
    ("BOB", Some(2)), ("BOV", Some(2)), ("BRL", Some(2)), ("BSD", Some(2)),
    ("BTN", Some(2)), ("BWP", Some(2)), ("BYN", Some(2)), ("BZD", Some(2)),
    ("CAD", Some(2)), ("CDF", Some(2)), ("CHE", Some(2)), ("CHF", Some(2)),
    ("CHW", Some(2)), ("CLF", Some(4)), ("CLP", Some(0)), ("CNY", Some(2)),
    ("COP", Some(2)), ("COU", Some(2)), ("CRC", Some(2)), ("CUP", Some(2)),
    ("CVE", Some(2)), ("CZK", Some(2)), ("DJF", Some(0)), ("DKK", Some(2)),
    ("DOP", Some(2)), ("DZD", Some(2)), ("EGP", Some(2)), ("ERN", Some(2)),
    ("ETB", Some(2)), ("EUR", Some(2)), ("FJD", Some(2)), ("FKP", Some(2)),
    ("GBP", Some(2)), ("GEL", Some(2)), ("GHS", Some(2)), ("GIP", Some(2)),
    ("GMD", Some(2)), ("GNF", Some(0)), ("GTQ", Some(2)), ("GYD", Some(2)),
    ("HKD", Some(2)), ("HNL", Some(2)), ("HTG", Some(2)), ("HUF", Some(2)),
    ("IDR", Some(2)), ("ILS", Some(2)), ("INR", Some(2)), ("IQD", Some(3)),
    ("IRR", Some(2)), ("ISK", Some(0)), ("JMD", Some(2)), ("JOD", Some(3)),
    ("JPY", Some(0)), ("KES", Some(2)), ("KGS", Some(2)), ("KHR", Some(2)),
    ("KMF", Some(0)), ("KPW", Some(2)), ("KRW", Some(0)), ("KWD", Some(3)),
    ("KYD", Some(2)), ("KZT", Some(2)), ("LAK", Some(2)), ("LBP", Some(2)),
    ("LKR", Some(2)), ("LRD", Some(2)), ("LSL", Some(2)), ("LYD", Some(3)),
    ("MAD", Some(2)), ("MDL", Some(2)), ("MGA", Some(2)), ("MKD", Some(2)),
    ("MMK", Some(2)), ("MNT", Some(2)), ("MOP", Some(2)), ("MRU", Some(2)),
    ("MUR", Some(2)), ("MVR", Some(2)), ("MWK", Some(2)), ("MXN", Some(2)),
    ("MXV", Some(2)), ("MYR", Some(2)), ("MZN", Some(2)), ("NAD", Some(2)),
    ("NGN", Some(2)), ("NIO", Some(2)), ("NOK", Some(2)), ("NPR", Some(2)),
    ("NZD", Some(2)), ("OMR", Some(3)), ("PAB", Some(2)), ("PEN", Some(2)),
    ("PGK", Some(2)), ("PHP", Some(2)), ("PKR", Some(2)), ("PLN", Some(2)),
    ("PYG", Some(0)), ("QAR", Some(2)), ("RON", Some(2)), ("RSD", Some(2)),
    ("RUB", Some(2)), ("RWF", Some(0)), ("SAR", Some(2)), ("SBD", Some(2)),
    ("SCR", Some(2)), ("SDG", Some(2)), ("SEK", Some(2)), ("SGD", Some(2)),
    ("SHP", Some(2)), ("SLE", Some(2)), ("SOS", Some(2)), ("SRD", Some(2)),
    ("SSP", Some(2)), ("STN", Some(2)), ("SVC", Some(2)), ("SYP", Some(2)),
    ("SZL", Some(2)), ("THB", Some(2)), ("TJS", Some(2)), ("TMT", Some(2)),
    ("TND", Some(3)), ("TOP", Some(2)), ("TRY", Some(2)), ("TTD", Some(2)),
    ("TWD", Some(2)), ("TZS", Some(2)), ("UAH", Some(2)), ("UGX", Some(0)),
    ("USD", Some(2)), ("USN", Some(2)), ("UYI", Some(0)), ("UYU", Some(2)),
    ("UYW", Some(4)), ("UZS", Some(2)), ("VED", Some(2)), ("VES", Some(2)),
    ("VND", Some(0)), ("VUV", Some(0)), ("WST", Some(2)), ("XAD", Some(2)),
    ("XAF", Some(0)), ("XAG", None), ("XAU", None), ("XBA", None), ("XBB", None),
    ("XBC", None), ("XBD", None), ("XCD", Some(2)), ("XCG", Some(2)), ("XDR", None),
    ("XOF", Some(0)), ("XPD", None), ("XPF", Some(0)), ("XPT", None), ("XSU", None),
    ("XTS", None), ("XUA", None), ("XXX", None), ("YER", Some(2)), ("ZAR", Some(2)),
    ("ZMW", Some(2)), ("ZWG", Some(2)),
];

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn amount(value: &str, currency: &str) -> Amount {
        match Amount::parse(value, currency) {
            Ok(a) => a,
            Err(e) => panic!("{value} {currency} should parse: {e}"),
        }
    }

    fn cur(code: &str) -> Currency {
        match Currency::parse(code) {
            Ok(c) => c,
            Err(e) => panic!("{code} should be a currency: {e}"),
        }
    }

    fn pct(literal: &str) -> Percent {
        match Percent::parse(literal) {
            Ok(p) => p,
            Err(e) => panic!("{literal} should be a percentage: {e}"),
        }
    }

    fn refused(value: &str, currency: &str) -> MoneyError {
        match Amount::parse(value, currency) {
            Ok(a) => panic!("{value} {currency} should be refused, parsed as {a:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn iso_4217_table_is_sorted_and_unique() {
        assert!(ISO_4217.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(ISO_4217.iter().all(|(c, _)| c.len() == 3 && c.bytes().all(|b| b.is_ascii_uppercase())));
    }

    // §2.1: "ISO 4217: 2 for CAD, 0 for JPY, 3 for BHD and KWD".
    #[test]
    fn minor_units_from_iso_4217() {
        for code in ["CAD", "USD", "EUR", "GBP", "CHF", "MGA", "MRU", "XCG", "ZWG", "SLE"] {
            assert_eq!(cur(code).minor_units(), 2, "{code}");
        }
        for code in [
            "JPY", "KRW", "CLP", "ISK", "VND", "XAF", "XOF", "XPF", "UGX", "PYG", "RWF", "KMF", "GNF", "DJF", "BIF",
            "VUV", "UYI",
        ] {
            assert_eq!(cur(code).minor_units(), 0, "{code}");
        }
        for code in ["BHD", "KWD", "JOD", "OMR", "TND", "LYD", "IQD"] {
            assert_eq!(cur(code).minor_units(), 3, "{code}");
        }
        for code in ["CLF", "UYW"] {
            assert_eq!(cur(code).minor_units(), 4, "{code}");
        }
        assert_eq!(cur("CAD").code(), "CAD");
    }

    #[test]
    fn currency_codes_refused() {
        assert_eq!(Currency::parse("cad"), Err(MoneyError::MalformedCurrency));
        assert_eq!(Currency::parse("CA"), Err(MoneyError::MalformedCurrency));
        assert_eq!(Currency::parse("CADX"), Err(MoneyError::MalformedCurrency));
        assert_eq!(Currency::parse(" CAD"), Err(MoneyError::MalformedCurrency));
        assert_eq!(Currency::parse("CAD\n"), Err(MoneyError::MalformedCurrency));
        assert_eq!(Currency::parse("124"), Err(MoneyError::MalformedCurrency));
        assert_eq!(Currency::parse("ÇAD"), Err(MoneyError::MalformedCurrency));
        assert_eq!(Currency::parse(""), Err(MoneyError::MalformedCurrency));
        assert_eq!(Currency::parse("ABC"), Err(MoneyError::UnknownCurrency { code: "ABC".into() }));
        // Withdrawn codes are no longer active.
        for code in ["HRK", "ANG", "ZWL", "SLL", "BGN"] {
            assert_eq!(Currency::parse(code), Err(MoneyError::UnknownCurrency { code: code.into() }));
        }
        // Codes without a minor unit can hold no amount.
        for code in ["XXX", "XTS", "XAU", "XAG", "XDR", "XPT", "XPD", "XSU", "XUA", "XBA"] {
            assert!(matches!(Currency::parse(code), Err(MoneyError::NoMinorUnit { code: c }) if c == code), "{code}");
        }
        assert!(matches!(Amount::parse("1", "XXX"), Err(MoneyError::NoMinorUnit { .. })));
    }

    #[test]
    fn currency_serde() {
        let c: Currency = serde_json::from_str(r#""JPY""#).expect("JPY is active");
        assert_eq!(c.minor_units(), 0);
        assert_eq!(serde_json::to_string(&c).ok().as_deref(), Some(r#""JPY""#));
        assert!(serde_json::from_str::<Currency>(r#""XTS""#).is_err());
        assert!(serde_json::from_str::<Currency>(r#""jpy""#).is_err());
    }

    // §2.1: "79 is 79.00 CAD"; "125.0 JPY" and "79.001 CAD" are invalid.
    #[test]
    fn spec_amount_examples() {
        assert_eq!(amount("79", "CAD"), amount("79.00", "CAD"));
        assert_eq!(amount("79", "CAD").minor(), 7_900);
        assert_eq!(amount("79.0", "CAD").minor(), 7_900);
        assert_eq!(
            refused("79.001", "CAD"),
            MoneyError::TooManyDecimals { decimals: 3, currency: "CAD", minor_units: 2 }
        );
        assert_eq!(
            refused("125.0", "JPY"),
            MoneyError::TooManyDecimals { decimals: 1, currency: "JPY", minor_units: 0 }
        );
        assert_eq!(amount("125", "JPY").minor(), 125);
        assert_eq!(amount("1.234", "BHD").minor(), 1_234);
        assert_eq!(amount("1.5", "KWD").minor(), 1_500);
        assert_eq!(amount("0.0001", "CLF").minor(), 1);
        assert!(matches!(refused("1.2345", "BHD"), MoneyError::TooManyDecimals { decimals: 4, .. }));
    }

    #[test]
    fn canonical_string_has_exactly_the_minor_unit_decimals() {
        assert_eq!(amount("79", "CAD").to_canonical_string(), "79.00");
        assert_eq!(amount("0.5", "CAD").to_canonical_string(), "0.50");
        assert_eq!(amount("0", "CAD").to_canonical_string(), "0.00");
        assert_eq!(amount("125", "JPY").to_canonical_string(), "125");
        assert_eq!(amount("1.2", "BHD").to_canonical_string(), "1.200");
        assert_eq!(amount("0.001", "KWD").to_canonical_string(), "0.001");
        assert_eq!(amount("3", "UYW").to_canonical_string(), "3.0000");
        assert_eq!(amount("79", "CAD").to_string(), "79.00 CAD");
        let max = Amount::from_minor(u64::MAX, cur("CAD"));
        assert_eq!(max.to_canonical_string(), "184467440737095516.15");
    }

    #[test]
    fn amount_is_unsigned() {
        assert_eq!(refused("-1.00", "CAD"), MoneyError::Sign { at: 0 });
        assert_eq!(refused("+1.00", "CAD"), MoneyError::Sign { at: 0 });
        assert_eq!(refused("1-", "CAD"), MoneyError::Sign { at: 1 });
    }

    #[test]
    fn amount_has_no_exponent() {
        assert_eq!(refused("1e2", "CAD"), MoneyError::Exponent { at: 1 });
        assert_eq!(refused("1.0E2", "CAD"), MoneyError::Exponent { at: 3 });
        assert_eq!(refused("e2", "CAD"), MoneyError::Exponent { at: 0 });
    }

    // §2.1 Strings: "\d matches the ASCII digits 0–9 only".
    #[test]
    fn amount_digits_are_ascii() {
        assert_eq!(refused("٧٩", "CAD"), MoneyError::NonAsciiDigit { at: 0 });
        assert_eq!(refused("7٩", "CAD"), MoneyError::NonAsciiDigit { at: 1 });
        assert_eq!(refused("79.٠٠", "CAD"), MoneyError::MissingFraction { at: 2 });
        assert_eq!(refused("１", "JPY"), MoneyError::NonAsciiDigit { at: 0 });
    }

    #[test]
    fn amount_has_nothing_around_it() {
        assert_eq!(refused(" 79.00", "CAD"), MoneyError::UnexpectedChar { at: 0, found: ' ' });
        assert_eq!(refused("79.00 ", "CAD"), MoneyError::UnexpectedChar { at: 5, found: ' ' });
        assert_eq!(refused("79.00\n", "CAD"), MoneyError::UnexpectedChar { at: 5, found: '\n' });
        assert_eq!(refused("79,00", "CAD"), MoneyError::UnexpectedChar { at: 2, found: ',' });
        assert_eq!(refused("1,000", "JPY"), MoneyError::UnexpectedChar { at: 1, found: ',' });
        assert_eq!(refused("1.0.0", "CAD"), MoneyError::UnexpectedChar { at: 3, found: '.' });
        assert_eq!(refused("$5", "CAD"), MoneyError::UnexpectedChar { at: 0, found: '$' });
    }

    #[test]
    fn amount_needs_digits_on_both_sides_of_the_point() {
        assert_eq!(refused("", "CAD"), MoneyError::EmptyAmount);
        assert_eq!(refused(".5", "CAD"), MoneyError::MissingIntegerPart);
        assert_eq!(refused(".", "CAD"), MoneyError::MissingIntegerPart);
        assert_eq!(refused("5.", "CAD"), MoneyError::MissingFraction { at: 1 });
        assert_eq!(refused("5.", "JPY"), MoneyError::MissingFraction { at: 1 });
    }

    #[test]
    fn leading_zeros_refused_but_zero_units_allowed() {
        assert_eq!(amount("0.50", "CAD").minor(), 50);
        assert_eq!(amount("0", "JPY").minor(), 0);
        assert_eq!(refused("00.50", "CAD"), MoneyError::LeadingZero);
        assert_eq!(refused("079.00", "CAD"), MoneyError::LeadingZero);
        assert_eq!(refused("00", "JPY"), MoneyError::LeadingZero);
    }

    #[test]
    fn amount_overflow_is_an_error() {
        assert_eq!(amount("18446744073709551615", "JPY").minor(), u64::MAX, "u64::MAX minor units fit");
        assert_eq!(refused("18446744073709551616", "JPY"), MoneyError::Overflow);
        assert_eq!(amount("184467440737095516.15", "CAD").minor(), u64::MAX);
        assert_eq!(refused("184467440737095516.16", "CAD"), MoneyError::Overflow);
        assert_eq!(refused("184467440737095517", "CAD"), MoneyError::Overflow);
        assert_eq!(refused(&"9".repeat(10_000), "CAD"), MoneyError::Overflow);
    }

    // §2.1: "13 % of 79.00 CAD is 1027 minor units, 10.27".
    #[test]
    fn spec_percentage_example() {
        let tax = amount("79.00", "CAD").percent(&pct("13"));
        assert_eq!(tax.as_ref().map(Amount::minor), Ok(1_027));
        assert_eq!(tax.map(|t| t.to_canonical_string()).as_deref(), Ok("10.27"));
    }

    // §2.1: "12.5 is 125/1000, never a binary float", rounded half up.
    #[test]
    fn percentage_is_exact_and_rounds_half_up() {
        let cad = |s: &str| amount(s, "CAD");
        let minor = |a: Amount, p: &str| a.percent(&pct(p)).map(|r| r.minor());
        assert_eq!(minor(cad("1.00"), "12.5"), Ok(13), "12.5 exactly: half rounds up");
        assert_eq!(minor(cad("1.00"), "12.49"), Ok(12));
        assert_eq!(minor(cad("1.00"), "12.49999999999999999"), Ok(12));
        assert_eq!(minor(cad("1.00"), "12.50000000000000001"), Ok(13));
        assert_eq!(minor(cad("0.10"), "5"), Ok(1), "0.5 minor units rounds up");
        assert_eq!(minor(cad("0.10"), "4.9"), Ok(0), "0.49 rounds down");
        assert_eq!(minor(cad("0.01"), "50"), Ok(1));
        assert_eq!(minor(cad("0.01"), "49.999"), Ok(0));
        assert_eq!(minor(cad("79.00"), "0"), Ok(0));
        assert_eq!(minor(cad("79.00"), "100"), Ok(7_900));
        assert_eq!(minor(cad("79.00"), "200"), Ok(15_800));
        // A binary float would make 0.1 + 0.2 style errors; 1.15 % of 1000.00 is exact.
        assert_eq!(minor(cad("1000.00"), "1.15"), Ok(1_150));
        assert_eq!(minor(cad("10.00"), "0.05"), Ok(1), "0.5 minor units");
        // 2.675 % of 1.00 is 2.675 minor units: 3 exactly, where a float gives 2.67499….
        assert_eq!(minor(cad("1.00"), "2.675"), Ok(3));
    }

    #[test]
    fn percentage_in_other_minor_units() {
        let jpy = amount("1000", "JPY");
        assert_eq!(jpy.percent(&pct("10")).map(|a| a.minor()), Ok(100));
        assert_eq!(amount("5", "JPY").percent(&pct("10")).map(|a| a.minor()), Ok(1));
        assert_eq!(amount("4", "JPY").percent(&pct("12.5")).map(|a| a.minor()), Ok(1));
        assert_eq!(amount("3", "JPY").percent(&pct("12.5")).map(|a| a.minor()), Ok(0));
        let bhd = amount("10.000", "BHD").percent(&pct("10"));
        assert_eq!(bhd.map(|a| a.to_canonical_string()).as_deref(), Ok("1.000"));
        let bhd = amount("0.015", "BHD").percent(&pct("10"));
        assert_eq!(bhd.as_ref().map(Amount::minor), Ok(2), "1.5 fils rounds up to 2");
        assert_eq!(bhd.map(|a| a.currency()), Ok(cur("BHD")));
    }

    #[test]
    fn percentage_overflow_is_an_error() {
        let max = Amount::from_minor(u64::MAX, cur("JPY"));
        assert_eq!(max.percent(&pct("100")).map(|a| a.minor()), Ok(u64::MAX));
        assert_eq!(max.percent(&pct("100.0000001")), Err(MoneyError::Overflow));
        assert_eq!(max.percent(&pct("18446744073709551615")), Err(MoneyError::Overflow));
        assert_eq!(max.percent(&pct("1e-34")).map(|a| a.minor()), Ok(0));
    }

    #[test]
    fn percentage_literals() {
        assert_eq!(pct("12.5"), pct("12.50"));
        assert_eq!(pct("12.5"), pct("1.25e1"));
        assert_eq!(pct("12.5"), pct("125E-1"));
        assert_eq!(pct("12.5"), pct("0.125e+2"));
        assert_eq!(pct("100"), pct("1e2"));
        assert_eq!(pct("0"), Percent::ZERO);
        assert_eq!(pct("0.000"), Percent::ZERO);
        assert_eq!(pct("0e999999999999999999999999"), Percent::ZERO);
        assert_eq!(pct("12.5").to_string(), "12.5");
        assert_eq!(pct("1.25e1").to_string(), "12.5");
        assert_eq!(pct("0.05").to_string(), "0.05");
        assert_eq!(pct("1e2").to_string(), "100");
        assert_eq!(pct("13").to_string(), "13");
    }

    #[test]
    fn percentage_literals_refused() {
        assert_eq!(Percent::parse(""), Err(MoneyError::EmptyPercent));
        assert_eq!(Percent::parse("-5"), Err(MoneyError::NegativePercent));
        assert_eq!(Percent::parse("+5"), Err(MoneyError::MalformedPercent { at: 0 }));
        assert_eq!(Percent::parse("05"), Err(MoneyError::MalformedPercent { at: 0 }));
        assert_eq!(Percent::parse(".5"), Err(MoneyError::MalformedPercent { at: 0 }));
        assert_eq!(Percent::parse("5."), Err(MoneyError::MalformedPercent { at: 2 }));
        assert_eq!(Percent::parse("5e"), Err(MoneyError::MalformedPercent { at: 2 }));
        assert_eq!(Percent::parse("5e+"), Err(MoneyError::MalformedPercent { at: 3 }));
        assert_eq!(Percent::parse("5 "), Err(MoneyError::MalformedPercent { at: 1 }));
        assert_eq!(Percent::parse("5%"), Err(MoneyError::MalformedPercent { at: 1 }));
        assert_eq!(Percent::parse("١٣"), Err(MoneyError::MalformedPercent { at: 0 }));
        assert_eq!(Percent::parse("NaN"), Err(MoneyError::MalformedPercent { at: 0 }));
        assert_eq!(Percent::parse("1e40"), Err(MoneyError::PercentTooLarge));
        assert_eq!(Percent::parse("1e99999999999999999999999"), Err(MoneyError::PercentTooLarge));
        assert_eq!(Percent::parse("1e-37"), Err(MoneyError::PercentTooPrecise));
        assert_eq!(Percent::parse("1e-99999999999999999999999"), Err(MoneyError::PercentTooPrecise));
        assert_eq!(Percent::parse("1.2345678901234567890123"), Err(MoneyError::PercentTooPrecise));
        assert_eq!(Percent::parse("123456789012345678901234567890"), Err(MoneyError::PercentTooLarge));
    }

    #[test]
    fn percentage_from_json() {
        let number = |s: &str| serde_json::from_str::<serde_json::Number>(s).expect("a number");
        assert_eq!(Percent::from_json_number(&number("13")), Ok(pct("13")));
        assert_eq!(Percent::from_json_number(&number("12.5")), Ok(pct("12.5")));
        assert_eq!(Percent::from_json_number(&number("1.25e1")), Ok(pct("12.5")));
        assert_eq!(Percent::from_json_number(&number("0.1")), Ok(pct("0.1")));
        assert_eq!(Percent::from_json_number(&number("1e-7")), Ok(pct("0.0000001")));
        assert_eq!(Percent::from_json_number(&number("-1")), Err(MoneyError::NegativePercent));

        #[derive(Deserialize)]
        struct TaxRule {
            percent: Percent,
        }
        let rule: TaxRule = serde_json::from_str(r#"{"percent": 12.5}"#).expect("valid");
        assert_eq!(rule.percent, pct("12.5"));
        assert!(serde_json::from_str::<TaxRule>(r#"{"percent": "12.5"}"#).is_err());
        assert!(serde_json::from_str::<TaxRule>(r#"{"percent": -3}"#).is_err());
    }

    #[test]
    fn sum_of_lines_is_exact() {
        let lines = [amount("79.00", "CAD"), amount("10.27", "CAD"), amount("0.01", "CAD")];
        let total = Amount::sum(cur("CAD"), lines.iter());
        assert_eq!(total.as_ref().map(Amount::to_canonical_string).as_deref(), Ok("89.28"));
        assert_eq!(Amount::sum(cur("CAD"), lines), total);
        assert_eq!(Amount::sum(cur("JPY"), Vec::<Amount>::new()), Ok(Amount::zero(cur("JPY"))));
        // Floats would give 0.30000000000000004 here.
        let tenths = [amount("0.10", "CAD"), amount("0.20", "CAD")];
        assert_eq!(Amount::sum(cur("CAD"), tenths.iter()), Ok(amount("0.30", "CAD")));
    }

    // §2.1: "Amounts in different currencies are never added or compared".
    #[test]
    fn different_currencies_never_added_or_compared() {
        let cad = amount("79.00", "CAD");
        let usd = amount("79.00", "USD");
        let mismatch = MoneyError::CurrencyMismatch { expected: cur("CAD"), found: cur("USD") };
        assert_eq!(cad.checked_add(&usd), Err(mismatch.clone()));
        // An offer line not in the total's currency.
        assert_eq!(Amount::sum(cur("CAD"), [cad, usd]), Err(mismatch));
        // A total in another currency than a mandate's max_price does not fit it.
        assert_eq!(
            usd.fits_within(&cad),
            Err(MoneyError::CurrencyMismatch { expected: cur("CAD"), found: cur("USD") })
        );
        assert_ne!(cad, usd);
    }

    #[test]
    fn fits_within_same_currency() {
        let max = amount("100.00", "CAD");
        assert_eq!(amount("100", "CAD").fits_within(&max), Ok(true));
        assert_eq!(amount("99.99", "CAD").fits_within(&max), Ok(true));
        assert_eq!(amount("100.01", "CAD").fits_within(&max), Ok(false));
    }

    #[test]
    fn add_overflow_is_an_error() {
        let max = Amount::from_minor(u64::MAX, cur("CAD"));
        assert_eq!(max.checked_add(&amount("0.01", "CAD")), Err(MoneyError::Overflow));
        assert_eq!(Amount::sum(cur("CAD"), [max, amount("0.01", "CAD")]), Err(MoneyError::Overflow));
    }

    fn any_currency() -> impl Strategy<Value = Currency> {
        prop::sample::select(
            ISO_4217
                .iter()
                .filter_map(|(code, minor)| minor.map(|m| Currency { code, minor_units: m }))
                .collect::<Vec<_>>(),
        )
    }

    proptest! {
        #[test]
        fn canonical_string_round_trips(minor in any::<u64>(), currency in any_currency()) {
            let a = Amount::from_minor(minor, currency);
            let text = a.to_canonical_string();
            prop_assert_eq!(Amount::parse(&text, currency.code()), Ok(a));
        }

        #[test]
        fn fewer_decimals_parse_to_the_same_amount(whole in 0u64..1_000_000_000, currency in any_currency()) {
            let parsed = Amount::parse(&whole.to_string(), currency.code());
            let minor = whole * 10u64.pow(u32::from(currency.minor_units()));
            prop_assert_eq!(parsed, Ok(Amount::from_minor(minor, currency)));
        }

        #[test]
        fn sums_are_exact(minors in prop::collection::vec(0u64..1u64 << 40, 0..50)) {
            let cad = Currency::parse("CAD").map_err(|e| TestCaseError::fail(e.to_string()))?;
            let amounts: Vec<Amount> = minors.iter().map(|&m| Amount::from_minor(m, cad)).collect();
            let total = Amount::sum(cad, &amounts).map(|t| t.minor());
            prop_assert_eq!(total, Ok(minors.iter().sum::<u64>()));
        }

        #[test]
        fn percent_matches_exact_rational(minor in 0u64..1u64 << 40, tenths in 0u64..10_000) {
            // p = tenths/10 per cent: result = minor × tenths / 1000, half up.
            let cad = Currency::parse("CAD").map_err(|e| TestCaseError::fail(e.to_string()))?;
            let literal = format!("{}.{}", tenths / 10, tenths % 10);
            let p = Percent::parse(&literal).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let exact = u128::from(minor) * u128::from(tenths);
            let expected = (exact * 2 + 1000) / 2000; // half up
            let got = Amount::from_minor(minor, cad).percent(&p).map(|a| u128::from(a.minor()));
            prop_assert_eq!(got, Ok(expected));
        }

        #[test]
        fn percent_display_round_trips(mantissa in any::<u64>(), scale in 0u32..=MAX_PERCENT_SCALE) {
            if let Ok(p) = Percent::parse(&format!("{mantissa}e-{scale}")) {
                prop_assert_eq!(Percent::parse(&p.to_string()), Ok(p));
            }
        }

        #[test]
        fn parsers_never_panic(s in "\\PC*", code in "\\PC{0,4}") {
            let _ = Amount::parse(&s, "CAD");
            let _ = Amount::parse("1", &code);
            let _ = Percent::parse(&s);
        }

        #[test]
        fn parsers_never_panic_on_number_like_text(s in "[0-9.eE+\\- ,]{0,30}") {
            let _ = Amount::parse(&s, "BHD");
            if let Ok(p) = Percent::parse(&s) {
                prop_assert_eq!(Percent::parse(&p.to_string()), Ok(p));
            }
        }
    }
}
