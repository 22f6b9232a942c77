import { ScrapeRequest } from '@lib/contracts';
import { CREDIT_COST } from '@lib/plans';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import fc from 'fast-check';
import { cheapestEngineWith, ENGINE_PREFERENCE, engineOf, ENGINES, featuresOf, unsupportedBy } from './engine-table';

describe('the engine table', () => {
  it('prices engines as spec 8 does: simple 1 credit, either browser 5', () => {
    expect(ENGINES.simple.credits).toBe(CREDIT_COST.simple_request);
    expect(ENGINES.light.credits).toBe(CREDIT_COST.browser_request);
    expect(ENGINES.heavy.credits).toBe(CREDIT_COST.browser_request);
    expect([ENGINES.simple.mode, ENGINES.light.mode, ENGINES.heavy.mode]).toEqual(['simple', 'browser', 'browser']);
  });

  it('considers the cheapest engine first, then the faster of equal price', () => {
    expect(ENGINE_PREFERENCE).toEqual(['simple', 'light', 'heavy']);
  });

  it('picks the cheapest engine that can do what is asked', () => {
    expect(cheapestEngineWith(['page_content'])).toBe('simple');
    expect(cheapestEngineWith(['page_content', 'http_method'])).toBe('simple');
    expect(cheapestEngineWith(['page_content', 'screenshot'])).toBe('light');
    expect(cheapestEngineWith(['page_content', 'actions', 'network_capture'])).toBe('light');
    expect(cheapestEngineWith(['page_content', 'stealth'])).toBe('heavy');
    expect(cheapestEngineWith(['screenshot', 'http_method'])).toBeNull();
  });

  it('names the engine a request asks for', () => {
    expect(engineOf({ browser: false, browser_type: 'heavy' })).toBe('simple');
    expect(engineOf({ browser: true, browser_type: 'light' })).toBe('light');
    expect(engineOf({ browser: true, browser_type: 'heavy' })).toBe('heavy');
  });

  // The request rules of spec 4.2 (RequiresBrowser, NotWithBrowser on ScrapeRequest) and this table
  // must say the same thing: a request passes them exactly when its engine can do all it asks.
  it('agrees with the request rules of spec 4.2 for any combination of engine and features', async () => {
    const RULES = new Set(['requiresBrowser', 'notWithBrowser']);
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.constantFrom('light', 'heavy'),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        async (browser, browserType, screenshot, actions, capture, method) => {
          const plain: Record<string, unknown> = { url: 'https://example.com/', browser, browser_type: browserType, screenshot };
          if (actions) plain.actions = [{ type: 'wait-for-timeout', timeout: 10 }];
          if (capture) plain.network_capture = [{ validation: false }];
          if (method) plain.http_method = { method: 'post', payload: { a: 1 } };
          const request = plainToInstance(ScrapeRequest, plain);
          const errors = await validate(request);
          const ruleBroken = errors.some((error) => Object.keys(error.constraints ?? {}).some((rule) => RULES.has(rule)));
          expect(ruleBroken).toBe(unsupportedBy(engineOf(request), featuresOf(request)).length > 0);
        },
      ),
      { numRuns: 200 },
    );
  });
});
