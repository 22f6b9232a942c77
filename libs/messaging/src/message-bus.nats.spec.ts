import { REPEATABLE_REQUESTS, SUBJECTS } from '@lib/contracts';
import { DependencyUnavailableError, TransportTimeoutError } from '@lib/errors';
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

/**
 * A request sent to a process that dies before answering is lost with it. One that is safe to
 * repeat (REPEATABLE_REQUESTS) is asked again after one attempt's wait and reaches a live replier;
 * one that is not waits its whole timeout, as before (decision 0034).
 */
(natsServerAvailable() ? describe : describe.skip)('MessageBus over NATS, a replier that died holding a request', () => {
  let nats: PrivateServer;
  let bus: MessageBus;
  let responder: { close(): Promise<void> };
  const heard: string[] = [];

  beforeAll(async () => {
    nats = await startPrivateNats('bus-repeat');
    bus = new MessageBus(createTransportClient('repeat-test', { natsUrl: nats.url }), 10_000);
    await bus.connect();
    const { connect } = await import('@nats-io/transport-node');
    const nc = await connect({ servers: nats.url });
    // Swallows the first request on each subject (its replier "died"), answers the rest as Nest's server would.
    for (const subject of [SUBJECTS.crawlRuns.get, SUBJECTS.scrape.execute]) {
      let first = true;
      nc.subscribe(subject, {
        queue: 'repliers',
        callback: (_error: unknown, message: { data: Uint8Array; respond(data: string): boolean }) => {
          heard.push(subject);
          if (first) {
            first = false;
            return;
          }
          const { id } = JSON.parse(new TextDecoder().decode(message.data)) as { id: string };
          message.respond(JSON.stringify({ id, response: { answered: true }, isDisposed: true }));
        },
      });
    }
    await nc.flush();
    responder = { close: () => nc.close() };
  });
  afterAll(async () => {
    await responder?.close();
    await bus?.close();
    await nats?.dispose();
  });

  it('asks a repeatable request again after one attempt, within the caller timeout', async () => {
    const started = performance.now();
    const reply = await bus.request(SUBJECTS.crawlRuns.get, { run_id: 'r' }, { timeoutMs: 10_000 });
    const tookMs = performance.now() - started;
    expect(reply).toEqual({ answered: true });
    expect(heard.filter((s) => s === SUBJECTS.crawlRuns.get)).toHaveLength(2);
    expect(REPEATABLE_REQUESTS[SUBJECTS.crawlRuns.get]!.attemptMs).toBeLessThan(tookMs);
    expect(tookMs).toBeLessThan(REPEATABLE_REQUESTS[SUBJECTS.crawlRuns.get]!.attemptMs + 1500);
  }, 20_000);

  it('never sends a request that is not safe to repeat twice: it waits its timeout', async () => {
    const refused = await bus.request(SUBJECTS.scrape.execute, {} as never, { timeoutMs: 1500 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TransportTimeoutError);
    expect(heard.filter((s) => s === SUBJECTS.scrape.execute)).toHaveLength(1);
  }, 20_000);
});
