import { CRAWL_LIMITS, MAX_API_REPLAYS, VIABILITY_DEPTHS, VIABILITY_WORST_CASE_CREDITS } from '@lib/contracts';
import { CREDIT_COST } from '@lib/plans';
import { DEFAULT_MAX_CHARS } from '../text-window';
import { AGENT_SCOPE_FIELDS, CRAWL_STATUS_PAGES } from '../tool-arguments';
import type { ToolDefinition } from '../tool-names';
import {
  FENCED,
  type OpenApiSchemas,
  SCRAPE_FIELD_DESCRIPTIONS,
  type SchemaOf,
  sharedBudgetProperties,
  WINDOW_PROPERTIES,
  WINDOW_SCHEMA,
  annotations,
  orNull,
} from '../tool-schema-parts';

/** discover, map_site, crawl_site and crawl_status: what a site needs, which URLs it has, its pages in bulk. */
export function siteToolDefinitions(schemaOf: SchemaOf): ToolDefinition[] {
  return [discoverTool(schemaOf), mapSiteTool(schemaOf), crawlSiteTool(schemaOf), crawlStatusTool(schemaOf)];
}

const scopeProperties = (api: OpenApiSchemas, component: 'MapSiteRequest' | 'CrawlRequest', extra: string[]) =>
  Object.fromEntries([...AGENT_SCOPE_FIELDS, ...extra].map((name) => [name, api.property(component, name)]));

function discoverTool(schemaOf: SchemaOf): ToolDefinition {
  return {
    name: 'discover',
    title: 'Find out how to scrape a URL',
    description:
      'Analyse a URL before scraping it: probes it the ways the platform can (plain fetch, main-content extraction and, at standard/full depth, a browser render with network capture) and returns what stands in the way ' +
      '(CAPTCHA, Cloudflare level, login wall, JavaScript need, JSON APIs behind the page), a difficulty, the recommended strategy, the reasons, and suggested_request: ready-to-use scrape_url arguments. ' +
      `Each probe is charged like a scrape: quick at most ${VIABILITY_WORST_CASE_CREDITS.quick} credits, standard (default) at most ${VIABILITY_WORST_CASE_CREDITS.standard}, full at most ${VIABILITY_WORST_CASE_CREDITS.full}. Takes as long as its slowest probe (seconds).`,
    inputSchema: {
      type: 'object',
      required: ['url'],
      additionalProperties: false,
      properties: {
        url: {
          type: 'string',
          maxLength: 8192,
          pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
          description: 'The public http or https URL to analyse.',
        },
        depth: {
          type: 'string',
          enum: [...VIABILITY_DEPTHS],
          default: 'standard',
          description: `quick: two plain fetches; standard: + a light browser render with xhr/fetch capture; full: + a stealth render and up to ${MAX_API_REPLAYS} replays of the discovered endpoints without cookies.`,
        },
      },
    },
    outputSchema: schemaOf((api) => ({
      type: 'object' as const,
      required: ['url', 'depth', 'credits_charged', 'verdict'],
      properties: {
        url: { type: 'string' },
        depth: { type: 'string', enum: [...VIABILITY_DEPTHS] },
        credits_charged: { type: 'integer', minimum: 0, description: 'What the probes cost, as recorded in the ledger.' },
        verdict: api.reference('ViabilityResult'),
      },
    })),
    annotations: annotations('Find out how to scrape a URL', true, false, true),
  };
}

function mapSiteTool(schemaOf: SchemaOf): ToolDefinition {
  return {
    name: 'map_site',
    title: "List a site's URLs",
    description:
      "List a website's URLs without scraping them: from its robots.txt, its sitemaps (indexes and gzip members) and the links of its pages up to max_depth, each URL once in one normal form, only what robots.txt allows and the scope admits. " +
      `Costs ${CREDIT_COST.simple_request} credit per call (nothing when the site never answered); a long list comes in parts of max_chars characters or of max_tokens tokens (the answer gives the next offset or cursor), each part a new call (charged again). ` +
      'Use it to find the pages worth reading before scrape_as_markdown, or to size a crawl. The URLs come back between untrusted-content markers.',
    inputSchema: schemaOf((api) => ({
      type: 'object' as const,
      properties: { ...scopeProperties(api, 'MapSiteRequest', ['limit']), ...WINDOW_PROPERTIES },
      required: ['url'],
      additionalProperties: false,
    })),
    outputSchema: schemaOf((api) => ({
      type: 'object' as const,
      required: [
        'url',
        'count',
        'truncated',
        'stopped_by',
        'robots',
        'pages_fetched',
        'skipped',
        'urls',
        'content_window',
        'credits_charged',
      ],
      properties: {
        url: { type: 'string', description: 'The start URL in its normal form.' },
        count: { type: 'integer', minimum: 0 },
        truncated: { type: 'boolean', description: 'A bound (limit, page_fetches, timeout) stopped the map early.' },
        stopped_by: orNull({ type: 'string' }),
        robots: api.reference('RobotsReport'),
        pages_fetched: { type: 'integer', minimum: 0 },
        skipped: api.reference('MapSkipCounts'),
        urls: FENCED('The URLs, one per line (this part of the list)'),
        content_window: WINDOW_SCHEMA,
        credits_charged: { type: 'integer', minimum: 0 },
      },
    })),
    annotations: annotations("List a site's URLs", true, false, true),
  };
}

function crawlSiteTool(schemaOf: SchemaOf): ToolDefinition {
  return {
    name: 'crawl_site',
    title: 'Crawl a site',
    description:
      "Start scraping a whole website in the background: the start page, its sitemaps' URLs and the pages reachable by links within max_depth, each page once, in scope and allowed by robots.txt, as markdown (main content unless full_page), up to max_pages and max_credits. " +
      `Each page costs ${CREDIT_COST.simple_request} credit (${CREDIT_COST.browser_request} with browser=true) when it runs. Returns a crawl_id at once: read progress and the pages with crawl_status. ` +
      `With dry_run=true nothing is scraped: crawl_status then shows a plan (URLs per section, sampled verdicts, block rate, forecast of credits and time), its sample analyses costing at most ${CRAWL_LIMITS.plan.worstCaseCredits} credits.`,
    inputSchema: schemaOf((api) => ({
      type: 'object' as const,
      properties: {
        ...scopeProperties(api, 'CrawlRequest', ['max_pages', 'max_credits', 'dry_run']),
        browser: { type: 'boolean', default: false, description: SCRAPE_FIELD_DESCRIPTIONS.browser },
        full_page: { type: 'boolean', default: false, description: 'Each page whole instead of its main content.' },
      },
      required: ['url'],
      additionalProperties: false,
    })),
    outputSchema: schemaOf((api) => ({
      type: 'object' as const,
      required: ['crawl', 'credits_charged'],
      properties: {
        crawl: api.reference('CrawlView'),
        credits_charged: { type: 'integer', minimum: 0, description: 'Nothing on this call.' },
      },
    })),
    annotations: annotations('Crawl a site', false, false, true),
  };
}

function crawlStatusTool(schemaOf: SchemaOf): ToolDefinition {
  return {
    name: 'crawl_status',
    title: 'Read a crawl',
    description:
      'Where a crawl stands (pages discovered, queued, completed, failed, skipped by reason, credits, the plan of a dry run) and the content of its next scraped pages, as markdown, a few per call: pass next_cursor back to read on. Free.',
    inputSchema: {
      type: 'object',
      required: ['crawl_id'],
      additionalProperties: false,
      properties: {
        crawl_id: { type: 'string', format: 'uuid', description: 'The crawl_id crawl_site returned.' },
        cursor: { type: 'string', maxLength: 1000, description: 'next_cursor of the previous answer: the pages after those.' },
        pages: {
          type: 'integer',
          minimum: 0,
          maximum: CRAWL_STATUS_PAGES.max,
          default: CRAWL_STATUS_PAGES.default,
          description: 'Scraped pages to show (0: the status alone).',
        },
        ...sharedBudgetProperties('page content', DEFAULT_MAX_CHARS),
      },
    },
    outputSchema: schemaOf((api) => ({
      type: 'object' as const,
      required: ['crawl', 'pages', 'page_urls', 'next_cursor', 'credits_charged'],
      properties: {
        crawl: api.reference('CrawlView'),
        pages: FENCED(
          "The pages' markdown, each under its URL (cut to its share of max_chars or max_tokens; read a whole page with scrape_as_markdown)",
        ),
        page_urls: { type: 'array', items: { type: 'string' }, description: 'The pages shown, in order.' },
        next_cursor: orNull({ type: 'string', description: 'Pass as cursor for the pages after these; null when none are left yet.' }),
        credits_charged: { type: 'integer', minimum: 0 },
      },
    })),
    annotations: annotations('Read a crawl', true, true, false),
  };
}
