// The first run before any key exists: a new key, or a restore from the
// recovery kit (and a backup file). What is typed is sent as it is; a refusal
// comes back as the gate's problem, in the key app's words, and the form stays.
import { cleanup, fireEvent, screen } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { FirstChoice, GateView } from "./api";

const sent: FirstChoice[] = [];
let answer: GateView = { state: "starting" };
let gate: GateView = { state: "welcome", problem: null };

vi.mock("./api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    unlockState: async () => gate,
    firstRunChoice: async (choice: FirstChoice) => {
      sent.push(choice);
      return answer;
    },
  },
}));

import { click, showWith } from "./testing/screen";
import { UnlockView } from "./Unlock";

const TAMPERED = "That backup was changed or damaged after it was written, so nothing was restored from it.";
const STRINGS = {
  "welcome-heading": "Welcome",
  "welcome-new-key": "Make a new key",
  "welcome-have-kit": "I have a recovery kit",
  "restore-words": "Your 24 words",
  "restore-backup": "Backup file (optional)",
  "restore-key-seed": "Made before recovery phrases",
  "restore-submit": "Restore",
  "restore-cancel": "Make a new key instead",
  "unlock-checking": "Checking…",
};

const show = () => showWith(STRINGS, <UnlockView />);

afterEach(() => {
  cleanup();
  sent.length = 0;
  answer = { state: "starting" };
  gate = { state: "welcome", problem: null };
});

describe("the first run's key", () => {
  it("offers a new key or a restore, and a new key sends only that", async () => {
    await show();
    expect(screen.getByText("Welcome")).toBeTruthy();
    await click("Make a new key");
    expect(sent).toEqual([{ choice: "new" }]);
  });

  it("sends the words and the backup path, trimmed, with the key-seed box", async () => {
    await show();
    await click("I have a recovery kit");
    fireEvent.input(screen.getByLabelText("Your 24 words"), { target: { value: "abandon ability" } });
    fireEvent.input(screen.getByLabelText("Backup file (optional)"), { target: { value: " /home/me/b.age " } });
    fireEvent.click(screen.getByLabelText("Made before recovery phrases"));
    await click("Restore");
    expect(sent).toEqual([{ choice: "restore", words: "abandon ability", backup: "/home/me/b.age", key_seed: true }]);
  });

  it("sends no backup when the field is empty", async () => {
    await show();
    await click("I have a recovery kit");
    fireEvent.input(screen.getByLabelText("Your 24 words"), { target: { value: "abandon" } });
    await click("Restore");
    expect(sent).toEqual([{ choice: "restore", words: "abandon", backup: null, key_seed: false }]);
  });

  it("a tampered backup is said in the key app's words, the form stays, and the words are cleared", async () => {
    answer = { state: "welcome", problem: TAMPERED };
    await show();
    await click("I have a recovery kit");
    fireEvent.input(screen.getByLabelText("Your 24 words"), { target: { value: "abandon" } });
    fireEvent.input(screen.getByLabelText("Backup file (optional)"), { target: { value: "/b.age" } });
    await click("Restore");
    expect(screen.getByRole("alert").textContent).toBe(TAMPERED);
    expect((screen.getByLabelText("Your 24 words") as HTMLTextAreaElement).value).toBe("");
    expect((screen.getByLabelText("Backup file (optional)") as HTMLInputElement).value).toBe("/b.age");
    expect(screen.getByText("Restore")).toBeTruthy();
  });

  it("a problem from the gate opens on the restore form", async () => {
    gate = { state: "welcome", problem: "Those words are not a recovery phrase." };
    await show();
    expect(screen.getByRole("alert").textContent).toBe("Those words are not a recovery phrase.");
    expect(screen.getByLabelText("Your 24 words")).toBeTruthy();
    await click("Make a new key instead");
    expect(sent).toEqual([{ choice: "new" }]);
  });
});
