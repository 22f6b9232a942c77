import type { ScrapeResultBody } from '@lib/contracts';
import { scrapeResult } from '../../../../test/support/scrape-fixtures';
import { modeTestOf } from './mode-test';

const result = (statusCode: number, guidance: Partial<ScrapeResultBody['guidance']>): ScrapeResultBody =>
  scrapeResult(statusCode, { guidance });

describe('modeTestOf', () => {
  it('usable content: success, charged, timed', () => {
    expect(modeTestOf(result(200, {}))).toEqual({
      success: true,
      status_code: 200,
      blocked: false,
      captcha_type: null,
      time_ms: 432,
      credits: 1,
      error: null,
    });
  });
  it('a CAPTCHA gate: blocked, the provider named, charged (the site answered)', () => {
    expect(
      modeTestOf(result(200, { success: false, error_type: 'captcha', error_provider: 'hcaptcha', credits_charged: 1 })),
    ).toMatchObject({ success: false, blocked: true, captcha_type: 'hcaptcha', error: 'captcha', credits: 1 });
  });
  it('a refusal (403) is blocked; a missing page (404) is a failure, not a block', () => {
    expect(modeTestOf(result(403, { success: false, error_type: 'http_4xx' }))).toMatchObject({ blocked: true, status_code: 403 });
    expect(modeTestOf(result(404, { success: false, error_type: 'http_4xx' }))).toMatchObject({
      blocked: false,
      status_code: 404,
      error: 'http_4xx',
    });
  });
  it('an infrastructure failure: no status, not blocked, free', () => {
    expect(modeTestOf(result(0, { success: false, error_type: 'dns_error', credits_charged: 0, credits_refunded: true }))).toMatchObject({
      success: false,
      status_code: null,
      blocked: false,
      credits: 0,
      error: 'dns_error',
    });
  });
});
