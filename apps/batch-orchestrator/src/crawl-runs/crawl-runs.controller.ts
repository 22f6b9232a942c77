import {
  AppendCrawlPagesCommand,
  CrawlPageOutcomesQuery,
  CrawlRunFigures,
  CrawlRunReference,
  CrawlRunTransitionCommand,
  OpenCrawlRunCommand,
  SUBJECTS,
} from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CrawlRuns } from './crawl-runs';

@Controller()
export class CrawlRunsController {
  constructor(private readonly crawls: CrawlRuns) {}

  @MessagePattern(SUBJECTS.crawlRuns.open)
  open(@Payload() command: OpenCrawlRunCommand): Promise<CrawlRunFigures> {
    return this.crawls.open(command);
  }

  @MessagePattern(SUBJECTS.crawlRuns.append)
  append(@Payload() command: AppendCrawlPagesCommand) {
    return this.crawls.append(command);
  }

  @MessagePattern(SUBJECTS.crawlRuns.outcomes)
  outcomes(@Payload() query: CrawlPageOutcomesQuery) {
    return this.crawls.outcomes(query);
  }

  @MessagePattern(SUBJECTS.crawlRuns.seal)
  seal(@Payload() reference: CrawlRunReference): Promise<CrawlRunFigures> {
    return this.crawls.seal(reference);
  }

  @MessagePattern(SUBJECTS.crawlRuns.transition)
  transition(@Payload() command: CrawlRunTransitionCommand): Promise<CrawlRunFigures> {
    return this.crawls.transition(command);
  }

  @MessagePattern(SUBJECTS.crawlRuns.get)
  get(@Payload() reference: CrawlRunReference): Promise<CrawlRunFigures> {
    return this.crawls.get(reference);
  }
}
