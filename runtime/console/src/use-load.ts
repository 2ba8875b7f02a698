/** Loads what a page shows, again whenever `key` changes or `reload()` is called. */
import { useCallback, useEffect, useState } from 'preact/hooks';

export function useLoad<T>(load: () => Promise<T>, key: string) {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [round, setRound] = useState(0);
  // Runs again when `key` (what `load` reads) or `round` changes, not on every new `load` closure.
  useEffect(() => {
    let live = true;
    setError(undefined);
    load().then(
      (found) => live && setData(found),
      (problem) => live && setError(problem),
    );
    return () => {
      live = false;
    };
  }, [key, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data, error, reload };
}
