//! The few words of the person's surfaces the service itself supplies, in the
//! person's language: a credential's "revocation not yet published" (hosted mode),
//! from the window's own catalogue `locales/{en,fr}/ui.ftl`, which the terminal
//! and the desktop show alike; and why something the person did in a window
//! was refused (`refusal`), from `locales/{en,fr}/refusals.ftl`.

use crate::service::ServiceError;
use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource};
use schcp_consent::Language;
use std::sync::OnceLock;

const EN: [&str; 2] = [include_str!("../../../locales/en/ui.ftl"), include_str!("../../../locales/en/refusals.ftl")];
const FR: [&str; 2] = [include_str!("../../../locales/fr/ui.ftl"), include_str!("../../../locales/fr/refusals.ftl")];

fn bundle(language: Language) -> &'static FluentBundle<FluentResource> {
    static EN_BUNDLE: OnceLock<FluentBundle<FluentResource>> = OnceLock::new();
    static FR_BUNDLE: OnceLock<FluentBundle<FluentResource>> = OnceLock::new();
    let (cell, sources) = match language {
        Language::French => (&FR_BUNDLE, FR),
        _ => (&EN_BUNDLE, EN),
    };
    cell.get_or_init(|| {
        let langid: unic_langid::LanguageIdentifier = language.tag().parse().expect("en and fr are language tags");
        let mut bundle = FluentBundle::new_concurrent(vec![langid]);
        bundle.set_use_isolating(false);
        for source in sources {
            let resource = FluentResource::try_new(source.to_owned())
                .unwrap_or_else(|(_, e)| panic!("locales/{}/*.ftl does not parse: {e:?}", language.tag()));
            bundle.add_resource(resource).expect("the catalogue's files share no message id");
        }
        bundle
    })
}

fn format(language: Language, id: &str, args: Option<&FluentArgs<'_>>) -> Option<String> {
    let bundle = bundle(language);
    let pattern = bundle.get_message(id)?.value()?;
    let mut errors = Vec::new();
    Some(bundle.format_pattern(pattern, args, &mut errors).into_owned())
}

/// Message `id` (no arguments) in `language`; the id itself if the catalogue
/// lacks it, which the tests below rule out for every id the service uses.
pub fn text(language: Language, id: &str) -> String {
    format(language, id, None).unwrap_or_else(|| id.to_owned())
}

/// Message `id` with `args` in `language` (the tray's and the notifications'
/// words); the id itself if the catalogue lacks it.
pub fn text_with(language: Language, id: &str, args: &FluentArgs<'_>) -> String {
    format(language, id, Some(args)).unwrap_or_else(|| id.to_owned())
}

/// Why `error` refused what the person did, as the person reads it in
/// `language`. The service's own message is written for agent developers and
/// in English; the person gets the catalogue's sentence for the refusal's
/// reason, else (a verification failure) one naming the reason, and only then
/// the service's message: as it is in English, inside a sentence naming the
/// reason in another language.
pub fn refusal(language: Language, error: &ServiceError) -> String {
    let api = error.to_api();
    let mut args = FluentArgs::new();
    args.set("reason", api.reason.to_string());
    args.set("message", api.message.clone());
    args.set("max", crate::service::MAX_LABEL);
    args.set("prefix", schcp::jwk::PRINCIPAL_PREFIX);
    if let ServiceError::NotPending(status) = error {
        args.set("status", text(language, &format!("status-{status}")));
    }
    let by_kind = matches!(error, ServiceError::Verification(_) | ServiceError::Unacceptable { .. })
        .then_some("refusal-verification");
    format(language, &format!("refusal-{}", api.reason), Some(&args))
        .or_else(|| by_kind.and_then(|id| format(language, id, Some(&args))))
        .unwrap_or_else(|| match language {
            Language::English => api.message.clone(),
            _ => format(language, "refusal-other", Some(&args)).unwrap_or(api.message),
        })
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

    fn ids(catalogue: &str) -> Vec<&str> {
        catalogue
            .lines()
            .filter_map(|l| l.split_once(" = "))
            .map(|(id, _)| id)
            .filter(|id| !id.starts_with('#'))
            .collect()
    }

    #[test]
    fn the_refusal_catalogues_have_the_same_ids() {
        assert_eq!(ids(EN[1]), ids(FR[1]));
        assert!(ids(EN[1]).len() >= 10);
    }

    #[test]
    fn every_refusal_a_window_can_meet_is_worded_in_english_and_french() {
        let busy = ServiceError::Store(crate::store::StoreError::Busy(sqlx::Error::PoolTimedOut));
        let expired = schcp::Error::Expired { what: "attestation", exp: 1, now: 2 };
        let cases = [
            ServiceError::NotPending("expired".into()),
            ServiceError::NotFound("contact"),
            busy,
            ServiceError::invalid("bad_label", "a rule's label is 1 to 200 characters of plain text"),
            ServiceError::invalid("not_a_rule", "only a rule's label can be edited"),
            ServiceError::invalid("bad_name", "a contact's name is non-empty plain text"),
            ServiceError::invalid("bad_principal", "a principal starts with urn:"),
            ServiceError::invalid("not_revocable", "This rule cannot be revoked: it is never published"),
            ServiceError::invalid("wrong_subject", "the attestation is about another principal"),
            ServiceError::Verification(expired),
        ];
        for e in &cases {
            let (en, fr) = (refusal(Language::English, e), refusal(Language::French, e));
            let service_words = e.to_api().message;
            for w in [&en, &fr] {
                assert!(!w.contains('{') && !w.contains(&service_words), "{e:?}: {w:?}");
                assert!(w.ends_with('.'), "{e:?}: one whole sentence, not {w:?}");
            }
            assert_ne!(en, fr, "{e:?}");
        }
        assert_eq!(
            refusal(Language::French, &ServiceError::NotPending("withdrawn".into())),
            "Cette demande n’attend plus de réponse : elle est retirée. Rien n’a été signé."
        );
        assert_eq!(
            refusal(Language::English, &cases[3]),
            "A rule’s label is 1 to 200 characters of plain text, on one line."
        );
        assert_eq!(
            refusal(Language::French, &cases[9]),
            "Ceci n’a pas pu être vérifié (expired) ; rien n’a été modifié."
        );
    }

    #[test]
    fn a_refusal_with_no_words_of_its_own_falls_back_to_the_service_message() {
        let odd = ServiceError::invalid("bad_slot", "the slot's end is before its start");
        assert_eq!(refusal(Language::English, &odd), "the slot's end is before its start");
        assert_eq!(
            refusal(Language::French, &odd),
            "L’appli de clés n’a pas pu le faire (bad_slot) : the slot's end is before its start"
        );
    }
}
