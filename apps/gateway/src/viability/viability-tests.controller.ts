import {
  DEFAULT_VIABILITY_DEPTH,
  SUBJECTS,
  VIABILITY_PAGE_LIMITS,
  VIABILITY_WORST_CASE_CREDITS,
  ViabilityRunList,
  ViabilityRunView,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { VIABILITY_RUN_ID } from '../resource-ids/resource-id.pipe';
import { CreditGate } from '../credits/credit-gate';
import { Fails, Returns, ValidationStatus } from '../openapi/operation-contract';
import { VIABILITY_RUN_EXAMPLE } from '../openapi/response-examples';
import { distinctUrls, ViabilityListQuery, ViabilityTestBody } from './viability.dto';

@ApiTags('viability')
@ApiBearerAuth()
@Controller('v1/async/viability-test')
export class ViabilityTestsController {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly credits: CreditGate,
  ) {}

  @Post()
  @HttpCode(202)
  @Access('client')
  @ApiOperation({
    summary:
      "Start a viability test (spec 4.6): each URL is probed in the background and gets a recommended strategy. Nothing is charged on this call (X-Credits-Charged: 0); each probe is charged as a sync scrape when it runs (1 simple, 5 browser). 429 when the month cannot cover the depth's worst case for every URL. A URL that is not a public target is not fetched: its entry is `blocked` with the reason.",
  })
  @Returns(202, ViabilityRunView, { description: 'The run, in_progress, with total_urls and completed_urls 0; results null.' })
  @Fails('limits.quota_exceeded')
  async create(@Body() body: ViabilityTestBody, @Caller() caller: AdmittedCall): Promise<ViabilityRunView> {
    const client = caller.client;
    const urls = distinctUrls(body.urls);
    const depth = body.depth ?? DEFAULT_VIABILITY_DEPTH;
    await this.credits.assertAvailable(
      client,
      urls.length * VIABILITY_WORST_CASE_CREDITS[depth],
      `a ${depth} viability test of ${urls.length} URL(s)`,
    );
    return this.bus.request(SUBJECTS.viability.create, {
      client_id: client.id,
      urls,
      depth,
      monthly_credits: client.limits.monthlyCredits,
    });
  }

  @Get()
  @Access('client')
  @ApiOperation({ summary: "The client's viability runs, newest first, without their results (GET one run for them). Keyset cursor." })
  @Returns(200, ViabilityRunList, { description: 'A page of runs; follow cursor_next while has_more.' })
  @ValidationStatus(400)
  @Fails('viability.invalid_cursor')
  list(@Query() query: ViabilityListQuery, @Caller() caller: AdmittedCall): Promise<ViabilityRunList> {
    return this.bus.request(SUBJECTS.viability.list, {
      client_id: caller.client.id,
      limit: query.limit ?? VIABILITY_PAGE_LIMITS.default,
      cursor: query.cursor?.toLowerCase(),
    });
  }

  @Get(':run_id')
  @Access('client')
  @ApiOperation({
    summary:
      'One viability run (spec 2.15): results stay null until completed_urls equals total_urls, then one entry per URL in request order. Kept RESULT_RETENTION_HOURS.',
  })
  @Returns(200, ViabilityRunView, { description: 'The run.', example: VIABILITY_RUN_EXAMPLE })
  @Fails('viability.run_not_found')
  get(@Param('run_id', VIABILITY_RUN_ID) runId: string, @Caller() caller: AdmittedCall): Promise<ViabilityRunView> {
    return this.bus.request(SUBJECTS.viability.get, { client_id: caller.client.id, run_id: runId });
  }
}
