// The file keystore's passphrase, asked before the service starts (where no
// OS keychain answers). The window only asks and shows: the keystore in Rust
// decides whether the key is new (typed twice), whether the two fields agree,
// and whether the passphrase opens the key; this view shows its verdict and
// lets the person try again. One thing it says itself: when a new passphrase
// is weak (a well-kept estimator, ./strength), it says so as the person types
// and asks them to confirm a weak one before it is sent; the keystore still
// decides the rest (two fields that disagree are its to refuse, first).
import { useEffect, useState } from "preact/hooks";
import { api, isCommandError, type GateView } from "./api";
import { useT } from "./i18n";
import { FirstKeyChoice } from "./Restore";

const PROBLEM: Record<string, string> = { wrong: "unlock-wrong", mismatch: "unlock-mismatch", empty: "unlock-empty" };

/** The estimator, loaded only when a new passphrase is typed (its dictionaries are large). */
const strength = () => import("./strength");

/** Polls while the key app is starting (before the keystore asked, or after an answer). */
export const STATE_POLL_MS = 300;

export function UnlockView() {
  const t = useT();
  const [view, setView] = useState<GateView>({ state: "starting" });
  const [passphrase, setPassphrase] = useState("");
  const [confirmation, setConfirmation] = useState("");
  /** The estimator's verdict on the passphrase as typed; null until known. */
  const [weak, setWeak] = useState<boolean | null>(null);
  /** The person was told this passphrase is weak and is asked to confirm it. */
  const [askWeak, setAskWeak] = useState(false);

  useEffect(() => {
    if (view.state !== "starting" && view.state !== "restoring") return;
    const timer = setTimeout(() => void api.unlockState().then(setView), STATE_POLL_MS);
    return () => clearTimeout(timer);
  }, [view]);
  useEffect(() => {
    if (view.state === "unlocked" && view.route) location.hash = `#${view.route}`;
  }, [view]);
  useEffect(() => void api.unlockState().then(setView), []);

  const creating = view.state === "asking" && view.purpose === "create";

  // Judged as the person types a new passphrase; any change asks afresh.
  useEffect(() => {
    setAskWeak(false);
    setWeak(null);
    if (!creating || passphrase === "") return;
    let current = true;
    void strength().then((m) => current && setWeak(m.isWeak(passphrase)));
    return () => {
      current = false;
    };
  }, [passphrase, creating]);

  useEffect(() => setAskWeak(false), [confirmation]);

  const submit = async (e: Event, keepWeak = false) => {
    e.preventDefault();
    // Two equal fields with a weak passphrase: say so and ask, once, before
    // sending. Two that differ, or an empty one, are the keystore's to refuse.
    if (creating && !keepWeak && passphrase !== "" && passphrase === confirmation) {
      const isWeak = weak ?? (await strength()).isWeak(passphrase);
      if (isWeak) {
        setWeak(true);
        setAskWeak(true);
        return;
      }
    }
    setAskWeak(false);
    setView({ state: "checking" });
    try {
      const next = await api.unlock(passphrase, creating ? confirmation : null);
      // The passphrase leaves the page's state as soon as it is judged.
      setPassphrase("");
      setConfirmation("");
      setView(next);
    } catch (err) {
      setView({ state: "failed", message: isCommandError(err) ? err.message : String(err) });
    }
  };

  return (
    <main id="unlock" class="unlock">
      <h1 id="h-unlock">
        {t(view.state === "welcome" ? "welcome-heading" : creating ? "unlock-create-heading" : "unlock-heading")}
      </h1>
      {(view.state === "welcome" || view.state === "restoring") && (
        <FirstKeyChoice problem={view.state === "welcome" ? view.problem : null} onView={setView} />
      )}
      {view.state === "restoring" && (
        <p role="status" id="restore-working">
          {t("restore-working")}
        </p>
      )}
      {view.state === "asking" && (
        <form onSubmit={submit} id="unlock-form">
          <p>{t(creating ? "unlock-create-intro" : "unlock-intro")}</p>
          {view.problem && (
            <p role="alert" class="notice" id="unlock-problem" data-problem={view.problem}>
              {t(PROBLEM[view.problem] ?? "unlock-wrong")}
            </p>
          )}
          <label for="passphrase">{t("unlock-passphrase")}</label>
          <input
            id="passphrase"
            type="password"
            autocomplete={creating ? "new-password" : "current-password"}
            value={passphrase}
            onInput={(e) => setPassphrase((e.target as HTMLInputElement).value)}
            aria-describedby={creating ? "unlock-strength" : undefined}
            autoFocus
          />
          {creating && (
            <p id="unlock-strength" class="hint" aria-live="polite" data-weak={weak === null ? undefined : String(weak)}>
              {weak === true ? t("unlock-weak-hint") : weak === false ? t("unlock-strong-hint") : ""}
            </p>
          )}
          {creating && (
            <>
              <label for="confirmation">{t("unlock-confirm")}</label>
              <input
                id="confirmation"
                type="password"
                autocomplete="new-password"
                value={confirmation}
                onInput={(e) => setConfirmation((e.target as HTMLInputElement).value)}
              />
            </>
          )}
          {askWeak ? (
            <div role="alert" class="notice" id="unlock-weak">
              <p>{t("unlock-weak-ask")}</p>
              <button type="button" id="unlock-weak-keep" onClick={(e) => void submit(e, true)}>
                {t("unlock-weak-keep")}
              </button>{" "}
              <button
                type="button"
                id="unlock-weak-change"
                onClick={() => {
                  setAskWeak(false);
                  setPassphrase("");
                  setConfirmation("");
                  document.getElementById("passphrase")?.focus();
                }}
              >
                {t("unlock-weak-change")}
              </button>
            </div>
          ) : (
            <button type="submit" id="unlock-submit">
              {t(creating ? "unlock-create-submit" : "unlock-submit")}
            </button>
          )}
        </form>
      )}
      {(view.state === "checking" || view.state === "starting") && (
        <p role="status" id="unlock-checking">
          {t("unlock-checking")}
        </p>
      )}
      {view.state === "failed" && (
        <p role="alert" class="notice" id="unlock-failed">
          {t("unlock-failed")} {view.message}
        </p>
      )}
    </main>
  );
}
