// History and Credentials are searched and paged by the service: the window
// sends the typed query (crates/keyapp/src/record_query.rs) and shows each
// page as it comes, with "Load more" while another follows. Every state is
// tested: loading, empty, nothing found, a refusal, more pages, the last page;
// and Export, which writes the file the person names.
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ComponentChild } from "preact";
import type { CredentialQuery, CredentialView, HistoryEntry, HistoryQuery } from "../api";

type Page<T> = { items: T[]; next?: string };
let historyPages: (q: HistoryQuery) => Promise<Page<HistoryEntry>>;
let credentialPages: (q: CredentialQuery) => Promise<Page<CredentialView>>;
const historyAsked: HistoryQuery[] = [];
const credentialsAsked: CredentialQuery[] = [];
const exported: [string, string][] = [];
let exportAnswer: (path: string) => Promise<string>;

vi.mock("../api", () => ({
  isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
  api: {
    searchHistory: (q: HistoryQuery) => {
      historyAsked.push(q);
      return historyPages(q);
    },
    searchCredentials: (q: CredentialQuery) => {
      credentialsAsked.push(q);
      return credentialPages(q);
    },
    filterChoices: async () => ({
      hosts: [
        { value: "maple-street-auto", label: "Maple Street Auto" },
        { value: "smile-dental", label: "Smile Dental" },
      ],
      agents: [{ value: "jkt-cal", label: "Calendar Pal" }],
    }),
    exportPath: async (format: string) => `/home/you/schcp-records.${format}`,
    exportRecords: (path: string, format: string) => {
      exported.push([path, format]);
      return exportAnswer(path);
    },
    revoke: async () => {},
    prompt: async () => ({ consent_text: "" }),
  },
}));

import { StringsContext } from "../i18n";
import { Credentials } from "./Credentials";
import { History } from "./History";
import { dayStart } from "../RecordSearch";

const STRINGS: Record<string, string> = {
  "history-heading": "History",
  "credentials-heading": "What you have signed",
  "empty-list": "Nothing here yet.",
  "search-none": "Nothing matches this search.",
  "search-text": "Words to find",
  "search-host": "Host",
  "search-host-any": "Any host",
  "search-agent": "Assistant",
  "search-agent-any": "Any assistant",
  "search-answer": "What became of it",
  "search-answer-any": "Anything",
  "search-answer-declined": "You declined",
  "search-state": "State",
  "search-state-any": "Any state",
  "status-revoked": "revoked",
  "search-since": "From",
  "search-until": "To",
  "search-submit": "Search",
  "search-clear": "Clear",
  "load-more": "Load more",
  "error-prefix": "Something went wrong:",
  "export-heading": "Export your records",
  "export-path": "File to write (full path)",
  "export-format": "Format",
  "export-format-json": "Data file (JSON)",
  "export-format-html": "Printable page (HTML; open it and print)",
  "export-submit": "Export",
  "credentials-revoke": "Revoke",
  "credentials-revoke-confirm": "Revoke this credential?",
  "confirm-yes": "Yes",
  "confirm-no": "No",
};

function entry(n: number, over: Partial<HistoryEntry> = {}): HistoryEntry {
  return {
    at: 1796604800 + n,
    when: `Wed 2 Dec, 1:0${n % 10} p.m.`,
    sentence: `You declined: Oil change number ${n} at Maple Street Auto`,
    event: "request_declined",
    subject: `rq_${n}AAAAAAAAAAAAAAAAAAAA`,
    detail: "",
    ...over,
  };
}

function credential(n: number): CredentialView {
  return {
    jti: `m-${n}XXXXXXXXXXXXXXXX`,
    kind: "closed_mandate",
    summary: `Oil change number ${n} at Maple Street Auto`,
    aud: ["maple-street-auto"],
    exp: 1796604800,
    expires: "Tuesday 1 December, 9:00 a.m.",
    status: "active",
    revocable: true,
  };
}

function last<T>(list: T[]): T | undefined {
  return list[list.length - 1];
}

async function show(node: ComponentChild) {
  render(<StringsContext.Provider value={STRINGS}>{node}</StringsContext.Provider>);
  await act(async () => {});
}

async function click(el: HTMLElement) {
  await act(async () => {
    fireEvent.click(el);
  });
}

/** Text a person reads outside every closed Details. */
function visibleText(): string {
  const copy = document.body.cloneNode(true) as HTMLElement;
  copy.querySelectorAll("details, option").forEach((d) => d.remove());
  return copy.textContent ?? "";
}

beforeEach(() => {
  historyAsked.length = 0;
  credentialsAsked.length = 0;
  exported.length = 0;
});
afterEach(cleanup);

describe("History search", () => {
  it("says nothing until the first page arrives, then lists it", async () => {
    let arrive: (p: Page<HistoryEntry>) => void = () => {};
    historyPages = () => new Promise((resolve) => (arrive = resolve));
    await show(<History />);
    expect(screen.queryByRole("table")).toBeNull();
    expect(screen.queryByText("Nothing here yet.")).toBeNull();
    await act(async () => arrive({ items: [entry(1)] }));
    expect(screen.getByText("You declined: Oil change number 1 at Maple Street Auto")).toBeTruthy();
    expect(historyAsked).toEqual([{}]);
  });

  it("says the history is empty, and that a search found nothing, differently", async () => {
    historyPages = async () => ({ items: [] });
    await show(<History />);
    expect(screen.getByText("Nothing here yet.")).toBeTruthy();
    fireEvent.input(screen.getByLabelText("Words to find"), { target: { value: "dentist" } });
    await click(screen.getByRole("button", { name: "Search" }));
    expect(screen.getByText("Nothing matches this search.")).toBeTruthy();
    expect(screen.queryByText("Nothing here yet.")).toBeNull();
  });

  it("sends the service every filter as the typed query, and Clear sends none", async () => {
    historyPages = async () => ({ items: [entry(1)] });
    await show(<History />);
    fireEvent.input(screen.getByLabelText("Words to find"), { target: { value: "  oil change " } });
    fireEvent.change(screen.getByLabelText("Host"), { target: { value: "maple-street-auto" } });
    fireEvent.change(screen.getByLabelText("Assistant"), { target: { value: "jkt-cal" } });
    fireEvent.change(screen.getByLabelText("What became of it"), { target: { value: "declined" } });
    fireEvent.input(screen.getByLabelText("From"), { target: { value: "2026-12-01" } });
    fireEvent.input(screen.getByLabelText("To"), { target: { value: "2026-12-02" } });
    await click(screen.getByRole("button", { name: "Search" }));
    expect(last(historyAsked)).toEqual({
      text: "oil change",
      host: "maple-street-auto",
      agent: "jkt-cal",
      answer: "declined",
      since: dayStart("2026-12-01"),
      // "To" includes its day: the query's end is the next day's start.
      until: dayStart("2026-12-03"),
    });
    // The choices are named in words: the host's name, the assistant's name.
    expect(within(screen.getByLabelText("Assistant")).getByText("Calendar Pal")).toBeTruthy();
    await click(screen.getByRole("button", { name: "Clear" }));
    expect(last(historyAsked)).toEqual({
      text: undefined,
      host: undefined,
      agent: undefined,
      answer: undefined,
      since: undefined,
      until: undefined,
    });
    expect((screen.getByLabelText("Words to find") as HTMLInputElement).value).toBe("");
  });

  it("offers each host by the name the service gives, and searches by the host it stands for", async () => {
    historyPages = async () => ({ items: [entry(1)] });
    await show(<History />);
    const hosts = screen.getByLabelText("Host") as HTMLSelectElement;
    const shown = [...hosts.options].map((o) => o.textContent);
    expect(shown).toEqual(["Any host", "Maple Street Auto", "Smile Dental"]);
    // No id or domain where the person reads: those are the options' values only.
    expect(shown.join(" ")).not.toMatch(/smile-dental|maple-street-auto|\.example/);
    const smile = within(hosts).getByRole("option", { name: "Smile Dental" }) as HTMLOptionElement;
    fireEvent.change(hosts, { target: { value: smile.value } });
    await click(screen.getByRole("button", { name: "Search" }));
    expect(last(historyAsked)).toEqual(expect.objectContaining({ host: "smile-dental" }));
  });

  it("loads the next page after the last one, with the same search, until there is none", async () => {
    historyPages = async (q) =>
      q.cursor === undefined ? { items: [entry(1), entry(2)], next: "h1.2" } : { items: [entry(3)] };
    await show(<History />);
    fireEvent.input(screen.getByLabelText("Words to find"), { target: { value: "oil" } });
    await click(screen.getByRole("button", { name: "Search" }));
    await click(screen.getByRole("button", { name: "Load more" }));
    expect(last(historyAsked)).toEqual(expect.objectContaining({ text: "oil", cursor: "h1.2" }));
    const rows = screen.getAllByRole("row").slice(1);
    expect(rows.map((r) => r.querySelector(".sentence")!.textContent)).toEqual([1, 2, 3].map(
      (n) => `You declined: Oil change number ${n} at Maple Street Auto`,
    ));
    expect(screen.queryByRole("button", { name: "Load more" })).toBeNull();
  });

  it("shows a refusal in the service's words, and a new search starts from the first page", async () => {
    historyPages = async () => {
      throw { code: "INVALID_REQUEST", reason: "bad_query", message: "This search is too long; use fewer words." };
    };
    await show(<History />);
    expect(screen.getByRole("alert").textContent).toContain("This search is too long; use fewer words.");
    historyPages = async () => ({ items: [entry(4)] });
    await click(screen.getByRole("button", { name: "Search" }));
    expect(screen.queryByRole("alert")).toBeNull();
    expect(last(historyAsked)?.cursor).toBeUndefined();
  });

  it("drops a slow answer to a search the person already replaced", async () => {
    const waiting: ((p: Page<HistoryEntry>) => void)[] = [];
    historyPages = () => new Promise((resolve) => waiting.push(resolve));
    await show(<History />);
    await click(screen.getByRole("button", { name: "Search" }));
    await act(async () => waiting[1]({ items: [entry(2)] }));
    await act(async () => waiting[0]({ items: [entry(1)] }));
    expect(screen.getByText("You declined: Oil change number 2 at Maple Street Auto")).toBeTruthy();
    expect(screen.queryByText("You declined: Oil change number 1 at Maple Street Auto")).toBeNull();
  });

  it("shows no raw id outside Details, with the search and the pager on screen", async () => {
    historyPages = async () => ({ items: [entry(1), entry(2, { event: "credential_issued", subject: "m-7Ww" })], next: "h1.9" });
    await show(<History />);
    expect(visibleText()).not.toMatch(/rq_|m-7Ww|request_declined|credential_issued|jkt-cal|h1\.9/);
  });
});

describe("Credentials search", () => {
  it("filters by state and pages with Load more", async () => {
    credentialPages = async (q) =>
      q.cursor === undefined ? { items: [credential(1)], next: "c1.5.1" } : { items: [credential(2)] };
    await show(<Credentials />);
    fireEvent.change(screen.getByLabelText("State"), { target: { value: "revoked" } });
    await click(screen.getByRole("button", { name: "Search" }));
    expect(last(credentialsAsked)?.state).toBe("revoked");
    expect(last(credentialsAsked)?.cursor).toBeUndefined();
    await click(screen.getByRole("button", { name: "Load more" }));
    expect(last(credentialsAsked)).toEqual(expect.objectContaining({ state: "revoked", cursor: "c1.5.1" }));
    expect(screen.getByText("Oil change number 2 at Maple Street Auto")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Load more" })).toBeNull();
    expect(visibleText()).not.toMatch(/m-\d|maple-street-auto|c1\.5/);
  });

  it("after a revocation asks again for the first page of the same search", async () => {
    credentialPages = async () => ({ items: [credential(1)] });
    await show(<Credentials />);
    fireEvent.input(screen.getByLabelText("Words to find"), { target: { value: "oil" } });
    await click(screen.getByRole("button", { name: "Search" }));
    const asked = credentialsAsked.length;
    await click(screen.getByRole("button", { name: "Revoke" }));
    await click(screen.getByRole("button", { name: "Yes" }));
    expect(credentialsAsked.length).toBe(asked + 1);
    expect(last(credentialsAsked)).toEqual(expect.objectContaining({ text: "oil" }));
    expect(last(credentialsAsked)?.cursor).toBeUndefined();
  });

  it("says when a search found nothing", async () => {
    credentialPages = async (q) => (q.host ? { items: [] } : { items: [credential(1)] });
    await show(<Credentials />);
    fireEvent.change(screen.getByLabelText("Host"), { target: { value: "maple-street-auto" } });
    await click(screen.getByRole("button", { name: "Search" }));
    expect(screen.getByText("Nothing matches this search.")).toBeTruthy();
  });
});

describe("Export", () => {
  it("suggests a file for the format, writes the one the person names, and says where", async () => {
    historyPages = async () => ({ items: [] });
    exportAnswer = async (path) => `Your records were written to ${path}.`;
    await show(<History />);
    const path = screen.getByLabelText("File to write (full path)") as HTMLInputElement;
    expect(path.value).toBe("/home/you/schcp-records.json");
    fireEvent.change(screen.getByLabelText("Format"), { target: { value: "html" } });
    await act(async () => {});
    expect(path.value).toBe("/home/you/schcp-records.html");
    fireEvent.input(path, { target: { value: "/home/you/Documents/mine.html" } });
    await click(screen.getByRole("button", { name: "Export" }));
    expect(exported).toEqual([["/home/you/Documents/mine.html", "html"]]);
    expect(screen.getByRole("status").textContent).toBe("Your records were written to /home/you/Documents/mine.html.");
    // A path the person typed stays when the format changes.
    fireEvent.change(screen.getByLabelText("Format"), { target: { value: "json" } });
    await act(async () => {});
    expect(path.value).toBe("/home/you/Documents/mine.html");
  });

  it("shows why a file could not be written", async () => {
    historyPages = async () => ({ items: [] });
    exportAnswer = async () => {
      throw { code: "INVALID_REQUEST", reason: "bad_path", message: "The file could not be written (no such folder)." };
    };
    await show(<History />);
    await click(screen.getByRole("button", { name: "Export" }));
    expect(screen.getByRole("alert").textContent).toContain("The file could not be written (no such folder).");
    expect(screen.queryByRole("status")).toBeNull();
  });
});
