import { createHealthController } from '@lib/runtime';
import { Module } from '@nestjs/common';

/** The batch-orchestrator bounded context. Today it answers health queries; its use cases arrive with later issues. */
@Module({
  controllers: [createHealthController('batch-orchestrator')],
})
export class BatchOrchestratorModule {}
