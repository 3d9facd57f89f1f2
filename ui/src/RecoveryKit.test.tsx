// The recovery kit in the window: nothing is shown until the OS confirmed the
// person (a refusal is said in the key app's words, with no word on screen);
// once shown, the two words asked are sent as typed and judged by Rust; the
// printable page is the key app's; hiding takes the words off the page.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { KitView } from "./api";

const WORDS = Array.from({ length: 24 }, (_, i) => `word${i + 1}`);
let kit: KitView | null = null;
const refusal = {
  code: "NOT_PERMITTED",
  reason: "user_not_verified",
  message: "Your computer did not confirm it was you, so your recovery kit was not shown.",
};
const typedBack: string[][] = [];

vi.mock("./api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    recoveryKit: async () => {
      if (!kit) throw refusal;
      return kit;
    },
    confirmRecoveryWords: async (words: string[]) => {
      typedBack.push(words);
      return words[0] === "word3" && words[1] === "word17";
    },
  },
}));

import { StringsContext } from "./i18n";
import { RecoveryKitPanel } from "./RecoveryKit";

const STRINGS = {
  "kit-heading": "Your recovery kit",
  "kit-show": "Show my recovery kit",
  "kit-later": "Later",
  "kit-print": "Print the kit",
  "kit-hide": "Hide the words",
  "kit-word": "Word",
  "kit-confirm-submit": "Check",
  "kit-confirmed": "Those are the right words.",
  "kit-key-seed": "Your key was made before recovery phrases existed.",
  "recovery-confirm-wrong": "Those are not the words at those places.",
};

function phraseKit(over: Partial<KitView> = {}): KitView {
  return {
    words: WORDS,
    principal: "did:jwk:abc",
    key_seed: false,
    confirm: [3, 17],
    page: '<h1>Your SchCP recovery kit</h1><ol><li><span class="n">1</span> word1</li></ol>',
    ...over,
  };
}

async function show() {
  render(
    <StringsContext.Provider value={STRINGS}>
      <RecoveryKitPanel />
    </StringsContext.Provider>,
  );
  await act(async () => {
    fireEvent.click(screen.getByText("Show my recovery kit"));
  });
}

afterEach(() => {
  cleanup();
  kit = null;
  typedBack.length = 0;
});

describe("RecoveryKitPanel", () => {
  it("shows the refusal and no word when the OS did not confirm the person", async () => {
    await show();
    expect(screen.getByRole("alert").textContent).toBe(refusal.message);
    expect(document.getElementById("kit-words")).toBeNull();
    expect(document.body.textContent).not.toContain("word1");
    // The person can ask again.
    expect(screen.getByText("Show my recovery kit")).toBeTruthy();
  });

  it("shows the 24 words in order, the principal and the printable page once confirmed", async () => {
    kit = phraseKit();
    await show();
    const items = [...document.querySelectorAll("#kit-words li")].map((li) => li.textContent);
    expect(items).toEqual(WORDS);
    expect(screen.getByText("did:jwk:abc")).toBeTruthy();
    expect(document.getElementById("kit-key-seed")).toBeNull();
    expect(document.querySelector("#kit-page h1")?.textContent).toBe("Your SchCP recovery kit");
    expect(screen.getByLabelText("Word 3")).toBeTruthy();
    expect(screen.getByLabelText("Word 17")).toBeTruthy();
    const print = vi.spyOn(window, "print").mockImplementation(() => {});
    fireEvent.click(screen.getByText("Print the kit"));
    expect(print).toHaveBeenCalledTimes(1);
  });

  it("says so when the kit is a key made before recovery phrases", async () => {
    kit = phraseKit({ key_seed: true });
    await show();
    expect(document.getElementById("kit-key-seed")?.textContent).toBe(STRINGS["kit-key-seed"]);
  });

  it("sends the two words as typed; a wrong one is said, the right ones are confirmed", async () => {
    kit = phraseKit();
    await show();
    fireEvent.input(screen.getByLabelText("Word 3"), { target: { value: "word4" } });
    fireEvent.input(screen.getByLabelText("Word 17"), { target: { value: "word17" } });
    await act(async () => {
      fireEvent.click(screen.getByText("Check"));
    });
    expect(screen.getByRole("alert").textContent).toBe(STRINGS["recovery-confirm-wrong"]);
    fireEvent.input(screen.getByLabelText("Word 3"), { target: { value: "word3" } });
    await act(async () => {
      fireEvent.click(screen.getByText("Check"));
    });
    expect(screen.getByRole("status").textContent).toBe(STRINGS["kit-confirmed"]);
    expect(typedBack).toEqual([
      ["word4", "word17"],
      ["word3", "word17"],
    ]);
  });

  it("hiding takes the words off the page", async () => {
    kit = phraseKit();
    await show();
    fireEvent.click(screen.getByText("Hide the words"));
    expect(document.getElementById("kit-words")).toBeNull();
    expect(document.getElementById("kit-page")).toBeNull();
    expect(document.body.textContent).not.toContain("word24");
  });
});
