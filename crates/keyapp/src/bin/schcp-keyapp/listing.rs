//! How the terminal lists each view (`keyapp::views`): one line per item,
//! tab-separated, id first, with the service's own words for dates and notes.

use keyapp::views::{Contact, CredentialView, HistoryEntry, HostChangeView, PendingItem};

pub(crate) fn pending(items: Vec<PendingItem>) {
    if items.is_empty() {
        println!("nothing is waiting for you");
    }
    for item in &items {
        // A pairing's code is what the person compares with the agent's.
        let extra = match item.kind.as_str() {
            "pairing" => format!("code {}", item.fingerprint),
            _ => format!("until {}", item.expires),
        };
        // The name in quotes (the service neutralised any inside): a name
        // cannot pass for a code or a note of the key app's.
        println!("{}\t{}\t“{}”\t{extra}", item.id, item.kind, item.agent_name);
        // The service's sentence, in the person's language, when this
        // pairing's user keeps raising prompts that go unanswered.
        if let Some(churn) = &item.churn {
            println!("  {churn}");
        }
    }
}

pub(crate) fn credentials(listed: Vec<CredentialView>) {
    for m in &listed {
        let remaining = m.remaining.map(|r| format!("\tremaining {r}")).unwrap_or_default();
        // Hosted mode: what the status service does not know yet, in the person's words.
        let note = m.publication_note.as_ref().map(|n| format!("\t({n})")).unwrap_or_default();
        println!(
            "{}\t{}\t{}\t{}\tuntil {}{remaining}{note}",
            m.jti,
            m.kind.as_str(),
            m.status.as_str(),
            m.aud.join(","),
            m.expires
        );
    }
}

pub(crate) fn history(entries: Vec<HistoryEntry>) {
    for h in &entries {
        // How a yes was confirmed, in the person's words, where one was.
        let confirmed = h.confirmed.as_ref().map(|c| format!("\t({c})")).unwrap_or_default();
        // The sentence first; the event and its subject after it, for a search.
        println!("{}\t{}\t{}\t{}{confirmed}", h.when, h.sentence, h.event, h.subject);
    }
}

pub(crate) fn contacts(contacts: Vec<Contact>) {
    for c in &contacts {
        println!("{}\t{}", c.principal, c.name);
    }
}

pub(crate) fn host_changes(changes: Vec<HostChangeView>) {
    for c in &changes {
        println!("{}\t{}", c.change.host_id, c.words);
    }
}
