import { useEffect, useState } from "preact/hooks";
import { api, type AutoBackupView } from "../api";
import { ConfirmButton } from "../Confirm";
import { ChoosePath } from "../ChoosePath";
import { StatusChoiceForm } from "../FirstRun";
import { useT } from "../i18n";
import { contactCode } from "./Contacts";
import { RecoveryKitPanel } from "../RecoveryKit";
import { errorText, useAction, useLoad } from "../useLoad";

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

/**
 * Where hosts check the person's credentials (SchCP §3.3): the choice in
 * words, an address the config asks for and the person has not confirmed,
 * whether publishing reaches the status service and what waits, and what it
 * refused for good. All words are the service's.
 */
export function StatusSetup() {
  const t = useT();
  const { data, error, reload } = useLoad(api.statusSetup);
  const { failure, run } = useAction(reload);
  const [changing, setChanging] = useState(false);
  return (
    <section aria-labelledby="h-status-setup" id="status-setup">
      <h2 id="h-status-setup">{t("settings-status-setup")}</h2>
      {(error ?? failure) && <p role="alert">{error ?? failure}</p>}
      {data && (
        <>
          <p id="status-choice" data-choice={data.choice} data-hosts-can-check={data.hosts_can_check}>
            {data.words}
          </p>
          {data.requested && (
            <div id="status-requested">
              <p>{data.requested.words}</p>
              <button type="button" onClick={() => void run(() => api.confirmConfiguredStatus())}>
                {t("settings-status-confirm-requested")}
              </button>
            </div>
          )}
          <p id="status-publication" data-publication={data.publication}>
            {data.publication_words}
          </p>
          {data.refused.length > 0 && (
            <>
              <h3>{t("settings-status-refused")}</h3>
              <ul id="status-refused">
                {data.refused.map((r) => (
                  <li key={r.jti} data-reason={r.reason}>
                    {r.words}
                  </li>
                ))}
              </ul>
            </>
          )}
          {changing ? (
            <StatusChoiceForm
              onDone={() => {
                setChanging(false);
                reload();
              }}
              onSkip={() => setChanging(false)}
            />
          ) : (
            <button type="button" id="status-change" onClick={() => setChanging(true)}>
              {t("settings-status-change")}
            </button>
          )}
        </>
      )}
    </section>
  );
}

/**
 * Backups of the records (keyapp::recovery::backup): one now, into a file the
 * person names, and the daily one into a folder, keeping the newest N. Both
 * are encrypted to the recovery kit; a refusal is the key app's sentence.
 */
export function Backups() {
  const t = useT();
  const [file, setFile] = useState("");
  const [said, setSaid] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [auto, setAuto] = useState<AutoBackupView | null>(null);
  const [folder, setFolder] = useState("");
  const [keep, setKeep] = useState("7");
  const [autoSaid, setAutoSaid] = useState<string | null>(null);
  const [autoFailure, setAutoFailure] = useState<string | null>(null);
  const shown = (view: AutoBackupView) => {
    setAuto(view);
    setFolder(view.folder ?? "");
    setKeep(String(view.keep));
  };
  useEffect(() => {
    api.autoBackup().then(shown, (err) => setAutoFailure(errorText(err)));
  }, []);
  const backUp = async (e: Event) => {
    e.preventDefault();
    try {
      setSaid(await api.backupNow(file.trim()));
      setFailure(null);
    } catch (err) {
      setSaid(null);
      setFailure(errorText(err));
    }
  };
  const saveAuto = async (e: Event) => {
    e.preventDefault();
    try {
      const trimmed = folder.trim();
      shown(await api.setAutoBackup(trimmed === "" ? null : trimmed, Number.parseInt(keep, 10) || 0));
      setAutoSaid(trimmed === "" ? t("backup-auto-off") : t("backup-auto-saved"));
      setAutoFailure(null);
    } catch (err) {
      setAutoSaid(null);
      setAutoFailure(errorText(err));
    }
  };
  return (
    <section aria-labelledby="h-backups" id="backups">
      <h2 id="h-backups">{t("backup-heading")}</h2>
      <p>{t("backup-intro")}</p>
      <form onSubmit={backUp} id="backup-now-form">
        <label for="backup-file">{t("backup-file")}</label>{" "}
        <input id="backup-file" value={file} placeholder="/" onInput={(e) => setFile(e.currentTarget.value)} />{" "}
        <ChoosePath kind="save" id="backup-file-choose" current={file} title="choose-backup-title" onChosen={setFile} />{" "}
        <button type="submit" id="backup-now">
          {t("backup-now")}
        </button>
        {said && (
          <p role="status" id="backup-written">
            {said}
          </p>
        )}
        {failure && (
          <p role="alert" id="backup-failed">
            {failure}
          </p>
        )}
      </form>
      <form onSubmit={saveAuto} id="backup-auto-form" data-folder={auto?.folder ?? ""}>
        <h3>{t("backup-auto-heading")}</h3>
        <label for="backup-folder">{t("backup-auto-folder")}</label>{" "}
        <input id="backup-folder" value={folder} placeholder="/" onInput={(e) => setFolder(e.currentTarget.value)} />{" "}
        <ChoosePath
          kind="folder"
          id="backup-folder-choose"
          current={folder}
          title="choose-folder-title"
          onChosen={setFolder}
        />{" "}
        <label for="backup-keep">{t("backup-auto-keep")}</label>{" "}
        <input
          id="backup-keep"
          type="number"
          min={1}
          max={365}
          value={keep}
          onInput={(e) => setKeep(e.currentTarget.value)}
        />{" "}
        <button type="submit" id="backup-auto-save">
          {t("backup-auto-save")}
        </button>
        {autoSaid && (
          <p role="status" id="backup-auto-said">
            {autoSaid}
          </p>
        )}
        {autoFailure && (
          <p role="alert" id="backup-auto-failed">
            {autoFailure}
          </p>
        )}
      </form>
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

/**
 * The person's own contact card, `Name <urn:schcp:principal:…>`: the short
 * text another household pastes into Contacts (`parseCard` reads it back). The
 * key app keeps no name for the person, so they type the one they want to be
 * known by; characters that would break the card (angle brackets, line
 * breaks and other controls) are left out of it.
 */
export function cardText(name: string, principal: string): string {
  const clean = name
    .replace(/[<>\p{Cc}\p{Cf}\u2028\u2029]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  return clean === "" ? principal : `${clean} <${principal}>`;
}

export function ContactCard(props: { principal: string }) {
  const t = useT();
  const [name, setName] = useState("");
  const card = cardText(name, props.principal);
  return (
    <section aria-labelledby="h-contact-card" id="contact-card">
      <h2 id="h-contact-card">{t("settings-card")}</h2>
      <p class="hint">{t("settings-card-hint")}</p>
      <label for="card-name">{t("settings-card-name")}</label>{" "}
      <input
        id="card-name"
        type="text"
        maxLength={100}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <p>
        <code id="card-text">{card}</code> <Copy text={card} label={t("settings-card")} />
      </p>
      <p>
        {t("settings-card-code")} <code id="card-code">{contactCode(props.principal)}</code>
        <br />
        <span class="hint">{t("settings-card-code-hint")}</span>
      </p>
    </section>
  );
}

export function SettingsScreen(props: { lang: string; onLanguage: (tag: string) => void; onIntro?: () => void }) {
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
      {data && (
        // What a developer or a host's support may ask for; the person need not read it.
        <details id="key-details">
          <summary>{t("settings-key-details")}</summary>
          <p>{t("settings-jwk")}</p>
          <code id="jwk">{jwk}</code> <Copy text={jwk} label={t("settings-jwk")} />
        </details>
      )}
      {data && <ContactCard principal={data.principal} />}
      <StatusSetup />
      <RecoveryKitPanel />
      <Backups />
      <HostChanges />
      {props.onIntro && (
        <p>
          <button type="button" id="show-intro" onClick={props.onIntro}>
            {t("welcome-show-again")}
          </button>
        </p>
      )}
    </section>
  );
}
