// The consent window. What it guards against: a click or key press meant for
// another window (a stolen focus), or a burst of clicks that starts as the
// window pops up, turning into a signature, and a request swapped under the
// person's pointer. The guard against a stolen focus is the OS: every yes
// goes through the `answer` command, whose service asks the OS to confirm the
// person (polkit: their password or fingerprint) before anything is signed, so
// Approve can be reached by keyboard and announced to screen readers like any
// button. Here, there is still no default button and nothing is autofocused,
// and Approve is enabled only once the text has been on screen for
// APPROVE_DELAY_MS, with this window focused and no pointer or key pressed in
// that time (every press while it is disabled starts the delay again). It
// approves only on one activation (a pointer's single click, or Enter or Space
// on the focused button) whose own press came after it was enabled, never a
// held key's repeat, and always the request whose text is on screen: the id
// travels with the activation. The window shows the request that raised it;
// while a request is on screen, pending or answered, a new one never replaces
// it: it is announced beside it, and the person's answer (or how the request
// ended) stays in view until they dismiss it. A request withdrawn or expired
// while shown becomes a notice; the service refuses to sign anything not
// pending in any case.
import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, isCommandError, type ElsewhereView, type OfferTermsView, type PendingItem, type Prompt } from "./api";
import { useT } from "./i18n";
import { useChanges, usePendingChanges } from "./useChanges";

export const APPROVE_DELAY_MS = 1000;
/** How often a shown request's status, and new requests, are checked. */


/**
 * The first look of a window opened for a request, started by its page before
 * the window's words arrive (ui/src/consent-main.tsx): the pending list and the
 * prompt of `id`, so the text is on screen one round trip after the page runs.
 */
export type Opening = { id?: string; data: Promise<[PendingItem[], Prompt | null]> };

/** The pending list and the prompt of `id` (when given), asked for together. */
export function openingFor(id?: string): Opening {
  return { id, data: Promise.all([api.pending(), id ? api.prompt(id) : null]) };
}

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

/** The name of the User Timing mark set once the first frame that shows a consent text was painted. */
export const TEXT_PAINTED_MARK = "schcp-consent-text-painted";

/**
 * The consent text as text: set through textContent, never parsed as HTML.
 * Set in a layout effect, before the browser paints the render that brought
 * it: Preact runs a plain effect only after the next frame (or 35 ms later in
 * a window not yet drawing frames), which left a new window's first frames
 * without the text.
 *
 * `onPainted` is told once the frame that shows a new text was painted (a
 * task queued from that frame's callback, which runs before its paint, runs
 * after it): Approve's delay starts there, never before the text was on
 * screen, however late a new window draws its first frame. That moment is
 * also marked (User Timing, the text as the mark's detail, one mark kept):
 * the desktop benchmark reads it from a window the page opened itself, where
 * nothing could watch the page from its start.
 */
function PlainText(props: { text: string; id: string; onPainted: (text: string) => void }) {
  const ref = useRef<HTMLPreElement>(null);
  const onPainted = useRef(props.onPainted);
  onPainted.current = props.onPainted;
  useLayoutEffect(() => {
    if (!ref.current) return;
    ref.current.textContent = props.text;
    const text = props.text;
    let replaced = false;
    requestAnimationFrame(() =>
      setTimeout(() => {
        if (replaced) return;
        performance.clearMarks(TEXT_PAINTED_MARK);
        performance.mark(TEXT_PAINTED_MARK, { detail: text });
        onPainted.current(text);
      }, 0),
    );
    return () => {
      replaced = true;
    };
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

export function ConsentView(props: { requestedId?: string; opening?: Opening }) {
  const t = useT();
  const [prompt, setPrompt] = useState<Prompt | null>(null);
  const [empty, setEmpty] = useState(false);
  const [done, setDone] = useState<Done | null>(null);
  const [shownSince, setShownSince] = useState<number | null>(null);
  /** The text whose first frame was painted (PlainText), once it was. */
  const [paintedText, setPaintedText] = useState<string | null>(null);
  const [, setTick] = useState(0);
  const [label, setLabel] = useState("");
  const [busy, setBusy] = useState(false);
  /** Requests that arrived while a pending one was shown, oldest first. */
  const [announced, setAnnounced] = useState<string[]>([]);
  const focused = usePageFocus();
  /** Ids already pending when looked at, so only a new one is an arrival. */
  const known = useRef(new Set<string>());
  /** When the last pointer press was, and whether it was on Approve. */
  const lastPress = useRef<{ at: number; onApprove: boolean } | null>(null);
  // What the listeners and the click handlers read: this render's values.
  const live = useRef({ prompt, done, shownSince, focused, paintedText });
  live.current = { prompt, done, shownSince, focused, paintedText };

  /** The page's first look, used once, for the request it was started for. */
  const opening = useRef(props.opening);

  async function loadNext(preferred?: string) {
    setDone(null);
    setPrompt(null);
    setPaintedText(null);
    setEmpty(false);
    const early = opening.current?.id === preferred ? opening.current : undefined;
    opening.current = undefined;
    // The request asked for is fetched beside the pending list, not after it:
    // the text is on screen one round trip sooner.
    const [pending, wanted] = await (early ?? openingFor(preferred)).data;
    for (const p of pending) known.current.add(p.id);
    const id = preferred ?? pending[0]?.id;
    if (!id) {
      setEmpty(true);
      return;
    }
    known.current.add(id);
    setAnnounced((a) => a.filter((x) => x !== id));
    show(wanted ?? (await api.prompt(id)));
  }

  function show(p: Prompt) {
    setPrompt(p);
    setLabel(p.label ?? "");
    if (p.status !== "pending") setDone({ kind: "gone", status: p.status });
  }

  const fail = (e: unknown) => setDone({ kind: "error", message: String((e as { message?: string })?.message ?? e) });

  /**
   * A request raised this window: shown at once when nothing is on screen;
   * beside a request on screen, pending or answered, announced, so neither a
   * text being read nor the notice of an answer is swapped away.
   */
  function arrive(id: string) {
    known.current.add(id);
    const { prompt: shown } = live.current;
    if (shown?.id === id) return;
    if (!shown) {
      loadNext(id).catch(fail);
    } else {
      setAnnounced((a) => (a.includes(id) ? a : [...a, id]));
    }
  }

  // A layout effect, so the first look is waited for from the first render,
  // not after the frame Preact waits for before a plain effect (a new
  // window's first frames come late). It only starts loads.
  const mounted = useRef(false);
  useLayoutEffect(() => {
    if (!mounted.current) {
      mounted.current = true;
      loadNext(props.requestedId).catch(fail);
    } else if (props.requestedId) {
      arrive(props.requestedId);
    }
  }, [props.requestedId]);

  // The delay starts once the text's first frame was painted, and restarts
  // whenever the text changes or the window regains focus.
  useEffect(() => {
    if (prompt && focused && paintedText === prompt.consent_text) setShownSince(Date.now());
    else setShownSince(null);
  }, [prompt?.id, prompt?.consent_text, focused, paintedText]);

  useEffect(() => {
    if (shownSince === null) return;
    const timer = setTimeout(() => setTick((n) => n + 1), APPROVE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [shownSince]);

  // Every press while Approve is disabled starts its delay again, so a burst
  // of clicks or keys never runs into the moment it is enabled.
  useEffect(() => {
    const restart = () => {
      const { prompt: shown, shownSince: since, focused: hasFocus, paintedText: painted } = live.current;
      // Not before the text's first frame was painted: that starts the delay.
      if (shown && hasFocus && painted === shown.consent_text && !isReady(since, hasFocus)) setShownSince(Date.now());
    };
    const onApprove = (e: Event) => !!(e.target as HTMLElement | null)?.closest?.('[data-action="approve"]');
    const onPointer = (e: Event) => {
      lastPress.current = { at: Date.now(), onApprove: onApprove(e) };
      restart();
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Enter" || e.key === " ") {
        // A held key's repeats are not a new press: they never activate Approve.
        if (e.repeat && onApprove(e)) {
          e.preventDefault();
          return;
        }
      }
      restart();
    };
    window.addEventListener("pointerdown", onPointer, true);
    window.addEventListener("keydown", onKey, true);
    return () => {
      window.removeEventListener("pointerdown", onPointer, true);
      window.removeEventListener("keydown", onKey, true);
    };
  }, []);

  // Watch the shown request: withdrawn or expired turns the window into a notice.
  useChanges(
    async () => {
      if (!prompt) return;
      try {
        const now = await api.prompt(prompt.id);
        if (now.status !== "pending") setDone({ kind: "gone", status: now.status });
      } catch (e) {
        // Only a request the service no longer knows is gone; any other
        // refusal (busy records, 503) says nothing about the request, which
        // still waits: the next change looks again.
        if (isCommandError(e) && e.code === "NOT_FOUND") setDone({ kind: "gone", status: "other" });
      }
    },
    !!prompt && !done,
    [prompt?.id, done],
  );

  // New requests while one is shown: each is an arrival (announced beside a
  // pending one, shown at once in place of an answered one).
  useChanges(
    async () => {
      const pending = await api.pending().catch(() => []);
      const fresh = pending.map((p) => p.id).filter((id) => !known.current.has(id));
      if (fresh.length > 0) arrive(fresh[0]);
      for (const id of fresh.slice(1)) known.current.add(id);
    },
    !!prompt,
    [prompt?.id],
  );

  // Nothing waiting: the next change that leaves something pending shows it
  // here (the app raises this window for it), straight from the wait's answer,
  // which carries the oldest one's prompt: no further command before the text.
  usePendingChanges(
    (change) => {
      const first = change.oldest;
      if (!first) return;
      for (const p of change.pending) known.current.add(p.id);
      known.current.add(first.id);
      setAnnounced((a) => a.filter((x) => x !== first.id));
      setDone(null);
      setEmpty(false);
      show(first);
    },
    empty,
    [],
  );

  // A terminal or another program asking the OS to approve something: the
  // OS's prompt reads the same for every approval, so the window says what it
  // is for, beside the text it approves, and beside anything else it shows
  // (another request, one already answered, none), where a person who just
  // clicked Approve would take the prompt for their own.
  const [elsewhere, setElsewhere] = useState<ElsewhereView | null>(null);
  const lookElsewhere = () => {
    api.askedElsewhere().then(setElsewhere, () => setElsewhere(null));
  };
  useEffect(lookElsewhere, [prompt?.id]);
  useChanges(lookElsewhere, true, [prompt?.id]);
  // The request on screen is still to answer (not answered, or its answer
  // refused, say a cancelled prompt), so a prompt for it is for this text.
  const forThis = !!elsewhere && !!prompt && elsewhere.id === prompt.id && (!done || done.kind === "error");
  const forOther = elsewhere && !forThis && (
    <p class="elsewhere" role="alert" id="consent-asked-elsewhere-other">
      <Text value={elsewhere.other} />
    </p>
  );

  const ready = isReady(shownSince, focused);
  const canAnswer = !!prompt && !done && !busy;

  async function answer(id: string, approve: boolean) {
    setBusy(true);
    try {
      await api.answer(id, approve);
      setDone({ kind: approve ? "approved" : "declined" });
    } catch (e) {
      // Only a not_pending refusal means the request is gone (withdrawn,
      // expired, answered elsewhere): say how it ended, never retry. Any other
      // (busy records, the OS did not confirm the person) leaves it waiting,
      // and its message says why in the person's words.
      if (!isCommandError(e) || e.reason !== "not_pending") {
        setDone({ kind: "error", message: isCommandError(e) ? e.message : String(e) });
        return;
      }
      try {
        const now = await api.prompt(id);
        setDone({ kind: "gone", status: now.status === "pending" ? "other" : now.status });
      } catch {
        setDone({ kind: "error", message: e.message });
      }
    } finally {
      setBusy(false);
    }
  }

  /** The id the clicked button carries, when it is the request whose text is on screen. */
  function shownId(e: MouseEvent): string | null {
    const id = (e.currentTarget as HTMLElement | null)?.dataset?.requestId;
    return id && id === live.current.prompt?.id ? id : null;
  }

  function onApproveClick(e: MouseEvent) {
    // A pointer's single click has detail 1, a double or triple click 2 or
    // more: only a single click approves, and only one pressed after Approve
    // was enabled (a press while it was disabled restarted the delay instead).
    // A click with detail 0 is the keyboard's (Enter or Space on the focused
    // button, which cannot be focused while disabled) or a screen reader's
    // press: it approves once Approve is enabled; a held key's repeats never
    // reach it (see onKey). Either way the OS then asks the person to confirm
    // it is them (`answer`), the guard against a press the person did not make.
    if (e.detail > 1) return;
    const { shownSince: since, focused: hasFocus } = live.current;
    if (since === null || !isReady(since, hasFocus)) return;
    if (e.detail === 1) {
      const press = lastPress.current;
      if (!press?.onApprove || press.at < since + APPROVE_DELAY_MS) return;
    }
    const id = shownId(e);
    if (id && canAnswer) void answer(id, true);
  }

  function onDeclineClick(e: MouseEvent) {
    const id = shownId(e);
    if (id && canAnswer) void answer(id, false);
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
        {forOther}
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

  // The service grades the callouts, gravest first; a root mandate without
  // some limit gets its own line above the text (schcp_consent::attention).
  const wide = prompt.attention?.find((a) => a.kind === "wide_mandate");
  const callouts = (prompt.attention ?? []).filter((a) => a.kind !== "wide_mandate");
  return (
    <main class="consent" aria-labelledby="consent-heading" data-request-id={prompt.id}>
      <h1 id="consent-heading">{t(prompt.kind === "pairing" ? "consent-heading-pairing" : "consent-heading")}</h1>
      {announced.length > 0 && !done && (
        <Announce
          id={announced[0]}
          words="consent-announce"
          button="consent-announce-show"
          onShow={() => loadNext(announced[0]).catch(fail)} />
      )}
      {forThis && <p class="elsewhere" role="alert" id="consent-asked-elsewhere">{t("consent-asked-elsewhere")}</p>}
      {forOther}
      <dl class="who">
        <dt>{t("consent-from")}</dt>
        <dd><Text id="agent-name" value={prompt.agent_name} /></dd>
        {/* The code is compared once, at pairing; a booking request is the
            paired assistant's, named above. */}
        {prompt.kind === "pairing" && (
          <>
            <dt>{t("consent-code")}</dt>
            <dd>
              <Text id="fingerprint" class="fingerprint" value={prompt.fingerprint} />
              <p class="hint">{t("consent-code-hint")}</p>
            </dd>
          </>
        )}
        {prompt.status === "pending" && !done && (
          <>
            <dt>{t("consent-expires")}</dt>
            <dd>
              <ExpiresIn at={prompt.expires_at} />
            </dd>
          </>
        )}
      </dl>
      {prompt.churn && (
        <p id="consent-churn" class="warning" role="alert">
          <Text value={prompt.churn} />
        </p>
      )}
      {wide && (
        <p id="consent-wide" class="wide" role="note" data-attention="wide_mandate">
          <strong>{t("attention-wide_mandate")}</strong> {wide.detail && <Text value={wide.detail} />}
        </p>
      )}
      <h2 id="consent-text-label">{t("consent-text-label")}</h2>
      <PlainText key={prompt.id} id="consent-text" text={prompt.consent_text} onPainted={setPaintedText} />
      {prompt.terms && <Terms terms={prompt.terms} />}
      {callouts.length > 0 && (
        <section class="attention" aria-labelledby="attention-heading">
          <h2 id="attention-heading">{t("consent-look-twice")}</h2>
          <ul>
            {callouts.map((a, i) => (
              <li key={i} data-attention={a.kind} data-grade={a.grade} class={`grade-${a.grade}`}>
                <span class="grade">{t(`attention-grade-${a.grade}`)}</span> {t(`attention-${a.kind}`)}{" "}
                {a.detail && <Text value={a.detail} />}
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
        <Notice done={done} requestId={prompt.id} onNext={() => void loadNext()}>
          {announced.length > 0 && (
            <Announce
              id={announced[0]}
              words="consent-announce-after"
              button="consent-announce-review"
              onShow={() => loadNext(announced[0]).catch(fail)}
            />
          )}
        </Notice>
      ) : (
        <div class="answer" role="group" aria-label={t("consent-text-label")}>
          <button
            type="button"
            id="decline"
            data-action="decline"
            data-request-id={prompt.id}
            class="decline"
            disabled={!canAnswer}
            onClick={onDeclineClick}
          >
            {t("consent-decline")}
          </button>
          <button
            type="button"
            id="approve"
            data-action="approve"
            data-request-id={prompt.id}
            class="approve"
            disabled={!canAnswer || !ready}
            aria-describedby="approve-hint approve-verify"
            onClick={onApproveClick}
          >
            {t("consent-approve")}
          </button>
          <p id="approve-hint" class="hint" aria-live="polite">
            {!ready ? (focused ? t("consent-wait") : t("consent-focus")) : t("consent-ready")}
          </p>
          <p id="approve-verify" class="hint">
            {t("consent-verify")}
          </p>
        </div>
      )}
    </main>
  );
}

/** Approve's delay has run, with the window focused, since `since`. */
function isReady(since: number | null, focused: boolean): boolean {
  return since !== null && focused && Date.now() - since >= APPROVE_DELAY_MS;
}

/**
 * The offer's price, line by line, and the host's address, laid out from the
 * service's typed values (`schcp_consent::offer_terms`, computed from the
 * verified claims), never read back out of the consent text. Every value is
 * host-supplied or worded by the service and shown as text.
 */
function Terms(props: { terms: OfferTermsView }) {
  const t = useT();
  const { terms } = props;
  const priced = terms.lines.length > 0 || !!terms.total;
  if (!priced && !terms.address) return null;
  const heading = priced && terms.address ? "consent-terms-heading" : priced ? "consent-terms-price" : "consent-address";
  return (
    <section class="terms" id="consent-terms" aria-labelledby="terms-heading">
      <h2 id="terms-heading">{t(heading)}</h2>
      {priced && (
        <table id="consent-price">
          <caption>{t("consent-price")}</caption>
          <tbody>
            {terms.lines.map((l, i) => (
              <tr key={i} data-kind={l.kind}>
                <th scope="row">
                  <Text value={l.label} />
                </th>
                <td class="amount">
                  <Text value={l.amount} />
                </td>
              </tr>
            ))}
          </tbody>
          {terms.total && (
            <tfoot>
              <tr>
                <th scope="row">{t("consent-total")}</th>
                <td class="amount" id="consent-total">
                  <Text value={terms.total} />
                </td>
              </tr>
            </tfoot>
          )}
        </table>
      )}
      {terms.address && (
        <dl class="where">
          <dt>{t("consent-address")}</dt>
          <dd id="consent-address">
            <Text value={terms.host} />
            {" — "}
            <Text value={terms.address} />
          </dd>
        </dl>
      )}
    </section>
  );
}

/** A request that arrived beside the one on screen, and the person's way to it. */
function Announce(props: { id: string; words: string; button: string; onShow: () => void }) {
  const t = useT();
  return (
    <div class="announce" id="consent-announce" role="status" data-request-id={props.id}>
      <p>{t(props.words)}</p>
      <button type="button" id="consent-announce-show" onClick={props.onShow}>
        {t(props.button)}
      </button>
    </div>
  );
}

function Notice(props: { done: Done; requestId: string; onNext: () => void; children?: ComponentChildren }) {
  const t = useT();
  const d = props.done;
  // The outcome is brought into view and stays there (sticky, style.css) until
  // the person moves on: a notice that scrolled away could leave a new request
  // waiting behind a text the person thinks is still open.
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    box.current?.scrollIntoView?.({ block: "start" });
  }, [d]);
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
    <div
      ref={box}
      class="notice"
      role="status"
      id="consent-notice"
      data-request-id={props.requestId}
      data-outcome={d.kind === "gone" ? d.status : d.kind}
    >
      <p>{message}</p>
      {props.children}
      <button type="button" id="next" onClick={props.onNext}>{t("consent-next")}</button>
      <Footer />
    </div>
  );
}

/**
 * When the request stops waiting, counted down live in the window's language
 * ("in 9 minutes", "dans 9 minutes"), from the service's `expires_at`. The
 * timer only redraws the words; the service says when the request is gone.
 */
export function ExpiresIn(props: { at: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <time id="consent-expires-in" dateTime={new Date(props.at * 1000).toISOString()}>
      {relative(props.at * 1000 - now, document.documentElement.lang || "en")}
    </time>
  );
}

/** `ms` from now in words: seconds under a minute, else whole minutes (rounded up, never earlier). */
export function relative(ms: number, lang: string): string {
  const words = new Intl.RelativeTimeFormat(lang, { numeric: "always" });
  const secs = Math.max(0, Math.ceil(ms / 1000));
  return secs < 60 ? words.format(secs, "second") : words.format(Math.ceil(secs / 60), "minute");
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
