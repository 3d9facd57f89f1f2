import { useState } from "preact/hooks";
import { api } from "../api";
import { useT } from "../i18n";
import { when } from "../format";
import { errorText, useLoad } from "../useLoad";

export function Attestations(props: { lang: string }) {
  const t = useT();
  const { data, error, reload } = useLoad(api.attestations);
  const [jws, setJws] = useState("");
  const [failure, setFailure] = useState<string | null>(null);
  async function add(e: Event) {
    e.preventDefault();
    try {
      await api.addAttestation(jws.trim());
      setJws("");
      setFailure(null);
      reload();
    } catch (err) {
      setFailure(errorText(err));
    }
  }
  return (
    <section aria-labelledby="h-attestations">
      <h1 id="h-attestations">{t("attestations-heading")}</h1>
      {(error || failure) && <p role="alert">{t("error-prefix")} {error ?? failure}</p>}
      {data && data.length === 0 && <p>{t("empty-list")}</p>}
      {data && data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t("col-issuer")}</th>
              <th scope="col">{t("col-expires")}</th>
            </tr>
          </thead>
          <tbody>
            {data.map((a) => (
              <tr key={a.compact}>
                <td class="id">{a.iss}</td>
                <td>{when(a.exp, props.lang)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form class="add" onSubmit={add}>
        <h2>{t("attestations-add")}</h2>
        <label for="attestation-jws">{t("attestations-jws")}</label>
        <textarea id="attestation-jws" required rows={4} value={jws} onInput={(e) => setJws(e.currentTarget.value)} />
        <button type="submit">{t("attestations-add")}</button>
      </form>
    </section>
  );
}
