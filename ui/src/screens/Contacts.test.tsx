// Adding a contact from the card the other person copied from their Settings.
import { describe, expect, it } from "vitest";
import { contactCode, parseCard } from "./Contacts";

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

describe("a contact's code, read aloud to compare", () => {
  it("is the first 60 bits of the key’s thumbprint, in hex, in three groups of five", () => {
    expect(contactCode("urn:schcp:principal:jwk-thumbprint:NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")).toBe(
      "3736C BB178 7CB83",
    );
    // Another key (a card swapped on the clipboard): another code.
    expect(contactCode("urn:schcp:principal:jwk-thumbprint:TwC_dRxVsmxVj3koNwX6NQXKcvLuWlVWe2bYIXNscF0")).toBe(
      "4F00B F751C 55B26",
    );
  });

  it("is nothing for what is not a principal id", () => {
    for (const text of ["", "Ellis", "urn:schcp:principal:jwk-thumbprint:abc", "urn:schcp:host:maple-street-auto"]) {
      expect(contactCode(text)).toBeNull();
    }
  });
});
