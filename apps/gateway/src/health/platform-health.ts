import { PLATFORM_CONFIG, PlatformConfig, runtimeModeOf } from '@lib/config';
import { MESSAGE_CONTEXTS, SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { DATABASE, DatabaseConnection, pingDatabase } from '@lib/persistence';
import { timedCheck } from '@lib/runtime';
import { Inject, Injectable } from '@nestjs/common';
import type { HealthDto, ServiceHealthDto } from './health.dto';

const API_VERSION = '0.1.0';
const CONTEXT_TIMEOUT_MS = 2000;
const startedAt = Date.now();

/** The platform's health as the gateway sees it: its own dependencies and every context. */
@Injectable()
export class PlatformHealth {
  constructor(
    @Inject(DATABASE) private readonly db: DatabaseConnection,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async report(): Promise<HealthDto> {
    const [database, transport, ...contexts] = await Promise.all([
      timedCheck(() => pingDatabase(this.db)),
      timedCheck(() => this.bus.ping()),
      ...MESSAGE_CONTEXTS.map(async (context): Promise<[string, ServiceHealthDto]> => {
        let checks: ServiceHealthDto['checks'];
        const check = await timedCheck(async () => {
          const reply = await this.bus.request(SUBJECTS.health[context], {}, { timeoutMs: CONTEXT_TIMEOUT_MS });
          checks = reply.checks;
          const down = Object.entries(reply.checks).filter(([, c]) => c.status !== 'ok');
          if (down.length > 0) throw new Error(`${down.map(([name]) => name).join(', ')} down`);
        });
        return [context, { ...check, checks }];
      }),
    ]);
    const services = Object.fromEntries(contexts);
    const allOk = database.status === 'ok' && transport.status === 'ok' && contexts.every(([, s]) => s.status === 'ok');
    return {
      status: allOk ? 'ok' : 'degraded',
      version: API_VERSION,
      runtime: runtimeModeOf(this.config),
      uptime_s: Math.round((Date.now() - startedAt) / 1000),
      checks: { database, transport: { ...transport, kind: this.bus.kind } },
      services,
    };
  }
}
