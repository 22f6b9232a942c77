import type { Feature, PlanId } from '@lib/plans';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access } from '../../admission/route-access';
import { ClientDirectory } from '../../clients/client-directory';
import { Fails, Returns } from '../../openapi/operation-contract';
import { CreateClientDto, CreatedClientDto } from './create-client.dto';

@ApiTags('admin')
@ApiBearerAuth()
@Controller('v1/admin/clients')
export class CreateClientController {
  constructor(private readonly clients: ClientDirectory) {}

  @Post()
  @HttpCode(201)
  @Access('admin')
  @ApiOperation({ summary: 'Create a client with a plan and feature flags; returns its token once.' })
  @Returns(201, CreatedClientDto, { description: 'The client and its token (shown only here).' })
  @Fails('gateway.client_exists')
  async create(@Body() body: CreateClientDto): Promise<CreatedClientDto> {
    const { client, token } = await this.clients.create({
      clientId: body.client_id,
      plan: body.plan as PlanId,
      features: body.features as Feature[] | undefined,
      rateLimitPerMinute: body.rate_limit_per_minute,
      monthlyCredits: body.monthly_credits,
    });
    return { client_id: client.id, plan: client.plan, token };
  }
}
