import { TargetBlockedError, TargetGuard, pinnedLookup } from '@lib/target-guard';
import { Injectable } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';

export type CallbackResult =
  | { kind: 'answered'; statusCode: number; latencyMs: number }
  | { kind: 'error'; error: string; latencyMs: number }
  | { kind: 'blocked'; error: string; latencyMs: number };

/**
 * POSTs one webhook. The callback URL passes the SSRF guard again at delivery time (DNS may have
 * changed since the collection was saved) and the connection goes to the vetted address only.
 * Redirects are not followed: a 3xx is the receiver's answer (not a 2xx, so not delivered).
 */
@Injectable()
export class CallbackTransport {
  constructor(private readonly guard: TargetGuard) {}

  async post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<CallbackResult> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    let target;
    try {
      target = await this.guard.vet(url);
    } catch (error) {
      if (error instanceof TargetBlockedError)
        return { kind: 'blocked', error: `callback_url refused (${error.reason}): ${error.message}`, latencyMs: latency() };
      throw error;
    }
    const client = target.url.protocol === 'https:' ? https : http;
    return new Promise<CallbackResult>((resolve) => {
      const request = client.request(
        target.url,
        {
          method: 'POST',
          lookup: pinnedLookup(target),
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'scrape-platform-webhooks/1',
            ...headers,
          },
          timeout: timeoutMs,
        },
        (response) => {
          // The answer's status is all that counts; its body is drained, never stored.
          response.resume();
          response.on('end', () => resolve({ kind: 'answered', statusCode: response.statusCode ?? 0, latencyMs: latency() }));
          response.on('error', (error) => resolve({ kind: 'error', error: error.message, latencyMs: latency() }));
        },
      );
      const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      request.on('error', (error) => resolve({ kind: 'error', error: error.message, latencyMs: latency() }));
      request.on('close', () => clearTimeout(deadline));
      request.end(body);
    });
  }
}
