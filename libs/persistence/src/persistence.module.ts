import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DatabaseConnection } from './database-connection';
import { openMigratedDatabase } from './migration-runner';

export const DATABASE = Symbol('DATABASE');

@Injectable()
class DatabaseReleaser implements OnApplicationShutdown {
  constructor(@Inject(DATABASE) private readonly db: DatabaseConnection) {}
  async onApplicationShutdown(): Promise<void> {
    await this.db.release();
  }
}

/**
 * The database of a context. Each context opens it at start and applies pending migrations (a
 * no-op after the first one, and safe in parallel), so any context can start first.
 */
@Global()
@Module({
  providers: [
    {
      provide: DATABASE,
      inject: [PLATFORM_CONFIG],
      useFactory: async (config: PlatformConfig) =>
        (
          await openMigratedDatabase({
            databaseUrl: config.databaseUrl,
            dataDir: config.dataDir,
            memoryReclaimIdleMs: config.memoryReclaimIdleMs,
          })
        ).db,
    },
    DatabaseReleaser,
  ],
  exports: [DATABASE],
})
export class PersistenceModule {}
