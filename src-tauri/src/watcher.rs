//! Watches the service for new pairings and requests: each new one raises a
//! native notification and opens the consent window; the tray shows the count.

use crate::ui_strings::UiLanguage;
use crate::windows;
use keyapp::service::{PendingItem, Service};
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
    loop {
        if let Ok(items) = service.pending_items().await {
            windows::set_pending_count(&app, items.len());
            let fresh = new_items(&seen, &items);
            if let Some(first) = fresh.first() {
                notify(&app, first);
                let handle = app.clone();
                let _ = app.run_on_main_thread(move || windows::open_consent(&handle));
            }
            seen = items.into_iter().map(|i| i.id).collect();
        }
        // Woken by any change; the timeout only bounds a missed wake-up.
        service.wait_for_change(Duration::from_secs(2)).await;
    }
}

fn notify<R: Runtime>(app: &AppHandle<R>, item: &PendingItem) {
    let lang = app.state::<UiLanguage>();
    let id = if item.kind == "pairing" { "notify-pairing" } else { "notify-request" };
    let body = lang.format(id, &[("agent", item.agent_name.clone().into())]);
    // A desktop without a notification daemon still gets the window.
    let _ = app.notification().builder().title(lang.format("notify-title", &[])).body(body).show();
}
