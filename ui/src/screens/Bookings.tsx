import { api, type BookingView } from "../api";
import { ConfirmButton } from "../Confirm";
import { useT } from "../i18n";
import { ListScreen } from "../ListScreen";
import { useAction, useLoad } from "../useLoad";

/**
 * My bookings: every booking the key app holds a verified receipt for, in the
 * service's words (upcoming first), with what it rests on and which assistant
 * may change it. The one action takes that away: it revokes the management
 * mandate, and the host refuses the assistant's next change.
 */
export function Bookings() {
  const t = useT();
  const { data, error, reload } = useLoad(api.bookings);
  const { failure, run } = useAction(reload);
  return (
    <ListScreen
      name="bookings"
      data={data}
      error={error ?? failure}
      columns={["col-booking", "col-when", "col-host", "col-state", "col-actions"]}
      row={(b: BookingView) => (
        <tr key={`${b.host_id}/${b.booking_id}`} data-booking={b.booking_id} data-upcoming={b.upcoming ? "yes" : "no"}>
          <td>
            <span class="sentence">{b.what}</span>
            {b.place && <small> · {b.place}</small>}
            {b.price && <small> · {b.price}</small>}
            {b.rests_on && (
              <p class="hint">
                {t("bookings-rests-on")} {b.rests_on}
              </p>
            )}
            <details>
              <summary>{t("history-details")}</summary>
              <span class="id">{b.host_id}</span> <span class="id">{b.booking_id}</span>
            </details>
          </td>
          <td>{b.when}</td>
          <td class="host">{b.host}</td>
          <td>{b.state}</td>
          <td>
            {b.managers.length === 0 && <small>{t("bookings-no-manager")}</small>}
            {b.managers.map((m) => (
              <p key={m.jti} data-manager={m.jti} data-status={m.status}>
                {m.sentence}{" "}
                {m.revocable && (
                  <ConfirmButton
                    label={t("bookings-stop-manager")}
                    question={t("bookings-stop-confirm")}
                    onConfirm={() => run(() => api.revoke(m.jti)).then(() => undefined)}
                  />
                )}
              </p>
            ))}
          </td>
        </tr>
      )}
    />
  );
}
