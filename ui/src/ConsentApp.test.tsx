// The consent window's own page: its first look is asked for as the page
// starts, beside the window's words, and the text follows from it alone.
import { act, cleanup, render } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Prompt, UiStrings } from "./api";

const order: string[] = [];
let releaseStrings: (s: UiStrings) => void = () => {};

vi.mock("./api", () => ({
  isCommandError: () => false,
  api: {
    askedElsewhere: async () => null,
    uiStrings: () => {
      order.push("ui_strings");
      return new Promise<UiStrings>((resolve) => (releaseStrings = resolve));
    },
    pending: async () => {
      order.push("pending");
      return [{ id: "rq_1" }];
    },
    prompt: async (id: string) => {
      order.push(`prompt ${id}`);
      return shown(id);
    },
    // Nothing changes while these tests run.
    waitChange: () => new Promise(() => {}),
    waitPending: () => new Promise(() => {}),
  },
}));

import { ConsentApp, start } from "./ConsentApp";

function shown(id: string): Prompt {
  return {
    id,
    kind: "closed_mandate",
    status: "pending",
    agent_name: "Calendar Assistant",
    fingerprint: "7F3A-91C2-K8QD",
    consent_text: `The text of ${id}`,
    created_at: 0,
    expires_at: 600,
    attention: [],
  };
}

beforeEach(() => {
  order.length = 0;
  vi.spyOn(document, "hasFocus").mockReturnValue(true);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  location.hash = "";
});

describe("the consent window's page", () => {
  it("asks for the request's prompt and the pending list as it starts, beside the window's words", () => {
    start("#/consent/rq_7");
    expect(order).toEqual(["ui_strings", "pending", "prompt rq_7"]);
  });

  it("shows the request it was opened for once its words arrive, with no second look", async () => {
    location.hash = "#/consent/rq_7";
    render(<ConsentApp start={start(location.hash)} />);
    expect(document.getElementById("consent-text")).toBeNull();
    await act(async () => releaseStrings({ lang: "fr", strings: { "consent-approve": "Approuver" } }));
    await act(async () => {});
    expect(document.getElementById("consent-text")!.textContent).toBe("The text of rq_7");
    expect(document.documentElement.lang).toBe("fr");
    expect(order.filter((c) => c.startsWith("prompt"))).toEqual(["prompt rq_7"]);
  });

  it("opened with no request named, shows the oldest pending one", async () => {
    location.hash = "#/consent";
    render(<ConsentApp start={start(location.hash)} />);
    expect(order).toEqual(["ui_strings", "pending"]);
    await act(async () => releaseStrings({ lang: "en", strings: {} }));
    await act(async () => {});
    expect(document.getElementById("consent-text")!.textContent).toBe("The text of rq_1");
  });

  it("follows the route the app points it at once open", async () => {
    location.hash = "#/consent/rq_7";
    render(<ConsentApp start={start(location.hash)} />);
    await act(async () => releaseStrings({ lang: "en", strings: {} }));
    await act(async () => {});
    await act(async () => {
      location.hash = "#/consent/rq_9";
      window.dispatchEvent(new HashChangeEvent("hashchange"));
    });
    await act(async () => {});
    // Beside the text on screen, the request the route now names is announced.
    expect(document.getElementById("consent-text")!.textContent).toBe("The text of rq_7");
    expect(document.getElementById("consent-announce")!.dataset.requestId).toBe("rq_9");
  });

  it("ignores a route that is not the consent view's: the oldest pending one is shown", () => {
    start("#/settings");
    expect(order).toEqual(["ui_strings", "pending"]);
  });
});
