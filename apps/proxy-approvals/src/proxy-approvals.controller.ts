import {
  CountryReference,
  CountryRequestView,
  DecideCountryRequestCommand,
  ListCountryRequestsQuery,
  ProxyClientReference,
  ProxyStatusReply,
  RequestCountryCommand,
  RequestCountryReply,
  SUBJECTS,
} from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CountryCatalog } from './country-catalog/country-catalog';
import { CountryRequests } from './country-requests/country-requests';

/** Message adapter of proxy-approvals. */
@Controller()
export class ProxyApprovalsController {
  constructor(
    private readonly catalog: CountryCatalog,
    private readonly requests: CountryRequests,
  ) {}

  @MessagePattern(SUBJECTS.proxies.countries)
  countries(): { countries: Array<{ code: string; name: string }> } {
    return { countries: this.catalog.all() };
  }

  @MessagePattern(SUBJECTS.proxies.request)
  request(@Payload() command: RequestCountryCommand): Promise<RequestCountryReply> {
    return this.requests.request(command);
  }

  @MessagePattern(SUBJECTS.proxies.status)
  status(@Payload() query: ProxyClientReference): Promise<ProxyStatusReply> {
    return this.requests.status(query.client_id);
  }

  @MessagePattern(SUBJECTS.proxies.check)
  async check(@Payload() query: CountryReference): Promise<{ approved: boolean }> {
    return { approved: await this.requests.isApproved(query.client_id, query.country_code) };
  }

  @MessagePattern(SUBJECTS.proxies.list)
  list(@Payload() query: ListCountryRequestsQuery): Promise<{ items: CountryRequestView[]; total: number }> {
    return this.requests.list(query.status);
  }

  @MessagePattern(SUBJECTS.proxies.decide)
  decide(@Payload() command: DecideCountryRequestCommand): Promise<CountryRequestView> {
    return this.requests.decide(command);
  }
}
