import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import {
  ACTION_TYPES,
  API_DEFAULTS,
  type ActionRow,
  emptyForm,
  fromRequest,
  type ScrapeForm,
  toRequest,
} from '../../apps/console/src/playground/scrape-form';

/**
 * The playground form and the scrape request: a request handed to the playground (a suggested
 * request from guidance or viability) must come back out of the form unchanged, whatever it holds.
 * Property: for any form, request → form → request is the identity on the request.
 */
const word = fc.string({ maxLength: 12 });
const numeric = fc.oneof(fc.constant(''), fc.nat({ max: 100_000 }).map(String));
const json = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v));
const pairs = fc.array(fc.record({ name: word, value: word }), { maxLength: 3 });

const action: fc.Arbitrary<ActionRow> = fc
  .record({
    type: fc.constantFrom(...ACTION_TYPES),
    selector: word,
    text: word,
    value: word,
    key: word,
    script: word,
    time: numeric,
    timeout: numeric,
    waitForNavigation: fc.boolean(),
    optional: fc.boolean(),
    json: fc.constant(''),
  })
  .chain((row) =>
    row.type === 'collect'
      ? fc.dictionary(word, word, { maxKeys: 3 }).map((extract) => ({ ...row, json: JSON.stringify(extract) }))
      : row.type === 'while'
        ? fc
            .record({
              condition: fc.record({ selector: word }),
              actions: fc.constant([{ type: 'click', selector: 'a' }]),
              max_iterations: fc.nat(50),
            })
            .map((w) => ({ ...row, json: JSON.stringify(w) }))
        : fc.constant(row),
  );

const form: fc.Arbitrary<ScrapeForm> = fc.record({
  url: word,
  format: fc.constantFrom('html' as const, 'markdown' as const),
  onlyMainContent: fc.boolean(),
  includeImages: fc.boolean(),
  includeMetadata: fc.boolean(),
  browser: fc.boolean(),
  browserType: fc.constantFrom('light' as const, 'heavy' as const),
  proxy: fc.constantFrom('', 'any', 'DE', ' us '),
  proxyMaxRetries: numeric,
  proxyDelaySeconds: numeric,
  proxyBackoffFactor: numeric,
  screenshot: fc.boolean(),
  retryOnBlock: fc.boolean(),
  ocr: fc.boolean(),
  language: word,
  windowSize: fc.constantFrom('' as const, 'desktop' as const, 'mobile' as const, 'any' as const),
  customId: word,
  pages: fc.constantFrom('', '1-5', '3', '2,7-'),
  maxPages: numeric,
  httpMethod: fc.constantFrom('get' as const, 'post' as const),
  payload: fc.oneof(fc.constant(''), json),
  contentType: fc.constantFrom('json' as const, 'form' as const),
  networkCapture: fc.boolean(),
  resourceTypes: fc.subarray(['xhr', 'fetch', 'document', 'script']).map((t) => t.join(', ')),
  listenAfterLoadMs: numeric,
  actions: fc.array(action, { maxLength: 4 }),
  extract: pairs,
  headers: pairs,
  cookies: pairs,
});

/** The scrape request's defaults as the served OpenAPI document states them (the committed copy, checked against the code by the contract tests). */
const documentDefaults: Record<string, unknown> = Object.fromEntries(
  Object.entries(
    (
      JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../sdk/openapi.json'), 'utf8')) as {
        components: { schemas: { SyncScrapeRequest: { properties: Record<string, { default?: unknown }> } } };
      }
    ).components.schemas.SyncScrapeRequest.properties,
  )
    .filter(([, property]) => 'default' in property)
    .map(([name, property]) => [name, property.default]),
);

/** What the form shows for each field that has an API default, as the request field it stands for. */
function shown(filled: ScrapeForm): Record<string, unknown> {
  return {
    format: filled.format,
    only_main_content: filled.onlyMainContent,
    include_images: filled.includeImages,
    include_metadata: filled.includeMetadata,
    browser: filled.browser,
    // The browser type is on screen (and means something) only in browser mode.
    ...(filled.browser ? { browser_type: filled.browserType } : {}),
    screenshot: filled.screenshot,
    retry_on_block: filled.retryOnBlock,
    ...(filled.language.trim() !== '' ? { language: filled.language.trim() } : {}),
    // "default (desktop)" is the API's default, shown as such.
    window_size: filled.windowSize === '' ? 'desktop' : filled.windowSize,
  };
}

describe('the playground form and the scrape request', () => {
  it("knows the API's defaults as the OpenAPI document states them", () => {
    for (const [field, value] of Object.entries(API_DEFAULTS)) expect([field, documentDefaults[field]]).toEqual([field, value]);
    expect(documentDefaults.window_size).toBe('desktop');
  });

  it('sends a request that means exactly what the form shows, every default included', () => {
    fc.assert(
      fc.property(form, (filled) => {
        const request = toRequest(filled) as Record<string, unknown>;
        // What the API will act on: the request, with the document's default for every field left out.
        const effective = { ...documentDefaults, ...request };
        const onScreen = shown(filled);
        for (const field of Object.keys(onScreen)) expect([field, effective[field]]).toEqual([field, onScreen[field]]);
      }),
      { numRuns: 1000 },
    );
    // The two the property was written for: light shown is light sent; unchecked images are sent as false.
    const defaults = toRequest({ ...emptyForm(), url: 'https://example.com/', browser: true, includeImages: false });
    expect(defaults).toMatchObject({ browser: true, browser_type: 'light', include_images: false });
  });

  it('shows a handed request as the API reads it: a field left out is the API default', () => {
    fc.assert(
      fc.property(form, (filled) => {
        const request = toRequest(filled) as Record<string, unknown>;
        const back = shown(fromRequest(request));
        const onScreen = shown(filled);
        expect(back).toEqual(onScreen);
      }),
      { numRuns: 400 },
    );
    expect(fromRequest({ url: 'https://example.com/', browser: true })).toMatchObject({
      browserType: 'heavy',
      includeImages: true,
      format: 'html',
    });
  });

  it('gives back any request handed to it unchanged (request → form → request)', () => {
    fc.assert(
      fc.property(form, (filled) => {
        const request = toRequest(filled);
        expect(toRequest(fromRequest(request as Record<string, unknown>))).toEqual(request);
      }),
      { numRuns: 400 },
    );
  });

  it('sends only what the user set: an empty form is just the URL', () => {
    expect(toRequest({ ...emptyForm(), url: ' https://example.com/ ', format: 'html' })).toEqual({ url: 'https://example.com/' });
    // The form opens on markdown (shown, so sent), images included and the API's window size.
    expect(toRequest({ ...emptyForm(), url: 'https://example.com/' })).toEqual({ url: 'https://example.com/', format: 'markdown' });
    expect(toRequest({ ...emptyForm(), url: 'https://example.com/', proxy: 'DE', proxyMaxRetries: '2' })).toEqual({
      url: 'https://example.com/',
      format: 'markdown',
      use_proxy: { proxy: 'DE', max_retries: 2 },
    });
  });

  it('names the field of JSON it cannot read, as the API names its fields', () => {
    expect(() => toRequest({ ...emptyForm(), url: 'https://example.com/', httpMethod: 'post', payload: '{oops' })).toThrow(
      expect.objectContaining({ path: ['http_method', 'payload'] }),
    );
  });
});
