// Routes live in the URL hash: #/unlock (the key's passphrase), #/consent[/id], #/requests[?notice=…], #/agents, …
export const SCREENS = [
  "requests",
  "bookings",
  "agents",
  "credentials",
  "history",
  "contacts",
  "attestations",
  "settings",
] as const;
export type Screen = (typeof SCREENS)[number];

export type Route = { view: "consent"; id?: string } | { view: "unlock" } | { view: Screen; notice?: string };

export function parseRoute(hash: string): Route {
  const [path, query] = hash.replace(/^#/, "").split("?", 2);
  const parts = path.split("/").filter((p) => p !== "");
  if (parts[0] === "unlock") return { view: "unlock" };
  if (parts[0] === "consent") return { view: "consent", id: parts[1] ? decodeURIComponent(parts[1]) : undefined };
  const screen = SCREENS.find((s) => s === parts[0]) ?? "requests";
  const notice = new URLSearchParams(query ?? "").get("notice") ?? undefined;
  return { view: screen, notice };
}
