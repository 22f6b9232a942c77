import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { curlSnippet, pythonSnippet, type SnippetInput, typeScriptSnippet } from '../../apps/console/src/playground/request-snippets';

/**
 * The playground's "copy as curl / TypeScript / Python": whatever the request holds (quotes,
 * backslashes, $, newlines, any Unicode), the snippet run by its own interpreter sends exactly
 * that JSON and the token from the environment. Each property runs its snippets in one process
 * of the real interpreter (sh, node, python3) with the network call replaced by a recorder.
 */
const origin = 'http://127.0.0.1:8080';
// JSON values as a scrape request could hold them; sh arguments cannot carry NUL, so strings leave it out.
const text = fc.string({ unit: 'binary' }).map((s) => s.replace(/\0/g, ''));
const requestBody = fc.record({
  url: text,
  headers: fc.dictionary(text, text, { maxKeys: 3 }),
  extract: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
});
const bodies = fc.sample(requestBody, { numRuns: 60, seed: 21 }).concat([
  {
    url: `it's "quoted" \\ $HOME \`id\` $(id) \n next line`,
    headers: { "x-'": '\u2028\u2029' },
    extract: { a: [1.5e300, -0, null, true] },
  },
]);
const input = (body: unknown): SnippetInput => ({ origin, path: '/v1/sync/scrape', body });
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'snippets-'));
const normalised = (value: unknown) => JSON.parse(JSON.stringify(value));

describe('request snippets, run by their interpreters', () => {
  it('curl: sh passes the URL, the token header and the body through unchanged', () => {
    const dir = tmp();
    // curl is a shell function printing its arguments NUL-separated, one snippet after the other.
    const script = [
      `curl() { for a in "$@"; do printf '%s\\0' "$a"; done; printf '\\0\\0'; }`,
      'SCRAPING_API_TOKEN=secret-token',
      ...bodies.map((b) => curlSnippet(input(b))),
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'run.sh'), script);
    const out = execFileSync('sh', [path.join(dir, 'run.sh')]).toString('utf8');
    const calls = out.split('\0\0\0').filter((c) => c.length > 0);
    expect(calls).toHaveLength(bodies.length);
    calls.forEach((call, i) => {
      const args = call.split('\0');
      expect(args.slice(0, 4)).toEqual(['-sS', '-X', 'POST', `${origin}/v1/sync/scrape`]);
      expect(args).toContain('Authorization: Bearer secret-token');
      expect(JSON.parse(args[args.indexOf('--data-raw') + 1]!)).toEqual(normalised(bodies[i]));
    });
  });

  it('TypeScript: the fetch call sends the body as JSON with the bearer token', () => {
    const dir = tmp();
    const blocks = bodies.map((b) => `{\n${typeScriptSnippet(input(b))}\n}`);
    const script = [
      'const sent = [];',
      "process.env.SCRAPING_API_TOKEN = 'secret-token';",
      'console.log = () => {};',
      'globalThis.fetch = async (url, init) => { sent.push({ url, auth: init.headers.Authorization, body: init.body }); return { ok: true, json: async () => ({}) }; };',
      ...blocks,
      'process.stdout.write(JSON.stringify(sent));',
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'run.mjs'), script);
    const sent = JSON.parse(execFileSync(process.execPath, [path.join(dir, 'run.mjs')]).toString('utf8'));
    expect(sent).toHaveLength(bodies.length);
    sent.forEach((call: { url: string; auth: string; body: string }, i: number) => {
      expect(call.url).toBe(`${origin}/v1/sync/scrape`);
      expect(call.auth).toBe('Bearer secret-token');
      expect(JSON.parse(call.body)).toEqual(normalised(bodies[i]));
    });
  });

  it('Python: urllib sends the payload, written as Python literals, as the same JSON', () => {
    const dir = tmp();
    const snippets = bodies.map((b) => pythonSnippet(input(b)));
    fs.writeFileSync(path.join(dir, 'snippets.json'), JSON.stringify(snippets));
    fs.writeFileSync(
      path.join(dir, 'run.py'),
      [
        'import io, json, os, sys, urllib.request',
        "os.environ['SCRAPING_API_TOKEN'] = 'secret-token'",
        'sent = []',
        'class Answer(io.BytesIO):',
        '    def __enter__(self): return self',
        '    def __exit__(self, *a): return False',
        'def urlopen(request, timeout=None):',
        "    sent.append({'url': request.full_url, 'auth': request.get_header('Authorization'), 'body': request.data.decode()})",
        '    return Answer(b\'{"guidance": null}\')',
        'urllib.request.urlopen = urlopen',
        "for snippet in json.load(open(sys.argv[1], encoding='utf-8')):",
        "    exec(snippet, {'print': lambda *a, **k: None})",
        'sys.stdout.write(json.dumps(sent))',
      ].join('\n'),
    );
    const sent = JSON.parse(execFileSync('python3', [path.join(dir, 'run.py'), path.join(dir, 'snippets.json')]).toString('utf8'));
    expect(sent).toHaveLength(bodies.length);
    sent.forEach((call: { url: string; auth: string; body: string }, i: number) => {
      expect(call.url).toBe(`${origin}/v1/sync/scrape`);
      expect(call.auth).toBe('Bearer secret-token');
      expect(JSON.parse(call.body)).toEqual(normalised(bodies[i]));
    });
  });

  it('never writes the token into a snippet', () => {
    for (const snippet of [curlSnippet, typeScriptSnippet, pythonSnippet].map((f) => f(input({ url: 'https://example.com/' })))) {
      expect(snippet).toMatch(/SCRAPING_API_TOKEN/);
      expect(snippet).not.toMatch(/Bearer [A-Za-z0-9_]{8,}/);
    }
  });
});
