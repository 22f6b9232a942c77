import { PLATFORM_CONFIG, type PlatformConfig } from '@lib/config';
import { CREDIT_COST, FEATURES, PLAN_CATALOG, PLAN_IDS, renderingShare } from '@lib/plans';
import { Controller, Get, Inject } from '@nestjs/common';
import { CreditSystem } from '@lib/contracts';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Access } from '../admission/route-access';
import { Returns } from '../openapi/operation-contract';

export class PlanDto {
  @ApiProperty({ enum: PLAN_IDS })
  id: string;
  @ApiProperty()
  name: string;
  @ApiProperty({ type: Number, nullable: true, description: 'USD per month; null = custom pricing.' })
  price_usd_per_month: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Credits per calendar month (UTC); null = unlimited.' })
  credits_per_month: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Browser requests per month (5 credits each); null = unlimited.' })
  browser_requests_per_month: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Requests per minute; null = custom (set per client, default 1000).' })
  rate_limit_per_minute: number | null;
  @ApiProperty({ description: "Jobs of one client's batch runs in flight at once." })
  batch_concurrency: number;
  @ApiProperty({
    type: 'integer',
    description:
      'Browser pages of one client in flight at once on one scrape-engine worker: rendering, or waiting their turn (at most browser_capacity.queue_wait_seconds). A sync browser scrape past it is answered 429 with Retry-After.',
  })
  browser_concurrency: number;
  @ApiProperty({
    type: 'integer',
    description:
      "Of browser_concurrency, the pages that render at once on one worker of this deployment: min(browser_concurrency, browser_capacity.pages_per_worker − 1). The rest wait their turn, fairly, behind other clients' pages.",
  })
  browser_rendering_per_worker: number;
  @ApiProperty({ enum: FEATURES, isArray: true })
  features: string[];
  @ApiProperty({ description: 'False for the shared demo plan, which is not sold.' })
  public: boolean;
}

/** The deployment's browser capacity, stated beside each plan's figure so that no plan promises more. */
export class BrowserCapacityDto {
  @ApiProperty({ type: 'integer', description: 'Browser pages one scrape-engine worker renders at once (BROWSER_CONCURRENCY).' })
  pages_per_worker: number;
  @ApiProperty({
    type: 'integer',
    description: 'The most pages one client renders at once on a worker, whatever its plan: one slot is always kept for other clients.',
  })
  most_rendering_per_client: number;
  @ApiProperty({
    description:
      "Longest a sync browser scrape within its plan's browser_concurrency waits for its turn (BROWSER_QUEUE_TIMEOUT_MS); then 429 (its own pages held it) or 503 (other clients' pages filled the worker), with Retry-After.",
  })
  queue_wait_seconds: number;
}

export class PlanListDto {
  @ApiProperty({ type: [PlanDto] })
  plans: PlanDto[];
  @ApiProperty({ type: CreditSystem })
  credit_system: CreditSystem;
  @ApiProperty({ type: BrowserCapacityDto })
  browser_capacity: BrowserCapacityDto;
}

@ApiTags('plans')
@Controller('v1/plans')
export class PlansController {
  constructor(@Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig) {}

  @Get()
  @Access('public')
  @ApiOperation({ summary: 'Every plan with price, monthly credits, browser requests, rate limit and features. No authentication.' })
  @Returns(200, PlanListDto, { description: 'The plans and the credit cost of each request kind.' })
  list(): PlanListDto {
    const pagesPerWorker = this.config.browserConcurrency;
    return {
      plans: PLAN_IDS.map((id) => {
        const p = PLAN_CATALOG[id];
        return {
          id: p.id,
          name: p.name,
          price_usd_per_month: p.priceUsdPerMonth,
          credits_per_month: p.monthlyCredits,
          browser_requests_per_month: p.browserRequestsPerMonth,
          rate_limit_per_minute: p.rateLimitPerMinute,
          batch_concurrency: p.batchConcurrency,
          browser_concurrency: p.browserConcurrency,
          browser_rendering_per_worker: renderingShare(p.browserConcurrency, pagesPerWorker),
          features: [...p.features],
          public: p.public,
        };
      }),
      credit_system: { ...CREDIT_COST },
      browser_capacity: {
        pages_per_worker: pagesPerWorker,
        most_rendering_per_client: renderingShare(pagesPerWorker, pagesPerWorker),
        queue_wait_seconds: this.config.browserQueueTimeoutMs / 1000,
      },
    };
  }
}
