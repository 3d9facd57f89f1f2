// The recovery kit in the window (keyapp::recovery): shown only after the OS
// confirmed the person (the command refuses otherwise, in the person's words),
// then two of its words typed back, and a printable page (the key app's own
// page content, printed by the webview). The words leave the page's state
// when hidden.
import { useState } from "preact/hooks";
import { api, type KitView } from "./api";
import { useT } from "./i18n";
import { errorText } from "./useLoad";

type Checked = "unchecked" | "right" | "wrong";

export function RecoveryKitPanel(props: { onLater?: () => void }) {
  const t = useT();
  const [kit, setKit] = useState<KitView | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [typed, setTyped] = useState(["", ""]);
  const [checked, setChecked] = useState<Checked>("unchecked");

  const show = async () => {
    setBusy(true);
    try {
      setKit(await api.recoveryKit());
      setFailure(null);
      setChecked("unchecked");
      setTyped(["", ""]);
    } catch (err) {
      setFailure(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const check = async (e: Event) => {
    e.preventDefault();
    try {
      setChecked((await api.confirmRecoveryWords(typed)) ? "right" : "wrong");
    } catch (err) {
      setFailure(errorText(err));
    }
  };
  const hide = () => {
    setKit(null);
    setTyped(["", ""]);
  };

  return (
    <section aria-labelledby="h-kit" id="recovery-kit">
      <h2 id="h-kit">{t("kit-heading")}</h2>
      {!kit && (
        <>
          <p>{t("kit-intro")}</p>
          {failure && (
            <p role="alert" id="kit-refused">
              {failure}
            </p>
          )}
          <button type="button" id="kit-show" onClick={() => void show()} disabled={busy}>
            {t("kit-show")}
          </button>
          {props.onLater && (
            <>
              {" "}
              <button type="button" id="kit-later" onClick={props.onLater}>
                {t("kit-later")}
              </button>
            </>
          )}
        </>
      )}
      {kit && (
        <>
          <h3>{t("kit-words")}</h3>
          <ol class="kit-words" id="kit-words">
            {kit.words.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ol>
          <p>
            {t("kit-principal")}: <code id="kit-principal">{kit.principal}</code>
          </p>
          {kit.key_seed && (
            <p class="notice" id="kit-key-seed">
              {t("kit-key-seed")}
            </p>
          )}
          <p class="notice">{t("recovery-kit-keep")}</p>
          <button type="button" id="kit-print" onClick={() => window.print()}>
            {t("kit-print")}
          </button>{" "}
          <button type="button" id="kit-hide" onClick={hide}>
            {t("kit-hide")}
          </button>
          <form onSubmit={check} id="kit-confirm">
            <h3>{t("kit-confirm-heading")}</h3>
            {kit.confirm.map((n, i) => (
              <p key={n}>
                <label for={`kit-word-${i}`}>
                  {t("kit-word")} {n}
                </label>{" "}
                <input
                  id={`kit-word-${i}`}
                  autocomplete="off"
                  spellcheck={false}
                  value={typed[i]}
                  onInput={(e) => {
                    const next = [...typed];
                    next[i] = e.currentTarget.value;
                    setTyped(next);
                    setChecked("unchecked");
                  }}
                />
              </p>
            ))}
            <button type="submit" id="kit-check">
              {t("kit-confirm-submit")}
            </button>
            {checked === "right" && (
              <p role="status" id="kit-confirmed">
                {t("kit-confirmed")}
              </p>
            )}
            {checked === "wrong" && (
              <p role="alert" id="kit-wrong">
                {t("recovery-confirm-wrong")}
              </p>
            )}
          </form>
          {/* What window.print() prints (style.css @media print): the key app's page. */}
          <div class="kit-page" id="kit-page" dangerouslySetInnerHTML={{ __html: kit.page }} />
        </>
      )}
    </section>
  );
}
