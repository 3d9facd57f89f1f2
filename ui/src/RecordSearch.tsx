// Searching the person's records (History, Credentials): the filters the
// service's query has (crates/keyapp/src/record_query.rs), and a list the
// service pages, with "Load more". The window never filters or caps a list
// itself: every page is the service's answer to the same query the terminal sends.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api, type FilterChoice, type FilterChoices } from "./api";
import { useT } from "./i18n";
import { errorText } from "./useLoad";

/** What the form narrows to; the screen maps it onto its own query type. */
export type Filters = {
  text?: string;
  host?: string;
  agent?: string;
  /** An answer (History) or a state (Credentials). */
  outcome?: string;
  since?: number;
  until?: number;
};

type Page<T> = { items: T[]; next?: string };

/**
 * A list the service pages: `search` starts again from the first page,
 * `more` appends the next one. An answer to a search since replaced is dropped,
 * so a slow first page never overwrites a newer search's.
 */
export function usePaged<T, Q extends { cursor?: string }>(load: (query: Q) => Promise<Page<T>>, initial: Q) {
  const [items, setItems] = useState<T[] | null>(null);
  const [next, setNext] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const query = useRef<Q>(initial);
  const generation = useRef(0);
  const fetchPage = useCallback(async (q: Q, append: boolean) => {
    const mine = ++generation.current;
    setBusy(true);
    try {
      const page = await load(q);
      if (mine !== generation.current) return;
      setItems((old) => (append && old ? [...old, ...page.items] : page.items));
      setNext(page.next);
      setError(null);
    } catch (e) {
      if (mine === generation.current) setError(errorText(e));
    } finally {
      if (mine === generation.current) setBusy(false);
    }
  }, []);
  const search = useCallback((q: Q) => {
    query.current = q;
    return fetchPage(q, false);
  }, []);
  const more = useCallback(() => {
    if (next === undefined) return Promise.resolve();
    return fetchPage({ ...query.current, cursor: next }, true);
  }, [next]);
  const reload = useCallback(() => fetchPage(query.current, false), []);
  useEffect(() => {
    fetchPage(initial, false);
  }, []);
  return { items, next, error, busy, search, more, reload };
}

/** A day typed in a date field ("2026-12-02") as the instant it starts, in the person's time zone. */
export function dayStart(day: string, after = 0): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return undefined;
  return Math.floor(new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + after).getTime() / 1000);
}

/**
 * The search form: words, host, assistant, what became of it (`outcomes`:
 * value → message id, under the label `outcomeLabel`, "any" being
 * `outcomeLabel`-any) and a range of days; "To" includes its day.
 */
export function RecordSearch(props: {
  name: string;
  outcomeLabel: string;
  outcomes: [string, string][];
  onSearch: (f: Filters) => void;
}) {
  const t = useT();
  const [choices, setChoices] = useState<FilterChoices>({ hosts: [], agents: [] });
  const [text, setText] = useState("");
  const [host, setHost] = useState("");
  const [agent, setAgent] = useState("");
  const [outcome, setOutcome] = useState("");
  const [since, setSince] = useState("");
  const [until, setUntil] = useState("");
  useEffect(() => {
    api
      .filterChoices()
      .then(setChoices)
      .catch(() => {});
  }, []);
  const id = (field: string) => `${props.name}-search-${field}`;
  const outcomes = props.outcomes.map(([value, words]) => ({ value, label: t(words) }));
  const submit = (e: Event) => {
    e.preventDefault();
    props.onSearch({
      text: text.trim() || undefined,
      host: host || undefined,
      agent: agent || undefined,
      outcome: outcome || undefined,
      since: dayStart(since),
      until: dayStart(until, 1),
    });
  };
  const clear = () => {
    setText("");
    setHost("");
    setAgent("");
    setOutcome("");
    setSince("");
    setUntil("");
    props.onSearch({});
  };
  return (
    <form class="record-search" role="search" aria-label={t("search-legend")} onSubmit={submit}>
      <div class="field">
        <label for={id("text")}>{t("search-text")}</label>
        <input id={id("text")} type="search" maxLength={200} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </div>
      <ChoiceField id={id("host")} words="search-host" choices={choices.hosts} value={host} onChange={setHost} />
      <ChoiceField id={id("agent")} words="search-agent" choices={choices.agents} value={agent} onChange={setAgent} />
      <ChoiceField id={id("outcome")} words={props.outcomeLabel} choices={outcomes} value={outcome} onChange={setOutcome} />
      <div class="field">
        <label for={id("since")}>{t("search-since")}</label>
        <input id={id("since")} type="date" value={since} onInput={(e) => setSince(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for={id("until")}>{t("search-until")}</label>
        <input id={id("until")} type="date" value={until} onInput={(e) => setUntil(e.currentTarget.value)} />
      </div>
      <button type="submit">{t("search-submit")}</button>
      <button type="button" onClick={clear}>
        {t("search-clear")}
      </button>
    </form>
  );
}

/**
 * One filter chosen from a list, labelled by the message `words`; its first
 * choice, `words`-any, narrows nothing.
 */
function ChoiceField(props: {
  id: string;
  words: string;
  choices: FilterChoice[];
  value: string;
  onChange: (value: string) => void;
}) {
  const t = useT();
  return (
    <div class="field">
      <label for={props.id}>{t(props.words)}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">{t(`${props.words}-any`)}</option>
        {props.choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** "Load more", while the service says another page follows. */
export function LoadMore(props: { next?: string; busy: boolean; onMore: () => void }) {
  const t = useT();
  if (props.next === undefined) return null;
  return (
    <p>
      <button type="button" class="load-more" disabled={props.busy} onClick={props.onMore}>
        {t("load-more")}
      </button>
    </p>
  );
}
