import { loadPlatformConfig } from '@lib/config';
import type { Clock } from '@lib/runtime';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type RunningPlatform, startPlatform } from '../../../apps/platform/src/platform';

export interface InProcessPlatform {
  platform: RunningPlatform;
  url: string;
  adminToken: string;
  demoToken: string;
  stop(): Promise<void>;
}

/** The whole platform in this process (embedded, or over NATS/Postgres when env says so), on a free port. */
export async function startInProcessPlatform(
  env: Record<string, string> = {},
  options: { clock?: Clock } = {},
): Promise<InProcessPlatform> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-e2e-'));
  const config = loadPlatformConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env });
  const platform = await startPlatform(config, options);
  const tokenOf = (id: string) => {
    const t = platform.bootstrapTokens.find((b) => b.clientId === id)?.token;
    if (!t) throw new Error(`no ${id} token at start`);
    return t;
  };
  return {
    platform,
    url: platform.url,
    adminToken: tokenOf('admin'),
    demoToken: tokenOf('demo'),
    async stop() {
      await platform.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
