import type { ScrapeResultBody } from '@lib/contracts';
import { extractionTestOf, MAIN_CONTENT_MIN_CHARS } from './url-analysis';

const result = (markdown: string, success = true): ScrapeResultBody => ({
  html: null,
  markdown,
  statusCode: 200,
  message: 'OK',
  screenshot: null,
  executionTime: 0.2,
  extracted_data: null,
  evaluate_results: null,
  network_requests: null,
  potentiallyBlockedByCaptcha: false,
  timings: {},
  guidance: {
    success,
    error_type: success ? null : 'empty_shell',
    error_provider: null,
    credits_charged: 1,
    credits_refunded: false,
    next_steps: [],
    suggested_request: null,
    stop_reason: null,
  },
  content_type: 'text/html',
  body_base64: null,
  body_url: null,
});

describe('extractionTestOf (the extract_html mode test)', () => {
  it('passes an article whose main content converted', () => {
    expect(extractionTestOf(result('x'.repeat(MAIN_CONTENT_MIN_CHARS)), 5000)).toMatchObject({ success: true, error: null, credits: 1 });
  });
  it('fails a long page whose extraction kept next to nothing', () => {
    expect(extractionTestOf(result('# Menu'), 5000)).toMatchObject({ success: false, error: 'thin_main_content', status_code: 200 });
  });
  it('passes a page that is simply short, when the extraction kept half of it', () => {
    expect(extractionTestOf(result('A short note of sixty characters or so, kept whole here.'), 90)).toMatchObject({ success: true });
    expect(extractionTestOf(result('A short'), 90)).toMatchObject({ success: false, error: 'thin_main_content' });
  });
  it('keeps the fetch verdict when the fetch itself failed', () => {
    expect(extractionTestOf(result('', false), 0)).toMatchObject({ success: false, error: 'empty_shell' });
  });
});
