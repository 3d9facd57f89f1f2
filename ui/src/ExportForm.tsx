// Export: the person's records written to a file they name, as JSON or as a
// page to print (crates/keyapp/src/export.rs builds both). The file name is
// suggested by the key app; the person may type any full path or choose one
// in the system's save window.
import { useEffect, useState } from "preact/hooks";
import { api, type ExportFormat } from "./api";
import { ChoosePath } from "./ChoosePath";
import { useT } from "./i18n";
import { errorText } from "./useLoad";

export function ExportForm() {
  const t = useT();
  const [format, setFormat] = useState<ExportFormat>("json");
  const [path, setPath] = useState("");
  const [edited, setEdited] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The suggestion follows the format until the person types their own path.
  useEffect(() => {
    if (edited) return;
    api
      .exportPath(format)
      .then(setPath)
      .catch(() => {});
  }, [format, edited]);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      setDone(await api.exportRecords(path, format));
      setFailure(null);
    } catch (err) {
      setFailure(errorText(err));
      setDone(null);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="h-export" class="export">
      <h2 id="h-export">{t("export-heading")}</h2>
      <p>{t("export-explain")}</p>
      <form onSubmit={submit}>
        <label for="export-format">{t("export-format")}</label>
        <select
          id="export-format"
          value={format}
          onChange={(e) => setFormat(e.currentTarget.value as ExportFormat)}
        >
          <option value="json">{t("export-format-json")}</option>
          <option value="html">{t("export-format-html")}</option>
        </select>
        <label for="export-path">{t("export-path")}</label>
        <input
          id="export-path"
          required
          value={path}
          onInput={(e) => {
            setEdited(true);
            setPath(e.currentTarget.value);
          }}
        />{" "}
        <ChoosePath
          kind="save"
          id="export-choose"
          current={path}
          title="choose-export-title"
          onChosen={(chosen) => {
            setEdited(true);
            setPath(chosen);
          }}
        />{" "}
        <button type="submit" disabled={busy || path.trim() === ""}>
          {t("export-submit")}
        </button>
      </form>
      {done && <p role="status">{done}</p>}
      {failure && (
        <p role="alert">
          {t("error-prefix")} {failure}
        </p>
      )}
    </section>
  );
}
