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

let keystore = "os";
let kitAsked = 0;

vi.mock("./api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    chooseStatus: async (setup: SetupChoice) => {
      if (refuse) throw { code: "VERIFICATION_FAILED", reason: "status_unreachable", message: refuse };
      sent.push(setup);
      return VIEW;
    },
    settings: async () => ({ keystore }),
    recoveryKit: async () => {
      kitAsked += 1;
      throw { code: "NOT_PERMITTED", reason: "user_not_verified", message: "not confirmed" };
    },
  },
}));

import { FirstRun, StatusChoiceForm } from "./FirstRun";
import { StringsContext } from "./i18n";

const STRINGS = {
  "welcome-heading": "Welcome",
  "welcome-what": "This app holds your signing key.",
  "welcome-can": "An assistant can ask.",
  "welcome-cannot": "An assistant cannot sign anything itself.",
  "welcome-key-os": "In this computer's keychain.",
  "welcome-key-file": "In a file encrypted under your passphrase.",
  "welcome-next": "Next",
  "welcome-back": "Back",
  "welcome-skip": "Skip the introduction",
  "welcome-done": "Done",
  "kit-heading": "Your recovery kit",
  "kit-show": "Show my recovery kit",
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
      <StatusChoiceForm onDone={onDone} onSkip={onDone} />
    </StringsContext.Provider>,
  );
  await act(async () => {});
}

async function sequence(onDone: () => void) {
  render(
    <StringsContext.Provider value={STRINGS}>
      <FirstRun onDone={onDone} />
    </StringsContext.Provider>,
  );
  await act(async () => {});
}

async function click(text: string) {
  await act(async () => {
    fireEvent.click(screen.getByText(text));
  });
}

const step = () => document.getElementById("first-run")?.dataset.step;

async function save() {
  await act(async () => {
    fireEvent.click(screen.getByText("Save"));
  });
}

afterEach(() => {
  cleanup();
  sent.length = 0;
  refuse = null;
  keystore = "os";
  kitAsked = 0;
});

describe("the first-run sequence", () => {
  it("says what the app is and what an assistant can and cannot do, then where the key is, then asks, then the kit", async () => {
    const done = vi.fn();
    await sequence(done);
    expect(step()).toBe("about");
    expect(screen.getByText("An assistant can ask.")).toBeTruthy();
    expect(screen.getByText("An assistant cannot sign anything itself.")).toBeTruthy();
    await click("Next");
    expect(step()).toBe("key");
    expect(screen.getByText("In this computer's keychain.")).toBeTruthy();
    await click("Next");
    expect(step()).toBe("status");
    fireEvent.click(screen.getByLabelText("Not now"));
    await save();
    expect(sent).toEqual([{ choice: "not_now" }]);
    expect(step()).toBe("kit");
    // The kit is not asked for until the person asks to see it.
    expect(kitAsked).toBe(0);
    expect(screen.getByText("Show my recovery kit")).toBeTruthy();
    expect(screen.queryByText("Skip the introduction")).toBeNull();
    await click("Done");
    expect(done).toHaveBeenCalledTimes(1);
  });

  it("says a file-kept key is in a file", async () => {
    keystore = "file";
    await sequence(() => {});
    await click("Next");
    expect(screen.getByText("In a file encrypted under your passphrase.")).toBeTruthy();
    expect(screen.queryByText("In this computer's keychain.")).toBeNull();
  });

  it("can be skipped whole from any step before the kit, sending nothing", async () => {
    const done = vi.fn();
    await sequence(done);
    await click("Skip the introduction");
    expect(done).toHaveBeenCalledTimes(1);
    cleanup();
    const again = vi.fn();
    await sequence(again);
    await click("Next");
    await click("Next");
    await click("Skip the introduction");
    expect(again).toHaveBeenCalledTimes(1);
    expect(sent).toEqual([]);
  });

  it("skipping the status question goes on to the kit and goes back", async () => {
    await sequence(() => {});
    await click("Next");
    await click("Next");
    await click("Skip for now");
    expect(step()).toBe("kit");
    expect(sent).toEqual([]);
    await click("Back");
    expect(step()).toBe("status");
  });
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
