import { CreateMonitorCommand, ListMonitorsQuery, MonitorReference, MonitorTransitionCommand, ReplyOf, SUBJECTS } from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Monitors } from './monitors';

/** Message adapter of the monitors (issue 63). */
@Controller()
export class MonitorsController {
  constructor(private readonly monitors: Monitors) {}

  @MessagePattern(SUBJECTS.monitors.create)
  create(@Payload() command: CreateMonitorCommand): Promise<ReplyOf<typeof SUBJECTS.monitors.create>> {
    return this.monitors.create(command);
  }

  @MessagePattern(SUBJECTS.monitors.get)
  get(@Payload() reference: MonitorReference): Promise<ReplyOf<typeof SUBJECTS.monitors.get>> {
    return this.monitors.get(reference);
  }

  @MessagePattern(SUBJECTS.monitors.list)
  list(@Payload() query: ListMonitorsQuery): Promise<ReplyOf<typeof SUBJECTS.monitors.list>> {
    return this.monitors.list(query);
  }

  @MessagePattern(SUBJECTS.monitors.transition)
  transition(@Payload() command: MonitorTransitionCommand): Promise<ReplyOf<typeof SUBJECTS.monitors.transition>> {
    return this.monitors.transition(command);
  }

  @MessagePattern(SUBJECTS.monitors.ticks)
  ticks(@Payload() reference: MonitorReference): Promise<ReplyOf<typeof SUBJECTS.monitors.ticks>> {
    return this.monitors.ticks(reference);
  }
}
