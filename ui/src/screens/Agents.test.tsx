// Unpairing asks about the credentials the assistant holds: "Unpair and
// revoke" or "Unpair only" when a revocation can reach its hosts, the
// credentials nothing can revoke named, and what was done said after, all in
// the service's words.
import { act, cleanup, fireEvent, screen, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentView, UnpairedView } from "../api";

let agents: AgentView[] = [];
const unpaired: [string, boolean][] = [];
const lifted: string[] = [];

vi.mock("../api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    agents: async () => agents,
    liftCooldown: async (jkt: string) => {
      lifted.push(jkt);
      agents = agents.map((a) => (a.jkt === jkt ? { ...a, cooldown: undefined } : a));
    },
    unpair: async (jkt: string, revoke: boolean): Promise<UnpairedView> => {
      unpaired.push([jkt, revoke]);
      agents = agents.filter((a) => a.jkt !== jkt);
      return {
        revoked: revoke ? ["m-1", "m-2"] : [],
        words: revoke ? "Unpaired. 2 credentials were revoked." : "Unpaired. Nothing was revoked.",
        kept: ["Rule: cannot be revoked. It lapses on its own on Thursday."],
      };
    },
  },
}));

import { showWith } from "../testing/screen";
import { Agents } from "./Agents";

const STRINGS = {
  "agents-heading": "Paired assistants",
  "agents-unpair": "Unpair",
  "agents-unpair-confirm": "Unpair this assistant?",
  "agents-unpair-and-revoke": "Unpair and revoke",
  "agents-unpair-only": "Unpair only",
  "agents-never": "never",
  "confirm-yes": "Yes",
  "confirm-no": "No",
};

function agent(jkt: string, over: Partial<AgentView["holds"]> = {}): AgentView {
  return {
    jkt,
    name: `Assistant ${jkt}`,
    fingerprint: "7F3A-91C2-K8QD",
    paired_at: 1796000000,
    holds: { revocable: 0, not_revocable: [], ...over },
  };
}

const show = () => showWith(STRINGS, <Agents />);

const row = (jkt: string) => document.querySelector(`tr[data-jkt="${jkt}"]`) as HTMLElement;

afterEach(() => {
  cleanup();
  unpaired.length = 0;
});

describe("Unpairing an assistant", () => {
  it("asks whether to revoke what it holds, names what cannot be, and says what was done", async () => {
    agents = [
      agent("a", {
        revocable: 2,
        question: "Also revoke the 2 credentials it holds?",
        not_revocable: ["Rule: cannot be revoked. It lapses on its own on Thursday."],
      }),
    ];
    await show();
    fireEvent.click(within(row("a")).getByRole("button", { name: "Unpair" }));
    const group = within(row("a")).getByRole("group");
    expect(group.getAttribute("aria-label")).toBe("Unpair this assistant? Also revoke the 2 credentials it holds?");
    expect(within(group).getByText("Rule: cannot be revoked. It lapses on its own on Thursday.")).toBeTruthy();
    // No has the focus: a stray Enter unpairs nothing.
    expect(document.activeElement?.textContent).toBe("No");
    expect(within(group).queryByRole("button", { name: "Yes" })).toBeNull();
    await act(async () => {
      fireEvent.click(within(group).getByRole("button", { name: "Unpair and revoke" }));
    });
    expect(unpaired).toEqual([["a", true]]);
    const status = screen.getByRole("status");
    expect(status.textContent).toContain("Unpaired. 2 credentials were revoked.");
    expect(status.textContent).toContain("Rule: cannot be revoked.");
  });

  it("unpairs only, revoking nothing, when the person says so", async () => {
    agents = [agent("b", { revocable: 1, question: "Also revoke the credential it holds?" })];
    await show();
    fireEvent.click(within(row("b")).getByRole("button", { name: "Unpair" }));
    await act(async () => {
      fireEvent.click(within(row("b")).getByRole("button", { name: "Unpair only" }));
    });
    expect(unpaired).toEqual([["b", false]]);
    expect(screen.getByRole("status").textContent).toContain("Nothing was revoked.");
  });

  it("asks a plain yes or no when nothing it holds can be revoked, and No does nothing", async () => {
    agents = [agent("c")];
    await show();
    fireEvent.click(within(row("c")).getByRole("button", { name: "Unpair" }));
    const group = within(row("c")).getByRole("group");
    expect(group.getAttribute("aria-label")).toBe("Unpair this assistant?");
    expect(within(group).queryByRole("button", { name: "Unpair and revoke" })).toBeNull();
    fireEvent.click(within(group).getByRole("button", { name: "No" }));
    expect(unpaired).toEqual([]);
    fireEvent.click(within(row("c")).getByRole("button", { name: "Unpair" }));
    await act(async () => {
      fireEvent.click(within(row("c")).getByRole("button", { name: "Yes" }));
    });
    expect(unpaired).toEqual([["c", false]]);
  });
});

describe("an agent's cooldown", () => {
  it("shows a cooldown on its agent's row only, and lets the person end it", async () => {
    agents = [
      { ...agent("j1"), cooldown: "It may not ask again until 1:05 p.m." },
      agent("j2"),
    ];
    await showWith({ "agents-lift-cooldown": "Let it ask again now" }, <Agents />);
    expect(document.querySelector('[data-cooldown="j2"]')).toBeNull();
    const row = document.querySelector('[data-cooldown="j1"]') as HTMLElement;
    expect(row.textContent).toContain("It may not ask again until 1:05 p.m.");
    await act(async () => {
      within(row).getByRole("button", { name: "Let it ask again now" }).click();
    });
    expect(lifted).toEqual(["j1"]);
    await act(async () => {});
    expect(document.querySelector('[data-cooldown="j1"]')).toBeNull();
  });
});
