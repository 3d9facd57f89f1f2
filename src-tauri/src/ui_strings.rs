//! The window's own words, from `locales/{en,fr}/ui.ftl`, formatted by
//! `keyapp::ui_words` with the same Fluent library the consent text uses: one
//! source of truth, no second i18n system in the window. The window gets every
//! message already formatted (none of the window's messages take arguments);
//! the tray's and the notifications' messages take arguments and are
//! formatted here.

use fluent_bundle::{FluentArgs, FluentResource};
use schcp_consent::Language;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Mutex;

const EN: &str = include_str!("../../locales/en/ui.ftl");
const FR: &str = include_str!("../../locales/fr/ui.ftl");

/// The window's strings in one language: message id → text.
#[derive(Debug, Clone, Serialize, PartialEq, ts_rs::TS)]
pub struct UiStrings {
    pub lang: &'static str,
    pub strings: BTreeMap<String, String>,
}

/// The language the window speaks now; switchable at run time.
pub struct UiLanguage(Mutex<Language>);

impl UiLanguage {
    pub fn new(language: Language) -> UiLanguage {
        UiLanguage(Mutex::new(language))
    }

    pub fn get(&self) -> Language {
        *self.0.lock().expect("the language lock is never poisoned")
    }

    pub fn strings(&self) -> UiStrings {
        strings(self.get())
    }

    /// Switches to `tag` (`en`, `fr`); anything else is refused and changes nothing.
    pub fn set(&self, tag: &str) -> Result<UiStrings, String> {
        let language = Language::ALL
            .into_iter()
            .find(|l| l.tag() == tag)
            .ok_or_else(|| format!("no window strings in language {tag:?}"))?;
        *self.0.lock().expect("the language lock is never poisoned") = language;
        Ok(strings(language))
    }

    /// One message with arguments (tray, notifications).
    pub fn format(&self, id: &str, args: &[(&str, fluent_bundle::FluentValue<'_>)]) -> String {
        let mut fa = FluentArgs::new();
        for (k, v) in args {
            fa.set(*k, v.clone());
        }
        keyapp::ui_words::text_with(self.get(), id, &fa)
    }
}

/// The ids of the window's messages: those of ui.ftl (the service's refusals,
/// in the same catalogue, are not the window's to list).
fn message_ids(language: Language) -> Vec<String> {
    let source = match language.tag() {
        "fr" => FR,
        _ => EN,
    };
    let resource = FluentResource::try_new(source.to_owned())
        .unwrap_or_else(|(_, errors)| panic!("locales/{}/ui.ftl does not parse: {errors:?}", language.tag()));
    resource
        .entries()
        .filter_map(|e| match e {
            fluent_syntax::ast::Entry::Message(m) => Some(m.id.name.to_owned()),
            _ => None,
        })
        .collect()
}

/// Every message of `language`, formatted.
pub fn strings(language: Language) -> UiStrings {
    let strings =
        message_ids(language).into_iter().map(|id| (id.clone(), keyapp::ui_words::text(language, &id))).collect();
    UiStrings { lang: language.tag(), strings }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_and_french_have_the_same_messages_and_none_is_empty() {
        let en = strings(Language::English);
        let fr = strings(Language::French);
        assert_eq!(en.strings.keys().collect::<Vec<_>>(), fr.strings.keys().collect::<Vec<_>>());
        assert!(en.strings.len() > 50);
        for s in [&en, &fr] {
            for (id, text) in &s.strings {
                assert!(!text.trim().is_empty() && text != id, "{}: {id} = {text:?}", s.lang);
                assert!(!text.contains('\u{2068}'), "{id}: isolation marks in window text");
            }
        }
        assert_eq!(en.strings["consent-approve"], "Approve");
        assert_eq!(fr.strings["consent-approve"], "Approuver");
    }

    #[test]
    fn the_language_switches_at_run_time_and_unknown_ones_are_refused() {
        let l = UiLanguage::new(Language::English);
        assert_eq!(l.format("tray-pending", &[("count", 2.into())]), "2 waiting for your answer");
        assert_eq!(l.format("tray-pending", &[("count", 0.into())]), "Nothing waiting");
        assert_eq!(l.set("fr").unwrap().lang, "fr");
        assert_eq!(l.format("tray-pending", &[("count", 1.into())]), "1 en attente de votre réponse");
        assert!(l.set("de").is_err());
        assert_eq!(l.get(), Language::French);
        assert_eq!(
            l.format("notify-request", &[("agent", "Cal".into())]),
            "Votre assistant « Cal » demande votre consentement."
        );
    }
}
