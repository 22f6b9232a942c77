import { DownloadRequest, ExecuteDownloadCommand, ExecuteScrapeCommand, ReplyOf, ScrapeRequest, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { InvalidScrapeRequestError } from '../scrape-engine.errors';
import { DownloadExecutor } from '../download/download.executor';
import { SimpleScrapeExecutor } from './simple-scrape.executor';
import { BrowserScrapeExecutor } from '../browser/browser-scrape.executor';

/** Message adapter: validate the request at this edge, run it, pack the (possibly large) result. */
@Controller()
export class ScrapeController {
  constructor(
    private readonly executor: SimpleScrapeExecutor,
    private readonly downloads: DownloadExecutor,
    private readonly browserExecutor: BrowserScrapeExecutor,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  @MessagePattern(SUBJECTS.scrape.execute)
  async execute(@Payload() command: ExecuteScrapeCommand): Promise<ReplyOf<typeof SUBJECTS.scrape.execute>> {
    const request = await validated(ScrapeRequest, command.request);
    const { facts, result } = request.browser ? await this.browserExecutor.execute(request) : await this.executor.execute(request);
    return { facts, result: await this.bus.pack(result) };
  }

  @MessagePattern(SUBJECTS.scrape.download)
  async download(@Payload() command: ExecuteDownloadCommand): Promise<ReplyOf<typeof SUBJECTS.scrape.download>> {
    const { facts, result } = await this.downloads.execute(await validated(DownloadRequest, command.request));
    return { facts, result: await this.bus.pack(result) };
  }
}

/** Requests arrive validated by their sender; this edge checks again, since any context may send them. */
async function validated<T extends object>(type: new () => T, plain: Record<string, unknown>): Promise<T> {
  const value = plainToInstance(type, plain);
  const errors = await validate(value, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) {
    throw new InvalidScrapeRequestError(`invalid request: ${errors.map((e) => Object.values(e.constraints ?? {}).join(', ') || e.property).join('; ')}`);
  }
  return value;
}
