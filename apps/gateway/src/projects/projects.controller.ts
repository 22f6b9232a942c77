import { PROJECT_PAGE_LIMITS, ProjectList, ProjectsSummary, ProjectTransitionReply, ProjectView, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { PROJECT_ID } from '../resource-ids/resource-id.pipe';
import { Fails, Returns, ValidationStatus } from '../openapi/operation-contract';
import { PROJECT_EXAMPLE, PROJECTS_EXAMPLE, PROJECTS_SUMMARY_EXAMPLE } from '../openapi/response-examples';
import { ProjectBody, ProjectListQuery } from './project.dto';

/** Projects (spec 4.8; decision 0014 has the model and the state table). */
@ApiTags('projects')
@ApiBearerAuth()
@Controller('v1/projects')
export class ProjectsController {
  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  @Post()
  @HttpCode(201)
  @Access('client')
  @ApiOperation({
    summary:
      'Create a project: a named container for batches, active, with optional request defaults, callback_url, a monthly credit cap and a cap on jobs in flight.',
  })
  @Returns(201, ProjectView, { description: 'The project, active.', example: PROJECT_EXAMPLE })
  @Fails('project.invalid', 'target.blocked', 'target.invalid_url')
  create(@Body() body: ProjectBody, @Caller() caller: AdmittedCall): Promise<ProjectView> {
    return this.bus.request(SUBJECTS.projects.create, {
      client_id: caller.client.id,
      name: body.name,
      defaults: body.defaults ?? {},
      callback_url: body.callback_url ?? null,
      monthly_credit_cap: body.monthly_credit_cap ?? null,
      max_concurrent_jobs: body.max_concurrent_jobs ?? null,
    });
  }

  @Get()
  @Access('client')
  @ApiOperation({ summary: "The client's projects, oldest first, a page at a time; status filters." })
  @Returns(200, ProjectList, { description: 'A page of projects; follow cursor_next while has_more.', example: PROJECTS_EXAMPLE })
  @ValidationStatus(400)
  @Fails('project.invalid_cursor')
  list(@Query() query: ProjectListQuery, @Caller() caller: AdmittedCall): Promise<ProjectList> {
    return this.bus.request(SUBJECTS.projects.list, {
      client_id: caller.client.id,
      status: query.status,
      cursor: query.cursor,
      limit: query.limit ?? PROJECT_PAGE_LIMITS.default,
    });
  }

  @Get('summary')
  @Access('client')
  @ApiOperation({
    summary:
      'Every project with its jobs by status (pending, running, completed, failed, timeout, cancelled), credits charged this month and whether it has capacity now.',
  })
  @Returns(200, ProjectsSummary, { description: 'The summary.', example: PROJECTS_SUMMARY_EXAMPLE })
  summary(@Caller() caller: AdmittedCall): Promise<ProjectsSummary> {
    return this.bus.request(SUBJECTS.projects.summary, { client_id: caller.client.id });
  }

  @Get(':project_id')
  @Access('client')
  @ApiOperation({ summary: 'One project.' })
  @Returns(200, ProjectView, { description: 'The project.', example: PROJECT_EXAMPLE })
  @Fails('project.not_found')
  get(@Param('project_id', PROJECT_ID) projectId: string, @Caller() caller: AdmittedCall): Promise<ProjectView> {
    return this.bus.request(SUBJECTS.projects.get, { client_id: caller.client.id, project_id: projectId });
  }

  @Put(':project_id/pause')
  @Access('client')
  @ApiOperation({
    summary:
      'Pause: no job of the project starts until resume (jobs in flight finish and are charged; dispatches not yet started are taken back). Paused: 200, no change. Closed: 409 invalid_state.',
  })
  @Returns(200, ProjectTransitionReply, { description: 'The project, paused.', example: { ...PROJECT_EXAMPLE, status: 'paused' } })
  @Fails('project.not_found', 'run.invalid_state')
  pause(@Param('project_id', PROJECT_ID) projectId: string, @Caller() caller: AdmittedCall): Promise<ProjectTransitionReply> {
    return this.transition(caller, projectId, 'pause');
  }

  @Put(':project_id/resume')
  @Access('client')
  @ApiOperation({ summary: 'Resume: its batches dispatch again. Active: 200, no change. Closed: 409 invalid_state.' })
  @Returns(200, ProjectTransitionReply, { description: 'The project, active.', example: PROJECT_EXAMPLE })
  @Fails('project.not_found', 'run.invalid_state')
  resume(@Param('project_id', PROJECT_ID) projectId: string, @Caller() caller: AdmittedCall): Promise<ProjectTransitionReply> {
    return this.transition(caller, projectId, 'resume');
  }

  @Put(':project_id/close')
  @Access('client')
  @ApiOperation({
    summary:
      'Close (terminal): its open, running and paused batches are cancelled (listed in cancelled_batches); new batches and jobs are refused with 409. Closed: 200, no change.',
  })
  @Returns(200, ProjectTransitionReply, {
    description: 'The project, closed.',
    example: { ...PROJECT_EXAMPLE, status: 'closed', cancelled_batches: ['9e1f3a5c-7b9d-4e1f-a3b5-c7d9e1f3a5b7'] },
  })
  @Fails('project.not_found', 'run.invalid_state')
  close(@Param('project_id', PROJECT_ID) projectId: string, @Caller() caller: AdmittedCall): Promise<ProjectTransitionReply> {
    return this.transition(caller, projectId, 'close');
  }

  private transition(caller: AdmittedCall, projectId: string, action: 'pause' | 'resume' | 'close'): Promise<ProjectTransitionReply> {
    return this.bus.request(
      SUBJECTS.projects.transition,
      { client_id: caller.client.id, project_id: projectId, action },
      { timeoutMs: 60_000 },
    );
  }
}
