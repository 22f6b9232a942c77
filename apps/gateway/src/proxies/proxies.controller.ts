import {
  CountryRequestList,
  CountryRequestView,
  ProxyCountriesReply,
  ProxyStatusReply,
  RequestCountryReply,
  SUBJECTS,
} from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { FeatureNotAvailableError } from '../gateway.errors';
import { Fails, Returns } from '../openapi/operation-contract';
import { CountryRequestsQuery, DecisionBody, RequestCountryBody } from './proxy.dto';

/** Country proxies (spec 4.7, 3.5) and their review (operator contract §3). */
@ApiTags('proxy')
@ApiBearerAuth()
@Controller('v1')
export class ProxiesController {
  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  @Get('proxy/countries')
  @Access('client')
  @ApiOperation({ summary: 'ISO 3166-1 alpha-2 codes (with English names) a client may request a proxy pool for.' })
  @Returns(200, ProxyCountriesReply, { description: 'The countries.' })
  async countries(): Promise<ProxyCountriesReply> {
    const reply = await this.bus.request(SUBJECTS.proxies.countries, {});
    return { countries: reply.countries.map((c) => c.code), details: reply.countries, error: null };
  }

  @Post('proxy/request-country')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({
    summary:
      'Ask for a country proxy pool: pending (an administrator reviews) or already_approved. Needs the country_proxies feature (not in the demo plan).',
  })
  @Returns(200, RequestCountryReply, { description: 'pending or already_approved.' })
  @Fails('auth.feature_missing', 'proxy.unknown_country')
  requestCountry(@Body() body: RequestCountryBody, @Caller() caller: AdmittedCall): Promise<RequestCountryReply> {
    const client = caller.client;
    if (!client.features.includes('country_proxies')) {
      throw new FeatureNotAvailableError(
        `Country proxies are not part of the ${client.plan} plan (feature country_proxies); upgrade to any paid plan to request them.`,
      );
    }
    return this.bus.request(SUBJECTS.proxies.request, { client_id: client.id, country_code: body.country_code, reason: body.reason });
  }

  @Get('proxy/status')
  @Access('client')
  @ApiOperation({
    summary:
      "client_id, approved_countries, pending_countries, denied_countries ([{country_code, note, decided_at}]: refusals with the reviewer's note) and error.",
  })
  @Returns(200, ProxyStatusReply, { description: 'The approvals.' })
  status(@Caller() caller: AdmittedCall): Promise<ProxyStatusReply> {
    return this.bus.request(SUBJECTS.proxies.status, { client_id: caller.client.id });
  }

  @Get('admin/proxy/requests')
  @Access('admin')
  @ApiOperation({ summary: 'Country proxy requests by status (default pending).' })
  @Returns(200, CountryRequestList, { description: 'The requests, oldest first.' })
  list(@Query() query: CountryRequestsQuery): Promise<CountryRequestList> {
    return this.bus.request(SUBJECTS.proxies.list, { status: query.status ?? 'pending' });
  }

  @Post('admin/proxy/requests/:client_id/:country_code')
  @HttpCode(200)
  @Access('admin')
  @ApiOperation({ summary: "Approve or deny a client's request, with an optional note; an approval holds for the client's next scrape." })
  @Returns(200, CountryRequestView, { description: 'The request as decided.' })
  @Fails('proxy.request_not_found', 'proxy.unknown_country')
  decide(
    @Param('client_id') clientId: string,
    @Param('country_code') countryCode: string,
    @Body() body: DecisionBody,
    @Caller() caller: AdmittedCall,
  ): Promise<CountryRequestView> {
    return this.bus.request(SUBJECTS.proxies.decide, {
      client_id: clientId.slice(0, 128),
      country_code: countryCode.trim().toUpperCase().slice(0, 2).padEnd(2, '?'),
      decision: body.decision,
      note: body.note,
      decided_by: caller.client.id,
    });
  }
}
