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
