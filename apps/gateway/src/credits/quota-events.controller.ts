import { QuotaChangedEvent, SUBJECTS } from '@lib/contracts';
import { createMessageValidationPipe } from '@lib/messaging';
import { Controller, UsePipes } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { ApiExcludeController } from '@nestjs/swagger';
import { QuotaCache } from './quota-cache';

/** Every gateway replica listens (fan-out subscription) and updates its quota cache. */
@ApiExcludeController()
@Controller()
export class QuotaEventsController {
  constructor(private readonly cache: QuotaCache) {}

  @EventPattern(SUBJECTS.billing.quotaChanged)
  @UsePipes(createMessageValidationPipe())
  changed(@Payload() event: QuotaChangedEvent): void {
    this.cache.apply(event);
  }
}
