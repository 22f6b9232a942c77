import { LlmsTxtRequest, LlmsTxtView } from '@lib/contracts';
import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { AnswersText, Fails, Returns } from '../openapi/operation-contract';
import { CRAWL_ID } from '../resource-ids/resource-id.pipe';
import { SiteDiscoveryCalls } from '../site-discovery/site-discovery.calls';

/** Seconds a client polling a crawl that still runs is asked to wait. */
const POLL_SECONDS = 2;

/**
 * An llms.txt for a site, made from a crawl (decision 0042): POST /v1/llms-txt starts the crawl,
 * GET /v1/llms-txt/{crawl_id} answers the file once it has ended — for any crawl of the client.
 */
@ApiTags('discovery')
@ApiBearerAuth()
@Controller('v1/llms-txt')
export class LlmsTxtController {
  constructor(private readonly calls: SiteDiscoveryCalls) {}

  @Post()
  @HttpCode(202)
  @Access('client')
  @ApiOperation({
    summary:
      "Make an llms.txt for a site: a crawl of it (markdown, main content, include_metadata) whose pages' own titles and descriptions become the file's links, by path section — no model involved.",
    description:
      'Answers 202 with the crawl_id; GET /v1/llms-txt/{crawl_id} answers the file once the crawl has ended. The pages are charged as a crawl’s (1 credit each, 5 with browser; GET /v1/crawl/{crawl_id} follows it); making the file costs nothing. 429 when the month cannot cover one page.',
  })
  @Returns(202, LlmsTxtView, { description: 'The crawl started; status in_progress, llms_txt null.' })
  @Fails('target.blocked', 'target.invalid_url', 'discovery.invalid_pattern', 'discovery.robots_override_refused', 'limits.quota_exceeded')
  create(@Body() body: LlmsTxtRequest, @Caller() caller: AdmittedCall): Promise<LlmsTxtView> {
    return this.calls.startLlmsTxt(body, caller);
  }

  @Get(':crawl_id')
  @Access('client')
  @ApiOperation({
    summary:
      'The llms.txt made from a crawl’s scraped pages (any crawl of the client: one POST /v1/llms-txt started, or a POST /v1/crawl).',
    description:
      'Once the crawl has ended: 200 with the file — as JSON (LlmsTxtView) by default, as the file itself with Accept: text/markdown or text/plain. While it runs: 200 with the view as JSON whatever Accept says (status in_progress, llms_txt null) and Retry-After: ask again. ' +
      'At most 1,000 pages are listed (truncated says when there were more). A dry run (a plan) has no pages: 409 invalid_state. Free: the pages were charged by the crawl.',
  })
  @AnswersText('text/markdown', 'text/plain')
  @Returns(200, LlmsTxtView, {
    description:
      'The file made (here: the JSON form; the file itself with Accept: text/markdown or text/plain), or where the crawl stands while it runs.',
  })
  @Fails('discovery.crawl_not_found', 'discovery.invalid_state')
  async get(
    @Param('crawl_id', CRAWL_ID) crawlId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Caller() caller: AdmittedCall,
  ): Promise<LlmsTxtView> {
    const view = await this.calls.llmsTxt(crawlId, caller);
    reply.header('vary', 'Accept');
    if (view.status !== 'completed' || view.llms_txt === null) {
      reply.header('retry-after', String(POLL_SECONDS));
      return view;
    }
    const wanted = new Negotiator({ headers: { accept: request.headers.accept ?? '*/*' } }).mediaType([
      'application/json',
      'text/markdown',
      'text/plain',
    ]);
    if (wanted === 'text/markdown' || wanted === 'text/plain') {
      reply.type(`${wanted}; charset=utf-8`);
      // The text answer is the file itself; the JSON form is what the operation documents.
      return view.llms_txt as unknown as LlmsTxtView;
    }
    return view;
  }
}
