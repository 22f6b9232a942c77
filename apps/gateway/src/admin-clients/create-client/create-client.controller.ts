import type { Feature, PlanId } from '@lib/plans';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiConflictResponse, ApiCreatedResponse, ApiForbiddenResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access } from '../../admission/route-access';
import { ClientDirectory } from '../../clients/client-directory';
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
  @ApiCreatedResponse({ type: CreatedClientDto })
  @ApiConflictResponse({ description: 'client_id already exists (error_code client_exists).' })
  @ApiForbiddenResponse({ description: 'Caller is not the administrator.' })
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
