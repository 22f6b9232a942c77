import { isMainContentFallbackNote, ScrapeGuidance, ScrapeRequest, ScrapeResultBody } from '@lib/contracts';
import { Injectable } from '@nestjs/common';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { AdmittedCall } from '../../admission/caller.decorator';
import { SyncScrapeHandler } from '../../sync-scrape/sync-scrape.handler';
import { type ContentBudget, contentOf, emptyReasonOf, windowedAnswer } from '../../token-budget/scrape-answer-window';
import { textWindowOf } from '../text-window';
import {
  agentScrapeArguments,
  argumentsOf,
  markdownRequestOf,
  ScrapeAsMarkdownArguments,
  scrapeRequestOf,
  ScrapeUrlArguments,
} from '../tool-arguments';
import type { ToolName } from '../tool-names';
import { invalidArguments } from '../tool-results';
import { describeToolWindow, type ToolWindow, toolWindowFieldsOf, unreadable, type WindowArguments, windowAskedOf } from '../tool-window';
import { oneLine, UntrustedContentFence } from '../untrusted-content';

/**
 * scrape_url and scrape_as_markdown: the REST scrape on the caller's admission (its SSRF guard,
 * credit hold, ledger entry, proxy approval), its content fenced as untrusted and cut to the window
 * the agent asked for, its failure as guidance with the next call's arguments.
 */
@Injectable()
export class PageTools {
  constructor(private readonly scrapes: SyncScrapeHandler) {}

  /**
   * What both scrape tools do first: validate, scrape as REST would, and cut the content to the
   * window asked for — by characters (max_chars, offset) or by tokens (max_tokens, cursor; decision 0042).
   */
  private async windowedScrape<A extends WindowArguments>(
    tool: ToolName,
    type: new () => A,
    raw: unknown,
    admission: AdmittedCall,
    requestOf: (args: A) => ScrapeRequest,
  ): Promise<WindowedScrape<A> | { ok: false; failure: CallToolResult }> {
    const parsed = await argumentsOf(type, raw);
    if (!parsed.ok) return { ok: false, failure: invalidArguments(tool, parsed.problems) };
    const args = parsed.value;
    const wanted = windowAskedOf(args);
    if (!wanted.ok) return { ok: false, failure: invalidArguments(tool, wanted.problems) };
    const asked = wanted.asked;
    const request = requestOf(args);
    const result = await this.scrapes.scrape(request, admission);
    const window =
      asked.by === 'tokens'
        ? await tokenWindowOfAnswer(result, request.format, asked.budget)
        : characterWindowOf(result, request.format, asked);
    const fence = new UntrustedContentFence();
    return {
      ok: true,
      args,
      request,
      result,
      window,
      fence,
      content: window.text.length > 0 ? fence.wrap(window.text, request.url, request.format) : null,
    };
  }

  async scrapeUrl(raw: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const scraped = await this.windowedScrape('scrape_url', ScrapeUrlArguments, raw, admission, scrapeRequestOf);
    if (!scraped.ok) return scraped.failure;
    const { request, result, window, fence, content } = scraped;
    const pageValues = pageDataOf(result);
    const pageData = pageValues ? fence.wrap(JSON.stringify(pageValues, null, 1), request.url, 'page_data') : null;
    const guidance = forAgent(result.guidance, (suggested) => agentScrapeArguments(suggested));
    const binary = result.body_base64
      ? ` The response is binary (${oneLine(result.content_type ?? 'unknown type', 100)}): it is not shown here; download it with POST /v1/sync/download.`
      : '';

    const blocks: ContentBlock[] = [
      {
        type: 'text',
        text: [
          summaryLine(request.url, result, admission.creditsCharged) + binary,
          ...guidanceLines(guidance),
          describeScrapeWindow(window, 'scrape_url'),
        ].join('\n'),
      },
    ];
    if (content) blocks.push({ type: 'text', text: content });
    if (pageData) blocks.push({ type: 'text', text: pageData });
    if (result.screenshot) blocks.push({ type: 'image', data: result.screenshot, mimeType: 'image/png' });
    return {
      isError: guidance.success !== true || unreadable(window),
      content: blocks,
      structuredContent: {
        url: request.url,
        status_code: result.statusCode,
        success: guidance.success === true,
        // The site's reason phrase and a page script's error text come from the page: one bounded line each, never a marker.
        message: oneLine(result.message, 200),
        format: request.format,
        content,
        content_window: toolWindowFieldsOf(window),
        page_data: pageData,
        screenshot_attached: Boolean(result.screenshot),
        credits_charged: admission.creditsCharged,
        guidance,
        action_error: result.action_error ? { ...result.action_error, message: oneLine(result.action_error.message, 500) } : null,
        execution_time_s: result.executionTime,
      },
    };
  }

  async scrapeAsMarkdown(raw: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    const scraped = await this.windowedScrape('scrape_as_markdown', ScrapeAsMarkdownArguments, raw, admission, markdownRequestOf);
    if (!scraped.ok) return scraped.failure;
    const { args, request, result, window, content: markdown } = scraped;
    const title = result.metadata?.title ? oneLine(result.metadata.title) : null;
    const finalUrl = oneLine(result.metadata?.final_url ?? request.url, 2048);
    // The engine says so when the page had no article and the whole page came back.
    const wholePage = !request.only_main_content || result.guidance.next_steps.some(isMainContentFallbackNote);
    const guidance = forAgent(result.guidance, (suggested) => ({
      url: suggested.url ?? request.url,
      ...(suggested.browser !== undefined ? { browser: suggested.browser } : {}),
      ...(suggested.retry_on_block !== undefined ? { retry_on_block: suggested.retry_on_block } : {}),
      ...(args.full_page ? { full_page: true } : {}),
    }));
    const header = [
      `Title: ${title ?? '(none)'}`,
      `URL: ${finalUrl}`,
      summaryLine(request.url, result, admission.creditsCharged) +
        (wholePage ? ' Whole page.' : ' Main content only (full_page=true for the whole page).'),
      ...guidanceLines(guidance),
      describeScrapeWindow(window, 'scrape_as_markdown'),
    ];
    const blocks: ContentBlock[] = [{ type: 'text', text: header.join('\n') }];
    if (markdown) blocks.push({ type: 'text', text: markdown });
    return {
      isError: guidance.success !== true || unreadable(window),
      content: blocks,
      structuredContent: {
        url: request.url,
        final_url: finalUrl,
        title,
        status_code: result.statusCode,
        success: guidance.success === true,
        main_content_only: !wholePage,
        markdown,
        content_window: toolWindowFieldsOf(window),
        credits_charged: admission.creditsCharged,
        guidance,
      },
    };
  }
}

function characterWindowOf(
  result: ScrapeResultBody,
  format: 'html' | 'markdown',
  { maxChars, offset }: { maxChars: number; offset: number },
): ToolWindow {
  const body = contentOf(result, format) ?? '';
  return { ...textWindowOf(body, offset, maxChars), tokens: null, error: emptyReasonOf(result, body) };
}

async function tokenWindowOfAnswer(result: ScrapeResultBody, format: 'html' | 'markdown', budget: ContentBudget): Promise<ToolWindow> {
  const answer = await windowedAnswer(result, format, budget);
  const { tokenizer, tokens, total_tokens, cursor, offset, end, total_chars, truncated, error } = answer.content_window!;
  const text = contentOf(answer, format) ?? '';
  return {
    text,
    offset,
    end,
    total_chars,
    truncated,
    next_offset: truncated ? end : null,
    tokens: { tokenizer, tokens, total_tokens, cursor },
    error,
  };
}

function describeScrapeWindow(window: ToolWindow, tool: ToolName): string {
  return describeToolWindow(
    window,
    `Call ${tool} again with the same arguments`,
    '(the page is fetched and charged again; with max_age the page cache answers for 0 credits)',
  );
}

interface WindowedScrape<A> {
  ok: true;
  args: A;
  request: ScrapeRequest;
  result: ScrapeResultBody;
  window: ToolWindow;
  fence: UntrustedContentFence;
  /** The window's text, fenced; null when the page has no text there. */
  content: string | null;
}

/** The guidance with its suggested request as arguments of the same tool. */
function forAgent(guidance: ScrapeGuidance, asArguments: (suggested: Record<string, unknown>) => Record<string, unknown>): ScrapeGuidance {
  return { ...guidance, suggested_request: guidance.suggested_request ? asArguments(guidance.suggested_request) : null };
}

function pageDataOf(result: ScrapeResultBody): Record<string, unknown> | null {
  const data: Record<string, unknown> = {};
  if (result.extracted_data) data.extracted_data = result.extracted_data;
  if (result.evaluate_results?.length) data.evaluate_results = result.evaluate_results;
  return Object.keys(data).length > 0 ? data : null;
}

function summaryLine(url: string, result: ScrapeResultBody, credits: number): string {
  const status = result.statusCode > 0 ? `HTTP ${result.statusCode}` : 'the site never answered';
  const outcome = result.guidance.success
    ? 'usable content'
    : `not usable (${result.guidance.error_type ?? 'failed'}${result.guidance.error_provider ? `, ${result.guidance.error_provider}` : ''})`;
  const cached = result.cached && result.cache ? `, from the page cache (${result.cache.status}, ${result.cache.age} s old)` : '';
  return `Scraped ${oneLine(url, 2048)}: ${status}, ${outcome}${cached}, ${credits} credit${credits === 1 ? '' : 's'} charged.`;
}

function guidanceLines(guidance: ScrapeGuidance): string[] {
  if (guidance.success && guidance.next_steps.length === 0) return [];
  const lines = guidance.next_steps.map((step) => `- ${step}`);
  if (guidance.stop_reason) lines.push(`Retrying will not help: ${guidance.stop_reason}`);
  if (guidance.suggested_request) lines.push(`Suggested arguments for the next attempt: ${JSON.stringify(guidance.suggested_request)}`);
  return lines.length > 0 ? ['Next steps:', ...lines] : [];
}
