import { DownloadRequest, ExecuteDownloadCommand, ExecuteScrapeCommand, ReplyOf, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DownloadExecutor } from '../download/download.executor';
import { InFlightScrapes } from './in-flight-scrapes';
import { ScrapeExecution, validated } from './scrape-execution';
import { measuredScrape } from './scrape-metrics';

/** Message adapter: validate the request at this edge, run it, pack the (possibly large) result. */
@Controller()
export class ScrapeController {
  constructor(
    private readonly scrapes: ScrapeExecution,
    private readonly downloads: DownloadExecutor,
    private readonly inFlight: InFlightScrapes,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  @MessagePattern(SUBJECTS.scrape.execute)
  async execute(@Payload() command: ExecuteScrapeCommand): Promise<ReplyOf<typeof SUBJECTS.scrape.execute>> {
    return this.inFlight.runOnce(command.request_id, command.call_id, async () => {
      // A call that carries its client's plan figure is a sync call: within it, it waits its turn
      // (BROWSER_QUEUE_TIMEOUT_MS at most); past it, it is refused at once (429). Without one (an
      // analysis probe) it queues fairly with the other clients.
      const { facts, result } = await this.scrapes.run(
        command.request,
        {
          clientId: command.client_id,
          slots: command.browser_slots,
          onOverPlan: command.browser_slots === undefined ? 'wait' : 'refuse',
        },
        { revalidate: command.revalidate },
      );
      return { facts, result: await this.bus.pack(result) };
    });
  }

  @MessagePattern(SUBJECTS.scrape.download)
  async download(@Payload() command: ExecuteDownloadCommand): Promise<ReplyOf<typeof SUBJECTS.scrape.download>> {
    return this.inFlight.runOnce(command.request_id, command.call_id, async () => {
      const request = await validated(DownloadRequest, command.request);
      const { facts, result } = await measuredScrape('download', () => this.downloads.execute(request));
      return { facts, result: await this.bus.pack(result) };
    });
  }
}
