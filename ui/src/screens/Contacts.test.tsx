// Adding a contact from the card the other person copied from their Settings.
import { describe, expect, it } from "vitest";
import { parseCard } from "./Contacts";

describe("a contact card", () => {
  it("gives the name and the id of a card, and keeps an id alone as it is", () => {
    expect(parseCard("Ellis <urn:schcp:principal:jwk-thumbprint:abc>")).toEqual({
      name: "Ellis",
      principal: "urn:schcp:principal:jwk-thumbprint:abc",
    });
    expect(parseCard("  Noor Haddad  < urn:schcp:principal:jwk-thumbprint:x-y_z >\n")).toEqual({
      name: "Noor Haddad",
      principal: "urn:schcp:principal:jwk-thumbprint:x-y_z",
    });
    expect(parseCard("urn:schcp:principal:jwk-thumbprint:abc")).toEqual({
      name: null,
      principal: "urn:schcp:principal:jwk-thumbprint:abc",
    });
  });

  it("never reads a name out of text that is not a card", () => {
    // No id inside the brackets, two ids, or markup: taken as typed, for the
    // key app to refuse with its own words.
    for (const text of ["Ellis <not-an-id>", "<b>Ellis</b>", "Ellis <urn:schcp:principal:a> <urn:schcp:principal:b>"]) {
      expect(parseCard(text).name).toBeNull();
    }
  });
});
