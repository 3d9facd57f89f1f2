import { api } from "../api";
import { ConfirmButton } from "../Confirm";
import { useT } from "../i18n";
import { ListScreen } from "../ListScreen";
import { useAction, useLoad } from "../useLoad";

export function Credentials() {
  const t = useT();
  const { data, error, reload } = useLoad(api.credentials);
  const { failure, run } = useAction(reload);
  return (
    <ListScreen
      name="credentials"
      data={data}
      error={error ?? failure}
      columns={["col-allows", "col-expires", "col-status", "col-remaining", "col-actions"]}
      row={(c) => (
        <tr key={c.jti} data-jti={c.jti}>
          {/* What it allows, with its host's name, in the service's one line;
              the kind in words beneath. Host ids and the credential's id stay
              behind Details. */}
          <td>
            <span class="sentence" data-summary={c.jti}>
              {c.summary ?? t(`kind-${c.kind}`)}
            </span>
            {c.summary && <small> ({t(`kind-${c.kind}`)})</small>}
            <details>
              <summary>{t("history-details")}</summary>
              <span class="id">{c.jti}</span> {c.aud.length > 0 && <span class="id">{c.aud.join(", ")}</span>}
            </details>
          </td>
          <td>{c.expires}</td>
          <td data-status={c.status} data-publication={c.publication}>
            {t(`status-${c.status}`)}
            {c.publication_note && <small> ({c.publication_note})</small>}
            {c.confirmed && <small> ({c.confirmed})</small>}
          </td>
          <td>{c.remaining ?? ""}</td>
          <td>
            {/* The service decides what can be taken back (`revocable`); an
                active credential it cannot revoke says so, and lapses on its own. */}
            {c.revocable ? (
              <ConfirmButton
                label={t("credentials-revoke")}
                question={t("credentials-revoke-confirm")}
                onConfirm={() => run(() => api.revoke(c.jti)).then(() => undefined)}
              />
            ) : c.status === "active" ? (
              t("credentials-not-revocable")
            ) : null}
          </td>
        </tr>
      )}
    />
  );
}
