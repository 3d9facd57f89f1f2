//! Stated prices in words (§5.2, §8).
//!
//! A price is disclosure, never payment: "A stated price is always rendered as paid to
//! the host directly, because nothing is paid through SchCP; an offer with no price
//! renders no money at all" (§5.2). The amount shown is the signed total in its
//! canonical form (`schcp::money`: exactly the currency's minor-unit decimals, §2.1,
//! so "79" is shown as 79.00 CAD), with the currency's ISO 4217 code, never a symbol:
//! "$" is ambiguous between CAD and USD, and the code is what the host signed. Digits,
//! decimal separator and grouping follow CLDR for the language ("CAD 1,250.00",
//! "1 250,00 CAD"), so a French reader never mistakes a decimal point for grouping.

use fluent_bundle::FluentValue;
use icu::decimal::input::Decimal;
use schcp::claims::Money;
use schcp::money::Amount;

use crate::locale::{normalise_spaces, Locale};
use crate::ConsentError;

/// An amount as the person reads it: its currency code and its localized number.
pub(crate) struct AmountText {
    pub(crate) currency: String,
    pub(crate) amount: String,
}

impl AmountText {
    pub(crate) fn args(&self) -> [(&'static str, FluentValue<'_>); 2] {
        [("currency", FluentValue::from(self.currency.as_str())), ("amount", FluentValue::from(self.amount.as_str()))]
    }
}

pub(crate) fn amount_text(locale: &Locale, field: &'static str, money: &Money) -> Result<AmountText, ConsentError> {
    let bad = || ConsentError::BadMoney { field, amount: money.amount.clone(), currency: money.currency.clone() };
    let amount = Amount::parse(&money.amount, &money.currency).map_err(|_| bad())?;
    let decimal = Decimal::try_from_str(&amount.to_canonical_string()).map_err(|_| bad())?;
    Ok(AmountText {
        currency: money.currency.clone(),
        amount: normalise_spaces(&locale.icu.decimal.format_to_string(&decimal)),
    })
}

/// An amount alone: "CAD 180.00", "180,00 CAD".
pub fn money_words(locale: &Locale, field: &'static str, money: &Money) -> Result<String, ConsentError> {
    let text = amount_text(locale, field, money)?;
    locale.message("money", &text.args())
}

/// A stated price, paid to the host directly (§5.2, §8):
/// "CAD 180.00, paid to Harbourview Dental directly".
pub fn price_words(locale: &Locale, total: &Money, payee: &str) -> Result<String, ConsentError> {
    let text = amount_text(locale, "total", total)?;
    let [currency, amount] = text.args();
    locale.message("price", &[currency, amount, ("payee", FluentValue::from(payee))])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Language;

    #[test]
    fn canonical_and_localized() {
        let en = Locale::new(Language::English).unwrap();
        let fr = Locale::new(Language::French).unwrap();
        let words = |l: &Locale, a: &str, c: &str| money_words(l, "t", &Money::new(a, c)).unwrap();
        assert_eq!(words(&en, "79", "CAD"), "CAD 79.00");
        assert_eq!(words(&en, "1250.5", "CAD"), "CAD 1,250.50");
        assert_eq!(words(&en, "125", "JPY"), "JPY 125");
        assert_eq!(words(&en, "1.5", "BHD"), "BHD 1.500");
        assert_eq!(words(&fr, "1250.5", "CAD"), "1 250,50 CAD");
    }

    #[test]
    fn invalid_amounts_are_refused() {
        let en = Locale::new(Language::English).unwrap();
        for (a, c) in [("79.001", "CAD"), ("125.0", "JPY"), ("-1", "CAD"), ("1e3", "CAD"), ("", "CAD"), ("1", "cad")] {
            assert!(money_words(&en, "t", &Money::new(a, c)).is_err(), "{a} {c}");
        }
    }
}
