// One language everywhere: every screen of the window (the eight screens, the
// consent window before and after an answer, the first run, the passphrase
// window) rendered with the real French messages (locales/fr/ui.ftl), the
// service's own words mocked in French, and no English word from a list may
// appear in the text or in what a screen reader reads (aria-label, title,
// placeholder). A message missing from the French catalogue shows its id
// ("consent-approve"), which the list catches too.
import { act, cleanup, fireEvent, render } from "@testing-library/preact";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import FR_SOURCE from "../../locales/fr/ui.ftl?raw";

/** locales/fr/ui.ftl's messages, as their source text (the window's messages take no arguments). */
function catalogue(source: string): Record<string, string> {
  const out: Record<string, string> = {};
  let id: string | null = null;
  for (const line of source.split("\n")) {
    const m = line.match(/^([a-zA-Z][\w-]*)\s*=\s?(.*)$/);
    if (m) {
      id = m[1];
      out[id] = m[2];
    } else if (id !== null && /^\s+\S/.test(line)) {
      out[id] += (out[id] ? "\n" : "") + line.trim();
    } else if (!line.startsWith(" ")) {
      id = null;
    }
  }
  return out;
}

const FR = catalogue(FR_SOURCE);

/**
 * English a French reader must never meet: the screens' own words, and common
 * English function words; none is also a French word ("change", "agents",
 * "export", "active" are, and are left out). A code with an underscore
 * (`request_declined`, under Details by design) is an identifier, not a word.
 */
export const ENGLISH = [
  "Approve", "Approved", "Decline", "Declined", "Settings", "History", "Credentials", "Credential", "booking",
  "bookings", "Revoke", "Revoked", "Cancel", "Cancelled", "Review", "Requests", "Request", "Unpair", "Pairing",
  "Loading", "Close", "Next", "Copy", "Copied", "Save", "Skip", "Unlock", "Passphrase", "Weak", "Price", "Address",
  "Expires", "Expired", "waiting", "pending", "confirmed", "Nothing", "never", "Show", "Hide", "Details", "Language",
  "Search", "Yes", "Confirm", "Accept", "Add", "Remove", "Rename", "Name", "Key", "Status", "Business", "Error",
  "Open", "mandate", "assistant's", "the", "your", "you", "and", "with", "this", "is", "are", "not", "of", "to", "it",
  "be", "at", "from", "what", "which", "who", "when", "until",
];
const PATTERN = new RegExp(`(?<![\\p{L}\\p{N}_])(${ENGLISH.join("|")})(?![\\p{L}\\p{N}_])`, "giu");

/**
 * A message's words as a person reads them: without Fluent's syntax
 * (placeables, variables, selector keys) and without command-line flags
 * (`--key-seed`) or commands (`schcp-keyapp revoke-everything`), which are
 * typed as they are in every language.
 */
function sayable(text: string): string {
  return text
    .replace(/\{\s*\$[\w-]+\s*(->)?\s*\}?/g, " ")
    .replace(/\*?\[[\w-]+\]/g, " ")
    .replace(/\$[\w-]+/g, " ")
    .replace(/(^|\s)--[\w-]+/g, " ")
    .replace(/schcp-keyapp\s+[\w-]+/g, " ");
}

/** Every English word a person (or their screen reader) meets on screen now. */
function english(): string[] {
  // Text node by text node: textContent runs neighbours together ("ApproveDecline").
  const said: string[] = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) said.push(n.nodeValue ?? "");
  for (const el of document.body.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
    for (const a of ["aria-label", "title", "placeholder", "alt"]) {
      const v = el.getAttribute(a);
      if (v) said.push(v);
    }
  }
  return said.flatMap((s) => [...s.matchAll(PATTERN)].map((m) => m[0]));
}

// The service's words arrive in the person's language; here, French throughout.
const PRINCIPAL = "urn:schcp:principal:jwk-thumbprint:NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs";
let setup = { answered: true };
vi.mock("./api", () => {
  const pending = [
    {
      id: "rq_1", kind: "closed_mandate", agent_name: "Assistant Exemple", fingerprint: "7F3A-91C2-K8QD",
      summary: "Vidange synthétique chez Garage Maple, jeudi 15 octobre 2026, 13 h 00", created_at: 0,
      created: "13 h 00", expires_at: 4_000_000_000, expires: "13 h 10",
    },
  ];
  const prompt = {
    id: "rq_1", kind: "closed_mandate", status: "pending", agent_name: "Assistant Exemple",
    fingerprint: "7F3A-91C2-K8QD", consent_text: "Je réserve une vidange synthétique chez Garage Maple.",
    created_at: 0, expires_at: 4_000_000_000,
    attention: [
      { kind: "wide_mandate", grade: "grave", detail: "Cet assistant pourrait réserver n’importe quoi." },
      { kind: "price", grade: "caution", detail: "89,27 CAD" },
      { kind: "new_host", grade: "notice", detail: "Garage Maple" },
    ],
    terms: {
      host: "Garage Maple", address: "120, rue Maple, Toronto",
      lines: [
        { kind: "service", label: "Vidange synthétique", amount: "79,00 CAD" },
        { kind: "tax", label: "TVH 13 %", amount: "10,27 CAD" },
      ],
      total: "89,27 CAD",
    },
  };
  const status = {
    answered: true, choice: "not_now", base: "http://127.0.0.1:7412", hosts_can_check: "unreachable",
    words: "Vous n’avez pas choisi de service de statut.", publication: "nothing",
    publication_words: "Rien n’a encore été publié.", waiting: 0,
    requested: { words: "Votre configuration demande une autre adresse." },
    refused: [{ jti: "m-9", reason: "namespace_full", words: "Refusé : plus de place." }],
  };
  return {
    isCommandError: (e: unknown) => typeof e === "object" && e !== null && "code" in e,
    api: {
    askedElsewhere: async () => null,
      pending: async () => pending,
      prompt: async () => ({ ...prompt }),
      answer: async () => ({ status: "approved" }),
      relabelRule: async () => prompt,
      agents: async () => [
        {
          jkt: "j1", name: "Assistant Exemple", fingerprint: "7F3A-91C2-K8QD", paired_at: 1_796_000_000,
          last_request_at: 1_796_000_100, last_request: "mardi 1 décembre, 13 h 00",
          paired: "mardi 1 décembre, 12 h 00", holds: { revocable: 1, not_revocable: ["Règle : expire jeudi."] },
          cooldown: { until: 1_796_000_900, until_words: "13 h 15", words: "Trop de demandes refusées." },
        },
      ],
      unpair: async () => ({ revoked: [], words: "Dissocié. Rien n’a été révoqué.", kept: [] }),
      liftCooldown: async () => {},
      credentials: async () => [
        {
          jti: "m-1", kind: "mandate", aud: ["garage-maple"], exp: 1_796_604_800, expires: "mardi 1 décembre, 9 h 00",
          status: "active", revocable: true, summary: "Vidange chez Garage Maple", hosts: "Garage Maple",
          remaining: "1 réservation restante", can_do: "annuler ou déplacer",
        },
      ],
      bookings: async () => [
        {
          booking_id: "b_1", host_id: "garage-maple", what: "Vidange synthétique", when: "jeudi 15 octobre 2026, 13 h 00",
          host: "Garage Maple", price: "89,27 CAD", state: "confirmée", upcoming: true, start: 1_792_083_600,
          rests_on: "Vidange chez Garage Maple",
          managers: [{ jti: "m-2", agent: "Assistant Exemple", state: "active", state_words: "actif", revocable: true }],
        },
      ],
      revoke: async () => {},
      searchCredentials: async () => ({
        items: [
          {
            jti: "m-1", kind: "mandate", aud: ["garage-maple"], exp: 1_796_604_800, expires: "mardi 1 décembre, 9 h 00",
            status: "active", revocable: true, summary: "Vidange chez Garage Maple", hosts: "Garage Maple",
            remaining: "1 réservation restante", can_do: "annuler ou déplacer",
          },
        ],
      }),
      searchHistory: async () => ({
        items: [
          {
            at: 1_796_000_000, when: "mardi 1 décembre, 13 h 00", sentence: "Vous avez refusé : vidange chez Garage Maple.",
            event: "request_declined", subject: "rq_1", detail: "",
          },
        ],
      }),
      filterChoices: async () => ({
        hosts: [{ value: "garage-maple", label: "Garage Maple" }],
        agents: [{ value: "j1", label: "Assistant Exemple" }],
      }),
      exportPath: async () => "/home/moi/donnees.json",
      exportRecords: async (path: string) => path,
      recoveryKit: async () => ({
        words: Array.from({ length: 24 }, (_, i) => `mot${i + 1}`), principal: PRINCIPAL, key_seed: false,
        confirm: [3, 17], page: "<p>Kit</p>",
      }),
      confirmRecoveryWords: async () => true,
      backupNow: async (path: string) => path,
      autoBackup: async () => ({ folder: null, keep: 7, in_config_file: false }),
      setAutoBackup: async () => ({ folder: null, keep: 7, in_config_file: false }),
      firstRunChoice: async () => ({ state: "unlocked", route: null }),
      history: async () => [
        {
          at: 1_796_000_000, when: "mardi 1 décembre, 13 h 00", sentence: "Vous avez refusé : vidange chez Garage Maple.",
          event: "request_declined", subject: "rq_1", detail: "",
        },
      ],
      contacts: async () => [{ principal: PRINCIPAL, name: "Ellis", relationship: "voisine" }],
      addContact: async () => {},
      renameContact: async () => {},
      removeContact: async () => {},
      attestations: async () => [{ iss: "verificateur", exp: 1_796_604_800, expires: "1 décembre 2026", compact: "eyJ" }],
      addAttestation: async () => ({}),
      settings: async () => ({
        principal: PRINCIPAL, jwk: { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS" },
        status_public_base: "http://127.0.0.1:7412", hosts_can_check: "unreachable", keystore: "file", consent_language: "fr",
      }),
      hostChanges: async () => [
        {
          words: "Garage Maple a d’abord été vérifié à garagemaple.example.", host_id: "garage-maple",
          bound_domain: "garagemaple.example", bound_basis: "own_domain", domain: "maple.example", basis: "own_domain",
          seen_at: 1_796_000_000,
        },
      ],
      acceptHostDomain: async () => {},
      statusSetup: async () => ({ ...status, answered: setup.answered }),
      chooseStatus: async () => status,
      confirmConfiguredStatus: async () => status,
      uiStrings: async () => ({ lang: "fr", strings: FR }),
      setLanguage: async () => ({ lang: "fr", strings: FR }),
      unlockState: async () => ({ state: "asking", purpose: "create", problem: "mismatch" }),
      unlock: async () => ({ state: "asking", purpose: "create", problem: "mismatch" }),
      openMain: async () => {},
      openConsent: async () => {},
      closeWindow: async () => {},
      waitChange: () => new Promise<number>(() => {}),
    },
  };
});

import { App } from "./App";

async function settle(times = 20) {
  for (let i = 0; i < times; i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
  }
}

async function walk(hash: string) {
  location.hash = hash;
  render(<App />);
  await settle();
}

/**
 * Opens every disclosure and presses every button once (each "are you sure?"
 * question, each form shown on demand, each text shown on request), so the
 * words a screen shows only after a press are walked too. The commands are mocked.
 */
async function openEverything() {
  for (const d of document.querySelectorAll("details")) d.open = true;
  for (const b of [...document.querySelectorAll("button")]) {
    if (!b.isConnected || b.disabled) continue;
    fireEvent.click(b, { detail: 1 });
    await settle(2);
  }
}

beforeEach(() => {
  setup = { answered: true };
  vi.spyOn(document, "hasFocus").mockReturnValue(true);
});
afterEach(() => {
  cleanup();
  location.hash = "";
  vi.restoreAllMocks();
});
// Preact runs a hook's effects after paint, on a timer of its own (up to
// 100 ms without animation frames): let the last screen's run before the
// test environment (and its window) goes away.
afterAll(async () => {
  await new Promise((r) => setTimeout(r, 300));
});

describe("every screen in French", () => {
  it("the English list finds English, and a missing message's id", () => {
    document.body.innerHTML = "<p>Approve</p><p>consent-decline</p><button aria-label='Revoke this'>x</button><p>Réglages</p>";
    try {
      expect(english()).toEqual(["Approve", "decline", "Revoke", "this"]);
    } finally {
      document.body.innerHTML = "";
    }
  });

  it("no French message says an English word (tray, notifications and refusals included)", () => {
    const found = Object.entries(FR).flatMap(([id, text]) =>
      [...sayable(text).matchAll(PATTERN)].map((m) => `${id}: ${m[0]}`),
    );
    expect(found).toEqual([]);
  });

  for (const screen of ["requests", "bookings", "agents", "credentials", "history", "contacts", "attestations", "settings"]) {
    it(`#/${screen}`, async () => {
      await walk(`#/${screen}`);
      expect(document.getElementById(`h-${screen}`), `${screen} rendered`).not.toBeNull();
      await openEverything();
      expect(english(), document.body.textContent ?? "").toEqual([]);
    });
  }

  it("Settings keeps the public key behind a closed Details", async () => {
    await walk("#/settings");
    const key = document.getElementById("jwk");
    expect(key, "the key is on the screen").not.toBeNull();
    const details = key!.closest("details");
    expect(details, "inside a disclosure").not.toBeNull();
    expect(details!.open).toBe(false);
    expect(details!.querySelector("summary")?.textContent).toBe("Détails pour les développeurs");
  });

  it("the first run above a screen", async () => {
    setup = { answered: false };
    await walk("#/requests");
    expect(document.querySelector("#first-run, .first-run, [aria-labelledby='h-first-run']")).not.toBeNull();
    expect(english(), document.body.textContent ?? "").toEqual([]);
  });

  it("the consent window, before and after the person's answer", async () => {
    await walk("#/consent/rq_1");
    expect(document.getElementById("consent-text")).not.toBeNull();
    expect(english(), document.body.textContent ?? "").toEqual([]);
    await act(async () => {
      await new Promise((r) => setTimeout(r, 1100));
    });
    const approve = document.getElementById("approve") as HTMLButtonElement;
    expect(approve.disabled).toBe(false);
    fireEvent.pointerDown(approve);
    fireEvent.click(approve, { detail: 1 });
    await settle();
    expect(document.getElementById("consent-notice")).not.toBeNull();
    expect(english(), document.body.textContent ?? "").toEqual([]);
  });

  it("the consent window with nothing waiting", async () => {
    await walk("#/consent");
    expect(english(), document.body.textContent ?? "").toEqual([]);
  });

  it("the passphrase window, a new key, its problems and a weak passphrase", async () => {
    await walk("#/unlock");
    expect(document.getElementById("unlock-problem")).not.toBeNull();
    fireEvent.input(document.getElementById("passphrase")!, { target: { value: "soleil" } });
    fireEvent.input(document.getElementById("confirmation")!, { target: { value: "soleil" } });
    for (let i = 0; i < 100 && document.getElementById("unlock-strength")?.dataset.weak !== "true"; i++) await settle(1);
    fireEvent.submit(document.getElementById("unlock-form")!);
    for (let i = 0; i < 100 && !document.getElementById("unlock-weak"); i++) await settle(1);
    expect(document.getElementById("unlock-weak")).not.toBeNull();
    expect(english(), document.body.textContent ?? "").toEqual([]);
  });
});
