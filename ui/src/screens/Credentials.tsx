import { useState } from "preact/hooks";
import { api, type CredentialQuery, type CredentialState } from "../api";
import { ConfirmButton } from "../Confirm";
import { useT } from "../i18n";
import { ListScreen } from "../ListScreen";
import { type Filters, LoadMore, RecordSearch, usePaged } from "../RecordSearch";
import { useAction } from "../useLoad";

/** A credential's state, as the search offers it, in the words its status has. */
const STATES: [CredentialState, string][] = [
  ["active", "status-active"],
  ["revoked", "status-revoked"],
  ["expired", "status-expired"],
];

export function Credentials() {
  const t = useT();
  const list = usePaged(api.searchCredentials, {} as CredentialQuery);
  const [filtered, setFiltered] = useState(false);
  // After a revocation the list is asked again, from its first page, with the same search.
  const { failure, run } = useAction(list.reload);
  const search = (f: Filters) => {
    setFiltered(Object.values(f).some((v) => v !== undefined));
    list.search({
      text: f.text,
      host: f.host,
      agent: f.agent,
      state: f.outcome as CredentialState | undefined,
      since: f.since,
      until: f.until,
    });
  };
  return (
    <ListScreen
      name="credentials"
      data={list.items}
      error={list.error ?? failure}
      empty={filtered ? "search-none" : undefined}
      notice={
        <RecordSearch
          name="credentials"
          outcomeLabel="search-state"
          outcomes={STATES}
          onSearch={search}
        />
      }
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
            {c.changed && (
              <p class="warning" role="note" data-changed={c.jti}>
                {c.changed}
              </p>
            )}
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
    >
      <LoadMore next={list.next} busy={list.busy} onMore={list.more} />
    </ListScreen>
  );
}
