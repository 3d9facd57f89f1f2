// My bookings shows what the service says of each booking, and its one action
// revokes the management mandate that lets an assistant change it.
import { act, cleanup, fireEvent, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { BookingView } from "../api";

let bookings: BookingView[] = [];
const revoked: string[] = [];

vi.mock("../api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    bookings: async () => bookings,
    revoke: async (jti: string) => {
      revoked.push(jti);
    },
  },
}));

import { showWith } from "../testing/screen";
import { Bookings } from "./Bookings";

const STRINGS = { "bookings-stop-manager": "Stop", "confirm-yes": "Yes", "confirm-no": "No" };

function booking(over: Partial<BookingView>): BookingView {
  return {
    booking_id: "b_1",
    host_id: "maple-street-auto",
    what: "Synthetic oil change",
    when: "Thursday 15 October 2026, 1:00–1:45 p.m. Eastern time",
    host: "maplestreetauto.example",
    price: "CAD 89.27",
    state: "confirmed",
    upcoming: true,
    start: 1792083600,
    rests_on: "Synthetic oil change with Maple Street Auto",
    managers: [],
    ...over,
  };
}

const show = () => showWith(STRINGS, <Bookings />);

const row = (id: string) => document.querySelector(`tr[data-booking="${id}"]`) as HTMLElement;

afterEach(cleanup);

describe("My bookings", () => {
  it("shows each booking in the service's words, its host by verified domain, and no id outside Details", async () => {
    bookings = [booking({})];
    await show();
    const r = row("b_1");
    expect(r.textContent).toContain("Synthetic oil change");
    expect(r.textContent).toContain("Thursday 15 October 2026");
    expect(r.textContent).toContain("maplestreetauto.example");
    expect(r.textContent).toContain("CAD 89.27");
    const copy = r.cloneNode(true) as HTMLElement;
    copy.querySelectorAll("details").forEach((d) => d.remove());
    expect(copy.textContent).not.toMatch(/b_1|maple-street-auto/);
  });

  it("offers to stop an assistant only where its management mandate can be revoked, and revokes that one", async () => {
    revoked.length = 0;
    bookings = [
      booking({
        managers: [
          { jti: "m-live", agent_name: "Cal", status: "active", expires: "soon", revocable: true, sentence: "Cal may cancel or move it." },
          { jti: "m-old", agent_name: "Old", status: "revoked", expires: "then", revocable: false, sentence: "Old can no longer change it." },
        ],
      }),
    ];
    await show();
    const live = row("b_1").querySelector('[data-manager="m-live"]') as HTMLElement;
    const old = row("b_1").querySelector('[data-manager="m-old"]') as HTMLElement;
    expect(within(old).queryByRole("button")).toBeNull();
    expect(old.textContent).toContain("Old can no longer change it.");
    fireEvent.click(within(live).getByRole("button", { name: "Stop" }));
    await act(async () => {
      fireEvent.click(within(live).getByRole("button", { name: "Yes" }));
    });
    expect(revoked).toEqual(["m-live"]);
  });
});
