import { JOB_PAGE_LIMITS, JobListingPage, JobResultBody, RunList, RunView, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { CreditGate } from '../credits/credit-gate';
import { JobResultUnavailableError } from '../gateway.errors';
import { Fails, Returns, ValidationStatus } from '../openapi/operation-contract';
import { JOBS_EXAMPLE, RUN_EXAMPLE } from '../openapi/response-examples';
import { isoToEpochMs, JobListQuery, RunListQuery } from './collection.dto';
import { COLLECTION_ID, RUN_ID } from '../resource-ids/resource-id.pipe';

@ApiTags('runs')
@ApiBearerAuth()
@Controller('v1/async/collections/:collection_id')
export class RunsController {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly credits: CreditGate,
  ) {}

  @Post('run')
  @HttpCode(201)
  @Access('client')
  @ApiOperation({
    summary:
      "Run the collection (spec 4.4): one job per stored request, executed in the background within the plan's batch concurrency. Each job is charged like a sync scrape when it completes.",
  })
  @Returns(201, RunView, { description: 'The run, in_progress, with run_id, job_ids and counters at 0.' })
  @Fails('collection.not_found', 'collection.empty', 'limits.quota_exceeded')
  async start(@Param('collection_id', COLLECTION_ID) collectionId: string, @Caller() caller: AdmittedCall): Promise<RunView> {
    const client = caller.client;
    // Jobs are charged one by one as they complete; a run needs at least one credit to start.
    await this.credits.assertAvailable(client, 1, 'a run');
    return this.bus.request(
      SUBJECTS.runs.start,
      {
        client_id: client.id,
        collection_id: collectionId,
        max_concurrency: client.limits.batchConcurrency,
        monthly_credits: client.limits.monthlyCredits,
      },
      { timeoutMs: 60_000 },
    );
  }

  @Post('runs/:run_id/cancel')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({
    summary:
      'Cancel the run (not in the spec): jobs not started never run and are never charged; jobs in flight finish. Cancelled jobs show as failed with error "cancelled" and are counted in failed_requests and cancelled_requests, so total = success + failed + timeout holds. The run completes when its last job in flight ends (at once when none is) and its webhook fires once. A completed run: 409 invalid_state.',
  })
  @Returns(200, RunView, {
    description: 'The run after the cancel.',
    example: { ...RUN_EXAMPLE, failed_requests: 1, cancelled_requests: 1 },
  })
  @Fails('collection.not_found', 'run.not_found', 'run.invalid_state')
  cancel(
    @Param('collection_id', COLLECTION_ID) collectionId: string,
    @Param('run_id', RUN_ID) runId: string,
    @Caller() caller: AdmittedCall,
  ): Promise<RunView> {
    return this.bus.request(
      SUBJECTS.runs.cancel,
      { client_id: caller.client.id, collection_id: collectionId, run_id: runId },
      { timeoutMs: 60_000 },
    );
  }

  @Get('runs')
  @Access('client')
  @ApiOperation({ summary: 'Runs of the collection, newest first (runs without created_at last); status_filter in_progress or completed.' })
  @Returns(200, RunList, { description: 'The runs and their count.' })
  @ValidationStatus(400)
  @Fails('collection.not_found')
  list(
    @Param('collection_id', COLLECTION_ID) collectionId: string,
    @Query() query: RunListQuery,
    @Caller() caller: AdmittedCall,
  ): Promise<RunList> {
    return this.bus.request(SUBJECTS.runs.list, {
      client_id: caller.client.id,
      collection_id: collectionId,
      status_filter: query.status_filter,
    });
  }

  @Get('runs/:run_id')
  @Access('client')
  @ApiOperation({
    summary: 'One run (spec 2.13) with its counters; a completed run adds failed_jobs. 404 for a run of another collection.',
  })
  @Returns(200, RunView, { description: 'The run.', example: RUN_EXAMPLE })
  @Fails('collection.not_found', 'run.not_found')
  get(
    @Param('collection_id', COLLECTION_ID) collectionId: string,
    @Param('run_id', RUN_ID) runId: string,
    @Caller() caller: AdmittedCall,
  ): Promise<RunView> {
    return this.bus.request(SUBJECTS.runs.get, { client_id: caller.client.id, collection_id: collectionId, run_id: runId });
  }

  @Get('runs/:run_id/jobs')
  @Access('client')
  @ApiOperation({
    summary:
      "A page of the run's jobs (spec 2.14/4.5). Keyset cursors: every job appears once while draining. order_by=completed_at lists finished jobs only. Times are ISO 8601 UTC with milliseconds and no zone suffix.",
  })
  @Returns(200, JobListingPage, { description: 'A page of jobs; follow cursor_next while has_more.', example: JOBS_EXAMPLE })
  @ValidationStatus(400)
  @Fails('collection.not_found', 'results.run_not_found', 'results.invalid_cursor')
  async jobs(
    @Param('collection_id', COLLECTION_ID) collectionId: string,
    @Param('run_id', RUN_ID) runId: string,
    @Query() query: JobListQuery,
    @Caller() caller: AdmittedCall,
  ): Promise<JobListingPage> {
    const packed = await this.bus.request(
      SUBJECTS.jobs.list,
      {
        client_id: caller.client.id,
        collection_id: collectionId,
        run_id: runId,
        cursor: query.cursor,
        limit: query.limit ?? JOB_PAGE_LIMITS.default,
        statuses: query.status_filter
          ? ([...new Set(query.status_filter.split(','))] as JobListingPage['items'][number]['status'][])
          : undefined,
        since_completed_at_ms: query.since_completed_at === undefined ? undefined : isoToEpochMs(query.since_completed_at),
        order_by: query.order_by ?? 'id',
        order_dir: query.order_dir ?? 'asc',
        include_results: query.include_results ?? false,
      },
      { timeoutMs: 60_000 },
    );
    return this.bus.unpack(packed);
  }

  @Get('runs/:run_id/jobs/:job_id/result')
  @Access('client')
  @ApiOperation({
    summary:
      "One job's stored result: the scrape response (spec 2.7) plus url, custom_id and status. Kept RESULT_RETENTION_HOURS (48 h by default).",
  })
  @Returns(200, JobResultBody, { description: 'The job result.' })
  @Fails('results.unavailable', 'collection.not_found', 'results.run_not_found')
  async result(
    @Param('collection_id', COLLECTION_ID) collectionId: string,
    @Param('run_id', RUN_ID) runId: string,
    @Param('job_id') jobId: string,
    @Caller() caller: AdmittedCall,
  ): Promise<JobResultBody> {
    const reply = await this.bus.request(
      SUBJECTS.jobs.result,
      { client_id: caller.client.id, collection_id: collectionId, run_id: runId, job_id: jobId.slice(0, 200) },
      { timeoutMs: 60_000 },
    );
    return this.bus.unpack(JobResultUnavailableError.unlessFound(reply));
  }
}
