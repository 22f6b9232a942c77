import { DOCUMENT_FORMATS, type DocumentFormat } from '../documents/document-terms';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsInt, IsObject, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { ANY_JSON_VALUE, anyJsonValue, nullableObject, openObject } from '../response-schema';
import type { BillableMode } from '../billing/credit-reservation.messages';
import { GUIDANCE_ERROR_TYPES, type GuidanceErrorType } from './guidance';
import { RESOURCE_TYPES } from './scrape-request';
import { PageCacheReport, type PageValidators } from './page-cache-terms';
import { PageChange } from '../monitors/page-change';

/** Work for scrape-engine on behalf of one client's request. */
export class EngineCommand {
  @IsString()
  @Length(1, 256)
  request_id: string;

  @IsString()
  @Length(1, 128)
  client_id: string;

  /** The request as validated by the caller; scrape-engine validates it again at its edge. */
  @IsObject()
  request: Record<string, unknown>;

  /**
   * Unique per call, the same when the caller sends the call again: scrape-engine runs each call
   * at most once (a resend after a broker outage joins the run). Not `request_id`, which a client
   * may set (X-Request-Id) to the same value on every call. Absent: no de-duplication.
   */
  @IsOptional()
  @IsString()
  @Length(1, 128)
  call_id?: string;

  /**
   * The client's plan's browser pages at once, sent on sync calls: a browser scrape past it (on
   * the worker that takes it) is refused at once with Retry-After instead of queued. Absent (an
   * analysis probe): the page queues fairly with other clients' pages.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10_000)
  browser_slots?: number;
}

/** Ask scrape-engine to run one scrape (a ScrapeRequest; gateway now, batch-orchestrator later). */
export class ExecuteScrapeCommand extends EngineCommand {
  /**
   * The stored page's validators, when the page cache holds a stale copy: the engine first asks the
   * origin with a conditional GET (no browser); a 304 ends the scrape with `not_modified` in its
   * facts and no page fetched.
   */
  @IsOptional()
  @IsObject()
  revalidate?: PageValidators;
}

/** Spec 2.7 `timings`: always present; on errors it holds what was measured before the failure (ms). */
export class ScrapeTimings {
  @ApiPropertyOptional({ description: 'Waiting for a free slot (browser pool or batch concurrency).' })
  queue_wait_ms?: number;
  @ApiPropertyOptional({ description: 'Choosing and connecting through a proxy.' })
  proxy_ms?: number;
  @ApiPropertyOptional({ description: 'Browser mode: getting a browser page ready.' })
  browser_launch_ms?: number;
  @ApiPropertyOptional({ description: 'Fetching the page (simple mode) or loading it (browser mode).' })
  navigation_ms?: number;
  @ApiPropertyOptional({ description: 'Browser mode: running the actions.' })
  actions_ms?: number;
  @ApiPropertyOptional({ description: 'Selectors, markdown conversion and content validation.' })
  extraction_ms?: number;
  @ApiPropertyOptional({ description: 'The whole request inside the scrape engine.' })
  total_ms?: number;
}

/** Spec 2.8: what went wrong, what to try next, and when retrying is pointless. */
export class ScrapeGuidance {
  @ApiProperty()
  success: boolean;
  @ApiProperty({
    type: String,
    // OpenAPI 3.0: a nullable enum lists null among its values.
    enum: [...GUIDANCE_ERROR_TYPES, null],
    nullable: true,
    description:
      'dns_error, connection_error, timeout, proxy_error, tls_error, too_many_redirects, body_too_large, target_blocked, fetch_error (never charged); http_4xx, http_5xx, captcha, cloudflare_challenge, challenge, hard_block, soft_block, empty_shell (charged); browser_unavailable, browser_busy, browser_error, action_failed; batch jobs that never ran to an answer: worker_failure, timeout, quota_exceeded (never charged).',
  })
  error_type: GuidanceErrorType | null;
  @ApiProperty({ type: String, nullable: true, description: 'The anti-bot or CAPTCHA provider behind a block, when recognised.' })
  error_provider: string | null;
  @ApiProperty({ type: 'integer' })
  credits_charged: number;
  @ApiProperty({ description: 'True when the request was not charged because the failure was on our side or the network.' })
  credits_refunded: boolean;
  @ApiProperty({ type: [String] })
  next_steps: string[];
  @ApiProperty(openObject('A ready-to-send scrape request for the next attempt.', { nullable: true }))
  suggested_request: Record<string, unknown> | null;
  @ApiProperty({ type: String, nullable: true, description: 'Set when retrying cannot help; says why.' })
  stop_reason: string | null;
}

/** One captured request of `network_requests` (spec 2.6). */
export class CapturedNetworkRequest {
  @ApiProperty()
  url: string;
  @ApiProperty()
  method: string;
  @ApiProperty({ enum: RESOURCE_TYPES })
  resource_type: string;
  @ApiProperty({ type: 'integer', description: 'HTTP status; 0 when no response arrived (failed, blocked or still open).' })
  status: number;
  @ApiProperty({ type: String, nullable: true })
  mime_type: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  request_headers: Record<string, string>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  response_headers: Record<string, string>;
  @ApiProperty({ type: 'integer', description: 'Bytes received over the network (encoded).' })
  size: number;
  @ApiProperty({ description: 'From the request being sent to its last byte (or failure), ms.' })
  duration: number;
  @ApiProperty({ type: String, nullable: true, description: 'Body of document, xhr and fetch requests, at most 256 KB.' })
  body: string | null;
  @ApiProperty({ type: String, nullable: true, enum: ['utf8', 'base64'] })
  body_encoding: 'utf8' | 'base64' | null;
  @ApiProperty()
  body_truncated: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'Why the request failed (net::ERR_…), or that the SSRF guard refused it.' })
  error: string | null;
}

/** One entry of `evaluate_results`: one per evaluate action that ran. */
export class EvaluateResultEntry {
  @ApiProperty({ description: 'Where the action sits: `actions[3]`, or `actions[2].actions[0]` inside a while loop.' })
  action: string;
  @ApiProperty(anyJsonValue('What the script returned (JSON-serialisable).'))
  value: unknown;
  @ApiProperty({ type: String, nullable: true })
  error: string | null;
}

/** The action that stopped a browser action list. */
export class ActionFailure {
  @ApiProperty({ example: 'actions[2]' })
  action: string;
  @ApiProperty({ example: 'click' })
  type: string;
  @ApiProperty()
  message: string;
}

/** Beyond the spec: what an LLM pipeline wants beside the page's text (include_metadata=true). */
/** What only_main_content did to a page (metadata.main_content). */
export class MainContentReport {
  @ApiProperty({
    description:
      'Why page_type was chosen: model:product 0.93 (the page-type classifier), json-ld:Product, og:article, generator:Discourse…, url:/t/…',
    type: [String],
  })
  evidence: string[];
  @ApiProperty({
    description:
      '0–1: how sure main content is of what it kept: the model’s probability weighted by characters (where the rules alone read the page, the located content’s share of its text).',
    example: 0.82,
  })
  confidence: number;
  @ApiProperty({ type: 'integer', description: 'Characters of text kept.' })
  characters: number;
  @ApiProperty({ type: 'integer', description: 'Characters of text on the whole page.' })
  page_characters: number;
  @ApiProperty(
    openObject(
      'Characters of text left out, by reason (navigation, header, footer, sidebar, banner, form, share, related, comments, links, other; no_main_content: the page has none, so markdown is empty).',
      {
        values: { type: 'integer' },
      },
    ),
  )
  removed: Record<string, number>;
  @ApiProperty({
    description: 'True when the whole page was converted instead (nothing set apart, or too little kept; guidance says which).',
  })
  whole_page: boolean;
}

/** What a document (PDF, Office, OpenDocument, EPUB, RTF, CSV) says of itself, on its scrape's metadata (issue 64). */
export class DocumentFacts {
  @ApiProperty({ enum: DOCUMENT_FORMATS })
  format: DocumentFormat;
  @ApiProperty({ type: String, nullable: true })
  title: string | null;
  @ApiProperty({ type: String, nullable: true })
  author: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'When the file says it was created (ISO 8601).' })
  created: string | null;
  @ApiProperty({ type: String, nullable: true })
  language: string | null;
  @ApiProperty({
    type: 'integer',
    description: 'Pages (a PDF), slides (a presentation), sheets (a spreadsheet); 1 for a flowing document.',
  })
  page_count: number;
  @ApiProperty({ type: 'integer', description: 'Pages, slides or sheets read into the result (at most 2,000).' })
  pages_read: number;
  @ApiPropertyOptional({
    type: 'integer',
    description:
      "The credits the document cost, as charged: a credit a page read (2 a page read by OCR), or for a flowing document its text at 3,000 characters to a page; at least 1, the request's own credit.",
  })
  pages_charged?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: 'Pages of a scan read by OCR (`ocr: true`), 2 credits each in pages_charged; absent or 0 otherwise.',
  })
  pages_ocr?: number;
  @ApiProperty({
    description:
      'A PDF with no text layer (a scan) whose pages were not read by OCR: they are images, and the result holds no text from them (ask again with `ocr: true`). false for other formats.',
  })
  ocr_required: boolean;
}

export class PageMetadata {
  @ApiProperty({ type: String, nullable: true, description: '<title>, else og:title.' })
  title: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'meta description, else og:description.' })
  description: string | null;
  @ApiProperty({ type: String, nullable: true, description: '<html lang>, else the content-language meta.', example: 'en' })
  language: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'link rel=canonical (absolute), else og:url.' })
  canonical_url: string | null;
  @ApiPropertyOptional({
    enum: ['link', 'og:url'],
    nullable: true,
    description:
      "Where canonical_url was read: a <link rel=canonical> (what a crawl trusts to tell a page's copies), or the og:url meta in its absence; null with no canonical_url.",
  })
  canonical_source?: 'link' | 'og:url' | null;
  @ApiProperty({
    description: 'The URL the page was finally served from, after redirects (browser mode: after client-side navigation too).',
  })
  final_url: string;
  @ApiProperty({
    type: [String],
    description: 'Absolute http(s) links of the page, fragments dropped, first occurrence order, at most 1000.',
  })
  links: string[];
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    enum: ['article', 'forum', 'product', 'collection', 'listing', 'documentation', 'service'],
    description: 'What kind of page this is, from its structured data, OpenGraph type, software and address (article when nothing says).',
  })
  page_type?: string | null;
  @ApiPropertyOptional(
    nullableObject(
      MainContentReport,
      'With only_main_content and format=markdown: what main-content extraction found and left out; else null.',
    ),
  )
  main_content?: MainContentReport | null;

  @ApiPropertyOptional({
    type: DocumentFacts,
    nullable: true,
    description:
      'A document (PDF, Word, spreadsheet, slides, OpenDocument, EPUB, RTF, CSV) read into markdown: its own title, author, dates, pages, and whether it needs OCR. Absent for a web page.',
  })
  document?: DocumentFacts | null;
}

/**
 * The guidance note a markdown scrape carries when only_main_content found no article and the whole
 * page was converted: readers of the guidance (the agent endpoint) recognise it by this text.
 */
export const MAIN_CONTENT_FALLBACK_NOTE = 'only_main_content found no main article on this page; markdown holds the whole page.';

/** Whether a guidance note says only_main_content fell back to the whole page (no article, or too little kept). */
export function isMainContentFallbackNote(note: string): boolean {
  return note.startsWith('only_main_content') && note.endsWith('markdown holds the whole page.');
}

/** The scrape response of spec 2.7 (the guidance object included). */
/**
 * How a crawl's page showed it is another page: it answered a redirect (fetched with redirects not
 * followed, the Location is admitted like a link) or its rel=canonical names another URL of its host.
 */
export class DuplicateOf {
  @ApiProperty({ enum: ['redirect', 'canonical'] })
  reason: 'redirect' | 'canonical';
  @ApiProperty({ description: 'The page it is: the Location (absolute) or the canonical URL.' })
  url: string;
}

/** With prefer_site_markdown: where the markdown came from (decision 0042). */
export class MarkdownSource {
  @ApiProperty({ enum: ['site', 'extracted'], description: "site: the site's own markdown; extracted: made from the page's HTML." })
  source: 'site' | 'extracted';
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The URL the site markdown came from (the page itself, or its markdown alternate); null when extracted.',
  })
  url: string | null;
  @ApiProperty({
    enum: ['accept', 'link_header', 'link_element'],
    nullable: true,
    description: 'How the site offered it: answering Accept: text/markdown, a Link header, or a <link rel="alternate"> element.',
  })
  offered_by: 'accept' | 'link_header' | 'link_element' | null;
  @ApiProperty({ type: 'integer', description: 'Bytes of the markdown answered.' })
  bytes: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "Bytes of the page's HTML, when it was fetched (null when the site answered markdown directly).",
  })
  html_bytes: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the site markdown was not used (none offered, the alternate answered HTML, …); null when it was.',
  })
  fallback_reason: string | null;
}

/** Why a windowed answer holds no content (decision 0042): an agent gets a reason, never an empty string. */
export class ContentWindowError {
  @ApiProperty({ enum: ['empty_content', 'unsupported_content_type', 'blocked', 'content_changed'] })
  code: 'empty_content' | 'unsupported_content_type' | 'blocked' | 'content_changed';
  @ApiProperty()
  message: string;
}

/** With max_tokens: which part of the content the answer holds (decision 0042). */
export class ContentWindow {
  @ApiProperty({ enum: ['o200k_base', 'cl100k_base'] })
  tokenizer: 'o200k_base' | 'cl100k_base';
  @ApiProperty({ type: 'integer', description: "Tokens in this window, exactly as the tokenizer counts the window's text." })
  tokens: number;
  @ApiProperty({ type: 'integer', description: 'Tokens in the whole content, counted at once.' })
  total_tokens: number;
  @ApiProperty({ type: 'integer', description: 'Where the window starts in the whole content (UTF-16 code units).' })
  offset: number;
  @ApiProperty({ type: 'integer', description: 'Where it ends.' })
  end: number;
  @ApiProperty({ type: 'integer' })
  total_chars: number;
  @ApiProperty({ description: 'Whether content follows this window.' })
  truncated: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Send it as `cursor` (the same request otherwise) for the next window; null at the end.',
  })
  cursor: string | null;
  @ApiProperty(
    nullableObject(
      ContentWindowError,
      'Why there is no content to read (then content is null), or why the window started again from the beginning (content_changed); else null.',
    ),
  )
  error: ContentWindowError | null;
}

export class ScrapeResultBody {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Set when format=html; null when format=markdown; empty for binary responses.',
  })
  html: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Set when format=markdown.' })
  markdown: string | null;
  @ApiProperty({ type: 'integer', description: "The target's HTTP status; 0 when it never answered." })
  statusCode: number;
  @ApiProperty({ description: 'Status text.' })
  message: string;
  @ApiProperty({ type: String, nullable: true, description: 'Base64 PNG of the full page.' })
  screenshot: string | null;
  @ApiProperty({ description: 'Seconds.' })
  executionTime: number;
  @ApiProperty(openObject('One entry per name of `extract`.', { nullable: true, values: ANY_JSON_VALUE }))
  extracted_data: Record<string, unknown> | null;
  @ApiProperty({ type: [EvaluateResultEntry], nullable: true })
  evaluate_results: EvaluateResultEntry[] | null;
  @ApiProperty({ type: [CapturedNetworkRequest], nullable: true })
  network_requests: CapturedNetworkRequest[] | null;
  @ApiProperty()
  potentiallyBlockedByCaptcha: boolean;
  @ApiProperty({ type: ScrapeTimings })
  timings: ScrapeTimings;
  @ApiProperty({ type: ScrapeGuidance })
  guidance: ScrapeGuidance;
  @ApiProperty({ type: String, nullable: true, description: 'Content-Type of the target response; absent or null means text/html.' })
  content_type: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Base64 raw body, only for binary responses (PDF, image, archive).' })
  body_base64: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Reserved for offloaded large binary bodies; always null.' })
  body_url: string | null;
  @ApiPropertyOptional(
    nullableObject(
      PageMetadata,
      'Beyond the spec: title, description, language, canonical URL, final URL and links when include_metadata=true, else null.',
    ),
  )
  metadata?: PageMetadata | null;
  /** Browser mode: the action that stopped the action list (index path, type, why), else null. */
  @ApiPropertyOptional(nullableObject(ActionFailure, 'Browser mode: the action that stopped the action list, else null.'))
  action_error?: ActionFailure | null;
  /** A crawl's page that turned out to be another page (a redirect, a rel=canonical): which, and how it said so. */
  @ApiPropertyOptional(
    nullableObject(
      DuplicateOf,
      "A crawl's page that is another page (it redirected, or its rel=canonical names another URL of its host): not returned as a page, not charged; else absent.",
    ),
  )
  duplicate_of?: DuplicateOf | null;
  /** Beyond the spec: a request that carried max_age says whether this came from the page cache. */
  @ApiPropertyOptional({
    description:
      'Present when the request carried max_age: true when served from the page cache (fresh, or confirmed by the origin with a 304).',
  })
  cached?: boolean;
  @ApiPropertyOptional({
    type: () => PageCacheReport,
    description: 'Present when the request carried max_age: how the page cache answered.',
  })
  cache?: PageCacheReport;
  /** A monitor's page: how it compares with its version before (issue 63). */
  @ApiPropertyOptional(
    nullableObject(
      PageChange,
      "A monitor tick's page: new, same, changed (with its diffs) or removed against the version before; null when the page could not be compared (it failed without being gone). Absent elsewhere.",
    ),
  )
  change?: PageChange | null;
  /** With prefer_site_markdown (decision 0042): whether the markdown is the site's own or extracted. */
  @ApiPropertyOptional({
    type: () => MarkdownSource,
    description:
      "Present when the request carried prefer_site_markdown with format markdown: the site's own markdown or extracted, with its bytes.",
  })
  markdown_source?: MarkdownSource;
  /** With max_tokens (decision 0042): the window of the content this answer holds. */
  @ApiPropertyOptional({
    type: () => ContentWindow,
    description:
      'Present when the request carried max_tokens: the part of the content this answer holds, its token counts and the cursor for the next part.',
  })
  content_window?: ContentWindow;
}

/** The content fields of a response that carries no page: the site never answered, or the page was another one. */
export function noPageContent(): Pick<
  ScrapeResultBody,
  | 'html'
  | 'markdown'
  | 'screenshot'
  | 'extracted_data'
  | 'evaluate_results'
  | 'network_requests'
  | 'content_type'
  | 'body_base64'
  | 'body_url'
> {
  return {
    html: null,
    markdown: null,
    screenshot: null,
    extracted_data: null,
    evaluate_results: null,
    network_requests: null,
    content_type: null,
    body_base64: null,
    body_url: null,
  };
}

export interface ScrapeExecutionFacts {
  /** Whether the site answered (site-level blocks included): then it is charged. */
  billable: boolean;
  credits: number;
  mode: BillableMode;
  target_domain: string;
  status_code: number | null;
  block_reason: string | null;
  protection_stack: string[];
  rule_hits: string[];
  rules_version: string;
  proxy: string | null;
  attempts: number;
  /**
   * Simple mode: what the site's last answer carried beyond the body (header names lower case,
   * set-cookie as a list), where redirects led, and the final URL. Evidence for the viability
   * analysis (protection headers, cookies, sign-in redirects); null in browser mode and on failures.
   */
  response?: AnsweredResponse | null;
  /**
   * A crawl's page (its job asked for twins to be told: CrawlPageDirectives) that is another page:
   * the job ends `cancelled`, uncharged, and discovery admits the page it is like a link.
   */
  duplicate_of?: DuplicateOf | null;
  /** The origin's validators of the page it served (simple and browser mode), for the page cache. */
  validators?: PageValidators | null;
  /** A revalidation the origin answered 304: nothing was fetched; the stored page stands. */
  not_modified?: boolean;
  /** The answer was a document: read (with its pages), a scan that needs OCR, or a file that could not be read. */
  document?: {
    format: DocumentFormat;
    outcome: 'read' | 'ocr_required' | 'unreadable';
    pages: number;
    /** Of them, read by OCR. */
    pages_ocr?: number;
    /** Why an unreadable one was refused (document_encrypted, document_corrupt, document_too_large). */
    reason?: string | null;
    /** How long its reading took, ms. */
    read_ms?: number;
  } | null;
}

export interface AnsweredResponse {
  headers: Record<string, string | string[]>;
  redirects: string[];
  final_url: string;
}

/** Ask scrape-engine to download one file (a DownloadRequest, spec 2.9). */
export class ExecuteDownloadCommand extends EngineCommand {}

/** Spec 2.9 response. */
export class DownloadResultBody {
  @ApiProperty({ type: String, nullable: true, description: 'Base64 file content.' })
  content: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Detected MIME type.' })
  contentType: string | null;
  @ApiProperty({ type: 'integer', description: "The target's HTTP status; 0 when it never answered (not charged)." })
  statusCode: number;
  @ApiProperty()
  message: string;
  @ApiProperty({ type: Number, nullable: true, description: 'Seconds.' })
  executionTime: number | null;
}

/** What one scrape-engine replica is working on now (SUBJECTS.scrape.inFlight, every second). */
export class ScrapesInFlightEvent {
  @IsString()
  @Length(1, 256)
  worker_id: string;

  @IsArray()
  @ArrayMaxSize(100_000)
  @IsString({ each: true })
  request_ids: string[];

  @IsInt()
  @Min(0)
  interval_ms: number;
}
