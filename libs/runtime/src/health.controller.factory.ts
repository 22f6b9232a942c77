import { HealthQuery, HealthReport, MessageContext, SUBJECTS } from '@lib/contracts';
import { Controller, Type } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ContextHealthReporter } from './context-health';

/**
 * The health handler every message context exposes on `<context>.health.query.v1`. One factory
 * instead of seven copies; the gateway's /v1/health asks each of them.
 */
export function createHealthController(context: MessageContext): Type<unknown> {
  @Controller()
  class ContextHealthController {
    constructor(private readonly reporter: ContextHealthReporter) {}

    @MessagePattern(SUBJECTS.health[context])
    report(@Payload() _query: HealthQuery): Promise<HealthReport> {
      return this.reporter.report(context);
    }
  }
  Object.defineProperty(ContextHealthController, 'name', {
    value: `${context.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase())}HealthController`,
  });
  return ContextHealthController;
}
