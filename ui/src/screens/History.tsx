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
  const { data, error } = useLoad(api.history);
  return (
    <ListScreen
      name="history"
      data={data}
      error={error}
      columns={["col-when", "col-event", "col-subject", "col-detail"]}
      row={(h, i) => (
        <tr key={i}>
          <td>{h.when}</td>
          <td>{h.event}</td>
          <td class="id">{h.subject}</td>
          <td>
            {h.subject.startsWith("rq_") || h.subject.startsWith("pr_") ? <ShownText id={h.subject} /> : h.detail}
            {h.confirmed && <small> ({h.confirmed})</small>}
          </td>
        </tr>
      )}
    />
  );
}
