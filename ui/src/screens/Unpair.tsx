// Unpairing an assistant, inline like every destructive button: the question,
// and when it holds credentials a revocation reaches, the service's own
// question about them (SchCP §3.3 check 7) with "Unpair and revoke" beside
// "Unpair only"; the credentials nothing can revoke are named. No has the
// focus. Every sentence is the service's; this only lays them out.
import { useEffect, useRef, useState } from "preact/hooks";
import type { AgentView, UnpairedView } from "../api";
import { useT } from "../i18n";

export function UnpairButton(props: { agent: AgentView; onUnpair: (revoke: boolean) => Promise<void> | void }) {
  const t = useT();
  const [asking, setAsking] = useState(false);
  const no = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) no.current?.focus();
  }, [asking]);
  const { holds } = props.agent;
  if (!asking) {
    return (
      <button type="button" onClick={() => setAsking(true)}>
        {t("agents-unpair")}
      </button>
    );
  }
  const answer = (revoke: boolean) => async () => {
    await props.onUnpair(revoke);
    setAsking(false);
  };
  const question = holds.question ? `${t("agents-unpair-confirm")} ${holds.question}` : t("agents-unpair-confirm");
  return (
    <span role="group" aria-label={question} class="confirm">
      <span>{question}</span>
      {holds.not_revocable.length > 0 && (
        <ul class="kept">
          {holds.not_revocable.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}{" "}
      {holds.question ? (
        <>
          <button type="button" class="danger" data-confirm="revoke" onClick={answer(true)}>
            {t("agents-unpair-and-revoke")}
          </button>{" "}
          <button type="button" data-confirm="only" onClick={answer(false)}>
            {t("agents-unpair-only")}
          </button>
        </>
      ) : (
        <button type="button" class="danger" data-confirm="yes" onClick={answer(false)}>
          {t("confirm-yes")}
        </button>
      )}{" "}
      <button type="button" ref={no} data-confirm="no" onClick={() => setAsking(false)}>
        {t("confirm-no")}
      </button>
    </span>
  );
}

/** What unpairing did, in the service's words. */
export function Unpaired(props: { done: UnpairedView | null }) {
  if (!props.done) return null;
  return (
    <div role="status" class="notice" id="unpaired">
      <p>{props.done.words}</p>
      {props.done.kept.length > 0 && (
        <ul>
          {props.done.kept.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
