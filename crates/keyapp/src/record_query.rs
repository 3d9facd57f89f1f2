//! What the person looks for in their records: one typed query per list
//! (History, Credentials), the same on every surface (the window's commands,
//! the control socket and the terminal it serves), answered a page at a time
//! by the service. A page ends with an opaque cursor the next call hands back;
//! the store pages by key (never by offset), so entries written meanwhile
//! neither repeat nor hide one on the next page.
//!
//! Everything a caller sends is checked here before the store sees it: a page
//! size out of range is brought into range, a cursor the key app did not make
//! or a text too long is a [`QueryError`], and the text is matched as text
//! (an SQL `LIKE` with its wildcards escaped, bound as a parameter).

use crate::search_fold::fold;
use crate::store::credentials::CredentialStatus;
use crate::views::{CredentialView, HistoryEntry};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A page holds this many entries when the query names no size.
pub const DEFAULT_PAGE: u64 = 50;
/// The most entries one page holds; a larger size asked for is brought down to it.
pub const MAX_PAGE: u64 = 500;
/// The longest search text, in characters: longer than any name or summary.
pub const MAX_TEXT: usize = 200;
/// The longest host or assistant named in a filter, in characters.
const MAX_NAME: usize = 300;

/// What History and Credentials are both searched by: words, a host, an
/// assistant, a range of instants, and the page. Every field narrows the list;
/// a search with none lists everything, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default)]
#[ts(optional_fields)]
pub struct RecordSearch {
    /// Words to find in what it is about (its one-line summary), the
    /// assistant's name, a contact's name, or a host's id or domain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A host, by its id or the domain the key app verified it at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// An assistant, by its key thumbprint, its fingerprint or the name it paired under.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// From this instant on (NumericDate, included): when an entry happened,
    /// when a credential was issued.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<i64>,
    /// Before this instant (NumericDate, excluded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
    /// Entries per page: [`DEFAULT_PAGE`] when none, at most [`MAX_PAGE`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// The `next` of the page before, to continue after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// What the person looks for in History. The list's members and the search's
/// stand side by side on the wire (`flatten`), and no other member is read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default, deny_unknown_fields)]
#[ts(optional_fields)]
pub struct HistoryQuery {
    #[serde(flatten)]
    pub search: RecordSearch,
    /// What became of it: the person's answer, or what happened instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<HistoryAnswer>,
}

/// What the person looks for in Credentials, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default, deny_unknown_fields)]
#[ts(optional_fields)]
pub struct CredentialQuery {
    #[serde(flatten)]
    pub search: RecordSearch,
    /// Its state now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<CredentialState>,
}

impl From<RecordSearch> for HistoryQuery {
    fn from(search: RecordSearch) -> HistoryQuery {
        HistoryQuery { search, answer: None }
    }
}

impl From<RecordSearch> for CredentialQuery {
    fn from(search: RecordSearch) -> CredentialQuery {
        CredentialQuery { search, state: None }
    }
}

/// What became of what a history entry is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum HistoryAnswer {
    /// The person said yes (a request or a pairing).
    Approved,
    /// The person said no.
    Declined,
    /// Nobody answered in time.
    Expired,
    /// The assistant withdrew it.
    Withdrawn,
    /// The person took a credential back.
    Revoked,
}

impl HistoryAnswer {
    pub const ALL: [HistoryAnswer; 5] = [
        HistoryAnswer::Approved,
        HistoryAnswer::Declined,
        HistoryAnswer::Expired,
        HistoryAnswer::Withdrawn,
        HistoryAnswer::Revoked,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            HistoryAnswer::Approved => "approved",
            HistoryAnswer::Declined => "declined",
            HistoryAnswer::Expired => "expired",
            HistoryAnswer::Withdrawn => "withdrawn",
            HistoryAnswer::Revoked => "revoked",
        }
    }

    /// The history events (`history_words::EVENTS`) that tell of it.
    pub fn events(self) -> &'static [&'static str] {
        match self {
            HistoryAnswer::Approved => &["request_approved", "pairing_approved"],
            HistoryAnswer::Declined => &["request_declined", "pairing_declined"],
            HistoryAnswer::Expired => &["request_expired", "pairing_expired"],
            HistoryAnswer::Withdrawn => &["request_withdrawn"],
            HistoryAnswer::Revoked => &["revoked"],
        }
    }
}

impl std::str::FromStr for HistoryAnswer {
    type Err = QueryError;

    fn from_str(s: &str) -> Result<Self, QueryError> {
        HistoryAnswer::ALL.into_iter().find(|a| a.as_str() == s).ok_or(QueryError::UnknownAnswer)
    }
}

/// A credential's state as a filter names it (`CredentialStatus`, the status API's word).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum CredentialState {
    Active,
    Revoked,
    Expired,
}

impl CredentialState {
    pub const ALL: [CredentialState; 3] = [CredentialState::Active, CredentialState::Revoked, CredentialState::Expired];

    pub fn as_str(self) -> &'static str {
        match self {
            CredentialState::Active => "active",
            CredentialState::Revoked => "revoked",
            CredentialState::Expired => "expired",
        }
    }

    /// Whether a credential in `status` is in this state.
    pub fn holds(self, status: CredentialStatus) -> bool {
        matches!(
            (self, status),
            (CredentialState::Active, CredentialStatus::Active)
                | (CredentialState::Revoked, CredentialStatus::Revoked)
                | (CredentialState::Expired, CredentialStatus::Expired)
        )
    }
}

impl std::str::FromStr for CredentialState {
    type Err = QueryError;

    fn from_str(s: &str) -> Result<Self, QueryError> {
        CredentialState::ALL.into_iter().find(|a| a.as_str() == s).ok_or(QueryError::UnknownState)
    }
}

/// One page of History.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct HistoryPage {
    pub items: Vec<HistoryEntry>,
    /// Where the next page starts; none on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// One page of Credentials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct CredentialPage {
    pub items: Vec<CredentialView>,
    /// Where the next page starts; none on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// What a search can be narrowed to, for the window's choices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FilterChoices {
    pub hosts: Vec<FilterChoice>,
    pub agents: Vec<FilterChoice>,
}

/// One choice: the value a query names, and what the person reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FilterChoice {
    pub value: String,
    pub label: String,
}

/// A query the key app will not run; nothing is read. Each has the person's
/// words (`message_id`, `refusal-query-*` in locales/*/refusals.ftl).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// The cursor is not one this list's pages end with.
    #[error("the cursor is not one a page of this list ended with; start again without it")]
    MalformedCursor,
    #[error("the search text is longer than {MAX_TEXT} characters")]
    TextTooLong,
    #[error("a host or an assistant is named in at most {MAX_NAME} characters")]
    NameTooLong,
    #[error("the search text holds a control character")]
    ControlCharacter,
    #[error("`since` is after `until`")]
    EmptyRange,
    #[error("no such answer; one of approved, declined, expired, withdrawn, revoked")]
    UnknownAnswer,
    #[error("no such state; one of active, revoked, expired")]
    UnknownState,
}

impl QueryError {
    /// Its words in each locale's refusals.ftl.
    pub fn message_id(self) -> &'static str {
        match self {
            QueryError::MalformedCursor => "refusal-query-cursor",
            QueryError::TextTooLong | QueryError::NameTooLong => "refusal-query-too-long",
            QueryError::ControlCharacter => "refusal-query-control",
            QueryError::EmptyRange => "refusal-query-range",
            QueryError::UnknownAnswer | QueryError::UnknownState => "refusal-query-unknown",
        }
    }

    pub const ALL: [QueryError; 7] = [
        QueryError::MalformedCursor,
        QueryError::TextTooLong,
        QueryError::NameTooLong,
        QueryError::ControlCharacter,
        QueryError::EmptyRange,
        QueryError::UnknownAnswer,
        QueryError::UnknownState,
    ];
}

/// A query checked, as the store runs it: every value a bound parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// A `LIKE` pattern (escape character `\`) matching the text, folded ([`fold`]), anywhere.
    pub pattern: Option<String>,
    pub host: Option<String>,
    pub agent: Option<String>,
    pub since: Option<i64>,
    pub until: Option<i64>,
    /// The page size, in range.
    pub limit: i64,
}

/// Where a page of History starts: after the entry with this id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryCursor(pub i64);

/// Where a page of Credentials starts: after the credential issued at
/// `created_at` with this row id (newest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CredentialCursor {
    pub created_at: i64,
    pub row: i64,
}

const HISTORY_TAG: &str = "h1";
const CREDENTIAL_TAG: &str = "c1";
/// Longer than any cursor the key app makes.
const MAX_CURSOR: usize = 64;

impl HistoryCursor {
    pub fn encode(self) -> String {
        format!("{HISTORY_TAG}.{}", self.0)
    }

    pub fn parse(s: &str) -> Result<HistoryCursor, QueryError> {
        match parts(s, HISTORY_TAG)?.as_slice() {
            [id] if *id > 0 => Ok(HistoryCursor(*id)),
            _ => Err(QueryError::MalformedCursor),
        }
    }
}

impl CredentialCursor {
    pub fn encode(self) -> String {
        format!("{CREDENTIAL_TAG}.{}.{}", self.created_at, self.row)
    }

    pub fn parse(s: &str) -> Result<CredentialCursor, QueryError> {
        match parts(s, CREDENTIAL_TAG)?.as_slice() {
            [created_at, row] if *row > 0 => Ok(CredentialCursor { created_at: *created_at, row: *row }),
            _ => Err(QueryError::MalformedCursor),
        }
    }
}

/// The numbers of a cursor `tag.n.n…`: decimal digits only, each an i64.
fn parts(s: &str, tag: &str) -> Result<Vec<i64>, QueryError> {
    if s.len() > MAX_CURSOR {
        return Err(QueryError::MalformedCursor);
    }
    let mut it = s.split('.');
    if it.next() != Some(tag) {
        return Err(QueryError::MalformedCursor);
    }
    it.map(|p| {
        if p.is_empty() || p.len() > 19 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(QueryError::MalformedCursor);
        }
        p.parse().map_err(|_| QueryError::MalformedCursor)
    })
    .collect()
}

impl HistoryQuery {
    /// The checked filter and where the page starts.
    pub fn check(&self) -> Result<(Filter, Option<HistoryCursor>), QueryError> {
        let filter = self.search.filter()?;
        let cursor = self.search.cursor.as_deref().map(HistoryCursor::parse).transpose()?;
        Ok((filter, cursor))
    }
}

impl CredentialQuery {
    pub fn check(&self) -> Result<(Filter, Option<CredentialCursor>), QueryError> {
        let filter = self.search.filter()?;
        let cursor = self.search.cursor.as_deref().map(CredentialCursor::parse).transpose()?;
        Ok((filter, cursor))
    }
}

/// The page size asked for, in range: none is [`DEFAULT_PAGE`], 0 is 1, and
/// anything above [`MAX_PAGE`] is [`MAX_PAGE`] (a caller asking for "all"
/// gets pages, never an unbounded read).
pub fn page_size(limit: Option<u64>) -> i64 {
    let n = limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE);
    i64::try_from(n).unwrap_or(MAX_PAGE as i64)
}

impl RecordSearch {
    /// The search checked, as the store runs it; the cursor is the list's own to read.
    fn filter(&self) -> Result<Filter, QueryError> {
        // An empty or blank field is no filter: a cleared search box lists everything.
        let given = |s: &Option<String>| s.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned);
        let text = given(&self.text);
        if let Some(t) = &text {
            if t.chars().count() > MAX_TEXT {
                return Err(QueryError::TextTooLong);
            }
        }
        let (host, agent) = (given(&self.host), given(&self.agent));
        for s in [&text, &host, &agent].into_iter().flatten() {
            if s.chars().count() > MAX_NAME {
                return Err(QueryError::NameTooLong);
            }
            if s.chars().any(char::is_control) {
                return Err(QueryError::ControlCharacter);
            }
        }
        let (since, until) = (self.since, self.until);
        if let (Some(s), Some(u)) = (since, until) {
            if s > u {
                return Err(QueryError::EmptyRange);
            }
        }
        let pattern = text.map(|t| like_pattern(&fold(&t)));
        Ok(Filter { pattern, host, agent, since, until, limit: page_size(self.limit) })
    }
}

/// `text` anywhere, as an SQL `LIKE` pattern with `\` as its escape: the
/// text's own `%`, `_` and `\` match only themselves.
pub fn like_pattern(text: &str) -> String {
    let mut p = String::with_capacity(text.len() + 2);
    p.push('%');
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_and_anything_else_is_refused() {
        assert_eq!(HistoryCursor::parse(&HistoryCursor(42).encode()), Ok(HistoryCursor(42)));
        let c = CredentialCursor { created_at: 1_792_000_000, row: 7 };
        assert_eq!(CredentialCursor::parse(&c.encode()), Ok(c));
        for bad in [
            "",
            "h1",
            "h1.",
            "h1.0",
            "h1.-3",
            "h1.+3",
            "h1.3.4",
            "h1. 3",
            "h1.99999999999999999999",
            "h2.3",
            "c1.3.4",
            "' OR 1=1 --",
            "h1.3; DROP TABLE history",
            &format!("h1.{}", "1".repeat(100)),
        ] {
            assert_eq!(HistoryCursor::parse(bad), Err(QueryError::MalformedCursor), "{bad:?}");
        }
        for bad in ["h1.3", "c1.3", "c1.3.0", "c1.a.b", "c1.1.2.3"] {
            assert_eq!(CredentialCursor::parse(bad), Err(QueryError::MalformedCursor), "{bad:?}");
        }
    }

    #[test]
    fn a_page_size_is_brought_into_range() {
        assert_eq!(page_size(None), DEFAULT_PAGE as i64);
        assert_eq!(page_size(Some(0)), 1);
        assert_eq!(page_size(Some(7)), 7);
        assert_eq!(page_size(Some(u64::MAX)), MAX_PAGE as i64);
    }

    #[test]
    fn the_texts_wildcards_match_only_themselves() {
        assert_eq!(like_pattern("50%_off\\"), "%50\\%\\_off\\\\%");
    }

    #[test]
    fn a_hostile_query_is_refused_before_anything_is_read() {
        let q = |f: fn(&mut RecordSearch)| {
            let mut q = HistoryQuery::default();
            f(&mut q.search);
            q.check().map(drop)
        };
        assert_eq!(q(|q| q.text = Some("x".repeat(MAX_TEXT + 1))), Err(QueryError::TextTooLong));
        assert_eq!(q(|q| q.host = Some("x".repeat(MAX_NAME + 1))), Err(QueryError::NameTooLong));
        assert_eq!(q(|q| q.agent = Some("Cal\u{0}".into())), Err(QueryError::ControlCharacter));
        assert_eq!(q(|q| (q.since, q.until) = (Some(10), Some(9))), Err(QueryError::EmptyRange));
        assert_eq!(q(|q| q.cursor = Some("c1.1.1".into())), Err(QueryError::MalformedCursor));
        assert_eq!(q(|q| q.text = Some("   ".into())), Ok(()), "a blank box is no filter");
        let oil = RecordSearch { text: Some("  oil ".into()), ..Default::default() };
        let (f, _) = HistoryQuery::from(oil).check().unwrap();
        assert_eq!(f.pattern.as_deref(), Some("%oil%"));
    }

    #[test]
    fn an_unknown_member_or_value_does_not_read_as_a_query() {
        assert!(serde_json::from_str::<HistoryQuery>(r#"{"txt": "oil"}"#).is_err());
        assert!(serde_json::from_str::<HistoryQuery>(r#"{"answer": "maybe"}"#).is_err());
        assert!(serde_json::from_str::<CredentialQuery>(r#"{"limit": -1}"#).is_err());
        let q: CredentialQuery = serde_json::from_str(r#"{"state": "revoked", "limit": 1e3}"#)
            .or_else(|_| serde_json::from_str(r#"{"state": "revoked", "limit": 1000}"#))
            .unwrap();
        assert_eq!((q.state, q.check().unwrap().0.limit), (Some(CredentialState::Revoked), MAX_PAGE as i64));
        assert_eq!("declined".parse(), Ok(HistoryAnswer::Declined));
        assert_eq!("nope".parse::<CredentialState>(), Err(QueryError::UnknownState));
        // One list's own member is unknown to the other's query.
        assert!(serde_json::from_str::<CredentialQuery>(r#"{"answer": "declined"}"#).is_err());
        assert!(serde_json::from_str::<HistoryQuery>(r#"{"state": "revoked"}"#).is_err());
    }

    #[test]
    fn the_shared_search_stands_beside_the_lists_own_members_on_the_wire() {
        let search = RecordSearch {
            text: Some("oil".into()),
            limit: Some(5),
            cursor: Some("h1.3".into()),
            ..Default::default()
        };
        let q = HistoryQuery { search, answer: Some(HistoryAnswer::Declined) };
        let wire = serde_json::json!({"text": "oil", "limit": 5, "cursor": "h1.3", "answer": "declined"});
        assert_eq!(serde_json::to_value(&q).unwrap(), wire);
        assert_eq!(serde_json::from_value::<HistoryQuery>(wire).unwrap(), q);
        let c: CredentialQuery = serde_json::from_str(r#"{"host": "maple-street-auto", "state": "active"}"#).unwrap();
        assert_eq!((c.search.host.as_deref(), c.state), (Some("maple-street-auto"), Some(CredentialState::Active)));
    }
}
