import { PLATFORM_CONFIG, type PlatformConfig } from '@lib/config';
import { FEATURES, PLAN_IDS, renderingShare } from '@lib/plans';
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { Returns } from '../openapi/operation-contract';

export class AccountView {
  @ApiProperty({ example: 'acme' })
  client_id: string;
  @ApiProperty({ enum: PLAN_IDS })
  plan: string;
  @ApiProperty({ description: 'True for the administrator client (the /v1/admin routes and platform-wide metrics).' })
  is_admin: boolean;
  @ApiProperty({ enum: FEATURES, isArray: true, description: 'What this token may use; a request for anything else is 403.' })
  features: string[];
  @ApiProperty({ description: 'Requests per minute (X-RateLimit-Limit).' })
  rate_limit_per_minute: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Credits per calendar month (X-Quota-Limit); null: unlimited.' })
  monthly_credits: number | null;
  @ApiProperty({ description: 'Batch and collection jobs in flight at once.' })
  batch_concurrency: number;
  @ApiProperty({
    type: 'integer',
    description:
      'Browser pages in flight at once per scrape-engine worker (rendering or waiting their turn); past it a sync browser scrape is answered 429.',
  })
  browser_concurrency: number;
  @ApiProperty({
    type: 'integer',
    description:
      'Of browser_concurrency, the pages rendering at once on one worker of this deployment (see GET /v1/plans: browser_capacity).',
  })
  browser_rendering_per_worker: number;
}

/** GET /v1/account: who the token is (not in the spec). What a console or a script checks first. */
@ApiTags('account')
@ApiBearerAuth()
@Controller('v1/account')
export class AccountController {
  constructor(@Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig) {}

  @Get()
  @Access('client')
  @ApiOperation({
    summary:
      'The client the token belongs to (not in the spec): id, plan, whether it is the administrator, its features and limits. Costs no credit.',
  })
  @Returns(200, AccountView, { description: 'The calling client.' })
  view(@Caller() caller: AdmittedCall): AccountView {
    const client = caller.client;
    return {
      client_id: client.id,
      plan: client.plan,
      is_admin: client.isAdmin,
      features: [...client.features],
      rate_limit_per_minute: client.limits.rateLimitPerMinute,
      monthly_credits: client.limits.monthlyCredits,
      batch_concurrency: client.limits.batchConcurrency,
      browser_concurrency: client.limits.browserConcurrency,
      browser_rendering_per_worker: renderingShare(client.limits.browserConcurrency, this.config.browserConcurrency),
    };
  }
}
