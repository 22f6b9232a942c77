import 'reflect-metadata';
import { ConfigModule, loadPlatformConfig, type PlatformConfig } from '@lib/config';
import { RemoteAppError } from '@lib/errors';
import { currentCorrelationId } from '@lib/logging';
import { InProcessBus, MessageBus, MessagingModule } from '@lib/messaging';
import { Controller, type INestMicroservice, Module, type Type } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { Type as NestedType } from 'class-transformer';
import { IsInt, IsString, ValidateNested } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { natsServerAvailable, type PrivateServer, startPrivateNats } from '../../../test/support/private-servers';
import { bootstrapMessageContext } from './bootstrap-context';

class Inner {
  @IsInt()
  n!: number;
}

class Probe {
  @IsString()
  name!: string;

  @ValidateNested()
  @NestedType(() => Inner)
  inner!: Inner;
}

interface Seen {
  correlationId: string | undefined;
  isProbe: boolean;
  isInner: boolean;
}

/** A context that answers with what its handler saw: the correlation id in scope and the payload's classes. */
function probeContext(subject: string, events: Seen[]): Type<unknown> {
  @Controller()
  class ProbeController {
    @MessagePattern(subject)
    seen(@Payload() probe: Probe): Seen {
      return { correlationId: currentCorrelationId(), isProbe: probe instanceof Probe, isInner: probe.inner instanceof Inner };
    }

    @EventPattern(`${subject}.event`)
    heard(@Payload() probe: Probe): void {
      events.push({ correlationId: currentCorrelationId(), isProbe: probe instanceof Probe, isInner: probe.inner instanceof Inner });
    }
  }
  @Module({ controllers: [ProbeController] })
  class ProbeModule {}
  return ProbeModule;
}

function rootModule(config: PlatformConfig, bus: InProcessBus | undefined, context: Type<unknown>): Type<unknown> {
  @Module({ imports: [ConfigModule.forRoot(config), MessagingModule.forContext('billing-meter', bus), context] })
  class Root {}
  return Root;
}

const runtimes = ['in-process', ...(natsServerAvailable() ? ['nats'] : [])] as const;

/**
 * What every message context gets from bootstrapMessageContext, on both transports alike: the
 * handler runs inside the correlation scope its message carried (a new one when it carried none),
 * and its payload is validated into its class, nested classes included, unknown fields refused.
 * The in-process server enters the scope itself; NATS does it with an interceptor.
 */
describe.each(runtimes)('bootstrapMessageContext (%s)', (runtime) => {
  let nats: PrivateServer | null = null;
  let app: INestMicroservice;
  let bus: MessageBus;
  const subject = `test.probe.${randomUUID()}`;
  const events: Seen[] = [];
  const valid = { name: 'x', inner: { n: 1 } };
  const ask = (payload: unknown, correlationId?: string) =>
    bus.request(subject as never, payload as never, { correlationId }) as unknown as Promise<Seen>;

  beforeAll(async () => {
    if (runtime === 'nats') nats = await startPrivateNats('bootstrap-context');
    const config = loadPlatformConfig({ LOG_LEVEL: 'silent', ...(nats ? { NATS_URL: nats.url } : {}) });
    const inProcess = nats ? undefined : new InProcessBus();
    app = await bootstrapMessageContext('billing-meter', rootModule(config, inProcess, probeContext(subject, events)), config, inProcess);
    bus = app.get(MessageBus);
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await nats?.kill();
  });

  it('runs a request handler in the correlation scope the message carried', async () => {
    await expect(ask(valid, 'trace-123')).resolves.toEqual({ correlationId: 'trace-123', isProbe: true, isInner: true });
  });

  it('gives a message that carried no correlation id a scope of its own', async () => {
    const [first, second] = [await ask(valid), await ask(valid)];
    expect(first.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.correlationId).not.toBe(second.correlationId);
  });

  it('runs an event handler in the correlation scope the event carried', async () => {
    bus.emit(`${subject}.event` as never, valid as never, { correlationId: 'event-trace' });
    const deadline = Date.now() + 5_000;
    while (events.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual([{ correlationId: 'event-trace', isProbe: true, isInner: true }]);
  });

  it.each([
    ['an unknown field', { ...valid, extra: true }],
    ['an unknown nested field', { name: 'x', inner: { n: 1, extra: true } }],
    ['a nested field of the wrong type', { name: 'x', inner: { n: 'one' } }],
    ['a nested object that is a string', { name: 'x', inner: 'one' }],
  ])('refuses a payload with %s', async (_, payload) => {
    const refusal = await ask(payload).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RemoteAppError);
    expect((refusal as RemoteAppError).code).toBe('transport.invalid_message');
  });
});
