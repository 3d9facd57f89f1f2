//! The person's records as one document they keep (docs/records-export.md):
//! JSON with a published schema (`schemas/records-export.schema.json`), or a
//! printable page (HTML, printed by a browser or the webview; never a PDF drawn
//! here). Built by `Service::records_export` from the same views every surface
//! shows, in the person's words.
//!
//! What it never holds: key material (the private key never leaves the
//! keystore), nor any signed credential or attestation as issued. An agent can
//! read every file the person can (docs/threat-model.md), so an export left in
//! a folder must not hand it anything a host would accept.

use crate::views::{BookingView, Contact, CredentialView, HistoryEntry};
use schcp_consent::Language;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;
use ts_rs::TS;

/// The `format` member every export starts with; a later shape gets another.
pub const FORMAT: &str = "schcp-keyapp-records/1";

/// The schema an export validates against (JSON Schema 2020-12).
pub const SCHEMA_JSON: &str = include_str!("../../../schemas/records-export.schema.json");

/// Which document an export writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// The records as JSON (`schemas/records-export.schema.json`).
    Json,
    /// A printable page.
    Html,
}

/// The person's records, as exported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordsExport {
    /// Always [`FORMAT`].
    pub format: String,
    /// NumericDate of the export.
    pub exported_at: i64,
    /// `exported_at` in words, in the person's language and time zone.
    pub exported: String,
    /// The language the words are in (`en`, `fr`).
    pub language: String,
    /// The person's principal id (public: every credential names it).
    pub principal: String,
    /// Every history entry, newest first.
    pub history: Vec<HistoryEntry>,
    /// Every credential issued, oldest first, with its status at export.
    pub credentials: Vec<CredentialView>,
    /// Every booking with a verified receipt, upcoming first.
    pub bookings: Vec<BookingView>,
    pub contacts: Vec<Contact>,
    /// Attestations kept about the person's key: who vouched, until when.
    pub attestations: Vec<AttestationSummary>,
}

/// An attestation as exported: never the signed attestation itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttestationSummary {
    pub iss: String,
    pub exp: i64,
    pub expires: String,
}

/// Why an export was not written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The path names no file the key app can write, or writing failed.
    #[error("{path}: {source}")]
    Write { path: std::path::PathBuf, source: std::io::Error },
    /// Not an absolute path: a relative one would land wherever the key app runs.
    #[error("{0}: the export's path must be absolute")]
    NotAbsolute(std::path::PathBuf),
}

impl RecordsExport {
    /// The document in `format`.
    pub fn render(&self, format: ExportFormat, language: Language) -> String {
        match format {
            ExportFormat::Json => {
                let mut s = serde_json::to_string_pretty(self).expect("an export serializes");
                s.push('\n');
                s
            }
            ExportFormat::Html => html(self, language),
        }
    }
}

/// Writes `document` to `path` (absolute), mode 0600: the person's records
/// are theirs alone, wherever they keep a copy.
pub fn write(path: &Path, document: &str) -> Result<(), ExportError> {
    if !path.is_absolute() {
        return Err(ExportError::NotAbsolute(path.to_owned()));
    }
    crate::private_files::write(path, document.as_bytes())
        .map_err(|source| ExportError::Write { path: path.to_owned(), source })
}

/// Text as HTML content: every character of a record is shown, none is markup.
fn text(s: &str) -> String {
    html_escape::encode_text(&schcp_consent::inert::inert(s)).into_owned()
}

/// The printable page: one table per kind of record, in the person's words,
/// with a print style; no script and nothing fetched.
// Long by design: one straight-line template of the page, a table per kind of record.
fn html(e: &RecordsExport, language: Language) -> String {
    let w = |id: &str| text(&crate::ui_words::text(language, id));
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"{lang}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{title}</h1>\n\
         <p>{exported}</p>\n<p>{principal_label} <code>{principal}</code></p>\n",
        lang = text(&e.language),
        title = w("export-title"),
        exported = {
            let mut args = fluent_bundle::FluentArgs::new();
            args.set("when", e.exported.clone());
            text(&crate::ui_words::text_with(language, "export-made", &args))
        },
        principal_label = w("export-principal"),
        principal = text(&e.principal),
    );
    section(
        &mut out,
        language,
        &w("history-heading"),
        &[w("col-when"), w("col-what")],
        e.history.iter().map(|h| {
            let what = match &h.confirmed {
                Some(c) => format!("{} ({})", text(&h.sentence), text(c)),
                None => text(&h.sentence),
            };
            vec![text(&h.when), what]
        }),
    );
    section(
        &mut out,
        language,
        &w("credentials-heading"),
        &[w("col-allows"), w("col-expires"), w("col-status"), w("col-remaining")],
        e.credentials.iter().map(|c| {
            let allows =
                c.summary.clone().unwrap_or_else(|| crate::ui_words::text(language, &format!("kind-{}", c.kind)));
            vec![
                text(&allows),
                text(&c.expires),
                w(&format!("status-{}", c.status.as_str())),
                c.remaining.map(|r| r.to_string()).unwrap_or_default(),
            ]
        }),
    );
    section(
        &mut out,
        language,
        &w("bookings-heading"),
        &[w("col-when"), w("col-what"), w("col-host"), w("col-status")],
        e.bookings.iter().map(|b| vec![text(&b.when), text(&b.what), text(&b.host), text(&b.state)]),
    );
    section(
        &mut out,
        language,
        &w("contacts-heading"),
        &[w("col-name"), w("col-relationship")],
        e.contacts.iter().map(|c| vec![text(&c.name), text(c.relationship.as_deref().unwrap_or_default())]),
    );
    section(
        &mut out,
        language,
        &w("attestations-heading"),
        &[w("col-issuer"), w("col-expires")],
        e.attestations.iter().map(|a| vec![text(&a.iss), text(&a.expires)]),
    );
    out.push_str("</body>\n</html>\n");
    out
}

const STYLE: &str = "body{font-family:sans-serif;margin:2em;color:#000;background:#fff}\
table{border-collapse:collapse;width:100%;margin-bottom:2em}\
th,td{border:1px solid #999;padding:.3em .5em;text-align:left;vertical-align:top}\
thead{display:table-header-group}tr{break-inside:avoid}\
@media print{body{margin:0}h2{break-after:avoid}}";

/// One table; its cells are HTML already made inert by [`text`].
fn section(
    out: &mut String,
    language: Language,
    heading: &str,
    columns: &[String],
    rows: impl Iterator<Item = Vec<String>>,
) {
    let _ = writeln!(out, "<h2>{heading}</h2>");
    let mut rows = rows.peekable();
    if rows.peek().is_none() {
        let _ = writeln!(out, "<p>{}</p>", text(&crate::ui_words::text(language, "empty-list")));
        return;
    }
    out.push_str("<table>\n<thead><tr>");
    for c in columns {
        let _ = write!(out, "<th scope=\"col\">{c}</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{cell}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}
