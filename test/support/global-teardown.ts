import type { PrivateServer } from './private-servers';

/** Stops the run's own NATS servers (global-setup.ts). */
export default async function globalTeardown(): Promise<void> {
  await Promise.all(((globalThis as { __privateNats?: PrivateServer[] }).__privateNats ?? []).map((server) => server.dispose()));
}
