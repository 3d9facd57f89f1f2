// The window learns of every change in the service's records (a new, withdrawn
// or expired request) at once: `wait_change` answers when the records change,
// and each answer is followed by the next wait. No timer polls.
import { useEffect } from "preact/hooks";
import { api } from "./api";

/**
 * Calls `look` after every change the service reports, while `active`. `deps`
 * restart the loop (a new request shown). A refused wait (the app shutting
 * down) ends the loop; the next mount starts another.
 */
export function useChanges(look: () => void, active: boolean, deps: unknown[]) {
  useEffect(() => {
    if (!active) return;
    let alive = true;
    (async () => {
      let seen: number | null = null;
      while (alive) {
        const next: number = await api.waitChange(seen);
        if (!alive) break;
        if (seen !== null && next !== seen) look();
        seen = next;
      }
    })().catch(() => {});
    return () => {
      alive = false;
    };
  }, [active, ...deps]);
}
