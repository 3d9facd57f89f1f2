//! The person's records at the terminal: `history` and `mandates` searched
//! with the service's own query (`keyapp::record_query`), every page printed
//! as it arrives, and `export` writing the service's document to a file.

use crate::cli::{Find, Format};
use crate::error::CliError;
use crate::socket::Socket;
use chrono::{Days, NaiveDate, TimeZone};
use keyapp::control::Command;
use keyapp::export::ExportFormat;
use keyapp::record_query::{CredentialQuery, CredentialState, HistoryAnswer, HistoryQuery, RecordSearch, MAX_PAGE};
use schcp_consent::Language;
use std::path::PathBuf;

/// Prints every history entry the options find, newest first, page by page.
pub(crate) async fn history(socket: &Socket, find: Find, answer: Option<HistoryAnswer>) -> Result<(), CliError> {
    let ask = |search| Command::SearchHistory { query: HistoryQuery { search, answer } };
    every_page(socket, search(find)?, ask, crate::listing::history).await
}

/// Prints every credential the options find, newest first, page by page.
pub(crate) async fn credentials(socket: &Socket, find: Find, state: Option<CredentialState>) -> Result<(), CliError> {
    let ask = |search| Command::SearchCredentials { query: CredentialQuery { search, state } };
    every_page(socket, search(find)?, ask, crate::listing::credentials).await
}

/// One page of either list, as the service sends it (`HistoryPage`, `CredentialPage`).
#[derive(serde::Deserialize)]
struct Page<T> {
    items: Vec<T>,
    next: Option<String>,
}

/// Prints the first page `ask` gets for `search`, then each page after it,
/// until the service says none follows.
async fn every_page<T: serde::de::DeserializeOwned>(
    socket: &Socket,
    mut search: RecordSearch,
    ask: impl Fn(RecordSearch) -> Command,
    print: fn(Vec<T>),
) -> Result<(), CliError> {
    loop {
        let page: Page<T> = socket.view(ask(search.clone())).await?;
        print(page.items);
        match page.next {
            Some(next) => search.cursor = Some(next),
            None => return Ok(()),
        }
    }
}

/// The options as the service's search, from the first page, as many on a
/// page as the service gives.
fn search(find: Find) -> Result<RecordSearch, CliError> {
    let (since, until) = days(&find)?;
    Ok(RecordSearch {
        text: find.text,
        host: find.host,
        agent: find.agent,
        since,
        until,
        limit: Some(MAX_PAGE),
        cursor: None,
    })
}

/// Writes the records to `file` (mode 0600) and says where, in `language`.
pub(crate) async fn export(socket: &Socket, file: PathBuf, format: Format, language: Language) -> Result<(), CliError> {
    let format = match format {
        Format::Json => ExportFormat::Json,
        Format::Html => ExportFormat::Html,
    };
    let answer = socket.call(Command::ExportRecords { format }).await?;
    let document = answer["document"].as_str().ok_or(CliError::Version)?;
    // This process writes it, as the person: the key app never writes where
    // a terminal command names.
    let path = std::path::absolute(&file).map_err(|e| CliError::Export(format!("{}: {e}", file.display())))?;
    keyapp::export::write(&path, document).map_err(|e| CliError::Export(e.to_string()))?;
    let mut args = fluent_bundle::FluentArgs::new();
    args.set("path", path.display().to_string());
    println!("{}", keyapp::ui_words::text_with(language, "export-done", &args));
    Ok(())
}

/// `--since` and `--until` as instants: the start of the first day and the
/// start of the day after the last, in the local time zone, so `--until`
/// includes its day.
fn days(find: &Find) -> Result<(Option<i64>, Option<i64>), CliError> {
    let start = |s: &str, after: u64| -> Result<i64, CliError> {
        let day = NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|_| CliError::Date(s.to_owned()))?;
        let day = day.checked_add_days(Days::new(after)).ok_or_else(|| CliError::Date(s.to_owned()))?;
        let midnight = day.and_hms_opt(0, 0, 0).ok_or_else(|| CliError::Date(s.to_owned()))?;
        // A midnight skipped by a clock change starts the day at its first instant.
        chrono::Local
            .from_local_datetime(&midnight)
            .earliest()
            .or_else(|| chrono::Local.from_local_datetime(&(midnight + chrono::Duration::hours(1))).earliest())
            .map(|t| t.timestamp())
            .ok_or_else(|| CliError::Date(s.to_owned()))
    };
    Ok((
        find.since.as_deref().map(|s| start(s, 0)).transpose()?,
        find.until.as_deref().map(|s| start(s, 1)).transpose()?,
    ))
}
