// The file keystore's passphrase, asked before the service starts (where no
// OS keychain answers). The window only asks and shows: the keystore in Rust
// decides whether the key is new (typed twice), whether the two fields agree,
// and whether the passphrase opens the key; this view shows its verdict and
// lets the person try again.
import { useEffect, useState } from "preact/hooks";
import { api, isCommandError, type GateView } from "./api";
import { useT } from "./i18n";
import { FirstKeyChoice } from "./Restore";

const PROBLEM: Record<string, string> = { wrong: "unlock-wrong", mismatch: "unlock-mismatch", empty: "unlock-empty" };

/** Polls while the key app is starting (before the keystore asked, or after an answer). */
export const STATE_POLL_MS = 300;

export function UnlockView() {
  const t = useT();
  const [view, setView] = useState<GateView>({ state: "starting" });
  const [passphrase, setPassphrase] = useState("");
  const [confirmation, setConfirmation] = useState("");

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
  const submit = async (e: Event) => {
    e.preventDefault();
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
            autoFocus
          />
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
          <button type="submit" id="unlock-submit">
            {t(creating ? "unlock-create-submit" : "unlock-submit")}
          </button>
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
