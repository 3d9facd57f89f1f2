// An inline yes/no in place of a destructive button (no modal dialog, which a
// webview may not offer): the question, then Yes and No; No has the focus.
import { useEffect, useRef, useState } from "preact/hooks";
import { useT } from "./i18n";

export function ConfirmButton(props: { label: string; question: string; onConfirm: () => Promise<void> | void; id?: string }) {
  const t = useT();
  const [asking, setAsking] = useState(false);
  const no = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) no.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" id={props.id} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <span role="group" aria-label={props.question} class="confirm">
      <span>{props.question}</span>{" "}
      <button
        type="button"
        class="danger"
        data-confirm="yes"
        onClick={async () => {
          await props.onConfirm();
          setAsking(false);
        }}
      >
        {t("confirm-yes")}
      </button>{" "}
      <button type="button" ref={no} data-confirm="no" onClick={() => setAsking(false)}>
        {t("confirm-no")}
      </button>
    </span>
  );
}
