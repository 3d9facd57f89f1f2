import { useState } from "preact/hooks";
import { api, type UnpairedView } from "../api";
import { useT } from "../i18n";
import { ListScreen } from "../ListScreen";
import { useAction, useLoad } from "../useLoad";
import { UnpairButton, Unpaired } from "./Unpair";

export function Agents() {
  const t = useT();
  const { data, error, reload } = useLoad(api.agents);
  const { failure, run } = useAction(reload);
  const [done, setDone] = useState<UnpairedView | null>(null);
  return (
    <ListScreen
      name="agents"
      data={data}
      error={error ?? failure}
      notice={<Unpaired done={done} />}
      columns={["col-agent", "col-fingerprint", "col-last-request", "col-actions"]}
      row={(a) => (
        <tr key={a.jkt} data-jkt={a.jkt}>
          <td>
            {a.name}
            {/* Its cooldown, said by the service, and the person's way out of it. */}
            {a.cooldown && (
              <p class="warning" data-cooldown={a.jkt}>
                {a.cooldown}{" "}
                <button type="button" onClick={() => void run(() => api.liftCooldown(a.jkt))}>
                  {t("agents-lift-cooldown")}
                </button>
              </p>
            )}
          </td>
          <td class="fingerprint">{a.fingerprint}</td>
          <td>
            {a.last_request ? `${a.last_request} (${t(`kind-${a.last_request_kind}`)})` : t("agents-never")}
          </td>
          <td>
            <UnpairButton
              agent={a}
              onUnpair={(revoke) =>
                run(async () => setDone(await api.unpair(a.jkt, revoke))).then(() => undefined)
              }
            />
          </td>
        </tr>
      )}
    />
  );
}
