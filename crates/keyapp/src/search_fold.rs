//! The records' text search ignores case and accents for every letter:
//! "fete", "FÊTE" and "Fête" find "fête", "ecole" finds "École". SQLite's
//! `LIKE` folds ASCII letters only, so each searched text is stored a second
//! time folded (store/search_folds.rs), and the search text is folded the same
//! way before it becomes a `LIKE` pattern (record_query). Both sides go
//! through [`fold`], so whatever it decides, a text always finds itself.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// `text` as the search compares it:
/// - compatibility decomposition (NFKD): "ﬁ" is "fi", "①" is "1", "Ａ" is "A";
/// - the marks on a Latin, Greek, Cyrillic or Armenian letter dropped
///   ("é" is "e", "İ" is "I"); a mark on anything else is kept, so an emoji's
///   variation selector or keycap, and the vowel signs some scripts write as
///   marks, are untouched;
/// - letters a person types without their stroke or as two letters where
///   NFKD keeps them whole: "ß" is "ss", "œ" "oe", "æ" "ae", "ø" "o",
///   "ł" "l", "đ" "d", Turkish dotless "ı" is "i", final "ς" is "σ";
/// - then lower case.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Whether the last character kept was a letter whose marks are accents.
    let mut accented_base = false;
    for c in text.nfkd() {
        if is_combining_mark(c) {
            if !accented_base {
                out.push(c);
            }
            continue;
        }
        accented_base = c.is_alphabetic() && (c as u32) < 0x0590;
        match c {
            'ß' | 'ẞ' => out.push_str("ss"),
            'œ' | 'Œ' => out.push_str("oe"),
            'æ' | 'Æ' => out.push_str("ae"),
            'ø' | 'Ø' => out.push('o'),
            'ł' | 'Ł' => out.push('l'),
            'đ' | 'Đ' => out.push('d'),
            'ı' => out.push('i'),
            'ς' => out.push('σ'),
            _ => out.extend(c.to_lowercase()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::fold;

    #[test]
    fn case_and_accents_fold_away_for_every_letter() {
        for t in ["fete", "FÊTE", "Fête", "fête", "FETE", "fe\u{0302}te"] {
            assert_eq!(fold(t), "fete", "{t}");
        }
        assert_eq!(fold("École"), "ecole");
        assert_eq!(fold("ÉCOLE"), fold("ecole"));
        assert_eq!(fold("Crème brûlée à Noël"), "creme brulee a noel");
        assert_eq!(fold("Ærøskøbing"), "aeroskobing");
        assert_eq!(fold("Łódź"), "lodz");
        assert_eq!(fold("Đakovo"), "dakovo");
        assert_eq!(fold("ΑΘΗΝΑ Αθήνα"), "αθηνα αθηνα");
        assert_eq!(fold("МОСКВА Ёлка"), "москва елка");
    }

    #[test]
    fn turkish_dotted_and_dotless_i_are_both_i() {
        assert_eq!(fold("İstanbul"), "istanbul");
        assert_eq!(fold("ISTANBUL"), "istanbul");
        assert_eq!(fold("Kırmızı"), "kirmizi");
        assert_eq!(fold("KIRMIZI"), fold("kırmızı"));
    }

    #[test]
    fn sharp_s_and_ligatures_are_their_letters() {
        assert_eq!(fold("Straße"), "strasse");
        assert_eq!(fold("STRAẞE"), "strasse");
        assert_eq!(fold("cœur"), "coeur");
        assert_eq!(fold("Œuvre"), "oeuvre");
        assert_eq!(fold("ﬁnance ﬀ"), "finance ff");
        assert_eq!(fold("ΣΟΦΟΣ"), fold("σοφοσ"));
    }

    #[test]
    fn compatibility_forms_are_their_plain_characters() {
        assert_eq!(fold("ＡＢＣ①"), "abc1");
        assert_eq!(fold("m²"), "m2");
    }

    #[test]
    fn emoji_and_marks_on_other_scripts_are_untouched() {
        for e in ["❤\u{FE0F}", "👍🏽", "👩\u{200D}💻", "1\u{FE0F}\u{20E3}", "🇨🇦", "🎉"] {
            assert_eq!(fold(e), e, "{e:?}");
        }
        assert_eq!(fold("Fête 🎉"), "fete 🎉");
        // A Devanagari vowel sign is part of the word, not an accent.
        assert_eq!(fold("कि"), "कि");
        assert_ne!(fold("कि"), fold("क"));
        assert_eq!(fold("東京"), "東京");
    }

    #[test]
    fn what_is_no_letter_is_kept_as_is() {
        assert_eq!(fold(""), "");
        assert_eq!(fold("50% off_now\\ 12:30"), "50% off_now\\ 12:30");
        assert_eq!(fold("rq_Q9JjwEDx"), "rq_q9jjwedx");
    }
}
