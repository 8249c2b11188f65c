import { useCallback, useEffect, useState } from 'react';

/** A GET the page shows: its data, its error, and `reload` after a change. */
export function useRequest<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: Error | undefined; reload: () => void } {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<Error>();
  const [round, setRound] = useState(0);
  const stableLoad = useCallback(load, deps);
  useEffect(() => {
    let current = true;
    stableLoad().then(
      (value) => current && (setData(value), setError(undefined)),
      (failure) => current && setError(failure as Error),
    );
    return () => {
      current = false;
    };
  }, [stableLoad, round]);
  return { data, error, reload: () => setRound((n) => n + 1) };
}
