import {
  CrawlReference,
  CrawlTransitionCommand,
  CrawlView,
  CreateCrawlCommand,
  LlmsTxtQuery,
  type LlmsTxtView,
  type Packed,
  SUBJECTS,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CrawlLauncher } from './crawl-launcher';
import { CrawlLifecycle } from './crawl-lifecycle';
import { CrawlLlmsTxt } from '../llms-txt/crawl-llms-txt';
import { CrawlViews } from './crawl-views';

@Controller()
export class CrawlsController {
  constructor(
    private readonly launcher: CrawlLauncher,
    private readonly views: CrawlViews,
    private readonly lifecycle: CrawlLifecycle,
    private readonly llmsTxt: CrawlLlmsTxt,
    @Inject(MessageBus) private readonly bus: MessageBus,
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

  @MessagePattern(SUBJECTS.discovery.llmsTxt)
  async makeLlmsTxt(@Payload() query: LlmsTxtQuery): Promise<Packed<LlmsTxtView>> {
    return this.bus.pack(await this.llmsTxt.make(query));
  }
}
