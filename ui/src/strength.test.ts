// The estimator says weak for what an attacker tries first (short, common,
// dictionary words in either language, keyboard walks) and not for a long
// passphrase of unrelated words.
import { describe, expect, it } from "vitest";
import { isWeak } from "./strength";

describe("passphrase strength (zxcvbn-ts)", () => {
  it("calls short, common, dictionary and keyboard-walk passphrases weak", () => {
    for (const p of ["a", "same", "password1", "qwertyuiop", "motdepasse", "soleil", "123456789", "azerty"]) {
      expect(isWeak(p), p).toBe(true);
    }
  });

  it("does not call a long passphrase of unrelated words weak", () => {
    for (const p of ["correct horse battery", "tulip orbit canyon fresco", "xK9#mq2!vL7p"]) {
      expect(isWeak(p), p).toBe(false);
    }
  });
});
