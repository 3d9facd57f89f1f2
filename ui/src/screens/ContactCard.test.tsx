// The person's own contact card in Settings: the short text another household
// pastes into Contacts, which Contacts' own parser reads back to the same name
// and id, with a copy button; a name that would break the card is cleaned.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";

vi.mock("../api", () => ({ api: {}, isCommandError: () => false }));

import { StringsContext } from "../i18n";
import { parseCard } from "./Contacts";
import { cardText, ContactCard } from "./Settings";

const ID = "urn:schcp:principal:jwk-thumbprint:NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs";

afterEach(cleanup);

async function show() {
  render(
    <StringsContext.Provider value={{ "settings-card": "Your contact card", "settings-copy": "Copy" }}>
      <ContactCard principal={ID} />
    </StringsContext.Provider>,
  );
  await act(async () => {});
}

describe("Settings: the person's own contact card", () => {
  it("is the name and id as Contacts reads them, and Copy puts exactly that on the clipboard", async () => {
    const written: string[] = [];
    Object.defineProperty(navigator, "clipboard", {
      value: { writeText: async (s: string) => void written.push(s) },
      configurable: true,
    });
    await show();
    // No name yet: the id alone, which Contacts also takes.
    expect(document.getElementById("card-text")!.textContent).toBe(ID);
    fireEvent.input(document.getElementById("card-name")!, { target: { value: "Noor Haddad" } });
    await act(async () => {});
    const card = document.getElementById("card-text")!.textContent!;
    expect(card).toBe(`Noor Haddad <${ID}>`);
    expect(parseCard(card)).toEqual({ name: "Noor Haddad", principal: ID });
    fireEvent.click(screen.getByRole("button", { name: "Copy: Your contact card" }));
    await act(async () => {});
    expect(written).toEqual([card]);
    // The code to read to whoever adds this card: the one Contacts shows them.
    expect(document.getElementById("card-code")!.textContent).toBe("3736C BB178 7CB83");
  });

  it("keeps a hostile name from breaking the card or forging another id", () => {
    const forged = cardText("Eve <urn:schcp:principal:jwk-thumbprint:EVIL>\n", ID);
    expect(forged).toBe(`Eve urn:schcp:principal:jwk-thumbprint:EVIL <${ID}>`);
    expect(parseCard(forged).principal).toBe(ID);
    expect(cardText("A\u202Eb\u0000c", ID)).toBe(`A b c <${ID}>`);
    expect(cardText("   ", ID)).toBe(ID);
    expect(parseCard(cardText("", ID))).toEqual({ name: null, principal: ID });
  });
});
