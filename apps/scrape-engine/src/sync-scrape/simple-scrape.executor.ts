import {
  type MonitorPageDirectives,
  noPageContent,
  type ScrapeExecutionFacts,
  type ScrapeRequest,
  type ScrapeResultBody,
  validatorsOf,
} from '@lib/contracts';
import { TargetGuard } from '@lib/target-guard';
import { PLATFORM_CONFIG, type PlatformConfig } from '@lib/config';
import { Inject, Injectable } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { ContentValidator } from '../content-validation/content-validator';
import { InvalidSelectorError, SelectorExtractor } from '../extraction/selector-extractor';
import { ENGINES } from '../engines/engine-table';
import { PageFormatter } from '../formats/page-formatter';
import { withMarkdownAccept } from '../formats/site-markdown';
import { extractedSource, SiteMarkdownReader } from '../formats/site-markdown-reader';
import { GuidanceAdvisor } from '../guidance/guidance-advisor';
import { ProxyRotation, proxySettingsOf } from '../proxy-rotation/proxy-rotation';
import { InvalidScrapeRequestError } from '../scrape-engine.errors';
import { FetchedResponse, SimpleFetcher } from '@lib/http-fetch';
import { FetchFailure, ProxyFailure } from '@lib/http-fetch';
import { attemptWithRetries } from '../scrape-attempts/scrape-attempts';
import { comparableMarkdown, withoutIgnoredText } from '../page-changes/comparable-page';
import { type DocumentKind, documentKindOf, mediaTypeOf } from '../documents/document-kinds';
import {
  askOf,
  creditsOf,
  documentFactsOf,
  type DocumentUnreadableReason,
  DocumentUnreadableError,
  readFactsOf,
  readingNotes,
} from '../documents/document-reading';
import { DocumentThreads } from '../documents/document-threads';
import { assembleScrapeResult, type ShapedBody } from '../scrape-attempts/scrape-result-assembly';

export interface SimpleScrapeOptions {
  /** false: a 3xx is the answer (a crawl's page, whose Location discovery admits like a link). Default true. */
  followRedirects?: boolean;
  /**
   * A monitor's page: `markdown` is the page as its monitor compares it (comparableMarkdown), made
   * here, on the engine thread that fetched it, rather than on the event loop after.
   */
  monitorIgnore?: MonitorPageDirectives['ignore'];
}

/**
 * One simple-mode scrape: vet the target, fetch through the proxy rotation (retrying proxy
 * failures on another proxy with the request's backoff, and blocks when retry_on_block asks),
 * classify what came back, shape it as the spec 2.7 response with its guidance.
 */
@Injectable()
export class SimpleScrapeExecutor {
  constructor(
    private readonly guard: TargetGuard,
    private readonly fetcher: SimpleFetcher,
    private readonly proxies: ProxyRotation,
    private readonly validator: ContentValidator,
    private readonly formatter: PageFormatter,
    private readonly extractor: SelectorExtractor,
    private readonly advisor: GuidanceAdvisor,
    @Inject(PLATFORM_CONFIG) private readonly config: Pick<PlatformConfig, 'documentMaxBytes'>,
    private readonly documents: DocumentThreads,
  ) {
    this.siteMarkdown = new SiteMarkdownReader(fetcher, guard, config.documentMaxBytes);
  }

  private readonly siteMarkdown: SiteMarkdownReader;

  async execute(
    request: ScrapeRequest,
    options: SimpleScrapeOptions = {},
  ): Promise<{ facts: ScrapeExecutionFacts; result: ScrapeResultBody }> {
    const started = performance.now();
    if (request.extract) {
      try {
        this.extractor.assertValid(request.extract);
      } catch (error) {
        if (error instanceof InvalidSelectorError) throw new InvalidScrapeRequestError(error.message, { field: `extract.${error.field}` });
        throw error;
      }
    }
    const firstHop = await this.guard.vet(request.url);
    const navigationStarted = performance.now();
    const outcome = await attemptWithRetries({
      proxies: this.proxies,
      proxy: proxySettingsOf(request.use_proxy),
      retryOnBlock: request.retry_on_block,
      attempt: (proxyUrl, attempt) =>
        this.fetcher.fetch(
          {
            url: request.url,
            method: request.http_method?.method ?? 'get',
            payload: request.http_method?.payload ?? null,
            contentType: request.http_method?.content_type ?? 'json',
            headers: wantsSiteMarkdown(request) ? withMarkdownAccept(request.headers) : request.headers,
            cookies: request.cookies,
            language: request.language || undefined,
            windowSize: request.window_size,
            proxyUrl,
            followRedirects: options.followRedirects,
            maxDocumentBytes: this.config.documentMaxBytes,
          },
          attempt === 1 ? firstHop : undefined,
        ),
      judge: (response) =>
        this.validator.validate({
          statusCode: response.statusCode,
          headers: response.headers,
          contentType: response.contentType,
          body: response.text,
        }),
      isFailure: (error): error is FetchFailure => error instanceof FetchFailure,
      viaProxy: (proxyUrl, error) => proxyUrl !== null || error instanceof ProxyFailure,
    });
    const { answer: response } = outcome;
    const navigationMs = performance.now() - navigationStarted;
    const extractionStarted = performance.now();
    const { notes, document, ...body } = response
      ? await this.shape(request, response, options.monitorIgnore !== undefined)
      : { ...noPageContent(), notes: [], document: null };
    if (options.monitorIgnore && document && document.outcome !== 'unreadable')
      // A document is compared by its text: the ignore patterns apply (its selectors have nothing to match).
      body.markdown = withoutIgnoredText(body.markdown ?? '', options.monitorIgnore.patterns);
    else if (options.monitorIgnore && response?.text != null && body.html !== null)
      body.markdown = comparableMarkdown(this.formatter, request, response.text, response.url, options.monitorIgnore);
    const extractionMs = performance.now() - extractionStarted;
    const totalMs = performance.now() - started;
    const { facts, result } = assembleScrapeResult({
      engine: ENGINES.simple,
      request,
      outcome,
      answered: response
        ? { statusCode: response.statusCode, statusText: response.statusMessage || httpReason(response.statusCode) }
        : null,
      body,
      notes,
      timings: { queue_wait_ms: 0, proxy_ms: 0, navigation_ms: navigationMs, extraction_ms: extractionMs, total_ms: totalMs },
      totalMs,
      targetHost: firstHop.hostname,
      advisor: this.advisor,
      // A document read costs a credit per page read (decision 0039); the request's credit covers the first.
      credits: document?.charged,
      adjust: document?.outcome === 'unreadable' ? (guidance) => unreadableGuidance(guidance, document.reason) : undefined,
    });
    facts.response = response
      ? { headers: definedHeaders(response.headers), redirects: response.redirects, final_url: response.url }
      : null;
    facts.validators = validatorsOf(response?.headers);
    if (document) {
      const { charged: _charged, ...read } = document;
      facts.document = { ...read, reason: read.reason ?? null };
    }
    return { facts, result };
  }

  /** `compared`: a monitor's page, whose document is compared by its markdown whatever the format asked. */
  private async shape(request: ScrapeRequest, response: FetchedResponse, compared = false): Promise<Shaped> {
    const base = {
      screenshot: null,
      evaluate_results: null,
      network_requests: null,
      body_url: null,
      content_type: response.contentType,
      metadata: null,
      notes: [],
    };
    const kind = documentKindOf(response.contentType, response.body, response.url);
    if (kind && response.statusCode >= 200 && response.statusCode < 300) {
      const readStarted = performance.now();
      try {
        return await this.document(kind, request, response, base, { compared, readStarted });
      } catch (error) {
        if (!(error instanceof DocumentUnreadableError)) throw error;
        // What could not be read is still what the server sent: its bytes, and why they were not read.
        return {
          ...base,
          ...bytesOf(response),
          notes: [`${error.reason}: ${error.message}`],
          document: { format: kind, outcome: 'unreadable', pages: 0, reason: error.reason, read_ms: performance.now() - readStarted },
        };
      }
    }
    if (response.text === null) return { ...base, ...bytesOf(response) };
    const answered = response.statusCode >= 200 && response.statusCode < 300;
    const siteMarkdown = wantsSiteMarkdown(request) && !compared;
    const own = siteMarkdown ? this.siteMarkdown.answered(response) : null;
    if (own && 'markdown' in own)
      return { ...base, html: null, markdown: own.markdown, extracted_data: null, body_base64: null, markdown_source: own.source };
    let fallback = own?.fallback ?? null;
    // HTML under a markdown type is read as the HTML it is.
    const isHtml = fallback !== null || response.contentType === null || /html|xml/i.test(response.contentType);
    if (!isHtml)
      return {
        ...base,
        html: request.format === 'html' ? response.text : null,
        markdown: request.format === 'markdown' ? response.text : null,
        extracted_data: null,
        body_base64: null,
      };
    // Formatted even when an alternate will answer: the metadata (title, links) is the page's.
    const formatted = this.formatter.format(request, response.text, response.url, { scriptsRan: false });
    const shaped = {
      ...base,
      html: request.format === 'html' ? response.text : null,
      markdown: formatted.markdown,
      extracted_data: formatted.extracted,
      body_base64: null,
      metadata: formatted.metadata,
      notes: formatted.notes,
    };
    if (!siteMarkdown) return shaped;
    const alternate = fallback === null ? await this.siteMarkdown.alternateOf(response) : null;
    if (alternate && 'markdown' in alternate) return { ...shaped, markdown: alternate.markdown, markdown_source: alternate.source };
    fallback = alternate?.fallback ?? fallback;
    return {
      ...shaped,
      markdown_source: extractedSource(
        formatted.markdown,
        response.body.length,
        fallback ?? (answered ? 'the site offers no markdown' : `the page answered ${response.statusCode}`),
      ),
    };
  }

  /**
   * A document (PDF, Office, OpenDocument, EPUB, RTF, CSV) read into markdown, HTML and text on
   * this engine thread (never the event loop), with its metadata; a PDF scan without a text layer
   * says it needs OCR instead of answering nothing.
   */
  private async document(
    kind: DocumentKind,
    request: ScrapeRequest,
    response: FetchedResponse,
    base: Omit<ShapedBody, 'html' | 'markdown' | 'extracted_data' | 'body_base64'> & { notes: string[] },
    { compared, readStarted }: { compared: boolean; readStarted: number },
  ): Promise<Shaped> {
    const ask = askOf(request);
    if (typeof ask === 'string') throw new InvalidScrapeRequestError(ask, { field: 'pages' });
    const read = await this.documents.read(kind, response.body, ask);
    return {
      ...base,
      content_type: mediaTypeOf(kind),
      html: request.format === 'html' ? read.html : null,
      markdown: request.format === 'markdown' || compared ? read.markdown : null,
      extracted_data: null,
      body_base64: null,
      metadata: {
        title: read.metadata.title,
        description: null,
        language: read.metadata.language,
        canonical_url: null,
        final_url: response.url,
        links: read.links,
        document: documentFactsOf(kind, read),
      },
      notes: readingNotes(read),
      document: { ...readFactsOf(kind, read, performance.now() - readStarted), charged: creditsOf(read) },
    };
  }
}

/** A response shaped as the API answers it, with the notes for its guidance and what a document was. */
type Shaped = ShapedBody & {
  notes: string[];
  document?: Omit<NonNullable<ScrapeExecutionFacts['document']>, 'reason'> & { reason?: DocumentUnreadableReason; charged?: number };
};

/**
 * A document the site sent that cannot be read: not a success (its bytes are answered, as sent),
 * charged as the answer it was, and no retry reads it.
 */
function unreadableGuidance(
  guidance: ScrapeResultBody['guidance'],
  reason: DocumentUnreadableReason | undefined,
): ScrapeResultBody['guidance'] {
  const why = reason ?? 'document_corrupt';
  return {
    ...guidance,
    success: false,
    error_type: why,
    error_provider: null,
    next_steps: [UNREADABLE_NEXT_STEP[why]],
    suggested_request: null,
    stop_reason: 'Fetching it again returns the same file; retrying will not help.',
  };
}

const UNREADABLE_NEXT_STEP: Record<DocumentUnreadableReason, string> = {
  document_encrypted: 'The document is password-protected: it cannot be read without its password. Its bytes are in body_base64.',
  document_corrupt: 'The document is damaged or not what its type says: its bytes are in body_base64 for a look.',
  document_too_large: 'The document is past what is read here (pages declared, or bytes once expanded): its bytes are in body_base64.',
};

/** A body answered as the bytes it is (binary, or a document that could not be read). */
/** prefer_site_markdown asks for the site's own markdown where markdown is the format. */
function wantsSiteMarkdown(request: ScrapeRequest): boolean {
  return request.prefer_site_markdown === true && request.format === 'markdown';
}

function bytesOf(response: FetchedResponse): Pick<ShapedBody, 'html' | 'markdown' | 'extracted_data' | 'body_base64'> {
  return { html: '', markdown: null, extracted_data: null, body_base64: response.body.toString('base64') };
}

function definedHeaders(headers: FetchedResponse['headers']): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string | string[]] => entry[1] !== undefined));
}

function httpReason(status: number): string {
  return STATUS_CODES[status] ?? '';
}
