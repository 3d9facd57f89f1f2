// How guessable a new passphrase is, by a well-kept estimator (zxcvbn-ts, with
// its common, English and French dictionaries), so the passphrase window can
// say when one is weak. Loaded on its own (Unlock imports it dynamically): the
// dictionaries weigh megabytes no other window should parse.
import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import * as common from "@zxcvbn-ts/language-common";
import * as en from "@zxcvbn-ts/language-en";
import * as fr from "@zxcvbn-ts/language-fr";

/**
 * zxcvbn's scores run 0–4; under 3 is "guessable" by its authors' own
 * measure (an offline attack on a slow hash within months, or much less).
 */
export const STRONG_ENOUGH = 3;

let estimator: ZxcvbnFactory | null = null;

function zxcvbn(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...en.dictionary, ...fr.dictionary },
    graphs: common.adjacencyGraphs,
  });
  return estimator;
}

/** Whether `passphrase` is weak: easy to guess for someone who has the key file. */
export function isWeak(passphrase: string): boolean {
  return zxcvbn().check(passphrase).score < STRONG_ENOUGH;
}
