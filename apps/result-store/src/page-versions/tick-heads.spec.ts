import { type PageHead, TickHeads } from './tick-heads';

/** The heads a tick reads once: what it may answer for, and what it holds (bounded, forgotten when the tick is reported). */
describe('TickHeads', () => {
  const headOf = (url: string, jobId = 'older-job'): PageHead & { url: string } => ({
    url,
    id: '1',
    hash: `hash of ${url}`,
    firstSeenAt: new Date('2026-12-04T10:00:00Z'),
    jobId,
  });
  const page = (runId: string, url: string, over: { jobId?: string; attempt?: number } = {}) => ({
    runId,
    monitorId: 'm',
    url,
    jobId: over.jobId ?? 'job',
    attempt: over.attempt ?? 1,
  });

  it("reads a tick's heads once and answers each page from them: its head, null for a page new to the monitor", async () => {
    const load = jest.fn(async () => [headOf('a'), headOf('b')]);
    const heads = new TickHeads(load);
    await expect(heads.headOf(page('t1', 'a'))).resolves.toEqual({ head: expect.objectContaining({ hash: 'hash of a' }) });
    await expect(heads.headOf(page('t1', 'new'))).resolves.toEqual({ head: null });
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('never answers for a later attempt, nor for a page whose head its own job wrote', async () => {
    const heads = new TickHeads(async () => [headOf('a', 'job')]);
    await expect(heads.headOf(page('t1', 'a', { attempt: 2 }))).resolves.toBeUndefined();
    await expect(heads.headOf(page('t1', 'a', { jobId: 'job' }))).resolves.toBeUndefined();
  });

  it('forgets a tick once it is reported, and reads again after a failed read', async () => {
    let failing = true;
    const load = jest.fn(async () => {
      if (failing) throw new Error('database restarting');
      return [headOf('a')];
    });
    const heads = new TickHeads(load);
    await expect(heads.headOf(page('t1', 'a'))).rejects.toThrow('database restarting');
    failing = false;
    await expect(heads.headOf(page('t1', 'a'))).resolves.toEqual({ head: expect.anything() });
    expect(heads.held()).toEqual({ ticks: 1, pages: 1 });
    heads.forget('t1');
    expect(heads.held()).toEqual({ ticks: 0, pages: 0 });
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('holds at most 200,000 pages and 64 ticks, dropping the oldest ticks first (their next page reads again)', async () => {
    const big = Array.from({ length: 90_000 }, (_, i) => headOf(`p${i}`));
    const heads = new TickHeads(async () => big);
    for (const tick of ['t1', 't2', 't3']) await heads.headOf(page(tick, 'p1'));
    expect(heads.held()).toEqual({ ticks: 2, pages: 180_000 });
    const small = new TickHeads(async () => [headOf('a')]);
    for (let i = 0; i < 70; i += 1) await small.headOf(page(`t${i}`, 'a'));
    expect(small.held()).toEqual({ ticks: 64, pages: 64 });
  });
});
