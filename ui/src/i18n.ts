// The window's words come whole from Rust (locales/*/ui.ftl via the
// ui_strings command); this only looks them up. A missing id shows the id, so
// a gap is visible rather than silently blank.
import { createContext } from "preact";
import { useContext, useEffect, useLayoutEffect, useState } from "preact/hooks";
import type { UiStrings } from "./api";

export type Strings = Record<string, string>;

export const StringsContext = createContext<Strings>({});

export function useT(): (id: string) => string {
  const strings = useContext(StringsContext);
  return (id: string) => strings[id] ?? id;
}

/**
 * The window's words once `load` gives them (null until then), with the
 * page's language set to theirs, and a setter for new words (a language
 * change): each window's page (App, ConsentApp) starts with this.
 */
export function useWindowStrings(
  load: () => Promise<UiStrings>,
): [UiStrings | null, (ui: UiStrings) => void] {
  const [ui, setUi] = useState<UiStrings | null>(null);
  // A layout effect: Preact runs a plain one only after the next frame, and a
  // window just made draws its first frames late; the words are waited for
  // from the first render on.
  useLayoutEffect(() => {
    load().then(setUi);
  }, []);
  useEffect(() => {
    if (ui) document.documentElement.lang = ui.lang;
  }, [ui]);
  return [ui, setUi];
}
