import { createHealthController } from '@lib/runtime';
import { Module } from '@nestjs/common';
import { CountryCatalog } from './country-catalog/country-catalog';
import { CountryRequests } from './country-requests/country-requests';
import { ProxyApprovalsController } from './proxy-approvals.controller';
import { CountryRequestStore } from './persistence/country-requests.store';

/** proxy-approvals: the country list, clients' country proxy requests and their review. */
@Module({
  controllers: [createHealthController('proxy-approvals'), ProxyApprovalsController],
  providers: [CountryRequestStore, CountryCatalog, CountryRequests],
})
export class ProxyApprovalsModule {}
