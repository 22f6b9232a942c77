import 'reflect-metadata';
import { loadPlatformConfig } from '@lib/config';
import { DATABASE, type DatabaseConnection } from '@lib/persistence';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPlatform } from '../../apps/platform/src/platform';
import { benchMonitors, startScriptedSite } from './monitor-bench';
import { createBenchClient } from './bench-client';

/** `npm run bench:monitors`: the monitor rows of `npm run bench` alone, on an embedded platform of their own. */
async function main(): Promise<void> {
  const site = await startScriptedSite();
  const platform = await startPlatform(
    loadPlatformConfig({
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-bench-monitors-')),
      PORT: '0',
      LOG_LEVEL: 'silent',
      TARGET_ALLOWLIST: `127.0.0.1:${site.port}`,
    }),
  );
  const created = await createBenchClient(platform);
  const database = platform.gateway.get<symbol, DatabaseConnection>(DATABASE);
  const result = await benchMonitors(platform.url, created.token, site, async () =>
    Number(
      (await database.sql.query<{ bytes: number }>('select coalesce(sum(length(content)), 0)::int bytes from page_versions'))[0].bytes,
    ),
  );
  console.log(JSON.stringify(result, null, 2));
  await platform.stop();
  await site.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
