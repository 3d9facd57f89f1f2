import { api } from "../api";
import { ConfirmButton } from "../Confirm";
import { useT } from "../i18n";
import { ListScreen } from "../ListScreen";
import { useAction, useLoad } from "../useLoad";

export function Agents() {
  const t = useT();
  const { data, error, reload } = useLoad(api.agents);
  const { failure, run } = useAction(reload);
  return (
    <ListScreen
      name="agents"
      data={data}
      error={error ?? failure}
      columns={["col-agent", "col-fingerprint", "col-last-request", "col-actions"]}
      row={(a) => (
        <tr key={a.jkt}>
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
            <ConfirmButton
              label={t("agents-unpair")}
              question={t("agents-unpair-confirm")}
              onConfirm={() => run(() => api.unpair(a.jkt)).then(() => undefined)}
            />
          </td>
        </tr>
      )}
    />
  );
}
