import { useState } from "preact/hooks";
import { api, type HistoryAnswer, type HistoryQuery } from "../api";
import { ExportForm } from "../ExportForm";
import { useT } from "../i18n";
import { ListScreen } from "../ListScreen";
import { type Filters, LoadMore, RecordSearch, usePaged } from "../RecordSearch";
import { errorText } from "../useLoad";

/** What became of an entry, as the search offers it: the query's value and its words. */
const ANSWERS: [HistoryAnswer, string][] = [
  ["approved", "search-answer-approved"],
  ["declined", "search-answer-declined"],
  ["expired", "search-answer-expired"],
  ["withdrawn", "search-answer-withdrawn"],
  ["revoked", "search-answer-revoked"],
];

function historyQuery(f: Filters): HistoryQuery {
  return {
    text: f.text,
    host: f.host,
    agent: f.agent,
    answer: f.outcome as HistoryAnswer | undefined,
    since: f.since,
    until: f.until,
  };
}

/** The exact text shown for a request, fetched from the service when asked. */
function ShownText(props: { id: string }) {
  const t = useT();
  const [text, setText] = useState<string | null>(null);
  if (text === null) {
    return (
      <button
        type="button"
        onClick={() =>
          api
            .prompt(props.id)
            .then((p) => setText(p.consent_text))
            .catch((e) => setText(errorText(e)))
        }
      >
        {t("history-show-text")}
      </button>
    );
  }
  return (
    <div>
      <button type="button" onClick={() => setText(null)}>{t("history-hide-text")}</button>
      <pre class="consent-text">{text}</pre>
    </div>
  );
}

export function History() {
  const t = useT();
  const list = usePaged(api.searchHistory, {} as HistoryQuery);
  const [filtered, setFiltered] = useState(false);
  const search = (f: Filters) => {
    setFiltered(Object.values(f).some((v) => v !== undefined));
    list.search(historyQuery(f));
  };
  return (
    <ListScreen
      name="history"
      data={list.items}
      error={list.error}
      empty={filtered ? "search-none" : undefined}
      notice={
        <RecordSearch
          name="history"
          outcomeLabel="search-answer"
          outcomes={ANSWERS}
          onSearch={search}
        />
      }
      columns={["col-when", "col-what"]}
      row={(h, i) => (
        <tr key={i}>
          <td>{h.when}</td>
          <td>
            <span class="sentence">{h.sentence}</span>
            {h.confirmed && <small> ({h.confirmed})</small>}
            {/* The machinery, for whoever needs it: never in the sentence itself,
                and none for an entry the key app cannot vouch for. */}
            {h.event && (
            <details>
              <summary>{t("history-details")}</summary>
              <dl>
                <dt>{t("col-event")}</dt>
                <dd class="id">{h.event}</dd>
                <dt>{t("col-subject")}</dt>
                <dd class="id">{h.subject}</dd>
                {h.detail && (
                  <>
                    <dt>{t("col-detail")}</dt>
                    <dd>{h.detail}</dd>
                  </>
                )}
              </dl>
              {(h.subject.startsWith("rq_") || h.subject.startsWith("pr_")) && <ShownText id={h.subject} />}
            </details>
            )}
          </td>
        </tr>
      )}
    >
      <LoadMore next={list.next} busy={list.busy} onMore={list.more} />
      <ExportForm />
    </ListScreen>
  );
}
