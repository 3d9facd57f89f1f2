import { useEffect } from "preact/hooks";
import { api } from "../api";
import { useT } from "../i18n";
import { when } from "../format";
import { useLoad } from "../useLoad";

export function Requests(props: { lang: string; notice?: string }) {
  const t = useT();
  const { data, error, reload } = useLoad(api.pending);
  useEffect(() => {
    const timer = setInterval(reload, 2000);
    return () => clearInterval(timer);
  }, []);
  return (
    <section aria-labelledby="h-requests">
      <h1 id="h-requests">{t("requests-heading")}</h1>
      {props.notice === "no-tray" && <p role="note" class="notice" id="no-tray">{t("no-tray")}</p>}
      {error && <p role="alert">{t("error-prefix")} {error}</p>}
      {data && data.length === 0 && <p>{t("empty-list")}</p>}
      {data && data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t("col-kind")}</th>
              <th scope="col">{t("col-agent")}</th>
              <th scope="col">{t("col-fingerprint")}</th>
              <th scope="col">{t("col-age")}</th>
              <th scope="col">{t("col-expires")}</th>
              <th scope="col">{t("col-actions")}</th>
            </tr>
          </thead>
          <tbody>
            {data.map((r) => (
              <tr key={r.id}>
                <td>{t(`kind-${r.kind}`)}</td>
                <td>{r.agent_name}</td>
                <td class="fingerprint">{r.fingerprint}</td>
                <td>{when(r.created_at, props.lang)}</td>
                <td>{when(r.expires_at, props.lang)}</td>
                <td>
                  <a href={`#/consent/${encodeURIComponent(r.id)}`}>{t("requests-open")}</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
