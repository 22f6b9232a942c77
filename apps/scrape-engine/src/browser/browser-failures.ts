/**
 * Why a browser scrape produced no page, as types (like the simple fetcher's FetchFailure):
 * guidance and charging go by `errorType`. None of these is charged — the site never answered.
 */
export type BrowserErrorType =
  | 'browser_unavailable'
  | 'browser_busy'
  | 'browser_error'
  | 'timeout'
  | 'proxy_error'
  | 'connection_error'
  | 'dns_error'
  | 'target_blocked';

export class BrowserFailure extends Error {
  constructor(
    readonly errorType: BrowserErrorType,
    message: string,
    /** Whether another attempt through another proxy can help. */
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'BrowserFailure';
  }
}

/** A Chromium/DevTools error that means the browser or the page's renderer went away. */
export function isBrowserGone(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /Target closed|Session closed|Connection closed|Protocol error.*(closed|crash)|Navigating frame was detached|browser has disconnected|Page crashed|detached Frame/i.test(
    message,
  );
}

/** The first line of an error's message: Chromium and DevTools errors carry stacks and call logs. */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0];
}

/** `work`, or `late()` thrown after `ms` — the work itself goes on (and its failure is ignored). */
export function withinDeadline<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
