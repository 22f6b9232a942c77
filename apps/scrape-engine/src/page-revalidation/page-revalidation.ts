import { type PageValidators, ScrapeExecutionFacts, ScrapeRequest, ScrapeResultBody } from '@lib/contracts';
import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { SimpleScrapeThreads } from '../simple-threads/simple-scrape-threads';

type Outcome = { facts: ScrapeExecutionFacts; result: ScrapeResultBody };

/** The answer to "has the page changed since these validators?". */
export type RevalidationAnswer =
  /** The origin answered 304: nothing fetched, the stored page stands (charged as one simple request). */
  | { kind: 'not_modified'; outcome: Outcome }
  /** A simple-mode request's conditional GET was answered otherwise: that answer is the scrape. */
  | { kind: 'answered'; outcome: Outcome }
  /** A browser request: the origin's document changed (or could not say); render the page. */
  | { kind: 'render' };

const CONDITIONAL_HEADERS = ['if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'if-range'];

/**
 * Revalidation of a stored page with the origin's own validators (RFC 9110 §13.1; decision 0037):
 * one conditional GET, never a browser, through the same target guard and proxy rotation as any
 * simple scrape. For a simple-mode request it is the scrape itself with two headers more, so a
 * changed page costs no second request; for a browser request only a 304 saves the rendering.
 */
@Injectable()
export class PageRevalidation {
  constructor(private readonly simple: SimpleScrapeThreads) {}

  async ask(request: ScrapeRequest, validators: PageValidators): Promise<RevalidationAnswer> {
    const headers = conditionalHeaders(request.headers, validators);
    const conditional = request.browser
      ? // The document alone, as the browser would ask for it: the page's own options are the browser's.
        plainToInstance(ScrapeRequest, {
          url: request.url,
          use_proxy: request.use_proxy,
          headers,
          cookies: request.cookies,
          language: request.language,
          window_size: request.window_size,
        })
      : Object.assign(Object.create(Object.getPrototypeOf(request) as object) as ScrapeRequest, request, { headers });
    const outcome = await this.simple.execute(conditional, { followRedirects: true });
    if (outcome.result.statusCode === 304) {
      outcome.facts.not_modified = true;
      // What stands is the stored page's: its validators are the ones just confirmed.
      outcome.facts.validators = validators;
      return { kind: 'not_modified', outcome };
    }
    return request.browser ? { kind: 'render' } : { kind: 'answered', outcome };
  }
}

function conditionalHeaders(own: Record<string, string> | null, validators: PageValidators): Record<string, string> {
  const headers = Object.fromEntries(Object.entries(own ?? {}).filter(([name]) => !CONDITIONAL_HEADERS.includes(name.toLowerCase())));
  if (validators.etag) headers['If-None-Match'] = validators.etag;
  if (validators.last_modified) headers['If-Modified-Since'] = validators.last_modified;
  return headers;
}
