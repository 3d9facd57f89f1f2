// Where hosts will check the person's credentials (SchCP §3.3 "Status URLs"):
// the window's first-run step, and the same form in Settings. The three
// answers are the service's (keyapp::service::status_setup): it checks a
// hosted service, asks the OS to confirm a change, and writes nothing on a
// refusal, whose sentence is shown as it is.
import { useEffect, useState } from "preact/hooks";
import { api, type SetupChoice, type StatusSetupView } from "./api";
import { useT } from "./i18n";
import { RecoveryKitPanel } from "./RecoveryKit";
import { errorText } from "./useLoad";

type Kind = SetupChoice["choice"];

const KINDS: Kind[] = ["hosted", "own_base", "not_now"];
const LABEL: Record<Kind, string> = { hosted: "first-run-hosted", own_base: "first-run-own-base", not_now: "first-run-not-now" };

/** `onDone(view)` after a saved answer; `onSkip` leaves without answering (asked again next time). */
export function StatusChoiceForm(props: { onDone: (view: StatusSetupView) => void; onSkip?: () => void }) {
  const t = useT();
  const [kind, setKind] = useState<Kind>("hosted");
  const [url, setUrl] = useState("");
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    const setup: SetupChoice = kind === "not_now" ? { choice: "not_now" } : { choice: kind, url: url.trim() };
    setBusy(true);
    try {
      const view = await api.chooseStatus(setup);
      setFailure(null);
      props.onDone(view);
    } catch (err) {
      setFailure(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={save} aria-busy={busy}>
      <fieldset>
        <legend>{t("first-run-heading")}</legend>
        {KINDS.map((k) => (
          <div key={k}>
            <input
              type="radio"
              name="status-choice"
              id={`status-choice-${k}`}
              value={k}
              checked={kind === k}
              onChange={() => setKind(k)}
            />{" "}
            <label for={`status-choice-${k}`}>{t(LABEL[k])}</label>
            <p class="help">{t(`${LABEL[k]}-help`)}</p>
          </div>
        ))}
      </fieldset>
      {kind !== "not_now" && (
        <p>
          <label for="status-url">{t("first-run-url")}</label>{" "}
          <input
            id="status-url"
            type="url"
            required
            placeholder="https://"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </p>
      )}
      {failure && <p role="alert">{failure}</p>}
      <button type="submit" disabled={busy}>
        {t("first-run-save")}
      </button>
      {props.onSkip && (
        <>
          {" "}
          <button type="button" onClick={props.onSkip}>
            {t("first-run-skip")}
          </button>
        </>
      )}
    </form>
  );
}

export const STEPS = ["about", "key", "status", "kit"] as const;
export type Step = (typeof STEPS)[number];

/**
 * The first run explains itself, in four short steps, each skippable: what
 * the key app is and what an assistant can and cannot do; where the key is
 * kept; where hosts check credentials (the form above); the recovery kit.
 * Shown until the status question is answered, and from Settings later.
 */
export function FirstRun(props: { onDone: () => void; start?: Step }) {
  const t = useT();
  const [step, setStep] = useState<Step>(props.start ?? "about");
  const [keystore, setKeystore] = useState<string | null>(null);
  useEffect(() => {
    api.settings().then(
      (s) => setKeystore(s.keystore),
      () => setKeystore(null),
    );
  }, []);
  const at = STEPS.indexOf(step);
  const next = () => (at + 1 < STEPS.length ? setStep(STEPS[at + 1]) : props.onDone());
  return (
    <section aria-labelledby="h-first-run" id="first-run" data-step={step}>
      <h2 id="h-first-run">{t("welcome-heading")}</h2>
      <ol class="steps" aria-label={t("welcome-heading")}>
        {STEPS.map((s) => (
          <li key={s} aria-current={s === step ? "step" : undefined}>
            {t(`welcome-step-${s}`)}
          </li>
        ))}
      </ol>
      {step === "about" && (
        <div id="first-run-about">
          <h3>{t("welcome-step-about")}</h3>
          <p>{t("welcome-what")}</p>
          <p>{t("welcome-can")}</p>
          <p>{t("welcome-cannot")}</p>
        </div>
      )}
      {step === "key" && (
        <div id="first-run-key">
          <h3>{t("welcome-step-key")}</h3>
          <p>{t(keystore === "file" ? "welcome-key-file" : "welcome-key-os")}</p>
        </div>
      )}
      {step === "status" && (
        <div id="first-run-status">
          <p>{t("first-run-intro")}</p>
          <StatusChoiceForm onDone={next} onSkip={next} />
        </div>
      )}
      {step === "kit" && <RecoveryKitPanel />}
      <p class="steps-nav">
        {at > 0 && (
          <>
            <button type="button" id="first-run-back" onClick={() => setStep(STEPS[at - 1])}>
              {t("welcome-back")}
            </button>{" "}
          </>
        )}
        {step !== "status" && (
          <>
            <button type="button" id="first-run-next" onClick={next}>
              {t(step === "kit" ? "welcome-done" : "welcome-next")}
            </button>{" "}
          </>
        )}
        {step !== "kit" && (
          <button type="button" id="first-run-skip-all" onClick={props.onDone}>
            {t("welcome-skip")}
          </button>
        )}
      </p>
    </section>
  );
}
