import { useCallback, useEffect, useState } from "preact/hooks";
import { isCommandError } from "./api";

/** Loads a screen's data; `reload` after a change. */
export function useLoad<T>(load: () => Promise<T>): { data: T | null; error: string | null; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => {
    load()
      .then((d) => {
        setData(d);
        setError(null);
      })
      .catch((e) => setError(isCommandError(e) ? e.message : String(e)));
  }, []);
  useEffect(reload, [reload]);
  return { data, error, reload };
}

export function errorText(e: unknown): string {
  return isCommandError(e) ? e.message : String(e);
}

/**
 * Runs what the person asked for (unpair, revoke, add…), then reloads the
 * screen either way; a refusal is kept, in the person's words, to show until
 * the next success. `run` says whether it succeeded, so a form can clear.
 */
export function useAction(reload: () => void): {
  failure: string | null;
  run: (act: () => Promise<unknown>) => Promise<boolean>;
} {
  const [failure, setFailure] = useState<string | null>(null);
  const run = useCallback(
    async (act: () => Promise<unknown>) => {
      try {
        await act();
        setFailure(null);
        return true;
      } catch (e) {
        setFailure(errorText(e));
        return false;
      } finally {
        reload();
      }
    },
    [reload],
  );
  return { failure, run };
}
