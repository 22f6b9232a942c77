import { CREDIT_COST, FEATURES, PLAN_CATALOG, PLAN_IDS } from '@lib/plans';
import { Controller, Get } from '@nestjs/common';
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
    description:
      'Browser pages of one client rendering at once on one scrape-engine worker; a sync browser scrape past it is answered 429 with Retry-After.',
  })
  browser_concurrency: number;
  @ApiProperty({ enum: FEATURES, isArray: true })
  features: string[];
  @ApiProperty({ description: 'False for the shared demo plan, which is not sold.' })
  public: boolean;
}

export class PlanListDto {
  @ApiProperty({ type: [PlanDto] })
  plans: PlanDto[];
  @ApiProperty({ type: CreditSystem })
  credit_system: CreditSystem;
}

@ApiTags('plans')
@Controller('v1/plans')
export class PlansController {
  @Get()
  @Access('public')
  @ApiOperation({ summary: 'Every plan with price, monthly credits, browser requests, rate limit and features. No authentication.' })
  @Returns(200, PlanListDto, { description: 'The plans and the credit cost of each request kind.' })
  list(): PlanListDto {
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
          features: [...p.features],
          public: p.public,
        };
      }),
      credit_system: { ...CREDIT_COST },
    };
  }
}
