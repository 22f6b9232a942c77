import { createServer } from 'node:net';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const HandleCheckingEnvironment = require('./handle-checking-environment') as new (
  config: unknown,
  context: unknown,
) => { setup(): Promise<void>; teardown(): Promise<void> };

/** The check every test file runs under: it must catch what a file leaves open, and only that. */
describe('the handle-checking test environment', () => {
  const make = () =>
    new HandleCheckingEnvironment(
      {
        globalConfig: {},
        projectConfig: { testEnvironmentOptions: {}, globals: {}, fakeTimers: {}, rootDir: path.resolve(__dirname, '../..') },
      },
      { console, docblockPragmas: {}, testPath: '/x/leaky.spec.ts' },
    );

  it('fails a file that leaves a server listening, naming it; passes one that closed it', async () => {
    const env = make();
    await env.setup();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await expect(env.teardown()).rejects.toThrow(/leaky\.spec\.ts left handles .*1 × TCPServerWrap/);
    await new Promise((resolve) => server.close(resolve));

    const clean = make();
    await clean.setup();
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    await new Promise((resolve) => closed.close(resolve));
    await expect(clean.teardown()).resolves.toBeUndefined();
  });

  it("fails a file that leaves a ref'd timer, but not an unref'd one or one that ends within the settling time", async () => {
    const env = make();
    await env.setup();
    // Counted by type across the process: jest's own timers that end meanwhile (a loaded machine) could
    // hide one timer of the file's, not five.
    const refd = Array.from({ length: 5 }, () => setTimeout(() => undefined, 60_000));
    const unrefd = Array.from({ length: 5 }, () => setTimeout(() => undefined, 60_000).unref());
    setTimeout(() => undefined, 200);
    await expect(env.teardown()).rejects.toThrow(/[1-5] × Timeout/);
    for (const timer of [...refd, ...unrefd]) clearTimeout(timer);
  });
});
