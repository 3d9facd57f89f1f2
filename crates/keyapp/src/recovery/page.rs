//! The printable recovery kit: one self-contained HTML page (no script, no
//! outside resource) that the window opens in a print preview. It carries the
//! 24 words, the principal id they restore, the date, how to restore, and how
//! to keep it. Built only from a kit `recovery::reveal` handed out; never
//! written to disk by the key app.

use super::{KitKind, RecoveryKit};
use crate::ui_words::{text, text_with};
use fluent_bundle::FluentArgs;
use schcp_consent::Language;

/// Text as HTML: the page's only inputs are Fluent words, BIP-39 words and a
/// principal id, but a translation may hold `<` or `&`.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The page for `kit`, in `language`, dated `date` (the person's words for the day).
pub fn html(kit: &RecoveryKit, language: Language, date: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\"><title>{title}</title>\
<style>body{{font-family:sans-serif;max-width:40em;margin:2em auto}}ol{{columns:3;font:1.2em monospace}}\
.n{{display:inline-block;width:2em;color:#666}}.note{{border:2px solid #000;padding:.5em}}</style></head>\n\
<body>{body}</body></html>\n",
        lang = language.tag(),
        title = escape(&text(language, "recovery-page-title")),
        body = body(kit, language, date),
    )
}

/// The page's content alone (no style, no script), for the window's print
/// view, whose stylesheet lays it out as [`html`]'s does.
pub fn body(kit: &RecoveryKit, language: Language, date: &str) -> String {
    let t = |id: &str| escape(&text(language, id));
    let mut args = FluentArgs::new();
    args.set("date", date.to_owned());
    let dated = escape(&text_with(language, "recovery-page-date", &args));
    let words: String = kit
        .words()
        .iter()
        .enumerate()
        .map(|(i, w)| format!("<li><span class=\"n\">{}</span> {}</li>", i + 1, escape(w)))
        .collect();
    let seed_note = match kit.kind() {
        KitKind::KeySeed => format!("<p class=\"note\">{}</p>", t("recovery-kit-key-seed")),
        KitKind::Phrase => String::new(),
    };
    format!(
        "<h1>{title}</h1><p>{dated}</p><ol>{words}</ol>{seed_note}\
<p>{principal_label}<br><code>{principal}</code></p>\
<h2>{keep_title}</h2><p class=\"note\">{keep}</p>\
<h2>{restore_title}</h2><p>{restore}</p>",
        title = t("recovery-page-title"),
        principal_label = t("recovery-page-principal"),
        principal = escape(&kit.principal_id()),
        keep_title = t("recovery-page-keep-title"),
        keep = t("recovery-kit-keep"),
        restore_title = t("recovery-page-restore-title"),
        restore = t("recovery-page-restore"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BIP-39's vector for 32 bytes of 0x7f, as a phrase and as a key seed.
    fn kit(kind: KitKind) -> RecoveryKit {
        RecoveryKit::from_bytes(kind, &[0x7f; 32])
    }

    #[test]
    fn the_page_in_english() {
        insta::assert_snapshot!(html(&kit(KitKind::Phrase), Language::English, "3 December 2026"));
    }

    #[test]
    fn the_page_in_french() {
        insta::assert_snapshot!(html(&kit(KitKind::Phrase), Language::French, "3 décembre 2026"));
    }

    #[test]
    fn a_key_seed_kit_says_so() {
        let en = html(&kit(KitKind::KeySeed), Language::English, "d");
        assert!(en.contains("made before recovery phrases"), "{en}");
        assert!(!html(&kit(KitKind::Phrase), Language::English, "d").contains("made before recovery phrases"));
        let fr = html(&kit(KitKind::KeySeed), Language::French, "d");
        assert!(fr.contains("avant l’existence des phrases"), "{fr}");
    }

    /// How to restore names both ways back: the first-run window's own
    /// button, by its label, and the terminal command.
    #[test]
    fn how_to_restore_names_the_window_and_the_terminal() {
        for language in [Language::English, Language::French] {
            let page = html(&kit(KitKind::Phrase), language, "d");
            let restore = &page[page.find(&escape(&text(language, "recovery-page-restore-title"))).unwrap()..];
            let button = escape(&text(language, "welcome-have-kit"));
            assert!(restore.contains(&button), "{language:?}: {restore}");
            assert!(restore.contains("schcp-keyapp restore") && restore.contains("--backup"), "{restore}");
        }
    }

    #[test]
    fn the_page_has_every_word_in_order_and_no_script() {
        let k = kit(KitKind::Phrase);
        let page = html(&k, Language::English, "<b>&");
        let mut at = 0;
        for w in k.words().iter() {
            at += page[at..].find(&format!(" {w}</li>")).unwrap_or_else(|| panic!("{w} missing or out of order"));
        }
        assert!(page.contains(&k.principal_id()));
        assert!(page.contains("&lt;b&gt;&amp;") && !page.contains("<b>&"));
        assert!(!page.contains("<script") && !page.contains("http"), "self-contained");
    }
}
