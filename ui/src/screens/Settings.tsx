import { useState } from "preact/hooks";
import { api } from "../api";
import { ConfirmButton } from "../Confirm";
import { useT } from "../i18n";
import { useAction, useLoad } from "../useLoad";

/** §2.2: businesses met at another domain; only the person accepts a move. */
function HostChanges() {
  const t = useT();
  const { data, error, reload } = useLoad(api.hostChanges);
  const { failure, run } = useAction(reload);
  return (
    <section aria-labelledby="h-host-changes">
      <h2 id="h-host-changes">{t("settings-host-changes")}</h2>
      {(error ?? failure) && <p role="alert">{t("error-prefix")} {error ?? failure}</p>}
      {data && data.length === 0 && <p>{t("settings-host-changes-none")}</p>}
      <ul>
        {(data ?? []).map((c) => (
          <li key={`${c.host_id} ${c.domain}`}>
            <p>{c.words}</p>
            <ConfirmButton
              label={t("settings-host-accept")}
              question={t("settings-host-accept-confirm")}
              onConfirm={() => run(() => api.acceptHostDomain(c.host_id, c.domain)).then(() => undefined)}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}

function Copy(props: { text: string; label: string }) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  return (
    <span>
      <button
        type="button"
        aria-label={`${t("settings-copy")}: ${props.label}`}
        onClick={() => navigator.clipboard?.writeText(props.text).then(() => setCopied(true))}
      >
        {t("settings-copy")}
      </button>
      <span role="status">{copied ? ` ${t("settings-copied")}` : ""}</span>
    </span>
  );
}

export function SettingsScreen(props: { lang: string; onLanguage: (tag: string) => void }) {
  const t = useT();
  const { data, error } = useLoad(api.settings);
  const jwk = data ? JSON.stringify(data.jwk) : "";
  return (
    <section aria-labelledby="h-settings">
      <h1 id="h-settings">{t("settings-heading")}</h1>
      {error && <p role="alert">{t("error-prefix")} {error}</p>}
      <label for="language">{t("settings-language")}</label>{" "}
      <select id="language" value={props.lang} onChange={(e) => props.onLanguage(e.currentTarget.value)}>
        <option value="en">English</option>
        <option value="fr">Français</option>
      </select>
      {data && (
        <dl class="settings">
          <dt>{t("settings-principal")}</dt>
          <dd>
            <code id="principal">{data.principal}</code> <Copy text={data.principal} label={t("settings-principal")} />
          </dd>
          <dt>{t("settings-jwk")}</dt>
          <dd>
            <code id="jwk">{jwk}</code> <Copy text={jwk} label={t("settings-jwk")} />
          </dd>
          <dt>{t("settings-status-base")}</dt>
          <dd>
            <code>{data.status_public_base}</code>
            <p id="hosts-can-check">{t(`settings-status-${data.hosts_can_check}`)}</p>
          </dd>
          <dt>{t("settings-keystore")}</dt>
          <dd>{t(`keystore-${data.keystore}`)}</dd>
          <dt>{t("settings-consent-language")}</dt>
          <dd>{data.consent_language === "fr" ? "Français" : "English"}</dd>
        </dl>
      )}
      <HostChanges />
    </section>
  );
}
