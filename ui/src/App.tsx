import { useEffect, useState } from "preact/hooks";
import { api } from "./api";
import { ConsentView } from "./Consent";
import { FirstRun } from "./FirstRun";
import { UnlockView } from "./Unlock";
import { StringsContext, useWindowStrings } from "./i18n";
import { parseRoute, SCREENS, type Route } from "./route";
import { Agents } from "./screens/Agents";
import { Attestations } from "./screens/Attestations";
import { Bookings } from "./screens/Bookings";
import { Contacts } from "./screens/Contacts";
import { Credentials } from "./screens/Credentials";
import { History } from "./screens/History";
import { Requests } from "./screens/Requests";
import { SettingsScreen } from "./screens/Settings";

export function App() {
  const [ui, setUi] = useWindowStrings(() => api.uiStrings());
  const [route, setRoute] = useState<Route>(() => parseRoute(location.hash));
  // The first run asks where hosts check credentials, above the screen, until
  // the person answers (or skips, for this session); Settings offers it later.
  const [firstRun, setFirstRun] = useState(false);
  useEffect(() => {
    api.statusSetup().then((s) => setFirstRun(!s.answered), () => setFirstRun(false));
  }, []);
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    window.addEventListener("hashchange", onHash);
    // A route set between the first render and this listener is not lost.
    onHash();
    return () => window.removeEventListener("hashchange", onHash);
  }, []);
  useEffect(() => {
    if (!ui) return;
    document.title = ui.strings["app-title"] ?? document.title;
  }, [ui]);
  if (!ui) return null;
  const t = (id: string) => ui.strings[id] ?? id;
  const lang = ui.lang;
  return (
    <StringsContext.Provider value={ui.strings}>
      {route.view === "unlock" ? (
        <UnlockView />
      ) : route.view === "consent" ? (
        <ConsentView requestedId={route.id} />
      ) : (
        <div class="layout">
          <nav aria-label={t("nav-label")}>
            <ul>
              {SCREENS.map((s) => (
                <li key={s}>
                  <a href={`#/${s}`} aria-current={route.view === s ? "page" : undefined} id={`nav-${s}`}>
                    {t(`nav-${s}`)}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <main id="content">
            {firstRun && <FirstRun onDone={() => setFirstRun(false)} />}
            {route.view === "requests" && <Requests notice={route.notice} />}
            {route.view === "bookings" && <Bookings />}
            {route.view === "agents" && route.notice === "restored" && (
              <p role="status" class="notice" id="restored-notice">
                {t("restore-done-notice")}
              </p>
            )}
            {route.view === "agents" && <Agents />}
            {route.view === "credentials" && <Credentials />}
            {route.view === "history" && <History />}
            {route.view === "contacts" && <Contacts />}
            {route.view === "attestations" && <Attestations />}
            {route.view === "settings" && (
              <SettingsScreen
                lang={lang}
                onLanguage={(tag) => void api.setLanguage(tag).then(setUi)}
                onIntro={() => setFirstRun(true)}
              />
            )}
          </main>
        </div>
      )}
    </StringsContext.Provider>
  );
}
