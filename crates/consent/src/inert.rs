//! Host-, organizer- and agent-supplied strings, made inert before a person reads them.
//!
//! Names, labels, places and titles come from the other side (§5.12 "What a member can
//! trust"), and the text around them is the one thing the person reads before saying
//! yes (§5.3 "The consent trust boundary", "What an assistant shows"). Such a string
//! must not be able to reorder, hide or forge any other part of that text. So:
//!
//! 1. **Neutralise, never refuse.** Every control character (Cc: C0, DEL, C1), every
//!    format character (Cf: the bidi embeddings, overrides and isolates U+202A–U+202E and
//!    U+2066–U+2069, the marks U+200E/U+200F/U+061C, the zero-width characters
//!    U+200B–U+200D, U+2060, U+FEFF, soft hyphen, tag characters …), the line and
//!    paragraph separators (Zl, Zp), private-use (Co) and unassigned (Cn) code points,
//!    every default-ignorable code point (the Hangul fillers U+3164, U+FFA0, U+115F,
//!    U+1160, which fonts draw as blank letters; variation selectors; the combining
//!    grapheme joiner) and the blank braille pattern U+2800 are replaced, one for one,
//!    by U+FFFD REPLACEMENT CHARACTER. The person then
//!    *sees* that something was there, and the rest of the text stays readable.
//!    Refusing would be no safer (the terms are host-signed and verified; the name is
//!    not a term) and would hide from the person that the host tried. Categories come
//!    from ICU4X's Unicode data, not a hand list, so new format characters are covered.
//! 2. **Spaces are spaces, and marks stay on their letter.** Every space separator
//!    (Zs: no-break, em, ideographic …) becomes U+0020, runs collapse to one, and the
//!    ends are trimmed, so padding cannot push a term out of sight. A string left empty
//!    becomes U+FFFD. A letter carries at most [`MAX_MARKS`] combining marks (Mn, Me);
//!    the rest of a longer run becomes one U+FFFD, so a flood of stacked marks cannot be
//!    painted over the lines around it, and a mark with no letter under it (first, or
//!    after a space) is U+FFFD, since alone it is drawn as punctuation.
//! 3. **Right-to-left text is isolated.** A string with a strong right-to-left letter
//!    (bidi class R or AL) is wrapped in FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE
//!    (U+2068 … U+2069), so a Hebrew or Arabic name is shown correctly and cannot pull
//!    the digits, domain or price next to it into its own run. These are the only bidi
//!    controls the consent text ever contains, always balanced, because step 1 removed
//!    every one the input had. (Fluent's own isolation is off: it would wrap every
//!    placeable, the spec strings would no longer match byte for byte, and step 1
//!    already makes left-to-right strings safe.)
//! 4. **Structure is quoted.** A name shown bare must look like a name. One with
//!    anything else in it (brackets, quotes, commas, colons, semicolons, U+FFFD, symbols,
//!    or a token that looks like a domain, such as `Harbourview Dental
//!    (harbourviewdental.example)`) is shown in quotes, so it cannot pass for the key
//!    app's own parentheses, separators or verified domain. Ordinary names stay bare,
//!    which the spec's own renderings require ("with Harbourview Dental
//!    (harbourviewdental.example), …"). What a character *looks like* decides, not only
//!    its category: a modifier letter, mark, number or symbol whose confusable skeleton
//!    (UTS #39, `unicode-security`) is a comma, colon, bracket or quote (Lisu `ꓹ ꓽ`,
//!    modifier letter `ʺ`) makes the string quoted, and a token beyond ASCII is read
//!    for a domain in its skeleton (`dentalꓸexample`). A script's own letters (Lu, Ll,
//!    Lt, Lo) are what they are: a Hebrew yod looks like an apostrophe and stays one.
//!    Inside quotes every quotation mark is neutralised (U+FFFD), and so is every
//!    character that looks like one (`ʺ ˮ ″ 〃 ≪ ≫ ˂`) and every pair that does (`ʻʻ`,
//!    `''`, `<<`), so a quoted string cannot close its quotes early.
//! 5. **Length is bounded, never cut.** A supplied string longer than
//!    [`MAX_FIELD_CHARS`] is refused ([`ConsentError::TextTooLong`]): a 20,000-character
//!    service name would push the time and price out of sight, and cutting it would
//!    hide part of what the host signed. The whole text has its own bound,
//!    [`MAX_TEXT_CHARS`] (checked by [`crate::render`]).
//!
//! Agent names are held to a stricter rule where they enter, at pairing: a name
//! with any character rule 1 would replace is refused there ([`first_hidden`]), so
//! it never reaches a surface raw.

use icu::properties::props::{BidiClass, DefaultIgnorableCodePoint, Emoji, GeneralCategory};
use icu::properties::{CodePointMapData, CodePointMapDataBorrowed, CodePointSetData};
use unicode_security::confusable_detection::skeleton;

use crate::locale::Locale;
use crate::ConsentError;

/// U+FFFD, shown in place of every character that could reorder, hide or forge text.
pub const REPLACEMENT: char = '\u{FFFD}';

const FSI: char = '\u{2068}';
const PDI: char = '\u{2069}';

/// Quotation marks, neutralised inside a quoted string (rule 4). Characters that
/// only look like one are found by their skeleton ([`quote_look`]); these
/// are the marks whose skeleton is themselves.
const QUOTES: &[char] = &[
    '"',
    '\u{AB}',
    '\u{BB}',
    '\u{2018}',
    '\u{2019}',
    '\u{201A}',
    '\u{201B}',
    '\u{201C}',
    '\u{201D}',
    '\u{201E}',
    '\u{201F}',
    '\u{2039}',
    '\u{203A}',
    '\u{2329}',
    '\u{232A}',
    '\u{275B}',
    '\u{275C}',
    '\u{275D}',
    '\u{275E}',
    '\u{275F}',
    '\u{2760}',
    '\u{276E}',
    '\u{276F}',
    '\u{2770}',
    '\u{2771}',
    '\u{27E8}',
    '\u{27E9}',
    '\u{27EA}',
    '\u{27EB}',
    '\u{2E42}',
    '\u{3008}',
    '\u{3009}',
    '\u{300A}',
    '\u{300B}',
    '\u{300C}',
    '\u{300D}',
    '\u{300E}',
    '\u{300F}',
    '\u{301D}',
    '\u{301E}',
    '\u{301F}',
    '\u{FE3D}',
    '\u{FE3E}',
    '\u{FE3F}',
    '\u{FE40}',
    '\u{FF02}',
    '\u{FF62}',
    '\u{FF63}',
    '\u{1F676}',
    '\u{1F677}',
    '\u{1F678}',
];

/// The most combining marks (Mn, Me) one letter carries as supplied (rule 2):
/// enough for every script's real stacks (Vietnamese, Devanagari, Tibetan use up
/// to three or four), too few to paint over a line.
pub const MAX_MARKS: usize = 4;

/// The blank braille pattern: a symbol, not ignorable, that fonts draw as blank.
const BRAILLE_BLANK: char = '\u{2800}';

/// Punctuation a bare name may contain: what real names use, nothing that structures
/// the consent text (no brackets, commas, colons, semicolons or quotes).
const NAME_PUNCTUATION: &[char] = &['-', '_', '\'', '\u{2019}', '.', '&', '/', '+', '#', '!', '?'];

/// The most characters a supplied name, place, service, label or id may have to be
/// shown (rule 5): every schema id (at most 271 characters) fits, and it still
/// leaves the terms after it on screen.
pub const MAX_FIELD_CHARS: usize = 300;

/// The most characters a whole consent text may have (rule 5).
pub const MAX_TEXT_CHARS: usize = 4096;

/// Refuses a supplied string longer than [`MAX_FIELD_CHARS`] (rule 5).
pub fn bounded(s: &str) -> Result<(), ConsentError> {
    let chars = s.chars().count();
    if chars > MAX_FIELD_CHARS {
        return Err(ConsentError::TextTooLong { what: "a name, place or service", chars, max: MAX_FIELD_CHARS });
    }
    Ok(())
}

/// Whether rule 1 replaces `c`: controls, format characters (bidi embeddings,
/// overrides, isolates and marks, zero-width characters), line and paragraph
/// separators, private-use, surrogate and unassigned code points, default-ignorable
/// code points and the blank braille pattern; but not a text or emoji presentation
/// selector (U+FE0E, U+FE0F) right after an emoji (`after`), which only chooses how
/// the emoji is drawn.
fn hidden(gc: &CodePointMapDataBorrowed<'_, GeneralCategory>, after: Option<char>, c: char) -> bool {
    if matches!(c, '\u{FE0E}' | '\u{FE0F}') && after.is_some_and(|e| CodePointSetData::new::<Emoji>().contains(e)) {
        return false;
    }
    matches!(
        gc.get(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
            | GeneralCategory::PrivateUse
            | GeneralCategory::Surrogate
            | GeneralCategory::Unassigned
    ) || c == BRAILLE_BLANK
        || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
}

/// The first character of `s` that rule 1 would replace, if any: what makes an
/// agent's name unacceptable at pairing.
pub fn first_hidden(s: &str) -> Option<char> {
    let gc = CodePointMapData::<GeneralCategory>::new();
    let mut after = None;
    s.chars().find(|&c| {
        let found = hidden(&gc, after, c);
        after = Some(c);
        found
    })
}

fn is_mark(gc: &CodePointMapDataBorrowed<'_, GeneralCategory>, c: char) -> bool {
    matches!(gc.get(c), GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark)
}

/// Makes a supplied string inert (rules 1–3 of the module documentation).
pub fn inert(s: &str) -> String {
    isolated(inert_bare(s))
}

/// Rules 1 and 2: what is hidden shown, spaces made spaces, marks kept on letters.
fn inert_bare(s: &str) -> String {
    let gc = CodePointMapData::<GeneralCategory>::new();
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    // The combining marks on the last character pushed; past MAX_MARKS, the rest
    // of the run is one U+FFFD.
    let mut marks = 0usize;
    let mut after = None;
    for c in s.chars() {
        let shown = if hidden(&gc, after, c) {
            REPLACEMENT
        } else if gc.get(c) == GeneralCategory::SpaceSeparator {
            ' '
        } else {
            c
        };
        after = Some(c);
        if shown == ' ' {
            pending_space = !out.is_empty();
            marks = 0;
            continue;
        }
        // A mark with no letter under it (first, or after a space) would be
        // drawn alone, as punctuation (U+030E looks like a quote, U+0326 like
        // a comma), or on the key app's own quotation mark: shown as U+FFFD.
        let shown = if is_mark(&gc, shown) && (out.is_empty() || pending_space) { REPLACEMENT } else { shown };
        if is_mark(&gc, shown) {
            marks += 1;
            if marks == MAX_MARKS + 1 {
                out.push(REPLACEMENT);
            }
            if marks > MAX_MARKS {
                continue;
            }
        } else {
            marks = 0;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(shown);
    }
    if out.is_empty() {
        out.push(REPLACEMENT);
    }
    out
}

/// Rule 3: a string with a right-to-left letter, isolated.
fn isolated(out: String) -> String {
    if has_strong_rtl(&out) {
        let mut isolated = String::with_capacity(out.len() + 6);
        isolated.push(FSI);
        isolated.push_str(&out);
        isolated.push(PDI);
        isolated
    } else {
        out
    }
}

fn has_strong_rtl(s: &str) -> bool {
    let bidi = CodePointMapData::<BidiClass>::new();
    s.chars().any(|c| matches!(bidi.get(c), BidiClass::RightToLeft | BidiClass::ArabicLetter))
}

/// Whether an inert string may be shown bare (rule 4): letters, marks, digits, single
/// spaces and the name punctuation (`- _ ' ’ . & / + # ! ?`) only, each of which also
/// looks like one of those (its skeleton), and no token that looks like a domain.
pub fn is_plain(s: &str) -> bool {
    let gc = CodePointMapData::<GeneralCategory>::new();
    let name_like = |c: char| {
        c == ' '
            || c == FSI
            || c == PDI
            || NAME_PUNCTUATION.contains(&c)
            || matches!(
                gc.get(c),
                GeneralCategory::UppercaseLetter
                    | GeneralCategory::LowercaseLetter
                    | GeneralCategory::TitlecaseLetter
                    | GeneralCategory::ModifierLetter
                    | GeneralCategory::OtherLetter
                    | GeneralCategory::NonspacingMark
                    | GeneralCategory::SpacingMark
                    | GeneralCategory::EnclosingMark
                    | GeneralCategory::DecimalNumber
                    | GeneralCategory::LetterNumber
                    | GeneralCategory::OtherNumber
            )
    };
    // A modifier letter, mark or number that looks like a comma or a quote is
    // one, to the person. A script's own letters are what they are (a Hebrew
    // yod's skeleton is an apostrophe, an Icelandic eth's a symbol).
    let looks_name_like = |c: char| {
        c.is_ascii() || real_letter(&gc, c) || {
            let seen: String = skeleton(c.encode_utf8(&mut [0; 4])).collect();
            seen.chars().all(name_like) && seen.chars().filter(|&k| k == '\'').count() <= 1
        }
    };
    // A domain is looked for as the token reads: in its skeleton when it has
    // anything beyond ASCII (`dentalꓸexample`), else as it is ("Room 1.10").
    let domain_like = |token: &str| {
        if token.is_ascii() {
            looks_like_domain(token)
        } else {
            looks_like_domain(&skeleton(token).collect::<String>())
        }
    };
    s.chars().all(|c| name_like(c) && looks_name_like(c)) && !s.split(' ').any(domain_like)
}

/// A script's own letter (Lu, Ll, Lt, Lo): judged by what it is, never by what
/// it looks like, so real names in every script stay as written.
fn real_letter(gc: &CodePointMapDataBorrowed<'_, GeneralCategory>, c: char) -> bool {
    matches!(
        gc.get(c),
        GeneralCategory::UppercaseLetter
            | GeneralCategory::LowercaseLetter
            | GeneralCategory::TitlecaseLetter
            | GeneralCategory::OtherLetter
    )
}

/// What a character looks like inside quotes, read from one skeleton.
struct QuoteLook {
    /// It is, or looks like, a quotation mark: one of [`QUOTES`], or a
    /// character beyond ASCII, not a script's own letter, whose skeleton holds
    /// a double quote (`"` is `''` there) or an angle bracket (what `‹` `«`
    /// look like).
    quote: bool,
    /// What it looks like when that is one apostrophe or one angle bracket
    /// (`'`, `ʻ`, `ʼ`, `<`), unless it is a script's own letter: harmless
    /// alone, a quotation mark beside another of its kind (`ʻʻ` reads as `“`,
    /// `<<` as `«`). ASCII's own `'` `<` `>` are quotes only so, in pairs.
    half: Option<char>,
}

fn quote_look(gc: &CodePointMapDataBorrowed<'_, GeneralCategory>, c: char) -> QuoteLook {
    let listed = QUOTES.contains(&c);
    if real_letter(gc, c) {
        return QuoteLook { quote: listed, half: None };
    }
    let seen: String = skeleton(c.encode_utf8(&mut [0; 4])).collect();
    let mut shape = seen.chars();
    let half = match (shape.next(), shape.next()) {
        (Some(k @ ('\'' | '<' | '>')), None) => Some(k),
        _ => None,
    };
    let quote = listed || (!c.is_ascii() && (seen.contains(['"', '<', '>']) || seen.matches('\'').count() >= 2));
    QuoteLook { quote, half }
}

/// `evil.example`, `harbourviewdental.example/x`: a dot with a label of two or more
/// letters after it. "Dr." and "1.5" are not domain-like.
fn looks_like_domain(token: &str) -> bool {
    let mut labels = token.split('.');
    let Some(first) = labels.next() else {
        return false;
    };
    if first.is_empty() {
        return false;
    }
    labels.any(|label| label.chars().filter(|c| c.is_alphabetic()).count() >= 2)
}

/// A supplied name for display: bounded, inert, and quoted unless plain (rules 4, 5).
pub(crate) fn name(locale: &Locale, s: &str) -> Result<String, ConsentError> {
    bounded(s)?;
    let text = inert(s);
    if is_plain(&text) {
        Ok(text)
    } else {
        quote_inert(locale, &text)
    }
}

/// A supplied string for a surface that shows it inside quotation marks of its
/// own (an assistant's name in a notification, a history sentence, My
/// bookings): inert, with every quotation mark neutralised (U+FFFD), so it
/// cannot close those quotes early and go on as the surface's own words
/// (rule 4). Not bounded here: the names it serves were bounded at pairing.
///
/// Its own output comes back unchanged, so a surface handed a name a list
/// already made inert shows it as the list does: applied again, the isolate
/// rule 3 put around a right-to-left name would itself be replaced (rule 1),
/// and an Arabic or Hebrew name would read with U+FFFD at both ends. Only an
/// isolate exactly as this function adds it is kept (its inside unchanged by
/// rules 1–4, with a right-to-left letter), so nothing else passes.
pub fn inert_in_quotes(s: &str) -> String {
    // Isolated after the quotes are neutralised: a right-to-left mark that was
    // one (U+05F4) leaves no isolate around what is left, so a second pass
    // finds what the first gave.
    let once = |s: &str| isolated(neutral_quotes(&inert_bare(s)));
    if let Some(inside) = s.strip_prefix(FSI).and_then(|r| r.strip_suffix(PDI)) {
        let again = once(inside);
        if again == s {
            return again;
        }
    }
    once(s)
}

/// Every quotation mark, every character that looks like one, and every run of two
/// or more characters that look like the same apostrophe or angle bracket (which
/// together look like `"` or `«`), as U+FFFD.
fn neutral_quotes(text: &str) -> String {
    let gc = CodePointMapData::<GeneralCategory>::new();
    let chars: Vec<char> = text.chars().collect();
    let looks: Vec<QuoteLook> = chars.iter().map(|&c| quote_look(&gc, c)).collect();
    let half = |i: usize| looks.get(i).and_then(|l| l.half);
    let paired = |i: usize| half(i).is_some() && ((i > 0 && half(i - 1) == half(i)) || half(i + 1) == half(i));
    chars.iter().enumerate().map(|(i, &c)| if looks[i].quote || paired(i) { REPLACEMENT } else { c }).collect()
}

/// A supplied string always shown in quotes: an agent's name, a rule's label, the
/// organizer's name for someone the person does not know (§5.12).
pub(crate) fn quoted(locale: &Locale, s: &str) -> Result<String, ConsentError> {
    bounded(s)?;
    quote_inert(locale, &inert(s))
}

fn quote_inert(locale: &Locale, text: &str) -> Result<String, ConsentError> {
    locale.message("quoted", &[("text", neutral_quotes(text).into())])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_names_pass_unchanged() {
        for s in ["Harbourview Dental", "Cleaning and check-up", "Mira", "Noor Haddad", "Dr. O'Brien"] {
            assert_eq!(inert(s), s);
            assert!(is_plain(s), "{s}");
        }
    }

    #[test]
    fn controls_bidi_and_zero_width_become_replacement_characters() {
        let hostile = "a\u{202E}b\u{2066}c\u{200F}d\u{061C}e\u{200B}f\u{FEFF}g\nh\u{2028}i\u{7}j\u{0085}k";
        let out = inert(hostile);
        assert_eq!(out, "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e\u{FFFD}f\u{FFFD}g\u{FFFD}h\u{FFFD}i\u{FFFD}j\u{FFFD}k");
    }

    #[test]
    fn the_characters_rule_1_replaces_are_the_ones_an_agent_name_may_not_have() {
        for (s, c) in [
            ("a\u{202E}b", '\u{202E}'),
            ("a\u{2066}b", '\u{2066}'),
            ("a\u{200B}b", '\u{200B}'),
            ("a\u{200D}b", '\u{200D}'),
            ("a\u{FEFF}b", '\u{FEFF}'),
            ("a\u{7}b", '\u{7}'),
            ("a\nb", '\n'),
            ("a\u{2028}b", '\u{2028}'),
            ("a\u{E000}b", '\u{E000}'),
        ] {
            assert_eq!(first_hidden(s), Some(c), "{s:?}");
            assert!(inert(s).contains(REPLACEMENT));
        }
        for s in ["Calendar Assistant", "Noor Haddad", "שלום", "Dr. O'Brien & Co"] {
            assert_eq!(first_hidden(s), None, "{s}");
        }
    }

    #[test]
    fn a_supplied_string_past_the_bound_is_refused_and_one_at_it_is_not() {
        assert_eq!(bounded(&"é".repeat(MAX_FIELD_CHARS)), Ok(()));
        assert_eq!(
            bounded(&"é".repeat(MAX_FIELD_CHARS + 1)),
            Err(ConsentError::TextTooLong {
                what: "a name, place or service",
                chars: MAX_FIELD_CHARS + 1,
                max: MAX_FIELD_CHARS
            })
        );
    }

    #[test]
    fn spaces_collapse_and_trim() {
        assert_eq!(inert("  a\u{00A0}\u{2003}  b\t"), "a b\u{FFFD}");
        assert_eq!(inert("   "), "\u{FFFD}");
        assert_eq!(inert(""), "\u{FFFD}");
    }

    #[test]
    fn right_to_left_text_is_isolated() {
        assert_eq!(inert("שלום"), "\u{2068}שלום\u{2069}");
        assert_eq!(inert("\u{2067}שלום\u{2069}"), "\u{2068}\u{FFFD}שלום\u{FFFD}\u{2069}");
    }

    /// A surface handed a name the pending list already made inert (the
    /// notification) shows it as the list does: an Arabic or Hebrew name
    /// without U+FFFD where the first pass put its isolate.
    #[test]
    fn a_name_made_inert_for_quotes_twice_reads_as_once() {
        for s in ["שלום", "نور حداد", "Cal “שלום”", "Cal\u{202E}dnar", "", "  Mira  ", "a\"b", "Noor (נ)"]
        {
            let once = inert_in_quotes(s);
            assert_eq!(inert_in_quotes(&once), once, "{s:?}");
        }
        assert_eq!(inert_in_quotes(&inert_in_quotes("נור")), "\u{2068}נור\u{2069}");
    }

    /// Only the isolate as rule 3 adds it is kept: one around left-to-right
    /// text, around a hidden character or around quotation marks is the
    /// input's own, and is replaced as before.
    #[test]
    fn an_isolate_the_input_brought_is_still_replaced() {
        assert_eq!(inert_in_quotes("\u{2068}Cal\u{2069}"), "\u{FFFD}Cal\u{FFFD}");
        assert_eq!(inert_in_quotes("\u{2068}ש\u{202E}\u{2069}"), "\u{2068}\u{FFFD}ש\u{FFFD}\u{FFFD}\u{2069}");
        assert_eq!(inert_in_quotes("\u{2068}“ש”\u{2069}"), "\u{2068}\u{FFFD}\u{FFFD}ש\u{FFFD}\u{FFFD}\u{2069}");
    }

    proptest::proptest! {
        #[test]
        fn inert_in_quotes_is_idempotent(s in "[ a-zשנ“”\"\u{2068}\u{2069}\u{202E}\u{200B}\u{00A0}]{0,12}") {
            let once = inert_in_quotes(&s);
            proptest::prop_assert_eq!(inert_in_quotes(&once), once);
        }
    }

    #[test]
    fn structure_and_domains_are_not_plain() {
        for s in [
            "Harbourview Dental (harbourviewdental.example)",
            "evil.example",
            "Cleaning, CAD 1.00",
            "a\u{FFFD}b",
            "x: y",
            "\"quoted\"",
        ] {
            assert!(!is_plain(&inert(s)), "{s}");
        }
    }
}
