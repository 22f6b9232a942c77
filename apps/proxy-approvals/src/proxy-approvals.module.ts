import { createHealthController } from '@lib/runtime';
import { Module } from '@nestjs/common';

/** The proxy-approvals bounded context. Today it answers health queries; its use cases arrive with later issues. */
@Module({
  controllers: [createHealthController('proxy-approvals')],
})
export class ProxyApprovalsModule {}
