//! History and Credentials searched and paged (`record_query`): the one
//! function each list has, which the window, the control socket and the
//! terminal all call, so they find the same entries on the same pages.

use super::{Records, ServiceError};
use crate::record_query::{
    CredentialPage, CredentialQuery, FilterChoice, FilterChoices, HistoryCursor, HistoryPage, HistoryQuery,
};
use crate::store::{credentials, history};

impl Records<'_> {
    /// The hosts and assistants a search can be narrowed to: hosts by their
    /// name as the consent text showed it (the domain the key app verified
    /// them at beside it where two share a name, or alone where no name is
    /// known), the filter's value their id; assistants by the name they
    /// paired under (inert, as everywhere the person reads it).
    pub async fn filter_choices(self) -> Result<FilterChoices, ServiceError> {
        let (hosts, agents) = history::filter_choices(self.svc.store()).await?;
        let named = self.svc.sealed_agent_name_map().await?;
        let agents: Vec<(String, String)> =
            agents.into_iter().filter(|(jkt, name)| named.get(jkt) == Some(name)).collect();
        let hosts: Vec<history::HostChoice> = hosts
            .into_iter()
            .filter(|h| {
                self.svc.binding_row_holds(&h.host_id, &h.domain, &h.basis, h.name.as_deref(), h.seal.as_deref())
            })
            .collect();
        let named = |h: &history::HostChoice| h.name.as_deref().map(schcp_consent::inert::inert);
        let labels: Vec<Option<String>> = hosts.iter().map(named).collect();
        let shared = |name: &str| labels.iter().flatten().filter(|n| n.as_str() == name).count() > 1;
        let host_choice = |(h, name): (history::HostChoice, Option<String>)| {
            let label = match name {
                Some(n) if shared(&n) => {
                    self.svc.words_with("host-named", [("name", n.into()), ("domain", h.domain.into())])
                }
                Some(n) => n,
                None => h.domain,
            };
            FilterChoice { value: h.host_id, label }
        };
        Ok(FilterChoices {
            hosts: hosts.into_iter().zip(labels.clone()).map(host_choice).collect(),
            agents: agents
                .into_iter()
                .map(|(value, name)| FilterChoice { value, label: schcp_consent::inert::inert(&name) })
                .collect(),
        })
    }

    /// One page of History, newest first: what `query` finds after its cursor.
    pub async fn history_page(self, query: &HistoryQuery) -> Result<HistoryPage, ServiceError> {
        let (filter, cursor) = query.check()?;
        let events = query.answer.map(|a| a.events());
        let mut found = history::search(self.svc.store(), &filter, events, cursor).await?;
        let next = page_end(&mut found, filter.limit).map(|(id, _)| HistoryCursor(*id).encode());
        let mut found: Vec<_> = found.into_iter().map(|(_, h)| h).collect();
        self.svc.sealed_history(&mut found).await?;
        let items = found.into_iter().map(|h| self.svc.history_entry(h)).collect();
        Ok(HistoryPage { items, next })
    }

    /// One page of the person's credentials, newest first, with their status
    /// now and what remains of each shared limit (as `credentials`).
    pub async fn credential_page(self, query: &CredentialQuery) -> Result<CredentialPage, ServiceError> {
        let (filter, cursor) = query.check()?;
        let now = self.svc.now();
        let mut found = credentials::search(self.svc.store(), &filter, query.state, cursor, now).await?;
        let next = page_end(&mut found, filter.limit).map(|(c, _)| c.encode());
        let items = self.svc.records().views(found.into_iter().map(|(_, c)| c).collect(), None, now).await?;
        Ok(CredentialPage { items, next })
    }
}

/// Cuts `found` (the store's `limit + 1` rows) to the page, and returns the
/// page's last row when another page follows it.
fn page_end<T>(found: &mut Vec<T>, limit: i64) -> Option<&T> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    if found.len() > limit {
        found.truncate(limit);
        found.last()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::service_at;
    use super::*;
    use crate::kind::RequestKind;
    use crate::record_query::{CredentialState, HistoryAnswer, QueryError, RecordSearch, MAX_PAGE};
    use crate::service::Service;
    use crate::store::requests::{self, NewRequest};
    use crate::store::testing;
    use std::collections::BTreeSet;

    const T0: i64 = 1_792_000_000;

    async fn agent(svc: &Service, jkt: &str, name: &str, fingerprint: &str) {
        testing::paired_agent(svc.store(), jkt, name, fingerprint).await;
    }

    /// A request by `agent` at `T0 + n` for one host, with its summary; its
    /// `request_created` entry is written with it.
    async fn request(svc: &Service, n: i64, id: &str, agent: &str, host: (&str, &str), summary: &str) {
        let hosts = serde_json::json!([{"host_id": host.0, "domain": host.1, "basis": "own_domain",
                                        "key_thumbprints": []}])
        .to_string();
        let new = NewRequest {
            request_id: id,
            agent_jkt: agent,
            kind: "closed_mandate",
            idempotency_key: id,
            body_sha256: "h",
            consent_text: "text",
            input: "{}",
            created_at: T0 + n,
            expires_at: T0 + n + 600,
            hosts: &hosts,
            attention: "[]",
            terms: None,
            summary,
            seal: "",
        };
        // Sealed as the pipeline seals it: the records screens show only a
        // summary whose request holds its seal.
        let seal = svc.seal_request(&new.sealed_fields());
        assert_eq!(
            requests::insert(svc.store(), &NewRequest { seal: &seal, ..new }).await.unwrap(),
            requests::Inserted::Stored
        );
    }

    async fn entry(svc: &Service, n: i64, event: &str, subject: &str, detail: &str) {
        let mut tx = svc.store().begin().await.unwrap();
        history::append(&mut tx, svc.store().history_seal(), T0 + n, event, subject, detail, None).await.unwrap();
        tx.commit().await.unwrap();
    }

    /// Two assistants, three requests at two hosts, their answers, a
    /// credential issued for one, and a contact.
    async fn records(svc: &Service) {
        agent(svc, "jkt-cal", "Calendar Pal", "AAAA-BBBB").await;
        agent(svc, "jkt-oil", "Oil Bot", "CCCC-DDDD").await;
        request(svc, 1, "rq_1", "jkt-cal", ("maple-street-auto", "maple.example"), "Synthetic oil change at Maple")
            .await;
        request(svc, 2, "rq_2", "jkt-oil", ("smile-dental", "smile.example"), "Cleaning at Smile Dental").await;
        request(svc, 3, "rq_3", "jkt-cal", ("maple-street-auto", "maple.example"), "Tyre swap, 50%_off").await;
        entry(svc, 10, "request_approved", "rq_1", "closed_mandate").await;
        let mut m1 = testing::credential(10, "m-1", RequestKind::ClosedMandate, "jkt-cal");
        m1.request_id = Some("rq_1".into());
        svc.record_sealed(m1).await.unwrap();
        entry(svc, 10, "credential_issued", "m-1", "closed_mandate").await;
        entry(svc, 20, "request_declined", "rq_2", "closed_mandate").await;
        entry(svc, 30, "request_expired", "rq_3", "closed_mandate").await;
        entry(svc, 40, "contact_added", "urn:x", "Ellis O'Brien").await;
    }

    async fn found(svc: &Service, query: HistoryQuery) -> Vec<(String, String)> {
        let page = svc.records().history_page(&query).await.unwrap();
        page.items.into_iter().map(|h| (h.event, h.subject)).collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
    }

    #[tokio::test]
    async fn hosts_are_offered_by_name_with_their_domain_where_two_share_one() {
        use crate::host_binding::{Basis, HostBinding};
        let (svc, _clock, _dir) = service_at(T0 + 100).await;
        let place = |id: &str, domain: &str, name: Option<&str>| HostBinding {
            host_id: id.into(),
            domain: domain.into(),
            basis: Basis::OwnDomain,
            key_thumbprints: Vec::new(),
            name: name.map(str::to_owned),
        };
        let mut tx = svc.store().begin().await.unwrap();
        for b in [
            place("smile-dental", "smile.example", Some("Smile Dental")),
            place("maple-street-auto", "maple.example", Some("Maple Street Auto")),
            place("maple-auto-2", "maple-two.example", Some("Maple Street Auto")),
            place("elm-garage", "elm.example", None),
            // Control characters in a host's own name are made inert, as in the consent text.
            place("ctl", "ctl.example", Some("Bad\u{202E}Name")),
        ] {
            svc.bind_all(&mut tx, std::slice::from_ref(&b), T0).await.unwrap();
        }
        tx.commit().await.unwrap();
        let hosts = svc.records().filter_choices().await.unwrap().hosts;
        let got: Vec<(&str, &str)> = hosts.iter().map(|c| (c.value.as_str(), c.label.as_str())).collect();
        let bad = schcp_consent::inert::inert("Bad\u{202E}Name");
        assert_ne!(bad, "Bad\u{202E}Name");
        assert_eq!(
            got,
            [
                ("ctl", bad.as_str()),
                ("elm-garage", "elm.example"),
                ("maple-auto-2", "Maple Street Auto (maple-two.example)"),
                ("maple-street-auto", "Maple Street Auto (maple.example)"),
                ("smile-dental", "Smile Dental"),
            ]
        );
    }

    #[tokio::test]
    async fn history_is_filtered_by_answer_assistant_host_date_and_words() {
        let (svc, _clock, _dir) = service_at(T0 + 100).await;
        records(&svc).await;
        let all = found(&svc, HistoryQuery::default()).await;
        assert_eq!(all.len(), 8, "{all:?}");
        assert_eq!(all[0], ("contact_added".into(), "urn:x".into()), "newest first");

        let declined = HistoryQuery { answer: Some(HistoryAnswer::Declined), ..Default::default() };
        assert_eq!(found(&svc, declined).await, pairs(&[("request_declined", "rq_2")]));
        let expired = HistoryQuery { answer: Some(HistoryAnswer::Expired), ..Default::default() };
        assert_eq!(found(&svc, expired).await, pairs(&[("request_expired", "rq_3")]));

        // An assistant by its name (any case), its key or its fingerprint;
        // a credential's entries are its assistant's too.
        let cal = pairs(&[
            ("request_expired", "rq_3"),
            ("credential_issued", "m-1"),
            ("request_approved", "rq_1"),
            ("request_created", "rq_3"),
            ("request_created", "rq_1"),
        ]);
        for name in ["calendar pal", "jkt-cal", "AAAA-BBBB"] {
            let q = HistoryQuery::from(RecordSearch { agent: Some(name.into()), ..Default::default() });
            assert_eq!(found(&svc, q).await, cal, "{name}");
        }
        assert!(found(&svc, HistoryQuery::from(RecordSearch { agent: Some("Calendar".into()), ..Default::default() }))
            .await
            .is_empty());

        // A host by its id or the domain it was verified at.
        let smile = pairs(&[("request_declined", "rq_2"), ("request_created", "rq_2")]);
        for host in ["smile-dental", "SMILE.example"] {
            let q = HistoryQuery::from(RecordSearch { host: Some(host.into()), ..Default::default() });
            assert_eq!(found(&svc, q).await, smile, "{host}");
        }
        // A credential's entry names its hosts by its aud.
        let maple = HistoryQuery::from(RecordSearch { host: Some("maple-street-auto".into()), ..Default::default() });
        assert!(found(&svc, maple).await.contains(&("credential_issued".into(), "m-1".into())));

        // Dates: from included, until excluded.
        let window =
            HistoryQuery::from(RecordSearch { since: Some(T0 + 10), until: Some(T0 + 30), ..Default::default() });
        let got: BTreeSet<_> = found(&svc, window).await.into_iter().map(|(e, _)| e).collect();
        assert_eq!(got, ["credential_issued", "request_approved", "request_declined"].map(String::from).into());

        // Words: the summary (any case), the assistant's name, a contact's name, a host's domain.
        let oil = HistoryQuery::from(RecordSearch { text: Some("OIL".into()), ..Default::default() });
        let subjects: BTreeSet<_> = found(&svc, oil).await.into_iter().map(|(_, s)| s).collect();
        assert_eq!(subjects, ["rq_1", "m-1", "rq_2"].map(String::from).into(), "rq_2 by Oil Bot's name");
        let ellis = HistoryQuery::from(RecordSearch { text: Some("o'brien".into()), ..Default::default() });
        assert_eq!(found(&svc, ellis).await, pairs(&[("contact_added", "urn:x")]));
        let domain = HistoryQuery::from(RecordSearch { text: Some("smile.exa".into()), ..Default::default() });
        assert_eq!(found(&svc, domain).await.len(), 2);
        // A kind is a code, not the person's words: it finds nothing.
        assert!(found(
            &svc,
            HistoryQuery::from(RecordSearch { text: Some("closed_mandate".into()), ..Default::default() })
        )
        .await
        .is_empty());

        // Filters together narrow further.
        let both = HistoryQuery {
            search: RecordSearch { agent: Some("Oil Bot".into()), ..Default::default() },
            answer: Some(HistoryAnswer::Approved),
        };
        assert!(found(&svc, both).await.is_empty());
    }

    #[tokio::test]
    async fn search_text_is_only_text() {
        let (svc, _clock, _dir) = service_at(T0 + 100).await;
        records(&svc).await;
        let before = found(&svc, HistoryQuery::default()).await;
        for hostile in
            ["'; DROP TABLE history; --", "\" OR 1=1 --", "%' OR '1'='1", ") UNION SELECT * FROM credentials --", "\\"]
        {
            let q = HistoryQuery::from(RecordSearch {
                text: Some(hostile.into()),
                host: Some(hostile.into()),
                ..Default::default()
            });
            assert!(found(&svc, q).await.is_empty(), "{hostile}");
            let q = CredentialQuery::from(RecordSearch {
                text: Some(hostile.into()),
                agent: Some(hostile.into()),
                ..Default::default()
            });
            assert!(svc.records().credential_page(&q).await.unwrap().items.is_empty(), "{hostile}");
        }
        assert_eq!(found(&svc, HistoryQuery::default()).await, before, "nothing changed");
        // `%` and `_` match only themselves.
        let pct = HistoryQuery::from(RecordSearch { text: Some("50%_".into()), ..Default::default() });
        assert_eq!(found(&svc, pct).await.iter().map(|(_, s)| s.as_str()).collect::<BTreeSet<_>>(), ["rq_3"].into());
        for wildcard in ["%", "_"] {
            let q = HistoryQuery::from(RecordSearch { text: Some(wildcard.into()), ..Default::default() });
            assert!(found(&svc, q).await.iter().all(|(_, s)| s == "rq_3"), "{wildcard}");
        }
    }

    #[tokio::test]
    async fn pages_follow_each_other_without_gaps_or_repeats() {
        let (svc, _clock, _dir) = service_at(T0 + 100).await;
        let mut tx = svc.store().begin().await.unwrap();
        // Several entries in one second: the order is the entries' own.
        for i in 0..23 {
            history::append(
                &mut tx,
                svc.store().history_seal(),
                T0 + i / 4,
                "contact_added",
                &format!("urn:{i}"),
                "x",
                None,
            )
            .await
            .unwrap();
        }
        tx.commit().await.unwrap();
        let mut seen = Vec::new();
        let mut query = HistoryQuery::from(RecordSearch { limit: Some(5), ..Default::default() });
        let mut pages = 0;
        loop {
            let page = svc.records().history_page(&query).await.unwrap();
            assert!(page.items.len() <= 5);
            seen.extend(page.items.into_iter().map(|h| h.subject));
            pages += 1;
            if pages == 2 {
                // Written while the person pages: it is newer than every page, so
                // it neither repeats an entry nor hides one.
                entry(&svc, 50, "contact_added", "urn:new", "x").await;
            }
            match page.next {
                Some(next) => query.search.cursor = Some(next),
                None => break,
            }
        }
        let expected: Vec<String> = (0..23).rev().map(|i| format!("urn:{i}")).collect();
        assert_eq!((seen, pages), (expected, 5));
        // A page that ends exactly at the last entry says so.
        let all = svc
            .records()
            .history_page(&HistoryQuery::from(RecordSearch { limit: Some(24), ..Default::default() }))
            .await
            .unwrap();
        assert_eq!((all.items.len(), all.next), (24, None));
    }

    #[tokio::test]
    async fn a_huge_page_is_brought_down_and_a_forged_cursor_is_refused() {
        let (svc, _clock, _dir) = service_at(T0 + 100).await;
        let mut tx = svc.store().begin().await.unwrap();
        for i in 0..(MAX_PAGE as i64 + 3) {
            history::append(&mut tx, svc.store().history_seal(), T0, "contact_added", &format!("urn:{i}"), "x", None)
                .await
                .unwrap();
        }
        tx.commit().await.unwrap();
        let page = svc
            .records()
            .history_page(&HistoryQuery::from(RecordSearch { limit: Some(u64::MAX), ..Default::default() }))
            .await
            .unwrap();
        assert_eq!(page.items.len() as u64, MAX_PAGE);
        let rest = svc
            .records()
            .history_page(&HistoryQuery::from(RecordSearch { cursor: page.next, ..Default::default() }))
            .await
            .unwrap();
        assert_eq!((rest.items.len(), rest.next), (3, None));

        for bad in ["h1.abc", "c1.1.1", "h1.0", "", "h1.1; DELETE FROM history"] {
            let q = HistoryQuery::from(RecordSearch { cursor: Some(bad.into()), ..Default::default() });
            let e = svc.records().history_page(&q).await.expect_err(bad);
            assert!(matches!(e, ServiceError::Query(QueryError::MalformedCursor)), "{bad}: {e:?}");
            assert_eq!(e.to_api().reason, schcp::refusal::Reason::BadQuery);
            let words = crate::ui_words::refusal(schcp_consent::Language::French, &e);
            assert!(words.contains("relancez la recherche"), "{words}");
        }
        for bad in ["c1.abc.1", "h1.5", "c1.1", "c1.1.0", "", "c1.1.1 OR 1=1"] {
            let q = CredentialQuery::from(RecordSearch { cursor: Some(bad.into()), ..Default::default() });
            let e = svc.records().credential_page(&q).await.expect_err(bad);
            assert!(matches!(e, ServiceError::Query(QueryError::MalformedCursor)), "{bad}: {e:?}");
        }
        let long = HistoryQuery::from(RecordSearch { text: Some("x".repeat(10_000)), ..Default::default() });
        assert!(matches!(svc.records().history_page(&long).await, Err(ServiceError::Query(QueryError::TextTooLong))));
    }

    /// A summary is taken from its request's row as the seal was checked on
    /// it, never from what a listing joined: words read a moment earlier (or
    /// from a second row another program made for the same id) are not shown.
    #[tokio::test]
    async fn a_summary_shown_is_the_one_its_seal_was_checked_on() {
        let (svc, _clock, _dir) = service_at(T0).await;
        records(&svc).await;
        // What the history's joins read: another request's words, and the
        // request an entry is about given as another.
        let entry = |event: &str, subject: &str, summary: &str, of: &str| crate::store::history::HistoryRecord {
            id: 1,
            seal: None,
            at: T0,
            event: event.into(),
            subject: subject.into(),
            detail: "closed_mandate".into(),
            confirmed_by: None,
            summary: Some(summary.into()),
            summary_of: Some(of.into()),
            agent_name: None,
            agent_jkt: Some("jkt-a".into()),
        };
        let mut rows = [
            entry("request_approved", "rq_1", "One free car wash", "rq_2"),
            entry("request_approved", "rq_nobody", "Cleaning at Smile Dental", "rq_1"),
            entry("contact_added", "urn:x", "anything", "rq_1"),
        ];
        svc.sealed_history(&mut rows).await.unwrap();
        assert_eq!(rows[0].summary.as_deref(), Some("Synthetic oil change at Maple"), "the sealed words");
        assert_eq!(rows[0].summary_of.as_deref(), Some("rq_1"), "of the request the entry is about");
        assert_eq!((rows[1].summary.as_ref(), rows[1].agent_jkt.as_ref()), (None, None), "no sealed request");
        assert_eq!(rows[2].summary, None, "an entry about no request shows none");
    }

    #[tokio::test]
    async fn credentials_are_filtered_by_state_host_assistant_date_and_words_and_paged() {
        let (svc, clock, _dir) = service_at(T0).await;
        records(&svc).await;
        agent(&svc, "jkt-z", "Zed", "EEEE-FFFF").await;
        // Issued in the same second, several of them: paging orders by row too.
        for i in 0..7 {
            let mut c = testing::credential(20 + i / 3, &format!("z-{i}"), RequestKind::Mandate, "jkt-z");
            c.aud = vec!["smile-dental".into()];
            if i == 6 {
                c.exp = T0 + 50;
            }
            svc.record_sealed(c).await.unwrap();
        }
        svc.records().revoke("z-0").await.unwrap();
        clock.store(T0 + 60, std::sync::atomic::Ordering::SeqCst);

        let ids = |p: CredentialPage| p.items.into_iter().map(|c| c.jti).collect::<Vec<_>>();
        let all = ids(svc.records().credential_page(&CredentialQuery::default()).await.unwrap());
        assert_eq!(all, ["z-6", "z-5", "z-4", "z-3", "z-2", "z-1", "z-0", "m-1"], "newest first");

        let state = |s| CredentialQuery { state: Some(s), ..Default::default() };
        assert_eq!(ids(svc.records().credential_page(&state(CredentialState::Revoked)).await.unwrap()), ["z-0"]);
        assert_eq!(ids(svc.records().credential_page(&state(CredentialState::Expired)).await.unwrap()), ["z-6"]);
        let active = ids(svc.records().credential_page(&state(CredentialState::Active)).await.unwrap());
        assert_eq!(active, ["z-5", "z-4", "z-3", "z-2", "z-1", "m-1"]);

        let maple =
            CredentialQuery::from(RecordSearch { host: Some("maple-street-auto".into()), ..Default::default() });
        assert_eq!(ids(svc.records().credential_page(&maple).await.unwrap()), ["m-1"]);
        let cal = CredentialQuery::from(RecordSearch { agent: Some("CALENDAR PAL".into()), ..Default::default() });
        assert_eq!(ids(svc.records().credential_page(&cal).await.unwrap()), ["m-1"]);
        let words = CredentialQuery::from(RecordSearch { text: Some("synthetic".into()), ..Default::default() });
        let page = svc.records().credential_page(&words).await.unwrap();
        assert_eq!(page.items[0].summary.as_deref(), Some("Synthetic oil change at Maple"));
        assert_eq!(ids(page), ["m-1"]);
        let dated =
            CredentialQuery::from(RecordSearch { since: Some(T0 + 21), until: Some(T0 + 22), ..Default::default() });
        assert_eq!(ids(svc.records().credential_page(&dated).await.unwrap()), ["z-5", "z-4", "z-3"]);

        let mut seen = Vec::new();
        let mut q = CredentialQuery::from(RecordSearch { limit: Some(3), ..Default::default() });
        loop {
            let page = svc.records().credential_page(&q).await.unwrap();
            seen.extend(page.items.into_iter().map(|c| c.jti));
            match page.next {
                Some(next) => q.search.cursor = Some(next),
                None => break,
            }
        }
        assert_eq!(seen, all, "pages of 3, tied seconds included, without gaps or repeats");
    }
}
