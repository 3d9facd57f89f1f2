// The consent window. What it guards against: a click or key press meant for
// another window (a stolen focus) turning into a signature. So there is no
// default button, Enter and Space never approve, and Approve is enabled only
// once the text has been on screen for APPROVE_DELAY_MS while this window has
// the focus. A request withdrawn or expired while shown becomes a notice; the
// service refuses to sign anything not pending in any case.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, isCommandError, type Prompt } from "./api";
import { useT } from "./i18n";

export const APPROVE_DELAY_MS = 1000;
/** How often a shown request's status is checked (withdrawn, expired). */
export const POLL_MS = 1000;

type Done = { kind: "approved" | "declined" } | { kind: "gone"; status: string } | { kind: "error"; message: string };

function usePageFocus(): boolean {
  const [focused, setFocused] = useState(() => document.hasFocus());
  useEffect(() => {
    const on = () => setFocused(true);
    const off = () => setFocused(false);
    window.addEventListener("focus", on);
    window.addEventListener("blur", off);
    return () => {
      window.removeEventListener("focus", on);
      window.removeEventListener("blur", off);
    };
  }, []);
  return focused;
}

/** The consent text as text: set through textContent, never parsed as HTML. */
function PlainText(props: { text: string; id: string }) {
  const ref = useRef<HTMLPreElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.textContent = props.text;
  }, [props.text]);
  return <pre id={props.id} class="consent-text" ref={ref} tabIndex={0} />;
}

function Text(props: { value: string; class?: string; id?: string }) {
  // Preact renders a string child as a text node; named so the intent is plain.
  return (
    <span class={props.class} id={props.id}>
      {props.value}
    </span>
  );
}

export function ConsentView(props: { requestedId?: string }) {
  const t = useT();
  const [prompt, setPrompt] = useState<Prompt | null>(null);
  const [empty, setEmpty] = useState(false);
  const [done, setDone] = useState<Done | null>(null);
  const [shownSince, setShownSince] = useState<number | null>(null);
  const [, setTick] = useState(0);
  const [label, setLabel] = useState("");
  const [busy, setBusy] = useState(false);
  const focused = usePageFocus();

  async function loadNext(preferred?: string) {
    setDone(null);
    setPrompt(null);
    setEmpty(false);
    let id = preferred;
    if (!id) {
      const pending = await api.pending();
      id = pending[0]?.id;
    }
    if (!id) {
      setEmpty(true);
      return;
    }
    const p = await api.prompt(id);
    show(p);
  }

  function show(p: Prompt) {
    setPrompt(p);
    setLabel(p.label ?? "");
    if (p.status !== "pending") setDone({ kind: "gone", status: p.status });
  }

  useEffect(() => {
    loadNext(props.requestedId).catch((e) => setDone({ kind: "error", message: String(e?.message ?? e) }));
  }, [props.requestedId]);

  // The delay restarts whenever the text changes or the window regains focus.
  useEffect(() => {
    if (prompt && focused) setShownSince(Date.now());
    else setShownSince(null);
  }, [prompt?.consent_text, focused]);

  useEffect(() => {
    if (shownSince === null) return;
    const timer = setTimeout(() => setTick((n) => n + 1), APPROVE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [shownSince]);

  // Watch the shown request: withdrawn or expired turns the window into a notice.
  useEffect(() => {
    if (!prompt || done) return;
    const timer = setInterval(async () => {
      try {
        const now = await api.prompt(prompt.id);
        if (now.status !== "pending") setDone({ kind: "gone", status: now.status });
      } catch {
        setDone({ kind: "gone", status: "other" });
      }
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [prompt?.id, done]);

  // Nothing waiting: look again, so a request arriving while this window is
  // open is shown here (the app raises this window for it).
  useEffect(() => {
    if (!empty) return;
    const timer = setInterval(async () => {
      const pending = await api.pending().catch(() => []);
      if (pending.length > 0) void loadNext();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [empty]);

  // Enter and Space never approve, wherever the focus is.
  useEffect(() => {
    const guard = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if ((e.key === "Enter" || e.key === " ") && target?.dataset?.action === "approve") e.preventDefault();
    };
    window.addEventListener("keydown", guard, true);
    window.addEventListener("keyup", guard, true);
    return () => {
      window.removeEventListener("keydown", guard, true);
      window.removeEventListener("keyup", guard, true);
    };
  }, []);

  const ready = shownSince !== null && focused && Date.now() - shownSince >= APPROVE_DELAY_MS;
  const canAnswer = !!prompt && !done && !busy;

  async function answer(approve: boolean) {
    if (!prompt) return;
    setBusy(true);
    try {
      await api.answer(prompt.id, approve);
      setDone({ kind: approve ? "approved" : "declined" });
    } catch (e) {
      // Not pending any more (withdrawn, expired): say so, never retry.
      try {
        const now = await api.prompt(prompt.id);
        setDone({ kind: "gone", status: now.status === "pending" ? "other" : now.status });
      } catch {
        setDone({ kind: "error", message: isCommandError(e) ? e.message : String(e) });
      }
    } finally {
      setBusy(false);
    }
  }

  function onApproveClick(e: MouseEvent) {
    // A click made by the keyboard (Enter/Space on a focused button) has
    // detail 0; only a pointer's click approves.
    if (e.detail === 0) return;
    if (ready && canAnswer) void answer(true);
  }

  async function saveLabel() {
    if (!prompt) return;
    setBusy(true);
    try {
      show(await api.relabelRule(prompt.id, label));
    } catch (e) {
      setDone({ kind: "error", message: isCommandError(e) ? e.message : String(e) });
    } finally {
      setBusy(false);
    }
  }

  if (empty) {
    return (
      <main class="consent" aria-labelledby="consent-heading">
        <h1 id="consent-heading">{t("consent-heading")}</h1>
        <p role="status" id="consent-none">{t("consent-none")}</p>
        <Footer />
      </main>
    );
  }
  if (!prompt) {
    return (
      <main class="consent">
        {done?.kind === "error" ? <p role="alert">{t("error-prefix")} <Text value={done.message} /></p> : <p>{t("loading")}</p>}
      </main>
    );
  }

  return (
    <main class="consent" aria-labelledby="consent-heading">
      <h1 id="consent-heading">{t("consent-heading")}</h1>
      <dl class="who">
        <dt>{t("consent-from")}</dt>
        <dd><Text id="agent-name" value={prompt.agent_name} /></dd>
        <dt>{t("consent-code")}</dt>
        <dd>
          <Text id="fingerprint" class="fingerprint" value={prompt.fingerprint} />
          {prompt.kind === "pairing" && <p class="hint">{t("consent-code-hint")}</p>}
        </dd>
      </dl>
      <h2 id="consent-text-label">{t("consent-text-label")}</h2>
      <PlainText id="consent-text" text={prompt.consent_text} />
      {prompt.attention && prompt.attention.length > 0 && (
        <section class="attention" aria-labelledby="attention-heading">
          <h2 id="attention-heading">{t("consent-look-twice")}</h2>
          <ul>
            {prompt.attention.map((a, i) => (
              <li key={i} data-attention={a.kind}>
                {t(`attention-${a.kind}`)} {a.detail && <Text value={a.detail} />}
              </li>
            ))}
          </ul>
        </section>
      )}
      {prompt.kind === "rule" && !done && (
        <div class="label-edit">
          <label for="rule-label">{t("consent-label-edit")}</label>
          <input id="rule-label" type="text" value={label} maxLength={200} onInput={(e) => setLabel(e.currentTarget.value)} />
          <button type="button" onClick={() => void saveLabel()} disabled={busy || label.trim() === "" || label === prompt.label}>
            {t("consent-label-save")}
          </button>
        </div>
      )}
      {done ? (
        <Notice done={done} onNext={() => void loadNext()} />
      ) : (
        <div class="answer" role="group" aria-label={t("consent-text-label")}>
          <button
            type="button"
            id="decline"
            data-action="decline"
            class="decline"
            disabled={!canAnswer}
            onClick={() => void answer(false)}
          >
            {t("consent-decline")}
          </button>
          <button
            type="button"
            id="approve"
            data-action="approve"
            class="approve"
            disabled={!canAnswer || !ready}
            aria-describedby="approve-hint"
            onClick={onApproveClick}
          >
            {t("consent-approve")}
          </button>
          <p id="approve-hint" class="hint" aria-live="polite">
            {!ready ? (focused ? t("consent-wait") : t("consent-focus")) : ""}
          </p>
        </div>
      )}
    </main>
  );
}

function Notice(props: { done: Done; onNext: () => void }) {
  const t = useT();
  const d = props.done;
  const message =
    d.kind === "approved"
      ? t("consent-done-approved")
      : d.kind === "declined"
        ? t("consent-done-declined")
        : d.kind === "gone"
          ? t(`consent-gone-${["withdrawn", "expired", "declined", "approved"].includes(d.status) ? d.status : "other"}`)
          : d.kind === "error"
            ? `${t("error-prefix")} ${d.message}`
            : "";
  return (
    <div class="notice" role="status" id="consent-notice" data-outcome={d.kind === "gone" ? d.status : d.kind}>
      <p>{message}</p>
      <button type="button" id="next" onClick={props.onNext}>{t("consent-next")}</button>
      <Footer />
    </div>
  );
}

function Footer() {
  const t = useT();
  return (
    <p class="footer">
      <button type="button" id="open-main" onClick={() => void api.openMain()}>{t("consent-open-main")}</button>{" "}
      <button type="button" id="close" onClick={() => void api.closeWindow()}>{t("consent-close")}</button>
    </p>
  );
}
