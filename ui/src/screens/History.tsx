import { useState } from "preact/hooks";
import { api } from "../api";
import { useT } from "../i18n";
import { ListScreen } from "../ListScreen";
import { errorText, useLoad } from "../useLoad";

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
  const { data, error } = useLoad(api.history);
  return (
    <ListScreen
      name="history"
      data={data}
      error={error}
      columns={["col-when", "col-what"]}
      row={(h, i) => (
        <tr key={i}>
          <td>{h.when}</td>
          <td>
            <span class="sentence">{h.sentence}</span>
            {h.confirmed && <small> ({h.confirmed})</small>}
            {/* The machinery, for whoever needs it: never in the sentence itself. */}
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
          </td>
        </tr>
      )}
    />
  );
}
