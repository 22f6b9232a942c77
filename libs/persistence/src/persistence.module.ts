import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DatabaseConnection, openDatabase } from './database-connection';
import { applyMigrations } from './migration-runner';

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
      useFactory: async (config: PlatformConfig) => {
        const db = await openDatabase({
          databaseUrl: config.databaseUrl,
          dataDir: config.dataDir,
          memoryReclaimIdleMs: config.memoryReclaimIdleMs,
        });
        await applyMigrations(db.sql);
        return db;
      },
    },
    DatabaseReleaser,
  ],
  exports: [DATABASE],
})
export class PersistenceModule {}
