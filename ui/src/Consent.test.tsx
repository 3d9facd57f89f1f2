// The consent view's guards, in jsdom with the command layer mocked: the text
// is shown as text, Approve waits for the text to be seen with the window
// focused, one activation (pointer or keyboard) pressed after that approves
// through the `answer` command (whose service asks the OS to confirm the
// person before signing), and a request gone while shown is a notice.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ElsewhereView, PendingItem, Prompt } from "./api";

const calls: { answer: [string, boolean][]; commands: string[] } = { answer: [], commands: [] };
let current: Prompt;
/** Other requests by id (the one the window was raised for, a newer one). */
let others: Record<string, Prompt> = {};
let waiting = true;
/** What a terminal or another program asks the OS to approve, if anything. */
let elsewhere: ElsewhereView | null = null;
/** A program's confirmation of `id` (a request or pairing, or nothing pending). */
function askedFor(id: string | null): ElsewhereView {
  return { id, other: `not for this window: approve ${id ?? "a new contact"}` };
}
let answerResult: () => Promise<unknown> = async () => ({ status: "approved" });
/** A refusal the next looks at the shown request meet, if any. */
let promptRefusal: object | null = null;
/**
 * The service's change counter as `wait_change` reports it. By default the
 * records change every half second (so tests that move the clock see changes
 * as the app would); `manual` leaves the counter to `changed()` alone.
 */
let counter = 0;
let manual = false;
let waiters: ((n: number) => void)[] = [];
const looks = { prompt: 0, pending: 0 };
function changed() {
  counter += 1;
  const ready = waiters;
  waiters = [];
  for (const w of ready) w(counter);
}

vi.mock("./api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    pending: async () => {
      looks.pending += 1;
      return waiting ? [{ id: current.id }, ...Object.keys(others).map((id) => ({ id }))] : [];
    },
    prompt: async (id: string) => {
      looks.prompt += 1;
      if (promptRefusal) throw promptRefusal;
      return { ...(others[id] ?? current) };
    },
    answer: async (id: string, approve: boolean) => {
      calls.commands.push("answer");
      calls.answer.push([id, approve]);
      return answerResult();
    },
    relabelRule: async (_id: string, label: string) => ({ ...current, label }),
    askedElsewhere: async () => elsewhere,
    openMain: async () => {},
    closeWindow: async () => {},
    waitChange: (seen: number | null) => nextChange(seen),
    // What the service sends with a change: the pending list and the oldest
    // one's prompt, read from the same state, counted apart from the looks.
    waitPending: async (seen: number | null) => {
      const n = await nextChange(seen);
      calls.commands.push("wait_pending");
      const pending = waiting ? [{ id: current.id }, ...Object.keys(others).map((id) => ({ id }))] : [];
      const oldest = pending.length > 0 ? { ...(others[pending[0].id] ?? current) } : undefined;
      return { seen: n, pending, oldest };
    },
  },
}));

function nextChange(seen: number | null) {
  return new Promise<number>((resolve) => {
    if (seen === null || seen !== counter) return resolve(counter);
    if (manual) return waiters.push(resolve);
    setTimeout(() => {
      counter += 1;
      resolve(counter);
    }, 500);
  });
}

import { APPROVE_DELAY_MS, ConsentView, relative, TEXT_PAINTED_MARK } from "./Consent";
import { StringsContext } from "./i18n";

const HOSTILE = 'Book "<img src=x onerror=alert(1)>" {{constructor.constructor("alert(2)")()}}\n<b>not bold</b> &amp; ${x}';

function prompt(over: Partial<Prompt> = {}): Prompt {
  return {
    id: "rq_1",
    kind: "closed_mandate",
    status: "pending",
    agent_name: "<script>alert(3)</script> Assistant",
    fingerprint: "7F3A-91C2-K8QD",
    consent_text: HOSTILE,
    created_at: 0,
    expires_at: 600,
    attention: [],
    ...over,
  };
}

const STRINGS = { "consent-approve": "Approve", "consent-decline": "Decline" };

function view(requestedId?: string) {
  return (
    <StringsContext.Provider value={STRINGS}>
      <ConsentView requestedId={requestedId} />
    </StringsContext.Provider>
  );
}

/** Renders the window (raised for `requestedId`); returns how to raise it again for another. */
/** Long enough for a frame (the fake clock draws one every 16 ms) and the task after it. */
const FRAME_MS = 20;

async function mount(requestedId?: string) {
  const { rerender } = render(view(requestedId));
  // Let the pending → prompt loads settle, and the text's first frame be
  // painted: Approve's delay runs from there.
  await settle();
  await settle(FRAME_MS);
  return async (id: string) => {
    rerender(view(id));
    await settle();
    await settle(FRAME_MS);
  };
}

async function settle(ms = 0) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

const approve = () => screen.getByRole("button", { name: "Approve" }) as HTMLButtonElement;

/** A pointer's click as a browser makes it: the press, then the click (`detail` clicks in a row). */
function press(el: HTMLElement, detail = 1) {
  fireEvent.pointerDown(el);
  fireEvent.click(el, { detail });
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(document, "hasFocus").mockReturnValue(true);
  calls.answer = [];
  calls.commands = [];
  others = {};
  waiting = true;
  elsewhere = null;
  current = prompt();
  answerResult = async () => ({ status: "approved" });
  promptRefusal = null;
  manual = false;
  waiters = [];
  looks.prompt = 0;
  looks.pending = 0;
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("the consent view", () => {
  it("shows the service's text and names literally, never as markup", async () => {
    await mount();
    const pre = document.getElementById("consent-text")!;
    expect(pre.textContent).toBe(HOSTILE);
    expect(document.querySelector("img")).toBeNull();
    expect(document.querySelector("b")).toBeNull();
    expect(document.querySelector("script")).toBeNull();
    expect(document.getElementById("agent-name")!.textContent).toBe("<script>alert(3)</script> Assistant");
    // A booking request does not repeat the pairing code.
    expect(document.getElementById("fingerprint")).toBeNull();
    expect(document.getElementById("consent-heading")!.textContent).toBe("consent-heading");
  });

  it("marks the painted first frame that shows the text, with that text", async () => {
    // The clock is faked here, performance with it: the marks are watched.
    const marks: unknown[] = [];
    vi.spyOn(performance, "clearMarks").mockImplementation((name?: string) => {
      if (name === TEXT_PAINTED_MARK) marks.length = 0;
    });
    vi.spyOn(performance, "mark").mockImplementation((name: string, options?: PerformanceMarkOptions) => {
      if (name === TEXT_PAINTED_MARK) marks.push(options?.detail);
      return undefined as unknown as PerformanceMark;
    });
    // Frames held back: the text is in place before any, the mark after one.
    const frames: FrameRequestCallback[] = [];
    vi.spyOn(window, "requestAnimationFrame").mockImplementation((f) => frames.push(f));
    render(view());
    await settle();
    expect(document.getElementById("consent-text")!.textContent).toBe(HOSTILE);
    await settle(5000);
    expect(marks).toEqual([]);
    await act(async () => {
      frames.splice(0).forEach((f) => f(0));
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(marks).toEqual([HOSTILE]);
  });

  it("starts Approve's delay when the text's first frame was painted, however late", async () => {
    const frames: FrameRequestCallback[] = [];
    vi.spyOn(window, "requestAnimationFrame").mockImplementation((f) => frames.push(f));
    render(view());
    // A window that draws no frame for seconds: the text is not yet on screen.
    await settle(APPROVE_DELAY_MS * 5);
    await settle(APPROVE_DELAY_MS * 2);
    expect(approve().disabled).toBe(true);
    // A press does not start the delay either, before that frame.
    fireEvent.keyDown(document.body, { key: "a" });
    await settle(APPROVE_DELAY_MS * 2);
    expect(approve().disabled).toBe(true);
    await act(async () => {
      frames.splice(0).forEach((f) => f(0));
      await vi.advanceTimersByTimeAsync(1);
    });
    await settle(APPROVE_DELAY_MS - 10);
    expect(approve().disabled).toBe(true);
    await settle(20);
    expect(approve().disabled).toBe(false);
  });

  it("gives a pairing its own heading and the code to compare", async () => {
    current = prompt({ id: "pr_9", kind: "pairing", consent_text: "Pair?" });
    await mount();
    expect(document.getElementById("consent-heading")!.textContent).toBe("consent-heading-pairing");
    expect(document.getElementById("fingerprint")!.textContent).toBe("7F3A-91C2-K8QD");
  });

  it("counts down to the request's expiry in the window's language, live", async () => {
    vi.setSystemTime(new Date(1_000_000 * 1000));
    current = prompt({ expires_at: 1_000_000 + 9 * 60 });
    await mount();
    expect(document.getElementById("consent-expires-in")!.textContent).toBe("in 9 minutes");
    await settle(8 * 60 * 1000 + 30 * 1000);
    expect(document.getElementById("consent-expires-in")!.textContent).toBe("in 30 seconds");
    expect(relative(9 * 60 * 1000 + 1, "fr")).toBe("dans 10 minutes");
  });

  it("warns beside a pairing whose user keeps having pairings turned away, and only then", async () => {
    const churn = "4 other pairing requests from the same user account <b>were declined</b>";
    current = prompt({ id: "pr_1", kind: "pairing", consent_text: "Pair?", churn });
    await mount();
    const warning = document.getElementById("consent-churn")!;
    expect(warning.getAttribute("role")).toBe("alert");
    expect(warning.textContent).toBe(churn);
    expect(warning.querySelector("b")).toBeNull();
    cleanup();
    current = prompt({ id: "pr_2", kind: "pairing", consent_text: "Pair?" });
    await mount();
    expect(document.getElementById("consent-churn")).toBeNull();
  });

  it("enables Approve only after the text was visible for a second with the window focused", async () => {
    await mount();
    expect(approve().disabled).toBe(true);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(APPROVE_DELAY_MS - 10);
    });
    expect(approve().disabled).toBe(true);
    fireEvent.click(approve(), { detail: 1 });
    expect(calls.answer).toEqual([]);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(20);
    });
    expect(approve().disabled).toBe(false);

    // Focus lost: disabled; regained: the full delay again.
    await act(async () => {
      window.dispatchEvent(new Event("blur"));
    });
    expect(approve().disabled).toBe(true);
    await act(async () => {
      window.dispatchEvent(new Event("focus"));
      await vi.advanceTimersByTimeAsync(APPROVE_DELAY_MS / 2);
    });
    expect(approve().disabled).toBe(true);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(APPROVE_DELAY_MS);
    });
    expect(approve().disabled).toBe(false);
  });

  it("stays disabled while the window does not have the focus", async () => {
    vi.spyOn(document, "hasFocus").mockReturnValue(false);
    await mount();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(APPROVE_DELAY_MS * 5);
    });
    expect(approve().disabled).toBe(true);
  });

  it("approves on a pointer's single click pressed after Approve was enabled", async () => {
    await mount();
    await settle(APPROVE_DELAY_MS + 10);
    // Neither button is a default: no submit buttons, nothing autofocused.
    expect(document.querySelectorAll('button[type="submit"], [autofocus]').length).toBe(0);
    press(approve());
    await settle(0);
    expect(calls.answer).toEqual([["rq_1", true]]);
    expect(document.getElementById("consent-notice")!.dataset.outcome).toBe("approved");
  });

  /**
   * While a program's prompt for `id` is on screen, the window says `said`
   * (an alert) and not the other sentence; once it is gone (answered or
   * cancelled), neither. Returns what was said.
   */
  async function saidWhileAsked(id: string, said: string, unsaid: string): Promise<string | null> {
    elsewhere = askedFor(id);
    await settle(600);
    const alert = document.getElementById(said)!;
    expect(alert.getAttribute("role")).toBe("alert");
    expect(document.getElementById(unsaid)).toBeNull();
    const text = alert.textContent;
    elsewhere = null;
    await settle(600);
    expect(document.getElementById(said)).toBeNull();
    return text;
  }

  it("says so while a terminal or another program asks the OS to approve the request on screen", async () => {
    await mount();
    expect(document.getElementById("consent-asked-elsewhere")).toBeNull();
    const said = await saidWhileAsked(current.id, "consent-asked-elsewhere", "consent-asked-elsewhere-other");
    expect(said).toBe("consent-asked-elsewhere");
  });

  it("says so at once when the window opens on a request asked elsewhere", async () => {
    elsewhere = askedFor("rq_1");
    await mount("rq_1");
    expect(document.getElementById("consent-asked-elsewhere")).not.toBeNull();
  });

  // The OS's prompt reads the same for every approval: a program's prompt
  // for another request must not pass for the one on screen.
  it("says what a program's prompt is for while another request is on screen", async () => {
    await mount();
    const said = await saidWhileAsked("rq_other", "consent-asked-elsewhere-other", "consent-asked-elsewhere");
    expect(said).toBe("not for this window: approve rq_other");
  });

  // The person's own prompt ended and the window shows their answer: a
  // program's prompt coming just then would read as a second one of theirs.
  it("says what a program's prompt is for after the person answered", async () => {
    await mount();
    await settle(APPROVE_DELAY_MS + 10);
    press(approve());
    await settle(0);
    expect(document.getElementById("consent-notice")!.dataset.outcome).toBe("approved");
    elsewhere = askedFor(current.id);
    await settle(600);
    expect(document.getElementById("consent-asked-elsewhere-other")!.textContent).toBe(
      "not for this window: approve rq_1",
    );
    expect(document.getElementById("consent-asked-elsewhere")).toBeNull();
  });

  // The person cancelled their own prompt: the request is still theirs to
  // answer, so a program's prompt for it is said to be for this text.
  it("says a program asks to approve the request on screen after the person's own prompt was refused", async () => {
    answerResult = async () => {
      throw { code: "NOT_PERMITTED", reason: "verification_cancelled", message: "cancelled" };
    };
    await mount();
    await settle(APPROVE_DELAY_MS + 10);
    press(approve());
    await settle(0);
    elsewhere = askedFor(current.id);
    await settle(600);
    expect(document.getElementById("consent-asked-elsewhere")).not.toBeNull();
    expect(document.getElementById("consent-asked-elsewhere-other")).toBeNull();
  });

  it("says what a program's prompt is for with no request to show", async () => {
    waiting = false;
    elsewhere = askedFor(null);
    await mount();
    expect(document.getElementById("consent-none")).not.toBeNull();
    expect(document.getElementById("consent-asked-elsewhere-other")!.textContent).toBe(
      "not for this window: approve a new contact",
    );
  });

  it("turns a request withdrawn while shown into a notice, with nothing to approve", async () => {
    const scrolled = vi.fn();
    Element.prototype.scrollIntoView = scrolled;
    await mount();
    current = prompt({ status: "withdrawn" });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(APPROVE_DELAY_MS + 10);
    });
    expect(screen.queryByRole("button", { name: "Approve" })).toBeNull();
    expect(document.getElementById("consent-notice")!.dataset.outcome).toBe("withdrawn");
    expect(calls.answer).toEqual([]);
    // Brought into view, not left below the fold.
    expect(scrolled).toHaveBeenCalled();
    expect(scrolled.mock.contexts[scrolled.mock.contexts.length - 1]).toBe(document.getElementById("consent-notice"));
  });

  it("shows a refused approval (expired meanwhile) as expired, never as approved", async () => {
    await mount();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(APPROVE_DELAY_MS + 10);
    });
    answerResult = async () => {
      current = prompt({ status: "expired" });
      throw { code: "INVALID_STATE", reason: "not_pending", message: "the request is expired, not pending" };
    };
    press(approve());
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(calls.answer).toEqual([["rq_1", true]]);
    expect(document.getElementById("consent-notice")!.dataset.outcome).toBe("expired");
  });

  it("shows a refusal that leaves the request waiting (busy records) as that refusal, never as gone", async () => {
    await mount();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(APPROVE_DELAY_MS + 10);
    });
    // The request is still pending: the records were busy, nothing was decided.
    answerResult = async () => {
      throw { code: "UNAVAILABLE", reason: "busy", message: "Your records are busy for a moment; try again." };
    };
    press(approve());
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(calls.answer).toEqual([["rq_1", true]]);
    const notice = document.getElementById("consent-notice")!;
    expect(notice.dataset.outcome).toBe("error");
    expect(notice.textContent).toContain("Your records are busy for a moment; try again.");
    expect(notice.textContent).not.toContain("consent-gone");
  });

  it("keeps showing a request whose status could not be read for a moment (busy records)", async () => {
    await mount();
    promptRefusal = { code: "UNAVAILABLE", reason: "busy", message: "Your records are busy for a moment; try again." };
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1500);
    });
    expect(document.getElementById("consent-notice")).toBeNull();
    expect(approve().disabled).toBe(false);
    // Gone for good: the service no longer knows it.
    promptRefusal = { code: "NOT_FOUND", reason: "not_found", message: "no such request" };
    await act(async () => {
      await vi.advanceTimersByTimeAsync(510);
    });
    expect(document.getElementById("consent-notice")!.dataset.outcome).toBe("other");
  });

  it("shows the OS not confirming the person as that refusal: the request still waits", async () => {
    await mount();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(APPROVE_DELAY_MS + 10);
    });
    answerResult = async () => {
      throw { code: "NOT_PERMITTED", reason: "user_not_verified", message: "It is still waiting for your answer." };
    };
    press(approve());
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    const notice = document.getElementById("consent-notice")!;
    expect(notice.dataset.outcome).toBe("error");
    expect(notice.textContent).toContain("It is still waiting for your answer.");
  });

  it("shows a request that arrives while the window says nothing is waiting", async () => {
    waiting = false;
    await mount();
    expect(document.getElementById("consent-none")).not.toBeNull();
    waiting = true;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1100);
    });
    expect(document.getElementById("consent-text")!.textContent).toBe(HOSTILE);
    expect(approve().disabled).toBe(true);
  });

  it("lets the person edit a rule's label, and the text shown is the service's answer", async () => {
    current = prompt({ kind: "rule", label: "Agent words", consent_text: 'Rule "Agent words"' });
    await mount();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(APPROVE_DELAY_MS + 10);
    });
    expect(approve().disabled).toBe(false);
    const input = screen.getByLabelText("consent-label-edit") as HTMLInputElement;
    expect(input.value).toBe("Agent words");
    fireEvent.input(input, { target: { value: "Mine" } });
    current = prompt({ kind: "rule", label: "Mine", consent_text: 'Rule "Mine"' });
    fireEvent.click(screen.getByRole("button", { name: "consent-label-save" }));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(document.getElementById("consent-text")!.textContent).toBe('Rule "Mine"');
    // New text, new delay: Approve waits for it to be read.
    expect(approve().disabled).toBe(true);
  });

  it("shows an invitation (§5.10): the service's text and its deadline to look at twice", async () => {
    const text =
      "I accept an invitation from Sam to a booking they made: Synthetic oil change with Maple Street Auto (maplestreetauto.example), Thursday 15 October 2026, 1:00–1:45 p.m. Eastern time.\n" +
      "The booking names me as an invitee (brother).\n" +
      "I must answer by Wednesday 14 October 2026, 1:00 p.m. Eastern time. If I decline, nothing is signed and the host is not told; at that time, as when I do not answer, the booking follows its default: it is released.";
    const deadline = "Wednesday 14 October 2026, 1:00 p.m. Eastern time";
    current = prompt({
      kind: "invitation",
      consent_text: text,
      attention: [
        { kind: "answer_by", grade: "caution", detail: deadline },
        { kind: "retention", grade: "notice", detail: "1 year" },
      ],
    });
    await mount();
    expect(document.getElementById("consent-text")!.textContent).toBe(text);
    const item = document.querySelector('[data-attention="answer_by"]')!;
    expect(item.textContent).toBe(`attention-grade-caution attention-answer_by ${deadline}`);
    // No heading of a wide mandate on an invitation.
    expect(document.getElementById("consent-wide")).toBeNull();
    // Nothing of a rule's or a pairing's own controls.
    expect(document.getElementById("rule-label")).toBeNull();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(APPROVE_DELAY_MS + 10);
    });
    press(approve());
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(calls.answer).toEqual([["rq_1", true]]);
  });
});

describe("a window that learns of changes at once, without polling", () => {
  it("looks again only when the service reports a change, and then at once", async () => {
    manual = true;
    await mount("rq_1");
    const before = { ...looks };
    // A minute with no change: not one look.
    await settle(60_000);
    expect(looks).toEqual(before);
    // The request is withdrawn: the change is reported, and the window shows it
    // without any clock moving.
    current = prompt({ status: "withdrawn" });
    changed();
    await settle(0);
    expect(document.getElementById("consent-notice")!.dataset.outcome).toBe("withdrawn");
  });

  it("shows a request that arrives while nothing waits as soon as it is reported", async () => {
    manual = true;
    waiting = false;
    await mount();
    expect(document.getElementById("consent-none")).not.toBeNull();
    waiting = true;
    changed();
    await settle(0);
    expect(document.getElementById("consent-text")!.textContent).toBe(HOSTILE);
  });
});

/** The window raised for `requestedId`, its page's first look already made for `openedId`. */
function openedFor(requestedId: string, openedId: string) {
  const first = prompt({ id: openedId, consent_text: "Book the 9 o'clock" });
  const opening = { id: openedId, data: Promise.resolve([[{ id: openedId }], first] as [PendingItem[], Prompt]) };
  return (
    <StringsContext.Provider value={STRINGS}>
      <ConsentView requestedId={requestedId} opening={opening} />
    </StringsContext.Provider>
  );
}

describe("a window that shows a request with no look of its own", () => {
  it("shows a request that arrives while nothing waits from the wait's answer alone", async () => {
    manual = true;
    waiting = false;
    await mount();
    expect(document.getElementById("consent-none")).not.toBeNull();
    const before = { ...looks };
    waiting = true;
    changed();
    await settle(0);
    expect(document.getElementById("consent-text")!.textContent).toBe(HOSTILE);
    // Neither the pending list nor the prompt was asked for again.
    expect(looks).toEqual(before);
    expect(approve().disabled).toBe(true);
  });

  it("shows a request stored between its own look and its first wait", async () => {
    manual = true;
    waiting = false;
    render(view());
    // The request arrives after the view's own look found nothing, before
    // its first wait is answered; no further change is reported.
    waiting = true;
    await settle(0);
    await settle(0);
    expect(document.getElementById("consent-text")!.textContent).toBe(HOSTILE);
  });

  it("shows a window's first look, started by its page, without asking again", async () => {
    render(openedFor("rq_9", "rq_9"));
    await settle(0);
    expect(document.getElementById("consent-text")!.textContent).toBe("Book the 9 o'clock");
    expect(looks).toEqual({ prompt: 0, pending: 0 });
  });

  it("never shows a first look started for another request than the one asked for", async () => {
    render(openedFor("rq_1", "rq_9"));
    await settle(0);
    expect(document.getElementById("consent-text")!.textContent).toBe(HOSTILE);
    expect(looks.prompt).toBe(1);
  });
});

describe("callouts graded by risk", () => {
  it("puts an unlimited mandate's heading above the text and the gravest callout first", async () => {
    const heading =
      "“Example Agent” could book appointments at Maple Street Auto (maplestreetauto.example): any service, at any time, at any price and as many bookings as it likes, until Thursday 15 October 2026, 6:20 p.m. Eastern time.";
    current = prompt({
      kind: "mandate",
      consent_text: "I allow the assistant “Example Agent” to act for me at Maple Street Auto.",
      attention: [
        { kind: "wide_mandate", grade: "grave", detail: heading },
        { kind: "delegate", grade: "grave" },
        { kind: "long_lived", grade: "caution", detail: "Thursday 15 October 2026" },
      ],
    });
    await mount();
    const wide = document.getElementById("consent-wide")!;
    expect(wide.textContent).toBe(`attention-wide_mandate ${heading}`);
    // Above the consent text, so it is read first.
    const text = document.getElementById("consent-text")!;
    expect(wide.compareDocumentPosition(text) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    const items = [...document.querySelectorAll(".attention li")];
    expect(items.map((li) => li.getAttribute("data-attention"))).toEqual(["delegate", "long_lived"]);
    expect(items[0].className).toBe("grade-grave");
    // The heading is not repeated in the list.
    expect(document.querySelectorAll('[data-attention="wide_mandate"]').length).toBe(1);
  });

  it("shows no heading and no list for a request with nothing to call out", async () => {
    current = prompt({ kind: "closed_mandate", consent_text: "I agree to this booking.", attention: [] });
    await mount();
    expect(document.getElementById("consent-wide")).toBeNull();
    expect(document.querySelector(".attention")).toBeNull();
  });
});

describe("the Approve delay against a burst of presses", () => {
  it("restarts on every pointer press or key press while Approve is disabled", async () => {
    await mount();
    await settle(APPROVE_DELAY_MS - 100);
    fireEvent.pointerDown(approve());
    await settle(200);
    // Enabled a full delay after the press, not after the window opened.
    expect(approve().disabled).toBe(true);
    fireEvent.keyDown(document.body, { key: "a" });
    await settle(APPROVE_DELAY_MS - 10);
    expect(approve().disabled).toBe(true);
    await settle(20);
    expect(approve().disabled).toBe(false);
    // Once enabled, a key press does not disable it again.
    fireEvent.keyDown(document.body, { key: "a" });
    await settle(0);
    expect(approve().disabled).toBe(false);
  });

  it("never approves on a burst of clicks that starts when the window pops up", async () => {
    await mount();
    // One click every 100 ms from the moment the window shows, for 1.5 s:
    // the click at t = 1000 ms once approved.
    for (let at = 0; at <= 1500; at += 100) {
      press(approve());
      await settle(100);
      expect(approve().disabled).toBe(true);
    }
    expect(calls.answer).toEqual([]);
    // The burst over, the delay runs out; a deliberate click then approves.
    await settle(APPROVE_DELAY_MS);
    expect(approve().disabled).toBe(false);
    press(approve());
    await settle(0);
    expect(calls.answer).toEqual([["rq_1", true]]);
  });

  it("needs the press itself after Approve was enabled", async () => {
    await mount();
    await settle(500);
    // Pressed while disabled (held down), released once enabled: no approval.
    fireEvent.pointerDown(approve());
    await settle(APPROVE_DELAY_MS + 10);
    expect(approve().disabled).toBe(false);
    fireEvent.click(approve(), { detail: 1 });
    await settle(0);
    expect(calls.answer).toEqual([]);
    // A press elsewhere, then a click on Approve: not its own press either.
    fireEvent.pointerDown(document.getElementById("consent-text")!);
    fireEvent.click(approve(), { detail: 1 });
    await settle(0);
    expect(calls.answer).toEqual([]);
    press(approve());
    await settle(0);
    expect(calls.answer).toEqual([["rq_1", true]]);
  });

  it("does not approve on a double or triple click", async () => {
    await mount();
    await settle(APPROVE_DELAY_MS + 10);
    press(approve(), 2);
    press(approve(), 3);
    await settle(0);
    expect(calls.answer).toEqual([]);
    expect(approve().disabled).toBe(false);
  });
});

describe("the request on screen is the one answered", () => {
  const NEW = "Book a haircut with Fades on Queen, Friday 16 October 2026, 10:00–10:30 a.m. Eastern time.";

  it("announces a new request beside a pending one, and Approve carries the shown id", async () => {
    const raise = await mount("rq_1");
    await settle(APPROVE_DELAY_MS + 10);
    expect(approve().disabled).toBe(false);
    // A new request raises the window between render and click.
    others = { rq_2: prompt({ id: "rq_2", consent_text: NEW, agent_name: "Other Assistant" }) };
    await raise("rq_2");
    expect(document.getElementById("consent-text")!.textContent).toBe(HOSTILE);
    expect(approve().dataset.requestId).toBe("rq_1");
    const announce = document.getElementById("consent-announce")!;
    expect(announce.dataset.requestId).toBe("rq_2");
    // Not swapped, so the delay did not restart either.
    expect(approve().disabled).toBe(false);
    press(approve());
    await settle(0);
    expect(calls.answer).toEqual([["rq_1", true]]);
    // The person chooses to see the new one; it comes with its own delay.
    fireEvent.click(document.getElementById("consent-announce-show")!);
    await settle(0);
    expect(document.getElementById("consent-text")!.textContent).toBe(NEW);
    expect(document.getElementById("consent-announce")).toBeNull();
    expect(approve().disabled).toBe(true);
  });

  it("refuses a click whose button names another request than the text on screen", async () => {
    await mount("rq_1");
    await settle(APPROVE_DELAY_MS + 10);
    const button = approve();
    button.dataset.requestId = "rq_2";
    press(button);
    const decline = screen.getByRole("button", { name: "Decline" }) as HTMLButtonElement;
    decline.dataset.requestId = "rq_2";
    fireEvent.click(decline, { detail: 1 });
    await settle(0);
    expect(calls.answer).toEqual([]);
  });

  it("keeps the notice of the person's answer in view and announces the request that raised the window beside it", async () => {
    const raise = await mount("rq_1");
    await settle(APPROVE_DELAY_MS + 10);
    press(approve());
    await settle(0);
    expect(document.getElementById("consent-notice")!.dataset.outcome).toBe("approved");
    others = { rq_2: prompt({ id: "rq_2", consent_text: NEW }) };
    await raise("rq_2");
    await settle(5000);
    // The answer stays until the person dismisses it; the new one waits beside it.
    const notice = document.getElementById("consent-notice")!;
    expect(notice.dataset.outcome).toBe("approved");
    expect(notice.dataset.requestId).toBe("rq_1");
    const announce = document.getElementById("consent-announce")!;
    expect(notice.contains(announce)).toBe(true);
    expect(announce.getAttribute("role")).toBe("status");
    expect(announce.dataset.requestId).toBe("rq_2");
    expect(announce.textContent).toContain("consent-announce-after");
    expect(document.getElementById("consent-announce-show")!.textContent).toBe("consent-announce-review");
    expect(document.getElementById("consent-text")!.textContent).toBe(HOSTILE);
    expect(screen.queryByRole("button", { name: "Approve" })).toBeNull();
    // Review: the new request, with its own delay.
    fireEvent.click(document.getElementById("consent-announce-show")!);
    await settle(0);
    expect(document.getElementById("consent-notice")).toBeNull();
    expect(document.getElementById("consent-announce")).toBeNull();
    expect(document.getElementById("consent-text")!.textContent).toBe(NEW);
    expect(approve().dataset.requestId).toBe("rq_2");
    expect(approve().disabled).toBe(true);
  });

  it("keeps a decline's notice too until dismissed; Next request moves on", async () => {
    await mount("rq_1");
    fireEvent.click(screen.getByRole("button", { name: "Decline" }), { detail: 1 });
    await settle(0);
    expect(document.getElementById("consent-notice")!.dataset.outcome).toBe("declined");
    waiting = true;
    current = prompt({ status: "declined" });
    others = { rq_2: prompt({ id: "rq_2", consent_text: NEW }) };
    await settle(1100);
    expect(document.getElementById("consent-notice")!.dataset.outcome).toBe("declined");
    expect(document.getElementById("consent-announce")!.dataset.requestId).toBe("rq_2");
    // Dismissed with Next request: what waits is shown.
    // Only rq_2 waits now.
    current = prompt({ id: "rq_2", consent_text: NEW });
    others = {};
    fireEvent.click(document.getElementById("next")!);
    await settle(0);
    expect(document.getElementById("consent-notice")).toBeNull();
    expect(document.getElementById("consent-text")!.textContent).toBe(NEW);
  });

  it("keeps an expired request's notice in view and announces a new request found meanwhile", async () => {
    await mount("rq_1");
    current = prompt({ status: "expired" });
    await settle(1100);
    expect(document.getElementById("consent-notice")!.dataset.outcome).toBe("expired");
    others = { rq_2: prompt({ id: "rq_2", consent_text: NEW }) };
    await settle(1100);
    expect(document.getElementById("consent-notice")!.dataset.outcome).toBe("expired");
    expect(document.getElementById("consent-announce")!.dataset.requestId).toBe("rq_2");
    fireEvent.click(document.getElementById("consent-announce-show")!);
    await settle(0);
    expect(document.getElementById("consent-text")!.textContent).toBe(NEW);
  });

  it("announces, never shows, a new request found while a pending one is on screen", async () => {
    await mount("rq_1");
    others = { rq_2: prompt({ id: "rq_2", consent_text: NEW }) };
    await settle(1100);
    expect(document.getElementById("consent-text")!.textContent).toBe(HOSTILE);
    expect(document.getElementById("consent-announce")!.dataset.requestId).toBe("rq_2");
  });
});

/** Enter or Space on the focused element as a browser makes it: the press, then a click with detail 0. */
function key(el: HTMLElement, k: "Enter" | " ", repeat = false) {
  fireEvent.keyDown(el, { key: k, repeat });
  fireEvent.click(el, { detail: 0 });
  fireEvent.keyUp(el, { key: k });
}

describe("approval for every person: keyboard and screen reader, the OS as the guard", () => {
  it("is reached by Tab, announced with its hints, and approves on Enter through the verification command", async () => {
    await mount();
    await settle(APPROVE_DELAY_MS + 10);
    const button = approve();
    // A plain, enabled button in the tab order, named for screen readers and
    // described by the live hint and by what the OS will ask.
    expect(button.tagName).toBe("BUTTON");
    expect(button.disabled).toBe(false);
    expect(button.tabIndex).toBeGreaterThanOrEqual(0);
    expect(button.getAttribute("aria-describedby")!.split(" ")).toEqual(["approve-hint", "approve-verify"]);
    expect(document.getElementById("approve-hint")!.getAttribute("aria-live")).toBe("polite");
    expect(document.getElementById("approve-hint")!.textContent).toBe("consent-ready");
    expect(document.getElementById("approve-verify")!.textContent).toBe("consent-verify");
    button.focus();
    expect(document.activeElement).toBe(button);
    key(button, "Enter");
    await settle(0);
    // The one command sent is `answer`, whose service has the OS confirm the
    // person before anything is signed; the window has no way to sign itself.
    expect(calls.commands).toEqual(["answer"]);
    expect(calls.answer).toEqual([["rq_1", true]]);
    expect(document.getElementById("consent-notice")!.dataset.outcome).toBe("approved");
  });

  it("approves on Space too, once", async () => {
    await mount();
    await settle(APPROVE_DELAY_MS + 10);
    approve().focus();
    key(approve(), " ");
    await settle(0);
    expect(calls.answer).toEqual([["rq_1", true]]);
  });

  it("never approves on a key pressed before Approve was enabled, nor on a held key's repeats", async () => {
    await mount();
    await settle(APPROVE_DELAY_MS - 100);
    // Enter goes down while Approve is disabled: the delay starts again.
    fireEvent.keyDown(document.body, { key: "Enter" });
    await settle(150);
    expect(approve().disabled).toBe(true);
    await settle(APPROVE_DELAY_MS);
    expect(approve().disabled).toBe(false);
    // The key, held, repeats onto the enabled button: never an approval.
    approve().focus();
    const repeat = fireEvent.keyDown(approve(), { key: "Enter", repeat: true });
    expect(repeat).toBe(false); // its default (the click) is prevented
    await settle(0);
    expect(calls.answer).toEqual([]);
  });

  it("approves on a screen reader's press (a click with no key), only once Approve is enabled", async () => {
    await mount();
    fireEvent.click(approve(), { detail: 0 });
    await settle(0);
    expect(calls.answer).toEqual([]);
    await settle(APPROVE_DELAY_MS + 10);
    fireEvent.click(approve(), { detail: 0 });
    await settle(0);
    expect(calls.commands).toEqual(["answer"]);
    expect(calls.answer).toEqual([["rq_1", true]]);
  });

  it("never approves while the window does not have the focus, by keyboard either", async () => {
    await mount();
    await settle(APPROVE_DELAY_MS + 10);
    await act(async () => {
      window.dispatchEvent(new Event("blur"));
    });
    fireEvent.click(approve(), { detail: 0 });
    await settle(0);
    expect(calls.answer).toEqual([]);
  });

  it("shows the OS's refusal (nobody confirmed) and leaves the request waiting", async () => {
    answerResult = async () => {
      throw { code: "NOT_PERMITTED", reason: "user_not_verified", message: "Your system did not confirm it was you." };
    };
    await mount();
    await settle(APPROVE_DELAY_MS + 10);
    approve().focus();
    key(approve(), "Enter");
    await settle(0);
    expect(calls.answer).toEqual([["rq_1", true]]);
    const notice = document.getElementById("consent-notice")!;
    expect(notice.dataset.outcome).toBe("error");
    expect(notice.dataset.outcome).not.toBe("approved");
  });
});

describe("the offer's price lines and the host's address, from the service's typed values", () => {
  it("shows every line of the total and the address as the service gave them, as text", async () => {
    current = prompt({
      terms: {
        host: "Maple Street Auto",
        address: "120 Maple St <b>Toronto</b>",
        lines: [
          { kind: "service", label: "Synthetic oil change", amount: "CAD 79.00" },
          { kind: "tax", label: "HST <i>13%</i>", amount: "CAD 10.27" },
        ],
        total: "CAD 89.27",
      },
    });
    await mount();
    const rows = [...document.querySelectorAll("#consent-price tbody tr")].map((r) => [
      (r as HTMLElement).dataset.kind,
      r.querySelector("th")!.textContent,
      r.querySelector("td")!.textContent,
    ]);
    expect(rows).toEqual([
      ["service", "Synthetic oil change", "CAD 79.00"],
      ["tax", "HST <i>13%</i>", "CAD 10.27"],
    ]);
    expect(document.getElementById("consent-total")!.textContent).toBe("CAD 89.27");
    expect(document.getElementById("terms-heading")!.textContent).toBe("consent-terms-heading");
    expect(document.getElementById("consent-address")!.textContent).toBe("Maple Street Auto — 120 Maple St <b>Toronto</b>");
    // Host strings are text, never markup.
    expect(document.querySelector("#consent-terms b, #consent-terms i")).toBeNull();
  });

  it("shows no price table for an offer without a price, and nothing for a request about no offer", async () => {
    current = prompt({ terms: { host: "Ellis Moreau", lines: [], address: "12 Elm St" } });
    await mount();
    expect(document.getElementById("consent-price")).toBeNull();
    expect(document.getElementById("consent-address")!.textContent).toBe("Ellis Moreau — 12 Elm St");
    expect(document.getElementById("terms-heading")!.textContent).toBe("consent-address");
    cleanup();
    current = prompt({ kind: "mandate" });
    await mount();
    expect(document.getElementById("consent-terms")).toBeNull();
  });
});
