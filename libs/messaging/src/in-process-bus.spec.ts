import { InProcessBus, NoRespondersError } from './in-process-bus';

describe(InProcessBus.name, () => {
  it('answers a request from one replica at a time, round robin, with a JSON copy of the payload', async () => {
    const bus = new InProcessBus();
    const seen: string[] = [];
    const sent = { at: new Date('2026-01-01T00:00:00Z'), nested: { n: 1 } };
    bus.subscribe('s', 'g', 'request', async (data, headers) => {
      seen.push(`a:${headers.h}`);
      expect(data).toEqual({ at: '2026-01-01T00:00:00.000Z', nested: { n: 1 } });
      expect(data).not.toBe(sent);
      return { from: 'a' };
    });
    bus.subscribe('s', 'g', 'request', async () => {
      seen.push('b');
      return { from: 'b' };
    });
    const replies = [await bus.request('s', sent, { h: '1' }), await bus.request('s', sent, {}), await bus.request('s', sent, { h: '3' })];
    expect(replies).toEqual([{ from: 'a' }, { from: 'b' }, { from: 'a' }]);
    expect(seen).toEqual(['a:1', 'b', 'a:3']);
  });

  it('fails fast when nobody listens', async () => {
    await expect(new InProcessBus().request('nobody', {}, {})).rejects.toBeInstanceOf(NoRespondersError);
  });

  it('delivers an event once per group, and a failing listener does not reach the publisher', async () => {
    const bus = new InProcessBus();
    const got: string[] = [];
    bus.subscribe('e', 'billing', 'event', async () => void got.push('billing-1'));
    bus.subscribe('e', 'billing', 'event', async () => void got.push('billing-2'));
    bus.subscribe('e', 'webhooks', 'event', async () => {
      got.push('webhooks');
      throw new Error('listener failure');
    });
    expect(() => bus.publish('e', { x: 1 }, {})).not.toThrow();
    await new Promise((r) => setImmediate(r));
    expect(got.sort()).toEqual(['billing-1', 'webhooks']);
  });

  it('stops delivering after unsubscribe', async () => {
    const bus = new InProcessBus();
    const unsubscribe = bus.subscribe('s', 'g', 'request', async () => 1);
    unsubscribe();
    await expect(bus.request('s', {}, {})).rejects.toBeInstanceOf(NoRespondersError);
  });
});
