import { createHealthController } from '@lib/runtime';
import { Module } from '@nestjs/common';
import { CountryCatalog } from './country-catalog/country-catalog';
import { CountryRequests } from './country-requests/country-requests';
import { ProxyApprovalsController } from './proxy-approvals.controller';

/** proxy-approvals: the country list, clients' country proxy requests and their review. */
@Module({
  controllers: [createHealthController('proxy-approvals'), ProxyApprovalsController],
  providers: [CountryCatalog, CountryRequests],
})
export class ProxyApprovalsModule {}
