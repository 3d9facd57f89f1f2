// Settings says where hosts check the person's credentials, in the service's
// words, for each state: not chosen, a hosted service reached, publishing
// failing with updates waiting, a config request not confirmed (with its
// Confirm button), and registrations the service refused for good.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { StatusSetupView } from "../api";

let view: StatusSetupView;
let confirmed = 0;

vi.mock("../api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    statusSetup: async () => view,
    confirmConfiguredStatus: async () => {
      confirmed += 1;
      view = { ...view, requested: undefined };
      return view;
    },
    chooseStatus: async () => view,
  },
}));

import { StringsContext } from "../i18n";
import { StatusSetup } from "./Settings";

const STRINGS = {
  "settings-status-setup": "Where hosts check your credentials",
  "settings-status-confirm-requested": "Confirm this address",
  "settings-status-refused": "Refused by the status service",
  "settings-status-change": "Change",
  "first-run-save": "Save",
  "first-run-skip": "Skip for now",
};

function state(over: Partial<StatusSetupView>): StatusSetupView {
  return {
    answered: true,
    choice: "not_now",
    base: "http://127.0.0.1:7412",
    hosts_can_check: "unreachable",
    words: "You have not chosen a status service. Hosts cannot check your credentials.",
    publication: "nothing",
    publication_words: "Nothing has been published to a status service yet. Nothing is waiting.",
    waiting: 0,
    refused: [],
    ...over,
  };
}

async function show() {
  render(
    <StringsContext.Provider value={STRINGS}>
      <StatusSetup />
    </StringsContext.Provider>,
  );
  await act(async () => {});
}

const byId = (id: string) => document.getElementById(id) as HTMLElement;

afterEach(() => {
  cleanup();
  confirmed = 0;
});

describe("Settings: where hosts check your credentials", () => {
  it("not chosen: says so, and that hosts cannot check", async () => {
    view = state({});
    await show();
    expect(byId("status-choice").textContent).toBe(view.words);
    expect(byId("status-choice").dataset.hostsCanCheck).toBe("unreachable");
    expect(byId("status-publication").dataset.publication).toBe("nothing");
    expect(byId("status-requested")).toBeNull();
    expect(byId("status-refused")).toBeNull();
  });

  it("a hosted service reached: the choice and the last publication in words", async () => {
    view = state({
      choice: "hosted",
      base: "https://status.example",
      hosts_can_check: "reachable",
      words: "Hosts check your credentials at the hosted status service https://status.example.",
      publication: "reached",
      publication_words: "The last update reached the status service on Thursday. Nothing is waiting.",
    });
    await show();
    expect(byId("status-choice").dataset.choice).toBe("hosted");
    expect(byId("status-publication").textContent).toBe(view.publication_words);
    expect(byId("status-publication").dataset.publication).toBe("reached");
  });

  it("publishing failing: what waits is said", async () => {
    view = state({
      choice: "hosted",
      publication: "failing",
      waiting: 3,
      publication_words: "The status service has not answered the last 2 attempts; 3 updates are waiting to be published.",
    });
    await show();
    expect(byId("status-publication").dataset.publication).toBe("failing");
    expect(byId("status-publication").textContent).toContain("3 updates are waiting");
  });

  it("a config request not confirmed: said, and confirmed only by the button", async () => {
    view = state({
      requested: { base: "https://evil.example", words: "Your configuration file asks for https://evil.example, but you have not confirmed it." },
    });
    await show();
    expect(byId("status-requested").textContent).toContain("https://evil.example");
    expect(confirmed).toBe(0);
    await act(async () => {
      fireEvent.click(screen.getByText("Confirm this address"));
    });
    await act(async () => {});
    expect(confirmed).toBe(1);
    expect(byId("status-requested")).toBeNull();
  });

  it("refused registrations are listed with their reason", async () => {
    view = state({
      choice: "hosted",
      refused: [
        { jti: "m-1", reason: "namespace_full", words: "On Monday the status service refused to keep a credential: it holds as many credentials as its operator allows for you." },
        { jti: "m-2", reason: "namespace_not_allowed", words: "On Tuesday the status service refused to keep a credential: its operator does not serve your key." },
      ],
    });
    await show();
    const items = Array.from(byId("status-refused").querySelectorAll("li"));
    expect(items.map((li) => li.dataset.reason)).toEqual(["namespace_full", "namespace_not_allowed"]);
    expect(items[1].textContent).toContain("does not serve your key");
  });

  it("Change opens the same form as the first run", async () => {
    view = state({});
    await show();
    fireEvent.click(screen.getByText("Change"));
    await act(async () => {});
    expect(screen.getByText("Save")).toBeTruthy();
  });
});
