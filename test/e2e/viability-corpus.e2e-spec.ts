import { MAX_VIABILITY_URLS } from '@lib/contracts';
import { corpusPageNames, startViabilityFixtureSite, VIABILITY_FIXTURES, ViabilityFixtureSite } from '../support/viability-fixture-site';
import { eventually } from './support/eventually';
import { http } from './support/http';
import { InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';

interface Verdict {
  url: string;
  recommended_strategy: string;
  reasons: string[];
}

/**
 * The analysis on the detection corpus at quick depth, through the whole platform (scrape-engine's
 * fetches, the content validator, the shared rule set): the 130 real pages of ../shared/corpus as
 * their sites served them, and every fixture written from the vendors' documented markers. The
 * standard-depth figures (a browser render per URL) are `npm run bench`'s; README shows both.
 */
describe('viability analysis on the detection corpus (quick depth, embedded)', () => {
  let site: ViabilityFixtureSite;
  let env: InProcessPlatform;
  let token: string;

  beforeAll(async () => {
    site = await startViabilityFixtureSite();
    env = await startInProcessPlatform({ TARGET_ALLOWLIST: `127.0.0.1:${site.port}`, VIABILITY_CONCURRENCY: '8', VIABILITY_CLIENT_CONCURRENCY: '8', VIABILITY_POLL_INTERVAL_MS: '100', BROWSER_WARM: 'false' });
    token = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'enterprise' } })).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await site?.close();
  });

  async function analyse(paths: string[]): Promise<Verdict[]> {
    const verdicts: Verdict[] = [];
    for (let i = 0; i < paths.length; i += MAX_VIABILITY_URLS) {
      const created = await http(env.url, '/v1/async/viability-test', { token, json: { urls: paths.slice(i, i + MAX_VIABILITY_URLS).map((p) => `${site.url}${p}`), depth: 'quick' } });
      expect(created.status).toBe(202);
      const done = await eventually(async () => {
        const res = await http(env.url, `/v1/async/viability-test/${created.body.run_id}`, { token });
        return res.body.status === 'completed' && res.body;
      }, { timeoutMs: 110_000, what: 'the corpus analysed' });
      verdicts.push(...done.results);
    }
    return verdicts;
  }

  it('recommends extract_html for the real pages (goal ≥ 95 %) and tells every fixture for what it is', async () => {
    const names = corpusPageNames();
    expect(names.length).toBe(130);
    const fixtures = VIABILITY_FIXTURES;
    const verdicts = await analyse([...names.map((n) => `/corpus/${n}`), ...fixtures.map((f) => f.path)]);
    const corpus = verdicts.slice(0, names.length);
    const misses = corpus.filter((v) => v.recommended_strategy !== 'extract_html').map((v) => `${v.url.replace(site.url, '')}: ${v.recommended_strategy} (${v.reasons[0]})`);
    const rows: string[] = [`| real corpus | ${corpus.length - misses.length} / ${corpus.length} | extract_html |`];
    const wrong: string[] = [...misses];
    for (const kind of [...new Set(fixtures.map((f) => f.class))]) {
      const of = fixtures.map((f, i) => ({ f, v: verdicts[names.length + i] })).filter(({ f }) => f.class === kind);
      const right = of.filter(({ f, v }) => v.recommended_strategy === (f.expectedQuick ?? f.expected));
      of.filter((x) => !right.includes(x)).forEach(({ f, v }) => wrong.push(`${f.path}: ${v.recommended_strategy}, expected ${f.expectedQuick ?? f.expected} (${v.reasons[0]})`));
      rows.push(`| ${kind} | ${right.length} / ${of.length} | ${[...new Set(of.map(({ f }) => f.expectedQuick ?? f.expected))].join(', ')} |`);
    }
    process.stdout.write(`viability verdicts at quick depth:\n| class | right | expected |\n|---|---|---|\n${rows.join('\n')}\n${wrong.length ? `wrong:\n  ${wrong.join('\n  ')}\n` : ''}`);
    expect(misses.length).toBeLessThanOrEqual(Math.floor(corpus.length * 0.05));
    expect(wrong.filter((w) => !misses.includes(w))).toEqual([]);
  });
});
