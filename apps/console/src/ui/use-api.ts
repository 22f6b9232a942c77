import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiProblem, lastUsage } from '../api/api-client';
import { pollDelayMs } from '../api/poll-pacing';

export interface Loaded<T> {
  data: T | null;
  problem: ApiProblem | null;
  loading: boolean;
  reload: () => void;
}

function asProblem(error: unknown): ApiProblem {
  return error instanceof ApiProblem ? error : new ApiProblem(0, 'console_error', (error as Error)?.message ?? String(error), [], null);
}

/**
 * Loads with `load` when the deps change; with `pollMs`, again while `keepPolling` says so (a run
 * in progress), no faster than the rate limit allows (pollDelayMs). A 429 while polling waits for
 * its Retry-After and polls on; any other problem stops polling. A late answer for old deps is dropped.
 */
export function useApi<T>(
  load: () => Promise<T>,
  deps: unknown[],
  options: { pollMs?: number; keepPolling?: (data: T) => boolean } = {},
): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; problem: ApiProblem | null; loading: boolean }>({
    data: null,
    problem: null,
    loading: true,
  });
  const generation = useRef(0);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    const mine = ++generation.current;
    let timer: number | undefined;
    const run = async () => {
      setState((s) => ({ ...s, loading: true }));
      try {
        const data = await load();
        if (mine !== generation.current) return;
        setState({ data, problem: null, loading: false });
        if (options.pollMs && options.keepPolling?.(data))
          timer = window.setTimeout(() => void run(), pollDelayMs(options.pollMs, lastUsage));
      } catch (error) {
        if (mine !== generation.current) return;
        const problem = asProblem(error);
        setState((s) => ({ data: s.data, problem, loading: false }));
        if (options.pollMs && problem.status === 429) {
          timer = window.setTimeout(
            () => void run(),
            Math.max(pollDelayMs(options.pollMs, lastUsage), (problem.retryAfterSeconds ?? 1) * 1000),
          );
        }
      }
    };
    void run();
    return () => {
      generation.current += 1;
      if (timer !== undefined) window.clearTimeout(timer);
    };
  }, [...deps, tick]);
  return { ...state, reload };
}

/** An action started by the user (submit, approve…): its pending state and its problem. */
export function useAction<A extends unknown[], T>(act: (...args: A) => Promise<T>) {
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const run = useCallback(
    async (...args: A): Promise<T | undefined> => {
      setPending(true);
      setProblem(null);
      try {
        return await act(...args);
      } catch (error) {
        setProblem(asProblem(error));
        return undefined;
      } finally {
        setPending(false);
      }
    },
    [act],
  );
  return { run, pending, problem, clear: () => setProblem(null) };
}
