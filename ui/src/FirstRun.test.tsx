// The first run asks where hosts check credentials: each answer is sent to the
// service as typed, a refusal is shown in the service's words and the form
// stays, and skipping sends nothing.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SetupChoice, StatusSetupView } from "./api";

const sent: SetupChoice[] = [];
let refuse: string | null = null;

const VIEW: StatusSetupView = {
  answered: true,
  choice: "hosted",
  base: "https://status.example",
  hosts_can_check: "reachable",
  words: "Hosts check your credentials at the hosted status service https://status.example.",
  publication: "nothing",
  publication_words: "Nothing has been published to a status service yet. Nothing is waiting.",
  waiting: 0,
  refused: [],
};

vi.mock("./api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    chooseStatus: async (setup: SetupChoice) => {
      if (refuse) throw { code: "VERIFICATION_FAILED", reason: "status_unreachable", message: refuse };
      sent.push(setup);
      return VIEW;
    },
  },
}));

import { FirstRun } from "./FirstRun";
import { StringsContext } from "./i18n";

const STRINGS = {
  "first-run-heading": "Where will hosts check your credentials?",
  "first-run-hosted": "A hosted status service",
  "first-run-own-base": "My own public address",
  "first-run-not-now": "Not now",
  "first-run-url": "Address",
  "first-run-save": "Save",
  "first-run-skip": "Skip for now",
};

async function show(onDone: () => void) {
  render(
    <StringsContext.Provider value={STRINGS}>
      <FirstRun onDone={onDone} />
    </StringsContext.Provider>,
  );
  await act(async () => {});
}

async function save() {
  await act(async () => {
    fireEvent.click(screen.getByText("Save"));
  });
}

afterEach(() => {
  cleanup();
  sent.length = 0;
  refuse = null;
});

describe("FirstRun", () => {
  it("sends a hosted service's URL as typed, trimmed, and is done", async () => {
    const done = vi.fn();
    await show(done);
    fireEvent.input(screen.getByLabelText("Address"), { target: { value: " https://status.example " } });
    await save();
    expect(sent).toEqual([{ choice: "hosted", url: "https://status.example" }]);
    expect(done).toHaveBeenCalledTimes(1);
  });

  it("sends the person's own address", async () => {
    await show(() => {});
    fireEvent.click(screen.getByLabelText("My own public address"));
    fireEvent.input(screen.getByLabelText("Address"), { target: { value: "https://me.example" } });
    await save();
    expect(sent).toEqual([{ choice: "own_base", url: "https://me.example" }]);
  });

  it("sends not now without an address", async () => {
    await show(() => {});
    fireEvent.click(screen.getByLabelText("Not now"));
    expect(screen.queryByLabelText("Address")).toBeNull();
    await save();
    expect(sent).toEqual([{ choice: "not_now" }]);
  });

  it("shows a refusal in the service's words and stays", async () => {
    refuse = "Hosts could not check your credentials at http://status.example: it is not https.";
    const done = vi.fn();
    await show(done);
    fireEvent.input(screen.getByLabelText("Address"), { target: { value: "http://status.example" } });
    await save();
    expect(screen.getByRole("alert").textContent).toBe(refuse);
    expect(done).not.toHaveBeenCalled();
    expect(sent).toEqual([]);
  });

  it("skipping sends nothing", async () => {
    const done = vi.fn();
    await show(done);
    fireEvent.click(screen.getByText("Skip for now"));
    expect(done).toHaveBeenCalledTimes(1);
    expect(sent).toEqual([]);
  });
});
