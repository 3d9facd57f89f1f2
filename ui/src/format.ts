// Dates for the screens, in the window's language (the consent text carries its own).
export function when(epochSeconds: number, lang: string): string {
  return new Date(epochSeconds * 1000).toLocaleString(lang === "fr" ? "fr-CA" : "en-CA", {
    dateStyle: "medium",
    timeStyle: "short",
  });
}
