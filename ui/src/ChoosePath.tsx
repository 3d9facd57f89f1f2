// A "Choose…" button beside a typed path: it opens the system's own save, open
// or folder window (tauri-plugin-dialog, granted to the main window alone in
// src-tauri/capabilities/dialog.json) and puts the chosen path in the field.
// The field stays typed-in as well; a closed window changes nothing. The key
// app checks every path itself, whichever way it came.
import { open, save } from "@tauri-apps/plugin-dialog";
import { useState } from "preact/hooks";
import { useT } from "./i18n";

/** Which system window: a file to write, a file to read, or a folder. */
export type PathKind = "save" | "open" | "folder";

export function ChoosePath(props: {
  kind: PathKind;
  /** The button's id; its notice (if the window cannot open) takes `${id}-failed`. */
  id: string;
  /** The field's path now, where the window starts. */
  current: string;
  /** The system window's title (a message id). */
  title: string;
  onChosen: (path: string) => void;
}) {
  const t = useT();
  const [failed, setFailed] = useState(false);
  const choose = async () => {
    const title = t(props.title);
    const defaultPath = props.current.trim() === "" ? undefined : props.current.trim();
    try {
      const chosen =
        props.kind === "save"
          ? await save({ title, defaultPath })
          : await open({ title, defaultPath, multiple: false, directory: props.kind === "folder" });
      setFailed(false);
      // Closing the window answers null: the field keeps what it had.
      if (typeof chosen === "string" && chosen !== "") props.onChosen(chosen);
    } catch {
      setFailed(true);
    }
  };
  return (
    <>
      <button type="button" id={props.id} onClick={() => void choose()}>
        {t(props.kind === "folder" ? "choose-folder" : "choose-file")}
      </button>
      {failed && (
        <p role="alert" id={`${props.id}-failed`}>
          {t("choose-failed")}
        </p>
      )}
    </>
  );
}
