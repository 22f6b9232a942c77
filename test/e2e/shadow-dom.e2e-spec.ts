import { SHADOW_DOM_PAGES, type ShadowDomSite, startShadowDomSite, visibleRecall } from '../support/shadow-dom-pages';
import { http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

/**
 * Shadow DOM and frames (issue 67, decision 0042), end to end in both runtimes: browser mode reads
 * open and closed shadow roots, slots in rendered order and same-origin frames 1–3 deep; simple mode
 * reads declarative shadow roots; a frame of another origin is listed, not read; pages without any
 * keep their text order.
 */
describe.each(runtimesUnderTest('shadow-dom'))('shadow DOM and frames — $name', (runtime) => {
  let site: ShadowDomSite;
  let env: InProcessPlatform;
  let token: string;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    site = await startShadowDomSite();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({ ...prepared.env, TARGET_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${site.otherPort}` });
    token = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } })).body.token;
  });
  afterAll(async () => {
    await env?.stop();
    await cleanup();
    await site?.close();
  });

  const scrape = (body: Record<string, unknown>) => http(env.url, '/v1/sync/scrape', { token, json: { format: 'markdown', ...body } });

  it('browser mode: every visible text of every page of the set, in reading order', async () => {
    for (const page of SHADOW_DOM_PAGES) {
      const res = await scrape({ url: `${site.url}/page/${page.name}`, browser: true, browser_type: 'light' });
      expect(res.status).toBe(200);
      expect({ page: page.name, ...visibleRecall(page, res.body.markdown) }).toEqual({ page: page.name, recall: 1, inOrder: true });
    }
  });

  it('browser mode: a frame of another origin is listed in guidance, not read', async () => {
    const res = await scrape({ url: `${site.url}/page/cross-origin`, browser: true, browser_type: 'light' });
    expect(res.status).toBe(200);
    expect(res.body.markdown).toContain('Before the other origin');
    expect(res.body.markdown).toContain('After the other origin');
    expect(res.body.markdown).not.toContain('Text of another origin');
    expect(res.body.guidance.next_steps.join(' ')).toContain(`${site.otherUrl}/`);
  });

  it('browser mode with include_frames: a frame of another origin read in its place, a credit more; a refused one left out and said', async () => {
    const res = await scrape({ url: `${site.url}/page/cross-origin`, browser: true, browser_type: 'light', include_frames: true });
    expect(res.status).toBe(200);
    const markdown: string = res.body.markdown;
    const order = ['Before the other origin', 'Text of another origin', 'After the other origin'].map((text) => markdown.indexOf(text));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(res.headers.get('x-credits-charged')).toBe('6');
    expect(res.body.guidance.credits_charged).toBe(6);
    expect(res.body.guidance.next_steps.join(' ')).toContain(
      `Read 1 frame(s) from other origins into the content, 1 credit each (include_frames): ${site.otherUrl}/`,
    );

    const guarded = await scrape({ url: `${site.url}/guarded/frames`, browser: true, browser_type: 'light', include_frames: true });
    expect(guarded.status).toBe(200);
    expect(guarded.body.markdown).toContain('Text of another origin');
    expect(guarded.body.markdown).not.toMatch(/SSRF guard|X-Egress-Refused/i);
    expect(guarded.body.guidance.credits_charged).toBe(6);
    expect(guarded.body.guidance.next_steps.join(' ')).toContain('http://127.0.0.1:9/');

    const simple = await scrape({ url: `${site.url}/page/cross-origin`, include_frames: true });
    expect(simple.status).toBe(422);
    expect(simple.body.detail[0].loc).toEqual(['body', 'include_frames']);
  });

  it('simple mode: a declarative shadow root is read as rendered; a page without one keeps its text', async () => {
    const declarative = SHADOW_DOM_PAGES.find((p) => p.name === 'declarative')!;
    const res = await scrape({ url: `${site.url}/page/declarative` });
    expect(visibleRecall(declarative, res.body.markdown)).toEqual({ recall: 1, inOrder: true });
    const plain = SHADOW_DOM_PAGES.find((p) => p.name === 'plain')!;
    expect(visibleRecall(plain, (await scrape({ url: `${site.url}/page/plain` })).body.markdown)).toEqual({ recall: 1, inOrder: true });
  });
});
