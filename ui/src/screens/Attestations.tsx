import { useState } from "preact/hooks";
import { api } from "../api";
import { useT } from "../i18n";
import { ListScreen } from "../ListScreen";
import { useAction, useLoad } from "../useLoad";

export function Attestations() {
  const t = useT();
  const { data, error, reload } = useLoad(api.attestations);
  const [jws, setJws] = useState("");
  const { failure, run } = useAction(reload);
  async function add(e: Event) {
    e.preventDefault();
    if (await run(() => api.addAttestation(jws.trim()))) setJws("");
  }
  return (
    <ListScreen
      name="attestations"
      data={data}
      error={error ?? failure}
      columns={["col-issuer", "col-expires"]}
      row={(a) => (
        <tr key={a.compact}>
          <td class="id">{a.iss}</td>
          <td>{a.expires}</td>
        </tr>
      )}
    >
      <form class="add" onSubmit={add}>
        <h2>{t("attestations-add")}</h2>
        <label for="attestation-jws">{t("attestations-code")}</label>
        <p class="hint" id="attestation-jws-hint">{t("attestations-code-hint")}</p>
        <textarea id="attestation-jws" aria-describedby="attestation-jws-hint" required rows={4} value={jws} onInput={(e) => setJws(e.currentTarget.value)} />
        <button type="submit">{t("attestations-add")}</button>
      </form>
    </ListScreen>
  );
}
