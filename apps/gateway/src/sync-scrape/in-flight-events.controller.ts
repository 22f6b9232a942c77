import { ScrapesInFlightEvent, SUBJECTS } from '@lib/contracts';
import { createMessageValidationPipe } from '@lib/messaging';
import { Controller, UsePipes } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { ApiExcludeController } from '@nestjs/swagger';
import { EngineWatch } from './engine-watch';

/** Every gateway replica hears every engine's in-flight beat (fan-out) and keeps what it waits on. */
@ApiExcludeController()
@Controller()
export class InFlightEventsController {
  constructor(private readonly watch: EngineWatch) {}

  @EventPattern(SUBJECTS.scrape.inFlight)
  @UsePipes(createMessageValidationPipe())
  named(@Payload() event: ScrapesInFlightEvent): void {
    this.watch.apply(event);
  }
}
