import { ScrapeResultBody, WindowedScrapeRequest } from '@lib/contracts';
import { applyDecorators, Controller, Get, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { noContentToReadError } from '../gateway.errors';
import { RequestValidationPipe } from '../http-errors/request-validation.pipe';
import { AnswersText, Fails, Returns } from '../openapi/operation-contract';
import { SYNC_SCRAPE_FAILURES } from '../sync-scrape/sync-scrape.controller';
import { SyncScrapeHandler } from '../sync-scrape/sync-scrape.handler';
import { blockOf, contentOf, emptyReasonOf } from '../token-budget/scrape-answer-window';
import { READ_OPTION_TYPES, READ_OPTIONS, readTargetOf } from './read-target';

/** The read's options as documented query parameters (each as POST /v1/sync/scrape describes its field). */
function ReadOptionsInQuery(): MethodDecorator {
  return applyDecorators(
    ...READ_OPTION_TYPES.map(([name, type]) =>
      ApiQuery({
        name,
        required: false,
        schema: { type, ...(name === 'format' ? { enum: ['markdown', 'html'], default: 'markdown' } : {}) },
        description: `As ${name} of POST /v1/sync/scrape.`,
      }),
    ),
  );
}

const TEXT_TYPES = { markdown: 'text/markdown', html: 'text/html' } as const;

/**
 * GET /v1/read/{url} (decision 0042): a sync scrape whose target is written in the path, its
 * options in the query, answering the page's markdown as text (or the whole scrape answer as JSON
 * when the client prefers application/json). The same admission, billing, page cache and errors as
 * POST /v1/sync/scrape: it is that scrape.
 */
@ApiTags('sync')
@ApiBearerAuth()
@Controller('v1/read')
export class UrlReadController {
  private readonly validation = new RequestValidationPipe();

  constructor(private readonly scrapes: SyncScrapeHandler) {}

  @Get('*')
  @Access('client')
  @ApiOperation({
    summary:
      'Read one URL as markdown: the target in the path (query string kept), the scrape options as query parameters (decision 0042).',
    description:
      `GET /v1/read/https://example.com/page?only_main_content=true — the same scrape, billing, limits, page cache and errors as POST /v1/sync/scrape, with format markdown by default. ` +
      `Query parameters named like an option (${READ_OPTIONS.join(', ')}) are options; every other one stays with the target URL. A target whose own parameters use those names is sent percent-encoded (https%3A%2F%2F…), and then the whole query string is options. ` +
      'Answers text/markdown (text/html with format=html) by default, with X-Target-Status, and with max_tokens X-Content-Tokens, X-Content-Total-Tokens and X-Next-Cursor; with Accept: application/json, the scrape answer (ScrapeResultBody). ' +
      'A page with nothing to read answers 422 empty_content, 415 unsupported_content_type or 422 blocked as text (the content_window.error of the JSON answer), charged as the scrape was.',
  })
  @ApiParam({
    name: 'path',
    description: 'The target URL, as typed or percent-encoded (https://example.com/page?id=3).',
    example: 'https://example.com/',
  })
  @ReadOptionsInQuery()
  @AnswersText('text/markdown', 'text/html')
  @Returns(200, ScrapeResultBody, {
    description: 'The page as text/markdown by default (here: the JSON form, with Accept: application/json).',
  })
  @Fails(...SYNC_SCRAPE_FAILURES, 'content.empty', 'content.unsupported_type', 'content.blocked')
  async read(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Caller() caller: AdmittedCall,
  ): Promise<ScrapeResultBody> {
    const { url, options } = readTargetOf(request.url);
    const scrape = (await this.validation.transform(
      { format: 'markdown', ...options, url },
      { type: 'query', metatype: WindowedScrapeRequest },
    )) as WindowedScrapeRequest;
    const answer = await this.scrapes.scrape(scrape, caller);
    reply.header('vary', 'Accept');
    const textType = TEXT_TYPES[scrape.format];
    const wanted = new Negotiator({ headers: { accept: request.headers.accept ?? '*/*' } }).mediaType([textType, 'application/json']);
    if (wanted === 'application/json') return answer;
    const window = answer.content_window;
    const content = contentOf(answer, scrape.format);
    reply.header('x-target-status', String(answer.statusCode));
    // As text, a block page or nothing at all is an error with its reason: a reader never mistakes either for the page.
    const unreadable =
      window?.error && window.error.code !== 'content_changed' ? window.error : (blockOf(answer) ?? emptyReasonOf(answer, content ?? ''));
    if (unreadable && unreadable.code !== 'content_changed') throw noContentToReadError(unreadable.code, unreadable.message);
    if (window) {
      reply.header('x-content-tokens', String(window.tokens));
      reply.header('x-content-total-tokens', String(window.total_tokens));
      reply.header('x-content-tokenizer', window.tokenizer);
      if (window.cursor) reply.header('x-next-cursor', window.cursor);
    }
    reply.type(`${textType}; charset=utf-8`);
    // The text answer is the content itself; the JSON form is what the operation documents.
    return (content ?? '') as unknown as ScrapeResultBody;
  }
}
