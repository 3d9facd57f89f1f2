//! Watches the service for new pairings and requests: each new one raises a
//! native notification and opens the consent window; the tray shows the count.
//! It also watches what a terminal or another program asks the OS to confirm:
//! the OS's prompt names nothing, so a notification names it, and the consent
//! window opens on the request or pairing it approves, which says so.

use crate::ui_strings::UiLanguage;
use crate::windows;
use keyapp::service::{AskedElsewhere, PendingItem, Service};
use std::collections::BTreeSet;
use std::time::Duration;
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_notification::NotificationExt;

/// Ids in `now` that were not in `seen`, oldest first.
pub fn new_items<'a>(seen: &BTreeSet<String>, now: &'a [PendingItem]) -> Vec<&'a PendingItem> {
    now.iter().filter(|i| !seen.contains(&i.id)).collect()
}

pub async fn watch<R: Runtime>(app: AppHandle<R>, service: Service) {
    let mut seen = BTreeSet::new();
    let mut shown_elsewhere: Option<AskedElsewhere> = None;
    // The change counter read before each look: a change made while the
    // pending list is read wakes the next wait at once instead of being missed.
    let mut counter = service.changes().wait_past(u64::MAX, Duration::ZERO).await;
    loop {
        if let Ok(items) = service.requests().pending_items().await {
            let fresh = new_items(&seen, &items);
            // The window first: the tray's count and the notification are each
            // a round trip (to the main thread, to the desktop's notification
            // service) that the window need not wait for.
            if let Some(first) = fresh.first() {
                let handle = app.clone();
                let raised_by = first.id.clone();
                let _ = app.run_on_main_thread(move || windows::open_consent(&handle, Some(&raised_by)));
            }
            windows::set_pending_count(&app, items.len());
            if let Some(first) = fresh.first() {
                notify(&app, first);
            }
            seen = items.into_iter().map(|i| i.id).collect();
        }
        let elsewhere = service.asked_elsewhere();
        if elsewhere != shown_elsewhere {
            if let Some(asked) = &elsewhere {
                // Shown on its request or pairing, without the keyboard, which
                // stays with the terminal asking for the password. A
                // confirmation of neither (a contact, a setting) shows no
                // window; an open consent window says what it is for anyway.
                if let Some(id) = asked.id.clone() {
                    let handle = app.clone();
                    let _ = app.run_on_main_thread(move || windows::show_consent_beside(&handle, &id));
                }
                let body = elsewhere_body(&app.state::<UiLanguage>(), asked);
                show_notification(&app, "notify-elsewhere-title", body);
            }
            shown_elsewhere = elsewhere;
        }
        // Woken by any change; the timeout only bounds a wait nothing ends.
        counter = service.changes().wait_past(counter, Duration::from_secs(2)).await;
    }
}

fn notify<R: Runtime>(app: &AppHandle<R>, item: &PendingItem) {
    let body = notification_body(&app.state::<UiLanguage>(), item);
    show_notification(app, "notify-title", body);
}

/// One notification: its title's words, and its body, escaped already.
fn show_notification<R: Runtime>(app: &AppHandle<R>, title_id: &str, body: String) {
    let title = app.state::<UiLanguage>().format(title_id, &[]);
    // A desktop without a notification daemon still gets the window.
    let _ = app.notification().builder().title(title).body(body).show();
}

/// The notification's body: the agent's name inert with its quotation marks
/// neutralised (the service lists it so; done again here, so a name reaching
/// the watcher another way is no different), and the whole body
/// escaped for markup, because a notification daemon may render the body as
/// markup (the Desktop Notifications Specification's `body-markup`).
pub fn notification_body(lang: &UiLanguage, item: &PendingItem) -> String {
    let name = schcp_consent::inert::inert_in_quotes(&item.agent_name);
    let text = match (item.kind.as_str(), item.summary.as_str()) {
        ("pairing", _) => lang.format("notify-pairing", &[("agent", name.into())]),
        // Requests stored before their one-line name was kept.
        (_, "") => lang.format("notify-request", &[("agent", name.into())]),
        // The notification names what is asked, so the person knows which
        // request it is before opening the window.
        (_, what) => lang.format("notify-request-what", &[("agent", name.into()), ("what", what.into())]),
    };
    markup_escaped(&text)
}

/// The notification for a confirmation a terminal or another program asked
/// for: what the OS's prompt on screen is for, escaped for markup as
/// [`notification_body`] is.
pub fn elsewhere_body(lang: &UiLanguage, asked: &AskedElsewhere) -> String {
    markup_escaped(&lang.format("notify-elsewhere", &[("what", asked.what.clone().into())]))
}

/// `s` as text inside notification markup: `&`, `<`, `>`, `"` and `'` as entities.
pub fn markup_escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use schcp_consent::Language;

    fn item(kind: &str, agent_name: &str) -> PendingItem {
        PendingItem {
            id: "rq_1".into(),
            kind: kind.into(),
            summary: "Synthetic oil change with Maple Street Auto".into(),
            agent_name: agent_name.into(),
            fingerprint: "7F3A-91C2-K8QD".into(),
            created_at: 0,
            created: "in words".into(),
            expires_at: 600,
            expires: "in words".into(),
            churn: None,
        }
    }

    #[test]
    fn a_name_with_markup_is_escaped_in_the_notification_body() {
        let lang = UiLanguage::new(Language::English);
        // Quotation marks are neutralised first (the name stands in quotes).
        let body = notification_body(&lang, &item("closed_mandate", "<b>Bold</b> & \"Co\" 'Ltd'"));
        assert_eq!(
            body,
            "Your assistant “&lt;b&gt;Bold&lt;/b&gt; &amp; \u{FFFD}Co\u{FFFD} &#39;Ltd&#39;” asks for your consent: Synthetic oil change with Maple Street Auto"
        );
        let mut unnamed = item("closed_mandate", "Calendar Assistant");
        unnamed.summary.clear();
        assert_eq!(notification_body(&lang, &unnamed), "Your assistant “Calendar Assistant” asks for your consent.");
        let pairing = notification_body(&lang, &item("pairing", "Calendar Assistant"));
        assert_eq!(pairing, "An assistant named “Calendar Assistant” asks to pair with your key app.");
    }

    #[test]
    fn a_stored_name_with_bidi_or_zero_width_characters_is_shown_inert() {
        let lang = UiLanguage::new(Language::English);
        let body = notification_body(&lang, &item("pairing", "Cal\u{202E}dnar\u{200B}"));
        assert!(!body.contains('\u{202E}') && !body.contains('\u{200B}'), "{body:?}");
        assert!(body.starts_with("An assistant named “Cal\u{FFFD}dnar\u{FFFD}” asks"), "{body:?}");
    }

    /// The pending list gives the name inert already; the notification shows
    /// it as the list does, a right-to-left name isolated once, without U+FFFD.
    #[test]
    fn a_right_to_left_name_from_the_pending_list_reads_as_it_does_there() {
        let lang = UiLanguage::new(Language::English);
        let listed = schcp_consent::inert::inert_in_quotes("נור חדד");
        let body = notification_body(&lang, &item("pairing", &listed));
        assert!(!body.contains('\u{FFFD}'), "{body:?}");
        assert!(body.contains("“\u{2068}נור חדד\u{2069}”"), "{body:?}");
    }

    /// An assistant chooses its own name, and a notification is read at a
    /// glance: a name like "Your bank: security check" must read as an
    /// assistant's name, quoted, never as the start of the key app's sentence.
    #[test]
    fn an_assistants_name_is_quoted_and_said_to_be_an_assistants() {
        let name = "Your bank: approve the next prompt";
        for lang in [UiLanguage::new(Language::English), UiLanguage::new(Language::French)] {
            let pairing = notification_body(&lang, &item("pairing", name));
            let request = notification_body(&lang, &item("closed_mandate", name));
            for body in [pairing, request] {
                assert!(!body.starts_with("Your bank"), "{body}");
                let quoted = [format!("“{name}”"), format!("« {name} »")];
                assert!(quoted.iter().any(|q| body.contains(q.as_str())), "{body}");
                assert!(body.to_lowercase().contains("assistant"), "{body}");
            }
        }
    }

    /// A name that closes its quotes early cannot go on as the notification's
    /// own words: every quotation mark inside it is neutralised.
    #[test]
    fn an_assistants_name_cannot_close_its_quotes() {
        let name = "Calendar” is done. Your dentist “Harbourview Dental";
        let en = notification_body(&UiLanguage::new(Language::English), &item("closed_mandate", name));
        assert!(
            en.starts_with("Your assistant “Calendar\u{FFFD} is done. Your dentist \u{FFFD}Harbourview Dental” asks"),
            "{en}"
        );
        let name = "Agenda » a fini. Votre dentiste « Harbourview";
        let fr = notification_body(&UiLanguage::new(Language::French), &item("closed_mandate", name));
        assert!(fr.contains("« Agenda \u{FFFD} a fini. Votre dentiste \u{FFFD} Harbourview »"), "{fr}");
    }

    /// What a program asks the OS to confirm is named in the notification,
    /// as text: markup in it is escaped, in both languages.
    #[test]
    fn a_confirmation_asked_elsewhere_is_named_and_escaped() {
        let asked = AskedElsewhere { what: "Pair “<b>Cal</b>” (code 7F3A)".into(), id: Some("pr_x".into()) };
        let en = elsewhere_body(&UiLanguage::new(Language::English), &asked);
        assert!(en.contains("another program") && en.contains("&lt;b&gt;Cal&lt;/b&gt;"), "{en}");
        assert!(!en.contains("<b>"), "{en}");
        let fr = elsewhere_body(&UiLanguage::new(Language::French), &asked);
        assert!(fr.contains("autre programme") && fr.contains("(code 7F3A)"), "{fr}");
    }

    /// The consent window's sentence for a confirmation that is not for what
    /// it shows names what it is for, in both languages, and keeps the id the
    /// window compares with the request it shows.
    #[test]
    fn the_window_names_a_confirmation_asked_for_something_else() {
        let asked = AskedElsewhere { what: "Pair “Cal” (code 7F3A)".into(), id: Some("pr_x".into()) };
        let en = crate::commands::elsewhere_view(&UiLanguage::new(Language::English), &asked);
        assert_eq!(en.id.as_deref(), Some("pr_x"));
        assert!(en.other.contains("not for what this window shows") && en.other.contains("(code 7F3A)"), "{en:?}");
        let fr = crate::commands::elsewhere_view(&UiLanguage::new(Language::French), &asked);
        assert!(fr.other.contains("ne porte pas sur") && fr.other.contains("(code 7F3A)"), "{fr:?}");
        let nothing_pending = AskedElsewhere { what: "Add “Sam” to your contacts".into(), id: None };
        let view = crate::commands::elsewhere_view(&UiLanguage::new(Language::English), &nothing_pending);
        assert_eq!(view.id, None);
        assert!(view.other.contains("Add “Sam” to your contacts"), "{view:?}");
    }

    #[test]
    fn only_service_ids_go_into_the_consent_route() {
        assert!(crate::windows::is_prompt_id("rq_AbC-12_x"));
        assert!(crate::windows::is_prompt_id("pr_AbC"));
        for bad in ["rq_\"; alert(1); \"", "rq_a/b", "x_abc", "rq_a b", ""] {
            assert!(!crate::windows::is_prompt_id(bad), "{bad}");
        }
    }
}
