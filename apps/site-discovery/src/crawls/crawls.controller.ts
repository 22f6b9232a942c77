import { CrawlReference, CrawlTransitionCommand, CrawlView, CreateCrawlCommand, SUBJECTS } from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CrawlLauncher } from './crawl-launcher';
import { CrawlLifecycle } from './crawl-lifecycle';
import { CrawlViews } from './crawl-views';

@Controller()
export class CrawlsController {
  constructor(
    private readonly launcher: CrawlLauncher,
    private readonly views: CrawlViews,
    private readonly lifecycle: CrawlLifecycle,
  ) {}

  @MessagePattern(SUBJECTS.discovery.crawlCreate)
  create(@Payload() command: CreateCrawlCommand): Promise<CrawlView> {
    return this.launcher.create(command);
  }

  @MessagePattern(SUBJECTS.discovery.crawlGet)
  get(@Payload() reference: CrawlReference): Promise<CrawlView> {
    return this.views.get(reference);
  }

  @MessagePattern(SUBJECTS.discovery.crawlTransition)
  transition(@Payload() command: CrawlTransitionCommand): Promise<CrawlView> {
    return this.lifecycle.transition(command);
  }
}
