import { ContentValidator } from '../content-validation/content-validator';
import { GuidanceAdvisor } from './guidance-advisor';

const validator = new ContentValidator();
const advisor = new GuidanceAdvisor();
const request = { url: 'https://example.com/', browser: false, retry_on_block: false, use_proxy: null };
const verdictFor = (statusCode: number, body: string, headers = {}) =>
  validator.validate({ statusCode, body, headers, contentType: 'text/html' });
const article = `<html><body>${'<p>Readable content for a real page. </p>'.repeat(60)}</body></html>`;

describe(GuidanceAdvisor.name, () => {
  it('reports success with nothing to do', () => {
    expect(advisor.advise(request, { kind: 'response', statusCode: 200, verdict: verdictFor(200, article), attempts: 1 }, 1)).toEqual({
      success: true,
      error_type: null,
      error_provider: null,
      credits_charged: 1,
      credits_refunded: false,
      next_steps: [],
      suggested_request: null,
      stop_reason: null,
    });
  });

  it('suggests a browser with rotation for a CAPTCHA, naming the provider, and stops once that failed too', () => {
    const verdict = verdictFor(
      200,
      '<html><body><div class="g-recaptcha"></div><script src="https://www.google.com/recaptcha/api.js"></script></body></html>',
    );
    const first = advisor.advise(request, { kind: 'response', statusCode: 200, verdict, attempts: 1 }, 1);
    expect(first).toMatchObject({
      success: false,
      error_type: 'captcha',
      error_provider: 'recaptcha',
      credits_charged: 1,
      stop_reason: null,
    });
    expect(first.suggested_request).toMatchObject({
      url: request.url,
      browser: true,
      browser_type: 'heavy',
      retry_on_block: true,
      use_proxy: 'any',
    });
    const last = advisor.advise(
      { ...request, browser: true, retry_on_block: true },
      { kind: 'response', statusCode: 200, verdict, attempts: 4 },
      5,
    );
    expect(last.suggested_request).toBeNull();
    expect(last.stop_reason).toMatch(/retrying will not help/);
  });

  it('suggests browser rendering for an empty JavaScript shell', () => {
    const g = advisor.advise(
      request,
      {
        kind: 'response',
        statusCode: 200,
        verdict: verdictFor(200, '<html><body><div id="root"></div><script src="/a.js"></script></body></html>'),
        attempts: 1,
      },
      1,
    );
    expect(g).toMatchObject({ error_type: 'empty_shell', suggested_request: { browser: true, browser_type: 'light' } });
  });

  it('says where the text of a shell is when its boot data holds it (format=html reads it without a browser)', () => {
    const prose = 'A hand-tufted rug in wool and cotton, soft underfoot and easy to clean. '.repeat(6);
    const shell = `<html><body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json">${JSON.stringify({ props: { description: prose } })}</script></body></html>`;
    const g = advisor.advise(request, { kind: 'response', statusCode: 200, verdict: verdictFor(200, shell), attempts: 1 }, 1);
    expect(g.error_type).toBe('empty_shell');
    expect(g.next_steps.join(' ')).toMatch(/__NEXT_DATA__, about \d[\d,]* characters of text\): request format=html/);
  });

  it('tells a 429 to back off and a 404 to stop', () => {
    expect(
      advisor.advise(request, { kind: 'response', statusCode: 429, verdict: verdictFor(429, 'slow down'), attempts: 1 }, 1).next_steps[0],
    ).toMatch(/rate-limited/);
    expect(
      advisor.advise(request, { kind: 'response', statusCode: 404, verdict: verdictFor(404, '<h1>Not found</h1>'), attempts: 1 }, 1),
    ).toMatchObject({ error_type: 'http_4xx', stop_reason: expect.stringMatching(/does not exist/) });
    expect(
      advisor.advise(request, { kind: 'response', statusCode: 502, verdict: verdictFor(502, 'bad gateway'), attempts: 1 }, 1),
    ).toMatchObject({ error_type: 'http_5xx', stop_reason: null });
  });

  it.each([
    ['dns_error', true],
    ['target_blocked', true],
    ['timeout', false],
    ['proxy_error', false],
    ['connection_error', false],
  ] as const)('advises on a %s failure (charged nothing, refunded)', (errorType, stops) => {
    const g = advisor.advise(request, { kind: 'failure', errorType, message: 'x', attempts: 1 }, 0);
    expect(g).toMatchObject({ success: false, error_type: errorType, credits_charged: 0, credits_refunded: true });
    expect(g.stop_reason !== null).toBe(stops);
    expect(g.next_steps.length).toBeGreaterThan(0);
  });
});
