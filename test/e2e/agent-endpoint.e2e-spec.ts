import { DATABASE, type DatabaseConnection } from '@lib/persistence';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { startCanary } from '../support/browser-fixture-site';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site';
import { eventually } from './support/eventually';
import { expectUsageHeaders, http } from './support/http';
import { type InProcessPlatform, startInProcessPlatform } from './support/in-process-platform';
import { runtimesUnderTest } from './support/runtimes';

const TOOLS = [
  'check_billing',
  'crawl_site',
  'crawl_status',
  'create_monitor',
  'discover',
  'health_check',
  'list_proxy_countries',
  'map_site',
  'monitor_changes',
  'scrape_as_markdown',
  'scrape_url',
];
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

type Text = { type: 'text'; text: string };

/** The text of a result's content blocks, one string. */
function textOf(result: CallToolResult): string {
  return result.content
    .filter((c): c is Text => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

/** What lies between a fence's own markers (the nonce of this call), or null when there is no fence. */
function fenced(text: string, nonce: string, part: string): string | null {
  const begin = `<<<BEGIN_UNTRUSTED_WEB_CONTENT nonce=${nonce} part=${part}>>>\n`;
  const end = `\n<<<END_UNTRUSTED_WEB_CONTENT nonce=${nonce} part=${part}>>>`;
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  return from < 0 || to < 0 ? null : text.slice(from + begin.length, to);
}

function nonceOf(text: string): string {
  const match = /<<<BEGIN_UNTRUSTED_WEB_CONTENT nonce=([0-9a-f]{24}) /.exec(text);
  if (!match) throw new Error(`no fence in ${text.slice(0, 200)}`);
  return match[1];
}

/**
 * The agent endpoint (spec 4.9) with the official MCP SDK client over real HTTP, in both runtimes:
 * auth, the six tools and their schemas, every tool against local fixture pages, the untrusted-
 * content fence (a page that forges the closing marker stays inside), content windows, screenshots
 * as images, credits equal to the ledger (with a client that sends one X-Request-Id every time),
 * the rate limit, and hostile URLs.
 */
describe.each(runtimesUnderTest('agent'))('agent endpoint /mcp — $name', (runtime) => {
  let site: FixtureSite;
  let canary: Awaited<ReturnType<typeof startCanary>>;
  let env: InProcessPlatform;
  let token: string;
  let clientId: string;
  let agent: Client;
  let cleanup: () => Promise<void> = async () => undefined;

  async function connect(bearer: string | null, headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${env.url}/mcp`), {
      requestInit: { headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...headers } },
    });
    await client.connect(transport);
    return client;
  }

  const call = async (name: string, args: Record<string, unknown> = {}, client = agent) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const ledger = () => env.platform.gateway.get<symbol, DatabaseConnection>(DATABASE);
  const ledgerCredits = async (client: string) =>
    Number(
      (
        await ledger().sql.query<{ total: string }>(
          'select coalesce(sum(credits), 0) as total from credit_ledger_entries where client_id = $1',
          [client],
        )
      )[0].total,
    );

  beforeAll(async () => {
    site = await startFixtureSite();
    canary = await startCanary();
    const prepared = await runtime.prepare();
    cleanup = prepared.cleanup;
    env = await startInProcessPlatform({ ...prepared.env, TARGET_ALLOWLIST: `127.0.0.1:${site.port}` });
    const created = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } })).body;
    token = created.token;
    clientId = created.client_id;
    agent = await connect(token);
  });
  afterAll(async () => {
    await agent?.close();
    await env?.stop();
    await cleanup();
    await canary?.close();
    await site?.close();
  });

  it('refuses a connection without a token or with a bad one: 401 with the contract body and WWW-Authenticate', async () => {
    await expect(connect(null)).rejects.toThrow(/missing_token/);
    await expect(connect('not-a-token')).rejects.toThrow(/invalid_token/);
    const raw = await http(env.url, '/mcp', { headers: MCP_HEADERS, json: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(raw.status).toBe(401);
    expect(raw.body).toEqual({ detail: expect.any(String), error_code: 'missing_token' });
    expect(raw.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('negotiates the protocol, is stateless (no session id), and answers GET and DELETE with 405', async () => {
    expect(agent.getServerVersion()).toMatchObject({ name: 'scrape-platform', version: '0.1.0' });
    expect(agent.getServerCapabilities()?.tools).toBeDefined();
    expect(agent.getInstructions()).toMatch(/UNTRUSTED_WEB_CONTENT/);
    const init = await http(env.url, '/mcp', {
      token,
      headers: MCP_HEADERS,
      json: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
      },
    });
    expect(init.status).toBe(200);
    expect(init.body.result.protocolVersion).toBe('2025-06-18');
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expectUsageHeaders(init);
    for (const method of ['GET', 'DELETE']) {
      const refused = await http(env.url, '/mcp', { method, token, headers: MCP_HEADERS });
      expect(refused.status).toBe(405);
      expect(refused.headers.get('allow')).toBe('POST');
    }
    const notification = await http(env.url, '/mcp', {
      token,
      headers: MCP_HEADERS,
      json: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
    expect(notification.status).toBe(202);
    const notAcceptable = await http(env.url, '/mcp', {
      token,
      headers: { accept: 'application/json' },
      json: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    });
    expect(notAcceptable.status).toBe(406);
    const notJsonRpc = await http(env.url, '/mcp', { token, headers: MCP_HEADERS, json: { hello: 'world' } });
    expect(notJsonRpc.status).toBe(400);
    expect(notJsonRpc.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('lists the tools, each with valid input and output JSON Schemas, a description and annotations', async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(() => ajv.compile(tool.inputSchema)).not.toThrow();
      expect(() => ajv.compile(tool.outputSchema!)).not.toThrow();
      expect(tool.annotations).toMatchObject({
        // Starting a crawl or a monitor are the tools that change something (it exists afterwards).
        readOnlyHint: !['crawl_site', 'create_monitor'].includes(tool.name),
        destructiveHint: false,
        idempotentHint: expect.any(Boolean),
        openWorldHint: expect.any(Boolean),
      });
    }
    const scrapeUrl = tools.find((t) => t.name === 'scrape_url')!;
    expect(Object.keys(scrapeUrl.inputSchema.properties!).sort()).toEqual([
      'actions',
      'browser',
      'browser_type',
      'cursor',
      'extract',
      'format',
      'include_frames',
      'language',
      'max_age',
      'max_chars',
      'max_pages',
      'max_tokens',
      'ocr',
      'offset',
      'pages',
      'retry_on_block',
      'screenshot',
      'tokenizer',
      'url',
      'use_proxy',
      'window_size',
    ]);
    // The browser actions come from the REST contract: an action list the API accepts validates against the tool's schema.
    const validScrape = ajv.compile(scrapeUrl.inputSchema);
    expect(
      validScrape({
        url: 'https://example.com/',
        browser: true,
        actions: [
          { type: 'click', selector: 'css:#more' },
          { type: 'wait-for-timeout', time: 100 },
        ],
      }),
    ).toBe(true);
    expect(validScrape({ url: 'https://example.com/', bogus: true })).toBe(false);
    expect(tools.find((t) => t.name === 'discover')!.annotations!.openWorldHint).toBe(true);
    expect(tools.find((t) => t.name === 'check_billing')!.annotations).toMatchObject({ openWorldHint: false, idempotentHint: true });
  });

  it('scrape_as_markdown reads a document by pages, a credit per page', async () => {
    const second = await call('scrape_as_markdown', { url: `${site.url}/report.pdf`, pages: '2' });
    expect(second.isError).toBe(false);
    const markdown = (second.structuredContent as { markdown: string; credits_charged: number }).markdown;
    expect(markdown).toContain('<!-- page 2 -->');
    expect(markdown).not.toContain('<!-- page 1 -->');
    expect((second.structuredContent as { credits_charged: number }).credits_charged).toBe(1);
    const refused = await call('scrape_as_markdown', { url: `${site.url}/report.pdf`, pages: '3-1' });
    expect(refused.isError).toBe(true);
  });

  it('scrape_as_markdown: main content by default with the title and the final URL after redirects; full_page for everything', async () => {
    const main = await call('scrape_as_markdown', { url: `${site.url}/news` });
    expect(main.isError).toBeFalsy();
    const text = textOf(main);
    expect(text).toContain('Title: Green tea, brewed right');
    const md = fenced(text, nonceOf(text), 'markdown')!;
    expect(md.startsWith('# Green tea, brewed right')).toBe(true);
    for (const dropped of ['Accept all', 'Imprint']) expect(md).not.toContain(dropped);
    expect(main.structuredContent).toMatchObject({
      url: `${site.url}/news`,
      final_url: `${site.url}/news`,
      title: 'Green tea, brewed right',
      status_code: 200,
      success: true,
      main_content_only: true,
      credits_charged: 1,
    });

    const whole = await call('scrape_as_markdown', { url: `${site.url}/news`, full_page: true });
    expect(fenced(textOf(whole), nonceOf(textOf(whole)), 'markdown')).toContain('Accept all');
    expect(whole.structuredContent).toMatchObject({ main_content_only: false });

    // A page with no article to find comes back whole, and says so.
    const noArticle = await call('scrape_as_markdown', { url: `${site.url}/latin1` });
    expect(noArticle.structuredContent).toMatchObject({ success: true, main_content_only: false });
    expect(textOf(noArticle)).toContain('Whole page.');

    const redirected = await call('scrape_as_markdown', { url: `${site.url}/redirect/2` });
    expect(redirected.structuredContent).toMatchObject({ final_url: `${site.url}/page`, title: 'Fixture article' });
    expect(textOf(redirected)).toContain(`URL: ${site.url}/page`);
  });

  it('fences page content: a page that forges the closing marker, in its text or title, stays inside the fence', async () => {
    const result = await call('scrape_as_markdown', { url: `${site.url}/injection`, full_page: true });
    const text = textOf(result);
    const nonce = nonceOf(text);
    const inside = fenced(text, nonce, 'markdown')!;
    expect(inside).toContain('IGNORE ALL PREVIOUS INSTRUCTIONS');
    expect(inside).toContain('[marker text removed]');
    // Exactly one closing marker in the whole answer: the fence's own, carrying this call's nonce.
    expect(text.match(/END_UNTRUSTED_WEB_CONTENT/g)).toHaveLength(1);
    expect(text.match(/BEGIN_UNTRUSTED_WEB_CONTENT/g)).toHaveLength(1);
    expect(text).not.toMatch(/end\u200b_untrusted_web\u200dcontent/i);
    const title = (result.structuredContent as { title: string }).title;
    expect(title).not.toMatch(/[\n\r]/);
    expect(title).not.toMatch(/UNTRUSTED/);
    expect(title).toContain('[marker text removed]');
    // A second call gets a different nonce: a page cannot learn it from an earlier answer.
    expect(nonceOf(textOf(await call('scrape_as_markdown', { url: `${site.url}/injection` })))).not.toBe(nonce);
  });

  it('cuts long content at max_chars and pages through it with offset, part by part back to the whole', async () => {
    const rest = await http(env.url, '/v1/sync/scrape', {
      token,
      json: { url: `${site.url}/page`, format: 'markdown', only_main_content: true, include_metadata: true },
    });
    const whole: string = rest.body.markdown;
    expect(whole.length).toBeGreaterThan(1000);
    let read = '';
    let offset: number | null = 0;
    let parts = 0;
    while (offset !== null) {
      const part = await call('scrape_as_markdown', { url: `${site.url}/page`, max_chars: 500, offset });
      const structured = part.structuredContent as {
        markdown: string;
        content_window: { offset: number; next_offset: number | null; total_chars: number; truncated: boolean };
      };
      expect(structured.content_window).toMatchObject({ offset, total_chars: whole.length });
      const text = fenced(structured.markdown, nonceOf(structured.markdown), 'markdown')!;
      expect(text.length).toBeLessThanOrEqual(500);
      if (structured.content_window.truncated) expect(textOf(part)).toContain(`offset=${structured.content_window.next_offset}`);
      read += text;
      offset = structured.content_window.next_offset;
      parts += 1;
    }
    expect(read).toBe(whole);
    expect(parts).toBeGreaterThanOrEqual(3);
  });

  it('cuts content to a token budget with max_tokens and pages it to the end with the cursor; bad cursors are argument errors', async () => {
    // Its own URL: the page cache entry it keeps is not the one the max_chars test below starts without.
    const url = `${site.url}/page?windows=tokens`;
    const rest = await http(env.url, '/v1/sync/scrape', {
      token,
      json: { url, format: 'markdown', only_main_content: true, include_metadata: true },
    });
    const whole: string = rest.body.markdown;
    let read = '';
    let cursor: string | null = null;
    let windows = 0;
    do {
      const part = await call('scrape_as_markdown', { url, max_tokens: 120, max_age: 3600, ...(cursor ? { cursor } : {}) });
      expect(part.isError).toBe(false);
      const structured = part.structuredContent as {
        markdown: string;
        content_window: {
          tokens: number;
          total_tokens: number;
          tokenizer: string;
          cursor: string | null;
          truncated: boolean;
          offset: number;
          error: null;
        };
      };
      expect(structured.content_window).toMatchObject({ tokenizer: 'o200k_base', offset: read.length, error: null });
      expect(structured.content_window.tokens).toBeLessThanOrEqual(120);
      read += fenced(structured.markdown, nonceOf(structured.markdown), 'markdown')!;
      cursor = structured.content_window.cursor;
      if (cursor) expect(textOf(part)).toContain(`cursor="${cursor}"`);
      windows += 1;
    } while (cursor);
    expect(read).toBe(whole);
    expect(windows).toBeGreaterThanOrEqual(3);

    const bad = await call('scrape_as_markdown', { url: `${site.url}/page`, max_tokens: 120, cursor: 'made-up' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('invalid_cursor');
    const both = await call('scrape_url', { url: `${site.url}/page`, max_tokens: 120, max_chars: 500 });
    expect(both.isError).toBe(true);
    expect(textOf(both)).toContain('conflicting_windows');
  });

  it('reads the next part of a page from the page cache with max_age: the second call fetches nothing and costs nothing', async () => {
    const args = { url: `${site.url}/page`, max_chars: 500, max_age: 3600 };
    const first = await call('scrape_as_markdown', args);
    expect(first.structuredContent).toMatchObject({ credits_charged: 1 });
    const next = await eventually(
      async () => {
        const part = await call('scrape_as_markdown', { ...args, offset: 500 });
        return textOf(part).includes('from the page cache') ? part : false;
      },
      { what: 'the page cache answering' },
    );
    expect(next.structuredContent).toMatchObject({ credits_charged: 0, content_window: { offset: 500 } });
    expect(textOf(next)).toMatch(/from the page cache \(hit, \d+ s old\), 0 credits charged/);
  });

  it('scrape_url: html or markdown with extract fenced as page_data, guidance when the site refuses, and a screenshot as image content', async () => {
    const html = await call('scrape_url', { url: `${site.url}/page` });
    expect(html.structuredContent).toMatchObject({
      status_code: 200,
      success: true,
      format: 'html',
      credits_charged: 1,
      screenshot_attached: false,
      page_data: null,
    });
    expect(fenced(textOf(html), nonceOf(textOf(html)), 'html')).toContain('<h1>Fixture article</h1>');

    const extracted = await call('scrape_url', { url: `${site.url}/news`, format: 'markdown', extract: { heading: 'css:h1' } });
    const pageData = (extracted.structuredContent as { page_data: string }).page_data;
    expect(JSON.parse(fenced(pageData, nonceOf(pageData), 'page_data')!)).toEqual({
      extracted_data: { heading: 'Green tea, brewed right' },
    });

    const refused = await call('scrape_url', { url: `${site.url}/status/403` });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({
      status_code: 403,
      success: false,
      credits_charged: 1,
      guidance: { success: false, error_type: expect.any(String) },
    });
    expect(textOf(refused)).toMatch(/Next steps:/);

    const shot = await call('scrape_url', { url: `${site.url}/page`, browser: true, browser_type: 'light', screenshot: true });
    expect(shot.structuredContent).toMatchObject({ success: true, screenshot_attached: true, credits_charged: 5 });
    const image = shot.content.find((c) => c.type === 'image') as { data: string; mimeType: string };
    expect(image.mimeType).toBe('image/png');
    expect(Buffer.from(image.data, 'base64').subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(textOf(shot)).not.toContain(image.data.slice(0, 100));
  });

  it('bad arguments and unknown tools: a clear validation message as a tool error, never a JSON-RPC internal error', async () => {
    const bad = await call('scrape_url', { url: 5, browser: 'yes', screenshot: true, bogus: 1, max_chars: 10 });
    expect(bad.isError).toBe(true);
    const text = textOf(bad);
    for (const field of ['arguments.url', 'arguments.browser', 'arguments.bogus', 'arguments.max_chars']) expect(text).toContain(field);
    expect(text).toMatch(/invalid_arguments/);
    expect((await call('health_check', { verbose: true })).isError).toBe(true);
    expect((await call('discover', { url: 'ftp://example.com/' })).isError).toBe(true);
    await expect(call('delete_everything')).rejects.toThrow(/Unknown tool/);
  });

  it('discover: the viability analysis of one URL, with ready-to-use scrape_url arguments, charged per probe', async () => {
    const result = await call('discover', { url: `${site.url}/page`, depth: 'quick' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      depth: 'quick',
      credits_charged: 2,
      verdict: {
        recommended_strategy: 'extract_html',
        difficulty: 'easy',
        can_use_simple_request: true,
        suggested_request: { url: `${site.url}/page` },
      },
    });
    expect(textOf(result)).toMatch(/recommended strategy extract_html, difficulty easy; 2 credits charged/);
    const probes = await ledger().sql.query<{ charge_key: string; details: Record<string, unknown> }>(
      "select charge_key, details from credit_ledger_entries where client_id = $1 and charge_key like 'discover:%'",
      [clientId],
    );
    expect(probes.map((p) => p.details.probe).sort()).toEqual(['extract_html', 'simple_request']);
  });

  it('map_site lists URLs fenced and windowed; crawl_site starts a crawl and crawl_status reads its pages fenced, page by page', async () => {
    const mapped = await call('map_site', { url: `${site.url}/page`, sitemap: 'skip', max_depth: 0, max_chars: 100 });
    expect(mapped.isError).toBeFalsy();
    const mapData = mapped.structuredContent as {
      count: number;
      credits_charged: number;
      urls: string;
      content_window: { truncated: boolean };
    };
    expect(mapData.count).toBeGreaterThan(0);
    expect(mapData.credits_charged).toBe(1);
    expect(fenced(mapData.urls, nonceOf(mapData.urls), 'urls')).toContain(`${site.url}/page`);
    // By tokens: the list read window by window with the cursor is the whole list, each window within its budget.
    const whole = await call('map_site', { url: `${site.url}/page`, sitemap: 'skip', max_depth: 0 });
    const wholeList = fenced(
      (whole.structuredContent as { urls: string }).urls,
      nonceOf((whole.structuredContent as { urls: string }).urls),
      'urls',
    );
    const windows: string[] = [];
    let mapCursor: string | null = null;
    for (let n = 0; n === 0 || mapCursor; n += 1) {
      if (n > 50) throw new Error('map_site windows never ended');
      const part = await call('map_site', {
        url: `${site.url}/page`,
        sitemap: 'skip',
        max_depth: 0,
        max_tokens: 16,
        ...(mapCursor ? { cursor: mapCursor } : {}),
      });
      expect(part.isError).toBeFalsy();
      const partData = part.structuredContent as {
        urls: string;
        content_window: { tokens: number; tokenizer: string; cursor: string | null };
      };
      expect(partData.content_window).toMatchObject({ tokenizer: 'o200k_base' });
      expect(partData.content_window.tokens).toBeLessThanOrEqual(16);
      windows.push(fenced(partData.urls, nonceOf(partData.urls), 'urls') ?? '');
      mapCursor = partData.content_window.cursor;
    }
    expect(windows.length).toBeGreaterThan(1);
    expect(windows.join('')).toBe(wholeList);
    expect(textOf(await call('map_site', { url: `${site.url}/page`, max_tokens: 16, offset: 3 }))).toContain('conflicting_windows');

    const started = await call('crawl_site', { url: `${site.url}/page`, sitemap: 'skip', max_depth: 0 });
    expect(started.isError).toBeFalsy();
    const crawlId = (started.structuredContent as { crawl: { crawl_id: string; state: string } }).crawl.crawl_id;
    expect(textOf(started)).toContain(`crawl_status with crawl_id "${crawlId}"`);
    let status: CallToolResult;
    for (let tries = 0; ; tries += 1) {
      status = await call('crawl_status', { crawl_id: crawlId, pages: 2 });
      if ((status.structuredContent as { crawl: { status: string } }).crawl.status === 'completed') break;
      if (tries > 100) throw new Error(textOf(status));
      await new Promise((r) => setTimeout(r, 200));
    }
    const data = status.structuredContent as {
      crawl: { completed: number; credits_charged: number };
      pages: string;
      page_urls: string[];
      next_cursor: string | null;
    };
    expect(data.crawl).toMatchObject({ completed: 1, credits_charged: 1 });
    expect(data.page_urls).toEqual([`${site.url}/page`]);
    expect(data.next_cursor).toBeNull();
    expect(fenced(data.pages, nonceOf(data.pages), 'markdown')).toContain(`## ${site.url}/page`);
    // The pages' share of a token budget: the page cut at whole paragraphs, and said so in tokens.
    const byTokens = await call('crawl_status', { crawl_id: crawlId, pages: 1, max_tokens: 16 });
    const cut = (byTokens.structuredContent as { pages: string }).pages;
    expect(fenced(cut, nonceOf(cut), 'markdown')).toMatch(/\[cut at \d+ of \d+ tokens \(o200k_base\)\]$/);
    expect(textOf(await call('crawl_status', { crawl_id: crawlId, max_tokens: 100, max_chars: 500 }))).toContain('conflicting_windows');
    expect((await call('crawl_status', { crawl_id: '00000000-0000-4000-8000-000000000000' })).isError).toBe(true);
    expect((await call('crawl_site', { url: `${site.url}/page`, max_pages: 0 })).isError).toBe(true);
    for (const url of [`http://127.0.0.1:${canary.port}/`, 'http://169.254.169.254/latest/meta-data/']) {
      for (const tool of ['map_site', 'crawl_site']) {
        const refused = await call(tool, { url });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(/target_blocked|not (a )?public|not allowed/i);
      }
    }
  });

  it('create_monitor watches pages and monitor_changes reads what its ticks found; bad arguments are tool errors', async () => {
    const created = await call('create_monitor', {
      urls: [`${site.url}/page`, `${site.url}/news`],
      interval_seconds: 3600,
      ignore_patterns: ['\\d{2}:\\d{2}'],
    });
    expect(created.isError).toBeFalsy();
    const monitor = (created.structuredContent as { monitor: { id: string; state: string } }).monitor;
    expect(monitor.state).toBe('active');
    const read = await eventually(
      async () => {
        const answer = await call('monitor_changes', { monitor_id: monitor.id });
        return (answer.structuredContent as { changes: unknown[] }).changes.length === 2 ? answer : false;
      },
      { what: 'the first tick read back' },
    );
    expect((read.structuredContent as { changes: Array<{ change_status: string }> }).changes.map((c) => c.change_status)).toEqual([
      'new',
      'new',
    ]);
    expect(textOf(read)).toContain(`new ${site.url}/page`);
    const tooOften = await call('create_monitor', { urls: [`${site.url}/page`], interval_seconds: 60 });
    expect(tooOften.isError).toBe(true);
    expect(textOf(tooOften)).toContain('interval_seconds');
    expect((await call('monitor_changes', { monitor_id: 'nope' })).isError).toBe(true);
    const both = await call('monitor_changes', { monitor_id: monitor.id, max_tokens: 100, max_chars: 500 });
    expect(both.isError).toBe(true);
    expect(textOf(both)).toContain('conflicting_windows');
    expect((await call('monitor_changes', { monitor_id: monitor.id, max_tokens: 100 })).isError).toBeFalsy();
    await http(env.url, `/v1/monitors/${monitor.id}`, { token, method: 'DELETE' });
  });

  it('list_proxy_countries, check_billing and health_check', async () => {
    const countries = await call('list_proxy_countries');
    expect(countries.structuredContent).toMatchObject({ approved_countries: [], pending_countries: [] });
    expect((countries.structuredContent as { countries: Array<{ code: string }> }).countries).toContainEqual({
      code: 'DE',
      name: 'Germany',
    });
    // `used` counts held credits too: a gateway's lease block from the calls before is given back
    // after CREDIT_LEASE_IDLE_MS (2 s) without a charge. Read it once nothing is held any more.
    const used = await ledgerCredits(clientId);
    let billing = await call('check_billing');
    for (const until = Date.now() + 15_000; Date.now() < until; billing = await call('check_billing')) {
      if ((billing.structuredContent as { credits: { used: number } }).credits.used === used) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(billing.structuredContent).toMatchObject({
      client_id: clientId,
      plan: 'pro',
      credits: { used, charged: { total: used } },
      rate_limit_per_minute: expect.any(Number),
    });
    const health = await call('health_check');
    expect(health.structuredContent).toMatchObject({ status: 'ok', runtime: runtime.mode });
  });

  it('charges exactly as REST, each call recorded in the ledger, even when the client sends one X-Request-Id on every call', async () => {
    const fresh = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro' } })).body;
    const sameId = { 'x-request-id': 'agent-fixed-id' };
    const client = await connect(fresh.token, sameId);
    try {
      let reported = 0;
      for (const args of [{ url: `${site.url}/page` }, { url: `${site.url}/page` }, { url: `${site.url}/status/404` }]) {
        reported += (await call('scrape_as_markdown', args, client)).structuredContent!.credits_charged as number;
      }
      reported +=
        ((await call('scrape_url', { url: `http://127.0.0.1:${canary.port}/` }, client)).structuredContent?.credits_charged as number) ?? 0;
      for (let i = 0; i < 2; i += 1) {
        const rest = await http(env.url, '/v1/sync/scrape', { token: fresh.token, headers: sameId, json: { url: `${site.url}/page` } });
        expect(rest.headers.get('x-credits-charged')).toBe('1');
        reported += 1;
      }
      expect(reported).toBe(5);
      expect(await ledgerCredits(fresh.client_id)).toBe(5);
      const entries = await ledger().sql.query<{ charge_key: string }>(
        'select charge_key from credit_ledger_entries where client_id = $1',
        [fresh.client_id],
      );
      expect(new Set(entries.map((e) => e.charge_key)).size).toBe(5);
    } finally {
      await client.close();
    }
  });

  it('a hostile URL reaches nothing: every tool answers it as the error target_blocked, uncharged', async () => {
    const before = canary.connections();
    for (const url of [
      `http://127.0.0.1:${canary.port}/`,
      'http://169.254.169.254/latest/meta-data/',
      `${site.url}/redirect-to?url=${encodeURIComponent(`http://127.0.0.1:${canary.port}/`)}`,
    ]) {
      const scraped = await call('scrape_url', { url });
      expect(scraped.isError).toBe(true);
      expect(textOf(scraped)).toMatch(/target_blocked|not (a )?public|not allowed/i);
      const read = await call('scrape_as_markdown', { url });
      expect(read.isError).toBe(true);
      // Not a verdict of "blocked" with "Blockers: none seen" beside it: the address is refused.
      const discovered = await call('discover', { url, depth: 'quick' });
      expect(discovered.isError).toBe(true);
      expect(JSON.parse((discovered.content[1] as Text).text).guidance).toMatchObject({ error_type: 'target_blocked' });
      expect(textOf(discovered)).toMatch(/not a public address.*0 credits charged/);
      expect(textOf(discovered)).not.toMatch(/Blockers/);
    }
    expect(canary.connections()).toBe(before);
  });

  it('never does more than the token may: an unapproved country pool and an exhausted quota are tool errors with guidance, uncharged', async () => {
    const country = await call('scrape_url', { url: `${site.url}/page`, use_proxy: 'DE' });
    expect(country.isError).toBe(true);
    const guidance = JSON.parse((country.content[1] as Text).text).guidance;
    expect(guidance).toMatchObject({
      error_type: 'country_not_approved',
      suggested_request: { url: `${site.url}/page`, use_proxy: 'any' },
    });
    expect(guidance.next_steps.join(' ')).toMatch(/list_proxy_countries/);

    const poor = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro', monthly_credits: 1 } })).body;
    const client = await connect(poor.token);
    try {
      expect((await call('scrape_as_markdown', { url: `${site.url}/page` }, client)).isError).toBeFalsy();
      const refused = await call('scrape_as_markdown', { url: `${site.url}/page` }, client);
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/quota_exceeded[\s\S]*check_billing/);
      const discover = await call('discover', { url: `${site.url}/page`, depth: 'quick' }, client);
      expect(textOf(discover)).toMatch(/quota_exceeded/);
      expect(await ledgerCredits(poor.client_id)).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('counts against the rate limit: HTTP 429 past the limit, and each extra call of a JSON-RPC batch counts', async () => {
    const limited = (await http(env.url, '/v1/admin/clients', { token: env.adminToken, json: { plan: 'pro', rate_limit_per_minute: 2 } }))
      .body;
    const batch = [1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'health_check', arguments: {} } }));
    const answered = await http(env.url, '/mcp', {
      token: limited.token,
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' },
      json: batch,
    });
    expect(answered.status).toBe(200);
    const results = (answered.body as Array<{ id: number; result: CallToolResult }>).sort((a, b) => a.id - b.id).map((r) => r.result);
    // The HTTP request was the first count; the batch's calls run at once, so either of the two later ones meets the limit.
    expect(results[0].isError).toBeFalsy();
    const refused429 = results.filter((r) => r.isError === true);
    expect(refused429).toHaveLength(1);
    expect(textOf(refused429[0])).toMatch(/rate_limit_exceeded/);
    const refused = await http(env.url, '/mcp', {
      token: limited.token,
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' },
      json: batch[0],
    });
    expect(refused.status).toBe(429);
    expect(refused.body.error_code).toBe('rate_limit_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
