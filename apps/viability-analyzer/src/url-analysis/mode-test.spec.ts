import type { ScrapeResultBody } from '@lib/contracts';
import { modeTestOf } from './mode-test';

const result = (statusCode: number, guidance: Partial<ScrapeResultBody['guidance']>): ScrapeResultBody => ({
  html: '<p>x</p>',
  markdown: null,
  statusCode,
  message: 'OK',
  screenshot: null,
  executionTime: 0.4321,
  extracted_data: null,
  evaluate_results: null,
  network_requests: null,
  potentiallyBlockedByCaptcha: false,
  timings: { total_ms: 432 },
  guidance: {
    success: true,
    error_type: null,
    error_provider: null,
    credits_charged: 1,
    credits_refunded: false,
    next_steps: [],
    suggested_request: null,
    stop_reason: null,
    ...guidance,
  },
  content_type: 'text/html',
  body_base64: null,
  body_url: null,
});

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
