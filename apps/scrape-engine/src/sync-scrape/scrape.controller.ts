import { ExecuteScrapeCommand, ReplyOf, ScrapeRequest, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { InvalidScrapeRequestError } from '../scrape-engine.errors';
import { SimpleScrapeExecutor } from './simple-scrape.executor';

/** Message adapter: validate the request at this edge, run it, pack the (possibly large) result. */
@Controller()
export class ScrapeController {
  constructor(
    private readonly executor: SimpleScrapeExecutor,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  @MessagePattern(SUBJECTS.scrape.execute)
  async execute(@Payload() command: ExecuteScrapeCommand): Promise<ReplyOf<typeof SUBJECTS.scrape.execute>> {
    const request = plainToInstance(ScrapeRequest, command.request);
    const errors = await validate(request, { whitelist: true, forbidNonWhitelisted: true });
    if (errors.length > 0) {
      throw new InvalidScrapeRequestError(`invalid scrape request: ${errors.map((e) => Object.values(e.constraints ?? {}).join(', ') || e.property).join('; ')}`);
    }
    if (request.browser) throw new InvalidScrapeRequestError('browser=true is not served by the simple engine');
    const { facts, result } = await this.executor.execute(request);
    return { facts, result: await this.bus.pack(result) };
  }
}
