import { send as sendFile } from '@fastify/send';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';

/** Where the web console is served. It is a static site over the public API, not part of the API description. */
export const CONSOLE_PATH = '/console';

/**
 * The console's Content-Security-Policy: everything from the gateway itself and nothing from any
 * other host. Scripts and styles are files of the build (no inline script). Images may be data:
 * URLs (screenshots arrive base64). Scraped pages are shown in a sandboxed iframe from `srcdoc`,
 * which inherits this policy; the console strips what would load from elsewhere before it shows
 * them, and the policy is the backstop. Inline style attributes of those pages are allowed
 * (`style-src-attr`): they cannot run code or reach another host under this policy.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Finds the console's build (dist/console) from the sources (ts-jest) and from dist/ alike. */
export function locateConsoleBuild(start = __dirname): string | null {
  let dir = start;
  for (let i = 0; i < 8; i += 1) {
    const candidate = path.join(dir, 'dist', 'console');
    if (fs.existsSync(path.join(candidate, 'index.html'))) return candidate;
    dir = path.dirname(dir);
  }
  return null;
}

const ROUTE_CONFIG = { access: 'public', console: true } as const;
/** Vite names every asset by its content hash, so a cached one never goes stale. */
const HASHED_ASSET = /^assets\/[\w.-]+-[\w-]{8,}\.\w+$/;

/**
 * Serves the console's build at /console in both runtimes (the gateway is the one HTTP server).
 * Files go out through @fastify/send (path normalisation, ranges, ETags, conditional requests);
 * the routes are ours so admission sees them as public pages. Only index.html and the hashed
 * files Vite wrote are served. Without a build, /console says how to make one.
 */
export function serveConsole(fastify: FastifyInstance, root: string | null): void {
  const notFound = (reply: FastifyReply, file: string) =>
    reply
      .code(404)
      .header('content-security-policy', CONSOLE_CSP)
      .send({ detail: `No console file ${JSON.stringify(file.slice(0, 200))}.`, error_code: 'not_found' });
  const send = async (request: FastifyRequest, reply: FastifyReply, file: string) => {
    reply.header('content-security-policy', CONSOLE_CSP);
    reply.header('cross-origin-resource-policy', 'same-origin');
    reply.header('referrer-policy', 'no-referrer');
    if (!root) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The web console is not built: run `npm run build` (or `npm start`, which builds it), then reload.');
    }
    const hashed = file !== 'index.html';
    const sent = await sendFile(request.raw, `/${file}`, {
      root,
      index: false,
      dotfiles: 'deny',
      // Hashed names never change content: cache for a year. index.html is revalidated every time.
      maxAge: hashed ? 365 * 24 * 3600 * 1000 : 0,
      immutable: hashed,
    });
    if (sent.type !== 'file' && sent.statusCode >= 400) return notFound(reply, file);
    if (!hashed) sent.headers['cache-control'] = 'no-cache';
    return reply.code(sent.statusCode).headers(sent.headers).send(sent.stream);
  };
  fastify.get(CONSOLE_PATH, { config: ROUTE_CONFIG }, (_request, reply) => reply.redirect(`${CONSOLE_PATH}/`, 308));
  fastify.get(`${CONSOLE_PATH}/`, { config: ROUTE_CONFIG }, (request, reply) => send(request, reply, 'index.html'));
  fastify.get<{ Params: { '*': string } }>(`${CONSOLE_PATH}/*`, { config: ROUTE_CONFIG }, (request, reply) => {
    const file = request.params['*'];
    // Only the build's own files: anything else (a typo, a probe for ../) is a plain 404.
    if (!HASHED_ASSET.test(file)) return notFound(reply, file);
    return send(request, reply, file);
  });
}

export function isConsoleRoute(url: string): boolean {
  return url === CONSOLE_PATH || url.startsWith(`${CONSOLE_PATH}/`);
}
