import { useState } from "preact/hooks";
import { api } from "../api";
import { ConfirmButton } from "../Confirm";
import { useT } from "../i18n";
import { when } from "../format";
import { errorText, useLoad } from "../useLoad";

export function Credentials(props: { lang: string }) {
  const t = useT();
  const { data, error, reload } = useLoad(api.credentials);
  const [failure, setFailure] = useState<string | null>(null);
  return (
    <section aria-labelledby="h-credentials">
      <h1 id="h-credentials">{t("credentials-heading")}</h1>
      {(error || failure) && <p role="alert">{t("error-prefix")} {error ?? failure}</p>}
      {data && data.length === 0 && <p>{t("empty-list")}</p>}
      {data && data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t("col-kind")}</th>
              <th scope="col">{t("col-audience")}</th>
              <th scope="col">{t("col-expires")}</th>
              <th scope="col">{t("col-status")}</th>
              <th scope="col">{t("col-remaining")}</th>
              <th scope="col">{t("col-actions")}</th>
            </tr>
          </thead>
          <tbody>
            {data.map((c) => (
              <tr key={c.jti} data-jti={c.jti}>
                <td>{t(`kind-${c.kind}`)}</td>
                <td>{c.aud.join(", ")}</td>
                <td>{when(c.exp, props.lang)}</td>
                <td data-status={c.status} data-publication={c.publication}>
                  {t(`status-${c.status}`)}
                  {c.publication_note && <small> ({c.publication_note})</small>}
                </td>
                <td>{c.remaining ?? ""}</td>
                <td>
                  {c.kind === "rule" ? (
                    t("credentials-not-revocable")
                  ) : c.status === "active" ? (
                    <ConfirmButton
                      label={t("credentials-revoke")}
                      question={t("credentials-revoke-confirm")}
                      onConfirm={async () => {
                        try {
                          await api.revoke(c.jti);
                          setFailure(null);
                        } catch (e) {
                          setFailure(errorText(e));
                        }
                        reload();
                      }}
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
