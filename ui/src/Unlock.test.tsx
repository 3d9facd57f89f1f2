// The passphrase window with the command layer mocked: it sends what was typed
// (both fields for a new key, one to unlock), shows the keystore's verdict and
// lets the person try again, and goes where the shell says once unlocked.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { GateView } from "./api";

let state: GateView = { state: "starting" };
const sent: [string, string | null][] = [];
let verdicts: GateView[] = [];

vi.mock("./api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    unlockState: async () => state,
    unlock: async (passphrase: string, confirmation: string | null) => {
      sent.push([passphrase, confirmation]);
      return verdicts.shift();
    },
  },
}));

import { UnlockView } from "./Unlock";

async function settle() {
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
  });
}

async function type(id: string, value: string) {
  fireEvent.input(document.getElementById(id)!, { target: { value } });
  await settle();
}

afterEach(() => {
  cleanup();
  sent.length = 0;
  location.hash = "";
});

describe("the passphrase window", () => {
  it("sets a new key's passphrase typed twice, and shows a mismatch from the keystore", async () => {
    state = { state: "asking", purpose: "create", problem: null };
    verdicts = [{ state: "asking", purpose: "create", problem: "mismatch" }, { state: "unlocked", route: "/requests" }];
    render(<UnlockView />);
    await settle();
    expect(document.getElementById("confirmation")).not.toBeNull();
    await type("passphrase", "one");
    await type("confirmation", "two");
    fireEvent.submit(document.getElementById("unlock-form")!);
    // The estimator loads on first use (a dynamic import), which may take a while.
    await until(() => sent.length === 1 && document.getElementById("unlock-problem") !== null);
    expect(sent).toEqual([["one", "two"]]);
    expect(document.getElementById("unlock-problem")?.dataset.problem).toBe("mismatch");
    // The fields are emptied once judged; the second try goes through.
    expect((document.getElementById("passphrase") as HTMLInputElement).value).toBe("");
    await type("passphrase", "tulip orbit canyon fresco");
    await type("confirmation", "tulip orbit canyon fresco");
    fireEvent.submit(document.getElementById("unlock-form")!);
    await until(() => sent.length === 2 && location.hash === "#/requests");
    expect(sent[1]).toEqual(["tulip orbit canyon fresco", "tulip orbit canyon fresco"]);
  });

  it("unlocks with one field, says a wrong passphrase and lets the person retry", async () => {
    state = { state: "asking", purpose: "unlock", problem: null };
    verdicts = [{ state: "asking", purpose: "unlock", problem: "wrong" }, { state: "failed", message: "port taken" }];
    render(<UnlockView />);
    await settle();
    expect(document.getElementById("confirmation")).toBeNull();
    expect((document.getElementById("passphrase") as HTMLInputElement).type).toBe("password");
    await type("passphrase", "nope");
    fireEvent.submit(document.getElementById("unlock-form")!);
    await settle();
    expect(sent).toEqual([["nope", null]]);
    expect(screen.getByRole("alert").dataset.problem).toBe("wrong");
    await type("passphrase", "right");
    fireEvent.submit(document.getElementById("unlock-form")!);
    await settle();
    expect(document.getElementById("unlock-failed")?.textContent).toContain("port taken");
    expect(document.getElementById("unlock-form")).toBeNull();
  });

  it("says a new passphrase is weak as it is typed, and sends a weak one only once the person confirms it", async () => {
    state = { state: "asking", purpose: "create", problem: null };
    verdicts = [{ state: "unlocked", route: "/requests" }];
    render(<UnlockView />);
    await settle();
    await type("passphrase", "soleil");
    await until(() => document.getElementById("unlock-strength")!.dataset.weak === "true");
    expect(document.getElementById("unlock-strength")!.textContent).toBe("unlock-weak-hint");
    expect(document.getElementById("passphrase")!.getAttribute("aria-describedby")).toBe("unlock-strength");
    await type("confirmation", "soleil");
    fireEvent.submit(document.getElementById("unlock-form")!);
    await settle();
    // Not sent: the person is told, and asked.
    expect(sent).toEqual([]);
    expect(screen.getByRole("alert").id).toBe("unlock-weak");
    expect(document.getElementById("unlock-submit")).toBeNull();
    fireEvent.click(document.getElementById("unlock-weak-keep")!);
    await settle();
    expect(sent).toEqual([["soleil", "soleil"]]);
    expect(location.hash).toBe("#/requests");
  });

  it("lets the person choose another instead, and sends a strong one without asking", async () => {
    state = { state: "asking", purpose: "create", problem: null };
    verdicts = [{ state: "unlocked", route: "/requests" }];
    render(<UnlockView />);
    await settle();
    await type("passphrase", "password1");
    await type("confirmation", "password1");
    fireEvent.submit(document.getElementById("unlock-form")!);
    await until(() => document.getElementById("unlock-weak") !== null);
    fireEvent.click(document.getElementById("unlock-weak-change")!);
    await settle();
    expect(sent).toEqual([]);
    expect((document.getElementById("passphrase") as HTMLInputElement).value).toBe("");
    await type("passphrase", "tulip orbit canyon fresco");
    await until(() => document.getElementById("unlock-strength")!.dataset.weak === "false");
    await type("confirmation", "tulip orbit canyon fresco");
    fireEvent.submit(document.getElementById("unlock-form")!);
    await settle();
    expect(document.getElementById("unlock-weak")).toBeNull();
    expect(sent).toEqual([["tulip orbit canyon fresco", "tulip orbit canyon fresco"]]);
  });

  it("leaves two different weak fields to the keystore (mismatch first), and never judges an unlock", async () => {
    state = { state: "asking", purpose: "create", problem: null };
    verdicts = [{ state: "asking", purpose: "create", problem: "mismatch" }];
    render(<UnlockView />);
    await settle();
    await type("passphrase", "a");
    await type("confirmation", "b");
    fireEvent.submit(document.getElementById("unlock-form")!);
    await settle();
    expect(sent).toEqual([["a", "b"]]);
    expect(document.getElementById("unlock-problem")?.dataset.problem).toBe("mismatch");
    cleanup();
    sent.length = 0;
    state = { state: "asking", purpose: "unlock", problem: null };
    verdicts = [{ state: "unlocked", route: "/requests" }];
    render(<UnlockView />);
    await settle();
    await type("passphrase", "a");
    expect(document.getElementById("unlock-strength")).toBeNull();
    fireEvent.submit(document.getElementById("unlock-form")!);
    await settle();
    expect(sent).toEqual([["a", null]]);
  });
});

/** Waits (real timers) until `check` holds: the estimator loads on first use. */
async function until(check: () => boolean) {
  for (let i = 0; i < 200 && !check(); i++) await settle();
  expect(check()).toBe(true);
}
