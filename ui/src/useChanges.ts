// The window learns of every change in the service's records (a new, withdrawn
// or expired request) at once: `wait_change` answers when the records change,
// and each answer is followed by the next wait. No timer polls.
import { useEffect } from "preact/hooks";
import { api, type PendingChange } from "./api";

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

/**
 * Calls `look` with every answer of `wait_pending` while `active`: the first
 * at once (what waits now, so a request stored between the view's own look
 * and this wait is not missed), then one after each change, each carrying the
 * pending list and the oldest one's prompt, so the view needs no further
 * command to show it.
 */
export function usePendingChanges(look: (change: PendingChange) => void, active: boolean, deps: unknown[]) {
  useEffect(() => {
    if (!active) return;
    let alive = true;
    (async () => {
      let seen: number | null = null;
      while (alive) {
        const change: PendingChange = await api.waitPending(seen);
        if (!alive) break;
        if (change.seen !== seen) look(change);
        seen = change.seen;
      }
    })().catch(() => {});
    return () => {
      alive = false;
    };
  }, [active, ...deps]);
}
