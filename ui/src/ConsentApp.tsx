// The consent window's page: the consent view alone, without the main
// window's screens, so the page WebKit loads when a request opens the window
// is small. Its first look (the request's prompt and the pending list) is
// asked for at once, beside the window's words, not after them.
import { useEffect, useState } from "preact/hooks";
import { api, type UiStrings } from "./api";
import { ConsentView, openingFor, type Opening } from "./Consent";
import { StringsContext, useWindowStrings } from "./i18n";
import { parseRoute } from "./route";

/** What the page starts with: the window's words and its first look. */
export type Start = { strings: Promise<UiStrings>; opening: Opening };

/** The request a route names (#/consent/rq_…), else none: the oldest pending. */
function requestOf(hash: string): string | undefined {
  const route = parseRoute(hash);
  return route.view === "consent" ? route.id : undefined;
}

/** Asks for the window's words and its first look together, as the page starts. */
export function start(hash: string): Start {
  return { strings: api.uiStrings(), opening: openingFor(requestOf(hash)) };
}

export function ConsentApp(props: { start: Start }) {
  const [ui] = useWindowStrings(() => props.start.strings);
  const [requested, setRequested] = useState(() => requestOf(location.hash));
  useEffect(() => {
    // The app points an open window at the request that raised it (src-tauri windows.rs).
    // Removed through its signal: preact may run this cleanup after a paint
    // timer, when the page (or a test's document) is already gone.
    const listening = new AbortController();
    window.addEventListener("hashchange", () => setRequested(requestOf(location.hash)), { signal: listening.signal });
    setRequested(requestOf(location.hash));
    return () => listening.abort();
  }, []);
  if (!ui) return null;
  return (
    <StringsContext.Provider value={ui.strings}>
      <ConsentView requestedId={requested} opening={props.start.opening} />
    </StringsContext.Provider>
  );
}
