import {
  type CrawlPlan,
  type CrawlView,
  type JobResultBody,
  SUBJECTS,
  VIABILITY_WORST_CASE_CREDITS,
  ViabilityResult,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable } from '@nestjs/common';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import type { AdmittedCall } from '../../admission/caller.decorator';
import { CreditGate } from '../../credits/credit-gate';
import { SiteDiscoveryCalls } from '../../site-discovery/site-discovery.calls';
import {
  agentScrapeArguments,
  argumentsOf,
  crawlRequestOf,
  CrawlSiteArguments,
  CRAWL_STATUS_PAGES,
  CrawlStatusArguments,
  depthOf,
  DiscoverArguments,
  mapRequestOf,
  MapSiteArguments,
} from '../tool-arguments';
import { failureResult, invalidArguments } from '../tool-results';
import {
  conflictingBudgets,
  cutToShare,
  describeToolWindow,
  shareOf,
  toolWindowFieldsOf,
  toolWindowOf,
  windowAskedOf,
} from '../tool-window';
import { oneLine, UntrustedContentFence } from '../untrusted-content';

// A discover call waits for its slowest probe (a browser render with its own budget); the analyser decides failure, not this.
const DISCOVER_TIMEOUT_MS = 300_000;

/**
 * discover, map_site, crawl_site and crawl_status: a site as a whole — what it takes to scrape it
 * (the viability analysis of one URL), which URLs it has (the REST map), and its pages in bulk (the
 * REST crawl, whose pages crawl_status reads back fenced and cut to the agent's budget).
 */
@Injectable()
export class SiteTools {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly credits: CreditGate,
    private readonly discovery: SiteDiscoveryCalls,
  ) {}

  async discover(raw: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const parsed = await argumentsOf(DiscoverArguments, raw);
    if (!parsed.ok) return invalidArguments('discover', parsed.problems);
    const client = admission.client;
    const depth = depthOf(parsed.value);
    // As POST /v1/async/viability-test: refused up front when the month cannot cover the depth's worst case.
    await this.credits.assertAvailable(client, VIABILITY_WORST_CASE_CREDITS[depth], `a ${depth} discover`, admission.requestId);
    const reply = await this.bus.request(
      SUBJECTS.viability.analyse,
      { client_id: client.id, request_id: randomUUID(), url: parsed.value.url, depth, monthly_credits: client.limits.monthlyCredits },
      { correlationId: admission.requestId, timeoutMs: DISCOVER_TIMEOUT_MS },
    );
    admission.creditsCharged += reply.credits_charged;
    // Nothing reached the site because the address is not a public target (a metadata or private
    // IP, or a redirect to one): an error, as scrape_url answers it, not a verdict of "blocked".
    const { simple_request, extract_html, browser } = reply.verdict.tests;
    const probes = [simple_request, extract_html, browser].filter((test) => test !== null);
    if (probes.length > 0 && probes.every((test) => test.error === 'target_blocked'))
      return failureResult({
        error_type: 'target_blocked',
        message: `${oneLine(parsed.value.url, 2048)} is not a public address (or redirects to one): nothing was fetched; ${reply.credits_charged} credit${reply.credits_charged === 1 ? '' : 's'} charged.`,
        next_steps: [
          'Only public http(s) addresses can be fetched: private, loopback, link-local and cloud-metadata addresses are refused, redirects included. Use a public URL.',
        ],
        suggested_request: null,
      });
    const verdict = {
      ...reply.verdict,
      suggested_request: reply.verdict.suggested_request ? agentScrapeArguments(reply.verdict.suggested_request) : null,
    };
    return {
      content: [{ type: 'text', text: verdictLines(verdict, depth, reply.credits_charged).join('\n') }],
      structuredContent: { url: parsed.value.url, depth, credits_charged: reply.credits_charged, verdict },
    };
  }

  async mapSite(raw: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const parsed = await argumentsOf(MapSiteArguments, raw);
    if (!parsed.ok) return invalidArguments('map_site', parsed.problems);
    const wanted = windowAskedOf(parsed.value);
    if (!wanted.ok) return invalidArguments('map_site', wanted.problems);
    const request = mapRequestOf(parsed.value);
    const map = await this.discovery.map(request, admission);
    const window = await toolWindowOf(map.urls.join('\n'), wanted.asked);
    const fence = new UntrustedContentFence();
    const head = [
      `${map.count} URL${map.count === 1 ? '' : 's'} found from ${oneLine(map.url, 2048)} (robots.txt: ${map.robots.status}; ${map.sources.sitemap} from sitemaps, ${map.sources.links} from links; ${map.pages_fetched} pages fetched).`,
      map.truncated
        ? `The map stopped early (${map.stopped_by}): raise limit, page_fetches or max_depth for more.`
        : 'The map is complete within its scope.',
      `Skipped: ${Object.entries(map.skipped)
        .map(([reason, n]) => `${reason} ${n}`)
        .join(', ')}. ${admission.creditsCharged} credit${admission.creditsCharged === 1 ? '' : 's'} charged.`,
      describeToolWindow(window, 'Call map_site again with the same arguments', '(the map runs and is charged again)'),
    ];
    const urls = window.text.length > 0 ? fence.wrap(window.text, map.url, 'urls') : null;
    const blocks: ContentBlock[] = [{ type: 'text', text: head.join('\n') }];
    if (urls) blocks.push({ type: 'text', text: urls });
    return {
      content: blocks,
      structuredContent: {
        url: map.url,
        count: map.count,
        truncated: map.truncated,
        stopped_by: map.stopped_by,
        robots: map.robots,
        pages_fetched: map.pages_fetched,
        skipped: map.skipped,
        urls,
        content_window: toolWindowFieldsOf(window),
        credits_charged: admission.creditsCharged,
      },
    };
  }

  async crawlSite(raw: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const parsed = await argumentsOf(CrawlSiteArguments, raw);
    if (!parsed.ok) return invalidArguments('crawl_site', parsed.problems);
    const crawl = await this.discovery.startCrawl(crawlRequestOf(parsed.value), admission);
    const what = crawl.state === 'planning' ? 'A plan (dry run) is being made' : `A crawl of up to ${crawl.max_pages} pages started`;
    const text = [
      `${what} for ${oneLine(crawl.url, 2048)}: crawl_id ${crawl.crawl_id}, state ${crawl.state}.`,
      crawl.zero_pages_reason
        ? `It ended at once with no page: ${crawl.zero_pages_reason}.`
        : `Call crawl_status with crawl_id "${crawl.crawl_id}" to follow it and read its pages.`,
    ];
    return { content: [{ type: 'text', text: text.join('\n') }], structuredContent: { crawl, credits_charged: 0 } };
  }

  async crawlStatus(raw: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const parsed = await argumentsOf(CrawlStatusArguments, raw);
    if (!parsed.ok) return invalidArguments('crawl_status', parsed.problems);
    const conflict = conflictingBudgets(parsed.value);
    if (conflict.length > 0) return invalidArguments('crawl_status', conflict);
    const crawlId = parsed.value.crawl_id.toLowerCase();
    const crawl = await this.discovery.crawl(crawlId, admission);
    const want = parsed.value.pages ?? CRAWL_STATUS_PAGES.default;
    const lines = [crawlLine(crawl)];
    if (crawl.plan) lines.push(planLine(crawl.plan));
    let pages: string | null = null;
    const pageUrls: string[] = [];
    let nextCursor: string | null = null;
    if (want > 0 && crawl.results_path) {
      const listed = await this.bus.unpack(
        await this.bus.request(
          SUBJECTS.jobs.listForClient,
          { client_id: admission.client.id, batch_id: crawlId, statuses: ['completed'], cursor: parsed.value.cursor, limit: want },
          { correlationId: admission.requestId, timeoutMs: 60_000 },
        ),
      );
      const share = shareOf(parsed.value, listed.items.length);
      const parts: string[] = [];
      for (const job of listed.items) {
        const reply = await this.bus.request(
          SUBJECTS.jobs.data,
          { client_id: admission.client.id, job_id: job.job_id },
          { correlationId: admission.requestId, timeoutMs: 60_000 },
        );
        if (!reply.found) continue;
        const body: JobResultBody = await this.bus.unpack(reply.result);
        parts.push(`## ${job.url}\n${await cutToShare(body.markdown ?? body.html ?? '', share)}`);
        pageUrls.push(job.url);
      }
      nextCursor = listed.has_more ? listed.cursor_next : null;
      if (parts.length > 0) pages = new UntrustedContentFence().wrap(parts.join('\n\n'), crawl.url, 'markdown');
      lines.push(
        pageUrls.length > 0
          ? `Pages ${pageUrls.length} shown.${nextCursor ? ` Call crawl_status with cursor "${nextCursor}" for the next ones.` : crawl.status === 'completed' ? ' No more pages.' : ' More may come as the crawl goes on.'}`
          : 'No scraped page to show yet.',
      );
    }
    const blocks: ContentBlock[] = [{ type: 'text', text: lines.join('\n') }];
    if (pages) blocks.push({ type: 'text', text: pages });
    return {
      content: blocks,
      structuredContent: { crawl, pages, page_urls: pageUrls, next_cursor: nextCursor, credits_charged: 0 },
    };
  }
}

function crawlLine(crawl: CrawlView): string {
  const skipped = Object.entries(crawl.skipped)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  return (
    `Crawl ${crawl.crawl_id} of ${oneLine(crawl.url, 2048)}: ${crawl.state}; ${crawl.discovered} pages discovered, ${crawl.queued} queued, ${crawl.completed} scraped, ${crawl.failed} failed; ` +
    `${crawl.credits_charged} credits charged.${skipped ? ` Skipped: ${skipped}.` : ''}${crawl.zero_pages_reason ? ` No page scraped: ${crawl.zero_pages_reason}.` : ''}`
  );
}

function planLine(plan: CrawlPlan): string {
  const forecast = plan.forecast
    .map((f) => `${f.mode}: ${f.pages} pages, ${f.credits} credits${f.seconds === null ? '' : `, about ${Math.round(f.seconds)} s`}`)
    .join('; ');
  return (
    `Plan: ${plan.discovered} URLs${plan.truncated ? ' (at least)' : ''} in ${plan.sections.length} sections; recommended mode ${plan.recommended_mode ?? 'unknown'}; ` +
    `block rate ${plan.block_rate === null ? 'unknown' : `${Math.round(plan.block_rate * 100)} %`}. Forecast — ${forecast}. The sample analyses cost ${plan.credits_charged} credits.`
  );
}

function verdictLines(verdict: ViabilityResult, depth: string, credits: number): string[] {
  const blockers = [
    verdict.captcha_detected ? `CAPTCHA (${verdict.captcha_providers.join(', ') || 'unknown provider'})` : '',
    verdict.cloudflare_level !== 'none' ? `Cloudflare: ${verdict.cloudflare_level}` : '',
    verdict.login_wall.detected ? 'login wall' : '',
    verdict.protection.length > 0 ? `protection: ${verdict.protection.join(', ')}` : '',
  ].filter(Boolean);
  return [
    `Discover (${depth}) for ${oneLine(verdict.url, 2048)}: recommended strategy ${verdict.recommended_strategy}, difficulty ${verdict.difficulty}; ${credits} credit${credits === 1 ? '' : 's'} charged.`,
    `Blockers: ${blockers.join('; ') || 'none seen'}.`,
    `JavaScript required: ${verdict.javascript_required ? 'yes' : 'no'} (confidence ${verdict.browser_confidence}). Works with: ${[verdict.can_use_simple_request ? 'plain fetch' : '', verdict.can_use_extract_html ? 'main-content extraction' : '', verdict.can_use_browser ? 'browser' : ''].filter(Boolean).join(', ') || 'nothing tried worked'}.`,
    ...(verdict.api_detected
      ? [
          `JSON APIs behind the page${verdict.api_auth_required ? ' (need credentials)' : ''}: ${verdict.api_endpoints.map((e) => oneLine(e, 2048)).join(', ')}.`,
        ]
      : []),
    'Reasons:',
    ...verdict.reasons.map((reason) => `- ${oneLine(reason, 1000)}`),
    verdict.suggested_request
      ? `Suggested scrape_url arguments: ${JSON.stringify(verdict.suggested_request)}`
      : 'No scrape is suggested: the URL cannot be scraped as things stand.',
  ];
}
