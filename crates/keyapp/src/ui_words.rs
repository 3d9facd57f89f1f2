//! The few words of the person's surfaces the service itself puts into a record
//! view (a credential's "revocation not yet published", issue 12), from the
//! window's own catalogue `locales/{en,fr}/ui.ftl`: the terminal and the desktop
//! show the same words, in the person's language.

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::FluentResource;
use schcp_consent::Language;
use std::sync::OnceLock;

const EN: &str = include_str!("../../../locales/en/ui.ftl");
const FR: &str = include_str!("../../../locales/fr/ui.ftl");

fn bundle(language: Language) -> &'static FluentBundle<FluentResource> {
    static EN_BUNDLE: OnceLock<FluentBundle<FluentResource>> = OnceLock::new();
    static FR_BUNDLE: OnceLock<FluentBundle<FluentResource>> = OnceLock::new();
    let (cell, source) = match language {
        Language::French => (&FR_BUNDLE, FR),
        _ => (&EN_BUNDLE, EN),
    };
    cell.get_or_init(|| {
        let resource = FluentResource::try_new(source.to_owned())
            .unwrap_or_else(|(_, e)| panic!("locales/{}/ui.ftl does not parse: {e:?}", language.tag()));
        let langid: unic_langid::LanguageIdentifier = language.tag().parse().expect("en and fr are language tags");
        let mut bundle = FluentBundle::new_concurrent(vec![langid]);
        bundle.set_use_isolating(false);
        bundle.add_resource(resource).expect("one resource, no duplicate ids");
        bundle
    })
}

/// Message `id` (no arguments) in `language`; the id itself if the catalogue
/// lacks it, which the tests below rule out for every id the service uses.
pub fn text(language: Language, id: &str) -> String {
    let bundle = bundle(language);
    let Some(pattern) = bundle.get_message(id).and_then(|m| m.value()) else {
        return id.to_owned();
    };
    let mut errors = Vec::new();
    bundle.format_pattern(pattern, None, &mut errors).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::Publication;

    #[test]
    fn every_publication_state_has_words_in_english_and_french() {
        for p in [Publication::RegistrationPending, Publication::RevocationPending] {
            for l in [Language::English, Language::French] {
                let t = text(l, p.message_id());
                assert!(!t.is_empty() && t != p.message_id(), "{l:?} {p:?}");
            }
        }
        assert_eq!(text(Language::English, "credentials-revocation-unpublished"), "revocation not yet published");
        assert_eq!(text(Language::French, "credentials-revocation-unpublished"), "révocation pas encore publiée");
        assert_eq!(text(Language::English, "no-such-message"), "no-such-message");
    }
}
