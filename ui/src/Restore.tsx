// The first run, before any key exists (src-tauri lib.rs `first_run`): a new
// key, or the person's own brought back from the recovery kit and, if they
// have one, a backup file. Rust checks everything; a refusal comes back as the
// gate's `problem`, in the person's words, and nothing was written.
import { useState } from "preact/hooks";
import { api, type GateView } from "./api";
import { ChoosePath } from "./ChoosePath";
import { useT } from "./i18n";
import { errorText } from "./useLoad";

export function FirstKeyChoice(props: { problem: string | null; onView: (view: GateView) => void }) {
  const t = useT();
  const [restoring, setRestoring] = useState(props.problem !== null);
  const [words, setWords] = useState("");
  const [backup, setBackup] = useState("");
  const [keySeed, setKeySeed] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const send = async (choice: Parameters<typeof api.firstRunChoice>[0]) => {
    props.onView({ state: "restoring" });
    try {
      const next = await api.firstRunChoice(choice);
      // The words leave the page's state as soon as they are judged.
      setWords("");
      setFailure(null);
      props.onView(next);
    } catch (err) {
      setFailure(errorText(err));
      props.onView({ state: "welcome", problem: null });
    }
  };
  const restore = (e: Event) => {
    e.preventDefault();
    const file = backup.trim();
    void send({ choice: "restore", words, backup: file === "" ? null : file, key_seed: keySeed });
  };

  if (!restoring) {
    return (
      <section id="welcome" aria-labelledby="h-welcome">
        <h2 id="h-welcome">{t("welcome-new-heading")}</h2>
        <p>{t("welcome-new-intro")}</p>
        {failure && <p role="alert">{failure}</p>}
        <button type="button" id="welcome-new" onClick={() => void send({ choice: "new" })}>
          {t("welcome-new-key")}
        </button>{" "}
        <button type="button" id="welcome-restore" onClick={() => setRestoring(true)}>
          {t("welcome-have-kit")}
        </button>
      </section>
    );
  }
  return (
    <form id="restore" onSubmit={restore} aria-labelledby="h-restore">
      <h2 id="h-restore">{t("restore-heading")}</h2>
      <p>{t("restore-intro")}</p>
      {(props.problem ?? failure) && (
        <p role="alert" class="notice" id="restore-problem">
          {props.problem ?? failure}
        </p>
      )}
      <label for="restore-words">{t("restore-words")}</label>
      <textarea
        id="restore-words"
        rows={4}
        autocomplete="off"
        spellcheck={false}
        value={words}
        onInput={(e) => setWords(e.currentTarget.value)}
      />
      <label for="restore-backup">{t("restore-backup")}</label>
      <input id="restore-backup" value={backup} placeholder="/" onInput={(e) => setBackup(e.currentTarget.value)} />{" "}
      <ChoosePath kind="open" id="restore-backup-choose" current={backup} title="choose-restore-title" onChosen={setBackup} />
      <p>
        <input
          type="checkbox"
          id="restore-key-seed"
          checked={keySeed}
          onChange={(e) => setKeySeed(e.currentTarget.checked)}
        />{" "}
        <label for="restore-key-seed">{t("restore-key-seed")}</label>
      </p>
      <button type="submit" id="restore-submit">
        {t("restore-submit")}
      </button>{" "}
      <button type="button" id="restore-new" onClick={() => void send({ choice: "new" })}>
        {t("restore-cancel")}
      </button>
    </form>
  );
}
