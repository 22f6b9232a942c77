import { CrawlTransitionCommand, CrawlView, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { CLOCK, Clock } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import { CrawlStore } from '../persistence/crawl.store';
import { CrawlNotFoundError, InvalidCrawlStateError } from '../site-discovery.errors';
import { viewOf } from './crawl-views';

/**
 * pause | resume | cancel: the run's lifecycle on the job engine (decision 0014's table, 409 with
 * the state where it refuses), mirrored by the crawl so its worker stops appending pages at once.
 */
@Injectable()
export class CrawlLifecycle {
  constructor(
    private readonly store: CrawlStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async transition(command: CrawlTransitionCommand): Promise<CrawlView> {
    const crawl = await this.store.find(command.client_id, command.crawl_id);
    if (!crawl) throw new CrawlNotFoundError(`Crawl ${command.crawl_id} not found.`);
    if (crawl.state === 'planning' || crawl.state === 'planned')
      throw new InvalidCrawlStateError(
        `The crawl is a dry run (${crawl.state}): it cannot ${command.action}. Start a crawl without dry_run to scrape.`,
        {
          state: crawl.state,
        },
      );
    const run = await this.bus.request(SUBJECTS.crawlRuns.transition, { run_id: crawl.id, action: command.action });
    const ended =
      run.status === 'completed'
        ? { at: this.clock.now(), zeroPagesReason: run.success > 0 ? null : run.state === 'cancelled' ? ('cancelled' as const) : null }
        : undefined;
    await this.store.setState(crawl.id, run.state, ended);
    return viewOf((await this.store.byId(crawl.id))!, run);
  }
}
