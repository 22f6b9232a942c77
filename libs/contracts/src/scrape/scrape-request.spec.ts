import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import { ProxyConfig, ScrapeRequest } from './scrape-request';

async function check(body: Record<string, unknown>): Promise<{ value: ScrapeRequest; problems: string[] }> {
  const value = plainToInstance(ScrapeRequest, body);
  const errors = await validate(value, { whitelist: true, forbidNonWhitelisted: true });
  const flatten = (list: ValidationError[], prefix = ''): string[] =>
    list.flatMap((e) => [
      ...Object.keys(e.constraints ?? {}).map((c) => `${prefix}${e.property}:${c}`),
      ...flatten(e.children ?? [], `${prefix}${e.property}.`),
    ]);
  return { value, problems: flatten(errors) };
}

describe(ScrapeRequest.name, () => {
  it('applies the defaults of spec 2.1', async () => {
    const { value, problems } = await check({ url: 'https://example.com/' });
    expect(problems).toEqual([]);
    expect(value).toMatchObject({
      format: 'html',
      browser: false,
      browser_type: 'heavy',
      use_proxy: null,
      screenshot: false,
      actions: null,
      extract: null,
      headers: null,
      cookies: null,
      language: '',
      window_size: 'desktop',
      http_method: null,
      network_capture: null,
      retry_on_block: false,
    });
  });

  it('accepts a full browser request', async () => {
    const { problems } = await check({
      url: 'https://example.com/',
      format: 'markdown',
      browser: true,
      browser_type: 'light',
      use_proxy: { proxy: 'DE', max_retries: 2 },
      screenshot: true,
      actions: [
        { type: 'click', selector: 'css:#more' },
        { type: 'wait-for-timeout', time: 500 },
      ],
      extract: { title: 'h1', links: { selector: '//a/@href', multiple: true } },
      headers: { 'X-Test': '1' },
      cookies: { session: 'abc' },
      language: 'de-DE',
      window_size: 'mobile',
      network_capture: { resource_types: ['xhr', 'fetch'], listen_after_load_ms: 1000 },
      retry_on_block: true,
      custom_id: 'item-1',
    });
    expect(problems).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['screenshot without browser', { screenshot: true }, 'screenshot:requiresBrowser'],
    ['actions without browser', { actions: [{ type: 'click', selector: 'a' }] }, 'actions:requiresBrowser'],
    ['network_capture without browser', { network_capture: {} }, 'network_capture:requiresBrowser'],
    ['http_method with browser', { browser: true, http_method: { method: 'get' } }, 'http_method:notWithBrowser'],
    ['a GET with a payload', { http_method: { method: 'get', payload: { a: 1 } } }, 'http_method.payload:payloadNeedsPost'],
    ['an unknown format', { format: 'pdf' }, 'format:isIn'],
    ['an unknown browser_type', { browser: true, browser_type: 'medium' }, 'browser_type:isIn'],
    ['a bad country code', { use_proxy: 'Germany' }, 'use_proxy:isProxySelection'],
    ['a bad proxy config', { use_proxy: { proxy: 'any', max_retries: 99 } }, 'use_proxy:isProxySelection'],
    ['a proxy config with an unknown key', { use_proxy: { proxy: 'any', rotate: true } }, 'use_proxy:isProxySelection'],
    ['an unknown action type', { browser: true, actions: [{ type: 'teleport' }] }, 'actions:isBrowserActionList'],
    ['an empty extract map', { extract: {} }, 'extract:isExtractionMap'],
    ['an extract spec with unknown keys', { extract: { a: { selector: 'h1', mode: 'x' } } }, 'extract:isExtractionMap'],
    ['headers with a line break (header injection)', { headers: { 'X-A': 'a\r\nHost: evil' } }, 'headers:isStringMap'],
    ['non-string cookie values', { cookies: { a: 1 } }, 'cookies:isStringMap'],
    ['a malformed language', { language: 'english please' }, 'language:matches'],
    ['an unknown window_size', { window_size: 'tablet' }, 'window_size:isIn'],
    [
      'listen_after_load_ms over 10000',
      { browser: true, network_capture: { listen_after_load_ms: 10001 } },
      'network_capture.listen_after_load_ms:max',
    ],
    ['an unknown resource type', { browser: true, network_capture: { resource_types: ['beacon'] } }, 'network_capture.resource_types:isIn'],
    ['a custom_id over 255 characters', { custom_id: 'x'.repeat(256) }, 'custom_id:maxLength'],
    ['an unknown field', { colour: 'blue' }, 'colour:whitelistValidation'],
    ['a non-string url', { url: 42 }, 'url:isString'],
  ])('rejects %s', async (_label, fields, problem) => {
    const { problems } = await check({ url: 'https://example.com/', ...fields });
    expect(problems).toContain(problem);
  });

  it('keeps a proxy-config object typed, with its own defaults', async () => {
    const { value } = await check({ url: 'https://example.com/', use_proxy: { proxy: 'fr' } });
    expect(value.use_proxy).toBeInstanceOf(ProxyConfig);
    expect(value.use_proxy).toMatchObject({ proxy: 'fr', max_retries: 3, delay_seconds: 1, backoff_factor: 2 });
    expect((await check({ url: 'https://example.com/', use_proxy: 'any' })).value.use_proxy).toBe('any');
  });

  describe('browser actions', () => {
    const withActions = (actions: unknown[]) => check({ url: 'https://example.com/', browser: true, actions });

    it('accepts every action type, select and while included, nested while up to depth 3', async () => {
      const inner = { type: 'while', condition: { script: 'false' }, actions: [{ type: 'wait-for-timeout', time: 1 }] };
      const { value, problems } = await withActions([
        { type: 'click', selector: 'css:#go', wait_for_navigation: true, optional: true },
        { type: 'input', selector: '#q', text: 'tea' },
        { type: 'key-press', key: 'Enter' },
        { type: 'evaluate', script: 'document.title', timeout: 5000 },
        { type: 'collect', extract: { rows: { selector: 'li', multiple: true } } },
        { type: 'wait-for-selector', selector: '//main', time: 2000 },
        { type: 'select', selector: 'css:select#size', value: 'L' },
        {
          type: 'while',
          condition: { selector: 'css:a.next', state: 'visible' },
          max_iterations: 5,
          actions: [{ type: 'while', condition: { selector: 'css:x' }, actions: [inner] }],
        },
      ]);
      expect(problems).toEqual([]);
      expect(value.actions?.[7].constructor.name).toBe('WhileAction');
    });

    it.each([
      ['click without a selector', [{ type: 'click' }], 'actions.0.selector:isString'],
      ['input without text', [{ type: 'input', selector: '#q' }], 'actions.0.text:isString'],
      ['an unknown field on an action', [{ type: 'key-press', key: 'a', delay: 5 }], 'actions.0.delay:whitelistValidation'],
      ['evaluate with a zero timeout', [{ type: 'evaluate', script: '1', timeout: 0 }], 'actions.0.timeout:min'],
      ['select without a value', [{ type: 'select', selector: '#s' }], 'actions.0.value:isString'],
      [
        'while with both selector and script',
        [{ type: 'while', condition: { selector: '#a', script: 'true' }, actions: [] }],
        'actions.0.condition:exactlyOneCondition',
      ],
      [
        'while with an unknown state',
        [{ type: 'while', condition: { selector: '#a', state: 'hidden' }, actions: [] }],
        'actions.0.condition.state:isIn',
      ],
      [
        'while over 100 iterations',
        [{ type: 'while', condition: { script: 'true' }, actions: [], max_iterations: 101 }],
        'actions.0.max_iterations:max',
      ],
      [
        'a bad action inside a loop',
        [{ type: 'while', condition: { script: 'true' }, actions: [{ type: 'wait-for-timeout' }] }],
        'actions.0.actions.0.time:isInt',
      ],
      ['a wait over 30 s', [{ type: 'wait-for-timeout', time: 30001 }], 'actions.0.time:max'],
      ['collect with a bad extract', [{ type: 'collect', extract: { 'bad name': 'h1' } }], 'actions.0.extract:isExtractionMap'],
      ['an unknown action type', [{ type: 'click', selector: 'a' }, { type: 'jump' }], 'actions.1.type:isIn'],
      [
        'an unknown action type inside a loop',
        [{ type: 'while', condition: { script: 'true' }, actions: [{ type: 'hover' }] }],
        'actions.0.actions.0.type:isIn',
      ],
    ])('rejects %s at its own location', async (_label, actions, problem) => {
      expect((await withActions(actions)).problems).toContain(problem);
    });

    it('bounds while nesting to depth 3', async () => {
      const nest = (depth: number): unknown =>
        depth === 0 ? { type: 'wait-for-timeout', time: 1 } : { type: 'while', condition: { script: 'false' }, actions: [nest(depth - 1)] };
      expect((await withActions([nest(3)])).problems).toEqual([]);
      expect((await withActions([nest(4)])).problems).toContain('actions:withinActionLimits');
    });
  });
});
