import { useEffect, useState } from "preact/hooks";
import { api } from "./api.js";

/** Data from the API, fetched when `path` changes and again every `pollMs` while `poll` is true. */
export function useData<T>(
  path: string | null,
  options: { pollMs?: number; poll?: (data: T) => boolean } = {},
): { data: T | undefined; error: string | undefined; reload: () => void } {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        const next = await api.get<T>(path);
        if (stop) return;
        setData(next);
        setError(undefined);
        if (options.poll?.(next)) timer = setTimeout(() => void load(), options.pollMs ?? 1000);
      } catch (e) {
        if (!stop) setError((e as Error).message);
      }
    };
    void load();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [path, tick]);
  return { data, error, reload: () => setTick((t) => t + 1) };
}
