import {
  type CrawlPageDirectives,
  type MarkdownSource,
  type MonitorPageDirectives,
  type PageValidators,
  ScrapeExecutionFacts,
  ScrapeRequest,
  ScrapeResultBody,
} from '@lib/contracts';
import { normalUrl } from '@lib/url-normal-form';
import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { BrowserTenant } from '../browser/browser-pool';
import { BrowserScrapeExecutor } from '../browser/browser-scrape.executor';
import { engineOf, featuresOf, unsupportedBy } from '../engines/engine-table';
import { InvalidScrapeRequestError } from '../scrape-engine.errors';
import { measuredScrape } from './scrape-metrics';
import { redirectLocation, twinOf } from '../crawl-twins/crawl-page-twin';
import { SimpleScrapeThreads } from '../simple-threads/simple-scrape-threads';
import { PageRevalidation } from '../page-revalidation/page-revalidation';
import { PageFormatter } from '../formats/page-formatter';
import { comparableMarkdown } from '../page-changes/comparable-page';
import { extractedSource } from '../formats/site-markdown-reader';

/** One scrape from a plain request, in the mode it asks for: the same path for sync requests and batch jobs. */
/** What a scrape is told beyond its request (each optional): see ScrapeExecution.run. */
export interface ScrapeDirectives {
  crawlPage?: CrawlPageDirectives;
  revalidate?: PageValidators;
  monitorPage?: MonitorPageDirectives;
}

@Injectable()
export class ScrapeExecution {
  constructor(
    private readonly simple: SimpleScrapeThreads,
    private readonly browser: BrowserScrapeExecutor,
    private readonly revalidation: PageRevalidation,
    private readonly formatter: PageFormatter,
  ) {}

  /**
   * `tenant`: the client the scrape is for and how its browser share is kept (see BrowserTenant).
   * `crawlPage`: a crawl's directives for its page's job; with `twins`, a page that is another page
   * says so in its facts' `duplicate_of` (twinOf), and simple mode does not follow redirects, so the
   * page a redirect leads to is fetched once, as the crawl's own page, not by every address of it.
   * `revalidate`: the page cache's stale copy's validators; the origin is asked first whether the
   * page changed (PageRevalidation), and a 304 ends the scrape with `not_modified` in its facts.
   */
  async run(
    plain: Record<string, unknown>,
    tenant: BrowserTenant,
    { crawlPage, revalidate, monitorPage }: ScrapeDirectives = {},
  ): Promise<{ facts: ScrapeExecutionFacts; result: ScrapeResultBody }> {
    const request = await validated(ScrapeRequest, plain);
    const engine = engineOf(request);
    // The request rules (spec 4.2) refuse these at the edge; the table says the same, here where the engine is chosen.
    const unsupported = unsupportedBy(engine, featuresOf(request));
    if (unsupported.length > 0)
      throw new InvalidScrapeRequestError(`invalid request: the ${engine} engine cannot do ${unsupported.join(', ')}`, {
        field: unsupported[0],
      });
    const monitorIgnore = monitorPage?.ignore;
    // prefer_site_markdown with a browser: the site's own markdown, when it offers one, needs no browser (decision 0042).
    const siteAsked = performance.now();
    const site =
      engine === 'simple' || monitorIgnore || crawlPage || request.prefer_site_markdown !== true || request.format !== 'markdown'
        ? null
        : needsTheBrowser(request)
          ? {
              answered: null,
              // Its bytes are the rendered page's markdown's, set once the browser has made it.
              extracted: extractedSource(
                null,
                null,
                'the request needs the browser (actions, a screenshot, network capture or frames): the page was rendered',
              ),
            }
          : await this.siteMarkdownBeforeRendering(request);
    if (site?.answered) {
      const answered = site.answered;
      return measuredScrape('simple', async () => answered, siteAsked);
    }
    const scrape = (followRedirects: boolean) =>
      measuredScrape(engine === 'simple' ? 'simple' : 'browser', () =>
        engine === 'simple'
          ? this.simple.execute(request, { followRedirects, monitorIgnore })
          : this.browser.execute(request, tenant).then((done) => {
              // A monitor's rendered page, as its monitor compares it (simple mode makes it on its engine thread).
              if (monitorIgnore && done.result.html !== null)
                done.result.markdown = comparableMarkdown(this.formatter, request, done.result.html, request.url, monitorIgnore);
              if (site) done.result.markdown_source = { ...site.extracted, bytes: Buffer.byteLength(done.result.markdown ?? '') };
              return done;
            }),
      );
    if (revalidate && (revalidate.etag || revalidate.last_modified)) {
      // Measured as a simple scrape: a 304 counts as `not_modified`, any other answer is the scrape.
      const started = performance.now();
      const answer = await this.revalidation.ask(request, revalidate);
      if (answer.kind !== 'render') return measuredScrape('simple', async () => answer.outcome, started);
    }
    if (crawlPage?.twins !== true) return scrape(true);
    let outcome = await scrape(false);
    // A redirect to another spelling of the same page (`/docs` → `/docs/`) makes no twin: the page
    // is fetched where it leads, or the crawl would admit it as itself and never fetch it.
    const location = redirectLocation(outcome.facts, outcome.result);
    if (location !== null && normalUrl(location, request.url)?.key === normalUrl(request.url)?.key) outcome = await scrape(true);
    outcome.facts.duplicate_of = twinOf(request.url, outcome.facts, outcome.result);
    return outcome;
  }

  /**
   * One plain request for the site's markdown before a browser is started: the answer as simple
   * mode gives it (1 credit, no browser) when the site offered markdown that reads as markdown;
   * otherwise nothing is charged for it and the browser renders the page, its markdown_source saying
   * why the site's was not used.
   */
  private async siteMarkdownBeforeRendering(
    request: ScrapeRequest,
  ): Promise<{ answered: { facts: ScrapeExecutionFacts; result: ScrapeResultBody } | null; extracted: MarkdownSource }> {
    const plain = plainToInstance(ScrapeRequest, { ...request, browser: false, include_frames: undefined, retry_on_block: false });
    const probe = await this.simple.execute(plain, { followRedirects: true }).catch(() => null);
    const source = probe?.result.markdown_source;
    if (probe && source?.source === 'site') {
      probe.result.guidance.next_steps = [
        ...probe.result.guidance.next_steps,
        'The site answered its own markdown to a plain request, so no browser was started: charged as a simple request.',
      ];
      return { answered: probe, extracted: source };
    }
    return {
      answered: null,
      extracted: extractedSource(
        null,
        source?.html_bytes ?? null,
        source?.fallback_reason ?? "the plain request for the site's markdown failed",
      ),
    };
  }
}

/** What only a browser gives (actions, a screenshot, network capture, other-origin frames): no plain request can answer it. */
function needsTheBrowser(request: ScrapeRequest): boolean {
  return Boolean(
    request.screenshot || (request.actions && request.actions.length > 0) || request.network_capture || request.include_frames,
  );
}

/** Requests arrive validated by their sender; this edge checks again, since any context may send them. */
export async function validated<T extends object>(type: new () => T, plain: Record<string, unknown>): Promise<T> {
  const value = plainToInstance(type, plain);
  const errors = await validate(value, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) {
    throw new InvalidScrapeRequestError(
      `invalid request: ${errors.map((e) => Object.values(e.constraints ?? {}).join(', ') || e.property).join('; ')}`,
    );
  }
  return value;
}
