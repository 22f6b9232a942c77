import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { browserEngine } from './support/browser-engine';

/**
 * The lie detector (bench/stealth/lie-detector, issue 68) read by the heavy browser through the
 * real browser executor: heavy shows no lie in any realm, and a lie planted before the detector
 * runs — each kind stealth scripts tell — is caught by the rows that name it. A detector that
 * caught nothing would pass the first half for nothing; the second half is what makes the first
 * mean something.
 */
const DETECTOR = path.join(__dirname, '..', '..', 'bench', 'stealth', 'lie-detector');

interface Plant {
  /** Runs in the window before the detector's own scripts. */
  window?: string;
  /** Runs in each worker realm before the detector's techniques. */
  worker?: string;
  /** Rows that must then read as lies. */
  caught: string[];
}

// The lies stealth scripts tell, one per kind: a replaced method disguised by a patched
// Function.prototype.toString, a getter proxied to another value, a value set on the instance, a
// changed value in windows that workers do not share, and a worker-only change.
const PLANTS: Record<string, Plant> = {
  'a method replaced behind a patched toString': {
    window: `{
      const nativeToString = Function.prototype.toString;
      const original = HTMLCanvasElement.prototype.toDataURL;
      const replacement = { toDataURL() { return original.apply(this, arguments); } }.toDataURL;
      HTMLCanvasElement.prototype.toDataURL = replacement;
      Function.prototype.toString = { toString() { return this === replacement ? 'function toDataURL() { [native code] }' : nativeToString.call(this); } }.toString;
    }`,
    caught: [
      'toString-cross-realm/HTMLCanvasElement.toDataURL',
      'toString/Function.prototype.toString',
      'toString-of-toString/Document.createElement',
      'stack/HTMLCanvasElement.toDataURL',
    ],
  },
  'a getter proxied to another value': {
    window: `{
      const descriptor = Object.getOwnPropertyDescriptor(Navigator.prototype, 'hardwareConcurrency');
      Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { ...descriptor, get: new Proxy(descriptor.get, { apply: () => 64 }) });
    }`,
    caught: [
      'toString/Navigator.hardwareConcurrency',
      'dedicated-matches-window/hardwareConcurrency',
      'service-matches-window/hardwareConcurrency',
    ],
  },
  'a value set on the instance': {
    window: `Object.defineProperty(navigator, 'platform', { get: () => 'Win32' });`,
    caught: ['own-instance/Navigator.platform', 'shared-matches-window/platform'],
  },
  'a user agent changed in windows only': {
    window: `{
      const descriptor = Object.getOwnPropertyDescriptor(Navigator.prototype, 'userAgent');
      const get = Object.getOwnPropertyDescriptor({ get userAgent() { return descriptor.get.call(this).replace(/Chrome\\/\\d+/, 'Chrome/999'); } }, 'userAgent').get;
      Object.defineProperty(Navigator.prototype, 'userAgent', { ...descriptor, get });
    }`,
    caught: [
      'toString/Navigator.userAgent',
      'stack/Navigator.userAgent',
      'dedicated-matches-window/userAgent',
      'service-matches-window/userAgent',
    ],
  },
  'a worker-only change': {
    worker: `{
      const descriptor = Object.getOwnPropertyDescriptor(WorkerNavigator.prototype, 'platform');
      Object.defineProperty(WorkerNavigator.prototype, 'platform', { ...descriptor, get: function platform() { return 'Win32'; } });
    }`,
    caught: ['dedicated:toString/WorkerNavigator.platform', 'service:toString/WorkerNavigator.platform', 'shared-matches-window/platform'],
  },
};

/** The detector as bench/stealth serves it, and under /planted/<name>/ with that plant's scripts first. */
function serveDetector(): Promise<{ port: number; close(): Promise<void> }> {
  const read = (file: string) => fs.readFileSync(path.join(DETECTOR, file), 'utf8');
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const [, top, name, file = ''] = /^\/(lie-detector|planted)\/(?:([^/]+)\/)?(.*)$/.exec(decodeURIComponent(url.pathname)) ?? [];
    const plant: Partial<Plant> | undefined = top === 'planted' ? PLANTS[name] : top === 'lie-detector' ? {} : undefined;
    const asked = top === 'lie-detector' && name ? `${name}/${file}` : file;
    const js = (body: string) => res.writeHead(200, { 'content-type': 'text/javascript' }).end(body);
    if (!plant) return res.writeHead(404).end();
    if (asked === '' || asked === 'index.html') {
      const page = read('index.html').replace(
        '<script src="techniques.js">',
        '<script src="plant.js"></script>\n<script src="techniques.js">',
      );
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    }
    if (asked === 'plant.js') return js(plant.window ?? '');
    if (asked === 'realm.js') return js(`${plant.worker ?? ''}\n${read('realm.js')}`);
    if (asked === 'techniques.js' || asked === 'lies.js') return js(read(asked));
    res.writeHead(404).end();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as { port: number }).port,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}

describe('the lie detector against the heavy browser', () => {
  let site: Awaited<ReturnType<typeof serveDetector>>;
  let engine: Awaited<ReturnType<typeof browserEngine>>;

  beforeAll(async () => {
    site = await serveDetector();
    engine = await browserEngine({
      allow: [`127.0.0.1:${site.port}`],
      pool: { concurrency: 2, queueTimeoutMs: 60_000, recycleAfter: 200 },
      navigationMs: 30_000,
    });
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
    await site?.close();
  });

  const lies = async (pagePath: string) => {
    const { result } = await engine.scrape({
      url: `http://127.0.0.1:${site.port}${pagePath}`,
      browser_type: 'heavy',
      actions: [
        { type: 'wait-for-selector', selector: '//pre[@id="result" and text()!="pending"]', time: 20_000 },
        { type: 'evaluate', script: "document.getElementById('result').textContent" },
      ],
    });
    const value = result.evaluate_results?.at(-1)?.value;
    expect(typeof value).toBe('string');
    const reading = JSON.parse(value as string) as { checks?: Record<string, { lie: boolean; detail: string }>; error?: string };
    expect(reading.error).toBeUndefined();
    const checks = reading.checks!;
    return {
      rows: Object.keys(checks).length,
      lies: Object.fromEntries(
        Object.entries(checks)
          .filter(([, check]) => check.lie)
          .map(([name, check]) => [name, check.detail]),
      ),
    };
  };

  it('finds no lie in heavy: every function and value in the window, a frame and dedicated, shared and service workers', async () => {
    const { rows, lies: found } = await lies('/lie-detector/');
    expect(rows).toBeGreaterThan(800);
    expect(found).toEqual({});
  }, 90_000);

  it.each(Object.keys(PLANTS))(
    'catches %s',
    async (name) => {
      const { lies: found } = await lies(`/planted/${encodeURIComponent(name)}/`);
      expect(PLANTS[name].caught.filter((row) => !(row in found))).toEqual([]);
    },
    90_000,
  );
});
