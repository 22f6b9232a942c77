import {
  CreateProjectCommand,
  ListProjectsQuery,
  ProjectList,
  ProjectReference,
  ProjectsSummary,
  ProjectsSummaryQuery,
  ProjectTransitionCommand,
  ProjectTransitionReply,
  ProjectView,
  SUBJECTS,
} from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ProjectLifecycle } from './project-lifecycle';

/** Projects (spec 4.8). */
@Controller()
export class ProjectsController {
  constructor(private readonly projects: ProjectLifecycle) {}

  @MessagePattern(SUBJECTS.projects.create)
  create(@Payload() command: CreateProjectCommand): Promise<ProjectView> {
    return this.projects.create(command);
  }

  @MessagePattern(SUBJECTS.projects.transition)
  transition(@Payload() command: ProjectTransitionCommand): Promise<ProjectTransitionReply> {
    return this.projects.transition(command);
  }

  @MessagePattern(SUBJECTS.projects.list)
  list(@Payload() query: ListProjectsQuery): Promise<ProjectList> {
    return this.projects.list(query);
  }

  @MessagePattern(SUBJECTS.projects.get)
  get(@Payload() query: ProjectReference): Promise<ProjectView> {
    return this.projects.get(query);
  }

  @MessagePattern(SUBJECTS.projects.summary)
  summary(@Payload() query: ProjectsSummaryQuery): Promise<ProjectsSummary> {
    return this.projects.summary(query.client_id);
  }
}
