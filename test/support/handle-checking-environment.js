// The test environment of every project: jest's node environment, plus a check when a test file is
// done that it left nothing keeping the process alive (a server, a socket, a child process, a timer
// that is not unref'd). A file that leaves one fails, named with what it left: such a handle is what
// made jest print "did not exit one second after the test run" or "a worker process has failed to
// exit gracefully" with no file named, and it lets one file's leftovers run into the next file's
// tests on the same worker. Handles that are closing when the file ends get a moment to finish.
'use strict';
const { TestEnvironment } = require('jest-environment-node');

// How long a file's handles may take to finish closing after its last hook (sockets and child
// processes end a few ticks after the close that ended them).
const SETTLE_MS = Number(process.env.TEST_HANDLE_SETTLE_MS ?? 3000);

function countByType() {
  const counts = new Map();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

function leftSince(before) {
  const left = [];
  for (const [type, count] of countByType()) {
    const extra = count - (before.get(type) ?? 0);
    if (extra > 0) left.push(`${extra} × ${type}`);
  }
  return left;
}

// TEST_HANDLES_DEBUG=1: where each handle still open was made (async_hooks; slow, for finding one).
let tracked = null;
if (process.env.TEST_HANDLES_DEBUG) {
  tracked = new Map();
  require('node:async_hooks')
    .createHook({
      init(id, type, _trigger, resource) {
        if (['Timeout', 'TCPWRAP', 'PIPEWRAP', 'PROCESSWRAP'].includes(type)) tracked.set(id, { type, resource, stack: new Error().stack });
      },
      destroy(id) {
        tracked.delete(id);
      },
    })
    .enable();
}

class HandleCheckingEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async setup() {
    await super.setup();
    // The stdio streams are made on first use: made now, they are not counted as the file's.
    void process.stdin;
    void process.stdout;
    void process.stderr;
    this.before = countByType();
  }

  async teardown() {
    await super.teardown();
    const until = Date.now() + SETTLE_MS;
    let left = leftSince(this.before);
    while (left.length > 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50).unref());
      left = leftSince(this.before);
    }
    if (left.length > 0 && tracked) {
      for (const [, t] of tracked) {
        const r = t.resource;
        const refed = typeof r?.hasRef === 'function' ? r.hasRef() : true;
        if (!refed) continue;
        const what = t.type === 'Timeout' ? `Timeout ${r._idleTimeout} ms ${String(r._onTimeout).slice(0, 120)}` : t.type;
        console.error(`HANDLE ${what}\n${t.stack.split('\n').slice(2, 14).join('\n')}`);
      }
    }
    if (left.length > 0 && process.env.TEST_HANDLES !== 'allow') {
      throw new Error(
        `${this.testPath} left handles that keep the process alive after its last hook: ${left.join(', ')}. ` +
          'Close them in afterAll (or unref a timer that may outlive the file); TEST_HANDLES=allow lets the run go on.',
      );
    }
  }
}

module.exports = HandleCheckingEnvironment;
