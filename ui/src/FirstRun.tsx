// Where hosts will check the person's credentials (SchCP §3.3 "Status URLs"):
// the window's first-run step, and the same form in Settings. The three
// answers are the service's (keyapp::service::status_setup): it checks a
// hosted service, asks the OS to confirm a change, and writes nothing on a
// refusal, whose sentence is shown as it is.
import { useState } from "preact/hooks";
import { api, type SetupChoice, type StatusSetupView } from "./api";
import { useT } from "./i18n";
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

/** The first-run step: shown until the person answers; skippable, and in Settings later. */
export function FirstRun(props: { onDone: () => void }) {
  const t = useT();
  return (
    <section aria-labelledby="h-first-run" id="first-run">
      <h2 id="h-first-run">{t("first-run-heading")}</h2>
      <p>{t("first-run-intro")}</p>
      <StatusChoiceForm onDone={() => props.onDone()} onSkip={props.onDone} />
    </section>
  );
}
