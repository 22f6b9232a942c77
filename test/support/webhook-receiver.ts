import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST the receiver got. */
export interface ReceivedWebhook {
  /** Path and query, as requested. */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The body exactly as sent (signatures are over these bytes). */
  body: Buffer;
  /** The body as UTF-8 text. */
  raw: string;
  /** When it arrived (ms since the epoch). */
  at: number;
}

export interface WebhookReceiver {
  port: number;
  url: string;
  received: ReceivedWebhook[];
  /** `/script/<name>` answers these statuses in turn (the last one repeats); any other path answers 200. */
  script(name: string, statuses: number[]): void;
  close(): Promise<void>;
}

/**
 * A local webhook receiver, as a client's server would be: it keeps every POST with its raw body
 * and headers and answers after `delayMs` (so an attempt in flight can be observed, or a sender
 * killed mid-POST).
 */
export async function startWebhookReceiver(delayMs = 0): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const scripts = new Map<string, number[]>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks);
      received.push({ path, headers: req.headers, body, raw: body.toString('utf8'), at: Date.now() });
      const script = /^\/script\/([\w-]+)/.exec(path);
      let status = 200;
      if (script) {
        const steps = scripts.get(script[1]) ?? [200];
        status = steps.length > 1 ? steps.shift()! : steps[0];
      }
      setTimeout(() => res.writeHead(status, { 'content-type': 'text/plain' }).end('ok'), delayMs).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    received,
    script: (name, statuses) => void scripts.set(name, [...statuses]),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
