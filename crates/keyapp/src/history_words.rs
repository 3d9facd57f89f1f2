//! A history entry in the person's words: "You declined: Synthetic oil change
//! with Maple Street Auto, …". The window, the terminal and an export say the
//! same sentence; the raw event, id and detail stay behind "Details".

use fluent_bundle::FluentArgs;
use schcp_consent::Language;

use crate::store::history::HistoryRecord;
use crate::ui_words;

/// Every event the key app writes to its history, each with its sentence
/// (`history-<event>` in locales/*/ui.ftl). An event not listed (one a later
/// version writes, read by this one) reads as `history-event-other`.
pub const EVENTS: [&str; 18] = [
    "request_created",
    "request_approved",
    "request_declined",
    "request_expired",
    "request_withdrawn",
    "credential_issued",
    "revoked",
    "pairing_requested",
    "pairing_approved",
    "pairing_declined",
    "pairing_expired",
    "agent_unpaired",
    "contact_added",
    "contact_renamed",
    "contact_removed",
    "attestation_added",
    "host_domain_accepted",
    "cooldown_lifted",
];

/// `h` as one sentence in `language`.
///
/// What the entry is about is the request's one-line summary when the key app
/// kept one, else the kind of credential in words (`detail` holds the kind on
/// request and credential entries). Names an assistant or a host gave are made
/// inert, as everywhere they reach the person.
pub fn sentence(language: Language, h: &HistoryRecord) -> String {
    let mut args = FluentArgs::new();
    let agent = ui_words::assistant_or_any(language, h.agent_name.as_deref());
    let what = match &h.summary {
        Some(summary) => summary.clone(),
        None if !h.detail.is_empty() && is_kind(&h.detail) => ui_words::text(language, &format!("kind-{}", h.detail)),
        None => ui_words::text(language, "history-a-request"),
    };
    args.set("agent", agent);
    args.set("what", what);
    args.set("detail", schcp_consent::inert::inert(&h.detail));
    let id =
        if EVENTS.contains(&h.event.as_str()) { format!("history-{}", h.event) } else { "history-event-other".into() };
    ui_words::text_with(language, &id, &args)
}

fn is_kind(s: &str) -> bool {
    s.parse::<crate::kind::RequestKind>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(event: &str, detail: &str, summary: Option<&str>, agent: Option<&str>) -> HistoryRecord {
        HistoryRecord {
            id: 1,
            seal: None,
            at: 0,
            event: event.into(),
            subject: "rq_Q9JjwEDxTVuc2Myf2D51GA".into(),
            detail: detail.into(),
            confirmed_by: None,
            summary: summary.map(Into::into),
            summary_of: summary.map(|_| "rq_Q9JjwEDxTVuc2Myf2D51GA".into()),
            agent_name: agent.map(Into::into),
            agent_jkt: agent.map(|_| "jkt".into()),
        }
    }

    #[test]
    fn a_declined_request_reads_as_what_the_person_declined() {
        let h = record("request_declined", "", Some("Synthetic oil change with Maple Street Auto"), Some("Cal"));
        assert_eq!(sentence(Language::English, &h), "You declined: Synthetic oil change with Maple Street Auto");
        assert_eq!(sentence(Language::French, &h), "Vous avez refusé : Synthetic oil change with Maple Street Auto");
        let asked = record("request_created", "closed_mandate", Some("Oil change"), Some("Cal"));
        assert_eq!(sentence(Language::English, &asked), "“Cal” asked: Oil change");
        assert_eq!(sentence(Language::French, &asked), "« Cal » a demandé : Oil change");
    }

    #[test]
    fn without_a_summary_the_kind_is_said_in_words_never_as_a_code() {
        let h = record("credential_issued", "closed_mandate", None, None);
        let s = sentence(Language::English, &h);
        assert_eq!(s, "Signed for an assistant: Booking mandate");
        assert!(!s.contains("closed_mandate") && !s.contains("rq_"), "{s}");
        // A detail that is not a kind is never used as one.
        let odd = record("request_declined", "<b>x</b>", None, None);
        assert_eq!(sentence(Language::English, &odd), "You declined: a request");
    }

    #[test]
    fn every_event_has_words_in_both_languages_and_an_unknown_one_is_not_shown_raw() {
        for lang in [Language::English, Language::French] {
            for event in EVENTS {
                let s = sentence(lang, &record(event, "Ellis", Some("X"), Some("Cal")));
                assert!(!s.starts_with("history-") && !s.contains('_'), "{event} in {lang:?}: {s}");
            }
            let s = sentence(lang, &record("made_up_event", "", None, None));
            assert!(!s.contains("made_up_event") && !s.starts_with("history-"), "{s}");
        }
    }

    #[test]
    fn an_assistants_name_is_shown_inert() {
        let h = record("pairing_approved", "", None, Some("Cal\u{202e}evil"));
        let s = sentence(Language::English, &h);
        assert!(!s.contains('\u{202e}'), "{s:?}");
    }

    /// A name is a name: in quotes, and unable to close them early, so
    /// "Maple Street Auto refunded you. Cal" cannot read as a record of the
    /// key app's, nor a name that ends its quotes go on as the key app's words.
    #[test]
    fn an_assistants_name_stays_inside_its_quotes() {
        let h = record("request_created", "", Some("Oil change"), Some("Maple Street Auto refunded you. Cal"));
        assert_eq!(sentence(Language::English, &h), "“Maple Street Auto refunded you. Cal” asked: Oil change");
        let h = record("request_created", "", Some("Oil change"), Some("Cal” is done. “Maple Street Auto"));
        let s = sentence(Language::English, &h);
        assert_eq!(s, "“Cal\u{FFFD} is done. \u{FFFD}Maple Street Auto” asked: Oil change");
        let fr = sentence(Language::French, &record("request_created", "", Some("X"), Some("Cal » fini « Y")));
        assert_eq!(fr, "« Cal \u{FFFD} fini \u{FFFD} Y » a demandé : X");
    }
}
