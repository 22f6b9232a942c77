import { createHealthController } from '@lib/runtime';
import { Module } from '@nestjs/common';

/** The result-store bounded context. Today it answers health queries; its use cases arrive with later issues. */
@Module({
  controllers: [createHealthController('result-store')],
})
export class ResultStoreModule {}
