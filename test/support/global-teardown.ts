import type { PrivateServer } from './private-servers';

/** Stops the run's own NATS server (global-setup.ts). */
export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __privateNats?: PrivateServer }).__privateNats?.dispose();
}
