// The Credentials and History screens show what the service decided: Revoke
// only on a credential the service says is revocable (never on a meeting
// contract, an acceptance or a rule, whatever their status), and dates in the
// service's own words.
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ComponentChild } from "preact";
import type { CredentialView, HistoryEntry } from "../api";

let credentials: CredentialView[] = [];
let history: HistoryEntry[] = [];
const revoked: string[] = [];

vi.mock("../api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    searchCredentials: async () => ({ items: credentials }),
    searchHistory: async () => ({ items: history }),
    filterChoices: async () => ({ hosts: [], agents: [] }),
    exportPath: async () => "/home/you/schcp-records.json",
    revoke: async (jti: string) => {
      revoked.push(jti);
    },
    prompt: async () => ({ consent_text: "" }),
  },
}));

import { StringsContext } from "../i18n";
import { Credentials } from "./Credentials";
import { History } from "./History";

const STRINGS = {
  "credentials-revoke": "Revoke",
  "credentials-revoke-confirm": "Revoke this credential?",
  "credentials-not-revocable": "not revocable",
  "confirm-yes": "Yes",
  "confirm-no": "No",
};

function credential(over: Partial<CredentialView>): CredentialView {
  return {
    jti: "m-1",
    kind: "mandate",
    aud: ["maple-street-auto"],
    exp: 1796604800,
    expires: "Tuesday, December 1, 2026 at 9:00 a.m.",
    status: "active",
    revocable: true,
    ...over,
  };
}

async function show(node: ComponentChild) {
  render(<StringsContext.Provider value={STRINGS}>{node}</StringsContext.Provider>);
  await act(async () => {});
}

const row = (jti: string) => document.querySelector(`tr[data-jti="${jti}"]`) as HTMLElement;

afterEach(cleanup);

describe("Credentials", () => {
  it("offers Revoke exactly where the service says the credential is revocable", async () => {
    const meeting = { meeting_id: "mt_1", revision: 1, contract_sha256: "h", members: ["Noor"], current: true };
    credentials = [
      credential({ jti: "m-1" }),
      credential({ jti: "mc-1", kind: "meeting_contract", aud: [], revocable: false, meeting }),
      credential({ jti: "ac-1", kind: "acceptance", aud: [], revocable: false, meeting }),
      credential({ jti: "m-2", kind: "rule", aud: [], revocable: false }),
      credential({ jti: "m-3", status: "revoked", revocable: false }),
    ];
    await show(<Credentials />);
    expect(within(row("m-1")).getByRole("button", { name: "Revoke" })).toBeTruthy();
    for (const jti of ["mc-1", "ac-1", "m-2"]) {
      expect(within(row(jti)).queryByRole("button"), jti).toBeNull();
      expect(row(jti).textContent, jti).toContain("not revocable");
    }
    expect(within(row("m-3")).queryByRole("button")).toBeNull();
    expect(row("m-3").textContent).not.toContain("not revocable");
  });

  it("revokes the credential whose row was confirmed", async () => {
    credentials = [credential({ jti: "m-1" }), credential({ jti: "m-9" })];
    revoked.length = 0;
    await show(<Credentials />);
    fireEvent.click(within(row("m-9")).getByRole("button", { name: "Revoke" }));
    await act(async () => {
      fireEvent.click(within(row("m-9")).getByRole("button", { name: "Yes" }));
    });
    expect(revoked).toEqual(["m-9"]);
  });

  it("says what each credential allows in the service's words, with ids only behind Details", async () => {
    credentials = [
      credential({ jti: "m-1", summary: "Permission to act at Maple Street Auto (maplestreetauto.example)" }),
      credential({ jti: "m-2", kind: "rule" }),
    ];
    await show(
      <StringsContext.Provider value={{ ...STRINGS, "kind-mandate": "Mandate", "kind-rule": "Rule" }}>
        <Credentials />
      </StringsContext.Provider>,
    );
    const allows = row("m-1").querySelector('[data-summary="m-1"]')!;
    expect(allows.textContent).toBe("Permission to act at Maple Street Auto (maplestreetauto.example)");
    // No id outside the closed Details.
    const cells = [...row("m-1").querySelectorAll("td")].map((td) => {
      const copy = td.cloneNode(true) as HTMLElement;
      copy.querySelector("details")?.remove();
      return copy.textContent ?? "";
    });
    expect(cells.join(" ")).not.toMatch(/m-1|maple-street-auto/);
    // Without a summary (issued before they were kept), the kind in words.
    expect(row("m-2").querySelector('[data-summary="m-2"]')!.textContent).toBe("Rule");
  });

  it("says a record another program changed is not shown, and shows no summary for it", async () => {
    const note = "Another program changed part of your records about this one, so what it allows is not shown here.";
    credentials = [credential({ jti: "m-1", changed: note }), credential({ jti: "m-2", summary: "Oil change" })];
    await show(
      <StringsContext.Provider value={{ ...STRINGS, "kind-mandate": "Mandate" }}>
        <Credentials />
      </StringsContext.Provider>,
    );
    expect(row("m-1").querySelector('[data-changed="m-1"]')!.textContent).toBe(note);
    expect(row("m-1").querySelector('[data-summary="m-1"]')!.textContent).toBe("Mandate");
    // Revoke stays offered: it is what the person may want to do.
    expect(within(row("m-1")).getByRole("button", { name: "Revoke" })).toBeTruthy();
    expect(row("m-2").querySelector("[data-changed]")).toBeNull();
  });

  it("shows the expiry in the service's words", async () => {
    credentials = [credential({ jti: "m-1", expires: "mardi 1 décembre 2026 à 9 h" })];
    await show(<Credentials />);
    expect(row("m-1").textContent).toContain("mardi 1 décembre 2026 à 9 h");
  });
});

describe("History", () => {
  it("shows when each entry happened in the service's words", async () => {
    history = [
      {
        at: 1796604800,
        when: "yesterday at 9:00 a.m. (as the service says)",
        sentence: "You added Noor to your contacts",
        event: "contact_added",
        subject: "urn:x",
        detail: "Noor",
      },
    ];
    await show(<History />);
    expect(screen.getByText("yesterday at 9:00 a.m. (as the service says)")).toBeTruthy();
  });

  it("says what happened in a sentence and keeps ids and codes behind Details", async () => {
    history = [
      {
        at: 1796604800,
        when: "Wed 2 Dec, 1:05 p.m.",
        sentence: "You declined: Synthetic oil change with Maple Street Auto",
        event: "request_declined",
        subject: "rq_Q9JjwEDxTVuc2Myf2D51GA",
        detail: "",
      },
    ];
    await show(<History />);
    const row = screen.getByText("You declined: Synthetic oil change with Maple Street Auto").closest("tr")!;
    // Outside the closed Details, no id and no event code.
    const details = row.querySelector("details")!;
    expect(details.open).toBe(false);
    const outside = [...row.querySelectorAll("td")].map((td) => {
      const copy = td.cloneNode(true) as HTMLElement;
      copy.querySelector("details")?.remove();
      return copy.textContent ?? "";
    });
    expect(outside.join(" ")).not.toMatch(/rq_|request_declined/);
    // Inside it, both, for whoever needs them.
    expect(details.textContent).toContain("rq_Q9JjwEDxTVuc2Myf2D51GA");
    expect(details.textContent).toContain("request_declined");
  });
});
