import { CreateMonitorRequest, MonitorChangesPage, MonitorDeleted, MonitorList, MonitorTickList, MonitorView } from '@lib/contracts';
import { Body, Controller, DefaultValuePipe, Delete, Get, HttpCode, Param, ParseIntPipe, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { Fails, Returns } from '../openapi/operation-contract';
import { MONITOR_ID } from '../resource-ids/resource-id.pipe';
import { MonitorCalls } from './monitor-calls';

/** Monitors (issue 63): pages watched on a schedule, each tick reporting only what changed. docs/api-guide.md#monitors. */
@ApiTags('monitors')
@ApiBearerAuth()
@Controller('v1/monitors')
export class MonitorsController {
  constructor(private readonly calls: MonitorCalls) {}

  @Post()
  @HttpCode(201)
  @Access('client')
  @ApiOperation({
    summary:
      'Watch pages on a schedule: every tick scrapes them (charged as batch jobs: 1 simple, 5 browser) and compares each with its version before — new, same, changed (with a unified diff of the markdown and a field diff of `extract`) or removed — leaving out what the ignore rules match. The first tick starts now.',
    description:
      'The webhook `monitor.changed` goes to webhook_url after a tick that found a change (every tick with notify=always), signed like every webhook, with the changed pages. ' +
      "422 at the field: a cron that does not parse, an interval below the plan's minimum, more URLs than the plan allows, scrape options that are not a scrape's, an ignore selector that does not parse, a pattern that is not RE2. 403 monitor_limit_reached past the plan's monitors.",
  })
  @Returns(201, MonitorView, { description: 'The monitor, active; its first tick is due now.' })
  @Fails('request.validation_failed', 'target.blocked', 'target.invalid_url', 'monitor.limit_reached')
  create(@Body() body: CreateMonitorRequest, @Caller() caller: AdmittedCall): Promise<MonitorView> {
    return this.calls.create(body, caller);
  }

  @Get()
  @Access('client')
  @ApiOperation({ summary: "The client's monitors, newest first." })
  @Returns(200, MonitorList, { description: 'The monitors.' })
  list(@Caller() caller: AdmittedCall): Promise<MonitorList> {
    return this.calls.list(caller);
  }

  @Get(':monitor_id')
  @Access('client')
  @ApiOperation({ summary: 'One monitor: its state, schedule, next and last tick.' })
  @Returns(200, MonitorView, { description: 'The monitor.' })
  @Fails('monitor.not_found')
  get(@Param('monitor_id', MONITOR_ID) monitorId: string, @Caller() caller: AdmittedCall): Promise<MonitorView> {
    return this.calls.get(monitorId, caller);
  }

  @Post(':monitor_id/pause')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({ summary: 'Pause: no tick starts until it is resumed (a tick in progress finishes).' })
  @Returns(200, MonitorView, { description: 'The monitor, paused.' })
  @Fails('monitor.not_found')
  pause(@Param('monitor_id', MONITOR_ID) monitorId: string, @Caller() caller: AdmittedCall): Promise<MonitorView> {
    return this.calls.transition(monitorId, 'pause', caller);
  }

  @Post(':monitor_id/resume')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({ summary: 'Resume: the next tick is the schedule’s next time from now (no catch-up of the ticks skipped).' })
  @Returns(200, MonitorView, { description: 'The monitor, active.' })
  @Fails('monitor.not_found')
  resume(@Param('monitor_id', MONITOR_ID) monitorId: string, @Caller() caller: AdmittedCall): Promise<MonitorView> {
    return this.calls.transition(monitorId, 'resume', caller);
  }

  @Post(':monitor_id/tick')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({
    summary: 'Tick now (once the tick in progress, if any, is over); the schedule goes on from this tick. 409 while paused.',
  })
  @Returns(200, MonitorView, { description: 'The monitor, its next tick due now.' })
  @Fails('monitor.not_found', 'run.invalid_state')
  tick(@Param('monitor_id', MONITOR_ID) monitorId: string, @Caller() caller: AdmittedCall): Promise<MonitorView> {
    return this.calls.transition(monitorId, 'tick', caller);
  }

  @Delete(':monitor_id')
  @Access('client')
  @ApiOperation({
    summary:
      'Delete: no tick starts after this; a tick in progress finishes unannounced. Its versions and changes stay readable until retention.',
  })
  @Returns(200, MonitorDeleted, { description: 'Deleted.' })
  @Fails('monitor.not_found')
  delete(@Param('monitor_id', MONITOR_ID) monitorId: string, @Caller() caller: AdmittedCall): Promise<MonitorDeleted> {
    return this.calls.delete(monitorId, caller);
  }

  @Get(':monitor_id/ticks')
  @Access('client')
  @ApiOperation({
    summary: 'The last 100 ticks, newest first: each a run (GET /v1/jobs?batch_id={tick_id} lists its pages with their change).',
  })
  @Returns(200, MonitorTickList, { description: 'The ticks.' })
  @Fails('monitor.not_found')
  ticks(@Param('monitor_id', MONITOR_ID) monitorId: string, @Caller() caller: AdmittedCall): Promise<MonitorTickList> {
    return this.calls.ticks(monitorId, caller);
  }

  @Get(':monitor_id/changes')
  @Access('client')
  @ApiOperation({
    summary: 'The pages that were new, changed or removed, newest first; each page’s diff is GET /v1/jobs/{job_id}/data (`change`).',
  })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } })
  @Returns(200, MonitorChangesPage, { description: 'The changes.' })
  @Fails('monitor.not_found', 'request.invalid')
  changes(
    @Param('monitor_id', MONITOR_ID) monitorId: string,
    @Query('limit', new DefaultValuePipe(100), ParseIntPipe) limit: number,
    @Caller() caller: AdmittedCall,
  ): Promise<MonitorChangesPage> {
    return this.calls.changes(monitorId, Math.max(1, Math.min(1000, limit)), caller);
  }
}
