import { SUBJECTS } from '@lib/contracts';
import { DependencyUnavailableError } from '@lib/errors';
import { natsServerAvailable, type PrivateServer, startPrivateNats } from '../../../test/support/private-servers';
import { MessageBus } from './message-bus';
import { createTransportClient } from './transport.factory';

/** Polls `probe` until it holds or `ms` pass. */
async function until(probe: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/**
 * A NATS outage: a request made while the broker is away fails at once as a dependency outage
 * (503, Retry-After), instead of waiting its whole timeout in the client's reconnect buffer and
 * ending as a 504 — or worse, being delivered after the outage to do work nobody waits for.
 */
(natsServerAvailable() ? describe : describe.skip)('MessageBus over NATS, through an outage', () => {
  let nats: PrivateServer;
  let bus: MessageBus;

  beforeAll(async () => {
    nats = await startPrivateNats('bus-outage');
    bus = new MessageBus(createTransportClient('outage-test', { natsUrl: nats.url }), 10_000);
    await bus.connect();
  });
  afterAll(async () => {
    await bus?.close();
    await nats?.dispose();
  });

  /** The error a health query gets; nobody answers the subject here, so a sent one is "no responders". */
  const attempt = () =>
    bus.request(SUBJECTS.health['scrape-engine'], {} as never, { timeoutMs: 10_000 }).then(
      () => null,
      (error: unknown) => error as Error,
    );

  it('fails requests within a second while the broker is down, and sends them again once it is back', async () => {
    const sent = await attempt();
    expect(sent).toBeInstanceOf(DependencyUnavailableError);
    expect(sent!.message).toMatch(/no service is listening|no subscribers listening/);

    await nats.kill();
    // The client notices the closed socket; from then on nothing waits.
    expect(await until(async () => /unreachable/.test((await attempt())?.message ?? ''), 5000)).toBe(true);
    const started = performance.now();
    const refused = await attempt();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(refused).toBeInstanceOf(DependencyUnavailableError);
    expect((refused as DependencyUnavailableError).details).toMatchObject({ retry_after_seconds: 2 });

    await nats.start();
    expect(await until(async () => /no service is listening|no subscribers listening/.test((await attempt())?.message ?? ''), 15_000)).toBe(
      true,
    );
  }, 60_000);
});
