import { api } from "../api";
import { useT } from "../i18n";
import { ListScreen } from "../ListScreen";
import { useChanges } from "../useChanges";
import { useLoad } from "../useLoad";

export function Requests(props: { notice?: string }) {
  const t = useT();
  const { data, error, reload } = useLoad(api.pending);
  // Reloaded on every change the service reports, not on a timer.
  useChanges(reload, true, []);
  return (
    <ListScreen
      name="requests"
      data={data}
      error={error}
      notice={props.notice === "no-tray" && <p role="note" class="notice" id="no-tray">{t("no-tray")}</p>}
      columns={["col-asked", "col-agent", "col-fingerprint", "col-age", "col-expires", "col-actions"]}
      row={(r) => (
        <tr key={r.id}>
          {/* What is asked, in the service's one line; the kind only for a
              request stored before the key app kept that line. */}
          <td data-summary={r.id}>{r.summary || t(`kind-${r.kind}`)}</td>
          <td>
            {r.agent_name}
            {r.churn && (
              <p class="warning" data-churn={r.id}>
                {r.churn}
              </p>
            )}
          </td>
          <td class="fingerprint">{r.fingerprint}</td>
          <td>{r.created}</td>
          <td>{r.expires}</td>
          <td>
            {/* The consent window, never this one turned into it. */}
            <button type="button" data-review={r.id} onClick={() => void api.openConsent(r.id)}>
              {t("requests-open")}
            </button>
          </td>
        </tr>
      )}
    />
  );
}
