// The Requests screen names what each request asks, in the service's one line,
// never the kind of credential alone.
import { act, cleanup, render } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PendingItem } from "../api";

let pending: PendingItem[] = [];
const opened: string[] = [];

vi.mock("../api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    pending: async () => pending,
    waitChange: () => new Promise(() => {}),
    openConsent: async (id: string) => {
      opened.push(id);
    },
  },
}));

import { StringsContext } from "../i18n";
import { Requests } from "./Requests";

function item(over: Partial<PendingItem>): PendingItem {
  return {
    id: "rq_1",
    kind: "closed_mandate",
    summary: "Synthetic oil change with Maple Street Auto, Wednesday 2 December 2026, 1:00–1:45 p.m. Eastern time",
    agent_name: "Example Agent",
    fingerprint: "7F3A-91C2-K8QD",
    created_at: 0,
    created: "1:00 p.m.",
    expires_at: 600,
    expires: "1:10 p.m.",
    ...over,
  };
}

afterEach(cleanup);

describe("Requests", () => {
  it("names what is asked, not the kind", async () => {
    pending = [item({}), item({ id: "rq_2", summary: "" })];
    render(
      <StringsContext.Provider value={{ "kind-closed_mandate": "Booking mandate" }}>
        <Requests />
      </StringsContext.Provider>,
    );
    await act(async () => {});
    const first = document.querySelector('[data-summary="rq_1"]')!;
    expect(first.textContent).toBe(pending[0].summary);
    expect(first.textContent).not.toContain("Booking mandate");
    // A request stored before the line was kept falls back to its kind in words.
    expect(document.querySelector('[data-summary="rq_2"]')!.textContent).toBe("Booking mandate");
  });

  it("reviews a request in the consent window, leaving this window as it is", async () => {
    pending = [item({})];
    render(<Requests />);
    await act(async () => {});
    const before = location.hash;
    (document.querySelector('[data-review="rq_1"]') as HTMLButtonElement).click();
    await act(async () => {});
    expect(opened).toEqual(["rq_1"]);
    expect(location.hash).toBe(before);
  });
});
