import { CLIENT_JOB_PAGE_LIMITS, ClientJobPage, ClientJobStatus, JobOutcomeName, JobResultBody, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { isoToEpochMs } from '../collections/collection.dto';
import { JobResultUnavailableError } from '../gateway.errors';
import { Fails, Returns, ValidationStatus } from '../openapi/operation-contract';
import { CLIENT_JOBS_EXAMPLE, SCRAPE_EXAMPLE } from '../openapi/response-examples';
import { ClientJobListQuery } from '../projects/project.dto';

/** The client's jobs across batches and collection runs, and one job's data (spec 4.8). */
@ApiTags('jobs')
@ApiBearerAuth()
@Controller('v1/jobs')
export class JobsController {
  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  @Get()
  @Access('client')
  @ApiOperation({
    summary:
      "A page of the client's jobs, oldest first, filtered by project_id, batch_id (a batch, or a collection run's run_id), status, outcome (success, failed, timeout, cancelled: the meaning the run counters and usage metrics count by) and since (queued at or after). Keyset cursors as in spec 4.5: every job appears once while draining; a cursor only continues the listing (same filters) it came from.",
  })
  @Returns(200, ClientJobPage, { description: 'A page of jobs; follow cursor_next while has_more.', example: CLIENT_JOBS_EXAMPLE })
  @ValidationStatus(400)
  @Fails('results.project_not_found', 'results.batch_not_found', 'results.invalid_cursor')
  async list(@Query() query: ClientJobListQuery, @Caller() caller: AdmittedCall): Promise<ClientJobPage> {
    const packed = await this.bus.request(
      SUBJECTS.jobs.listForClient,
      {
        client_id: caller.client.id,
        project_id: query.project_id?.toLowerCase(),
        batch_id: query.batch_id?.toLowerCase(),
        statuses: query.status ? (query.status.split(',') as ClientJobStatus[]) : undefined,
        outcomes: query.outcome ? (query.outcome.split(',') as JobOutcomeName[]) : undefined,
        since_ms: query.since === undefined ? undefined : isoToEpochMs(query.since),
        cursor: query.cursor,
        limit: query.limit ?? CLIENT_JOB_PAGE_LIMITS.default,
      },
      { timeoutMs: 60_000 },
    );
    return this.bus.unpack(packed);
  }

  @Get(':job_id/data')
  @Access('client')
  @ApiOperation({
    summary:
      "The job's stored scrape response (spec 2.7 plus url, custom_id and status), kept RESULT_RETENTION_HOURS. 404 with spec 4.5's object detail: result_pending, result_expired, result_lost, job_id_invalid, or job_cancelled (cancelled before it ran).",
  })
  @Returns(200, JobResultBody, {
    description: 'The job data.',
    example: { ...SCRAPE_EXAMPLE, url: 'https://example.com/a', custom_id: 'sku-1', status: 'completed' },
  })
  @Fails('results.unavailable')
  async data(@Param('job_id') jobId: string, @Caller() caller: AdmittedCall): Promise<JobResultBody> {
    const reply = await this.bus.request(
      SUBJECTS.jobs.data,
      { client_id: caller.client.id, job_id: jobId.slice(0, 200).toLowerCase() },
      { timeoutMs: 60_000 },
    );
    return this.bus.unpack(JobResultUnavailableError.unlessFound(reply));
  }
}
