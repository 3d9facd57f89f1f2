// Agents: a cooldown is said on the agent's row, in the service's words, with
// the person's way to let it ask again.
import { act, cleanup, render, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentView } from "../api";

let agents: AgentView[] = [];
const lifted: string[] = [];

vi.mock("../api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    agents: async () => agents,
    unpair: async () => {},
    liftCooldown: async (jkt: string) => {
      lifted.push(jkt);
      agents = agents.map((a) => (a.jkt === jkt ? { ...a, cooldown: undefined } : a));
    },
  },
}));

import { StringsContext } from "../i18n";
import { Agents } from "./Agents";

afterEach(cleanup);

describe("Agents", () => {
  it("shows a cooldown on its agent's row only, and lets the person end it", async () => {
    agents = [
      { jkt: "j1", name: "Cal", fingerprint: "AAAA", paired_at: 0, cooldown: "It may not ask again until 1:05 p.m." },
      { jkt: "j2", name: "Other", fingerprint: "BBBB", paired_at: 0 },
    ];
    render(
      <StringsContext.Provider value={{ "agents-lift-cooldown": "Let it ask again now" }}>
        <Agents />
      </StringsContext.Provider>,
    );
    await act(async () => {});
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
