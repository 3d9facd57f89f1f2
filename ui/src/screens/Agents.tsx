import { api } from "../api";
import { ConfirmButton } from "../Confirm";
import { useT } from "../i18n";
import { when } from "../format";
import { useLoad } from "../useLoad";

export function Agents(props: { lang: string }) {
  const t = useT();
  const { data, error, reload } = useLoad(api.agents);
  return (
    <section aria-labelledby="h-agents">
      <h1 id="h-agents">{t("agents-heading")}</h1>
      {error && <p role="alert">{t("error-prefix")} {error}</p>}
      {data && data.length === 0 && <p>{t("empty-list")}</p>}
      {data && data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t("col-agent")}</th>
              <th scope="col">{t("col-fingerprint")}</th>
              <th scope="col">{t("col-last-request")}</th>
              <th scope="col">{t("col-actions")}</th>
            </tr>
          </thead>
          <tbody>
            {data.map((a) => (
              <tr key={a.jkt}>
                <td>{a.name}</td>
                <td class="fingerprint">{a.fingerprint}</td>
                <td>
                  {a.last_request_at
                    ? `${when(a.last_request_at, props.lang)} (${t(`kind-${a.last_request_kind}`)})`
                    : t("agents-never")}
                </td>
                <td>
                  <ConfirmButton
                    label={t("agents-unpair")}
                    question={t("agents-unpair-confirm")}
                    onConfirm={async () => {
                      await api.unpair(a.jkt);
                      reload();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
