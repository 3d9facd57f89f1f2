// The window learns of every change in the service's records (a new, withdrawn
// or expired request) at once: `wait_change` answers when the records change,
// and each answer is followed by the next wait. No timer polls.
import { useEffect } from "preact/hooks";
import { api, type PendingChange } from "./api";

/**
 * Waits with `wait` while `active`, each wait past the counter the previous
 * answer gave, and hands `look` every answer whose counter moved (the first
 * one included, with `seen` null). `deps` restart the loop. A refused wait
 * (the app shutting down) ends the loop; the next mount starts another.
 */
function useWaits<A>(
  wait: (seen: number | null) => Promise<A>,
  counterOf: (answer: A) => number,
  look: (answer: A, seen: number | null) => void,
  active: boolean,
  deps: unknown[],
) {
  useEffect(() => {
    if (!active) return;
    let alive = true;
    (async () => {
      let seen: number | null = null;
      while (alive) {
        const answer = await wait(seen);
        if (!alive) break;
        const next = counterOf(answer);
        if (next !== seen) look(answer, seen);
        seen = next;
      }
    })().catch(() => {});
    return () => {
      alive = false;
    };
  }, [active, ...deps]);
}

/** Calls `look` after every change the service reports, while `active`. */
export function useChanges(look: () => void, active: boolean, deps: unknown[]) {
  useWaits(
    (seen) => api.waitChange(seen),
    (n) => n,
    (_, seen) => {
      // The first answer is the counter as it is: nothing changed yet.
      if (seen !== null) look();
    },
    active,
    deps,
  );
}

/**
 * Calls `look` with every answer of `wait_pending` while `active`: the first
 * at once (what waits now, so a request stored between the view's own look
 * and this wait is not missed), then one after each change, each carrying the
 * pending list and the oldest one's prompt, so the view needs no further
 * command to show it.
 */
export function usePendingChanges(look: (change: PendingChange) => void, active: boolean, deps: unknown[]) {
  useWaits(
    (seen) => api.waitPending(seen),
    (change) => change.seen,
    (change) => look(change),
    active,
    deps,
  );
}
