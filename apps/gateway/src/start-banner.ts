import type { PlatformConfig } from '@lib/config';
import { runtimeModeOf } from '@lib/config';
import type { BootstrapToken } from './clients/client-bootstrap';

/** The human-readable lines printed at start: where to send requests and with which tokens. */
export function startBanner(url: string, config: PlatformConfig, tokens: BootstrapToken[]): string {
  const lines = [
    `Scraping API listening on ${url} (runtime: ${runtimeModeOf(config)}, database: ${config.databaseUrl ? 'postgres' : `embedded at ${config.dataDir}`})`,
  ];
  for (const t of tokens) {
    const label = t.clientId === 'admin' ? 'admin token' : 'demo token ';
    if (t.source === 'generated') lines.push(`  ${label}: ${t.token}   (generated now and shown only this once; only its hash is stored)`);
    else if (t.source === 'environment')
      lines.push(`  ${label}: ${t.token}   (from ${t.clientId === 'admin' ? 'ADMIN_TOKEN' : 'DEMO_TOKEN'})`);
    else
      lines.push(
        `  ${label}: generated at the first start and not stored in clear; set ${t.clientId === 'admin' ? 'ADMIN_TOKEN' : 'DEMO_TOKEN'} to replace it`,
      );
  }
  lines.push(`  try: curl -H "Authorization: Bearer <demo token>" ${url}/v1/health`);
  lines.push(`  console: ${url}/console/   (sign in with a token)`);
  return `${lines.join('\n')}\n`;
}
