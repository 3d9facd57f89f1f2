//! The person's language: which one, and the Fluent messages and CLDR data for it.
//!
//! Sentences come from the Fluent files under `locales/` (embedded at build time, so a
//! key app can never show text that differs from what was reviewed). Dates, times,
//! zone names, lists and numbers come from ICU4X's compiled CLDR data and are passed
//! into the Fluent messages as strings: Fluent has no date builtin, and a hand table of
//! zone or month names would drift from CLDR.

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use icu::datetime::fieldsets::{self, zone::GenericLong, zone::LocalizedOffsetLong};
use icu::datetime::{DateTimeFormatter, NoCalendarFormatter};
use icu::decimal::DecimalFormatter;
use icu::list::options::{ListFormatterOptions, ListLength};
use icu::list::ListFormatter;

use crate::ConsentError;

const EN_FTL: &str = include_str!("../../../locales/en/consent.ftl");
const FR_FTL: &str = include_str!("../../../locales/fr/consent.ftl");

/// A language the consent text is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Language {
    /// English, Canadian conventions (CLDR `en-CA`: "8:00 a.m.").
    English,
    /// French, Canadian conventions (CLDR `fr-CA`: "08 h 00").
    French,
}

impl Language {
    /// Every language the key app has consent text in.
    pub const ALL: [Language; 2] = [Language::English, Language::French];

    /// The BCP 47 language subtag: `en`, `fr`.
    pub fn tag(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::French => "fr",
        }
    }

    /// The CLDR locale whose data formats dates, times and numbers.
    fn cldr(self) -> &'static str {
        match self {
            Language::English => "en-CA",
            Language::French => "fr-CA",
        }
    }

    /// The language a locale name asks for, if the key app has it.
    ///
    /// Takes BCP 47 (`fr-CA`) and POSIX (`fr_CA.UTF-8@euro`) forms; only the language
    /// subtag decides, because both languages use their Canadian conventions throughout.
    pub fn from_locale_name(name: &str) -> Option<Language> {
        let base = name.split(['.', '@']).next().unwrap_or("");
        let language = base.split(['_', '-']).next().unwrap_or("");
        match language.to_ascii_lowercase().as_str() {
            "en" => Some(Language::English),
            "fr" => Some(Language::French),
            _ => None,
        }
    }
}

/// Chooses the consent language: the configured locale, else the OS locale, else English.
///
/// `configured` is the key app's `locale` setting (README "Configuration"). `os` is the OS locale
/// candidates in POSIX precedence order (`LC_ALL`, `LC_MESSAGES`, `LANG`; see
/// [`os_locale_candidates`]); the first one that is set and not empty *is* the OS
/// locale, and the ones after it are not consulted (that is what precedence means).
/// A configured or OS locale the key app has no text for (`de_DE`, `C`) falls through
/// to the next source rather than failing: the person still gets a consent text.
pub fn choose_language(configured: Option<&str>, os: &[Option<&str>]) -> Language {
    if let Some(language) = configured.and_then(Language::from_locale_name) {
        return language;
    }
    let os_locale = os.iter().flatten().map(|s| s.trim()).find(|s| !s.is_empty());
    os_locale.and_then(Language::from_locale_name).unwrap_or(Language::English)
}

/// The OS locale candidates for [`choose_language`], read from the environment in POSIX
/// precedence order: `LC_ALL`, `LC_MESSAGES`, `LANG`.
pub fn os_locale_candidates() -> [Option<String>; 3] {
    ["LC_ALL", "LC_MESSAGES", "LANG"].map(|var| std::env::var(var).ok())
}

/// Everything needed to write consent text in one language. Build once, share freely.
pub struct Locale {
    language: Language,
    bundle: FluentBundle<FluentResource>,
    pub(crate) icu: Icu,
}

/// The CLDR-backed formatters a consent text uses.
pub(crate) struct Icu {
    pub(crate) date: DateTimeFormatter<fieldsets::YMDE>,
    pub(crate) weekday: DateTimeFormatter<fieldsets::E>,
    pub(crate) time_hm: NoCalendarFormatter<fieldsets::T>,
    pub(crate) time_hms: NoCalendarFormatter<fieldsets::T>,
    pub(crate) zone_generic: NoCalendarFormatter<GenericLong>,
    pub(crate) zone_offset: NoCalendarFormatter<LocalizedOffsetLong>,
    pub(crate) and_list: ListFormatter,
    pub(crate) or_list: ListFormatter,
    pub(crate) decimal: DecimalFormatter,
}

fn icu_err<E: std::fmt::Debug>(what: &'static str) -> impl FnOnce(E) -> ConsentError {
    move |e| ConsentError::Icu { what, detail: format!("{e:?}") }
}

impl Locale {
    /// Loads the Fluent messages and CLDR formatters for `language`.
    pub fn new(language: Language) -> Result<Self, ConsentError> {
        let source = match language {
            Language::English => EN_FTL,
            Language::French => FR_FTL,
        };
        let fluent_err = |detail: String| ConsentError::Fluent { locale: language.tag(), id: String::new(), detail };
        let langid: unic_langid::LanguageIdentifier =
            language.cldr().parse().map_err(|e| fluent_err(format!("{e:?}")))?;
        let resource =
            FluentResource::try_new(source.to_owned()).map_err(|(_, errors)| fluent_err(format!("{errors:?}")))?;
        let mut bundle = FluentBundle::new_concurrent(vec![langid]);
        // Unicode isolation marks around every placeable would break the spec's exact
        // strings; host-supplied text is isolated where it needs it (see `inert`).
        bundle.set_use_isolating(false);
        bundle.add_resource(resource).map_err(|errors| fluent_err(format!("{errors:?}")))?;

        let loc: icu::locale::Locale =
            language.cldr().parse().map_err(|e| ConsentError::Icu { what: "locale", detail: format!("{e:?}") })?;
        let list_options = ListFormatterOptions::default().with_length(ListLength::Wide);
        let icu = Icu {
            date: DateTimeFormatter::try_new(loc.clone().into(), fieldsets::YMDE::long()).map_err(icu_err("dates"))?,
            weekday: DateTimeFormatter::try_new(loc.clone().into(), fieldsets::E::long())
                .map_err(icu_err("weekdays"))?,
            time_hm: NoCalendarFormatter::try_new(loc.clone().into(), fieldsets::T::hm()).map_err(icu_err("times"))?,
            time_hms: NoCalendarFormatter::try_new(loc.clone().into(), fieldsets::T::hms())
                .map_err(icu_err("times"))?,
            zone_generic: NoCalendarFormatter::try_new(loc.clone().into(), GenericLong)
                .map_err(icu_err("time zone names"))?,
            zone_offset: NoCalendarFormatter::try_new(loc.clone().into(), LocalizedOffsetLong)
                .map_err(icu_err("UTC offsets"))?,
            and_list: ListFormatter::try_new_and(loc.clone().into(), list_options).map_err(icu_err("lists"))?,
            or_list: ListFormatter::try_new_or(loc.clone().into(), list_options).map_err(icu_err("lists"))?,
            decimal: DecimalFormatter::try_new(loc.into(), Default::default()).map_err(icu_err("numbers"))?,
        };
        Ok(Self { language, bundle, icu })
    }

    /// The language this locale writes.
    pub fn language(&self) -> Language {
        self.language
    }

    /// Formats the Fluent message `id` with `args`.
    pub(crate) fn message(&self, id: &str, args: &[(&str, FluentValue<'_>)]) -> Result<String, ConsentError> {
        let missing = || ConsentError::MissingMessage { locale: self.language.tag(), id: id.to_owned() };
        let message = self.bundle.get_message(id).ok_or_else(missing)?;
        let pattern = message.value().ok_or_else(missing)?;
        let mut fluent_args = FluentArgs::new();
        for (name, value) in args {
            fluent_args.set(*name, value.clone());
        }
        let mut errors = Vec::new();
        let text = self.bundle.format_pattern(pattern, Some(&fluent_args), &mut errors);
        if !errors.is_empty() {
            return Err(ConsentError::Fluent {
                locale: self.language.tag(),
                id: id.to_owned(),
                detail: format!("{errors:?}"),
            });
        }
        Ok(text.into_owned())
    }

    /// Joins items into an "a, b and c" list, per CLDR.
    ///
    /// Items that contain commas themselves ("someone you don't know, named "Priya
    /// Shah" (priya-shah)") would make a comma list ambiguous about how many items it
    /// has; three or more of them are joined with semicolons instead ("a; b; and c").
    /// A comma inside parentheses or quotes ("(corner-garage, unverified)") is no
    /// ambiguity and does not count.
    pub(crate) fn and_list<S: AsRef<str>>(&self, items: &[S]) -> Result<String, ConsentError> {
        self.list(&self.icu.and_list, "list-and-semicolons", items)
    }

    /// Joins items into an "a, b or c" list, per CLDR (semicolons as for [`Self::and_list`]).
    pub(crate) fn or_list<S: AsRef<str>>(&self, items: &[S]) -> Result<String, ConsentError> {
        self.list(&self.icu.or_list, "list-or-semicolons", items)
    }

    fn list<S: AsRef<str>>(
        &self,
        formatter: &ListFormatter,
        semicolons: &str,
        items: &[S],
    ) -> Result<String, ConsentError> {
        match items {
            [head @ .., last] if head.len() >= 2 && items.iter().any(|i| has_bare_comma(i.as_ref())) => {
                let head: Vec<&str> = head.iter().map(|s| s.as_ref()).collect();
                self.message(semicolons, &[("head", head.join("; ").into()), ("last", last.as_ref().into())])
            }
            _ => Ok(normalise_spaces(&formatter.format_to_string(items.iter().map(|s| s.as_ref())))),
        }
    }
}

impl std::fmt::Debug for Locale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Locale").field("language", &self.language).finish_non_exhaustive()
    }
}

/// Whether `s` has a comma outside parentheses and quotation marks.
fn has_bare_comma(s: &str) -> bool {
    let mut depth = 0i32;
    let mut in_quotes = false;
    for c in s.chars() {
        match c {
            '(' | '\u{AB}' => depth += 1,
            ')' | '\u{BB}' => depth -= 1,
            '"' => in_quotes = !in_quotes,
            ',' if depth <= 0 && !in_quotes => return true,
            _ => {}
        }
    }
    false
}

/// CLDR output uses no-break spaces (U+00A0, U+202F) inside times and numbers
/// ("8:00\u{202F}a.m.", "1\u{202F}250,00"). Consent text is plain text relayed verbatim
/// to agents and terminals (docs/agent-api.md `consent_text`), where such spaces look like spaces
/// but compare unequal; every space the person reads is therefore U+0020. This is also
/// what the spec's own renderings use ("8:00–9:00 a.m.").
pub(crate) fn normalise_spaces(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{00A0}' | '\u{202F}' | '\u{2007}' | '\u{2009}' => ' ',
            other => other,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_wins() {
        assert_eq!(choose_language(Some("fr"), &[Some("en_CA.UTF-8")]), Language::French);
        assert_eq!(choose_language(Some("en-CA"), &[Some("fr_CA.UTF-8")]), Language::English);
    }

    #[test]
    fn os_locale_in_posix_precedence() {
        assert_eq!(choose_language(None, &[None, None, Some("fr_CA.UTF-8")]), Language::French);
        assert_eq!(choose_language(None, &[Some("en_GB.UTF-8"), None, Some("fr_CA.UTF-8")]), Language::English);
        assert_eq!(choose_language(None, &[Some(""), Some("fr_FR@euro"), None]), Language::French);
    }

    #[test]
    fn unsupported_falls_through_to_english() {
        assert_eq!(choose_language(Some("de"), &[Some("C")]), Language::English);
        assert_eq!(choose_language(Some("de"), &[Some("fr_CA")]), Language::French);
        assert_eq!(choose_language(None, &[]), Language::English);
        assert_eq!(choose_language(None, &[Some("de_DE.UTF-8"), Some("fr_CA")]), Language::English);
    }

    #[test]
    fn bare_commas() {
        assert!(has_bare_comma("someone you don't know, named \"Priya Shah\" (priya-shah)"));
        assert!(!has_bare_comma("Corner Garage (corner-garage, unverified)"));
        assert!(!has_bare_comma("\"Cleaning, CAD 1.00\" (x)"));
        assert!(!has_bare_comma("« a, b » (x)"));
    }

    #[test]
    fn locales_load() {
        for language in Language::ALL {
            let locale = Locale::new(language).unwrap();
            assert_eq!(locale.language(), language);
        }
    }

    #[test]
    fn locale_is_shareable() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Locale>();
    }
}
