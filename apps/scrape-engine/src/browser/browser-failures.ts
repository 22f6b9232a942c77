/**
 * Why a browser scrape produced no page, as types (like the simple fetcher's FetchFailure):
 * guidance and charging go by `errorType`. None of these is charged — the site never answered.
 */
export type BrowserErrorType = 'browser_unavailable' | 'browser_busy' | 'browser_error' | 'timeout' | 'proxy_error' | 'connection_error' | 'dns_error' | 'target_blocked';

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
  return /Target closed|Session closed|Connection closed|Protocol error.*(closed|crash)|Navigating frame was detached|browser has disconnected|Page crashed|detached Frame/i.test(message);
}
