// The window's words come whole from Rust (locales/*/ui.ftl via the
// ui_strings command); this only looks them up. A missing id shows the id, so
// a gap is visible rather than silently blank.
import { createContext } from "preact";
import { useContext } from "preact/hooks";

export type Strings = Record<string, string>;

export const StringsContext = createContext<Strings>({});

export function useT(): (id: string) => string {
  const strings = useContext(StringsContext);
  return (id: string) => strings[id] ?? id;
}
